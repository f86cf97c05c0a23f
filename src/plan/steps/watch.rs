//! Which remembered judgements of the rolling order a move can undo.
//!
//! The ordering remembers that a step is blocked, and that a move has no bridge release, so
//! it does not judge them again after every step (on the hard family the judging was most of
//! `plan --all`). A judgement is remembered with the products it *reads*: while none of them
//! moves, it stands. A blocked step is blocked by each violation it would add, so one of them
//! (a *witness*) is enough to keep it blocked: the one whose verdict reads the fewest products.
//! - A constraint between two products reads those two (and the step's own product).
//! - A section 9 item judged product by product reads its declarer and, per atom
//!   ([`FacetIndex::reads`]), the product a product atom names; for an existential atom
//!   (capability, rule) one product that makes it true before and after the step, or when
//!   none does, every product that can make it true and still has a move pending (a product
//!   whose moves are all applied never moves again). A rule atom many products satisfy thus
//!   reads one product, where "every product a value of which satisfies it" made every move
//!   undo every blocked step.
//! - An entry judged entity by entity (a product half-way) reads its declarer and every
//!   product its atoms can be made true by ([`FacetIndex::entry_reads`]).
//! - Section 10's wiring beyond pairs: a consumer moving before its source reads the two;
//!   a capability input left unfed or a data cycle, judged on the whole state, reads every
//!   product.
//!
//! A move has no bridge while each of its intermediate releases stays blocked: it reads the
//! union of their witnesses' reads and its own product. Forgetting too much only costs a
//! judgement again; forgetting too little would change the order, so every read above covers
//! what can change the verdict.

use std::collections::BTreeSet;

use super::{Broken, Model, Move, State, Which};
use crate::solve::facets::FacetIndex;

/// The remembered judgements of the rolling order: steps known blocked, moves known to
/// have no bridge (by index into the moves), each with what it reads.
pub(super) struct Memory {
    /// Step `i` is blocked (applying it would add a violation).
    pub blocked: Vec<bool>,
    /// Move `i` has no bridge release.
    pub no_bridge: Vec<bool>,
    blocked_watch: Watch,
    bridge_watch: Watch,
    /// Per product: its moves not applied yet (a product with none never moves again).
    left: Vec<usize>,
}

impl Memory {
    pub(super) fn new(model: &Model<'_>, moves: &[Move<'_>]) -> Self {
        let mut left = vec![0; model.vars.len()];
        for m in moves {
            left[m.var] += 1;
        }
        Memory {
            blocked: vec![false; moves.len()],
            no_bridge: vec![false; moves.len()],
            blocked_watch: Watch::new(model.vars.len(), moves.len()),
            bridge_watch: Watch::new(model.vars.len(), moves.len()),
            left,
        }
    }

    /// Whether product `q` still has a move to make.
    pub(super) fn movable(&self, q: usize) -> bool {
        self.left[q] > 0
    }

    /// Product `var` moved (`applied`: one of its moves, else a bridge): the judgements that
    /// read it are forgotten.
    pub(super) fn moved(&mut self, var: usize, applied: bool) {
        if applied {
            self.left[var] -= 1;
        }
        self.blocked_watch.refresh(&mut self.blocked, var);
        self.bridge_watch.refresh(&mut self.no_bridge, var);
    }

    /// Step `i` is blocked while nothing in `reads` moves.
    pub(super) fn block(&mut self, i: usize, reads: &BTreeSet<usize>) {
        self.blocked[i] = true;
        self.blocked_watch.remember(i, reads);
    }

    /// Move `i` has no bridge while nothing in `reads` moves.
    pub(super) fn bridgeless(&mut self, i: usize, reads: &BTreeSet<usize>) {
        self.no_bridge[i] = true;
        self.bridge_watch.remember(i, reads);
    }
}

/// Per product, the judgements (step index, generation) that read it.
struct Watch {
    watchers: Vec<Vec<(usize, u32)>>,
    /// Per step: bumped each time a judgement of it is remembered, so reads of an earlier one
    /// left in `watchers` are told apart.
    generation: Vec<u32>,
}

impl Watch {
    fn new(products: usize, steps: usize) -> Self {
        Watch {
            watchers: vec![Vec::new(); products],
            generation: vec![0; steps],
        }
    }

    /// Remembers step `i`'s judgement while no product in `reads` moves.
    fn remember(&mut self, i: usize, reads: &BTreeSet<usize>) {
        self.generation[i] = self.generation[i].wrapping_add(1);
        let g = self.generation[i];
        for &q in reads {
            self.watchers[q].push((i, g));
        }
    }

    /// Forgets, in `flags`, the judgements that read product `var`, which moved.
    fn refresh(&mut self, flags: &mut [bool], var: usize) {
        for (i, g) in std::mem::take(&mut self.watchers[var]) {
            if g == self.generation[i] {
                flags[i] = false;
            }
        }
    }
}

/// What keeps `step` blocked while none of it moves: the reads of the witness among `added`
/// (what applying `step` in `state` adds, not empty) that reads the fewest products.
/// `movable`: whether a product still has a move pending.
pub(super) fn blocked_reads<'a>(
    model: &Model<'a>,
    state: &mut State<'a>,
    step: &Move<'a>,
    added: &[Broken<'a>],
    movable: &dyn Fn(usize) -> bool,
) -> BTreeSet<usize> {
    let pair = added.iter().find_map(|b| match b {
        Broken::Pair(t) => Some(
            [&t.0.declarer, &t.0.dependency]
                .into_iter()
                .filter_map(|p| model.index.get(p).copied())
                .collect::<BTreeSet<usize>>(),
        ),
        Broken::Item { .. } => None,
    });
    let mut best = if let Some(reads) = pair {
        reads
    } else if let Some(index) = model.facets() {
        let values = Values::of(model, state, step);
        added
            .iter()
            .filter_map(|b| match b {
                Broken::Item { which, .. } => {
                    Some(item_reads(model, index, &values, which, movable))
                }
                Broken::Pair(_) => None,
            })
            .min_by_key(BTreeSet::len)
            .unwrap_or_default()
    } else {
        (0..model.vars.len()).collect() // items break only with an index: not reached
    };
    best.insert(step.var);
    best
}

/// Every product's value before and after a step, as the product-by-product judgement has
/// them (`None` where one is half-way).
struct Values {
    before: Vec<Option<crate::solve::model::Value>>,
    after: Vec<Option<crate::solve::model::Value>>,
}

impl Values {
    fn of<'a>(model: &Model<'a>, state: &mut State<'a>, step: &Move<'a>) -> Values {
        let before: Vec<_> = (0..model.vars.len())
            .map(|q| state.value(model, q))
            .collect();
        state.apply(step);
        let mut after = before.clone();
        after[step.var] = state.value(model, step.var);
        state.revert(step);
        Values { before, after }
    }
}

/// The reads of one broken item (see the module docs).
fn item_reads(
    model: &Model<'_>,
    index: &FacetIndex,
    values: &Values,
    which: &Which<'_>,
    movable: &dyn Fn(usize) -> bool,
) -> BTreeSet<usize> {
    match which {
        Which::Model(k) => {
            let whole = |v: &[Option<crate::solve::model::Value>]| {
                v.iter().copied().collect::<Option<Vec<_>>>()
            };
            let mut out = match (whole(&values.before), whole(&values.after)) {
                (Some(before), Some(after)) => index.reads(model, *k, &[&before, &after], movable),
                // judged product by product only when every product runs one value
                _ => index.mentions(model, *k).iter().copied().collect(),
            };
            out.insert(index.items[*k].declarer);
            out
        }
        Which::Wiring(reads) => reads.iter().copied().collect(),
        Which::Entry(declarer, manifest, source) => {
            let mut out = index.entry_reads(model, manifest, *source);
            out.insert(*declarer);
            out
        }
    }
}
