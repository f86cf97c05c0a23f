//! Proof after the fact for plans the model judged approximately (section 10,
//! [`Unproven::Placement`](crate::solve::Unproven::Placement)): an answer that needs no
//! comparison with other states, checked whole by `validate`, does not depend on what the
//! model judged product-wide. That holds when
//! - the final state has no error at all (valid, and everything broken today repaired);
//! - no other state can be better: with `--all` every installed product is at the newest
//!   value its candidates allow; with targets, each newest target is there, each exact one
//!   where it was asked, and every other product stays as it is;
//! - the plan creates no entity (nothing is added, so "fewest added" holds);
//! - every state between the steps is checked by `validate` too: no step adds an error the
//!   state before it does not have (plans of single steps only, each entity moved once:
//!   groups and bridges are claims of the model's).
//!
//! The last check validates the environment once per step, so it runs only within a budget
//! of entity checks; past it (or past the deadline) the plan stays not proven.

use std::collections::BTreeMap;
use std::time::Instant;

use super::all::improves;
use super::{Request, Step, Target};
use crate::catalog::Catalog;
use crate::environment::Environment;
use crate::finding::Severity;
use crate::solve::model::{Model, Value};
use crate::validate::{Validation, new_errors, validate};
use crate::version::Version;

/// At most this many entity checks (entities times states between steps) are spent proving
/// the steps (about 0.6 s on this machine's two cores: a validation per step).
const BUDGET: usize = 500_000;

/// What [`settled`] judges: the plan's answer and its context.
pub(super) struct Answer<'x, 'a> {
    pub env: &'x Environment,
    pub catalog: &'x Catalog,
    pub model: &'x Model<'a>,
    pub request: &'x Request,
    pub values: &'x [Value],
    pub steps: &'x [Step],
    pub today: &'x Validation,
    pub after: &'x Validation,
}

/// True when the answer is proven whatever the model judged approximately (see the module
/// documentation).
pub(super) fn settled(answer: &Answer<'_, '_>) -> bool {
    let errors = |v: &Validation| v.findings().any(|f| f.severity == Severity::Error);
    !errors(answer.after)
        && answer.steps.iter().all(|s| s.create.is_none())
        && unbeatable(answer)
        && steps_hold(answer)
}

/// No valid state is better than the answer, whatever is valid: see the module docs.
fn unbeatable(answer: &Answer<'_, '_>) -> bool {
    let (model, values) = (answer.model, answer.values);
    let top = |p: usize| {
        let var = &model.vars[p];
        !var.domain
            .iter()
            .any(|&v| matches!(v, Value::Release(_)) && improves(var, values[p], v))
    };
    let mut asked = Vec::new();
    for t in &answer.request.targets {
        let (Target::Newest(product) | Target::Exact(product, _)) = t;
        let Some(&p) = model.index.get(product) else {
            return false;
        };
        let there = match t {
            Target::Newest(_) => top(p),
            Target::Exact(_, v) => model.vars[p].version(values[p]) == Some(v),
        };
        if !there {
            return false;
        }
        asked.push(p);
    }
    (0..model.vars.len()).all(|p| {
        let today = model.today(p);
        if !model.vars[p].installed() {
            // installing it would have created an entity; a target left out is no answer
            // that needs no comparison
            return values[p] == today && !asked.contains(&p);
        }
        if answer.request.all {
            top(p)
        } else {
            asked.contains(&p) || values[p] == today
        }
    })
}

/// Every state between the steps, validated whole, adds no error to the state before it.
/// Only plans of single steps, each entity moved once: a group says its steps can only be
/// valid together, and a bridge that a direct step would not do, claims that rest on the
/// model's judgement. Within the budget and the deadline only.
fn steps_hold(answer: &Answer<'_, '_>) -> bool {
    let (env, steps) = (answer.env, answer.steps);
    if steps.len().saturating_mul(env.entities.len().max(1)) > BUDGET
        || steps.iter().any(|s| s.group.is_some())
    {
        return false;
    }
    let mut state = env.clone();
    let mut named: BTreeMap<String, Option<usize>> = state
        .entities
        .iter()
        .enumerate()
        .map(|(i, e)| (e.name.clone(), Some(i)))
        .collect();
    let mut before: Option<Validation> = None; // today's, until a step is made
    for step in steps {
        // each entity once: a second step of it is a bridge
        let (Some(i), Ok(version)) = (
            named.get_mut(&step.entity).and_then(Option::take),
            Version::parse(&step.to),
        ) else {
            return false;
        };
        state.entities[i].version = version;
        if answer.request.deadline.is_some_and(|d| Instant::now() >= d) {
            return false;
        }
        let between = validate(&state, answer.catalog);
        let previous = before.as_ref().unwrap_or(answer.today);
        if !new_errors(previous.findings(), between.findings()).is_empty() {
            return false;
        }
        before = Some(between);
    }
    true
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::solve::model::Policy;
    use crate::{environment, manifest};

    /// a 1.0.0 needs b 1.x; a 2.0.0 takes b 1.x or 2.x: a must move before b.
    const CATALOG: &str = "\
manifest-version: '1.0'\nproduct-group: g\nproduct-name: a\nproduct-version: 1.0.0
extensions:\n  product-dependencies:
    - {product-group: g, product-name: b, minimum-version: 1.0.0, maximum-version: 1.x.x}
---\nmanifest-version: '1.0'\nproduct-group: g\nproduct-name: a\nproduct-version: 2.0.0
extensions:\n  product-dependencies:
    - {product-group: g, product-name: b, minimum-version: 1.0.0, maximum-version: 2.x.x}
---\nmanifest-version: '1.0'\nproduct-group: g\nproduct-name: b\nproduct-version: 1.0.0
---\nmanifest-version: '1.0'\nproduct-group: g\nproduct-name: b\nproduct-version: 2.0.0
";

    fn step(entity: &str, from: &str, to: &str) -> Step {
        Step {
            entity: entity.to_owned(),
            product: crate::product::ProductId::parse(&format!("g:{entity}")).unwrap(),
            from: Some(from.to_owned()),
            to: to.to_owned(),
            group: None,
            why: String::new(),
            create: None,
        }
    }

    /// Whether `values` reached by `steps` is settled, with the final state as given.
    fn judged(values: &[Value], steps: &[Step], finals: (&str, &str)) -> bool {
        let catalog =
            Catalog::from_manifests(manifest::parse(CATALOG, &Arc::from("c.yml")).unwrap())
                .unwrap();
        let env_text = |a: &str, b: &str| {
            format!(
                "entities:\n  - {{name: a, product: g:a, version: {a}}}\n  \
                 - {{name: b, product: g:b, version: {b}}}\n"
            )
        };
        let parse = |t: &str| environment::parse(t, &Arc::from("e.yml"), "e").unwrap();
        let env = parse(&env_text("1.0.0", "1.0.0"));
        let after = parse(&env_text(finals.0, finals.1));
        let model = Model::build(&env, &catalog, Policy::default(), &[]);
        let request = Request::new(vec![], true);
        settled(&Answer {
            env: &env,
            catalog: &catalog,
            model: &model,
            request: &request,
            values,
            steps,
            today: &validate(&env, &catalog),
            after: &validate(&after, &catalog),
        })
    }

    #[test]
    fn newest_everywhere_with_steps_that_hold_is_settled() {
        let newest = [Value::Release(1), Value::Release(1)];
        let a = step("a", "1.0.0", "2.0.0");
        let b = step("b", "1.0.0", "2.0.0");
        assert!(judged(&newest, &[a.clone(), b.clone()], ("2.0.0", "2.0.0")));
        // b first breaks a 1.0.0 between the steps
        assert!(!judged(
            &newest,
            &[b.clone(), a.clone()],
            ("2.0.0", "2.0.0")
        ));
        // a group claims its steps can only be valid together: the model's word, not settled
        let together = |mut s: Step| {
            s.group = Some(1);
            s
        };
        assert!(!judged(
            &newest,
            &[together(a.clone()), together(b.clone())],
            ("2.0.0", "2.0.0")
        ));
        // an entity moved twice passes through a bridge: the model's word too
        assert!(!judged(&newest, &[a.clone(), b, a], ("2.0.0", "2.0.0")));
    }

    #[test]
    fn an_answer_a_better_state_could_beat_is_not_settled() {
        // a left at 1.0.0 while 2.0.0 is a candidate: whether a state with it newer is valid
        // is the model's judgement, so nothing is settled
        let a_kept = [Value::Keep, Value::Release(1)];
        assert!(!judged(&a_kept, &[], ("1.0.0", "1.0.0")));
        // nor is one whose final state has an error (steps that hold, values at the top)
        let newest = [Value::Release(1), Value::Release(1)];
        let steps = [step("a", "1.0.0", "2.0.0"), step("b", "1.0.0", "2.0.0")];
        assert!(judged(&newest, &steps, ("2.0.0", "2.0.0")));
        assert!(!judged(&newest, &steps, ("1.0.0", "2.0.0")));
    }
}
