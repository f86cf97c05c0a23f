//! The inputs of the commands that check a fleet (`validate`, `upgrades`): environment files
//! and `--envs DIR`, read in parallel, and one catalog load for all of them (the union of
//! the scopes each environment needs). One `ENV` and no `--envs` is no fleet: the command
//! runs as it always has.

use std::io::Read;
use std::path::{Path, PathBuf};

use compat::catalog::{Catalog, CatalogSource, Scope};
use compat::config::Config;
use compat::diagnostic::InputError;
use compat::environment::Environment;
use compat::loader;

use super::{CliError, InputArgs, SourceArgs, argument, env_warnings};

/// The environments a command reads, and the catalog.
#[derive(Debug, clap::Args)]
pub struct FleetInputArgs {
    /// The environment file (YAML or JSON); `-` reads it from standard input. Several files
    /// (or `--envs`) check a fleet in one run: one report per environment and a summary
    #[arg(value_name = "ENV", required_unless_present = "envs")]
    pub env: Vec<PathBuf>,
    /// Every environment file below DIR, recursively and sorted: `*.yml`, `*.yaml` and
    /// `*.json` files with an `entities` key (other YAML, such as manifests, is passed over
    /// with a warning; a file that cannot be read as YAML is an error). Repeatable
    #[arg(long, value_name = "DIR")]
    pub envs: Vec<PathBuf>,
    #[command(flatten)]
    pub source: SourceArgs,
}

impl FleetInputArgs {
    /// The inputs of a run on one environment (one `ENV`, no `--envs`); `None` for a fleet.
    pub fn single(&self) -> Option<InputArgs> {
        match (&self.env[..], &self.envs[..]) {
            ([env], []) => Some(InputArgs {
                env: env.clone(),
                source: self.source.clone(),
            }),
            _ => None,
        }
    }
}

/// A fleet as read: its environments in the order given, the releases of their scopes, and
/// where they came from; and the config in force.
pub struct FleetInputs {
    pub envs: Vec<Environment>,
    pub catalog: Catalog,
    pub source: Box<dyn CatalogSource>,
    /// The catalogs as given (by flags or the config), in order, for reading them again.
    pub catalog_path: Vec<PathBuf>,
    pub config: Config,
    /// Files below an `--envs` directory that are not environments.
    pub passed_over: Vec<PathBuf>,
}

impl FleetInputs {
    /// Warnings for stderr: each environment's own, each file passed over, the catalog's
    /// notices, and (for the commands other than `validate`, which reports them as findings)
    /// each catalog file left out.
    pub fn warnings(&self, unreadable: bool) -> Vec<String> {
        let mut warnings: Vec<String> = self.envs.iter().flat_map(env_warnings).collect();
        warnings.extend(self.source.notices());
        warnings.extend(self.passed_over.iter().map(|p| {
            format!(
                "{}: not an environment (no `entities` key); passed over",
                p.display()
            )
        }));
        if unreadable {
            warnings.extend(self.source.unreadable().iter().map(|e| {
                format!("{e}; left out of the catalog (`--strict-catalog` makes this an error)")
            }));
        }
        warnings
    }
}

/// Reads the config, every environment and opens the catalog (the flag's, else the
/// config's), then loads what all of them need in one read. Every input error (each
/// environment file, the catalog) is shown in one run.
pub fn load(
    args: &FleetInputArgs,
    stdin: &mut dyn Read,
    scope: impl Fn(&Environment) -> Scope,
) -> Result<FleetInputs, CliError> {
    let (config, catalog_path) = args.source.resolve()?;
    let (envs, passed_over) = read_environments(args, stdin)?;
    let (envs, source) = args.source.open(&catalog_path, envs)?;
    let catalog = match Scope::union(envs.iter().map(scope)) {
        Some(scope) => source.load(&scope)?,
        None => Catalog::default(),
    };
    Ok(FleetInputs {
        envs,
        catalog,
        source,
        catalog_path,
        config,
        passed_over,
    })
}

type Read_ = (Result<Vec<Environment>, Vec<InputError>>, Vec<PathBuf>);

/// The environments named and found below `--envs`, in that order (a file named twice is
/// read once); the files passed over.
fn read_environments(args: &FleetInputArgs, stdin: &mut dyn Read) -> Result<Read_, CliError> {
    let stdin_at = args.env.iter().position(|p| p == Path::new("-"));
    if args.env.iter().filter(|p| *p == Path::new("-")).count() > 1 {
        return Err(CliError::Usage(
            "`-` (standard input) can be given once".to_owned(),
        ));
    }
    let mut errors = Vec::new();
    let mut paths: Vec<(PathBuf, bool)> = args
        .env
        .iter()
        .filter(|p| *p != Path::new("-"))
        .map(|p| (p.clone(), true))
        .collect();
    for dir in &args.envs {
        match loader::environment_files(dir) {
            Ok(files) if files.is_empty() => errors.push(argument(
                "--envs",
                format!(
                    "no `*.yml`, `*.yaml` or `*.json` file below `{}`",
                    dir.display()
                ),
            )),
            Ok(files) => paths.extend(files.into_iter().map(|p| (p, false))),
            Err(e) => errors.push(e),
        }
    }
    let mut seen = std::collections::BTreeSet::new();
    paths.retain(|(p, _)| seen.insert(p.clone()));
    let mut fleet = loader::read_fleet(&paths);
    if let Some(at) = stdin_at {
        match loader::read_environment_from(stdin) {
            Ok(env) => fleet
                .environments
                .insert(at.min(fleet.environments.len()), env),
            Err(e) => errors.insert(0, e),
        }
    }
    errors.extend(fleet.errors);
    if errors.is_empty() && fleet.environments.is_empty() {
        errors.push(argument(
            "--envs",
            format!(
                "no environment (a mapping with `entities`) in the files found; {} passed over",
                compat::report::plural(fleet.passed_over.len(), "file")
            ),
        ));
    }
    let envs = if errors.is_empty() {
        Ok(fleet.environments)
    } else {
        Err(errors)
    };
    Ok((envs, fleet.passed_over))
}
