//! The inputs of the commands that read one environment and a catalog: the shared
//! arguments (the environment, the catalogs, `--strict-catalog`, the config, `--policy`),
//! reading them, and what they read.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use compat::catalog::{Catalog, CatalogSource, Layers, Reread, Scope};
use compat::config::Config;
use compat::diagnostic::{InputError, InputErrors};
use compat::environment::Environment;
use compat::loader;
use compat::product::ProductId;
use compat::solve::explain::Reload;

use super::{CatalogArg, CliError, ConfigArgs, config, env_warnings};

/// The inputs of every command that reads an environment and a catalog.
#[derive(Debug, clap::Args)]
pub struct InputArgs {
    /// The environment file (YAML or JSON); `-` reads it from standard input
    pub env: PathBuf,
    #[command(flatten)]
    pub source: SourceArgs,
}

/// Where the releases come from and which config is in force: the arguments every command
/// that reads an environment and a catalog shares, one environment ([`InputArgs`]) or a fleet
/// ([`super::fleet::FleetInputArgs`]).
#[derive(Debug, Clone, clap::Args)]
pub struct SourceArgs {
    #[command(flatten)]
    pub catalog: CatalogArg,
    /// A catalog manifest that cannot be read is an error (exit 3) instead of being left out
    /// of the catalog with a finding (`validate`) or a warning (the other commands)
    #[arg(long)]
    pub strict_catalog: bool,
    #[command(flatten)]
    pub config: ConfigArgs,
}

impl SourceArgs {
    /// The config in force and the catalogs it (or the flags) name, in order.
    pub fn resolve(&self) -> Result<(Config, Vec<PathBuf>), CliError> {
        let config = self.config.load()?;
        let catalog_path = self.catalog.resolve(&config)?;
        Ok((config, catalog_path))
    }

    /// Opens the catalogs (layered when there are several); with `--strict-catalog`, a
    /// catalog file that cannot be read as manifests is an error. Errors are collected with
    /// those of `read` (the environments), so every input error is shown in one run.
    pub fn open<T>(
        &self,
        catalog_path: &[PathBuf],
        read: Result<T, Vec<InputError>>,
    ) -> Result<(T, Box<dyn CatalogSource>), CliError> {
        let source = config::locations(catalog_path).and_then(|l| Layers::open(&l));
        match (read, source) {
            (Ok(read), Ok(source)) if !self.strict_catalog || source.unreadable().is_empty() => {
                Ok((read, source))
            }
            (read, source) => {
                let mut errors = read.err().unwrap_or_default();
                match source {
                    Err(InputErrors(more)) => errors.extend(more),
                    // Strict, or failing anyway: every input error in one run.
                    Ok(source) => errors.extend(source.unreadable().iter().cloned()),
                }
                Err(InputErrors(errors).into())
            }
        }
    }
}

/// `--policy FILE` (SPEC 9.2), on `validate`, `upgrades`, `plan` and `order`.
#[derive(Debug, clap::Args)]
pub struct PolicyArg {
    /// An operator policy file (one YAML document with the key `policy:`): its pins and
    /// exclusions are added to the environment's own; deprecated releases are allowed if
    /// either allows them [default: `policy` in compat.toml]
    #[arg(long, value_name = "FILE")]
    pub policy: Option<PathBuf>,
}

impl PolicyArg {
    /// Adds the policy file, if any (the flag, else compat.toml's `policy`), to the
    /// environment's policy; its warnings, for stderr.
    pub fn apply(&self, env: &mut Environment, config: &Config) -> Result<Vec<String>, CliError> {
        self.apply_all(std::slice::from_mut(env), config)
    }

    /// Adds the policy file, if any (read once), to each environment's policy, as
    /// [`PolicyArg::apply`] does to one; its warnings, for stderr.
    pub fn apply_all(
        &self,
        envs: &mut [Environment],
        config: &Config,
    ) -> Result<Vec<String>, CliError> {
        // the config's is relative to the config file's directory, as its catalog is
        let from_config = || {
            let dir = std::path::Path::new(&*config.file)
                .parent()
                .unwrap_or(std::path::Path::new(""));
            config.policy.as_ref().map(|p| dir.join(p))
        };
        let Some(path) = self.policy.clone().or_else(from_config) else {
            return Ok(Vec::new());
        };
        let (policy, warnings) = loader::read_policy(&path)?;
        for env in envs {
            env.policy.merge(policy.clone());
        }
        Ok(warnings)
    }
}

/// What a command reads: the environment, the releases of its scope, and where they came
/// from; and the config in force.
pub struct Inputs {
    pub env: Environment,
    pub catalog: Catalog,
    pub source: Box<dyn CatalogSource>,
    /// The catalogs as given (by flags or the config), in order, for reading them again.
    pub catalog_path: Vec<PathBuf>,
    pub config: Config,
}

impl Inputs {
    /// The catalog files left out because they cannot be read as manifests.
    pub fn unreadable(&self) -> &[InputError] {
        self.source.unreadable()
    }

    /// Warnings for stderr: the environment's own, the catalog's notices, then each catalog
    /// file left out (for the commands other than `validate`, which reports those as
    /// findings: [`Inputs::validate_warnings`]).
    pub fn warnings(&self) -> Vec<String> {
        let mut warnings = self.validate_warnings();
        warnings.extend(self.unreadable().iter().map(|e| {
            format!("{e}; left out of the catalog (`--strict-catalog` makes this an error)")
        }));
        warnings
    }

    /// Warnings for stderr: the environment's own and the catalog's notices.
    pub fn validate_warnings(&self) -> Vec<String> {
        let mut warnings = env_warnings(&self.env);
        warnings.extend(self.source.notices());
        warnings
    }
}

/// Reads the environment and the releases in the scope the library states for it
/// (`Scope::installed`, `Scope::entities`, `Scope::upgrades`). Both inputs are read before
/// failing, so every input error is shown in one run.
pub fn load_inputs(
    inputs: &InputArgs,
    stdin: &mut dyn Read,
    scope: impl FnOnce(&Environment) -> Scope,
) -> Result<Inputs, CliError> {
    let (config, catalog_path) = inputs.source.resolve()?;
    let env = if inputs.env == Path::new("-") {
        loader::read_environment_from(stdin)
    } else {
        loader::read_environment(&inputs.env)
    };
    let (env, source) = inputs
        .source
        .open(&catalog_path, env.map_err(|e| vec![e]))?;
    let catalog = source.load(&scope(&env))?;
    Ok(Inputs {
        env,
        catalog,
        source,
        catalog_path,
        config,
    })
}

/// The catalog a command that reads `scope` (of the environment) works on, and how its
/// explanations read more of it: a database's, read in part already, with a [`Reread`] of its
/// locations (the first item `None`: the catalog read is the one); a directory's, read
/// whole, narrowed to the scope in memory as a database reads it, with a
/// [`Reread::in_memory`] over every release. Explanations then ask most questions of a model
/// over the releases a question can use and read more in rounds, as over a database, with
/// the same answers (on the hard family with capabilities at 5,000 from a directory,
/// `upgrades` went from 10.0-10.3 s to 8.3-9.2 s, same bytes; reading the 200,000 manifests
/// is about 4 s of either).
pub fn scoped_for(
    inputs: &Inputs,
    targets: &[ProductId],
    scope: impl FnOnce(&Environment) -> Scope,
) -> (Option<Catalog>, Option<Reload>) {
    let Ok(locations) = config::locations(&inputs.catalog_path) else {
        return (None, None);
    };
    let whole = || Arc::new(inputs.catalog.clone());
    scoped_in(&locations, whole, &inputs.env, targets, scope)
}

/// [`scoped_for`] for each environment of a fleet (its `upgrades` scope): a database's
/// catalog, read for the whole fleet, as it is (the union of the scopes holds each one's),
/// with a [`Reread`] per environment; a directory's narrowed to each environment's scope,
/// from one copy of the catalog shared by all.
pub fn scoped_each<'i>(
    catalog: &'i Catalog,
    catalog_path: &[PathBuf],
) -> impl Fn(&Environment) -> (Option<Catalog>, Option<Reload>) + Sync + 'i {
    let locations = config::locations(catalog_path).ok();
    let shared: std::sync::OnceLock<Arc<Catalog>> = std::sync::OnceLock::new();
    move |env: &Environment| {
        let Some(locations) = &locations else {
            return (None, None);
        };
        let whole = || Arc::clone(shared.get_or_init(|| Arc::new(catalog.clone())));
        scoped_in(locations, whole, env, &[], |env| {
            Scope::upgrades(env, [], false, false)
        })
    }
}

/// One environment's catalog and rereading over `locations`: [`Reread::new`], the one place
/// that tells a catalog read in part from directories, for a database; else `whole()`, the
/// directories' catalog, narrowed to `scope`.
fn scoped_in(
    locations: &[compat::catalog::Location],
    whole: impl FnOnce() -> Arc<Catalog>,
    env: &Environment,
    targets: &[ProductId],
    scope: impl FnOnce(&Environment) -> Scope,
) -> (Option<Catalog>, Option<Reload>) {
    if let Some(reread) = Reread::new(locations.to_vec(), env, targets) {
        return (None, Some(Reload::rereading(reread)));
    }
    let (narrowed, reload) = Reload::narrowing(whole(), env, targets, &scope(env));
    (Some(narrowed), Some(reload))
}
