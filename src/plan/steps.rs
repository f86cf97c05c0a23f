//! Rolling order: turning the difference between the current and the final state into steps
//! that change one entity at a time, each leaving the environment no worse than before it.
//!
//! Greedy, and deterministic: at each round the first pending step (entities by name) that
//! adds no violation is applied. When none can, an entity may first move to an intermediate
//! catalog release that accepts both sides (a bridge). When that does not help either, the smallest set of pending steps that can go
//! together is applied as one group (the smallest closure of a step over the products its
//! violations involve; everything left when no closure works), with the constraint
//! that forced it as the reason. A step "adds a violation" when the constraints that involve
//! its product, checked on every entity as it is at that moment (a product half-way through a
//! rolling upgrade runs two versions), break something they did not break before.

use std::collections::{BTreeMap, BTreeSet};

use super::model::{Instance, Model, Value, Violation, check};
use crate::precedence::{self, Node};
use crate::solve::facets::FacetIndex;

mod watch;

/// One change to one entity.
#[derive(Clone, Debug)]
pub struct Move<'a> {
    /// The variable (product) it belongs to.
    pub var: usize,
    pub entity: String,
    /// The instance it runs now (`None` for an install).
    pub from: Option<Instance<'a>>,
    pub to: Instance<'a>,
}

/// A move in its place in the plan.
#[derive(Clone, Debug)]
pub struct Ordered<'a> {
    pub step: Move<'a>,
    /// Shared by moves that can only be applied together.
    pub group: Option<usize>,
    /// Why it stands where it stands.
    pub why: String,
}

/// The entities of every variable as they are at some moment, by entity name.
struct State<'a> {
    instances: Vec<BTreeMap<String, Instance<'a>>>,
    /// Per variable: [`State::value`] once worked out, forgotten when its entities change.
    values: Vec<std::cell::Cell<Remembered>>,
    /// Section 10, per variable: the entities it has or may get that the serving index does
    /// not hold (judged product-wide), so a judgement names them without walking all.
    unplaced: Vec<Vec<String>>,
    /// Section 10, per variable: some entity it has or may get is judged product-wide (not
    /// in the index, or its release unknown), so no judgement of it is local.
    odd: Vec<bool>,
    /// Section 10's data edges of the final state between moving entities: by consumer,
    /// the sources whose moves it waits for ([`awaits`]).
    awaits: BTreeMap<String, Vec<Await<'a>>>,
}

/// A source whose step a consumer's step waits for: an input of the consumer's release
/// feeds from it in the final state, and one of the two steps installs (SPEC 10: every fed
/// input orders its source's installation before the consumer's, for optional requirements
/// too). Between two entities that are both installed, the source moves first where it can
/// (the steps are tried in install order), and the consumer's input must stay fed at every
/// step, but a valid rolling path that moves the consumer first is not refused.
struct Await<'a> {
    var: usize,
    source: String,
    /// Where the source's move takes it.
    to: &'a crate::version::Version,
    input: String,
}

/// A variable's value in a [`State`], if worked out already.
#[derive(Clone, Copy)]
enum Remembered {
    NotYet,
    /// Its entities run one value (`None`: half-way).
    Is(Option<Value>),
}

impl<'a> State<'a> {
    /// Every violation that involves variable `p`, in either direction, each tagged with the
    /// two entities involved: two entities of one product that break the same constraint are
    /// two violations (one already there must not hide a new one).
    fn violations(&self, model: &Model<'a>, p: usize) -> BTreeSet<Tagged> {
        let var = &model.vars[p];
        let mut out = BTreeSet::new();
        let tag = |conflicts: Vec<Violation>, ours: &str, theirs: &str| {
            conflicts
                .into_iter()
                .map(|c| (c, ours.to_owned(), theirs.to_owned()))
                .collect::<Vec<_>>()
        };
        for &q in &model.neighbors[p] {
            let other = &model.vars[q];
            // section 10: each entity against its serving set, in both directions
            let unplaced = [self.unplaced_in(p), self.unplaced_in(q)];
            // section 10: inputs wired from the other product, in both directions
            if model.wiring_in_use() {
                for (x, y) in [(p, q), (q, p)] {
                    let unplaced = &unplaced[usize::from(y == q)];
                    for (a, ia) in &self.instances[x] {
                        let faults =
                            model.step_input_faults((x, a, ia), y, &self.instances[y], unplaced);
                        out.extend(faults.into_iter().map(|(c, b)| (c, a.clone(), b)));
                    }
                }
            }
            let placed = |x: usize, y: usize, name: &str, inst: &Instance<'a>| {
                let unplaced = &unplaced[usize::from(y == q)];
                model.placed_pairs((x, name, inst), y, &self.instances[y], unplaced)
            };
            if let Some(mut found) = self.instances[p]
                .iter()
                .map(|(a, ia)| placed(p, q, a, ia).map(|v| (a, v)))
                .collect::<Option<Vec<_>>>()
                .and_then(|mut ours| {
                    let theirs = self.instances[q]
                        .iter()
                        .map(|(b, ib)| placed(q, p, b, ib).map(|v| (b, v)))
                        .collect::<Option<Vec<_>>>()?;
                    ours.extend(theirs);
                    Some(ours)
                })
            {
                for (a, list) in found.drain(..) {
                    out.extend(list.into_iter().map(|(c, b)| (c, a.clone(), b)));
                }
                continue;
            }
            for (a, ia) in &self.instances[p] {
                let one = std::slice::from_ref(ia);
                if self.instances[q].is_empty() {
                    out.extend(tag(check(&var.product, one, &other.product, &[]), a, ""));
                    out.extend(tag(check(&other.product, &[], &var.product, one), "", a));
                }
                for (b, ib) in &self.instances[q] {
                    let two = std::slice::from_ref(ib);
                    out.extend(tag(check(&var.product, one, &other.product, two), a, b));
                    out.extend(tag(check(&other.product, two, &var.product, one), b, a));
                }
            }
        }
        // dependencies on products the plan does not cover at all
        for (a, ia) in &self.instances[p] {
            out.extend(tag(model.outside(p, std::slice::from_ref(ia)), a, ""));
        }
        out
    }

    /// The names in [`State::unplaced`] of `q` that it has now.
    fn unplaced_in(&self, q: usize) -> Vec<&str> {
        self.unplaced[q]
            .iter()
            .filter(|n| self.instances[q].contains_key(*n))
            .map(String::as_str)
            .collect()
    }

    /// [`State::violations`] of `p` that involve `entity` (as the declarer or as the entity
    /// a constraint is about), worked out from the entities that can see it rather than from
    /// all of `p`'s and its neighbours': with thousands of namespaces, judging every entity
    /// for every step made the ordering cubic. `None` where a judgement is not local (section
    /// 10 not in use, or an entity of `p` or a neighbour judged product-wide): then
    /// [`State::violations`] it is.
    fn violations_involving(
        &self,
        model: &Model<'a>,
        p: usize,
        entity: &str,
    ) -> Option<BTreeSet<Tagged>> {
        if self.odd[p] || !model.places(entity) {
            return None;
        }
        let mine = self.instances[p].get(entity)?;
        let mut out = BTreeSet::new();
        for &q in &model.neighbors[p] {
            if self.odd[q] {
                return None;
            }
            let ours = model.placed_pairs((p, entity, mine), q, &self.instances[q], &[])?;
            out.extend(ours.into_iter().map(|(c, b)| (c, entity.to_owned(), b)));
            let wired = model.wiring_in_use();
            if wired {
                let faults = model.step_input_faults((p, entity, mine), q, &self.instances[q], &[]);
                out.extend(faults.into_iter().map(|(c, b)| (c, entity.to_owned(), b)));
            }
            for b in model.could_see(p, entity, q)? {
                let Some(theirs) = self.instances[q].get(b) else {
                    continue;
                };
                if wired {
                    // its inputs from `p` may now be bound to, or away from, the moved entity
                    let faults =
                        model.step_input_faults((q, b, theirs), p, &self.instances[p], &[]);
                    out.extend(faults.into_iter().map(|(c, s)| (c, b.to_owned(), s)));
                }
                let found = model.placed_pairs((q, b, theirs), p, &self.instances[p], &[])?;
                out.extend(
                    found
                        .into_iter()
                        .filter(|(_, about)| about == entity)
                        .map(|(c, about)| (c, b.to_owned(), about)),
                );
            }
        }
        let one = std::slice::from_ref(mine);
        out.extend(
            model
                .outside(p, one)
                .into_iter()
                .map(|c| (c, entity.to_owned(), String::new())),
        );
        Some(out)
    }

    /// The state `instances` stand in, for the `moves` the plan may apply.
    fn new(
        model: &Model<'a>,
        instances: Vec<BTreeMap<String, Instance<'a>>>,
        moves: &[Move<'a>],
    ) -> Self {
        let values = instances
            .iter()
            .map(|_| std::cell::Cell::new(Remembered::NotYet))
            .collect();
        let mut unplaced: Vec<Vec<String>> = vec![Vec::new(); instances.len()];
        let mut odd = vec![false; instances.len()];
        if model.is_placed() {
            let now = instances
                .iter()
                .enumerate()
                .flat_map(|(q, list)| list.iter().map(move |(name, i)| (q, name.as_str(), i)));
            let later = moves.iter().flat_map(|m| {
                std::iter::once((m.var, m.entity.as_str(), &m.to))
                    .chain(m.from.iter().map(|f| (m.var, m.entity.as_str(), f)))
            });
            for (q, name, instance) in now.chain(later) {
                if !model.places(name) {
                    odd[q] = true;
                    if !unplaced[q].iter().any(|n| n == name) {
                        unplaced[q].push(name.to_owned());
                    }
                }
                odd[q] |= instance.manifest.is_none();
            }
        }
        let awaits = awaits(model, &instances, moves);
        State {
            instances,
            values,
            unplaced,
            odd,
            awaits,
        }
    }

    /// Whether every source `entity` waits for ([`awaits`]) has made its move.
    fn awaited(&self, entity: &str) -> bool {
        self.awaits
            .get(entity)
            .is_none_or(|list| list.iter().all(|w| self.moved(w)))
    }

    fn moved(&self, w: &Await<'_>) -> bool {
        self.instances[w.var]
            .get(&w.source)
            .is_some_and(|i| i.version.as_str() == w.to.as_str())
    }

    fn apply(&mut self, step: &Move<'a>) {
        self.values[step.var].set(Remembered::NotYet);
        self.instances[step.var].insert(step.entity.clone(), step.to.clone());
    }

    fn revert(&mut self, step: &Move<'a>) {
        self.values[step.var].set(Remembered::NotYet);
        let list = &mut self.instances[step.var];
        match &step.from {
            Some(from) => {
                list.insert(step.entity.clone(), from.clone());
            }
            None => {
                list.remove(&step.entity);
            }
        }
    }
}

/// A violation with the entity that declares it and the entity it is about.
type Tagged = (Violation, String, String);

/// What a step would break: a constraint between two products, or a section 9 item of an
/// entity (a capability requirement, a `constraints` item).
#[derive(Clone, Debug)]
enum Broken<'a> {
    /// With the entity that declares it and the entity it is about (empty when none).
    Pair(Box<Tagged>),
    Item {
        /// The declaring entity's product, and the products the item names.
        involved: Vec<usize>,
        words: String,
        /// Which item it is, for what its verdict reads ([`watch`]).
        which: Which<'a>,
    },
}

/// A broken section 9 item: one of the model's (judged product by product), or an entry of an
/// entity's release judged while some product is half-way, with the products whose entities
/// its world holds.
#[derive(Clone, Debug)]
enum Which<'a> {
    Model(usize),
    /// Section 10's wiring beyond pairs, judged on the whole state: it reads these products
    /// (every product for a finding of the whole state's wiring).
    Wiring(Vec<usize>),
    Entry(
        usize,
        &'a crate::manifest::Manifest,
        crate::solve::facets::Source,
    ),
}

impl Broken<'_> {
    fn describe(&self) -> String {
        match self {
            Broken::Pair(t) if t.0.input.is_some() => t.0.describe(),
            Broken::Pair(t) => {
                let c = &t.0;
                let verb = if c.code == crate::finding::Code::IncompatibleRelease {
                    "is incompatible with"
                } else {
                    "requires"
                };
                format!(
                    "{} {} {verb} {} {}",
                    c.declarer, c.declarer_version, c.dependency, c.range
                )
            }
            Broken::Item { words, .. } => words.clone(),
        }
    }
}

impl<'a> State<'a> {
    /// Every entity as it runs now: (product, entity, version, manifest).
    /// The entities of product `q` as they run now, by name.
    fn running_of(
        &self,
        q: usize,
    ) -> Vec<(
        &str,
        &'a crate::version::Version,
        Option<&'a crate::manifest::Manifest>,
    )> {
        self.instances[q].iter().map(as_entity).collect()
    }

    /// Whether some entity of `q` runs one of `releases` (indices into its releases).
    fn runs_any(&self, model: &Model<'a>, q: usize, releases: &[usize]) -> bool {
        let var = &model.vars[q];
        self.instances[q].values().any(|i| {
            releases
                .iter()
                .any(|&r| var.releases[r].version == *i.version)
        })
    }

    /// Entity `name` of product `q` as it runs now, if it stands here.
    fn one_of(
        &self,
        q: usize,
        name: &str,
    ) -> Option<(
        &str,
        &'a crate::version::Version,
        Option<&'a crate::manifest::Manifest>,
    )> {
        self.instances[q].get_key_value(name).map(as_entity)
    }
}

/// An entity of [`State::instances`] as section 9's step judgement takes it.
fn as_entity<'s, 'a>(
    (name, i): (&'s String, &Instance<'a>),
) -> (
    &'s str,
    &'a crate::version::Version,
    Option<&'a crate::manifest::Manifest>,
) {
    (name.as_str(), i.version, i.manifest)
}

impl State<'_> {
    /// The model's value of product `q` when its entities run one value (all as today, or
    /// all one release); `None` when it is half-way. Remembered until its entities change.
    fn value(&self, model: &Model<'_>, q: usize) -> Option<Value> {
        if let Remembered::Is(v) = self.values[q].get() {
            return v;
        }
        let v = self.work_out(model, q);
        self.values[q].set(Remembered::Is(v));
        v
    }

    fn work_out(&self, model: &Model<'_>, q: usize) -> Option<Value> {
        let var = &model.vars[q];
        let now = &self.instances[q];
        let as_today = now.len() == var.current.len()
            && var.current.iter().all(|c| {
                c.entity
                    .and_then(|e| now.get(e))
                    .is_some_and(|i| i.version.as_str() == c.version.as_str())
            });
        if as_today {
            return Some(var.domain[0]);
        }
        let mut versions = now.values().map(|i| i.version);
        let first = versions.next()?;
        if !versions.all(|v| v.as_str() == first.as_str()) {
            return None;
        }
        let i = var.releases.iter().position(|m| m.version == *first)?;
        Some(Value::Release(i))
    }
}

/// The section 9 items applying `steps` together would break (nothing without section 9):
/// items of the entities of the moved products and of products whose items name them.
/// Judged product by product (`FacetIndex::failing_at`) while every product runs one value,
/// else entity by entity (`FacetIndex::failing_split`: products half-way through a rolling
/// upgrade judged by their own entities, the others by value).
fn items_added<'a>(
    model: &Model<'a>,
    state: &mut State<'a>,
    steps: &[&Move<'a>],
) -> Vec<Broken<'a>> {
    let Some(index) = model.facets() else {
        return Vec::new();
    };
    // the products whose items the steps may change: the moved ones, and the declarers of
    // items naming one of them under a release some entity of theirs runs (only running
    // entities' items are judged, and the others run the same before and after the steps)
    let declarers = |state: &State<'a>| -> BTreeSet<usize> {
        let mut out: BTreeSet<usize> = steps.iter().map(|s| s.var).collect();
        for s in steps {
            let runs = |d: usize, releases: &[usize]| state.runs_any(model, d, releases);
            out.extend(index.concerned_running(model, s.var, runs));
        }
        out
    };
    let item = |k: usize| {
        let d = index.items[k].declarer;
        let mut involved = vec![d];
        involved.extend(index.concerned(model, d));
        Broken::Item {
            involved,
            words: index.words(model, k),
            which: Which::Model(k),
        }
    };
    let before: Vec<Option<Value>> = (0..model.vars.len())
        .map(|q| state.value(model, q))
        .collect();
    for s in steps {
        state.apply(s);
    }
    // only the moved products' values change
    let mut after = before.clone();
    for s in steps {
        after[s.var] = state.value(model, s.var);
    }
    let whole = |v: &[Option<Value>]| v.iter().copied().collect::<Option<Vec<Value>>>();
    if let (Some(before), Some(after)) = (whole(&before), whole(&after)) {
        for s in steps.iter().rev() {
            state.revert(s);
        }
        if let [one] = steps {
            // judged where the move can change a verdict (the same set, in item order)
            return index
                .added_by_move(model, &before, &after, one.var)
                .into_iter()
                .map(item)
                .collect();
        }
        let declarers = declarers(state);
        let was = index.failing_at(model, &before, &declarers);
        return index
            .failing_at(model, &after, &declarers)
            .difference(&was)
            .map(|&k| item(k))
            .collect();
    }
    let declarers = declarers(state);
    // one entity moved: of its product's entities only its own items can change, unless
    // they judge one another (`failing_split`'s focus)
    let focus = match steps {
        [one] => Some((one.var, one.entity.as_str())),
        _ => None,
    };
    let judge = |state: &State<'a>, values: &[Option<Value>]| {
        index
            .failing_split(
                model,
                (|q| state.running_of(q), |q, name| state.one_of(q, name)),
                values,
                &declarers,
                focus,
            )
            .unwrap_or_else(|| index.failing(model, |q| state.running_of(q), &declarers))
    };
    let now = judge(state, &after);
    for s in steps.iter().rev() {
        state.revert(s);
    }
    let was = judge(state, &before);
    now.iter()
        .filter(|(failing, _)| !was.contains_key(*failing))
        .map(|(failing, manifest)| {
            let q = failing.1;
            let mut involved = vec![q];
            involved.extend(index.concerned(model, q));
            Broken::Item {
                involved,
                words: FacetIndex::failing_words(model, failing, manifest),
                which: Which::Entry(q, manifest, failing.2),
            }
        })
        .collect()
}

/// True when the moved entity, at its new release, breaks nothing with anything as things
/// stand. Then the step adds no violation (a new one would have to involve it), so this
/// cheap test, which builds nothing unless it fails, spares most calls to [`added`].
fn clean<'a>(model: &Model<'a>, state: &mut State<'a>, step: &Move<'a>) -> bool {
    if model.wiring_in_use() && (model.wiring_risk(step.var) || !state.awaited(&step.entity)) {
        return false; // judged in full by `added`
    }
    let pairs = if model.is_placed() {
        // section 10: judged through serving sets, over the state with the step applied
        state.apply(step);
        let clean = match state.violations_involving(model, step.var, &step.entity) {
            Some(found) => found.is_empty(),
            None => state
                .violations(model, step.var)
                .iter()
                .all(|(_, a, b)| *a != step.entity && *b != step.entity),
        };
        state.revert(step);
        clean
    } else {
        pairs_clean(model, state, step) && wiring_clean(model, state, step)
    };
    pairs && (model.facets().is_none() || items_added(model, state, &[step]).is_empty())
}

/// [`clean`] for section 10's data wiring between products, without serving sets: no input
/// of the moved entity, nor of the entities of its neighbours, is left unfed once it moves.
fn wiring_clean<'a>(model: &Model<'a>, state: &mut State<'a>, step: &Move<'a>) -> bool {
    if !model.wiring_in_use() {
        return true;
    }
    state.apply(step);
    let p = step.var;
    let clean = state.instances[p].get(&step.entity).is_none_or(|mine| {
        model.neighbors[p].iter().all(|&q| {
            let theirs = &state.instances[q];
            model
                .step_input_faults((p, &step.entity, mine), q, theirs, &[])
                .is_empty()
                && theirs.iter().all(|(b, ib)| {
                    model
                        .step_input_faults((q, b, ib), p, &state.instances[p], &[])
                        .is_empty()
                })
        })
    });
    state.revert(step);
    clean
}

/// [`clean`] for the constraints between products.
fn pairs_clean(model: &Model<'_>, state: &State<'_>, step: &Move<'_>) -> bool {
    let p = step.var;
    let product = &model.vars[p].product;
    let one = std::slice::from_ref(&step.to);
    model.outside(p, one).is_empty()
        && model.neighbors[p].iter().all(|&q| {
            let other = &model.vars[q].product;
            let theirs = &state.instances[q];
            if theirs.is_empty() {
                return check(product, one, other, &[]).is_empty();
            }
            theirs.values().all(|ib| {
                let two = std::slice::from_ref(ib);
                check(product, one, other, two).is_empty()
                    && check(other, two, product, one).is_empty()
            })
        })
}

/// The new violations applying `steps` together would add (empty: they may go), section 9
/// items after the constraints between products.
fn added<'a>(model: &Model<'a>, state: &mut State<'a>, steps: &[&Move<'a>]) -> Vec<Broken<'a>> {
    let mut out: Vec<Broken> = pairs_added(model, state, steps)
        .into_iter()
        .map(|t| Broken::Pair(Box::new(t)))
        .collect();
    out.extend(items_added(model, state, steps));
    out.extend(wiring_added(model, state, steps));
    out
}

/// What applying `steps` together breaks of section 10's data wiring beyond pairs of
/// products (nothing when no release wires an input): a consumer moving before a source it
/// reads from ([`awaits`]), and, for steps of a product at [`crate::solve::wired::Risk`],
/// inputs from capabilities left unfed and data cycles that were not there before.
fn wiring_added<'a>(
    model: &Model<'a>,
    state: &mut State<'a>,
    steps: &[&Move<'a>],
) -> Vec<Broken<'a>> {
    if !model.wiring_in_use() {
        return Vec::new();
    }
    let risky = steps.iter().any(|s| model.wiring_risk(s.var));
    let moved: Vec<usize> = steps.iter().map(|s| s.var).collect();
    let before = if risky {
        model.state_wiring_around(&state.instances, &moved)
    } else {
        BTreeMap::new()
    };
    for s in steps {
        state.apply(s);
    }
    let mut out: Vec<Broken> = Vec::new();
    for s in steps {
        for w in state.awaits.get(&s.entity).into_iter().flatten() {
            if !state.moved(w) {
                out.push(Broken::Item {
                    involved: vec![s.var, w.var],
                    words: format!(
                        "{} reads its input {} from {}, which changes first",
                        s.entity, w.input, w.source
                    ),
                    which: Which::Wiring(vec![s.var, w.var]),
                });
            }
        }
    }
    if risky {
        let after = model.state_wiring_around(&state.instances, &moved);
        out.extend(
            after
                .into_iter()
                .filter(|(words, _)| !before.contains_key(words))
                .map(|(words, involved)| Broken::Item {
                    involved,
                    words,
                    // capability inputs and data cycles: any product's move can change them
                    which: Which::Wiring((0..model.vars.len()).collect()),
                }),
        );
    }
    for s in steps.iter().rev() {
        state.revert(s);
    }
    out
}

/// Section 10's data edges between the entities `moves` change, in the state they reach
/// (`instances` with every move applied), where one of the two is installed by the plan: by
/// consumer, the sources it waits for ([`Await`]). Empty when no release wires an input.
fn awaits<'a>(
    model: &Model<'a>,
    instances: &[BTreeMap<String, Instance<'a>>],
    moves: &[Move<'a>],
) -> BTreeMap<String, Vec<Await<'a>>> {
    let mut out: BTreeMap<String, Vec<Await<'a>>> = BTreeMap::new();
    if !model.wiring_in_use() || moves.is_empty() {
        return out;
    }
    let mut after: Vec<BTreeMap<&str, &Instance<'a>>> = instances
        .iter()
        .map(|list| list.iter().map(|(n, i)| (n.as_str(), i)).collect())
        .collect();
    let mut moving: BTreeMap<&str, &Move<'a>> = BTreeMap::new();
    for m in moves {
        after[m.var].insert(&m.entity, &m.to);
        moving.insert(&m.entity, m);
    }
    let mut all: Vec<(&str, usize, &Instance<'a>)> = after
        .iter()
        .enumerate()
        .flat_map(|(q, list)| list.iter().map(move |(&n, &i)| (n, q, i)))
        .collect();
    all.sort_unstable_by_key(|&(n, _, _)| n);
    let nodes: Vec<Node> = all
        .iter()
        .map(|&(n, q, i)| Node {
            name: n,
            product: &model.vars[q].product,
            version: i.version,
            release: i.manifest,
            placement: model.placement_of(n),
        })
        .collect();
    for b in precedence::edges(&nodes) {
        let precedence::Why::Data(input) = b.why else {
            continue;
        };
        let (consumer, source) = (nodes[b.after].name, nodes[b.first].name);
        let (Some(c), Some(m)) = (moving.get(consumer), moving.get(source)) else {
            continue;
        };
        if c.from.is_none() || m.from.is_none() {
            out.entry(consumer.to_owned()).or_default().push(Await {
                var: m.var,
                source: source.to_owned(),
                to: m.to.version,
                input: input.name.clone(),
            });
        }
    }
    out
}

/// The new violations between products applying `steps` together would add, each with the
/// entities it is between.
fn pairs_added<'a>(model: &Model<'a>, state: &mut State<'a>, steps: &[&Move<'a>]) -> Vec<Tagged> {
    let vars: BTreeSet<usize> = steps.iter().map(|s| s.var).collect();
    let before: BTreeSet<Tagged> = vars
        .iter()
        .flat_map(|&p| state.violations(model, p))
        .collect();
    for s in steps {
        state.apply(s);
    }
    let after: BTreeSet<Tagged> = vars
        .iter()
        .flat_map(|&p| state.violations(model, p))
        .collect();
    for s in steps.iter().rev() {
        state.revert(s);
    }
    after.difference(&before).cloned().collect()
}

/// The steps that must go with pending step `start`: those on the products its new
/// violations involve, grown until applying them all adds nothing (positions in `pending`),
/// or `None` when even all of them together add a violation, or when they grow to `below`
/// steps or more (the members only grow, so such a closure is never smaller).
fn closure<'a>(
    model: &Model<'a>,
    state: &mut State<'a>,
    moves: &[Move<'a>],
    pending: &[usize],
    start: usize,
    below: usize,
) -> Option<Vec<usize>> {
    let mut members = vec![start];
    loop {
        if members.len() >= below {
            return None;
        }
        let steps: Vec<&Move<'a>> = members.iter().map(|&k| &moves[pending[k]]).collect();
        let new = added(model, state, &steps);
        if new.is_empty() {
            return Some(members);
        }
        // the moves of the entities a broken pair names, where it names both (section 10: other
        // entities of the same products may not see each other), and every move of the
        // products the rest involve; failing those, every move of every product involved
        let mut entities: BTreeSet<&str> = BTreeSet::new();
        let mut narrow: BTreeSet<usize> = BTreeSet::new();
        let mut wide: BTreeSet<usize> = BTreeSet::new();
        for b in &new {
            match b {
                Broken::Pair(t) => {
                    let products = [&t.0.declarer, &t.0.dependency]
                        .into_iter()
                        .filter_map(|p| model.index.get(p).copied());
                    if t.1.is_empty() || t.2.is_empty() {
                        narrow.extend(products.clone());
                    } else {
                        entities.extend([t.1.as_str(), t.2.as_str()]);
                    }
                    wide.extend(products);
                }
                Broken::Item { involved, .. } => narrow.extend(involved.iter().copied()),
            }
        }
        let outside = |k: &usize| !members.contains(k);
        let mut more: Vec<usize> = (0..pending.len())
            .filter(outside)
            .filter(|&k| {
                let m = &moves[pending[k]];
                narrow.contains(&m.var) || entities.contains(m.entity.as_str())
            })
            .collect();
        if more.is_empty() {
            more = (0..pending.len())
                .filter(outside)
                .filter(|&k| wide.contains(&moves[pending[k]].var))
                .collect();
        }
        if more.is_empty() {
            return None;
        }
        members.extend(more);
    }
}

/// A move of `step`'s entity to an intermediate candidate release (newest first) that adds no
/// violation now. `blocked` is told each intermediate one that would add some, with what it
/// adds.
fn bridge<'a>(
    model: &Model<'a>,
    state: &mut State<'a>,
    step: &Move<'a>,
    blocked: &mut dyn FnMut(&mut State<'a>, &Move<'a>, &[Broken<'a>]),
) -> Option<Move<'a>> {
    let from = step.from.as_ref()?;
    let var = &model.vars[step.var];
    let mut between: Vec<usize> = model.base[step.var]
        .iter()
        .filter_map(|v| match v {
            super::model::Value::Release(i) => Some(*i),
            _ => None,
        })
        .filter(|&i| {
            let v = &var.releases[i].version;
            v > from.version && v < step.to.version
        })
        .collect();
    between.sort_unstable_by(|a, b| b.cmp(a));
    between.into_iter().find_map(|i| {
        let candidate = Move {
            var: step.var,
            entity: step.entity.clone(),
            from: Some(from.clone()),
            to: var.planned(i),
        };
        if clean(model, state, &candidate) {
            return Some(candidate);
        }
        let new = added(model, state, &[&candidate]);
        if new.is_empty() {
            return Some(candidate);
        }
        blocked(state, &candidate, &new);
        None
    })
}

/// The positions in `pending` of the smallest closure (see [`closure`]) that can be applied
/// together, or of everything pending when none can.
fn smallest_group<'a>(
    model: &Model<'a>,
    state: &mut State<'a>,
    moves: &[Move<'a>],
    pending: &[usize],
) -> Vec<usize> {
    // the first smallest: a closure is abandoned once it is as large as the best so far
    let mut best: Option<Vec<usize>> = None;
    for k in 0..pending.len() {
        let below = best.as_ref().map_or(usize::MAX, Vec::len);
        if below == 1 {
            break; // none is smaller
        }
        if let Some(found) = closure(model, state, moves, pending, k, below) {
            best = Some(found);
        }
    }
    let mut members = best.unwrap_or_else(|| (0..pending.len()).collect());
    members.sort_unstable();
    members
}

/// The install-order wave of each moving variable: a product moves after the products that
/// move too and that the release it moves to must wait for ([`precedence`]: required products
/// and capabilities; cycles share a wave). Variables that do not move get 0.
fn dependency_waves(model: &Model<'_>, moves: &[Move<'_>]) -> Vec<usize> {
    // one node per product and release moved to: the edges are wanted between products, and
    // a node per entity made a product of N entities needing one of M cost N * M edges
    let mut kept: Vec<&Move<'_>> = Vec::new();
    let mut seen: BTreeSet<(usize, &str)> = BTreeSet::new();
    for m in moves {
        if seen.insert((m.var, m.to.version.as_str())) {
            kept.push(m);
        }
    }
    let nodes: Vec<Node> = kept
        .iter()
        .map(|m| Node {
            name: &m.entity,
            product: &model.vars[m.var].product,
            version: m.to.version,
            release: m.to.manifest,
            placement: crate::instance::Placement::none(),
        })
        .collect();
    let mut edges: Vec<(usize, usize)> = precedence::edges(&nodes)
        .into_iter()
        .map(|b| (kept[b.after].var, kept[b.first].var))
        .filter(|(a, b)| a != b)
        .collect();
    edges.sort_unstable();
    edges.dedup();
    crate::order::layers(model.vars.len(), &edges).wave
}

/// A bridge step for the first pending move that has one (an entity moves to a release between
/// where it is and where it goes, and that adds nothing), applied to `state`; the move then
/// starts from the bridge. `no_bridge`: the moves known to have none, as `known_blocked` in
/// [`order`] (kept while nothing their judgement reads moves, `watch`), skipped; those
/// found to have none are marked.
fn take_bridge<'a>(
    model: &Model<'a>,
    state: &mut State<'a>,
    moves: &mut [Move<'a>],
    pending: &[usize],
    memory: &mut watch::Memory,
) -> Option<Ordered<'a>> {
    let (k, bridge) = (0..pending.len()).find_map(|k| {
        let i = pending[k];
        if memory.no_bridge[i] {
            return None;
        }
        let mut reads = BTreeSet::from([moves[i].var]);
        let movable = |q: usize| memory.movable(q);
        let found = bridge(model, state, &moves[i], &mut |state, candidate, new| {
            reads.extend(watch::blocked_reads(model, state, candidate, new, &movable));
        });
        if found.is_none() {
            memory.bridgeless(i, &reads);
        }
        found.map(|b| (k, b))
    })?;
    state.apply(&bridge);
    let why = format!(
        "bridge release: {} {} accepts what runs now and what comes next",
        model.vars[bridge.var].product, bridge.to.version
    );
    moves[pending[k]].from = Some(bridge.to.clone());
    Some(Ordered {
        step: bridge,
        group: None,
        why,
    })
}

/// The moves at `pending` as one last group `group`, in entity order: what is left when the
/// time limit stops the ordering (together they reach the final state, which is valid).
fn unordered<'a>(moves: &[Move<'a>], pending: &[usize], group: usize) -> Vec<Ordered<'a>> {
    let mut rest: Vec<Ordered<'a>> = pending
        .iter()
        .map(|&i| Ordered {
            step: moves[i].clone(),
            group: Some(group),
            why: "time limit reached before these were ordered: apply together (the final \
                  state is valid)"
                .to_owned(),
        })
        .collect();
    rest.sort_by(|a, b| a.step.entity.cmp(&b.step.entity));
    rest
}

/// Orders `moves` from `current` (each variable's instances now); see the module docs. When
/// `deadline` passes first, the moves not yet placed form one last group, applied together
/// (the final state is valid, the way through it is not proven rolling), and the second value
/// is false.
#[must_use]
pub fn order<'a>(
    model: &Model<'a>,
    current: Vec<BTreeMap<String, Instance<'a>>>,
    mut moves: Vec<Move<'a>>,
    deadline: Option<std::time::Instant>,
    progress: &mut dyn FnMut(usize, usize),
) -> (Vec<Ordered<'a>>, bool) {
    // Candidates are tried dependencies first: the install-order waves (`order::layers`) of
    // the products that move, over the required dependencies of the releases they move to;
    // then by entity name.
    let wave = dependency_waves(model, &moves);
    moves.sort_by(|a, b| (wave[a.var], &a.entity).cmp(&(wave[b.var], &b.entity)));
    let total = moves.len();
    let mut state = State::new(model, current, &moves);
    let mut blocked: Vec<Option<String>> = vec![None; moves.len()];
    // A step found blocked stays blocked until something its judgement reads moves
    // (`watch`): skipping it until then keeps "the first valid step in order" and saves
    // re-checking constraints against thousands of dependents of a core product every round.
    // Likewise a move found to have no bridge release (searching them all again after every
    // step was 90% of the ordering on the hard family at 5,000 products).
    let mut memory = watch::Memory::new(model, &moves);
    let mut pending: Vec<usize> = (0..moves.len()).collect();
    let mut out = Vec::new();
    let mut group = 0;
    while !pending.is_empty() {
        // moves placed so far (bridges add steps, so `out` can outgrow the moves)
        progress(total - pending.len(), total);
        if crate::solve::passed(deadline) {
            out.extend(unordered(&moves, &pending, group + 1));
            return (out, false);
        }
        let mut chosen = None;
        for (k, &i) in pending.iter().enumerate() {
            if memory.blocked[i] {
                continue;
            }
            if clean(model, &mut state, &moves[i]) {
                chosen = Some(k);
                break;
            }
            let new = added(model, &mut state, &[&moves[i]]);
            match new.first() {
                None => {
                    chosen = Some(k);
                    break;
                }
                Some(first) => {
                    if blocked[i].is_none() {
                        blocked[i] = Some(first.describe());
                    }
                    let movable = |q: usize| memory.movable(q);
                    let reads = watch::blocked_reads(model, &mut state, &moves[i], &new, &movable);
                    memory.block(i, &reads);
                }
            }
        }
        if let Some(k) = chosen {
            let i = pending.remove(k);
            state.apply(&moves[i]);
            memory.moved(moves[i].var, true);
            let why = blocked[i].take().map_or_else(
                || "valid on its own".to_owned(),
                |b| format!("after the steps above (until then {b})"),
            );
            out.push(Ordered {
                step: moves[i].clone(),
                group: None,
                why,
            });
            continue;
        }
        // No single step is safe. First a bridge: an entity moves to a release between where it
        // is and where it goes, if that adds nothing; each bridge moves strictly closer, so
        // this ends.
        if let Some(step) = take_bridge(model, &mut state, &mut moves, &pending, &mut memory) {
            memory.moved(step.step.var, false);
            out.push(step);
            continue;
        }
        // No bridge either: the smallest set that is safe together.
        let members = smallest_group(model, &mut state, &moves, &pending);
        group += 1;
        // Why now: what the first member alone would break at this point.
        let first = &moves[pending[members[0]]];
        let reason = added(model, &mut state, &[first]).first().map_or_else(
            || "no order of single steps keeps every constraint".to_owned(),
            Broken::describe,
        );
        for &k in members.iter().rev() {
            let i = pending.remove(k);
            state.apply(&moves[i]);
            memory.moved(moves[i].var, true);
            out.push(Ordered {
                step: moves[i].clone(),
                group: Some(group),
                why: format!("must change together: {reason}"),
            });
        }
        let len = out.len();
        out[len - members.len()..].sort_by(|a, b| a.step.entity.cmp(&b.step.entity));
    }
    (out, true)
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;
    use crate::catalog::Catalog;
    use crate::solve::model::Policy;

    /// Steps are tried in install order, whose edges are `precedence`'s: a product moves
    /// after the product it requires and after the provider of a capability it requires in
    /// range, when those move too; a provider out of range does not hold it back.
    #[test]
    fn moves_are_tried_after_what_they_wait_for_products_and_capabilities_alike() {
        let case = Path::new("testdata/cases/order-capabilities");
        let manifests: Vec<_> = ["shop.yml", "databases.yml", "ledger.yml"]
            .iter()
            .flat_map(|f| crate::loader::read_manifests(&case.join("catalog").join(f)).unwrap())
            .collect();
        let catalog = Catalog::from_manifests(manifests).unwrap();
        let mut env = crate::loader::read_environment(&case.join("env.yml")).unwrap();
        for e in &mut env.entities {
            e.state = crate::environment::State::Installed;
        }
        let model = Model::build(&env, &catalog, Policy::default(), &[]);
        let moves: Vec<Move> = env
            .entities
            .iter()
            .map(|e| Move {
                var: model.index[&e.product],
                entity: e.name.clone(),
                from: None,
                to: Instance {
                    version: &e.version,
                    manifest: catalog.release(&e.product, &e.version).map(|m| &**m),
                    entity: None,
                },
            })
            .collect();
        let wave = dependency_waves(&model, &moves);
        let of = |name: &str| {
            let e = env.entities.iter().find(|e| e.name == name).unwrap();
            wave[model.index[&e.product]]
        };
        assert!(of("web") > of("auth"), "a required product");
        assert!(
            of("web") > of("db"),
            "a required capability, provided in range"
        );
        assert_eq!(of("legacy-db"), 0, "out of range: serves no one");
        assert_eq!(of("metrics"), 0);
        assert_eq!(
            of("ledger"),
            of("bus"),
            "a cycle through a capability shares a wave"
        );
        // without auth moving, web waits for db alone
        let without_auth: Vec<Move> = moves.into_iter().filter(|m| m.entity != "auth").collect();
        let wave = dependency_waves(&model, &without_auth);
        let web = model.index[&env
            .entities
            .iter()
            .find(|e| e.name == "web")
            .unwrap()
            .product];
        let db = model.index[&env
            .entities
            .iter()
            .find(|e| e.name == "db")
            .unwrap()
            .product];
        assert!(
            wave[web] > wave[db],
            "the capability alone orders web after db"
        );
    }
    /// SPEC 10: an entity the plan installs waits for the source of its inputs, for an
    /// optional requirement too, even where reading nothing would be valid: `front` (created)
    /// reads `store` (created), and `store` can go in only once `zlegacy` moves, which needs
    /// `front`. Judging validity alone installed `front` first, on its own.
    #[test]
    fn an_installed_consumer_waits_for_the_source_it_reads() {
        let text = "\
manifest-version: '1.0'
product-group: z
product-name: store
product-version: 1.0.0
extensions:
  outputs: [data]
  product-incompatibilities:
    - {product-group: z, product-name: zlegacy, maximum-version: 1.x.x}
---
manifest-version: '1.0'
product-group: z
product-name: front
product-version: 1.0.0
extensions:
  product-dependencies:
    - {product-group: z, product-name: store, minimum-version: 1.0.0, maximum-version: 1.x.x, optional: true}
  inputs:
    - {name: feed, from: 'z:store', output: data, optional: true}
---
manifest-version: '1.0'
product-group: z
product-name: zlegacy
product-version: 1.0.0
---
manifest-version: '1.0'
product-group: z
product-name: zlegacy
product-version: 2.0.0
extensions:
  product-dependencies:
    - {product-group: z, product-name: front, minimum-version: 1.0.0, maximum-version: 1.x.x}
";
        let manifests = crate::manifest::parse(text, &std::sync::Arc::from("c.yml")).unwrap();
        let catalog = Catalog::from_manifests(manifests).unwrap();
        let env = crate::environment::parse(
            "entities:\n  - {name: zlegacy, product: 'z:zlegacy', version: 1.0.0}\n",
            &std::sync::Arc::from("e.yml"),
            "e",
        )
        .unwrap();
        let policy = Policy {
            allow_install: true,
            ..Policy::default()
        };
        let model = Model::build(&env, &catalog, policy, &[]);
        let var = |name: &str| model.index[&crate::product::ProductId::parse(name).unwrap()];
        let install = |name: &str| {
            let p = var(name);
            Move {
                var: p,
                entity: name[2..].to_owned(),
                from: None,
                to: model.vars[p].planned(0),
            }
        };
        let legacy = var("z:zlegacy");
        let mut current = vec![BTreeMap::new(); model.vars.len()];
        current[legacy].insert("zlegacy".to_owned(), model.vars[legacy].current[0].clone());
        let moves = vec![
            install("z:front"),
            install("z:store"),
            Move {
                var: legacy,
                entity: "zlegacy".to_owned(),
                from: Some(model.vars[legacy].current[0].clone()),
                to: model.vars[legacy].planned(1),
            },
        ];
        let (steps, complete) = order(&model, current, moves, None, &mut |_, _| {});
        assert!(complete);
        let at = |name: &str| {
            let o = steps.iter().find(|o| o.step.entity == name).unwrap();
            (o.group, steps.iter().position(|x| x.step.entity == name))
        };
        let (front, store) = (at("front"), at("store"));
        assert!(
            front.0.is_some() && front.0 == store.0 || front.1 > store.1,
            "front installed before the store it reads: {:?}",
            steps
                .iter()
                .map(|o| (&o.step.entity, o.group, &o.why))
                .collect::<Vec<_>>()
        );
    }
}
