//! Data cycles in planned states (SPEC 10): a state whose data edges close a cycle cannot be
//! installed, so it is no valid answer. No pair of products can say so (a cycle runs through
//! any number of them), so plans, `upgrades`' `requires` and the explanations learn it from
//! the answers: when an answer closes a data cycle, the values that decide the cycle's edges
//! are forbidden together (a [`Nogood`] in [`crate::solve::Query::forbid`]) and the question
//! is asked again ([`Learnt::solve`]), until an answer closes none or none is left.
//!
//! - **Sound:** the edges of a cycle are decided by the releases its members run (their
//!   requirements and inputs, and which entities of a required product serve them: placement
//!   is fixed, a plan removes no entity) and, for a capability, by which entities provide it
//!   (every product that provides the capability in some release). The nogood holds exactly
//!   those products at the answer's values, so every state it forbids has the same cycle.
//!   It holds whatever the policy, so an explanation may name it beside `--pre` or
//!   `--allow-downgrade`.
//! - **Terminates:** each nogood forbids the answer it was learnt from; there are finitely
//!   many states.
//! - **Cheap where nothing can close:** only an answer that moves a product at
//!   [`crate::solve::wired::Risk`] can close a new cycle, so only those are looked at, and
//!   only around the products moved since a state with no cycle (a world over the entities
//!   of their product-level components and what serves them, as
//!   [`Model::state_wiring_around`] judges). Where no product is at risk nothing is learnt
//!   and every question is asked once, as before.
//! - **Installs:** with `--allow-install` where no entity is placed, a product the state
//!   installs is the one global entity it becomes ([`Model::install_entity`]), known from its
//!   value alone, so its cycles are learnt like any others.
//! - **Whole states:** with `--allow-install` where entities are placed, the entities
//!   created for empty serving sets, and so the edges, depend on the whole state: a plan
//!   hands its creations over ([`Learnt::creating`]), the answer it settles on is judged over
//!   every entity, created ones included, and what that closes forbids that one state
//!   (every product's value) before the plan is asked again, at most [`WHOLE_STATES`] times
//!   ([`Learnt::refuse_whole`]).
//! - **Not learnt** (the answer is judged as a whole, and a cycle there makes it not proven):
//!   when today's environment has a data cycle (a plan reports it and fails: SPEC 10), and
//!   past the whole states' bound.
//! - **Explained:** the conflict search takes each nogood as a part of the question
//!   ([`crate::solve::conflict::Cause::Learnt`]), so a target blocked by a cycle is explained
//!   by it, in the words kept with it.

use std::cell::{Cell, OnceCell, RefCell};
use std::collections::BTreeMap;

use crate::instance::{Placement, Requirement};
use crate::manifest::Manifest;
use crate::precedence::Node;
use crate::solve::model::Created;
use crate::solve::wired::capability_faults;
use crate::solve::{Engine, Model, Outcome, Query, Value};
use crate::version::Version;

/// Values that may not all hold at once, and why (a data cycle, in words).
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Nogood {
    /// (product, value) pairs, by product.
    pub values: Vec<(usize, Value)>,
    /// What the values close, in words: "d:ingest 2.0.0 with d:report 1.0.0 closes a data
    /// cycle: ...".
    pub reason: String,
    /// What kind of finding the values make.
    pub refusal: Refusal,
}

/// Why a state is no answer that no pair of products can say.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Refusal {
    /// Its data edges close a cycle (`data-cycle`).
    Cycle,
    /// An input wired from a capability is left unfed (`missing-output`, `unfed-input`): its
    /// source is the best of several products' providers.
    Unfed,
}

impl Refusal {
    /// What the values do, between them and the finding in a nogood's reason.
    fn joint(self) -> &'static str {
        match self {
            Refusal::Cycle => " closes a data cycle: ",
            Refusal::Unfed => " leaves an input unfed: ",
        }
    }

    /// What states with such values do, before the finding: "close a data cycle".
    fn verb(self) -> &'static str {
        match self {
            Refusal::Cycle => "close a data cycle",
            Refusal::Unfed => "leave an input unfed",
        }
    }
}

/// What a state creates (SPEC 10's reuse before create), worked out by the plan: the
/// entities created for empty serving sets, with where they stand.
pub type Creations<'c> = dyn Fn(&[Value]) -> Vec<Created> + 'c;

/// How many whole states one [`Learnt`] refuses before it leaves the rest to the judgement
/// of the final state ([`Learnt::refuse_whole`]): each forbids one state only.
const WHOLE_STATES: usize = 32;

/// The nogoods learnt so far for one question or one plan (see the module docs). Not shared
/// between threads: each `upgrades` row, and each explanation, learns its own, so an answer
/// never depends on what another row happened to learn first.
pub struct Learnt<'c> {
    nogoods: RefCell<Vec<Nogood>>,
    active: bool,
    /// Where entities are placed and may be created: what a state creates
    /// ([`Learnt::creating`]).
    creations: Option<&'c Creations<'c>>,
    /// How many whole states were refused so far.
    wholes: Cell<usize>,
    /// Whether today's environment has a data cycle: given, or judged from the model when an
    /// answer first asks.
    today: OnceCell<bool>,
    /// The last answer [`Learnt::solve`] gave, which closes no data cycle: a question that
    /// starts from it (`--all` asks one per improvement) looks for new cycles only around
    /// what moved since.
    last: RefCell<Option<Vec<Value>>>,
}

impl<'c> Learnt<'c> {
    /// Learning for `model`, unless no move can close a data cycle (no product is at
    /// [`crate::solve::wired::Risk`]), installing is allowed among placed entities (see
    /// [`Learnt::creating`]), or today's environment has a data cycle already
    /// (`cycles_today`).
    #[must_use]
    pub fn new(model: &Model<'_>, cycles_today: bool) -> Self {
        Learnt {
            nogoods: RefCell::new(Vec::new()),
            active: model.wiring_at_risk() && model.entities_known(),
            creations: None,
            wholes: Cell::new(0),
            today: OnceCell::from(cycles_today),
            last: RefCell::new(None),
        }
    }

    /// This learning, where `--allow-install` among placed entities makes what a state
    /// creates depend on the whole state: `creations` works it out for
    /// [`Learnt::refuse_whole`]. Where nothing is placed, [`Model::install_entity`] already
    /// makes learning exact, and this changes nothing.
    #[must_use]
    pub fn creating(self, creations: &'c Creations<'c>) -> Learnt<'c> {
        Learnt {
            creations: Some(creations),
            ..self
        }
    }

    /// Where what a state creates depends on the whole state ([`Learnt::creating`]): whether
    /// `values`, a plan's final answer, closes a data cycle or leaves an input from a
    /// capability unfed among all of its entities, created ones included. If so, that one
    /// state is refused (a nogood over every product's value, sound whatever the state
    /// creates) and the plan is to be asked again; at most [`WHOLE_STATES`] times, after which
    /// the final state's validation alone says the plan is not proven. Judged once per
    /// answer the plan settles on, not per question: judging every answer of `--all` over
    /// every entity was quadratic (1,000 pairs in their own namespaces: 0.18 -> 4.4 s).
    pub fn refuse_whole(&self, model: &Model<'_>, values: &[Value]) -> bool {
        let Some(create) = self.creations else {
            return false;
        };
        if model.entities_known()
            || !model.wiring_at_risk()
            || self.wholes.get() >= WHOLE_STATES
            || self.today.get() == Some(&true)
        {
            return false;
        }
        let today = model.current();
        let mut learnt = refusals(model, values, None, &today, &create(values), || {
            create(&today)
        });
        if learnt.is_empty() {
            return false;
        }
        self.wholes.set(self.wholes.get() + 1);
        let whole: Vec<(usize, Value)> = values.iter().copied().enumerate().collect();
        for r in &mut learnt {
            r.nogood.values.clone_from(&whole);
        }
        self.nogoods
            .borrow_mut()
            .extend(learnt.into_iter().map(|r| r.nogood));
        true
    }

    /// [`Learnt::new`] where no validation of today is at hand: today's cycles are judged
    /// from the model (the state where every product keeps its entities), once, when an
    /// answer first moves a product at risk.
    #[must_use]
    pub fn judging_today(model: &Model<'_>) -> Self {
        Learnt {
            today: OnceCell::new(),
            ..Learnt::new(model, false)
        }
    }

    /// Whether anything can be learnt per answer here (a move can close a data cycle, the
    /// entities of every state are known from its values, and today has no data cycle, as
    /// far as known).
    #[must_use]
    pub fn active(&self) -> bool {
        self.active && self.today.get() != Some(&true)
    }

    /// The nogoods learnt so far, for the next question.
    #[must_use]
    pub fn forbid(&self) -> Vec<Nogood> {
        self.nogoods.borrow().clone()
    }

    /// Whether `values` closes a data cycle not learnt yet; if so, it is learnt. `clean` is a
    /// state with no data cycle (today's values, or an earlier answer): a new cycle runs
    /// through a product moved since, so only answers that move one at risk are looked at,
    /// and only around the moved products ([`crate::solve::wired::Risk`]'s scope: looking
    /// at every entity for each answer was quadratic in `--all`).
    pub fn learn(&self, model: &Model<'_>, clean: &[Value], values: &[Value]) -> bool {
        let moved: Vec<usize> = (0..values.len())
            .filter(|&p| values[p] != clean[p])
            .collect();
        if !self.active
            || !moved.iter().any(|&p| model.wiring_risk(p))
            || *self
                .today
                .get_or_init(|| !nogoods(model, &model.current(), None, None, &[]).is_empty())
        {
            return false;
        }
        let today = model.current();
        let learnt = refusals(model, values, Some(&moved), &today, &[], Vec::new);
        let found = !learnt.is_empty();
        self.nogoods
            .borrow_mut()
            .extend(learnt.into_iter().map(|r| r.nogood));
        found
    }

    /// `query` answered by `engine`, an answer that closes a data cycle refused: its cycle is
    /// learnt and the question asked again (with every nogood learnt so far), until an
    /// answer closes none, or there is none (`current`: today's values).
    pub fn solve(
        &self,
        engine: &dyn Engine,
        model: &Model<'_>,
        current: &[Value],
        mut query: Query<'_>,
    ) -> Outcome {
        let baseline = query.baseline;
        let clean = if self.last.borrow().as_deref() == Some(baseline) {
            baseline
        } else {
            current
        };
        loop {
            query.forbid = self.forbid();
            let outcome = engine.solve(model, &query);
            match &outcome {
                Outcome::Found(values) if self.learn(model, clean, values) => {}
                Outcome::Found(values) => {
                    if self.active {
                        *self.last.borrow_mut() = Some(values.clone());
                    }
                    return outcome;
                }
                _ => return outcome,
            }
        }
    }

    /// What the states learnt so far do, in words, each once, as the end of "states that
    /// reach it ...": "close a data cycle: ingest, report would feed data into one another
    /// in a cycle, ...". Why answers were refused.
    #[must_use]
    pub fn said(&self) -> Vec<String> {
        let mut said: Vec<String> = Vec::new();
        for nogood in self.nogoods.borrow().iter() {
            let refusal = nogood.refusal;
            let finding = nogood
                .reason
                .split_once(refusal.joint())
                .map_or(nogood.reason.as_str(), |(_, words)| words);
            let words = format!("{}: {finding}", refusal.verb());
            if !said.contains(&words) {
                said.push(words);
            }
        }
        said
    }
}

/// A nogood learnt from a state, with the finding in words and whether it may be one today
/// has too (see [`Learnt::learn`]).
struct Refused {
    nogood: Nogood,
    words: String,
    /// An unfed input whose consumer and source products keep today's values.
    tolerable: bool,
}

/// [`nogoods`] (with the entities `created` there) less the inputs left unfed today whose
/// consumer and source keep today's releases: tolerated, as a dependency broken today is
/// (`solve::wired`), when the same finding is there today (`today`, creating what
/// `created_today` works out, only when some finding may be tolerated), around the same
/// moves.
fn refusals(
    model: &Model<'_>,
    values: &[Value],
    moved: Option<&[usize]>,
    today: &[Value],
    created: &[Created],
    created_today: impl FnOnce() -> Vec<Created>,
) -> Vec<Refused> {
    let mut learnt = nogoods(model, values, moved, Some(today), created);
    if learnt.iter().any(|r| r.tolerable) {
        let created_today = created_today();
        let before: Vec<String> = nogoods(model, today, moved, Some(today), &created_today)
            .into_iter()
            .filter(|r| r.nogood.refusal == Refusal::Unfed)
            .map(|r| r.words)
            .collect();
        learnt.retain(|r| !(r.tolerable && before.contains(&r.words)));
    }
    learnt
}

/// One nogood per data cycle among the entities as `values` has them, with the cycle in
/// words, and with `today` (today's values) one per input wired from a capability they
/// leave unfed; with `moved`, only those a move of those products can make (those around
/// them, judged over the entities that can take part: [`Model::state_wiring_around`]'s
/// reasoning), which are all of them when the state before the moves had none. The entities
/// `created` stand beside the others, where they were created.
fn nogoods(
    model: &Model<'_>,
    values: &[Value],
    moved: Option<&[usize]>,
    today: Option<&[Value]>,
    created: &[Created],
) -> Vec<Refused> {
    let scope = moved.and_then(|moved| model.wiring_scope(moved));
    let seen = |p: usize| scope.as_ref().is_none_or(|(_, seen)| seen[p]);
    let inside = |p: usize| scope.as_ref().is_none_or(|(inside, _)| inside[p]);
    let entities = |p: usize| entities_of(model, values, p);
    let mut running: Vec<(&str, usize, &crate::version::Version, _)> = (0..model.vars.len())
        .filter(|&p| seen(p))
        .flat_map(entities)
        .collect();
    if let Some((_, seen)) = &scope {
        let witnesses =
            model.wiring_witnesses(seen, |p| entities(p).map(|(name, _, _, m)| (name, m)));
        for (p, name) in witnesses {
            running.extend(entities(p).filter(|e| e.0 == name));
        }
    }
    running.extend(created.iter().filter_map(|c| {
        let (version, release) = model.vars[c.var].created(values[c.var])?;
        Some((c.name.as_str(), c.var, version, release))
    }));
    running.sort_unstable_by_key(|r| r.0);
    let placements: BTreeMap<&str, &Placement> = created
        .iter()
        .map(|c| (c.name.as_str(), &c.placement))
        .collect();
    let nodes: Vec<Node<'_>> = running
        .iter()
        .map(|&(name, p, version, release)| Node {
            name,
            product: &model.vars[p].product,
            version,
            release,
            placement: placements
                .get(name)
                .copied()
                .unwrap_or_else(|| model.placement_of(name)),
        })
        .collect();
    let mut providers = Providers::default();
    let mut out = Vec::new();
    for members in crate::order::data_cycles_among(&nodes, |m| inside(running[m].1)) {
        let mut products: Vec<usize> = members.iter().map(|&m| running[m].1).collect();
        for &m in &members {
            let Some(release) = running[m].3.filter(|r| r.facets.is_some()) else {
                continue;
            };
            let facets = release.facets();
            let named = facets.requires.iter().map(|r| r.name.as_str()).chain(
                facets.inputs.iter().filter_map(|i| match &i.from {
                    Requirement::Capability(c) => Some(c.as_str()),
                    Requirement::Product(_) => None,
                }),
            );
            for name in named {
                products.extend(providers.of(model, name));
            }
        }
        let names: Vec<&str> = members.iter().map(|&m| running[m].0).collect();
        let words = format!(
            "{} would feed data into one another in a cycle, so none of them could be installed \
             first",
            names.join(", ")
        );
        out.push(refused(
            model,
            values,
            products,
            Refusal::Cycle,
            words,
            false,
        ));
    }
    let Some(today) = today else {
        return out;
    };
    for fault in capability_faults(&nodes, model.runtime, |m| inside(running[m].1)) {
        let consumer = running[fault.consumer].1;
        let source = fault.source.map(|s| running[s].1);
        let tolerable = std::iter::once(consumer)
            .chain(source)
            .all(|p| values[p] == today[p]);
        let mut products = vec![consumer];
        products.extend(providers.of(model, fault.capability));
        out.push(refused(
            model,
            values,
            products,
            Refusal::Unfed,
            fault.words,
            tolerable,
        ));
    }
    out
}

/// Each entity of `p` as `values` has it: (name, product, version, release). A product the
/// state installs is the one global entity it becomes, where that is known
/// ([`Model::install_entity`]).
fn entities_of<'m, 'a>(
    model: &'m Model<'a>,
    values: &'m [Value],
    p: usize,
) -> impl Iterator<Item = (&'m str, usize, &'a Version, Option<&'a Manifest>)> + 'm {
    let var = &model.vars[p];
    // a product not installed is absent or runs a release: the install runs that release
    let install = model
        .install_entity(p)
        .zip(var.created(values[p]))
        .map(|(name, (version, release))| (name, p, version, release));
    var.current
        .iter()
        .filter_map(move |c| {
            let name = c.entity?;
            match values[p] {
                Value::Keep => Some((name, p, c.version, c.manifest)),
                Value::Release(i) => {
                    let m = &var.releases[i];
                    Some((name, p, &m.version, Some(&**m)))
                }
                Value::Absent => None,
            }
        })
        .chain(install)
}

/// The nogood holding `products` at `values`, which make the finding `words`.
fn refused(
    model: &Model<'_>,
    values: &[Value],
    mut products: Vec<usize>,
    refusal: Refusal,
    words: String,
    tolerable: bool,
) -> Refused {
    products.sort_unstable();
    products.dedup();
    let held: Vec<(usize, Value)> = products.into_iter().map(|p| (p, values[p])).collect();
    let which: Vec<String> = held
        .iter()
        .map(|&(p, v)| value_words(model, p, v))
        .collect();
    Refused {
        nogood: Nogood {
            reason: format!("{}{}{words}", which.join(" with "), refusal.joint()),
            values: held,
            refusal,
        },
        words,
        tolerable,
    }
}

/// Product `p` at `value`, in words: `d:report 1.0.0`, `d:report as installed` (entities on
/// several versions kept), `d:report absent`.
fn value_words(model: &Model<'_>, p: usize, value: Value) -> String {
    let var = &model.vars[p];
    match (value, var.version(value)) {
        (Value::Absent, _) => format!("{} absent", var.product),
        (Value::Keep, Some(v)) if var.current.iter().all(|c| c.version == v) => {
            format!("{} {v}", var.product)
        }
        (Value::Keep, _) => format!("{} as installed", var.product),
        (Value::Release(_), v) => format!(
            "{} {}",
            var.product,
            v.map_or_else(String::new, ToString::to_string)
        ),
    }
}

/// The products some release of which provides each capability asked about, worked out once
/// per capability.
#[derive(Default)]
struct Providers<'m>(BTreeMap<&'m str, Vec<usize>>);

impl<'m> Providers<'m> {
    /// The products providing capability `name`.
    fn of(&mut self, model: &Model<'_>, name: &'m str) -> &[usize] {
        self.0.entry(name).or_insert_with(|| {
            (0..model.vars.len())
                .filter(|&q| {
                    model.vars[q].every_manifest().any(|m| {
                        m.facets.is_some() && m.facets().provides.iter().any(|c| c.name == name)
                    })
                })
                .collect()
        })
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use std::fmt::Write;
    use std::sync::Arc;

    use super::*;
    use crate::catalog::Catalog;
    use crate::environment::{self, Environment};
    use crate::solve::explain::{Context, Kind, Pick};
    use crate::solve::model::Policy;
    use crate::solve::{Fewest, sat::Sat};

    /// Two stages: `d:ingest` 1.0.0 reads nothing, 2.0.0 reads `d:report`'s summary; each
    /// `d:report` release of `reports` reads ingest's records when its flag says so. Today
    /// both run 1.0.0.
    pub(crate) fn pipeline(reports: &[(&str, bool)]) -> (Environment, Catalog) {
        let mut text = String::from(
            "manifest-version: '1.0'\nproduct-group: d\nproduct-name: ingest\n\
             product-version: 1.0.0\nextensions:\n  outputs: [records]\n---\n\
             manifest-version: '1.0'\nproduct-group: d\nproduct-name: ingest\n\
             product-version: 2.0.0\nextensions:\n  product-dependencies:\n    - \
             {product-group: d, product-name: report, minimum-version: 1.0.0, \
             maximum-version: 2.x.x, optional: true}\n  outputs: [records]\n  inputs:\n    - \
             {name: hints, from: 'd:report', output: summary, optional: true}\n",
        );
        for (version, reads) in reports {
            let _ = write!(
                text,
                "---\nmanifest-version: '1.0'\nproduct-group: d\nproduct-name: report\n\
                 product-version: {version}\nextensions:\n  product-dependencies:\n    - \
                 {{product-group: d, product-name: ingest, minimum-version: 1.0.0, \
                 maximum-version: 2.x.x, optional: true}}\n  outputs: [summary]\n"
            );
            if *reads {
                text.push_str(
                    "  inputs:\n    - {name: records, from: 'd:ingest', output: records, \
                     optional: true}\n",
                );
            }
        }
        let manifests = crate::manifest::parse(&text, &Arc::from("c.yml")).unwrap();
        let env = environment::parse(
            "entities:\n  - {name: ingest, product: 'd:ingest', version: 1.0.0}\n  \
             - {name: report, product: 'd:report', version: 1.0.0}\n",
            &Arc::from("e.yml"),
            "e",
        )
        .unwrap();
        (env, Catalog::from_manifests(manifests).unwrap())
    }

    /// ingest 2.0.0 asked for, the fewest changes.
    fn ingest_2(current: &[Value]) -> Query<'_> {
        Query {
            baseline: current,
            restrict: vec![(0, vec![Value::Release(1)])],
            frozen: 0,
            objective: Some(Fewest::default()),
            deadline: None,
            forbid: Vec::new(),
        }
    }

    const CYCLE: &str = "ingest, report would feed data into one another in a cycle, so none of \
                         them could be installed first";

    /// The fewest changes would keep report 1.0.0, which closes a cycle with ingest 2.0.0:
    /// learnt, the answer moves report to 2.0.0, which reads nothing back.
    #[test]
    fn an_answer_that_closes_a_cycle_is_learnt_and_the_next_one_taken() {
        let (env, catalog) = pipeline(&[("1.0.0", true), ("2.0.0", false)]);
        let model = Model::build(&env, &catalog, Policy::default(), &[]);
        let current = model.current();
        assert_eq!(
            Sat.solve(&model, &ingest_2(&current)),
            Outcome::Found(vec![Value::Release(1), Value::Keep])
        );
        let learnt = Learnt::new(&model, false);
        assert_eq!(
            learnt.solve(&Sat, &model, &current, ingest_2(&current)),
            Outcome::Found(vec![Value::Release(1), Value::Release(1)])
        );
        assert_eq!(learnt.said(), [format!("close a data cycle: {CYCLE}")]);
        let reasons: Vec<String> = learnt.forbid().into_iter().map(|n| n.reason).collect();
        assert_eq!(
            reasons,
            [format!(
                "d:ingest 2.0.0 with d:report 1.0.0 closes a data cycle: {CYCLE}"
            )]
        );
    }

    /// Every report release reads ingest's records: every state with ingest 2.0.0 closes a
    /// cycle, so the question is infeasible (proven), and the explanation names the cycles.
    #[test]
    fn a_target_blocked_by_cycles_alone_is_infeasible_and_explained_by_them() {
        let (env, catalog) = pipeline(&[("1.0.0", true), ("1.1.0", true)]);
        let model = Model::build(&env, &catalog, Policy::default(), &[]);
        let current = model.current();
        let learnt = Learnt::judging_today(&model);
        assert!(learnt.active());
        assert_eq!(
            learnt.solve(&Sat, &model, &current, ingest_2(&current)),
            Outcome::Infeasible
        );
        assert_eq!(learnt.forbid().len(), 2);
        let context = Context {
            env: &env,
            catalog: &catalog,
            engine: &Sat,
            deadline: None,
            reload: None,
        };
        let version = crate::version::Version::parse("2.0.0").unwrap();
        let asked = vec![(model.vars[0].product.clone(), vec![Pick::Version(version)])];
        let why = crate::solve::explain::why(&context, &model, &asked).unwrap();
        let links: Vec<(Kind, &str)> = why
            .chain
            .iter()
            .map(|l| (l.kind, l.text.as_str()))
            .collect();
        assert_eq!(
            links,
            [
                (Kind::Asked, "asked for: d:ingest 2.0.0"),
                (
                    Kind::Cycle,
                    &*format!("d:ingest 2.0.0 with d:report 1.0.0 closes a data cycle: {CYCLE}")
                ),
                (
                    Kind::Cycle,
                    &*format!("d:ingest 2.0.0 with d:report 1.1.0 closes a data cycle: {CYCLE}")
                ),
            ]
        );
        assert!(why.fixes.is_empty() && why.minimal);
    }

    /// `g:redis` 1.0.0 and 2.0.0 and `g:valkey` 1.0.0 and 2.0.0 provide `cache`; only redis
    /// 1.0.0 declares output `url`, which `g:app` 1.0.0 reads through the capability (2.0.0
    /// reads nothing). Where both run, redis serves app. Today runs `installed` (name and
    /// version of one entity per product).
    fn cache(installed: &[(&str, &str)]) -> (Environment, Catalog) {
        let mut text = String::new();
        for (product, version, outputs) in [
            ("redis", "1.0.0", "[url]"),
            ("redis", "2.0.0", "[]"),
            ("valkey", "1.0.0", "[]"),
            ("valkey", "2.0.0", "[]"),
        ] {
            let _ = write!(
                text,
                "---\nmanifest-version: '1.0'\nproduct-group: g\nproduct-name: {product}\n\
                 product-version: {version}\nextensions:\n  capabilities:\n    provides: \
                 [{{name: cache}}]\n  outputs: {outputs}\n"
            );
        }
        for (version, reads) in [
            (
                "1.0.0",
                "\n    - {name: cache-url, from: cache, output: url}",
            ),
            ("2.0.0", " []"),
        ] {
            let _ = write!(
                text,
                "---\nmanifest-version: '1.0'\nproduct-group: g\nproduct-name: app\n\
                 product-version: {version}\nextensions:\n  capabilities:\n    requires: \
                 [{{name: cache}}]\n  inputs:{reads}\n"
            );
        }
        let manifests = crate::manifest::parse(&text, &Arc::from("c.yml")).unwrap();
        let mut entities = String::from("entities:\n");
        for (name, version) in installed {
            let _ = writeln!(
                entities,
                "  - {{name: {name}, product: 'g:{name}', version: {version}}}"
            );
        }
        let env = environment::parse(&entities, &Arc::from("e.yml"), "e").unwrap();
        (env, Catalog::from_manifests(manifests).unwrap())
    }

    /// The index of product `g:{name}` in `model`.
    fn var(model: &Model<'_>, name: &str) -> usize {
        let product = format!("g:{name}");
        (0..model.vars.len())
            .find(|&p| model.vars[p].product.to_string() == product)
            .unwrap()
    }

    /// The release `index` (oldest first) of product `p` asked for, the fewest changes.
    fn asking(current: &[Value], p: usize, index: usize) -> Query<'_> {
        Query {
            baseline: current,
            restrict: vec![(p, vec![Value::Release(index)])],
            frozen: 0,
            objective: Some(Fewest::default()),
            deadline: None,
            forbid: Vec::new(),
        }
    }

    /// The fewest changes to reach redis 2.0.0 keep app 1.0.0, whose input through `cache`
    /// redis 2.0.0 leaves unfed: not a pair the model can say (the source is whichever
    /// provider serves), so it is learnt, and the answer moves app to 2.0.0 as well.
    #[test]
    fn an_answer_that_leaves_a_capability_input_unfed_is_learnt() {
        let (env, catalog) = cache(&[("app", "1.0.0"), ("redis", "1.0.0")]);
        let model = Model::build(&env, &catalog, Policy::default(), &[]);
        let (app, redis) = (var(&model, "app"), var(&model, "redis"));
        let current = model.current();
        let mut fewest = vec![Value::Keep; model.vars.len()];
        fewest[redis] = Value::Release(1);
        assert_eq!(
            Sat.solve(&model, &asking(&current, redis, 1)),
            Outcome::Found(fewest.clone())
        );
        let learnt = Learnt::new(&model, false);
        fewest[app] = Value::Release(1);
        assert_eq!(
            learnt.solve(&Sat, &model, &current, asking(&current, redis, 1)),
            Outcome::Found(fewest)
        );
        assert_eq!(
            learnt.said(),
            [
                "leave an input unfed: app 1.0.0 reads output `url` of redis (input cache-url \
              from cache), which declares no such output"
            ]
        );
        let refusals: Vec<Refusal> = learnt.forbid().into_iter().map(|n| n.refusal).collect();
        assert_eq!(refusals, [Refusal::Unfed]);
    }

    /// Today app 1.0.0 already reads an output redis 2.0.0 lacks. A move of valkey, the
    /// other provider of `cache`, may change who serves app, so it is judged, but leaves that
    /// finding as it was: tolerated, as a dependency broken today is, so nothing is learnt
    /// and valkey moves alone.
    #[test]
    fn an_input_unfed_today_is_tolerated_where_its_consumer_and_source_stay() {
        let (env, catalog) = cache(&[("app", "1.0.0"), ("redis", "2.0.0"), ("valkey", "1.0.0")]);
        let model = Model::build(&env, &catalog, Policy::default(), &[]);
        let valkey = var(&model, "valkey");
        assert!(model.wiring_risk(valkey));
        let current = model.current();
        let learnt = Learnt::new(&model, false);
        let mut alone = vec![Value::Keep; model.vars.len()];
        alone[valkey] = Value::Release(1);
        assert_eq!(
            learnt.solve(&Sat, &model, &current, asking(&current, valkey, 1)),
            Outcome::Found(alone)
        );
        assert!(learnt.forbid().is_empty(), "{:?}", learnt.said());
    }

    /// Nothing is learnt where today has a data cycle already, or where installing is
    /// allowed among placed entities (which entities are created depends on the whole state):
    /// the answer is judged as a whole there. Installing where nothing is placed learns.
    #[test]
    fn nothing_is_learnt_over_a_cycle_today_or_with_installs_among_placed_entities() {
        let (env, catalog) = pipeline(&[("1.0.0", true), ("2.0.0", false)]);
        let model = Model::build(&env, &catalog, Policy::default(), &[]);
        let current = model.current();
        let today = Learnt::new(&model, true);
        assert!(!today.active());
        assert_eq!(
            today.solve(&Sat, &model, &current, ingest_2(&current)),
            Outcome::Found(vec![Value::Release(1), Value::Keep])
        );
        let policy = Policy {
            allow_install: true,
            ..Policy::default()
        };
        let installing = Model::build(&env, &catalog, policy, &[]);
        assert!(Learnt::judging_today(&installing).active());
        let mut placed = env.clone();
        placed.entities[0].placement.namespace = "a".into();
        let installing = Model::build(&placed, &catalog, policy, &[]);
        assert!(!Learnt::judging_today(&installing).active());
    }
}
