//! Which releases a command needs from a catalog: a [`Scope`], stated by the library so no
//! caller decides it, and answered by any [`CatalogSource`].
//!
//! Invariants: a scope names what must be in the answer; a source may return more (a
//! directory has to read everything anyway), never less. A closure is followed to a fixed
//! point: when [`load`] returns, every dependency of every release in the answer names a
//! product whose releases are all in it.

use std::collections::BTreeMap;
use std::sync::Arc;

use super::{Catalog, CatalogSource};
use crate::diagnostic::InputErrors;
use crate::environment::Environment;
use crate::manifest::Manifest;
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
        self.with_hint_releases_for(source, std::slice::from_ref(env))
    }

    /// [`Catalog::with_hint_releases`] for several environments at once (a fleet): what the
    /// hints of each need, read together, so each environment's hints are the ones it gets
    /// alone.
    ///
    /// # Errors
    /// When the source cannot be read.
    pub fn with_hint_releases_for(
        self,
        source: &(impl CatalogSource + ?Sized),
        envs: &[Environment],
    ) -> Result<Catalog, InputErrors> {
        let mut unknown: Vec<&ProductId> = envs
            .iter()
            .flat_map(|env| &env.entities)
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

    /// The releases of this catalog (held whole, as a directory's is) that `scope` names,
    /// exactly as a database answers it: a product's releases at or above its floor (a
    /// non-orderable release sorts above every orderable one, a non-orderable floor reads
    /// everything), a closure followed to its fixed point. Commands that read a database in
    /// part and more only as explanations need it ([`super::Reread::in_memory`]) do the same
    /// over a directory so: the explanations' rounds then ask most questions of a model over
    /// the releases a question can use, not over every release.
    #[must_use]
    pub fn scoped(&self, scope: &Scope) -> Catalog {
        load(&Exact(self), scope).unwrap_or_else(|_| self.clone())
    }
}

/// A catalog held whole, read by scope as a database is (see [`Catalog::scoped`]).
struct Exact<'c>(&'c Catalog);

impl CatalogSource for Exact<'_> {
    fn load_all(&self) -> Result<Catalog, InputErrors> {
        Ok(self.0.clone())
    }

    fn load_releases(&self, wanted: &[(&ProductId, &Version)]) -> Result<Catalog, InputErrors> {
        let mut products: BTreeMap<ProductId, Vec<Arc<Manifest>>> = BTreeMap::new();
        for &(p, v) in wanted {
            if let Some(m) = self.0.release(p, v) {
                let releases = products.entry(p.clone()).or_default();
                if !releases.iter().any(|r| Arc::ptr_eq(r, m)) {
                    releases.push(Arc::clone(m));
                }
            }
        }
        for releases in products.values_mut() {
            releases.sort_by(|a, b| a.version.display_cmp(&b.version));
        }
        Ok(Catalog::of(products))
    }

    fn load_from(
        &self,
        products: &[(&ProductId, Option<&Version>)],
    ) -> Result<Catalog, InputErrors> {
        let mut out: BTreeMap<ProductId, Vec<Arc<Manifest>>> = BTreeMap::new();
        for &(p, floor) in products {
            let floor = floor.and_then(Version::order_key);
            let releases: Vec<_> = self
                .0
                .releases(p)
                .iter()
                .filter(|m| match (floor, m.version.order_key()) {
                    (Some(floor), Some(key)) => key >= floor,
                    _ => true,
                })
                .cloned()
                .collect();
            if !releases.is_empty() {
                out.insert(p.clone(), releases);
            }
        }
        Ok(Catalog::of(out))
    }

    fn providing(&self, name: &str) -> Result<Vec<ProductId>, InputErrors> {
        Ok(self.0.providers(name).to_vec())
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
            lower_floor(&mut floors, e.product.clone(), floor);
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

impl Scope {
    /// One scope that holds what each of `scopes` holds (a fleet's environments read in one
    /// load); `None` for no scope at all. Releases merge into one list; products keep the
    /// lowest floor any scope gives them (none beats any), and the closure is followed when
    /// any scope asks for it. Mixed kinds widen a list of releases to their products from the
    /// lowest version named (more than asked, never less).
    #[must_use]
    pub fn union(scopes: impl IntoIterator<Item = Scope>) -> Option<Scope> {
        scopes.into_iter().reduce(Scope::join)
    }

    fn join(self, other: Scope) -> Scope {
        match (self, other) {
            (Scope::All, _) | (_, Scope::All) => Scope::All,
            (Scope::Releases(mut a), Scope::Releases(b)) => {
                a.extend(b);
                a.sort_by(|(p, v), (q, w)| p.cmp(q).then_with(|| v.display_cmp(w)));
                a.dedup_by(|(p, v), (q, w)| p == q && v.as_str() == w.as_str());
                Scope::Releases(a)
            }
            (
                Scope::Products { floors, closure },
                Scope::Products {
                    floors: more,
                    closure: also,
                },
            ) => {
                let mut floors = floors;
                for (product, floor) in more {
                    lower_floor(&mut floors, product, floor);
                }
                Scope::Products {
                    floors,
                    closure: closure || also,
                }
            }
            (Scope::Releases(releases), products @ Scope::Products { .. })
            | (products @ Scope::Products { .. }, Scope::Releases(releases)) => {
                let mut floors = BTreeMap::new();
                for (product, version) in releases {
                    lower_floor(
                        &mut floors,
                        product,
                        version.is_orderable().then_some(version),
                    );
                }
                Scope::Products {
                    floors,
                    closure: false,
                }
                .join(products)
            }
        }
    }
}

/// Lowers `product`'s floor to `floor` (`None`: every release) when that is lower.
fn lower_floor(
    floors: &mut BTreeMap<ProductId, Option<Version>>,
    product: ProductId,
    floor: Option<Version>,
) {
    floors
        .entry(product)
        .and_modify(|low| {
            *low = match (low.take(), &floor) {
                (Some(a), Some(b)) => Some(if *b < a { b.clone() } else { a }),
                _ => None,
            };
        })
        .or_insert(floor);
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
            // capabilities whose providers were asked for already
            let mut asked: std::collections::BTreeSet<String> = std::collections::BTreeSet::new();
            loop {
                let list: Vec<(&ProductId, Option<&Version>)> =
                    floors.iter().map(|(p, v)| (p, v.as_ref())).collect();
                let catalog = source.load_from(&list)?;
                if !closure {
                    return Ok(catalog);
                }
                let before = floors.len();
                let mut dependencies: Vec<ProductId> = Vec::new();
                for m in catalog.products().flat_map(|p| catalog.releases(p)) {
                    dependencies.extend(m.dependencies.iter().map(|d| d.product.clone()));
                    let (products, capabilities) = named(m);
                    dependencies.extend(products);
                    for name in capabilities {
                        if asked.insert(name.to_owned()) {
                            dependencies.extend(source.providing(name)?);
                        }
                    }
                }
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

/// The products and capabilities a release's section 9 part names (capability requirements,
/// and the product and capability atoms of its constraints): what an install may have to
/// bring in besides its product dependencies.
fn named(m: &crate::manifest::Manifest) -> (Vec<ProductId>, Vec<&str>) {
    let (mut products, mut capabilities) = (Vec::new(), Vec::new());
    let Some(facets) = m.facets.as_deref() else {
        return (products, capabilities);
    };
    capabilities.extend(facets.requires.iter().map(|r| r.name.as_str()));
    for atom in facets
        .constraints
        .iter()
        .flat_map(crate::manifest::Term::atoms)
    {
        match atom {
            crate::manifest::Atom::Capability { name, .. } => capabilities.push(name),
            crate::manifest::Atom::Product { product, .. } => products.push(product.clone()),
            _ => {}
        }
    }
    (products, capabilities)
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
    fn a_union_reads_what_each_scope_reads() {
        let env = env();
        let other = environment::parse(
            "entities:\n- {product: g:a, version: 0.9.0}\n- {product: g:d, version: 1.0.0}\n",
            &Arc::from("other.yml"),
            "other",
        )
        .unwrap();
        let union = Scope::union([
            Scope::upgrades(&env, [], false, false),
            Scope::upgrades(&other, [], false, false),
        ]);
        check(
            union.as_ref().unwrap(),
            &[
                ("g:a", Some("0.9.0")),
                ("g:b", None),
                ("g:d", Some("1.0.0")),
            ],
            false,
        );
        let Some(Scope::Releases(releases)) = Scope::union([
            Scope::installed(&env),
            Scope::installed(&env),
            Scope::installed(&other),
        ]) else {
            panic!("releases expected")
        };
        // three of env (a1, a2, b1), two of other; the repeated ones once
        assert_eq!(releases.len(), 5);
        let mixed = Scope::union([
            Scope::installed(&other),
            Scope::upgrades(&env, [&id("g:c")], false, true),
        ]);
        check(
            mixed.as_ref().unwrap(),
            &[
                ("g:a", Some("0.9.0")),
                ("g:b", None),
                ("g:c", None),
                ("g:d", Some("1.0.0")),
            ],
            true,
        );
        assert_eq!(
            Scope::union([Scope::All, Scope::installed(&env)]),
            Some(Scope::All)
        );
        assert_eq!(Scope::union([]), None);
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
