//! The file-system edge: reading files and directories into manifests and environments, with
//! every failure turned into a located [`InputError`], and writing generated files. It knows
//! nothing of catalogs: `catalog/dir.rs` builds one from what it reads, `catalog/import.rs`
//! checks an import batch of its [`SourceFile`]s.
//!
//! A manifest directory (a catalog directory, or one given to `lint`) is read recursively (`*.yml`, `*.yaml`, `*.json`); entries are visited in
//! sorted order, hidden entries (names starting with `.`, such as `.git`) and entries that are
//! not regular files (a named pipe would block the read forever) are skipped, symbolic
//! links are followed but each directory is read once, so a link loop cannot recurse forever.
//! Files are parsed in parallel; the result does not depend on the order they finish in.

use std::collections::BTreeSet;
use std::fs;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use rayon::prelude::*;

use crate::config::{self, Config};
use crate::diagnostic::{InputError, InputErrors, Location};
use crate::environment::{self, Environment};
use crate::manifest::{self, Manifest};

/// The file endings a catalog directory is searched for.
pub const MANIFEST_EXTENSIONS: [&str; 3] = ["yml", "yaml", "json"];

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
    let limit = crate::limits::get().file_bytes;
    let size = fs::metadata(path)
        .map_err(|e| InputError::io(&name, &e))?
        .len();
    if size > limit {
        return Err(InputError::Io {
            path: name.to_string(),
            reason: format!(
                "the file has {size} bytes, more than the limit of {limit}; raise it with \
                 --max-file-mb"
            ),
        });
    }
    let file = fs::File::open(path).map_err(|e| InputError::io(&name, &e))?;
    read_limited(file, &name, "the file grew past")
}

/// Reads a stream to its end as UTF-8 text, refusing more than the file size limit.
fn read_limited(reader: impl Read, name: &Arc<str>, too_long: &str) -> Result<String, InputError> {
    let limit = crate::limits::get().file_bytes;
    // Read at most one byte past the limit: a file that grows while it is read is caught too.
    let mut bytes = Vec::new();
    reader
        .take(limit.saturating_add(1))
        .read_to_end(&mut bytes)
        .map_err(|e| InputError::io(name, &e))?;
    if bytes.len() as u64 > limit {
        return Err(InputError::Io {
            path: name.to_string(),
            reason: format!("{too_long} the limit of {limit} bytes; raise it with --max-file-mb"),
        });
    }
    String::from_utf8(bytes).map_err(|e| {
        let offset = e.utf8_error().valid_up_to();
        let location = Location::of_offset(e.as_bytes(), offset);
        InputError::malformed(
            name,
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
    environment::parse(&text, &display(path), &stem(path))
}

/// Every file below `dir` that may be an environment: `*.yml`, `*.yaml` and `*.json`, walked
/// as a manifest directory is (sorted, hidden entries skipped).
///
/// # Errors
/// When a directory cannot be read.
pub fn environment_files(dir: &Path) -> Result<Vec<PathBuf>, InputError> {
    manifest_files(dir)
}

/// A fleet's environment files as read, in the order of the paths given.
#[derive(Debug, Default)]
pub struct Fleet {
    pub environments: Vec<Environment>,
    /// Files found in a directory that are not environments ([`environment::recognize`]).
    pub passed_over: Vec<PathBuf>,
    /// Every file that could not be read.
    pub errors: Vec<InputError>,
}

/// Reads environment files in parallel. A path given as `(path, true)` was named by the user
/// and must be an environment; `(path, false)` was found in a directory and is passed over
/// when it is not meant as one.
#[must_use]
pub fn read_fleet(paths: &[(PathBuf, bool)]) -> Fleet {
    let read: Vec<Result<Option<Environment>, InputError>> = paths
        .par_iter()
        .map(|(path, named)| {
            if *named {
                return read_environment(path).map(Some);
            }
            let text = read_text(path)?;
            environment::recognize(&text, &display(path), &stem(path))
        })
        .collect();
    let mut fleet = Fleet::default();
    for ((path, _), result) in paths.iter().zip(read) {
        match result {
            Ok(Some(env)) => fleet.environments.push(env),
            Ok(None) => fleet.passed_over.push(path.clone()),
            Err(e) => fleet.errors.push(e),
        }
    }
    fleet
}

/// The default name of an environment read from `path`: the file name without its ending.
fn stem(path: &Path) -> String {
    path.file_stem().map_or_else(
        || "environment".to_owned(),
        |s| s.to_string_lossy().into_owned(),
    )
}

/// Reads a policy file (`--policy FILE`, SPEC 9.2) and its warnings.
///
/// # Errors
/// As [`read_text`] and [`crate::policy::parse_file`].
pub fn read_policy(path: &Path) -> Result<(crate::policy::Policy, Vec<String>), InputError> {
    let text = read_text(path)?;
    crate::policy::parse_file(&text, &display(path))
}

/// Reads an environment from standard input (the `-` path); locations name it `<stdin>` and
/// an environment without a name is called `stdin`.
///
/// # Errors
/// As [`read_text`] (the size limit holds) and [`environment::parse`].
pub fn read_environment_from(reader: &mut dyn Read) -> Result<Environment, InputError> {
    let name: Arc<str> = Arc::from(crate::diagnostic::STDIN);
    let text = read_limited(reader, &name, "standard input has more than")?;
    environment::parse(&text, &name, "stdin")
}

/// The config file (`compat.toml`) for a command run in `dir` (absolute): the first found in
/// `dir` and its ancestors, stopping after the filesystem root or a directory holding `.git`
/// (a repository's root; a worktree's `.git` is a file and counts too). The path returned is
/// relative to `dir` (`compat.toml`, `../compat.toml`), as reports show it.
#[must_use]
pub fn find_config(dir: &Path) -> Option<PathBuf> {
    let mut up = PathBuf::new();
    for ancestor in dir.ancestors() {
        if ancestor.join(config::FILE_NAME).is_file() {
            return Some(up.join(config::FILE_NAME));
        }
        if ancestor.join(".git").exists() {
            return None;
        }
        up.push("..");
    }
    None
}

/// Reads a config file.
///
/// # Errors
/// As [`read_text`] and [`config::parse`].
pub fn read_config(path: &Path) -> Result<Config, InputError> {
    let text = read_text(path)?;
    config::parse(&text, &display(path))
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
        } else if path.is_file() // not a named pipe or a device, which could block forever
            && path
            .extension()
            .is_some_and(|ext| MANIFEST_EXTENSIONS.iter().any(|m| ext == *m))
        {
            files.push(path);
        }
    }
    Ok(())
}

/// One manifest file as read: its path as shown, its text, the manifests in it.
#[derive(Debug, Clone)]
pub struct SourceFile {
    pub path: Arc<str>,
    pub text: String,
    pub manifests: Vec<Manifest>,
}

/// Reads manifest files and directories (searched as a catalog directory is), in parallel,
/// keeping the order of the paths.
///
/// # Errors
/// Every file that cannot be read as manifests, each with its location.
pub fn read_sources(paths: &[PathBuf]) -> Result<Vec<SourceFile>, InputErrors> {
    let (sources, errors) = read_sources_and_errors(paths);
    if errors.is_empty() {
        Ok(sources)
    } else {
        Err(InputErrors(errors))
    }
}

/// As [`read_sources`], but returns the files it could read beside the errors of the others,
/// so a caller can check the readable ones too and report everything at once.
#[must_use]
pub fn read_sources_and_errors(paths: &[PathBuf]) -> (Vec<SourceFile>, Vec<InputError>) {
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
    let results: Vec<Result<SourceFile, InputError>> = files
        .par_iter()
        .map(|file| {
            let text = read_text(file)?;
            let path = display(file);
            let manifests = manifest::parse(&text, &path)?;
            Ok(SourceFile {
                path,
                text,
                manifests,
            })
        })
        .collect();
    let mut sources = Vec::with_capacity(results.len());
    for result in results {
        match result {
            Ok(source) => sources.push(source),
            Err(e) => errors.push(e),
        }
    }
    (sources, errors)
}

/// Reads the manifests of files and directories; see [`read_sources`].
///
/// # Errors
/// As [`read_sources`].
pub fn read_manifest_paths(paths: &[PathBuf]) -> Result<Vec<Manifest>, InputErrors> {
    Ok(read_sources(paths)?
        .into_iter()
        .flat_map(|s| s.manifests)
        .collect())
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

/// Writes a file so that readers see the old content or the new, never half of it: the text
/// goes to a temporary file beside the target, which is then renamed over it. A symbolic link
/// is followed (the file it names is replaced, the link stays), an existing file keeps its
/// permissions, and a target that is not a regular file (`/dev/null`, a named pipe, a
/// terminal) is written to in place, since renaming over it would replace the device.
///
/// # Errors
/// When the temporary file cannot be written or renamed (it is removed again).
pub fn write_atomically(path: &Path, text: &str) -> Result<(), InputError> {
    let target = follow_links(path);
    let existing = fs::metadata(&target).ok();
    if existing.as_ref().is_some_and(|m| !m.is_file()) {
        return fs::write(&target, text).map_err(|e| InputError::write(path.display(), &e));
    }
    let dir = target
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let name = target
        .file_name()
        .map_or_else(|| "out".into(), |n| n.to_string_lossy());
    let temp = dir.join(format!(".{name}.{}.tmp", std::process::id()));
    let result = fs::write(&temp, text)
        .and_then(|()| match &existing {
            Some(meta) => fs::set_permissions(&temp, meta.permissions()),
            None => Ok(()),
        })
        .and_then(|()| fs::rename(&temp, &target));
    result.map_err(|e| {
        let _ = fs::remove_file(&temp);
        InputError::write(path.display(), &e)
    })
}

/// The path a chain of symbolic links ends at (the path itself when it is no link), also when
/// the last link dangles; a chain longer than the system would follow is left as it is.
fn follow_links(path: &Path) -> PathBuf {
    let mut current = path.to_path_buf();
    for _ in 0..40 {
        let is_link = fs::symlink_metadata(&current).is_ok_and(|m| m.file_type().is_symlink());
        if !is_link {
            return current;
        }
        let Ok(next) = fs::read_link(&current) else {
            return current;
        };
        current = match current.parent() {
            Some(dir) => dir.join(next), // an absolute `next` replaces `dir`
            None => next,
        };
    }
    path.to_path_buf()
}
