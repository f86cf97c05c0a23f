//! Section 10 in the planning model: when some installed entity has a namespace, labels or
//! bindings, a dependency of a product's release is judged entity by entity against that
//! entity's serving set ([`crate::serving`]) and an incompatibility against what the entity
//! sees, instead of against every entity of the other product.
//!
//! Products still move as a whole (every entity of a product runs the value's release), so a
//! judgement stays a function of the two products' values and the engine's pairwise clauses
//! stay exact for the entities that exist.
//!
//! Reuse before create: with `--allow-install`, a consumer whose required dependency has an
//! empty serving set (the product is not installed, or runs only where the consumer cannot
//! see it) gets an entity created for it (`plan::create` names and places them), at the
//! version the product has in the plan (for a product that keeps its entities, its installed
//! version), so the dependency holds iff that version is in range; without the flag it is
//! missing. An entity the plan creates stands in one of its consumers' namespaces
//! ([`Placed::homes`]): an existing entity that can see none of those places is bound by none
//! of its incompatibilities or optional dependencies on it. The entities created of a product
//! that is not installed, when they can stand in one place only or in several places each
//! certain to get one, are judged from each place like installed ones
//! ([`Placed::created_homes`]). What is still judged product-wide (a created entity's own
//! declarations where it may stand in places not certain to get one, or carries a name-made
//! label criterion, a judging entity that sees some of those places but not all) and the
//! section 9 items (judged from their declaring entities' namespace, seeing whole products)
//! are exact only in the cases [`Doubts`] lists; elsewhere the answers they touch are marked
//! not proven, and a plan's final state is validated as a whole besides.
#![allow(clippy::many_single_char_names)] // p, a, q, b: the model's names for two values

use std::collections::{BTreeMap, BTreeSet};

use super::model::{Instance, Model, Value};
use super::violation::{Violation, check};
use crate::constraint::{self, Verdict};
use crate::environment::Environment;
use crate::finding::Code;
use crate::manifest::{Dependency, Incompatibility, Manifest};
use crate::serving::{Index, Key, Member};
use crate::version::Version;

/// The serving index over the installed entities, with each one's version.
#[derive(Debug)]
pub struct Placed<'a> {
    index: Index<'a>,
    versions: Vec<&'a Version>,
    /// The entities that are not installed (`managed`): they serve nothing, but a binding
    /// may name one.
    managed: Vec<&'a crate::environment::Entity>,
    /// [`Placed::doubts`], worked out once.
    doubts: std::sync::OnceLock<Doubts>,
    /// [`Placed::homes`], worked out once.
    homes: std::sync::OnceLock<Vec<BTreeSet<String>>>,
    /// [`Placed::created_homes`] of each product, worked out once.
    created_homes: std::sync::OnceLock<Vec<Vec<String>>>,
    /// [`Placed::binders`]: entity name -> the members binding something to it.
    binders: std::sync::OnceLock<BTreeMap<String, Vec<usize>>>,
    /// [`Consumers::of`] the model, worked out once for `homes` and `created_homes`.
    consumers: std::sync::OnceLock<Consumers>,
}

impl<'a> Placed<'a> {
    /// The index, or `None` when no entity uses section 10 (the model then judges every
    /// entity of a product alike, as section 7 does).
    #[must_use]
    pub fn build(env: &'a Environment) -> Option<Placed<'a>> {
        if env.entities.iter().all(|e| e.placement.is_plain()) {
            return None;
        }
        let installed: Vec<_> = env.entities.iter().filter(|e| e.is_installed()).collect();
        let members = installed
            .iter()
            .map(|e| Member {
                name: &e.name,
                product: &e.product,
                placement: &e.placement,
                present: true,
            })
            .collect();
        Some(Placed {
            index: Index::new(members, |_| std::iter::empty()),
            versions: installed.iter().map(|e| &e.version).collect(),
            managed: env.entities.iter().filter(|e| !e.is_installed()).collect(),
            doubts: std::sync::OnceLock::new(),
            homes: std::sync::OnceLock::new(),
            created_homes: std::sync::OnceLock::new(),
            binders: std::sync::OnceLock::new(),
            consumers: std::sync::OnceLock::new(),
        })
    }

    /// What the model judges only approximately here ([`Doubts`]), worked out once.
    pub fn doubts(&self, model: &Model<'a>) -> &Doubts {
        self.doubts.get_or_init(|| Doubts::build(self, model))
    }

    /// For each product, the namespaces entities of it could be created in by a plan with
    /// `--allow-install` (SPEC 10, reuse before create; empty without): each consumer's (an
    /// installed entity whose product's releases require it, by a required product
    /// dependency or a required capability some release of it provides; for a consumer the
    /// plan installs, that product's own), a managed entity's of it, and for a product not
    /// installed the global namespace for one created for nobody in particular (a target, a
    /// product a `constraints` atom or a required input may need, or nothing else).
    pub fn homes(&self, model: &Model<'a>) -> &[BTreeSet<String>] {
        self.homes.get_or_init(|| {
            let n = model.vars.len();
            let mut homes: Vec<BTreeSet<String>> = vec![BTreeSet::new(); n];
            if !model.policy.allow_install {
                return homes;
            }
            let standing = self.standing(model);
            // an entity of q is installed where a consumer in `ns` sees it (its namespace or
            // the global one), so none is created for it (unless criteria say otherwise)
            let seen = |q: usize, ns: &str| standing[q].contains("") || standing[q].contains(ns);
            let Consumers {
                of: consumers,
                by_capability,
                named,
            } = self.consumers(model);
            for q in 0..n {
                let vq = &model.vars[q];
                if !vq.installed() {
                    // an install fills a managed entity, or one created for nobody in
                    // particular stands in the global namespace
                    for e in self.managed.iter().filter(|e| e.product == vq.product) {
                        homes[q].insert(e.placement.namespace.clone());
                    }
                    if named.contains(&q) {
                        homes[q].insert(String::new());
                    }
                }
                // a consumer whose dependency on q is bound to an installed entity of q is
                // served by it
                let key = crate::instance::Requirement::Product(vq.product.clone());
                let bound = |c: &str| {
                    self.placement(c).bindings.get(&key).is_some_and(|to| {
                        self.index
                            .find(to)
                            .is_some_and(|i| *self.index.member(i).product == vq.product)
                    })
                };
                for (&p, &picky) in consumers[q].iter().filter(|(p, _)| **p != q) {
                    let via_capability = by_capability[q].contains(&p);
                    for c in model.vars[p].current.iter().filter_map(|c| c.entity) {
                        let ns = &self.placement(c).namespace;
                        if (picky || !seen(q, ns)) && (via_capability || !bound(c)) {
                            homes[q].insert(ns.clone());
                        }
                    }
                }
            }
            // consumers the plan installs lend their own homes, until nothing changes
            let mut changed = true;
            while changed {
                changed = false;
                for q in 0..n {
                    let lent: Vec<String> = consumers[q]
                        .keys()
                        .filter(|&&p| p != q && !model.vars[p].installed())
                        .flat_map(|&p| homes[p].iter().cloned())
                        .filter(|h| !seen(q, h))
                        .collect();
                    for h in lent {
                        changed |= homes[q].insert(h);
                    }
                }
            }
            for (q, home) in homes.iter_mut().enumerate() {
                if home.is_empty() && !model.vars[q].installed() {
                    home.insert(String::new());
                }
            }
            homes
        })
    }

    /// The namespaces the entities a plan creates of `p` (a product not installed) stand
    /// in, when they are known (empty when not): `p` has no managed entity (an install fills
    /// that one, placed as it is) and no release of it asks a dependency for labels made from
    /// `{entity}` (the created entity's name, which the model does not know), and either it
    /// has a single home ([`Placed::homes`]), or every home is *certain*: some consumer
    /// entity there requires `p` by a product dependency under every release its product can
    /// run, so whenever `p` is installed an entity of it is created there, and nowhere else.
    /// Its declarations are then judged from each of those places, exactly.
    pub fn created_homes(&self, model: &Model<'a>, p: usize) -> &[String] {
        let all = self.created_homes.get_or_init(|| {
            let homes = self.homes(model);
            let consumers = self.consumers(model);
            model
                .vars
                .iter()
                .zip(homes)
                .enumerate()
                .map(|(p, (var, homes))| {
                    if var.installed() {
                        return Vec::new();
                    }
                    let by_name = var.every_manifest().any(|m| {
                        m.facets.is_some()
                            && m.facets()
                                .instances
                                .values()
                                .any(crate::instance::Criteria::per_entity)
                    });
                    let managed = self.managed.iter().any(|e| e.product == var.product);
                    if managed || by_name {
                        return Vec::new();
                    }
                    if homes.len() == 1 {
                        return homes.iter().cloned().collect();
                    }
                    self.certain_homes(model, consumers, p)
                        .filter(|certain| certain.iter().all(|h| homes.contains(h)))
                        .map(|certain| certain.into_iter().collect())
                        .unwrap_or_default()
                })
                .collect()
        });
        &all[p]
    }

    /// [`Consumers::of`] the model, worked out once.
    fn consumers(&self, model: &Model<'a>) -> &Consumers {
        self.consumers.get_or_init(|| Consumers::of(model))
    }

    /// For `p` (not installed, several homes): the namespaces of the consumer entities that
    /// require it under every release their product can run, when every namespace a plan
    /// may create an entity of `p` in is one of them; `None` otherwise (a consumer the plan
    /// installs lends its own homes, one that requires `p` only through a capability or
    /// only under some releases may need none, and a product named by a target or a
    /// `constraints` atom creates one in the global namespace only when no consumer needs
    /// it, which a certain one always does).
    fn certain_homes(
        &self,
        model: &Model<'a>,
        consumers: &Consumers,
        p: usize,
    ) -> Option<BTreeSet<String>> {
        let product = &model.vars[p].product;
        let requires = |m: &Manifest| {
            m.dependencies
                .iter()
                .any(|d| d.product == *product && !d.optional)
        };
        let key = crate::instance::Requirement::Product(product.clone());
        let (mut certain, mut maybe) = (BTreeSet::new(), BTreeSet::new());
        for &r in consumers.of[p].keys().filter(|&&r| r != p) {
            let vr = &model.vars[r];
            if !vr.installed() || consumers.by_capability[p].contains(&r) {
                return None;
            }
            let always = vr.releases.iter().all(|m| requires(m))
                && vr.current.iter().all(|c| c.manifest.is_some_and(requires));
            for c in vr.current.iter().filter_map(|c| c.entity) {
                let placement = self.placement(c);
                if placement.bindings.contains_key(&key) {
                    return None; // bound: served, or a binding validate reports
                }
                let ns = placement.namespace.clone();
                if always {
                    certain.insert(ns);
                } else {
                    maybe.insert(ns);
                }
            }
        }
        (!certain.is_empty() && maybe.is_subset(&certain)).then_some(certain)
    }

    /// Under `Keep`, where each index member of `var`'s product stands among its entities
    /// (`var.current`), so a serving set picks its instances by lookup (filtering all of a
    /// product's entities for each entity of another was quadratic in the namespaces);
    /// empty for any other value, whose instance is one planned release.
    fn positions(&self, var: &super::model::Var<'a>, b: Value) -> BTreeMap<usize, usize> {
        match b {
            Value::Keep => var
                .current
                .iter()
                .enumerate()
                .filter_map(|(k, t)| Some((self.index.find(t.entity?)?, k)))
                .collect(),
            _ => BTreeMap::new(),
        }
    }

    /// Each product's namespaces today: where its installed entities stand.
    pub fn standing(&self, model: &Model<'a>) -> Vec<BTreeSet<String>> {
        model
            .vars
            .iter()
            .map(|var| {
                var.current
                    .iter()
                    .filter_map(|c| c.entity)
                    .map(|c| self.placement(c).namespace.clone())
                    .collect()
            })
            .collect()
    }

    /// Whether installed entity `entity` can never see an entity of `q` (a product the plan
    /// may install): none of the namespaces it could be created in is `entity`'s or the
    /// global one.
    pub fn unseen(&self, model: &Model<'a>, entity: &str, q: usize) -> bool {
        let ns = self.placement(entity).namespace.as_str();
        let homes = &self.homes(model)[q];
        !homes.contains("") && !homes.contains(ns)
    }

    /// The installed entities of `product` in namespace `ns`, in the environment's order
    /// (from the index, not a walk over the product's entities).
    #[must_use]
    pub fn entities_at(&self, product: &crate::product::ProductId, ns: &str) -> Vec<&'a str> {
        self.index
            .at(Key::Product(product), ns)
            .iter()
            .map(|&i| self.index.member(i).name)
            .collect()
    }

    /// The namespace, labels and bindings of installed entity `name` (global and plain for
    /// an entity the environment does not hold).
    #[must_use]
    pub fn placement(&self, name: &str) -> &'a crate::instance::Placement {
        self.index
            .find(name)
            .map_or(crate::instance::Placement::none(), |i| {
                self.index.member(i).placement
            })
    }

    /// Installed entity `name` as the serving index holds it.
    pub fn member(&self, name: &str) -> Option<&crate::serving::Member<'a>> {
        self.index.find(name).map(|i| self.index.member(i))
    }

    /// The installed entities of `product` binding something to entity `name`.
    pub fn binding_to<'s>(
        &'s self,
        name: &str,
        product: &'s crate::product::ProductId,
    ) -> impl Iterator<Item = &'a str> + 's {
        self.binders(name)
            .iter()
            .map(|&k| self.index.member(k))
            .filter(move |m| m.product == product)
            .map(|m| m.name)
    }

    /// The members that bind some requirement to entity `name` (worked out once).
    fn binders(&self, name: &str) -> &[usize] {
        let all = self.binders.get_or_init(|| {
            let mut all: BTreeMap<String, Vec<usize>> = BTreeMap::new();
            // one version per member: the index holds the installed entities
            for k in 0..self.versions.len() {
                for to in self.index.member(k).placement.bindings.values() {
                    all.entry(to.clone()).or_default().push(k);
                }
            }
            all
        });
        all.get(name).map_or(&[][..], Vec::as_slice)
    }

    /// The names of the installed entities of `product` serving `consumer`'s dependency on
    /// it under `criteria` (its serving set, [`crate::serving::Index::serving`]).
    #[must_use]
    pub fn serving_names<'s>(
        &'s self,
        consumer: &str,
        product: &'s crate::product::ProductId,
        criteria: Option<&crate::instance::Criteria>,
    ) -> Vec<&'s str> {
        let placement = self.placement(consumer);
        self.index
            .serving((consumer, placement), Key::Product(product), criteria)
            .members
            .into_iter()
            .map(|i| self.index.member(i).name)
            .collect()
    }

    /// Whether `names` are exactly the installed entities of `product` the index holds
    /// (each once).
    #[must_use]
    pub fn holds_exactly<'n>(
        &self,
        product: &crate::product::ProductId,
        names: impl Iterator<Item = &'n str>,
    ) -> bool {
        let mut count = 0;
        for name in names {
            count += 1;
            let of_product = self
                .index
                .find(name)
                .is_some_and(|i| *self.index.member(i).product == *product);
            if !of_product {
                return false;
            }
        }
        count == self.index.count(Key::Product(product))
    }

    /// The managed entities of `product`, as a [`crate::constraint::World`] holds entities
    /// that are not installed.
    #[must_use]
    pub fn managed(
        &self,
        product: &crate::product::ProductId,
    ) -> Vec<crate::constraint::Running<'a>> {
        self.managed
            .iter()
            .filter(|e| e.product == *product)
            .map(|e| crate::constraint::Running {
                entity: &e.name,
                product: &e.product,
                version: &e.version,
                facets: crate::manifest::Facets::none(),
                placement: &e.placement,
            })
            .collect()
    }

    /// The versions serving `entity`'s dependency `d` of `release` when the other product
    /// keeps its entities (`None` when `entity` is not installed).
    fn serving(
        &self,
        entity: &str,
        release: &Manifest,
        d: &'a Dependency,
    ) -> Option<Vec<&'a Version>> {
        let i = self.index.find(entity)?;
        let placement = self.index.member(i).placement;
        Some(self.serving_at((entity, placement), release, d))
    }

    /// The versions serving dependency `d` of `release` run by `entity` standing at
    /// `placement` (an installed entity, or one the plan creates there).
    fn serving_at(
        &self,
        (entity, placement): (&str, &crate::instance::Placement),
        release: &Manifest,
        d: &'a Dependency,
    ) -> Vec<&'a Version> {
        let criteria = release.facets().instances.get(&d.product);
        let members = self
            .index
            .serving((entity, placement), Key::Product(&d.product), criteria)
            .members;
        members.into_iter().map(|m| self.versions[m]).collect()
    }

    /// The versions of `product` that `entity` sees (its namespace and the global one).
    fn visible(&self, entity: &str, c: &'a Incompatibility) -> Option<Vec<&'a Version>> {
        let i = self.index.find(entity)?;
        Some(self.visible_at(self.index.member(i).placement, c))
    }

    /// The versions of `c`'s product seen from `placement`.
    fn visible_at(
        &self,
        placement: &crate::instance::Placement,
        c: &'a Incompatibility,
    ) -> Vec<&'a Version> {
        let members = self.index.visible(placement, Key::Product(&c.product));
        members.into_iter().map(|m| self.versions[m]).collect()
    }
}

/// How a declaration of a release on another product (a dependency, an incompatibility) is
/// judged, whatever value that product takes: what [`Model::meeting`] and
/// [`Model::sighting`] work out once for a row of its values.
pub(super) enum Meeting<'a> {
    /// Product-wide, against every entity of the other product ([`Model::meets`],
    /// [`Model::avoids`]).
    Product,
    /// Never binding: the declaring entities can see none of the places the plan creates
    /// the other product in (for a dependency, an optional one).
    Unseen,
    /// Entity by entity: the versions each declaring entity (or each entity the plan creates
    /// of the declaring product) is served by or sees, or `None` for one judged
    /// product-wide (an entity the index does not know).
    PerEntity(Vec<Option<Vec<&'a Version>>>),
}

impl Meeting<'_> {
    /// Whether the declaration holds for one value of the other product, given how it holds
    /// product-wide and against the versions one entity is served by or sees.
    #[inline]
    pub(super) fn holds(
        &self,
        product_wide: impl Fn() -> bool,
        against: impl Fn(&[&Version]) -> bool,
    ) -> bool {
        match self {
            Meeting::Product => product_wide(),
            Meeting::Unseen => true,
            Meeting::PerEntity(sets) => sets.iter().all(|set| match set {
                Some(versions) => against(versions),
                None => product_wide(),
            }),
        }
    }
}

/// What the model judges only approximately where section 10 is in use, and which answers
/// that touches.
///
/// - Section 9 items are judged from the one namespace their declaring entities stand in,
///   seeing whole products (`facets::judge::Views`; a release a product moves to has an item
///   per namespace its entities stand in); an item declared from
///   several namespaces is judged as if every entity saw every other. That is exact for an
///   item when it is declared from one namespace (whose view judges a product kept as today
///   by the entities it sees there) and each product it names stands where it is today (one
///   that may be created elsewhere it must see whole or not at all), and, for a capability
///   requirement, its serving set is every
///   provider it sees: no label criteria, no binding, and not providers both in the
///   declarer's namespace and the global one (tier 2 would serve alone), nor only global ones
///   under `match-namespace`. Labels matter only through criteria.
/// - With `--allow-install`, an entity the plan creates stands where its consumer is
///   ([`Placed::homes`]). Judging against it is exact when the judging entity sees none of
///   those places or all of them (and for optional dependencies, without label criteria or a
///   binding); a created entity's own declarations are judged from its places when they are
///   known ([`Placed::created_homes`]: exact), else product-wide, exact when every entity of the
///   other product is in one namespace it sees from each place.
///
/// A doubt touches its products' connected part of the model (neighbours and items): an
/// answer about products elsewhere never depends on it.
#[derive(Debug, Default)]
pub struct Doubts {
    /// Per product: a doubt names it (an approximate item declares or names it, or it is one
    /// side of an approximate pair).
    pub involved: Vec<bool>,
    /// Per product: its connected part of the model holds a doubt.
    pub reached: Vec<bool>,
}

impl Doubts {
    fn build<'a>(placed: &Placed<'a>, model: &Model<'a>) -> Doubts {
        let n = model.vars.len();
        let mut involved = vec![false; n];
        // each product's namespaces today, and every namespace an entity of it may stand in
        // after a plan (today's, and where the plan may create one)
        let standing = placed.standing(model);
        let spots: Vec<BTreeSet<String>> = standing
            .iter()
            .zip(placed.homes(model))
            .map(|(now, homes)| now.union(homes).cloned().collect())
            .collect();
        let unmoved: Vec<bool> = spots.iter().zip(&standing).map(|(a, b)| a == b).collect();
        let stands = Places {
            standing: &standing,
            spots: &spots,
            unmoved: &unmoved,
        };
        let mut links: Vec<(usize, usize)> = Vec::new();
        if let Some(index) = model.facets() {
            for k in 0..index.items.len() {
                let item = &index.items[k];
                let mentions = index.mentions(model, k);
                links.extend(mentions.iter().map(|&q| (item.declarer, q)));
                if !placed.item_exact(model, &stands, index, k) {
                    involved[item.declarer] = true;
                    for &q in mentions {
                        involved[q] = true;
                    }
                }
            }
        }
        if model.policy.allow_install {
            for p in 0..n {
                for &q in &model.neighbors[p] {
                    if !placed.pair_exact(model, &stands, p, q) {
                        involved[p] = true;
                        involved[q] = true;
                    }
                }
            }
        }
        if !involved.contains(&true) {
            return Doubts {
                reached: vec![false; n],
                involved,
            };
        }
        for (p, next) in model.neighbors.iter().enumerate() {
            links.extend(next.iter().map(|&q| (p, q)));
        }
        // connected parts, by union-find
        let mut root: Vec<usize> = (0..n).collect();
        for (a, b) in links {
            let (ra, rb) = (find(&mut root, a), find(&mut root, b));
            if ra != rb {
                root[ra] = rb;
            }
        }
        let mut doubtful = vec![false; n];
        for p in (0..n).filter(|&p| involved[p]) {
            let r = find(&mut root, p);
            doubtful[r] = true;
        }
        let reached = (0..n).map(|p| doubtful[find(&mut root, p)]).collect();
        Doubts { involved, reached }
    }
}

/// Who requires whom, for [`Placed::homes`].
#[derive(Debug)]
struct Consumers {
    /// Per product: the products whose releases require it (a required dependency, or a
    /// required capability some release of it provides), and whether their criteria can
    /// leave a consumer unserved by what it sees.
    of: Vec<BTreeMap<usize, bool>>,
    /// Per product: those that require it through a capability (a binding of its product
    /// does not serve those).
    by_capability: Vec<BTreeSet<usize>>,
    /// Products asked for by name, named by a `constraints` atom, or the source of a required
    /// input wired from an optional requirement: a plan may install one for nobody in
    /// particular.
    named: BTreeSet<usize>,
}

impl Consumers {
    fn of(model: &Model<'_>) -> Consumers {
        let n = model.vars.len();
        // capability -> the products some release of which provides it
        let mut providers: BTreeMap<&str, Vec<usize>> = BTreeMap::new();
        for (q, var) in model.vars.iter().enumerate() {
            for m in var.releases {
                for c in &m.facets().provides {
                    let list = providers.entry(c.name.as_str()).or_default();
                    if list.last() != Some(&q) {
                        list.push(q);
                    }
                }
            }
        }
        let provided = |name: &str| providers.get(name).map_or(&[][..], Vec::as_slice);
        let mut consumers: Vec<BTreeMap<usize, bool>> = vec![BTreeMap::new(); n];
        let mut by_capability: Vec<BTreeSet<usize>> = vec![BTreeSet::new(); n];
        let mut named: BTreeSet<usize> = model.asked.iter().copied().collect();
        for (p, var) in model.vars.iter().enumerate() {
            for m in var.every_manifest() {
                let facets = m.facets();
                for d in m.dependencies.iter().filter(|d| !d.optional) {
                    if let Some(&q) = model.index.get(&d.product) {
                        let picky = facets.instances.contains_key(&d.product);
                        *consumers[q].entry(p).or_default() |= picky;
                    }
                }
                for r in facets.requires.iter().filter(|r| !r.optional) {
                    for &q in provided(&r.name) {
                        *consumers[q].entry(p).or_default() |= r.instance.is_some();
                        by_capability[q].insert(p);
                    }
                }
                // a required input wired from an optional requirement wants its source
                // installed though no consumer requires it: one created for nobody in
                // particular (a required one's source is a consumer's already)
                for input in facets.inputs.iter().filter(|i| !i.optional) {
                    match &input.from {
                        crate::instance::Requirement::Product(product)
                            if !m
                                .dependencies
                                .iter()
                                .any(|d| d.product == *product && !d.optional) =>
                        {
                            named.extend(model.index.get(product));
                        }
                        crate::instance::Requirement::Capability(name)
                            if !facets
                                .requires
                                .iter()
                                .any(|r| r.name == *name && !r.optional) =>
                        {
                            named.extend(provided(name));
                        }
                        _ => {}
                    }
                }
                for atom in facets.constraints.iter().flat_map(super::facets::atoms) {
                    match atom {
                        crate::manifest::Atom::Product { product, .. } => {
                            named.extend(model.index.get(product));
                        }
                        crate::manifest::Atom::Capability { name, .. } => {
                            named.extend(provided(name));
                        }
                        _ => {}
                    }
                }
            }
        }
        Consumers {
            of: consumers,
            by_capability,
            named,
        }
    }
}

/// Where each product's entities stand: today, and after any plan.
struct Places<'p> {
    standing: &'p [BTreeSet<String>],
    spots: &'p [BTreeSet<String>],
    /// Per product: it may stand nowhere but where it stands today (`spots == standing`,
    /// compared once: a product in many namespaces has an item per namespace).
    unmoved: &'p [bool],
}

/// The root of `x`'s part in a union-find forest, halving the path on the way.
fn find(root: &mut [usize], mut x: usize) -> usize {
    while root[x] != x {
        root[x] = root[root[x]];
        x = root[x];
    }
    x
}

/// Of `spots` (where the declaring product's entities stand), those the declaring entities
/// (in `declaring`) see of their own product: all of them when the item speaks for
/// `everywhere`, else the declaring namespaces and the global one. Looked up, not filtered:
/// a product in many namespaces has an item per namespace, and each would walk them all.
fn own_spots<'s>(
    spots: &'s BTreeSet<String>,
    declaring: &BTreeSet<String>,
    everywhere: bool,
) -> Vec<&'s String> {
    if everywhere {
        return spots.iter().collect();
    }
    let global = String::new();
    declaring
        .iter()
        .chain(std::iter::once(&global))
        .filter_map(|o| spots.get(o))
        .collect()
}

impl<'a> Placed<'a> {
    /// Whether section 9 item `k` is judged exactly by the model's product-wide judgement
    /// (see [`Doubts`]).
    fn item_exact(
        &self,
        model: &Model<'a>,
        places: &Places<'_>,
        index: &super::facets::FacetIndex,
        k: usize,
    ) -> bool {
        let item = &index.items[k];
        if let (Some(tiers), Some(_)) = (&item.tiers, index.bound_to(k)) {
            // bound to one installed entity: exact while the entities that declare it are
            // the installed ones it was made for (a plan creating more elsewhere is not)
            return item.entity.is_some()
                || places.spots[item.declarer]
                    .iter()
                    .all(|o| *o == tiers.namespace);
        }
        // where the entities declaring it stand (a product the plan installs: anywhere it may)
        let one;
        // (a release item made for one namespace speaks for the entities there, unless the
        // plan may create more elsewhere)
        let placed_whole = places.unmoved[item.declarer];
        let declaring: &BTreeSet<String> = match (&item.entity, &item.home) {
            (Some(e), _) => {
                one = std::iter::once(self.placement(e).namespace.clone()).collect();
                &one
            }
            (None, Some(home)) if placed_whole => {
                one = std::iter::once(home.clone()).collect();
                &one
            }
            (None, _) => &places.spots[item.declarer],
        };
        // where the entities it is about stand; the model sees a product's entities from
        // the declaring namespace exactly when they stand where they are today (none is
        // created) and it sees all of them or none, or the declaring entities stand in that
        // one namespace, whose view judges a product kept as today by the entities it sees
        // (`judge::Views::narrows`; those it does not see are left out, as `validate` leaves
        // them)
        let one_place = declaring.len() == 1;
        let seen_as_placed = |q: usize| {
            let sees = index.item_sees(k, q)?;
            let today = &places.standing[q];
            let whole = today.iter().all(|o| o.is_empty() || declaring.contains(o)) == sees;
            let exact = !today.is_empty() && places.unmoved[q] && (whole || one_place);
            exact.then_some(sees)
        };
        // where an entity the declaring ones see stands (only those count of a product seen
        // in part)
        let visible = |o: &String| o.is_empty() || declaring.contains(o);
        // a kept entity sees those of its own product in its namespace or the global one,
        // as placed (`FacetIndex::atom_by_declarer`): the others of it do not count
        let everywhere = (item.entity.is_none() && item.home.is_none()) || !placed_whole;
        let own = own_spots(&places.spots[item.declarer], declaring, everywhere);
        let others = own.into_iter().map(|o| (true, o)).chain(
            index
                .mentions(model, k)
                .iter()
                .copied()
                .filter_map(|q| {
                    let seen = seen_as_placed(q);
                    let part = seen == Some(true) && one_place;
                    (seen != Some(false))
                        .then(|| places.spots[q].iter().filter(move |o| !part || visible(o)))
                })
                .flatten()
                .map(|o| (false, o)),
        );
        // where they stand: the global namespace, or beside the declarer; each also without
        // the declarer's own product (`[.., mentioned]`)
        let (mut global, mut beside) = ([false; 2], [BTreeSet::new(), BTreeSet::new()]);
        for (own, o) in others {
            if o.is_empty() {
                global[0] = true;
                global[1] |= !own;
            } else if declaring.iter().any(|ns| ns != o) {
                return false; // someone cannot see it
            } else {
                beside[0].insert(o.as_str());
                if !own {
                    beside[1].insert(o.as_str());
                }
            }
        }
        let super::facets::Source::Requires(r) = item.source else {
            return true;
        };
        if let Some(tiers) = &item.tiers {
            // judged tier by tier: exact when each provider stands wholly in or out of each
            // tier, and no plan creates one but beside its consumer (where the tiers of the
            // consumer's namespace see it)
            // (the declarer's own entities count where they stand: exact while the plan
            // creates none of them elsewhere)
            let ns = tiers.namespace.as_str();
            return declaring.iter().all(|d| d == ns)
                && places.unmoved[item.declarer]
                && !index.labels_asked_of_uninstalled(model, k)
                && index.mentions(model, k).iter().all(|&q| {
                    let (spots, today) = (&places.spots[q], &places.standing[q]);
                    places.unmoved[q] || (today.is_empty() && spots.iter().all(|o| o == ns))
                });
        }
        let r = &model.vars[item.declarer].releases[item.release]
            .facets()
            .requires[r];
        let criteria = r.instance.as_ref();
        if criteria.is_some_and(|c| !c.labels.is_empty()) {
            return false;
        }
        let key = crate::instance::Requirement::Capability(r.name.clone());
        let bound = index
            .declaring_entities(model, k)
            .iter()
            .any(|e| self.placement(e).bindings.contains_key(&key));
        if bound {
            return false;
        }
        // which tiers its serving set draws from: those of the providers it sees (the
        // declaring product's own entities only when some release of it provides the
        // capability)
        let own_provides = model.vars[item.declarer]
            .every_manifest()
            .any(|m| m.facets().provides(&r.name));
        let which = usize::from(!own_provides);
        let (global, beside) = (global[which], &beside[which]);
        let match_namespace = criteria.is_some_and(|c| c.match_namespace);
        declaring.iter().all(|ns| {
            ns.is_empty() || !(global && (beside.contains(ns.as_str()) || match_namespace))
        })
    }

    /// Whether what `p` declares on `q` is judged exactly where the plan may create
    /// entities of either (see [`Doubts`]).
    fn pair_exact(&self, model: &Model<'a>, places: &Places<'_>, p: usize, q: usize) -> bool {
        let (vp, vq) = (&model.vars[p], &model.vars[q]);
        let homes = self.homes(model);
        let (mut declares, mut soft, mut labelled) = (false, false, false);
        for m in vp.every_manifest() {
            let criteria = m.facets().instances.get(&vq.product);
            labelled |= criteria.is_some_and(|c| !c.labels.is_empty());
            for d in m.dependencies.iter().filter(|d| d.product == vq.product) {
                declares = true;
                soft |= d.optional;
            }
            if m.incompatibilities.iter().any(|c| c.product == vq.product) {
                declares = true;
                soft = true;
            }
        }
        if !declares {
            return true;
        }
        // places q's entities may be created that are not where its entities are today
        let now = &places.standing[q];
        let created: Vec<&String> = homes[q].iter().filter(|h| !now.contains(*h)).collect();
        if soft && !created.is_empty() {
            // p's entities judging them, those it has and those the plan may create: exact
            // when each sees none; for a product not installed (judged product-wide) also
            // when each sees all, without labels
            for ns in &places.spots[p] {
                let seen = created
                    .iter()
                    .filter(|h| h.is_empty() || h.as_str() == ns.as_str())
                    .count();
                let all = !vq.installed() && !labelled && seen == created.len();
                if seen != 0 && !all {
                    return false;
                }
            }
        }
        // p's created entities judging q's: product-wide, exact when q's entities all stand
        // in one namespace every such place sees, and no label criteria choose among them
        let now = &places.standing[p];
        let mine: Vec<&String> = homes[p].iter().filter(|h| !now.contains(*h)).collect();
        if mine.is_empty() || (vq.installed() && !self.created_homes(model, p).is_empty()) {
            return true;
        }
        let theirs = &places.spots[q];
        !labelled
            && theirs.len() <= 1
            && mine
                .iter()
                .all(|h| theirs.iter().all(|t| t.is_empty() || t == *h))
    }
}

impl<'a> Model<'a> {
    /// This model judging section 10 among the entities of `after` instead: the environment
    /// with the entities a plan creates added as installed (in the namespaces and with the
    /// labels they are created with), so the rolling steps see who would see them. Nothing
    /// else changes (products, values, domains).
    #[must_use]
    pub fn with_created<'b>(&self, after: &'b Environment) -> Model<'b>
    where
        'a: 'b,
    {
        let mut model: Model<'b> = self.clone();
        model.placed = Placed::build(after).map(std::sync::Arc::new);
        model
    }

    /// True when some entity uses section 10 (judgements go through serving sets).
    #[must_use]
    pub fn is_placed(&self) -> bool {
        self.placed.is_some()
    }

    /// [`Model::one_way`] entity by entity, when section 10 is in use and both products are
    /// installed: each entity of `p` (at `a`'s release) against the instances of `q` (at `b`)
    /// that serve it, for dependencies, and that it sees, for incompatibilities.
    pub(super) fn one_way_placed(
        &self,
        p: usize,
        a: Value,
        q: usize,
        b: Value,
    ) -> Option<Vec<Violation>> {
        let placed = self.placed.as_ref()?;
        let (vp, vq) = (&self.vars[p], &self.vars[q]);
        if !vp.installed() {
            return self.one_way_from_created(placed, p, a, q, b);
        }
        if !vq.installed() {
            return Some(self.one_way_to_created(placed, p, a, q, b));
        }
        let theirs = vq.instances(b);
        let at = placed.positions(vq, b);
        let mut out = Vec::new();
        // one violation per entity found: a set keeps finding repeats cheap among thousands
        let mut found: BTreeSet<Violation> = BTreeSet::new();
        for (entity, ours) in vp.current.iter().filter_map(|c| c.entity.map(|e| (e, c))) {
            // a product that moves is one planned instance, as `Var::instances` has it
            let mine = match a {
                Value::Release(i) => vp.planned(i),
                _ => ours.clone(),
            };
            if mine.manifest.is_none() {
                continue;
            }
            let i = placed.index.find(entity)?;
            let placement = placed.index.member(i).placement;
            let (needs, refuses) =
                self.judged_from(placed, (entity, placement, &mine), q, b, (&theirs, &at));
            for v in needs.into_iter().chain(refuses) {
                if found.insert(v.clone()) {
                    out.push(v);
                }
            }
        }
        Some(out)
    }

    /// What entity `entity` (standing at `placement`, running `mine`, which has a release)
    /// declares on `q` under `b` and breaks: its dependencies against its serving set, its
    /// incompatibilities against what it sees. `theirs` is `q`'s instances under `b`, `at`
    /// where each index member of `q` stands in `q`'s entities (for `Keep`).
    fn judged_from(
        &self,
        placed: &Placed<'a>,
        (entity, placement, mine): (&str, &crate::instance::Placement, &Instance<'a>),
        q: usize,
        b: Value,
        (theirs, at): (&[Instance<'a>], &BTreeMap<usize, usize>),
    ) -> (Vec<Violation>, Vec<Violation>) {
        let (Some(m), vq) = (mine.manifest, &self.vars[q]) else {
            return (Vec::new(), Vec::new());
        };
        let product = &m.product;
        let key = Key::Product(&vq.product);
        let criteria = m.facets().instances.get(&vq.product);
        let serving = placed
            .index
            .serving((entity, placement), key, criteria)
            .members;
        let seen = placed.index.visible(placement, key);
        let pick = |members: &[usize]| -> Vec<Instance<'a>> {
            match b {
                Value::Keep => {
                    // in `vq.current`'s order, as before
                    let mut picked: Vec<usize> =
                        members.iter().filter_map(|k| at.get(k).copied()).collect();
                    picked.sort_unstable();
                    picked.dedup();
                    picked.into_iter().map(|k| vq.current[k].clone()).collect()
                }
                _ if members.is_empty() => Vec::new(),
                _ => theirs.to_vec(),
            }
        };
        let one = std::slice::from_ref(mine);
        let mut needs = check(product, one, &vq.product, &pick(&serving));
        needs.retain(|v| v.code != Code::IncompatibleRelease);
        let mut refuses = check(product, one, &vq.product, &pick(&seen));
        refuses.retain(|v| v.code == Code::IncompatibleRelease);
        (needs, refuses)
    }

    /// [`Model::one_way_placed`] when `p` is not installed: the entities the plan creates
    /// of it stand where [`Placed::created_homes`] says, and each is judged from there as an
    /// installed entity is (`None` where those places are not known: judged product-wide).
    fn one_way_from_created(
        &self,
        placed: &Placed<'a>,
        p: usize,
        a: Value,
        q: usize,
        b: Value,
    ) -> Option<Vec<Violation>> {
        let (vp, vq) = (&self.vars[p], &self.vars[q]);
        let homes = self.created_at(placed, p, q);
        if homes.is_empty() {
            return None;
        }
        let Value::Release(i) = a else {
            return Some(Vec::new()); // absent: nothing of it declares anything
        };
        let at = placed.positions(vq, b);
        let theirs = vq.instances(b);
        let mine = vp.planned(i);
        let mut found: BTreeSet<Violation> = BTreeSet::new();
        let mut out = Vec::new();
        for placement in &homes {
            let (needs, refuses) = self.judged_from(
                placed,
                (vp.product.name(), placement, &mine),
                q,
                b,
                (&theirs, &at),
            );
            out.extend(
                needs
                    .into_iter()
                    .chain(refuses)
                    .filter(|v| found.insert(v.clone())),
            );
        }
        Some(out)
    }

    /// [`Model::one_way_placed`] when `q` is not installed: its entities would be created
    /// where their consumers are ([`Placed::homes`]); an entity of `p` that can see none of
    /// those places is bound by none of its incompatibilities or optional dependencies on
    /// `q`, the rest is judged product-wide (a required dependency is served by an entity
    /// created or reused for it, at `q`'s one version).
    fn one_way_to_created(
        &self,
        placed: &Placed<'a>,
        p: usize,
        a: Value,
        q: usize,
        b: Value,
    ) -> Vec<Violation> {
        let (vp, vq) = (&self.vars[p], &self.vars[q]);
        let theirs = vq.instances(b);
        let mut out = Vec::new();
        // one violation per entity found: a set keeps finding repeats cheap among thousands
        let mut found: BTreeSet<Violation> = BTreeSet::new();
        for (entity, ours) in vp.current.iter().filter_map(|c| c.entity.map(|e| (e, c))) {
            let mine = match a {
                Value::Release(i) => vp.planned(i),
                _ => ours.clone(),
            };
            let unseen = placed.unseen(self, entity, q);
            let violations = check(
                &vp.product,
                std::slice::from_ref(&mine),
                &vq.product,
                &theirs,
            )
            .into_iter()
            .filter(|v| !unseen || (v.code != Code::IncompatibleRelease && !v.optional));
            for v in violations {
                if found.insert(v.clone()) {
                    out.push(v);
                }
            }
        }
        out
    }

    /// The existing entities of `p` that run `release` under value `a` (every entity of `p`
    /// for a release it moves to; none for a product the plan installs).
    fn declarers(&self, p: usize, a: Value, release: &Manifest) -> Vec<&'a str> {
        let var = &self.vars[p];
        var.current
            .iter()
            .filter(|c| match a {
                Value::Keep => c.manifest.is_some_and(|m| std::ptr::eq(m, release)),
                _ => true,
            })
            .filter_map(|c| c.entity)
            .collect()
    }

    /// Whether `q` under `b` satisfies dependency `d` of `p`'s `release` under `a`, for every
    /// entity of `p` that runs it, each judged against its own serving set.
    #[must_use]
    pub fn meets_from(
        &self,
        declarer: (usize, Value, &'a Manifest),
        d: &'a Dependency,
        q: usize,
        b: Value,
    ) -> bool {
        if self.placed.is_none() {
            return self.meets(d, q, b); // the hot case, without section 10
        }
        self.meets_as(&self.meeting(declarer, d, q), d, q, b)
    }

    /// Whether `q` under `b` satisfies `d`, judged as `meeting` says ([`Model::meeting`]).
    #[inline]
    pub(super) fn meets_as(
        &self,
        meeting: &Meeting<'_>,
        d: &Dependency,
        q: usize,
        b: Value,
    ) -> bool {
        meeting.holds(|| self.meets(d, q, b), |kept| self.served(d, q, kept, b))
    }

    /// How [`Model::meets_from`] judges `d` whatever `q`'s value: by the serving set of each
    /// entity of `p` that runs `release` (or of each entity the plan creates of `p`). Worked
    /// out once for a row of `q`'s values ([`Model::judged`] asks about every one): looked up
    /// again per value, the serving sets were about a tenth of the first cliff's time
    /// (instances + capabilities at 5,000, BENCHMARKS.md).
    pub(super) fn meeting(
        &self,
        declarer: (usize, Value, &'a Manifest),
        d: &'a Dependency,
        q: usize,
    ) -> Meeting<'a> {
        let release = declarer.2;
        let name = self.vars[declarer.0].product.name();
        self.per_entity(
            declarer,
            q,
            d.optional,
            |placed, at| placed.serving_at((name, at), release, d),
            |placed, entity| placed.serving(entity, release, d),
        )
    }

    /// Whether `q` under `b` satisfies `d` for an entity served by the entities running
    /// `kept`.
    fn served(&self, d: &Dependency, q: usize, kept: &[&Version], b: Value) -> bool {
        match b {
            // nothing serves it: the plan may create an entity of `q` for it
            _ if kept.is_empty() && !d.optional && self.policy.allow_install => {
                self.created_for(d, q, b).is_some()
            }
            _ if kept.is_empty() => constraint::dependency_absent(d) == Verdict::Holds,
            Value::Keep => constraint::dependency_holds(d, kept.iter().copied()),
            Value::Release(j) => {
                constraint::dependency_holds(d, [&self.vars[q].releases[j].version])
            }
            Value::Absent => constraint::dependency_holds(d, []),
        }
    }

    /// What an entity of `q` that a plan creates under `b` for a declarer's dependency `d`
    /// that nothing serves runs (`plan::create` makes one): with `--allow-install`, for a
    /// required `d`, `q`'s catalog release under `b` when `d` holds for it (a version the
    /// catalog has no manifest of is never created, as it would be a finding of its own);
    /// `None` when no entity is created.
    pub(super) fn created_for(
        &self,
        d: &Dependency,
        q: usize,
        b: Value,
    ) -> Option<(&'a Version, &'a Manifest)> {
        if !self.policy.allow_install || d.optional {
            return None;
        }
        match self.vars[q].created(b)? {
            (version, Some(release)) if constraint::dependency_holds(d, [version]) => {
                Some((version, release))
            }
            _ => None,
        }
    }

    /// The entity-by-entity part of [`Model::meeting`] and [`Model::sighting`]: product-wide
    /// without section 10; for an install of `p`, from each place it is created in when
    /// those are known (`at_home`), else product-wide; for a `q` the plan may create, never
    /// binding when every declaring entity can see none of its places (`unseen_frees`: the
    /// declaration lapses unseen), else product-wide; otherwise from each declaring entity
    /// (`of_entity`).
    fn per_entity(
        &self,
        (p, a, release): (usize, Value, &'a Manifest),
        q: usize,
        unseen_frees: bool,
        at_home: impl Fn(&Placed<'a>, &crate::instance::Placement) -> Vec<&'a Version>,
        of_entity: impl Fn(&Placed<'a>, &str) -> Option<Vec<&'a Version>>,
    ) -> Meeting<'a> {
        let Some(placed) = &self.placed else {
            return Meeting::Product;
        };
        let declarers = self.declarers(p, a, release);
        if declarers.is_empty() {
            // an install of the declarer: judged from each place it is created in when those
            // are known, else product-wide (see the module doc)
            let homes = self.created_at(placed, p, q);
            if homes.is_empty() {
                return Meeting::Product;
            }
            return Meeting::PerEntity(homes.iter().map(|at| Some(at_home(placed, at))).collect());
        }
        if !self.vars[q].installed() {
            // created where its consumers are: an entity that can see none of those places
            // is never bound by it (see `Placed::homes`)
            return if unseen_frees && declarers.iter().all(|e| placed.unseen(self, e, q)) {
                Meeting::Unseen
            } else {
                Meeting::Product
            };
        }
        Meeting::PerEntity(
            declarers
                .into_iter()
                .map(|entity| of_entity(placed, entity))
                .collect(),
        )
    }

    /// Where the entities a plan creates of `p` (not installed) stand when that is known
    /// ([`Placed::created_homes`]) and `q` is installed: their declarations on `q` are judged
    /// from each of those places, as an installed entity's are (empty when not known).
    pub(super) fn created_at(
        &self,
        placed: &Placed<'a>,
        p: usize,
        q: usize,
    ) -> Vec<crate::instance::Placement> {
        if !self.vars[q].installed() {
            return Vec::new();
        }
        placed
            .created_homes(self, p)
            .iter()
            .map(|home| crate::instance::Placement {
                namespace: home.clone(),
                ..crate::instance::Placement::default()
            })
            .collect()
    }

    /// Whether `q` under `b` avoids incompatibility `c` of `p`'s `release` under `a`, for
    /// every entity of `p` that runs it, each judged against what it sees.
    #[must_use]
    pub fn avoids_from(
        &self,
        declarer: (usize, Value, &'a Manifest),
        c: &'a Incompatibility,
        q: usize,
        b: Value,
    ) -> bool {
        if self.placed.is_none() {
            return self.avoids(c, q, b);
        }
        self.avoids_as(&self.sighting(declarer, c, q), c, q, b)
    }

    /// Whether `q` under `b` avoids `c`, judged as `sighting` says ([`Model::sighting`]).
    #[inline]
    pub(super) fn avoids_as(
        &self,
        sighting: &Meeting<'_>,
        c: &Incompatibility,
        q: usize,
        b: Value,
    ) -> bool {
        sighting.holds(|| self.avoids(c, q, b), |seen| self.avoided(c, q, seen, b))
    }

    /// How [`Model::avoids_from`] judges `c` whatever `q`'s value: by what each entity of `p`
    /// that runs `release` (or each entity the plan creates of `p`) sees of `q`; worked out
    /// once for a row of `q`'s values, as [`Model::meeting`] is.
    pub(super) fn sighting(
        &self,
        declarer: (usize, Value, &'a Manifest),
        c: &'a Incompatibility,
        q: usize,
    ) -> Meeting<'a> {
        self.per_entity(
            declarer,
            q,
            true,
            |placed, at| placed.visible_at(at, c),
            |placed, entity| placed.visible(entity, c),
        )
    }

    /// Whether `q` under `b` avoids `c` for an entity that sees the entities running `seen`.
    fn avoided(&self, c: &Incompatibility, q: usize, seen: &[&Version], b: Value) -> bool {
        let avoided = |v: &Version| constraint::incompatibility_on(c, v) == Verdict::Holds;
        match b {
            _ if seen.is_empty() => true,
            Value::Keep => seen.iter().all(|v| avoided(v)),
            Value::Release(j) => avoided(&self.vars[q].releases[j].version),
            Value::Absent => true,
        }
    }
}

impl<'a> Model<'a> {
    /// The constraints entity `ours` (of `p`, running `mine`) declares on `q` and breaks
    /// while `q`'s entities run `theirs` (by entity name; a product half-way through a
    /// rolling upgrade), each with the entity of `q` it is about (`""` for a missing one).
    /// With section 10 in use, a dependency is judged against the entity's serving set among
    /// `theirs` and an incompatibility against what it sees; an entity the plan creates (not
    /// in the environment) counts for everyone: `unplaced` names those among `theirs` (the
    /// caller knows them, so no call walks all of `theirs`). `None` without section 10, or
    /// for an entity the index does not hold or whose release is unknown: every pair counts.
    #[must_use]
    pub fn placed_pairs(
        &self,
        (p, ours, mine): (usize, &str, &Instance<'a>),
        q: usize,
        theirs: &std::collections::BTreeMap<String, Instance<'a>>,
        unplaced: &[&str],
    ) -> Option<Vec<(Violation, String)>> {
        let placed = self.placed.as_ref()?;
        let m = mine.manifest?;
        let (vp, vq) = (&self.vars[p], &self.vars[q]);
        let Some(i) = placed.index.find(ours) else {
            return None; // a created entity: judged product-wide
        };
        let mut out = Vec::new();
        let depends = m.dependencies.iter().any(|d| d.product == vq.product);
        let incompatible = m.incompatibilities.iter().any(|c| c.product == vq.product);
        if !depends && !incompatible {
            return Some(out);
        }
        let placement = placed.index.member(i).placement;
        let key = Key::Product(&vq.product);
        // the members of `theirs` among index members `members`, and the unplaced ones
        let pick = |members: &[usize]| -> Vec<(&String, &Instance<'a>)> {
            let mut list: Vec<(&String, &Instance<'a>)> = members
                .iter()
                .filter_map(|&k| theirs.get_key_value(placed.index.member(k).name))
                .chain(unplaced.iter().filter_map(|n| theirs.get_key_value(*n)))
                .collect();
            list.sort_unstable_by(|a, b| a.0.cmp(b.0));
            list
        };
        let one = std::slice::from_ref(mine);
        if depends {
            let criteria = m.facets().instances.get(&vq.product);
            let serving = pick(
                &placed
                    .index
                    .serving((ours, placement), key, criteria)
                    .members,
            );
            if serving.is_empty() {
                out.extend(
                    check(&vp.product, one, &vq.product, &[])
                        .into_iter()
                        .filter(|v| v.code != Code::IncompatibleRelease)
                        .map(|v| (v, String::new())),
                );
            }
            for (name, inst) in serving {
                out.extend(
                    check(&vp.product, one, &vq.product, std::slice::from_ref(inst))
                        .into_iter()
                        .filter(|v| v.code != Code::IncompatibleRelease)
                        .map(|v| (v, name.clone())),
                );
            }
        }
        if incompatible {
            for (name, inst) in pick(&placed.index.visible(placement, key)) {
                out.extend(
                    check(&vp.product, one, &vq.product, std::slice::from_ref(inst))
                        .into_iter()
                        .filter(|v| v.code == Code::IncompatibleRelease)
                        .map(|v| (v, name.clone())),
                );
            }
        }
        Some(out)
    }

    /// The entities of `q` whose serving sets or visible sets (for `p`'s product) can hold
    /// `entity` of `p`: those in its namespace (every one of `q`'s, when it is global), and
    /// those that bind `p`'s product to it. Only installed entities the index holds; `None`
    /// without section 10 or for an entity the index does not hold.
    #[must_use]
    pub fn could_see(&self, p: usize, entity: &str, q: usize) -> Option<Vec<&str>> {
        let placed = self.placed.as_ref()?;
        let i = placed.index.find(entity)?;
        let key = Key::Product(&self.vars[q].product);
        let namespace = placed.index.member(i).placement.namespace.as_str();
        let members = if namespace.is_empty() {
            placed.index.of(key)
        } else {
            placed.index.at(key, namespace)
        };
        let mut out: Vec<&str> = members
            .iter()
            .map(|&k| placed.index.member(k).name)
            .collect();
        let bound = crate::instance::Requirement::Product(self.vars[p].product.clone());
        out.extend(
            placed
                .binders(entity)
                .iter()
                .map(|&k| placed.index.member(k))
                .filter(|m| *m.product == self.vars[q].product)
                .filter(|m| {
                    m.placement
                        .bindings
                        .get(&bound)
                        .is_some_and(|to| to == entity)
                })
                .map(|m| m.name),
        );
        out.sort_unstable();
        out.dedup();
        Some(out)
    }

    /// Whether the serving index holds installed entity `name`.
    #[must_use]
    pub fn places(&self, name: &str) -> bool {
        self.placed
            .as_ref()
            .is_some_and(|placed| placed.index.find(name).is_some())
    }
}

#[cfg(test)]
mod tests {
    use crate::product::ProductId;
    use crate::solve::model::{Model, Policy, Value};
    use crate::solve::wired::tests::{agree, catalog_from, env};

    /// cache is not installed; api requires it (so a plan creates it beside api); web needs
    /// it only optionally, at 1.x, and refuses 2.x.
    const CATALOG: &str = "\
manifest-version: '1.0'
product-group: g
product-name: cache
product-version: 1.0.0
---
manifest-version: '1.0'
product-group: g
product-name: cache
product-version: 2.0.0
---
manifest-version: '1.0'
product-group: g
product-name: api
product-version: 1.0.0
extensions:
  product-dependencies:
    - {product-group: g, product-name: cache, minimum-version: 1.0.0, maximum-version: 2.x.x}
---
manifest-version: '1.0'
product-group: g
product-name: web
product-version: 1.0.0
extensions:
  product-dependencies:
    - {product-group: g, product-name: cache, minimum-version: 1.0.0, maximum-version: 1.x.x, optional: true}
  product-incompatibilities:
    - {product-group: g, product-name: cache, minimum-version: 2.0.0, maximum-version: 2.x.x}
";

    /// Whether cache at 2.0.0 would satisfy web's optional dependency and avoid its
    /// incompatibility, as the row judgements (`meeting`, `sighting`), the one-value ones
    /// and the pairwise compatibility say (asserted alike), with web in namespace `web_ns`.
    fn cache_2_passes_web(web_ns: &str) -> bool {
        let catalog = catalog_from(CATALOG);
        let env = env(&format!(
            "entities:\n  - {{name: api, product: 'g:api', version: 1.0.0, namespace: b}}\n  \
             - {{name: web, product: 'g:web', version: 1.0.0, namespace: {web_ns}}}\n"
        ));
        let policy = Policy {
            allow_install: true,
            ..Policy::default()
        };
        let model = Model::build(&env, &catalog, policy, &[]);
        assert!(agree(&model) > 0);
        let id = |name: &str| model.index[&ProductId::parse(name).unwrap()];
        let (cache, web) = (id("g:cache"), id("g:web"));
        let release = &*model.vars[web].releases[0];
        let declarer = (web, Value::Keep, release);
        let (d, c) = (&release.dependencies[0], &release.incompatibilities[0]);
        let two = Value::Release(1);
        let met = model.meets_as(&model.meeting(declarer, d, cache), d, cache, two);
        let avoided = model.avoids_as(&model.sighting(declarer, c, cache), c, cache, two);
        assert_eq!(met, model.meets_from(declarer, d, cache, two));
        assert_eq!(avoided, model.avoids_from(declarer, c, cache, two));
        assert_eq!(met, avoided, "web sees cache for both or for neither");
        assert_eq!(met, model.compatible(web, Value::Keep, cache, two));
        // 1.0.0 passes both wherever web stands
        let one = Value::Release(0);
        assert!(model.meets_from(declarer, d, cache, one));
        assert!(model.avoids_from(declarer, c, cache, one));
        met
    }

    /// A plan creates cache beside api (namespace `b`): web in namespace `a` can never see
    /// it, so neither its optional dependency nor its incompatibility binds; web in `b`
    /// sees it, and cache 2.0.0 breaks both.
    #[test]
    fn declarations_on_a_product_created_out_of_sight_never_bind() {
        assert!(cache_2_passes_web("a"));
        assert!(!cache_2_passes_web("b"));
    }
}
