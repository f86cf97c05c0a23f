//! Solving planning questions: the model, one engine trait, and the engines behind it.
//!
//! Callers (plans, safe upgrades) state a [`Query`] over a [`Model`]: which values some
//! products must take, which products are held where they are, and what to optimize. They
//! never steer a search. An [`Engine`] answers with an [`Outcome`] that always says whether
//! the answer is proven: a search cut short by its deadline returns [`Outcome::Cut`] with the
//! best state it had, never a guess dressed up as exact.
//!
//! Engines:
//! - [`sat::Sat`], the default: the question encoded for a CDCL SAT solver (batsat) with
//!   conflict learning, products encoded lazily as the answer reaches them, objectives as
//!   counts bounded by rustsat's totalizers. See its opening essay.
//! - [`dfs::Dfs`]: the earlier forward-checking depth-first search with branch and bound.
//!   Kept as an independent second engine: tests run both through this trait against the
//!   same oracle and against each other.
//!
//! **Invariant:** nothing here touches the file system, a database, clap or indicatif.

pub mod candidates;
pub mod conflict;
pub mod cycles;
pub mod dfs;
pub mod explain;
pub mod facets;
pub mod memo;
pub mod model;
pub mod placed;
pub mod sat;
pub mod violation;
pub mod wired;

use std::time::Instant;

pub use conflict::{Conflict, Explained};
pub use memo::Inheritance;
pub use model::{Model, Value};

/// What an optimizing query minimizes, in order: violations of today's environment left
/// unrepaired (`repair`: `(p, q, weight)`, as [`Model::pre_existing`] gives them; a violation
/// stays when both products keep their entities), then the number of products changed, then
/// the distance moved (per entity, [`model::Var::distance`]). Changes are counted against the
/// environment as it is (each variable's first domain value).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Fewest {
    pub repair: Vec<(usize, usize, usize)>,
    /// Section 9 items broken today (`solve::facets::Item::tolerated`), each counting 1 while
    /// it is left as it is today, on the same level as `repair`.
    pub repair_items: Vec<usize>,
    /// Where the distance is minimized.
    pub moves: Moves,
}

/// Which states the distance level compares.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Moves {
    /// Every state that is best by the levels before it (a plan: SPEC section 7 asks for the
    /// fewest products changed, then the least moves).
    #[default]
    Everywhere,
    /// Only states that change the very products the first optimum by the levels before it
    /// changes (`upgrades`' `requires`: SPEC asks for the smallest set; the least moves within
    /// that set are a courtesy, and comparing every set of that size for them costs most of
    /// the time on windowed catalogs).
    WithinChanged,
}

/// One question to an engine.
#[derive(Clone, Debug)]
pub struct Query<'q> {
    /// The value each product falls back to when nothing forces it to move: a state known to
    /// be acceptable (pairs of products that both keep their entities are always acceptable).
    pub baseline: &'q [Value],
    /// Products that must take one of these values (targets).
    pub restrict: Vec<(usize, Vec<Value>)>,
    /// The installed ones of the first `frozen` products are held at their baseline values
    /// (`--all` decides installed products in order and holds the decided ones; see
    /// [`Query::holds`]).
    pub frozen: usize,
    /// `None`: any valid state will do (the engine prefers staying near the baseline).
    /// `Some`: the valid state that is best by [`Fewest`]; the baseline must then be the
    /// environment as it is.
    pub objective: Option<Fewest>,
    /// Stop at this moment and report what was found so far.
    pub deadline: Option<Instant>,
    /// Combinations the answer must not hold: each a set of (product, value) that may not all
    /// hold at once (nogoods), with the reason. Plans, `upgrades` and explanations learn them
    /// from answers that close a section 10 data cycle, which no pair of products can say
    /// ([`cycles`]).
    pub forbid: Vec<cycles::Nogood>,
}

impl<'q> Query<'q> {
    /// Whether some valid state near `baseline` gives each product of `restrict` one of its
    /// values: nothing held, no objective, no deadline, nothing forbidden.
    #[must_use]
    pub fn asking(baseline: &'q [Value], restrict: Vec<(usize, Vec<Value>)>) -> Self {
        Query {
            baseline,
            restrict,
            frozen: 0,
            objective: None,
            deadline: None,
            forbid: Vec::new(),
        }
    }

    /// Whether `p` is held at its baseline value: among the first `frozen` products, and
    /// installed (`--all` decides installed products in order; one not installed stays free,
    /// so a later product's newer release may install it).
    #[must_use]
    pub fn holds(&self, model: &Model<'_>, p: usize) -> bool {
        p < self.frozen && model.vars[p].installed()
    }
}

/// Why an answer over section 9 items is not proven where section 10 can change them
/// ([`Unproven::Placement`]).
pub const APPROXIMATE: &str = "not proven: some declarations are judged product-wide where \
     namespaces, label criteria or bindings decide what they see (an entity the plan may \
     create in several namespaces or under label criteria); check the final state with validate (--write-env)";

/// Why an answer is not presented as proven (exit 4, `"proven": false`). Every reason comes
/// with a sentence, so no report has to guess it was a time limit.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Unproven {
    /// A time limit cut the search.
    TimeLimit,
    /// Section 9 items, or declarations concerning entities a plan would create, judged
    /// product-wide where section 10's placements decide what they see
    /// ([`Model::approximate`], `placed::Doubts`).
    Placement,
    /// The state found has findings the model does not judge exactly (inputs wired from
    /// capabilities, data cycles, entities created among namespaces), each said in words:
    /// it was checked as a whole, and it is not valid.
    Unjudged(Vec<String>),
}

impl Unproven {
    /// The reason in a few words, for summaries.
    #[must_use]
    pub fn short(&self) -> &'static str {
        match self {
            Unproven::TimeLimit => "time limit reached",
            Unproven::Placement => {
                "some declarations judged without namespaces, labels or bindings"
            }
            Unproven::Unjudged(_) => "the state found adds findings planning cannot judge exactly",
        }
    }

    /// The reason as a sentence.
    #[must_use]
    pub fn sentence(&self) -> String {
        match self {
            Unproven::TimeLimit => {
                "not proven: a time limit cut the search short; this is the best answer found"
                    .to_owned()
            }
            Unproven::Placement => APPROXIMATE.to_owned(),
            Unproven::Unjudged(findings) => format!(
                "not proven: the state found is not valid, it has findings planning does not \
                 judge exactly ({}); a valid answer may exist that planning did not find",
                findings.join("; ")
            ),
        }
    }
}

/// An engine's answer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// A valid state; with an objective, proven best by it.
    Found(Vec<Value>),
    /// Proven: no valid state satisfies the query.
    Infeasible,
    /// The deadline or the engine's own limit cut the search: the best valid state found so
    /// far, if any; nothing is proven.
    Cut(Option<Vec<Value>>),
}

impl Outcome {
    /// The state found, proven or not.
    #[must_use]
    pub fn values(&self) -> Option<&[Value]> {
        match self {
            Outcome::Found(v) | Outcome::Cut(Some(v)) => Some(v),
            _ => None,
        }
    }

    /// False when a limit cut the search.
    #[must_use]
    pub fn proven(&self) -> bool {
        !matches!(self, Outcome::Cut(_))
    }
}

/// Something that answers planning queries.
pub trait Engine: Sync {
    /// A short name for reports and benchmarks.
    fn name(&self) -> &'static str;
    /// Answers `query` over `model`.
    fn solve(&self, model: &Model<'_>, query: &Query<'_>) -> Outcome;
    /// Why `query` has no answer: a conflict the engine proved, each part needed, with the
    /// flags that lift it checked where the engine can. `None` when it has an answer, when
    /// the deadline came first, or when this engine cannot say (the objective plays no part:
    /// infeasible is infeasible). The fixes are only looked for when `settled` says the
    /// conflict is the final word (else [`Explained::sketch`]).
    fn explain(
        &self,
        model: &Model<'_>,
        query: &Query<'_>,
        settled: conflict::Settled<'_>,
    ) -> Option<Explained> {
        let _ = (model, query, settled);
        None
    }
}

/// Whether the time limit `deadline` (if any) has come: every search asked from now on stops
/// at once.
#[must_use]
pub fn passed(deadline: Option<Instant>) -> bool {
    deadline.is_some_and(|d| Instant::now() >= d)
}

/// The engine `plan` and `upgrades` use unless told otherwise.
#[must_use]
pub fn default_engine() -> &'static dyn Engine {
    &sat::Sat
}

/// The domain of `p` under `query`: held at its baseline when frozen, else its valid values,
/// narrowed to the allowed ones when restricted (in the order of the model's domain).
#[must_use]
pub fn domain(model: &Model<'_>, query: &Query<'_>, p: usize) -> Vec<Value> {
    let base = &model.base[p];
    let mut out: Vec<Value> = if query.holds(model, p) {
        vec![query.baseline[p]]
    } else {
        base.clone()
    };
    for (q, allowed) in &query.restrict {
        if *q == p {
            out.retain(|v| allowed.contains(v));
        }
    }
    out
}
