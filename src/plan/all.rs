//! `--all` (SPEC section 7): every installed product as new as a valid state allows, decided
//! product by product, and the products it installs chosen by the plan's objective.

use super::{Asker, Reporter};
use crate::solve::model::Var;
use crate::solve::{Fewest, Outcome, Value};

/// `--all`: each installed product, in order, as new as a valid state allows with the ones
/// before it held. One question per improvement: "a valid state with this product newer than
/// where it is now?", until the engine proves there is none. On an invalid start (`repair`),
/// the products it installs are chosen to repair what they can too.
pub(super) fn maximize_all(
    asker: Asker<'_, '_, '_>,
    repair: Option<Fewest>,
    complete: &mut bool,
    reporter: &mut Reporter,
) -> Vec<Value> {
    let model = asker.model;
    let mut baseline = asker.current.to_vec();
    for p in 0..model.vars.len() {
        reporter.tick("deciding products", p, model.vars.len());
        let var = &model.vars[p];
        if !var.installed() {
            continue;
        }
        loop {
            let mut candidates: Vec<Value> = model.base[p]
                .iter()
                .copied()
                .filter(|&v| matches!(v, Value::Release(_)) && improves(var, baseline[p], v))
                .collect();
            if candidates.is_empty() {
                break;
            }
            candidates.sort_by(|a, b| b.cmp(a)); // release index order is version order
            match asker.restricted(&baseline, vec![(p, candidates)], p, None) {
                Outcome::Found(values) => baseline = values,
                Outcome::Infeasible => break,
                // out of time: what is decided stands, the rest keeps its baseline
                Outcome::Cut(found) => {
                    *complete = false;
                    if let Some(values) = found {
                        baseline = values;
                    }
                    break;
                }
            }
        }
    }
    choose_installs(asker, baseline, repair, complete)
}

/// Whether a value of `var`'s domain is better than `now` for `--all`: newer (anything is
/// newer than a non-orderable version), or, while the product is kept, the installed version
/// itself when its entities lag behind it (the domain holds that value only then).
pub(super) fn improves(var: &Var<'_>, now: Value, v: Value) -> bool {
    let Some(c) = var.version(v) else {
        return false;
    };
    let at = var.version(now);
    let newer = at.is_none_or(|n| !n.is_orderable() || c > n);
    let aligning = now == Value::Keep && Some(c) == var.installed_version();
    v != now && (newer || aligning)
}

/// With the installed products where `--all` decided them, the products it installs chosen
/// by the plan's objective (SPEC 9.3 for providers: `prefer` first, then the fewest added,
/// then `group:name` order, at the newest release the rest allows): the questions above ask
/// only for a valid state, so which product filled a need was the search's choice. On an
/// invalid start (`repair`) that objective repairs first: a product missing today is
/// installed where that repairs its dependents (SPEC section 7: a plan repairs what it can),
/// which no question above asks for (each keeps what is broken today as it is).
fn choose_installs(
    asker: Asker<'_, '_, '_>,
    values: Vec<Value>,
    repair: Option<Fewest>,
    complete: &mut bool,
) -> Vec<Value> {
    let model = asker.model;
    let installable = |p: usize| !model.vars[p].installed();
    let installs = (0..model.vars.len()).any(|p| installable(p) && values[p] != Value::Absent);
    let repairs = repair.is_some() && (0..model.vars.len()).any(installable);
    if !(installs || repairs) || !*complete {
        return values;
    }
    let fixed: Vec<(usize, Value)> = (0..model.vars.len())
        .filter(|&p| model.vars[p].installed())
        .map(|p| (p, values[p]))
        .collect();
    match asker.ask(asker.current, &fixed, 0, Some(repair.unwrap_or_default())) {
        Outcome::Found(chosen) => chosen,
        Outcome::Infeasible => values, // cannot be: `values` is such a state
        Outcome::Cut(_) => {
            *complete = false;
            values
        }
    }
}
