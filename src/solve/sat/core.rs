//! Why a question has no answer: a minimal unsatisfiable core over *selectors*.
//!
//! The question is encoded again, this time with one selector literal per part a user can
//! name (a [`Cause`]): each declaration of each release, each target, each held product, each
//! policy rule that leaves releases out, each product that may not be installed (a catalog
//! provider of a capability an item needs included). A part holds only while its selector is
//! assumed true. Every catalog release gets a value, the ones the policy leaves out included
//! (their rule's selector forbids them), so the core can say that a policy rule is part of
//! the cause and the flags that would lift it can be tried.
//!
//! The encoding is lazy exactly as the engine's (see the parent module): only products the
//! answers reach are encoded, and the encoded part is a relaxation (a subset of the parts).
//! Within an encoded product, the left-out values wait as one literal per set of rules
//! ([`Group`]) until an answer takes it, which keeps the encoding a relaxation too (a section
//! 9 atom that reads the product counts the group through a literal that only implies it).
//! Unsatisfiable under every selector: the solver's failed assumptions are a core of the
//! whole question. Minimizing it (drop a part, ask again; keep the part when the
//! rest is satisfiable) needs no further products: with only some selectors assumed, the
//! parts that hold all lie among encoded products, so a state of the encoded part (one that
//! takes no waiting group: [`Explainer::solve`] expands those first) extends to the whole
//! question by leaving the others free. Each part that survives is needed.

use std::collections::{BTreeMap, BTreeSet};

use rustsat::solvers::SolverResult;
use rustsat::types::Lit;

use super::facets::FacetClauses;
use super::{Cnf, Encoded, Rows};
use crate::solve::Query;
use crate::solve::conflict::{Cause, Conflict, Explained, Settled};
use crate::solve::model::{Exclusion, Model, Value};

/// The conflict behind `query` with the fixes this encoding can check (when `settled` says
/// it is the final word), or `None` when it has an answer or the deadline came first.
pub(crate) fn explain(
    model: &Model<'_>,
    query: &Query<'_>,
    settled: Settled<'_>,
) -> Option<Explained> {
    Explainer::new(model, query).run(settled)
}

/// A policy rule lifted everywhere (`None`) or for one product.
type Lift = (Exclusion, Option<usize>);

/// The rounds of [`Explainer::lifts`] that lift rules only for the products cores name, and
/// free products only as their baselines fail, before it lifts them everywhere.
const NARROW_ROUNDS: usize = 64;

/// Lifted rules, looked up by rule and product (a search's every round filters every
/// selector by them, and a long fix check lifts rules for hundreds of products).
struct Lifts {
    /// The rules lifted for every product, sorted, without repeats.
    everywhere: Vec<Exclusion>,
    only: BTreeSet<(Exclusion, usize)>,
}

impl Lifts {
    fn new(lifted: &[Lift]) -> Self {
        let mut lifts = Lifts {
            everywhere: Vec::new(),
            only: BTreeSet::new(),
        };
        for &(rule, only) in lifted {
            match only {
                None => lifts.everywhere.push(rule),
                Some(p) => {
                    lifts.only.insert((rule, p));
                }
            }
        }
        lifts.everywhere.sort_unstable();
        lifts.everywhere.dedup();
        lifts
    }

    fn covers(&self, rule: Exclusion, product: usize) -> bool {
        self.everywhere.contains(&rule) || self.only.contains(&(rule, product))
    }
}

/// The policy rule a flag lifts, for the flags the encoding can lift alone.
fn rule(flag: &str) -> Option<Exclusion> {
    [Exclusion::Prerelease, Exclusion::Older]
        .into_iter()
        .find(|rule| rule.flag() == Some(flag))
}

/// The size of core from which [`Explainer::minimize`] assumes the other selectors false.
const QUIET_AT: usize = 64;

/// The parts of an encoding from which [`Explainer::minimize`] minimizes a core apart
/// whatever its size.
const APART_AT: usize = 20_000;

/// The solver calls of one [`Explainer::find_core`] that free held products, after which
/// one call holds none: its core, if any, is the search's; else every product its answer
/// moves is freed at once. A deep cascade frees its products one or two a call otherwise:
/// on the instances family with capabilities at 5,000, one fix check made about 1,900
/// calls of 90 ms each over an encoding of 3,306 products, which the probe cut to seconds
/// (and that question from about 330 s to 61 s). After 8 calls rather than 32 (session
/// 32): that question again from 43.5 s to 31.5 s user, with the same bytes and within
/// 1% of the instructions on the hard, hard with capabilities (valid and stale) and
/// instances with capabilities families at 1,000, whose searches free a few products
/// each. After one call (session 37): the first cliff (`plan --target
/// com.gen.team25:svc-02265@3.0.0` on the instances family with capabilities at 5,000)
/// from 23.4 s to 16.8 s, `upgrades` on hard with capabilities at 1,000 0.9% fewer
/// instructions, stale 1.7% (instances with capabilities 0.8% more), the same bytes.
const PROBE_AFTER: usize = 1;

/// The encoded products from which a fix check's core found by a probe ends its narrowing
/// rounds (see [`Explainer::lifts`]). A probe holds no product, so it searches the whole
/// encoding, about as a search with the rules lifted everywhere does; the next narrow round
/// would do it again. On the instances family with capabilities at 5,000, the `--pre`
/// check of an infeasible `plan --target ... --allow-downgrade` made a probe of 17-21 s
/// over 3,740 products in each of its rounds (cut at 10 minutes); its last round, lifted
/// everywhere, took about as long as one of them (the plan: 130 s). The searches of the
/// generated families at 1,000 and 5,000 probe encodings of at most about 150 products,
/// where narrow rounds stay cheap and lifting everywhere made checks far slower.
const WIDE_AT: usize = 1_000;

struct Explainer<'m, 'a, 'q> {
    model: &'m Model<'a>,
    query: &'q Query<'q>,
    cnf: Cnf,
    /// Per product: its encoding, and per encoded product, per value of its
    /// [`Reach`](crate::solve::model::Reach): the value's literal, or the group its literal
    /// waits in ([`Rows::slots`]); the groups of values the policy leaves out that wait for
    /// an answer to need them ([`Rows::groups`], [`Explainer::expand`]).
    rows: Rows,
    order: Vec<usize>,
    /// The solver's last answer laid out over the baseline ([`Explainer::read`]).
    state: Vec<Value>,
    selectors: BTreeMap<Cause, Lit>,
    /// Section 9 items, each under the selector of its declaration.
    facets: FacetClauses<'m>,
    /// The products the last conflict's search found must move (see [`Explainer::lifts`]).
    freed: Vec<bool>,
    /// For an explainer that minimizes a large core apart ([`Explainer::minimize_apart`]):
    /// the only parts it encodes.
    within: Option<Within>,
    /// While products an answer reached are encoded together: those encoded so far, whose
    /// section 9 items are settled at once after them ([`Explainer::encode_all`]).
    settling: Option<Vec<usize>>,
    /// Whether [`Explainer::find_core`]'s last core came from a probe (a call holding no
    /// product).
    probed: bool,
    /// [`PROBE_AFTER`], [`WIDE_AT`] and [`NARROW_ROUNDS`] (other values only in tests).
    probe_after: usize,
    wide_at: usize,
    narrow_rounds: usize,
    /// In a fix check's round that lifts rules everywhere ([`Explainer::lifts`]): those
    /// rules. A value only they leave out is no longer left out anywhere, so it gets its own
    /// literal at once (as the values of products encoded before the round do, expanded
    /// when it starts), rather than wait in a group for an answer to take it: with every
    /// product free, the answers took groups all over the encoding, each taking one more
    /// solver call over it. The `--allow-downgrade` check of an infeasible `plan --target`
    /// on the instances family with capabilities at 5,000 made ten such calls of 0.1-2.4 s
    /// over 2,147 products, and one of 6.3 s over 3,599; expanded at once, one call of 6.6 s.
    eager: Vec<Exclusion>,
}

/// The parts an explainer minimizing a core apart encodes, and the products they name or
/// read: every other part is dropped for good, so its clauses hold by themselves and its
/// products stay out of the encoding unless a part reads them.
struct Within {
    /// The core's parts: each gets a selector of its own.
    parts: BTreeSet<Cause>,
    /// The parts the next search assumes (the others of `parts` are dropped for it).
    assumed: BTreeSet<Cause>,
    /// By product: whether a part names it or its declaration reads it.
    involved: Vec<bool>,
    /// A literal fixed false: the selector of every part outside `parts` (but a product that
    /// may not be installed, whose selector stays free, as in [`Explainer::others`]).
    off: Lit,
}

/// Where a value of an encoded product stands in the encoding.
#[derive(Clone, Copy)]
pub(super) enum Slot {
    Lit(Lit),
    /// Not encoded yet: one of the values group `usize` of the product stands for.
    Group(usize),
}

/// Values the policy leaves out for the same rules, standing as one literal ("one of
/// them") until an answer takes it: the rules' selectors forbid it, what the values need
/// of their neighbours is not encoded yet (so the encoding stays a relaxation), and a
/// neighbour's declaration counts it where one of them satisfies the declaration.
///
/// Most encoded values are such ones (a product read whole has about four times more
/// releases below the installed one than from it on the hard family), and a conflict search
/// lifts the rules of few products: on the hard family at 5,000 products, waiting cut the
/// CPU time of a whole `upgrades` run by about 9%, with the same output. An atom that reads
/// the product counts the group where one of its values makes the atom true, through a
/// literal of its own that the group's expansion makes exact (`facets::making_true`).
pub(super) struct Group {
    lit: Lit,
    /// The values' places in the product's reach.
    members: Vec<usize>,
    expanded: bool,
}

/// Which declarations [`Explainer::link`] encodes.
#[derive(Clone, Copy)]
enum Only<'s> {
    All,
    /// Those of these values (slots) of the declaring product.
    Declaring(&'s [usize]),
    /// Those that hold with some of these values (slots) of the other product.
    Holding(&'s [usize]),
}

enum Answer {
    Sat,
    Unsat(Vec<Lit>),
    Interrupted,
    /// The answer took waiting groups, now expanded: their values' declarations came with
    /// selectors of their own, which the caller may need to assume before asking again.
    Grown,
}

/// What a fix check ([`Explainer::lifts`]) found.
enum Check {
    /// The question has an answer with the rules lifted.
    Fix,
    /// A core of the question with the rules lifted, naming none of them: lifting them
    /// anywhere else leaves it whole.
    Refuted(Vec<Lit>),
}

impl Drop for Explainer<'_, '_, '_> {
    fn drop(&mut self) {
        std::mem::take(&mut self.rows).hand_back(&self.order);
    }
}

impl<'m, 'a, 'q> Explainer<'m, 'a, 'q> {
    fn new(model: &'m Model<'a>, query: &'q Query<'q>) -> Self {
        Explainer {
            model,
            query,
            cnf: Cnf::new(query.deadline),
            rows: Rows::take(model.vars.len()),
            order: Vec::new(),
            state: query.baseline.to_vec(),
            selectors: BTreeMap::new(),
            freed: Vec::new(),
            within: None,
            settling: None,
            probed: false,
            probe_after: PROBE_AFTER,
            wide_at: WIDE_AT,
            narrow_rounds: NARROW_ROUNDS,
            eager: Vec::new(),
            facets: {
                let mut facets = FacetClauses::new(model, query.baseline);
                facets.missing = Some(BTreeMap::new());
                facets
            },
        }
    }

    fn run(mut self, settled: Settled<'_>) -> Option<Explained> {
        if crate::solve::passed(self.query.deadline) {
            return None;
        }
        self.encode_question();
        self.explain(&[], 2, Some(settled))
    }

    /// The conflict with the rules in `lifted` lifted, its fixes among the flags this
    /// encoding can check, and, when none suffices, the next conflict (at most `depth` more);
    /// only the conflict when `settled` says it is not the final word.
    fn explain(
        &mut self,
        lifted: &[Lift],
        depth: usize,
        settled: Option<Settled<'_>>,
    ) -> Option<Explained> {
        let mut free = self.question_free();
        let core = self.find_core(lifted, &mut free).ok()??;
        self.freed = free;
        let (core, minimal) = self.minimize(core);
        let mut causes = self.causes(&core);
        causes.sort();
        let mut conflict = Conflict {
            causes,
            minimal,
            lifted: Lifts::new(lifted).everywhere,
        };
        if settled.is_some_and(|settled| !settled(self.model, &conflict)) {
            return Some(Explained::sketched(conflict, self.order.len()));
        }
        let flags = conflict.flags();
        // --allow-install adds products to the question: the caller checks it with a model
        // built for it. The other flags only lift selectors of this encoding.
        let (checkable, unchecked): (Vec<&'static str>, Vec<&'static str>) =
            flags.iter().partition(|&&f| rule(f).is_some());
        let with = |flags: &[&'static str]| -> Vec<Lift> {
            lifted
                .iter()
                .copied()
                .chain(flags.iter().filter_map(|&f| rule(f)).map(|r| (r, None)))
                .collect()
        };
        let rules = |flags: &[&'static str]| -> Vec<Exclusion> {
            flags.iter().filter_map(|&f| rule(f)).collect()
        };
        let mut fixes: Vec<Vec<&'static str>> = Vec::new();
        // the parts of refutations that name products read in part
        let mut open: Vec<Cause> = Vec::new();
        for &flag in &checkable {
            if self.check(lifted, &rules(&[flag]), &conflict, settled, &mut open) {
                fixes.push(vec![flag]);
            }
        }
        if fixes.is_empty()
            && open.is_empty()
            && checkable.len() > 1
            && self.check(lifted, &rules(&checkable), &conflict, settled, &mut open)
        {
            fixes.push(checkable.clone());
        }
        if !open.is_empty() {
            // A flag refuted only over products read in part may be a fix once they are read
            // whole (the releases it would lift there were not in the model): the question
            // is a sketch naming them, asked again once they are read.
            conflict.causes.extend(open);
            conflict.causes.sort();
            conflict.causes.dedup();
            return Some(Explained::sketched(conflict, self.order.len()));
        }
        // The conflict behind the flags is settled too: one naming a product read in part
        // sends the question back to be asked again, so what would follow it (its own fix
        // checks, and the one behind it) is not looked for (the question is a sketch).
        let beyond = if fixes.is_empty() && !checkable.is_empty() && depth > 0 {
            self.explain(&with(&checkable), depth - 1, settled)
                .map(|next| (checkable, Box::new(next)))
        } else {
            None
        };
        let sketch = beyond.as_ref().is_some_and(|(_, next)| next.sketch);
        // Past the deadline every check above answered "cut", which reads as "no fix": say
        // the explanation is not whole rather than let a missing fix look proven.
        if crate::solve::passed(self.query.deadline) {
            conflict.minimal = false;
        }
        Some(Explained {
            conflict,
            fixes,
            unchecked,
            beyond,
            sketch,
            encoded: self.order.len(),
        })
    }

    /// Whether lifting `rules` (besides `lifted`) gives the question an answer
    /// ([`Explainer::lifts`]). A refutation `settled` does not take as the final word (it
    /// names a product read in part, whose releases the rules leave out may not all be in
    /// the model) adds its parts to `open`: the caller reads those products and asks again.
    fn check(
        &mut self,
        lifted: &[Lift],
        rules: &[Exclusion],
        conflict: &Conflict,
        settled: Option<Settled<'_>>,
        open: &mut Vec<Cause>,
    ) -> bool {
        let core = match self.lifts(lifted, rules, conflict) {
            Ok(Check::Fix) => return true,
            Ok(Check::Refuted(core)) => core,
            Err(()) => return false,
        };
        let Some(settled) = settled else {
            return false;
        };
        let refuted = |causes: Vec<Cause>| Conflict {
            causes,
            minimal: false,
            lifted: Vec::new(),
        };
        let whole = refuted(self.causes(&core));
        if settled(self.model, &whole) {
            return false;
        }
        // a core as found names more than it needs: a minimal one may name only products
        // read whole
        let (core, _) = self.minimize(core);
        let least = refuted(self.causes(&core));
        if !settled(self.model, &least) {
            open.extend(least.causes);
        }
        false
    }

    /// Whether lifting `rules` (besides `lifted`) gives the question an answer, lifting them
    /// only as far as it takes: first for the products `conflict` names under them, then for
    /// those each next core names, until an answer (the rules lifted everywhere allow at
    /// least that) or a core with no part of the rules in it (lifting them anywhere else
    /// leaves that core whole, so no answer in this model; [`Explainer::check`] says whether
    /// a model read in part may lack what would break it). Exact, and cheaper than lifting
    /// everywhere at once, which opens every product's left-out releases to the search (fix
    /// checks were about 85% of the conflict search's time on the hard family at 1,000; this
    /// cut the whole `upgrades` run at 5,000 by about 3%: most checks pass or fail near).
    fn lifts(
        &mut self,
        lifted: &[Lift],
        rules: &[Exclusion],
        conflict: &Conflict,
    ) -> Result<Check, ()> {
        let mut named: BTreeSet<(Exclusion, usize)> = conflict
            .causes
            .iter()
            .filter_map(|c| match c {
                Cause::Excluded { product, rule } if rules.contains(rule) => {
                    Some((*rule, *product))
                }
                _ => None,
            })
            .collect();
        // Each round starts free where the conflict's search (and the rounds before) found
        // products must move: the rules lifted only grow, so those baselines would fail
        // again, one solver call each (about 15% of the checks' time on the hard family
        // with capabilities at 5,000; the answers are the same, the search only shorter).
        let mut free = self.freed.clone();
        let mut round = 0;
        loop {
            round += 1;
            let mut trial: Vec<Lift> = lifted.to_vec();
            trial.extend(named.iter().map(|&(r, p)| (r, Some(p))));
            if round > self.narrow_rounds {
                trial.extend(rules.iter().map(|&rule| (rule, None)));
                self.eager = Lifts::new(&trial).everywhere;
                for p in self.order.clone() {
                    if self.rows.groups[p]
                        .iter()
                        .any(|g| !g.expanded && self.lifted_group(p, g))
                    {
                        self.expand(p);
                    }
                }
            }
            let found = self.find_core(&trial, &mut free);
            self.eager.clear();
            let Some(mut core) = found? else {
                return Ok(Check::Fix);
            };
            core.sort_unstable();
            let more: Vec<(Exclusion, usize)> = self
                .selectors
                .iter()
                .filter(|(_, l)| core.binary_search(l).is_ok())
                .filter_map(|(c, _)| match c {
                    Cause::Excluded { product, rule } if rules.contains(rule) => {
                        Some((*rule, *product))
                    }
                    _ => None,
                })
                .collect();
            if more.is_empty() {
                return Ok(Check::Refuted(core));
            }
            named.extend(more);
            // A deep cascade names one more product per round, and each round frees held
            // products one solver call at a time: on the instances family with
            // capabilities at 5,000, one check took 1,016 rounds and 167 s, each call
            // re-propagating an encoding of 3,000 products. Past `NARROW_ROUNDS` the rules
            // are lifted everywhere and every product starts free (the answer is the same,
            // see above). Not sooner: after 4 rounds, such wider searches made the hard
            // family with capabilities at 1,000 ten times slower, whose checks end in at
            // most about 25 rounds. But at once after a core a probe found over a large
            // encoding, which cost as much as the wide search will ([`WIDE_AT`]).
            if round < self.narrow_rounds && self.probed && self.order.len() >= self.wide_at {
                round = self.narrow_rounds;
            }
            if round == self.narrow_rounds {
                free.fill(true);
            }
        }
    }

    /// A core of the question with the rules in `lifted` lifted: `Ok(None)` when it has an
    /// answer, `Err` when the deadline came first. Each round assumes every selector still
    /// active and, for every encoded product not yet freed, its baseline value; a failed
    /// assumption on a baseline frees that product, an answer that breaks with products not
    /// encoded encodes them, so answers (and the encoding) stay near the question, as in the
    /// engine's own feasibility questions (after [`PROBE_AFTER`] calls that free products,
    /// one call holds none). `free` (by product) says which are freed, and gains those
    /// freed here: freeing is a matter of speed, never of what is proven, so a caller asking
    /// again with rules lifted further starts from what was freed before.
    fn find_core(&mut self, lifted: &[Lift], free: &mut [bool]) -> Result<Option<Vec<Lit>>, ()> {
        let lifts = Lifts::new(lifted);
        let mut freeing = 0;
        self.probed = false;
        // The selectors in force, worked out again only when encoding added some (selectors
        // are only ever added, and what filters them is fixed for this call): a fix check's
        // rounds make tens of calls over thousands of selectors.
        let mut in_force: (usize, Vec<Lit>) = (usize::MAX, Vec::new());
        loop {
            if in_force.0 != self.selectors.len() {
                in_force = (self.selectors.len(), self.in_force(&lifts));
            }
            let active = &in_force.1;
            let held: Vec<(usize, Lit)> = self
                .order
                .iter()
                .filter(|&&p| !free[p])
                .filter_map(|&p| {
                    let e = self.rows.encoded[p].as_ref()?;
                    let at = e.domain.iter().position(|&v| v == self.query.baseline[p])?;
                    Some((p, e.lits[at]))
                })
                .collect();
            // a long cascade of held products that fail one by one is cut short by one call
            // that holds none (its core is final; its answer says what to free)
            let probe = freeing == self.probe_after && !held.is_empty();
            let mut assumed = active.clone();
            if !probe {
                assumed.extend(held.iter().map(|&(_, l)| l));
            }
            // every part is in force: the selectors expanded values bring are assumed too
            match self.step(&assumed) {
                Answer::Grown => {}
                Answer::Sat => {
                    self.read();
                    let values = &self.state;
                    let mut reached =
                        super::reached(self.model, self.query.baseline, &self.order, values, |q| {
                            self.rows.encoded[q].is_some()
                        });
                    reached.extend(self.facets.reached(
                        self.model,
                        self.query.baseline,
                        &self.order,
                        values,
                        &self.rows.encoded,
                    ));
                    if probe {
                        for &p in &self.order {
                            if values[p] != self.query.baseline[p] {
                                free[p] = true;
                            }
                        }
                        freeing += 1;
                    }
                    reached.sort_unstable();
                    reached.dedup();
                    if let Some(within) = &self.within {
                        // a product no part names or reads has no part the answer can break
                        reached.retain(|&q| within.involved[q]);
                    }
                    if reached.is_empty() {
                        return Ok(None);
                    }
                    self.encode_all(&reached);
                }
                Answer::Unsat(core) => {
                    let failed: std::collections::BTreeSet<Lit> = core.iter().copied().collect();
                    let mut freed = false;
                    for &(p, l) in &held {
                        if failed.contains(&l) {
                            free[p] = true;
                            freed = true;
                        }
                    }
                    if !freed {
                        // only selectors are left in it
                        self.probed = probe;
                        return Ok(Some(core));
                    }
                    freeing += 1;
                }
                Answer::Interrupted => return Err(()),
            }
        }
    }

    /// The selectors [`Explainer::find_core`] assumes with the rules in `lifts` lifted (and,
    /// minimizing apart, those [`Within::assumed`] keeps). The policy and the question come
    /// before the declarations: the solver then rules a left-out release out by its policy
    /// rule (one part, which a flag lifts) rather than by whatever its declarations break.
    fn in_force(&self, lifts: &Lifts) -> Vec<Lit> {
        let mut active: Vec<(bool, Lit)> = self
            .selectors
            .iter()
            .filter(|(c, _)| match c {
                Cause::Excluded { product, rule } => !lifts.covers(*rule, *product),
                _ => true,
            })
            .filter(|(c, _)| self.within.as_ref().is_none_or(|w| w.assumed.contains(c)))
            .map(|(c, &l)| (matches!(c, Cause::Declares { .. }), l))
            .collect();
        active.sort_by_key(|&(declares, _)| declares);
        active.into_iter().map(|(_, l)| l).collect()
    }

    /// The products [`Explainer::find_core`] starts free: those the question asks to move.
    fn question_free(&self) -> Vec<bool> {
        let mut free = vec![false; self.model.vars.len()];
        for (p, _) in &self.query.restrict {
            free[*p] = true;
        }
        free
    }

    /// Deletion-based: each part in turn is dropped; when the rest is still unsatisfiable,
    /// the part goes (and the rest shrinks to the new core), else it stays.
    ///
    /// A core of [`QUIET_AT`] parts or more is minimized with every other selector assumed
    /// false ([`Explainer::others`]), which leaves the answers as they are (such a selector
    /// occurs only negated, so setting it false only satisfies clauses: the parts that hold
    /// have an answer exactly when they have one with the others dropped, and a core found
    /// so, less the others, is still a core) but spares the solver deciding them. On the
    /// instances family with capabilities at 5,000, a core of 1,585 parts was minimized in
    /// about 930 questions of an encoding with 275,000 selectors, 0.4-0.6 s each; one
    /// question's plan went from 559 s to 396 s so.
    ///
    /// Such a core, or any core of an encoding of [`APART_AT`] parts or more, is minimized
    /// apart first ([`Explainer::minimize_apart`]): on an encoding of its own parts, each
    /// question assigns the few products they name, not the whole encoding's (there, the
    /// minimizing went from most of that question's time to under 1%). A smaller core of a
    /// smaller encoding is quick either way, and its explanation stays as it was.
    fn minimize(&mut self, mut core: Vec<Lit>) -> (Vec<Lit>, bool) {
        // Declarations are tried first, so they go whenever the question and the policy
        // rules suffice: one "left out without --allow-downgrade" reads better than a
        // sentence per older release, and a flag can lift it.
        let cause = self.by_lit();
        core.sort_by_key(|l| (!matches!(cause[l], Cause::Declares { .. }), *l));
        #[cfg(debug_assertions)]
        assert!(
            self.selectors.iter().all(|(cause, &l)| {
                matches!(cause, Cause::Missing { .. }) || !self.cnf.un_negated(l)
            }),
            "only a `Missing` selector occurs un-negated"
        );
        let quiet = core.len() >= QUIET_AT;
        if (quiet || self.selectors.len() >= APART_AT)
            && self.within.is_none()
            && let Some(minimized) = self.minimize_apart(&core)
        {
            return minimized;
        }
        delete_each(core, |trial| {
            let mut assumed = trial.to_vec();
            if quiet {
                assumed.extend(self.others(trial));
            }
            match self.solve(&assumed) {
                Answer::Unsat(smaller) => Ok(Some(smaller)),
                // (`solve` asks again until no group is taken: it never answers `Grown`)
                Answer::Sat | Answer::Grown => Ok(None),
                Answer::Interrupted => Err(()),
            }
        })
    }

    /// [`Explainer::minimize`] on a fresh explainer that encodes only the parts of `core`
    /// ([`Within`]), as lazily as this one: an answer that breaks a part with products not
    /// encoded encodes them, so each answer it gives holds for the parts it assumes, and
    /// the products no part names or reads are never encoded. Deletion-based as
    /// [`Explainer::minimize`], in the same order; `None` when the fresh encoding finds the
    /// parts satisfiable after all, which would be a fault (the caller then minimizes here).
    fn minimize_apart(&self, core: &[Lit]) -> Option<(Vec<Lit>, bool)> {
        let parts: BTreeSet<Cause> = self.causes(core).into_iter().collect();
        let mut apart = Explainer::new(self.model, self.query);
        let off = apart.cnf.fresh(false);
        apart.cnf.add(&[!off]);
        apart.within = Some(Within {
            involved: involved(self.model, apart.facets.index(), &parts),
            assumed: parts.clone(),
            parts,
            off,
        });
        apart.encode_question();
        let mut free = apart.question_free();
        // parts by what they are, since `apart` gives them selectors of its own; tried in
        // this explainer's order
        let mut found = match apart.find_core(&[], &mut free) {
            Ok(Some(found)) => apart.causes(&found),
            Ok(None) => return None,
            Err(()) => return Some((core.to_vec(), false)),
        };
        found.sort_by_key(|c| (!matches!(c, Cause::Declares { .. }), self.selectors[c]));
        let (left, minimal) = delete_each(found, |trial| {
            if let Some(within) = &mut apart.within {
                within.assumed = trial.iter().cloned().collect();
            }
            Ok(apart
                .find_core(&[], &mut free)?
                .map(|smaller| apart.causes(&smaller)))
        });
        Some((left.iter().map(|c| self.selectors[c]).collect(), minimal))
    }

    /// Each selector's part.
    fn by_lit(&self) -> BTreeMap<Lit, &Cause> {
        self.selectors.iter().map(|(c, &l)| (l, c)).collect()
    }

    /// The parts whose selectors are `lits` (a core).
    fn causes(&self, lits: &[Lit]) -> Vec<Cause> {
        let by_lit = self.by_lit();
        lits.iter().map(|l| by_lit[l].clone()).collect()
    }

    /// Every selector not in `parts`, negated, but those of products that may not be
    /// installed: a capability atom under a negation counts a catalog provider once its
    /// `Missing` selector is false, so that selector also occurs un-negated (every other
    /// occurs only negated, which debug builds check in [`Explainer::minimize`]).
    fn others(&self, parts: &[Lit]) -> Vec<Lit> {
        let mut parts = parts.to_vec();
        parts.sort_unstable();
        self.selectors
            .iter()
            .filter(|(cause, _)| !matches!(cause, Cause::Missing { .. }))
            .map(|(_, &l)| l)
            .filter(|l| parts.binary_search(l).is_err())
            .map(|l| !l)
            .collect()
    }

    /// Solves under `assumed` selectors, the parts of the question that hold (the others are
    /// dropped); a core is given as the selectors it fails on. An answer that takes a group
    /// of left-out values is no answer yet: the groups it takes are expanded and the solver
    /// asked again, so every answer given holds as encoded. The expanded values'
    /// declarations are parts outside `assumed`, so dropped: right for [`Explainer::minimize`],
    /// which asks whether some of a core's parts alone conflict; a question with every part
    /// in force asks [`Explainer::step`] instead.
    fn solve(&mut self, assumed: &[Lit]) -> Answer {
        loop {
            match self.step(assumed) {
                Answer::Grown => {}
                answer => return answer,
            }
        }
    }

    /// One solver call under `assumed`: an answer that takes waiting groups expands them and
    /// is [`Answer::Grown`], so a caller that assumes every part assumes the new ones too
    /// before asking again (else an answer could break an expanded value's declaration by
    /// leaving its selector false: a fix check once passed so on an invalid state).
    fn step(&mut self, assumed: &[Lit]) -> Answer {
        match self.cnf.solve(assumed) {
            SolverResult::Sat => {
                let taken: Vec<usize> = self
                    .order
                    .iter()
                    .copied()
                    .filter(|&p| {
                        self.rows.groups[p]
                            .iter()
                            .any(|g| !g.expanded && self.cnf.holds(g.lit))
                    })
                    .collect();
                if taken.is_empty() {
                    return Answer::Sat;
                }
                for p in taken {
                    self.expand(p);
                }
                Answer::Grown
            }
            SolverResult::Unsat => Answer::Unsat(self.cnf.failed(assumed)),
            SolverResult::Interrupted => Answer::Interrupted,
        }
    }

    /// Lays the solver's answer out in [`Explainer::state`].
    fn read(&mut self) {
        super::read_into(
            &self.cnf,
            self.query.baseline,
            &self.order,
            &self.rows.encoded,
            &mut self.state,
        );
    }

    fn selector(&mut self, cause: Cause) -> Lit {
        if let Some(&l) = self.selectors.get(&cause) {
            return l;
        }
        let outside = !self.encodes(&cause);
        if outside
            && !matches!(cause, Cause::Missing { .. })
            && let Some(within) = &self.within
        {
            return within.off;
        }
        let l = match (&cause, &mut self.facets.missing) {
            // one selector per missing product, whether a dependency or a capability names it
            (Cause::Missing { product }, Some(missing)) => *missing
                .entry(product.clone())
                .or_insert_with(|| self.cnf.fresh(true)),
            _ => self.cnf.fresh(true),
        };
        if !outside {
            self.selectors.insert(cause, l);
        }
        l
    }

    /// Whether `cause` is a part this explainer encodes (every part but when it minimizes a
    /// core apart).
    fn encodes(&self, cause: &Cause) -> bool {
        self.within.as_ref().is_none_or(|w| w.parts.contains(cause))
    }

    /// Encodes what the question names: the products it asks to move, and its nogoods.
    fn encode_question(&mut self) {
        for &(p, _) in &self.query.restrict {
            self.encode(p);
        }
        self.forbid();
    }

    /// Encodes each of `products`, settling their section 9 items together once all are
    /// encoded: one link per rule atom's chain for all of them ([`FacetClauses::settle`]).
    fn encode_all(&mut self, products: &[usize]) {
        self.settling = Some(Vec::new());
        for &p in products {
            self.encode(p);
        }
        if let Some(now) = self.settling.take() {
            self.settle(&now);
        }
    }

    /// Whether the rules that leave `group`'s values (of `p`) out are all in
    /// [`Explainer::eager`].
    fn lifted_group(&self, p: usize, group: &Group) -> bool {
        let rules = &self.model.reach(p).values[group.members[0]].1;
        self.lifted_everywhere(rules)
    }

    /// Whether `p` at `value` keeps every declaration it shares with its neighbours as they
    /// are today: such a value's literal is one the solver prefers to decide true. A product
    /// freed from its baseline then tends to move where it breaks nothing left at baseline,
    /// and its neighbours need no encoding; otherwise it took whichever value was decided
    /// last, and each answer reached more products to encode and free (the fix checks of
    /// hard + capabilities `upgrades` at 5,000 encoded about 85 products each, to move 13).
    /// A preference only: it changes which answer or core the solver finds first, never
    /// whether one exists.
    fn calm(&self, p: usize, value: Value) -> bool {
        self.model.fits_today(p, value)
    }

    /// Whether `rules` (those leaving a value out) are all lifted everywhere in this wide
    /// round ([`Explainer::eager`]).
    fn lifted_everywhere(&self, rules: &[Exclusion]) -> bool {
        !self.eager.is_empty() && rules.iter().all(|r| self.eager.contains(r))
    }

    /// Encodes `p`: every value it could take under any policy (each one the policy leaves out
    /// forbidden by its rule's selector, waiting in a [`Group`] unless it is the baseline or
    /// asked for), its own requirements on products that cannot be there, the query's parts
    /// about it, and its declarations with every encoded neighbour.
    fn encode(&mut self, p: usize) {
        if self.rows.encoded[p].is_some() {
            return;
        }
        let model = self.model;
        let reach = model.reach(p);
        let baseline = self.query.baseline[p];
        let asked = |v: &Value| {
            self.query
                .restrict
                .iter()
                .any(|(q, values)| *q == p && values.contains(v))
        };
        let mut slots: Vec<Slot> = Vec::with_capacity(reach.values.len());
        let mut groups: Vec<(&[Exclusion], Group)> = Vec::new();
        let mut one_of: Vec<Lit> = Vec::new();
        let mut forbidden: Vec<(Exclusion, Lit)> = Vec::new();
        for (at, (v, rules)) in reach.values.iter().enumerate() {
            let waits = !rules.is_empty() && *v != baseline && !asked(v);
            if waits && !self.lifted_everywhere(rules) {
                let known = groups.iter().position(|(r, _)| *r == rules.as_slice());
                let g = known.unwrap_or_else(|| {
                    let lit = self.cnf.fresh(false);
                    one_of.push(lit);
                    forbidden.extend(rules.iter().map(|&rule| (rule, lit)));
                    let group = Group {
                        lit,
                        members: Vec::new(),
                        expanded: false,
                    };
                    groups.push((rules.as_slice(), group));
                    groups.len() - 1
                });
                groups[g].1.members.push(at);
                slots.push(Slot::Group(g));
            } else {
                let lit = self.cnf.fresh(*v == baseline || self.calm(p, *v));
                one_of.push(lit);
                forbidden.extend(rules.iter().map(|&rule| (rule, lit)));
                slots.push(Slot::Lit(lit));
            }
        }
        self.cnf.add(&one_of);
        self.cnf.at_most_one(&one_of);
        for (rule, l) in forbidden {
            let s = self.selector(Cause::Excluded { product: p, rule });
            self.cnf.add(&[!s, !l]);
        }
        let (domain, lits): (Vec<Value>, Vec<Lit>) = reach
            .values
            .iter()
            .zip(&slots)
            .filter_map(|((v, _), slot)| match slot {
                Slot::Lit(l) => Some((*v, *l)),
                Slot::Group(_) => None,
            })
            .unzip();
        let waiting = groups
            .iter()
            .map(|(_, g)| {
                (
                    g.lit,
                    g.members.iter().map(|&at| reach.values[at].0).collect(),
                )
            })
            .collect();
        self.rows.slots[p] = slots;
        self.rows.groups[p] = groups.into_iter().map(|(_, g)| g).collect();
        self.missing(p, None);
        self.question_parts(p, &domain, &lits);
        debug_assert!(
            crate::solve::domain(self.model, self.query, p)
                .iter()
                .all(|v| domain.contains(v)),
            "every value the engine may choose is encoded"
        );
        let values: Vec<(Value, Lit)> = domain.iter().copied().zip(lits.iter().copied()).collect();
        self.rows.encoded[p] = Some(Encoded {
            domain,
            lits,
            waiting,
        });
        self.order.push(p);
        for q in self.model.neighbors[p].clone() {
            if self.rows.encoded[q].is_some() {
                self.link(p, q, Only::All);
                self.link(q, p, Only::All);
            }
        }
        self.declare_items(p, &values);
    }

    /// The question's parts about `p` (values `domain`, literals `lits`): the values it is
    /// asked to take, the value it is held at.
    fn question_parts(&mut self, p: usize, domain: &[Value], lits: &[Lit]) {
        for (q, allowed) in &self.query.restrict {
            if *q == p {
                let s = self.selector(Cause::Asked {
                    product: p,
                    values: allowed.clone(),
                });
                let mut clause = vec![!s];
                clause.extend(
                    domain
                        .iter()
                        .zip(lits)
                        .filter(|(v, _)| allowed.contains(v))
                        .map(|(_, &l)| l),
                );
                self.cnf.add(&clause);
            }
        }
        if self.query.holds(self.model, p) {
            let value = self.query.baseline[p];
            let s = self.selector(Cause::Held { product: p, value });
            let mut clause = vec![!s];
            clause.extend(
                domain
                    .iter()
                    .zip(lits)
                    .filter(|&(&v, _)| v == value)
                    .map(|(_, &l)| l),
            );
            self.cnf.add(&clause);
        }
    }

    /// Gives `p`'s waiting values their own literals, as [`Explainer::encode`] gives the
    /// others: each group's literal then stands for "one of its values", the values'
    /// declarations are encoded, and so are the neighbours' declarations they satisfy (the
    /// clauses that counted the group stay, weaker than the new ones).
    fn expand(&mut self, p: usize) {
        let model = self.model;
        let reach = model.reach(p);
        let mut fresh: Vec<usize> = Vec::new();
        let mut values: Vec<(Value, Lit)> = Vec::new();
        for g in 0..self.rows.groups[p].len() {
            if self.rows.groups[p][g].expanded {
                continue;
            }
            self.rows.groups[p][g].expanded = true;
            let group = self.rows.groups[p][g].lit;
            let members = self.rows.groups[p][g].members.clone();
            let lits: Vec<Lit> = members
                .iter()
                .map(|&at| {
                    let calm = self.calm(p, reach.values[at].0);
                    self.cnf.fresh(calm)
                })
                .collect();
            let mut clause = vec![!group];
            clause.extend(&lits);
            self.cnf.add(&clause);
            for &l in &lits {
                self.cnf.add(&[!l, group]);
            }
            self.cnf.at_most_one(&lits);
            let start = values.len();
            for (&at, &l) in members.iter().zip(&lits) {
                self.rows.slots[p][at] = Slot::Lit(l);
                values.push((reach.values[at].0, l));
            }
            // the atoms that counted the group count the values that make them true now
            self.facets
                .expanded(model, &mut self.cnf, p, group, &values[start..]);
            fresh.extend(members);
        }
        if fresh.is_empty() {
            return;
        }
        if let Some(e) = self.rows.encoded[p].as_mut() {
            e.domain.extend(values.iter().map(|&(v, _)| v));
            e.lits.extend(values.iter().map(|&(_, l)| l));
            e.waiting.clear();
        }
        self.missing(p, Some(&fresh));
        for q in self.model.neighbors[p].clone() {
            if self.rows.encoded[q].is_some() {
                self.link(p, q, Only::Declaring(&fresh));
                self.link(q, p, Only::Holding(&fresh));
            }
        }
        self.declare_items(p, &values);
    }

    /// `p`'s requirements on products that cannot be there, for its values with a literal
    /// (of `only`, when given).
    fn missing(&mut self, p: usize, only: Option<&[usize]>) {
        for (at, release, declaration, product) in &self.model.reach(p).missing {
            if only.is_some_and(|only| !only.contains(at)) {
                continue;
            }
            let Slot::Lit(value) = self.rows.slots[p][*at] else {
                continue;
            };
            let declares = self.selector(Cause::Declares {
                product: p,
                release: *release,
                declaration: *declaration,
            });
            let missing = self.selector(Cause::Missing {
                product: product.clone(),
            });
            self.cnf.add(&[!value, !declares, !missing]);
        }
    }

    /// The section 9 items `p` declares under `values`, each under its declaration's
    /// selector, and those that waited for `p`.
    fn declare_items(&mut self, p: usize, values: &[(Value, Lit)]) {
        if let Some(index) = self.facets.index() {
            for &(v, l) in values {
                for &k in self.facets.items_of(p, v) {
                    let item = &index.items[k];
                    let s = self.selector(Cause::Declares {
                        product: p,
                        release: item.release,
                        declaration: item.source.into(),
                    });
                    self.facets.declare(k, l, Some(s));
                }
            }
        }
        match &mut self.settling {
            Some(later) => later.push(p),
            None => self.settle(&[p]),
        }
    }

    /// The section 9 items that waited for the products `now` ([`FacetClauses::settle`]),
    /// with the selectors they bring.
    fn settle(&mut self, now: &[usize]) {
        self.facets.settle(
            self.model,
            &mut self.cnf,
            &self.rows.encoded,
            self.query.baseline,
            now,
        );
        // the providers capability atoms named that may not be installed are parts too
        for (product, &l) in self.facets.missing.iter().flatten() {
            let cause = Cause::Missing {
                product: product.clone(),
            };
            if self.encodes(&cause) {
                self.selectors.entry(cause).or_insert(l);
            }
        }
    }

    /// The query's nogoods ([`Query::forbid`]), each a part of the question under a selector
    /// of its own ([`Cause::Learnt`]): "not all of these values", their products encoded. One
    /// whose value is not encoded cannot hold anyway.
    fn forbid(&mut self) {
        let query = self.query;
        for nogood in &query.forbid {
            for &(p, v) in &nogood.values {
                self.encode(p);
                if self.rows.encoded[p]
                    .as_ref()
                    .is_some_and(|e| !e.domain.contains(&v))
                {
                    self.expand(p); // a value the policy leaves out may close the cycle too
                }
            }
            let lits: Option<Vec<Lit>> = nogood
                .values
                .iter()
                .map(|&(p, v)| {
                    let e = self.rows.encoded[p].as_ref()?;
                    e.domain.iter().position(|&d| d == v).map(|i| e.lits[i])
                })
                .collect();
            let Some(lits) = lits else { continue };
            let s = self.selector(Cause::Learnt(nogood.clone()));
            let mut clause = vec![!s];
            clause.extend(lits.iter().map(|&l| !l));
            self.cnf.add(&clause);
        }
    }

    /// The declarations of `p`'s releases on `q` (those `only` selects): for each value `a`
    /// of `p` with a literal, each manifest it runs and each declaration there on `q`, the
    /// clause "not `a`, or the declaration does not hold, or `q` takes a value that satisfies
    /// it" (a pair of kept products always satisfies, as the engine's model says); a group of
    /// `q` counts where one of its values satisfies.
    fn link(&mut self, p: usize, q: usize, only: Only<'_>) {
        if self.rows.encoded[p].is_none() || self.rows.encoded[q].is_none() {
            return;
        }
        let model = self.model;
        for j in model.judged(p, q) {
            let Slot::Lit(own) = self.rows.slots[p][j.at] else {
                continue; // a waiting value declares nothing yet
            };
            let wanted = match only {
                Only::All => true,
                Only::Declaring(slots) => slots.contains(&j.at),
                Only::Holding(slots) => slots.iter().any(|&k| j.holds[k]),
            };
            if !wanted {
                continue;
            }
            let s = self.selector(Cause::Declares {
                product: p,
                release: j.release,
                declaration: j.declaration,
            });
            let mut clause = vec![!own, !s];
            let mut counted: Vec<usize> = Vec::new();
            for (slot, _) in self.rows.slots[q].iter().zip(&j.holds).filter(|(_, h)| **h) {
                match *slot {
                    Slot::Lit(l) => clause.push(l),
                    Slot::Group(g) if !counted.contains(&g) => {
                        counted.push(g);
                        clause.push(self.rows.groups[q][g].lit);
                    }
                    Slot::Group(_) => {}
                }
            }
            self.cnf.add(&clause);
        }
    }
}

/// Deletion-based minimization of `core`: each part in turn is dropped, and `ask` says
/// whether the rest conflicts (`Ok(Some(core))`, a core among them: the rest shrinks to it),
/// has an answer (`Ok(None)`: the part stays), or could not say in time (`Err`: the parts
/// left so far, not known minimal).
fn delete_each<T: Ord + Clone>(
    mut core: Vec<T>,
    mut ask: impl FnMut(&[T]) -> Result<Option<Vec<T>>, ()>,
) -> (Vec<T>, bool) {
    let mut i = 0;
    while i < core.len() {
        let mut trial = core.clone();
        trial.remove(i);
        match ask(&trial) {
            Ok(Some(mut smaller)) => {
                smaller.sort_unstable();
                core = trial
                    .into_iter()
                    .filter(|x| smaller.binary_search(x).is_ok())
                    .collect();
            }
            Ok(None) => i += 1,
            Err(()) => return (core, false),
        }
    }
    (core, true)
}

/// By product: whether one of `parts` names it or a declaration among them reads it (the
/// products whose values can break a part; [`Within::involved`]).
fn involved(
    model: &Model<'_>,
    index: Option<&crate::solve::facets::FacetIndex>,
    parts: &BTreeSet<Cause>,
) -> Vec<bool> {
    let mut out = vec![false; model.vars.len()];
    for part in parts {
        match part {
            Cause::Asked { product, .. }
            | Cause::Held { product, .. }
            | Cause::Excluded { product, .. } => out[*product] = true,
            Cause::Declares {
                product,
                release,
                declaration,
            } => {
                out[*product] = true;
                let reads: Vec<usize> = match (declaration.item(), index) {
                    // each item of that release: what can change its truth, and what a
                    // tolerated one is read as today from (its stuck sets)
                    (Some(source), Some(index)) => model
                        .reach(*product)
                        .values
                        .iter()
                        .flat_map(|(v, _)| index.items_of(*product, *v))
                        .filter(|&&k| {
                            let item = &index.items[k];
                            item.release == *release && item.source == source
                        })
                        .flat_map(|&k| index.mentions(model, k).iter().chain(index.waits_for(k)))
                        .copied()
                        .collect(),
                    // the products it is judged against, as the encoding's clauses are
                    // (`Explainer::link`)
                    _ => model.neighbors[*product]
                        .iter()
                        .copied()
                        .filter(|&q| {
                            model
                                .judged(*product, q)
                                .iter()
                                .any(|j| j.release == *release && j.declaration == *declaration)
                        })
                        .collect(),
                };
                for q in reads {
                    out[q] = true;
                }
            }
            Cause::Missing { .. } => {}
            Cause::Learnt(nogood) => {
                for &(p, _) in &nogood.values {
                    out[p] = true;
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::Explainer;
    use crate::generate::{Params, Shape, generate};
    use crate::plan::Policy;
    use crate::solve::Query;
    use crate::solve::model::{Model, Value};

    /// A core minimized apart, on an encoding of its parts alone, is a minimal core of the
    /// whole encoding: with the other parts dropped there, it has no answer, and it has one
    /// without any of its parts. Checked on infeasible questions of generated families whose
    /// cores are small (minimizing apart is only chosen for large ones, so it is forced here),
    /// from valid starts and stale ones (items failing today are tolerated while left so).
    #[test]
    fn a_core_minimized_apart_is_a_minimal_core_of_the_whole_encoding() {
        let mut checked = 0;
        for (shape, seed, stale) in [
            (Shape::Tight, 1, 0),
            (Shape::Tight, 2, 0),
            (Shape::Hard, 1, 0),
            (Shape::HardCapabilities, 1, 0),
            (Shape::HardCapabilities, 2, 0),
            (Shape::HardCapabilities, 3, 4),
            (Shape::InstancesCapabilities, 1, 0),
            (Shape::InstancesCapabilities, 2, 4),
        ] {
            let (catalog, env) = generated(shape, seed, stale, (40, 8));
            let model = Model::build(&env, &catalog, Policy::default(), &[]);
            each_release(&model, |_, _, query| {
                if check_apart(&model, query) {
                    checked += 1;
                }
            });
        }
        assert!(checked >= 100, "only {checked} infeasible questions");
    }

    /// The conflict search with the policy's rules lifted everywhere answers as the engine
    /// does on a model built with their flags on. Left-out values wait in groups there,
    /// which section 9 atoms count through the group's own literal (all its values make
    /// the atom true) or a stand-in of their own (some do), and rule atoms join products
    /// encoded together in one link of their chain: an answer that counted a group wrongly,
    /// or lost a candidate, would disagree. Checked on every release of small generated
    /// catalogs with section 9, from valid starts and stale ones.
    #[test]
    fn lifting_every_rule_answers_as_the_engine_on_a_model_with_the_flags_on() {
        use crate::solve::candidates::Exclusion;
        let (mut agreed, mut infeasible) = (0, 0);
        for (shape, seed, stale) in [
            (Shape::HardCapabilities, 1, 0),
            (Shape::HardCapabilities, 2, 0),
            (Shape::HardCapabilities, 3, 4),
            (Shape::HardCapabilities, 4, 0),
            (Shape::HardCapabilities, 5, 4),
            (Shape::Capabilities, 1, 0),
            (Shape::Capabilities, 2, 4),
            (Shape::Capabilities, 3, 0),
        ] {
            let (catalog, env) = generated(shape, seed, stale, (60, 12));
            let strict = Model::build(&env, &catalog, Policy::default(), &[]);
            let flags = Policy::default()
                .lifting("--pre")
                .lifting("--allow-downgrade");
            let relaxed = Model::build(&env, &catalog, flags, &[]);
            assert_eq!(strict.current(), relaxed.current());
            for (a, b) in strict.vars.iter().zip(&relaxed.vars) {
                assert_eq!(a.product, b.product);
            }
            each_release(&strict, |p, i, query| {
                let mut explainer = Explainer::new(&strict, query);
                explainer.encode_question();
                let mut free = explainer.question_free();
                let lifted = [(Exclusion::Older, None), (Exclusion::Prerelease, None)];
                let lifts = explainer.find_core(&lifted, &mut free).unwrap().is_none();
                let found = answers(&relaxed, query);
                assert_eq!(lifts, found, "{} release {i}", strict.vars[p].product);
                agreed += 1;
                infeasible += usize::from(!found);
            });
        }
        assert!(
            agreed >= 1_000 && infeasible >= 100,
            "{agreed} asked, {infeasible} infeasible"
        );
    }

    /// A fix check lifts a flag's rule only as far as the cores ask, and everywhere after
    /// `NARROW_ROUNDS` rounds or a probe's core over a large encoding (`WIDE_AT`; forced
    /// here, as well as left as it is, with a probe after the first call that frees
    /// products, and after eight): either way a flag is a fix exactly when the engine, on a
    /// model built with the flag on, answers the question. Checked on every infeasible
    /// release of small generated catalogs, with section 9 and without, valid and stale
    /// starts.
    #[test]
    fn a_flag_is_a_fix_exactly_when_the_engine_answers_with_it_on() {
        each_fix_question(|strict, with, (p, i, query), tally| {
            for (probe_after, wide_at) in [(1, 0), (1, super::WIDE_AT), (8, super::WIDE_AT)] {
                let mut explainer = Explainer::new(strict, query);
                explainer.probe_after = probe_after;
                explainer.wide_at = wide_at;
                let Some(answer) = explainer.run(&|_, _| true) else {
                    continue; // answerable as it is
                };
                for (flag, relaxed) in with {
                    let fix = answer.fixes.iter().any(|f| f == &[*flag]);
                    let product = &strict.vars[p].product;
                    tally.record(
                        fix,
                        answers(relaxed, query),
                        format_args!("{product} release {i} with {flag}"),
                    );
                }
            }
        });
    }

    /// A fix check whose rules are lifted everywhere gives the values they leave out
    /// literals of their own ([`Explainer::eager`]), which stay in the encoding: a later
    /// check of another flag on the same explainer must still find them forbidden by their
    /// rule. Checked on every infeasible release of small generated catalogs: one flag's
    /// check made wide from its first round, then the other's as usual, against the engine
    /// on a model built with that other flag on.
    #[test]
    fn a_check_after_a_wide_one_still_forbids_what_that_one_lifted() {
        each_fix_question(|strict, with, (p, i, query), tally| {
            if answers(strict, query) {
                return;
            }
            // each flag's rule made wide first, the other flag checked after it
            for ((flag, relaxed), (other, _)) in with.iter().zip(with.iter().rev()) {
                let (then, wide) = (super::rule(flag).unwrap(), super::rule(other).unwrap());
                // the wide check encodes from the question on, so most products get their
                // values in it (the checks are exact from any conflict)
                let mut explainer = Explainer::new(strict, query);
                explainer.encode_question();
                explainer.freed = explainer.question_free();
                let conflict = crate::solve::conflict::Conflict {
                    causes: Vec::new(),
                    minimal: false,
                    lifted: Vec::new(),
                };
                explainer.narrow_rounds = 0;
                explainer.lifts(&[], &[wide], &conflict).unwrap();
                explainer.narrow_rounds = super::NARROW_ROUNDS;
                let fix = matches!(
                    explainer.lifts(&[], &[then], &conflict).unwrap(),
                    super::Check::Fix
                );
                let product = &strict.vars[p].product;
                tally.record(
                    fix,
                    answers(relaxed, query),
                    format_args!("{product} release {i}"),
                );
            }
        });
    }

    /// How many fix checks found a fix and how many did not, each checked against the
    /// engine's answer.
    #[derive(Default)]
    struct Tally {
        fixed: usize,
        unfixed: usize,
    }

    impl Tally {
        /// A check's verdict `fix`, which must be the engine's (`found`) for `what`.
        fn record(&mut self, fix: bool, found: bool, what: std::fmt::Arguments<'_>) {
            assert_eq!(fix, found, "{what}");
            self.fixed += usize::from(fix);
            self.unfixed += usize::from(!fix);
        }
    }

    /// Hands `check` every release question ([`each_release`]) of the [`FIX_FAMILIES`]'
    /// catalogs, with the model of the catalog as it is and one with each flag on
    /// ([`with_each_flag`]); then asserts that both verdicts came up at least 100 times.
    fn each_fix_question(
        mut check: impl FnMut(
            &Model<'_>,
            &[(&'static str, Model<'_>)],
            (usize, usize, &Query<'_>),
            &mut Tally,
        ),
    ) {
        let mut tally = Tally::default();
        for (shape, seed, stale) in FIX_FAMILIES {
            let (catalog, env) = generated(shape, seed, stale, (60, 12));
            let strict = Model::build(&env, &catalog, Policy::default(), &[]);
            let with = with_each_flag(&env, &catalog);
            each_release(&strict, |p, i, query| {
                check(&strict, &with, (p, i, query), &mut tally);
            });
        }
        let Tally { fixed, unfixed } = tally;
        assert!(
            fixed >= 100 && unfixed >= 100,
            "{fixed} fixed, {unfixed} not"
        );
    }

    /// The generated families the fix-check tests run on (shape, seed, stale products): with
    /// section 9 and without, valid and stale starts.
    const FIX_FAMILIES: [(Shape, u64, usize); 4] = [
        (Shape::HardCapabilities, 1, 0),
        (Shape::HardCapabilities, 3, 4),
        (Shape::Hard, 2, 0),
        (Shape::Capabilities, 2, 4),
    ];

    /// A model of `catalog` built with each flag a fix check lifts alone on.
    fn with_each_flag<'c>(
        env: &'c crate::environment::Environment,
        catalog: &'c crate::catalog::Catalog,
    ) -> Vec<(&'static str, Model<'c>)> {
        ["--pre", "--allow-downgrade"]
            .into_iter()
            .map(|flag| {
                let policy = Policy::default().lifting(flag);
                (flag, Model::build(env, catalog, policy, &[]))
            })
            .collect()
    }

    /// Whether the engine finds an answer to `query` on `model`.
    fn answers(model: &Model<'_>, query: &Query<'_>) -> bool {
        use crate::solve::{Engine, Outcome};
        matches!(
            crate::solve::sat::Sat.solve(model, query),
            Outcome::Found(_)
        )
    }

    /// Hands `ask` each question "product `p` at its release `i`" of `model`, from today.
    fn each_release(model: &Model<'_>, mut ask: impl FnMut(usize, usize, &Query<'_>)) {
        let baseline = model.current();
        for p in 0..model.vars.len() {
            for i in 0..model.vars[p].releases.len() {
                ask(
                    p,
                    i,
                    &Query::asking(&baseline, vec![(p, vec![Value::Release(i)])]),
                );
            }
        }
    }

    /// A generated catalog of `shape` (products, releases) and its environment, every
    /// `stale`-th product run at its oldest release (an invalid start; none for 0).
    fn generated(
        shape: Shape,
        seed: u64,
        stale: usize,
        (products, releases): (usize, usize),
    ) -> (crate::catalog::Catalog, crate::environment::Environment) {
        let mut g = generate(Params {
            products,
            releases,
            seed,
            shape,
        });
        g.stale(stale);
        g.parse()
    }

    /// Minimizes the core of `query` apart and checks it against the whole encoding; false
    /// when the question has an answer.
    fn check_apart(model: &Model<'_>, query: &Query<'_>) -> bool {
        let mut whole = Explainer::new(model, query);
        whole.encode_question();
        let mut free = whole.question_free();
        let Ok(Some(core)) = whole.find_core(&[], &mut free) else {
            return false;
        };
        let (minimal, proven) = whole.minimize_apart(&core).expect("a core stays one apart");
        assert!(proven);
        assert!(minimal.iter().all(|l| core.contains(l)));
        let holds = |whole: &mut Explainer<'_, '_, '_>, parts: &[rustsat::types::Lit]| {
            let mut assumed = parts.to_vec();
            assumed.extend(whole.others(parts));
            matches!(whole.solve(&assumed), super::Answer::Sat)
        };
        assert!(!holds(&mut whole, &minimal), "{minimal:?} is no core");
        for drop in 0..minimal.len() {
            let mut rest = minimal.clone();
            rest.remove(drop);
            assert!(
                holds(&mut whole, &rest),
                "part {drop} of {minimal:?} is spare"
            );
        }
        true
    }
}
