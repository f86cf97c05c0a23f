//! `compat services`: an environment's service list (SPEC section 10, Puppet's produced and
//! consumed capabilities): per capability, the installed entities that provide it (at which
//! version) and those that require it, each with the provider its requirement is bound to
//! (section 10's best member of the serving set, through [`constraint::World`]).
//!
//! Only installed entities count, as for `validate`. Capabilities are sorted by name,
//! providers and consumers by entity name.

use std::collections::BTreeMap;

use crate::catalog::Catalog;
use crate::constraint::{self, Running, World};
use crate::environment::Environment;
use crate::manifest::Facets;
use crate::product::ProductId;

/// One capability and who provides and consumes it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Service {
    pub capability: String,
    pub providers: Vec<Provider>,
    pub consumers: Vec<Consumer>,
}

/// An installed entity providing a capability.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Provider {
    pub entity: String,
    pub product: ProductId,
    /// The release the entity runs.
    pub release: String,
    /// The version it provides the capability at (`None`: without a version).
    pub version: Option<String>,
}

/// An installed entity requiring a capability.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Consumer {
    pub entity: String,
    pub product: ProductId,
    /// What it requires, in words: `requires capability sql >=8.0.0`.
    pub requirement: String,
    pub optional: bool,
    /// The provider its requirement is bound to (`None`: nothing serves it).
    pub bound_to: Option<String>,
    /// Whether that provider provides it in range.
    pub in_range: bool,
}

/// The service list of `environment`.
#[must_use]
pub fn services<'a>(environment: &'a Environment, catalog: &'a Catalog) -> Vec<Service> {
    let installed: Vec<_> = environment
        .entities
        .iter()
        .filter(|e| e.is_installed())
        .map(|e| {
            let facets: &'a Facets = match catalog.release(&e.product, &e.version) {
                Some(m) => m.facets(),
                None => Facets::none(),
            };
            (e, facets)
        })
        .collect();
    let running = installed
        .iter()
        .map(|(e, facets)| Running {
            entity: &e.name,
            product: &e.product,
            version: &e.version,
            facets,
            placement: &e.placement,
        })
        .collect();
    let world = World::new(running, &environment.runtime);
    let mut out: BTreeMap<String, Service> = BTreeMap::new();
    for (e, facets) in &installed {
        for p in &facets.provides {
            slot(&mut out, &p.name).providers.push(Provider {
                entity: e.name.clone(),
                product: e.product.clone(),
                release: e.version.to_string(),
                version: p.version.as_ref().map(ToString::to_string),
            });
        }
        for r in &facets.requires {
            let bound = world.bound_capability(&e.name, r);
            slot(&mut out, &r.name).consumers.push(Consumer {
                entity: e.name.clone(),
                product: e.product.clone(),
                requirement: constraint::requirement_text(r),
                optional: r.optional,
                bound_to: bound.map(|p| p.running.entity.to_owned()),
                in_range: bound.is_some_and(|p| constraint::provision_in(&r.range, p.version)),
            });
        }
    }
    out.into_values().collect()
}

/// The service of capability `name`, added when new.
fn slot<'m>(out: &'m mut BTreeMap<String, Service>, name: &str) -> &'m mut Service {
    out.entry(name.to_owned()).or_insert_with(|| Service {
        capability: name.to_owned(),
        providers: Vec::new(),
        consumers: Vec::new(),
    })
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::{environment, manifest};

    const CATALOG: &str = "\
manifest-version: '1.0'
product-group: com.mysql
product-name: mysql
product-version: 8.0.36
extensions:
  capabilities:
    provides:
      - name: sql
        version: 8.0.36
---
manifest-version: '1.0'
product-group: com.example
product-name: web
product-version: 1.0.0
extensions:
  capabilities:
    requires:
      - name: sql
        minimum-version: 8.0.0
      - name: cache
        optional: true
";

    #[test]
    fn providers_and_consumers_with_their_bound_provider_namespace_first() {
        let catalog =
            Catalog::from_manifests(manifest::parse(CATALOG, &Arc::from("c.yml")).unwrap())
                .unwrap();
        let text = "entities:
  - {name: web1, product: 'com.example:web', version: 1.0.0, namespace: shop}
  - {name: db-global, product: 'com.mysql:mysql', version: 8.0.36}
  - {name: db-shop, product: 'com.mysql:mysql', version: 8.0.36, namespace: shop}
  - {name: db-blog, product: 'com.mysql:mysql', version: 8.0.36, namespace: blog}
  - {name: web2, product: 'com.example:web', version: 1.0.0, namespace: other}
";
        let env = environment::parse(text, &Arc::from("e.yml"), "e").unwrap();
        let list = services(&env, &catalog);
        let names: Vec<&str> = list.iter().map(|s| s.capability.as_str()).collect();
        assert_eq!(names, ["cache", "sql"]);
        let sql = &list[1];
        let providers: Vec<&str> = sql.providers.iter().map(|p| p.entity.as_str()).collect();
        assert_eq!(providers, ["db-blog", "db-global", "db-shop"]);
        let bound: Vec<(&str, Option<&str>)> = sql
            .consumers
            .iter()
            .map(|c| (c.entity.as_str(), c.bound_to.as_deref()))
            .collect();
        // web1 is served in its own namespace, web2 (no database in `other`) by the global one
        assert_eq!(
            bound,
            [("web1", Some("db-shop")), ("web2", Some("db-global"))]
        );
        assert!(sql.consumers.iter().all(|c| c.in_range && !c.optional));
        assert_eq!(list[0].consumers[0].bound_to, None);
        assert!(list[0].providers.is_empty());
    }
}
