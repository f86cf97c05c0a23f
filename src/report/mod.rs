//! Rendering results for people and machines: one file per output format.
//!
//! Every renderer is a pure function from a result to a `String`; the caller writes it to
//! stdout in one piece, so a failure never leaves half a report behind. Output is
//! deterministic: renderers keep the order the core produced (which is sorted) and add no
//! timestamps or absolute paths.

pub mod capabilities;
pub mod diff;
pub mod dot;
pub mod fleet;
pub mod github;
pub mod html;
pub mod human;
pub mod json;
pub mod junit;
pub mod layout;
pub mod markdown;
pub mod mermaid;
pub mod sarif;
pub mod services;
pub mod why;

use crate::finding::Severity;
use crate::validate::Validation;

/// `3 errors, 1 warning` (with correct plurals).
#[must_use]
pub fn count_summary(errors: usize, warnings: usize) -> String {
    format!(
        "{}, {}",
        plural(errors, "error"),
        plural(warnings, "warning")
    )
}

/// `1 entity`, `2 entities`, `0 errors`.
#[must_use]
pub fn plural(n: usize, noun: &str) -> String {
    match (n, noun.strip_suffix('y')) {
        (1, _) => format!("1 {noun}"),
        (_, Some(stem)) => format!("{n} {stem}ies"),
        _ => format!("{n} {noun}s"),
    }
}

/// Why answers are not proven, in a few words: each distinct reason once, the time limit
/// first (`time limit reached`, or the reasons the model is not exact).
#[must_use]
pub fn unproven_reasons<'a>(
    reasons: impl IntoIterator<Item = &'a crate::solve::Unproven>,
) -> String {
    let mut said: Vec<&str> = Vec::new();
    let mut all: Vec<&crate::solve::Unproven> = reasons.into_iter().collect();
    all.sort();
    for r in all {
        if !said.contains(&r.short()) {
            said.push(r.short());
        }
    }
    said.join("; ")
}

/// How many upgrade rows are not proven, and why: `time limit reached: 2 rows not proven`
/// (the words a cut search always had), else `2 rows not proven: REASONS`; `None` when every
/// row is proven.
#[must_use]
pub fn rows_not_proven(list: &[crate::upgrade::Upgrade]) -> Option<String> {
    let cut: Vec<&crate::upgrade::Upgrade> = list.iter().filter(|u| !u.proven).collect();
    if cut.is_empty() {
        return None;
    }
    let reasons: Vec<&crate::solve::Unproven> = cut.iter().flat_map(|u| &u.unproven).collect();
    let rows = plural(cut.len(), "row");
    Some(
        if reasons
            .iter()
            .all(|r| **r == crate::solve::Unproven::TimeLimit)
        {
            format!("time limit reached: {rows} not proven")
        } else {
            format!("{rows} not proven: {}", unproven_reasons(reasons))
        },
    )
}

/// The notes under a plan, as every format prints them: the explanation, the repairs made,
/// then what stays broken (never made worse).
#[must_use]
pub fn plan_notes(p: &crate::plan::Plan) -> Vec<String> {
    let mut notes: Vec<String> = p
        .data_cycles
        .iter()
        .map(|cycle| {
            format!(
                "data-cycle: {} feed data into one another in a cycle, so none of them can be \
                 installed first (plan fails, as validate does)",
                cycle.join(", ")
            )
        })
        .collect();
    notes.extend(p.explanation.iter().cloned());
    notes.extend(p.repairs.iter().map(|r| format!("repairs: {r}")));
    notes.extend(
        p.unrepaired
            .iter()
            .map(|r| format!("still broken (not made worse): {r}")),
    );
    notes
}

/// `3 manifests checked: 1 error, 0 warnings`, the line every lint format but JSON ends with.
#[must_use]
pub fn lint_summary(l: &crate::lint::Lint) -> String {
    let errors = l
        .findings
        .iter()
        .filter(|f| f.severity == Severity::Error)
        .count();
    format!(
        "{} checked: {}",
        plural(l.manifests, "manifest"),
        count_summary(errors, l.findings.len() - errors)
    )
}

/// The one-line verdict every validate format can end with.
#[must_use]
pub fn validation_summary(v: &Validation, fail_on: Severity) -> String {
    let entities = {
        let mut names: Vec<&str> = v.checks.iter().map(|c| c.entity.as_str()).collect();
        names.dedup();
        names.len()
    };
    let verdict = if v.passes(fail_on) {
        "valid"
    } else {
        "invalid"
    };
    let left_out = if v.unreadable.is_empty() {
        String::new()
    } else {
        format!(
            "; {} left out of the catalog",
            plural(v.unreadable.len(), "unreadable manifest file")
        )
    };
    let accepted = match v.accepted() {
        0 => String::new(),
        n => format!(", {n} accepted"),
    };
    format!(
        "{}: {verdict}, {}{accepted} ({} checked on {} installed{left_out})",
        v.environment,
        count_summary(v.count(Severity::Error), v.count(Severity::Warning)),
        plural(v.checks.len(), "constraint"),
        plural(entities, "entity"),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plurals() {
        assert_eq!(plural(1, "entity"), "1 entity");
        assert_eq!(plural(2, "entity"), "2 entities");
        assert_eq!(plural(0, "error"), "0 errors");
        assert_eq!(count_summary(1, 2), "1 error, 2 warnings");
    }
}
