//! The JSON format: the stable shapes of SPEC section 8, pretty-printed, one document per run.
//! Every document is an object that opens with `"schema_version"` ([`SCHEMA_VERSION`]); the
//! JSON Schema of each lives in `schemas/` (a test holds every JSON output of the CLI tests
//! against its schema).

use std::collections::BTreeMap;

use serde::Serialize;
use serde_json::json;

use crate::catalog::ReleaseFacets;
use crate::manifest::Manifest;
use crate::matcher::Matcher;
use crate::order::InstallOrder;
use crate::plan::Plan;
use crate::product::ProductId;
use crate::solve::Unproven;
use crate::solve::explain::Explanation;
use crate::upgrade::Upgrade;
use crate::version::Version;

use crate::finding::{Finding, Severity};
use crate::lint::Lint;
use crate::validate::Validation;

/// The version of the JSON shapes: raised when a field is removed or changes meaning (adding
/// a field does not raise it).
pub const SCHEMA_VERSION: u32 = 1;

/// Serializes a value the way every JSON report is written.
#[must_use]
pub fn to_json<T: Serialize>(value: &T) -> String {
    let mut text = serde_json::to_string_pretty(value).unwrap_or_else(|e| {
        // Only non-string map keys or failing Serialize impls can fail; we have neither.
        format!("{{\"error\": \"cannot render JSON: {e}\"}}")
    });
    text.push('\n');
    text
}

#[derive(Serialize)]
struct Counts {
    errors: usize,
    warnings: usize,
    /// Findings an allow rule accepts (not counted in `errors` or `warnings`); left out
    /// when none are.
    #[serde(skip_serializing_if = "is_zero")]
    accepted: usize,
    checks: usize,
}

#[allow(clippy::trivially_copy_pass_by_ref)] // serde's `skip_serializing_if` passes `&T`
fn is_zero(n: &usize) -> bool {
    *n == 0
}

#[derive(Serialize)]
pub(super) struct ValidationJson<'a> {
    /// Left out of a report inside another (a fleet's), whose document has it.
    #[serde(skip_serializing_if = "Option::is_none")]
    schema_version: Option<u32>,
    environment: &'a str,
    valid: bool,
    findings: Vec<&'a Finding>,
    summary: Counts,
}

/// `{"environment", "valid", "findings", "summary"}`.
#[must_use]
pub fn validation(v: &Validation, fail_on: Severity) -> String {
    to_json(&validation_report(v, fail_on))
}

/// The object [`validation`] writes; [`ValidationJson::nested`] for reports that hold
/// several.
pub(super) fn validation_report(v: &Validation, fail_on: Severity) -> ValidationJson<'_> {
    ValidationJson {
        schema_version: Some(SCHEMA_VERSION),
        environment: &v.environment,
        valid: v.passes(fail_on),
        findings: v.findings().collect(),
        summary: Counts {
            errors: v.count(Severity::Error),
            warnings: v.count(Severity::Warning),
            accepted: v.accepted(),
            checks: v.checks.len(),
        },
    }
}

impl ValidationJson<'_> {
    /// The report without its `schema_version`, to be part of a document that has one.
    #[must_use]
    pub(super) fn nested(mut self) -> Self {
        self.schema_version = None;
        self
    }
}

#[derive(Serialize)]
struct LintJson<'a> {
    schema_version: u32,
    manifests: usize,
    valid: bool,
    findings: &'a [Finding],
}

/// `{"manifests", "valid", "findings"}`.
#[must_use]
pub fn lint(l: &Lint) -> String {
    to_json(&LintJson {
        schema_version: SCHEMA_VERSION,
        manifests: l.manifests,
        valid: l.findings.iter().all(|f| f.severity < Severity::Error),
        findings: &l.findings,
    })
}

/// `catalog list`: `{"products": [{"product", "versions"}]}`.
#[must_use]
pub fn catalog_list(products: &[(ProductId, Vec<String>)], facets: &[ReleaseFacets]) -> String {
    let mut by_product: BTreeMap<&ProductId, Vec<&ReleaseFacets>> = BTreeMap::new();
    for r in facets {
        by_product.entry(&r.product).or_default().push(r);
    }
    to_json(&json!({
        "schema_version": SCHEMA_VERSION,
        "products": products
            .iter()
            .map(|(p, versions)| {
                let mut entry = json!({"product": p, "versions": versions});
                // Only releases with section 9 data: a catalog without it lists as before.
                if let Some(releases) = by_product.get(p) {
                    entry["facets"] = json!(super::capabilities::list_json(
                        releases.iter().copied()
                    ));
                }
                entry
            })
            .collect::<Vec<_>>(),
    }))
}

/// `catalog show`: one release with its declarations.
#[must_use]
pub fn release(m: &Manifest) -> String {
    to_json(&json!({
        "schema_version": SCHEMA_VERSION,
        "product": m.product,
        "version": m.version.as_str(),
        "type": m.product_type,
        "location": {"file": &*m.file, "line": m.location.line, "column": m.location.column},
        "dependencies": m.dependencies.iter().map(|d| json!({
            "product": d.product,
            "minimum": d.range.minimum.as_ref().map(Version::as_str),
            "maximum": d.range.maximum.as_ref().map(Matcher::as_str),
            "recommended": d.recommended.as_ref().map(Version::as_str),
            "optional": d.optional,
        })).collect::<Vec<_>>(),
        "incompatibilities": m.incompatibilities.iter().map(|i| json!({
            "product": i.product,
            "minimum": i.range.minimum.as_ref().map(Version::as_str),
            "maximum": i.range.maximum.as_ref().map(Matcher::as_str),
            "reason": i.reason,
        })).collect::<Vec<_>>(),
        "warnings": m.issues.iter().map(|i| json!({
            "code": i.code, "message": i.message,
        })).collect::<Vec<_>>(),
    }))
}

/// `order`: `{"waves", "groups", "order"}` as SPEC section 8 says, plus `cycles` (each group
/// as a closed path), `waits_for` per wave, `missing` and `unknown`.
#[must_use]
pub fn install_order(o: &InstallOrder) -> String {
    let mut out = json!({
        "schema_version": SCHEMA_VERSION,
        "environment": o.environment,
        "waves": o.waves.iter().map(|w| &w.entities).collect::<Vec<_>>(),
        "waits_for": o.waves.iter().map(|w| &w.waits_for).collect::<Vec<_>>(),
        "groups": o.groups.iter().map(|g| &g.members).collect::<Vec<_>>(),
        "cycles": o.groups.iter().map(|g| &g.cycle).collect::<Vec<_>>(),
        "order": o.order,
        "missing": missing(&o.missing, &o.missing_capabilities),
        "unknown": o.unknown,
    });
    // section 10, only where the environment uses it (plain outputs stay as they were)
    if let Some(i) = &o.instances {
        out["bindings"] = json!(
            i.lists
                .bindings
                .iter()
                .map(|(entity, requirement, to)| json!({
                    "entity": entity, "requirement": requirement, "bound_to": to,
                }))
                .collect::<Vec<_>>()
        );
        out["wiring"] = json!(
            i.lists
                .wiring
                .iter()
                .map(|(entity, input, from, output)| json!({
                    "entity": entity, "input": input, "from_entity": from, "output": output,
                }))
                .collect::<Vec<_>>()
        );
        out["data_cycles"] = json!(o.data_cycles().map(|g| &g.cycle).collect::<Vec<_>>());
    }
    to_json(&out)
}

/// An order's `missing` list: required dependencies, then required capabilities, that
/// nothing provides.
fn missing(
    dependencies: &[crate::order::MissingDependency],
    capabilities: &[crate::order::MissingCapability],
) -> serde_json::Value {
    let dependencies = dependencies.iter().map(|m| {
        json!({
            "entity": m.entity,
            "dependency": m.dependency,
            "minimum": m.range.minimum.as_ref().map(Version::as_str),
            "maximum": m.range.maximum.as_ref().map(Matcher::as_str),
        })
    });
    let capabilities = capabilities.iter().map(|m| {
        json!({
            "entity": m.entity,
            "capability": m.capability,
            "minimum": m.range.minimum.as_ref().map(Version::as_str),
            "maximum": m.range.maximum.as_ref().map(Matcher::as_str),
        })
    });
    json!(dependencies.chain(capabilities).collect::<Vec<_>>())
}

/// `order --by`: `{"by", "waves", "groups", "order"}` as SPEC section 10 says, groups named
/// by their key's value, plus what keeps the order from being carried out in `order`'s
/// entity terms: `missing` and `data_cycles` (closed paths of entities).
#[must_use]
pub fn group_order(o: &crate::grouping::GroupOrder) -> String {
    to_json(&json!({
        "schema_version": SCHEMA_VERSION,
        "environment": o.environment,
        "by": o.by,
        "waves": o.waves,
        "groups": o.groups,
        "order": o.order,
        "missing": missing(&o.missing, &o.missing_capabilities),
        "data_cycles": o.data_cycles,
    }))
}

/// `plan`: `{"feasible", "final", "steps", "explanation"}` as SPEC section 8 says, plus
/// `complete` (false when the time limit cut the search) and each step's `why`.
#[must_use]
pub fn plan(p: &Plan) -> String {
    let mut out = json!({
        "schema_version": SCHEMA_VERSION,
        "feasible": p.feasible,
        "proven": p.complete,
        "complete": p.complete,
        "final": p.final_state.iter().map(|e| {
            let mut out = json!({
                "entity": e.entity, "product": e.product, "version": e.version,
                "state": e.state.as_str(),
            });
            // section 10, where it is used
            if !e.placement.namespace.is_empty() {
                out["namespace"] = json!(e.placement.namespace);
            }
            if !e.placement.labels.is_empty() {
                out["labels"] = json!(e.placement.labels);
            }
            out
        }).collect::<Vec<_>>(),
        "steps": p.steps.iter().enumerate().map(|(i, s)| {
            let mut out = json!({
                "step": i + 1,
                "entity": s.entity,
                "product": s.product,
                "from": s.from,
                "to": s.to,
                "group": s.group,
                "why": s.why,
            });
            if let Some(placement) = &s.create {
                out["create"] = json!(true);
                out["namespace"] = json!(placement.namespace);
                out["labels"] = json!(placement.labels);
            }
            out
        }).collect::<Vec<_>>(),
        "explanation": plan_explanation(p),
        "repairs": p.repairs,
        "unrepaired": p.unrepaired,
    });
    // only where they apply, so other plans keep their bytes
    if !p.unproven.is_empty() {
        out["not_proven"] = json!(
            p.unproven
                .iter()
                .map(Unproven::sentence)
                .collect::<Vec<_>>()
        );
    }
    if !p.data_cycles.is_empty() {
        out["data_cycles"] = json!(p.data_cycles);
    }
    to_json(&out)
}

/// A plan's `explanation`: `text` (the sentences human output prints), and when the targets
/// cannot be reached the proven `chain` and checked `fixes`; `blocked` for each newest target
/// held below its newest release.
fn plan_explanation(p: &Plan) -> serde_json::Value {
    let mut out = p
        .conflict
        .as_ref()
        .map_or_else(|| json!({"chain": [], "fixes": []}), explanation);
    out["text"] = json!(p.explanation);
    out["blocked"] = json!(
        p.blocked
            .iter()
            .map(|b| {
                json!({
                    "product": b.product,
                    "newest": b.newest,
                    "reached": b.reached,
                    "why": b.why.as_ref().map(explanation),
                })
            })
            .collect::<Vec<_>>()
    );
    out
}

/// `{"chain": [{"kind", "text", "product", "versions", ...}], "fixes": [{"flags", "text",
/// "plan_size" when a plan sized it}], "minimal"}`, and `even_with` (`{"flags", ...the same}`) when the flags that lift parts of
/// the chain are not enough.
fn explanation(e: &Explanation) -> serde_json::Value {
    let mut out = json!({
        "chain": e.chain.iter().map(|l| {
            let mut link = json!({
                "kind": l.kind.as_str(),
                "text": l.text,
                "product": l.product,
                "versions": l.versions,
                "every": l.every,
            });
            if let Some(d) = &l.dependency {
                link["dependency"] = json!(d);
                link["range"] = json!(l.range);
                link["optional"] = json!(l.optional);
            }
            if let Some(flag) = l.flag {
                link["flag"] = json!(flag);
            }
            if let Some(at) = &l.location {
                let known = at.location.is_known();
                link["location"] = json!({
                    "file": &*at.file,
                    "line": known.then_some(at.location.line),
                    "column": known.then_some(at.location.column),
                });
            }
            link
        }).collect::<Vec<_>>(),
        "fixes": e.fixes.iter().map(|f| {
            let mut fix = json!({"flags": f.flags, "text": f.text});
            if let Some(steps) = f.plan_size {
                fix["plan_size"] = json!(steps);
            }
            fix
        }).collect::<Vec<_>>(),
        "minimal": e.minimal,
    });
    if let Some((flags, next)) = &e.beyond {
        let mut next = explanation(next);
        next["flags"] = json!(flags);
        out["even_with"] = next;
    }
    out
}

/// `upgrades`: `{"upgrades": [{"product", "installed", "safe", "latest", "blocked_by",
/// "requires"}]}` as SPEC section 8 says, plus `latest_installable` and `proven` (false when a
/// time limit cut the row's search), and `proven` for the whole list.
#[must_use]
pub fn upgrades(list: &[Upgrade], outdated: bool) -> String {
    let head = json!({
        "schema_version": SCHEMA_VERSION,
        "proven": list.iter().all(|u| u.proven),
    });
    with_rows(head, "upgrades", upgrade_rows(list, outdated))
}

/// [`to_json`] of object `head` with `rows` added as `key`, which sorts after every key of
/// `head` (so it is printed last), each row printed on a thread of its own: at 5,000 rows
/// with explanations (10 MB), printing the whole tree on one thread was about 5% of an
/// `upgrades` run. The same bytes as printing it whole: pretty-printed JSON has no line
/// break inside a value, so a row printed alone is the row printed nested, less the indent.
fn with_rows(mut head: serde_json::Value, key: &str, rows: Vec<serde_json::Value>) -> String {
    use rayon::prelude::*;
    let last = head
        .as_object()
        .is_some_and(|o| !o.is_empty() && o.keys().all(|k| k.as_str() < key));
    if rows.is_empty() || !last {
        head[key] = serde_json::Value::Array(rows);
        return to_json(&head);
    }
    // each row is freed where it is printed (freeing 5,000 rows with explanations on one
    // thread afterwards took about as long as printing them)
    let printed: Vec<String> = rows
        .into_par_iter()
        .map(|row| {
            let text = to_json(&row);
            let mut nested = String::with_capacity(text.len() + text.len() / 8);
            for line in text.lines() {
                nested.push_str("    ");
                nested.push_str(line);
                nested.push('\n');
            }
            nested.pop();
            nested
        })
        .collect();
    let open = to_json(&head);
    let open = open
        .trim_end()
        .strip_suffix('}')
        .unwrap_or(&open)
        .trim_end();
    format!(
        "{open},\n  {}: [\n{}\n  ]\n}}\n",
        serde_json::Value::from(key),
        printed.join(",\n")
    )
}

/// The rows of [`upgrades`] (with `outdated`, only those that can move or are blocked),
/// made in parallel (in order): at 5,000 rows with explanations, making them was a tenth of
/// the serial part of an `upgrades` run.
pub(super) fn upgrade_rows(list: &[Upgrade], outdated: bool) -> Vec<serde_json::Value> {
    use rayon::prelude::*;
    list.par_iter().filter(|u| !outdated || u.outdated()).map(|u| {
        let mut row = json!({
            "product": u.product,
            "installed": u.installed,
            "safe": u.safe,
            "latest": u.latest,
            "blocked_by": u.blocked_by,
            "requires": u.requires.iter().map(|(p, v)| json!({"product": p, "version": v})).collect::<Vec<_>>(),
            "latest_installable": u.latest_installable,
            "proven": u.proven,
            "explanation": u.explanation.as_ref().map(explanation),
        });
        if u.pinned {
            // only where a policy pins: outputs without one keep their bytes (SPEC 9)
            row["pinned"] = json!(true);
        }
        if !u.unproven.is_empty() {
            row["not_proven"] = json!(u.unproven.iter().map(Unproven::sentence).collect::<Vec<_>>());
        }
        if !u.behind.is_empty() {
            // only where a product's entities run different versions
            row["behind"] = u.behind.iter().map(|(e, v)| json!({"entity": e, "version": v})).collect();
            row["align"] = json!(u.align);
        }
        row
    }).collect()
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::{to_json, with_rows};

    /// Rows printed apart and joined read as the whole object printed at once: nested
    /// objects and arrays, empty ones, strings with escaped line breaks and quotes, and no
    /// rows at all.
    #[test]
    fn rows_printed_apart_are_the_object_printed_whole() {
        let head = json!({"schema_version": 1, "proven": false});
        let rows = vec![
            json!({"product": "g:a", "requires": [], "explanation": null}),
            json!({"product": "g:b", "requires": [{"product": "g:c", "version": "1.0.0"}],
                   "explanation": {"chain": [{"text": "line one\nline \"two\""}], "fixes": {}}}),
            json!([1, [2, []], {"k": "v"}]),
        ];
        for rows in [rows.clone(), Vec::new(), rows[..1].to_vec()] {
            let mut whole = head.clone();
            whole["upgrades"] = serde_json::Value::Array(rows.clone());
            assert_eq!(with_rows(head.clone(), "upgrades", rows), to_json(&whole));
        }
        // a key that would not print last is printed whole
        let mut whole = head.clone();
        whole["a"] = serde_json::Value::Array(rows.clone());
        assert_eq!(with_rows(head, "a", rows), to_json(&whole));
    }
}
