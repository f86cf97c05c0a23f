//! Why a target cannot be reached: a short chain of reasons in the user's terms, built apart
//! from the search by looking at the constraints around the target, never a dump of the
//! search. First the target's own requirements that nothing can meet, then each neighbour
//! that no release of theirs can satisfy together with the target, then (when every
//! neighbour alone could) the fact that they cannot all at once.

use super::model::{Conflict, Model, Value};
use crate::finding::Code;

/// One line for a broken constraint, with both sides.
pub fn describe(c: &Conflict) -> String {
    match (c.code, &c.found) {
        (Code::MissingDependency, _) => format!(
            "{} {} requires {} {}, which is not installed",
            c.declarer, c.declarer_version, c.dependency, c.range
        ),
        (Code::IncompatibleRelease, Some(found)) => format!(
            "{} {} is incompatible with {} {}, and {} would run {found}",
            c.declarer, c.declarer_version, c.dependency, c.range, c.dependency
        ),
        (_, found) => format!(
            "{} {} requires {} {}, but {} would run {}",
            c.declarer,
            c.declarer_version,
            c.dependency,
            c.range,
            c.dependency,
            found.as_deref().unwrap_or("nothing")
        ),
    }
}

/// Reasons `p` cannot take `value` (with `fixed` also holding).
#[must_use]
pub fn why_not(model: &Model<'_>, p: usize, value: Value, fixed: &[(usize, Value)]) -> Vec<String> {
    chain(model, p, value, fixed, 3)
}

/// [`why_not`], following the chain at most `depth` products further when the reason lies
/// beyond the direct neighbours.
fn chain(
    model: &Model<'_>,
    p: usize,
    value: Value,
    fixed: &[(usize, Value)],
    depth: usize,
) -> Vec<String> {
    let var = &model.vars[p];
    let mut lines = Vec::new();
    for c in model.unary(p, value) {
        let mut line = describe(&c);
        if !model.policy.allow_install {
            line.push_str("; installing is not allowed without --allow-install");
        }
        lines.push(line);
    }
    let mut all_possible = true;
    for &q in &model.neighbors[p] {
        let other = &model.vars[q];
        let allowed = |b: Value| {
            model.compatible(p, value, q, b)
                && fixed
                    .iter()
                    .all(|&(f, fv)| f == p || f == q || model.compatible(f, fv, q, b))
        };
        let pinned = fixed.iter().find(|(f, _)| *f == q).map(|&(_, v)| v);
        let options: Vec<Value> = match pinned {
            Some(v) => vec![v],
            None => model.base[q].clone(),
        };
        if options.iter().any(|&b| allowed(b)) {
            continue;
        }
        all_possible = false;
        let now = other.domain[0];
        let mut conflicts = model.conflicts(p, value, q, now);
        if conflicts.is_empty() {
            // the current release is fine with the target but pinned or conflicting elsewhere
            if let Some(&b) = options.first() {
                conflicts = model.conflicts(p, value, q, b);
            }
        }
        for c in conflicts.iter().take(2) {
            lines.push(describe(c));
        }
        let candidates = options
            .iter()
            .filter(|v| matches!(v, Value::Release(_)))
            .count();
        lines.push(if pinned.is_some() {
            format!("{} is pinned by another target", other.product)
        } else if candidates == 0 {
            let hint = if model.policy.pre {
                ""
            } else {
                " (release candidates and snapshots need --pre)"
            };
            format!(
                "{} has no candidate release to move to{hint}",
                other.product
            )
        } else {
            format!(
                "none of the {candidates} candidate releases of {} fits either",
                other.product
            )
        });
        if lines.len() >= 8 {
            break;
        }
    }
    if lines.is_empty() && all_possible && depth > 0 {
        lines = follow(model, p, value, fixed, depth);
    }
    if lines.is_empty() && all_possible {
        let names: Vec<String> = model.neighbors[p]
            .iter()
            .map(|&q| model.vars[q].product.to_string())
            .collect();
        lines.push(format!(
            "each of {} has a release that fits {} {}, but no combination of them satisfies \
             every constraint at once",
            names.join(", "),
            var.product,
            var.version(value)
                .map_or_else(|| "absent".to_owned(), ToString::to_string),
        ));
    }
    lines
}

/// When every neighbour has a release that fits on its own: the first neighbour that must
/// move, at its newest fitting release, and why that cannot go in (one step down the chain).
fn follow(
    model: &Model<'_>,
    p: usize,
    value: Value,
    fixed: &[(usize, Value)],
    depth: usize,
) -> Vec<String> {
    let var = &model.vars[p];
    let mut deeper = fixed.to_vec();
    deeper.push((p, value));
    for &q in &model.neighbors[p] {
        let other = &model.vars[q];
        if fixed.iter().any(|(f, _)| *f == q) {
            continue;
        }
        let mut fitting: Vec<Value> = model.base[q]
            .iter()
            .copied()
            .filter(|&b| model.compatible(p, value, q, b))
            .collect();
        if fitting.contains(&other.domain[0]) {
            continue; // it can stay as it is: not where the chain goes
        }
        fitting.sort_by(|a, b| b.cmp(a));
        let Some(&b) = fitting.first() else { continue };
        let below = chain(model, q, b, &deeper, depth - 1);
        if below.is_empty() {
            continue;
        }
        let mut lines = vec![format!(
            "{} {} needs {} to move, and its newest release that fits, {}, cannot go in:",
            var.product,
            var.version(value)
                .map_or_else(String::new, ToString::to_string),
            other.product,
            other
                .version(b)
                .map_or_else(String::new, ToString::to_string),
        )];
        lines.extend(below.into_iter().map(|l| format!("  {l}")));
        return lines;
    }
    Vec::new()
}
