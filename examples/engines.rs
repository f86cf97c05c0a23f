//! The planner's search against `resolvo` (a CDCL SAT solver for package dependencies), on
//! the same planning model and generated workloads: the measurement behind the engine choice
//! in ARCHITECTURE.md (issue 6).
//!
//! Both engines get the *same* problem. The model of `compat::plan::model` (one variable per
//! installed product, its candidate values, and which pairs of values are compatible) is
//! handed to resolvo lazily: a value's dependencies are, for each neighbouring product, the
//! set of that product's values it is compatible with (a `constrains`; every product is
//! required at the root, so it cannot be dropped instead). For a single target, each engine
//! takes the newest target release for which a valid state exists; ours then looks for the
//! state that changes the fewest other products (branch and bound), resolvo returns the first
//! state it finds, preferring installed values (`favored`).
//!
//! It checks, and exits 1 if any fails: both engines agree on which target release is the
//! newest feasible one (two independent complete searches), every state resolvo returns is
//! valid in the model, ours never changes more products than resolvo's state for the same
//! target, and both compute the same `--all` state. It reports time per target for both and
//! how many products each state changes.
//!
//! Run: `cargo run --release --example engines -- PRODUCTS RELEASES [TARGETS] [SEED] [--tight|--hard]
//! [--engine dfs]
//! [--all]` (`--all` also computes the lexicographic maximum with each engine)
//! (CI runs a small size; BENCHMARKS.md has the large figures).

// A command-line program of its own: its report goes to stdout.
#![allow(clippy::print_stdout)]

use std::fmt;
use std::time::{Duration, Instant};

use compat::generate::{self, Params, Shape};
use compat::plan;
use compat::plan::model::{Model, Policy, Value};
use compat::solve::{self, Fewest, Outcome, Query};
use resolvo::utils::{Pool, VersionSet};
use resolvo::{
    Candidates, Condition, ConditionId, Dependencies, DependencyProvider,
    HintDependenciesAvailable, Interner, KnownDependencies, NameId, Problem, SolvableId, Solver,
    SolverCache, StringId, UnsolvableOrCancelled, VersionSetId, VersionSetUnionId,
};

/// Positions in a product's candidate list (`model.base[var]`) that a version set admits.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct Allowed(Vec<u32>);

impl fmt::Display for Allowed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:?}", self.0)
    }
}

impl VersionSet for Allowed {
    /// A position in the product's candidate list.
    type V = u32;
}

/// The planning model, seen by resolvo.
struct Provider<'m, 'a> {
    model: &'m Model<'a>,
    pool: Pool<Allowed>,
    names: Vec<NameId>,
    /// Per variable, its solvables in candidate-list order.
    solvables: Vec<Vec<SolvableId>>,
    /// Per solvable: (variable, position).
    of: Vec<(usize, usize)>,
    /// Per name: its variable.
    var_of: Vec<usize>,
}

impl<'m, 'a> Provider<'m, 'a> {
    fn new(model: &'m Model<'a>) -> Self {
        let pool = Pool::new();
        let mut names = Vec::new();
        let mut solvables = Vec::new();
        let mut of = Vec::new();
        let mut var_of = Vec::new();
        for (p, var) in model.vars.iter().enumerate() {
            let name = pool.intern_package_name(var.product.to_string());
            names.push(name);
            let raw = usize::try_from(name.into_raw()).unwrap();
            if var_of.len() <= raw {
                var_of.resize(raw + 1, usize::MAX);
            }
            var_of[raw] = p;
            let ids = (0..model.base[p].len())
                .map(|k| {
                    let id = pool.intern_solvable(name, u32::try_from(k).unwrap());
                    let index = usize::try_from(id.into_raw()).unwrap();
                    if of.len() <= index {
                        of.resize(index + 1, (usize::MAX, 0));
                    }
                    of[index] = (p, k);
                    id
                })
                .collect();
            solvables.push(ids);
        }
        Provider {
            model,
            pool,
            names,
            solvables,
            of,
            var_of,
        }
    }

    fn place(&self, s: SolvableId) -> (usize, usize) {
        self.of[usize::try_from(s.into_raw()).unwrap()]
    }

    fn value(&self, s: SolvableId) -> Value {
        let (p, k) = self.place(s);
        self.model.base[p][k]
    }

    fn allowed(&self, p: usize, positions: Vec<u32>) -> VersionSetId {
        self.pool
            .intern_version_set(self.names[p], Allowed(positions))
    }
}

impl Interner for Provider<'_, '_> {
    type NameId = NameId;
    type SolvableId = SolvableId;

    fn display_solvable(&self, s: SolvableId) -> impl fmt::Display + '_ {
        let (p, _) = self.place(s);
        let var = &self.model.vars[p];
        let version = var
            .version(self.value(s))
            .map_or_else(|| "kept".to_owned(), ToString::to_string);
        format!("{} {version}", var.product)
    }

    fn display_merged_solvables(&self, solvables: &[SolvableId]) -> impl fmt::Display + '_ {
        solvables
            .iter()
            .map(|&s| self.display_solvable(s).to_string())
            .collect::<Vec<_>>()
            .join(" | ")
    }

    fn display_name(&self, name: NameId) -> impl fmt::Display + '_ {
        self.pool.resolve_package_name(name).clone()
    }

    fn display_version_set(&self, set: VersionSetId) -> impl fmt::Display + '_ {
        self.pool.resolve_version_set(set).clone()
    }

    fn display_string(&self, id: StringId) -> impl fmt::Display + '_ {
        self.pool.resolve_string(id).to_owned()
    }

    fn version_set_name(&self, set: VersionSetId) -> NameId {
        self.pool.resolve_version_set_package_name(set)
    }

    fn solvable_name(&self, s: SolvableId) -> NameId {
        self.names[self.place(s).0]
    }

    fn version_sets_in_union(
        &self,
        union: VersionSetUnionId,
    ) -> impl Iterator<Item = VersionSetId> {
        self.pool.resolve_version_set_union(union)
    }

    fn resolve_condition(&self, condition: ConditionId) -> Condition {
        self.pool.resolve_condition(condition).clone()
    }
}

impl DependencyProvider for Provider<'_, '_> {
    async fn filter_candidates(
        &self,
        candidates: &[SolvableId],
        set: VersionSetId,
        inverse: bool,
    ) -> Vec<SolvableId> {
        let allowed = &self.pool.resolve_version_set(set).0;
        candidates
            .iter()
            .copied()
            .filter(|&s| {
                let k = u32::try_from(self.place(s).1).unwrap();
                allowed.binary_search(&k).is_ok() != inverse
            })
            .collect()
    }

    async fn get_candidates(&self, name: NameId) -> Option<Candidates> {
        let p = *self.var_of.get(usize::try_from(name.into_raw()).ok()?)?;
        let candidates = self.solvables[p].clone();
        // the installed value, where it survived (it always does: keeping is compatible)
        let favored = candidates
            .iter()
            .copied()
            .find(|&s| self.value(s) == Value::Keep);
        Some(Candidates {
            candidates,
            favored,
            hint_dependencies_available: HintDependenciesAvailable::All,
            ..Candidates::default()
        })
    }

    async fn sort_candidates(&self, _: &SolverCache<Self>, solvables: &mut [SolvableId]) {
        // tried first: kept, then newest
        solvables.sort_by_key(|&s| {
            let (p, k) = self.place(s);
            let value = self.model.base[p][k];
            (value != Value::Keep, std::cmp::Reverse(k))
        });
    }

    async fn get_dependencies(&self, s: SolvableId) -> Dependencies {
        let (p, k) = self.place(s);
        let a = self.model.base[p][k];
        let mut known = KnownDependencies::default();
        for &q in &self.model.neighbors[p] {
            let positions: Vec<u32> = self.model.base[q]
                .iter()
                .enumerate()
                .filter(|&(_, &b)| self.model.compatible(p, a, q, b))
                .map(|(i, _)| u32::try_from(i).unwrap())
                .collect();
            if positions.len() < self.model.base[q].len() {
                known.constrains.push(self.allowed(q, positions));
            }
        }
        Dependencies::Known(known)
    }
}

/// A complete feasibility search: a valid state with these variables fixed, if one exists.
trait Engine {
    fn solve(&mut self, fixed: &[(usize, Value)]) -> Option<Vec<Value>>;
}

/// Ours: one of the planner's engines (`compat::solve`), through its trait.
struct Ours<'m, 'a> {
    model: &'m Model<'a>,
    current: Vec<Value>,
    engine: &'static dyn solve::Engine,
}

impl Ours<'_, '_> {
    fn ask(&self, fixed: &[(usize, Value)], objective: Option<Fewest>) -> Option<Vec<Value>> {
        let query = Query {
            baseline: &self.current,
            restrict: fixed.iter().map(|&(p, v)| (p, vec![v])).collect(),
            frozen: 0,
            objective,
            deadline: None,
            forbid: Vec::new(),
        };
        match self.engine.solve(self.model, &query) {
            Outcome::Found(values) => Some(values),
            Outcome::Infeasible => None,
            Outcome::Cut(_) => panic!("no limit is set, so nothing is cut"),
        }
    }
}

impl Engine for Ours<'_, '_> {
    fn solve(&mut self, fixed: &[(usize, Value)]) -> Option<Vec<Value>> {
        self.ask(fixed, None)
    }
}

/// resolvo: every product required at the root, fixed ones pinned to one value. One solver
/// serves every call (its caches of candidates and dependencies are kept, as our model is).
struct Theirs<'m, 'a> {
    model: &'m Model<'a>,
    solver: Solver<Provider<'m, 'a>>,
    everything: Vec<VersionSetId>,
}

impl<'m, 'a> Theirs<'m, 'a> {
    fn new(model: &'m Model<'a>) -> Self {
        let provider = Provider::new(model);
        let everything = (0..model.vars.len())
            .map(|q| {
                let all = (0..u32::try_from(model.base[q].len()).unwrap()).collect();
                provider.allowed(q, all)
            })
            .collect();
        Theirs {
            model,
            solver: Solver::new(provider),
            everything,
        }
    }
}

impl Engine for Theirs<'_, '_> {
    fn solve(&mut self, fixed: &[(usize, Value)]) -> Option<Vec<Value>> {
        let mut requirements: Vec<_> = self.everything.iter().map(|&v| v.into()).collect();
        for &(p, value) in fixed {
            let k = self.model.base[p].iter().position(|b| *b == value)?;
            let pin = self
                .solver
                .provider()
                .allowed(p, vec![u32::try_from(k).unwrap()]);
            requirements[p] = pin.into();
        }
        match self.solver.solve(Problem::new().requirements(requirements)) {
            Ok(solution) => {
                let mut state = vec![Value::Keep; self.model.vars.len()];
                for s in solution {
                    let (q, k) = self.solver.provider().place(s);
                    state[q] = self.model.base[q][k];
                }
                Some(state)
            }
            Err(UnsolvableOrCancelled::Unsolvable(_)) => None,
            Err(UnsolvableOrCancelled::Cancelled(_)) => unreachable!("never cancelled"),
        }
    }
}

fn changed(state: &[Value]) -> usize {
    state.iter().filter(|v| **v != Value::Keep).count()
}

/// The target's candidate values, newest first (never below what runs: no downgrades).
fn newer_values(model: &Model<'_>, p: usize) -> Vec<Value> {
    let mut values: Vec<Value> = model.base[p]
        .iter()
        .copied()
        .filter(|v| matches!(v, Value::Release(_)))
        .collect();
    values.sort_by(|a, b| b.cmp(a)); // releases are in version order
    values
}

/// A single target: its newest value with a valid state, and that state.
fn newest(engine: &mut dyn Engine, model: &Model<'_>, p: usize) -> Option<(Value, Vec<Value>)> {
    newer_values(model, p)
        .into_iter()
        .find_map(|value| engine.solve(&[(p, value)]).map(|state| (value, state)))
}

/// `--all` driven through resolvo: each product in id order at its newest value with a valid
/// state, given the values decided before it (the lexicographic maximum the planner computes
/// with [`plan::all_values`]).
fn all(engine: &mut dyn Engine, model: &Model<'_>) -> Vec<Value> {
    let mut fixed: Vec<(usize, Value)> = Vec::new();
    for p in 0..model.vars.len() {
        // newest first, then what runs (earlier decisions may have ruled that out)
        let mut values = newer_values(model, p);
        values.push(model.vars[p].domain[0]);
        for value in values {
            fixed.push((p, value));
            if engine.solve(&fixed).is_some() {
                break;
            }
            fixed.pop();
        }
        assert_eq!(
            fixed.len(),
            p + 1,
            "some value of each product stays feasible"
        );
    }
    fixed.into_iter().map(|(_, v)| v).collect()
}

fn timed<T>(f: impl FnOnce() -> T) -> (T, Duration) {
    let start = Instant::now();
    let out = f();
    (out, start.elapsed())
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

/// Whether every pair of neighbouring values in `state` is compatible.
fn valid(model: &Model<'_>, state: &[Value]) -> bool {
    (0..model.vars.len()).all(|p| {
        model.unary(p, state[p]).is_empty()
            && model.neighbors[p]
                .iter()
                .all(|&q| model.compatible(p, state[p], q, state[q]))
    })
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let tight = args.iter().any(|a| a == "--tight");
    let hard = args.iter().any(|a| a == "--hard");
    // `--engine dfs` holds the forward-checking search against resolvo instead of the default
    let ours: &'static dyn solve::Engine = if args.iter().any(|a| a == "dfs") {
        &solve::dfs::Dfs { nodes: 50_000_000 }
    } else {
        solve::default_engine()
    };
    let all_too = args.iter().any(|a| a == "--all");
    let numbers: Vec<u64> = args.iter().filter_map(|a| a.parse().ok()).collect();
    let number = |i: usize, default: u64| numbers.get(i).copied().unwrap_or(default);
    let params = Params {
        products: usize::try_from(number(0, 1000)).unwrap(),
        releases: usize::try_from(number(1, 20)).unwrap(),
        seed: number(3, 1),
        shape: if hard {
            Shape::Hard
        } else if tight {
            Shape::Tight
        } else {
            Shape::Realistic
        },
    };
    let targets = usize::try_from(number(2, 20)).unwrap();
    let generated = generate::generate(params);
    let (catalog, env) = generated.parse();
    let (model, build) = timed(|| Model::build(&env, &catalog, Policy::default(), &[]));
    let chosen = spread_targets(&model, targets);

    println!(
        "{} products x {} releases{}, seed {}: {} targets; model built in {:.1} ms (shared); \
         ours = the {} engine",
        params.products,
        params.releases,
        if hard {
            " (hard)"
        } else if tight {
            " (tight)"
        } else {
            ""
        },
        params.seed,
        chosen.len(),
        ms(build),
        ours.name()
    );
    let (mut their_engine, setup) = timed(|| Theirs::new(&model));
    let mut failures = single_targets(&model, &chosen, &mut their_engine, setup, ours);
    if all_too {
        let ((a, proven), a_time) = timed(|| plan::all_values(&model, ours, None));
        assert!(proven, "no limit is set, so nothing is cut");
        let (b, b_time) = timed(|| all(&mut their_engine, &model));
        let same = a == b;
        failures += usize::from(!same || !valid(&model, &b));
        println!(
            "--all (lexicographic maximum, {} products): ours {:.1} ms, resolvo {:.1} ms; same \
             state: {same}; {} products move",
            model.vars.len(),
            ms(a_time),
            ms(b_time),
            changed(&a)
        );
    }
    if failures > 0 {
        println!("{failures} case(s) where a check failed");
        std::process::exit(1);
    }
}

/// Up to `n` targets spread over the products that have something newer.
fn spread_targets(model: &Model<'_>, n: usize) -> Vec<usize> {
    let movable: Vec<usize> = (0..model.vars.len())
        .filter(|&p| !newer_values(model, p).is_empty())
        .collect();
    let step = (movable.len() / n.max(1)).max(1);
    movable.into_iter().step_by(step).take(n).collect()
}

/// Runs both engines on each single target and prints a row each and a summary; returns the
/// number of targets where they disagree or resolvo's state is invalid.
fn single_targets(
    model: &Model<'_>,
    chosen: &[usize],
    their_engine: &mut Theirs<'_, '_>,
    setup: Duration,
    ours: &'static dyn solve::Engine,
) -> usize {
    let current = model.current();
    let mut our_engine = Ours {
        model,
        current: current.clone(),
        engine: ours,
    };
    println!(
        "target | ours ms (first + fewest changes) | resolvo ms | feasible | ours changes | \
         resolvo changes"
    );
    let (mut ours_total, mut theirs_total) = (Duration::ZERO, Duration::ZERO);
    let (mut ours_changes, mut theirs_changes) = (0, 0);
    let mut failures = 0;
    for &p in chosen {
        let (a, a_time) = timed(|| {
            let (value, _) = newest(&mut our_engine, model, p)?;
            Some((
                value,
                our_engine.ask(&[(p, value)], Some(Fewest::default()))?,
            ))
        });
        let (b, b_time) = timed(|| newest(their_engine, model, p));
        ours_total += a_time;
        theirs_total += b_time;
        let agree = a.as_ref().map(|(v, _)| *v) == b.as_ref().map(|(v, _)| *v);
        let b_valid = b.as_ref().is_none_or(|(_, s)| valid(model, s));
        let count = |o: &Option<(Value, Vec<Value>)>| o.as_ref().map_or(0, |(_, s)| changed(s));
        // ours minimises changes over the same states, so it can never change more
        let worse = agree && count(&a) > count(&b);
        failures += usize::from(!agree || !b_valid || worse);
        ours_changes += count(&a);
        theirs_changes += count(&b);
        println!(
            "{} | {:.2} | {:.1} | {}{}{}{} | {} | {}",
            model.vars[p].product,
            ms(a_time),
            ms(b_time),
            a.is_some(),
            if agree { "" } else { " DISAGREE" },
            if b_valid { "" } else { " INVALID" },
            if worse { " OURS-CHANGE-MORE" } else { "" },
            count(&a),
            count(&b),
        );
    }
    let n = u32::try_from(chosen.len().max(1)).unwrap();
    println!(
        "single target, mean: ours {:.2} ms, resolvo {:.1} ms (+ {:.1} ms once to set it up); \
         products changed in total: ours {ours_changes}, resolvo {theirs_changes}",
        ms(ours_total / n),
        ms(theirs_total / n),
        ms(setup),
    );
    failures
}
