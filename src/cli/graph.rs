//! `compat graph`: the environment's dependency graph as Graphviz DOT or Mermaid.

use std::path::PathBuf;

use clap::{Args, ValueEnum};
use compat::catalog::Scope;
use compat::report;
use compat::validate;

use super::{CliError, Outcome, env_warnings, load_inputs};

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum GraphFormat {
    Dot,
    Mermaid,
}

#[derive(Debug, Args)]
pub struct GraphArgs {
    /// The environment file (YAML or JSON)
    pub env: PathBuf,
    /// A catalog directory of manifests, or a catalog file made by `compat catalog import`
    #[arg(long, value_name = "PATH")]
    pub catalog: PathBuf,
    #[arg(short, long, value_enum, default_value_t = GraphFormat::Dot)]
    pub format: GraphFormat,
}

pub fn run(args: &GraphArgs) -> Result<Outcome, CliError> {
    let (env, catalog) = load_inputs(&args.env, &args.catalog, Scope::entities)?;
    let validation = validate::validate(&env, &catalog);
    let graph = compat::graph::build(&env, &catalog, Some(&validation));
    let stdout = match args.format {
        GraphFormat::Dot => report::dot::graph(&graph),
        GraphFormat::Mermaid => report::mermaid::graph(&graph),
    };
    let mut outcome = Outcome::new(stdout, true);
    outcome.warnings = env_warnings(&env);
    Ok(outcome)
}
