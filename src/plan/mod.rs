//! Upgrade plans (SPEC section 7): a valid final state for the requested targets, and the
//! rolling steps that reach it.
//!
//! - `--target PRODUCT@VERSION` pins a release; `--target PRODUCT` takes the newest candidate
//!   for which a valid final state exists (targets are decided in the order given); among
//!   the states that reach the targets, the one that changes the fewest other products, then
//!   moves them least, is chosen (branch and bound, [`search`]).
//! - `--all` makes every installed product as new as possible: products are decided one by
//!   one in `group:name` order, each taking its newest release for which a valid state exists
//!   with the ones before it held where they were decided. The result is the lexicographic
//!   maximum in that order, and a lexicographic maximum is *maximal*: no valid state is at
//!   least as new everywhere and newer somewhere. Products that can only move together do.
//! - Candidates follow [`Policy`]: releases only unless `--pre`, never older unless
//!   `--allow-downgrade`, a product that is not installed only with `--allow-install`.
//! - Violations the environment already has between products the plan leaves alone are
//!   tolerated and reported; a step never adds one ([`steps`]).
//! - When a target cannot be reached, the engine's proven conflict says why
//!   ([`crate::solve::explain`]); [`targets`] decides the targets.

mod all;
mod create;
mod final_state;
mod settled;
pub mod steps;
mod targets;

use final_state::{compare_violations, final_state};

/// The planning model lives in [`crate::solve`]; this keeps the path callers already use.
pub use crate::solve::model;

use std::collections::BTreeMap;
use std::time::Instant;

use crate::catalog::Catalog;
use crate::environment::Environment;
use crate::product::ProductId;
use crate::version::Version;

use crate::solve::cycles::Learnt;
use crate::solve::explain::{Explanation, Reload};
use crate::solve::{Engine, Fewest, Outcome, Query, Unproven};
pub use model::{Model, Policy, Value};

/// What to plan for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Target {
    /// As new as possible.
    Newest(ProductId),
    /// Exactly this release.
    Exact(ProductId, Version),
}

/// A planning request.
#[derive(Clone, Debug)]
pub struct Request {
    pub targets: Vec<Target>,
    pub all: bool,
    pub policy: Policy,
    /// Stop searching at this moment and report the best plan found so far.
    pub deadline: Option<Instant>,
    /// Told how far a long search has come, about once a second.
    pub progress: Option<ProgressSink>,
    /// Where checks of a fix (a relaxed policy) find releases the catalog given lacks.
    pub reload: Option<Reload>,
}

impl Request {
    /// A request for `targets` (or `--all`) with the default policy, no time limit and no
    /// progress reports.
    #[must_use]
    pub fn new(targets: Vec<Target>, all: bool) -> Self {
        Request {
            targets,
            all,
            policy: Policy::default(),
            deadline: None,
            progress: None,
            reload: None,
        }
    }
}

/// Where progress goes: any callback (the command line draws a bar or prints lines), called
/// once a search has run for `every` and then at most once per `every`.
#[derive(Clone)]
pub struct ProgressSink {
    callback: std::sync::Arc<dyn Fn(&Progress) + Send + Sync>,
    every: std::time::Duration,
}

impl ProgressSink {
    /// Reports once a second, after the first second (quick plans stay quiet).
    pub fn new(callback: impl Fn(&Progress) + Send + Sync + 'static) -> Self {
        ProgressSink {
            callback: std::sync::Arc::new(callback),
            every: std::time::Duration::from_secs(1),
        }
    }

    /// Reports at this interval instead.
    #[must_use]
    pub fn every(mut self, every: std::time::Duration) -> Self {
        self.every = every;
        self
    }
}

impl std::fmt::Debug for ProgressSink {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("ProgressSink")
    }
}

/// How far a plan has come, for a progress line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Progress {
    /// What is being done: `deciding products` or `ordering steps`.
    pub stage: &'static str,
    /// Items done so far, of `total`.
    pub done: usize,
    pub total: usize,
}

/// Calls the progress sink at its pace.
struct Reporter {
    callback: Option<ProgressSink>,
    last: Instant,
}

impl Reporter {
    fn new(callback: Option<ProgressSink>) -> Self {
        Reporter {
            callback,
            last: Instant::now(),
        }
    }

    fn tick(&mut self, stage: &'static str, done: usize, total: usize) {
        if let Some(sink) = &self.callback
            && self.last.elapsed() >= sink.every
        {
            (sink.callback)(&Progress { stage, done, total });
            self.last = Instant::now();
        }
    }
}

/// Counts items done from several threads and tells the sink at its pace (`upgrade`
/// examines products in parallel).
pub(crate) struct Counter {
    sink: ProgressSink,
    stage: &'static str,
    total: usize,
    /// When the sink was last told, and the items done; counted under the lock, so reports
    /// come in order.
    state: std::sync::Mutex<(Instant, usize)>,
}

impl Counter {
    pub(crate) fn new(sink: ProgressSink, stage: &'static str, total: usize) -> Self {
        Counter {
            sink,
            stage,
            total,
            state: std::sync::Mutex::new((Instant::now(), 0)),
        }
    }

    fn state(&self) -> std::sync::MutexGuard<'_, (Instant, usize)> {
        self.state
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Tells the sink when its interval has passed since it was last told.
    fn tell(&self, last: &mut Instant, progress: Progress) {
        if last.elapsed() >= self.sink.every {
            (self.sink.callback)(&progress);
            *last = Instant::now();
        }
    }

    /// One more item done.
    pub(crate) fn one_done(&self) {
        self.more_done(1);
    }

    /// `n` more items done.
    pub(crate) fn more_done(&self, n: usize) {
        let mut state = self.state();
        state.1 += n;
        let (last, done) = &mut *state;
        let progress = Progress {
            stage: self.stage,
            done: *done,
            total: self.total,
        };
        self.tell(last, progress);
    }

    /// A later stage begins (nothing of it done yet): later counts are of its `total`.
    pub(crate) fn stage(&mut self, stage: &'static str, total: usize) {
        self.stage = stage;
        self.total = total;
        let mut counted = self.state();
        counted.1 = 0;
        let progress = Progress {
            stage,
            done: 0,
            total,
        };
        self.tell(&mut counted.0, progress);
    }
}

/// One entity of the final state.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FinalEntity {
    pub entity: String,
    pub product: ProductId,
    pub version: String,
    /// Managed entities the plan does not install stay managed.
    pub state: crate::environment::State,
    /// Its namespace, labels and bindings (section 10; a created entity's namespace and
    /// labels).
    pub placement: crate::instance::Placement,
}

/// One step of the plan.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Step {
    pub entity: String,
    pub product: ProductId,
    /// `None` for an install.
    pub from: Option<String>,
    pub to: String,
    /// Shared by steps that must be applied together.
    pub group: Option<usize>,
    pub why: String,
    /// The namespace and labels of the entity an install step creates (reported as
    /// `"create": true`); `Some` exactly for install steps (SPEC 10: every install step
    /// creates an entity), global and unlabelled in an environment without section 10.
    pub create: Option<crate::instance::Placement>,
}

/// The plan, or why there is none.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Plan {
    pub feasible: bool,
    /// False when the plan is not proven: the best found, not proven best (or, when
    /// infeasible, not proven impossible); `unproven` says why.
    pub complete: bool,
    /// Why it is not proven (empty when it is).
    pub unproven: Vec<Unproven>,
    /// The data cycles of today's environment (SPEC 10: `plan` reports them as `validate`
    /// does, and fails), each as its entities by name.
    pub data_cycles: Vec<Vec<String>>,
    pub final_state: Vec<FinalEntity>,
    pub steps: Vec<Step>,
    /// Why the plan is what it is, as sentences: blocked targets, and why a target cannot be
    /// reached.
    pub explanation: Vec<String>,
    /// Why the targets cannot be reached, when the engine proved it (infeasible plans).
    pub conflict: Option<Explanation>,
    /// Newest targets the plan leaves below their newest release, and why.
    pub blocked: Vec<BlockedTarget>,
    /// Violations the environment has today that the final state no longer has.
    pub repairs: Vec<String>,
    /// Violations the environment has today that the final state still has (a plan never
    /// adds one, but it does not chase every old one either).
    pub unrepaired: Vec<String>,
}

/// A newest target the plan leaves below its newest release.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BlockedTarget {
    pub product: ProductId,
    /// Its newest candidate release.
    pub newest: String,
    /// Where the plan takes it (`None`: it stays absent).
    pub reached: Option<String>,
    /// Why the newest release cannot go in (`None` when a time limit came first).
    pub why: Option<Explanation>,
}

/// The questions a plan asks, all through one engine and one deadline.
#[derive(Clone, Copy)]
struct Asker<'e, 'm, 'a> {
    engine: &'e dyn Engine,
    model: &'m Model<'a>,
    deadline: Option<Instant>,
    /// What questions are asked of again under a relaxed policy, to check fixes (`None`:
    /// no explanations are wanted).
    inputs: Option<(&'a Environment, &'a Catalog, Option<&'m Reload>)>,
    current: &'m [Value],
    /// Data cycles learnt from answers (module `cycles`), when learning is on.
    learnt: Option<&'m Learnt<'m>>,
}

impl Asker<'_, '_, '_> {
    /// What made answers no answers that no pair of products says (data cycles, inputs from
    /// capabilities left unfed), in words (module `cycles`): said where the engine's conflict
    /// cannot say why (it knows no learnt nogood).
    fn cycles_said(&self) -> Vec<String> {
        self.learnt.map_or_else(Vec::new, Learnt::said)
    }

    /// Today's values, where questions start.
    fn baseline(&self) -> &[Value] {
        self.current
    }

    /// Why no valid state has these values: the engine's conflict, with fixes checked.
    fn why(&self, fixed: &[(usize, Value)]) -> Option<Explanation> {
        use crate::solve::explain::{Asked, Context, Pick, explain_all};
        let (env, catalog, reload) = self.inputs?;
        let asked: Asked = fixed
            .iter()
            .map(|&(p, v)| {
                let pick = Pick::of(self.model, p, v);
                (self.model.vars[p].product.clone(), vec![pick])
            })
            .collect();
        let context = Context {
            env,
            catalog,
            engine: self.engine,
            deadline: self.deadline,
            reload,
        };
        explain_all(&context, self.model.policy, &[asked], None, None)
            .pop()
            .flatten()
    }

    fn ask(
        &self,
        baseline: &[Value],
        fixed: &[(usize, Value)],
        frozen: usize,
        objective: Option<Fewest>,
    ) -> Outcome {
        self.restricted(
            baseline,
            fixed.iter().map(|&(p, v)| (p, vec![v])).collect(),
            frozen,
            objective,
        )
    }

    fn restricted(
        &self,
        baseline: &[Value],
        restrict: Vec<(usize, Vec<Value>)>,
        frozen: usize,
        objective: Option<Fewest>,
    ) -> Outcome {
        let query = Query {
            baseline,
            restrict,
            frozen,
            objective,
            deadline: self.deadline,
            forbid: Vec::new(),
        };
        // an answer that closes a data cycle is no answer: its cycle is learnt, and the
        // question asked again (`solve::cycles`)
        match self.learnt {
            Some(learnt) => learnt.solve(self.engine, self.model, self.current, query),
            None => self.engine.solve(self.model, &query),
        }
    }
}

/// Plans `request` for `env` against `catalog` with the default engine.
#[must_use]
pub fn plan(env: &Environment, catalog: &Catalog, request: &Request) -> Plan {
    plan_with(env, catalog, request, crate::solve::default_engine())
}

/// Plans `request` with `engine` (tests hold engines against each other this way).
#[must_use]
pub fn plan_with(
    env: &Environment,
    catalog: &Catalog,
    request: &Request,
    engine: &dyn Engine,
) -> Plan {
    plan_in(env, catalog, request, engine, true)
}

/// [`plan_with`]; without `explain`, a plan that cannot be made or leaves a target blocked
/// says so without the engine's reasons (the plans that size fixes need only their steps).
fn plan_in(
    env: &Environment,
    catalog: &Catalog,
    request: &Request,
    engine: &dyn Engine,
    explain: bool,
) -> Plan {
    let extra: Vec<ProductId> = request
        .targets
        .iter()
        .map(|t| match t {
            Target::Newest(p) | Target::Exact(p, _) => p.clone(),
        })
        .collect();
    let model = Model::build(env, catalog, request.policy, &extra);
    let current = model.current();
    // What is broken today, and which products it involves (nothing, usually: then no repair
    // is sought and nothing is spent on it).
    let today = crate::validate::validate(env, catalog);
    // SPEC 10: a data cycle cannot be executed; plan reports it as validate does (exit 1)
    let data_cycles = data_cycles(&today);
    // where entities are placed, what an install creates depends on the whole state
    let creations = |values: &[Value]| create::creations(env, &model, values);
    let learnt = Learnt::new(&model, !data_cycles.is_empty()).creating(&creations);
    let asker = Asker {
        engine,
        model: &model,
        deadline: request.deadline,
        inputs: explain.then_some((env, catalog, request.reload.as_ref())),
        current: &current,
        learnt: Some(&learnt),
    };
    let involved: std::collections::BTreeSet<ProductId> = today
        .findings()
        .filter(|f| f.severity == crate::finding::Severity::Error)
        .flat_map(|f| [f.product.clone(), f.dependency.clone()])
        .flatten()
        .collect();
    let mut reporter = Reporter::new(request.progress.clone());
    let repair = repairing(&model, &involved);
    let (values, notes) = settle(asker, request, repair.as_ref(), &mut reporter, &learnt);
    let targets::Notes {
        lines: mut explanation,
        conflict,
        blocked,
        complete,
    } = notes;
    let mut unproven = Vec::new();
    if !complete {
        unproven.push(Unproven::TimeLimit);
    }
    if doubted(&model, request, &involved, &current, values.as_deref()) {
        unproven.push(Unproven::Placement);
    }
    let feasible = values.is_some();
    let (steps, final_state, (repairs, unrepaired)) = match values {
        None => (
            Vec::new(),
            final_state(env, &model, &current),
            (Vec::new(), Vec::new()),
        ),
        Some(values) => {
            let (steps, ordered) =
                rolling_steps(env, &model, &values, request.deadline, &mut reporter);
            if !ordered && !unproven.contains(&Unproven::TimeLimit) {
                unproven.insert(0, Unproven::TimeLimit);
            }
            let final_state = final_state(env, &model, &values);
            let after = judge_final(env, catalog, &today, &final_state, &mut unproven);
            if unproven == [Unproven::Placement]
                && settled::settled(&settled::Answer {
                    env,
                    catalog,
                    model: &model,
                    request,
                    values: &values,
                    steps: &steps,
                    today: &today,
                    after: &after,
                })
            {
                unproven.clear();
            }
            (steps, final_state, compare_violations(&today, &after))
        }
    };
    explanation.extend(unproven.iter().filter_map(said));
    Plan {
        feasible,
        complete: unproven.is_empty(),
        unproven,
        final_state,
        steps,
        explanation,
        conflict,
        blocked,
        repairs,
        unrepaired,
        data_cycles,
    }
}

/// The plan's final values (`None`: the targets cannot be reached) and what was noted on
/// the way; asked again, with that state refused, while the answer closes what only the
/// whole state shows where entities may be created ([`Learnt::refuse_whole`]).
fn settle(
    asker: Asker<'_, '_, '_>,
    request: &Request,
    repair: Option<&Fewest>,
    reporter: &mut Reporter,
    learnt: &Learnt<'_>,
) -> (Option<Vec<Value>>, targets::Notes) {
    loop {
        let mut notes = targets::Notes::new();
        let values = if request.all {
            Some(all::maximize_all(
                asker,
                repair.cloned(),
                &mut notes.complete,
                reporter,
            ))
        } else {
            targeted(asker, &request.targets, repair.cloned(), &mut notes)
        };
        match &values {
            Some(found) if notes.complete && learnt.refuse_whole(asker.model, found) => {}
            _ => return (values, notes),
        }
    }
}

/// Whether what the model judges approximately matters where the plan looks: its targets
/// (every installed product with `--all`), what it moves (to `values`), what it repairs
/// (`involved`).
fn doubted(
    model: &Model<'_>,
    request: &Request,
    involved: &std::collections::BTreeSet<ProductId>,
    current: &[Value],
    values: Option<&[Value]>,
) -> bool {
    let looks = |p: usize| {
        (request.all && model.vars[p].installed())
            || model.asked.contains(&p)
            || values.is_some_and(|v| v[p] != current[p])
            || involved.contains(&model.vars[p].product)
    };
    (0..model.vars.len()).any(|p| model.doubt_reaches(p) && looks(p))
}

/// `env` with the entities the plan creates added, installed at the version their product
/// has in the plan, where they are created.
fn created_env(
    env: &Environment,
    model: &Model<'_>,
    values: &[Value],
    created: &[create::Created],
) -> Environment {
    let mut after = env.clone();
    let mut at: BTreeMap<String, usize> = after
        .entities
        .iter()
        .enumerate()
        .map(|(i, e)| (e.name.clone(), i))
        .collect();
    for c in created {
        let Some(version) = model.vars[c.var].version(values[c.var]) else {
            continue;
        };
        let entity = crate::environment::Entity {
            name: c.name.clone(),
            product: model.vars[c.var].product.clone(),
            version: version.clone(),
            state: crate::environment::State::Installed,
            placement: c.placement.clone(),
            location: crate::diagnostic::Location::default(),
            binding_locations: BTreeMap::new(),
        };
        if let Some(&i) = at.get(&c.name) {
            // a managed entity the plan installs
            after.entities[i] = entity;
        } else {
            at.insert(c.name.clone(), after.entities.len());
            after.entities.push(entity);
        }
    }
    after
}

/// The objective that repairs first what is broken today among the `involved` products
/// (SPEC section 7: a plan repairs what it can); `None` when nothing is.
fn repairing(
    model: &Model<'_>,
    involved: &std::collections::BTreeSet<ProductId>,
) -> Option<Fewest> {
    if involved.is_empty() {
        return None;
    }
    let items = model.facets().map(|i| i.tolerated().collect());
    Some(Fewest {
        repair: model.pre_existing(involved),
        repair_items: items.unwrap_or_default(),
        ..Fewest::default()
    })
}

/// The final values for `targets`: the targets decided, then the state that reaches them
/// changing the fewest products (repairing first what it can, by `repair`); `None` when
/// they cannot be reached.
fn targeted(
    asker: Asker<'_, '_, '_>,
    targets: &[Target],
    repair: Option<Fewest>,
    notes: &mut targets::Notes,
) -> Option<Vec<Value>> {
    let fixed = targets::decide(asker, targets, notes)?;
    let outcome = asker.ask(
        asker.baseline(),
        &fixed,
        0,
        Some(repair.unwrap_or_default()),
    );
    notes.complete &= outcome.proven();
    outcome.values().map(<[Value]>::to_vec)
}

/// The final state as a whole, judged by validate (returned): where the model judges only
/// part of section 10 (inputs wired from capabilities, data cycles, entities created among
/// namespaces), a final state it accepted may still be broken; any error today does not have
/// makes the plan not proven, and says so.
fn judge_final(
    env: &Environment,
    catalog: &Catalog,
    today: &crate::validate::Validation,
    final_state: &[FinalEntity],
    unproven: &mut Vec<Unproven>,
) -> crate::validate::Validation {
    let after = crate::validate::validate(&final_state::after_env(env, final_state), catalog);
    let added: Vec<String> = crate::validate::new_errors(today.findings(), after.findings())
        .into_iter()
        .map(|f| format!("{}: {}", f.code, f.message))
        .collect();
    if !added.is_empty() {
        unproven.push(Unproven::Unjudged(added));
    }
    after
}

/// Today's data cycles, each as its entities by name.
fn data_cycles(today: &crate::validate::Validation) -> Vec<Vec<String>> {
    today
        .findings()
        .filter(|f| f.code == crate::finding::Code::DataCycle)
        .filter_map(|f| f.cycle.clone())
        .collect()
}

/// The sentence a plan's explanation gives for a reason it is not proven (a time limit is
/// said by the summary line).
fn said(reason: &Unproven) -> Option<String> {
    (*reason != Unproven::TimeLimit).then(|| reason.sentence())
}

/// Why a plan over section 9 items in a namespaced environment is not proven.
pub use crate::solve::APPROXIMATE;

/// The final values `--all` chooses (see the module docs), without steps, and whether the
/// answer is proven. For benchmarks and the engine comparison (`examples/engines.rs`).
#[must_use]
pub fn all_values(
    model: &Model<'_>,
    engine: &dyn Engine,
    deadline: Option<Instant>,
) -> (Vec<Value>, bool) {
    let current = model.current();
    let asker = Asker {
        engine,
        model,
        deadline,
        inputs: None,
        current: &current,
        learnt: None,
    };
    let mut complete = true;
    let values = all::maximize_all(asker, None, &mut complete, &mut Reporter::new(None));
    (values, complete)
}

/// The steps from today to `values`, and whether they were all ordered before `deadline`.
fn rolling_steps(
    env: &Environment,
    model: &Model<'_>,
    values: &[Value],
    deadline: Option<Instant>,
    reporter: &mut Reporter,
) -> (Vec<Step>, bool) {
    let created = create::creations(env, model, values);
    let mut current: Vec<BTreeMap<String, model::Instance<'_>>> =
        vec![BTreeMap::new(); model.vars.len()];
    // each installed entity's instance, by name (one pass: thousands of entities share
    // a product in tenant environments)
    for (p, var) in model.vars.iter().enumerate() {
        for inst in &var.current {
            if let Some(name) = inst.entity {
                current[p].insert(name.to_owned(), inst.clone());
            }
        }
    }
    let mut moves = Vec::new();
    for (p, var) in model.vars.iter().enumerate() {
        let Value::Release(i) = values[p] else {
            continue;
        };
        let to = var.planned(i);
        if var.installed() {
            for inst in &var.current {
                if inst.version.as_str() != to.version.as_str() {
                    moves.push(steps::Move {
                        var: p,
                        entity: inst.entity.unwrap_or_default().to_owned(),
                        from: Some(inst.clone()),
                        to: to.clone(),
                    });
                }
            }
        }
    }
    // entities created, of products installed or not (at the product's version in the plan)
    for c in &created {
        let var = &model.vars[c.var];
        let Some(version) = var.version(values[c.var]) else {
            continue;
        };
        moves.push(steps::Move {
            var: c.var,
            entity: c.name.clone(),
            from: None,
            to: model::Instance {
                version,
                manifest: var
                    .releases
                    .iter()
                    .find(|m| m.version == *version)
                    .map(AsRef::as_ref),
                entity: None,
            },
        });
    }
    let section_10 = env.entities.iter().any(|e| !e.placement.is_plain());
    // section 10: the steps judge who sees the entities created where they are created
    let after: Environment;
    let with_created: Model<'_>;
    let model = if section_10 && !created.is_empty() {
        after = created_env(env, model, values, &created);
        with_created = model.with_created(&after);
        &with_created
    } else {
        model
    };
    let placements: BTreeMap<&str, &crate::instance::Placement> = created
        .iter()
        .map(|c| (c.name.as_str(), &c.placement))
        .collect();
    let (ordered, complete) = steps::order(model, current, moves, deadline, &mut |done, total| {
        reporter.tick("ordering steps", done, total);
    });
    let steps = ordered
        .into_iter()
        .map(|o| {
            // SPEC 10: every install step creates an entity, so it says where (in an
            // environment without namespaces or labels: global, unlabelled)
            let create = o.step.from.is_none().then(|| {
                placements
                    .get(o.step.entity.as_str())
                    .map(|&p| p.clone())
                    .unwrap_or_default()
            });
            Step {
                create,
                entity: o.step.entity,
                product: model.vars[o.step.var].product.clone(),
                from: o.step.from.map(|f| f.version.to_string()),
                to: o.step.to.version.to_string(),
                group: o.group,
                why: o.why,
            }
        })
        .collect();
    (steps, complete)
}

#[cfg(test)]
mod tests {
    use std::fmt::Write;
    use std::sync::Arc;

    use super::*;
    use crate::manifest::Manifest;
    use crate::{environment, manifest};

    /// Manifests from `product version [dep min max]...` lines (required dependencies).
    fn manifests(lines: &[&str]) -> Vec<Manifest> {
        let mut text = String::new();
        for line in lines {
            let words: Vec<&str> = line.split_whitespace().collect();
            let (group, name) = words[0].split_once(':').unwrap();
            let _ = write!(
                text,
                "manifest-version: '1.0'\nproduct-group: {group}\nproduct-name: {name}\n\
                 product-version: {}\nextensions:\n  product-dependencies:",
                words[1]
            );
            if words.len() == 2 {
                text.push_str(" []\n");
            } else {
                text.push('\n');
            }
            for dep in words[2..].chunks(3) {
                let (dg, dn) = dep[0].split_once(':').unwrap();
                let _ = write!(
                    text,
                    "    - product-group: {dg}\n      product-name: {dn}\n      \
                     minimum-version: {}\n      maximum-version: {}\n",
                    dep[1], dep[2]
                );
            }
            text.push_str("---\n");
        }
        manifest::parse(&text, &Arc::from("c.yml")).unwrap()
    }

    fn env(entities: &[(&str, &str)]) -> Environment {
        named(
            &entities
                .iter()
                .map(|(p, v)| (p.split_once(':').unwrap().1, *p, *v))
                .collect::<Vec<_>>(),
        )
    }

    /// An environment of `(entity, product, version)`.
    fn named(entities: &[(&str, &str, &str)]) -> Environment {
        let mut text = String::from("entities:\n");
        for (name, product, version) in entities {
            let _ = writeln!(
                text,
                "  - name: {name}\n    product: {product}\n    version: {version}"
            );
        }
        environment::parse(&text, &Arc::from("e.yml"), "e").unwrap()
    }

    fn run(lines: &[&str], entities: &[(&str, &str)], targets: Vec<Target>, all: bool) -> Plan {
        run_in(lines, &env(entities), targets, all)
    }

    fn run_in(lines: &[&str], env: &Environment, targets: Vec<Target>, all: bool) -> Plan {
        let catalog = Catalog::from_manifests(manifests(lines)).unwrap();
        plan(env, &catalog, &Request::new(targets, all))
    }

    fn newest(product: &str) -> Vec<Target> {
        vec![Target::Newest(ProductId::parse(product).unwrap())]
    }

    /// `entity from->to [group]` per step.
    fn steps(p: &Plan) -> Vec<String> {
        p.steps
            .iter()
            .map(|s| {
                let group = s.group.map(|g| format!(" [{g}]")).unwrap_or_default();
                format!(
                    "{} {}->{}{group}",
                    s.entity,
                    s.from.as_deref().unwrap_or("-"),
                    s.to
                )
            })
            .collect()
    }

    /// A plan whose explanation the time limit left out is not proven: `Notes::why` finds no
    /// explanation here (no inputs to explain with), which only counts as cut once the
    /// deadline has passed.
    #[test]
    fn a_reason_left_out_by_the_time_limit_leaves_the_plan_unproven() {
        let catalog = Catalog::from_manifests(manifests(&["g:a 1.0.0", "g:a 2.0.0"])).unwrap();
        let env = env(&[("g:a", "1.0.0")]);
        let model = Model::build(&env, &catalog, Policy::default(), &[]);
        let current = model.current();
        let engine = crate::solve::default_engine();
        let past = Instant::now().checked_sub(std::time::Duration::from_secs(1));
        let future = Instant::now().checked_add(std::time::Duration::from_secs(3600));
        for (deadline, proven) in [(None, true), (future, true), (past, false)] {
            let asker = Asker {
                engine,
                model: &model,
                deadline,
                inputs: None,
                current: &current,
                learnt: None,
            };
            let mut notes = targets::Notes::new();
            assert!(notes.why(asker, &[(0, Value::Release(1))]).is_none());
            assert_eq!(notes.complete, proven, "deadline {deadline:?}");
        }
    }

    /// Steps that can only go together go as the smallest group first, the first of
    /// equals in step order: the pair `b` before the pair `c`, both before the ring of three
    /// `a`, though `a1` is tried first.
    #[test]
    fn the_smallest_group_goes_first() {
        let ring = |names: &[&str]| -> Vec<String> {
            let mut lines = Vec::new();
            for (i, n) in names.iter().enumerate() {
                let next = names[(i + 1) % names.len()];
                lines.push(format!("g:{n} 1.0.0 g:{next} 1.0.0 1.x.x"));
                lines.push(format!("g:{n} 2.0.0 g:{next} 2.0.0 2.x.x"));
            }
            lines
        };
        let mut lines = ring(&["a1", "a2", "a3"]);
        lines.extend(ring(&["b1", "b2"]));
        lines.extend(ring(&["c1", "c2"]));
        let lines: Vec<&str> = lines.iter().map(String::as_str).collect();
        let names = ["a1", "a2", "a3", "b1", "b2", "c1", "c2"];
        let products: Vec<String> = names.iter().map(|n| format!("g:{n}")).collect();
        let entities: Vec<(&str, &str)> = products.iter().map(|p| (p.as_str(), "1.0.0")).collect();
        let p = run(&lines, &entities, Vec::new(), true);
        assert!(p.feasible);
        assert_eq!(
            steps(&p),
            [
                "b1 1.0.0->2.0.0 [1]",
                "b2 1.0.0->2.0.0 [1]",
                "c1 1.0.0->2.0.0 [2]",
                "c2 1.0.0->2.0.0 [2]",
                "a1 1.0.0->2.0.0 [3]",
                "a2 1.0.0->2.0.0 [3]",
                "a3 1.0.0->2.0.0 [3]",
            ]
        );
    }

    #[test]
    fn a_diamond_moves_the_shared_base_first_and_the_top_last() {
        // top needs left and right, both need base; the new top needs the new everything
        let lines = [
            "g:base 1.0.0",
            "g:base 2.0.0",
            "g:left 1.0.0 g:base 1.0.0 2.x.x",
            "g:left 2.0.0 g:base 2.0.0 2.x.x",
            "g:right 1.0.0 g:base 1.0.0 2.x.x",
            "g:right 2.0.0 g:base 2.0.0 2.x.x",
            "g:top 1.0.0 g:left 1.0.0 1.x.x g:right 1.0.0 1.x.x",
            "g:top 2.0.0 g:left 2.0.0 2.x.x g:right 2.0.0 2.x.x",
        ];
        let entities = [
            ("g:base", "1.0.0"),
            ("g:left", "1.0.0"),
            ("g:right", "1.0.0"),
            ("g:top", "1.0.0"),
        ];
        let p = run(
            &lines,
            &entities,
            vec![Target::Newest(ProductId::parse("g:top").unwrap())],
            false,
        );
        assert!(p.feasible);
        // left and right cannot move before top (it accepts 1.x.x only), nor top before them
        assert_eq!(
            steps(&p),
            [
                "base 1.0.0->2.0.0",
                "left 1.0.0->2.0.0 [1]",
                "right 1.0.0->2.0.0 [1]",
                "top 1.0.0->2.0.0 [1]"
            ]
        );
    }

    #[test]
    fn long_searches_report_progress_per_stage() {
        let lines = [
            "g:a 1.0.0",
            "g:a 2.0.0",
            "g:b 1.0.0 g:a 1.0.0 2.x.x",
            "g:b 2.0.0 g:a 2.0.0 2.x.x",
            "g:c 1.0.0",
            "g:c 2.0.0",
        ];
        let env = env(&[("g:a", "1.0.0"), ("g:b", "1.0.0"), ("g:c", "1.0.0")]);
        let seen = Arc::new(std::sync::Mutex::new(Vec::new()));
        let sink = {
            let seen = Arc::clone(&seen);
            ProgressSink::new(move |p: &Progress| seen.lock().unwrap().push(*p))
        };
        let catalog = Catalog::from_manifests(manifests(&lines)).unwrap();
        let mut request = Request {
            targets: Vec::new(),
            all: true,
            policy: Policy::default(),
            deadline: None,
            progress: Some(sink.clone()),
            reload: None,
        };
        // at the default pace a quick plan says nothing
        let quiet = plan(&env, &catalog, &request);
        assert!(seen.lock().unwrap().is_empty());
        request.progress = Some(sink.every(std::time::Duration::ZERO));
        let told = plan(&env, &catalog, &request);
        assert_eq!(told, quiet, "reporting does not change the plan");
        let seen = seen.lock().unwrap();
        let stage = |name: &str| -> Vec<(usize, usize)> {
            seen.iter()
                .filter(|p| p.stage == name)
                .map(|p| (p.done, p.total))
                .collect()
        };
        assert_eq!(stage("deciding products"), [(0, 3), (1, 3), (2, 3)]);
        assert_eq!(stage("ordering steps"), [(0, 3), (1, 3), (2, 3)]);
    }

    #[test]
    fn a_cycle_of_lock_step_dependencies_moves_as_one_group() {
        let lines = [
            "g:a 1.0.0 g:b 1.0.0 1.x.x",
            "g:a 2.0.0 g:b 2.0.0 2.x.x",
            "g:b 1.0.0 g:a 1.0.0 1.x.x",
            "g:b 2.0.0 g:a 2.0.0 2.x.x",
        ];
        let p = run(
            &lines,
            &[("g:a", "1.0.0"), ("g:b", "1.0.0")],
            Vec::new(),
            true,
        );
        assert_eq!(steps(&p), ["a 1.0.0->2.0.0 [1]", "b 1.0.0->2.0.0 [1]"]);
        assert!(
            p.steps[0].why.starts_with("must change together: "),
            "{}",
            p.steps[0].why
        );
    }

    /// From a review: with a1 behind a2 and c already broken by a2, moving a1 first used to
    /// look harmless (the same constraint was already broken, by another entity).
    #[test]
    fn a_step_never_adds_a_violation_already_made_by_another_entity() {
        let lines = [
            "g:a 1.0.0",
            "g:a 2.0.0",
            "g:c 1.0.0 g:a 1.0.0 1.x.x",
            "g:c 2.0.0 g:a 1.0.0 2.x.x",
        ];
        let environment = named(&[
            ("a1", "g:a", "1.0.0"),
            ("a2", "g:a", "2.0.0"),
            ("c", "g:c", "1.0.0"),
        ]);
        let p = run_in(&lines, &environment, newest("g:a"), false);
        assert_eq!(steps(&p), ["c 1.0.0->2.0.0", "a1 1.0.0->2.0.0"]);
    }

    /// From a review: `installed` is the highest orderable version whatever the entity names,
    /// so an older target is a downgrade either way.
    #[test]
    fn a_non_orderable_entity_does_not_hide_a_downgrade() {
        let lines = ["g:a 1.0.0-hotfix", "g:a 1.5.0", "g:a 2.0.0"];
        for (first, second) in [("a1", "a2"), ("z1", "a2")] {
            let environment = named(&[(first, "g:a", "1.0.0-hotfix"), (second, "g:a", "2.0.0")]);
            let v = Version::parse("1.5.0").unwrap();
            let target = vec![Target::Exact(ProductId::parse("g:a").unwrap(), v)];
            let p = run_in(&lines, &environment, target, false);
            assert!(!p.feasible);
            assert_eq!(
                p.explanation,
                [
                    "asked for: g:a 1.5.0",
                    "g:a 1.5.0 is older than the installed 2.0.0, left out without \
                     --allow-downgrade",
                    "fix: with --allow-downgrade a valid state exists (checked; a plan of 2 \
                     steps)",
                ]
            );
            let fixes = &p.conflict.as_ref().unwrap().fixes;
            assert_eq!(fixes[0].plan_size, Some(2), "both entities move to 1.5.0");
        }
    }

    /// From a review: a target that is not installed stays away without --allow-install.
    #[test]
    fn targets_are_not_installed_without_allow_install() {
        let lines = ["g:a 1.0.0", "g:b 1.0.0"];
        let p = run(&lines, &[("g:a", "1.0.0")], newest("g:b"), false);
        assert!(p.feasible);
        assert!(p.steps.is_empty());
        assert_eq!(
            p.explanation,
            ["g:b is not installed; installing is not allowed without --allow-install"]
        );
        let v = Version::parse("1.0.0").unwrap();
        let exact = vec![Target::Exact(ProductId::parse("g:b").unwrap(), v)];
        assert!(!run(&lines, &[("g:a", "1.0.0")], exact, false).feasible);
    }

    /// `--timeout` bounds step ordering too: past the deadline the moves not yet placed form
    /// one group and the plan is not complete (exit 4), never a silent overrun.
    #[test]
    fn step_ordering_stops_at_the_deadline_and_says_so() {
        let lines = [
            "g:a 1.0.0",
            "g:a 2.0.0",
            "g:b 1.0.0 g:a 1.0.0 2.x.x",
            "g:b 2.0.0 g:a 2.0.0 2.x.x",
        ];
        let environment = env(&[("g:a", "1.0.0"), ("g:b", "1.0.0")]);
        let catalog = Catalog::from_manifests(manifests(&lines)).unwrap();
        let model = Model::build(&environment, &catalog, Policy::default(), &[]);
        let (values, proven) = all_values(&model, crate::solve::default_engine(), None);
        assert!(proven);
        let mut reporter = Reporter::new(None);
        let (steps, complete) = rolling_steps(&environment, &model, &values, None, &mut reporter);
        assert!(complete);
        assert_eq!(steps.len(), 2);
        assert!(steps.iter().all(|s| s.group.is_none()), "{steps:?}");
        let past = Some(Instant::now());
        let (cut, complete) = rolling_steps(&environment, &model, &values, past, &mut reporter);
        assert!(!complete);
        assert_eq!(cut.len(), 2);
        assert!(cut.iter().all(|s| s.group == Some(1)), "{cut:?}");
    }

    /// From a review: `--all` also brings entities that lag behind their product's newest
    /// running version up to it.
    #[test]
    fn all_aligns_lagging_entities() {
        let lines = ["g:a 1.0.0", "g:a 2.0.0"];
        let environment = named(&[("a1", "g:a", "1.0.0"), ("a2", "g:a", "2.0.0")]);
        let p = run_in(&lines, &environment, Vec::new(), true);
        assert_eq!(steps(&p), ["a1 1.0.0->2.0.0"]);
    }

    /// From a review: a plan on an invalid environment repairs what it can (SPEC), moving a
    /// product nothing forces when that ends a violation it has today.
    #[test]
    fn plans_repair_what_they_can() {
        let lines = [
            "g:a 1.0.0",
            "g:a 2.0.0",
            "g:b 1.0.0 g:a 2.0.0 2.x.x",
            "g:c 1.0.0",
            "g:c 2.0.0",
        ];
        let p = run(
            &lines,
            &[("g:a", "1.0.0"), ("g:b", "1.0.0"), ("g:c", "1.0.0")],
            newest("g:c"),
            false,
        );
        assert_eq!(steps(&p), ["a 1.0.0->2.0.0", "c 1.0.0->2.0.0"]);
        assert_eq!(p.repairs.len(), 1);
        assert!(p.unrepaired.is_empty());
    }

    /// `run` under `policy`: `--all`, or the newest `target`.
    fn run_with(
        lines: &[&str],
        entities: &[(&str, &str)],
        target: Option<&str>,
        policy: Policy,
    ) -> Plan {
        let catalog = Catalog::from_manifests(manifests(lines)).unwrap();
        let all = target.is_none();
        let targets = target.map(newest).unwrap_or_default();
        let request = Request {
            policy,
            ..Request::new(targets, all)
        };
        plan(&env(entities), &catalog, &request)
    }

    /// A required product that is not installed is installed to repair its dependent, by
    /// `--all` as by a single target, when installs are allowed (the missing product sorts
    /// before its dependent: the repair is counted from the installed side).
    #[test]
    fn plans_install_a_missing_product_to_repair() {
        let lines = ["g:a 1.0.0", "g:a 1.1.0", "g:b 1.0.0 g:a 1.0.0 1.x.x"];
        let install = Policy {
            allow_install: true,
            ..Policy::default()
        };
        for target in [None, Some("g:b")] {
            let p = run_with(&lines, &[("g:b", "1.0.0")], target, install);
            assert_eq!(steps(&p), ["a -->1.1.0"], "{target:?}");
            assert_eq!(p.repairs.len(), 1);
            assert!(p.unrepaired.is_empty());
            let p = run_with(&lines, &[("g:b", "1.0.0")], target, Policy::default());
            assert!(steps(&p).is_empty(), "{target:?}");
            assert_eq!(p.unrepaired.len(), 1);
        }
    }

    /// `--all` keeps every installed product as new as it can be: a broken pair that only a
    /// downgrade could repair stays as it is, even with `--allow-downgrade` (b's newest
    /// release breaks a); the lexicographic maximum is one state, whatever repairs it.
    #[test]
    fn all_prefers_newest_to_a_repair_by_downgrade() {
        let lines = [
            "g:a 1.0.0 g:b 1.0.0 1.x.x",
            "g:b 1.0.0",
            "g:b 1.1.0",
            "g:b 2.0.0",
        ];
        let downgrade = Policy {
            allow_downgrade: true,
            ..Policy::default()
        };
        let installed = [("g:a", "1.0.0"), ("g:b", "2.0.0")];
        let p = run_with(&lines, &installed, None, downgrade);
        assert!(steps(&p).is_empty());
        assert_eq!(p.unrepaired.len(), 1);
        // a single target repairs first (a has nothing newer)
        let p = run_with(&lines, &installed, Some("g:a"), downgrade);
        assert_eq!(steps(&p), ["b 2.0.0->1.1.0"]);
        assert_eq!(p.repairs.len(), 1);
    }

    /// From a review: with one entity behind, bringing it up beats moving every entity on.
    #[test]
    fn moving_the_lagging_entity_is_the_smaller_move() {
        let lines = [
            "g:a 1.0.0",
            "g:a 1.5.0",
            "g:a 2.0.0",
            "g:b 1.0.0",
            "g:b 2.0.0 g:a 1.5.0 2.x.x",
        ];
        let environment = named(&[
            ("a1", "g:a", "1.0.0"),
            ("a2", "g:a", "1.5.0"),
            ("b", "g:b", "1.0.0"),
        ]);
        let p = run_in(&lines, &environment, newest("g:b"), false);
        assert_eq!(steps(&p), ["a1 1.0.0->1.5.0", "b 1.0.0->2.0.0"]);
    }

    /// From a review: when the reason lies two products away, the explanation follows it.
    #[test]
    fn explanations_follow_the_chain() {
        let lines = [
            "g:a 1.0.0 g:b 1.0.0 1.x.x",
            "g:a 3.0.0 g:b 3.0.0 3.x.x",
            "g:b 1.0.0 g:c 1.0.0 1.x.x",
            "g:b 3.0.0 g:c 3.0.0 3.x.x",
            "g:c 1.0.0",
            "g:c 2.0.0",
        ];
        let v = Version::parse("3.0.0").unwrap();
        let target = vec![Target::Exact(ProductId::parse("g:a").unwrap(), v)];
        let p = run(
            &lines,
            &[("g:a", "1.0.0"), ("g:b", "1.0.0"), ("g:c", "1.0.0")],
            target,
            false,
        );
        assert!(!p.feasible);
        assert_eq!(
            p.explanation,
            [
                "asked for: g:a 3.0.0",
                "g:a 3.0.0 needs g:b >=3.0.0, <=3.x.x",
                "g:b 3.0.0 needs g:c >=3.0.0, <=3.x.x",
                "no g:c release is in >=3.0.0, <=3.x.x (the catalog has 1.0.0, 2.0.0)",
            ]
        );
    }

    /// From a review: installing a product that waits as a managed entity installs that
    /// entity, instead of adding a second one beside it.
    #[test]
    fn installs_take_the_waiting_managed_entity() {
        let lines = ["g:a 1.0.0", "g:a 2.0.0 g:b 1.0.0 1.x.x", "g:b 1.0.0"];
        let mut text = String::from("entities:\n  - product: g:a\n    version: 1.0.0\n");
        text.push_str("  - name: bm\n    product: g:b\n    version: 1.0.0\n    state: managed\n");
        let environment = environment::parse(&text, &Arc::from("e.yml"), "e").unwrap();
        let catalog = Catalog::from_manifests(manifests(&lines)).unwrap();
        let v = Version::parse("2.0.0").unwrap();
        let request = Request {
            targets: vec![Target::Exact(ProductId::parse("g:a").unwrap(), v)],
            all: false,
            policy: Policy {
                allow_install: true,
                ..Policy::default()
            },
            deadline: None,
            progress: None,
            reload: None,
        };
        let p = plan(&environment, &catalog, &request);
        assert_eq!(steps(&p), ["bm -->1.0.0", "a 1.0.0->2.0.0"]);
        let names: Vec<_> = p
            .final_state
            .iter()
            .map(|e| (e.entity.as_str(), e.state))
            .collect();
        assert_eq!(
            names,
            [
                ("a", crate::environment::State::Installed),
                ("bm", crate::environment::State::Installed)
            ]
        );
    }

    /// Distance is per entity, so a product of many entities moves far; its ladder then has
    /// a rung only at each distance a value moves (weighted), and the least move still wins:
    /// twelve entities of a one release up (12) rather than two (24) or a move of b.
    #[test]
    fn the_least_move_of_a_product_of_many_entities() {
        let lines = [
            "g:a 1.0.0",
            "g:a 2.0.0",
            "g:a 3.0.0",
            "g:t 1.0.0",
            "g:t 2.0.0 g:a 2.0.0 3.x.x",
        ];
        let mut entities: Vec<(String, &str, &str)> = (0..12)
            .map(|k| (format!("a{k:02}"), "g:a", "1.0.0"))
            .collect();
        entities.push(("t".to_owned(), "g:t", "1.0.0"));
        let entities: Vec<(&str, &str, &str)> = entities
            .iter()
            .map(|(n, p, v)| (n.as_str(), *p, *v))
            .collect();
        let plan = run_in(&lines, &named(&entities), newest("g:t"), false);
        assert!(plan.feasible && plan.complete);
        let versions: std::collections::BTreeSet<&str> = plan
            .final_state
            .iter()
            .filter(|e| e.product.to_string() == "g:a")
            .map(|e| e.version.as_str())
            .collect();
        assert_eq!(versions, ["2.0.0"].into());
    }

    /// A nogood (`Query::forbid`) is a constraint of the question: the engine never answers
    /// with all of its values, and a question only they could answer is infeasible (proven);
    /// a nogood on a value outside a product's domain forbids nothing.
    #[test]
    fn nogoods_forbid_combinations_of_values() {
        let lines = ["g:a 1.0.0", "g:a 2.0.0", "g:b 1.0.0", "g:b 2.0.0"];
        let catalog = Catalog::from_manifests(manifests(&lines)).unwrap();
        let environment = env(&[("g:a", "1.0.0"), ("g:b", "1.0.0")]);
        let model = Model::build(&environment, &catalog, Policy::default(), &[]);
        let (a, b) = (0, 1);
        let ask = |restrict: Vec<(usize, Vec<Value>)>, forbid: Vec<Vec<(usize, Value)>>| {
            let query = Query {
                baseline: &[Value::Keep, Value::Keep],
                restrict,
                frozen: 0,
                objective: Some(Fewest::default()),
                deadline: None,
                forbid: forbid
                    .into_iter()
                    .map(|values| crate::solve::cycles::Nogood {
                        values,
                        reason: String::new(),
                        refusal: crate::solve::cycles::Refusal::Cycle,
                    })
                    .collect(),
            };
            crate::solve::sat::Sat.solve(&model, &query)
        };
        let a2 = (a, Value::Release(1));
        // the fewest changes would keep b; the nogood moves it
        assert_eq!(
            ask(vec![(a, vec![a2.1])], vec![vec![a2, (b, Value::Keep)]]),
            Outcome::Found(vec![Value::Release(1), Value::Release(1)])
        );
        assert_eq!(
            ask(
                vec![(a, vec![a2.1])],
                vec![vec![a2, (b, Value::Keep)], vec![a2, (b, Value::Release(1))]]
            ),
            Outcome::Infeasible
        );
        assert_eq!(
            ask(vec![(a, vec![a2.1])], vec![vec![a2, (b, Value::Absent)]]),
            Outcome::Found(vec![Value::Release(1), Value::Keep])
        );
    }

    /// The search runs on any `Releases`, not only on a catalog: here two hand-made ones.
    #[test]
    fn the_search_runs_on_any_source_of_releases() {
        struct Two(Vec<Arc<Manifest>>);
        impl model::Releases for Two {
            fn releases(&self, product: &ProductId) -> &[Arc<Manifest>] {
                let start = self
                    .0
                    .iter()
                    .position(|m| m.product == *product)
                    .unwrap_or(0);
                let n = self.0.iter().filter(|m| m.product == *product).count();
                &self.0[start..start + n]
            }
            fn release(&self, product: &ProductId, version: &Version) -> Option<&Arc<Manifest>> {
                self.0
                    .iter()
                    .find(|m| m.product == *product && m.version == *version)
            }
        }
        let source = Two(manifests(&["g:a 1.0.0", "g:a 1.1.0"])
            .into_iter()
            .map(Arc::new)
            .collect());
        let environment = env(&[("g:a", "1.0.0")]);
        let model = Model::build(&environment, &source, Policy::default(), &[]);
        assert_eq!(model.vars[0].domain, [Value::Keep, Value::Release(1)]);
        let engines: [&dyn Engine; 2] =
            [&crate::solve::sat::Sat, &crate::solve::dfs::Dfs::default()];
        for engine in engines {
            let query = Query {
                baseline: &[Value::Keep],
                restrict: vec![(0, vec![Value::Release(1)])],
                frozen: 0,
                objective: Some(Fewest::default()),
                deadline: None,
                forbid: Vec::new(),
            };
            let found = engine.solve(&model, &query);
            assert_eq!(
                found,
                Outcome::Found(vec![Value::Release(1)]),
                "{}",
                engine.name()
            );
        }
    }

    /// SPEC 9.1: a capability or rule atom is about the *other* entities, and every entity of
    /// a product moves with it, so two entities of one release see each other: a release
    /// that provides what its own constraint asks for is installable where the product runs
    /// twice, not where it runs once; a rule that only one of the two satisfies fails for the
    /// other (each entity is judged apart). The final state agrees with `validate`.
    #[test]
    fn entities_of_one_product_see_each_other_after_a_move() {
        let catalog = |constraint: &str| {
            let text = format!(
                "manifest-version: '1.0'\nproduct-group: g\nproduct-name: p\n\
                 product-version: 1.0.0\n---\nmanifest-version: '1.0'\nproduct-group: g\n\
                 product-name: p\nproduct-version: 2.0.0\nextensions:\n  capabilities:\n    \
                 provides:\n      - name: c\n  constraints:\n    - {constraint}\n"
            );
            Catalog::from_manifests(manifest::parse(&text, &Arc::from("c.yml")).unwrap()).unwrap()
        };
        let once = named(&[("p1", "g:p", "1.0.0")]);
        let twice = named(&[("p1", "g:p", "1.0.0"), ("p2", "g:p", "1.0.0")]);
        for (constraint, environment, moves) in [
            ("capability: c", &once, false),
            ("capability: c", &twice, true),
            ("rule: 'product == \"g:p\"'", &once, false),
            ("rule: 'product == \"g:p\"'", &twice, true),
            // p1 sees p2 and p2 sees p1: only p1's rule holds
            ("rule: 'entity == \"p2\"'", &twice, false),
            ("rule: 'entity == \"p1\" || entity == \"p2\"'", &twice, true),
        ] {
            let catalog = catalog(constraint);
            let p = plan(environment, &catalog, &Request::new(newest("g:p"), false));
            assert!(p.complete, "{constraint}");
            let to: Vec<&str> = p.final_state.iter().map(|e| e.version.as_str()).collect();
            let expected = if moves { "2.0.0" } else { "1.0.0" };
            assert!(to.iter().all(|v| *v == expected), "{constraint}: {to:?}");
            // the oracle: every entity at 2.0.0 is valid exactly when the plan moves there
            let mut end = environment.clone();
            for e in &mut end.entities {
                e.version = crate::version::Version::parse("2.0.0").unwrap();
            }
            let valid =
                crate::validate::validate(&end, &catalog).passes(crate::finding::Severity::Error);
            assert_eq!(valid, moves, "{constraint}: validate disagrees");
        }
    }
}
