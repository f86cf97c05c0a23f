//! Where a catalog lives, as `--catalog` or `--db` names it: a [`Location`], parsed once and
//! opened by the backend it names, for reading releases ([`CatalogSource`]) or for the
//! `catalog` commands ([`CatalogStore`]), so callers never name a backend.
//!
//! An argument of the form `scheme://…` is a URL: `postgres://` and `postgresql://` name a
//! PostgreSQL catalog; any other scheme is an error rather than a file name that does not
//! exist. Otherwise it is a path: a directory is a manifest directory, anything else is taken
//! for a catalog file, and opening it finds out whether it is one.
//!
//! Invariant: a PostgreSQL URL is shown (`Display`, `Debug`, error messages) without its
//! password ([`PostgresUrl`]).

use std::fmt;
use std::path::{Path, PathBuf};

use super::dir::{self, Directory};
use super::postgres::{self, PostgresUrl};
use super::sqlite::Store;
use super::{CatalogSource, CatalogStore};
use crate::diagnostic::{InputError, InputErrors};

/// A catalog's place.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Location {
    /// A directory of manifest files (read-only).
    Directory(PathBuf),
    /// A SQLite catalog file made by `compat catalog import` (or one to create).
    Sqlite(PathBuf),
    /// A PostgreSQL database (`postgres://…` or `postgresql://…`).
    Postgres(PostgresUrl),
}

impl Location {
    /// The location an argument names. Looks at the file system only to tell a directory.
    ///
    /// # Errors
    /// A URL of a scheme other than PostgreSQL's.
    pub fn parse(arg: &Path) -> Result<Location, InputError> {
        if let Some(scheme) = url_scheme(arg) {
            if matches!(scheme, "postgres" | "postgresql") {
                let url = arg.to_str().unwrap_or_default();
                return Ok(Location::Postgres(PostgresUrl::new(url)));
            }
            return Err(InputError::Io {
                path: arg.display().to_string(),
                reason: format!(
                    "expected a catalog directory of manifests or a catalog file made by \
                     `compat catalog import`, or a `postgres://` URL, found a URL with the \
                     scheme `{scheme}`, which compat cannot open"
                ),
            });
        }
        Ok(if arg.is_dir() {
            Location::Directory(arg.to_path_buf())
        } else {
            Location::Sqlite(arg.to_path_buf())
        })
    }

    /// Opens the catalog for reading releases (`validate`, `upgrades`, `plan`, …); a
    /// directory is read whole here, and a file in it that cannot be read as manifests is left
    /// out and listed by [`CatalogSource::unreadable`] (the caller decides whether that is an
    /// error).
    ///
    /// # Errors
    /// A directory that cannot be walked and every release described twice (directory); a
    /// file that is missing, not a catalog, or has a newer schema (catalog file).
    pub fn open(&self) -> Result<Box<dyn CatalogSource>, InputErrors> {
        match self {
            Location::Directory(path) => Ok(Box::new(Directory::open_lenient(path)?)),
            Location::Sqlite(path) => Ok(Box::new(Store::open_catalog(path)?)),
            Location::Postgres(url) => Ok(Box::new(postgres::Store::open(url)?)),
        }
    }

    /// Opens an existing catalog to list and show its releases (`catalog list`, `catalog
    /// show`); a directory is read whole here.
    ///
    /// # Errors
    /// As [`Location::open`]; a catalog file must exist and be one.
    pub fn open_store(&self) -> Result<Box<dyn CatalogStore>, InputErrors> {
        match self {
            Location::Directory(path) => Ok(Box::new(Directory::open(path)?)),
            Location::Sqlite(path) => Ok(Box::new(Store::open(path)?)),
            Location::Postgres(url) => Ok(Box::new(postgres::Store::open(url)?)),
        }
    }

    /// Opens a catalog to import into (`catalog import`), creating a catalog file when it is
    /// missing.
    ///
    /// # Errors
    /// A directory (read-only); a file that is not a catalog, or has a newer schema.
    pub fn create_store(&self) -> Result<Box<dyn CatalogStore>, InputErrors> {
        match self {
            Location::Directory(path) => Err(dir::read_only(&path.display().to_string()).into()),
            Location::Sqlite(path) => Ok(Box::new(Store::create(path)?)),
            Location::Postgres(url) => Ok(Box::new(postgres::Store::create(url)?)),
        }
    }
}

/// As the argument was given, less a URL's password.
impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Location::Directory(path) | Location::Sqlite(path) => path.display().fmt(f),
            Location::Postgres(url) => url.fmt(f),
        }
    }
}

/// The scheme of an argument shaped like a URL (`scheme://…`, RFC 3986 scheme characters).
fn url_scheme(arg: &Path) -> Option<&str> {
    let (scheme, _) = arg.to_str()?.split_once("://")?;
    let mut chars = scheme.chars();
    let first = chars.next()?;
    (first.is_ascii_alphabetic()
        && chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.')))
    .then_some(scheme)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_are_refused_by_scheme_and_paths_are_kept_as_given() {
        let error = Location::parse(Path::new("mysql://db.example/compat")).unwrap_err();
        assert_eq!(
            error.to_string(),
            "mysql://db.example/compat: cannot read: expected a catalog directory of \
             manifests or a catalog file made by `compat catalog import`, or a `postgres://` \
             URL, found a URL with the scheme `mysql`, which compat cannot open"
        );
        for url in [
            "postgres://db.example/compat",
            "postgresql://u:secret@db.example:5433/compat",
        ] {
            let location = Location::parse(Path::new(url)).unwrap();
            assert!(matches!(location, Location::Postgres(_)), "{url}");
            assert!(!location.to_string().contains("secret"));
            assert!(!format!("{location:?}").contains("secret"));
        }
        let dir = Location::parse(Path::new("testdata/examples/catalog")).unwrap();
        assert_eq!(dir, Location::Directory("testdata/examples/catalog".into()));
        let file = Location::parse(Path::new("no/such/c.db")).unwrap();
        assert_eq!(file, Location::Sqlite("no/such/c.db".into()));
        assert_eq!(file.to_string(), "no/such/c.db");
        assert_eq!(url_scheme(Path::new("./a://b")), None);
        assert_eq!(url_scheme(Path::new("C:\\catalog")), None);
    }
}
