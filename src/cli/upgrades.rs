//! `compat upgrades`: the safe upgrade of each installed product and what blocks the newest.

use super::format_in_force;
use std::io::Read;

use clap::Args;
use compat::catalog::Scope;
use compat::report::layout::Layout;
use compat::report::{self, human};

use super::fleet::FleetInputArgs;
use super::progress::CommandProgress;
use super::{
    CUT_SHORT, CliError, LimitArgs, OrderFormat, Outcome, OutputArg, deadline_arg, load_inputs,
    scoped_for,
};

#[derive(Debug, Args)]
#[command(after_long_help = "\
Examples:
  compat upgrades testdata/examples/env-valid.yml --catalog testdata/examples/catalog
  compat upgrades --envs testdata/fleet --catalog testdata/examples/catalog")]
pub struct UpgradesArgs {
    #[command(flatten)]
    pub inputs: FleetInputArgs,
    #[command(flatten)]
    pub policy: super::PolicyArg,
    /// Release candidates and snapshots are candidates too
    #[arg(long)]
    pub pre: bool,
    /// Exit with this code when any safe upgrade exists (for scheduled CI jobs)
    #[arg(long, value_name = "N")]
    pub exit_code: Option<u8>,
    /// Stop searching for co-upgrades after this many seconds; rows cut short are marked as
    /// not proven and the command exits 4
    #[arg(long, value_name = "SECONDS")]
    pub timeout: Option<f64>,
    /// Only the products that can move or are blocked (something newer is in the catalog);
    /// the summary still counts every product. The default for `-f markdown` (a pull-request
    /// comment); `--outdated=false` lists every product there too
    #[arg(long, num_args = 0..=1, default_missing_value = "true", value_name = "BOOL")]
    pub outdated: Option<bool>,
    /// Progress lines on stderr even when it is not a terminal (at most one a second); a
    /// terminal shows a progress bar anyway
    #[arg(long)]
    pub progress: bool,
    /// Output format [default: `format` in compat.toml, else human]
    #[arg(short, long, value_enum)]
    pub format: Option<OrderFormat>,
    #[command(flatten)]
    pub out: OutputArg,
    #[command(flatten)]
    pub limits: LimitArgs,
}

pub fn run(
    args: &UpgradesArgs,
    stdin: &mut dyn Read,
    layout: &Layout,
) -> Result<Outcome, CliError> {
    let deadline = deadline_arg(args.timeout)?;
    let Some(single) = args.inputs.single() else {
        return super::upgrades_fleet::run(args, stdin, deadline, layout);
    };
    let mut inputs = load_inputs(&single, stdin, |env| Scope::upgrades(env, [], false, false))?;
    let policy_warnings = args.policy.apply(&mut inputs.env, &inputs.config)?;
    let (narrowed, reload) = scoped_for(&inputs, &[], |env| Scope::upgrades(env, [], false, false));
    let (env, catalog) = (&inputs.env, narrowed.as_ref().unwrap_or(&inputs.catalog));
    let progress = CommandProgress::new("upgrades", args.progress);
    let list = compat::upgrade::upgrades_reporting(
        env,
        catalog,
        args.pre,
        compat::solve::default_engine(),
        deadline,
        reload.as_ref(),
        progress.sink(),
    );
    progress.finish();
    let format = format_in_force(args.format, &inputs.config, OrderFormat::Human);
    let outdated = args.outdated.unwrap_or(format == OrderFormat::Markdown);
    let stdout = match format {
        OrderFormat::Human => human::upgrades(&list, outdated, layout),
        OrderFormat::Json => report::json::upgrades(&list, outdated),
        OrderFormat::Markdown => report::markdown::upgrades(&env.name, &list, outdated),
    };
    let mut outcome = Outcome::new(stdout, true);
    if let Some(code) = args.exit_code
        && list.iter().any(|u| u.safe.is_some())
    {
        outcome.code = code;
    }
    if !list.iter().all(|u| u.proven) {
        outcome.code = CUT_SHORT;
    }
    outcome.warnings = inputs.warnings();
    outcome.warnings.extend(policy_warnings);
    Ok(outcome)
}
