//! Fleet reports for people: each environment's report as it reads alone, under a heading
//! naming its file, then the summary tables and line, all for the same [`Layout`] (tables
//! fitted to its width, verdicts and severities coloured) as the single-environment reports.

use std::fmt::Write;

use crate::finding::Severity;
use crate::fleet::{FleetUpgrades, FleetValidation};
use crate::report::human;
use crate::report::layout::{Grid, Layout, Tone};

use super::{summary_line, upgrades_line};

/// `validate` on a fleet.
#[must_use]
pub fn validation(f: &FleetValidation, fail_on: Severity, layout: &Layout) -> String {
    let mut out = String::new();
    for m in &f.members {
        let _ = writeln!(out, "=== {} ===", m.file);
        out.push_str(&human::validation(&m.validation, fail_on, layout));
        out.push('\n');
    }
    let mut t = Grid::new(&["Environment", "File", "Verdict", "Errors", "Warnings"]);
    for v in &f.summary.environments {
        let (verdict, tone) = if v.valid {
            ("valid", Tone::Good)
        } else {
            ("invalid", Tone::Bad)
        };
        t.toned_row(vec![
            (v.environment.clone(), None),
            (v.file.to_string(), None),
            (verdict.to_owned(), Some(tone)),
            (v.errors.to_string(), None),
            (v.warnings.to_string(), None),
        ]);
    }
    let _ = writeln!(out, "{}", t.render(layout));
    if !f.summary.releases.is_empty() {
        out.push_str("Releases most often involved in findings:\n");
        let mut t = Grid::new(&["Release", "Findings", "Environments"]);
        for r in &f.summary.releases {
            t.row(vec![
                format!("{} {}", r.product, r.version),
                r.findings.to_string(),
                r.environments.to_string(),
            ]);
        }
        let _ = writeln!(out, "{}", t.render(layout));
    }
    // `fleet: VERDICT, ...`: the verdict painted
    let line = summary_line(f);
    let (verdict, tone) = if f.passes() {
        ("valid", Tone::Good)
    } else {
        ("invalid", Tone::Bad)
    };
    match line.strip_prefix(&format!("fleet: {verdict}")) {
        Some(rest) => {
            let _ = writeln!(out, "fleet: {}{rest}", layout.paint(verdict, tone));
        }
        None => {
            let _ = writeln!(out, "{line}");
        }
    }
    out
}

/// `upgrades` on a fleet: where products are behind, and what is safe everywhere.
#[must_use]
pub fn upgrades(f: &FleetUpgrades, layout: &Layout) -> String {
    let mut out = String::new();
    if !f.behind.is_empty() {
        out.push_str("Behind:\n");
        let mut t = Grid::new(&[
            "Product",
            "Environment",
            "File",
            "Installed",
            "Safe",
            "Latest",
        ]);
        for b in &f.behind {
            let held = b.safe.as_ref() != Some(&b.latest);
            t.toned_row(vec![
                (b.product.to_string(), None),
                (b.environment.clone(), None),
                (b.file.to_string(), None),
                (b.installed.clone(), None),
                (
                    b.safe.clone().unwrap_or_else(|| "-".to_owned()),
                    b.safe.is_some().then_some(Tone::Good),
                ),
                (b.latest.clone(), held.then_some(Tone::Caution)),
            ]);
        }
        let _ = writeln!(out, "{}", t.render(layout));
    }
    if !f.everywhere.is_empty() {
        out.push_str("Safe everywhere:\n");
        let mut t = Grid::new(&["Product", "Version", "Moves", "Runs it"]);
        for e in &f.everywhere {
            t.toned_row(vec![
                (e.product.to_string(), None),
                (e.version.clone(), Some(Tone::Good)),
                (e.moves.to_string(), None),
                (e.running.to_string(), None),
            ]);
        }
        let _ = writeln!(out, "{}", t.render(layout));
    }
    let _ = writeln!(out, "{}", upgrades_line(f));
    out
}
