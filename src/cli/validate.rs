//! `compat validate`: every constraint of the installed releases, in the format asked for.

use std::io::Read;

use clap::{Args, ValueEnum};
use compat::catalog::Scope;
use compat::finding::Severity;
use compat::report::{self, human};
use compat::validate;

use super::fleet::{self, FleetInputArgs};
use super::{CliError, LimitArgs, Outcome, OutputArg, env_warnings, load_inputs};

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ValidateFormat {
    /// A table of findings and a summary line, for people
    Human,
    /// JSON for programs: every check and finding
    Json,
    /// JUnit XML for CI test reports: one test case per checked constraint
    Junit,
    /// GitHub Actions annotations (`::error`) at the declaration, then a summary line
    Github,
    /// SARIF 2.1.0 for code-scanning tools: one result per finding
    Sarif,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum FailOn {
    /// Only errors fail the run
    Error,
    /// Warnings fail the run too
    Warning,
}

#[derive(Debug, Args)]
#[command(after_long_help = "\
Examples:
  compat validate testdata/examples/env-valid.yml --catalog testdata/examples/catalog
  compat validate --envs testdata/fleet --catalog testdata/examples/catalog")]
pub struct ValidateArgs {
    #[command(flatten)]
    pub inputs: FleetInputArgs,
    /// Output format
    #[arg(short, long, value_enum, default_value_t = ValidateFormat::Human)]
    pub format: ValidateFormat,
    #[command(flatten)]
    pub out: OutputArg,
    /// The lowest severity that makes the run fail (exit 1)
    #[arg(long, value_enum, default_value_t = FailOn::Error)]
    pub fail_on: FailOn,
    #[command(flatten)]
    pub limits: LimitArgs,
}

pub fn run(args: &ValidateArgs, stdin: &mut dyn Read) -> Result<Outcome, CliError> {
    let Some(single) = args.inputs.single() else {
        return run_fleet(args, stdin);
    };
    let inputs = load_inputs(&single, stdin, Scope::installed)?;
    let catalog = inputs
        .catalog
        .clone()
        .with_hint_releases(&*inputs.source, &inputs.env)?;
    let mut result = validate::validate(&inputs.env, &catalog);
    // Unreadable catalog files are findings here, not warnings (SPEC section 8); the hints
    // of unknown releases mention them.
    result.add_unreadable(inputs.unreadable());
    result.add_hints(&catalog);
    let fail_on = args.fail_on.severity();
    let stdout = match args.format {
        ValidateFormat::Human => human::validation(&result, fail_on),
        ValidateFormat::Json => report::json::validation(&result, fail_on),
        ValidateFormat::Junit => report::junit::validation(&result, fail_on),
        ValidateFormat::Github => report::github::validation(&result, fail_on),
        ValidateFormat::Sarif => report::sarif::validation(&result),
    };
    let mut outcome = Outcome::new(stdout, result.passes(fail_on));
    outcome.warnings = env_warnings(&inputs.env);
    Ok(outcome)
}

impl FailOn {
    fn severity(self) -> Severity {
        match self {
            FailOn::Error => Severity::Error,
            FailOn::Warning => Severity::Warning,
        }
    }
}

/// Several environments: one catalog load, each environment validated as alone, then the
/// fleet summary; fails when any environment fails.
fn run_fleet(args: &ValidateArgs, stdin: &mut dyn Read) -> Result<Outcome, CliError> {
    let inputs = fleet::load(&args.inputs, stdin, Scope::installed)?;
    let catalog = inputs
        .catalog
        .clone()
        .with_hint_releases_for(&*inputs.source, &inputs.envs)?;
    let fail_on = args.fail_on.severity();
    let result =
        compat::fleet::validate(&inputs.envs, &catalog, inputs.source.unreadable(), fail_on);
    let stdout = match args.format {
        ValidateFormat::Human => report::fleet::human::validation(&result, fail_on),
        ValidateFormat::Json => report::fleet::json::validation(&result, fail_on),
        ValidateFormat::Junit => report::fleet::junit::validation(&result, fail_on),
        ValidateFormat::Github => report::fleet::github::validation(&result, fail_on),
        ValidateFormat::Sarif => report::fleet::sarif::validation(&result),
    };
    let mut outcome = Outcome::new(stdout, result.passes());
    outcome.warnings = inputs.warnings(false);
    Ok(outcome)
}
