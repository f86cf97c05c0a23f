//! The config file at the command line: `--config`/`--no-config` and finding `compat.toml`
//! (through `loader`), and where its values stand in for flags that were not given (flags
//! win): `--catalog` (after `COMPAT_CATALOG`), `-f`. `fail-on` and the allow list are read
//! by the commands that fail on findings (`validate`, `diff`).

use std::path::{Path, PathBuf};

use clap::ValueEnum;
use compat::catalog::Location;
use compat::config::Config;
use compat::diagnostic::InputErrors;
use compat::loader;

use super::CliError;

/// `--catalog`, repeatable (layered catalogs), which `COMPAT_CATALOG` or the config file's
/// `catalog` stands in for.
#[derive(Debug, Clone, clap::Args)]
pub struct CatalogArg {
    /// A catalog directory of manifests, a catalog file made by `compat catalog import`, or a
    /// `postgres://` URL; repeatable: the catalogs are read in order as one, and a release
    /// two of them describe differently is an error [default: `catalog` in compat.toml]
    #[arg(long, value_name = "PATH", env = "COMPAT_CATALOG")]
    pub catalog: Vec<PathBuf>,
}

impl CatalogArg {
    /// The catalogs in force, in order: the flags (or `COMPAT_CATALOG`), else the config
    /// file's, which is relative to the file's directory.
    pub fn resolve(&self, config: &Config) -> Result<Vec<PathBuf>, CliError> {
        if !self.catalog.is_empty() {
            return Ok(self.catalog.clone());
        }
        let Some(catalog) = &config.catalog else {
            return Err(CliError::Usage(
                "no catalog: give `--catalog PATH`, set COMPAT_CATALOG, or set `catalog` in \
                 compat.toml"
                    .to_owned(),
            ));
        };
        let dir = Path::new(&*config.file).parent().unwrap_or(Path::new(""));
        Ok(vec![if catalog.value.contains("://") {
            PathBuf::from(&catalog.value) // a URL, not a path
        } else {
            dir.join(&catalog.value)
        }])
    }
}

/// The locations the catalog arguments name; every argument that names none is an error.
pub fn locations(paths: &[PathBuf]) -> Result<Vec<Location>, InputErrors> {
    let (locations, errors): (Vec<_>, Vec<_>) = paths
        .iter()
        .map(|p| Location::parse(p))
        .partition(Result::is_ok);
    if errors.is_empty() {
        Ok(locations.into_iter().filter_map(Result::ok).collect())
    } else {
        Err(InputErrors(
            errors.into_iter().filter_map(Result::err).collect(),
        ))
    }
}

/// `--config FILE` / `--no-config`: which config file (defaults, accepted findings) is read.
#[derive(Debug, Clone, Default, clap::Args)]
pub struct ConfigArgs {
    /// Read defaults and accepted findings from FILE [default: the first compat.toml in the
    /// working directory or above it, up to the repository root]
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// Read no config file
    #[arg(long, conflicts_with = "config")]
    pub no_config: bool,
}

impl ConfigArgs {
    /// The config in force: `--config`'s file, or the one found upward from the working
    /// directory, or none (an empty config).
    pub fn load(&self) -> Result<Config, CliError> {
        if self.no_config {
            return Ok(Config::default());
        }
        let path = match &self.config {
            Some(path) => path.clone(),
            None => match std::env::current_dir()
                .ok()
                .and_then(|dir| loader::find_config(&dir))
            {
                Some(path) => path,
                None => return Ok(Config::default()),
            },
        };
        Ok(loader::read_config(&path)?)
    }
}

/// The output format in force: the flag, else the config file's `format` when the command
/// has that format, else `otherwise`.
pub fn format_in_force<F: ValueEnum>(flag: Option<F>, config: &Config, otherwise: F) -> F {
    flag.or_else(|| {
        config
            .format
            .as_deref()
            .and_then(|name| F::from_str(name, false).ok())
    })
    .unwrap_or(otherwise)
}
