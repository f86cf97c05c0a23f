//! The planning model: one variable per product, its domain of values, and the constraint
//! checks between two products' values.
//!
//! A value is [`Value::Keep`] (every entity of the product stays as it is), a catalog release
//! every entity moves to, or [`Value::Absent`] (a product that is not installed stays away;
//! only products that may be installed have it). Constraints are the dependencies and
//! incompatibilities of the releases involved, in both directions, exactly as `validate`
//! judges them: a dependency holds only if every entity of the other product satisfies it.
//!
//! Pre-existing violations are tolerated, never added: two products that both keep their
//! entities are compatible by definition (whatever holds or fails between them holds or fails
//! today), and a kept release's own broken declarations are not held against it.

use rayon::prelude::*;
use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

pub use super::candidates::{Exclusion, Policy};
pub use super::violation::{Violation, check};
use crate::catalog::Catalog;
use crate::constraint::{self, Verdict};
use crate::environment::Environment;
use crate::finding::Code;
use crate::manifest::Manifest;
use crate::policy::Policy as OperatorPolicy;
use crate::product::ProductId;
use crate::version::Version;

/// What the planner needs to know about releases. The catalog implements it; tests can feed
/// the search a handful of releases of their own.
pub trait Releases: Sync {
    /// Every release of `product`, in version order.
    fn releases(&self, product: &ProductId) -> &[Arc<Manifest>];
    /// The release of `product` at `version` (version equality of SPEC section 1).
    fn release(&self, product: &ProductId, version: &Version) -> Option<&Arc<Manifest>>;
    /// Every product some release of which provides `capability` (SPEC 9.1), sorted; what
    /// `--allow-install` may add for a capability requirement. None by default.
    fn providers(&self, capability: &str) -> Vec<ProductId> {
        let _ = capability;
        Vec::new()
    }
}

impl Releases for Catalog {
    fn releases(&self, product: &ProductId) -> &[Arc<Manifest>] {
        Catalog::releases(self, product)
    }

    fn release(&self, product: &ProductId, version: &Version) -> Option<&Arc<Manifest>> {
        Catalog::release(self, product, version)
    }

    fn providers(&self, capability: &str) -> Vec<ProductId> {
        Catalog::providers(self, capability).to_vec()
    }
}

/// A value of a product variable.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Value {
    /// The product's entities stay as they are.
    Keep,
    /// Every entity of the product runs this release (an index into the product's releases).
    Release(usize),
    /// The product is not installed and stays away.
    Absent,
}

/// An entity a state creates (or a managed one it installs): the product's variable, the
/// entity's name and where it stands (SPEC 10's reuse before create, decided by the plan).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Created {
    pub var: usize,
    pub name: String,
    pub placement: crate::instance::Placement,
}

/// One running instance of a product: a version and, when the catalog knows it, its manifest.
#[derive(Clone, Debug)]
pub struct Instance<'a> {
    pub version: &'a Version,
    pub manifest: Option<&'a Manifest>,
    /// The entity, when the instance is an existing one.
    pub entity: Option<&'a str>,
}

/// A product the plan decides about.
#[derive(Clone, Debug)]
pub struct Var<'a> {
    pub product: ProductId,
    /// Its catalog releases, in version order.
    pub releases: &'a [Arc<Manifest>],
    /// The current instances (installed entities); empty for a product that is not installed.
    pub current: Vec<Instance<'a>>,
    /// The manifests its entities run that are not among `releases`, each once (by identity):
    /// what [`Var::every_manifest`] adds, without walking every entity of a product that
    /// has thousands.
    running: Vec<&'a Manifest>,
    /// Every value it may take: `Keep` or `Absent` first, then candidates in version order.
    pub domain: Vec<Value>,
    /// The operator's policy (SPEC 9.2: pins, exclusions, deprecated releases).
    pub operator: &'a OperatorPolicy,
    /// The environment's `runtime:` versions (SPEC 9.2).
    pub runtime: &'a BTreeMap<String, Version>,
}

impl<'a> Var<'a> {
    /// The variable of `product`, running `current` in `env`: its releases in `catalog`, and
    /// the values `policy` leaves it.
    fn new(
        product: ProductId,
        current: Vec<Instance<'a>>,
        env: &'a Environment,
        catalog: &'a dyn Releases,
        policy: Policy,
    ) -> Self {
        let releases = catalog.releases(&product);
        let mut running: Vec<&Manifest> = Vec::new();
        for m in current.iter().filter_map(|c| c.manifest) {
            let listed = releases.iter().any(|r| std::ptr::eq(r.as_ref(), m));
            if !listed && !running.iter().any(|&r| std::ptr::eq(r, m)) {
                running.push(m);
            }
        }
        let mut var = Var {
            product,
            releases,
            current,
            running,
            domain: Vec::new(),
            operator: &env.policy,
            runtime: &env.runtime,
        };
        var.domain.push(if var.installed() {
            Value::Keep
        } else {
            Value::Absent
        });
        for i in 0..releases.len() {
            if var.exclusion(i, policy).is_none() {
                var.domain.push(Value::Release(i));
            }
        }
        var
    }

    #[must_use]
    pub fn installed(&self) -> bool {
        !self.current.is_empty()
    }

    /// Every manifest the product could run: its entities' releases the catalog does not
    /// list, then every catalog release (each once).
    pub fn every_manifest(&self) -> impl Iterator<Item = &'a Manifest> + '_ {
        self.running
            .iter()
            .copied()
            .chain(self.releases.iter().map(AsRef::as_ref))
    }

    /// The instances the product runs under `value`.
    #[must_use]
    pub fn instances(&self, value: Value) -> Vec<Instance<'a>> {
        match value {
            Value::Keep => self.current.clone(),
            Value::Release(i) => vec![self.planned(i)],
            Value::Absent => Vec::new(),
        }
    }

    /// The one planned instance of release `i` (no entity yet: what a move goes to).
    #[must_use]
    pub fn planned(&self, i: usize) -> Instance<'a> {
        Instance {
            version: &self.releases[i].version,
            manifest: Some(&self.releases[i]),
            entity: None,
        }
    }

    /// What an entity the plan creates of this product runs under `value`: the value's
    /// release, or, for a product that keeps its entities, its installed version (with its
    /// catalog release when there is one); nothing when it stays absent.
    #[must_use]
    pub fn created(&self, value: Value) -> Option<(&'a Version, Option<&'a Manifest>)> {
        match value {
            Value::Release(i) => Some((&self.releases[i].version, Some(&*self.releases[i]))),
            Value::Keep => {
                let v = self.installed_version()?;
                let release = self.releases.iter().find(|m| m.version == *v);
                Some((v, release.map(AsRef::as_ref)))
            }
            Value::Absent => None,
        }
    }

    /// The highest installed version (SPEC: "installed" for several entities): the highest
    /// orderable one, or, when no entity runs an orderable version, the first non-orderable
    /// one by text (it has no place in the order, so every release counts as newer).
    /// Independent of entity names and order.
    #[must_use]
    pub fn installed_version(&self) -> Option<&'a Version> {
        let orderable = self
            .current
            .iter()
            .map(|i| i.version)
            .filter(|v| v.is_orderable())
            .max_by(|a, b| a.display_cmp(b));
        orderable.or_else(|| {
            self.current
                .iter()
                .map(|i| i.version)
                .min_by(|a, b| a.as_str().cmp(b.as_str()))
        })
    }

    /// True when `candidate` is newer than what runs (any release is newer than a
    /// non-orderable version, which has no place in the order).
    #[must_use]
    pub fn newer(&self, candidate: &Version) -> bool {
        self.installed_version()
            .is_none_or(|i| !i.is_orderable() || candidate > i)
    }

    /// The version a value stands for, for reports (`None` for `Absent`; for `Keep`, the
    /// installed version).
    #[must_use]
    pub fn version(&self, value: Value) -> Option<&'a Version> {
        match value {
            Value::Keep => self.installed_version(),
            Value::Release(i) => Some(&self.releases[i].version),
            Value::Absent => None,
        }
    }

    /// How far a value moves the product, in catalog releases summed over its entities (an
    /// entity already there moves 0), and at least 1 for any change; 0 for `Keep`. Summing
    /// per entity makes "bring the lagging entity up" cheaper than "move every entity on".
    /// An install (no entity yet) counts its distance from the newest release, plus 1: among
    /// installs the newest the plan allows is the nearest (SPEC 9.3, 10).
    #[must_use]
    pub fn distance(&self, value: Value) -> usize {
        let Value::Release(i) = value else {
            return 0;
        };
        if self.current.is_empty() {
            return self.releases.len() - i;
        }
        let position = |v: &Version| self.releases.iter().position(|m| m.version == *v);
        let moved: usize = self
            .current
            .iter()
            .map(|c| position(c.version).map_or(1, |at| at.abs_diff(i)))
            .sum();
        moved.max(1)
    }
}

/// The whole model of one planning question.
#[derive(Clone, Debug)]
pub struct Model<'a> {
    pub vars: Vec<Var<'a>>,
    pub index: BTreeMap<ProductId, usize>,
    /// For each variable, the variables it shares a constraint with (both directions).
    pub neighbors: Vec<Vec<usize>>,
    /// For each variable, the variables its manifests declare something on (a dependency,
    /// an incompatibility, an input wired from it), sorted: a neighbour is mostly one for
    /// what it declares on the variable, and what the variable declares on it is empty.
    declares: Vec<Vec<usize>>,
    /// Per variable, per release: whether it requires a product that is not a variable.
    lacks: Vec<Vec<bool>>,
    /// Each variable's domain without the values that break something on their own.
    pub base: Vec<Vec<Value>>,
    pub policy: Policy,
    /// The environment's `runtime:` versions, which section 9 items are judged against.
    pub runtime: &'a BTreeMap<String, Version>,
    /// What every question over this model works out alike, worked out once.
    pub(super) memo: super::memo::Memo,
    /// Section 10's serving sets, when some entity uses them (module `placed`).
    pub(super) placed: Option<Arc<super::placed::Placed<'a>>>,
    /// The products asked for by name (`extra` of [`Model::build`]: targets), sorted.
    pub asked: Vec<usize>,
    /// With `--allow-install` where no entity is placed (section 10 not in use): by
    /// variable, the entity a product that is not installed becomes when a plan installs it
    /// (one, global, named as [`crate::environment::InstallNames`] says), so that what it
    /// wires can be judged like any entity's (module `cycles`). Empty otherwise: where
    /// entities are placed, what a plan creates depends on the whole state.
    installs: Vec<Option<String>>,
    /// The catalog the model was built from: where the conflict search finds the providers
    /// of a capability that are not variables ([`Model::outside_providers`]).
    catalog: Built<'a>,
}

/// The catalog a model was built from (shown as a name only).
#[derive(Clone, Copy)]
struct Built<'a>(&'a dyn Releases);

impl std::fmt::Debug for Built<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Releases")
    }
}

impl<'a> Model<'a> {
    /// Builds the variables of every installed product, and with `allow_install` of every
    /// product a candidate release could require. `extra` adds products that must be
    /// variables (a target that is not installed).
    #[must_use]
    pub fn build(
        env: &'a Environment,
        catalog: &'a dyn Releases,
        policy: Policy,
        extra: &[ProductId],
    ) -> Model<'a> {
        let mut current: BTreeMap<ProductId, Vec<Instance<'a>>> = BTreeMap::new();
        for e in env.entities.iter().filter(|e| e.is_installed()) {
            current
                .entry(e.product.clone())
                .or_default()
                .push(Instance {
                    version: &e.version,
                    manifest: catalog.release(&e.product, &e.version).map(AsRef::as_ref),
                    entity: Some(&e.name),
                });
        }
        let mut products: BTreeSet<ProductId> = current.keys().cloned().collect();
        products.extend(extra.iter().cloned());
        if policy.allow_install {
            installable(catalog, &mut products);
        }
        // Each product's variable is made apart from the others (in parallel: on large
        // catalogs building the model is a serial step of every command).
        let products: Vec<(ProductId, Vec<Instance<'a>>)> = products
            .into_iter()
            .map(|product| {
                let current = current.remove(&product).unwrap_or_default();
                (product, current)
            })
            .collect();
        let mut vars: Vec<Var<'a>> = products
            .into_par_iter()
            .map(|(product, current)| Var::new(product, current, env, catalog, policy))
            .collect();
        vars.sort_by(|a, b| a.product.cmp(&b.product));
        let index: BTreeMap<ProductId, usize> = vars
            .iter()
            .enumerate()
            .map(|(i, v)| (v.product.clone(), i))
            .collect();
        let Named {
            neighbors,
            declares,
            lacks,
        } = neighbors(&vars, &index);
        let memo = super::memo::Memo::new(&neighbors);
        let mut model = Model {
            vars,
            index,
            neighbors,
            declares,
            lacks,
            base: Vec::new(),
            policy,
            runtime: &env.runtime,
            memo,
            placed: super::placed::Placed::build(env).map(Arc::new),
            asked: Vec::new(),
            installs: Vec::new(),
            catalog: Built(catalog),
        };
        model.asked = extra
            .iter()
            .filter_map(|p| model.index.get(p).copied())
            .collect();
        model.asked.sort_unstable();
        model.asked.dedup();
        if policy.allow_install && model.placed.is_none() {
            model.installs = install_entities(env, &model.vars);
        }
        model.base = (0..model.vars.len())
            .into_par_iter()
            .map(|p| {
                model.vars[p]
                    .domain
                    .iter()
                    .copied()
                    .filter(|&v| !model.breaks_alone(p, v))
                    .collect()
            })
            .collect();
        model
    }

    /// The entity product `p` becomes when a plan installs it, where that is known from its
    /// value alone (`--allow-install` with no entity placed; see `installs`).
    #[must_use]
    pub fn install_entity(&self, p: usize) -> Option<&str> {
        self.installs.get(p)?.as_deref()
    }

    /// Whether the entities of every state are known from its values alone: nothing may be
    /// installed, or what is installed becomes one global entity ([`Model::install_entity`]).
    /// Where entities are placed and may be created, which are created and what serves whom
    /// depends on the whole state.
    #[must_use]
    pub fn entities_known(&self) -> bool {
        !self.policy.allow_install || self.placed.is_none()
    }

    /// The catalog's products that provide capability `name` at a version in `range` and
    /// are not variables (not installed, and not allowed to be): what `--allow-install`
    /// could add for a capability atom. The conflict search names each as a `Missing` cause;
    /// the engine's questions never see them. Sorted.
    #[must_use]
    pub fn outside_providers(&self, name: &str, range: &crate::range::Range) -> Vec<ProductId> {
        let all = {
            let mut known = self
                .memo
                .providers
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            Arc::clone(known.entry(name.to_owned()).or_insert_with(|| {
                self.catalog
                    .0
                    .providers(name)
                    .into_iter()
                    .filter(|q| !self.index.contains_key(q))
                    .collect()
            }))
        };
        all.iter()
            .filter(|q| {
                self.catalog
                    .0
                    .releases(q)
                    .iter()
                    .any(|m| constraint::provides_in(m.facets(), name, range))
            })
            .cloned()
            .collect()
    }

    /// The section 9 items of this model (module `facets`), or `None` when no release in it
    /// declares any: built once, on first use.
    #[must_use]
    pub fn facets(&self) -> Option<&super::facets::FacetIndex> {
        self.memo
            .facets
            .get_or_init(|| super::facets::FacetIndex::build(self))
            .as_ref()
    }

    /// Shares with the models built before (and after) over the same environment and policy,
    /// each over more of the catalog, what reading more cannot change
    /// ([`super::facets::Carried`]): [`Model::facets`] then judges only what it lacks. Call it
    /// before the first [`Model::facets`] (or after [`Model::inherit`] gave it one, which it
    /// then shares); later it changes nothing.
    pub fn carry(&self, carried: Arc<super::facets::Carried>) {
        // an index inherited whole was built before anything was shared
        if let Some(Some(index)) = self.memo.facets.get() {
            carried.learn(index);
        }
        let _ = self.memo.carried.set(carried);
    }

    /// True when the model cannot judge everything exactly: section 9 items or entities a
    /// plan creates in an environment that uses section 10 where it matters (see
    /// [`super::placed::Doubts`]). Answers it touches are marked not proven, and say why.
    #[must_use]
    pub fn approximate(&self) -> bool {
        self.placed
            .as_ref()
            .is_some_and(|placed| placed.doubts(self).involved.contains(&true))
    }

    /// True when something the model judges approximately names product `p`: whether `p`
    /// alone can move is then not exact.
    #[must_use]
    pub fn doubt_involves(&self, p: usize) -> bool {
        self.placed
            .as_ref()
            .is_some_and(|placed| placed.doubts(self).involved[p])
    }

    /// True when something the model judges approximately lies in `p`'s connected part of
    /// the model: a search about `p` may then depend on it.
    #[must_use]
    pub fn doubt_reaches(&self, p: usize) -> bool {
        self.placed
            .as_ref()
            .is_some_and(|placed| placed.doubts(self).reached[p])
    }

    /// Every variable's value today (`Keep`, or `Absent` for a product not installed): the
    /// baseline searches start from.
    #[must_use]
    pub fn current(&self) -> Vec<Value> {
        self.vars.iter().map(|v| v.domain[0]).collect()
    }

    /// Product `p`'s value in the environment as it is: [`Value::Keep`], or
    /// [`Value::Absent`] for a product not installed.
    #[must_use]
    pub fn today(&self, p: usize) -> Value {
        self.vars[p].domain[0]
    }

    /// Whether [`Model::unary`] finds anything (without making the violations).
    #[must_use]
    pub fn breaks_alone(&self, p: usize, value: Value) -> bool {
        let Value::Release(i) = value else {
            return false; // `Keep` is tolerated, `Absent` declares nothing
        };
        self.lacks[p][i]
            || !self
                .unfed_outside(p, &self.vars[p].releases[i], None)
                .is_empty()
    }

    /// The constraints `value` of variable `p` breaks on its own: required dependencies on
    /// products that are not variables (not installed, and not allowed to be).
    #[must_use]
    pub fn unary(&self, p: usize, value: Value) -> Vec<Violation> {
        if value == Value::Keep {
            return Vec::new(); // whatever it breaks today is tolerated
        }
        self.outside(p, &self.vars[p].instances(value))
    }

    /// The required dependencies of `instances` of variable `p` on products that are not
    /// variables at all (not installed, and not allowed to be): each is missing.
    #[must_use]
    pub fn outside(&self, p: usize, instances: &[Instance<'_>]) -> Vec<Violation> {
        let var = &self.vars[p];
        let mut out = Vec::new();
        for inst in instances {
            let Some(m) = inst.manifest else { continue };
            for d in m.dependencies.iter().filter(|d| !d.optional) {
                if !self.index.contains_key(&d.product) {
                    out.push(Violation {
                        code: Code::MissingDependency,
                        declarer: var.product.clone(),
                        declarer_version: inst.version.to_string(),
                        declarer_entity: inst.entity.map(str::to_owned),
                        optional: false,
                        minimum: d.range.minimum.as_ref().map(ToString::to_string),
                        maximum: d.range.maximum.as_ref().map(ToString::to_string),
                        dependency: d.product.clone(),
                        found: None,
                        found_entity: None,
                        range: d.range.to_string(),
                        location: Some(crate::diagnostic::FileLocation {
                            file: Arc::clone(&m.file),
                            location: d.location,
                        }),
                        input: None,
                    });
                }
            }
            out.extend(
                self.unfed_outside(p, m, inst.entity)
                    .into_iter()
                    .map(|(_, v)| v),
            );
        }
        out
    }

    /// The violations the environment has today among the `involved` products, as
    /// `(p, q, count)` for pairs of an installed product and another product, installed or
    /// not (`q == p` for a product's own requirements on products that cannot be there).
    /// These are what a plan can repair by moving `p` or `q` (installing `q`, with
    /// `--allow-install`): each stays broken while both are where they are today
    /// ([`Model::today`]).
    #[must_use]
    pub fn pre_existing(&self, involved: &BTreeSet<ProductId>) -> Vec<(usize, usize, usize)> {
        let mut out = Vec::new();
        for (p, var) in self.vars.iter().enumerate() {
            if !var.installed() || !involved.contains(&var.product) {
                continue;
            }
            let own = self.outside(p, &var.current).len();
            if own > 0 {
                out.push((p, p, own));
            }
            // a pair of installed products once; one not installed from its installed side
            for &q in self.neighbors[p]
                .iter()
                .filter(|&&q| q > p || !self.vars[q].installed())
            {
                let n = self.one_way(p, Value::Keep, q, self.today(q)).len()
                    + self.one_way(q, self.today(q), p, Value::Keep).len();
                if n > 0 {
                    out.push((p, q, n));
                }
            }
        }
        out
    }

    /// The constraints broken between `p` at `a` and `q` at `b`, declared by either side.
    #[must_use]
    pub fn conflicts(&self, p: usize, a: Value, q: usize, b: Value) -> Vec<Violation> {
        if a == Value::Keep && b == Value::Keep {
            return Vec::new();
        }
        let mut out = self.one_way(p, a, q, b);
        out.extend(self.one_way(q, b, p, a));
        out
    }

    /// True when `p` at `a` and `q` at `b` break nothing between them.
    #[must_use]
    pub fn compatible(&self, p: usize, a: Value, q: usize, b: Value) -> bool {
        (a == Value::Keep && b == Value::Keep)
            || (self.accepts_each(p, a, q, b) && self.accepts_each(q, b, p, a))
    }

    /// Which pairs of `ps` (values of `p`) and `qs` (values of `q`) are compatible, row by
    /// row: the same answers as [`Model::compatible`], with each value's declarations on the
    /// other product looked up once instead of once per pair, and judged against every
    /// release of it at once where that is product-wide ([`Model::releases_accepted`]).
    #[must_use]
    pub fn compatibility(&self, p: usize, ps: &[Value], q: usize, qs: &[Value]) -> Vec<Vec<bool>> {
        let on_q: Vec<Declared<'_>> = ps.iter().map(|&a| self.declared(p, a, q)).collect();
        let on_p: Vec<Declared<'_>> = qs.iter().map(|&b| self.declared(q, b, p)).collect();
        let by_q: Vec<Option<Vec<bool>>> =
            on_q.iter().map(|d| self.releases_accepted(d, q)).collect();
        let by_p: Vec<Option<Vec<bool>>> =
            on_p.iter().map(|d| self.releases_accepted(d, p)).collect();
        let accepts =
            |declared: &Declared<'_>, each: &Option<Vec<bool>>, r: usize, v: Value| match (v, each)
            {
                (Value::Release(j), Some(each)) => each[j],
                _ => self.accepts(declared, r, v),
            };
        ps.iter()
            .zip(on_q.iter().zip(&by_q))
            .map(|(&a, (da, ea))| {
                qs.iter()
                    .zip(on_p.iter().zip(&by_p))
                    .map(|(&b, (db, eb))| {
                        (a == Value::Keep && b == Value::Keep)
                            || (accepts(da, ea, q, b) && accepts(db, eb, p, a))
                    })
                    .collect()
            })
            .collect()
    }

    /// Per release of `q`, whether it breaks none of `declared` ([`Model::accepts`]), each
    /// range's releases found at once ([`Model::inside`]); `None` where that is not
    /// product-wide (section 10 judges per entity, and a wired input per value).
    fn releases_accepted(&self, declared: &Declared<'a>, q: usize) -> Option<Vec<bool>> {
        if self.placed.is_some() || !declared.reads.is_empty() {
            return None;
        }
        let mut each = vec![true; self.vars[q].releases.len()];
        for (_, d) in &declared.needs {
            let inside = self.inside(&d.range, q);
            each[..inside.start].fill(false);
            each[inside.end..].fill(false);
        }
        for (_, c) in &declared.refuses {
            for ok in &mut each[self.inside(&c.range, q)] {
                *ok = false;
            }
        }
        Some(each)
    }

    /// The manifests `p` runs under `value`, with their release index (for `Keep`, the
    /// releases its entities run that the catalog knows, each once, in entity order: every
    /// judgement of a release covers each entity running it).
    pub fn manifests(
        &self,
        p: usize,
        value: Value,
    ) -> impl Iterator<Item = (usize, &'a Manifest)> + '_ {
        let releases: &'a [Arc<Manifest>] = self.vars[p].releases;
        let at = match value {
            Value::Release(i) => Some(i),
            _ => None,
        };
        self.runs_once(p, value).filter_map(move |m| {
            let i = at.or_else(|| releases.iter().position(|r| std::ptr::eq(r.as_ref(), m)))?;
            Some((i, m))
        })
    }

    /// Whether some manifest of `p` declares anything on `q` ([`Model::declares`]).
    #[must_use]
    pub fn declares_on(&self, p: usize, q: usize) -> bool {
        self.declares[p].binary_search(&q).is_ok()
    }

    /// What `p`'s releases under `a` declare on `q`.
    fn declared(&self, p: usize, a: Value, q: usize) -> Declared<'a> {
        let vq = &self.vars[q];
        let mut out = Declared {
            p,
            a,
            needs: Vec::new(),
            refuses: Vec::new(),
            reads: Vec::new(),
        };
        if !self.declares_on(p, q) {
            return out;
        }
        for m in self.runs_once(p, a) {
            out.needs.extend(
                m.dependencies
                    .iter()
                    .filter(|d| d.product == vq.product)
                    .map(|d| (m, d)),
            );
            out.refuses.extend(
                m.incompatibilities
                    .iter()
                    .filter(|c| c.product == vq.product)
                    .map(|c| (m, c)),
            );
            if m.facets.is_some() {
                out.reads.extend(
                    m.facets()
                        .inputs
                        .iter()
                        .filter(|i| super::wired::from_product(i, &vq.product))
                        .map(|i| (m, i)),
                );
            }
        }
        out
    }

    /// The manifests `p` runs under `value`, each release once: a kept product's entities
    /// mostly run one release, and every judgement of a release already covers each entity
    /// running it (once per entity made a product of N entities cost N^2). Without
    /// allocating: a release is skipped when an earlier one is the same.
    fn runs_once(&self, p: usize, value: Value) -> impl Iterator<Item = &'a Manifest> + '_ {
        let vp = &self.vars[p];
        let release = match value {
            Value::Release(at) => Some(&*vp.releases[at]),
            _ => None,
        };
        let kept = (value == Value::Keep).then_some(&vp.current);
        let all = move || {
            release
                .into_iter()
                .chain(kept.into_iter().flatten().filter_map(|c| c.manifest))
        };
        all()
            .enumerate()
            .filter(move |&(k, m)| !all().take(k).any(|s| std::ptr::eq(s, m)))
            .map(|(_, m)| m)
    }

    /// [`Model::accepts`] of what `p` under `a` declares on `q`, judged as each declaration
    /// is met rather than collected first: a single pair is tested this way millions of times
    /// (whether an answer reaches a product not encoded), where collecting cost an
    /// allocation or four per test, about a tenth of an `upgrades` run.
    fn accepts_each(&self, p: usize, a: Value, q: usize, b: Value) -> bool {
        if !self.declares_on(p, q) {
            return true;
        }
        let vq = &self.vars[q];
        self.runs_once(p, a).all(|m| {
            m.dependencies
                .iter()
                .filter(|d| d.product == vq.product)
                .all(|d| self.meets_from((p, a, m), d, q, b))
                && m.incompatibilities
                    .iter()
                    .filter(|c| c.product == vq.product)
                    .all(|c| self.avoids_from((p, a, m), c, q, b))
                && (m.facets.is_none()
                    || m.facets()
                        .inputs
                        .iter()
                        .filter(|i| super::wired::from_product(i, &vq.product))
                        .all(|i| self.feeds_from((p, a, m), i, q, b)))
        })
    }

    /// True when `q` under `b` breaks none of `declared`.
    fn accepts(&self, declared: &Declared<'a>, q: usize, b: Value) -> bool {
        let (p, a) = (declared.p, declared.a);
        declared
            .needs
            .iter()
            .all(|&(m, d)| self.meets_from((p, a, m), d, q, b))
            && declared
                .refuses
                .iter()
                .all(|&(m, c)| self.avoids_from((p, a, m), c, q, b))
            && declared
                .reads
                .iter()
                .all(|&(m, i)| self.feeds_from((p, a, m), i, q, b))
    }

    /// The releases of `q` that `range` holds, as positions in its release list. The catalog
    /// lists the orderable releases first, ascending, and a range holds an interval of them
    /// (its minimum is inclusive and its maximum closed downwards: see `range`); a range with
    /// an end holds no release that cannot be ordered, one with none holds every release. Two
    /// binary searches where judging each release against the range compared versions each
    /// time (the pair judgements test every release of the other product).
    #[must_use]
    pub fn inside(&self, range: &crate::range::Range, q: usize) -> std::ops::Range<usize> {
        let releases = self.vars[q].releases;
        if range.minimum.is_none() && range.maximum.is_none() {
            return 0..releases.len();
        }
        let ordered = &releases[..releases.partition_point(|m| m.version.is_orderable())];
        let low = range
            .minimum
            .as_ref()
            .map_or(0, |min| ordered.partition_point(|m| m.version < *min));
        let high = range.maximum.as_ref().map_or(ordered.len(), |max| {
            ordered.partition_point(|m| max.admits(&m.version))
        });
        low..high.max(low)
    }

    /// True when `q` under `b` satisfies dependency `d`: every instance inside its range, or,
    /// for an optional one, no instance at all.
    #[must_use]
    pub fn meets(&self, d: &crate::manifest::Dependency, q: usize, b: Value) -> bool {
        let vq = &self.vars[q];
        match b {
            Value::Keep => constraint::dependency_holds(d, vq.current.iter().map(|i| i.version)),
            Value::Release(j) => constraint::dependency_holds(d, [&vq.releases[j].version]),
            Value::Absent => constraint::dependency_holds(d, []),
        }
    }

    /// True when `q` under `b` runs nothing in incompatibility `c`'s range.
    #[must_use]
    pub fn avoids(&self, c: &crate::manifest::Incompatibility, q: usize, b: Value) -> bool {
        let vq = &self.vars[q];
        let avoided = |v: &Version| constraint::incompatibility_on(c, v) == Verdict::Holds;
        match b {
            Value::Keep => vq.current.iter().all(|i| avoided(i.version)),
            Value::Release(j) => avoided(&vq.releases[j].version),
            Value::Absent => true,
        }
    }

    /// The constraints `p`'s releases under `a` declare on `q` under `b` and break.
    fn one_way(&self, p: usize, a: Value, q: usize, b: Value) -> Vec<Violation> {
        let mut out = self.one_way_placed(p, a, q, b).unwrap_or_else(|| {
            let (vp, vq) = (&self.vars[p], &self.vars[q]);
            check(&vp.product, &vp.instances(a), &vq.product, &vq.instances(b))
        });
        out.extend(self.wiring_violations(p, a, q, b));
        out
    }
}

/// The declarations of `p`'s releases under `a` on one other product, each with the release
/// that declares it.
struct Declared<'m> {
    p: usize,
    a: Value,
    needs: Vec<(&'m Manifest, &'m crate::manifest::Dependency)>,
    refuses: Vec<(&'m Manifest, &'m crate::manifest::Incompatibility)>,
    /// Inputs wired from the other product (section 10).
    reads: Vec<(&'m Manifest, &'m crate::instance::Input)>,
}

/// Adds to `products` everything an install could bring in: every product reachable through
/// the dependencies of any release that could be chosen, and through its section 9 items (the
/// providers of the capabilities they name, the products their product atoms name).
fn installable(catalog: &dyn Releases, products: &mut BTreeSet<ProductId>) {
    // Everything reachable through the dependencies of any release that could be
    // chosen, and through its section 9 items: the providers of the capabilities they
    // name, and the products their product atoms name.
    let mut queue: Vec<ProductId> = products.iter().cloned().collect();
    let mut providers: BTreeMap<String, Vec<ProductId>> = BTreeMap::new();
    while let Some(p) = queue.pop() {
        for m in catalog.releases(&p) {
            let mut reached: Vec<ProductId> =
                m.dependencies.iter().map(|d| d.product.clone()).collect();
            if m.facets.is_some() {
                let facets = m.facets();
                let named = facets.requires.iter().map(|r| r.name.as_str());
                let atoms = facets.constraints.iter().flat_map(super::facets::atoms);
                let mut capabilities: Vec<&str> = named.collect();
                for atom in atoms {
                    match atom {
                        crate::manifest::Atom::Capability { name, .. } => {
                            capabilities.push(name);
                        }
                        crate::manifest::Atom::Product { product, .. } => {
                            reached.push(product.clone());
                        }
                        _ => {}
                    }
                }
                for name in capabilities {
                    reached.extend(
                        providers
                            .entry(name.to_owned())
                            .or_insert_with(|| catalog.providers(name))
                            .iter()
                            .cloned(),
                    );
                }
            }
            for q in reached {
                if products.insert(q.clone()) {
                    queue.push(q);
                }
            }
        }
    }
}

/// What [`neighbors`] works out for each variable.
struct Named {
    neighbors: Vec<Vec<usize>>,
    declares: Vec<Vec<usize>>,
    lacks: Vec<Vec<bool>>,
}

/// For each variable, the variables it shares a constraint with, in either direction, through
/// any release it or they could run ([`Model::neighbors`]); the variables its manifests
/// declare something on ([`Model::declares`]); and, per release, whether it requires a
/// product that is not a variable ([`Model::breaks_alone`]).
fn neighbors<'a>(vars: &[Var<'a>], index: &BTreeMap<ProductId, usize>) -> Named {
    /// Products a variable's manifests name, each looked up once (a lookup compares names;
    /// a catalog read shares one id among the releases that name a product, so most names
    /// are found again by address), at most this many remembered.
    const KNOWN: usize = 64;
    let sorted = |mut out: Vec<usize>| {
        out.sort_unstable();
        out.dedup();
        out
    };
    // looked up in parallel
    let per_var: Vec<(Vec<usize>, Vec<usize>, Vec<bool>)> = vars
        .par_iter()
        .enumerate()
        .map(|(i, var)| {
            let mut known: Vec<(&'a ProductId, Option<usize>)> = Vec::new();
            let mut lookup = |p: &'a ProductId| {
                if let Some(&(_, j)) = known.iter().find(|(k, _)| k.same(p)) {
                    return j;
                }
                let j = index.get(p).copied();
                if known.len() < KNOWN {
                    known.push((p, j));
                }
                j
            };
            let lacks: Vec<bool> = var
                .releases
                .iter()
                .map(|m| {
                    m.dependencies
                        .iter()
                        .filter(|d| !d.optional)
                        .any(|d| lookup(&d.product).is_none())
                })
                .collect();
            let named: Vec<usize> = var
                .every_manifest()
                .flat_map(|m| {
                    m.dependencies
                        .iter()
                        .map(|d| &d.product)
                        .chain(m.incompatibilities.iter().map(|c| &c.product))
                })
                .filter_map(&mut lookup)
                .filter(|&j| j != i)
                .collect();
            let named = sorted(named);
            let wired: Vec<usize> = var
                .every_manifest()
                .filter(|m| m.facets.is_some())
                .flat_map(|m| m.facets().inputs.iter())
                .filter_map(|input| match &input.from {
                    crate::instance::Requirement::Product(p) => lookup(p),
                    crate::instance::Requirement::Capability(_) => None,
                })
                .filter(|&j| j != i)
                .collect();
            let declares = sorted(named.iter().copied().chain(wired).collect());
            (named, declares, lacks)
        })
        .collect();
    let mut neighbors: Vec<Vec<usize>> = vec![Vec::new(); vars.len()];
    let mut declares = Vec::with_capacity(vars.len());
    let mut lacks = Vec::with_capacity(vars.len());
    for (i, (named, declared, lacking)) in per_var.into_iter().enumerate() {
        for &j in &named {
            neighbors[i].push(j);
            neighbors[j].push(i);
        }
        declares.push(declared);
        lacks.push(lacking);
    }
    Named {
        neighbors: neighbors.into_iter().map(sorted).collect(),
        declares,
        lacks,
    }
}

/// By variable, the entity each product that is not installed becomes when a plan installs
/// it in an environment where no entity is placed ([`Model::install_entity`]).
fn install_entities(env: &Environment, vars: &[Var<'_>]) -> Vec<Option<String>> {
    let names = env.install_names();
    vars.iter()
        .map(|v| (!v.installed()).then(|| names.name(&v.product)))
        .collect()
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::generate::{Params, Shape, generate};
    use crate::{environment, manifest};

    /// [`Model::inside`] holds exactly the releases a range places inside, for ranges with
    /// every end and none, over releases that cannot be ordered, release candidates and
    /// build suffixes too.
    #[test]
    fn inside_is_what_the_range_holds() {
        let versions = [
            "0.9.0",
            "1.0.0",
            "1.2.0-rc1",
            "1.2.0",
            "1.2.1",
            "1.2.3-my-branch",
            "1.2.3.dirty",
            "1.10.0",
            "2.0.0-rc2",
            "2.0.0",
            "10.0.0",
        ];
        let text: Vec<String> = versions
            .iter()
            .map(|v| {
                format!(
                    "manifest-version: \"1.0\"\nproduct-group: g\nproduct-name: q\n\
                     product-version: {v}\n"
                )
            })
            .collect();
        let manifests = manifest::parse(&text.join("---\n"), &Arc::from("q.yml")).unwrap();
        let catalog = Catalog::from_manifests(manifests).unwrap();
        let env = environment::parse(
            "environment: e\nentities:\n  - product: g:q\n    version: 1.0.0\n",
            &Arc::from("e.yml"),
            "e",
        )
        .unwrap();
        let model = Model::build(&env, &catalog, Policy::default(), &[]);
        let releases = model.vars[0].releases;
        assert_eq!(releases.len(), versions.len());
        let minimums = [
            "0.1.0",
            "1.0.0",
            "1.2.0-rc1",
            "1.2.0",
            "1.2.2",
            "2.0.0",
            "11.0.0",
        ];
        let maximums = [
            "0.x.x", "1.0.0", "1.2.x", "1.2.0", "1.x.x", "1.10.0", "2.0.x", "x.x.x",
        ];
        let mut held = 0;
        for minimum in minimums.iter().map(Some).chain([None]) {
            for maximum in maximums.iter().map(Some).chain([None]) {
                let range = crate::range::Range {
                    minimum: minimum.map(|v| Version::parse(v).unwrap()),
                    maximum: maximum.map(|m| crate::matcher::Matcher::parse(m).unwrap()),
                };
                let inside = model.inside(&range, 0);
                for (j, m) in releases.iter().enumerate() {
                    assert_eq!(
                        inside.contains(&j),
                        range.contains(&m.version),
                        "{range} {}",
                        m.version
                    );
                    held += usize::from(inside.contains(&j));
                }
            }
        }
        assert!(held > 50, "{held}");
    }

    /// The allocation-free compatibility (one pair, and the matrix the SAT engine encodes)
    /// says exactly what the conflicts that reports are built from say, on every pair of
    /// neighbouring values of generated catalogs (second entities, cycles and products that
    /// are not installed included).
    #[test]
    fn compatibility_agrees_with_the_conflicts() {
        for (shape, products) in [
            (Shape::Realistic, 120),
            (Shape::Tight, 80),
            (Shape::Hard, 40),
            (Shape::Instances, 60),
        ] {
            let g = generate(Params {
                products,
                releases: 12,
                seed: 7,
                shape,
            });
            let manifests = g
                .manifests
                .iter()
                .flat_map(|(path, text)| manifest::parse(text, &Arc::from(path.as_str())).unwrap());
            let catalog = Catalog::from_manifests(manifests).unwrap();
            let mut env = environment::parse(&g.environment, &Arc::from("e.yml"), "e").unwrap();
            // Some products not installed: `Absent` values and missing dependencies.
            let mut k = 0;
            env.entities.retain(|_| {
                k += 1;
                k % 3 != 0
            });
            let policy = Policy {
                allow_install: true,
                allow_downgrade: true,
                pre: true,
            };
            let model = Model::build(&env, &catalog, policy, &[]);
            let mut pairs = 0;
            for p in 0..model.vars.len() {
                for &q in &model.neighbors[p] {
                    let (ps, qs) = (&model.vars[p].domain, &model.vars[q].domain);
                    let matrix = model.compatibility(p, ps, q, qs);
                    for (i, &a) in ps.iter().enumerate() {
                        for (j, &b) in qs.iter().enumerate() {
                            let expected = model.conflicts(p, a, q, b).is_empty();
                            assert_eq!(
                                model.compatible(p, a, q, b),
                                expected,
                                "{shape:?} {p}={a:?} {q}={b:?}"
                            );
                            assert_eq!(matrix[i][j], expected, "{shape:?} {p}={a:?} {q}={b:?}");
                            pairs += 1;
                        }
                    }
                }
                // the row a search reads against the products it has not encoded, for every
                // value (those a policy leaves out too: the conflict search takes them)
                let every = (0..model.vars[p].releases.len()).map(Value::Release);
                for a in model.base[p].iter().copied().chain(every) {
                    // asked before the row is worked out, then read from it
                    let fits = model.fits_today(p, a);
                    let row = model.compatible_with_today(p, a).unwrap();
                    for (slot, &q) in model.neighbors[p].iter().enumerate() {
                        let today = model.vars[q].domain[0];
                        let expected = model.conflicts(p, a, q, today).is_empty();
                        assert_eq!(row[slot], expected, "{shape:?} {p}={a:?} {q} today");
                    }
                    let all = row.iter().all(|&f| f);
                    assert_eq!(fits, all, "{shape:?} {p}={a:?} fits today");
                    assert_eq!(
                        model.fits_today(p, a),
                        all,
                        "{shape:?} {p}={a:?} from the row"
                    );
                }
            }
            assert!(pairs > 1000, "{shape:?}: only {pairs} pairs checked");
        }
    }
}
