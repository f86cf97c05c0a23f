//! The directory backend: a catalog directory of manifest files, read whole (through
//! [`loader`](crate::loader), in parallel) into an in-memory [`Catalog`] when it is opened.
//!
//! Invariants: a directory is read-only for compat; every unreadable file and every release
//! described twice is reported, not just the first.

use std::path::Path;

use super::Catalog;
use crate::diagnostic::InputErrors;
use crate::loader;

/// Reads a catalog directory into memory.
///
/// # Errors
/// Every unreadable manifest and every release described twice.
pub fn load(path: &Path) -> Result<Catalog, InputErrors> {
    let manifests = loader::read_manifest_paths(&[path.to_path_buf()])?;
    Catalog::from_manifests(manifests).map_err(InputErrors)
}
