//! `compat lint`: manifest files checked alone.

use std::path::PathBuf;

use clap::Args;
use compat::finding::Severity;
use compat::report::layout::Layout;
use compat::report::{self, human};
use compat::{lint, loader};

use super::{CliError, Format, LimitArgs, Outcome, OutputArg, hidden};

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
    #[arg(short, long, value_enum, default_value_t = Format::Human)]
    pub format: Format,
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
        Format::Human => human::lint(&result, layout),
        Format::Json => report::json::lint(&result),
    };
    Ok(Outcome::new(stdout, ok))
}
