//! `compat graph`: the environment's dependency graph as Graphviz DOT or Mermaid.

use std::io::Read;

use clap::{Args, ValueEnum};
use compat::catalog::Scope;
use compat::report;
use compat::validate;

use super::{CliError, InputArgs, LimitArgs, Outcome, OutputArg, load_inputs};

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum GraphFormat {
    /// Graphviz DOT, for `dot -Tsvg`
    Dot,
    /// A Mermaid flowchart, which GitHub and GitLab render in Markdown
    Mermaid,
}

#[derive(Debug, Args)]
#[command(after_long_help = "\
Example:
  compat graph testdata/examples/env-broken.yml --catalog testdata/examples/catalog \\
    | dot -Tsvg > graph.svg")]
pub struct GraphArgs {
    #[command(flatten)]
    pub inputs: InputArgs,
    /// Output format
    #[arg(short, long, value_enum, default_value_t = GraphFormat::Dot)]
    pub format: GraphFormat,
    #[command(flatten)]
    pub out: OutputArg,
    #[command(flatten)]
    pub limits: LimitArgs,
}

pub fn run(args: &GraphArgs, stdin: &mut dyn Read) -> Result<Outcome, CliError> {
    let inputs = load_inputs(&args.inputs, stdin, Scope::entities)?;
    let validation = validate::validate(&inputs.env, &inputs.catalog);
    let graph = compat::graph::build(&inputs.env, &inputs.catalog, Some(&validation));
    let stdout = match args.format {
        GraphFormat::Dot => report::dot::graph(&graph),
        GraphFormat::Mermaid => report::mermaid::graph(&graph),
    };
    let mut outcome = Outcome::new(stdout, true);
    outcome.warnings = inputs.warnings();
    Ok(outcome)
}
