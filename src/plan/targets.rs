//! Deciding the targets of a plan: exact ones first (they are not negotiable), then each
//! newest one in the order given, as new as a valid state allows with the ones before it.
//! When a target cannot be reached, the reason is the conflict the engine proved (see
//! [`crate::solve::explain`]), with the flags that would lift it checked and the plan each
//! gives sized.

use super::model::Value;
use super::{Asker, BlockedTarget, Target};
use crate::solve::explain::{Explanation, Fix};
use crate::solve::passed;

/// What deciding the targets found out, for the plan's report.
#[derive(Default)]
pub(super) struct Notes {
    /// The sentences human output prints.
    pub lines: Vec<String>,
    /// Why the targets cannot all be reached, when that was proven.
    pub conflict: Option<Explanation>,
    /// Newest targets that stay below their newest release, and why.
    pub blocked: Vec<BlockedTarget>,
    /// False when a time limit cut a search.
    pub complete: bool,
}

impl Notes {
    pub fn new() -> Self {
        Notes {
            complete: true,
            ..Notes::default()
        }
    }

    /// Is there a valid state with these values fixed? (A cut search counts as no.)
    fn feasible(&mut self, asker: Asker<'_, '_, '_>, fixed: &[(usize, Value)]) -> bool {
        let outcome = asker.ask(asker.baseline(), fixed, 0, None);
        self.complete &= outcome.proven();
        outcome.values().is_some()
    }

    /// Why these values fixed have no valid state ([`Asker::why`]); an explanation the time
    /// limit cut short (a fix check cut reads as no fix), or none when the time limit has
    /// come (the reason left out), leaves the plan not proven, as `upgrades` marks its rows.
    pub(super) fn why(
        &mut self,
        asker: Asker<'_, '_, '_>,
        fixed: &[(usize, Value)],
    ) -> Option<Explanation> {
        let why = asker.why(fixed);
        self.complete &= !Explanation::unfinished(why.as_ref(), passed(asker.deadline));
        why
    }
}

/// The fixed values the targets take; `None` (with the reasons in `notes`) when they cannot
/// all be reached.
pub(super) fn decide(
    asker: Asker<'_, '_, '_>,
    targets: &[Target],
    notes: &mut Notes,
) -> Option<Vec<(usize, Value)>> {
    let model = asker.model;
    let mut fixed: Vec<(usize, Value)> = Vec::new();
    for (i, a) in targets.iter().enumerate() {
        for b in &targets[i + 1..] {
            if let (Target::Exact(p, v), Target::Exact(q, w)) = (a, b)
                && p == q
                && v != w
            {
                notes
                    .lines
                    .push(format!("conflicting targets: {p}@{v} and {q}@{w}"));
                return None;
            }
        }
    }
    for target in targets {
        let Target::Exact(product, version) = target else {
            continue;
        };
        let Some(&p) = model.index.get(product) else {
            notes
                .lines
                .push(format!("{product} has no releases in the catalog"));
            return None;
        };
        let var = &model.vars[p];
        let Some(i) = var.releases.iter().position(|m| m.version == *version) else {
            notes
                .lines
                .push(format!("{product} {version} is not in the catalog"));
            return None;
        };
        // A release the policy leaves out is still asked for: the conflict then says which
        // rule stands in the way and checks the flag that lifts it.
        let value =
            if var.domain[0] == Value::Keep && var.current.iter().all(|c| c.version == version) {
                Value::Keep
            } else {
                Value::Release(i)
            };
        fixed.push((p, value));
    }
    if !fixed.is_empty() && !notes.feasible(asker, &fixed) {
        if let Some(mut why) = notes.why(asker, &fixed) {
            size_fixes(asker, targets, &mut why, &[]);
            notes.lines.extend(why.lines());
            notes.conflict = Some(why);
        } else {
            notes
                .lines
                .push("the targets cannot all be reached together".to_owned());
            notes.lines.extend(cycles_said(asker));
        }
        return None;
    }
    newest(asker, targets, fixed, notes)
}

/// Each newest target, in the order given, as new as a valid state allows with `fixed`.
fn newest(
    asker: Asker<'_, '_, '_>,
    targets: &[Target],
    mut fixed: Vec<(usize, Value)>,
    notes: &mut Notes,
) -> Option<Vec<(usize, Value)>> {
    let model = asker.model;
    for target in targets {
        let Target::Newest(product) = target else {
            continue;
        };
        let known = model
            .index
            .get(product)
            .copied()
            .filter(|&p| !model.vars[p].releases.is_empty());
        let Some(p) = known else {
            notes
                .lines
                .push(format!("{product} has no releases in the catalog"));
            return None;
        };
        let var = &model.vars[p];
        if var.operator.pin.contains(product) {
            // SPEC 9.3: a target of a pinned product is infeasible
            notes
                .lines
                .push(format!("{product} is pinned by policy, so it never moves"));
            return None;
        }
        if !var.installed() && !model.policy.allow_install {
            // SPEC: without --allow-install a newest target settles where it can: absent
            notes.lines.push(format!(
                "{product} is not installed; installing is not allowed without --allow-install"
            ));
            fixed.push((p, Value::Absent));
            continue;
        }
        // Candidates newest first (release index order is version order).
        let mut candidates: Vec<Value> = var
            .domain
            .iter()
            .copied()
            .filter(|v| matches!(v, Value::Release(_)))
            .collect();
        candidates.sort_by(|a, b| b.cmp(a));
        let mut chosen = None;
        for &c in &candidates {
            if var
                .installed_version()
                .zip(var.version(c))
                .is_some_and(|(i, v)| v < i)
            {
                break; // never below what runs today while something newer is possible
            }
            let mut attempt = fixed.clone();
            attempt.push((p, c));
            if notes.feasible(asker, &attempt) {
                chosen = Some(c);
                break;
            }
        }
        match (chosen, candidates.first().copied()) {
            (Some(c), Some(n)) if c == n => fixed.push((p, c)),
            (chosen, Some(n)) => {
                let at = chosen.unwrap_or(var.domain[0]);
                let reached = var.version(at).map(ToString::to_string);
                let newest = var.version(n).map_or_else(String::new, ToString::to_string);
                notes.lines.push(format!(
                    "{product} goes only to {}: {product} {newest} is blocked",
                    reached.as_deref().unwrap_or("nothing"),
                ));
                let mut attempt = fixed.clone();
                attempt.push((p, n));
                let why = notes.why(asker, &attempt);
                match &why {
                    Some(why) => notes
                        .lines
                        .extend(why.lines().into_iter().map(|l| format!("  {l}"))),
                    None => notes.lines.extend(cycles_said(asker)),
                }
                notes.blocked.push(BlockedTarget {
                    product: product.clone(),
                    newest,
                    reached,
                    why,
                });
                fixed.push((p, at));
            }
            (_, None) => {
                notes
                    .lines
                    .push(format!("{product} has no newer candidate release"));
                fixed.push((p, var.domain[0]));
            }
        }
    }
    Some(fixed)
}

/// Each fix of `why`, and of the conflicts behind it (`on`: the flags already on there), with
/// the number of steps of the plan its flags give: the same targets planned again under the
/// relaxed policy (with the releases it reaches, for a catalog read in part), by the same
/// engine and within the same deadline, without explanations of its own. A plan the
/// deadline cuts, or that cannot be made after all, leaves the size unknown.
pub(super) fn size_fixes(
    asker: Asker<'_, '_, '_>,
    targets: &[Target],
    why: &mut Explanation,
    on: &[&'static str],
) {
    let Some((env, catalog, reload)) = asker.inputs else {
        return;
    };
    for fix in &mut why.fixes {
        let policy = on
            .iter()
            .chain(&fix.flags)
            .fold(asker.model.policy, |p, flag| p.lifting(flag));
        let wider = reload.and_then(|r| r.load(policy));
        let request = super::Request {
            policy,
            deadline: asker.deadline,
            ..super::Request::new(targets.to_vec(), false)
        };
        let plan = super::plan_in(
            env,
            wider.as_deref().unwrap_or(catalog),
            &request,
            asker.engine,
            false,
        );
        let steps = (plan.feasible && plan.complete).then_some(plan.steps.len());
        *fix = Fix::sized(std::mem::take(&mut fix.flags), steps);
    }
    if let Some((flags, next)) = &mut why.beyond {
        let all: Vec<&'static str> = on.iter().chain(flags.iter()).copied().collect();
        size_fixes(asker, targets, next, &all);
    }
}

/// What refused answers that no pair of products says (SPEC 10: data cycles, inputs from
/// capabilities left unfed), as indented lines: the reason where the engine's conflict has
/// none.
fn cycles_said(asker: Asker<'_, '_, '_>) -> Vec<String> {
    asker
        .cycles_said()
        .into_iter()
        .map(|words| format!("  states that reach it {words}"))
        .collect()
}
