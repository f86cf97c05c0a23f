//! Data cycles in planned states (SPEC 10): a state whose data edges close a cycle cannot be
//! installed, so it is no valid answer. No pair of products can say so (a cycle runs through
//! any number of them), so the planner learns it from the answers: when an answer closes a
//! data cycle, the values that decide the cycle's edges are forbidden together (a nogood,
//! [`crate::solve::Query::forbid`]) and the question is asked again, until an answer closes
//! none or none is left.
//!
//! - **Sound:** the edges of a cycle are decided by the releases its members run (their
//!   requirements and inputs, and which entities of a required product serve them: placement
//!   is fixed, a plan removes no entity) and, for a capability, by which entities provide it
//!   (every product that provides the capability in some release). The nogood holds exactly
//!   those products at the answer's values, so every state it forbids has the same cycle.
//! - **Terminates:** each nogood forbids the answer it was learnt from; there are finitely
//!   many states.
//! - **Cheap where nothing can close:** only an answer that moves a product at
//!   [`crate::solve::wired::Risk`] can close a new cycle, so only those are looked at (a
//!   world over the entities, as `validate` builds).
//! - **Not learnt** (the final state is judged as a whole, and a cycle there makes the plan
//!   not proven, as before): with `--allow-install`, where entities created for empty serving
//!   sets change the edges with the state; and when today's environment has a data cycle (the
//!   plan reports it and fails: SPEC 10).

use std::cell::RefCell;
use std::collections::BTreeMap;

use crate::instance::Requirement;
use crate::precedence::Node;
use crate::solve::{Model, Value};

/// The nogoods a plan has learnt so far (see the module docs).
pub(super) struct Learnt {
    nogoods: RefCell<Vec<Vec<(usize, Value)>>>,
    /// Each cycle learnt, in words, once.
    said: RefCell<Vec<String>>,
    active: bool,
}

impl Learnt {
    /// Learning for `model`, unless nothing wires data, the plan may install, or today's
    /// environment has a data cycle already (`cycles_today`).
    pub(super) fn new(model: &Model<'_>, cycles_today: bool) -> Self {
        Learnt {
            nogoods: RefCell::new(Vec::new()),
            said: RefCell::new(Vec::new()),
            active: model.wiring_in_use() && !model.policy.allow_install && !cycles_today,
        }
    }

    /// The nogoods learnt so far, for the next question.
    pub(super) fn forbid(&self) -> Vec<Vec<(usize, Value)>> {
        self.nogoods.borrow().clone()
    }

    /// Whether `values` closes a data cycle; if so, its nogoods are learnt.
    pub(super) fn learn(&self, model: &Model<'_>, current: &[Value], values: &[Value]) -> bool {
        let moved_at_risk =
            (0..values.len()).any(|p| values[p] != current[p] && model.wiring_risk(p));
        if !self.active || !moved_at_risk {
            return false;
        }
        let learnt = nogoods(model, values);
        let found = !learnt.is_empty();
        for (nogood, words) in learnt {
            self.nogoods.borrow_mut().push(nogood);
            let mut said = self.said.borrow_mut();
            if !said.contains(&words) {
                said.push(words);
            }
        }
        found
    }

    /// The cycles learnt so far, in words: why an answer the engine cannot explain (its
    /// conflicts know no nogood) was refused.
    pub(super) fn said(&self) -> Vec<String> {
        self.said.borrow().clone()
    }
}

/// One nogood per data cycle among the entities as `values` has them, with the cycle in
/// words.
fn nogoods(model: &Model<'_>, values: &[Value]) -> Vec<(Vec<(usize, Value)>, String)> {
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
        out.push((
            products.into_iter().map(|p| (p, values[p])).collect(),
            words,
        ));
    }
    out
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
