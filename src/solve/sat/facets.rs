//! Section 9 items as clauses, encoded as lazily as the products they name.
//!
//! An item declared by value `a` of product `p` is the clause "not `a`, or the item holds",
//! where "the item holds" is a literal defined from the item's term (Tseitin: each compound
//! and atom gets a literal equivalent to it). An atom is existential over products: it holds
//! when its declarer's own instances make it true (a constant), or when some product it names
//! takes a value whose instances make it true, so its literal is equivalent to the
//! disjunction of those values' literals. That disjunction is only whole when every product
//! the item names is encoded; until then the item waits (*pending*) and is left out of the
//! encoding, which keeps the encoded part a relaxation of the question (the parent module's
//! argument). After each answer, [`FacetClauses::reached`] judges on the whole state every
//! pending item its answer chooses, and every item of a product not encoded that a move may
//! have changed; what fails brings the products it names (or its declarer) into the
//! encoding, and the item is then encoded whole. The encoded set grows, so this ends.
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
use crate::constraint::atom_text;
use crate::manifest::{Atom, Term, TermKind};
use crate::product::ProductId;
use crate::solve::facets::FacetIndex;
use crate::solve::model::{Model, Value};

/// An item waiting for the products it names: the literal of its declaring value and its
/// selector, if any, and how many of the products it names (in `FacetIndex::mentions`
/// order) are known to be encoded: the encoded set only grows, so each is looked at once.
struct Pending {
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

/// The items of one question's encoding.
pub(super) struct FacetClauses<'m> {
    index: Option<&'m FacetIndex>,
    pending: Vec<Pending>,
    /// (declarer, atom in words) -> the literal of "some other product makes it true".
    atoms: BTreeMap<(usize, String), Truth>,
    /// In the conflict search only: the selector of each product that may not be installed
    /// (its `Missing` cause, shared with the search's own). A capability atom is then also
    /// true by a catalog provider that is not a variable once its selector is dropped, so a
    /// conflict can name it and `--allow-install` be checked as its fix. `None` in the
    /// engine's questions, which never see such products.
    pub missing: Option<BTreeMap<ProductId, Lit>>,
}

impl<'m> FacetClauses<'m> {
    pub fn new(model: &'m Model<'_>) -> Self {
        FacetClauses {
            index: model.facets(),
            pending: Vec::new(),
            atoms: BTreeMap::new(),
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
        self.pending.push(Pending {
            item: k,
            value,
            selector,
            encoded: 0,
        });
    }

    /// Encodes every pending item whose named products are all encoded now.
    pub fn settle(&mut self, model: &Model<'_>, cnf: &mut Cnf, encoded: &[Option<Encoded>]) {
        let Some(index) = self.index else { return };
        let pending = std::mem::take(&mut self.pending);
        for mut p in pending {
            // a rule item names most products and waits long: resume where it stopped
            let mentions = index.mentions(model, p.item);
            while p.encoded < mentions.len() && encoded[mentions[p.encoded]].is_some() {
                p.encoded += 1;
            }
            if p.encoded == mentions.len() {
                self.encode(model, cnf, encoded, &p);
            } else {
                self.pending.push(p);
            }
        }
    }

    /// The clause of one item whose named products are all encoded.
    fn encode(
        &mut self,
        model: &Model<'_>,
        cnf: &mut Cnf,
        encoded: &[Option<Encoded>],
        p: &Pending,
    ) {
        let Some(index) = self.index else { return };
        let term = &index.items[p.item].term;
        // "or it is left as it is today", for a tolerated item: worked out once, when needed
        let mut as_left: Option<Truth> = None;
        for j in 0..index.perspectives(model, p.item) {
            let mut clause = vec![!p.value];
            clause.extend(p.selector.map(|s| !s));
            match self.term(model, cnf, encoded, (p.item, j), term) {
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

    /// The truth of `term` of item `k` for its perspective `j` (`at` = `(k, j)`; Tseitin: a
    /// literal equivalent to it).
    fn term(
        &mut self,
        model: &Model<'_>,
        cnf: &mut Cnf,
        encoded: &[Option<Encoded>],
        at: (usize, usize),
        term: &Term,
    ) -> Truth {
        let children = |s: &mut Self, cnf: &mut Cnf, c: &[Term]| -> Vec<Truth> {
            c.iter()
                .map(|t| s.term(model, cnf, encoded, at, t))
                .collect()
        };
        match &term.kind {
            TermKind::Atom(atom) => self.atom(model, cnf, encoded, at, atom),
            TermKind::AnyOf(c) => {
                let truths = children(self, cnf, c);
                or(cnf, &truths)
            }
            TermKind::AllOf(c) => {
                let truths: Vec<Truth> = children(self, cnf, c).into_iter().map(not).collect();
                not(or(cnf, &truths))
            }
            TermKind::NoneOf(c) => {
                let truths = children(self, cnf, c);
                not(or(cnf, &truths))
            }
        }
    }

    /// An atom of item `k` for its perspective `j`: true by its declarer's instances, or by
    /// some named product's value.
    fn atom(
        &mut self,
        model: &Model<'_>,
        cnf: &mut Cnf,
        encoded: &[Option<Encoded>],
        (k, j): (usize, usize),
        atom: &Atom,
    ) -> Truth {
        let Some(index) = self.index else {
            return Truth::Const(true);
        };
        if index.atom_by_declarer(model, k, j, atom) {
            return Truth::Const(true);
        }
        let declarer = index.items[k].declarer;
        let key = (declarer, atom_text(atom));
        if let Some(&t) = self.atoms.get(&key) {
            return t;
        }
        let id = index.atom_id(atom);
        let mut lits = Vec::new();
        for q in index.atom_mentions(model, atom) {
            if q == declarer {
                continue;
            }
            let Some(e) = &encoded[q] else {
                continue; // only named products that cannot make it true are left unencoded
            };
            for (&v, &l) in e.domain.iter().zip(&e.lits) {
                if index.made_true_by(model, id, q, v) {
                    lits.push(l);
                }
            }
        }
        if let (Some(missing), Atom::Capability { name, range }) = (&mut self.missing, atom) {
            for q in model.outside_providers(name, range) {
                let selector = *missing.entry(q).or_insert_with(|| cnf.fresh(true));
                lits.push(!selector);
            }
        }
        let truths: Vec<Truth> = lits.into_iter().map(Truth::Lit).collect();
        let t = or(cnf, &truths);
        self.atoms.insert(key, t);
        t
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
        let moved = index.moved(values);
        for p in &self.pending {
            let item = &index.items[p.item];
            if encoded[item.declarer].is_some()
                && values[item.declarer] == item.value
                && !index.acceptable(model, p.item, values, &moved)
            {
                out.extend(
                    index
                        .mentions(model, p.item)
                        .iter()
                        .copied()
                        .filter(|&q| encoded[q].is_none()),
                );
            }
        }
        let mut affected = std::collections::BTreeSet::new();
        for &m in order {
            if values[m] == baseline[m] {
                continue;
            }
            affected.extend(index.affected_by(model, m).filter(|&k| {
                let d = index.items[k].declarer;
                encoded[d].is_none() && values[d] == index.items[k].value
            }));
        }
        for k in affected {
            if !index.acceptable(model, k, values, &moved) {
                out.push(index.items[k].declarer);
            }
        }
        out.sort_unstable();
        out.dedup();
        out
    }
}

/// A literal equivalent to "every product tolerated item `k` names is at its value of today"
/// (its declarer keeps by the clause it is part of), every one of them encoded.
fn as_today(
    model: &Model<'_>,
    index: &FacetIndex,
    cnf: &mut Cnf,
    encoded: &[Option<Encoded>],
    k: usize,
) -> Truth {
    let mut each = Vec::new();
    for &q in index.mentions(model, k) {
        let today = model.vars[q].domain[0];
        let lit = encoded[q]
            .as_ref()
            .and_then(|e| e.domain.iter().position(|&v| v == today).map(|i| e.lits[i]));
        match lit {
            Some(l) => each.push(Truth::Lit(!l)),
            None => return Truth::Const(false), // it cannot stay: it moves
        }
    }
    not(or(cnf, &each))
}

/// The literal of "tolerated item `k` is broken as today" for the repair level: implied by
/// its declarer keeping and everything it names staying (every one of them encoded).
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
    let mut clause = vec![!keep];
    for &q in index.mentions(model, k) {
        let today = model.vars[q].domain[0];
        let e = encoded[q].as_ref()?;
        match e.domain.iter().position(|&v| v == today) {
            Some(i) => clause.push(!e.lits[i]),
            None => return None, // it cannot stay, so the item is never left as today
        }
    }
    let l = cnf.fresh(false);
    clause.push(l);
    cnf.add(&clause);
    Some(l)
}

fn not(t: Truth) -> Truth {
    match t {
        Truth::Const(b) => Truth::Const(!b),
        Truth::Lit(l) => Truth::Lit(!l),
    }
}

/// A literal equivalent to the disjunction of `truths` (a constant when one is true or none
/// is left).
fn or(cnf: &mut Cnf, truths: &[Truth]) -> Truth {
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
            let mut clause = vec![!t];
            clause.extend(&lits);
            cnf.add(&clause);
            for &l in &lits {
                cnf.add(&[!l, t]);
            }
            Truth::Lit(t)
        }
    }
}
