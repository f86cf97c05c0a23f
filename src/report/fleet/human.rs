//! Fleet reports for people: each environment's report as it reads alone, under a heading
//! naming its file, then the summary tables and line.

use std::fmt::Write;

use crate::finding::Severity;
use crate::fleet::{FleetUpgrades, FleetValidation};
use crate::report::human::{self, table};

use super::{summary_line, upgrades_line};

/// `validate` on a fleet.
#[must_use]
pub fn validation(f: &FleetValidation, fail_on: Severity) -> String {
    let mut out = String::new();
    for m in &f.members {
        let _ = writeln!(out, "=== {} ===", m.file);
        out.push_str(&human::validation(&m.validation, fail_on));
        out.push('\n');
    }
    let mut t = table(&["Environment", "File", "Verdict", "Errors", "Warnings"]);
    for v in &f.summary.environments {
        t.add_row(vec![
            v.environment.clone(),
            v.file.to_string(),
            if v.valid { "valid" } else { "invalid" }.to_owned(),
            v.errors.to_string(),
            v.warnings.to_string(),
        ]);
    }
    let _ = writeln!(out, "{t}");
    if !f.summary.releases.is_empty() {
        out.push_str("Releases most often involved in findings:\n");
        let mut t = table(&["Release", "Findings", "Environments"]);
        for r in &f.summary.releases {
            t.add_row(vec![
                format!("{} {}", r.product, r.version),
                r.findings.to_string(),
                r.environments.to_string(),
            ]);
        }
        let _ = writeln!(out, "{t}");
    }
    let _ = writeln!(out, "{}", summary_line(f));
    out
}

/// `upgrades` on a fleet: where products are behind, and what is safe everywhere.
#[must_use]
pub fn upgrades(f: &FleetUpgrades) -> String {
    let mut out = String::new();
    if !f.behind.is_empty() {
        out.push_str("Behind:\n");
        let mut t = table(&[
            "Product",
            "Environment",
            "File",
            "Installed",
            "Safe",
            "Latest",
        ]);
        for b in &f.behind {
            t.add_row(vec![
                b.product.to_string(),
                b.environment.clone(),
                b.file.to_string(),
                b.installed.clone(),
                b.safe.clone().unwrap_or_else(|| "-".to_owned()),
                b.latest.clone(),
            ]);
        }
        let _ = writeln!(out, "{t}");
    }
    if !f.everywhere.is_empty() {
        out.push_str("Safe everywhere:\n");
        let mut t = table(&["Product", "Version", "Moves", "Runs it"]);
        for e in &f.everywhere {
            t.add_row(vec![
                e.product.to_string(),
                e.version.clone(),
                e.moves.to_string(),
                e.running.to_string(),
            ]);
        }
        let _ = writeln!(out, "{t}");
    }
    let _ = writeln!(out, "{}", upgrades_line(f));
    out
}
