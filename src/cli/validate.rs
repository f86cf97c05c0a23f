//! `compat validate`: every constraint of the installed releases, in the format asked for.

use std::path::PathBuf;

use clap::{Args, ValueEnum};
use compat::catalog::Scope;
use compat::finding::Severity;
use compat::report::{self, human};
use compat::validate;

use super::{CliError, Outcome, env_warnings, load_inputs};

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ValidateFormat {
    Human,
    Json,
    Junit,
    Github,
    Sarif,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum FailOn {
    Error,
    Warning,
}

#[derive(Debug, Args)]
pub struct ValidateArgs {
    /// The environment file (YAML or JSON)
    pub env: PathBuf,
    /// A catalog directory of manifests, or a catalog file made by `compat catalog import`
    #[arg(long, value_name = "PATH")]
    pub catalog: PathBuf,
    #[arg(short, long, value_enum, default_value_t = ValidateFormat::Human)]
    pub format: ValidateFormat,
    /// The lowest severity that makes the run fail (exit 1)
    #[arg(long, value_enum, default_value_t = FailOn::Error)]
    pub fail_on: FailOn,
}

pub fn run(args: &ValidateArgs) -> Result<Outcome, CliError> {
    let (env, catalog) = load_inputs(&args.env, &args.catalog, Scope::installed)?;
    let result = validate::validate(&env, &catalog);
    let fail_on = match args.fail_on {
        FailOn::Error => Severity::Error,
        FailOn::Warning => Severity::Warning,
    };
    let stdout = match args.format {
        ValidateFormat::Human => human::validation(&result, fail_on),
        ValidateFormat::Json => report::json::validation(&result, fail_on),
        ValidateFormat::Junit => report::junit::validation(&result, fail_on),
        ValidateFormat::Github => report::github::validation(&result, fail_on),
        ValidateFormat::Sarif => report::sarif::validation(&result),
    };
    let mut outcome = Outcome::new(stdout, result.passes(fail_on));
    outcome.warnings = env_warnings(&env);
    Ok(outcome)
}
