//! The command line: argument definitions (clap) and the glue from arguments to library calls
//! to rendered output. Nothing here decides anything about versions or constraints.
//!
//! [`run`] returns the whole stdout text and the exit code, or an error for exit 2/3; `main`
//! writes and exits. Exit codes (SPEC section 8): 0 success, 1 constraint violations (or a
//! `false` answer), 2 usage error, 3 unreadable or malformed input.

use std::cmp::Ordering;
use std::collections::BTreeMap;
use std::io::Read;
use std::path::PathBuf;
use std::sync::Arc;

use clap::{Args, Parser, Subcommand, ValueEnum};
use serde::Serialize;

use crate::catalog::Catalog;
use crate::diagnostic::{InputError, InputErrors, Location};
use crate::finding::Code;
use crate::finding::Severity;
use crate::lint;
use crate::loader;
use crate::matcher::Matcher;
use crate::product::ProductId;
use crate::range::Range;
use crate::report::{self, human, json::to_json};
use crate::store::{Store, StoreError};
use crate::validate;
use crate::version::{Kind, Version};

/// Keep environments of many products healthy: validate version constraints, list safe
/// upgrades, plan them.
#[derive(Debug, Parser)]
#[command(name = "compat", version, about, max_term_width = 100)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
    #[command(flatten)]
    pub limits: LimitArgs,
}

/// Input limits (see `limits`); the defaults fit real use, these raise them.
#[derive(Debug, Args)]
pub struct LimitArgs {
    /// Largest input file, in MiB
    #[arg(long, global = true, value_name = "MIB", default_value_t = 64)]
    pub max_file_mb: u64,
    /// Most YAML documents in one file
    #[arg(long, global = true, value_name = "N", default_value_t = 100_000)]
    pub max_documents: usize,
    /// Deepest nesting in one YAML document
    #[arg(long, global = true, value_name = "N", default_value_t = 64)]
    pub max_depth: usize,
    /// Most YAML nodes in one file, aliases expanded
    #[arg(long, global = true, value_name = "N", default_value_t = 5_000_000)]
    pub max_yaml_nodes: usize,
    /// Most entities in one environment
    #[arg(long, global = true, value_name = "N", default_value_t = 1_000_000)]
    pub max_entities: usize,
    /// Seconds to wait for another process's lock on a catalog database
    #[arg(long, global = true, value_name = "SECONDS", default_value_t = 10)]
    pub lock_timeout: u64,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Validate an environment against every constraint of its installed releases
    Validate(ValidateArgs),
    /// Check manifest files alone (dependency and manifest rules)
    Lint(LintArgs),
    /// List safe upgrades, and what blocks the newest release of each product
    Upgrades(UpgradesArgs),
    /// Plan upgrades that keep every constraint satisfied, as rolling steps
    Plan(PlanArgs),
    /// Install order of the managed entities: parallel waves, cycles grouped
    Order(OrderArgs),
    /// Draw the environment's dependency graph (Graphviz DOT or Mermaid)
    Graph(GraphArgs),
    /// Version utilities: parse, sort, compare, check ranges and matchers
    #[command(subcommand)]
    Version(VersionCommand),
    /// Maintain a SQLite release catalog
    #[command(subcommand)]
    Catalog(CatalogCommand),
    /// Write a seeded, realistic catalog and environment (for benchmarks)
    #[command(hide = true)]
    Generate(GenerateArgs),
}

#[derive(Debug, Args)]
pub struct GenerateArgs {
    /// The directory to write `catalog/` and `env.yml` into
    #[arg(long)]
    pub out: PathBuf,
    #[arg(long, default_value_t = 100)]
    pub products: usize,
    #[arg(long, default_value_t = 10)]
    pub releases: usize,
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Tight two-sided windows on every dependency (adversarial for the planner)
    #[arg(long)]
    pub tight: bool,
    /// The hard family: a hidden consistent state behind arbitrary windows (it goes to
    /// `consistent.yml`)
    #[arg(long, conflicts_with = "tight")]
    pub hard: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Format {
    Human,
    Json,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ValidateFormat {
    Human,
    Json,
    Junit,
    Github,
    Sarif,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum FailOn {
    Error,
    Warning,
}

#[derive(Debug, Args)]
pub struct ValidateArgs {
    /// The environment file (YAML or JSON)
    pub env: PathBuf,
    /// A catalog directory of manifests, or a catalog file made by `compat catalog import`
    #[arg(long, value_name = "PATH")]
    pub catalog: PathBuf,
    #[arg(short, long, value_enum, default_value_t = ValidateFormat::Human)]
    pub format: ValidateFormat,
    /// The lowest severity that makes the run fail (exit 1)
    #[arg(long, value_enum, default_value_t = FailOn::Error)]
    pub fail_on: FailOn,
}

#[derive(Debug, Args)]
pub struct UpgradesArgs {
    /// The environment file (YAML or JSON)
    pub env: PathBuf,
    /// A catalog directory of manifests, or a catalog file made by `compat catalog import`
    #[arg(long, value_name = "PATH")]
    pub catalog: PathBuf,
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
    #[arg(short, long, value_enum, default_value_t = OrderFormat::Human)]
    pub format: OrderFormat,
}

#[derive(Debug, Args)]
#[command(group(clap::ArgGroup::new("what").required(true).args(["target", "all"])))]
#[allow(clippy::struct_excessive_bools)] // command-line switches
pub struct PlanArgs {
    /// The environment file (YAML or JSON)
    pub env: PathBuf,
    /// A catalog directory of manifests, or a catalog file made by `compat catalog import`
    #[arg(long, value_name = "PATH")]
    pub catalog: PathBuf,
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
    /// Write the final state as an environment file
    #[arg(long, value_name = "FILE")]
    pub write_env: Option<PathBuf>,
    #[arg(short, long, value_enum, default_value_t = Format::Human)]
    pub format: Format,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum OrderFormat {
    Human,
    Json,
    Markdown,
}

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

#[derive(Debug, Args)]
pub struct LintArgs {
    /// Manifest files, or directories searched like a catalog
    #[arg(required = true)]
    pub manifests: Vec<PathBuf>,
    #[arg(short, long, value_enum, default_value_t = Format::Human)]
    pub format: Format,
}

#[derive(Debug, Subcommand)]
pub enum CatalogCommand {
    /// Import manifest directories or files into a catalog database (all or nothing)
    Import {
        /// Manifest directories or files
        #[arg(required = true)]
        paths: Vec<PathBuf>,
        /// The catalog database (created when missing)
        #[arg(long, value_name = "FILE")]
        db: PathBuf,
        /// Overwrite stored releases whose manifest differs
        #[arg(long)]
        replace: bool,
        #[arg(short, long, value_enum, default_value_t = Format::Human)]
        format: Format,
    },
    /// List products and their versions in version order
    List {
        /// Only this product (`group:name`)
        product: Option<String>,
        #[arg(long, value_name = "FILE")]
        db: PathBuf,
        #[arg(short, long, value_enum, default_value_t = Format::Human)]
        format: Format,
    },
    /// Show one release's declarations
    Show {
        /// The release as `group:name@version`
        release: String,
        #[arg(long, value_name = "FILE")]
        db: PathBuf,
        #[arg(short, long, value_enum, default_value_t = Format::Human)]
        format: Format,
    },
}

#[derive(Debug, Subcommand)]
pub enum VersionCommand {
    /// Report each version's type and fields, in argument order
    Parse {
        #[arg(required = true)]
        versions: Vec<String>,
        #[arg(short, long, value_enum, default_value_t = Format::Human)]
        format: Format,
    },
    /// Sort versions read from stdin, one per line, ascending (stable)
    Sort {
        #[arg(short, long, value_enum, default_value_t = Format::Human)]
        format: Format,
    },
    /// Print `<`, `=` or `>`
    Compare {
        a: String,
        b: String,
        #[arg(short, long, value_enum, default_value_t = Format::Human)]
        format: Format,
    },
    /// Is V inside the range [--min, --max]? (exit 1 when not)
    Satisfies {
        version: String,
        #[arg(long)]
        min: String,
        #[arg(long)]
        max: String,
        #[arg(short, long, value_enum, default_value_t = Format::Human)]
        format: Format,
    },
    /// Does the matcher's membership include V? (exit 1 when not)
    Matches {
        matcher: String,
        version: String,
        #[arg(short, long, value_enum, default_value_t = Format::Human)]
        format: Format,
    },
}

/// What a successful run prints and how it exits.
#[derive(Debug)]
pub struct Outcome {
    pub stdout: String,
    /// Located warnings about the inputs themselves, for stderr.
    pub warnings: Vec<String>,
    pub code: u8,
}

impl Outcome {
    fn new(stdout: String, ok: bool) -> Outcome {
        Outcome {
            stdout,
            warnings: Vec::new(),
            code: u8::from(!ok),
        }
    }
}

/// Why a run could not produce its output.
#[derive(Debug, thiserror::Error)]
pub enum CliError {
    /// Unreadable or malformed input: exit 3.
    #[error(transparent)]
    Input(#[from] InputErrors),
    /// The catalog refused the change (conflicting releases): exit 1.
    #[error("{0}")]
    Refused(String),
    /// What was asked for does not exist: exit 1.
    #[error("{0}")]
    NotFound(String),
}

impl From<StoreError> for CliError {
    fn from(e: StoreError) -> Self {
        match e {
            StoreError::Input(e) => CliError::Input(e),
            conflicts @ StoreError::Conflicts(_) => CliError::Refused(conflicts.to_string()),
        }
    }
}

impl From<InputError> for CliError {
    fn from(e: InputError) -> Self {
        CliError::Input(e.into())
    }
}

impl CliError {
    #[must_use]
    pub fn exit_code(&self) -> u8 {
        match self {
            CliError::Input(_) => 3,
            CliError::Refused(_) | CliError::NotFound(_) => 1,
        }
    }
}

/// Runs one command.
///
/// # Errors
/// Input that cannot be read.
pub fn run(cli: Cli, stdin: &mut dyn Read) -> Result<Outcome, CliError> {
    crate::limits::set(crate::limits::Limits {
        file_bytes: cli.limits.max_file_mb.saturating_mul(1024 * 1024),
        documents: cli.limits.max_documents,
        depth: cli.limits.max_depth,
        nodes: cli.limits.max_yaml_nodes,
        entities: cli.limits.max_entities,
        lock_wait_ms: cli.limits.lock_timeout.saturating_mul(1000),
    });
    match cli.command {
        Command::Validate(args) => run_validate(&args),
        Command::Lint(args) => run_lint(&args),
        Command::Upgrades(args) => run_upgrades(&args),
        Command::Plan(args) => run_plan(&args),
        Command::Order(args) => run_order(&args),
        Command::Graph(args) => run_graph(&args),
        Command::Version(command) => run_version(command, stdin),
        Command::Catalog(command) => run_catalog(command),
        Command::Generate(args) => run_generate(&args),
    }
}

fn run_generate(args: &GenerateArgs) -> Result<Outcome, CliError> {
    use std::fmt::Write as _;

    use crate::generate::Shape;
    let shape = if args.hard {
        Shape::Hard
    } else if args.tight {
        Shape::Tight
    } else {
        Shape::Realistic
    };
    let generated = crate::generate::generate(crate::generate::Params {
        products: args.products,
        releases: args.releases,
        seed: args.seed,
        shape,
    });
    let consistent = args.out.join("consistent.yml");
    let files = generated
        .manifests
        .iter()
        .map(|(path, text)| (args.out.join(path), text.as_str()))
        .chain(std::iter::once((
            args.out.join("env.yml"),
            generated.environment.as_str(),
        )))
        .chain(
            generated
                .consistent
                .as_deref()
                .map(|text| (consistent.clone(), text)),
        );
    loader::write_files(files)?;
    let mut stdout = format!(
        "wrote {} ({} bytes of manifests) and {} entities to {}\n",
        report::plural(args.products * args.releases.max(1), "release"),
        generated.manifest_bytes(),
        generated.entities,
        args.out.display()
    );
    if generated.consistent.is_some() {
        let _ = writeln!(
            stdout,
            "wrote the hidden consistent state to {}",
            consistent.display()
        );
    }
    Ok(Outcome::new(stdout, true))
}

fn run_validate(args: &ValidateArgs) -> Result<Outcome, CliError> {
    let (env, catalog) = load_inputs(&args.env, &args.catalog, false)?;
    let result = validate::validate(&env, &catalog);
    let fail_on = match args.fail_on {
        FailOn::Error => Severity::Error,
        FailOn::Warning => Severity::Warning,
    };
    let stdout = match args.format {
        ValidateFormat::Human => human::validation(&result, fail_on),
        ValidateFormat::Json => report::json::validation(&result, fail_on),
        ValidateFormat::Junit => report::junit::validation(&result, fail_on),
        ValidateFormat::Github => report::github::validation(&result, fail_on),
        ValidateFormat::Sarif => report::sarif::validation(&result),
    };
    let mut outcome = Outcome::new(stdout, result.passes(fail_on));
    outcome.warnings = env_warnings(&env);
    Ok(outcome)
}

/// Reads the environment and opens the catalog; both are tried before failing, so every
/// input error is shown in one run.
fn open_inputs(
    env_path: &std::path::Path,
    catalog_path: &std::path::Path,
) -> Result<
    (
        crate::environment::Environment,
        Box<dyn crate::catalog::CatalogSource>,
    ),
    CliError,
> {
    match (
        loader::read_environment(env_path),
        loader::open_catalog(catalog_path),
    ) {
        (Ok(env), Ok(source)) => Ok((env, source)),
        (env, source) => {
            let mut errors: Vec<InputError> = env.err().into_iter().collect();
            if let Err(InputErrors(more)) = source {
                errors.extend(more);
            }
            Err(InputErrors(errors).into())
        }
    }
}

/// Reads the environment and the releases a command needs from the catalog: the installed
/// ones, or with `all_entities` those of managed entities too. Both inputs are read before
/// failing, so every input error is shown in one run.
fn load_inputs(
    env_path: &std::path::Path,
    catalog_path: &std::path::Path,
    all_entities: bool,
) -> Result<(crate::environment::Environment, Catalog), CliError> {
    let (env, source) = open_inputs(env_path, catalog_path)?;
    let wanted: Vec<_> = env
        .entities
        .iter()
        .filter(|e| all_entities || e.is_installed())
        .map(|e| (&e.product, &e.version))
        .collect();
    let catalog = source.load_releases(&wanted)?;
    Ok((env, catalog))
}

/// The environment's own warnings, located, for stderr.
fn env_warnings(env: &crate::environment::Environment) -> Vec<String> {
    env.warnings
        .iter()
        .map(|(at, message)| format!("{}:{}:{}: {message}", env.file, at.line, at.column))
        .collect()
}

fn run_upgrades(args: &UpgradesArgs) -> Result<Outcome, CliError> {
    let deadline = deadline_arg(args.timeout)?;
    let (env, catalog) = load_inputs_for_plan(&args.env, &args.catalog, &[], false, false)?;
    let list = crate::upgrade::upgrades_with(
        &env,
        &catalog,
        args.pre,
        crate::solve::default_engine(),
        deadline,
        reload_for(&args.env, &args.catalog, &[]).as_ref(),
    );
    let stdout = match args.format {
        OrderFormat::Human => human::upgrades(&list),
        OrderFormat::Json => report::json::upgrades(&list),
        OrderFormat::Markdown => report::markdown::upgrades(&env.name, &list),
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
    outcome.warnings = env_warnings(&env);
    Ok(outcome)
}

/// Exit code of a command whose search a time limit cut short (SPEC section 8).
const CUT_SHORT: u8 = 4;

/// The moment `--timeout SECONDS` from now ends.
fn deadline_arg(timeout: Option<f64>) -> Result<Option<std::time::Instant>, InputError> {
    match timeout {
        Some(s) if s.is_finite() && s >= 0.0 => Ok(Some(
            std::time::Instant::now() + std::time::Duration::from_secs_f64(s),
        )),
        Some(s) => Err(argument(
            "--timeout",
            format!("expected a number of seconds, found `{s}`"),
        )),
        None => Ok(None),
    }
}

/// `group:name` or `group:name@version` from `--target`.
fn target_arg(text: &str) -> Result<crate::plan::Target, InputError> {
    let what = "--target";
    match text.rsplit_once('@') {
        Some((product, version)) => Ok(crate::plan::Target::Exact(
            ProductId::parse(product).map_err(|m| argument(what, m))?,
            version_arg(what, version)?,
        )),
        None => Ok(crate::plan::Target::Newest(
            ProductId::parse(text).map_err(|m| argument(what, m))?,
        )),
    }
}

fn run_plan(args: &PlanArgs) -> Result<Outcome, CliError> {
    let targets = args
        .target
        .iter()
        .map(|t| target_arg(t))
        .collect::<Result<Vec<_>, _>>()?;
    let deadline = deadline_arg(args.timeout)?;
    let (env, catalog) = load_inputs_for_plan(
        &args.env,
        &args.catalog,
        &targets,
        args.allow_install,
        args.allow_downgrade,
    )?;
    let progress = PlanProgress::new();
    let reload = reload_for(&args.env, &args.catalog, &targets);
    let request = crate::plan::Request {
        targets,
        all: args.all,
        policy: crate::plan::Policy {
            pre: args.pre,
            allow_downgrade: args.allow_downgrade,
            allow_install: args.allow_install,
        },
        deadline,
        progress: Some(progress.sink()),
        reload,
    };
    let plan = crate::plan::plan(&env, &catalog, &request);
    progress.finish();
    if let (Some(path), true) = (&args.write_env, plan.feasible) {
        let entities: Vec<_> = plan
            .final_state
            .iter()
            .map(|e| {
                (
                    e.entity.clone(),
                    e.product.to_string(),
                    e.version.clone(),
                    e.state,
                )
            })
            .collect();
        loader::write_atomically(path, &crate::environment::render(&env.name, &entities))?;
    }
    let stdout = match args.format {
        Format::Human => human::plan(&plan),
        Format::Json => report::json::plan(&plan),
    };
    let mut outcome = Outcome::new(stdout, plan.feasible);
    if !plan.complete {
        outcome.code = CUT_SHORT;
    }
    outcome.warnings = env_warnings(&env);
    Ok(outcome)
}

/// A long plan says how far it has come, on stderr, so it never looks hung: a progress bar
/// per stage on a terminal (cleared before the result is printed), a plain line per report
/// elsewhere (CI logs keep lines; a redrawn bar would be noise or nothing there).
struct PlanProgress {
    /// `None` when stderr is not a terminal.
    bar: Option<std::sync::Arc<std::sync::Mutex<Option<StageBar>>>>,
}

/// The stage on screen and its bar.
type StageBar = (&'static str, indicatif::ProgressBar);

impl PlanProgress {
    fn new() -> Self {
        use std::io::IsTerminal;
        PlanProgress {
            bar: std::io::stderr().is_terminal().then(Default::default),
        }
    }

    fn sink(&self) -> crate::plan::ProgressSink {
        let bar = self.bar.clone();
        crate::plan::ProgressSink::new(move |p| {
            let Some(bar) = &bar else {
                print_progress_line(p);
                return;
            };
            let mut shown = bar
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            match &*shown {
                Some((stage, bar)) if *stage == p.stage => bar.set_position(p.done as u64),
                _ => {
                    if let Some((_, old)) = shown.take() {
                        old.finish_and_clear();
                    }
                    let style = indicatif::ProgressStyle::with_template(
                        "planning: {msg} {wide_bar} {pos}/{len} ({elapsed})",
                    )
                    .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar());
                    // built whole before its first draw
                    let new = indicatif::ProgressBar::with_draw_target(
                        Some(p.total as u64),
                        indicatif::ProgressDrawTarget::stderr(),
                    )
                    .with_style(style)
                    .with_message(p.stage)
                    .with_position(p.done as u64);
                    new.tick();
                    *shown = Some((p.stage, new));
                }
            }
        })
    }

    fn finish(self) {
        if let Some(bar) = self.bar
            && let Some((_, bar)) = bar
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
                .take()
        {
            bar.finish_and_clear();
        }
    }
}

#[allow(clippy::print_stderr)] // progress is a diagnostic: stderr, next to the data on stdout
fn print_progress_line(p: &crate::plan::Progress) {
    eprintln!("planning: {} ({} of {})", p.stage, p.done, p.total);
}

/// For a database catalog, which is read only as far as the command's own policy needs, a
/// way for explanations to read what a relaxed policy reaches when they check a fix (each
/// policy read once). A directory is read whole already: `None`.
fn reload_for(
    env_path: &std::path::Path,
    catalog_path: &std::path::Path,
    targets: &[crate::plan::Target],
) -> Option<crate::solve::explain::Reload> {
    use std::sync::{Arc, Mutex};
    type Loaded = BTreeMap<(bool, bool), Option<Arc<Catalog>>>;
    if catalog_path.is_dir() {
        return None;
    }
    let (env_path, catalog_path) = (env_path.to_owned(), catalog_path.to_owned());
    let targets = targets.to_vec();
    let cache: Mutex<Loaded> = Mutex::default();
    Some(crate::solve::explain::Reload::new(move |policy| {
        let key = (policy.allow_install, policy.allow_downgrade);
        let mut cache = cache
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        cache
            .entry(key)
            .or_insert_with(|| {
                load_inputs_for_plan(&env_path, &catalog_path, &targets, key.0, key.1)
                    .ok()
                    .map(|(_, catalog)| Arc::new(catalog))
            })
            .clone()
    }))
}

/// A plan (or the upgrades list) reads the releases of the products it can involve: the
/// installed ones and the targets, and with `allow_install` every product their releases
/// depend on, transitively.
fn load_inputs_for_plan(
    env_path: &std::path::Path,
    catalog_path: &std::path::Path,
    targets: &[crate::plan::Target],
    allow_install: bool,
    allow_downgrade: bool,
) -> Result<(crate::environment::Environment, Catalog), CliError> {
    let (env, source) = open_inputs(env_path, catalog_path)?;
    // Each installed product from its lowest running version up (nothing older can be a
    // candidate without downgrades); targets, downgrades and installs read every release.
    let mut lowest: BTreeMap<ProductId, Option<Version>> = BTreeMap::new();
    for e in env.entities.iter().filter(|e| e.is_installed()) {
        let floor = (!allow_downgrade && e.version.is_orderable()).then(|| e.version.clone());
        lowest
            .entry(e.product.clone())
            .and_modify(|low| {
                *low = match (low.take(), &floor) {
                    (Some(a), Some(b)) => Some(if *b < a { b.clone() } else { a }),
                    _ => None,
                };
            })
            .or_insert(floor);
    }
    for t in targets {
        let (crate::plan::Target::Newest(p) | crate::plan::Target::Exact(p, _)) = t;
        lowest.insert(p.clone(), None);
    }
    loop {
        let list: Vec<(&ProductId, Option<&Version>)> =
            lowest.iter().map(|(p, v)| (p, v.as_ref())).collect();
        let catalog = source.load_from(&list)?;
        if !allow_install {
            return Ok((env, catalog));
        }
        let before = lowest.len();
        let deps: Vec<ProductId> = catalog
            .products()
            .flat_map(|p| catalog.releases(p))
            .flat_map(|m| m.dependencies.iter().map(|d| d.product.clone()))
            .collect();
        for d in deps {
            lowest.entry(d).or_insert(None);
        }
        if lowest.len() == before {
            return Ok((env, catalog));
        }
    }
}

fn run_order(args: &OrderArgs) -> Result<Outcome, CliError> {
    let (env, catalog) = load_inputs(&args.env, &args.catalog, true)?;
    let graph = crate::graph::build(&env, &catalog, None);
    let result = crate::order::install_order(&graph, args.from_scratch);
    let stdout = match args.format {
        OrderFormat::Human => human::install_order(&result),
        OrderFormat::Json => report::json::install_order(&result),
        OrderFormat::Markdown => report::markdown::install_order(&result),
    };
    let mut outcome = Outcome::new(stdout, result.missing.is_empty());
    outcome.warnings = env_warnings(&env);
    Ok(outcome)
}

fn run_graph(args: &GraphArgs) -> Result<Outcome, CliError> {
    let (env, catalog) = load_inputs(&args.env, &args.catalog, true)?;
    let validation = validate::validate(&env, &catalog);
    let graph = crate::graph::build(&env, &catalog, Some(&validation));
    let stdout = match args.format {
        GraphFormat::Dot => report::dot::graph(&graph),
        GraphFormat::Mermaid => report::mermaid::graph(&graph),
    };
    let mut outcome = Outcome::new(stdout, true);
    outcome.warnings = env_warnings(&env);
    Ok(outcome)
}

fn run_lint(args: &LintArgs) -> Result<Outcome, CliError> {
    let manifests = loader::read_manifest_paths(&args.manifests)?;
    let result = lint::lint(&manifests);
    let ok = result.findings.iter().all(|f| f.severity < Severity::Error);
    let stdout = match args.format {
        Format::Human => human::lint(&result),
        Format::Json => report::json::lint(&result),
    };
    Ok(Outcome::new(stdout, ok))
}

fn argument(what: &str, message: impl std::fmt::Display) -> InputError {
    InputError::Argument {
        argument: what.to_owned(),
        message: message.to_string(),
    }
}

/// An argument that must be a version; errors name the argument.
fn version_arg(what: &str, text: &str) -> Result<Version, InputError> {
    Version::parse(text).map_err(|e| argument(what, e))
}

fn orderable_arg(what: &str, text: &str) -> Result<Version, InputError> {
    let v = version_arg(what, text)?;
    if v.is_orderable() {
        Ok(v)
    } else {
        Err(argument(
            what,
            format!("expected an orderable version, found non-orderable `{v}`"),
        ))
    }
}

fn matcher_arg(what: &str, text: &str) -> Result<Matcher, InputError> {
    Matcher::parse(text).map_err(|e| argument(what, e))
}

#[derive(Serialize)]
struct ParsedJson<'a> {
    version: &'a str,
    #[serde(rename = "type")]
    kind: &'static str,
    orderable: bool,
    major: u32,
    minor: u32,
    patch: u32,
    #[serde(skip_serializing_if = "Option::is_none")]
    rc: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    commits: Option<u32>,
}

impl<'a> From<&'a Version> for ParsedJson<'a> {
    fn from(v: &'a Version) -> Self {
        let (rc, commits) = match v.kind() {
            Kind::ReleaseCandidate { rc } => (Some(rc), None),
            Kind::ReleaseSnapshot { commits } => (None, Some(commits)),
            Kind::ReleaseCandidateSnapshot { rc, commits } => (Some(rc), Some(commits)),
            Kind::Release | Kind::NonOrderable => (None, None),
        };
        ParsedJson {
            version: v.as_str(),
            kind: v.kind().name(),
            orderable: v.is_orderable(),
            major: v.major(),
            minor: v.minor(),
            patch: v.patch(),
            rc,
            commits,
        }
    }
}

fn run_version(command: VersionCommand, stdin: &mut dyn Read) -> Result<Outcome, CliError> {
    match command {
        VersionCommand::Parse { versions, format } => version_parse(&versions, format),
        VersionCommand::Sort { format } => version_sort(stdin, format),
        VersionCommand::Compare { a, b, format } => version_compare(&a, &b, format),
        VersionCommand::Satisfies {
            version,
            min,
            max,
            format,
        } => version_satisfies(&version, &min, &max, format),
        VersionCommand::Matches {
            matcher,
            version,
            format,
        } => version_matches(&matcher, &version, format),
    }
}

fn version_parse(versions: &[String], format: Format) -> Result<Outcome, CliError> {
    let mut parsed = Vec::new();
    let mut errors = Vec::new();
    for (i, text) in versions.iter().enumerate() {
        match version_arg(&format!("argument {}", i + 1), text) {
            Ok(v) => parsed.push(v),
            Err(e) => errors.push(e),
        }
    }
    if !errors.is_empty() {
        return Err(InputErrors(errors).into());
    }
    let rows: Vec<ParsedJson> = parsed.iter().map(ParsedJson::from).collect();
    let stdout = match format {
        Format::Json => to_json(&rows),
        Format::Human => {
            let mut t = human::table(&[
                "Version",
                "Type",
                "Orderable",
                "Major",
                "Minor",
                "Patch",
                "RC",
                "Commits",
            ]);
            let opt = |n: Option<u32>| n.map(|n| n.to_string()).unwrap_or_default();
            for j in &rows {
                t.add_row(vec![
                    j.version.to_owned(),
                    j.kind.to_owned(),
                    if j.orderable { "yes" } else { "no" }.to_owned(),
                    j.major.to_string(),
                    j.minor.to_string(),
                    j.patch.to_string(),
                    opt(j.rc),
                    opt(j.commits),
                ]);
            }
            format!("{t}\n")
        }
    };
    Ok(Outcome::new(stdout, true))
}

fn version_sort(stdin: &mut dyn Read, format: Format) -> Result<Outcome, CliError> {
    let name: Arc<str> = Arc::from("<stdin>");
    let mut bytes = Vec::new();
    stdin
        .read_to_end(&mut bytes)
        .map_err(|e| InputError::io(&name, &e))?;
    let text = String::from_utf8(bytes).map_err(|e| {
        let at = Location::of_offset(e.as_bytes(), e.utf8_error().valid_up_to());
        InputError::malformed(
            &name,
            at,
            "expected UTF-8 text, found a byte that is not UTF-8",
        )
    })?;
    let mut lines = Vec::new();
    let mut errors = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if line.is_empty() {
            continue;
        }
        let at = Location::new(u32::try_from(i + 1).unwrap_or(u32::MAX), 1);
        match Version::parse(line) {
            Ok(v) if v.is_orderable() => lines.push((line, v)),
            Ok(v) => errors.push(InputError::malformed(
                &name,
                at,
                format!("cannot sort non-orderable version `{v}`"),
            )),
            Err(e) => errors.push(InputError::malformed(&name, at, e.to_string())),
        }
    }
    if !errors.is_empty() {
        return Err(InputErrors(errors).into());
    }
    // `sort_by` is stable: equal versions keep their input order.
    lines.sort_by(|a, b| a.1.partial_cmp(&b.1).unwrap_or(Ordering::Equal));
    let stdout = match format {
        Format::Json => to_json(&lines.iter().map(|(l, _)| *l).collect::<Vec<_>>()),
        Format::Human => lines.iter().flat_map(|(l, _)| [*l, "\n"]).collect(),
    };
    Ok(Outcome::new(stdout, true))
}

fn version_compare(a: &str, b: &str, format: Format) -> Result<Outcome, CliError> {
    let (va, vb) = collect_pair(
        orderable_arg("argument A", a),
        orderable_arg("argument B", b),
    )?;
    let symbol = match va.partial_cmp(&vb) {
        Some(Ordering::Less) => "<",
        Some(Ordering::Greater) => ">",
        _ => "=",
    };
    let stdout = match format {
        Format::Json => to_json(&serde_json::json!({"a": a, "b": b, "result": symbol})),
        Format::Human => format!("{symbol}\n"),
    };
    Ok(Outcome::new(stdout, true))
}

fn version_satisfies(
    version: &str,
    min: &str,
    max: &str,
    format: Format,
) -> Result<Outcome, CliError> {
    let v = version_arg("argument V", version);
    let minimum = orderable_arg("--min", min);
    let maximum = matcher_arg("--max", max);
    let (v, minimum, maximum) = match (v, minimum, maximum) {
        (Ok(v), Ok(mi), Ok(ma)) => (v, mi, ma),
        (v, mi, ma) => {
            let errors = [v.err(), mi.err(), ma.err()]
                .into_iter()
                .flatten()
                .collect();
            return Err(InputErrors(errors).into());
        }
    };
    let holds = Range::new(minimum, maximum).contains(&v);
    let json = serde_json::json!({"version": version, "min": min, "max": max, "satisfies": holds});
    Ok(Outcome::new(answer(format, holds, &json), holds))
}

fn version_matches(matcher: &str, version: &str, format: Format) -> Result<Outcome, CliError> {
    let (m, v) = collect_pair(
        matcher_arg("argument MATCHER", matcher),
        version_arg("argument V", version),
    )?;
    let holds = m.matches(&v);
    let json = serde_json::json!({"matcher": matcher, "version": version, "matches": holds});
    Ok(Outcome::new(answer(format, holds, &json), holds))
}

fn answer(format: Format, holds: bool, json: &serde_json::Value) -> String {
    match format {
        Format::Json => to_json(json),
        Format::Human => format!("{holds}\n"),
    }
}

fn collect_pair<A, B>(
    a: Result<A, InputError>,
    b: Result<B, InputError>,
) -> Result<(A, B), CliError> {
    match (a, b) {
        (Ok(a), Ok(b)) => Ok((a, b)),
        (a, b) => Err(InputErrors([a.err(), b.err()].into_iter().flatten().collect()).into()),
    }
}

fn run_catalog(command: CatalogCommand) -> Result<Outcome, CliError> {
    match command {
        CatalogCommand::Import {
            paths,
            db,
            replace,
            format,
        } => catalog_import(&paths, &db, replace, format),
        CatalogCommand::List {
            product,
            db,
            format,
        } => catalog_list(product.as_deref(), &db, format),
        CatalogCommand::Show {
            release,
            db,
            format,
        } => catalog_show(&release, &db, format),
    }
}

fn catalog_import(
    paths: &[PathBuf],
    db: &std::path::Path,
    replace: bool,
    format: Format,
) -> Result<Outcome, CliError> {
    // All or nothing: every problem of the batch is reported before the database is touched.
    let (sources, mut errors) = loader::read_sources_and_errors(paths);
    errors.extend(sources.iter().flat_map(|s| &s.manifests).flat_map(|m| {
        m.issues
            .iter()
            .filter(|i| i.code == Code::InvalidManifest)
            .map(|i| {
                InputError::malformed(
                    &m.file,
                    i.location,
                    format!("invalid declaration in {}: {}", m.release_name(), i.message),
                )
            })
    }));
    if let Err(duplicates) =
        Catalog::from_manifests(sources.iter().flat_map(|s| s.manifests.iter().cloned()))
    {
        errors.extend(duplicates);
    }
    if !errors.is_empty() {
        return Err(InputErrors(errors).into());
    }
    let mut store = Store::create(db)?;
    let summary = store.import(&sources, replace)?;
    let stdout = match format {
        Format::Json => to_json(&serde_json::json!({
            "db": db.display().to_string(),
            "files": sources.len(),
            "added": summary.added,
            "unchanged": summary.unchanged,
            "replaced": summary.replaced,
        })),
        Format::Human => format!(
            "{}: {} added, {} unchanged, {} replaced (from {})\n",
            db.display(),
            report::plural(summary.added, "release"),
            summary.unchanged,
            summary.replaced,
            report::plural(sources.len(), "file"),
        ),
    };
    Ok(Outcome::new(stdout, true))
}

fn catalog_list(
    product: Option<&str>,
    db: &std::path::Path,
    format: Format,
) -> Result<Outcome, CliError> {
    let product = product
        .map(|p| ProductId::parse(p).map_err(|m| argument("argument PRODUCT", m)))
        .transpose()?;
    let store = Store::open(db)?;
    let products = store.list(product.as_ref())?;
    if let Some(p) = &product
        && products.is_empty()
    {
        return Err(CliError::NotFound(format!(
            "{}: no releases of `{p}`",
            db.display()
        )));
    }
    let stdout = match format {
        Format::Json => report::json::catalog_list(&products),
        Format::Human => human::catalog_list(&products),
    };
    Ok(Outcome::new(stdout, true))
}

fn catalog_show(release: &str, db: &std::path::Path, format: Format) -> Result<Outcome, CliError> {
    let parsed = release.rsplit_once('@').ok_or_else(|| {
        argument(
            "argument RELEASE",
            format!("expected a release as `group:name@version`, found `{release}`"),
        )
    });
    let (product, version) = parsed.and_then(|(p, v)| {
        Ok((
            ProductId::parse(p).map_err(|m| argument("argument RELEASE", m))?,
            version_arg("argument RELEASE", v)?,
        ))
    })?;
    let store = Store::open(db)?;
    let Some(m) = store.release(&product, &version)? else {
        return Err(CliError::NotFound(format!(
            "{}: no release `{product} {version}`",
            db.display()
        )));
    };
    let stdout = match format {
        Format::Json => report::json::release(&m),
        Format::Human => human::release(&m),
    };
    Ok(Outcome::new(stdout, true))
}
