//! `compat why`: who requires a product in the environment, and what bounds its upgrade.

use compat::report::layout::Layout;
use std::io::Read;

use clap::Args;
use compat::catalog::Scope;
use compat::product::ProductId;
use compat::report;

use super::{
    CliError, Format, InputArgs, LimitArgs, Outcome, OutputArg, argument, format_in_force,
    load_inputs,
};

#[derive(Debug, Args)]
#[command(after_long_help = "\
Example:
  compat why com.example:api testdata/examples/env-valid.yml --catalog testdata/examples/catalog")]
pub struct WhyArgs {
    /// The product asked about (`group:name`)
    pub product: String,
    #[command(flatten)]
    pub inputs: InputArgs,
    /// Release candidates and snapshots count as newer releases too
    #[arg(long)]
    pub pre: bool,
    /// Output format [default: `format` in compat.toml, else human]
    #[arg(short, long, value_enum)]
    pub format: Option<Format>,
    #[command(flatten)]
    pub out: OutputArg,
    #[command(flatten)]
    pub limits: LimitArgs,
}

pub fn run(args: &WhyArgs, stdin: &mut dyn Read, layout: &Layout) -> Result<Outcome, CliError> {
    let product = ProductId::parse(&args.product).map_err(|e| argument("PRODUCT", e))?;
    let inputs = load_inputs(&args.inputs, stdin, |env| {
        Scope::upgrades(env, [&product], false, false)
    })?;
    let (env, catalog) = (&inputs.env, &inputs.catalog);
    if catalog.releases(&product).is_empty() && env.entities.iter().all(|e| e.product != product) {
        let known = env
            .entities
            .iter()
            .map(|e| &e.product)
            .chain(catalog.products());
        let mut similar: Vec<String> = compat::suggest::similar_products(&product, known)
            .into_iter()
            .map(ToString::to_string)
            .collect();
        similar.dedup();
        let hint = match similar.as_slice() {
            [] => String::new(),
            names => format!("; did you mean {}?", names.join(" or ")),
        };
        return Err(CliError::NotFound(format!(
            "{product} is neither in {} nor in the catalog{hint}",
            env.name
        )));
    }
    let answer = compat::dependents::dependents(env, catalog, &product, args.pre);
    let format = format_in_force(args.format, &inputs.config, Format::Human);
    let stdout = match format {
        Format::Human => report::why::human(&answer, layout),
        Format::Json => report::why::json(&answer),
    };
    let mut outcome = Outcome::new(stdout, true);
    outcome.warnings = inputs.warnings();
    Ok(outcome)
}
