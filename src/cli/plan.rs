//! `compat plan`: an upgrade plan for targets or `--all`, with `--write-env` for its final
//! state.

use super::format_in_force;
use std::io::Read;
use std::path::{Path, PathBuf};

use clap::Args;
use compat::catalog::Scope;
use compat::diagnostic::InputError;
use compat::loader;
use compat::plan::Target;
use compat::product::ProductId;
use compat::report::layout::Layout;
use compat::report::{self, human};

use super::progress::CommandProgress;
use super::{
    CUT_SHORT, CliError, InputArgs, LimitArgs, OrderFormat, Outcome, OutputArg, argument,
    deadline_arg, file_to_write, load_inputs, scoped_for, version_arg,
};

#[derive(Debug, Args)]
#[command(group(clap::ArgGroup::new("what").required(true).args(["target", "all"])))]
#[command(after_long_help = "\
Example:
  compat plan testdata/cases/plan/env.yml --catalog testdata/cases/plan/catalog \\
    --target g:app --allow-install")]
#[allow(clippy::struct_excessive_bools)] // command-line switches
pub struct PlanArgs {
    #[command(flatten)]
    pub inputs: InputArgs,
    #[command(flatten)]
    pub policy: super::PolicyArg,
    /// A product to upgrade, as new as possible (`group:name`) or to one release
    /// (`group:name@version`); repeatable
    #[arg(long, value_name = "PRODUCT[@VERSION]")]
    pub target: Vec<String>,
    /// Every installed product as new as possible
    #[arg(long)]
    pub all: bool,
    /// Release candidates and snapshots are candidates too
    #[arg(long)]
    pub pre: bool,
    /// Older releases are candidates too
    #[arg(long)]
    pub allow_downgrade: bool,
    /// Products that are not installed may be installed
    #[arg(long)]
    pub allow_install: bool,
    /// Stop searching after this many seconds and report the best plan found so far
    #[arg(long, value_name = "SECONDS")]
    pub timeout: Option<f64>,
    /// Progress lines on stderr even when it is not a terminal (at most one a second); a
    /// terminal shows a progress bar anyway
    #[arg(long)]
    pub progress: bool,
    /// Write the final state as an environment file
    #[arg(long, value_name = "FILE")]
    pub write_env: Option<PathBuf>,
    /// Output format [default: `format` in compat.toml, else human]
    #[arg(short, long, value_enum)]
    pub format: Option<OrderFormat>,
    #[command(flatten)]
    pub out: OutputArg,
    #[command(flatten)]
    pub limits: LimitArgs,
}

/// `group:name` or `group:name@version` from `--target`.
fn target_arg(text: &str) -> Result<Target, InputError> {
    let what = "--target";
    match text.rsplit_once('@') {
        Some((product, version)) => Ok(Target::Exact(
            ProductId::parse(product).map_err(|m| argument(what, m))?,
            version_arg(what, version)?,
        )),
        None => Ok(Target::Newest(
            ProductId::parse(text).map_err(|m| argument(what, m))?,
        )),
    }
}

pub fn run(args: &PlanArgs, stdin: &mut dyn Read, layout: &Layout) -> Result<Outcome, CliError> {
    let targets = args
        .target
        .iter()
        .map(|t| target_arg(t))
        .collect::<Result<Vec<_>, _>>()?;
    let deadline = deadline_arg(args.timeout)?;
    if let Some(path) = &args.write_env {
        if path == Path::new("-") {
            return Err(CliError::Usage(
                "--write-env: `-` would mix the environment with the plan on stdout; give the \
                 path of a file to write"
                    .to_owned(),
            ));
        }
        file_to_write("--write-env", path)?;
    }
    let named: Vec<ProductId> = targets
        .iter()
        .map(|t| match t {
            Target::Newest(p) | Target::Exact(p, _) => p.clone(),
        })
        .collect();
    let scope = |env: &_| Scope::upgrades(env, &named, args.allow_downgrade, args.allow_install);
    let mut inputs = load_inputs(&args.inputs, stdin, scope)?;
    let policy_warnings = args.policy.apply(&mut inputs.env, &inputs.config)?;
    let (narrowed, reload) = scoped_for(&inputs, &named, scope);
    let (env, catalog) = (&inputs.env, narrowed.as_ref().unwrap_or(&inputs.catalog));
    let progress = CommandProgress::new("planning", args.progress);
    let request = compat::plan::Request {
        targets,
        all: args.all,
        policy: compat::plan::Policy {
            pre: args.pre,
            allow_downgrade: args.allow_downgrade,
            allow_install: args.allow_install,
        },
        deadline,
        progress: progress.sink(),
        reload,
    };
    let plan = compat::plan::plan(env, catalog, &request);
    progress.finish();
    // a plan that fails (infeasible, or a data cycle: exit 1) writes
    // nothing, as a failing command writes no file; nor does one whose final state has
    // errors today's environment has not (not proven, exit 4): a cut-short plan's valid
    // state is written, an invalid one never
    let fails = !plan.feasible || !plan.data_cycles.is_empty();
    let invalid = plan
        .unproven
        .iter()
        .any(|u| matches!(u, compat::solve::Unproven::Unjudged(_)));
    let held_back = args
        .write_env
        .as_ref()
        .filter(|_| invalid && !fails)
        .map(|path| {
            format!(
                "--write-env: {} not written: the state found is not valid",
                path.display()
            )
        });
    if let (Some(path), false) = (&args.write_env, fails || invalid) {
        // every entity keeps its namespace, labels and bindings; created ones get theirs
        let entities: Vec<_> = plan
            .final_state
            .iter()
            .map(|e| compat::environment::Written {
                name: e.entity.clone(),
                product: e.product.to_string(),
                version: e.version.clone(),
                state: e.state,
                placement: e.placement.clone(),
            })
            .collect();
        loader::write_atomically(path, &compat::environment::render(&env.name, &entities))?;
    }
    let format = format_in_force(args.format, &inputs.config, OrderFormat::Human);
    let stdout = match format {
        OrderFormat::Human => human::plan(&plan, layout),
        OrderFormat::Json => report::json::plan(&plan),
        OrderFormat::Markdown => report::markdown::plan(&env.name, &plan),
    };
    // a data cycle in the environment fails the plan as it fails validate (SPEC 10), whatever
    // else is proven
    let mut outcome = Outcome::new(stdout, !fails);
    if !plan.complete && plan.data_cycles.is_empty() {
        outcome.code = CUT_SHORT;
    }
    outcome.warnings = inputs.warnings();
    outcome.warnings.extend(policy_warnings);
    outcome.warnings.extend(held_back);
    Ok(outcome)
}
