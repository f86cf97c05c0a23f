//! Catalog imports, for every backend that stores: what an import accepts (a [`Batch`] of
//! manifest files, checked whole before any catalog is opened for writing, so a bad batch
//! writes nothing and reports every problem in one run) and what it does with each release
//! ([`apply`], over a backend's open transaction).
//!
//! Invariants: a batch holds only readable files whose manifests are valid (warnings
//! allowed), and no release is described twice, differently, within it. Re-importing an
//! identical manifest changes nothing; a different one for a stored release is a conflict
//! unless replacing; one conflict makes the whole import write nothing.

use crate::diagnostic::{FileLocation, InputError, InputErrors};
use crate::finding::Code;
use crate::loader::SourceFile;
use crate::manifest::Manifest;
use crate::product::ProductId;
use crate::version::Version;

use super::{Catalog, at};

/// Why an import wrote nothing.
#[derive(Debug, thiserror::Error)]
pub enum ImportError {
    /// The batch or the catalog cannot be read or written: not a catalog, damaged, locked,
    /// read-only, or the disk failed (exit 3).
    #[error(transparent)]
    Input(#[from] InputErrors),
    /// Releases already stored with other declarations, and `--replace` was not given (exit 1).
    #[error("{}", .0.iter().map(ToString::to_string).collect::<Vec<_>>().join("\n"))]
    Conflicts(Vec<Conflict>),
}

impl From<InputError> for ImportError {
    fn from(e: InputError) -> Self {
        ImportError::Input(e.into())
    }
}

/// A release the import would change.
#[derive(Debug, Clone)]
pub struct Conflict {
    pub release: String,
    pub stored: FileLocation,
    pub new: FileLocation,
}

impl std::fmt::Display for Conflict {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{}: release `{}` is already stored from {} with other declarations; pass --replace \
             to overwrite it",
            self.new, self.release, self.stored
        )
    }
}

/// What an import did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ImportSummary {
    pub added: usize,
    pub unchanged: usize,
    pub replaced: usize,
}

/// Manifest files that may be imported.
#[derive(Debug, Clone)]
pub struct Batch {
    files: Vec<SourceFile>,
}

impl Batch {
    /// Checks the files read for an import; `unreadable` are the errors of the files that
    /// could not be read, so they are reported together with the problems of the others.
    ///
    /// # Errors
    /// Every unreadable file, every invalid declaration, every release described twice.
    pub fn check(
        files: Vec<SourceFile>,
        unreadable: Vec<InputError>,
    ) -> Result<Batch, InputErrors> {
        let mut errors = unreadable;
        errors.extend(files.iter().flat_map(|s| &s.manifests).flat_map(|m| {
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
        errors.extend(Catalog::duplicates(files.iter().flat_map(|s| &s.manifests)));
        if errors.is_empty() {
            Ok(Batch { files })
        } else {
            Err(InputErrors(errors))
        }
    }

    /// The files, in the order they were given.
    #[must_use]
    pub fn files(&self) -> &[SourceFile] {
        &self.files
    }
}

/// A storing backend's open import transaction, as [`apply`] uses it, over a batch that lives
/// for `'b` (a backend may keep what it is given until it writes). Ids are the backend's.
pub trait ImportTarget<'b> {
    /// The stored release of `product` at `version` (version equality), with its id.
    ///
    /// # Errors
    /// A read failure or a damaged row.
    fn find(
        &mut self,
        product: &ProductId,
        version: &Version,
    ) -> Result<Option<(i64, Manifest)>, InputError>;

    /// Deletes a stored release and its declarations.
    ///
    /// # Errors
    /// A write failure.
    fn remove(&mut self, release: i64) -> Result<(), InputError>;

    /// Stores a file's path and text (asked once per file that has a release to store).
    ///
    /// # Errors
    /// A write failure.
    fn add_source(&mut self, file: &'b SourceFile) -> Result<i64, InputError>;

    /// Stores a release read from the source `source`.
    ///
    /// # Errors
    /// A write failure.
    fn add_release(&mut self, source: i64, manifest: &'b Manifest) -> Result<(), InputError>;
}

/// Imports a batch into an open transaction, following the module's rules. On an error the
/// caller must not commit: the transaction then writes nothing.
///
/// # Errors
/// Conflicting releases (all of them), or the target's first failure.
pub fn apply<'b>(
    target: &mut impl ImportTarget<'b>,
    batch: &'b Batch,
    replace: bool,
) -> Result<ImportSummary, ImportError> {
    let mut summary = ImportSummary::default();
    let mut conflicts = Vec::new();
    for file in batch.files() {
        let mut source_id = None;
        for manifest in &file.manifests {
            if let Some((id, stored)) = target.find(&manifest.product, &manifest.version)? {
                if stored.same_declarations(manifest) {
                    summary.unchanged += 1;
                    continue;
                }
                if !replace {
                    conflicts.push(Conflict {
                        release: manifest.release_name(),
                        stored: at(&stored),
                        new: at(manifest),
                    });
                    continue;
                }
                target.remove(id)?;
                summary.replaced += 1;
            } else {
                summary.added += 1;
            }
            let source = match source_id {
                Some(id) => id,
                None => *source_id.insert(target.add_source(file)?),
            };
            target.add_release(source, manifest)?;
        }
    }
    if conflicts.is_empty() {
        Ok(summary)
    } else {
        Err(ImportError::Conflicts(conflicts))
    }
}
