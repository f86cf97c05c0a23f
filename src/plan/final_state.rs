//! The plan's final state: every entity after the plan (installs named after the managed
//! entity they fill, or the product), and which of today's violations it repairs.

use std::collections::{BTreeMap, BTreeSet};

use super::{FinalEntity, Model, Value};
use crate::environment::Environment;
use crate::instance::Placement;
use crate::product::ProductId;
use crate::version::Version;

/// The environment after the plan: moved and installed entities included (an install can be
/// what repairs a missing dependency or capability), sorted by name.
pub(super) fn after_env(env: &Environment, final_state: &[FinalEntity]) -> Environment {
    let mut after_env = env.clone();
    // by name, the first entity of each (a look-up each: a scan each was 5,000 x 5,000
    // string comparisons, 7% of `plan --all` on the easy family at 5,000)
    let mut named: BTreeMap<String, usize> = BTreeMap::new();
    for (at, e) in after_env.entities.iter().enumerate() {
        named.entry(e.name.clone()).or_insert(at);
    }
    for f in final_state {
        let Ok(version) = Version::parse(&f.version) else {
            continue;
        };
        if let Some(&at) = named.get(&f.entity) {
            let e = &mut after_env.entities[at];
            e.version = version;
            e.state = f.state;
        } else {
            named.insert(f.entity.clone(), after_env.entities.len());
            after_env.entities.push(crate::environment::Entity {
                name: f.entity.clone(),
                product: f.product.clone(),
                version,
                state: f.state,
                placement: f.placement.clone(),
                location: crate::diagnostic::Location::default(),
                binding_locations: BTreeMap::new(),
            });
        }
    }
    after_env.entities.sort_by(|a, b| a.name.cmp(&b.name));
    after_env
}

/// The error findings of today's environment, split into those the final state (`after`) no
/// longer has and those it still has (matched by entity, code, dependency and found
/// version).
pub(super) fn compare_violations(
    before: &crate::validate::Validation,
    after: &crate::validate::Validation,
) -> (Vec<String>, Vec<String>) {
    use crate::finding::Severity;
    if before.passes(Severity::Error) {
        return (Vec::new(), Vec::new());
    }
    let key = |f: &crate::finding::Finding| {
        (
            f.entity.clone(),
            f.code,
            f.dependency.clone(),
            f.found_entity.clone(),
        )
    };
    let remaining: std::collections::BTreeSet<_> = after
        .findings()
        .filter(|f| f.severity == Severity::Error)
        .map(key)
        .collect();
    let (mut repairs, mut unrepaired) = (Vec::new(), Vec::new());
    for f in before.findings().filter(|f| f.severity == Severity::Error) {
        if remaining.contains(&key(f)) {
            unrepaired.push(f.message.clone());
        } else {
            repairs.push(f.message.clone());
        }
    }
    (repairs, unrepaired)
}

/// Every entity of the environment after the plan, sorted by name.
pub(super) fn final_state(
    env: &Environment,
    model: &Model<'_>,
    values: &[Value],
) -> Vec<FinalEntity> {
    use crate::environment::State;
    // Products the plan installs, by the entity that becomes them.
    let installs: BTreeMap<String, (ProductId, String, Placement)> =
        super::create::creations(env, model, values)
            .into_iter()
            .filter_map(|c| {
                let var = &model.vars[c.var];
                let version = var.version(values[c.var])?.to_string();
                Some((c.name, (var.product.clone(), version, c.placement)))
            })
            .collect();
    let mut out: Vec<FinalEntity> = env
        .entities
        .iter()
        .map(|e| {
            if let Some((product, version, _)) = installs.get(&e.name) {
                // a managed entity the plan installs
                return FinalEntity {
                    entity: e.name.clone(),
                    product: product.clone(),
                    version: version.clone(),
                    state: State::Installed,
                    placement: e.placement.clone(),
                };
            }
            let version = model
                .index
                .get(&e.product)
                .filter(|_| e.is_installed())
                .and_then(|&p| match values[p] {
                    Value::Release(i) => Some(model.vars[p].releases[i].version.to_string()),
                    _ => None,
                })
                .unwrap_or_else(|| e.version.to_string());
            FinalEntity {
                entity: e.name.clone(),
                product: e.product.clone(),
                version,
                state: e.state,
                placement: e.placement.clone(),
            }
        })
        .collect();
    let names: BTreeSet<&str> = env.entities.iter().map(|e| e.name.as_str()).collect();
    for (entity, (product, version, placement)) in installs {
        if !names.contains(entity.as_str()) {
            out.push(FinalEntity {
                entity,
                product,
                version,
                state: State::Installed,
                placement,
            });
        }
    }
    out.sort_by(|a, b| a.entity.cmp(&b.entity));
    out
}
