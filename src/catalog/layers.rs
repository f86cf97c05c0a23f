//! Layered catalogs: `--catalog` given more than once. The layers are read in the order given
//! and combined into one [`Catalog`]; a release (product and version, with the version
//! equality of SPEC section 1) that two layers describe with the same declarations is one
//! release, and with different ones is an error naming both places and both catalogs (SPEC
//! section 6: a release has one manifest).
//!
//! [`Layers`] is a [`CatalogSource`] over the opened layers, so a database layer is still
//! read only as far as a command's [`Scope`] needs: each plain read asks every layer and
//! combines the answers, and a closure over dependencies is followed round by round across
//! all of them (a release in one layer may depend on a product kept in another).
//!
//! Invariants: the combination holds every release any layer answered with, once; among
//! identical copies the one of the earliest layer is kept; conflicts are found among the
//! releases read (a directory layer is read whole, so between directories every conflict is
//! found; a database layer only within the command's scope).

use std::collections::BTreeMap;
use std::sync::Arc;

use super::{Catalog, CatalogSource, Location};
use crate::diagnostic::{FileLocation, InputError, InputErrors};
use crate::manifest::Manifest;
use crate::product::ProductId;
use crate::version::Version;

/// Several opened catalogs read as one, in the order given.
pub struct Layers {
    layers: Vec<(Location, Box<dyn CatalogSource>)>,
    unreadable: Vec<InputError>,
}

impl Layers {
    /// Opens every location (as [`Location::open`] does); one location is its own source.
    ///
    /// # Errors
    /// Every error of every layer that cannot be opened.
    pub fn open(locations: &[Location]) -> Result<Box<dyn CatalogSource>, InputErrors> {
        if let [one] = locations {
            return one.open();
        }
        let mut layers = Vec::with_capacity(locations.len());
        let mut errors = Vec::new();
        for location in locations {
            match location.open() {
                Ok(source) => layers.push((location.clone(), source)),
                Err(InputErrors(more)) => errors.extend(more),
            }
        }
        if !errors.is_empty() {
            return Err(InputErrors(errors));
        }
        let unreadable = layers
            .iter()
            .flat_map(|(_, source)| source.unreadable().iter().cloned())
            .collect();
        Ok(Box::new(Layers { layers, unreadable }))
    }

    /// Asks every layer and combines the answers.
    fn each(
        &self,
        read: impl Fn(&dyn CatalogSource) -> Result<Catalog, InputErrors>,
    ) -> Result<Catalog, InputErrors> {
        let mut parts = Vec::with_capacity(self.layers.len());
        for (location, source) in &self.layers {
            parts.push((location.to_string(), read(&**source)?));
        }
        Catalog::layered(&parts).map_err(InputErrors)
    }
}

impl CatalogSource for Layers {
    fn load_all(&self) -> Result<Catalog, InputErrors> {
        self.each(|source| source.load_all())
    }

    fn load_releases(&self, wanted: &[(&ProductId, &Version)]) -> Result<Catalog, InputErrors> {
        self.each(|source| source.load_releases(wanted))
    }

    fn load_from(
        &self,
        products: &[(&ProductId, Option<&Version>)],
    ) -> Result<Catalog, InputErrors> {
        self.each(|source| source.load_from(products))
    }

    fn providing(&self, name: &str) -> Result<Vec<ProductId>, InputErrors> {
        let mut out = Vec::new();
        for (_, source) in &self.layers {
            out.extend(source.providing(name)?);
        }
        out.sort();
        out.dedup();
        Ok(out)
    }

    fn unreadable(&self) -> &[InputError] {
        &self.unreadable
    }

    fn notices(&self) -> Vec<String> {
        self.layers.iter().flat_map(|(_, s)| s.notices()).collect()
    }
}

impl Catalog {
    /// Combines catalogs read from layers, each named (as shown in errors), earliest first.
    ///
    /// # Errors
    /// Every release two layers describe differently, naming both places and both layers.
    pub fn layered(layers: &[(String, Catalog)]) -> Result<Catalog, Vec<InputError>> {
        let mut products: BTreeMap<ProductId, Vec<(usize, Arc<Manifest>)>> = BTreeMap::new();
        for (layer, (_, catalog)) in layers.iter().enumerate() {
            for (product, releases) in &catalog.products {
                products
                    .entry(product.clone())
                    .or_default()
                    .extend(releases.iter().map(|m| (layer, Arc::clone(m))));
            }
        }
        let mut errors = Vec::new();
        let mut combined = BTreeMap::new();
        for (product, mut releases) in products {
            // Equal versions are contiguous in display order; among them the earlier layer
            // comes first (a layer holds a release once).
            releases.sort_by(|(i, a), (j, b)| {
                if a.version == b.version {
                    i.cmp(j)
                } else {
                    a.version.display_cmp(&b.version)
                }
            });
            let mut kept: Vec<(usize, Arc<Manifest>)> = Vec::with_capacity(releases.len());
            for (layer, manifest) in releases {
                match kept.last() {
                    Some((first, last)) if last.version == manifest.version => {
                        if !last.same_declarations(&manifest) {
                            errors.push(InputError::LayerConflict {
                                release: manifest.release_name(),
                                first: at(last),
                                first_catalog: layers[*first].0.clone(),
                                second: at(&manifest),
                                second_catalog: layers[layer].0.clone(),
                            });
                        }
                    }
                    _ => kept.push((layer, manifest)),
                }
            }
            combined.insert(product, kept.into_iter().map(|(_, m)| m).collect());
        }
        if errors.is_empty() {
            Ok(Catalog::of(combined))
        } else {
            Err(errors)
        }
    }
}

fn at(manifest: &Manifest) -> FileLocation {
    FileLocation {
        file: Arc::clone(&manifest.file),
        location: manifest.location,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::manifest;

    fn catalog(file: &str, releases: &[(&str, &str)]) -> Catalog {
        let text: Vec<String> = releases
            .iter()
            .map(|(v, extra)| {
                format!(
                    "manifest-version: '1.0'\nproduct-group: g\nproduct-name: a\n\
                     product-version: {v}\n{extra}"
                )
            })
            .collect();
        let manifests = manifest::parse(&text.join("---\n"), &Arc::from(file)).unwrap();
        Catalog::from_manifests(manifests).unwrap()
    }

    fn versions(catalog: &Catalog) -> Vec<String> {
        let product = ProductId::parse("g:a").unwrap();
        catalog
            .releases(&product)
            .iter()
            .map(|m| format!("{} {}", m.version, m.file))
            .collect()
    }

    #[test]
    fn layers_add_up_and_identical_copies_are_one_release_from_the_earliest_layer() {
        let base = catalog("base/a.yml", &[("1.0.0", ""), ("2.0.0", "")]);
        let more = catalog("more/a.yml", &[("2.0.0", ""), ("1.5.0", ""), ("3.0.0", "")]);
        let both =
            Catalog::layered(&[("base".to_owned(), base), ("more".to_owned(), more)]).unwrap();
        assert_eq!(
            versions(&both),
            [
                "1.0.0 base/a.yml",
                "1.5.0 more/a.yml",
                "2.0.0 base/a.yml",
                "3.0.0 more/a.yml"
            ]
        );
        assert_eq!(both.len(), 4);
    }

    #[test]
    fn a_release_two_layers_describe_differently_is_an_error_naming_both() {
        let base = catalog("base/a.yml", &[("1.0.0", "")]);
        let other = catalog("other/a.yml", &[("01.0.0", "product-type: other\n")]);
        let errors = Catalog::layered(&[("base".to_owned(), base), ("other".to_owned(), other)])
            .unwrap_err();
        assert_eq!(errors.len(), 1);
        assert_eq!(
            errors[0].to_string(),
            "other/a.yml:4:18: release `g:a 01.0.0` of catalog `other` is also described, \
             differently, at base/a.yml:4:18 of catalog `base`; a release must have one \
             manifest in all the catalogs given"
        );
    }

    /// A source that answers with exactly the products asked for, as a database does.
    struct Picky(Catalog);

    impl CatalogSource for Picky {
        fn load_all(&self) -> Result<Catalog, InputErrors> {
            Ok(self.0.clone())
        }

        fn load_releases(&self, _: &[(&ProductId, &Version)]) -> Result<Catalog, InputErrors> {
            unreachable!("a closure reads products")
        }

        fn load_from(
            &self,
            products: &[(&ProductId, Option<&Version>)],
        ) -> Result<Catalog, InputErrors> {
            let manifests = products
                .iter()
                .flat_map(|(p, _)| self.0.releases(p))
                .map(|m| Manifest::clone(m));
            Ok(Catalog::from_manifests(manifests).unwrap())
        }
    }

    #[test]
    fn a_closure_follows_dependencies_from_one_layer_into_another() {
        let dependent = "manifest-version: '1.0'\nproduct-group: g\nproduct-name: b\n\
            product-version: 1.0.0\nextensions:\n  product-dependencies:\n\
            \x20 - product-group: g\n    product-name: a\n    minimum-version: 1.0.0\n    \
            maximum-version: 1.x.x\n";
        let upper =
            Catalog::from_manifests(manifest::parse(dependent, &Arc::from("upper/b.yml")).unwrap())
                .unwrap();
        let lower = catalog("lower/a.yml", &[("1.0.0", ""), ("1.1.0", "")]);
        let layers = Layers {
            layers: vec![
                (Location::Directory("upper".into()), Box::new(Picky(upper))),
                (Location::Directory("lower".into()), Box::new(Picky(lower))),
            ],
            unreadable: Vec::new(),
        };
        let b = ProductId::parse("g:b").unwrap();
        let scope = |closure| super::super::Scope::Products {
            floors: [(b.clone(), None)].into_iter().collect(),
            closure,
        };
        assert_eq!(layers.load(&scope(false)).unwrap().len(), 1);
        let read = layers.load(&scope(true)).unwrap();
        assert_eq!(
            read.len(),
            3,
            "g:b from upper, both releases of g:a from lower"
        );
        assert_eq!(versions(&read), ["1.0.0 lower/a.yml", "1.1.0 lower/a.yml"]);
    }
}
