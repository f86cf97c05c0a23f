//! The default engine: planning questions as SAT, solved by a CDCL solver with conflict
//! learning, encoded lazily.
//!
//! **The problem.** One boolean per (product, value) with exactly one true per product; for
//! two neighbouring products `p` and `q`, each value `a` of `p` gets the clause "not `a`, or
//! one of `q`'s values compatible with `a`" (its *supports*). With exactly-one on `q` those
//! clauses forbid every incompatible pair, so they are the whole binary model of
//! [`Model::compatible`], tolerance of pairs that both keep their entities included.
//!
//! **Lazy encoding.** A catalog of 5,000 products x 40 releases has far more pairs than any
//! one question touches, so only the products a query names are encoded at first. Every
//! product that is not encoded stays at its baseline value. After each answer of the solver,
//! every encoded product that moved is checked against its neighbours that are not encoded;
//! those it would break with are encoded and the solver runs again. The encoded part is a
//! *relaxation* of the whole question (it drops the constraints between encoded and other
//! products and counts the others as unchanged), so:
//! - unsatisfiable encoded part: the whole question is infeasible (proven);
//! - an answer whose extension by the baseline breaks nothing is valid for the whole question,
//!   and, under an objective, it is optimal: no valid state can cost less than the relaxation's
//!   optimum, and this one costs exactly that.
//!
//! The encoded set only grows and is finite, so the loop ends. Decisions prefer each
//! product's baseline value (the solver's per-variable polarity), so answers stay near it.
//!
//! **Objectives** (lexicographic, as [`Fewest`] says: violations left from today, products
//! changed, distance moved). Each level is a count: distance becomes one by a per-product
//! unary ladder ("moves at least t"; for a product of many entities, whose distance is
//! summed over them, one weighted rung per distance a value moves, and the level a weighted
//! sum), and a level is bounded by a totalizer (rustsat) enforced through assumptions. An optimizing question first finds the *relaxation's* optimum, level
//! by level, by binary search between what the solver proved impossible and the best state
//! found; only then are the products that optimum would break with encoded, and the search
//! resumes from the previous optimum, which bounds the larger relaxation from below. Following
//! the solver's first answer instead would pull in whatever it happened to move (most of a
//! large catalog, measured). The distance level waits until the moved set stops growing;
//! for `requires` ([`Moves::WithinChanged`]) it is then a question over the movers alone:
//! every other product is fixed, and each mover keeps only the values its fixed neighbours
//! allow ([`Session::hold`]).
//!
//! **Cost.** Encoding a pair costs one compatibility test per pair of values; each solver call
//! is NP-hard in theory, but learning makes it fast on the windows real catalogs have (the
//! hard family in `generate` is the benchmark). A deadline interrupts the solver: the answer
//! is then [`Outcome::Cut`] with the best valid state found, never presented as proven.

use rustsat::solvers::SolverResult;
use rustsat::types::Lit;

mod cnf;
mod core;
mod facets;
mod objective;

use cnf::Cnf;
use facets::FacetClauses;
use objective::Sum;

use super::{Engine, Explained, Fewest, Model, Moves, Outcome, Query, Value, domain};

/// The CDCL engine (see the module docs).
#[derive(Clone, Copy, Debug, Default)]
pub struct Sat;

impl Engine for Sat {
    fn name(&self) -> &'static str {
        "sat"
    }

    fn solve(&self, model: &Model<'_>, query: &Query<'_>) -> Outcome {
        Session::new(model, query).run()
    }

    fn explain(
        &self,
        model: &Model<'_>,
        query: &Query<'_>,
        settled: crate::solve::conflict::Settled<'_>,
    ) -> Option<Explained> {
        core::explain(model, query, settled)
    }
}

/// How one bounded solve ended.
enum Answer {
    /// A state of the encoded part (of the whole question when the solve expanded).
    Sat(Picks),
    Infeasible,
    Interrupted,
}

/// The levels of [`Fewest`], in order: repairs left undone; providers installed that a
/// `prefer` passes over (SPEC 9.3); products changed; the providers' places in `group:name`
/// order; distance moved (installs: from the newest release). The two provider levels are
/// empty (0 in every state) unless `--allow-install` may add a provider.
const LEVELS: usize = 5;
type Cost = [usize; LEVELS];

/// One encoded product: its domain and one literal per value, and in the conflict search,
/// the groups of values still waiting for their own literals (each group's literal, "one of
/// these values", with the values: `core::Group`).
struct Encoded {
    domain: Vec<Value>,
    lits: Vec<Lit>,
    waiting: Vec<(Lit, Vec<Value>)>,
}

/// An answer of the solver: the value of each encoded product, in the order they were
/// encoded (one encoded since is at its baseline); every other product is at its
/// baseline. [`Session::lay`] spreads it over the whole state. (A whole state per answer
/// copied the baseline of every product at each of the solver's answers: on the hard
/// family at 5,000 products about 2% of `upgrades`, whose questions encode tens.)
struct Picks(Vec<Value>);

struct Session<'m, 'a, 'q> {
    model: &'m Model<'a>,
    query: &'q Query<'q>,
    cnf: Cnf,
    /// Per product: its encoding, distance ladder, whether it is held and the values it
    /// may still take ([`Rows`]).
    rows: Rows,
    /// Encoded products, in the order they were encoded.
    order: Vec<usize>,
    /// The last answer laid out ([`Session::lay`]): the baseline, with each encoded product
    /// at its value in that answer.
    state: Vec<Value>,
    /// Per repair item, its "still broken" literal once made (pairs, then section 9 items).
    broken: Vec<Option<Lit>>,
    /// Whether products encoded from now on are held at their baseline ([`Rows::held`]).
    holding: bool,
    /// Per objective level, its sum as last encoded: for how many encoded products, the
    /// constant part, and the totalizer (encoded up to the bound it was built for, so tighter
    /// bounds only need new assumptions).
    sums: [Option<Sum>; LEVELS],
    /// Section 9 items, encoded as the products they name are.
    facets: FacetClauses<'m>,
    /// After [`Session::bounded`] answered infeasible: the one level whose bound alone made
    /// it so (the solver's core needs no other level's bound), if there is one.
    bound_alone: Option<usize>,
    /// Per product, the query's nogoods that name it ([`Session::forbid`]), and per nogood
    /// whether its clause is in.
    nogoods_of: Vec<Vec<usize>>,
    forbidden: Vec<bool>,
}

/// The rows per product of the model that a [`Session`] or a conflict search
/// (`core::Explainer`) writes for the products it encodes, kept on each thread between
/// questions: a question encodes tens of the model's thousands of products, and making the
/// rows anew for each (and dropping them) cost more than many of its searches on the hard
/// family at 5,000 products. Handed back with only the encoded products' rows to clear.
#[derive(Default)]
struct Rows {
    encoded: Vec<Option<Encoded>>,
    /// A session's: per product, its distance ladder once made ([`Session::ladder`]).
    ladders: Vec<Option<objective::Ladder>>,
    /// A session's: products held at their baseline value by a unit clause
    /// ([`Moves::WithinChanged`] once the changed products are settled: [`Session::hold`]).
    held: Vec<bool>,
    /// A session's: per product that moves once the changed products are settled, which of
    /// its values (in its encoded domain's order) it may still take; `None`: every one.
    allowed: Vec<Option<Vec<bool>>>,
    /// A conflict search's: per encoded product, where each value of its reach stands.
    slots: Vec<Vec<core::Slot>>,
    /// A conflict search's: per product, its groups of values waiting for literals.
    groups: Vec<Vec<core::Group>>,
}

thread_local! {
    /// [`Rows`] handed back on this thread, for the next search over a model of that size.
    static SPARE: std::cell::RefCell<Vec<Rows>> = const { std::cell::RefCell::new(Vec::new()) };
}

impl Rows {
    /// Rows for `n` products, every one clear: spare ones of this thread if they fit.
    fn take(n: usize) -> Rows {
        let spare = SPARE.with(|spare| spare.borrow_mut().pop());
        spare
            .filter(|rows| rows.encoded.len() == n)
            .unwrap_or_else(|| Rows {
                encoded: (0..n).map(|_| None).collect(),
                ladders: vec![None; n],
                held: vec![false; n],
                allowed: vec![None; n],
                slots: vec![Vec::new(); n],
                groups: (0..n).map(|_| Vec::new()).collect(),
            })
    }

    /// Clears the rows of `touched` (the only ones a search writes: the products it
    /// encoded) and keeps the rows for this thread's next search.
    fn hand_back(mut self, touched: &[usize]) {
        for &p in touched {
            self.encoded[p] = None;
            self.ladders[p] = None;
            self.held[p] = false;
            self.allowed[p] = None;
            self.slots[p] = Vec::new();
            self.groups[p] = Vec::new();
        }
        debug_assert!(
            self.encoded.iter().all(Option::is_none)
                && self.ladders.iter().all(Option::is_none)
                && self.allowed.iter().all(Option::is_none)
                && !self.held.contains(&true)
                && self.slots.iter().all(Vec::is_empty)
                && self.groups.iter().all(Vec::is_empty),
            "a search wrote the row of a product it did not encode"
        );
        // one set per thread: a search started inside another (a conflict search minimizing
        // apart, or work stolen while a lazily made table is worked out) makes its own
        SPARE.with(|spare| {
            let mut spare = spare.borrow_mut();
            if spare.is_empty() {
                spare.push(self);
            }
        });
    }
}

impl Drop for Session<'_, '_, '_> {
    fn drop(&mut self) {
        std::mem::take(&mut self.rows).hand_back(&self.order);
    }
}

impl<'m, 'a, 'q> Session<'m, 'a, 'q> {
    fn new(model: &'m Model<'a>, query: &'q Query<'q>) -> Self {
        let repairs = query
            .objective
            .as_ref()
            .map_or(0, |f| f.repair.len() + f.repair_items.len());
        Session {
            model,
            query,
            cnf: Cnf::new(query.deadline),
            rows: Rows::take(model.vars.len()),
            order: Vec::new(),
            state: query.baseline.to_vec(),
            broken: vec![None; repairs],
            holding: false,
            sums: [None, None, None, None, None],
            facets: FacetClauses::new(model, query.baseline),
            bound_alone: None,
            // most questions forbid nothing: no row per product then
            nogoods_of: if query.forbid.is_empty() {
                Vec::new()
            } else {
                let mut of = vec![Vec::new(); model.vars.len()];
                for (k, nogood) in query.forbid.iter().enumerate() {
                    for &(p, _) in &nogood.values {
                        of[p].push(k);
                    }
                }
                of
            },
            forbidden: vec![false; query.forbid.len()],
        }
    }

    fn run(mut self) -> Outcome {
        if crate::solve::passed(self.query.deadline) {
            return Outcome::Cut(None);
        }
        let named: Vec<usize> = self.query.restrict.iter().map(|(p, _)| *p).collect();
        for p in named {
            self.encode(p);
        }
        if let Some(fewest) = &self.query.objective {
            for &(p, q, _) in &fewest.repair {
                self.encode(p);
                self.encode(q);
            }
            if let Some(index) = self.facets.index() {
                for &k in &fewest.repair_items {
                    self.encode(index.items[k].declarer);
                    for &q in index.waits_for(k) {
                        self.encode(q);
                    }
                }
            }
        }
        let Some(fewest) = self.query.objective.clone() else {
            return match self.near_baseline() {
                Answer::Sat(picks) => {
                    self.lay(&picks);
                    Outcome::Found(std::mem::take(&mut self.state))
                }
                Answer::Infeasible => Outcome::Infeasible,
                Answer::Interrupted => Outcome::Cut(None),
            };
        };
        // Optimize the relaxation first, then look beyond it: only the optimum's moves pull
        // products in, so the encoded set stays near what the answer touches (following an
        // arbitrary first answer instead pulls in most of a large catalog).
        // The distance level is left out while the encoded set still grows (which products
        // move is settled by the levels before it; it is the costly one to bound).
        let mut levels = LEVELS - 1;
        let mut lower: Option<(Cost, usize)> = None;
        loop {
            let optimum = match self.relaxed_optimum(&fewest, lower, levels) {
                Answer::Sat(picks) => picks,
                Answer::Infeasible => return Outcome::Infeasible,
                Answer::Interrupted => return Outcome::Cut(None),
            };
            self.lay(&optimum);
            let reached = self.reached(&self.state);
            if reached.is_empty() && levels == LEVELS {
                return Outcome::Found(std::mem::take(&mut self.state)); // the search is over
            }
            lower = Some((self.cost(&self.state, &fewest), levels));
            if reached.is_empty() {
                levels = LEVELS;
                if fewest.moves == Moves::WithinChanged {
                    self.hold(&optimum);
                }
            }
            for q in reached {
                self.encode(q);
            }
        }
    }

    /// Settles the changed products ([`Moves::WithinChanged`]): those `optimum` changes are
    /// the only ones to move from now on, and only their moves are compared. Every other
    /// product stays at its baseline for the rest of the search (a unit clause, where it was
    /// an assumption in every call), and so does every product encoded later. A product
    /// that moves keeps only the values that every neighbour it does not move with allows
    /// at that neighbour's baseline (encoded or not), and never its own baseline: with the
    /// levels before the distance bounded by `optimum`'s cost, a state that left one of them
    /// where it is would change fewer products than the proven fewest.
    ///
    /// Both are implied by the question as it now stands, so no answer changes; what they
    /// buy is speed. Each moving product's least move becomes a constant of the distance
    /// level (binary search starts above it; most of its probes below the optimum were
    /// unsatisfiable calls), its ladder shrinks to the values left, and no answer of the
    /// distance search can break with a product not encoded, so it pulls in none.
    fn hold(&mut self, optimum: &Picks) {
        let baseline = self.query.baseline;
        self.holding = true;
        for (i, &p) in self.order.iter().enumerate() {
            self.rows.held[p] = optimum.0.get(i).is_none_or(|&v| v == baseline[p]);
        }
        for i in 0..self.order.len() {
            let p = self.order[i];
            let Some(e) = &self.rows.encoded[p] else {
                continue;
            };
            if self.rows.held[p] {
                if let Some(stay) = self.lit(p, baseline[p]) {
                    self.add(&[stay]);
                }
                continue;
            }
            let moves = |q: usize| self.rows.encoded[q].is_some() && !self.rows.held[q];
            let allowed: Vec<bool> = e
                .domain
                .iter()
                .map(|&v| {
                    v != baseline[p] && self.model.breaking(p, v, baseline, moves).next().is_none()
                })
                .collect();
            let barred: Vec<Lit> = e
                .lits
                .iter()
                .zip(&allowed)
                .filter(|&(_, &ok)| !ok)
                .map(|(&l, _)| !l)
                .collect();
            for l in barred {
                self.add(&[l]);
            }
            self.rows.allowed[p] = Some(allowed); // read by its ladder, made from now on
        }
        self.sums[LEVELS - 1] = None; // its terms skip held products
    }

    /// Any valid state, found near the baseline: every encoded product is assumed to stay at
    /// its baseline value except those the solver proved must move (the products behind the
    /// failed assumptions of each unsatisfiable round are freed). A plain first answer moves
    /// products arbitrarily, and each move pulls its neighbours into the encoding, which on
    /// windowed catalogs cascades through most of them (measured: 188 of 200 products for a
    /// downgrade question); freeing only what a conflict names keeps the answer, and the
    /// encoded part, near what the question touches. Unsatisfiable with nothing assumed: the
    /// question is infeasible (proven, as in [`Session::bounded`]).
    fn near_baseline(&mut self) -> Answer {
        let mut free: Vec<bool> = vec![false; self.model.vars.len()];
        for (p, _) in &self.query.restrict {
            free[*p] = true;
        }
        loop {
            let held: Vec<(usize, Lit)> = self
                .order
                .iter()
                .filter(|&&p| !free[p])
                .filter_map(|&p| Some((p, self.lit(p, self.query.baseline[p])?)))
                .collect();
            let assumptions: Vec<Lit> = held.iter().map(|&(_, l)| l).collect();
            match self.cnf.solve(&assumptions) {
                SolverResult::Sat => {
                    let picks = self.read();
                    self.lay(&picks);
                    let reached = self.reached(&self.state);
                    if reached.is_empty() {
                        return Answer::Sat(picks);
                    }
                    for q in reached {
                        self.encode(q);
                    }
                }
                SolverResult::Unsat => {
                    let failed = self.cnf.failed(&assumptions);
                    let mut freed = false;
                    for (p, _) in held.iter().filter(|(_, l)| failed.contains(l)) {
                        free[*p] = true;
                        freed = true;
                    }
                    if !freed {
                        return Answer::Infeasible;
                    }
                }
                SolverResult::Interrupted => return Answer::Interrupted,
            }
        }
    }

    /// The best state of the encoded part alone (everything else at its baseline, unchecked)
    /// by the first `levels` levels of the objective. `lower`: the optimum of a smaller
    /// encoded part and how many of its levels were optimized, which bounds this one from
    /// below: a state that meets it is optimal at once, and each level's search starts from
    /// it while the levels before it are where `lower` has them. Each level is a binary
    /// search between what is proven impossible and the best state found.
    ///
    /// When no state meets `lower` and the solver's core blames one level's bound alone,
    /// that level is at least one more, whatever the others do; the search then gallops up
    /// from there (one more, two more, four more...) for its first state instead of taking
    /// an arbitrary one: on `upgrades`' `requires` searches the larger encoded part's optimum
    /// is mostly one or two above the smaller one's, so the first state found is the optimum
    /// and the binary search above it has nothing left to do (about a tenth of the searches'
    /// solver calls on the hard family).
    fn relaxed_optimum(
        &mut self,
        fewest: &Fewest,
        lower: Option<(Cost, usize)>,
        levels: usize,
    ) -> Answer {
        // per level: every value below it is proven impossible
        let mut proven: Cost = [0; LEVELS];
        let mut first: Option<Picks> = None;
        if let Some((bound, known)) = lower.filter(|&(_, known)| known == levels) {
            match self.bounded(Some((known - 1, bound, fewest)), false) {
                Answer::Infeasible => {}
                found => return found,
            }
            if let Some(level) = self.bound_alone {
                proven[level] = bound[level] + 1;
                let mut step = 1;
                while first.is_none() && step <= 8 {
                    let mut bounds = bound;
                    bounds[level] = proven[level] + step - 1;
                    match self.bounded(Some((level, bounds, fewest)), false) {
                        Answer::Sat(picks) => first = Some(picks),
                        Answer::Infeasible if self.bound_alone == Some(level) => {
                            proven[level] = bounds[level] + 1;
                            step *= 2;
                        }
                        Answer::Infeasible => break,
                        Answer::Interrupted => return Answer::Interrupted,
                    }
                }
            }
        }
        let mut best = match first {
            Some(picks) => picks,
            None => match self.bounded(None, false) {
                Answer::Sat(picks) => picks,
                other => return other,
            },
        };
        self.lay(&best);
        let mut cost = self.cost(&self.state, fewest);
        for level in 0..levels {
            let mut low = match lower {
                Some((lower, known)) if level < known && lower[..level] == cost[..level] => {
                    lower[level]
                }
                _ => 0,
            }
            .max(proven[level]);
            while low < cost[level] {
                let mut bounds = cost;
                bounds[level] = low + (cost[level] - low) / 2;
                match self.bounded(Some((level, bounds, fewest)), false) {
                    Answer::Sat(picks) => {
                        self.lay(&picks);
                        cost = self.cost(&self.state, fewest);
                        best = picks;
                    }
                    Answer::Infeasible => low = bounds[level] + 1,
                    Answer::Interrupted => return Answer::Interrupted,
                }
            }
        }
        Answer::Sat(best)
    }

    /// A state of the encoded part with levels `0..=level` of the objective bounded by
    /// `bounds`, when given. With `expand`, products the answer reaches are encoded until it
    /// holds beyond the encoded ones too (a valid state of the whole question).
    fn bounded(&mut self, bounds: Option<(usize, Cost, &Fewest)>, expand: bool) -> Answer {
        loop {
            let size = self.order.len();
            let mut assumptions = Vec::new();
            // where each level's bound assumptions end in `assumptions`
            let mut ends: Vec<usize> = Vec::new();
            if let Some((level, bounds, fewest)) = bounds {
                for (l, &bound) in bounds.iter().enumerate().take(level + 1) {
                    match self.bound(l, bound, fewest) {
                        Ok(lits) => assumptions.extend(lits),
                        Err(answer) => {
                            self.bound_alone = Some(l); // below what no state avoids
                            return answer;
                        }
                    }
                    ends.push(assumptions.len());
                }
            }
            debug_assert_eq!(size, self.order.len(), "bounds encode no product");
            match self.cnf.solve(&assumptions) {
                SolverResult::Sat => {
                    let picks = self.read();
                    let reached = if expand {
                        self.lay(&picks);
                        self.reached(&self.state)
                    } else {
                        Vec::new()
                    };
                    if reached.is_empty() {
                        return Answer::Sat(picks);
                    }
                    for q in reached {
                        self.encode(q);
                    }
                }
                SolverResult::Unsat => {
                    let failed = self.cnf.failed(&assumptions);
                    let mut needed = (0..ends.len()).filter(|&l| {
                        let from = if l == 0 { 0 } else { ends[l - 1] };
                        assumptions[from..ends[l]]
                            .iter()
                            .any(|a| failed.contains(a))
                    });
                    self.bound_alone = match (needed.next(), needed.next()) {
                        (Some(l), None) => Some(l),
                        _ => None,
                    };
                    return Answer::Infeasible;
                }
                SolverResult::Interrupted => return Answer::Interrupted,
            }
        }
    }

    /// The query's nogoods ([`Query::forbid`]) that name `p`, now encoded, as clauses once
    /// every product they name is encoded: "not all of these values". One whose value is
    /// outside a product's domain cannot hold anyway. Nogoods are encoded lazily like the
    /// products: while one waits, an answer that holds it pulls its products in
    /// ([`Session::reached`]). (Encoding every nogood's products up front made each of
    /// `--all`'s questions encode every product a learnt cycle named: quadratic in the
    /// cycles learnt.)
    fn forbid(&mut self, p: usize) {
        let query = self.query;
        for i in 0..self.nogoods_of.get(p).map_or(0, Vec::len) {
            let k = self.nogoods_of[p][i];
            let nogood = &query.forbid[k];
            if self.forbidden[k]
                || nogood
                    .values
                    .iter()
                    .any(|&(q, _)| self.rows.encoded[q].is_none())
            {
                continue;
            }
            self.forbidden[k] = true;
            let clause: Option<Vec<Lit>> = nogood
                .values
                .iter()
                .map(|&(q, v)| Some(!self.lit(q, v)?))
                .collect();
            if let Some(clause) = clause {
                self.add(&clause);
            }
        }
    }

    fn lit(&self, p: usize, value: Value) -> Option<Lit> {
        let e = self.rows.encoded[p].as_ref()?;
        e.domain.iter().position(|&v| v == value).map(|i| e.lits[i])
    }

    fn fresh(&mut self, prefer: bool) -> Lit {
        self.cnf.fresh(prefer)
    }

    fn add(&mut self, lits: &[Lit]) {
        self.cnf.add(lits);
    }

    /// Encodes `p`: its values, exactly one of them, and its supports with every encoded
    /// neighbour.
    fn encode(&mut self, p: usize) {
        if self.rows.encoded[p].is_some() {
            return;
        }
        let domain = domain(self.model, self.query, p);
        let baseline = self.query.baseline[p];
        let prefer = if domain.contains(&baseline) {
            Some(baseline)
        } else {
            domain.last().copied()
        };
        let lits: Vec<Lit> = domain
            .iter()
            .map(|&v| self.fresh(Some(v) == prefer))
            .collect();
        self.add(&lits);
        self.cnf.at_most_one(&lits);
        self.rows.encoded[p] = Some(Encoded {
            domain,
            lits,
            waiting: Vec::new(),
        });
        self.order.push(p);
        self.rows.held[p] = self.holding;
        if self.holding
            && let Some(stay) = self.lit(p, self.query.baseline[p])
        {
            self.add(&[stay]);
        }
        for &q in &self.model.neighbors[p] {
            if self.rows.encoded[q].is_some() {
                self.link(p, q);
            }
        }
        if let Some(e) = &self.rows.encoded[p] {
            for (&v, &l) in e.domain.iter().zip(&e.lits) {
                for &k in self.facets.items_of(p, v) {
                    self.facets.declare(k, l, None);
                }
            }
        }
        self.facets.settle(
            self.model,
            &mut self.cnf,
            &self.rows.encoded,
            self.query.baseline,
            &[p],
        );
        self.forbid(p);
    }

    /// The supports between encoded `p` and `q`: for each value of either, "not it, or one of
    /// the other's values compatible with it". The clauses of one direction already forbid
    /// every bad pair; the other direction lets the solver propagate from either side.
    fn link(&mut self, p: usize, q: usize) {
        let (Some(ep), Some(eq)) = (&self.rows.encoded[p], &self.rows.encoded[q]) else {
            return;
        };
        let matrix = self.model.compatibility_memo(p, &ep.domain, q, &eq.domain);
        let mut clauses = Vec::new();
        for (i, &la) in ep.lits.iter().enumerate() {
            if matrix[i].iter().all(|&ok| ok) {
                continue;
            }
            let mut clause = vec![!la];
            clause.extend(
                eq.lits
                    .iter()
                    .zip(&matrix[i])
                    .filter(|(_, ok)| **ok)
                    .map(|(l, _)| *l),
            );
            clauses.push(clause);
        }
        for (j, &lb) in eq.lits.iter().enumerate() {
            if matrix.iter().all(|row| row[j]) {
                continue;
            }
            let mut clause = vec![!lb];
            clause.extend(
                ep.lits
                    .iter()
                    .zip(matrix.iter())
                    .filter(|(_, row)| row[j])
                    .map(|(l, _)| *l),
            );
            clauses.push(clause);
        }
        for clause in clauses {
            self.add(&clause);
        }
    }

    /// The solver's answer.
    fn read(&self) -> Picks {
        Picks(
            self.order
                .iter()
                .map(|&p| {
                    value(
                        &self.cnf,
                        self.query.baseline[p],
                        self.rows.encoded[p].as_ref(),
                    )
                })
                .collect(),
        )
    }

    /// The whole state `picks` stands for, laid out in [`Session::state`].
    fn lay(&mut self, picks: &Picks) {
        let baseline = self.query.baseline;
        for (i, &p) in self.order.iter().enumerate() {
            self.state[p] = picks.0.get(i).copied().unwrap_or(baseline[p]);
        }
    }

    /// Products not encoded that the answer would break with (see [`reached`]), those its
    /// section 9 items need encoded, and those of the nogoods it holds that wait for them.
    fn reached(&self, values: &[Value]) -> Vec<usize> {
        let mut out = reached(self.model, self.query.baseline, &self.order, values, |q| {
            self.rows.encoded[q].is_some()
        });
        for (k, nogood) in self.query.forbid.iter().enumerate() {
            if !self.forbidden[k] && nogood.values.iter().all(|&(q, v)| values[q] == v) {
                out.extend(
                    nogood
                        .values
                        .iter()
                        .map(|&(q, _)| q)
                        .filter(|&q| self.rows.encoded[q].is_none()),
                );
            }
        }
        out.extend(self.facets.reached(
            self.model,
            self.query.baseline,
            &self.order,
            values,
            &self.rows.encoded,
        ));
        out.sort_unstable();
        out.dedup();
        out
    }
}

/// Reads the solver's last answer into `state` (a copy of `baseline`, where only encoded
/// products ever move): every encoded product (of `order`) at the value it gives it.
fn read_into(
    cnf: &Cnf,
    baseline: &[Value],
    order: &[usize],
    encoded: &[Option<Encoded>],
    state: &mut [Value],
) {
    for &p in order {
        state[p] = value(cnf, baseline[p], encoded[p].as_ref());
    }
}

/// The value the solver's last answer gives an encoded product (`baseline` where none of its
/// literals holds, or it is not encoded).
fn value(cnf: &Cnf, baseline: Value, encoded: Option<&Encoded>) -> Value {
    let mut value = baseline;
    if let Some(e) = encoded {
        for (&v, &l) in e.domain.iter().zip(&e.lits) {
            if cnf.holds(l) {
                value = v;
            }
        }
    }
    value
}

/// Products not encoded that `values` would break with: neighbours of a moved encoded product
/// (of `order`) whose baseline value is not compatible with it. Sorted, without repeats.
fn reached(
    model: &Model<'_>,
    baseline: &[Value],
    order: &[usize],
    values: &[Value],
    encoded: impl Fn(usize) -> bool,
) -> Vec<usize> {
    let mut out = Vec::new();
    for &p in order {
        if values[p] == baseline[p] {
            continue; // a baseline value is compatible with every other baseline value
        }
        out.extend(model.breaking(p, values[p], baseline, &encoded));
    }
    out.sort_unstable();
    out.dedup();
    out
}
