//! Which releases a command needs from a catalog: a [`Scope`], stated by the library so no
//! caller decides it, and answered by any [`CatalogSource`].
//!
//! Invariants: a scope names what must be in the answer; a source may return more (a
//! directory has to read everything anyway), never less. A closure is followed to a fixed
//! point: when [`load`] returns, every dependency of every release in the answer names a
//! product whose releases are all in it.

use std::collections::BTreeMap;

use super::{Catalog, CatalogSource};
use crate::diagnostic::InputErrors;
use crate::environment::Environment;
use crate::product::ProductId;
use crate::version::Version;

impl Catalog {
    /// This catalog (read for [`Scope::installed`]) with what the hints of `unknown-release`
    /// need (module `suggest`): every release of each product an installed entity runs an
    /// unknown release of, and, when one of those products has no release at all, every
    /// product (for close names; a database reads whole only then, on a failing run). A
    /// directory holds all of it already.
    ///
    /// # Errors
    /// When the source cannot be read.
    pub fn with_hint_releases(
        self,
        source: &(impl CatalogSource + ?Sized),
        env: &Environment,
    ) -> Result<Catalog, InputErrors> {
        let mut unknown: Vec<&ProductId> = env
            .entities
            .iter()
            .filter(|e| e.is_installed() && self.release(&e.product, &e.version).is_none())
            .map(|e| &e.product)
            .collect();
        unknown.sort();
        unknown.dedup();
        if unknown.is_empty() {
            return Ok(self);
        }
        let wanted: Vec<(&ProductId, Option<&Version>)> =
            unknown.iter().map(|p| (*p, None)).collect();
        let catalog = self.overlaid(&source.load_from(&wanted)?);
        if unknown.iter().all(|p| !catalog.releases(p).is_empty()) {
            return Ok(catalog);
        }
        Ok(source.load_all()?.overlaid(&catalog))
    }
}

/// The releases a command reads.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Scope {
    /// Every release the catalog holds.
    All,
    /// These releases (by the version equality of SPEC section 1), where the catalog has them.
    Releases(Vec<(ProductId, Version)>),
    /// Every release of these products at or above the floor (every release for `None`); with
    /// `closure`, also every release of each product those releases depend on, transitively.
    Products {
        floors: BTreeMap<ProductId, Option<Version>>,
        closure: bool,
    },
}

impl Scope {
    /// What `validate` reads: the releases the installed entities run.
    #[must_use]
    pub fn installed(env: &Environment) -> Scope {
        Scope::running(env, false)
    }

    /// What `order` and `graph` read: the release of every entity, installed or not.
    #[must_use]
    pub fn entities(env: &Environment) -> Scope {
        Scope::running(env, true)
    }

    fn running(env: &Environment, every_entity: bool) -> Scope {
        Scope::Releases(
            env.entities
                .iter()
                .filter(|e| every_entity || e.is_installed())
                .map(|e| (e.product.clone(), e.version.clone()))
                .collect(),
        )
    }

    /// What `upgrades` and `plan` read: the products they can involve. Each installed product
    /// from its lowest running version up (nothing older can be a candidate without
    /// downgrades); `targets`, and every installed product when downgrades are allowed,
    /// with every release; and with `allow_install` every product their releases depend on,
    /// transitively (a product that is not installed may then be added).
    #[must_use]
    pub fn upgrades<'a>(
        env: &Environment,
        targets: impl IntoIterator<Item = &'a ProductId>,
        allow_downgrade: bool,
        allow_install: bool,
    ) -> Scope {
        let mut floors: BTreeMap<ProductId, Option<Version>> = BTreeMap::new();
        for e in env.entities.iter().filter(|e| e.is_installed()) {
            // A non-orderable version has no place in the order: no floor.
            let floor = (!allow_downgrade && e.version.is_orderable()).then(|| e.version.clone());
            floors
                .entry(e.product.clone())
                .and_modify(|low| {
                    *low = match (low.take(), &floor) {
                        (Some(a), Some(b)) => Some(if *b < a { b.clone() } else { a }),
                        _ => None,
                    };
                })
                .or_insert(floor);
        }
        for p in targets {
            floors.insert(p.clone(), None);
        }
        Scope::Products {
            floors,
            closure: allow_install,
        }
    }
}

/// Answers a scope with a source's three plain reads; a closure is asked for round by round
/// (each round adds the products the releases read so far depend on, with every release),
/// until a round adds none. The default of [`CatalogSource::load`].
///
/// # Errors
/// As the source's reads.
pub(crate) fn load<S: CatalogSource + ?Sized>(
    source: &S,
    scope: &Scope,
) -> Result<Catalog, InputErrors> {
    match scope {
        Scope::All => source.load_all(),
        Scope::Releases(releases) => {
            let wanted: Vec<(&ProductId, &Version)> =
                releases.iter().map(|(p, v)| (p, v)).collect();
            source.load_releases(&wanted)
        }
        Scope::Products { floors, closure } => {
            let mut floors = floors.clone();
            loop {
                let list: Vec<(&ProductId, Option<&Version>)> =
                    floors.iter().map(|(p, v)| (p, v.as_ref())).collect();
                let catalog = source.load_from(&list)?;
                if !closure {
                    return Ok(catalog);
                }
                let before = floors.len();
                let dependencies: Vec<ProductId> = catalog
                    .products()
                    .flat_map(|p| catalog.releases(p))
                    .flat_map(|m| m.dependencies.iter().map(|d| d.product.clone()))
                    .collect();
                for d in dependencies {
                    floors.entry(d).or_insert(None);
                }
                if floors.len() == before {
                    return Ok(catalog);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::environment;

    fn env() -> Environment {
        let text = "environment: e\nentities:\n\
            - {name: a1, product: g:a, version: 1.2.0}\n\
            - {name: a2, product: g:a, version: 1.0.0}\n\
            - {name: b1, product: g:b, version: 1.0.0-branch}\n\
            - {name: c1, product: g:c, version: 2.0.0, state: managed}\n";
        environment::parse(text, &Arc::from("env.yml"), "env").unwrap()
    }

    fn id(text: &str) -> ProductId {
        ProductId::parse(text).unwrap()
    }

    #[track_caller]
    fn check(scope: &Scope, floors: &[(&str, Option<&str>)], closure: bool) {
        let expected: BTreeMap<ProductId, Option<Version>> = floors
            .iter()
            .map(|(p, v)| (id(p), v.map(|v| Version::parse(v).unwrap())))
            .collect();
        assert_eq!(
            *scope,
            Scope::Products {
                floors: expected,
                closure
            }
        );
    }

    #[test]
    fn upgrades_read_installed_products_from_their_lowest_running_version() {
        let env = env();
        let (a, c) = (id("g:a"), id("g:c"));
        check(
            &Scope::upgrades(&env, [], false, false),
            &[("g:a", Some("1.0.0")), ("g:b", None)],
            false,
        );
        check(
            &Scope::upgrades(&env, [&c, &a], false, true),
            &[("g:a", None), ("g:b", None), ("g:c", None)],
            true,
        );
        check(
            &Scope::upgrades(&env, [], true, false),
            &[("g:a", None), ("g:b", None)],
            false,
        );
    }

    #[test]
    fn running_scopes_name_the_releases_entities_run() {
        let env = env();
        let Scope::Releases(installed) = Scope::installed(&env) else {
            panic!("releases expected")
        };
        assert_eq!(installed.len(), 3);
        let Scope::Releases(all) = Scope::entities(&env) else {
            panic!("releases expected")
        };
        assert_eq!(all.last().unwrap().0, id("g:c"));
    }
}
