//! Section 9 in the planning model: the capability requirements and `constraints` items each
//! value of each product declares, which products their truth can depend on, and their truth
//! in a state of the model, always judged through [`constraint::World`] (the meaning
//! `validate` uses).
//!
//! An [`Item`] is one `capabilities.requires` entry or one top-level `constraints` item of one
//! declaring instance: a catalog release a product may move to, or the release a kept entity
//! runs. A requirement becomes a term (required: the atom `capability`; optional: "no
//! provider at all, or one in range"), so the engine encodes one kind of thing. Runtime
//! requirements are not items: the runtime never changes in a plan, so a release whose
//! requirement fails is left out of the product's values (`Exclusion::Runtime`).
//!
//! Tolerance, as for the binary constraints (where a broken constraint between two kept
//! products stands, and any move of either must satisfy it): an item of a kept entity that
//! fails today is *tolerated* while a part of it that fails today fails still (an `all-of`
//! member, every member of an `any-of`, a `none-of` member true today, down to atoms), which
//! it does while every product that part names stays where it is today; once a move could
//! change its truth, it must hold. One that holds today must keep holding. An item of a
//! release a product moves to must hold. A plan on an invalid start counts the tolerated
//! items left as they are among the violations it repairs first
//! ([`crate::solve::Fewest::repair_items`]).
//!
//! A model without section 9 items has no index ([`Model::facets`] is `None`), and nothing
//! here costs anything.

mod breaks;
mod judge;

use judge::RuleSupport;
pub(crate) use judge::{Compiled, Others};

use std::borrow::Cow;
use std::collections::{BTreeMap, BTreeSet};

use super::model::{Model, Value};
use crate::constraint::{Running, World};
use crate::instance::Criteria;
use crate::manifest::{Atom, CapabilityRequirement, Facets, Manifest, Term, TermKind};
use crate::range::Range;

/// Which entry of a release an item is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Source {
    /// `capabilities.requires[k]`.
    Requires(usize),
    /// `constraints[k]`.
    Constraint(usize),
}

/// One section 9 item of one declaring instance.
#[derive(Clone, Debug)]
pub struct Item {
    /// The declaring product (a model index) and the value under which it declares this.
    pub declarer: usize,
    pub value: Value,
    /// The declaring release (an index into the product's releases).
    pub release: usize,
    /// The kept entity that declares it (`None` for a release the product may move to).
    pub entity: Option<String>,
    /// For a release the product may move to: the one namespace whose installed entities
    /// this copy of the item speaks for (each namespace they stand in gets its own, judged
    /// from there; `None`: judged product-wide, see [`homes`]).
    pub home: Option<String>,
    pub source: Source,
    /// What must hold.
    pub term: Term,
    /// Products (other than the declarer) a product or capability atom names, sorted.
    fixed: Vec<usize>,
    /// The ids of the rule atoms in it: any product one of whose values satisfies a rule
    /// matters too.
    rules: Vec<usize>,
    /// A kept entity's item that fails today (see the module docs).
    pub tolerated: bool,
    /// For a tolerated item: sets of products such that, while every product of one of them
    /// stays where it is today (and the declarer keeps), the item fails as it does today
    /// ([`FacetIndex::as_today`]); empty otherwise.
    stuck: Vec<Vec<usize>>,
    /// For a tolerated item: the products it waits for before it is encoded, those its
    /// product and capability atoms name and those of its stuck sets, sorted.
    waits: Vec<usize>,
    /// With rules: every product it names, worked out once ([`FacetIndex::mentions`]).
    mentions: std::sync::OnceLock<Vec<usize>>,
    /// The view its declaring entities see from ([`judge::Views`]).
    view: usize,
    /// A capability requirement judged by its serving set's tiers ([`Tiers`]).
    pub tiers: Option<Tiers>,
}

/// The items with a rule atom that a product's values may change, kept by rule: per product,
/// the rule atoms some value of it makes true, and per rule atom, the items with it. (Kept
/// per product instead, a rule true of a thousand products listed each of its items a
/// thousand times: on the hard family with capabilities at 5,000, millions of entries built
/// on one thread in each explanation round while the others waited.)
#[derive(Debug, Default)]
struct RuledBy {
    rules: Vec<Vec<usize>>,
    items: BTreeMap<usize, Vec<usize>>,
    /// Per rule atom, those of its items declared under their declarer's value today, with
    /// their declarer ([`FacetIndex::affected_today`]).
    items_today: BTreeMap<usize, Vec<(usize, usize)>>,
}

/// What a model built over more of the catalog takes from the models built before it over
/// the same environment and policy ([`Model::carry`]): an explanation round reads older
/// releases of some products, which no kept entity runs and which change no other product.
#[derive(Debug, Default)]
pub struct Carried {
    /// Which kept entities' items fail today, as the first index built judged them (about
    /// half of building an index).
    tolerance: std::sync::OnceLock<Tolerance>,
    /// Which products make each rule true, judged again only for products whose releases
    /// grew.
    support: RuleSupport,
}

impl Carried {
    /// Takes what `index` judged that more of the catalog read cannot change, unless known
    /// already: for an index built before this was shared (an index a model inherits).
    pub fn learn(&self, index: &FacetIndex) {
        self.tolerance.get_or_init(|| index.tolerance());
    }
}

/// Whether each kept entity's items fail today ([`Item::tolerated`]), by entity and entry.
#[derive(Debug, Default)]
struct Tolerance(BTreeMap<String, BTreeMap<Source, bool>>);

impl Tolerance {
    /// Whether kept item `item` fails today, when known.
    fn of(&self, item: &Item) -> Option<bool> {
        self.0
            .get(item.entity.as_deref()?)?
            .get(&item.source)
            .copied()
    }
}

/// The tiers of a capability requirement's serving set (SPEC 10's tiers 2 to 5, in order),
/// one view each, when its declaring entities stand in one namespace and it has no binding,
/// and its label criteria (if any) name no `{entity}` for a release several entities may
/// run: used where providers stand both there (or may be created there) and in the global
/// namespace, or where labels narrow it. The first tier with a provider in it serves.
///
/// Or tier 1 alone, when every declaring entity binds the requirement to one installed
/// entity (one view of [`judge::Sight::Bound`]): see [`FacetIndex::bound_tier`] and
/// [`FacetIndex::bound_to`].
#[derive(Clone, Debug)]
pub struct Tiers {
    pub namespace: String,
    views: Vec<usize>,
}

/// An item as [`FacetIndex::draft`] works it out (on any thread), to be added in order by
/// [`FacetIndex::add`], which interns its atoms and views, so the ids are those of a build
/// on one thread. The index of the hard family with capabilities at 5,000 (about 40,000
/// items) is built for every explanation round: 155 ms on one thread, 138 ms with the
/// drafts on both; interning is most of what is left.
struct Draft<'m> {
    declarer: usize,
    value: Value,
    release: usize,
    entity: Option<&'m str>,
    home: Option<String>,
    source: Source,
    term: Term,
    /// The words of `term`'s atoms, in order ([`judge::words_of`]).
    words: Vec<String>,
    fixed: Vec<usize>,
    facets: &'m Facets,
}

/// Every item of a model, indexed by declaring value and by the products they name.
#[derive(Debug)]
pub struct FacetIndex {
    pub items: Vec<Item>,
    by_value: BTreeMap<(usize, Value), Vec<usize>>,
    /// Per product: the items of other products whose product or capability atoms name it.
    mentioned_by: Vec<Vec<usize>>,
    /// [`FacetIndex::mentioned_by`] narrowed to the items declared under their declarer's
    /// value today, with their declarer.
    mentioned_today: Vec<Vec<(usize, usize)>>,
    /// Items with a rule atom.
    ruled: Vec<usize>,
    /// Which items a product's moves may change through their rules ([`RuledBy`]), worked
    /// out once, when first asked: every rule is then judged on every release.
    ruled_by: std::sync::OnceLock<RuledBy>,
    /// Capability name -> the products some value of which provides it (any version).
    providers: BTreeMap<String, Vec<usize>>,
    /// Per product: its `group:name` text, the name a planned instance runs under.
    names: Vec<String>,
    /// Products not installed that provide a capability some item requires: how a plan that
    /// installs them compares (see [`FacetIndex::install_choice`]).
    choices: BTreeMap<usize, Choice>,
    /// Every item's term with its atoms interned, and what is remembered about the atoms.
    compiled: Vec<judge::Compiled>,
    atoms: judge::Atoms,
    /// Which products each item's atoms see (namespaces, SPEC 10).
    views: judge::Views,
    /// Every product's value today.
    today: Vec<Value>,
    /// Per product: who names it, under which releases (`breaks::Naming`), worked out once.
    concerned: Vec<std::sync::OnceLock<breaks::Naming>>,
    /// Per item: what its declarer's own instances make true, worked out once.
    own: Vec<std::sync::OnceLock<judge::Own>>,
    /// Per product: its items by entity (`breaks::Declared`), worked out once.
    declared: Vec<std::sync::OnceLock<breaks::Declared>>,
}

/// How installing a provider compares (SPEC 9.3: `prefer` first, then the fewest added, then
/// the first product in `group:name` order).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Choice {
    /// Some requirement of a capability it provides names another product as `prefer`, and
    /// none names it.
    pub unpreferred: bool,
    /// Its place among the providers not installed of such a capability, in `group:name`
    /// order (0 for the first; the least over its capabilities).
    pub rank: usize,
}

/// True when a release declares something section 9 makes an item of.
fn declares_items(m: &Manifest) -> bool {
    m.facets
        .as_ref()
        .is_some_and(|f| !f.requires.is_empty() || !f.constraints.is_empty())
}

/// The term a capability requirement stands for.
fn requirement_term(r: &CapabilityRequirement) -> Term {
    let atom = |range: Range| Term {
        kind: TermKind::Atom(Atom::Capability {
            name: r.name.clone(),
            range,
        }),
        description: None,
        location: r.location,
    };
    if !r.optional {
        return atom(r.range.clone());
    }
    let open = Range {
        minimum: None,
        maximum: None,
    };
    Term {
        kind: TermKind::AnyOf(vec![
            Term {
                kind: TermKind::NoneOf(vec![atom(open)]),
                description: None,
                location: r.location,
            },
            atom(r.range.clone()),
        ]),
        description: None,
        location: r.location,
    }
}

/// The placements of product `p`'s installed entities (none without section 10).
fn placements<'m>(
    model: &'m Model<'_>,
    p: usize,
) -> impl Iterator<Item = &'m crate::instance::Placement> + 'm {
    let placed = model.placed.as_deref();
    model.vars[p]
        .current
        .iter()
        .filter_map(|c| c.entity)
        .filter_map(move |e| Some(placed?.placement(e)))
}

/// Whether product `q` counts in the tier of `namespace` (carrying `labels`, when asked):
/// when some installed entity of it stands there (one not installed counts where a plan
/// creates it, `home`). A product split across tiers is a member of each: whatever release
/// it moves to, those in the tier provide what the product's release provides, and kept as
/// today the tier's view judges the entities in it alone ([`FacetIndex::running_in`]).
fn tier_member(
    model: &Model<'_>,
    q: usize,
    (namespace, labels, home): (&str, Option<&BTreeMap<String, String>>, bool),
) -> bool {
    let Some(placed) = model.placed.as_deref() else {
        return home;
    };
    if placements(model, q).next().is_none() {
        return home;
    }
    entities_in(model, q, Some(namespace))
        .any(|e| labels.is_none_or(|l| placed.placement(e).carries(l)))
}

/// The homes release items of `p` are made for ([`Item::home`]): each namespace its
/// installed entities stand in, else (a product not installed, which a plan may create
/// anywhere) one item judged product-wide. A product in many namespaces gets an item per
/// namespace: as many as it has entities at most, and each is found by namespace
/// (`entities_in`, `breaks::Declared`), so they cost what its entities do.
fn homes(model: &Model<'_>, p: usize) -> Vec<Option<String>> {
    let namespaces: BTreeSet<&str> = placements(model, p).map(|e| e.namespace.as_str()).collect();
    if namespaces.is_empty() {
        return vec![None];
    }
    namespaces
        .into_iter()
        .map(|ns| Some(ns.to_owned()))
        .collect()
}

/// Who the items of release `m` of `p` speak for, one set of items each: the entities of
/// each home namespace together, or each entity there alone where their serving sets may
/// differ: a capability requirement's labels name `{entity}` (each consumer asks for its
/// own provider), or its entities there bind one of `m`'s capability requirements
/// differently (one to an entity, another to another or not at all).
fn release_declarers<'h, 'm>(
    model: &'m Model<'_>,
    p: usize,
    homes: &'h [Option<String>],
    m: &Manifest,
) -> Vec<(Option<&'m str>, Option<&'h str>)> {
    let per_entity = m
        .facets()
        .requires
        .iter()
        .any(|r| r.instance.as_ref().is_some_and(Criteria::per_entity));
    let mut out = Vec::new();
    for home in homes {
        match home.as_deref() {
            Some(ns) if per_entity || bound_apart(model, p, ns, m) => {
                out.extend(entities_in(model, p, Some(ns)).map(|e| (Some(e), Some(ns))));
            }
            home => out.push((None, home)),
        }
    }
    out
}

/// Whether `p`'s installed entities in namespace `ns` bind some capability requirement of
/// `m` to different entities (or some bind it and some not).
fn bound_apart(model: &Model<'_>, p: usize, ns: &str, m: &Manifest) -> bool {
    let Some(placed) = model.placed.as_deref() else {
        return false;
    };
    m.facets().requires.iter().any(|r| {
        let key = crate::instance::Requirement::Capability(r.name.clone());
        let mut to =
            entities_in(model, p, Some(ns)).map(|e| placed.placement(e).bindings.get(&key));
        let first = to.next();
        to.any(|b| Some(b) != first)
    })
}

/// The entities of `p` an item declared from namespace `ns` speaks for: `entity` alone when
/// it was made for one, else every installed entity of `p` there (all of them without a
/// namespace).
fn declaring<'m>(
    model: &'m Model<'_>,
    p: usize,
    ns: Option<&str>,
    entity: Option<&'m str>,
) -> Vec<&'m str> {
    match entity {
        Some(e) => vec![e],
        None => entities_in(model, p, ns).collect(),
    }
}

/// The installed entities of `p` standing in namespace `ns` (all of them without one), in
/// the environment's order. By namespace from the serving index: a product in many
/// namespaces has items per namespace, each asking for its own entities.
fn entities_in<'m>(
    model: &'m Model<'_>,
    p: usize,
    ns: Option<&str>,
) -> impl Iterator<Item = &'m str> + 'm {
    let var = &model.vars[p];
    let list: Vec<&'m str> = match (ns, model.placed.as_deref()) {
        (None, _) => var.current.iter().filter_map(|c| c.entity).collect(),
        (Some(_), None) => Vec::new(),
        (Some(ns), Some(placed)) => placed.entities_at(&var.product, ns),
    };
    list.into_iter()
}

/// `running` with each entity's placement in the environment (instances made for judging
/// one product's values carry none: a verdict is about the product wherever it is seen
/// from), for a world in which entities see what their namespace sees.
fn as_placed<'m>(model: &'m Model<'_>, running: &mut [Running<'m>]) {
    if let Some(placed) = model.placed.as_deref() {
        for r in running {
            r.placement = placed.placement(r.entity);
        }
    }
}

/// The worlds a declarer's own instances (`running`, as placed) make for its atoms' views:
/// one of them all, and one per view in `views` that sees only the entities standing in it
/// ([`judge::Views::apart`]: a tier of a serving set, a binding), of those alone, unplaced.
fn own_worlds<'m>(
    model: &'m Model<'_>,
    views: &judge::Views,
    running: &[Running<'m>],
    wanted: BTreeSet<usize>,
) -> OwnWorlds<'m> {
    let apart = wanted
        .into_iter()
        .filter(|&view| views.apart(view))
        .map(|view| {
            // unplaced: the view has decided who is seen (a placed world would ask where
            // the declaring entity stands, and it need not be among them)
            let seen: Vec<Running<'m>> = running
                .iter()
                .filter(|r| views.sees_entity(view, r.entity, r.placement))
                .map(|r| Running {
                    placement: crate::instance::Placement::none(),
                    ..*r
                })
                .collect();
            (view, World::new(seen, model.runtime))
        })
        .collect();
    OwnWorlds {
        whole: World::new(running.to_vec(), model.runtime),
        apart,
    }
}

/// See [`own_worlds`].
struct OwnWorlds<'m> {
    whole: World<'m>,
    apart: BTreeMap<usize, World<'m>>,
}

impl<'m> OwnWorlds<'m> {
    /// The world an atom judged from `view` sees.
    fn of(&self, view: usize) -> &World<'m> {
        self.apart.get(&view).unwrap_or(&self.whole)
    }
}

/// Every atom of a term, depth first.
pub fn atoms(term: &Term) -> Vec<&Atom> {
    term.atoms()
}

impl FacetIndex {
    /// The index of `model`, or `None` when no value of any product declares an item.
    #[must_use]
    pub fn build(model: &Model<'_>) -> Option<FacetIndex> {
        let any = model.vars.iter().any(|v| {
            v.releases.iter().any(|m| declares_items(m))
                || v.current
                    .iter()
                    .any(|c| c.manifest.is_some_and(declares_items))
        });
        if !any {
            return None;
        }
        let mut providers: BTreeMap<String, BTreeSet<usize>> = BTreeMap::new();
        for (q, var) in model.vars.iter().enumerate() {
            for m in var.every_manifest() {
                for p in &m.facets().provides {
                    providers.entry(p.name.clone()).or_default().insert(q);
                }
            }
        }
        let mut index = FacetIndex {
            items: Vec::new(),
            by_value: BTreeMap::new(),
            mentioned_by: vec![Vec::new(); model.vars.len()],
            mentioned_today: vec![Vec::new(); model.vars.len()],
            ruled: Vec::new(),
            ruled_by: std::sync::OnceLock::new(),
            providers: providers
                .into_iter()
                .map(|(k, v)| (k, v.into_iter().collect()))
                .collect(),
            names: model.vars.iter().map(|v| v.product.to_string()).collect(),
            choices: BTreeMap::new(),
            compiled: Vec::new(),
            atoms: judge::Atoms::default(),
            views: judge::Views::new(
                model
                    .placed
                    .as_ref()
                    .map_or_else(Vec::new, |placed| placed.standing(model)),
            ),
            today: model.current(),
            concerned: (0..model.vars.len())
                .map(|_| std::sync::OnceLock::new())
                .collect(),
            own: Vec::new(),
            declared: (0..model.vars.len())
                .map(|_| std::sync::OnceLock::new())
                .collect(),
        };
        // the items worked out on every thread, then indexed in order (the same ids)
        let drafts: Vec<Vec<Draft<'_>>> = {
            use rayon::prelude::*;
            let index = &index;
            (0..model.vars.len())
                .into_par_iter()
                .map(|p| index.drafts(model, p))
                .collect()
        };
        let count = drafts.iter().map(Vec::len).sum();
        index.items.reserve(count);
        index.compiled.reserve(count);
        for draft in drafts.into_iter().flatten() {
            index.add(model, draft);
        }
        index.own = (0..index.items.len())
            .map(|_| std::sync::OnceLock::new())
            .collect();
        // the tables first: judging what fails today asks them (`own_holds` works out the
        // items of a value together)
        for (k, item) in index.items.iter().enumerate() {
            index
                .by_value
                .entry((item.declarer, item.value))
                .or_default()
                .push(k);
            let today = item.value == index.today[item.declarer];
            for &q in &item.fixed {
                index.mentioned_by[q].push(k);
                if today {
                    index.mentioned_today[q].push((k, item.declarer));
                }
            }
            if !item.rules.is_empty() {
                index.ruled.push(k);
            }
        }
        index.choices = index.choices(model);
        index.tolerate(model);
        if let Some(carried) = model.memo.carried.get() {
            carried.learn(&index);
        }
        Some(index)
    }

    /// Marks kept entities' items that fail today: tolerated while what they name stays
    /// (judged in parallel: on the hard family with capabilities at 5,000 this was half of
    /// a build, and a build runs on one thread while the others wait for it).
    fn tolerate(&mut self, model: &Model<'_>) {
        use rayon::prelude::*;
        let today = model.current();
        let carried = model.memo.carried.get().and_then(|c| c.tolerance.get());
        let tolerated: Vec<usize> = (0..self.items.len())
            .into_par_iter()
            .filter(|&k| {
                let item = &self.items[k];
                item.value == Value::Keep
                    && carried
                        .and_then(|t| t.of(item))
                        .unwrap_or_else(|| !self.holds(model, k, &today, &[]))
            })
            .collect();
        for &k in &tolerated {
            self.items[k].tolerated = true;
        }
        let stuck: Vec<Vec<Vec<usize>>> = tolerated
            .par_iter()
            .map(|&k| self.stuck(model, k))
            .collect();
        for (k, sets) in tolerated.into_iter().zip(stuck) {
            let item = &mut self.items[k];
            let waits: BTreeSet<usize> = item
                .fixed
                .iter()
                .chain(sets.iter().flatten())
                .copied()
                .collect();
            item.waits = waits.into_iter().collect();
            item.stuck = sets;
        }
    }

    /// Which kept entities' items fail today, to carry to a model built over more of the
    /// catalog ([`Carried`]).
    fn tolerance(&self) -> Tolerance {
        let mut out = Tolerance::default();
        for item in self.items.iter().filter(|i| i.value == Value::Keep) {
            if let Some(entity) = &item.entity {
                out.0
                    .entry(entity.clone())
                    .or_default()
                    .insert(item.source, item.tolerated);
            }
        }
        out
    }

    /// [`Choice`]s of the products not installed that provide a required capability.
    fn choices(&self, model: &Model<'_>) -> BTreeMap<usize, Choice> {
        let mut required: BTreeSet<&str> = BTreeSet::new();
        let mut prefer: BTreeMap<&str, BTreeSet<usize>> = BTreeMap::new();
        for item in &self.items {
            for atom in atoms(&item.term) {
                if let Atom::Capability { name, .. } = atom {
                    required.insert(name);
                }
            }
            if let Source::Requires(k) = item.source {
                let manifest = &model.vars[item.declarer].releases[item.release];
                let r = &manifest.facets().requires[k];
                if let Some(q) = r.prefer.as_ref().and_then(|p| model.index.get(p)) {
                    prefer.entry(r.name.as_str()).or_default().insert(*q);
                }
            }
        }
        let mut out: BTreeMap<usize, Choice> = BTreeMap::new();
        let preferred: BTreeSet<usize> = prefer.values().flatten().copied().collect();
        for name in required {
            let absent = self
                .providers
                .get(name)
                .into_iter()
                .flatten()
                .filter(|&&q| !model.vars[q].installed());
            for (rank, &q) in absent.enumerate() {
                let unpreferred = prefer.contains_key(name) && !preferred.contains(&q);
                let choice = out.entry(q).or_insert(Choice { unpreferred, rank });
                choice.unpreferred &= unpreferred;
                choice.rank = choice.rank.min(rank);
            }
        }
        out
    }

    /// The products some release of which provides capability `name` (any version), in
    /// order.
    #[must_use]
    pub fn providers_of(&self, name: &str) -> &[usize] {
        self.providers.get(name).map_or(&[], Vec::as_slice)
    }

    /// How installing `p` compares, when it is a provider not installed of a required
    /// capability.
    #[must_use]
    pub fn install_choice(&self, p: usize) -> Option<Choice> {
        self.choices.get(&p).copied()
    }

    /// The items product `p` declares, worked out as far as they can be without the
    /// interned atoms and views (so on any thread): under each release its entities may move
    /// to (from each home), and under each kept entity's release.
    fn drafts<'m>(&self, model: &'m Model<'_>, p: usize) -> Vec<Draft<'m>> {
        let var = &model.vars[p];
        let homes = homes(model, p);
        let mut out = Vec::new();
        for (i, m) in var.releases.iter().enumerate() {
            if declares_items(m) {
                for (entity, home) in release_declarers(model, p, &homes, m) {
                    let at = (p, Value::Release(i), i);
                    self.draft(model, at, (entity, home), m.facets(), &mut out);
                }
            }
        }
        for c in &var.current {
            let Some(m) = c.manifest.filter(|m| declares_items(m)) else {
                continue;
            };
            let Some(i) = var
                .releases
                .iter()
                .position(|r| std::ptr::eq(r.as_ref(), m))
            else {
                continue;
            };
            self.draft(
                model,
                (p, Value::Keep, i),
                (c.entity, None),
                m.facets(),
                &mut out,
            );
        }
        out
    }

    /// The items of one declaring instance (`p` under `value`, `release`): a kept entity, or
    /// the entities of `p` (in `home`, when given) moving to a release.
    fn draft<'m>(
        &self,
        model: &'m Model<'_>,
        (p, value, release): (usize, Value, usize),
        (entity, home): (Option<&'m str>, Option<&str>),
        facets: &'m Facets,
        out: &mut Vec<Draft<'m>>,
    ) {
        let requires = facets
            .requires
            .iter()
            .enumerate()
            .map(|(k, r)| (Source::Requires(k), requirement_term(r)));
        let constraints = facets
            .constraints
            .iter()
            .enumerate()
            .map(|(k, t)| (Source::Constraint(k), t.clone()));
        for (source, term) in requires.chain(constraints) {
            let mut fixed = BTreeSet::new();
            for atom in atoms(&term) {
                match atom {
                    Atom::Product { product, .. } => fixed.extend(model.index.get(product)),
                    Atom::Capability { name, .. } => {
                        fixed.extend(self.providers.get(name).into_iter().flatten());
                    }
                    Atom::Runtime { .. } | Atom::Rule(_) => {}
                }
            }
            fixed.remove(&p);
            out.push(Draft {
                declarer: p,
                value,
                release,
                entity,
                home: home.map(str::to_owned),
                source,
                words: judge::words_of(&term),
                term,
                fixed: fixed.into_iter().collect(),
                facets,
            });
        }
    }

    /// Adds item `d`: its atoms interned, judged from the view of the namespace its
    /// declaring entities stand in (tier by tier where [`FacetIndex::tiers`] says).
    fn add(&mut self, model: &Model<'_>, d: Draft<'_>) {
        // the namespace the declaring entities stand in
        let namespace = match (d.home.as_deref(), d.entity, &model.placed) {
            (Some(home), _, _) => Some(home),
            (None, Some(e), Some(placed)) => Some(placed.placement(e).namespace.as_str()),
            _ => None,
        };
        let view = namespace.map_or(judge::Views::ALL, |ns| self.views.of(ns));
        let tiers = match (d.source, namespace) {
            (Source::Requires(k), Some(ns)) => {
                self.tiers(model, d.declarer, (ns, d.entity), &d.facets.requires[k])
            }
            _ => None,
        };
        let compiled = match (&tiers, d.source) {
            (Some(tiers), Source::Requires(k)) => self.compile_tiers(tiers, &d.facets.requires[k]),
            _ => self
                .atoms
                .compile_words(&d.term, view, &mut d.words.into_iter()),
        };
        let mut ids = Vec::new();
        judge::atom_ids(&compiled, &mut ids);
        let mut rules: Vec<usize> = ids
            .into_iter()
            .filter(|&id| matches!(self.atoms.interned[id], Atom::Rule(_)))
            .collect();
        self.compiled.push(compiled);
        rules.sort_unstable();
        rules.dedup();
        self.items.push(Item {
            declarer: d.declarer,
            value: d.value,
            release: d.release,
            entity: d.entity.map(str::to_owned),
            home: d.home,
            source: d.source,
            term: d.term,
            fixed: d.fixed,
            rules,
            tolerated: false,
            stuck: Vec::new(),
            waits: Vec::new(),
            mentions: std::sync::OnceLock::new(),
            view,
            tiers,
        });
    }

    /// The [`Tiers`] of requirement `r` of product `p` declared from namespace `ns` (by
    /// `entity`, or by every entity of `p` there), when its serving set is tiered there;
    /// `None` when every provider it sees serves alike (judged from the namespace's view),
    /// or when bindings that differ or an `{entity}` label for several entities decide
    /// (judged so too, and `placed::Doubts` marks it). `p`'s own entities are providers
    /// like any other's where some release of `p` provides the capability: a tier's atoms
    /// count those standing in it (`own_worlds`).
    fn tiers(
        &mut self,
        model: &Model<'_>,
        p: usize,
        (ns, entity): (&str, Option<&str>),
        r: &crate::manifest::CapabilityRequirement,
    ) -> Option<Tiers> {
        let placed = model.placed.as_deref()?;
        let criteria = r.instance.as_ref();
        let key = crate::instance::Requirement::Capability(r.name.clone());
        // a binding serves only the entity that makes it (the others of `p` have their own
        // items when they bind otherwise: `release_declarers`)
        let declaring = declaring(model, p, Some(ns), entity);
        if declaring
            .iter()
            .any(|&e| placed.placement(e).bindings.contains_key(&key))
        {
            return self.bound_tier(model, (ns, &declaring), &key);
        }
        let labels = match criteria {
            Some(c) if !c.labels.is_empty() => match entity {
                Some(e) => Some(c.labels_for(e, ns)),
                None if !c.per_entity() => Some(c.labels_for("", ns)),
                None => return None,
            },
            _ => None,
        };
        let match_namespace = criteria.is_some_and(|c| c.match_namespace);
        let providers = self.providers.get(&r.name)?;
        if labels.is_none() {
            // without labels, tiers matter only where providers stand on both sides
            let standing = |q: usize| self.views.standing(q);
            let global = providers.iter().any(|&q| standing(q).contains(""));
            let beside = providers
                .iter()
                .any(|&q| standing(q).is_empty() || standing(q).contains(ns));
            if ns.is_empty() || !global || !(beside || match_namespace) {
                return None;
            }
        }
        let views = crate::serving::tiers(ns, labels.is_some(), criteria)
            .into_iter()
            .map(|(_, namespace, with_labels)| {
                let labels = labels.clone().filter(|_| with_labels);
                // a product not installed counts where a plan creates it: beside the consumer
                let home = namespace == ns;
                let members = || {
                    let fits = |q| tier_member(model, q, (namespace, labels.as_ref(), home));
                    Some((0..model.vars.len()).map(fits).collect())
                };
                let sight = judge::Sight::Tier {
                    namespace: namespace.to_owned(),
                    labels: labels.clone(),
                    home,
                };
                self.views.sight(sight, members)
            })
            .collect();
        Some(Tiers {
            namespace: ns.to_owned(),
            views,
        })
    }

    /// The serving set of capability requirement `key` of the `declaring` entities of `p` in
    /// `ns` when each of them binds it to the same installed entity `b` (SPEC
    /// 10's tier 1): one view that sees `b`'s product. An installed entity stays (a plan
    /// removes none), so the requirement holds exactly when `b`'s release provides the
    /// capability in range, optional or not: a release of `b` that does not provide it at
    /// all makes the binding an `invalid-binding` error, one that provides it out of range
    /// fails the requirement. The view sees `b` alone: kept, it runs its own release
    /// whatever the others of its product run; moved, they all run the product's new one.
    /// `b` may be an entity of `p` itself: kept, it runs its own release; moved, the one
    /// `p` moves to, which requires the capability and so provides none of it (SPEC 9.1).
    fn bound_tier(
        &mut self,
        model: &Model<'_>,
        (ns, declaring): (&str, &[&str]),
        key: &crate::instance::Requirement,
    ) -> Option<Tiers> {
        let placed = model.placed.as_deref()?;
        let mut to = declaring
            .iter()
            .map(|&e| placed.placement(e).bindings.get(key));
        let b = to.next()??;
        if !to.all(|other| other == Some(b)) {
            return None;
        }
        let member = placed.member(b)?;
        let q = *model.index.get(member.product)?;
        if !member.present {
            return None;
        }
        let sight = judge::Sight::Bound {
            entity: b.to_owned(),
        };
        let view = self.views.sight(sight, || {
            Some((0..model.vars.len()).map(|x| x == q).collect())
        });
        Some(Tiers {
            namespace: ns.to_owned(),
            views: vec![view],
        })
    }

    /// Requirement `r` judged by `tiers`: some provider of a tier in range, every tier before
    /// it without any provider; when optional, also no provider in any tier.
    fn compile_tiers(
        &mut self,
        tiers: &Tiers,
        r: &crate::manifest::CapabilityRequirement,
    ) -> judge::Compiled {
        use judge::Compiled::{AllOf, AnyOf, NoneOf};
        let open = Range {
            minimum: None,
            maximum: None,
        };
        let mut atom = |range: &Range, view: usize| {
            let term = Term {
                kind: TermKind::Atom(Atom::Capability {
                    name: r.name.clone(),
                    range: range.clone(),
                }),
                description: None,
                location: r.location,
            };
            self.atoms.compile(&term, view)
        };
        if let Some(judge::Sight::Bound { .. }) = self.views.sight_of(tiers.views[0]) {
            if r.optional {
                // every atom of the item's term has an id (`atom_id`), the open one too
                atom(&open, tiers.views[0]);
            }
            return atom(&r.range, tiers.views[0]);
        }
        let mut ways = Vec::new();
        let mut before: Vec<judge::Compiled> = Vec::new();
        for &view in &tiers.views {
            let here = atom(&r.range, view);
            ways.push(if before.is_empty() {
                here
            } else {
                AllOf(vec![NoneOf(before.clone()), here])
            });
            before.push(atom(&open, view));
        }
        if r.optional {
            ways.push(NoneOf(before));
        }
        match ways.len() {
            1 => ways.remove(0),
            _ => AnyOf(ways),
        }
    }

    /// Whether item `k`'s tiers ask for labels and some product it names is not installed (an
    /// entity a plan creates carries its own consumer's labels).
    #[must_use]
    pub fn labels_asked_of_uninstalled(&self, model: &Model<'_>, k: usize) -> bool {
        let Some(tiers) = &self.items[k].tiers else {
            return false;
        };
        let labelled = tiers.views.iter().any(|&view| {
            matches!(
                self.views.sight_of(view),
                Some(judge::Sight::Tier {
                    labels: Some(_),
                    ..
                })
            )
        });
        labelled
            && self
                .mentions(model, k)
                .iter()
                .any(|&q| placements(model, q).next().is_none())
    }

    /// The entities item `k` speaks for: its entity, else those of its declaring product in
    /// its home namespace (all of them without one).
    #[must_use]
    pub fn declaring_entities<'m>(&'m self, model: &'m Model<'_>, k: usize) -> Vec<&'m str> {
        let item = &self.items[k];
        declaring(
            model,
            item.declarer,
            item.home.as_deref(),
            item.entity.as_deref(),
        )
    }

    /// The installed entity item `k`'s requirement is bound to, when it is judged over that
    /// entity alone ([`FacetIndex::bound_tier`]).
    #[must_use]
    pub fn bound_to(&self, k: usize) -> Option<&str> {
        let tiers = self.items[k].tiers.as_ref()?;
        match self.views.sight_of(tiers.views[0])? {
            judge::Sight::Bound { entity } => Some(entity),
            _ => None,
        }
    }

    /// The view item `k`'s atoms are judged from (every atom of an item has the same).
    fn item_view(&self, k: usize) -> usize {
        self.items[k].view
    }

    /// Whether item `k`'s atoms see product `q` from its declaring entities' namespace;
    /// `None` when the item is judged product-wide ([`judge::Views`]).
    #[must_use]
    pub fn item_sees(&self, k: usize, q: usize) -> Option<bool> {
        let view = self.item_view(k);
        (view != judge::Views::ALL).then(|| self.views.sees(view, q))
    }

    /// Kept entities' items that fail today ([`Item::tolerated`]).
    pub fn tolerated(&self) -> impl Iterator<Item = usize> + '_ {
        (0..self.items.len()).filter(|&k| self.items[k].tolerated)
    }

    /// The products whose value in `state` is not today's, in order.
    #[must_use]
    pub fn moved(&self, state: &[Value]) -> Vec<usize> {
        (0..state.len())
            .filter(|&q| state[q] != self.today[q])
            .collect()
    }

    /// [`FacetIndex::moved`] for a `state` that is today's outside `among`: only those are
    /// compared (a search's answer is its baseline outside the products it encoded, and a
    /// scan of every product after each answer was about 1% of `upgrades` on the hard family
    /// with capabilities at 5,000).
    #[must_use]
    pub fn moved_among(&self, state: &[Value], among: &[usize]) -> Vec<usize> {
        let mut moved: Vec<usize> = among
            .iter()
            .copied()
            .filter(|&q| state[q] != self.today[q])
            .collect();
        moved.sort_unstable();
        moved
    }

    /// Whether tolerated item `k` is left failing as it does today in `state` (which differs
    /// from today in `moved`, sorted): its declarer keeps, and a part that fails today fails still,
    /// since no product that part names moved ([`FacetIndex::stuck`]). A move that cannot
    /// change the item's truth is no concern of it (SPEC 9.3: the constraints "whose truth
    /// can change with it").
    #[must_use]
    pub fn as_today(&self, k: usize, state: &[Value], moved: &[usize]) -> bool {
        let item = &self.items[k];
        state[item.declarer] == Value::Keep
            && item
                .stuck
                .iter()
                .any(|set| set.iter().all(|q| moved.binary_search(q).is_err()))
    }

    /// [`Item::stuck`] of tolerated item `k`.
    #[must_use]
    pub fn stuck_sets(&self, k: usize) -> &[Vec<usize>] {
        &self.items[k].stuck
    }

    /// Whether item `k` is acceptable in `state` (its declarer at the item's value; `state`
    /// differs from today in `moved`): it holds, or it is tolerated and left as it is today.
    #[must_use]
    pub(crate) fn acceptable(
        &self,
        model: &Model<'_>,
        k: usize,
        state: &[Value],
        moved: (&[usize], &Others),
    ) -> bool {
        (self.items[k].tolerated && self.as_today(k, state, moved.0))
            || self.holds_in(model, k, state, moved)
    }

    /// Who serves requirement `r` of `p`'s release `release`, in words, when its items are
    /// judged over a serving set narrower than everything the declarer sees: ` (bound to
    /// infra-cache)`, ` (served by the first of: namespace s, the global namespace)`; per
    /// entity where its entities are served apart (` (web-a: bound to infra-cache; web-b:
    /// any provider it sees)`); empty otherwise. An explanation's chain says it after the requirement.
    #[must_use]
    pub fn serving_words(&self, p: usize, release: usize, r: usize) -> String {
        let items = self
            .items_of(p, Value::Release(release))
            .iter()
            .chain(self.items_of(p, Value::Keep))
            .map(|&k| &self.items[k])
            .filter(|item| item.release == release && item.source == Source::Requires(r));
        // what is said -> the entities it is said for
        let mut said: BTreeMap<String, BTreeSet<&str>> = BTreeMap::new();
        for item in items {
            let words = item.tiers.as_ref().map(|tiers| self.tiers_words(tiers));
            let entities = said.entry(words.unwrap_or_default()).or_default();
            entities.extend(item.entity.as_deref());
        }
        let parts: Vec<String> = if said.len() == 1 {
            said.into_keys().filter(|w| !w.is_empty()).collect()
        } else {
            // in the order of the entities
            let mut apart: Vec<(Vec<&str>, String)> = said
                .into_iter()
                .filter(|(_, entities)| !entities.is_empty())
                .map(|(words, entities)| (entities.into_iter().collect(), words))
                .collect();
            apart.sort();
            apart
                .into_iter()
                .map(|(entities, words)| {
                    let words = if words.is_empty() {
                        "any provider it sees"
                    } else {
                        &words
                    };
                    format!("{}: {words}", entities.join(", "))
                })
                .collect()
        };
        if parts.is_empty() {
            return String::new();
        }
        format!(" ({})", parts.join("; "))
    }

    /// Who a tiered serving set draws from: `bound to infra-cache`, `served by the first of:
    /// namespace s, the global namespace`.
    fn tiers_words(&self, tiers: &Tiers) -> String {
        let sights = tiers.views.iter().filter_map(|&v| self.views.sight_of(v));
        let mut parts: Vec<String> = Vec::new();
        for sight in sights {
            match sight {
                judge::Sight::Bound { entity } => return format!("bound to {entity}"),
                judge::Sight::Tier {
                    namespace, labels, ..
                } => {
                    let place = if namespace.is_empty() {
                        "the global namespace".to_owned()
                    } else {
                        format!("namespace {namespace}")
                    };
                    let labelled = labels.as_ref().map_or_else(String::new, |l| {
                        let pairs: Vec<String> =
                            l.iter().map(|(k, v)| format!("{k}={v}")).collect();
                        format!(" labelled {}", pairs.join(","))
                    });
                    parts.push(format!("{place}{labelled}"));
                }
                judge::Sight::From(_) => {}
            }
        }
        format!("served by the first of: {}", parts.join(", "))
    }

    /// The items `p` declares under `value`.
    #[must_use]
    pub fn items_of(&self, p: usize, value: Value) -> &[usize] {
        self.by_value.get(&(p, value)).map_or(&[], Vec::as_slice)
    }

    /// The items whose truth a move of `q` may change, declared by other products: those
    /// whose product or capability atoms name it, and those with a rule some value of `q`
    /// makes true (no other move of `q` changes a verdict of its). An item may come twice.
    pub fn affected_by<'s>(
        &'s self,
        model: &Model<'_>,
        q: usize,
    ) -> impl Iterator<Item = usize> + 's {
        let ruled_by = self.ruled_by(model);
        let ruled = ruled_by.rules[q]
            .iter()
            .flat_map(move |rule| &ruled_by.items[rule])
            .copied()
            .filter(move |&k| self.items[k].declarer != q);
        self.mentioned_by[q].iter().copied().chain(ruled)
    }

    /// [`FacetIndex::affected_by`], only the items declared under their declarer's value
    /// today, each with its declarer: what a move of `q` may change in a state where the
    /// declarers of the others are as today. A product's releases each declare their own
    /// items, so this is about one item in forty of a product read whole; a search's every
    /// answer asks it of every product it moves (on the hard family with capabilities at
    /// 5,000, `upgrades` looked at about 98 million items through
    /// [`FacetIndex::affected_by`] to keep about 2 million), and the declarer comes with the
    /// item so that the caller need not read the item to filter it.
    pub fn affected_today<'s>(
        &'s self,
        model: &Model<'_>,
        q: usize,
    ) -> impl Iterator<Item = (usize, usize)> + 's {
        let ruled_by = self.ruled_by(model);
        let ruled = ruled_by.rules[q]
            .iter()
            .filter_map(move |rule| ruled_by.items_today.get(rule))
            .flatten()
            .copied()
            .filter(move |&(_, declarer)| declarer != q);
        self.mentioned_today[q].iter().copied().chain(ruled)
    }

    /// Whether every product of `state` is at its value today.
    #[must_use]
    pub fn is_today(&self, state: &[Value]) -> bool {
        state == self.today.as_slice()
    }

    /// Which items each product's moves may change through their rules, worked out on
    /// first use.
    fn ruled_by(&self, model: &Model<'_>) -> &RuledBy {
        self.ruled_by.get_or_init(|| {
            let mut by = RuledBy {
                rules: vec![Vec::new(); model.vars.len()],
                items: BTreeMap::new(),
                items_today: BTreeMap::new(),
            };
            for &k in &self.ruled {
                let item = &self.items[k];
                let today = item.value == self.today[item.declarer];
                for &rule in &item.rules {
                    by.items.entry(rule).or_default().push(k);
                    if today {
                        by.items_today
                            .entry(rule)
                            .or_default()
                            .push((k, item.declarer));
                    }
                }
            }
            for &rule in by.items.keys() {
                for &p in self.support(model, rule) {
                    by.rules[p].push(rule);
                }
            }
            by
        })
    }

    /// How many declaring instances item `k` must hold for, each judged apart
    /// ([`FacetIndex::declarer_name`]): a kept entity's item has one; an item of a release the
    /// product moves to holds for every installed entity of the product (they all move, and
    /// none counts for itself, so with two or more each sees the others). Entities running one
    /// release differ only by name, which only a rule can see (`entity`), so an item without a
    /// rule is judged for the first of them alone.
    #[must_use]
    pub fn perspectives(&self, model: &Model<'_>, k: usize) -> usize {
        let item = &self.items[k];
        if item.entity.is_some() || item.rules.is_empty() {
            1
        } else {
            self.speaks_for(model, k).count().max(1)
        }
    }

    /// The installed entities of item `k`'s declaring product that a release item speaks
    /// for: those in its home namespace, or all of them.
    fn speaks_for<'m>(
        &'m self,
        model: &'m Model<'_>,
        k: usize,
    ) -> impl Iterator<Item = &'m str> + 'm {
        let item = &self.items[k];
        entities_in(model, item.declarer, item.home.as_deref())
    }

    /// The name item `k`'s declaring instance runs under, for perspective `j` (below
    /// [`FacetIndex::perspectives`]): its entity, or for a release the product moves to, the
    /// `j`-th installed entity (the product's name when none is installed).
    #[must_use]
    pub fn declarer_name<'m>(&'m self, model: &'m Model<'_>, k: usize, j: usize) -> &'m str {
        let item = &self.items[k];
        item.entity.as_deref().unwrap_or_else(|| {
            self.speaks_for(model, k)
                .nth(j)
                .unwrap_or(&self.names[item.declarer])
        })
    }

    /// Every product (other than the declarer) whose value can change item `k`'s truth.
    #[must_use]
    pub fn mentions(&self, model: &Model<'_>, k: usize) -> &[usize] {
        let item = &self.items[k];
        if item.rules.is_empty() {
            return &item.fixed;
        }
        item.mentions.get_or_init(|| {
            let mut out: BTreeSet<usize> = item.fixed.iter().copied().collect();
            for &rule in &item.rules {
                out.extend(self.support(model, rule).iter());
            }
            out.remove(&item.declarer);
            out.into_iter().collect()
        })
    }

    /// The products item `k` waits for before the engine encodes it (`solve::sat::facets`):
    /// those its product and capability atoms name, and for a tolerated item those of its
    /// stuck sets too (whether it is left as today is read from them). A rule atom may be
    /// made true by most products of a catalog: its item is encoded without waiting for
    /// them, and they are encoded as answers need them.
    #[must_use]
    pub fn waits_for(&self, k: usize) -> &[usize] {
        let item = &self.items[k];
        if item.tolerated {
            &item.waits
        } else {
            &item.fixed
        }
    }

    /// The products an atom can be made true by (any of their values), the declarer's
    /// included.
    #[must_use]
    pub fn atom_mentions(&self, model: &Model<'_>, atom: &Atom) -> Vec<usize> {
        self.made_true_by_any(model, atom, || self.atom_id(atom))
            .into_owned()
    }

    /// [`FacetIndex::atom_mentions`] by atom id, borrowed where the index holds the list.
    pub(crate) fn atom_candidates(&self, model: &Model<'_>, id: usize) -> Cow<'_, [usize]> {
        self.made_true_by_any(model, self.atom(id), || id)
    }

    /// [`FacetIndex::atom_mentions`] of `atom`, whose id `id` gives (asked for a rule only:
    /// its support).
    pub(super) fn made_true_by_any(
        &self,
        model: &Model<'_>,
        atom: &Atom,
        id: impl FnOnce() -> usize,
    ) -> Cow<'_, [usize]> {
        match atom {
            Atom::Product { .. } => Cow::Owned(self.product_of(model, id()).into_iter().collect()),
            Atom::Capability { .. } | Atom::Rule(_) => Cow::Borrowed(self.existential(model, id())),
            Atom::Runtime { .. } => Cow::Owned(Vec::new()),
        }
    }

    /// The running instances of `q` under `value`, as section 9's atoms see them.
    pub fn running<'m>(&'m self, model: &'m Model<'_>, q: usize, value: Value) -> Vec<Running<'m>> {
        let var = &model.vars[q];
        if let Value::Release(i) = value {
            // every installed entity moves there, each under its own name
            let manifest: &Manifest = &var.releases[i];
            if !var.current.is_empty() {
                return var
                    .current
                    .iter()
                    .map(|c| Running {
                        entity: c.entity.unwrap_or(&self.names[q]),
                        product: &var.product,
                        version: &manifest.version,
                        facets: manifest.facets(),
                        placement: crate::instance::Placement::none(),
                    })
                    .collect();
            }
        }
        var.instances(value)
            .into_iter()
            .map(|inst| Running {
                entity: inst.entity.unwrap_or(&self.names[q]),
                product: &var.product,
                version: inst.version,
                facets: inst.manifest.map_or(Facets::none(), Manifest::facets),
                placement: crate::instance::Placement::none(),
            })
            .collect()
    }

    /// The world item `k` is judged in when every product `q` runs `state[q]`: its declarer's
    /// instances and those of every product it mentions.
    pub fn world<'m>(&'m self, model: &'m Model<'_>, k: usize, state: &[Value]) -> World<'m> {
        let item = &self.items[k];
        let view = self.serving_view(model, k, state);
        let mut running = self.running(model, item.declarer, item.value);
        for &q in self.mentions(model, k) {
            if self.views.sees(view, q) {
                running.extend(self.running_in(model, view, q, state[q]));
            }
        }
        World::new(running, model.runtime)
    }

    /// [`FacetIndex::running`] as view `view` sees it: kept as today, a product seen in part
    /// ([`judge::Views::narrows`]: a namespace's view, a tier, a binding) counts only the
    /// entities seen, which may run other releases than the rest (moved, they all run one).
    pub(super) fn running_in<'m>(
        &'m self,
        model: &'m Model<'_>,
        view: usize,
        q: usize,
        value: Value,
    ) -> Vec<Running<'m>> {
        let mut running = self.running(model, q, value);
        if value == Value::Keep && judge::Views::narrows(view) {
            // the few the view can see, asked of the serving index first: looking each
            // entity's placement up is what costs in a product of many entities
            let seen = self.seen_in(model, view, q);
            running.retain(|run| {
                seen.as_ref()
                    .is_none_or(|names| names.binary_search(&run.entity).is_ok())
                    && self.sees_entity(model, view, run.entity)
            });
        }
        running
    }

    /// Whether view `view` sees installed entity `entity` (every entity without placements).
    pub(super) fn sees_entity(&self, model: &Model<'_>, view: usize, entity: &str) -> bool {
        model.placed.as_deref().is_none_or(|placed| {
            self.views
                .sees_entity(view, entity, placed.placement(entity))
        })
    }

    /// The view item `k`'s [`FacetIndex::world`] sees under `state`: its declaring
    /// entities', or for a tiered requirement the tier that serves it (the first where some
    /// product provides the capability at all).
    fn serving_view(&self, model: &Model<'_>, k: usize, state: &[Value]) -> usize {
        let item = &self.items[k];
        let (Some(tiers), Source::Requires(r)) = (&item.tiers, item.source) else {
            return item.view;
        };
        let name = &model.vars[item.declarer].releases[item.release]
            .facets()
            .requires[r]
            .name;
        let provides = |view: usize| {
            self.mentions(model, k).iter().any(|&q| {
                self.views.sees(view, q)
                    && self
                        .running_in(model, view, q, state[q])
                        .iter()
                        .any(|run| run.facets.provides(name))
            })
        };
        tiers
            .views
            .iter()
            .copied()
            .find(|&view| provides(view))
            .unwrap_or(tiers.views[0])
    }

    /// Whether item `k` holds when every product `q` runs `state[q]` (its declarer at the
    /// item's value), `state` differing from today exactly in `moved` (sorted, no repeats):
    /// judged by what moved (module `judge`).
    #[must_use]
    pub fn holds(&self, model: &Model<'_>, k: usize, state: &[Value], moved: &[usize]) -> bool {
        self.holds_in(model, k, state, (moved, &Others::default()))
    }

    /// Whether `atom` of item `k` holds by its declarer's own instances alone, for
    /// perspective `j` (the other entities of the declaring product count, the declaring
    /// one does not).
    #[must_use]
    pub fn atom_by_declarer(&self, model: &Model<'_>, k: usize, j: usize, id: usize) -> bool {
        let item = &self.items[k];
        let mut running = self.running(model, item.declarer, item.value);
        // the declaring entity sees those of its product in its namespace or the global one
        as_placed(model, &mut running);
        let view = self.atoms.view[id];
        let worlds = own_worlds(
            model,
            &self.views,
            &running,
            std::iter::once(view).collect(),
        );
        worlds
            .of(view)
            .atom_holds(self.declarer_name(model, k, j), &self.atoms.interned[id])
    }

    /// The items that fail when every product runs `state[q]`, `state` being today with `p`
    /// moved, among the items declared by `p` under `state[p]` and the items of others that a
    /// move of `p` may change: what moving `p` alone there breaks.
    #[must_use]
    pub fn broken_around(&self, model: &Model<'_>, p: usize, state: &[Value]) -> Vec<usize> {
        let moved: Vec<usize> = if state[p] == self.today[p] {
            Vec::new()
        } else {
            vec![p]
        };
        let mut candidates: BTreeSet<usize> = self.items_of(p, state[p]).iter().copied().collect();
        // the others are as today: only their items declared under today's values count
        candidates.extend(
            self.affected_today(model, p)
                .filter(|&(_, d)| state[d] == self.today[d])
                .map(|(k, _)| k),
        );
        let others = Others::default();
        candidates
            .into_iter()
            .filter(|&k| !self.acceptable(model, k, state, (&moved, &others)))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::catalog::Catalog;
    use crate::generate::{Params, Rng, Shape, generate};
    use crate::solve::model::Policy;
    use crate::{environment, manifest};

    /// Every release a candidate: prereleases, downgrades and installs allowed.
    const WIDE: Policy = Policy {
        pre: true,
        allow_downgrade: true,
        allow_install: true,
    };

    /// A catalog and environment of the capability family (8 releases per product).
    fn capability_family(products: usize, seed: u64) -> (Catalog, environment::Environment) {
        let g = generate(Params {
            products,
            releases: 8,
            seed,
            shape: Shape::Capabilities,
        });
        let manifests = g
            .manifests
            .iter()
            .flat_map(|(path, text)| manifest::parse(text, &Arc::from(path.as_str())).unwrap());
        let catalog = Catalog::from_manifests(manifests).unwrap();
        let env = environment::parse(&g.environment, &Arc::from("e.yml"), "e").unwrap();
        (catalog, env)
    }

    /// `whole` as a database catalog is read for `upgrades`: each installed product from its
    /// installed release up.
    fn read_in_part(whole: &Catalog, env: &environment::Environment) -> Catalog {
        let installed: BTreeMap<&crate::product::ProductId, &crate::version::Version> = env
            .entities
            .iter()
            .map(|e| (&e.product, &e.version))
            .collect();
        Catalog::from_manifests(whole.products().flat_map(|p| {
            whole
                .releases(p)
                .iter()
                .filter(|m| installed.get(p).is_none_or(|v| m.version >= **v))
                .map(|m| Manifest::clone(m))
                .collect::<Vec<_>>()
        }))
        .unwrap()
    }

    /// Which products make each rule true, carried from a model over part of the catalog to
    /// one over all of it (an explanation round reads older releases whole), is what the
    /// wider model finds judging every product again; and older releases make some rule true
    /// for products whose newer ones do not, so the carried answers cannot simply stand.
    #[test]
    fn rule_support_carried_to_a_wider_catalog_is_what_it_would_judge() {
        let (whole, env) = capability_family(80, 4);
        let part = read_in_part(&whole, &env);
        let carried = Arc::new(Carried::default());
        let first = Model::build(&env, &part, Policy::default(), &[]);
        first.carry(Arc::clone(&carried));
        let narrow = first.facets().unwrap().rule_supports(&first);
        let wider = Model::build(&env, &whole, Policy::default(), &[]);
        wider.carry(carried);
        let fresh = Model::build(&env, &whole, Policy::default(), &[]);
        let judged = fresh.facets().unwrap().rule_supports(&fresh);
        assert!(judged.values().any(|products| !products.is_empty()));
        // worked out in parallel beforehand (as explanation rounds do) or when first asked
        wider.facets().unwrap().prepare_rules(&wider);
        assert_eq!(wider.facets().unwrap().rule_supports(&wider), judged);
        let prepared = Model::build(&env, &whole, Policy::default(), &[]);
        prepared.facets().unwrap().prepare_rules(&prepared);
        assert_eq!(prepared.facets().unwrap().rule_supports(&prepared), judged);
        assert_ne!(
            narrow, judged,
            "older releases make some rule true for more products"
        );
    }

    /// A rule is judged once for releases of a product that it cannot tell apart (equal
    /// properties, and it does not read `version`), but a rule that reads `version` tells
    /// every release apart: each product is in a rule's support exactly when judging every
    /// one of its values finds one the rule holds for.
    #[test]
    fn rule_support_judges_releases_a_rule_tells_apart() {
        let release = |version: &str, tier: &str| {
            format!(
                "manifest-version: '1.0'\nproduct-group: g\nproduct-name: a\n\
                 product-version: {version}\nextensions:\n  properties:\n    tier: {tier}\n"
            )
        };
        let ruling = "manifest-version: '1.0'\nproduct-group: g\nproduct-name: b\n\
            product-version: 1.0.0\nextensions:\n  constraints:\n\
            \x20   - rule: 'version == \"1.2.0\"'\n\
            \x20   - rule: 'properties.tier == \"gold\"'\n\
            \x20   - rule: 'properties.tier == \"silver\"'\n";
        let texts = [
            release("1.0.0", "bronze"),
            release("1.1.0", "bronze"),
            release("1.2.0", "bronze"),
            release("1.3.0", "gold"),
            ruling.to_owned(),
        ];
        let manifests = texts
            .iter()
            .flat_map(|t| manifest::parse(t, &Arc::from("c.yml")).unwrap());
        let catalog = Catalog::from_manifests(manifests).unwrap();
        let env = environment::parse(
            "entities:\n  - product: g:a\n    version: 1.0.0\n  - product: g:b\n    version: 1.0.0\n",
            &Arc::from("e.yml"),
            "e",
        )
        .unwrap();
        let model = Model::build(&env, &catalog, WIDE, &[]);
        let index = model.facets().unwrap();
        let supports = index.rule_supports(&model);
        for (id, atom) in index.atoms.interned.iter().enumerate() {
            // (no namespaces here: every atom is judged in the one view)
            if !matches!(atom, Atom::Rule(_)) {
                continue;
            }
            for (q, var) in model.vars.iter().enumerate() {
                let every = std::iter::once(var.domain[0])
                    .chain((0..var.releases.len()).map(Value::Release))
                    .any(|v| index.verdict(&model, id, q, v));
                let listed = supports[&crate::constraint::atom_text(atom)]
                    .contains(&var.product.to_string());
                assert_eq!(listed, every, "{atom:?} on {}", var.product);
            }
        }
        let of = |rule: &str| supports[&format!("rule `{rule}`")].clone();
        assert_eq!(of(r#"version == "1.2.0""#), ["g:a"]);
        assert_eq!(of(r#"properties.tier == "gold""#), ["g:a"]);
        assert!(of(r#"properties.tier == "silver""#).is_empty());
    }

    /// A model built over more of the catalog (an explanation round reads older releases
    /// whole) that takes which kept items fail today from one built over less finds the same
    /// as one that judges them all again: on the capability family with a third of the
    /// entities moved back to their product's oldest release, so some kept items fail today.
    #[test]
    fn tolerance_carried_to_a_wider_catalog_is_what_it_would_judge() {
        let (whole, mut env) = capability_family(80, 4);
        let oldest = |e: &environment::Entity| {
            whole
                .releases(&e.product)
                .first()
                .map(|m| m.version.clone())
        };
        for e in env.entities.iter_mut().step_by(3) {
            if let Some(v) = oldest(e) {
                e.version = v;
            }
        }
        let part = read_in_part(&whole, &env);
        let failing = |model: &Model<'_>| -> Vec<(Option<String>, Source)> {
            let index = model.facets().unwrap();
            index
                .tolerated()
                .map(|k| (index.items[k].entity.clone(), index.items[k].source))
                .collect()
        };
        let first = Model::build(&env, &part, Policy::default(), &[]);
        let carried = Arc::new(Carried::default());
        first.carry(Arc::clone(&carried));
        let _ = first.facets(); // judges the kept items, leaving their verdicts to carry
        let wider = Model::build(&env, &whole, Policy::default(), &[]);
        wider.carry(carried);
        let fresh = Model::build(&env, &whole, Policy::default(), &[]);
        assert!(!failing(&fresh).is_empty(), "some kept item fails today");
        assert_eq!(failing(&wider), failing(&fresh));
        assert_eq!(failing(&first), failing(&fresh));
    }

    /// Judging by what moved (module `judge`) says what one `World` of the declarer and every
    /// product the item names says, on states of the capability family (product,
    /// capability, runtime and rule atoms, nested compounds) with a few products moved.
    #[test]
    fn judging_by_what_moved_agrees_with_the_whole_world() {
        let (catalog, env) = capability_family(80, 3);
        let policy = WIDE;
        let model = Model::build(&env, &catalog, policy, &[]);
        let index = model
            .facets()
            .expect("the capability family declares items");
        let mut rng = Rng(11);
        let (mut judged, mut failing) = (0, 0);
        for _ in 0..200 {
            let mut state = model.current();
            for _ in 0..=rng.below(4) {
                let q = rng.below(model.vars.len());
                let domain = &model.vars[q].domain;
                state[q] = domain[rng.below(domain.len())];
            }
            let moved = index.moved(&state);
            for k in 0..index.items.len() {
                let item = &index.items[k];
                if state[item.declarer] != item.value {
                    continue;
                }
                let world = index.world(&model, k, &state);
                let whole = (0..index.perspectives(&model, k))
                    .all(|j| world.term_holds(index.declarer_name(&model, k, j), &item.term));
                assert_eq!(
                    index.holds(&model, k, &state, &moved),
                    whole,
                    "item {k} {state:?}"
                );
                judged += 1;
                failing += usize::from(!whole);
            }
        }
        assert!(
            judged > 1000 && failing > 10,
            "{judged} judged, {failing} failing"
        );
    }

    /// `moved_among` over any superset of the products a state moves (in any order) is
    /// `moved` of that state; over a set missing one, it misses that one.
    #[test]
    fn moved_among_the_encoded_is_moved() {
        let (catalog, env) = capability_family(80, 3);
        let model = Model::build(&env, &catalog, WIDE, &[]);
        let index = model.facets().expect("items");
        let mut rng = Rng(5);
        let mut compared = 0;
        for _ in 0..200 {
            let state = some_state(&model, &mut rng);
            let moved = index.moved(&state);
            // the moved products and a few others, newest first, as an encoding order may be
            let mut among: Vec<usize> = moved
                .iter()
                .copied()
                .chain((0..3).map(|_| rng.below(model.vars.len())))
                .collect::<std::collections::BTreeSet<usize>>()
                .into_iter()
                .collect();
            among.sort_by_key(|&q| std::cmp::Reverse(q % 7));
            assert_eq!(index.moved_among(&state, &among), moved);
            if let Some(&gone) = moved.first() {
                among.retain(|&q| q != gone);
                assert!(!index.moved_among(&state, &among).contains(&gone));
                compared += 1;
            }
        }
        assert!(compared > 100, "{compared} states moved something");
    }

    /// A random state of `model` with up to four products moved from today.
    fn some_state(model: &Model<'_>, rng: &mut Rng) -> Vec<Value> {
        let mut state = model.current();
        for _ in 0..=rng.below(4) {
            let q = rng.below(model.vars.len());
            let domain = &model.vars[q].domain;
            state[q] = domain[rng.below(domain.len())];
        }
        state
    }

    /// What one move breaks, judged only where the move can change a verdict
    /// (`added_by_move`), is what judging every item of every concerned product before and
    /// after finds (`failing_at`), on the capability family.
    #[test]
    fn a_move_breaks_what_judging_every_concerned_item_finds() {
        let (catalog, env) = capability_family(80, 7);
        let policy = WIDE;
        let model = Model::build(&env, &catalog, policy, &[]);
        let index = model.facets().expect("items");
        let mut rng = Rng(23);
        let mut broken = 0;
        for _ in 0..400 {
            let before = some_state(&model, &mut rng);
            let p = rng.below(model.vars.len());
            let domain = &model.vars[p].domain;
            let mut after = before.clone();
            after[p] = domain[rng.below(domain.len())];
            let concerned = &index.concerned(&model, p);
            let was = index.failing_at(&model, &before, concerned);
            let whole: BTreeSet<usize> = index
                .failing_at(&model, &after, concerned)
                .difference(&was)
                .copied()
                .collect();
            let found = index.added_by_move(&model, &before, &after, p);
            assert_eq!(found, whole, "{p} {before:?} -> {after:?}");
            broken += found.len();
        }
        assert!(broken > 50, "{broken} broken items");
    }

    /// The narrowed index lists exactly the items of the whole one declared under their
    /// declarer's value today (each once), for every product of the capability family,
    /// rules included.
    #[test]
    fn affected_today_is_affected_by_at_todays_values() {
        let (catalog, env) = capability_family(80, 5);
        let model = Model::build(&env, &catalog, WIDE, &[]);
        let index = model.facets().expect("items");
        let today = model.current();
        let mut listed = 0;
        let mut ruled = 0;
        for q in 0..model.vars.len() {
            let whole: BTreeSet<usize> = index
                .affected_by(&model, q)
                .filter(|&k| index.items[k].value == today[index.items[k].declarer])
                .collect();
            let narrowed: Vec<(usize, usize)> = index.affected_today(&model, q).collect();
            assert!(narrowed.iter().all(|&(k, d)| index.items[k].declarer == d));
            let set: BTreeSet<usize> = narrowed.iter().map(|&(k, _)| k).collect();
            assert_eq!(set, whole, "product {q}");
            listed += set.len();
            ruled += set
                .iter()
                .filter(|&&k| !index.items[k].rules.is_empty())
                .count();
        }
        assert!(
            listed > 20 && ruled > 0,
            "{listed} items, {ruled} with rules"
        );
        assert!(index.is_today(&today));
        let mut moved = today.clone();
        moved[0] = Value::Absent;
        assert_eq!(index.is_today(&moved), today[0] == Value::Absent);
    }

    /// While no product an item's verdict reads moves (`reads`), the item holds or fails as
    /// before: states of the capability family where other products move anywhere.
    #[test]
    fn an_item_keeps_its_verdict_while_what_it_reads_stays() {
        let (catalog, env) = capability_family(80, 9);
        let policy = WIDE;
        let model = Model::build(&env, &catalog, policy, &[]);
        let index = model.facets().expect("items");
        let mut rng = Rng(29);
        let mut checked = 0;
        for _ in 0..300 {
            let state = some_state(&model, &mut rng);
            let judged: Vec<usize> = (0..index.items.len())
                .filter(|&k| state[index.items[k].declarer] == index.items[k].value)
                .collect();
            for _ in 0..5 {
                let k = judged[rng.below(judged.len())];
                let d = index.items[k].declarer;
                let reads = index.reads(&model, k, &[&state], |_| true);
                let holds = index.holds(&model, k, &state, &index.moved(&state));
                let mut other = state.clone();
                for _ in 0..=rng.below(12) {
                    let q = rng.below(model.vars.len());
                    if q != d && !reads.contains(&q) {
                        let domain = &model.vars[q].domain;
                        other[q] = domain[rng.below(domain.len())];
                    }
                }
                assert_eq!(
                    index.holds(&model, k, &other, &index.moved(&other)),
                    holds,
                    "item {k}: {state:?} -> {other:?}, reads {reads:?}"
                );
                checked += 1;
            }
        }
        assert!(checked > 1000, "{checked}");
    }

    /// One entity of `entities`' list, by name: `failing_split`'s second way of asking.
    fn one<'f, 's: 'f, 'a: 'f>(
        entities: &'f impl Fn(usize) -> Vec<breaks::Entity<'s, 'a>>,
    ) -> impl Fn(usize, &str) -> Option<breaks::Entity<'s, 'a>> + 'f {
        move |q, name| entities(q).into_iter().find(|e| e.0 == name)
    }

    /// Product `p`'s entities as `runs[p]` has them: each on a release (by index), or
    /// `None`, as today.
    fn running_as<'a>(
        model: &Model<'a>,
        runs: &[Vec<Option<usize>>],
        p: usize,
    ) -> Vec<breaks::Entity<'a, 'a>> {
        let var = &model.vars[p];
        var.current
            .iter()
            .zip(&runs[p])
            .map(|(c, run)| match run {
                Some(r) => (
                    c.entity.unwrap(),
                    &var.releases[*r].version,
                    Some(var.releases[*r].as_ref()),
                ),
                None => (c.entity.unwrap(), c.version, c.manifest),
            })
            .collect()
    }

    /// Per product, the release each entity runs (`None`: as today): up to 17 products
    /// moved whole to a random release.
    fn products_moved(model: &Model<'_>, rng: &mut Rng) -> Vec<Vec<Option<usize>>> {
        random_moves(model, rng, 16, true)
    }

    /// Per product, the release each entity runs (`None`: as today) after up to `most + 1`
    /// random moves: of a whole product to one release, or else of one entity.
    fn random_moves(
        model: &Model<'_>,
        rng: &mut Rng,
        most: usize,
        whole: bool,
    ) -> Vec<Vec<Option<usize>>> {
        let mut runs: Vec<Vec<Option<usize>>> = model
            .vars
            .iter()
            .map(|v| vec![None; v.current.len()])
            .collect();
        for _ in 0..=rng.below(most) {
            let q = rng.below(model.vars.len());
            let n = model.vars[q].releases.len();
            if n > 0 && !runs[q].is_empty() {
                if whole {
                    let r = rng.below(n);
                    runs[q].iter_mut().for_each(|e| *e = Some(r));
                } else {
                    let e = rng.below(runs[q].len());
                    runs[q][e] = Some(rng.below(n));
                }
            }
        }
        runs
    }

    /// Each product's value under `runs` where all its entities run one, `None` where it
    /// is half-way.
    fn values_as(model: &Model<'_>, runs: &[Vec<Option<usize>>]) -> Vec<Option<Value>> {
        (0..model.vars.len())
            .map(|p| {
                let var = &model.vars[p];
                let now = running_as(model, runs, p);
                let today = now
                    .iter()
                    .zip(&var.current)
                    .all(|(e, c)| e.1.as_str() == c.version.as_str());
                if today {
                    return Some(var.domain[0]);
                }
                let first = now[0].1;
                if now.iter().any(|e| e.1.as_str() != first.as_str()) {
                    return None;
                }
                var.releases
                    .iter()
                    .position(|m| m.version == *first)
                    .map(Value::Release)
            })
            .collect()
    }

    /// A product's move changes only items of the products that run a release naming it
    /// (`concerned_running`): judging those finds the same entries added as judging every
    /// product [`FacetIndex::concerned`] by it, on states of the capability family (a
    /// catalog read whole, so most concerned products run no naming release).
    #[test]
    fn a_move_concerns_only_the_products_running_a_release_naming_it() {
        let (catalog, env) = capability_family(120, 9);
        let model = Model::build(&env, &catalog, Policy::default(), &[]);
        let index = model.facets().expect("items");
        let mut rng = Rng(29);
        // the products others' items name (capability providers, ruled products)
        let named: Vec<usize> = (0..model.vars.len())
            .filter(|&p| index.concerned(&model, p).len() > 1)
            .collect();
        let (mut full, mut narrowed, mut added) = (0, 0, 0);
        for _ in 0..400 {
            let runs = products_moved(&model, &mut rng);
            let p = named[rng.below(named.len())];
            let n = model.vars[p].releases.len();
            if n == 0 || runs[p].is_empty() {
                continue;
            }
            let mut after = runs.clone();
            let r = rng.below(n);
            after[p].iter_mut().for_each(|e| *e = Some(r));
            // whether an entity of `d` runs one of `releases` before the move
            let runs_one = |d: usize, releases: &[usize]| {
                running_as(&model, &runs, d).iter().any(|e| {
                    releases
                        .iter()
                        .any(|&i| model.vars[d].releases[i].version == *e.1)
                })
            };
            let concerned = index.concerned(&model, p);
            let running: BTreeSet<usize> = index.concerned_running(&model, p, runs_one).collect();
            assert!(running.is_subset(&concerned) && running.contains(&p));
            let failing = |runs: &[Vec<Option<usize>>], declarers: &BTreeSet<usize>| {
                let entities = |q: usize| running_as(&model, runs, q);
                let values = values_as(&model, runs);
                let split = index
                    .failing_split(&model, (entities, one(&entities)), &values, declarers, None)
                    .expect("every entry is an item");
                split.into_keys().collect::<BTreeSet<_>>()
            };
            let new = |declarers: &BTreeSet<usize>| -> BTreeSet<_> {
                let was = failing(&runs, declarers);
                failing(&after, declarers)
                    .difference(&was)
                    .cloned()
                    .collect()
            };
            let whole = new(&concerned);
            assert_eq!(new(&running), whole, "{p} to {r} under {runs:?}");
            full += concerned.len();
            narrowed += running.len();
            added += whole.len();
        }
        assert!(
            added > 20 && narrowed * 2 < full,
            "{added} entries added; {narrowed} of {full} concerned products judged"
        );
    }

    /// One rolling step moves one entity: judging only what it can change (its own items,
    /// unless its product's entities judge one another; other products' entities whose
    /// views see it) finds the same entries added and removed as judging every entity of
    /// the products concerned, with and without namespaces.
    #[test]
    fn a_focused_step_changes_what_the_whole_states_change() {
        let (catalog, plain) = capability_family(120, 5);
        let mut placed = plain.clone();
        for (i, e) in placed.entities.iter_mut().enumerate() {
            e.placement.namespace = ["", "a", "b", "c"][i % 4].to_owned();
        }
        for env in [&plain, &placed] {
            let model = Model::build(env, &catalog, Policy::default(), &[]);
            let index = model.facets().expect("items");
            let everyone: BTreeSet<usize> = (0..model.vars.len()).collect();
            let mut rng = Rng(23);
            let (mut steps, mut changed) = (0, 0);
            for _ in 0..600 {
                let runs = random_moves(&model, &mut rng, 12, false);
                // the step: one entity of a product with entities moves
                let q = rng.below(model.vars.len());
                if runs[q].is_empty() || model.vars[q].releases.is_empty() {
                    continue;
                }
                let e = rng.below(runs[q].len());
                let mut after = runs.clone();
                after[q][e] = Some(rng.below(model.vars[q].releases.len()));
                let entity = model.vars[q].current[e].entity.unwrap();
                let judge = |runs: &[Vec<Option<usize>>], focus| {
                    let entities = |p: usize| running_as(&model, runs, p);
                    let values = values_as(&model, runs);
                    index
                        .failing_split(
                            &model,
                            (entities, one(&entities)),
                            &values,
                            &everyone,
                            focus,
                        )
                        .expect("every entry is an item")
                        .into_keys()
                        .collect::<BTreeSet<_>>()
                };
                let diff = |focus| {
                    let (was, now) = (judge(&runs, focus), judge(&after, focus));
                    let added: Vec<_> = now.difference(&was).cloned().collect();
                    let gone: Vec<_> = was.difference(&now).cloned().collect();
                    (added, gone)
                };
                let whole = diff(None);
                assert_eq!(diff(Some((q, entity))), whole, "{runs:?} -> {after:?}");
                steps += 1;
                changed += usize::from(whole != (Vec::new(), Vec::new()));
            }
            assert!(
                steps > 400 && changed > 40,
                "{steps} steps, {changed} changed"
            );
        }
    }

    /// Entities of one product that serve one another: moving one changes what the other's
    /// items judge, so a focused step judges them all (`Declared::sighted`).
    #[test]
    fn a_step_judges_the_entities_its_own_product_serves() {
        let text = r#"
manifest-version: "1.0"
product-group: g
product-name: mesh
product-version: 1.0.0
extensions:
  capabilities:
    provides: [{name: peer, version: 1.0.0}]
---
manifest-version: "1.0"
product-group: g
product-name: mesh
product-version: 2.0.0
extensions:
  capabilities:
    requires: [{name: peer, minimum-version: 1.0.0, maximum-version: 1.x.x}]
---
manifest-version: "1.0"
product-group: g
product-name: mesh
product-version: 3.0.0
extensions:
  capabilities:
    provides: [{name: peer, version: 3.0.0}]
"#;
        let catalog =
            Catalog::from_manifests(manifest::parse(text, &Arc::from("c.yml")).unwrap()).unwrap();
        let env = environment::parse(
            "entities:\n  - {name: m1, product: g:mesh, version: 2.0.0}\n  \
             - {name: m2, product: g:mesh, version: 1.0.0}\n",
            &Arc::from("e.yml"),
            "e",
        )
        .unwrap();
        let model = Model::build(&env, &catalog, Policy::default(), &[]);
        let index = model.facets().expect("items");
        let var = &model.vars[0];
        let three = var
            .releases
            .iter()
            .position(|m| m.version.to_string() == "3.0.0");
        let new = &var.releases[three.unwrap()];
        let everyone: BTreeSet<usize> = [0].into();
        // m2 moved to 3.0.0: m1 (2.0.0, asking a peer ..1.x.x) sees only m2's peer 3.0.0
        let entities = |_: usize| -> Vec<breaks::Entity<'_, '_>> {
            vec![
                ("m1", var.current[0].version, var.current[0].manifest),
                ("m2", &new.version, Some(new.as_ref())),
            ]
        };
        for focus in [None, Some((0, "m2"))] {
            let failing = index
                .failing_split(
                    &model,
                    (entities, one(&entities)),
                    &[None],
                    &everyone,
                    focus,
                )
                .unwrap();
            let who: Vec<&str> = failing.keys().map(|f| f.0.as_str()).collect();
            assert_eq!(who, ["m1"], "{focus:?}");
        }
    }

    /// Rolling steps leave products half-way (their entities on two releases): judging
    /// product by product with those products' own entities (`failing_split`) finds exactly
    /// the failing entries one `World` of every entity finds (`failing`), on states of the
    /// capability family where some products moved whole and some moved one entity of two.
    #[test]
    fn half_way_products_are_judged_as_one_world_judges_them() {
        let (catalog, env) = capability_family(120, 5);
        let model = Model::build(&env, &catalog, Policy::default(), &[]);
        let index = model.facets().expect("items");
        let twice: Vec<usize> = (0..model.vars.len())
            .filter(|&q| model.vars[q].current.len() > 1)
            .collect();
        assert!(!twice.is_empty(), "the family has products on two entities");
        let everyone: BTreeSet<usize> = (0..model.vars.len()).collect();
        let mut rng = Rng(17);
        let (mut split_states, mut failing) = (0, 0);
        for _ in 0..150 {
            // per product: the release each entity runs (None: as today)
            let mut runs = products_moved(&model, &mut rng);
            for _ in 0..=rng.below(3) {
                let q = twice[rng.below(twice.len())];
                let r = rng.below(model.vars[q].releases.len());
                runs[q][0] = Some(r); // one entity of two
            }
            let entities = |q: usize| running_as(&model, &runs, q);
            let values = values_as(&model, &runs);
            split_states += usize::from(values.iter().any(Option::is_none));
            let whole = index.failing(&model, entities, &everyone);
            let split = index
                .failing_split(&model, (entities, one(&entities)), &values, &everyone, None)
                .expect("every entry is an item");
            let split_keys: Vec<_> = split.keys().collect();
            let whole_keys: Vec<_> = whole.keys().collect();
            assert_eq!(split_keys, whole_keys, "{runs:?}");
            failing += whole.len();
        }
        assert!(
            split_states > 100 && failing > 100,
            "{split_states} states half-way, {failing} failing entries"
        );
    }
}
