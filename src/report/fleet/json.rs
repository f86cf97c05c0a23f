//! Fleet reports as JSON: one report per environment (the object the environment gets alone,
//! plus its `file`), and the summary.

use serde::Serialize;
use serde_json::json;

use crate::finding::Severity;
use crate::fleet::{FleetUpgrades, FleetValidation};
use crate::report::json::{ValidationJson, to_json, upgrade_rows, validation_report};

#[derive(Serialize)]
struct FleetJson<'a> {
    valid: bool,
    environments: Vec<MemberJson<'a>>,
    summary: serde_json::Value,
}

#[derive(Serialize)]
struct MemberJson<'a> {
    file: &'a str,
    #[serde(flatten)]
    report: ValidationJson<'a>,
}

/// `{"valid", "environments": [{"file", "environment", "valid", "findings", "summary"}],
/// "summary": {"environments", "valid", "invalid", "errors", "warnings", "releases"}}`.
#[must_use]
pub fn validation(f: &FleetValidation, fail_on: Severity) -> String {
    let s = &f.summary;
    to_json(&FleetJson {
        valid: f.passes(),
        environments: f
            .members
            .iter()
            .map(|m| MemberJson {
                file: &m.file,
                report: validation_report(&m.validation, fail_on),
            })
            .collect(),
        summary: json!({
            "environments": s.environments.len(),
            "valid": s.valid,
            "invalid": s.environments.len() - s.valid,
            "errors": s.errors,
            "warnings": s.warnings,
            "releases": s.releases.iter().map(|r| json!({
                "product": r.product,
                "version": r.version,
                "findings": r.findings,
                "environments": r.environments,
            })).collect::<Vec<_>>(),
        }),
    })
}

/// `{"proven", "environments": [{"environment", "file", "proven", "upgrades"}], "behind":
/// [{"product", "environment", "file", "installed", "safe", "latest"}], "everywhere":
/// [{"product", "version", "moves", "running"}]}`; each environment's `upgrades` are the rows
/// `upgrades` gives it alone.
#[must_use]
pub fn upgrades(f: &FleetUpgrades, outdated: bool) -> String {
    to_json(&json!({
        "proven": f.proven(),
        "environments": f.members.iter().map(|m| json!({
            "environment": m.environment,
            "file": &*m.file,
            "proven": m.upgrades.iter().all(|u| u.proven),
            "upgrades": upgrade_rows(&m.upgrades, outdated),
        })).collect::<Vec<_>>(),
        "behind": f.behind.iter().map(|b| json!({
            "product": b.product,
            "environment": b.environment,
            "file": &*b.file,
            "installed": b.installed,
            "safe": b.safe,
            "latest": b.latest,
        })).collect::<Vec<_>>(),
        "everywhere": f.everywhere.iter().map(|e| json!({
            "product": e.product,
            "version": e.version,
            "moves": e.moves,
            "running": e.running,
        })).collect::<Vec<_>>(),
    }))
}
