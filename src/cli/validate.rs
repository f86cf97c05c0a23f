//! `compat validate`: every constraint of the installed releases, in the format asked for.

use std::io::Read;

use clap::{Args, ValueEnum};
use compat::accept::{AllowList, Rule};
use compat::catalog::Scope;
use compat::config::Config;
use compat::finding::Severity;
use compat::report::layout::Layout;
use compat::report::{self, human};
use compat::validate;

use super::fleet::{self, FleetInputArgs};
use super::{CliError, LimitArgs, Outcome, OutputArg, format_in_force, load_inputs};

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
    #[command(flatten)]
    pub policy: super::PolicyArg,
    /// Output format [default: `format` in compat.toml, else human]
    #[arg(short, long, value_enum)]
    pub format: Option<ValidateFormat>,
    #[command(flatten)]
    pub out: OutputArg,
    /// The lowest severity that makes the run fail (exit 1); accepted findings never do
    /// [default: `fail-on` in compat.toml, else error]
    #[arg(long, value_enum)]
    pub fail_on: Option<FailOn>,
    /// Accept the findings of CODE (of PRODUCT's releases only, with `=PRODUCT`): they are
    /// still reported, marked accepted, but do not fail the run; repeatable, added to the
    /// config file's `[[allow]]` entries
    #[arg(long, value_name = "CODE[=PRODUCT]", value_parser = Rule::from_flag)]
    pub allow: Vec<Rule>,
    #[command(flatten)]
    pub limits: LimitArgs,
}

pub fn run(
    args: &ValidateArgs,
    stdin: &mut dyn Read,
    layout: &Layout,
) -> Result<Outcome, CliError> {
    let Some(single) = args.inputs.single() else {
        return run_fleet(args, stdin, layout);
    };
    let mut inputs = load_inputs(&single, stdin, Scope::installed)?;
    let policy_warnings = args.policy.apply(&mut inputs.env, &inputs.config)?;
    let catalog = inputs
        .catalog
        .clone()
        .with_hint_releases(&*inputs.source, &inputs.env)?;
    let mut result = validate::validate(&inputs.env, &catalog);
    // Unreadable catalog files are findings here, not warnings (SPEC section 8); the hints
    // of unknown releases mention them.
    result.add_unreadable(inputs.unreadable());
    result.add_hints(&catalog);
    let config = &inputs.config;
    allow_list(args, config).apply(result.findings_mut());
    let fail_on = args.fail_on(config);
    let stdout = match args.format(config) {
        ValidateFormat::Human => human::validation(&result, fail_on, layout),
        ValidateFormat::Json => report::json::validation(&result, fail_on),
        ValidateFormat::Junit => report::junit::validation(&result, fail_on),
        ValidateFormat::Github => report::github::validation(&result, fail_on),
        ValidateFormat::Sarif => report::sarif::validation(&result),
    };
    let mut outcome = Outcome::new(stdout, result.passes(fail_on));
    outcome.warnings = inputs.validate_warnings();
    outcome.warnings.extend(policy_warnings);
    Ok(outcome)
}

impl ValidateArgs {
    /// The failure level: the flag, else the config file's, else error.
    fn fail_on(&self, config: &Config) -> Severity {
        match self.fail_on {
            Some(FailOn::Error) => Severity::Error,
            Some(FailOn::Warning) => Severity::Warning,
            None => config.fail_on.unwrap_or(Severity::Error),
        }
    }

    /// The format: the flag, else the config file's, else human.
    fn format(&self, config: &Config) -> ValidateFormat {
        format_in_force(self.format, config, ValidateFormat::Human)
    }
}

/// The rules in force: the config file's `[[allow]]`, then `--allow`.
fn allow_list(args: &ValidateArgs, config: &Config) -> AllowList {
    let mut allow = config.allow.clone();
    allow.rules.extend(args.allow.iter().cloned());
    allow
}

/// Several environments: one catalog load, each environment validated as alone, then the
/// fleet summary; fails when any environment fails.
fn run_fleet(
    args: &ValidateArgs,
    stdin: &mut dyn Read,
    layout: &Layout,
) -> Result<Outcome, CliError> {
    let mut inputs = fleet::load(&args.inputs, stdin, Scope::installed)?;
    let policy_warnings = args.policy.apply_all(&mut inputs.envs, &inputs.config)?;
    let catalog = inputs
        .catalog
        .clone()
        .with_hint_releases_for(&*inputs.source, &inputs.envs)?;
    let config = &inputs.config;
    let fail_on = args.fail_on(config);
    let result = compat::fleet::validate(
        &inputs.envs,
        &catalog,
        inputs.source.unreadable(),
        &allow_list(args, config),
        fail_on,
    );
    let stdout = match args.format(config) {
        ValidateFormat::Human => report::fleet::human::validation(&result, fail_on, layout),
        ValidateFormat::Json => report::fleet::json::validation(&result, fail_on),
        ValidateFormat::Junit => report::fleet::junit::validation(&result, fail_on),
        ValidateFormat::Github => report::fleet::github::validation(&result, fail_on),
        ValidateFormat::Sarif => report::fleet::sarif::validation(&result),
    };
    let mut outcome = Outcome::new(stdout, result.passes());
    outcome.warnings = inputs.warnings(false);
    outcome.warnings.extend(policy_warnings);
    Ok(outcome)
}
