//! Section 10's data wiring in the planning model, where it is a constraint between two
//! products: an input wired `from` one of its release's product dependencies is fed by the
//! entity that dependency is bound to, so whether it is fed (`missing-output`, `unfed-input`)
//! depends on the consumer's value and the source product's value alone.
//!
//! The judgement is [`crate::wiring::feeds`] itself, the function `validate` reports through,
//! asked of a small [`World`]: the declaring entity (its placement, the release it would run)
//! and the entities of the source product as the source's value has them (with the managed
//! entities of that product a binding may name). Serving sets count only entities of the
//! required product, so that world binds the input exactly as the whole environment does.
//!
//! Tolerance, as for dependencies: a kept consumer whose input is not fed today, beside a
//! source that stays as it is today, is left alone; any move of either must feed it. A
//! product the plan installs is judged from the places its entities are created in where
//! those are known, else product-wide (its entity and everyone's view of it global), as
//! [`super::placed`] judges its dependencies; an existing entity that can see none of the
//! places an install may be created in (`Placed::unseen`) is fed by none of it. The plan's
//! final state is checked as a whole afterwards ([`crate::plan`]), which also covers what is
//! not pairwise (inputs wired from capabilities, data cycles).

#![allow(clippy::many_single_char_names)] // p, a, q, b: the model's names for two values

use std::collections::BTreeMap;

use super::model::{Instance, Model, Value};
use super::violation::Violation;
use crate::constraint::{Running, World};
use crate::finding::Code;
use crate::instance::{Input, Placement, Requirement};
use crate::manifest::{Facets, Manifest};
use crate::wiring::{self, Feed};

/// One input of one declaring entity that a pair of values leaves unfed.
#[derive(Clone, Debug)]
pub struct Fault {
    /// The declaring entity, when it is an existing one.
    pub entity: Option<String>,
    /// `missing-output` or `unfed-input`.
    pub code: Code,
    /// The source's version and, when it is an existing entity, its name
    /// (`missing-output`).
    pub source: Option<(String, Option<String>)>,
}

/// True when `input` is wired from product dependency `product`.
pub fn from_product(input: &Input, product: &crate::product::ProductId) -> bool {
    matches!(&input.from, Requirement::Product(p) if p == product)
}

impl<'a> Model<'a> {
    /// The inputs of `release` (run by `p` under `a`) wired from `q`'s product that `q` under
    /// `b` leaves unfed, for each entity of `p` that runs it (see the module doc).
    #[must_use]
    pub fn input_faults(
        &self,
        (p, a, release): (usize, Value, &'a Manifest),
        input: &'a Input,
        q: usize,
        b: Value,
    ) -> Vec<Fault> {
        let (vp, vq) = (&self.vars[p], &self.vars[q]);
        if !from_product(input, &vq.product) || (a == Value::Keep && b == vq.domain[0]) {
            return Vec::new();
        }
        let placed = self.placed.as_deref();
        let (homes, product_wide) = self.judged_where(p, q);
        let placement = |name: &str| -> &Placement {
            match placed {
                Some(placed) if !product_wide => placed.placement(name),
                _ => Placement::none(),
            }
        };
        let declarers = self.wiring_declarers(p, a, release, &homes);
        let planned = format!("{}-{}", vp.product.name(), vq.product.name());
        let sources = self.sources(q, b, &placement);
        let installed = vq.installed();
        // Each declarer's world holds only the sources that serve it (from the serving
        // index built once for the model), not every entity of the source product: with
        // thousands of namespaces a world per declarer over all of them was quadratic. The
        // serving set of that smaller world is the same (every tier above the one that serves
        // is empty in both), so the input binds alike. Where the index does not hold exactly
        // the sources (entities the plan creates), every source goes in, as before.
        let serving_only = match placed {
            Some(placed) if !product_wide && p != q && homes.is_empty() => {
                placed.holds_exactly(&vq.product, sources.iter().map(|r| r.entity))
            }
            _ => false,
        }
        .then(|| {
            sources
                .iter()
                .map(|r| (r.entity, *r))
                .collect::<std::collections::BTreeMap<&str, Running<'_>>>()
        });
        let absent = match placed {
            Some(placed) if !product_wide => placed.managed(&vq.product),
            _ => Vec::new(),
        };
        let find = |name: &str| match &serving_only {
            Some(by_name) => by_name.get(name).copied(),
            None => sources.iter().find(|r| r.entity == name).copied(),
        };
        let criteria = release.facets().instances.get(&vq.product);
        let created = self.created_source(release, q, b);
        let mut out = Vec::new();
        for (entity, home) in declarers {
            let mut running = vec![Running {
                entity,
                product: &vp.product,
                version: &release.version,
                facets: release.facets(),
                placement: home.unwrap_or_else(|| placement(entity)),
            }];
            match (&serving_only, placed) {
                (Some(by_name), Some(placed)) => running.extend(
                    placed
                        .serving_names(entity, &vq.product, criteria)
                        .into_iter()
                        .filter_map(|name| by_name.get(name).copied()),
                ),
                _ => running.extend(sources.iter().copied()),
            }
            // an existing declarer that can see none of the places an install of `q` is
            // created in is fed by none of it (as `one_way_to_created` has its optional
            // dependencies)
            let out_of_sight =
                vp.installed() && placed.is_some_and(|pl| pl.unseen(self, entity, q));
            if let (Value::Release(j), false, false) = (b, installed, out_of_sight) {
                // the entity the plan creates for it
                let m: &'a Manifest = &vq.releases[j];
                running.push(Running {
                    entity: &planned,
                    product: &vq.product,
                    version: &m.version,
                    facets: m.facets(),
                    placement: Placement::none(),
                });
            }
            let world = World::placed(running, absent.clone(), self.runtime);
            for (fed, feed) in wiring::feeds(&world, entity, release) {
                if !std::ptr::eq(fed, input) {
                    continue;
                }
                let fault = |code, source: Option<&str>| Fault {
                    entity: vp.installed().then(|| entity.to_owned()),
                    code,
                    source: source.map(|s| match find(s) {
                        Some(r) => (r.version.to_string(), Some(s.to_owned())),
                        None => (
                            vq.version(b).map_or_else(String::new, ToString::to_string),
                            None,
                        ),
                    }),
                };
                match feed {
                    Feed::MissingOutput(s) => out.push(fault(Code::MissingOutput, Some(s))),
                    Feed::Unfed => out.push(fault(Code::UnfedInput, None)),
                    // nothing serves the dependency: the entity the plan creates for it
                    // feeds the input
                    Feed::Quiet => out.extend(created.and_then(|(version, facets)| {
                        let output = input.output.as_ref()?;
                        (!facets.outputs.contains(output)).then(|| Fault {
                            entity: vp.installed().then(|| entity.to_owned()),
                            code: Code::MissingOutput,
                            source: Some((version.to_string(), None)),
                        })
                    })),
                    Feed::Fed(_) => {}
                }
            }
        }
        out
    }

    /// What the entity a plan creates of installed product `q` under `b` runs (its version and
    /// facets), for a declarer of `release` that sees none of `q`'s entities: that of
    /// [`Model::created_for`] for `release`'s dependency on `q`, as [`Model::meets_from`]
    /// judges it. `None` when no such entity is made (a product not installed is judged
    /// product-wide, its planned entity in the world).
    fn created_source(
        &self,
        release: &Manifest,
        q: usize,
        b: Value,
    ) -> Option<(&'a crate::version::Version, &'a Facets)> {
        let vq = &self.vars[q];
        if !vq.installed() {
            return None;
        }
        release
            .dependencies
            .iter()
            .filter(|d| d.product == vq.product)
            .find_map(|d| self.created_for(d, q, b))
            .map(|(version, created)| (version, created.facets()))
    }

    /// The entities of `p` that run `release` under `a`, each with the place an install of
    /// `p` is created in (one of `homes`; none for an existing entity, or an install judged
    /// product-wide).
    fn wiring_declarers<'s, 'h>(
        &'s self,
        p: usize,
        a: Value,
        release: &Manifest,
        homes: &'h [Placement],
    ) -> Vec<(&'s str, Option<&'h Placement>)> {
        let vp = &self.vars[p];
        match a {
            Value::Keep => vp
                .current
                .iter()
                .filter(|c| c.manifest.is_some_and(|m| std::ptr::eq(m, release)))
                .filter_map(|c| Some((c.entity?, None)))
                .collect(),
            _ if vp.installed() => vp
                .current
                .iter()
                .filter_map(|c| Some((c.entity?, None)))
                .collect(),
            _ if homes.is_empty() => vec![(vp.product.name(), None)],
            _ => homes.iter().map(|h| (vp.product.name(), Some(h))).collect(),
        }
    }

    /// Where an input of `p` wired from `q` is judged: an install of the declarer created in
    /// known places from each of them (`Placed::created_homes`), against every source where
    /// it stands; any other install on either side product-wide (every entity global and
    /// plain, the second value).
    fn judged_where(&self, p: usize, q: usize) -> (Vec<Placement>, bool) {
        let (vp, vq) = (&self.vars[p], &self.vars[q]);
        let homes = match self.placed.as_deref() {
            Some(placed) if !vp.installed() => self.created_at(placed, p, q),
            _ => Vec::new(),
        };
        let product_wide = (!vp.installed() && homes.is_empty()) || !vq.installed();
        (homes, product_wide)
    }

    /// The entities of `q` under `b` (none when absent; an install's is added by the
    /// caller), placed by `placement`.
    fn sources<'s>(
        &'s self,
        q: usize,
        b: Value,
        placement: &dyn Fn(&str) -> &'s Placement,
    ) -> Vec<Running<'s>> {
        let vq = &self.vars[q];
        match b {
            Value::Absent => Vec::new(),
            Value::Keep => vq
                .current
                .iter()
                .map(|c| Running {
                    entity: c.entity.unwrap_or_default(),
                    product: &vq.product,
                    version: c.version,
                    facets: c.manifest.map_or(Facets::none(), Manifest::facets),
                    placement: placement(c.entity.unwrap_or_default()),
                })
                .collect(),
            Value::Release(j) => {
                let m: &Manifest = &vq.releases[j];
                vq.current
                    .iter()
                    .filter_map(|c| c.entity)
                    .map(|entity| Running {
                        entity,
                        product: &vq.product,
                        version: &m.version,
                        facets: m.facets(),
                        placement: placement(entity),
                    })
                    .collect()
            }
        }
    }

    /// Whether `q` under `b` feeds `input` of `p`'s `release` under `a`, for every entity of
    /// `p` that runs it.
    #[must_use]
    pub fn feeds_from(
        &self,
        declarer: (usize, Value, &'a Manifest),
        input: &'a Input,
        q: usize,
        b: Value,
    ) -> bool {
        self.input_faults(declarer, input, q, b).is_empty()
    }

    /// The inputs of `p`'s releases under `a` wired from `q`, and left unfed by `q` under
    /// `b`, as violations.
    pub(super) fn wiring_violations(
        &self,
        p: usize,
        a: Value,
        q: usize,
        b: Value,
    ) -> Vec<Violation> {
        let (vp, vq) = (&self.vars[p], &self.vars[q]);
        let mut out = Vec::new();
        // one fault per entity: a set keeps finding repeats cheap among thousands
        let mut seen = std::collections::BTreeSet::new();
        for (_, m) in self.manifests(p, a) {
            for input in m
                .facets()
                .inputs
                .iter()
                .filter(|i| from_product(i, &vq.product))
            {
                for fault in self.input_faults((p, a, m), input, q, b) {
                    let v = input_violation(&vp.product, m, input, fault);
                    if seen.insert(v.clone()) {
                        out.push(v);
                    }
                }
            }
        }
        out
    }

    /// The inputs of `release` (of `p`) wired from an optional product dependency on a
    /// product that is not a variable (not installed, and not allowed to be): each required
    /// one is unfed.
    pub(super) fn unfed_outside(
        &self,
        p: usize,
        release: &Manifest,
        entity: Option<&str>,
    ) -> Vec<(usize, Violation)> {
        let facets = release.facets();
        facets
            .inputs
            .iter()
            .enumerate()
            .filter(|(_, input)| !input.optional)
            .filter_map(|(k, input)| {
                let Requirement::Product(product) = &input.from else {
                    return None;
                };
                let d = release
                    .dependencies
                    .iter()
                    .find(|d| d.product == *product)?;
                if !d.optional || self.index.contains_key(product) {
                    return None;
                }
                let fault = Fault {
                    entity: entity.map(str::to_owned),
                    code: Code::UnfedInput,
                    source: None,
                };
                Some((
                    k,
                    input_violation(&self.vars[p].product, release, input, fault),
                ))
            })
            .collect()
    }
}

/// Which products' moves can change a wiring finding that the pairwise judgement does not
/// see: an input wired from a capability (its source is the best of several products'
/// providers), or a data cycle (a path through many entities).
#[derive(Debug, Default)]
pub struct Risk {
    /// Some release in the model wires an input at all.
    pub wired: bool,
    /// Per product: a move of it may change such a finding.
    pub products: Vec<bool>,
    /// The product-level ordering graph the risk is judged on (empty when nothing is wired):
    /// per product, the products it may wait for, those that may wait for it, and its
    /// strongly connected component (the products of a data cycle share one).
    succs: Vec<Vec<usize>>,
    preds: Vec<Vec<usize>>,
    component: Vec<usize>,
    components: Vec<Vec<usize>>,
}

impl Risk {
    /// Works out the risk of every product from what any of its values declares.
    ///
    /// Capabilities: a product whose releases wire an input from a capability, or provide a
    /// capability some release wires an input from. Cycles: every ordering edge any values
    /// could make between products (required dependencies, required capabilities to every
    /// product providing them, and every input to its source), over-approximated at product
    /// level; a data cycle among entities projects onto a cycle here through a data edge, and
    /// the new edges a move makes all touch the moved product's entities, so only a product
    /// in a strongly connected component with a data edge inside can close a new one.
    fn build(model: &Model<'_>) -> Risk {
        let n = model.vars.len();
        let wired = model
            .vars
            .iter()
            .any(|v| v.every_manifest().any(|m| !m.facets().inputs.is_empty()));
        if !wired {
            return Risk {
                wired,
                products: vec![false; n],
                ..Risk::default()
            };
        }
        let mut providers: std::collections::BTreeMap<&str, Vec<usize>> =
            std::collections::BTreeMap::new();
        for (q, var) in model.vars.iter().enumerate() {
            for m in var.every_manifest() {
                for c in &m.facets().provides {
                    let list = providers.entry(c.name.as_str()).or_default();
                    if list.last() != Some(&q) {
                        list.push(q);
                    }
                }
            }
        }
        let mut products = vec![false; n];
        let mut sourced: std::collections::BTreeSet<&str> = std::collections::BTreeSet::new();
        let mut edges: Vec<(usize, usize)> = Vec::new();
        let mut data: Vec<(usize, usize)> = Vec::new();
        for (p, var) in model.vars.iter().enumerate() {
            for m in var.every_manifest() {
                let facets = m.facets();
                let to = |requirement: &Requirement| -> Vec<usize> {
                    match requirement {
                        Requirement::Product(q) => {
                            model.index.get(q).copied().into_iter().collect()
                        }
                        Requirement::Capability(c) => {
                            providers.get(c.as_str()).cloned().unwrap_or_default()
                        }
                    }
                };
                for d in m.dependencies.iter().filter(|d| !d.optional) {
                    edges.extend(model.index.get(&d.product).map(|&q| (p, q)));
                }
                for r in facets.requires.iter().filter(|r| !r.optional) {
                    let providing = to(&Requirement::Capability(r.name.clone()));
                    edges.extend(providing.into_iter().map(|q| (p, q)));
                }
                for input in &facets.inputs {
                    if let Requirement::Capability(c) = &input.from {
                        products[p] = true;
                        sourced.insert(c);
                    }
                    data.extend(to(&input.from).into_iter().map(|q| (p, q)));
                }
            }
        }
        for name in sourced {
            for &q in providers.get(name).into_iter().flatten() {
                products[q] = true;
            }
        }
        edges.extend(data.iter().copied());
        let layers = crate::order::layers(n, &edges);
        let mut component = vec![usize::MAX; n];
        for (c, members) in layers.cycles.iter().enumerate() {
            for &m in members {
                component[m] = c;
            }
        }
        let mut cyclic = vec![false; layers.cycles.len()];
        for &(p, q) in &data {
            if p == q {
                products[p] = true;
            } else if component[p] != usize::MAX && component[p] == component[q] {
                cyclic[component[p]] = true;
            }
        }
        for (members, _) in layers.cycles.iter().zip(&cyclic).filter(|(_, c)| **c) {
            for &m in members {
                products[m] = true;
            }
        }
        let mut risk = Risk {
            wired,
            products,
            ..Risk::default()
        };
        risk.keep_graph(n, edges, layers.cycles, component);
        risk
    }

    /// Keeps the product-level graph (`edges`, its multi-product components `cycles` and
    /// each product's index among them, `usize::MAX` for none) for [`Risk::scope`].
    fn keep_graph(
        &mut self,
        n: usize,
        mut edges: Vec<(usize, usize)>,
        cycles: Vec<Vec<usize>>,
        mut component: Vec<usize>,
    ) {
        self.succs = vec![Vec::new(); n];
        self.preds = vec![Vec::new(); n];
        edges.sort_unstable();
        edges.dedup();
        for &(p, q) in &edges {
            self.succs[p].push(q);
            self.preds[q].push(p);
        }
        let mut components = cycles;
        for (p, c) in component.iter_mut().enumerate() {
            if *c == usize::MAX {
                *c = components.len();
                components.push(vec![p]);
            }
        }
        self.component = component;
        self.components = components;
    }

    /// The products whose findings [`Model::state_wiring`] a move of `moved` can change
    /// (`inside`), and the products whose entities judge them (`seen`: those and every
    /// product they may wait for); `None` when nothing is wired.
    ///
    /// A finding changes only through an edge or a feed of a consumer that runs a moved
    /// release or may be served by a moved entity (a moved product, or one that may wait
    /// for it); a data cycle through such a consumer lies among the entities of its
    /// component (a cycle of entities projects onto a cycle of products). So `inside` is the
    /// components of the moved products and of the products that may wait for them, and
    /// everything that serves an entity inside is seen.
    pub(crate) fn scope(&self, moved: &[usize]) -> Option<(Vec<bool>, Vec<bool>)> {
        if self.component.is_empty() {
            return None;
        }
        let n = self.component.len();
        let mut inside = vec![false; n];
        let mut reached = vec![false; self.components.len()];
        for &p in moved {
            for &a in std::iter::once(&p).chain(&self.preds[p]) {
                let c = self.component[a];
                if !reached[c] {
                    reached[c] = true;
                    for &m in &self.components[c] {
                        inside[m] = true;
                    }
                }
            }
        }
        let mut seen = inside.clone();
        for p in (0..n).filter(|&p| inside[p]) {
            for &q in &self.succs[p] {
                seen[q] = true;
            }
        }
        Some((inside, seen))
    }
}

impl Model<'_> {
    /// [`Risk::scope`] of this model's products.
    pub(crate) fn wiring_scope(&self, moved: &[usize]) -> Option<(Vec<bool>, Vec<bool>)> {
        self.memo
            .wiring
            .get_or_init(|| Risk::build(self))
            .scope(moved)
    }

    /// Whether a move of `p` may change a data wiring finding the model does not judge pair
    /// by pair ([`Risk`]): answers that move it are then checked as a whole.
    #[must_use]
    pub fn wiring_risk(&self, p: usize) -> bool {
        self.memo.wiring.get_or_init(|| Risk::build(self)).products[p]
    }

    /// Whether any value of any product wires an input (section 10's data wiring is in use).
    #[must_use]
    pub fn wiring_in_use(&self) -> bool {
        self.memo.wiring.get_or_init(|| Risk::build(self)).wired
    }

    /// Whether a move of any product may change a data wiring finding the model does not
    /// judge pair by pair (some product is at [`Risk`]).
    #[must_use]
    pub fn wiring_at_risk(&self) -> bool {
        self.memo
            .wiring
            .get_or_init(|| Risk::build(self))
            .products
            .contains(&true)
    }
}

/// Section 10's data wiring in the rolling steps, where entities of one product may run two
/// releases half-way through: the same judgements ([`wiring::feeds`], data cycles) over the
/// entities as they stand at one moment, by name.
impl<'a> Model<'a> {
    /// The placement the serving index gives `name` (plain when section 10 is not in use).
    #[must_use]
    pub fn placement_of(&self, name: &str) -> &'a Placement {
        self.placed
            .as_deref()
            .map_or(Placement::none(), |placed| placed.placement(name))
    }

    /// The inputs of entity `name` of `p`, running `mine`, wired from `q`'s product, that
    /// `q`'s entities as they stand (`theirs`) leave unfed, as violations, each with the
    /// source entity it names (empty when none). Judged over a world of the consumer and
    /// the entities of `theirs` that serve it by the serving index, with those of them the
    /// index does not hold (`unplaced`), as [`Model::input_faults`] does for values.
    #[must_use]
    pub fn step_input_faults(
        &self,
        (p, name, mine): (usize, &str, &Instance<'a>),
        q: usize,
        theirs: &BTreeMap<String, Instance<'a>>,
        unplaced: &[&str],
    ) -> Vec<(Violation, String)> {
        let (vp, vq) = (&self.vars[p], &self.vars[q]);
        let Some(release) = mine.manifest.filter(|m| {
            m.facets.is_some()
                && m.facets()
                    .inputs
                    .iter()
                    .any(|i| from_product(i, &vq.product))
        }) else {
            return Vec::new();
        };
        let placed = self.placed.as_deref();
        let mut running = vec![Running {
            entity: name,
            product: &vp.product,
            version: mine.version,
            facets: release.facets(),
            placement: self.placement_of(name),
        }];
        let sources: Vec<(&String, &Instance<'a>)> = match placed {
            Some(placed) => {
                let criteria = release.facets().instances.get(&vq.product);
                placed
                    .serving_names(name, &vq.product, criteria)
                    .into_iter()
                    .chain(unplaced.iter().copied())
                    .filter_map(|n| theirs.get_key_value(n))
                    .collect()
            }
            None => theirs.iter().collect(),
        };
        running.extend(sources.into_iter().map(|(n, i)| Running {
            entity: n,
            product: &vq.product,
            version: i.version,
            facets: i.manifest.map_or(Facets::none(), Manifest::facets),
            placement: self.placement_of(n),
        }));
        let absent = placed.map_or_else(Vec::new, |placed| placed.managed(&vq.product));
        let world = World::placed(running, absent, self.runtime);
        let mut out = Vec::new();
        for (input, feed) in wiring::feeds(&world, name, release) {
            if !from_product(input, &vq.product) {
                continue;
            }
            let (code, source) = match feed {
                Feed::MissingOutput(s) => (Code::MissingOutput, Some(s)),
                Feed::Unfed => (Code::UnfedInput, None),
                Feed::Fed(_) | Feed::Quiet => continue,
            };
            let fault = Fault {
                entity: Some(name.to_owned()),
                code,
                source: source.and_then(|s| {
                    let i = theirs.get(s)?;
                    Some((i.version.to_string(), Some(s.to_owned())))
                }),
            };
            let v = input_violation(&vp.product, release, input, fault);
            out.push((v, source.unwrap_or_default().to_owned()));
        }
        out
    }

    /// The data wiring findings of a whole state (`instances`: each product's entities by
    /// name) that are not judged pair by pair: inputs wired from capabilities left unfed,
    /// and data cycles; each in words, with the products it involves. What the rolling steps
    /// compare before and after a step of a product at [`Risk`] (the only ones that can
    /// change such a finding). Costs a world over every entity: steps and learnt cycles ask
    /// [`Model::state_wiring_around`].
    #[must_use]
    pub fn state_wiring(
        &self,
        instances: &[BTreeMap<String, Instance<'a>>],
    ) -> BTreeMap<String, Vec<usize>> {
        self.wiring_among(instances, None)
    }

    /// The findings of [`Model::state_wiring`] that a move of the products `moved` can
    /// change (the others are the same before and after it), judged over the entities that
    /// can take part in them only: comparing a state before and after a step of `moved`,
    /// these give the same new findings as the whole state's, in time that does not grow
    /// with the entities far from the move (each step of a rolling plan judged every entity
    /// twice, quadratic in the steps and entities).
    #[must_use]
    pub fn state_wiring_around(
        &self,
        instances: &[BTreeMap<String, Instance<'a>>],
        moved: &[usize],
    ) -> BTreeMap<String, Vec<usize>> {
        let risk = self.memo.wiring.get_or_init(|| Risk::build(self));
        let Some((inside, seen)) = risk.scope(moved) else {
            return self.state_wiring(instances);
        };
        let witnesses = self.witnesses(instances, &seen);
        self.wiring_among(
            instances,
            Some(Scope {
                inside: &inside,
                seen: &seen,
                witnesses: &witnesses,
            }),
        )
    }

    /// Entities outside the products `seen` that make a world over the entities seen take
    /// the same paths as one over every entity: [`crate::precedence::edges`] orders by
    /// serving sets when some entity is placed, and [`World`] builds its serving index when
    /// some entity is placed or wires an input. A witness serves no entity inside (it is of
    /// no product seen) and its own findings are not kept.
    fn witnesses<'i>(
        &self,
        instances: &'i [BTreeMap<String, Instance<'a>>],
        seen: &[bool],
    ) -> Vec<(usize, &'i str)> {
        self.wiring_witnesses(seen, |q| {
            instances[q].iter().map(|(n, i)| (n.as_str(), i.manifest))
        })
    }

    /// [`Model::witnesses`] over the entities `entities` lists per product (name, release).
    pub(crate) fn wiring_witnesses<'i, I>(
        &self,
        seen: &[bool],
        entities: impl Fn(usize) -> I,
    ) -> Vec<(usize, &'i str)>
    where
        I: Iterator<Item = (&'i str, Option<&'a Manifest>)>,
    {
        let placed = |n: &str, _: Option<&Manifest>| !self.placement_of(n).is_plain();
        let wires = |_: &str, m: Option<&Manifest>| {
            m.is_some_and(|m| m.facets.is_some() && !m.facets().inputs.is_empty())
        };
        let mut out = Vec::new();
        let judges: &[&Judge<'_>] = if self.placed.is_some() {
            &[&placed, &wires]
        } else {
            &[&wires] // no entity is placed: nothing to look for (every step would look)
        };
        for judge in judges {
            let among_seen = (0..seen.len())
                .filter(|&q| seen[q])
                .any(|q| entities(q).any(|(n, m)| judge(n, m)));
            if among_seen {
                continue;
            }
            let outside = (0..seen.len()).filter(|&q| !seen[q]).find_map(|q| {
                let (n, _) = entities(q).find(|&(n, m)| judge(n, m))?;
                Some((q, n))
            });
            out.extend(outside);
        }
        out
    }

    /// [`Model::state_wiring`] over the entities of the products `seen` and the
    /// `witnesses`, keeping the findings among the products `inside` (`None`: every entity,
    /// every finding).
    fn wiring_among(
        &self,
        instances: &[BTreeMap<String, Instance<'a>>],
        scope: Option<Scope<'_>>,
    ) -> BTreeMap<String, Vec<usize>> {
        let inside = |q: usize| scope.is_none_or(|s| s.inside[q]);
        let mut all: Vec<(&str, usize, &Instance<'a>)> = instances
            .iter()
            .enumerate()
            .filter(|&(q, _)| scope.is_none_or(|s| s.seen[q]))
            .flat_map(|(q, list)| list.iter().map(move |(n, i)| (n.as_str(), q, i)))
            .collect();
        for &(q, name) in scope.map_or(&[][..], |s| s.witnesses) {
            if let Some((n, i)) = instances[q].get_key_value(name) {
                all.push((n.as_str(), q, i));
            }
        }
        all.sort_unstable_by_key(|&(n, _, _)| n);
        let mut out: BTreeMap<String, Vec<usize>> = BTreeMap::new();
        let nodes: Vec<crate::precedence::Node<'_>> = all
            .iter()
            .map(|&(n, q, i)| crate::precedence::Node {
                name: n,
                product: &self.vars[q].product,
                version: i.version,
                release: i.manifest,
                placement: self.placement_of(n),
            })
            .collect();
        for members in crate::order::data_cycles_among(&nodes, |m| inside(all[m].1)) {
            let names: Vec<&str> = members.iter().map(|&m| nodes[m].name).collect();
            let mut involved: Vec<usize> = members.iter().map(|&m| all[m].1).collect();
            involved.sort_unstable();
            involved.dedup();
            out.insert(
                format!(
                    "{} would feed data into one another in a cycle",
                    names.join(", ")
                ),
                involved,
            );
        }
        for fault in capability_faults(&nodes, self.runtime, |m| inside(all[m].1)) {
            let mut involved = vec![all[fault.consumer].1];
            involved.extend(fault.source.map(|s| all[s].1));
            out.insert(fault.words, involved);
        }
        out
    }
}

/// An input wired from a capability that a state leaves unfed (`missing-output` or
/// `unfed-input`): not pairwise, since its source is the best of several products' providers.
pub(crate) struct CapabilityFault<'n> {
    /// The finding in words: "app 1.0.0 reads output `url` of cache (input cache-url from
    /// cache), which declares no such output".
    pub words: String,
    /// The capability the input is wired from.
    pub capability: &'n str,
    /// The consumer's node, and the bound source's (`missing-output`).
    pub consumer: usize,
    pub source: Option<usize>,
}

/// The inputs wired from capabilities that the entities `nodes` (sorted by name) leave
/// unfed, among the consumers `keep` keeps (by node). One judgement for the rolling steps'
/// comparisons ([`Model::state_wiring`]) and the nogoods plans learn (`solve::cycles`).
pub(crate) fn capability_faults<'n>(
    nodes: &[crate::precedence::Node<'n>],
    runtime: &'n BTreeMap<String, crate::version::Version>,
    keep: impl Fn(usize) -> bool,
) -> Vec<CapabilityFault<'n>> {
    let running = nodes.iter().map(crate::precedence::Node::running).collect();
    let world = World::new(running, runtime);
    let mut out = Vec::new();
    for (m, node) in nodes.iter().enumerate().filter(|&(m, _)| keep(m)) {
        let Some(release) = node.release.filter(|r| {
            r.facets.is_some()
                && r.facets()
                    .inputs
                    .iter()
                    .any(|i| matches!(i.from, Requirement::Capability(_)))
        }) else {
            continue;
        };
        for (input, feed) in wiring::feeds(&world, node.name, release) {
            let Requirement::Capability(c) = &input.from else {
                continue;
            };
            let (name, version) = (node.name, node.version);
            let (words, source) = match feed {
                Feed::MissingOutput(s) => (
                    format!(
                        "{name} {version} reads output `{}` of {s} (input {} from {c}), which \
                         declares no such output",
                        input.output.as_deref().unwrap_or_default(),
                        input.name
                    ),
                    nodes.binary_search_by(|n| n.name.cmp(s)).ok(),
                ),
                Feed::Unfed => (
                    format!(
                        "{name} {version} has a required input {} from the optional {c}, but \
                         nothing would provide it",
                        input.name
                    ),
                    None,
                ),
                Feed::Fed(_) | Feed::Quiet => continue,
            };
            out.push(CapabilityFault {
                words,
                capability: c,
                consumer: m,
                source,
            });
        }
    }
    out
}

/// Whether an entity (name, release) is of a kind [`Model::wiring_witnesses`] looks for.
type Judge<'j> = dyn Fn(&str, Option<&Manifest>) -> bool + 'j;

/// Where [`Model::state_wiring_around`] judges: the products whose findings it keeps, the
/// products whose entities it judges them over, and the witnesses (see
/// [`Model::witnesses`]).
#[derive(Clone, Copy)]
struct Scope<'s> {
    inside: &'s [bool],
    seen: &'s [bool],
    witnesses: &'s [(usize, &'s str)],
}

/// An unfed input as a violation of the model.
fn input_violation(
    declarer: &crate::product::ProductId,
    release: &Manifest,
    input: &Input,
    fault: Fault,
) -> Violation {
    let product = match &input.from {
        Requirement::Product(p) => p.clone(),
        Requirement::Capability(_) => declarer.clone(),
    };
    Violation {
        code: fault.code,
        declarer: declarer.clone(),
        declarer_version: release.version.to_string(),
        declarer_entity: fault.entity,
        optional: input.optional,
        minimum: None,
        maximum: None,
        range: format!("input {} from {}", input.name, input.from),
        dependency: product,
        found: fault.source.as_ref().map(|(v, _)| v.clone()),
        found_entity: fault.source.and_then(|(_, e)| e),
        location: Some(crate::diagnostic::FileLocation {
            file: std::sync::Arc::clone(&release.file),
            location: input.location,
        }),
        input: Some((input.name.clone(), input.output.clone())),
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use std::sync::Arc;

    use crate::catalog::Catalog;
    use crate::finding::Code;
    use crate::solve::model::{Model, Policy, Value};
    use crate::{environment, manifest};

    /// db 2.0.0 stops declaring `url`; web 1.0.0 reads it; web 2.0.0 reads it too, from an
    /// optional dependency, as a required input.
    const CATALOG: &str = "\
manifest-version: '1.0'
product-group: g
product-name: db
product-version: 1.0.0
extensions:
  outputs: [url]
---
manifest-version: '1.0'
product-group: g
product-name: db
product-version: 2.0.0
---
manifest-version: '1.0'
product-group: g
product-name: web
product-version: 1.0.0
extensions:
  product-dependencies:
    - {product-group: g, product-name: db, minimum-version: 1.0.0, maximum-version: 2.x.x}
  inputs:
    - {name: db-url, from: 'g:db', output: url}
---
manifest-version: '1.0'
product-group: g
product-name: web
product-version: 2.0.0
extensions:
  product-dependencies:
    - {product-group: g, product-name: db, minimum-version: 1.0.0, maximum-version: 2.x.x, optional: true}
  inputs:
    - {name: db-url, from: 'g:db', output: url}
";

    fn catalog() -> Catalog {
        catalog_from(CATALOG)
    }

    /// The catalog of manifests `text` (the model's tests here and in `placed`).
    pub(crate) fn catalog_from(text: &str) -> Catalog {
        Catalog::from_manifests(manifest::parse(text, &Arc::from("c.yml")).unwrap()).unwrap()
    }

    /// The environment `text`.
    pub(crate) fn env(text: &str) -> environment::Environment {
        environment::parse(text, &Arc::from("e.yml"), "e").unwrap()
    }

    /// Every pair of values: the judgement the engine encodes, the violations reports are
    /// built from and the memo's declarations say the same thing.
    #[track_caller]
    pub(crate) fn agree(model: &Model<'_>) -> usize {
        let mut pairs = 0;
        for p in 0..model.vars.len() {
            for &q in &model.neighbors[p] {
                let (ps, qs) = (&model.vars[p].domain, &model.vars[q].domain);
                let matrix = model.compatibility(p, ps, q, qs);
                for (i, &a) in ps.iter().enumerate() {
                    for (j, &b) in qs.iter().enumerate() {
                        let clean = model.conflicts(p, a, q, b).is_empty();
                        assert_eq!(matrix[i][j], clean, "{p}={a:?} {q}={b:?}");
                        pairs += 1;
                    }
                }
            }
        }
        pairs
    }

    #[test]
    fn a_source_that_stops_declaring_the_output_breaks_the_input() {
        let catalog = catalog();
        let env = env(
            "entities:\n  - {name: web, product: 'g:web', version: 1.0.0}\n  \
             - {name: db, product: 'g:db', version: 1.0.0}\n",
        );
        let model = Model::build(&env, &catalog, Policy::default(), &[]);
        assert!(agree(&model) > 0);
        let (db, web) = (
            model.index[&crate::product::ProductId::parse("g:db").unwrap()],
            model.index[&crate::product::ProductId::parse("g:web").unwrap()],
        );
        let broken = model.conflicts(web, Value::Keep, db, Value::Release(1));
        assert_eq!(broken.len(), 1, "{broken:?}");
        assert_eq!(broken[0].code, Code::MissingOutput);
        assert_eq!(broken[0].found_entity.as_deref(), Some("db"));
        assert!(
            broken[0]
                .describe()
                .contains("reads output `url` of g:db (input db-url)"),
            "{}",
            broken[0].describe()
        );
        assert!(model.compatible(web, Value::Release(1), db, Value::Keep));
        assert!(!model.compatible(web, Value::Release(1), db, Value::Release(1)));
    }

    #[test]
    fn a_required_input_from_an_absent_optional_source_is_unfed() {
        let catalog = catalog();
        let env = env("entities:\n  - {name: web, product: 'g:web', version: 1.0.0}\n");
        // db cannot be installed: web 2.0.0 breaks on its own
        let model = Model::build(&env, &catalog, Policy::default(), &[]);
        let web = model.index[&crate::product::ProductId::parse("g:web").unwrap()];
        let alone = model.unary(web, Value::Release(1));
        assert_eq!(
            alone.iter().map(|v| v.code).collect::<Vec<_>>(),
            [Code::UnfedInput]
        );
        // db may be installed: web 2.0.0 needs it, at a release that declares the output
        let policy = Policy {
            allow_install: true,
            ..Policy::default()
        };
        let model = Model::build(&env, &catalog, policy, &[]);
        assert!(agree(&model) > 0);
        let db = model.index[&crate::product::ProductId::parse("g:db").unwrap()];
        let web = model.index[&crate::product::ProductId::parse("g:web").unwrap()];
        assert!(model.unary(web, Value::Release(1)).is_empty());
        assert!(!model.compatible(web, Value::Release(1), db, Value::Absent));
        assert!(model.compatible(web, Value::Release(1), db, Value::Release(0)));
        assert!(!model.compatible(web, Value::Release(1), db, Value::Release(1)));
        // web 1.0.0 kept beside db kept absent: today's missing dependency is not wiring's
        assert!(model.feeds_from(
            (web, Value::Keep, &model.vars[web].releases[0]),
            &model.vars[web].releases[0].facets().inputs[0],
            db,
            Value::Absent
        ));
    }

    /// With namespaces, the input is fed by the entity its dependency is bound to: the one
    /// in the consumer's namespace, not the global one.
    #[test]
    fn the_bound_entity_feeds_the_input() {
        let catalog = catalog();
        let env = env(
            "entities:\n  - {name: web, product: 'g:web', version: 1.0.0, namespace: shop}\n  \
             - {name: shop-db, product: 'g:db', version: 1.0.0, namespace: shop}\n  \
             - {name: db, product: 'g:db', version: 2.0.0}\n",
        );
        let model = Model::build(&env, &catalog, Policy::default(), &[]);
        assert!(agree(&model) > 0);
        let (db, web) = (
            model.index[&crate::product::ProductId::parse("g:db").unwrap()],
            model.index[&crate::product::ProductId::parse("g:web").unwrap()],
        );
        // web 2.0.0 moves; shop-db 1.0.0 serves it and declares the output (the global db
        // 2.0.0 does not, but does not serve web)
        assert!(model.compatible(web, Value::Release(1), db, Value::Keep));
        // everyone on db 2.0.0: no output
        assert!(!model.compatible(web, Value::Keep, db, Value::Release(1)));
    }

    /// Two stages of `group` reading each other's data in some releases (a data cycle
    /// when ingest 2.0.0 meets report 1.0.0), as `solve::cycles`' tests have them.
    fn stages(group: &str) -> String {
        format!(
            "manifest-version: '1.0'\nproduct-group: {group}\nproduct-name: ingest\n\
             product-version: 1.0.0\nextensions:\n  outputs: [records]\n---\n\
             manifest-version: '1.0'\nproduct-group: {group}\nproduct-name: ingest\n\
             product-version: 2.0.0\nextensions:\n  inputs:\n    - \
             {{name: hints, from: '{group}:report', output: summary, optional: true}}\n  \
             product-dependencies:\n    - {{product-group: {group}, product-name: report, \
             minimum-version: 1.0.0, maximum-version: 2.x.x, optional: true}}\n  \
             outputs: [records]\n---\n\
             manifest-version: '1.0'\nproduct-group: {group}\nproduct-name: report\n\
             product-version: 1.0.0\nextensions:\n  product-dependencies:\n    - \
             {{product-group: {group}, product-name: ingest, minimum-version: 1.0.0, \
             maximum-version: 2.x.x, optional: true}}\n  outputs: [summary]\n  inputs:\n    \
             - {{name: records, from: '{group}:ingest', output: records, optional: true}}\n---\n\
             manifest-version: '1.0'\nproduct-group: {group}\nproduct-name: report\n\
             product-version: 2.0.0\nextensions:\n  outputs: [summary]\n---\n"
        )
    }

    /// A capability `events` whose provider stops declaring `stream` in 2.0.0, read by a
    /// sink through an input from the capability (judged on the whole state, not in pairs);
    /// feed 2.0.0 reads a gate's acks, and the gate needs a feed labelled `tier: gold`,
    /// which none is: where the serving index is used, nothing serves that need (no
    /// ordering edge back, no cycle), and a world without it would see a cycle.
    const EVENTS: &str = "\
manifest-version: '1.0'
product-group: c
product-name: feed
product-version: 1.0.0
extensions:
  capabilities:
    provides: [{name: events, version: 1.0.0}]
  outputs: [stream]
---
manifest-version: '1.0'
product-group: c
product-name: feed
product-version: 2.0.0
extensions:
  capabilities:
    provides: [{name: events, version: 1.0.0}]
  product-dependencies:
    - {product-group: c, product-name: gate, minimum-version: 1.0.0, maximum-version: 1.x.x, optional: true}
  inputs:
    - {name: acks, from: 'c:gate', output: out, optional: true}
---
manifest-version: '1.0'
product-group: c
product-name: sink
product-version: 1.0.0
extensions:
  capabilities:
    requires: [{name: events}]
  inputs:
    - {name: s, from: events, output: stream}
---
manifest-version: '1.0'
product-group: c
product-name: gate
product-version: 1.0.0
extensions:
  product-dependencies:
    - {product-group: c, product-name: feed, minimum-version: 1.0.0, maximum-version: 2.x.x, instance: {labels: {tier: gold}}}
  outputs: [out]
---
manifest-version: '1.0'
product-group: o
product-name: other
product-version: 1.0.0
---
manifest-version: '1.0'
product-group: o
product-name: other
product-version: 2.0.0
";

    /// Every move of one product and of two (to any value of their base domains), from
    /// today and from the state where everything is at its newest: (from, to, moved).
    pub(crate) fn moves_of_one_and_two(
        model: &Model<'_>,
    ) -> Vec<(Vec<Value>, Vec<Value>, Vec<usize>)> {
        let n = model.vars.len();
        let today = model.current();
        let newest: Vec<Value> = (0..n)
            .map(|q| Value::Release(model.vars[q].releases.len() - 1))
            .collect();
        let mut out = Vec::new();
        for from in [today, newest] {
            for p in 0..n {
                for q in p..n {
                    for v in &model.base[p] {
                        for w in &model.base[q] {
                            let mut to = from.clone();
                            to[p] = *v;
                            to[q] = *w;
                            let moved = if p == q { vec![p] } else { vec![p, q] };
                            out.push((from.clone(), to, moved));
                        }
                    }
                }
            }
        }
        out
    }

    /// Two ingest/report pipelines that can close data cycles, a capability-fed chain, and an
    /// unrelated product, plain and with that product namespaced (the serving index then in
    /// use): the catalog and both environments.
    pub(crate) fn cycle_family() -> (Catalog, Vec<environment::Environment>) {
        let text = format!("{}{}{EVENTS}", stages("a"), stages("b"));
        let manifests = manifest::parse(&text, &Arc::from("c.yml")).unwrap();
        let catalog = Catalog::from_manifests(manifests).unwrap();
        let plain = "entities:\n  - {name: a-ingest, product: 'a:ingest', version: 1.0.0}\n  \
             - {name: a-report, product: 'a:report', version: 1.0.0}\n  \
             - {name: b-ingest, product: 'b:ingest', version: 1.0.0}\n  \
             - {name: b-report, product: 'b:report', version: 1.0.0}\n  \
             - {name: feed, product: 'c:feed', version: 1.0.0}\n  \
             - {name: sink, product: 'c:sink', version: 1.0.0}\n  \
             - {name: gate, product: 'c:gate', version: 1.0.0}\n  \
             - {name: other, product: 'o:other', version: 1.0.0}\n";
        let placed = plain.replace(
            "'o:other', version: 1.0.0}",
            "'o:other', version: 1.0.0, namespace: ns, labels: {app: x}}",
        );
        (catalog, vec![env(plain), env(&placed)])
    }

    /// What a step adds, judged around the moved products, is what it adds judged over the
    /// whole state: every move of one product and of two, from today and from the state
    /// where everything is at its newest, with and without a namespaced entity elsewhere
    /// (the serving index then used for the whole state).
    #[test]
    fn wiring_judged_around_a_move_adds_what_the_whole_state_adds() {
        use std::collections::BTreeMap;

        use crate::solve::model::Instance;
        let (catalog, envs) = cycle_family();
        let mut judged = 0;
        for env in &envs {
            let model = Model::build(env, &catalog, Policy::default(), &[]);
            let n = model.vars.len();
            let instances = |values: &[Value]| -> Vec<BTreeMap<String, Instance<'_>>> {
                (0..n)
                    .map(|q| {
                        let var = &model.vars[q];
                        var.current
                            .iter()
                            .map(|c| {
                                let i = match values[q] {
                                    Value::Release(r) => Instance {
                                        entity: c.entity,
                                        ..var.planned(r)
                                    },
                                    _ => c.clone(),
                                };
                                (c.entity.unwrap().to_owned(), i)
                            })
                            .collect()
                    })
                    .collect()
            };
            let added = |from: &[Value], to: &[Value], moved: &[usize], around: bool| {
                let judge = |values: &[Value]| {
                    let state = instances(values);
                    if around {
                        model.state_wiring_around(&state, moved)
                    } else {
                        model.state_wiring(&state)
                    }
                };
                let before = judge(from);
                let mut after = judge(to);
                after.retain(|words, _| !before.contains_key(words));
                after
            };
            for (from, to, moved) in moves_of_one_and_two(&model) {
                let whole = added(&from, &to, &moved, false);
                judged += whole.len();
                assert_eq!(added(&from, &to, &moved, true), whole, "{from:?} -> {to:?}");
            }
        }
        assert!(judged > 0, "some move adds a finding");
    }
}
