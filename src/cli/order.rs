//! `compat order`: install order of the environment's entities, in waves.

use super::format_in_force;
use std::io::Read;

use clap::Args;
use compat::catalog::Scope;
use compat::report::layout::Layout;
use compat::report::{self, human};

use super::{CliError, InputArgs, LimitArgs, OrderFormat, Outcome, OutputArg, load_inputs};

#[derive(Debug, Args)]
#[command(after_long_help = "\
Example:
  compat order testdata/examples/env-valid.yml --catalog testdata/examples/catalog")]
pub struct OrderArgs {
    #[command(flatten)]
    pub inputs: InputArgs,
    #[command(flatten)]
    pub policy: super::PolicyArg,
    /// Order every entity, as for a new environment, not only the managed ones
    #[arg(long)]
    pub from_scratch: bool,
    /// Order groups of entities instead: by `namespace`, or by a label's value
    /// (`label:KEY`, say `label:host`); entities without the key form the group ""
    #[arg(long, value_name = "KEY", value_parser = compat::grouping::GroupBy::parse)]
    pub by: Option<compat::grouping::GroupBy>,
    /// Output format [default: `format` in compat.toml, else human]
    #[arg(short, long, value_enum)]
    pub format: Option<OrderFormat>,
    #[command(flatten)]
    pub out: OutputArg,
    #[command(flatten)]
    pub limits: LimitArgs,
}

pub fn run(args: &OrderArgs, stdin: &mut dyn Read, layout: &Layout) -> Result<Outcome, CliError> {
    let mut inputs = load_inputs(&args.inputs, stdin, Scope::entities)?;
    let policy_warnings = args.policy.apply(&mut inputs.env, &inputs.config)?;
    let graph = compat::graph::build(&inputs.env, &inputs.catalog, None);
    let invalid = super::invalid_declarations(&inputs.env, &inputs.catalog, args.from_scratch);
    let format = format_in_force(args.format, &inputs.config, OrderFormat::Human);
    if let Some(by) = &args.by {
        let groups = compat::grouping::group_order(&graph, args.from_scratch, by);
        let stdout = match format {
            OrderFormat::Human => human::group_order(&groups, layout),
            OrderFormat::Json => report::json::group_order(&groups),
            OrderFormat::Markdown => report::markdown::group_order(&groups),
        };
        let mut outcome = Outcome::new(stdout, groups.runnable());
        outcome.warnings = inputs.warnings();
        outcome.warnings.extend(policy_warnings);
        outcome.warnings.extend(invalid);
        return Ok(outcome);
    }
    let result = compat::order::install_order(&graph, args.from_scratch);
    let stdout = match format {
        OrderFormat::Human => human::install_order(&result, layout),
        OrderFormat::Json => report::json::install_order(&result),
        OrderFormat::Markdown => report::markdown::install_order(&result),
    };
    let mut outcome = Outcome::new(stdout, result.runnable());
    outcome.warnings = inputs.warnings();
    outcome.warnings.extend(policy_warnings);
    outcome.warnings.extend(invalid);
    Ok(outcome)
}
