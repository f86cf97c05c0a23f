//! `compat upgrades ENV... / --envs DIR`: each environment's upgrade rows from one catalog
//! load, where products are behind, and the upgrades safe everywhere.

use super::format_in_force;
use std::io::Read;

use compat::catalog::Scope;
use compat::report::fleet;
use compat::report::layout::Layout;

use super::progress::CommandProgress;
use super::upgrades::UpgradesArgs;
use super::{CUT_SHORT, CliError, OrderFormat, Outcome, scoped_each};

pub fn run(
    args: &UpgradesArgs,
    stdin: &mut dyn Read,
    deadline: Option<std::time::Instant>,
    layout: &Layout,
) -> Result<Outcome, CliError> {
    let mut inputs = super::fleet::load(&args.inputs, stdin, |env| {
        Scope::upgrades(env, [], false, false)
    })?;
    let policy_warnings = args.policy.apply_all(&mut inputs.envs, &inputs.config)?;
    let scoped = scoped_each(&inputs.catalog, &inputs.catalog_path);
    let progress = CommandProgress::new("upgrades", args.progress);
    let result = compat::fleet::upgrades(
        &inputs.envs,
        &inputs.catalog,
        args.pre,
        compat::solve::default_engine(),
        deadline,
        &scoped,
        progress.sink(),
    );
    progress.finish();
    let format = format_in_force(args.format, &inputs.config, OrderFormat::Human);
    let outdated = args.outdated.unwrap_or(format == OrderFormat::Markdown);
    let stdout = match format {
        OrderFormat::Human => fleet::human::upgrades(&result, layout),
        OrderFormat::Json => fleet::json::upgrades(&result, outdated),
        OrderFormat::Markdown => fleet::markdown::upgrades(&result),
    };
    let mut outcome = Outcome::new(stdout, true);
    if let Some(code) = args.exit_code
        && result.any_safe()
    {
        outcome.code = code;
    }
    if !result.proven() {
        outcome.code = CUT_SHORT;
    }
    outcome.warnings = inputs.warnings(true);
    outcome.warnings.extend(policy_warnings);
    Ok(outcome)
}
