//! The search for a valid final state.
//!
//! **The problem.** Every product is a variable whose values are `Keep`, `Absent` (for a
//! product that may be installed) or one of its candidate releases; two products' values must
//! not break a constraint between them, and a value must not require a product that cannot be
//! there. That is a binary constraint problem, NP-hard in general (lock-step windows can encode
//! colouring), but real environments are nearly valid already and changes are local.
//!
//! **The heuristic.** Every search starts from a *baseline*, a complete assignment known to
//! be acceptable (at first: keep everything; pre-existing violations between kept products are
//! tolerated). Fixing some variables (the targets) removes, by forward checking, the values of
//! their neighbours that conflict with them. A variable whose baseline value is still in its
//! domain needs no decision: as soon as every unassigned variable still has its baseline value,
//! the baseline completes the assignment, because baseline values are compatible with each
//! other and forward checking made every remaining value compatible with what is assigned. So
//! the search only branches on variables *forced* off their baseline, smallest domain first,
//! trying values in order of how little they move the product. That keeps a plan for one
//! product on a 5,000-product environment down to the handful of products it touches.
//!
//! **Objectives.** [`Search::first`] finds any completion (feasibility). [`Search::best`] runs
//! branch and bound on (products changed, total distance moved): a node is pruned when the
//! changes already made plus one per unassigned variable whose baseline is gone cannot beat the
//! best solution found. Maximising a target is done outside: try its candidates newest first
//! and keep the first feasible one.
//!
//! **Termination and cost.** Each level assigns one more variable from a finite domain, so the
//! tree is finite; its size is exponential in the number of forced variables in the worst
//! case, which is why every search carries a [`Budget`] (node count and deadline). When the
//! budget runs out the best solution so far is returned and the result says it is not proven
//! optimal. Forward checking costs one compatibility test per neighbour value per assignment.

use std::time::Instant;

use super::model::{Model, Value};

/// Domains replaced by one assignment, to put back on undo.
type Trail = Vec<(usize, Option<Vec<Value>>)>;

/// Limits on one search.
#[derive(Clone, Copy, Debug)]
pub struct Budget {
    pub nodes: u64,
    pub deadline: Option<Instant>,
}

impl Budget {
    #[must_use]
    pub fn exhausted(&self, used: u64) -> bool {
        used >= self.nodes
            || self
                .deadline
                .is_some_and(|d| (used == 1 || used.is_multiple_of(256)) && Instant::now() >= d)
    }
}

/// What a search found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Found {
    pub values: Vec<Value>,
    /// False when the budget ran out before the search space was exhausted.
    pub proven: bool,
}

/// One search over a model, from a baseline. Domains are copy-on-write over the model's base
/// domains, and the variables a search touched are kept on stacks, so a search costs what it
/// touches, not the size of the environment.
pub struct Search<'m, 'a> {
    model: &'m Model<'a>,
    baseline: Vec<Value>,
    /// `None`: the model's base domain.
    domains: Vec<Option<Vec<Value>>>,
    /// Variables whose domain is overridden, in the order they were (undo pops them).
    narrowed: Vec<usize>,
    assigned: Vec<Option<Value>>,
    /// Variables held at their baseline value (decided earlier in `--all`).
    frozen: Vec<bool>,
    /// Assigned variables, in assignment order.
    chosen: Vec<usize>,
    budget: Budget,
    nodes: u64,
    best: Option<(Vec<Value>, Cost)>,
    /// Violations of today's environment that an optimizing search tries to repair:
    /// `(p, q, count)`, as [`Model::pre_existing`] gives them. Empty: repairs are not sought.
    repair: Vec<(usize, usize, usize)>,
}

/// What an optimizing search minimizes, in this order: violations left from today's
/// environment, products changed, distance moved.
type Cost = (usize, usize, usize);

impl<'m, 'a> Search<'m, 'a> {
    /// A search whose unassigned variables fall back to `baseline`.
    #[must_use]
    pub fn new(model: &'m Model<'a>, baseline: Vec<Value>, budget: Budget) -> Self {
        Search {
            model,
            baseline,
            domains: vec![None; model.vars.len()],
            narrowed: Vec::new(),
            assigned: vec![None; model.vars.len()],
            frozen: vec![false; model.vars.len()],
            chosen: Vec::new(),
            budget,
            nodes: 0,
            best: None,
            repair: Vec::new(),
        }
    }

    /// A product involved in a violation to repair that is still undecided.
    fn repairable(&self) -> Option<usize> {
        self.repair
            .iter()
            .flat_map(|&(p, q, _)| [p, q])
            .filter(|&p| self.assigned[p].is_none() && self.domain(p).len() > 1)
            .min()
    }

    /// Today's violations a complete assignment leaves (both sides still as they are today).
    fn remaining(&self, value: impl Fn(usize) -> Option<Value>) -> usize {
        let today = |p: usize| value(p) == Some(self.model.today(p));
        self.repair
            .iter()
            .filter(|&&(p, q, _)| today(p) && today(q))
            .map(|&(_, _, n)| n)
            .sum()
    }

    fn domain(&self, p: usize) -> &[Value] {
        if self.frozen[p] {
            return std::slice::from_ref(&self.baseline[p]);
        }
        self.domains[p].as_deref().unwrap_or(&self.model.base[p])
    }

    /// Holds the first `n` variables that are installed at their baseline values (as
    /// [`super::Query::holds`] says): they may not change, and a value elsewhere that conflicts with
    /// them is pruned like any other.
    pub fn freeze_below(&mut self, n: usize) {
        let model = self.model;
        for (p, f) in self.frozen.iter_mut().enumerate().take(n) {
            *f = model.vars[p].installed();
        }
    }

    /// Assigns `value` to `p` and filters its neighbours; `false` (and nothing changed) when
    /// that leaves a neighbour without values or the value is not in `p`'s domain.
    fn assign(&mut self, p: usize, value: Value, trail: &mut Trail) -> bool {
        if !self.domain(p).contains(&value) {
            return false;
        }
        let mark = trail.len();
        self.assigned[p] = Some(value);
        self.chosen.push(p);
        for &q in &self.model.neighbors[p] {
            if self.assigned[q].is_some() {
                continue;
            }
            let before = self.domain(q).len();
            let kept: Vec<Value> = self
                .domain(q)
                .iter()
                .copied()
                .filter(|&b| self.model.compatible(p, value, q, b))
                .collect();
            if kept.len() != before {
                let empty = kept.is_empty();
                let old = self.domains[q].replace(kept);
                if old.is_none() {
                    self.narrowed.push(q);
                }
                trail.push((q, old));
                if empty {
                    self.undo(p, trail, mark);
                    return false;
                }
            }
        }
        true
    }

    fn undo(&mut self, p: usize, trail: &mut Trail, mark: usize) {
        while trail.len() > mark {
            if let Some((q, old)) = trail.pop() {
                if old.is_none() {
                    self.narrowed.pop();
                }
                self.domains[q] = old;
            }
        }
        self.assigned[p] = None;
        self.chosen.pop();
    }

    /// Fixes variables before searching; `false` when they conflict with each other.
    pub fn fix(&mut self, fixed: &[(usize, Value)]) -> bool {
        let mut trail = Vec::new();
        for &(p, value) in fixed {
            if let Some(already) = self.assigned[p] {
                if already != value {
                    return false;
                }
                continue;
            }
            if !self.assign(p, value, &mut trail) {
                return false;
            }
        }
        // fixed variables must also agree pairwise (assign only checked unassigned ones)
        fixed.iter().all(|&(p, a)| {
            fixed
                .iter()
                .all(|&(q, b)| p == q || self.model.compatible(p, a, q, b))
        })
    }

    /// The unassigned variable that most needs a decision: its baseline value is gone;
    /// smallest domain first, then lowest index. `None` when the baseline completes it.
    fn forced(&self) -> Option<usize> {
        // Only a narrowed domain can have lost its baseline value (base domains hold it).
        self.narrowed
            .iter()
            .copied()
            .filter(|&p| self.assigned[p].is_none() && !self.domain(p).contains(&self.baseline[p]))
            .min_by_key(|&p| (self.domain(p).len(), p))
    }

    fn completion(&self) -> Vec<Value> {
        (0..self.assigned.len())
            .map(|p| self.assigned[p].unwrap_or(self.baseline[p]))
            .collect()
    }

    /// (products changed, distance moved) of a complete assignment, against the *current*
    /// environment (not the baseline).
    fn cost(&self, values: &[Value]) -> Cost {
        let (n, d) = values
            .iter()
            .enumerate()
            .filter(|(p, v)| **v != self.model.vars[*p].domain[0])
            .fold((0, 0), |(n, d), (p, &v)| {
                (n + 1, d + self.model.vars[p].distance(v))
            });
        (self.remaining(|p| Some(values[p])), n, d)
    }

    /// A lower bound on the cost of any completion of the current node.
    /// Only assigned and narrowed variables can differ from the current environment here
    /// (the baseline of an optimizing search is the current environment).
    fn bound(&self) -> Cost {
        let (changed, distance) = self.change_bound();
        // a violation stays when both of its products are already decided to stay
        (self.remaining(|p| self.assigned[p]), changed, distance)
    }

    fn change_bound(&self) -> (usize, usize) {
        let mut changed = 0;
        let mut distance = 0;
        for &p in &self.chosen {
            let var = &self.model.vars[p];
            if let Some(v) = self.assigned[p]
                && v != var.domain[0]
            {
                changed += 1;
                distance += var.distance(v);
            }
        }
        let mut seen = std::collections::BTreeSet::new();
        for &p in &self.narrowed {
            let var = &self.model.vars[p];
            if self.assigned[p].is_none()
                && seen.insert(p)
                && !self.domain(p).contains(&var.domain[0])
            {
                changed += 1;
                distance += self
                    .domain(p)
                    .iter()
                    .map(|&v| var.distance(v))
                    .min()
                    .unwrap_or(0);
            }
        }
        (changed, distance)
    }

    /// Values to try for a forced variable: least movement first, then newest.
    fn order(&self, p: usize) -> Vec<Value> {
        let var = &self.model.vars[p];
        let mut values = self.domain(p).to_vec();
        values.sort_by_key(|&v| (var.distance(v), std::cmp::Reverse(v)));
        values
    }

    /// Any completion of the fixed variables.
    pub fn first(&mut self) -> Option<Found> {
        let found = self.dfs(false);
        let proven = !self.budget.exhausted(self.nodes);
        found.map(|values| Found { values, proven })
    }

    /// The completion that changes the fewest products, then moves them least.
    pub fn best(&mut self) -> Option<Found> {
        self.dfs(true);
        let proven = !self.budget.exhausted(self.nodes);
        self.best.take().map(|(values, _)| Found { values, proven })
    }

    /// Depth-first search; with `optimize`, branch and bound that records into `self.best`.
    fn dfs(&mut self, optimize: bool) -> Option<Vec<Value>> {
        self.nodes += 1;
        if self.budget.exhausted(self.nodes) {
            return None;
        }
        if optimize
            && let Some((_, best)) = &self.best
            && self.bound() >= *best
        {
            return None;
        }
        let next = self
            .forced()
            .or_else(|| if optimize { self.repairable() } else { None });
        let Some(p) = next else {
            let values = self.completion();
            if optimize {
                let cost = self.cost(&values);
                if self.best.as_ref().is_none_or(|(_, b)| cost < *b) {
                    self.best = Some((values.clone(), cost));
                }
            }
            return Some(values);
        };
        for value in self.order(p) {
            let mut trail = Vec::new();
            if !self.assign(p, value, &mut trail) {
                continue;
            }
            let found = self.dfs(optimize);
            self.undo(p, &mut trail, 0);
            if found.is_some() && !optimize {
                return found;
            }
            if self.budget.exhausted(self.nodes) {
                break;
            }
        }
        None
    }
}

/// The forward-checking search as an [`Engine`](super::Engine): the second, independent
/// engine the tests hold the default one against. A restriction to several values tries them
/// in the order given (first feasible wins; objectives need single values).
#[derive(Clone, Copy, Debug)]
pub struct Dfs {
    /// Nodes per search before it reports itself cut.
    pub nodes: u64,
}

impl Default for Dfs {
    fn default() -> Self {
        Dfs { nodes: 2_000_000 }
    }
}

impl super::Engine for Dfs {
    fn name(&self) -> &'static str {
        "dfs"
    }

    fn solve(&self, model: &Model<'_>, query: &super::Query<'_>) -> super::Outcome {
        use super::Outcome;
        if !query.forbid.is_empty() {
            // nogoods are section 10's, which this engine does not know: nothing it could
            // answer would be proven
            return Outcome::Cut(None);
        }
        let budget = Budget {
            nodes: self.nodes,
            deadline: query.deadline,
        };
        // Expand restrictions to every combination, in the order given (they are small).
        let mut combos: Vec<Vec<(usize, Value)>> = vec![Vec::new()];
        for (p, allowed) in &query.restrict {
            combos = combos
                .into_iter()
                .flat_map(|c| {
                    allowed.iter().map(move |&v| {
                        let mut c = c.clone();
                        c.push((*p, v));
                        c
                    })
                })
                .collect();
        }
        let mut cut = false;
        let mut best: Option<(Vec<Value>, (usize, usize, usize))> = None;
        for fixed in combos {
            let mut search = Search::new(model, query.baseline.to_vec(), budget);
            search.freeze_below(query.frozen);
            if let Some(fewest) = &query.objective {
                search.repair.clone_from(&fewest.repair);
            }
            if !search.fix(&fixed) {
                continue;
            }
            let found = if query.objective.is_some() {
                search.best()
            } else {
                search.first()
            };
            cut |= budget.exhausted(search.nodes);
            let Some(found) = found else {
                if cut {
                    break;
                }
                continue;
            };
            if query.objective.is_none() {
                return if found.proven {
                    Outcome::Found(found.values)
                } else {
                    Outcome::Cut(Some(found.values))
                };
            }
            let cost = search.cost(&found.values);
            if best.as_ref().is_none_or(|(_, c)| cost < *c) {
                best = Some((found.values, cost));
            }
            if cut {
                break;
            }
        }
        match (best, cut) {
            (Some((values, _)), false) => Outcome::Found(values),
            (best, true) => Outcome::Cut(best.map(|(v, _)| v)),
            (None, false) => Outcome::Infeasible,
        }
    }
}
