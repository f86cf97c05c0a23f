//! The directory backend: a catalog directory of manifest files, read whole (through
//! [`loader`](crate::loader), in parallel) into an in-memory [`Catalog`] when it is opened.
//! It answers every scope with everything it read, and lists and shows releases from it.
//!
//! Invariants: a directory is read-only for compat (an import into one is refused before
//! anything is read); every unreadable file and every release described twice is reported,
//! not just the first.

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
}

impl Directory {
    /// Reads a catalog directory into memory.
    ///
    /// # Errors
    /// Every unreadable manifest and every release described twice.
    pub fn open(path: &Path) -> Result<Directory, InputErrors> {
        let manifests = loader::read_manifest_paths(&[path.to_path_buf()])?;
        Ok(Directory {
            path: path.display().to_string(),
            catalog: Catalog::from_manifests(manifests).map_err(InputErrors)?,
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
