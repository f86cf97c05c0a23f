//! Safe upgrades (SPEC section 7): for each installed product, the newest candidate that could
//! replace it alone, the newest candidate overall, and what blocks the latter.
//!
//! - `safe`: every entity of the product moved to the candidate, every other entity unchanged,
//!   and every constraint that involves the product holds: the candidate's own dependencies
//!   and incompatibilities (even where the installed release already breaks them) and every
//!   other installed release's constraints on it, optional ones included. Problems elsewhere
//!   are not its concern.
//! - `latest`: the newest candidate (SPEC section 7 and 9.3: newer, a release unless `--pre`,
//!   neither excluded nor deprecated by policy), including one whose runtime requirement the
//!   environment's runtime fails: such a release is never `safe` and never planned to
//!   (`Exclusion::Runtime` keeps it out of the model's values), but it is what is newest, and
//!   the runtime is what blocks it.
//! - `blocked_by`: the constraints `latest` would break that way, as findings (a failed
//!   runtime requirement is a `runtime-mismatch`).
//! - `requires`: the fewest other installed products to upgrade (then, within the first such
//!   set the engine proves smallest, the smallest moves) so that `latest` becomes installable,
//!   found by the planner's own search; it never adds a product that is not installed. Empty
//!   for a `latest` the runtime rules out: no upgrade changes the runtime, so no search is
//!   made, and the row is not installable, with the explanation saying why.
//!
//! One planning model serves every product, and the products are examined in parallel and
//! collected in product order.

use rayon::prelude::*;

use crate::catalog::Catalog;
use crate::environment::Environment;
use crate::finding::Finding;
use crate::plan::model::{Exclusion, Model, Policy, Value, Violation};
use crate::plan::{Counter, ProgressSink};
use crate::product::ProductId;
use crate::solve::cycles::Learnt;
use crate::solve::explain::{self, Context, Explanation, Pick, Reload};
use crate::solve::{Engine, Fewest, Moves, Query, Unproven};
use crate::version::Version;

/// The upgrade picture of one installed product.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Upgrade {
    pub product: ProductId,
    /// The highest installed version.
    pub installed: String,
    pub safe: Option<String>,
    pub latest: Option<String>,
    /// What `latest` would break if it replaced the product alone.
    pub blocked_by: Vec<Finding>,
    /// The other products to upgrade, and to what, so that `latest` can be installed.
    pub requires: Vec<(ProductId, String)>,
    /// Whether any state with `latest` exists at all (without installing new products).
    pub latest_installable: bool,
    /// False when the row is not proven (`unproven` says why): a time limit cut the search
    /// for `requires` / `latest_installable` (they are then the best found), or the model
    /// judges something the row depends on only approximately.
    pub proven: bool,
    /// Why the row is not proven (empty when it is).
    pub unproven: Vec<Unproven>,
    /// The operator's policy pins the product (SPEC 9.3): it never moves, so nothing is
    /// `safe`; `latest` is still the newest release it would otherwise be offered.
    pub pinned: bool,
    /// When the product's entities run different versions: the entities below `installed`
    /// (the highest), by name, with their versions. `installed`, `safe` and `latest` speak for
    /// the product as SPEC section 7 says; these are the entities that lag even when nothing
    /// newer exists.
    pub behind: Vec<(String, String)>,
    /// With `behind`: whether moving every entity to `installed` alone breaks nothing (`None`
    /// when that release is not a candidate: not in the catalog, or left out by policy).
    pub align: Option<bool>,
    /// When no upgrade of other installed products makes `latest` installable (proven): why,
    /// from the engine's conflict, with the `plan` flags that would make it possible.
    pub explanation: Option<Explanation>,
}

impl Upgrade {
    /// True when something newer than what runs is in the catalog (the row can move or is
    /// blocked): the rows `--outdated` keeps.
    #[must_use]
    pub fn outdated(&self) -> bool {
        self.latest.is_some() || !self.behind.is_empty()
    }
}

/// The picture of every installed product, sorted by product, from `catalog` held whole: it
/// is read as a database is ([`Reload::narrowing`]), the scope of `upgrades` first and more
/// in the explanations' rounds, with the same answers as over every release (verdicts,
/// fixes; an explanation's chain may name another set of parts, as minimal).
#[must_use]
pub fn upgrades(env: &Environment, catalog: &Catalog, pre: bool) -> Vec<Upgrade> {
    let scope = crate::catalog::Scope::upgrades(env, [], false, false);
    let (narrowed, reload) =
        Reload::narrowing(std::sync::Arc::new(catalog.clone()), env, &[], &scope);
    upgrades_with(
        env,
        &narrowed,
        pre,
        crate::solve::default_engine(),
        None,
        Some(&reload),
    )
}

/// [`upgrades`] with a chosen engine, a moment after which searches stop (rows cut short
/// say so: `proven` is false), and where explanations find the releases a relaxed policy
/// reaches when `catalog` was read for this one only.
#[must_use]
pub fn upgrades_with(
    env: &Environment,
    catalog: &Catalog,
    pre: bool,
    engine: &dyn Engine,
    deadline: Option<std::time::Instant>,
    reload: Option<&Reload>,
) -> Vec<Upgrade> {
    upgrades_reporting(env, catalog, pre, engine, deadline, reload, None)
}

/// [`upgrades_with`], telling `progress` how many installed products have been examined of
/// how many (stage `examining products`), at the sink's pace.
#[must_use]
pub fn upgrades_reporting(
    env: &Environment,
    catalog: &Catalog,
    pre: bool,
    engine: &dyn Engine,
    deadline: Option<std::time::Instant>,
    reload: Option<&Reload>,
    progress: Option<ProgressSink>,
) -> Vec<Upgrade> {
    let policy = Policy {
        pre,
        allow_downgrade: false,
        allow_install: false,
    };
    let model = Model::build(env, catalog, policy, &[]);
    let current = model.current();
    let whole = Whole::new(env, catalog, &model);
    // the products are examined in parallel: what they all ask is worked out first
    if let Some(index) = model.facets() {
        index.prepare_rules(&model);
    }
    let mut counter = progress.map(|sink| {
        let installed = model.vars.iter().filter(|v| v.installed()).count();
        Counter::new(sink, "examining products", installed)
    });
    let examined: Vec<(Upgrade, Option<Pick>)> = (0..model.vars.len())
        .into_par_iter()
        .filter(|&p| model.vars[p].installed())
        .map(|p| {
            let row = examine(&model, &whole, &current, p, engine, deadline);
            counter.as_ref().map(Counter::one_done);
            row
        })
        .collect();
    // Why each `latest` that no co-upgrade makes installable stays out of reach (all rows
    // at once: a catalog read in part is read further once for all of them).
    let (mut rows, unreachable): (Vec<Upgrade>, Vec<Option<Pick>>) = examined.into_iter().unzip();
    let unreachable: Vec<(usize, Pick)> = unreachable
        .into_iter()
        .enumerate()
        .filter_map(|(i, latest)| Some((i, latest?)))
        .collect();
    if unreachable.is_empty() {
        return rows;
    }
    let context = Context {
        env,
        catalog,
        engine,
        deadline,
        reload,
    };
    let questions: Vec<explain::Asked> = unreachable
        .iter()
        .map(|(i, latest)| vec![(rows[*i].product.clone(), vec![latest.clone()])])
        .collect();
    if let Some(counter) = &mut counter {
        counter.stage("explaining unreachable releases", questions.len());
    }
    // the explanations build their own model over the same catalog, which takes over what
    // the examining one worked out
    drop(whole);
    let settled = |n: usize| {
        if let Some(counter) = &counter {
            counter.more_done(n);
        }
    };
    let answers = explain::explain_all(
        &context,
        policy,
        &questions,
        Some(model.bequeath()),
        Some(&settled),
    );
    let cut = crate::solve::passed(deadline);
    for ((i, _), explanation) in unreachable.into_iter().zip(answers) {
        explained(&mut rows[i], explanation, cut);
    }
    rows
}

/// Gives an unreachable row its explanation. One missing when the time limit has come was cut
/// (a proven conflict always has one), and so was one the time limit cut short (a fix check
/// cut reads as no fix): the row says so, as a search cut short does, never leaving the
/// reason out silently.
fn explained(row: &mut Upgrade, explanation: Option<explain::Explanation>, cut: bool) {
    if explain::Explanation::unfinished(explanation.as_ref(), cut) {
        if !row.unproven.contains(&Unproven::TimeLimit) {
            row.unproven.insert(0, Unproven::TimeLimit);
        }
        row.proven = false;
    }
    row.explanation = explanation;
}

/// The constraints `p` at `value` breaks with everything else as it is.
fn alone(model: &Model<'_>, p: usize, value: Value) -> Vec<Violation> {
    let mut out = model.unary(p, value);
    for &q in &model.neighbors[p] {
        out.extend(model.conflicts(p, value, q, model.vars[q].domain[0]));
    }
    out.sort();
    out.dedup();
    out
}

/// The section 9 items `p` at `value` breaks with everything else as it is: its own, and
/// those of others it stops satisfying (a capability it no longer provides, say).
fn alone_items(model: &Model<'_>, p: usize, value: Value) -> Vec<usize> {
    let Some(index) = model.facets() else {
        return Vec::new();
    };
    let mut state = model.current();
    state[p] = value;
    index.broken_around(model, p, &state)
}

/// The data wiring a state would break that the model does not judge pair by pair (inputs
/// wired from capabilities, data cycles; module `solve::wired`): the state is checked as a
/// whole, by `validate`'s own wiring checks, where it moves a product at risk.
struct Whole<'a> {
    env: &'a Environment,
    catalog: &'a Catalog,
    /// Today's wiring findings (`None`: nothing is wired, nothing to check).
    today: Option<Vec<Finding>>,
    /// Per model product: its entities (indices into `env`), listed once when first asked.
    by_product: std::sync::OnceLock<Vec<Vec<usize>>>,
}

impl<'a> Whole<'a> {
    fn new(env: &'a Environment, catalog: &'a Catalog, model: &Model<'_>) -> Self {
        let today = model
            .wiring_in_use()
            .then(|| crate::validate::wiring_findings(env, catalog));
        Whole {
            env,
            catalog,
            today,
            by_product: std::sync::OnceLock::new(),
        }
    }

    /// The wiring findings `state` (installed products only moved) has that today has not.
    fn added(&self, model: &Model<'_>, state: &[Value]) -> Vec<Finding> {
        self.added_judged(model, state, true)
    }

    /// [`Whole::added`], judged around what moved ([`Whole::around`]) or over every entity.
    fn added_judged(&self, model: &Model<'_>, state: &[Value], around: bool) -> Vec<Finding> {
        let Some(today) = &self.today else {
            return Vec::new();
        };
        let moved = |q: usize| state[q] != model.vars[q].domain[0];
        if !(0..state.len()).any(|q| moved(q) && model.wiring_risk(q)) {
            return Vec::new();
        }
        // the entities as `state` has them (every entity of a product moves with it)
        let at_state = |e: &crate::environment::Entity| {
            let mut e = e.clone();
            if e.is_installed()
                && let Some(&q) = model.index.get(&e.product)
                && let Value::Release(i) = state[q]
            {
                e.version = model.vars[q].releases[i].version.clone();
            }
            e
        };
        let moved: Vec<usize> = (0..state.len()).filter(|&q| moved(q)).collect();
        let after = if let Some((inside, seen)) = model.wiring_scope(&moved).filter(|_| around) {
            self.around(model, state, &at_state, &inside, &seen)
        } else {
            let env = self
                .env
                .with_entities(self.env.entities.iter().map(at_state).collect());
            crate::validate::wiring_findings(&env, self.catalog)
        };
        crate::validate::new_errors(today, &after)
            .into_iter()
            .cloned()
            .collect()
    }

    /// The wiring findings a move of the products `inside` stand for can change
    /// ([`crate::solve::Model::wiring_scope`]), with every entity as `at_state` gives it,
    /// judged over the entities of the products `seen` and the witnesses that make that
    /// smaller world take the whole one's paths, as the rolling steps judge theirs: the
    /// findings of entities inside, and the data cycles among them. Every other finding is
    /// the same as today's, so comparing these with today's gives the same new errors as
    /// judging every entity, and one row no longer costs a judgement of the whole
    /// environment (quadratic in the entities, with every product at risk).
    fn around(
        &self,
        model: &Model<'_>,
        state: &[Value],
        at_state: &dyn Fn(&crate::environment::Entity) -> crate::environment::Entity,
        inside: &[bool],
        seen: &[bool],
    ) -> Vec<Finding> {
        let by_product = self.by_product.get_or_init(|| {
            let mut by_product = vec![Vec::new(); model.vars.len()];
            for (i, e) in self.env.entities.iter().enumerate() {
                if let Some(&q) = model.index.get(&e.product) {
                    by_product[q].push(i);
                }
            }
            by_product
        });
        // names stay as today, releases as `state` has them
        let witnesses = model.wiring_witnesses(seen, |q| {
            by_product[q]
                .iter()
                .map(|&i| &self.env.entities[i])
                .filter(|e| e.is_installed())
                .map(move |e| {
                    let release = match state[q] {
                        Value::Release(i) => Some(&*model.vars[q].releases[i]),
                        _ => self.catalog.release(&e.product, &e.version).map(|m| &**m),
                    };
                    (e.name.as_str(), release)
                })
        });
        let mut chosen: Vec<crate::environment::Entity> = (0..seen.len())
            .filter(|&q| seen[q])
            .chain(witnesses.iter().map(|&(q, _)| q))
            .flat_map(|q| by_product[q].iter().map(|&i| &self.env.entities[i]))
            .filter(|e| {
                model.index.get(&e.product).is_some_and(|&q| seen[q])
                    || witnesses.iter().any(|&(_, name)| name == e.name)
            })
            .map(at_state)
            .collect();
        chosen.sort_by(|a, b| a.name.cmp(&b.name));
        chosen.dedup_by(|a, b| a.name == b.name);
        let env = self.env.with_entities(chosen);
        let of = |name: &str| -> bool {
            env.entities
                .binary_search_by(|e| e.name.as_str().cmp(name))
                .ok()
                .and_then(|i| model.index.get(&env.entities[i].product).copied())
                .is_some_and(|q| inside[q])
        };
        crate::validate::wiring_findings(&env, self.catalog)
            .into_iter()
            .filter(|f| match &f.cycle {
                Some(members) => members.iter().all(|m| of(m)),
                None => f.entity.as_deref().is_some_and(of),
            })
            .collect()
    }

    /// Whether today's environment has a data cycle (then `requires` learns none: SPEC 10's
    /// cycle is there whatever moves, and it is not this row's to judge).
    fn cycles_today(&self) -> bool {
        self.today
            .iter()
            .flatten()
            .any(|f| f.code == crate::finding::Code::DataCycle)
    }

    /// [`Whole::added`] for `p` moved to `value` alone.
    fn added_alone(&self, model: &Model<'_>, p: usize, value: Value) -> Vec<Finding> {
        if self.today.is_none() || !model.wiring_risk(p) {
            return Vec::new();
        }
        let mut state = model.current();
        state[p] = value;
        self.added(model, &state)
    }
}

/// True when `p` at `value` breaks nothing with everything else as it is. The pairs are
/// judged as the planner's encoding judges them ([`Model::compatible_memo`], which agrees
/// with [`alone`]'s conflicts, tested in `solve::model`), without making the findings: most
/// candidates of a blocked row break something, and finding out was a tenth of the time
/// spent examining rows on the hard family.
fn safe_alone_at(model: &Model<'_>, whole: &Whole<'_>, p: usize, value: Value) -> bool {
    let now = |q: usize| model.vars[q].domain[0];
    !model.breaks_alone(p, value)
        && model.neighbors[p]
            .iter()
            .all(|&q| model.compatible_memo(p, value, q, now(q)))
        && alone_items(model, p, value).is_empty()
        && whole.added_alone(model, p, value).is_empty()
}

/// The candidates of `p` newest first: every release the policy allows, even one that needs
/// something missing (that is a reason it is blocked, shown as such).
fn candidates(model: &Model<'_>, p: usize) -> Vec<Value> {
    let var = &model.vars[p];
    let mut candidates: Vec<Value> = var
        .domain
        .iter()
        .copied()
        .filter(|v| matches!(v, Value::Release(_)))
        .filter(|&v| var.version(v).is_some_and(|c| var.newer(c)))
        .collect();
    candidates.sort_by(|a, b| b.cmp(a)); // release index order is version order
    candidates
}

/// The newest release of `p` above `newest` (its newest candidate, if any) that is left out
/// of the model's values only because its runtime requirement fails (`Exclusion::Runtime`
/// alone): a candidate by SPEC section 7 and the policy, newer than what runs, so `latest`,
/// though nothing can ever run it in this environment.
fn beyond_runtime(model: &Model<'_>, p: usize, newest: Option<Value>) -> Option<Value> {
    let var = &model.vars[p];
    if var.runtime.is_empty() {
        return None; // an undeclared runtime leaves nothing out
    }
    let floor = match newest {
        Some(Value::Release(i)) => i + 1,
        _ => 0,
    };
    (floor..var.releases.len())
        .rev()
        .filter(|&i| var.newer(&var.releases[i].version))
        .find(|&i| var.exclusions(i, model.policy) == [Exclusion::Runtime])
        .map(Value::Release)
}

/// The runtime requirements release `value` of `p` fails in the environment, as findings of
/// the entity that would run it (`runner`): `dependency` the runtime's name, `found` the
/// environment's version, at the requirement.
fn runtime_findings(
    model: &Model<'_>,
    p: usize,
    value: Value,
    runner: Option<&str>,
) -> Vec<Finding> {
    let var = &model.vars[p];
    let Value::Release(i) = value else {
        return Vec::new();
    };
    let manifest = &var.releases[i];
    let world = crate::constraint::World::new(Vec::new(), model.runtime);
    manifest
        .facets()
        .runtime
        .iter()
        .filter_map(|r| {
            let crate::constraint::Need::RuntimeMismatch(found) = world.runtime_need(r) else {
                return None;
            };
            let constraint = format!(
                "requires runtime {}{}",
                r.name,
                crate::constraint::range_words(&r.range)
            );
            let mut f = Finding::new(
                crate::finding::Code::RuntimeMismatch,
                format!(
                    "{} {} {constraint}; the environment runs {found}",
                    var.product, manifest.version
                ),
                constraint,
            );
            f.entity = runner.map(str::to_owned);
            f.product = Some(var.product.clone());
            f.version = Some(manifest.version.to_string());
            f.dependency_name = Some(r.name.clone());
            f.found = Some(found.to_string());
            f.minimum = r.range.minimum.as_ref().map(ToString::to_string);
            f.maximum = r.range.maximum.as_ref().map(ToString::to_string);
            f.location = Some(crate::diagnostic::FileLocation {
                file: std::sync::Arc::clone(&manifest.file),
                location: r.location,
            });
            Some(f)
        })
        .collect()
}

/// Every candidate of each installed product that could replace it alone (the releases
/// [`Upgrade::safe`] is the newest of), newest first, by product. A fleet asks which
/// release is safe in every environment; the newest safe in each need not be.
#[must_use]
pub fn safe_alone(
    env: &Environment,
    catalog: &Catalog,
    pre: bool,
) -> Vec<(ProductId, Vec<Version>)> {
    let policy = Policy {
        pre,
        allow_downgrade: false,
        allow_install: false,
    };
    let model = Model::build(env, catalog, policy, &[]);
    let whole = Whole::new(env, catalog, &model);
    (0..model.vars.len())
        .filter(|&p| model.vars[p].installed())
        .map(|p| {
            let var = &model.vars[p];
            let safe = candidates(&model, p)
                .into_iter()
                .filter(|&c| safe_alone_at(&model, &whole, p, c))
                .filter_map(|c| var.version(c).cloned())
                .collect();
            (var.product.clone(), safe)
        })
        .collect()
}

fn examine(
    model: &Model<'_>,
    whole: &Whole<'_>,
    current: &[Value],
    p: usize,
    engine: &dyn Engine,
    deadline: Option<std::time::Instant>,
) -> (Upgrade, Option<Pick>) {
    let var = &model.vars[p];
    let candidates = candidates(model, p);
    let version = |v: Value| var.version(v).map(ToString::to_string);
    let newest = candidates.first().copied();
    // a newer release only the runtime rules out is `latest`, never `safe`
    let beyond = beyond_runtime(model, p, newest);
    let latest = beyond.or(newest);
    // What `latest` breaks alone is asked once: it decides whether `latest` is safe, and it
    // is `blocked_by` when it is not.
    let breaks = latest.map(|l| breaks_alone(model, whole, p, l));
    let safe = match (&breaks, latest) {
        (Some((pairs, items, wired)), Some(l))
            if beyond.is_none() && pairs.is_empty() && items.is_empty() && wired.is_empty() =>
        {
            Some(l)
        }
        _ => candidates
            .iter()
            .skip(usize::from(beyond.is_none()))
            .copied()
            .find(|&c| safe_alone_at(model, whole, p, c)),
    };
    // what moving `p` alone breaks is judged approximately where a doubt names `p` (a row
    // with nothing newer asks nothing)
    let mut placement: Vec<Unproven> = if latest.is_some() && model.doubt_involves(p) {
        vec![Unproven::Placement]
    } else {
        Vec::new()
    };
    let mut upgrade = Upgrade {
        product: var.product.clone(),
        installed: var
            .installed_version()
            .map_or_else(String::new, ToString::to_string),
        safe: safe.and_then(version),
        latest: latest.and_then(version),
        blocked_by: Vec::new(),
        requires: Vec::new(),
        latest_installable: true,
        proven: placement.is_empty(),
        unproven: placement.clone(),
        pinned: false,
        behind: Vec::new(),
        align: None,
        explanation: None,
    };
    (upgrade.behind, upgrade.align) = lagging(model, whole, p);
    if var.operator.pin.contains(&var.product) {
        // a pinned product moves nowhere: nothing judged, nothing in doubt
        upgrade.proven = true;
        upgrade.unproven.clear();
        return (pinned(model, p, upgrade), None);
    }
    let (Some(latest), Some((pairs, items, wired))) = (latest.filter(|&l| Some(l) != safe), breaks)
    else {
        return (upgrade, None);
    };
    upgrade.blocked_by = blocked_by(model, current, (p, latest), &pairs, items, wired);
    if beyond.is_some() {
        // No upgrade of anything changes the runtime: nothing to search for, and why the
        // release stays out of reach is explained with the other unreachable ones.
        upgrade.latest_installable = false;
        return (upgrade, Some(Pick::of(model, p, latest)));
    }
    let query = Query {
        baseline: current,
        restrict: vec![(p, vec![latest])],
        frozen: 0,
        objective: Some(Fewest {
            moves: Moves::WithinChanged,
            ..Fewest::default()
        }),
        deadline,
        forbid: Vec::new(),
    };
    // a state that closes a data cycle is no answer: the cycle is learnt and the search goes
    // on, as a plan's does (`solve::cycles`); what is left is judged on the answer below
    let learnt = Learnt::new(model, whole.cycles_today());
    let outcome = learnt.solve(engine, model, current, query);
    // the search may reach anything connected to `p`
    if placement.is_empty() && model.doubt_reaches(p) {
        placement.push(Unproven::Placement);
    }
    upgrade.unproven = placement;
    if !outcome.proven() {
        upgrade.unproven.insert(0, Unproven::TimeLimit);
    }
    if let Some(added) = unjudged(model, whole, &outcome) {
        upgrade.unproven.push(added);
        upgrade.proven = false;
        upgrade.latest_installable = false;
        return (upgrade, None);
    }
    upgrade.proven = upgrade.unproven.is_empty();
    if let Some(values) = outcome.values() {
        upgrade.requires = values
            .iter()
            .enumerate()
            .filter(|&(q, &v)| q != p && v != current[q])
            .filter_map(|(q, &v)| {
                let var = &model.vars[q];
                var.version(v)
                    .map(|ver| (var.product.clone(), ver.to_string()))
            })
            .collect();
        (upgrade, None)
    } else {
        // proven infeasible (explained later: the latest release is returned for that), or
        // unknown when cut (then `proven` says so)
        upgrade.latest_installable = false;
        let unreachable = outcome.proven().then(|| Pick::of(model, p, latest));
        (upgrade, unreachable)
    }
}

/// What `p` at `latest` breaks alone, as findings: the constraints between products
/// (`pairs`), the section 9 items (`items`) and the data wiring checked as a whole (`wired`).
fn blocked_by(
    model: &Model<'_>,
    current: &[Value],
    (p, latest): (usize, Value),
    pairs: &[Violation],
    items: Vec<usize>,
    wired: Vec<Finding>,
) -> Vec<Finding> {
    let var = &model.vars[p];
    // A constraint the candidate itself declares is declared by the entity that would run it.
    let runner = var
        .current
        .iter()
        .filter_map(|c| c.entity)
        .min()
        .map(str::to_owned);
    // a release the runtime rules out says so first
    let mut out = runtime_findings(model, p, latest, runner.as_deref());
    out.extend(pairs.iter().map(|c| {
        let mut f = finding(c);
        if f.entity.is_none() && c.declarer == var.product {
            f.entity.clone_from(&runner);
        }
        f
    }));
    if let Some(index) = model.facets() {
        let mut state = current.to_vec();
        state[p] = latest;
        for k in items {
            out.extend(index.findings(model, k, &state, runner.as_deref()));
        }
    }
    out.extend(wired);
    out
}

/// What moving product `p` alone to `to` breaks: constraints between products, section 9
/// items, section 10 wiring findings.
fn breaks_alone(
    model: &Model<'_>,
    whole: &Whole<'_>,
    p: usize,
    to: Value,
) -> (Vec<Violation>, Vec<usize>, Vec<Finding>) {
    (
        alone(model, p, to),
        alone_items(model, p, to),
        whole.added_alone(model, p, to),
    )
}

/// What the state an engine found breaks that the model does not judge pair by pair (module
/// `solve::wired`): such a state is no answer, and the row is not proven.
fn unjudged(
    model: &Model<'_>,
    whole: &Whole<'_>,
    outcome: &crate::solve::Outcome,
) -> Option<Unproven> {
    let added: Vec<String> = whole
        .added(model, outcome.values()?)
        .iter()
        .map(|f| format!("{}: {}", f.code, f.message))
        .collect();
    (!added.is_empty()).then_some(Unproven::Unjudged(added))
}

/// The entities of `p` below its highest installed version, and whether all can move to it
/// alone (see [`Upgrade::behind`]).
fn lagging(
    model: &Model<'_>,
    whole: &Whole<'_>,
    p: usize,
) -> (Vec<(String, String)>, Option<bool>) {
    let var = &model.vars[p];
    let Some(top) = var.installed_version() else {
        return (Vec::new(), None);
    };
    let mut behind: Vec<(String, String)> = var
        .current
        .iter()
        .filter(|c| c.version.as_str() != top.as_str())
        .map(|c| {
            (
                c.entity.unwrap_or_default().to_owned(),
                c.version.to_string(),
            )
        })
        .collect();
    if behind.is_empty() {
        return (behind, None);
    }
    behind.sort();
    let align = var
        .domain
        .iter()
        .copied()
        .find(|&v| matches!(v, Value::Release(_)) && var.version(v) == Some(top))
        .map(|v| safe_alone_at(model, whole, p, v));
    (behind, align)
}

/// The row of a pinned product: no search (it never moves), and `latest` the newest newer
/// release the pin keeps out, what `latest` would be without it (one the runtime rules out
/// too included, as for a product that is not pinned).
fn pinned(model: &Model<'_>, p: usize, mut upgrade: Upgrade) -> Upgrade {
    let var = &model.vars[p];
    let latest = (0..var.releases.len())
        .rev()
        .filter(|&i| {
            let why = var.exclusions(i, model.policy);
            why.contains(&Exclusion::Pinned)
                && why
                    .iter()
                    .all(|e| matches!(e, Exclusion::Pinned | Exclusion::Runtime))
        })
        .map(|i| &var.releases[i].version)
        .find(|v| var.newer(v));
    upgrade.pinned = true;
    upgrade.safe = None;
    upgrade.latest = latest.map(ToString::to_string);
    upgrade.latest_installable = latest.is_none();
    upgrade
}

/// A broken constraint as a finding: who declares it, which range, what would be found.
#[must_use]
pub fn finding(c: &Violation) -> Finding {
    let mut f = Finding::new(
        c.code,
        c.describe(),
        format!("{} {}", c.dependency, c.range),
    );
    f.entity.clone_from(&c.declarer_entity);
    f.product = Some(c.declarer.clone());
    f.version = Some(c.declarer_version.clone());
    f.dependency = Some(c.dependency.clone());
    f.found.clone_from(&c.found);
    f.found_entity.clone_from(&c.found_entity);
    f.location.clone_from(&c.location);
    f.minimum.clone_from(&c.minimum);
    f.maximum.clone_from(&c.maximum);
    f.optional = Some(c.optional);
    if c.input.is_some() {
        // an input left unfed: said as `validate` says it (`input NAME from REQUIREMENT`,
        // `found` the source entity)
        f.detail.clone_from(&c.range);
        f.found.clone_from(&c.found_entity);
    }
    f
}

#[cfg(test)]
mod tests {
    use std::fmt::Write;
    use std::sync::Arc;

    use super::*;
    use crate::{environment, manifest};

    /// A catalog from `product version [dep-product min max [optional|incompatible]]...` lines.
    fn catalog(lines: &[&str]) -> Catalog {
        let mut text = String::new();
        for line in lines {
            let mut words = line.split_whitespace();
            let (product, version) = (words.next().unwrap(), words.next().unwrap());
            let (group, name) = product.split_once(':').unwrap();
            let mut deps = String::new();
            let mut incs = String::new();
            let rest: Vec<&str> = words.collect();
            for chunk in rest.split(|w| *w == "|") {
                let [dep, min, max, flags @ ..] = chunk else {
                    continue;
                };
                let (dg, dn) = dep.split_once(':').unwrap();
                let head = format!("    - product-group: {dg}\n      product-name: {dn}\n");
                if flags.contains(&"incompatible") {
                    let _ = write!(
                        incs,
                        "{head}      minimum-version: {min}\n      maximum-version: {max}\n"
                    );
                } else {
                    let optional = flags.contains(&"optional");
                    let _ = write!(
                        deps,
                        "{head}      minimum-version: {min}\n      maximum-version: {max}\n      optional: {optional}\n"
                    );
                }
            }
            let list = |s: &str| {
                if s.is_empty() {
                    " []\n".to_owned()
                } else {
                    format!("\n{s}")
                }
            };
            let _ = write!(
                text,
                "manifest-version: '1.0'\nproduct-group: {group}\nproduct-name: {name}\n\
                 product-version: {version}\nextensions:\n  product-dependencies:{}  \
                 product-incompatibilities:{}---\n",
                list(&deps),
                list(&incs)
            );
        }
        Catalog::from_manifests(manifest::parse(&text, &Arc::from("c.yml")).unwrap()).unwrap()
    }

    fn env(entities: &[(&str, &str)]) -> Environment {
        let mut text = String::from("entities:\n");
        for (product, version) in entities {
            let _ = writeln!(text, "  - product: {product}\n    version: {version}");
        }
        environment::parse(&text, &Arc::from("e.yml"), "e").unwrap()
    }

    /// `product installed safe latest | requires... | blocking codes`
    fn row(u: &Upgrade) -> String {
        let requires: Vec<String> = u.requires.iter().map(|(p, v)| format!("{p}@{v}")).collect();
        let codes: Vec<&str> = u.blocked_by.iter().map(|f| f.code.as_str()).collect();
        format!(
            "{} {} {} {} | {} | {}{}",
            u.product,
            u.installed,
            u.safe.as_deref().unwrap_or("-"),
            u.latest.as_deref().unwrap_or("-"),
            requires.join(" "),
            codes.join(" "),
            if u.latest_installable {
                ""
            } else {
                " (not installable)"
            }
        )
    }

    #[track_caller]
    fn check(lines: &[&str], entities: &[(&str, &str)], pre: bool, expected: &[&str]) {
        check_rows(&catalog(lines), entities, pre, expected);
    }

    /// The rows of `upgrades` over `catalog`, asserted to read `expected` as [`row`] writes
    /// them, and returned for further checks.
    #[track_caller]
    fn check_rows(
        catalog: &Catalog,
        entities: &[(&str, &str)],
        pre: bool,
        expected: &[&str],
    ) -> Vec<Upgrade> {
        let list = upgrades(&env(entities), catalog, pre);
        let rows: Vec<String> = list.iter().map(row).collect();
        assert_eq!(rows, expected);
        list
    }

    /// A release whose rule another product decides: `requires` moves that product,
    /// whether the rule must be false (no gold neighbour: db 1.0.0 is gold) or true (a
    /// platinum neighbour: only cache 2.0.0 is). The engine encodes a rule's candidates as
    /// answers need them (`solve::sat::facets::Rest`): an answer that counts on db staying
    /// put, or on some product being platinum, is judged on the whole state and sent back.
    #[test]
    fn requires_moves_what_a_rule_names() {
        let tier = |t: &str| format!("  properties:\n    tier: {t}\n");
        let constraint = |kind: &str, rule: &str| {
            format!(
                "  constraints:\n    - description: \"neighbours\"\n      {kind}:\n        \
                 - rule: \"has(properties.tier) && properties.tier == '{rule}'\"\n"
            )
        };
        let catalog = crate::catalog::tests::catalog_of(&[
            ("a:app", "1.0.0", &tier("bronze")),
            ("a:app", "2.0.0", &constraint("none-of", "gold")),
            ("b:db", "1.0.0", &tier("gold")),
            ("b:db", "2.0.0", &tier("silver")),
            ("c:cache", "1.0.0", &tier("bronze")),
            ("c:cache", "2.0.0", &tier("platinum")),
            ("d:web", "1.0.0", &tier("bronze")),
            ("d:web", "2.0.0", &constraint("all-of", "platinum")),
        ]);
        let entities = [
            ("a:app", "1.0.0"),
            ("b:db", "1.0.0"),
            ("c:cache", "1.0.0"),
            ("d:web", "1.0.0"),
        ];
        let list = check_rows(
            &catalog,
            &entities,
            false,
            &[
                "a:app 1.0.0 - 2.0.0 | b:db@2.0.0 | unsatisfied-constraint",
                "b:db 1.0.0 2.0.0 2.0.0 |  | ",
                "c:cache 1.0.0 2.0.0 2.0.0 |  | ",
                "d:web 1.0.0 - 2.0.0 | c:cache@2.0.0 | unsatisfied-constraint",
            ],
        );
        assert!(list.iter().all(|u| u.proven));
    }

    /// An unreachable row whose explanation the time limit cut is marked cut, not left
    /// without a reason as if it had none; one explained, or left unexplained before the
    /// limit, is as it was.
    #[test]
    fn an_explanation_cut_by_the_time_limit_marks_its_row() {
        let catalog = catalog(&["a:a 1.0.0", "a:a 2.0.0 b:b 2.0.0 2.x.x", "b:b 1.0.0"]);
        let list = upgrades(&env(&[("a:a", "1.0.0"), ("b:b", "1.0.0")]), &catalog, false);
        let row = list
            .iter()
            .find(|u| u.product.to_string() == "a:a")
            .unwrap();
        assert!(row.proven && !row.latest_installable && row.explanation.is_some());
        let mut cut = row.clone();
        explained(&mut cut, None, true);
        assert!(!cut.proven);
        assert_eq!(cut.unproven, [Unproven::TimeLimit]);
        explained(&mut cut, None, true);
        assert_eq!(cut.unproven, [Unproven::TimeLimit], "said once");
        for (explanation, limit) in [(row.explanation.clone(), true), (None, false)] {
            let mut kept = row.clone();
            explained(&mut kept, explanation.clone(), limit);
            assert!(kept.proven && kept.unproven.is_empty());
            assert_eq!(kept.explanation.is_some(), explanation.is_some());
        }
        // An explanation the limit cut short (a fix check cut reads as no fix), here or in
        // the conflict beyond its flags, marks its row too.
        let whole = row.explanation.clone().unwrap();
        let short = explain::Explanation {
            minimal: false,
            ..whole.clone()
        };
        let beyond = explain::Explanation {
            beyond: Some((vec!["--allow-downgrade"], Box::new(short.clone()))),
            ..whole
        };
        for explanation in [short, beyond] {
            assert!(explanation.cut());
            let mut marked = row.clone();
            explained(&mut marked, Some(explanation), false);
            assert!(!marked.proven);
            assert_eq!(marked.unproven, [Unproven::TimeLimit]);
            assert!(marked.explanation.is_some());
        }
    }

    /// SPEC 9.3: a kept item that fails today binds a move only where the move can change
    /// its truth. `c`'s item fails in two parts, one reading `p`'s capability and one naming
    /// `z`: either may move alone (the other part still fails, as today), so both are safe
    /// (before, each was blocked by the whole item, and not installable); `a`'s item, which
    /// fails only in the part naming `z`, holds once `z` moves.
    #[test]
    fn a_failing_item_binds_only_moves_that_can_change_it() {
        let provides = |v: &str| {
            format!("  capabilities:\n    provides:\n      - name: x\n        version: {v}\n")
        };
        let item = "  constraints:\n    - all-of:\n        - capability: x\n          \
                    minimum-version: 5.0.0\n        - none-of:\n            - product: z:z\n              \
                    maximum-version: 1.0.0\n";
        let fails_by_z = "  constraints:\n    - none-of:\n        - product: z:z\n          \
                          maximum-version: 1.0.0\n";
        let catalog = crate::catalog::tests::catalog_of(&[
            ("p:p", "1.0.0", &provides("1.0.0")),
            ("p:p", "2.0.0", &provides("2.0.0")),
            ("z:z", "1.0.0", "  properties: {}\n"),
            ("z:z", "2.0.0", "  properties: {}\n"),
            ("c:c", "1.0.0", item),
            ("a:a", "1.0.0", fails_by_z),
        ]);
        let entities = [
            ("a:a", "1.0.0"),
            ("c:c", "1.0.0"),
            ("p:p", "1.0.0"),
            ("z:z", "1.0.0"),
        ];
        let list = check_rows(
            &catalog,
            &entities,
            false,
            &[
                "a:a 1.0.0 - - |  | ",
                "c:c 1.0.0 - - |  | ",
                "p:p 1.0.0 2.0.0 2.0.0 |  | ",
                "z:z 1.0.0 2.0.0 2.0.0 |  | ",
            ],
        );
        assert!(list.iter().all(|u| u.proven));
    }

    /// SPEC 9.3 with a rule: `a`'s `none-of` fails today because `r` and `s` both run a
    /// retired release. While one of them stays retired the item fails as it does today,
    /// whatever the others do, so `r` may leave retirement alone and `q` may enter it: no
    /// move of one product changes the item's truth. (Read as "every product the rule could
    /// be true of stays", each row required moving every retired product.)
    #[test]
    fn a_failing_rule_binds_no_move_while_another_product_keeps_it_failing() {
        let retired = |yes: bool| format!("  properties:\n    retired: {yes}\n");
        let item = "  constraints:\n    - none-of:\n        \
                    - rule: \"has(properties.retired) && properties.retired\"\n";
        let catalog = crate::catalog::tests::catalog_of(&[
            ("a:a", "1.0.0", item),
            ("q:q", "1.0.0", &retired(false)),
            ("q:q", "2.0.0", &retired(true)),
            ("r:r", "1.0.0", &retired(true)),
            ("r:r", "2.0.0", &retired(false)),
            ("s:s", "1.0.0", &retired(true)),
            ("s:s", "2.0.0", &retired(false)),
        ]);
        let entities = [
            ("a:a", "1.0.0"),
            ("q:q", "1.0.0"),
            ("r:r", "1.0.0"),
            ("s:s", "1.0.0"),
        ];
        let list = check_rows(
            &catalog,
            &entities,
            false,
            &[
                "a:a 1.0.0 - - |  | ",
                "q:q 1.0.0 2.0.0 2.0.0 |  | ",
                "r:r 1.0.0 2.0.0 2.0.0 |  | ",
                "s:s 1.0.0 2.0.0 2.0.0 |  | ",
            ],
        );
        assert!(list.iter().all(|u| u.proven));
    }

    /// The same with an `all-of` of two rules that each hold by several products: `a`'s
    /// item fails today while some gold and some silver product stay as they are, so each
    /// of them may move alone. (Five ways times four ways are more than the 16 sets kept;
    /// merging them into one set every product of which must stay bound every move.)
    #[test]
    fn a_failing_all_of_stays_failing_while_one_way_of_each_member_stays() {
        let tier = |t: &str| format!("  properties:\n    tier: {t}\n");
        let rule = |t: &str| format!("            - rule: \"properties.tier == '{t}'\"\n");
        let item = format!(
            "  constraints:\n    - none-of:\n        - all-of:\n{}{}",
            rule("gold"),
            rule("silver")
        );
        let mut releases: Vec<(String, &str, String)> = vec![
            ("a:a".into(), "1.0.0", item),
            ("a:a".into(), "2.0.0", tier("bronze")),
        ];
        let mut entities = vec![("a:a".to_owned(), "1.0.0")];
        for (prefix, count, t) in [("g", 5, "gold"), ("s", 4, "silver")] {
            for i in 1..=count {
                let product = format!("{prefix}:{prefix}{i}");
                releases.push((product.clone(), "1.0.0", tier(t)));
                releases.push((product.clone(), "2.0.0", tier("bronze")));
                entities.push((product, "1.0.0"));
            }
        }
        let releases: Vec<(&str, &str, &str)> = releases
            .iter()
            .map(|(p, v, e)| (p.as_str(), *v, e.as_str()))
            .collect();
        let catalog = crate::catalog::tests::catalog_of(&releases);
        let entities: Vec<(&str, &str)> = entities.iter().map(|(p, v)| (p.as_str(), *v)).collect();
        let list = upgrades(&env(&entities), &catalog, false);
        let unsafe_rows: Vec<String> = list
            .iter()
            .filter(|u| u.safe != u.latest)
            .map(row)
            .collect();
        assert!(unsafe_rows.is_empty(), "{unsafe_rows:?}");
        assert_eq!(list.len(), 10);
        assert!(list.iter().all(|u| u.proven));
    }

    /// SPEC 10: a `requires` answer that closes a data cycle is no answer: the cycle is
    /// learnt and the next answer taken (report 2.0.0 reads nothing back), proven; where
    /// every answer closes one, the row is proven not installable and explained by the
    /// cycles.
    #[test]
    fn requires_learns_data_cycles() {
        use crate::solve::cycles::tests::pipeline;
        use crate::solve::explain::Kind;
        let (e, c) = pipeline(&[("1.0.0", true), ("2.0.0", false)]);
        let list = upgrades(&e, &c, false);
        assert_eq!(
            list.iter().map(row).collect::<Vec<_>>(),
            [
                "d:ingest 1.0.0 - 2.0.0 | d:report@2.0.0 | data-cycle",
                "d:report 1.0.0 2.0.0 2.0.0 |  | ",
            ]
        );
        assert!(list.iter().all(|u| u.proven));
        let (e, c) = pipeline(&[("1.0.0", true), ("1.1.0", true)]);
        let list = upgrades(&e, &c, false);
        assert_eq!(
            row(&list[0]),
            "d:ingest 1.0.0 - 2.0.0 |  | data-cycle (not installable)"
        );
        assert!(list[0].proven);
        let kinds: Vec<Kind> = list[0]
            .explanation
            .as_ref()
            .unwrap()
            .chain
            .iter()
            .map(|l| l.kind)
            .collect();
        assert_eq!(kinds, [Kind::Asked, Kind::Cycle, Kind::Cycle]);
    }

    /// The wiring findings a state adds, judged around what moved, are those judged over
    /// every entity: every move of one product and of two, from today and from the state
    /// where everything is at its newest, with and without a namespaced entity elsewhere.
    #[test]
    fn wiring_judged_around_the_moves_adds_what_the_whole_environment_adds() {
        let (catalog, envs) = crate::solve::wired::tests::cycle_family();
        let mut judged = 0;
        for env in &envs {
            let model = Model::build(env, &catalog, Policy::default(), &[]);
            let whole = Whole::new(env, &catalog, &model);
            let codes = |list: &[Finding]| -> Vec<String> {
                list.iter().map(|f| format!("{f:?}")).collect()
            };
            for (_, to, _) in crate::solve::wired::tests::moves_of_one_and_two(&model) {
                let every = whole.added_judged(&model, &to, false);
                judged += every.len();
                assert_eq!(
                    codes(&whole.added_judged(&model, &to, true)),
                    codes(&every),
                    "{to:?}"
                );
            }
        }
        assert!(judged > 0, "some state adds a finding");
    }

    #[test]
    fn entities_behind_the_highest_are_reported_even_with_nothing_newer() {
        // g:web runs 2.4.0, 3.0.0 and 2.5.0: the highest is 3.0.0, nothing is newer
        let c = catalog(&[
            "g:web 2.4.0",
            "g:web 2.5.0",
            "g:web 3.0.0",
            "g:db 1.0.0 | g:web 2.0.0 2.x.x",
        ]);
        let named = |entities: &[(&str, &str, &str)]| {
            let mut text = String::from("entities:\n");
            for (name, product, version) in entities {
                let _ = writeln!(
                    text,
                    "  - name: {name}\n    product: {product}\n    version: {version}"
                );
            }
            environment::parse(&text, &Arc::from("e.yml"), "e").unwrap()
        };
        let e = named(&[
            ("web-blue", "g:web", "2.4.0"),
            ("web", "g:web", "3.0.0"),
            ("web-canary", "g:web", "2.5.0"),
        ]);
        let rows = upgrades(&e, &c, false);
        let web = &rows[0];
        assert_eq!(web.installed, "3.0.0");
        assert_eq!(web.latest, None);
        assert!(
            web.outdated(),
            "lagging entities make the row worth showing"
        );
        let behind: Vec<(&str, &str)> = web
            .behind
            .iter()
            .map(|(n, v)| (n.as_str(), v.as_str()))
            .collect();
        assert_eq!(behind, [("web-blue", "2.4.0"), ("web-canary", "2.5.0")]);
        assert_eq!(web.align, Some(true));
        // a db that needs web 2.x makes aligning on 3.0.0 break something
        let e = named(&[
            ("web-blue", "g:web", "2.4.0"),
            ("web", "g:web", "3.0.0"),
            ("db", "g:db", "1.0.0"),
        ]);
        let rows = upgrades(&e, &c, false);
        let web = rows
            .iter()
            .find(|u| u.product.to_string() == "g:web")
            .unwrap();
        assert_eq!(web.align, Some(false));
        // one version everywhere: nothing behind
        let e = named(&[("web-1", "g:web", "3.0.0"), ("web-2", "g:web", "3.0.0")]);
        let rows = upgrades(&e, &c, false);
        assert!(rows[0].behind.is_empty() && rows[0].align.is_none());
        assert!(!rows[0].outdated());
    }

    #[test]
    fn a_pinned_product_never_moves_and_says_so() {
        let c = catalog(&[
            "g:a 1.0.0",
            "g:a 1.1.0",
            "g:a 2.0.0",
            "g:b 1.0.0",
            "g:b 1.2.0",
        ]);
        let mut e = env(&[("g:a", "1.0.0"), ("g:b", "1.0.0")]);
        let rows = upgrades(&e, &c, false);
        assert!(rows.iter().all(|u| !u.pinned));
        assert_eq!(rows[0].safe.as_deref(), Some("2.0.0"));
        e.policy.pin.insert(ProductId::parse("g:a").unwrap());
        let rows = upgrades(&e, &c, false);
        let a = &rows[0];
        assert!(a.pinned);
        assert_eq!(a.safe, None);
        assert_eq!(a.latest.as_deref(), Some("2.0.0"), "what the pin keeps out");
        assert!(!a.latest_installable);
        assert!(a.requires.is_empty() && a.blocked_by.is_empty());
        // the other product is untouched by the pin
        assert!(!rows[1].pinned);
        assert_eq!(rows[1].safe.as_deref(), Some("1.2.0"));
    }

    /// SPEC 9.3: a newer release whose runtime requirement the environment's runtime fails
    /// is `latest` (a candidate by section 7), never `safe`, blocked by a `runtime-mismatch`
    /// with nothing to co-upgrade; one the policy leaves out is no candidate at all.
    #[test]
    fn a_release_the_runtime_rules_out_is_latest_but_never_safe() {
        let release = |version: &str, minimum: &str, extra: &str| {
            format!(
                "manifest-version: '1.0'\nproduct-group: g\nproduct-name: kube\n\
                 product-version: {version}\nextensions:\n  runtime-requirements:\n    \
                 - name: kubernetes\n      minimum-version: {minimum}\n{extra}---\n"
            )
        };
        let catalog = |newest_extra: &str| {
            let text = [
                release("1.0.0", "1.27.0", ""),
                release("1.5.0", "1.28.0", ""),
                release("2.0.0", "1.30.0", newest_extra),
            ]
            .concat();
            Catalog::from_manifests(manifest::parse(&text, &Arc::from("c.yml")).unwrap()).unwrap()
        };
        let env = |runtime: &str, policy: &str| {
            let text = format!(
                "{runtime}{policy}entities:\n  - name: thing\n    product: g:kube\n    \
                 version: 1.0.0\n"
            );
            environment::parse(&text, &Arc::from("e.yml"), "e").unwrap()
        };
        let on = |version: &str| format!("runtime:\n  kubernetes: {version}\n");
        let plain = catalog("");
        let rows = upgrades(&env(&on("1.29.0"), ""), &plain, false);
        let u = &rows[0];
        assert_eq!(
            row(u),
            "g:kube 1.0.0 1.5.0 2.0.0 |  | runtime-mismatch (not installable)"
        );
        let f = &u.blocked_by[0];
        assert_eq!(
            f.message,
            "g:kube 2.0.0 requires runtime kubernetes >=1.30.0; the environment runs 1.29.0"
        );
        assert_eq!(f.entity.as_deref(), Some("thing"));
        assert_eq!(f.version.as_deref(), Some("2.0.0"));
        assert_eq!(f.dependency_name.as_deref(), Some("kubernetes"));
        assert_eq!(f.found.as_deref(), Some("1.29.0"));
        assert_eq!(f.minimum.as_deref(), Some("1.30.0"));
        assert_eq!(
            f.location.as_ref().map(|l| l.location.line),
            Some(25),
            "at the requirement"
        );
        assert!(u.proven && u.explanation.is_some());
        // a runtime that fits, or none declared (the tool cannot know): an ordinary candidate
        for runtime in [on("1.30.0"), String::new()] {
            let rows = upgrades(&env(&runtime, ""), &plain, false);
            assert_eq!(
                row(&rows[0]),
                "g:kube 1.0.0 2.0.0 2.0.0 |  | ",
                "{runtime:?}"
            );
        }
        // every release ruled out: latest, and nothing safe
        let rows = upgrades(&env(&on("1.27.5"), ""), &plain, false);
        assert_eq!(
            row(&rows[0]),
            "g:kube 1.0.0 - 2.0.0 |  | runtime-mismatch (not installable)"
        );
        // deprecated or excluded by policy: no candidate, so not latest either
        let deprecated = catalog("  deprecated: true\n");
        let rows = upgrades(&env(&on("1.29.0"), ""), &deprecated, false);
        assert_eq!(row(&rows[0]), "g:kube 1.0.0 1.5.0 1.5.0 |  | ");
        let excluding =
            "policy:\n  exclude:\n    - product: g:kube\n      minimum-version: 2.0.0\n";
        let rows = upgrades(&env(&on("1.29.0"), excluding), &plain, false);
        assert_eq!(row(&rows[0]), "g:kube 1.0.0 1.5.0 1.5.0 |  | ");
        // pinned: latest is what it would be without the pin
        let pinning = "policy:\n  pin: [g:kube]\n";
        let rows = upgrades(&env(&on("1.29.0"), pinning), &plain, false);
        assert!(rows[0].pinned);
        assert_eq!(rows[0].latest.as_deref(), Some("2.0.0"));
    }

    #[test]
    fn a_bridge_release_is_safe_where_the_newest_is_not() {
        check(
            &[
                "g:db 1.0.0",
                "g:db 2.0.0",
                "g:app 1.0.0 g:db 1.0.0 1.x.x",
                "g:app 1.5.0 g:db 1.0.0 2.x.x",
                "g:app 2.0.0 g:db 2.0.0 2.x.x",
            ],
            &[("g:db", "1.0.0"), ("g:app", "1.0.0")],
            false,
            &[
                "g:app 1.0.0 1.5.0 2.0.0 | g:db@2.0.0 | version-too-low",
                "g:db 1.0.0 - 2.0.0 | g:app@1.5.0 | version-too-high",
            ],
        );
    }

    #[test]
    fn a_blocked_upgrade_can_need_two_co_upgrades() {
        check(
            &[
                "g:a 1.0.0",
                "g:a 2.0.0 g:b 2.0.0 2.x.x | g:c 2.0.0 2.x.x",
                "g:b 1.0.0",
                "g:b 2.0.0",
                "g:c 1.0.0",
                "g:c 2.0.0",
            ],
            &[("g:a", "1.0.0"), ("g:b", "1.0.0"), ("g:c", "1.0.0")],
            false,
            &[
                "g:a 1.0.0 - 2.0.0 | g:b@2.0.0 g:c@2.0.0 | version-too-low version-too-low",
                "g:b 1.0.0 2.0.0 2.0.0 |  | ",
                "g:c 1.0.0 2.0.0 2.0.0 |  | ",
            ],
        );
    }

    #[test]
    fn missing_products_optional_dependencies_and_incompatibilities_block() {
        check(
            &[
                "g:a 1.0.0",
                "g:a 2.0.0 g:ghost 1.0.0 1.x.x",
                "g:b 1.0.0 g:a 1.0.0 1.x.x optional",
                "g:c 1.0.0",
                "g:c 2.0.0 g:a 1.0.0 1.x.x incompatible",
            ],
            &[("g:a", "1.0.0"), ("g:b", "1.0.0"), ("g:c", "1.0.0")],
            false,
            &[
                "g:a 1.0.0 - 2.0.0 |  | missing-dependency version-too-high (not installable)",
                "g:b 1.0.0 - - |  | ",
                "g:c 1.0.0 - 2.0.0 |  | incompatible-release (not installable)",
            ],
        );
    }

    #[test]
    fn release_candidates_only_with_pre() {
        let lines = [
            "g:a 1.0.0",
            "g:a 1.1.0",
            "g:a 2.0.0-rc1",
            "g:a 1.1.0-3-gabc",
        ];
        check(
            &lines,
            &[("g:a", "1.0.0")],
            false,
            &["g:a 1.0.0 1.1.0 1.1.0 |  | "],
        );
        check(
            &lines,
            &[("g:a", "1.0.0")],
            true,
            &["g:a 1.0.0 2.0.0-rc1 2.0.0-rc1 |  | "],
        );
    }

    #[test]
    fn installed_is_the_highest_entity() {
        let lines = ["g:a 1.0.0", "g:a 1.2.0", "g:a 1.5.0"];
        let mut e = env(&[("g:a", "1.0.0")]);
        let mut second = e.entities[0].clone();
        second.name = "a-2".into();
        second.version = crate::version::Version::parse("1.2.0").unwrap();
        e.entities.push(second);
        let list = upgrades(&e, &catalog(&lines), false);
        assert_eq!(row(&list[0]), "g:a 1.2.0 1.5.0 1.5.0 |  | ");
    }

    /// The rows of [`upgrades_reporting`] over `lines` with db, app and web installed at
    /// 1.0.0, and what a sink reporting at `every` (at its default pace: `None`) was told, as
    /// (stage, done, total).
    fn reported(
        lines: &[&str],
        every: Option<std::time::Duration>,
    ) -> (Vec<Upgrade>, Vec<(&'static str, usize, usize)>) {
        use crate::plan::{Progress, ProgressSink};
        let seen = Arc::new(std::sync::Mutex::new(Vec::new()));
        let sink = {
            let seen = Arc::clone(&seen);
            ProgressSink::new(move |p: &Progress| seen.lock().unwrap().push(*p))
        };
        let sink = match every {
            Some(every) => sink.every(every),
            None => sink,
        };
        let entities = [("g:db", "1.0.0"), ("g:app", "1.0.0"), ("g:web", "1.0.0")];
        let (env, catalog) = (env(&entities), catalog(lines));
        let engine = crate::solve::default_engine();
        let list = upgrades_reporting(&env, &catalog, false, engine, None, None, Some(sink));
        let done = seen
            .lock()
            .unwrap()
            .iter()
            .map(|p| (p.stage, p.done, p.total))
            .collect();
        (list, done)
    }

    #[test]
    fn progress_counts_every_examined_product() {
        let lines = [
            "g:db 1.0.0",
            "g:db 2.0.0",
            "g:app 1.0.0 g:db 1.0.0 1.x.x",
            "g:app 2.0.0 g:db 2.0.0 2.x.x",
            "g:web 1.0.0",
        ];
        // at the default pace a quick run says nothing
        let (quiet, said) = reported(&lines, None);
        assert!(said.is_empty(), "{said:?}");
        let (told, done) = reported(&lines, Some(std::time::Duration::ZERO));
        assert_eq!(told, quiet, "reporting does not change the rows");
        let examining = |d| ("examining products", d, 3);
        assert_eq!(done, [examining(1), examining(2), examining(3)]);
    }

    /// The explanations of latest releases out of reach count as a stage of their own,
    /// from none to every question (they were left at none for as long as they ran).
    #[test]
    fn progress_counts_explained_releases_after_the_examined_products() {
        // db 2.0.0 breaks web, which cannot move; app 2.0.0 needs db 2.0.0
        let lines = [
            "g:db 1.0.0",
            "g:db 2.0.0",
            "g:app 1.0.0 g:db 1.0.0 1.x.x",
            "g:app 2.0.0 g:db 2.0.0 2.x.x",
            "g:web 1.0.0 g:db 1.0.0 1.x.x",
        ];
        let (list, done) = reported(&lines, Some(std::time::Duration::ZERO));
        let unreachable = list.iter().filter(|u| u.explanation.is_some()).count();
        assert_eq!(unreachable, 2, "{list:?}");
        let examining = |d| ("examining products", d, 3);
        let explaining = |d| ("explaining unreachable releases", d, 2);
        assert_eq!(
            done,
            [
                examining(1),
                examining(2),
                examining(3),
                explaining(0),
                explaining(2)
            ]
        );
    }
}
