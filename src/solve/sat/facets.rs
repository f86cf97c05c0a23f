//! Section 9 items as clauses, encoded as lazily as the products they name.
//!
//! An item declared by value `a` of product `p` is the clause "not `a`, or the item holds",
//! where "the item holds" is a literal defined from the item's term (Tseitin, one-sided as
//! Plaisted and Greenbaum have it: each compound and atom gets a literal that implies it, or
//! is implied by it under a negation, never both unless both places need it; the clause only
//! needs its literal to imply the item, so the answers are the same). An atom is existential
//! over products: it holds when its declarer's own instances make it true (a constant), or
//! when some product it names takes a value whose instances make it true, so its literal
//! stands for the disjunction of those values' literals. That disjunction is only whole when
//! every product the item names is encoded; until then the item waits (*pending*) and is left
//! out of the encoding, which keeps the encoded part a relaxation of the question (the parent
//! module's argument). A rule atom is the exception: any product may make it true, so its
//! item waits only for the products its other atoms name, and the rule's candidates not
//! encoded yet stand in its disjunction as one free literal ([`Rest`]), still a relaxation.
//! After each answer, [`FacetClauses::reached`] judges on the whole state every pending item
//! its answer chooses, every chosen item that leans on a rest, and every item of a product
//! not encoded that a move may have changed; what fails brings into the encoding the products
//! it waits for, the rule candidates the answer may have counted on wrongly, or its declarer.
//! The encoded set grows, so this ends. (Waiting for every candidate of a rule brought about
//! a thousand products into one conflict search on the hard family with capabilities at
//! 5,000, and cost most of an `upgrades` run there.)
//!
//! The engine's questions and its conflict search share this; the conflict search gives each
//! item a selector literal (a part of the conflict it can name), and each catalog provider of
//! a capability that is not a variable one too (`missing`): the capability atom is also true
//! by that provider while its selector is dropped, which is how `--allow-install` comes to be
//! offered for a capability as it is for a product dependency.

use std::collections::BTreeMap;

use rustsat::types::Lit;

use super::Encoded;
use super::cnf::Cnf;
use crate::manifest::Atom;
use crate::product::ProductId;
use crate::solve::facets::{Compiled, FacetIndex};
use crate::solve::model::{Model, Value};

/// An item waiting for the products it names: the literal of its declaring value and its
/// selector, if any, and how many of the products it names (in `FacetIndex::mentions`
/// order) are known to be encoded: the encoded set only grows, so each is looked at once.
/// `seq` is its place in declaration order: items are encoded in that order, whatever they
/// waited for, so the clauses (and the solver's answers) do not depend on it.
struct Pending {
    seq: usize,
    item: usize,
    value: Lit,
    selector: Option<Lit>,
    encoded: usize,
}

/// A term's truth in the encoding: known already, or a literal.
#[derive(Clone, Copy)]
enum Truth {
    Const(bool),
    Lit(Lit),
}

/// Which way a literal defined for a term must agree with it (Plaisted-Greenbaum): an
/// item's clause only ever needs its literal to *imply* the item, so each subterm needs one
/// direction, the one its place under negations gives. Half the clauses of a full
/// equivalence, and an existential atom over many values needs one clause, not one per value.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Polarity {
    /// The literal implies the term.
    Implies,
    /// The term implies the literal.
    ImpliedBy,
}

impl Polarity {
    fn flip(self) -> Self {
        match self {
            Polarity::Implies => Polarity::ImpliedBy,
            Polarity::ImpliedBy => Polarity::Implies,
        }
    }
}

/// The literal of "some product other than the declarer makes an atom true", and which of its
/// directions are in the encoding already.
struct AtomLit {
    truth: Truth,
    /// The values' literals it stands for (kept to add the other direction when needed).
    lits: Vec<Lit>,
    implies: bool,
    implied_by: bool,
    /// A rule atom's candidates not encoded yet, when there are some ([`Rest`]).
    rest: Option<Rest>,
}

/// The candidates of a rule atom that are not encoded yet (a rule may be made true by most
/// products of a catalog), standing in the atom's disjunction as one literal `lit` that
/// nothing else constrains: "one of them makes it true". The encoding stays a relaxation
/// (any state sets `lit` to whether one of them does). When one of them is encoded, its
/// values that make the atom true join the disjunction and a new literal stands for those
/// still left (`lit` implies the newcomers or it: a chain, so no clause is written twice);
/// the last one closes the chain. An answer that leans on `lit` wrongly shows as an item
/// failing in the whole state: [`FacetClauses::reached`] then asks for the candidates that
/// would make it right.
struct Rest {
    lit: Lit,
    /// The candidates not encoded yet, sorted.
    left: Vec<usize>,
    /// How many of them make the atom true at their baseline value.
    true_left: usize,
}

/// The items of one question's encoding.
pub(super) struct FacetClauses<'m> {
    index: Option<&'m FacetIndex>,
    /// Items declared since the last [`FacetClauses::settle`].
    fresh: Vec<Pending>,
    /// Items waiting, by the product they wait for (the first they name not encoded yet).
    waiting: BTreeMap<usize, Vec<Pending>>,
    declared: usize,
    /// (declarer, atom id) -> the literal of "some other product makes it true".
    atoms: BTreeMap<(usize, usize), AtomLit>,
    /// The keys of `atoms` with a [`Rest`].
    partial: std::collections::BTreeSet<(usize, usize)>,
    /// The items encoded with a rule atom in [`FacetClauses::partial`] (checked after each
    /// answer).
    partial_items: std::collections::BTreeSet<usize>,
    /// The literals standing in atoms' disjunctions for a group of values still waiting
    /// (conflict search only): per product and group literal, each one's literal and atom.
    counted: Counted,
    /// In the conflict search only: the selector of each product that may not be installed
    /// (its `Missing` cause, shared with the search's own). A capability atom is then also
    /// true by a catalog provider that is not a variable once its selector is dropped, so a
    /// conflict can name it and `--allow-install` be checked as its fix. `None` in the
    /// engine's questions, which never see such products.
    pub missing: Option<BTreeMap<ProductId, Lit>>,
    /// Whether the question's baseline is every product's value today.
    baseline_today: bool,
}

impl<'m> FacetClauses<'m> {
    /// The items of a question whose baseline is `baseline` (the one [`FacetClauses::reached`]
    /// is then always given).
    pub fn new(model: &'m Model<'_>, baseline: &[Value]) -> Self {
        let index = model.facets();
        FacetClauses {
            index,
            baseline_today: index.is_some_and(|index| index.is_today(baseline)),
            fresh: Vec::new(),
            waiting: BTreeMap::new(),
            declared: 0,
            atoms: BTreeMap::new(),
            partial: std::collections::BTreeSet::new(),
            partial_items: std::collections::BTreeSet::new(),
            counted: Counted::new(),
            missing: None,
        }
    }

    /// The items `p` declares under `value` (nothing without section 9).
    pub fn items_of(&self, p: usize, value: Value) -> &'m [usize] {
        self.index.map_or(&[], |index| index.items_of(p, value))
    }

    pub fn index(&self) -> Option<&'m FacetIndex> {
        self.index
    }

    /// Adds item `k`, declared under the value whose literal is `value`, active while
    /// `selector` is assumed (always without one). Call [`FacetClauses::settle`] after.
    pub fn declare(&mut self, k: usize, value: Lit, selector: Option<Lit>) {
        self.fresh.push(Pending {
            seq: self.declared,
            item: k,
            value,
            selector,
            encoded: 0,
        });
        self.declared += 1;
    }

    /// Encodes every item declared since the last call, and every item that waited for one
    /// of `encoded_now` (the products just encoded), whose named products are all encoded
    /// now ([`FacetIndex::waits_for`]); `encoded_now` join the rule atoms they are
    /// candidates of ([`Rest`]). `baseline`: the value of each product not encoded.
    pub fn settle(
        &mut self,
        model: &Model<'_>,
        cnf: &mut Cnf,
        encoded: &[Option<Encoded>],
        baseline: &[Value],
        encoded_now: &[usize],
    ) {
        let Some(index) = self.index else { return };
        self.join_rests(model, cnf, encoded, baseline, encoded_now);
        let mut ready: Vec<Pending> = encoded_now
            .iter()
            .flat_map(|q| self.waiting.remove(q).unwrap_or_default())
            .collect();
        ready.append(&mut self.fresh);
        ready.sort_unstable_by_key(|p| p.seq);
        for mut p in ready {
            // an item may wait for many products (a tolerated one for those of its stuck
            // sets): resume where it stopped
            let waits_for = index.waits_for(p.item);
            while p.encoded < waits_for.len() && encoded[waits_for[p.encoded]].is_some() {
                p.encoded += 1;
            }
            match waits_for.get(p.encoded) {
                None => self.encode(model, cnf, encoded, baseline, &p),
                Some(&q) => self.waiting.entry(q).or_default().push(p),
            }
        }
    }

    /// The products `now`, just encoded, join each rule atom in [`FacetClauses::partial`]
    /// they are candidates of ([`Rest`]): their values that make the atom true join the
    /// disjunction, and one new literal stands for the candidates still left (none once
    /// they were the last). One literal per atom for the products encoded together, not one
    /// per product: where an answer reaches hundreds of products at once, the chains of
    /// rule atoms with many candidates were most of the conflict search's variables.
    fn join_rests(
        &mut self,
        model: &Model<'_>,
        cnf: &mut Cnf,
        encoded: &[Option<Encoded>],
        baseline: &[Value],
        now: &[usize],
    ) {
        let Some(index) = self.index else {
            return;
        };
        let keys: Vec<(usize, usize)> = self.partial.iter().copied().collect();
        for key in keys {
            let Some(atom) = self.atoms.get_mut(&key) else {
                continue;
            };
            let (Truth::Lit(t), Some(rest)) = (atom.truth, atom.rest.as_mut()) else {
                continue;
            };
            let id = key.1;
            let mut joining: Vec<Lit> = Vec::new();
            let left = rest.left.len();
            for &q in now {
                let (Some(e), Ok(at)) = (&encoded[q], rest.left.binary_search(&q)) else {
                    continue;
                };
                rest.left.remove(at);
                if index.made_true_by(model, id, q, baseline[q]) {
                    rest.true_left -= 1;
                }
                joining.extend(making_true(
                    model,
                    index,
                    cnf,
                    &mut self.counted,
                    (id, q),
                    e,
                ));
            }
            if rest.left.len() == left {
                continue; // none of them is a candidate left
            }
            let next = (!rest.left.is_empty()).then(|| cnf.fresh(false));
            let mut chained = joining.clone();
            chained.extend(next);
            if atom.implies {
                define(cnf, rest.lit, &chained, Polarity::Implies);
            }
            if atom.implied_by {
                define(cnf, t, &chained, Polarity::ImpliedBy);
            }
            atom.lits.extend(joining);
            if let Some(lit) = next {
                rest.lit = lit;
            } else {
                atom.rest = None;
                self.partial.remove(&key);
            }
        }
    }

    /// Group `group` of product `q` waited and is expanded into `values` (each with its new
    /// literal): each literal that stood in an atom's disjunction for the group ("one of its
    /// values, if it makes the atom true") now stands exactly for those of `values` that
    /// make it true.
    pub fn expanded(
        &mut self,
        model: &Model<'_>,
        cnf: &mut Cnf,
        q: usize,
        group: Lit,
        values: &[(Value, Lit)],
    ) {
        let Some(index) = self.index else { return };
        for (stands, id) in self.counted.remove(&(q, group)).unwrap_or_default() {
            let true_now = true_lits(model, index, (id, q), values.iter().copied());
            define(cnf, stands, &true_now, Polarity::Implies);
            define(cnf, stands, &true_now, Polarity::ImpliedBy);
        }
    }

    /// The items still waiting.
    fn pending(&self) -> impl Iterator<Item = &Pending> {
        self.waiting.values().flatten()
    }

    /// The clause of one item whose named products are all encoded.
    fn encode(
        &mut self,
        model: &Model<'_>,
        cnf: &mut Cnf,
        encoded: &[Option<Encoded>],
        baseline: &[Value],
        p: &Pending,
    ) {
        let Some(index) = self.index else { return };
        let term = index.compiled(p.item);
        // "or it is left as it is today", for a tolerated item: worked out once, when needed
        let mut as_left: Option<Truth> = None;
        for j in 0..index.perspectives(model, p.item) {
            let mut clause = vec![!p.value];
            clause.extend(p.selector.map(|s| !s));
            let at = (p.item, j);
            match self.term(model, cnf, (encoded, baseline), at, term, Polarity::Implies) {
                Truth::Const(true) => continue,
                Truth::Const(false) => {}
                Truth::Lit(l) => clause.push(l),
            }
            if index.items[p.item].tolerated {
                let left =
                    *as_left.get_or_insert_with(|| as_today(model, index, cnf, encoded, p.item));
                match left {
                    Truth::Const(true) => continue,
                    Truth::Const(false) => {}
                    Truth::Lit(l) => clause.push(l),
                }
            }
            cnf.add(&clause);
        }
    }

    /// A literal for `term` of item `k` in its perspective `j` (`at` = `(k, j)`), agreeing
    /// with it in the direction `polarity` says (Tseitin, one-sided).
    fn term(
        &mut self,
        model: &Model<'_>,
        cnf: &mut Cnf,
        state: (&[Option<Encoded>], &[Value]),
        at: (usize, usize),
        term: &Compiled,
        polarity: Polarity,
    ) -> Truth {
        let children = |s: &mut Self, cnf: &mut Cnf, c: &[Compiled], polarity| -> Vec<Truth> {
            c.iter()
                .map(|t| s.term(model, cnf, state, at, t, polarity))
                .collect()
        };
        match term {
            Compiled::Atom(id) => self.atom(model, cnf, state, at, *id, polarity),
            Compiled::AnyOf(c) => {
                let truths = children(self, cnf, c, polarity);
                or(cnf, &truths, polarity)
            }
            // all of: none of the negations
            Compiled::AllOf(c) => {
                let truths: Vec<Truth> = children(self, cnf, c, polarity)
                    .into_iter()
                    .map(not)
                    .collect();
                not(or(cnf, &truths, polarity.flip()))
            }
            Compiled::NoneOf(c) => {
                let truths = children(self, cnf, c, polarity.flip());
                not(or(cnf, &truths, polarity.flip()))
            }
        }
    }

    /// Atom `id` of item `k` for its perspective `j`: true by its declarer's instances, or by
    /// some named product's value (a rule's candidates not encoded yet stand as one literal:
    /// [`Rest`]).
    fn atom(
        &mut self,
        model: &Model<'_>,
        cnf: &mut Cnf,
        (encoded, baseline): (&[Option<Encoded>], &[Value]),
        (k, j): (usize, usize),
        id: usize,
        polarity: Polarity,
    ) -> Truth {
        let Some(index) = self.index else {
            return Truth::Const(true);
        };
        if index.own_holds(model, k, j, id) {
            return Truth::Const(true);
        }
        let declarer = index.items[k].declarer;
        let missing = &mut self.missing;
        let counted = &mut self.counted;
        let rule = matches!(index.atom(id), Atom::Rule(_));
        let known = self.atoms.entry((declarer, id)).or_insert_with(|| {
            let mut lits = Vec::new();
            let mut left = Vec::new();
            for &q in index.atom_candidates(model, id).iter() {
                if q == declarer {
                    continue;
                }
                let Some(e) = &encoded[q] else {
                    // only a rule's candidates (its `Rest`), and named products that cannot
                    // make it true, are left unencoded
                    if rule {
                        left.push(q);
                    }
                    continue;
                };
                lits.extend(making_true(model, index, cnf, counted, (id, q), e));
            }
            if let (Some(missing), Atom::Capability { name, range }) = (missing, index.atom(id)) {
                for q in model.outside_providers(name, range) {
                    let selector = *missing.entry(q).or_insert_with(|| cnf.fresh(true));
                    lits.push(!selector);
                }
            }
            let rest = (!left.is_empty()).then(|| {
                let true_left = left
                    .iter()
                    .filter(|&&q| index.made_true_by(model, id, q, baseline[q]))
                    .count();
                Rest {
                    lit: cnf.fresh(false),
                    left,
                    true_left,
                }
            });
            let truth = match (lits.as_slice(), &rest) {
                ([], None) => Truth::Const(false),
                ([one], None) => Truth::Lit(*one),
                _ => Truth::Lit(cnf.fresh(false)),
            };
            AtomLit {
                truth,
                lits,
                implies: false,
                implied_by: false,
                rest,
            }
        });
        if known.rest.is_some() {
            self.partial.insert((declarer, id));
            self.partial_items.insert(k);
        }
        if let Truth::Lit(t) = known.truth
            && (known.lits.len() > 1 || known.rest.is_some())
        {
            let done = match polarity {
                Polarity::Implies => &mut known.implies,
                Polarity::ImpliedBy => &mut known.implied_by,
            };
            if !*done {
                *done = true;
                let mut lits = known.lits.clone();
                lits.extend(known.rest.as_ref().map(|r| r.lit));
                define(cnf, t, &lits, polarity);
            }
        }
        known.truth
    }

    /// The products `values` (an answer: the question's baseline outside `order`, the
    /// products encoded) moves from today, in order.
    pub fn moved(&self, values: &[Value], order: &[usize]) -> Vec<usize> {
        match self.index {
            Some(index) if self.baseline_today => index.moved_among(values, order),
            Some(index) => index.moved(values),
            None => Vec::new(),
        }
    }

    /// Products to encode after an answer `values` (the whole state: encoded products at
    /// their answer, the rest at `baseline`): the products named by a pending item the answer
    /// chooses that fails, and the declarers (not encoded) of items a moved product breaks.
    pub fn reached(
        &self,
        model: &Model<'_>,
        baseline: &[Value],
        order: &[usize],
        values: &[Value],
        encoded: &[Option<Encoded>],
    ) -> Vec<usize> {
        let Some(index) = self.index else {
            return Vec::new();
        };
        let mut out = Vec::new();
        let moved = self.moved(values, order);
        let others = crate::solve::facets::Others::default();
        let moved = (moved.as_slice(), &others);
        for p in self.pending() {
            let item = &index.items[p.item];
            if encoded[item.declarer].is_some()
                && values[item.declarer] == item.value
                && !index.acceptable(model, p.item, values, moved)
            {
                out.extend(
                    index
                        .waits_for(p.item)
                        .iter()
                        .copied()
                        .filter(|&q| encoded[q].is_none()),
                );
            }
        }
        for &k in &self.partial_items {
            let item = &index.items[k];
            if values[item.declarer] != item.value {
                continue;
            }
            let wanted = self.rests_to_encode(model, k, values);
            if !wanted.is_empty() && !index.acceptable(model, k, values, moved) {
                out.extend(wanted);
            }
        }
        let mut affected: Vec<usize> = Vec::new();
        for &m in order {
            if values[m] == baseline[m] {
                continue;
            }
            // a product not encoded is at its baseline value in `values`: where that is
            // today, only the items declared under today's values can be chosen
            if self.baseline_today {
                affected.extend(
                    index
                        .affected_today(model, m)
                        .filter(|&(_, d)| encoded[d].is_none() && values[d] == baseline[d])
                        .map(|(k, _)| k),
                );
            } else {
                affected.extend(index.affected_by(model, m).filter(|&k| {
                    let d = index.items[k].declarer;
                    encoded[d].is_none() && values[d] == index.items[k].value
                }));
            }
        }
        affected.sort_unstable();
        affected.dedup();
        for k in affected {
            if !index.acceptable(model, k, values, moved) {
                out.push(index.items[k].declarer);
            }
        }
        out.sort_unstable();
        out.dedup();
        out
    }
}

impl FacetClauses<'_> {
    /// For item `k` (encoded, its declarer at its value in `values`), the candidates not
    /// encoded yet of its rule atoms whose [`Rest`] literal the answer may have leaned on
    /// wrongly: an atom false in the whole state whose literal may imply it (the answer may
    /// have counted on the rest; only encoding them all can tell), and an atom the rest
    /// makes true at baseline whose literal may be implied by it, made true by no encoded
    /// candidate (the answer may have counted on none of them; those must move, so they are
    /// encoded). An item failing in the whole state has at least one such atom: the others
    /// are encoded whole.
    fn rests_to_encode(&self, model: &Model<'_>, k: usize, values: &[Value]) -> Vec<usize> {
        let Some(index) = self.index else {
            return Vec::new();
        };
        let declarer = index.items[k].declarer;
        let mut out = Vec::new();
        for id in index.item_atoms(k) {
            let Some(atom) = self.atoms.get(&(declarer, id)) else {
                continue;
            };
            let Some(rest) = &atom.rest else { continue };
            let by_encoded = index.atom_candidates(model, id).iter().any(|&q| {
                q != declarer
                    && rest.left.binary_search(&q).is_err()
                    && index.made_true_by(model, id, q, values[q])
            });
            if atom.implies && !by_encoded && rest.true_left == 0 {
                out.extend(&rest.left);
            }
            if atom.implied_by && !by_encoded && rest.true_left > 0 {
                out.extend(
                    rest.left
                        .iter()
                        .filter(|&&q| index.made_true_by(model, id, q, values[q])),
                );
            }
        }
        out
    }
}

/// A literal implying "tolerated item `k` fails as it does today" ([`FacetIndex::as_today`]):
/// every product of one of its stuck sets at its value of today (its declarer keeps by the
/// clause it is part of), every one of them encoded.
fn as_today(
    model: &Model<'_>,
    index: &FacetIndex,
    cnf: &mut Cnf,
    encoded: &[Option<Encoded>],
    k: usize,
) -> Truth {
    let mut alternatives = Vec::new();
    for set in index.stuck_sets(k) {
        // (a set one product of which cannot stay is no way to stay as today)
        if let Some(moved) = moved(model, encoded, set) {
            let each: Vec<Truth> = moved.into_iter().map(Truth::Lit).collect();
            alternatives.push(not(or(cnf, &each, Polarity::ImpliedBy)));
        }
    }
    or(cnf, &alternatives, Polarity::Implies)
}

/// The literals of "`q` moved" (is not at its value of today) for each product of `set`;
/// `None` when one of them is not encoded or cannot stay.
fn moved(model: &Model<'_>, encoded: &[Option<Encoded>], set: &[usize]) -> Option<Vec<Lit>> {
    set.iter()
        .map(|&q| {
            let today = model.vars[q].domain[0];
            let e = encoded[q].as_ref()?;
            let i = e.domain.iter().position(|&v| v == today)?;
            Some(!e.lits[i])
        })
        .collect()
}

/// The literal of "tolerated item `k` is broken as today" for the repair level: implied by
/// its declarer keeping and every product of one of its stuck sets staying (every one of
/// them encoded).
pub(super) fn broken_as_today(
    model: &Model<'_>,
    index: &FacetIndex,
    cnf: &mut Cnf,
    encoded: &[Option<Encoded>],
    k: usize,
) -> Option<Lit> {
    let keep = {
        let e = encoded[index.items[k].declarer].as_ref()?;
        e.domain
            .iter()
            .position(|&v| v == Value::Keep)
            .map(|i| e.lits[i])?
    };
    let clauses: Vec<Vec<Lit>> = index
        .stuck_sets(k)
        .iter()
        .filter_map(|set| {
            // not kept, or one of the set moved, or broken as today
            let mut clause = vec![!keep];
            clause.extend(moved(model, encoded, set)?);
            Some(clause)
        })
        .collect();
    if clauses.is_empty() {
        return None; // it cannot stay, so the item is never left as today
    }
    let l = cnf.fresh(false);
    for mut clause in clauses {
        clause.push(l);
        cnf.add(&clause);
    }
    Some(l)
}

fn not(t: Truth) -> Truth {
    match t {
        Truth::Const(b) => Truth::Const(!b),
        Truth::Lit(l) => Truth::Lit(!l),
    }
}

/// A literal for the disjunction of `truths`, agreeing with it in the direction `polarity`
/// says (a constant when one is true or none is left).
fn or(cnf: &mut Cnf, truths: &[Truth], polarity: Polarity) -> Truth {
    let mut lits = Vec::new();
    for &t in truths {
        match t {
            Truth::Const(true) => return Truth::Const(true),
            Truth::Const(false) => {}
            Truth::Lit(l) => lits.push(l),
        }
    }
    match lits.as_slice() {
        [] => Truth::Const(false),
        [one] => Truth::Lit(*one),
        _ => {
            let t = cnf.fresh(false);
            define(cnf, t, &lits, polarity);
            Truth::Lit(t)
        }
    }
}

/// Per product and group literal: the literals standing for the group in atoms'
/// disjunctions, with their atoms ([`FacetClauses::expanded`]).
type Counted = BTreeMap<(usize, Lit), Vec<(Lit, usize)>>;

/// The literals of encoded product `q`'s values that make atom `id` true, for its
/// disjunction: each value's own, and for a group of values still waiting (conflict search):
/// the group's own literal when all of them make it true (the group stands for "one of its
/// values"), else, when some do, a new literal that implies the group's, standing for "it
/// takes one of them that does" (free otherwise: a relaxation, as the group is; an answer
/// taking the group expands it, and [`FacetClauses::expanded`] makes the literal exact).
/// The group's own literal serves most atoms: on the instances family with capabilities at
/// 5,000, one question's encoding went from 1.36 million variables to 0.49 million so.
/// Values the policy leaves out may so wait even where atoms read their product: on the
/// hard family with capabilities, a rule makes about a fifth of all products candidates.
fn making_true(
    model: &Model<'_>,
    index: &FacetIndex,
    cnf: &mut Cnf,
    counted: &mut Counted,
    (id, q): (usize, usize),
    e: &Encoded,
) -> Vec<Lit> {
    let values = e.domain.iter().copied().zip(e.lits.iter().copied());
    let mut lits = true_lits(model, index, (id, q), values);
    for (group, members) in &e.waiting {
        let making = members
            .iter()
            .filter(|&&v| index.made_true_by(model, id, q, v))
            .count();
        if making == members.len() {
            // every value of the group makes it true: the group's own literal says exactly
            // that (it stands for "one of its values", and expanding keeps it so)
            lits.push(*group);
        } else if making > 0 {
            let stands = cnf.fresh(false);
            cnf.add(&[!stands, *group]);
            counted.entry((q, *group)).or_default().push((stands, id));
            lits.push(stands);
        }
    }
    lits
}

/// The literals of those of `q`'s `values` that make atom `id` true.
fn true_lits(
    model: &Model<'_>,
    index: &FacetIndex,
    (id, q): (usize, usize),
    values: impl Iterator<Item = (Value, Lit)>,
) -> Vec<Lit> {
    values
        .filter(|&(v, _)| index.made_true_by(model, id, q, v))
        .map(|(_, l)| l)
        .collect()
}

/// The clauses that make `t` agree with the disjunction of `lits` in the direction
/// `polarity` says: `t` implies one of them, or each of them implies `t`.
fn define(cnf: &mut Cnf, t: Lit, lits: &[Lit], polarity: Polarity) {
    match polarity {
        Polarity::Implies => {
            let mut clause = Vec::with_capacity(lits.len() + 1);
            clause.push(!t);
            clause.extend(lits);
            cnf.add(&clause);
        }
        Polarity::ImpliedBy => {
            for &l in lits {
                cnf.add(&[!l, t]);
            }
        }
    }
}
