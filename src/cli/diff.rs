//! `compat diff`: the entities added, removed and moved between two environment files, each
//! judged safe or not against the new one.

use compat::report::layout::Layout;
use std::io::Read;
use std::path::{Path, PathBuf};

use clap::Args;
use compat::accept::Rule;
use compat::catalog::Scope;
use compat::finding::Severity;
use compat::loader;
use compat::report;

use super::validate::FailOn;
use super::{
    CliError, InputArgs, LimitArgs, OrderFormat, Outcome, OutputArg, env_warnings, format_in_force,
    load_inputs,
};

#[derive(Debug, Args)]
#[command(mut_arg("env", |a| a
    .value_name("NEW")
    .help("The environment after the change (YAML or JSON); `-` reads it from standard input")))]
#[command(after_long_help = "\
Example:
  compat diff testdata/examples/env-valid.yml testdata/cases/diff/env-next.yml \\
    --catalog testdata/examples/catalog -f markdown

  # OLD from standard input, as in `git show main:env.yml | compat diff - env.yml ...`
  compat diff - testdata/cases/diff/env-next.yml --catalog testdata/examples/catalog \\
    < testdata/examples/env-valid.yml")]
pub struct DiffArgs {
    /// The environment before the change (YAML or JSON); `-` reads it from standard input
    pub old: PathBuf,
    #[command(flatten)]
    pub inputs: InputArgs,
    /// The lowest severity of a finding a change causes that makes it unsafe (exit 1)
    /// [default: `fail-on` in compat.toml, else error]
    #[arg(long, value_enum)]
    pub fail_on: Option<FailOn>,
    /// Accept the findings of CODE (of PRODUCT's releases only, with `=PRODUCT`): a change
    /// that causes only accepted findings is safe; repeatable, added to the config file's
    /// `[[allow]]` entries
    #[arg(long, value_name = "CODE[=PRODUCT]", value_parser = Rule::from_flag)]
    pub allow: Vec<Rule>,
    /// Output format [default: `format` in compat.toml, else human]
    #[arg(short, long, value_enum)]
    pub format: Option<OrderFormat>,
    #[command(flatten)]
    pub out: OutputArg,
    #[command(flatten)]
    pub limits: LimitArgs,
}

pub fn run(args: &DiffArgs, stdin: &mut dyn Read, layout: &Layout) -> Result<Outcome, CliError> {
    let old = if args.old == Path::new("-") {
        if args.inputs.env == Path::new("-") {
            return Err(CliError::Usage(
                "OLD and NEW cannot both be `-` (standard input)".to_owned(),
            ));
        }
        loader::read_environment_from(stdin)?
    } else {
        loader::read_environment(&args.old)?
    };
    let inputs = load_inputs(&args.inputs, stdin, Scope::installed)?;
    let old_catalog = inputs.source.load(&Scope::installed(&old))?;
    let config = &inputs.config;
    let mut allow = config.allow.clone();
    allow.rules.extend(args.allow.iter().cloned());
    let fail_on = match args.fail_on {
        Some(FailOn::Error) => Severity::Error,
        Some(FailOn::Warning) => Severity::Warning,
        None => config.fail_on.unwrap_or(Severity::Error),
    };
    let result = compat::changes::diff(
        &old,
        &old_catalog,
        &inputs.env,
        &inputs.catalog,
        &allow,
        fail_on,
    );
    let format = format_in_force(args.format, config, OrderFormat::Human);
    let stdout = match format {
        OrderFormat::Human => report::diff::human(&result, layout),
        OrderFormat::Json => report::diff::json(&result),
        OrderFormat::Markdown => report::diff::markdown(&result),
    };
    let mut outcome = Outcome::new(stdout, result.safe());
    outcome.warnings = env_warnings(&old);
    outcome.warnings.extend(inputs.warnings());
    Ok(outcome)
}
