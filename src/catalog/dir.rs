//! The directory backend: a catalog directory of manifest files, read whole (through
//! [`loader`](crate::loader), in parallel) into an in-memory [`Catalog`] when it is opened.
//! It answers every scope with everything it read, and lists and shows releases from it.
//!
//! Invariants: a directory is read-only for compat (an import into one is refused before
//! anything is read); every unreadable file and every release described twice is reported,
//! not just the first. Opened for reading releases ([`Directory::open_lenient`]), a file that
//! cannot be read as manifests is left out and kept as [`CatalogSource::unreadable`], so
//! `validate` can report it as a finding and go on (SPEC section 8); a directory that cannot be
//! walked and a release described twice stay errors.

use std::path::Path;

use super::{
    Batch, Catalog, CatalogSource, CatalogStore, ImportError, ImportSummary, Listing, Scope,
};
use crate::diagnostic::{InputError, InputErrors};
use crate::loader;
use crate::manifest::Manifest;
use crate::product::ProductId;
use crate::version::Version;

/// An opened catalog directory.
pub struct Directory {
    path: String,
    catalog: Catalog,
    unreadable: Vec<InputError>,
}

impl Directory {
    /// Reads a catalog directory into memory.
    ///
    /// # Errors
    /// Every unreadable manifest and every release described twice.
    pub fn open(path: &Path) -> Result<Directory, InputErrors> {
        let directory = Directory::open_lenient(path)?;
        if directory.unreadable.is_empty() {
            Ok(directory)
        } else {
            Err(InputErrors(directory.unreadable))
        }
    }

    /// Reads a catalog directory into memory, leaving out the files whose text cannot be read
    /// as manifests (bad YAML, wrong types, a version that is not a version, not UTF-8); they
    /// are kept, located, for [`CatalogSource::unreadable`].
    ///
    /// # Errors
    /// A directory that cannot be walked; a file that cannot be read at all (permissions, an
    /// input limit); every release described twice among the files read.
    pub fn open_lenient(path: &Path) -> Result<Directory, InputErrors> {
        let files = loader::manifest_files(path)?;
        let (sources, errors) = loader::read_sources_and_errors(&files);
        let (unreadable, fatal): (Vec<_>, Vec<_>) = errors
            .into_iter()
            .partition(|e| matches!(e, InputError::Malformed { .. }));
        if !fatal.is_empty() {
            return Err(InputErrors(fatal));
        }
        let manifests = sources.into_iter().flat_map(|s| s.manifests);
        Ok(Directory {
            path: path.display().to_string(),
            catalog: Catalog::from_manifests(manifests).map_err(InputErrors)?,
            unreadable,
        })
    }
}

/// The refusal of an import into the directory at `path`.
pub fn read_only(path: &str) -> InputError {
    InputError::Write {
        path: path.to_owned(),
        reason: "expected a catalog file to import into, found a catalog directory (compat only \
                 reads those)"
            .to_owned(),
    }
}

impl CatalogSource for Directory {
    fn unreadable(&self) -> &[InputError] {
        &self.unreadable
    }

    fn load(&self, scope: &Scope) -> Result<Catalog, InputErrors> {
        self.catalog.load(scope)
    }

    fn load_all(&self) -> Result<Catalog, InputErrors> {
        self.catalog.load_all()
    }

    fn load_releases(&self, wanted: &[(&ProductId, &Version)]) -> Result<Catalog, InputErrors> {
        self.catalog.load_releases(wanted)
    }

    fn load_from(
        &self,
        products: &[(&ProductId, Option<&Version>)],
    ) -> Result<Catalog, InputErrors> {
        self.catalog.load_from(products)
    }
}

impl CatalogStore for Directory {
    fn import(&mut self, _: &Batch, _: bool) -> Result<ImportSummary, ImportError> {
        Err(read_only(&self.path).into())
    }

    fn list(&self, product: Option<&ProductId>) -> Result<Listing, InputError> {
        let versions = |p: &ProductId| {
            let releases = self.catalog.releases(p);
            (
                p.clone(),
                releases
                    .iter()
                    .map(|m| m.version.as_str().to_owned())
                    .collect(),
            )
        };
        Ok(match product {
            Some(p) if self.catalog.releases(p).is_empty() => Vec::new(),
            Some(p) => vec![versions(p)],
            None => self.catalog.products().map(versions).collect(),
        })
    }

    fn release(
        &self,
        product: &ProductId,
        version: &Version,
    ) -> Result<Option<Manifest>, InputError> {
        Ok(self
            .catalog
            .release(product, version)
            .map(|m| Manifest::clone(m)))
    }
}
