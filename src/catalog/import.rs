//! What a catalog import accepts: a [`Batch`] of manifest files, checked whole before any
//! catalog is opened for writing, so a bad batch writes nothing and reports every problem in
//! one run.
//!
//! Invariants: a batch holds only readable files whose manifests are valid (warnings
//! allowed), and no release is described twice, differently, within it.

use crate::diagnostic::{InputError, InputErrors};
use crate::finding::Code;
use crate::loader::SourceFile;

use super::Catalog;

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
        if let Err(duplicates) =
            Catalog::from_manifests(files.iter().flat_map(|s| s.manifests.iter().cloned()))
        {
            errors.extend(duplicates);
        }
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
