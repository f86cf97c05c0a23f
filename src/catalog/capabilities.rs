//! What a catalog's releases declare of section 9, as `catalog list` and `catalog providers`
//! ask for it: each release's [`Facets`] ([`ReleaseFacets`]), and the releases that provide a
//! capability in a range ([`Providing`]). Backends answer through `CatalogStore::facets` and
//! `CatalogStore::providers`; the defaults there read releases through `CatalogSource` and
//! use the functions here, a backend with an index of its own may answer from it.
//!
//! Invariant: both lists are in catalog order (product, then the version order of SPEC
//! section 1), and whether a provision is in range is decided by
//! [`constraint::provision_in`](crate::constraint::provision_in) only.

use std::sync::Arc;

use crate::catalog::Catalog;
use crate::constraint::provision_in;
use crate::manifest::Facets;
use crate::product::ProductId;
use crate::range::Range;
use crate::version::Version;

/// One release's section 9 part.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReleaseFacets {
    pub product: ProductId,
    pub version: Version,
    pub facets: Arc<Facets>,
}

/// A release that provides a capability (`catalog providers`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Providing {
    pub product: ProductId,
    pub version: Version,
    /// The capability's version as provided (`None`: provided without one).
    pub provided: Option<Version>,
}

/// The releases of `catalog` (of every product, or only `product`) that declare anything of
/// section 9, in catalog order.
#[must_use]
pub fn facets_of(catalog: &Catalog, product: Option<&ProductId>) -> Vec<ReleaseFacets> {
    catalog
        .products()
        .filter(|p| product.is_none_or(|wanted| wanted == *p))
        .flat_map(|p| catalog.releases(p))
        .filter_map(|m| {
            let facets = m.facets.as_ref().filter(|f| !f.is_empty())?;
            Some(ReleaseFacets {
                product: m.product.clone(),
                version: m.version.clone(),
                facets: Arc::clone(facets),
            })
        })
        .collect()
}

/// The releases among `releases` that provide capability `name` at a version in `range` (a
/// provision without a version only when the range has no bounds), in the order given; a
/// release that provides `name` twice is listed once per provided version.
#[must_use]
pub fn providers_in(releases: &[ReleaseFacets], name: &str, range: &Range) -> Vec<Providing> {
    let mut out: Vec<Providing> = Vec::new();
    for release in releases {
        for provision in release.facets.provides.iter().filter(|p| p.name == name) {
            if !provision_in(range, provision.version.as_ref()) {
                continue;
            }
            let row = Providing {
                product: release.product.clone(),
                version: release.version.clone(),
                provided: provision.version.clone(),
            };
            if !out.contains(&row) {
                out.push(row);
            }
        }
    }
    out
}

/// The products of `releases` that provide capability `name` at any version, sorted, each
/// once (a database backend's `CatalogSource::providing` over the cells its index names).
#[must_use]
pub fn products_providing(releases: Vec<ReleaseFacets>, name: &str) -> Vec<ProductId> {
    let mut out: Vec<ProductId> = releases
        .into_iter()
        .filter(|c| c.facets.provides(name))
        .map(|c| c.product)
        .collect();
    out.sort();
    out.dedup();
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::manifest;
    use crate::matcher::Matcher;

    fn catalog() -> Catalog {
        let text = "\
manifest-version: \"1.0\"
product-group: com.example
product-name: mysql
product-version: 5.7.0
extensions:
  capabilities:
    provides:
      - name: sql
        version: 5.7.0
---
manifest-version: \"1.0\"
product-group: com.example
product-name: mysql
product-version: 8.0.1
extensions:
  capabilities:
    provides:
      - name: sql
        version: 8.0.1
---
manifest-version: \"1.0\"
product-group: com.example
product-name: lite
product-version: 1.0.0
extensions:
  capabilities:
    provides:
      - name: sql
  deprecated: true
---
manifest-version: \"1.0\"
product-group: com.example
product-name: plain
product-version: 1.0.0
";
        let manifests = manifest::parse(text, &Arc::from("c.yml")).unwrap();
        Catalog::from_manifests(manifests).unwrap()
    }

    fn range(min: Option<&str>, max: Option<&str>) -> Range {
        Range {
            minimum: min.map(|v| Version::parse(v).unwrap()),
            maximum: max.map(|m| Matcher::parse(m).unwrap()),
        }
    }

    #[track_caller]
    fn check(min: Option<&str>, max: Option<&str>, expected: &[&str]) {
        let releases = facets_of(&catalog(), None);
        let found: Vec<String> = providers_in(&releases, "sql", &range(min, max))
            .iter()
            .map(|p| format!("{} {}", p.product, p.version))
            .collect();
        assert_eq!(found, expected);
    }

    #[test]
    fn providers_in_range_and_unversioned_ones_only_without_bounds() {
        check(
            None,
            None,
            &[
                "com.example:lite 1.0.0",
                "com.example:mysql 5.7.0",
                "com.example:mysql 8.0.1",
            ],
        );
        check(Some("8.0.0"), None, &["com.example:mysql 8.0.1"]);
        check(None, Some("5.x.x"), &["com.example:mysql 5.7.0"]);
        check(Some("9.0.0"), None, &[]);
    }

    #[test]
    fn only_releases_with_section_9_and_only_the_product_asked() {
        let c = catalog();
        let all: Vec<String> = facets_of(&c, None)
            .iter()
            .map(|r| format!("{} {}", r.product, r.version))
            .collect();
        assert_eq!(
            all,
            [
                "com.example:lite 1.0.0",
                "com.example:mysql 5.7.0",
                "com.example:mysql 8.0.1"
            ]
        );
        let lite = ProductId::parse("com.example:lite").unwrap();
        assert_eq!(facets_of(&c, Some(&lite)).len(), 1);
        let plain = ProductId::parse("com.example:plain").unwrap();
        assert!(facets_of(&c, Some(&plain)).is_empty());
    }
}
