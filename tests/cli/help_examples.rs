//! Every example a `--help` shows runs: each subcommand's help (found by walking the
//! `Commands:` lists, so a new command is covered without touching this file) is read for its
//! `Example:` block, and each example is run by bash from a scratch directory that sees the
//! repository's `testdata/` (files an example writes land there, `~` is the scratch
//! directory). `compat` is a shell function that runs the binary built for the tests and
//! records its exit code: none may be 2 (usage) or 3 (unreadable input), and every example
//! must have run `compat` at least once. Other tools in a pipeline (`dot`, `man`) may be
//! missing; only compat is judged.

use std::path::Path;
use std::process::{Command, Stdio};

use super::scratch;

fn help(path: &[&str]) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_compat"))
        .args(path)
        .arg("--help")
        .output()
        .unwrap();
    assert!(out.status.success(), "{path:?} --help");
    String::from_utf8(out.stdout).unwrap()
}

/// The names listed under `Commands:` (without `help`).
fn subcommands(help: &str) -> Vec<String> {
    help.lines()
        .skip_while(|l| *l != "Commands:")
        .skip(1)
        .take_while(|l| !l.is_empty())
        // a name sits at two spaces; a wrapped description deeper
        .filter(|l| l.starts_with("  ") && !l.starts_with("   "))
        .filter_map(|l| l.split_whitespace().next())
        .filter(|name| *name != "help")
        .map(str::to_owned)
        .collect()
}

/// The examples of one help text: the indented lines after `Example:` or `Examples:`, one
/// example per blank-line-separated block, up to the first line that is not indented.
fn examples(help: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut block = String::new();
    let mut lines = help
        .lines()
        .skip_while(|l| !matches!(l.trim_end(), "Example:" | "Examples:"))
        .skip(1);
    for line in lines.by_ref() {
        if line.trim().is_empty() {
            if !block.is_empty() {
                out.push(std::mem::take(&mut block));
            }
        } else if line.starts_with("  ") {
            block.push_str(line.trim());
            block.push('\n');
        } else {
            break;
        }
    }
    if !block.is_empty() {
        out.push(block);
    }
    out
}

/// Every command path with its help text: the root, each command, each subcommand.
fn every_help() -> Vec<(Vec<String>, String)> {
    let mut todo: Vec<Vec<String>> = vec![Vec::new()];
    let mut out = Vec::new();
    while let Some(path) = todo.pop() {
        let args: Vec<&str> = path.iter().map(String::as_str).collect();
        let text = help(&args);
        for name in subcommands(&text) {
            let mut child = path.clone();
            child.push(name);
            todo.push(child);
        }
        out.push((path, text));
    }
    out.sort();
    out
}

/// The parent directories of files an example redirects its output to, so `> ~/a/b` works.
fn make_redirect_dirs(example: &str, home: &Path) {
    let words: Vec<&str> = example.split_whitespace().collect();
    for pair in words.windows(2) {
        if pair[0] == ">" {
            let target = pair[1].replacen('~', &home.display().to_string(), 1);
            let target = home.join(target);
            if let Some(parent) = target.parent() {
                std::fs::create_dir_all(parent).unwrap();
            }
        }
    }
}

#[test]
fn every_help_example_runs() {
    let root = std::env::current_dir().unwrap();
    let dir = scratch("help-examples");
    std::os::unix::fs::symlink(root.join("testdata"), dir.join("testdata")).unwrap();
    let codes = dir.join("codes");
    let mut seen = 0;
    for (path, text) in every_help() {
        for example in examples(&text) {
            seen += 1;
            let _ = std::fs::remove_file(&codes);
            make_redirect_dirs(&example, &dir);
            let script = format!(
                "set -o pipefail\n\
                 compat() {{ \"$COMPAT_BIN\" \"$@\"; local rc=$?; echo $rc >> \"$CODES\"; return $rc; }}\n\
                 {}",
                // continuation lines join as the shell would join them
                example.replace("\\\n", " ")
            );
            let out = Command::new("bash")
                .arg("-c")
                .arg(&script)
                .current_dir(&dir)
                .env("COMPAT_BIN", env!("CARGO_BIN_EXE_compat"))
                .env("CODES", &codes)
                .env("HOME", &dir)
                .env("PAGER", "cat")
                .env("MANPAGER", "cat")
                .stdin(Stdio::null())
                .output()
                .unwrap();
            let recorded = std::fs::read_to_string(&codes).unwrap_or_default();
            let context = format!(
                "example of `compat {}`:\n{example}\nstderr:\n{}",
                path.join(" "),
                String::from_utf8_lossy(&out.stderr)
            );
            assert!(!recorded.is_empty(), "compat never ran: {context}");
            for code in recorded.lines() {
                assert!(
                    !matches!(code, "2" | "3"),
                    "compat exited {code}: {context}"
                );
            }
        }
    }
    // the root's, and one per command at least
    assert!(seen >= 15, "only {seen} examples found");
}

#[test]
fn every_command_shows_an_example() {
    for (path, text) in every_help() {
        if subcommands(&text).is_empty() {
            assert!(
                !examples(&text).is_empty(),
                "`compat {} --help` shows no example",
                path.join(" ")
            );
        }
    }
}
