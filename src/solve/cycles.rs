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
//!   [`crate::solve::wired::Risk`] can close a new cycle, so only those are looked at (a
//!   world over the entities, as `validate` builds). Without data wiring nothing is learnt
//!   and every question is asked once, as before.
//! - **Not learnt** (the answer is judged as a whole, and a cycle there makes it not proven):
//!   with `--allow-install`, where entities created for empty serving sets change the edges
//!   with the state; and when today's environment has a data cycle (a plan reports it and
//!   fails: SPEC 10).
//! - **Explained:** the conflict search takes each nogood as a part of the question
//!   ([`crate::solve::conflict::Cause::Cycle`]), so a target blocked by a cycle is explained
//!   by it, in the words kept with it.

use std::cell::RefCell;
use std::collections::BTreeMap;

use crate::instance::Requirement;
use crate::precedence::Node;
use crate::solve::{Engine, Model, Outcome, Query, Value};

/// Values that may not all hold at once, and why (a data cycle, in words).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Nogood {
    /// (product, value) pairs, by product.
    pub values: Vec<(usize, Value)>,
    /// What the values close, in words: "d:ingest 2.0.0 with d:report 1.0.0 closes a data
    /// cycle: ...".
    pub reason: String,
}

/// The nogoods learnt so far for one question or one plan (see the module docs). Not shared
/// between threads: each `upgrades` row, and each explanation, learns its own, so an answer
/// never depends on what another row happened to learn first.
pub struct Learnt {
    nogoods: RefCell<Vec<Nogood>>,
    active: bool,
}

impl Learnt {
    /// Learning for `model`, unless nothing wires data, installing is allowed, or today's
    /// environment has a data cycle already (`cycles_today`).
    #[must_use]
    pub fn new(model: &Model<'_>, cycles_today: bool) -> Self {
        Learnt {
            nogoods: RefCell::new(Vec::new()),
            active: model.wiring_in_use() && !model.policy.allow_install && !cycles_today,
        }
    }

    /// [`Learnt::new`] judging today's cycles from the model itself (the state every product
    /// keeps), where no validation of today is at hand.
    #[must_use]
    pub fn judging_today(model: &Model<'_>) -> Self {
        let active = model.wiring_in_use() && !model.policy.allow_install;
        let today = active && !nogoods(model, &model.current()).is_empty();
        Learnt::new(model, today)
    }

    /// Whether anything can be learnt here.
    #[must_use]
    pub fn active(&self) -> bool {
        self.active
    }

    /// The nogoods learnt so far, for the next question.
    #[must_use]
    pub fn forbid(&self) -> Vec<Nogood> {
        self.nogoods.borrow().clone()
    }

    /// Whether `values` closes a data cycle not learnt yet (`current`: today's values, so
    /// only answers that move a product at risk are looked at); if so, it is learnt.
    pub fn learn(&self, model: &Model<'_>, current: &[Value], values: &[Value]) -> bool {
        let moved_at_risk =
            (0..values.len()).any(|p| values[p] != current[p] && model.wiring_risk(p));
        if !self.active || !moved_at_risk {
            return false;
        }
        let learnt = nogoods(model, values);
        let found = !learnt.is_empty();
        self.nogoods.borrow_mut().extend(learnt);
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
        loop {
            query.forbid = self.forbid();
            let outcome = engine.solve(model, &query);
            match &outcome {
                Outcome::Found(values) if self.learn(model, current, values) => {}
                _ => return outcome,
            }
        }
    }

    /// The cycles learnt so far, in words, each once: why an answer was refused.
    #[must_use]
    pub fn said(&self) -> Vec<String> {
        let mut said: Vec<String> = Vec::new();
        for nogood in self.nogoods.borrow().iter() {
            let words = cycle_words(&nogood.reason).to_owned();
            if !said.contains(&words) {
                said.push(words);
            }
        }
        said
    }
}

/// The separator between a nogood's values and its cycle in [`Nogood::reason`].
const CLOSES: &str = " closes a data cycle: ";

/// The cycle part of a nogood's reason.
fn cycle_words(reason: &str) -> &str {
    reason.split_once(CLOSES).map_or(reason, |(_, words)| words)
}

/// One nogood per data cycle among the entities as `values` has them, with the cycle in
/// words.
fn nogoods(model: &Model<'_>, values: &[Value]) -> Vec<Nogood> {
    let mut running: Vec<(&str, usize, &crate::version::Version, _)> = Vec::new();
    for (p, var) in model.vars.iter().enumerate() {
        for c in &var.current {
            let Some(name) = c.entity else { continue };
            match values[p] {
                Value::Keep => running.push((name, p, c.version, c.manifest)),
                Value::Release(i) => {
                    let m = &var.releases[i];
                    running.push((name, p, &m.version, Some(&**m)));
                }
                Value::Absent => {}
            }
        }
    }
    running.sort_unstable_by_key(|r| r.0);
    let nodes: Vec<Node<'_>> = running
        .iter()
        .map(|&(name, p, version, release)| Node {
            name,
            product: &model.vars[p].product,
            version,
            release,
            placement: model.placement_of(name),
        })
        .collect();
    let mut providers: BTreeMap<&str, Vec<usize>> = BTreeMap::new();
    let mut out = Vec::new();
    for members in crate::order::data_cycles(&nodes) {
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
                products.extend(
                    providers
                        .entry(name)
                        .or_insert_with(|| providing(model, name))
                        .iter(),
                );
            }
        }
        products.sort_unstable();
        products.dedup();
        let names: Vec<&str> = members.iter().map(|&m| running[m].0).collect();
        let words = format!(
            "{} would feed data into one another in a cycle, so none of them could be installed \
             first",
            names.join(", ")
        );
        let held: Vec<(usize, Value)> = products.into_iter().map(|p| (p, values[p])).collect();
        let which: Vec<String> = held
            .iter()
            .map(|&(p, v)| value_words(model, p, v))
            .collect();
        out.push(Nogood {
            reason: format!("{}{CLOSES}{words}", which.join(" with ")),
            values: held,
        });
    }
    out
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

/// The products some release of which provides capability `name`.
fn providing(model: &Model<'_>, name: &str) -> Vec<usize> {
    (0..model.vars.len())
        .filter(|&q| {
            model.vars[q]
                .every_manifest()
                .any(|m| m.facets.is_some() && m.facets().provides.iter().any(|c| c.name == name))
        })
        .collect()
}
