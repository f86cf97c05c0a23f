//! The file-system edge: reading files and directories into manifests, catalogs and
//! environments, with every failure turned into a located [`InputError`], and writing
//! generated files.
//!
//! A catalog directory is read recursively (`*.yml`, `*.yaml`, `*.json`); entries are visited in
//! sorted order, hidden entries (names starting with `.`, such as `.git`) are skipped, symbolic
//! links are followed but each directory is read once, so a link loop cannot recurse forever.
//! Files are parsed in parallel; the result does not depend on the order they finish in.

use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use rayon::prelude::*;

use crate::catalog::Catalog;
use crate::diagnostic::{InputError, InputErrors, Location};
use crate::environment::{self, Environment};
use crate::manifest::{self, Manifest};

/// The file endings a catalog directory is searched for.
pub const MANIFEST_EXTENSIONS: [&str; 3] = ["yml", "yaml", "json"];

/// The first bytes of every SQLite database file.
const SQLITE_MAGIC: &[u8] = b"SQLite format 3\0";

/// A path as reports show it.
fn display(path: &Path) -> Arc<str> {
    Arc::from(path.display().to_string())
}

/// Reads a whole file as UTF-8 text.
///
/// # Errors
/// When the file cannot be read, is a directory, or is not UTF-8 (located at the first bad
/// byte).
pub fn read_text(path: &Path) -> Result<String, InputError> {
    let name = display(path);
    if path.is_dir() {
        return Err(InputError::Io {
            path: name.to_string(),
            reason: "is a directory, expected a file".to_owned(),
        });
    }
    let bytes = fs::read(path).map_err(|e| InputError::io(&name, &e))?;
    String::from_utf8(bytes).map_err(|e| {
        let offset = e.utf8_error().valid_up_to();
        let location = Location::of_offset(e.as_bytes(), offset);
        InputError::malformed(
            &name,
            location,
            "expected UTF-8 text, found a byte that is not UTF-8 (is this a binary file?)",
        )
    })
}

/// Reads every manifest in one file.
///
/// # Errors
/// As [`read_text`] and [`manifest::parse`].
pub fn read_manifests(path: &Path) -> Result<Vec<Manifest>, InputError> {
    let text = read_text(path)?;
    manifest::parse(&text, &display(path))
}

/// Reads an environment file.
///
/// # Errors
/// As [`read_text`] and [`environment::parse`].
pub fn read_environment(path: &Path) -> Result<Environment, InputError> {
    let text = read_text(path)?;
    let stem = path.file_stem().map_or_else(
        || "environment".to_owned(),
        |s| s.to_string_lossy().into_owned(),
    );
    environment::parse(&text, &display(path), &stem)
}

/// Every manifest file below `dir`, sorted; see the module documentation for the walk.
///
/// # Errors
/// When a directory cannot be read.
pub fn manifest_files(dir: &Path) -> Result<Vec<PathBuf>, InputError> {
    let mut files = Vec::new();
    let mut seen = BTreeSet::new();
    walk(dir, &mut files, &mut seen)?;
    Ok(files)
}

fn walk(
    dir: &Path,
    files: &mut Vec<PathBuf>,
    seen: &mut BTreeSet<PathBuf>,
) -> Result<(), InputError> {
    let real = fs::canonicalize(dir).map_err(|e| InputError::io(dir.display(), &e))?;
    if !seen.insert(real) {
        return Ok(());
    }
    let mut entries: Vec<PathBuf> = fs::read_dir(dir)
        .map_err(|e| InputError::io(dir.display(), &e))?
        .map(|entry| entry.map(|e| e.path()))
        .collect::<Result<_, _>>()
        .map_err(|e| InputError::io(dir.display(), &e))?;
    entries.sort();
    for path in entries {
        let hidden = path
            .file_name()
            .is_some_and(|n| n.to_string_lossy().starts_with('.'));
        if hidden {
            continue;
        }
        if path.is_dir() {
            walk(&path, files, seen)?;
        } else if path
            .extension()
            .is_some_and(|ext| MANIFEST_EXTENSIONS.iter().any(|m| ext == *m))
        {
            files.push(path);
        }
    }
    Ok(())
}

/// Reads manifests from files and directories (searched as a catalog directory is), in
/// parallel, keeping the order of the paths.
///
/// # Errors
/// Every file that cannot be read as manifests, each with its location.
pub fn read_manifest_paths(paths: &[PathBuf]) -> Result<Vec<Manifest>, InputErrors> {
    let mut files = Vec::new();
    let mut errors = Vec::new();
    for path in paths {
        if path.is_dir() {
            match manifest_files(path) {
                Ok(found) => files.extend(found),
                Err(e) => errors.push(e),
            }
        } else {
            files.push(path.clone());
        }
    }
    let results: Vec<Result<Vec<Manifest>, InputError>> =
        files.par_iter().map(|f| read_manifests(f)).collect();
    let mut manifests = Vec::new();
    for result in results {
        match result {
            Ok(found) => manifests.extend(found),
            Err(e) => errors.push(e),
        }
    }
    if errors.is_empty() {
        Ok(manifests)
    } else {
        Err(InputErrors(errors))
    }
}

/// Opens the catalog `--catalog` names: a directory of manifests.
///
/// # Errors
/// Every unreadable manifest and every release described twice; a path that is neither a
/// directory nor a catalog file.
pub fn load_catalog(path: &Path) -> Result<Catalog, InputErrors> {
    if !path.is_dir() {
        let name = path.display().to_string();
        let head = fs::read(path).map_err(|e| InputError::io(&name, &e))?;
        let reason = if head.starts_with(SQLITE_MAGIC) {
            "SQLite catalogs are not supported yet; pass the manifest directory"
        } else {
            "expected a catalog directory of manifests"
        };
        return Err(InputError::Io {
            path: name,
            reason: reason.to_owned(),
        }
        .into());
    }
    let manifests = read_manifest_paths(&[path.to_path_buf()])?;
    Catalog::from_manifests(manifests).map_err(InputErrors)
}

/// Writes files, creating their directories.
///
/// # Errors
/// The first file or directory that cannot be written.
pub fn write_files<'a>(files: impl Iterator<Item = (PathBuf, &'a str)>) -> Result<(), InputError> {
    for (path, text) in files {
        if let Some(dir) = path.parent() {
            fs::create_dir_all(dir).map_err(|e| InputError::io(dir.display(), &e))?;
        }
        fs::write(&path, text).map_err(|e| InputError::io(path.display(), &e))?;
    }
    Ok(())
}
