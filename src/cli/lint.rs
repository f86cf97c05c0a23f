//! `compat lint`: manifest files checked alone.

use std::path::PathBuf;

use clap::{Args, ValueEnum};
use compat::finding::Severity;
use compat::report::layout::Layout;
use compat::report::{self, human};
use compat::{lint, loader};

use super::{CliError, LimitArgs, Outcome, OutputArg, hidden};

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum LintFormat {
    /// A table of findings and a summary line, for people
    Human,
    /// JSON for programs: every finding
    Json,
    /// GitHub Actions annotations (`::error`) at the declaration, then a summary line
    Github,
    /// SARIF 2.1.0 for code-scanning tools: one result per finding
    Sarif,
}

#[derive(Debug, Args)]
// It reads no environment and opens no database.
#[command(mut_args(hidden(&["max_entities", "lock_timeout"])))]
#[command(after_long_help = "\
Example:
  compat lint testdata/examples/catalog")]
pub struct LintArgs {
    /// Manifest files, or directories searched like a catalog
    #[arg(required = true)]
    pub manifests: Vec<PathBuf>,
    /// Output format
    #[arg(short, long, value_enum, default_value_t = LintFormat::Human)]
    pub format: LintFormat,
    #[command(flatten)]
    pub out: OutputArg,
    #[command(flatten)]
    pub limits: LimitArgs,
}

pub fn run(args: &LintArgs, layout: &Layout) -> Result<Outcome, CliError> {
    let manifests = loader::read_manifest_paths(&args.manifests)?;
    let result = lint::lint(&manifests);
    let ok = result.findings.iter().all(|f| f.severity < Severity::Error);
    let stdout = match args.format {
        LintFormat::Human => human::lint(&result, layout),
        LintFormat::Json => report::json::lint(&result),
        LintFormat::Github => report::github::lint(&result),
        LintFormat::Sarif => report::sarif::lint(&result),
    };
    Ok(Outcome::new(stdout, ok))
}
