//! The objective of an optimizing question as counts the solver can bound: each level of
//! [`Fewest`] is a sum over the encoded products (repairs left undone, products changed,
//! distance as per-product unary ladders, weighted rungs for products of many entities),
//! encoded by a totalizer and enforced through assumptions; and the cost of a whole state,
//! level by level.

use super::cnf::Cnf;
use rustsat::encodings::EnforceError;
use rustsat::encodings::card::{self, Totalizer};
use rustsat::encodings::pb::{self, GeneralizedTotalizer};
use rustsat::types::Lit;

use super::{Answer, Cost, Fewest, Session, Value};

/// A sum's encoding: a plain totalizer when every weight is 1 (much smaller), else the
/// generalized one.
pub(super) enum Encoding {
    Count(Totalizer),
    Weighted(GeneralizedTotalizer),
}

impl Encoding {
    fn new(terms: Vec<(Lit, usize)>) -> Self {
        if terms.iter().all(|&(_, w)| w == 1) {
            Encoding::Count(terms.into_iter().map(|(l, _)| l).collect())
        } else {
            Encoding::Weighted(terms.into_iter().collect())
        }
    }

    /// More terms: encoded from the next [`Encoding::encode`] on, next to those already in.
    /// A count given weighted terms becomes a weighted sum of `all` (every term so far,
    /// these included), made anew.
    fn extend(&mut self, terms: Vec<(Lit, usize)>, all: &[(Lit, usize)]) {
        match self {
            Encoding::Count(_) if terms.iter().any(|&(_, w)| w != 1) => {
                *self = Encoding::Weighted(all.iter().copied().collect());
            }
            Encoding::Count(t) => t.extend(terms.into_iter().map(|(l, _)| l)),
            Encoding::Weighted(t) => t.extend(terms),
        }
    }

    /// Clauses for every bound up to `top`. Both encodings' upper bounds only say "this many
    /// terms hold, so this output holds" (rustsat's `Semantics::If`): an answer leaving some
    /// of their variables unset extends to a model with those false, so the solver never
    /// decides them ([`Cnf::auxiliary`]).
    fn encode(&mut self, top: usize, cnf: &mut Cnf) -> bool {
        cnf.auxiliary(|clauses, vars| match self {
            Encoding::Count(t) => {
                card::BoundUpperIncremental::encode_ub_change(t, 0..=top, clauses, vars).is_ok()
            }
            Encoding::Weighted(t) => {
                pb::BoundUpperIncremental::encode_ub_change(t, 0..=top, clauses, vars).is_ok()
            }
        })
    }

    /// Assumptions for "at most `bound`"; `None` when no assignment can meet it.
    fn enforce(&self, bound: usize) -> Option<Vec<Lit>> {
        match self {
            Encoding::Count(t) => {
                Some(card::BoundUpper::enforce_ub(t, bound).expect("encoded up to this bound"))
            }
            Encoding::Weighted(t) => match pb::BoundUpper::enforce_ub(t, bound) {
                Ok(lits) => Some(lits),
                Err(EnforceError::Unsat) => None,
                Err(EnforceError::NotEncoded) => unreachable!("encoded up to this bound"),
            },
        }
    }
}

/// A product's distance ([`Session::ladder`]): the least any value moves, and the rungs above
/// it with their weights.
pub(super) type Ladder = (usize, Vec<(Lit, usize)>);

/// One objective level's weighted sum over the encoded products.
pub(super) struct Sum {
    products: usize,
    /// Every term so far (a count that meets a weighted term is made again from them).
    terms: Vec<(Lit, usize)>,
    fixed: usize,
    total: usize,
    encoding: Encoding,
    /// The largest bound the encoding covers so far (bounds below it need nothing new).
    top: Option<usize>,
}

impl Session<'_, '_, '_> {
    /// Assumptions enforcing "level `level` of the objective is at most `bound`" over the
    /// encoded products; `Err(Infeasible)` when no state can meet it, `Err(Interrupted)` when
    /// the bound could not be encoded (out of memory: nothing is proven then).
    pub(super) fn bound(
        &mut self,
        level: usize,
        bound: usize,
        fewest: &Fewest,
    ) -> Result<Vec<Lit>, Answer> {
        // Products encoded since the sum was made join it: the totalizer grows by a subtree
        // merged with its old root, so what is already encoded (and learnt) is kept. (Making
        // it again left the old one's variables for every later solve to decide, measured as
        // the larger part of a `requires` search's solver time.)
        let covered = self.sums[level].as_ref().map(|s| s.products);
        if covered != Some(self.order.len()) {
            let (terms, fixed) = self.terms(level, fewest, covered.unwrap_or(0));
            let weight: usize = terms.iter().map(|(_, w)| w).sum();
            let products = self.order.len();
            match &mut self.sums[level] {
                Some(sum) => {
                    sum.products = products;
                    sum.fixed += fixed;
                    sum.total += weight;
                    if !terms.is_empty() {
                        sum.terms.extend(terms.iter().copied());
                        sum.encoding.extend(terms, &sum.terms);
                        sum.top = None;
                    }
                }
                None => {
                    self.sums[level] = Some(Sum {
                        products,
                        terms: terms.clone(),
                        fixed,
                        total: weight,
                        encoding: Encoding::new(terms),
                        top: None,
                    });
                }
            }
        }
        let Some(sum) = self.sums[level].as_mut() else {
            unreachable!("made just above")
        };
        let bound = bound.checked_sub(sum.fixed).ok_or(Answer::Infeasible)?;
        if sum.total <= bound {
            return Ok(Vec::new());
        }
        // Encoded for every bound up to this one: later, tighter bounds reuse it.
        if sum.top.is_none_or(|t| bound > t) {
            if !sum.encoding.encode(bound, &mut self.cnf) {
                return Err(Answer::Interrupted);
            }
            sum.top = Some(bound);
        }
        sum.encoding.enforce(bound).ok_or(Answer::Infeasible)
    }

    /// The weighted literals of one objective level over the encoded products from the
    /// `from`-th on (in encoding order), and the part of it that no choice can avoid. The
    /// repair level is whole from the start: every product it names is encoded first.
    fn terms(&mut self, level: usize, fewest: &Fewest, from: usize) -> (Vec<(Lit, usize)>, usize) {
        let mut terms = Vec::new();
        let mut fixed = 0;
        match level {
            0 if from > 0 => {}
            0 => {
                for (i, &(p, q, weight)) in fewest.repair.iter().enumerate() {
                    let today = |x: usize| self.model.today(x);
                    let (Some(kp), Some(kq)) = (self.lit(p, today(p)), self.lit(q, today(q)))
                    else {
                        continue; // one side cannot stay: repaired in every state
                    };
                    if p == q {
                        terms.push((kp, weight)); // its own requirements, broken while it keeps
                        continue;
                    }
                    let broken = if let Some(l) = self.broken[i] {
                        l
                    } else {
                        let l = self.fresh(false);
                        self.add(&[l, !kp, !kq]); // both keep: still broken
                        self.broken[i] = Some(l);
                        l
                    };
                    terms.push((broken, weight));
                }
                let pairs = fewest.repair.len();
                if let Some(index) = self.facets.index() {
                    for (i, &k) in fewest.repair_items.iter().enumerate() {
                        let made = match self.broken[pairs + i] {
                            Some(l) => Some(l),
                            None => super::facets::broken_as_today(
                                self.model,
                                index,
                                &mut self.cnf,
                                &self.rows.encoded,
                                k,
                            ),
                        };
                        self.broken[pairs + i] = made;
                        terms.extend(made.map(|l| (l, 1)));
                    }
                }
            }
            1 | 3 => {
                let Some(index) = self.facets.index() else {
                    return (terms, fixed);
                };
                for &p in &self.order[from..] {
                    let Some(choice) = index.install_choice(p) else {
                        continue;
                    };
                    let weight = if level == 1 {
                        usize::from(choice.unpreferred)
                    } else {
                        choice.rank
                    };
                    if weight == 0 {
                        continue;
                    }
                    match self.lit(p, Value::Absent) {
                        Some(absent) => terms.push((!absent, weight)),
                        None => fixed += weight, // installed in every state
                    }
                }
            }
            2 => {
                for &p in &self.order[from..] {
                    let now = self.model.vars[p].domain[0];
                    match self.lit(p, now) {
                        Some(stay) => terms.push((!stay, 1)),
                        None => fixed += 1,
                    }
                }
            }
            _ => {
                for i in from..self.order.len() {
                    let p = self.order[i];
                    if self.rows.held[p] {
                        continue; // at its baseline: moves 0
                    }
                    let (least, ladder) = self.ladder(p);
                    fixed += least;
                    terms.extend(ladder);
                }
            }
        }
        (terms, fixed)
    }

    /// `p`'s distance as a unary count: the least distance any of its values moves (no state
    /// can avoid it) and literals "moves at least least + t" for t = 1, 2, ..., each implied
    /// by the values that move that far. Counting them makes distance a plain cardinality,
    /// far smaller to bound than a sum of per-value weights. Made once per product.
    ///
    /// A product of many entities moves far (distance is per entity: 1,000 entities one
    /// release on move 1,000), and a ladder of thousands of rungs made the totalizer the
    /// larger part of `upgrades` among thousands of tenants. When the ladder would be more
    /// than twice as long as the product has values, it has a rung only at each distance a
    /// value moves, weighted by the step from the rung below (the level is then a weighted
    /// sum); the sum of the rungs that hold is the same.
    fn ladder(&mut self, p: usize) -> Ladder {
        if let Some(made) = &self.rows.ladders[p] {
            return made.clone();
        }
        let var = &self.model.vars[p];
        let Some(e) = &self.rows.encoded[p] else {
            return (0, Vec::new());
        };
        let allowed = self.rows.allowed[p].as_deref();
        let moves: Vec<(usize, Lit)> = e
            .domain
            .iter()
            .zip(&e.lits)
            .enumerate()
            .filter(|&(i, _)| allowed.is_none_or(|ok| ok[i]))
            .map(|(_, (&v, &l))| (var.distance(v), l))
            .collect();
        let least = moves.iter().map(|&(d, _)| d).min().unwrap_or(0);
        let most = moves.iter().map(|&(d, _)| d).max().unwrap_or(0) - least;
        // the distances above `least` each rung stands for, in order
        let steps: Vec<usize> = if most > 2 * moves.len() {
            let mut at: Vec<usize> = moves
                .iter()
                .map(|&(d, _)| d - least)
                .filter(|&d| d > 0)
                .collect();
            at.sort_unstable();
            at.dedup();
            at
        } else {
            (1..=most).collect()
        };
        let rungs: Vec<Lit> = steps.iter().map(|_| self.fresh(false)).collect();
        for pair in rungs.windows(2) {
            self.add(&[!pair[1], pair[0]]); // at least the next -> at least this one
        }
        for (d, l) in moves {
            if d > least {
                let k = steps.partition_point(|&s| s < d - least);
                self.add(&[!l, rungs[k]]);
            }
        }
        let weights = steps
            .iter()
            .scan(0, |below, &s| Some(s - std::mem::replace(below, s)));
        let made = (least, rungs.into_iter().zip(weights).collect());
        self.rows.ladders[p] = Some(made.clone());
        made
    }

    /// The objective levels of a whole state (every product not encoded is at its baseline,
    /// which for an optimizing query is the environment as it is).
    pub(super) fn cost(&self, values: &[Value], fewest: &Fewest) -> Cost {
        let keep = |p: usize| values[p] == self.model.today(p);
        let broken = fewest
            .repair
            .iter()
            .filter(|&&(p, q, _)| keep(p) && keep(q))
            .map(|&(_, _, w)| w)
            .sum::<usize>()
            + self.facets.index().map_or(0, |index| {
                let moved = self.facets.moved(values, &self.order);
                fewest
                    .repair_items
                    .iter()
                    .filter(|&&k| index.as_today(k, values, &moved))
                    .count()
            });
        let (mut unpreferred, mut changed, mut rank, mut distance) = (0, 0, 0, 0);
        // Products not encoded are at their baseline, the environment as it is: they cost 0.
        for &p in &self.order {
            let (var, v) = (&self.model.vars[p], values[p]);
            if v != var.domain[0] {
                changed += 1;
                distance += var.distance(v);
                if let Some(choice) = self.facets.index().and_then(|i| i.install_choice(p)) {
                    unpreferred += usize::from(choice.unpreferred);
                    rank += choice.rank;
                }
            }
        }
        [broken, unpreferred, changed, rank, distance]
    }
}
