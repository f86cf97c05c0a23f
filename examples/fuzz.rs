//! A mutation fuzzer for compat's parsers that runs on stable Rust, for CI (the
//! coverage-guided targets in `fuzz/` need a nightly toolchain, which CI cannot count on).
//! It starts from a corpus (the files under `testdata/fuzz/` plus every manifest and
//! environment under `testdata/`), mutates
//! inputs with byte edits and YAML-shaped tokens, and feeds them to the version, matcher,
//! manifest and environment parsers, catching panics, and checks that the fast
//! readers agree with the full YAML parser. A panic or disagreement is a finding: the input is
//! written to `target/fuzz-crashes/` and the run exits 1.
//!
//! Run: `cargo run --release --example fuzz -- SECONDS [SEED]`. CI runs a short pass.

// A command-line program of its own: its report goes to stdout.
#![allow(clippy::print_stdout)]

use std::panic;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use compat::generate::Rng;
use compat::matcher::Matcher;
use compat::version::Version;
use compat::{environment, manifest};

/// Pieces of YAML and version syntax worth splicing in.
const TOKENS: &[&str] = &[
    ": ",
    "- ",
    "\n",
    "  ",
    "---\n",
    "...",
    "&a ",
    "*a",
    "<<: *a",
    "!!str ",
    "!tag ",
    "{",
    "}",
    "[",
    "]",
    ",",
    "\"",
    "'",
    "#",
    "|",
    ">",
    "~",
    "null",
    "true",
    "1.10",
    "x",
    ".x",
    "-rc",
    "-g",
    "2147483648",
    "0",
    ".dirty",
    "\u{feff}",
    "\t",
    "\r\n",
    "%YAML 1.2\n",
    "? ",
];

fn mutate(rng: &mut Rng, input: &[u8], corpus: &[Vec<u8>]) -> Vec<u8> {
    let mut out = input.to_vec();
    for _ in 0..=rng.below(4) {
        let at = rng.below(out.len() + 1);
        match rng.below(7) {
            0 if !out.is_empty() => {
                let i = rng.below(out.len());
                out[i] ^= 1 << rng.below(8);
            }
            1 if !out.is_empty() => {
                let end = (at + rng.below(8)).min(out.len());
                out.drain(at.min(end)..end);
            }
            2 => {
                let token = TOKENS[rng.below(TOKENS.len())].as_bytes();
                out.splice(at..at, token.iter().copied());
            }
            3 if !out.is_empty() => {
                let start = rng.below(out.len());
                let end = (start + rng.below(32)).min(out.len());
                let piece = out[start..end].to_vec();
                out.splice(at..at, piece);
            }
            4 => {
                let other = &corpus[rng.below(corpus.len())];
                let start = rng.below(other.len() + 1);
                let end = (start + rng.below(64)).min(other.len());
                out.splice(at..at, other[start..end].iter().copied());
            }
            5 => out.insert(at, u8::try_from(rng.below(256)).unwrap_or(0)),
            _ => out.truncate(at),
        }
    }
    out
}

/// Feeds one input to every parser; a panic escapes to the caller.
fn exercise(input: &[u8]) {
    let text = String::from_utf8_lossy(input);
    let _ = Version::parse(&text);
    let _ = Matcher::parse(&text);
    if let Ok(v) = Version::parse(&text) {
        // printing and parsing again must agree
        assert_eq!(Version::parse(&v.to_string()).ok(), Some(v));
    }
    // the fast readers must agree with the full YAML parser wherever they answer
    if let Err(difference) = manifest::cross_check(&text) {
        panic!("the two manifest readers disagree:\n{difference}");
    }
    if let Err(difference) = environment::cross_check(&text) {
        panic!("the two environment readers disagree:\n{difference}");
    }
    let file: Arc<str> = Arc::from("fuzz.yml");
    if let Ok(manifests) = manifest::parse(&text, &file) {
        for m in &manifests {
            assert!(m.dependencies.iter().all(|d| !d.range.is_empty()));
        }
    }
    let _ = environment::parse(&text, &file, "fuzz");
}

fn files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<PathBuf> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
    entries.sort();
    for path in entries {
        let name = path.to_string_lossy();
        let wanted = name.contains("testdata/fuzz/")
            || ["yml", "yaml", "json"]
                .iter()
                .any(|e| path.extension().is_some_and(|x| x == *e));
        if path.is_dir() {
            files(&path, out);
        } else if wanted && path.metadata().is_ok_and(|m| m.len() < 64 * 1024) {
            out.push(path);
        }
    }
}

fn main() {
    let mut args = std::env::args().skip(1);
    let seconds: u64 = args.next().and_then(|s| s.parse().ok()).unwrap_or(10);
    let seed: u64 = args.next().and_then(|s| s.parse().ok()).unwrap_or(1);
    let mut paths = Vec::new();
    files(Path::new("testdata"), &mut paths);
    let corpus: Vec<Vec<u8>> = paths.iter().filter_map(|p| std::fs::read(p).ok()).collect();
    assert!(
        !corpus.is_empty(),
        "run from the repository root: no corpus under testdata/"
    );
    panic::set_hook(Box::new(|_| {})); // findings are reported below, once
    // Small limits keep every input cheap; the limits themselves are exercised this way too.
    compat::limits::set(compat::limits::Limits {
        file_bytes: 1024 * 1024,
        documents: 1000,
        depth: 64,
        nodes: 50_000,
        entities: 10_000,
        lock_wait_ms: 0,
    });
    let mut rng = Rng(seed);
    let deadline = Instant::now() + Duration::from_secs(seconds);
    let mut runs: u64 = 0;
    while Instant::now() < deadline {
        for _ in 0..256 {
            let base = &corpus[rng.below(corpus.len())];
            let input = mutate(&mut rng, base, &corpus);
            runs += 1;
            if panic::catch_unwind(|| exercise(&input)).is_err() {
                let dir = Path::new("target/fuzz-crashes");
                let _ = std::fs::create_dir_all(dir);
                let path = dir.join(format!("crash-{seed}-{runs}"));
                let _ = std::fs::write(&path, &input);
                println!("finding after {runs} inputs: written to {}", path.display());
                std::process::exit(1);
            }
        }
    }
    println!(
        "fuzz: {runs} inputs in {seconds} s from {} corpus files (seed {seed}), no finding",
        corpus.len()
    );
}
