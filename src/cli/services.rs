//! `compat services`: the environment's service list, per capability its providers and its
//! consumers with the provider each is bound to.

use std::io::Read;

use clap::Args;
use compat::catalog::Scope;
use compat::report;
use compat::report::layout::Layout;

use super::{
    CliError, Format, InputArgs, LimitArgs, Outcome, OutputArg, format_in_force, load_inputs,
};

#[derive(Debug, Args)]
#[command(after_long_help = "\
Only installed entities count. A consumer is bound to the best provider of its serving set
(SPEC section 10: its binding, else its namespace, else the global one; in range first, then
the highest version, then the name).

Example:
  compat services testdata/examples/instances/puppet/env-running.yml \\
    --catalog testdata/examples/instances/puppet/catalog")]
pub struct ServicesArgs {
    #[command(flatten)]
    pub inputs: InputArgs,
    /// Output format [default: `format` in compat.toml, else human]
    #[arg(short, long, value_enum)]
    pub format: Option<Format>,
    #[command(flatten)]
    pub out: OutputArg,
    #[command(flatten)]
    pub limits: LimitArgs,
}

pub fn run(
    args: &ServicesArgs,
    stdin: &mut dyn Read,
    layout: &Layout,
) -> Result<Outcome, CliError> {
    let inputs = load_inputs(&args.inputs, stdin, Scope::entities)?;
    let list = compat::services::services(&inputs.env, &inputs.catalog);
    let stdout = match format_in_force(args.format, &inputs.config, Format::Human) {
        Format::Human => report::services::human(&inputs.env.name, &list, layout),
        Format::Json => report::services::json(&inputs.env.name, &list),
    };
    let mut outcome = Outcome::new(stdout, true);
    outcome.warnings = inputs.warnings();
    Ok(outcome)
}
