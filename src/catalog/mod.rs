//! The catalog: every known release, indexed by product and version (SPEC section 6), and the
//! one interface to where releases are kept.
//!
//! [`Catalog`] is the in-memory index the core reads (plan, solve, upgrade, validate never see
//! more). A command opens a [`Location`] (from `--catalog` or `--db`) and asks the backend it
//! names, through [`CatalogSource`], for the [`Scope`] the library states for that command;
//! the `catalog` commands use [`CatalogStore`]. Backends: `dir.rs` (a manifest directory,
//! read-only), `sqlite/` (the catalog file) and `postgres/` (a catalog in a PostgreSQL
//! database, `postgres://…`); what they share lives here once: `scope.rs`
//! (which releases a command reads, and the closure over dependencies), `import.rs` (what a
//! batch must be, and what an import does per release), `rows.rs` (a manifest as stored rows,
//! and the one decoder). `layers.rs` reads several catalogs as one (`--catalog` given more
//! than once). `capabilities.rs` answers `catalog list`'s and `catalog providers`' section 9
//! questions over any backend. `suite.rs` is the test suite every backend passes.
//!
//! Imports run one way: callers -> `catalog` -> `loader` (files) and the model modules
//! (`manifest`, `version`, …); nothing under `catalog/` imports the CLI, plan, solve or upgrade.
//!
//! Invariants: each product's releases are sorted by [`Version::display_cmp`] (orderable ones
//! ascending, then non-orderable ones by text); a release (product and version, with version
//! equality of SPEC section 1) appears once. A second, identical manifest of a release is
//! dropped; a different one is an error naming both files. A backend answers a scope with at
//! least the releases in it; callers never name a backend.

mod capabilities;
mod dir;
mod facet_cell;
mod import;
mod layers;
mod location;
mod postgres;
mod reread;
mod rows;
mod scope;
#[cfg(test)]
mod scratch;
mod sqlite;
#[cfg(test)]
mod suite;

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

pub use capabilities::{Providing, ReleaseFacets};
pub use import::{Batch, Conflict, ImportError, ImportSummary};
pub use layers::Layers;
pub use location::Location;
pub use postgres::PostgresUrl;
pub use reread::Reread;
pub use scope::Scope;

use crate::diagnostic::{FileLocation, InputError, InputErrors};
use crate::manifest::Manifest;
use crate::product::ProductId;
use crate::range::Range;
use crate::version::Version;

/// Where releases come from: a manifest directory, a SQLite or a PostgreSQL catalog. A command states the
/// [`Scope`] it needs, so a database can answer without reading everything; a source may
/// return more than was asked for (a directory has to read all of its files anyway).
pub trait CatalogSource {
    /// A catalog holding at least the releases in `scope`. The provided method answers with
    /// the three reads below, a closure round by round; a backend that can answer a scope in
    /// one query overrides it.
    ///
    /// # Errors
    /// When the source cannot be read.
    fn load(&self, scope: &Scope) -> Result<Catalog, InputErrors> {
        scope::load(self, scope)
    }

    /// A catalog holding every release the source knows.
    ///
    /// # Errors
    /// When the source cannot be read.
    fn load_all(&self) -> Result<Catalog, InputErrors>;

    /// A catalog holding each of these releases that the source knows.
    ///
    /// # Errors
    /// When the source cannot be read.
    fn load_releases(&self, wanted: &[(&ProductId, &Version)]) -> Result<Catalog, InputErrors>;

    /// A catalog holding every release of these products that is at least the given version
    /// (every release of the product for `None`): the candidates of an upgrade and the
    /// releases that run now, without the history below them.
    ///
    /// # Errors
    /// When the source cannot be read.
    fn load_from(
        &self,
        products: &[(&ProductId, Option<&Version>)],
    ) -> Result<Catalog, InputErrors>;

    /// The products some release of which provides capability `name` (SPEC 9.1), sorted:
    /// what a closure for `--allow-install` follows to the providers a plan may add. The
    /// provided method reads every release; a backend that can look it up overrides it.
    ///
    /// # Errors
    /// When the source cannot be read.
    fn providing(&self, name: &str) -> Result<Vec<ProductId>, InputErrors> {
        Ok(self.load_all()?.providers(name).to_vec())
    }

    /// The catalog files that could not be read as manifests and were left out, located
    /// (SPEC section 8: `validate` reports each as an `invalid-manifest` finding, the other
    /// commands warn, `--strict-catalog` makes them errors). Empty for a backend that refuses
    /// to open instead.
    fn unreadable(&self) -> &[InputError] {
        &[]
    }

    /// What a reader should know about the catalog besides its releases, for stderr: a
    /// database whose schema predates what today's compat stores (read as it is, until the
    /// next import migrates it). Empty for a directory, which is always read whole.
    fn notices(&self) -> Vec<String> {
        Vec::new()
    }
}

/// The notice of a catalog database (`name`) of schema `version`, whose cells may lack
/// section 10 (`section_10_since`: the first schema version that stores it).
#[must_use]
pub fn stale_schema_notice(name: &str, version: usize, section_10_since: usize) -> Option<String> {
    (version < section_10_since).then(|| {
        format!(
            "{name}: catalog schema {version} was written before outputs, inputs and instance \
             criteria (SPEC section 10) were stored; its releases are read without them until \
             an import migrates it (`compat catalog import DIR --db {name}`)"
        )
    })
}

/// What the `catalog` commands need: list and show releases, and import a batch where the
/// backend stores (a directory is read-only and refuses).
pub trait CatalogStore: CatalogSource {
    /// Imports a checked batch, all or nothing, by the rules of `catalog/import.rs`.
    ///
    /// # Errors
    /// Conflicting releases, a read-only catalog, or a failure; nothing is written then.
    fn import(&mut self, batch: &Batch, replace: bool) -> Result<ImportSummary, ImportError>;

    /// Every product (or only `product`) with its versions, in version order; empty when
    /// there is none.
    ///
    /// # Errors
    /// When the catalog cannot be read.
    fn list(&self, product: Option<&ProductId>) -> Result<Listing, InputError>;

    /// The release of `product` at `version` (version equality of SPEC section 1).
    ///
    /// # Errors
    /// When the catalog cannot be read.
    fn release(
        &self,
        product: &ProductId,
        version: &Version,
    ) -> Result<Option<Manifest>, InputError>;

    /// The releases (of every product, or only `product`) that declare anything of section 9,
    /// with what they declare, in catalog order (`catalog list`). The default reads the
    /// releases through [`CatalogSource`].
    ///
    /// # Errors
    /// When the catalog cannot be read.
    fn facets(&self, product: Option<&ProductId>) -> Result<Vec<ReleaseFacets>, InputErrors> {
        let catalog = match product {
            Some(p) => self.load_from(&[(p, None)])?,
            None => self.load_all()?,
        };
        Ok(capabilities::facets_of(&catalog, product))
    }

    /// The releases that provide capability `name` at a version in `range` (SPEC 9.1: a
    /// provision without a version only when the range has no bounds), in catalog order
    /// (`catalog providers`). The default filters [`CatalogStore::facets`].
    ///
    /// # Errors
    /// When the catalog cannot be read.
    fn providers(&self, name: &str, range: &Range) -> Result<Vec<Providing>, InputErrors> {
        Ok(capabilities::providers_in(&self.facets(None)?, name, range))
    }
}

/// An already loaded catalog is a source of itself, whatever the scope.
impl CatalogSource for Catalog {
    fn load(&self, _: &Scope) -> Result<Catalog, InputErrors> {
        Ok(self.clone())
    }

    fn load_all(&self) -> Result<Catalog, InputErrors> {
        Ok(self.clone())
    }

    fn load_releases(&self, _: &[(&ProductId, &Version)]) -> Result<Catalog, InputErrors> {
        Ok(self.clone())
    }

    fn load_from(&self, _: &[(&ProductId, Option<&Version>)]) -> Result<Catalog, InputErrors> {
        Ok(self.clone())
    }
}

/// Products with their versions as stored, in version order (`catalog list`).
pub type Listing = Vec<(ProductId, Vec<String>)>;

/// Known releases by product.
#[derive(Clone, Debug, Default)]
pub struct Catalog {
    products: BTreeMap<ProductId, Vec<Arc<Manifest>>>,
    /// Capability name -> the products some release of which provides it, sorted: built on
    /// first use ([`Catalog::providers`]), one pass over every release instead of one per
    /// capability asked (each explanation round's model asks for every capability an item
    /// names, and each scan read every release of the catalog).
    provided: std::sync::OnceLock<BTreeMap<String, Vec<ProductId>>>,
}

/// Sorts one product's manifests by version and keeps the first of each release (equal
/// versions are contiguous in display order; among them the earlier file wins); a later one
/// with other declarations is an error.
fn first_of_each_release<M: std::ops::Deref<Target = Manifest>>(
    releases: &mut Vec<M>,
    errors: &mut Vec<InputError>,
) {
    releases.sort_by(|a, b| {
        if a.version == b.version {
            (&a.file, a.location).cmp(&(&b.file, b.location))
        } else {
            a.version.display_cmp(&b.version)
        }
    });
    let mut kept: Vec<M> = Vec::with_capacity(releases.len());
    for manifest in releases.drain(..) {
        match kept.last() {
            Some(last) if last.version == manifest.version => {
                if !last.same_declarations(&manifest) {
                    errors.push(InputError::DuplicateRelease {
                        release: manifest.release_name(),
                        first: at(last),
                        second: at(&manifest),
                    });
                }
            }
            _ => kept.push(manifest),
        }
    }
    *releases = kept;
}

impl Catalog {
    /// The catalog of these releases (each product's sorted, one manifest per release).
    fn of(products: BTreeMap<ProductId, Vec<Arc<Manifest>>>) -> Catalog {
        Catalog {
            products,
            provided: std::sync::OnceLock::new(),
        }
    }

    /// Every product some release of which provides `capability` (SPEC 9.1), sorted.
    #[must_use]
    pub fn providers(&self, capability: &str) -> &[ProductId] {
        let provided = self.provided.get_or_init(|| {
            let mut by: BTreeMap<String, Vec<ProductId>> = BTreeMap::new();
            for (product, releases) in &self.products {
                let names: BTreeSet<&str> = releases
                    .iter()
                    .flat_map(|m| m.facets().provides.iter().map(|p| p.name.as_str()))
                    .collect();
                for name in names {
                    by.entry(name.to_owned()).or_default().push(product.clone());
                }
            }
            by
        });
        provided.get(capability).map_or(&[], Vec::as_slice)
    }

    /// Indexes manifests, in any order.
    ///
    /// # Errors
    /// Every release described by two different manifests.
    pub fn from_manifests(
        manifests: impl IntoIterator<Item = Manifest>,
    ) -> Result<Catalog, Vec<InputError>> {
        let mut products: BTreeMap<ProductId, Vec<Arc<Manifest>>> = BTreeMap::new();
        for manifest in manifests {
            products
                .entry(manifest.product.clone())
                .or_default()
                .push(Arc::new(manifest));
        }
        let mut errors = Vec::new();
        for releases in products.values_mut() {
            first_of_each_release(releases, &mut errors);
        }
        if errors.is_empty() {
            Ok(Catalog::of(products))
        } else {
            Err(errors)
        }
    }

    /// The errors [`Catalog::from_manifests`] would give for these manifests, without
    /// building the catalog (an import checks its batch so, without copying it).
    #[must_use]
    pub fn duplicates<'m>(manifests: impl IntoIterator<Item = &'m Manifest>) -> Vec<InputError> {
        let mut products: BTreeMap<&ProductId, Vec<&Manifest>> = BTreeMap::new();
        for manifest in manifests {
            products
                .entry(&manifest.product)
                .or_default()
                .push(manifest);
        }
        let mut errors = Vec::new();
        for releases in products.values_mut() {
            first_of_each_release(releases, &mut errors);
        }
        errors
    }

    /// This catalog with the releases of every product `more` holds taken from `more` instead
    /// (a product read in part here, read whole there).
    #[must_use]
    pub fn overlaid(&self, more: &Catalog) -> Catalog {
        let mut products = self.products.clone();
        for (product, releases) in &more.products {
            products.insert(product.clone(), releases.clone());
        }
        Catalog::of(products)
    }

    /// The release of `product` at `version` (version equality of SPEC section 1).
    #[must_use]
    pub fn release(&self, product: &ProductId, version: &Version) -> Option<&Arc<Manifest>> {
        let releases = self.releases(product);
        match version.order_key() {
            Some(key) => {
                let i =
                    releases.partition_point(|m| m.version.order_key().is_some_and(|k| k < key));
                releases.get(i).filter(|m| m.version == *version)
            }
            None => releases.iter().find(|m| m.version == *version),
        }
    }

    /// Every release of `product`, sorted as the invariant says.
    #[must_use]
    pub fn releases(&self, product: &ProductId) -> &[Arc<Manifest>] {
        self.products.get(product).map_or(&[], Vec::as_slice)
    }

    /// Every product with at least one release, sorted.
    pub fn products(&self) -> impl Iterator<Item = &ProductId> {
        self.products.keys()
    }

    /// How many releases the catalog holds.
    #[must_use]
    pub fn len(&self) -> usize {
        self.products.values().map(Vec::len).sum()
    }

    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.products.is_empty()
    }
}

fn at(manifest: &Manifest) -> FileLocation {
    FileLocation {
        file: Arc::clone(&manifest.file),
        location: manifest.location,
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use std::fmt::Write;

    use super::*;
    use crate::manifest;

    /// A catalog of `(group:name, version, extensions)` releases, `extensions` the YAML
    /// lines under `extensions:` (indented by two).
    pub(crate) fn catalog_of(releases: &[(&str, &str, &str)]) -> Catalog {
        let mut text = String::new();
        for (product, version, extensions) in releases {
            let (group, name) = product.split_once(':').unwrap();
            let _ = write!(
                text,
                "manifest-version: '1.0'\nproduct-group: {group}\nproduct-name: {name}\n\
                 product-version: {version}\nextensions:\n{extensions}---\n"
            );
        }
        Catalog::from_manifests(manifest::parse(&text, &Arc::from("c.yml")).unwrap()).unwrap()
    }

    fn manifests(file: &str, versions: &[&str], extra: &str) -> Vec<Manifest> {
        let text: Vec<String> = versions
            .iter()
            .map(|v| {
                format!(
                    "manifest-version: '1.0'\nproduct-group: g\nproduct-name: a\n\
                     product-version: {v}\n{extra}"
                )
            })
            .collect();
        manifest::parse(&text.join("---\n"), &Arc::from(file)).unwrap()
    }

    /// The index answers per capability what a scan of every release would: the products
    /// with a release providing it (any version, any release), sorted, each once.
    #[test]
    fn providers_are_the_products_with_a_release_providing_the_capability() {
        let provides = |names: &[&str]| {
            let mut text = String::from("  capabilities:\n    provides:\n");
            for name in names {
                let _ = writeln!(text, "      - name: {name}");
            }
            text
        };
        let (sql, both, none) = (
            provides(&["sql"]),
            provides(&["sql", "cache"]),
            String::new(),
        );
        let catalog = catalog_of(&[
            ("g:mysql", "5.7.0", &sql),
            ("g:mysql", "8.0.0", &sql),
            ("g:redis", "6.0.0", &none),
            ("g:redis", "7.0.0", &provides(&["cache"])),
            ("g:db", "1.0.0", &both),
            ("g:web", "1.0.0", &none),
        ]);
        let names = |capability: &str| -> Vec<String> {
            catalog
                .providers(capability)
                .iter()
                .map(ToString::to_string)
                .collect()
        };
        assert_eq!(names("sql"), ["g:db", "g:mysql"]);
        assert_eq!(names("cache"), ["g:db", "g:redis"]);
        assert!(names("queue").is_empty());
        let overlaid = catalog.overlaid(&catalog_of(&[("g:mysql", "9.0.0", &none)]));
        let mysql = ProductId::parse("g:mysql").unwrap();
        assert!(
            !overlaid.providers("sql").contains(&mysql),
            "built for each catalog"
        );
    }

    #[test]
    fn an_overlay_replaces_the_products_it_holds_and_keeps_the_rest() {
        let part = Catalog::from_manifests(manifests("a.yml", &["2.0.0", "3.0.0"], "")).unwrap();
        let whole =
            Catalog::from_manifests(manifests("a.yml", &["1.0.0", "2.0.0", "3.0.0"], "")).unwrap();
        let product = ProductId::parse("g:a").unwrap();
        let count = |c: &Catalog| c.releases(&product).len();
        assert_eq!(count(&part.overlaid(&whole)), 3);
        assert_eq!(count(&whole.overlaid(&Catalog::default())), 3);
        assert_eq!(count(&whole.overlaid(&part)), 2, "the overlay wins");
    }

    #[test]
    fn sorts_releases_and_finds_them_by_version_equality() {
        let catalog = Catalog::from_manifests(manifests(
            "a.yml",
            &["1.10.0", "1.2.0", "1.0.0-branch", "1.2.0-rc1", "01.1.0"],
            "",
        ))
        .unwrap();
        let product = ProductId::parse("g:a").unwrap();
        let versions: Vec<&str> = catalog
            .releases(&product)
            .iter()
            .map(|m| m.version.as_str())
            .collect();
        assert_eq!(
            versions,
            ["01.1.0", "1.2.0-rc1", "1.2.0", "1.10.0", "1.0.0-branch"]
        );
        let find = |v: &str| {
            catalog
                .release(&product, &Version::parse(v).unwrap())
                .map(|m| m.version.to_string())
        };
        assert_eq!(find("1.1.0").as_deref(), Some("01.1.0"));
        assert_eq!(find("1.0.0-branch").as_deref(), Some("1.0.0-branch"));
        assert_eq!(find("1.0.0"), None);
        assert_eq!(find("1.0.0-other"), None);
        assert_eq!(catalog.len(), 5);
    }

    #[test]
    fn identical_copies_are_one_release_and_different_ones_an_error() {
        let mut copies = manifests("a.yml", &["1.0.0"], "");
        copies.extend(manifests("b.yml", &["1.0.0"], ""));
        assert_eq!(Catalog::from_manifests(copies).unwrap().len(), 1);

        let mut clash = manifests("a.yml", &["1.0.0"], "");
        clash.extend(manifests("b.yml", &["01.0.0"], "product-type: other\n"));
        let errors = Catalog::from_manifests(clash).unwrap_err();
        assert_eq!(
            errors[0].to_string(),
            "b.yml:4:18: release `g:a 01.0.0` is also described, differently, at a.yml:4:18; \
             a release must have one manifest"
        );
    }
}
