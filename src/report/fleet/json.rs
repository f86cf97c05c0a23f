//! Fleet reports as JSON: one report per environment (the object the environment gets alone,
//! plus its `file`), and the summary.

use serde::Serialize;
use serde_json::json;

use crate::finding::Severity;
use crate::fleet::{FleetUpgrades, FleetValidation};
use crate::report::json::{
    SCHEMA_VERSION, ValidationJson, to_json, upgrade_rows, validation_report,
};

#[derive(Serialize)]
struct FleetJson<'a> {
    schema_version: u32,
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

/// `{"schema_version", "valid", "environments": [{"file", "environment", "valid",
/// "findings", "summary"}], "summary": {"environments", "valid", "invalid", "errors",
/// "warnings", "accepted" (when any), "releases"}}`.
#[must_use]
pub fn validation(f: &FleetValidation, fail_on: Severity) -> String {
    let s = &f.summary;
    let mut summary = json!({
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
    });
    // as in one environment's summary: left out when none are
    if s.accepted > 0 {
        summary["accepted"] = json!(s.accepted);
    }
    to_json(&FleetJson {
        schema_version: SCHEMA_VERSION,
        valid: f.passes(),
        environments: f
            .members
            .iter()
            .map(|m| MemberJson {
                file: &m.file,
                report: validation_report(&m.validation, fail_on).nested(),
            })
            .collect(),
        summary,
    })
}

/// `{"schema_version", "proven", "environments": [{"environment", "file", "proven", "upgrades"}], "behind":
/// [{"product", "environment", "file", "installed", "safe", "latest"}], "everywhere":
/// [{"product", "version", "moves", "running"}]}`; each environment's `upgrades` are the rows
/// `upgrades` gives it alone.
#[must_use]
pub fn upgrades(f: &FleetUpgrades, outdated: bool) -> String {
    to_json(&json!({
        "schema_version": SCHEMA_VERSION,
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
