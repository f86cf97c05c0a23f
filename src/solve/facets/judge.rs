//! Judging items fast, by what moved: a state of the model differs from today in a few
//! products, so an existential atom (a capability some other product provides in range, a
//! rule some other entity satisfies) is judged by counting: how many products make it true
//! today (counted once per atom), minus the moved ones that did, plus the moved ones that do
//! now. Each atom is judged per product and value over that product's instances only
//! ([`crate::constraint::atom_holds_among`], remembered), so the meaning stays `constraint`'s;
//! compounds combine the atoms' truths as `World::term_holds` does.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

use super::FacetIndex;
use crate::manifest::{Atom, Term, TermKind};
use crate::product::ProductId;
use crate::solve::model::{Model, Value};

/// A term with its atoms interned.
#[derive(Clone, Debug)]
pub(crate) enum Compiled {
    Atom(usize),
    AnyOf(Vec<Compiled>),
    AllOf(Vec<Compiled>),
    NoneOf(Vec<Compiled>),
}

/// The atoms of every item, interned by their words and the view they are judged in (see
/// [`Views`]), and what is remembered about them.
#[derive(Debug, Default)]
pub(super) struct Atoms {
    pub interned: Vec<Atom>,
    /// Per atom: the view its candidates are seen from, and the same atom's id in the view
    /// that sees everything (whose verdict table it shares: a verdict is about one product's
    /// instances, wherever they are seen from).
    pub view: Vec<usize>,
    base: Vec<usize>,
    /// Per atom text ([`Words`]) and view: the atom's id.
    ids: BTreeMap<(usize, usize), usize>,
    words: Words,
    /// Per atom: whether a candidate product's instances under a value make it true.
    verdicts: Vec<OnceLock<Table>>,
    /// Per atom: how many products make it true today.
    today: Vec<OnceLock<usize>>,
    /// Per atom: the products some value of which makes it true (asked for rules only).
    support: Vec<OnceLock<Vec<usize>>>,
    /// Per atom: a capability's providers, looked up by name once.
    providers: Vec<OnceLock<Vec<usize>>>,
    /// Per atom: the model index of a product atom's product (`None` for other atoms, and for
    /// a product the model does not know), looked up once rather than by name per judgement.
    products: OnceLock<Vec<Option<usize>>>,
}

/// The products in both sorted lists, in order: the shorter walked, the longer searched.
fn both<'l>(a: &'l [usize], b: &'l [usize]) -> impl Iterator<Item = usize> + 'l {
    let (short, long) = if a.len() <= b.len() { (a, b) } else { (b, a) };
    short
        .iter()
        .copied()
        .filter(move |q| long.binary_search(q).is_ok())
}

/// What [`FacetIndex::by_others`] works out per existential atom for one state (one
/// `moved` list, one `truth`), so that judging many items there walks the moved products
/// once per atom rather than once per item, entity and atom: on a rolling plan over a
/// catalog read whole, `moved` grows to thousands of products and a rule's support can be
/// most of the catalog, and that walk was about a quarter of `plan --all`'s CPU on the
/// capabilities family at 5,000 read from a directory. Good for one state only.
#[derive(Default)]
pub(crate) struct Others {
    /// Per atom: how many of today's supporters have not moved.
    kept: std::cell::RefCell<BTreeMap<usize, usize>>,
    /// Per atom: the first two moved products (in order) that make it true in the state.
    now: std::cell::RefCell<BTreeMap<usize, Vec<usize>>>,
}

/// Atom `id`'s entry of `memo`, worked out by `work` the first time (outside the borrow:
/// `work` may judge other atoms).
fn remembered<T: Clone>(
    memo: &std::cell::RefCell<BTreeMap<usize, T>>,
    id: usize,
    work: impl FnOnce() -> T,
) -> T {
    if let Some(known) = memo.borrow().get(&id) {
        return known.clone();
    }
    let value = work();
    memo.borrow_mut().insert(id, value.clone());
    value
}

impl Compiled {
    /// The term's truth, given its atoms' (`atom` is asked each atom id as needed).
    pub(super) fn eval(&self, atom: &mut dyn FnMut(usize) -> bool) -> bool {
        match self {
            Compiled::Atom(id) => atom(*id),
            Compiled::AnyOf(c) => c.iter().any(|t| t.eval(atom)),
            Compiled::AllOf(c) => c.iter().all(|t| t.eval(atom)),
            Compiled::NoneOf(c) => !c.iter().any(|t| t.eval(atom)),
        }
    }
}

/// How many sets [`FacetIndex::stuck`] keeps at most.
const STUCK: usize = 16;

/// `sets` without duplicates or supersets of another (staying the smaller asks less), at most
/// [`STUCK`] of them, the smallest first.
fn cut(mut sets: Vec<BTreeSet<usize>>) -> Vec<BTreeSet<usize>> {
    sets.sort_by(|a, b| a.len().cmp(&b.len()).then_with(|| a.cmp(b)));
    let mut out: Vec<BTreeSet<usize>> = Vec::new();
    for s in sets {
        if out.len() < STUCK && !out.iter().any(|kept| kept.is_subset(&s)) {
            out.push(s);
        }
    }
    out
}

impl Atoms {
    /// `term` with its atoms interned, judged from `view` (each atom is interned from the
    /// view that sees everything too, the one [`FacetIndex::atom_id`] names).
    pub fn compile(&mut self, term: &Term, view: usize) -> Compiled {
        let words = words_of(term);
        self.compile_words(term, view, &mut words.into_iter())
    }

    /// [`Atoms::compile`] with the words of `term`'s atoms worked out already, in order
    /// ([`words_of`]): the index is built on one thread, its words on all.
    pub fn compile_words(
        &mut self,
        term: &Term,
        view: usize,
        words: &mut impl Iterator<Item = String>,
    ) -> Compiled {
        let mut children =
            |s: &mut Self, c: &[Term]| c.iter().map(|t| s.compile_words(t, view, words)).collect();
        match &term.kind {
            TermKind::Atom(atom) => {
                let words = words
                    .next()
                    .unwrap_or_else(|| crate::constraint::atom_text(atom));
                let text = self.words.id(words);
                let base = self.intern(atom, text, Views::ALL, None);
                Compiled::Atom(self.intern(atom, text, view, Some(base)))
            }
            TermKind::AnyOf(c) => Compiled::AnyOf(children(self, c)),
            TermKind::AllOf(c) => Compiled::AllOf(children(self, c)),
            TermKind::NoneOf(c) => Compiled::NoneOf(children(self, c)),
        }
    }

    fn intern(&mut self, atom: &Atom, text: usize, view: usize, base: Option<usize>) -> usize {
        let next = self.interned.len();
        let id = *self.ids.entry((text, view)).or_insert(next);
        if id == next {
            self.interned.push(atom.clone());
            self.view.push(view);
            self.base.push(base.unwrap_or(id));
            self.verdicts.push(OnceLock::new());
            self.today.push(OnceLock::new());
            self.support.push(OnceLock::new());
            self.providers.push(OnceLock::new());
        }
        id
    }
}

/// Atom texts ([`crate::constraint::atom_text`]) numbered as they are first met, looked up by
/// their FxHash: an index interns each atom of every item (tens of thousands of items over a
/// catalog read whole), and a map ordered by the texts themselves, which share long
/// prefixes, spent most of that in comparing them.
#[derive(Debug, Default)]
struct Words {
    /// Per hash: the texts with it, with their numbers.
    by_hash: BTreeMap<u64, Vec<(Box<str>, usize)>>,
    count: usize,
}

impl Words {
    fn hash(text: &str) -> u64 {
        use std::hash::BuildHasher;
        rustc_hash::FxBuildHasher.hash_one(text)
    }

    /// `text`'s number, given it if it has none yet.
    fn id(&mut self, text: String) -> usize {
        let bucket = self.by_hash.entry(Words::hash(&text)).or_default();
        if let Some(&(_, id)) = bucket.iter().find(|(t, _)| **t == *text) {
            return id;
        }
        let id = self.count;
        self.count += 1;
        bucket.push((text.into_boxed_str(), id));
        id
    }

    /// `text`'s number, if it has one.
    fn get(&self, text: &str) -> Option<usize> {
        let bucket = self.by_hash.get(&Words::hash(text))?;
        bucket.iter().find(|(t, _)| **t == *text).map(|&(_, id)| id)
    }
}

/// The words of each atom of `term` ([`crate::constraint::atom_text`]), in the order
/// [`Atoms::compile_words`] meets them.
pub(super) fn words_of(term: &Term) -> Vec<String> {
    term.atoms()
        .into_iter()
        .map(crate::constraint::atom_text)
        .collect()
}

/// Per rule: whether some value of each product makes it true ([`FacetIndex::support`]),
/// with how many releases the product had then, carried between models built over the same
/// environment as more of the catalog is read ([`super::Carried`]). An explanation
/// round reads products' older releases whole: a product whose releases are the same keeps
/// its answer (its entities and releases are), only the others are judged again. Over the
/// whole histories of the hard family with capabilities at 5,000 products, judging every
/// rule on every release was about 0.24 s of each round, on one thread while the other
/// waited.
#[derive(Debug, Default)]
pub(super) struct RuleSupport(Mutex<BTreeMap<String, Arc<Answers>>>);

/// Per product: its number of releases when judged, and whether some value made the rule
/// true.
type Answers = BTreeMap<ProductId, (usize, bool)>;

impl RuleSupport {
    fn of(&self, rule: &str) -> Arc<Answers> {
        self.lock().get(rule).cloned().unwrap_or_default()
    }

    fn keep(&self, rule: String, answers: Answers) {
        self.lock().insert(rule, Arc::new(answers));
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, BTreeMap<String, Arc<Answers>>> {
        self.0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

/// Which products an item's atoms see (SPEC 10: an entity's atoms see the entities of its
/// own namespace and of the global one). Every product's entities are placed where the
/// environment says, and every entity of a product runs the value the model gives the
/// product, so seeing is a property of products: a product is seen when one of its
/// installed entities is, and one not installed (a plan may create it anywhere) is seen as
/// section 7 sees everything. View [`Views::ALL`] sees every product: the only view of an
/// environment without namespaces, and the one of an item whose declaring entities stand in
/// several namespaces (judged product-wide; `placed::Doubts` says where that matters).
///
/// A capability requirement's serving set is tiered (SPEC 10): the first tier with a
/// provider in it serves. Its atoms are then judged from one view per tier
/// ([`Sight::Tier`]), each seeing the products whose entities all stand in that tier
/// (`FacetIndex::tiers` works the members out; `placed::Doubts` marks a product split
/// between in and out).
#[derive(Debug, Default)]
pub(super) struct Views {
    /// Per view after the first: what it sees, and the view of each.
    sights: Vec<Sight>,
    of: BTreeMap<Sight, usize>,
    /// Per view after the first: for a tier, whether it sees each product.
    members: Vec<Option<Vec<bool>>>,
    /// Per product: the namespaces its installed entities stand in (empty when the
    /// environment places no entity).
    standing: Vec<BTreeSet<String>>,
}

/// What a view other than [`Views::ALL`] sees.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(super) enum Sight {
    /// A namespace and the global one.
    From(String),
    /// One tier of a serving set: a namespace (`""`, the global one), the labels its
    /// members carry (none asked: any), and whether it is the consumer's own namespace,
    /// where a plan creates a provider not installed (with those labels). Its members are
    /// worked out when it is made.
    Tier {
        namespace: String,
        labels: Option<BTreeMap<String, String>>,
        home: bool,
    },
    /// The installed entity a requirement is bound to (tier 1): its product alone.
    Bound { entity: String },
}

impl Views {
    /// The view that sees every product.
    pub const ALL: usize = 0;

    pub fn new(standing: Vec<BTreeSet<String>>) -> Views {
        Views {
            sights: Vec::new(),
            of: BTreeMap::new(),
            members: Vec::new(),
            standing,
        }
    }

    /// The view of entities standing in `namespace`, made on first use.
    pub fn of(&mut self, namespace: &str) -> usize {
        self.sight(Sight::From(namespace.to_owned()), || None)
    }

    /// The view that sees `sight`, made on first use (a tier's `members` asked then).
    pub fn sight(&mut self, sight: Sight, members: impl FnOnce() -> Option<Vec<bool>>) -> usize {
        if let Some(&view) = self.of.get(&sight) {
            return view;
        }
        self.sights.push(sight.clone());
        self.members.push(members());
        self.of.insert(sight, self.sights.len());
        self.sights.len()
    }

    /// What view `view` sees (`None` for [`Views::ALL`]).
    pub fn sight_of(&self, view: usize) -> Option<&Sight> {
        view.checked_sub(1).map(|i| &self.sights[i])
    }

    /// Where product `q`'s installed entities stand.
    pub fn standing(&self, q: usize) -> &BTreeSet<String> {
        &self.standing[q]
    }

    /// Whether view `view` may see only some entities of a product it sees: a namespace
    /// those in it and the global one, a tier those standing in it, a binding its entity
    /// (every view but [`Views::ALL`]). A product kept as today is judged there by those
    /// alone (moved, its entities all run one release, so any of them says it).
    pub fn narrows(view: usize) -> bool {
        view != Views::ALL
    }

    /// Whether view `view` sees entity `entity`, placed at `placement`, of a product it
    /// sees ([`Views::narrows`]).
    pub fn sees_entity(
        &self,
        view: usize,
        entity: &str,
        placement: &crate::instance::Placement,
    ) -> bool {
        match self.sight_of(view) {
            Some(Sight::Bound { entity: bound }) => bound == entity,
            Some(Sight::Tier {
                namespace, labels, ..
            }) => {
                placement.namespace == *namespace
                    && labels.as_ref().is_none_or(|l| placement.carries(l))
            }
            Some(Sight::From(ns)) => placement.namespace.is_empty() || placement.namespace == *ns,
            None => true,
        }
    }

    /// Whether view `view` sees only the entities standing in it (a tier) or one entity (a
    /// binding): the declarer's own entities count there only where they stand so, whereas
    /// a namespace's view sees them as placed, as every world does.
    pub fn apart(&self, view: usize) -> bool {
        matches!(
            self.sight_of(view),
            Some(Sight::Tier { .. } | Sight::Bound { .. })
        )
    }

    /// Whether view `view` sees product `q`.
    pub fn sees(&self, view: usize, q: usize) -> bool {
        let Some(i) = view.checked_sub(1) else {
            return true;
        };
        if let Some(members) = &self.members[i] {
            return members[q];
        }
        let standing = &self.standing[q];
        match &self.sights[i] {
            Sight::From(ns) => {
                standing.is_empty() || standing.contains("") || standing.contains(ns)
            }
            Sight::Tier { .. } | Sight::Bound { .. } => false,
        }
    }
}

/// What an item's declaring instances make true themselves (their other entities), per
/// perspective and atom: a constant of the model, worked out once per item.
#[derive(Debug)]
pub(super) struct Own {
    /// The item's atom ids, sorted.
    ids: Vec<usize>,
    /// Per perspective, per atom (in `ids` order).
    holds: Vec<bool>,
}

/// The atom ids of a compiled term.
pub(super) fn atom_ids(term: &Compiled, out: &mut Vec<usize>) {
    match term {
        Compiled::Atom(id) => out.push(*id),
        Compiled::AnyOf(c) | Compiled::AllOf(c) | Compiled::NoneOf(c) => {
            for t in c {
                atom_ids(t, out);
            }
        }
    }
}

/// The verdicts remembered for one atom, one cell per (candidate product, value): 0 not judged
/// yet, 1 false, 2 true. A candidate's cells are `Keep`, `Absent`, then each release. Cells
/// are atomics, so parallel questions read and fill them without a lock; two threads judging
/// one cell at once write the same answer.
#[derive(Debug)]
pub(super) struct Table {
    /// The candidates, sorted; `None`: every product, by its index.
    products: Option<Vec<usize>>,
    /// Per candidate: where its cells start.
    start: Vec<usize>,
    cells: Box<[AtomicU8]>,
}

impl Table {
    fn new(model: &Model<'_>, products: Option<Vec<usize>>) -> Table {
        let mut start = Vec::new();
        let mut size = 0;
        let mut add = |q: usize| {
            start.push(size);
            size += model.vars[q].releases.len() + 2;
        };
        match &products {
            Some(list) => list.iter().copied().for_each(&mut add),
            None => (0..model.vars.len()).for_each(&mut add),
        }
        Table {
            products,
            start,
            cells: (0..size).map(|_| AtomicU8::new(0)).collect(),
        }
    }

    /// The cell of `q` under `value`, when `q` is a candidate.
    fn cell(&self, q: usize, value: Value) -> Option<&AtomicU8> {
        let pos = match &self.products {
            Some(list) => list.binary_search(&q).ok()?,
            None => q,
        };
        let offset = match value {
            Value::Keep => 0,
            Value::Absent => 1,
            Value::Release(i) => 2 + i,
        };
        self.cells.get(self.start.get(pos)? + offset)
    }
}

impl FacetIndex {
    /// Whether atom `id` is made true by the instances of `q` under `value` alone (never
    /// `q`'s own declaration: the products counted are other than the declarer).
    pub(super) fn verdict(&self, model: &Model<'_>, id: usize, q: usize, value: Value) -> bool {
        // Kept as today, the entities a narrowing view sees run their own releases, whatever
        // the others of their product run: judged, and remembered, in that view alone.
        let view = self.atoms.view[id];
        let narrowed = value == Value::Keep && Views::narrows(view);
        let id = if narrowed { id } else { self.atoms.base[id] };
        let table = self.atoms.verdicts[id].get_or_init(|| {
            let products = match &self.atoms.interned[id] {
                Atom::Rule(_) => None,
                _ => Some(self.candidates(model, id)),
            };
            Table::new(model, products)
        });
        let cell = table.cell(q, value);
        match cell.map(|c| c.load(Ordering::Relaxed)) {
            Some(1) => return false,
            Some(2) => return true,
            _ => {}
        }
        let running = if narrowed {
            self.running_in(model, view, q, value)
        } else {
            self.running(model, q, value)
        };
        let v =
            crate::constraint::atom_holds_among(running, model.runtime, &self.atoms.interned[id]);
        if let Some(c) = cell {
            c.store(1 + u8::from(v), Ordering::Relaxed);
        }
        v
    }

    /// The products that can make atom `id` true (some value of theirs): a product atom's
    /// product, a capability's providers, every product for a rule; none for a runtime.
    fn candidates(&self, model: &Model<'_>, id: usize) -> Vec<usize> {
        let mut out: Vec<usize> = match &self.atoms.interned[id] {
            Atom::Product { product, .. } => {
                model.index.get(product).copied().into_iter().collect()
            }
            Atom::Capability { name, .. } => self.providers.get(name).cloned().unwrap_or_default(),
            Atom::Runtime { .. } => Vec::new(),
            Atom::Rule(_) => (0..model.vars.len()).collect(),
        };
        out.retain(|&q| self.sees(id, q));
        out
    }

    /// Whether atom `id`'s view sees product `q` ([`Views`]).
    pub(super) fn sees(&self, id: usize, q: usize) -> bool {
        self.views.sees(self.atoms.view[id], q)
    }

    /// How many products make atom `id` true today.
    fn today_count(&self, model: &Model<'_>, id: usize) -> usize {
        *self.atoms.today[id].get_or_init(|| {
            self.candidates(model, id)
                .into_iter()
                .filter(|&q| self.verdict(model, id, q, self.today[q]))
                .count()
        })
    }

    /// Whether item `k` holds in `state`, which differs from today exactly in `moved` (its
    /// declarer at the item's value): [`FacetIndex::holds`], for one of many items judged in
    /// the same state, `Others` remembering what is worked out per atom there.
    #[must_use]
    pub(crate) fn holds_in(
        &self,
        model: &Model<'_>,
        k: usize,
        state: &[Value],
        moved: (&[usize], &Others),
    ) -> bool {
        let d = self.items[k].declarer;
        (0..self.perspectives(model, k)).all(|j| {
            self.compiled[k].eval(&mut |id| {
                self.own_holds(model, k, j, id)
                    || self.by_others(model, id, d, moved, |q| {
                        self.verdict(model, id, q, state[q])
                    })
            })
        })
    }

    /// For kept item `k`, failing today: sets of products (other than its declarer) such
    /// that, while every product of one of them stays where it is today and the declarer
    /// keeps, the item still fails. A perspective that fails today fails still while a part
    /// of it keeps today's truth: a false atom while every product that can make it true
    /// stays, a true one while one product that makes it true today stays (always when the
    /// declarer's own instances make it true; a runtime atom always); `all-of` false while
    /// one false member stays false, true while every member stays; `any-of` the other way
    /// round; `none-of` false while one true member stays true, true while every member
    /// stays false. Sound however the sets are cut short (fewer ways to stay only ask
    /// more): at most [`STUCK`] alternatives, the smallest kept, a conjunction's
    /// combinations too.
    pub(super) fn stuck(&self, model: &Model<'_>, k: usize) -> Vec<Vec<usize>> {
        let d = self.items[k].declarer;
        let mut out: Vec<BTreeSet<usize>> = Vec::new();
        let today = Others::default();
        for j in 0..self.perspectives(model, k) {
            let mut truth = |id: usize| {
                self.own_holds(model, k, j, id)
                    || self.by_others(model, id, d, (&[], &today), |q| {
                        self.verdict(model, id, q, self.today[q])
                    })
            };
            let term = &self.compiled[k];
            if !term.eval(&mut truth) {
                out.extend(self.keeps(model, d, term, &mut truth));
            }
        }
        cut(out)
            .into_iter()
            .map(|s| s.into_iter().collect())
            .collect()
    }

    /// The sets of products whose staying keeps `term` at its truth of today (`truth`: its
    /// atoms' truths today), as [`FacetIndex::stuck`] says.
    fn keeps(
        &self,
        model: &Model<'_>,
        d: usize,
        term: &Compiled,
        truth: &mut dyn FnMut(usize) -> bool,
    ) -> Vec<BTreeSet<usize>> {
        let (members, one_keeps) = match term {
            Compiled::Atom(id) => {
                let atom = &self.atoms.interned[*id];
                let names = self.made_true_by_any(model, atom, || *id);
                let others = names.iter().copied().filter(|&q| q != d);
                if !truth(*id) {
                    // false while no product that can make it true moves
                    return vec![others.collect()];
                }
                // true while one product that makes it true today stays; none: the
                // declarer's own instances make it true, and it keeps
                let making: Vec<BTreeSet<usize>> = others
                    .filter(|&q| self.verdict(model, *id, q, self.today[q]))
                    .map(|q| BTreeSet::from([q]))
                    .collect();
                return if making.is_empty() {
                    vec![BTreeSet::new()]
                } else {
                    making
                };
            }
            // whether one member keeping its truth keeps the term's
            Compiled::AnyOf(c) => (c, term.eval(truth)),
            Compiled::AllOf(c) | Compiled::NoneOf(c) => (c, !term.eval(truth)),
        };
        if one_keeps {
            // a member whose truth decides the term's: any-of's true ones, all-of's false
            // ones, none-of's true ones
            let decides = !matches!(term, Compiled::AllOf(_));
            let mut out = Vec::new();
            for m in members {
                if m.eval(truth) == decides {
                    out.extend(self.keeps(model, d, m, truth));
                }
            }
            cut(out)
        } else {
            // every member keeps: one way of each, combined (at most STUCK x STUCK before
            // the cut)
            let mut out: Vec<BTreeSet<usize>> = vec![BTreeSet::new()];
            for m in members {
                let alternatives = cut(self.keeps(model, d, m, truth));
                out = cut(out
                    .iter()
                    .flat_map(|a| alternatives.iter().map(move |b| a | b))
                    .collect());
            }
            out
        }
    }

    /// [`FacetIndex::atom_by_declarer`] for atom `id` of item `k`, perspective `j`,
    /// remembered per item.
    pub(crate) fn own_holds(&self, model: &Model<'_>, k: usize, j: usize, id: usize) -> bool {
        if self.own[k].get().is_none() {
            self.remember_own(model, k);
        }
        // (set above: the fallback never runs)
        let own = self.own[k].get_or_init(|| self.own_of_value(model, &[k]).remove(0));
        match own.ids.binary_search(&id) {
            Ok(pos) => own.holds[j * own.ids.len() + pos],
            Err(_) => self.atom_by_declarer(model, k, j, id),
        }
    }

    /// Remembers [`Own`] of item `k` and of every other item its declarer has at its
    /// value: they share one world of the declarer's instances (a product in many
    /// namespaces has an item per namespace at each release: a world each was quadratic).
    /// Set outside any initialization, so threads remembering two items of one value never
    /// wait on each other.
    fn remember_own(&self, model: &Model<'_>, k: usize) {
        let item = &self.items[k];
        let mut group: Vec<usize> = self
            .items_of(item.declarer, item.value)
            .iter()
            .copied()
            .filter(|&other| self.own[other].get().is_none())
            .collect();
        if !group.contains(&k) {
            group.push(k);
        }
        for (other, own) in group.iter().zip(self.own_of_value(model, &group)) {
            // another thread may have set it meanwhile: the same value
            let _ = self.own[*other].set(own);
        }
    }

    /// [`Own`] of each of `items`, all declared by one product at one value.
    fn own_of_value(&self, model: &Model<'_>, items: &[usize]) -> Vec<Own> {
        let item = &self.items[items[0]];
        let mut running = self.running(model, item.declarer, item.value);
        // the declaring entity sees those of its product in its namespace or the global one
        super::as_placed(model, &mut running);
        let ids_of = |k: usize| {
            let mut ids = Vec::new();
            atom_ids(&self.compiled[k], &mut ids);
            ids.sort_unstable();
            ids.dedup();
            ids
        };
        let ids: Vec<Vec<usize>> = items.iter().map(|&k| ids_of(k)).collect();
        // a tier's or a binding's atoms see only those of them standing in it
        let views: BTreeSet<usize> = ids
            .iter()
            .flatten()
            .map(|&id| self.atoms.view[id])
            .collect();
        let worlds = super::own_worlds(model, &self.views, &running, views);
        let own_of = |k: usize, ids: Vec<usize>| {
            let holds = (0..self.perspectives(model, k))
                .flat_map(|j| ids.iter().map(move |&id| (j, id)).collect::<Vec<_>>())
                .map(|(j, id)| {
                    worlds
                        .of(self.atoms.view[id])
                        .atom_holds(self.declarer_name(model, k, j), &self.atoms.interned[id])
                })
                .collect();
            Own { ids, holds }
        };
        items
            .iter()
            .zip(ids)
            .map(|(&k, ids)| own_of(k, ids))
            .collect()
    }

    /// Whether atom `id` is made true by products other than the declarer `d`, when product
    /// `q`'s instances make it true exactly when `truth(q)` says, and the state differs
    /// from today in `moved` (sorted; products half-way through a rolling upgrade count as
    /// moved). A product atom is about its product alone; an existential one (capability,
    /// rule) is counted: the products that made it true today, less the moved ones that
    /// did, plus the moved ones that do now.
    pub(super) fn by_others(
        &self,
        model: &Model<'_>,
        id: usize,
        d: usize,
        (moved, others): (&[usize], &Others),
        truth: impl Fn(usize) -> bool,
    ) -> bool {
        let atom = &self.atoms.interned[id];
        match atom {
            Atom::Runtime { .. } => false, // the declarer's world has the runtime
            Atom::Product { .. } => self
                .product_of(model, id)
                .is_some_and(|q| q != d && truth(q)),
            Atom::Capability { .. } | Atom::Rule(_) => {
                let today = self.today_count(model, id);
                if today > moved.len() + 1 {
                    // some product other than the declarer that made it true has not moved
                    return true;
                }
                let list = self.existential(model, id);
                if list.len() <= moved.len() {
                    // fewer products can make it true than have moved: ask each of them
                    return list.iter().any(|&q| q != d && truth(q));
                }
                let did = |q: usize| self.verdict(model, id, q, self.today[q]);
                // today's supporters that have not moved still make it true
                let kept = remembered(&others.kept, id, || {
                    today - both(moved, list).filter(|&q| did(q)).count()
                });
                let mine = usize::from(
                    moved.binary_search(&d).is_err() && list.binary_search(&d).is_ok() && did(d),
                );
                if kept > mine {
                    return true;
                }
                // else a moved one (other than the declarer) that makes it true now
                remembered(&others.now, id, || {
                    both(moved, list)
                        .filter(|&q| truth(q))
                        .take(2)
                        .collect::<Vec<_>>()
                })
                .iter()
                .any(|&q| q != d)
            }
        }
    }

    /// The products that can make existential atom `id` true: a capability's providers (any
    /// version), a rule's support; empty for other atoms.
    pub(super) fn existential(&self, model: &Model<'_>, id: usize) -> &[usize] {
        match &self.atoms.interned[id] {
            Atom::Capability { name, .. } => self.atoms.providers[id].get_or_init(|| {
                let mut list = self.providers.get(name).cloned().unwrap_or_default();
                list.retain(|&q| self.sees(id, q));
                list
            }),
            Atom::Rule(_) => self.support(model, id),
            Atom::Product { .. } | Atom::Runtime { .. } => &[],
        }
    }

    /// The model index of product atom `id`'s product.
    pub(super) fn product_of(&self, model: &Model<'_>, id: usize) -> Option<usize> {
        let lookup = |id: usize| match &self.atoms.interned[id] {
            Atom::Product { product, .. } => model
                .index
                .get(product)
                .copied()
                .filter(|&q| self.sees(id, q)),
            _ => None,
        };
        let list = self
            .atoms
            .products
            .get_or_init(|| (0..self.atoms.interned.len()).map(lookup).collect());
        match list.get(id) {
            Some(&q) => q,
            None => lookup(id), // interned after the list was made
        }
    }

    /// The id of an atom some item has, in the view that sees every product.
    ///
    /// # Panics
    /// When no item of the index has `atom` (a caller's fault: every atom asked for is read
    /// from the index's items).
    pub fn atom_id(&self, atom: &Atom) -> usize {
        let text = self.atoms.words.get(&crate::constraint::atom_text(atom));
        text.and_then(|text| self.atoms.ids.get(&(text, Views::ALL)))
            .copied()
            .expect("an atom some item has is interned")
    }

    /// The atom of id `id` ([`FacetIndex::atom_id`]).
    pub(crate) fn atom(&self, id: usize) -> &Atom {
        &self.atoms.interned[id]
    }

    /// Item `k`'s term with its atoms interned.
    pub(crate) fn compiled(&self, k: usize) -> &Compiled {
        &self.compiled[k]
    }

    /// Whether some value of `q` (as today, or any release) makes atom `id` true.
    ///
    /// A rule that does not read `version` gives a release the verdict of another release
    /// of `q` with equal properties (the same entities run either), so only the releases
    /// whose properties differ from the last one judged false are judged: on the hard family
    /// with capabilities at 5,000, every explanation round judged each rule on 200,000
    /// releases, most of them false and alike within their product.
    fn satisfiable_by(&self, model: &Model<'_>, id: usize, q: usize) -> bool {
        let var = &model.vars[q];
        if self.verdict(model, id, q, var.domain[0]) {
            return true;
        }
        let alike = match &self.atoms.interned[self.atoms.base[id]] {
            Atom::Rule(rule) => !rule.reads_version(),
            _ => false,
        };
        let mut last_false = None;
        for (i, release) in var.releases.iter().enumerate() {
            let properties = &release.facets().properties;
            if alike && last_false == Some(properties) {
                continue;
            }
            if self.verdict(model, id, q, Value::Release(i)) {
                return true;
            }
            last_false = Some(properties);
        }
        false
    }

    /// The products some value of which satisfies rule atom `id`, worked out once per model
    /// (a rule is evaluated on every release once).
    pub(super) fn support(&self, model: &Model<'_>, id: usize) -> &[usize] {
        self.atoms.support[id].get_or_init(|| self.find_support(model, id, false))
    }

    /// Works out now, on every thread, the support of every rule atom an item has and which
    /// items each product's moves may change through them ([`FacetIndex::affected_by`]):
    /// what a search would otherwise work out on the first thread to ask, the others
    /// waiting (on the hard family with capabilities at 5,000, 0.36 s for the last
    /// explanation round's model, which reads every product whole). Call it before asking
    /// questions in parallel; it is a matter of speed only.
    pub fn prepare_rules(&self, model: &Model<'_>) {
        let bases: BTreeSet<usize> = self
            .ruled
            .iter()
            .flat_map(|&k| &self.items[k].rules)
            .map(|&id| self.atoms.base[id])
            .collect();
        for &id in &bases {
            if self.atoms.support[id].get().is_none() {
                // worked out outside the cell: a thread that helps here may not wait on it
                let found = self.find_support(model, id, true);
                let _ = self.atoms.support[id].set(found);
            }
        }
        let _ = self.ruled_by(model);
    }

    /// [`FacetIndex::support`] of `id` worked out, over the products on every thread when
    /// `parallel`.
    fn find_support(&self, model: &Model<'_>, id: usize, parallel: bool) -> Vec<usize> {
        use rayon::prelude::*;
        let base = self.atoms.base[id];
        if base != id {
            let all = self.support(model, base);
            return all.iter().copied().filter(|&q| self.sees(id, q)).collect();
        }
        let carried = model.memo.carried.get().map(|c| &c.support);
        let rule = carried.map(|_| crate::constraint::atom_text(&self.atoms.interned[id]));
        let known = carried.zip(rule.as_ref()).map(|(c, rule)| c.of(rule));
        let holds = |q: usize| -> bool {
            let var = &model.vars[q];
            match known.as_ref().and_then(|k| k.get(&var.product)) {
                Some(&(had, holds)) if had == var.releases.len() => holds,
                _ => self.satisfiable_by(model, id, q),
            }
        };
        let products = model.vars.len();
        let held: Vec<bool> = if parallel {
            (0..products).into_par_iter().map(holds).collect()
        } else {
            (0..products).map(holds).collect()
        };
        if let (Some(carried), Some(rule)) = (carried, rule) {
            let now = model
                .vars
                .iter()
                .zip(&held)
                .map(|(var, &h)| (var.product.clone(), (var.releases.len(), h)))
                .collect();
            carried.keep(rule, now);
        }
        (0..products).filter(|&q| held[q]).collect()
    }

    /// Per rule atom judged from the view that sees everything: the products some value of
    /// which makes it true.
    #[cfg(test)]
    pub(super) fn rule_supports(&self, model: &Model<'_>) -> BTreeMap<String, Vec<String>> {
        (0..self.atoms.interned.len())
            .filter(|&id| {
                self.atoms.base[id] == id && matches!(self.atoms.interned[id], Atom::Rule(_))
            })
            .map(|id| {
                let products = self.support(model, id).iter();
                (
                    crate::constraint::atom_text(&self.atoms.interned[id]),
                    products
                        .map(|&q| model.vars[q].product.to_string())
                        .collect(),
                )
            })
            .collect()
    }

    /// Whether a move of `q` may change item `k`: `q` is a product it names, or one some
    /// value of which satisfies a rule in it.
    pub(super) fn names(&self, model: &Model<'_>, k: usize, q: usize) -> bool {
        let item = &self.items[k];
        item.fixed.binary_search(&q).is_ok()
            || item
                .rules
                .iter()
                .any(|&rule| self.support(model, rule).binary_search(&q).is_ok())
    }

    /// Whether atom `atom` ([`FacetIndex::atom_id`]) is made true by the instances of `q` under `value`
    /// alone: the atoms are existential over entities, and a product atom is about one
    /// product only.
    #[must_use]
    pub fn made_true_by(&self, model: &Model<'_>, atom: usize, q: usize, value: Value) -> bool {
        self.verdict(model, atom, q, value)
    }
}

impl FacetIndex {
    /// The atom ids of item `k`, sorted.
    pub(crate) fn item_atoms(&self, k: usize) -> Vec<usize> {
        let mut ids = Vec::new();
        atom_ids(&self.compiled[k], &mut ids);
        ids.sort_unstable();
        ids.dedup();
        ids
    }

    /// Whether product `q`'s instances under `was` and under `now` make some atom of item
    /// `k` true differently: when they do not, a move of `q` alone leaves `k`'s truth as it
    /// was (an item's truth is a function of each other product's verdicts on its atoms).
    fn verdicts_differ(
        &self,
        model: &Model<'_>,
        k: usize,
        q: usize,
        was: Value,
        now: Value,
    ) -> bool {
        self.item_atoms(k)
            .into_iter()
            .any(|id| self.verdict(model, id, q, was) != self.verdict(model, id, q, now))
    }

    /// What moving product `p` alone from `before` to `after` (`before[p] != after[p]`, the
    /// rest equal) breaks, product by product: the items failing in `after` that held in
    /// `before`, among those the products [`FacetIndex::concerned`] by `p` declare at their
    /// values. The same set as [`FacetIndex::failing_at`] of `after` less that of `before`,
    /// judged only where the move can change a verdict: `p`'s own items at its new value,
    /// and the items of others naming `p` on one of whose atoms `p`'s verdict changes.
    #[must_use]
    pub fn added_by_move(
        &self,
        model: &Model<'_>,
        before: &[Value],
        after: &[Value],
        p: usize,
    ) -> BTreeSet<usize> {
        let mut out = BTreeSet::new();
        if before[p] == after[p] {
            return out;
        }
        let was_moved = self.moved(before);
        let mut now_moved = was_moved.clone();
        match (now_moved.binary_search(&p), after[p] == self.today[p]) {
            (Ok(at), true) => {
                now_moved.remove(at);
            }
            (Err(at), false) => now_moved.insert(at, p),
            _ => {}
        }
        for &k in self.items_of(p, after[p]) {
            if !self.holds(model, k, after, &now_moved) {
                out.insert(k);
            }
        }
        for k in self.affected_by(model, p) {
            let d = self.items[k].declarer;
            if d == p
                || after[d] != self.items[k].value
                || !self.names(model, k, p)
                || !self.verdicts_differ(model, k, p, before[p], after[p])
            {
                continue;
            }
            if !self.holds(model, k, after, &now_moved) && self.holds(model, k, before, &was_moved)
            {
                out.insert(k);
            }
        }
        out
    }

    /// Products whose moves can change item `k`'s truth in each of `states` (its declarer at
    /// the item's value in each), besides its declarer: where none of them moves, `k` holds
    /// or fails in each as it does now. A product atom reads its product; an existential atom
    /// true in every state by one product (other than the declarer) reads that product alone,
    /// else every product that can make it true and may still move (`movable`); an atom the
    /// declarer's own instances make true in every perspective reads nothing.
    #[must_use]
    pub fn reads(
        &self,
        model: &Model<'_>,
        k: usize,
        states: &[&[Value]],
        movable: impl Fn(usize) -> bool,
    ) -> BTreeSet<usize> {
        let d = self.items[k].declarer;
        let mut out = BTreeSet::new();
        for id in self.item_atoms(k) {
            if (0..self.perspectives(model, k)).all(|j| self.own_holds(model, k, j, id)) {
                continue;
            }
            match &self.atoms.interned[id] {
                Atom::Runtime { .. } => {}
                Atom::Product { .. } => {
                    out.extend(self.product_of(model, id).filter(|&q| q != d));
                }
                Atom::Capability { .. } | Atom::Rule(_) => {
                    let list = self.existential(model, id);
                    let steady = list.iter().copied().find(|&q| {
                        q != d && states.iter().all(|s| self.verdict(model, id, q, s[q]))
                    });
                    match steady {
                        Some(q) => {
                            out.insert(q);
                        }
                        None => out.extend(list.iter().copied().filter(|&q| q != d && movable(q))),
                    }
                }
            }
        }
        out
    }
}
