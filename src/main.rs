//! The `compat` binary: parse arguments, run, write stdout, map the outcome to an exit code.

// The one place that writes to the terminal: diagnostics go to stderr here, data to stdout.
#![allow(clippy::print_stderr)]

mod cli;

use std::io::Write;
use std::process::ExitCode;

use clap::Parser;

use cli::Cli;

/// The planner allocates per question (clauses, totalizers, rows); mimalloc spends far less
/// of its time there than the system allocator (BENCHMARKS.md). The library leaves the
/// choice to whoever links it.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    let args = Cli::parse(); // usage errors exit 2 here
    match cli::run(args, &mut std::io::stdin().lock()) {
        Ok(outcome) => {
            for warning in &outcome.warnings {
                eprintln!("warning: {warning}");
            }
            let mut stdout = std::io::stdout().lock();
            match stdout
                .write_all(outcome.stdout.as_bytes())
                .and_then(|()| stdout.flush())
            {
                Ok(()) => ExitCode::from(outcome.code),
                // A closed pipe (`compat ... | head`) is the reader's choice, not a failure.
                Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => {
                    ExitCode::from(outcome.code)
                }
                Err(e) => {
                    eprintln!("error: cannot write output: {e}");
                    ExitCode::from(3)
                }
            }
        }
        Err(error) => {
            for line in error.to_string().lines() {
                eprintln!("error: {line}");
            }
            ExitCode::from(error.exit_code())
        }
    }
}
