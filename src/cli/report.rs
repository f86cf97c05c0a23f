//! `compat report`: one self-contained HTML page with the validation, the upgrades, the
//! `plan --all` answer and the dependency graph.

use std::io::Read;

use clap::Args;
use compat::accept::Rule;
use compat::catalog::Scope;
use compat::finding::Severity;
use compat::report::html;

use super::progress::CommandProgress;
use super::validate::FailOn;
use super::{
    CUT_SHORT, CliError, InputArgs, LimitArgs, Outcome, OutputArg, deadline_arg, env_warnings,
    load_inputs, scoped_for,
};

#[derive(Debug, Args)]
#[command(after_long_help = "\
Example:
  compat report testdata/examples/env-broken.yml --catalog testdata/examples/catalog \\
    -o report.html")]
pub struct ReportArgs {
    #[command(flatten)]
    pub inputs: InputArgs,
    #[command(flatten)]
    pub policy: super::PolicyArg,
    /// Release candidates and snapshots are candidates too (upgrades and plan)
    #[arg(long)]
    pub pre: bool,
    /// Stop the upgrade and plan searches after this many seconds in all; what they found is
    /// shown marked as not proven and the command exits 4
    #[arg(long, value_name = "SECONDS")]
    pub timeout: Option<f64>,
    /// The lowest severity that makes the environment invalid (exit 1); accepted findings
    /// never do [default: `fail-on` in compat.toml, else error]
    #[arg(long, value_enum)]
    pub fail_on: Option<FailOn>,
    /// Accept the findings of CODE (of PRODUCT's releases only, with `=PRODUCT`): shown,
    /// marked accepted; repeatable, added to the config file's `[[allow]]` entries
    #[arg(long, value_name = "CODE[=PRODUCT]", value_parser = Rule::from_flag)]
    pub allow: Vec<Rule>,
    /// A line shown under the title as given, such as a date or a CI run (the report has no
    /// time of its own, so the same inputs give the same bytes)
    #[arg(long, value_name = "TEXT")]
    pub stamp: Option<String>,
    /// Progress lines on stderr even when it is not a terminal (at most one a second); a
    /// terminal shows a progress bar anyway
    #[arg(long)]
    pub progress: bool,
    #[command(flatten)]
    pub out: OutputArg,
    #[command(flatten)]
    pub limits: LimitArgs,
}

pub fn run(args: &ReportArgs, stdin: &mut dyn Read) -> Result<Outcome, CliError> {
    let deadline = deadline_arg(args.timeout)?;
    let mut inputs = load_inputs(&args.inputs, stdin, |env| {
        Scope::upgrades(env, [], false, false)
    })?;
    let policy_warnings = args.policy.apply(&mut inputs.env, &inputs.config)?;
    let env = &inputs.env;

    // the validation, as `compat validate` gives it
    let checked = inputs
        .source
        .load(&Scope::installed(env))?
        .with_hint_releases(&*inputs.source, env)?;
    let mut validation = compat::validate::validate(env, &checked);
    validation.add_unreadable(inputs.unreadable());
    validation.add_hints(&checked);
    let mut allow = inputs.config.allow.clone();
    allow.rules.extend(args.allow.iter().cloned());
    allow.apply(validation.findings_mut());
    let fail_on = match args.fail_on {
        Some(FailOn::Error) => Severity::Error,
        Some(FailOn::Warning) => Severity::Warning,
        None => inputs.config.fail_on.unwrap_or(Severity::Error),
    };

    // upgrades and `plan --all` share the one deadline, and the catalog as they read it
    let (narrowed, reload) = scoped_for(&inputs, &[], |env| Scope::upgrades(env, [], false, false));
    let catalog = narrowed.as_ref().unwrap_or(&inputs.catalog);
    let progress = CommandProgress::new("upgrades", args.progress);
    let upgrades = compat::upgrade::upgrades_reporting(
        env,
        catalog,
        args.pre,
        compat::solve::default_engine(),
        deadline,
        reload.as_ref(),
        progress.sink(),
    );
    progress.finish();
    let progress = CommandProgress::new("planning", args.progress);
    let mut request = compat::plan::Request::new(Vec::new(), true);
    request.policy.pre = args.pre;
    request.deadline = deadline;
    request.progress = progress.sink();
    request.reload = reload;
    let plan = compat::plan::plan(env, catalog, &request);
    progress.finish();

    let drawn = inputs.source.load(&Scope::entities(env))?;
    let graph = compat::graph::build(env, &drawn, Some(&validation));
    let stdout = html::page(&html::Report {
        validation: &validation,
        fail_on,
        upgrades: &upgrades,
        plan: &plan,
        graph: &graph,
        stamp: args.stamp.as_deref(),
    });
    let mut outcome = Outcome::new(stdout, validation.passes(fail_on));
    if !plan.complete || !upgrades.iter().all(|u| u.proven) {
        outcome.code = CUT_SHORT;
    }
    // catalog files left out are findings here, as in `validate`, not warnings
    outcome.warnings = env_warnings(env);
    outcome.warnings.extend(policy_warnings);
    Ok(outcome)
}
