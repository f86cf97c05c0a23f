//! The command line, part of the binary only (the library exports no CLI): argument
//! definitions (clap), one file per command with the glue from its arguments to library calls
//! to rendered output, and the progress display. Nothing here decides anything about
//! versions, constraints or which releases a command needs; that is the library's.
//!
//! [`run`] returns the whole stdout text and the exit code, or an error for exit 2/3; `main`
//! writes and exits. Exit codes (SPEC section 8): 0 success, 1 constraint violations (or a
//! `false` answer), 2 usage error, 3 unreadable or malformed input, 4 a search cut short.

mod catalog;
mod completions;
mod config;
mod diff;
mod fleet;
mod generate;
mod graph;
mod inputs;
mod lint;
mod man;
mod order;
mod plan;
mod progress;
mod report;
mod services;
mod upgrades;
mod upgrades_fleet;
mod validate;
mod version;
mod why;

use std::io::Read;
use std::path::{Path, PathBuf};

use clap::{Parser, Subcommand, ValueEnum};

use compat::catalog::ImportError;
use compat::diagnostic::{InputError, InputErrors};
use compat::environment::Environment;
use compat::loader;
use compat::report::layout::Layout;
use compat::version::Version;
pub use config::{CatalogArg, ConfigArgs, format_in_force};
pub use inputs::{InputArgs, PolicyArg, SourceArgs, load_inputs, scoped_each, scoped_for};

/// Keep environments of many products healthy: validate version constraints, list safe
/// upgrades, plan them.
#[derive(Debug, Parser)]
#[command(name = "compat", version, about, max_term_width = 100, after_long_help = EXAMPLE)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
    #[command(flatten)]
    pub early: EarlyLimits,
    /// Colour severities and verdicts: `auto` on a terminal unless `NO_COLOR` is set;
    /// `always` also fits tables to `COLUMNS` when it is set, as on a terminal
    #[arg(long, global = true, value_enum, value_name = "WHEN", default_value_t = ColorChoice::Auto)]
    pub color: ColorChoice,
}

/// `--color`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ColorChoice {
    /// On a terminal, unless `NO_COLOR` is set (not empty)
    Auto,
    /// Even in a pipe or a file (and `NO_COLOR` is ignored)
    Always,
    /// Never
    Never,
}

/// How human output is laid out, decided here once: on a terminal (stdout, and no `-o
/// FILE`) tables fit `COLUMNS` or the terminal's width and colour is on unless `NO_COLOR`
/// says otherwise; `--color always` colours anywhere and fits `COLUMNS` when it is set; a
/// pipe or a file otherwise gets [`Layout::PLAIN`], the bytes it always got.
fn layout(choice: ColorChoice, to_file: bool) -> Layout {
    use std::io::IsTerminal;
    let terminal = !to_file && std::io::stdout().is_terminal();
    let no_color = std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty());
    let color = match choice {
        ColorChoice::Always => true,
        ColorChoice::Never => false,
        ColorChoice::Auto => terminal && !no_color,
    };
    let columns = std::env::var("COLUMNS")
        .ok()
        .and_then(|c| c.trim().parse::<usize>().ok())
        .filter(|&c| c > 0);
    let width = if terminal {
        columns.or_else(|| {
            terminal_size::terminal_size_of(std::io::stdout()).map(|(w, _)| usize::from(w.0))
        })
    } else if choice == ColorChoice::Always {
        columns
    } else {
        None
    };
    Layout { width, color }
}

const EXAMPLE: &str = "\
Example:
  compat validate testdata/examples/env-valid.yml --catalog testdata/examples/catalog

Each command's --help shows an example of its own.";

/// The heading the limit flags are listed under, apart from the command's own options.
const LIMITS: &str = "Limits";

/// Input limits (see `compat::limits`): the defaults fit real use, these raise them. Every
/// command that reads files flattens this last; the flags that cannot matter to it (such as
/// `--lock-timeout` on `lint`, which opens no database) it hides with [`hidden`] but still
/// accepts, so scripts written when all six were global keep working.
#[derive(Debug, Clone, Copy, clap::Args)]
#[command(next_help_heading = LIMITS)]
pub struct LimitArgs {
    /// Largest input file, in MiB
    #[arg(long, value_name = "MIB", default_value_t = defaults().max_file_mb)]
    pub max_file_mb: u64,
    /// Most YAML documents in one file
    #[arg(long, value_name = "N", default_value_t = defaults().max_documents)]
    pub max_documents: usize,
    /// Deepest nesting in one YAML document
    #[arg(long, value_name = "N", default_value_t = defaults().max_depth)]
    pub max_depth: usize,
    /// Most YAML nodes in one file, aliases expanded
    #[arg(long, value_name = "N", default_value_t = defaults().max_yaml_nodes)]
    pub max_yaml_nodes: usize,
    /// Most entities in one environment
    #[arg(long, value_name = "N", default_value_t = defaults().max_entities)]
    pub max_entities: usize,
    /// Seconds to wait for another process's lock on a catalog database
    #[arg(long, value_name = "SECONDS", default_value_t = defaults().lock_timeout)]
    pub lock_timeout: u64,
}

const MIB: u64 = 1024 * 1024;

/// The library's default limits, in the units of the flags.
fn defaults() -> LimitArgs {
    let d = compat::limits::Limits::default();
    LimitArgs {
        max_file_mb: d.file_bytes / MIB,
        max_documents: d.documents,
        max_depth: d.depth,
        max_yaml_nodes: d.nodes,
        max_entities: d.entities,
        lock_timeout: d.lock_wait_ms / 1000,
    }
}

/// Hides the flags named, which a command accepts but which cannot matter to it
/// (`#[command(mut_args(hidden(&["lock_timeout"])))]`).
pub fn hidden(ids: &'static [&'static str]) -> impl FnMut(clap::Arg) -> clap::Arg {
    |arg| {
        if ids.contains(&arg.get_id().as_str()) {
            arg.hide(true)
        } else {
            arg
        }
    }
}

/// The limit flags given before the command (`compat --max-depth 100 validate ...`), which
/// worked while they were global flags; hidden, no longer documented.
#[derive(Debug, Default, clap::Args)]
pub struct EarlyLimits {
    #[arg(long, hide = true)]
    pub max_file_mb: Option<u64>,
    #[arg(long, hide = true)]
    pub max_documents: Option<usize>,
    #[arg(long, hide = true)]
    pub max_depth: Option<usize>,
    #[arg(long, hide = true)]
    pub max_yaml_nodes: Option<usize>,
    #[arg(long, hide = true)]
    pub max_entities: Option<usize>,
    #[arg(long, hide = true)]
    pub lock_timeout: Option<u64>,
}

impl LimitArgs {
    /// The limits in force: the command's flags, where one given before the command stands
    /// in for a flag the command left at its default.
    fn resolve(&self, early: &EarlyLimits) -> compat::limits::Limits {
        fn pick<T: PartialEq + Copy>(here: T, default: T, early: Option<T>) -> T {
            if here == default {
                early.unwrap_or(here)
            } else {
                here
            }
        }
        let d = defaults();
        compat::limits::Limits {
            file_bytes: pick(self.max_file_mb, d.max_file_mb, early.max_file_mb)
                .saturating_mul(MIB),
            documents: pick(self.max_documents, d.max_documents, early.max_documents),
            depth: pick(self.max_depth, d.max_depth, early.max_depth),
            nodes: pick(self.max_yaml_nodes, d.max_yaml_nodes, early.max_yaml_nodes),
            entities: pick(self.max_entities, d.max_entities, early.max_entities),
            lock_wait_ms: pick(self.lock_timeout, d.lock_timeout, early.lock_timeout)
                .saturating_mul(1000),
        }
    }
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Validate an environment against every constraint of its installed releases
    Validate(validate::ValidateArgs),
    /// Check manifest files alone (dependency and manifest rules)
    Lint(lint::LintArgs),
    /// List safe upgrades, and what blocks the newest release of each product
    Upgrades(upgrades::UpgradesArgs),
    /// Plan upgrades that keep every constraint satisfied, as rolling steps
    Plan(plan::PlanArgs),
    /// Install order of the managed entities: parallel waves, cycles grouped
    Order(order::OrderArgs),
    /// Draw the environment's dependency graph (Graphviz DOT or Mermaid)
    Graph(graph::GraphArgs),
    /// Who requires a product, with which ranges, and what bounds its upgrade
    Why(why::WhyArgs),
    /// The environment's service list: per capability, providers and bound consumers
    Services(services::ServicesArgs),
    /// Entities added, removed and moved between two environment files, each judged safe or not
    Diff(diff::DiffArgs),
    /// One self-contained HTML page: findings, upgrades, the `plan --all` answer, the graph
    Report(report::ReportArgs),
    /// Version utilities: parse, sort, compare, check ranges and matchers
    #[command(subcommand)]
    Version(version::VersionCommand),
    /// Maintain a release catalog: a SQLite file or a PostgreSQL database
    #[command(subcommand)]
    Catalog(catalog::CatalogCommand),
    /// Print a shell completion script to stdout
    Completions(completions::CompletionsArgs),
    /// Print the manual page (roff) to stdout
    #[command(after_long_help = man::EXAMPLE)]
    Man,
    /// Write a seeded, realistic catalog and environment (for benchmarks)
    #[command(hide = true)]
    Generate(generate::GenerateArgs),
}

/// The output formats of most commands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Format {
    /// Text and tables for people, the same bytes on a terminal and in a log
    Human,
    /// JSON for programs, one pretty-printed document
    Json,
}

/// The output formats of `upgrades`, `order` and `plan`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum OrderFormat {
    /// Text and tables for people, the same bytes on a terminal and in a log
    Human,
    /// JSON for programs, one pretty-printed document
    Json,
    /// A Markdown table, for a pull-request comment or a change request
    Markdown,
}

/// `-o/--output FILE`: where a report goes instead of stdout.
#[derive(Debug, clap::Args)]
pub struct OutputArg {
    /// Write the report to FILE (atomically: readers see the old file or the whole new one)
    /// instead of stdout (`-`: stdout); the exit code is the same
    #[arg(short, long, value_name = "FILE")]
    pub output: Option<PathBuf>,
}

/// A path to write a file to must not name a directory: a usage error (exit 2), found
/// before any work is done.
pub fn file_to_write(flag: &str, path: &Path) -> Result<(), CliError> {
    if path.is_dir() {
        return Err(CliError::Usage(format!(
            "{flag}: `{}` is a directory; expected the path of a file to write",
            path.display()
        )));
    }
    Ok(())
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
    pub fn new(stdout: String, ok: bool) -> Outcome {
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
    /// Arguments that cannot work together or with the file system (exit 2), found after
    /// clap parsed them.
    #[error("{0}")]
    Usage(String),
}

impl From<ImportError> for CliError {
    fn from(e: ImportError) -> Self {
        match e {
            ImportError::Input(e) => CliError::Input(e),
            conflicts @ ImportError::Conflicts(_) => CliError::Refused(conflicts.to_string()),
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
            CliError::Usage(_) => 2,
        }
    }
}

/// Runs one command.
///
/// # Errors
/// Input that cannot be read.
pub fn run(cli: Cli, stdin: &mut dyn Read) -> Result<Outcome, CliError> {
    let limits = match &cli.command {
        Command::Validate(validate::ValidateArgs { limits, .. })
        | Command::Lint(lint::LintArgs { limits, .. })
        | Command::Upgrades(upgrades::UpgradesArgs { limits, .. })
        | Command::Plan(plan::PlanArgs { limits, .. })
        | Command::Order(order::OrderArgs { limits, .. })
        | Command::Graph(graph::GraphArgs { limits, .. })
        | Command::Why(why::WhyArgs { limits, .. })
        | Command::Services(services::ServicesArgs { limits, .. })
        | Command::Diff(diff::DiffArgs { limits, .. })
        | Command::Report(report::ReportArgs { limits, .. }) => *limits,
        Command::Catalog(command) => command.limits(),
        // They read no files and open no catalog.
        Command::Version(_) | Command::Completions(_) | Command::Man | Command::Generate(_) => {
            defaults()
        }
    };
    compat::limits::set(limits.resolve(&cli.early));
    let output = match &cli.command {
        Command::Validate(validate::ValidateArgs { out, .. })
        | Command::Lint(lint::LintArgs { out, .. })
        | Command::Upgrades(upgrades::UpgradesArgs { out, .. })
        | Command::Plan(plan::PlanArgs { out, .. })
        | Command::Order(order::OrderArgs { out, .. })
        | Command::Graph(graph::GraphArgs { out, .. })
        | Command::Why(why::WhyArgs { out, .. })
        | Command::Services(services::ServicesArgs { out, .. })
        | Command::Diff(diff::DiffArgs { out, .. })
        | Command::Report(report::ReportArgs { out, .. }) => out.output.clone(),
        Command::Version(_)
        | Command::Catalog(_)
        | Command::Completions(_)
        | Command::Man
        | Command::Generate(_) => None,
    }
    .filter(|path| path != Path::new("-")); // `-o -`: stdout, as without the flag
    if let Some(path) = &output {
        file_to_write("--output", path)?;
    }
    let layout = layout(cli.color, output.is_some());
    let mut outcome = match cli.command {
        Command::Validate(args) => validate::run(&args, stdin, &layout),
        Command::Lint(args) => lint::run(&args, &layout),
        Command::Upgrades(args) => upgrades::run(&args, stdin, &layout),
        Command::Plan(args) => plan::run(&args, stdin, &layout),
        Command::Order(args) => order::run(&args, stdin, &layout),
        Command::Graph(args) => graph::run(&args, stdin),
        Command::Why(args) => why::run(&args, stdin, &layout),
        Command::Services(args) => services::run(&args, stdin, &layout),
        Command::Diff(args) => diff::run(&args, stdin, &layout),
        Command::Report(args) => report::run(&args, stdin),
        Command::Version(command) => version::run(command, stdin, &layout),
        Command::Catalog(command) => catalog::run(command, &layout),
        Command::Completions(args) => Ok(completions::run(&args)),
        Command::Man => Ok(man::run()),
        Command::Generate(args) => generate::run(&args),
    }?;
    // The report goes to the file whatever the exit code it comes with; stdout stays empty.
    if let Some(path) = output {
        loader::write_atomically(&path, &outcome.stdout)?;
        outcome.stdout.clear();
    }
    Ok(outcome)
}

/// The environment's own warnings, located, for stderr.
pub fn env_warnings(env: &Environment) -> Vec<String> {
    env.warnings
        .iter()
        .map(|(at, message)| format!("{}:{}:{}: {message}", env.file, at.line, at.column))
        .collect()
}

/// One warning per invalid declaration of a release an entity to order runs, located: `order` draws
/// no edge for a declaration it cannot read (a dependency without `maximum-version`, say), so
/// it says so rather than order without it in silence. (`validate` reports these as
/// `invalid-manifest` findings, and `graph` marks them.)
pub fn invalid_declarations(
    env: &Environment,
    catalog: &compat::catalog::Catalog,
    from_scratch: bool,
) -> Vec<String> {
    // (where, release, message) -> the entities running the release
    let mut runs: std::collections::BTreeMap<(String, String, String), Vec<&str>> =
        std::collections::BTreeMap::new();
    // the entities the order is of: the managed ones, or every one from scratch
    for e in env
        .entities
        .iter()
        .filter(|e| from_scratch || !e.is_installed())
    {
        let Some(release) = catalog.release(&e.product, &e.version) else {
            continue;
        };
        // an entry read in part (a recommended version out of range) still orders
        let dropped = |i: &compat::manifest::Issue| {
            let named = match (&i.dependency, &i.subject) {
                (Some(p), _) => compat::instance::Requirement::Product(p.clone()),
                (None, Some(c)) => compat::instance::Requirement::Capability(c.clone()),
                (None, None) => return false,
            };
            !release.declares(&named)
        };
        for issue in release
            .issues
            .iter()
            .filter(|i| i.code.severity() == compat::finding::Severity::Error && dropped(i))
        {
            let at = format!(
                "{}:{}:{}",
                release.file, issue.location.line, issue.location.column
            );
            let which = format!("{} {}", release.product, release.version);
            runs.entry((at, which, issue.message.clone()))
                .or_default()
                .push(&e.name);
        }
    }
    runs.into_iter()
        .map(|((at, which, message), entities)| {
            format!(
                "{at}: {which} (run by {}): {message}; the install order leaves the declaration out",
                entities.join(", ")
            )
        })
        .collect()
}

/// Exit code of a command whose search a time limit cut short (SPEC section 8).
pub const CUT_SHORT: u8 = 4;

/// The moment `--timeout SECONDS` from now ends; none for a limit past what the clock can
/// represent (`1e20` seconds never comes, so it limits nothing).
pub fn deadline_arg(timeout: Option<f64>) -> Result<Option<std::time::Instant>, InputError> {
    match timeout {
        Some(s) if s.is_finite() && s >= 0.0 => Ok(std::time::Duration::try_from_secs_f64(s)
            .ok()
            .and_then(|d| std::time::Instant::now().checked_add(d))),
        Some(s) => Err(argument(
            "--timeout",
            format!("expected a number of seconds, found `{s}`"),
        )),
        None => Ok(None),
    }
}

/// An error about one command-line argument (exit 3), named as the user wrote it.
pub fn argument(what: &str, message: impl std::fmt::Display) -> InputError {
    InputError::Argument {
        argument: what.to_owned(),
        message: message.to_string(),
    }
}

/// An argument that must be a version; errors name the argument.
pub fn version_arg(what: &str, text: &str) -> Result<Version, InputError> {
    Version::parse(text).map_err(|e| argument(what, e))
}

#[cfg(test)]
mod tests {
    /// clap's own checks of the whole definition (every command, not only those the CLI
    /// tests run): no clashing flags or ids, defaults that parse, ...
    #[test]
    fn the_command_line_is_well_formed() {
        use clap::CommandFactory;
        super::Cli::command().debug_assert();
    }

    /// A time limit too far away for the clock is no limit (it panicked converting or
    /// adding the duration); a near one is a deadline; a negative or non-finite one is an
    /// argument error.
    #[test]
    fn time_limits_beyond_the_clock_limit_nothing() {
        use super::deadline_arg;
        for far in [1e19, 1e20, 18_446_744_073_709_551_616.0, 1e300, f64::MAX] {
            assert!(matches!(deadline_arg(Some(far)), Ok(None)), "{far}");
        }
        assert!(matches!(deadline_arg(Some(1.5)), Ok(Some(_))));
        assert!(matches!(deadline_arg(None), Ok(None)));
        for bad in [-1.0, f64::NAN, f64::INFINITY] {
            assert!(deadline_arg(Some(bad)).is_err(), "{bad}");
        }
    }
}
