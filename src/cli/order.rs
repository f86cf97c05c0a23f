//! `compat order`: install order of the environment's entities, in waves.

use std::path::PathBuf;

use clap::Args;
use compat::catalog::Scope;
use compat::report::{self, human};

use super::{CliError, OrderFormat, Outcome, env_warnings, load_inputs};

#[derive(Debug, Args)]
pub struct OrderArgs {
    /// The environment file (YAML or JSON)
    pub env: PathBuf,
    /// A catalog directory of manifests, or a catalog file made by `compat catalog import`
    #[arg(long, value_name = "PATH")]
    pub catalog: PathBuf,
    /// Order every entity, as for a new environment, not only the managed ones
    #[arg(long)]
    pub from_scratch: bool,
    #[arg(short, long, value_enum, default_value_t = OrderFormat::Human)]
    pub format: OrderFormat,
}

pub fn run(args: &OrderArgs) -> Result<Outcome, CliError> {
    let (env, catalog) = load_inputs(&args.env, &args.catalog, Scope::entities)?;
    let graph = compat::graph::build(&env, &catalog, None);
    let result = compat::order::install_order(&graph, args.from_scratch);
    let stdout = match args.format {
        OrderFormat::Human => human::install_order(&result),
        OrderFormat::Json => report::json::install_order(&result),
        OrderFormat::Markdown => report::markdown::install_order(&result),
    };
    let mut outcome = Outcome::new(stdout, result.missing.is_empty());
    outcome.warnings = env_warnings(&env);
    Ok(outcome)
}
