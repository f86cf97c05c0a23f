//! The human format: tables (comfy-table) and one-line summaries, laid out the same on a
//! terminal and in a CI log (no width detection, no colour), so the output can be diffed.

use std::fmt::Write;

use comfy_table::{ContentArrangement, Table, presets};

use crate::diagnostic::Location;
use crate::finding::{Code, Finding, Severity};
use crate::lint::Lint;
use crate::manifest::Manifest;
use crate::order::InstallOrder;
use crate::plan::Plan;
use crate::product::ProductId;
use crate::upgrade::Upgrade;
use crate::validate::Validation;

use super::{count_summary, plural, validation_summary};

/// A table in the house style.
#[must_use]
pub fn table(header: &[&str]) -> Table {
    let mut table = Table::new();
    table
        .load_style(presets::UTF8_FULL_CONDENSED)
        .set_content_arrangement(ContentArrangement::Disabled)
        .set_header(header);
    table
}

/// What was found, in a table cell: `api-1 2.0.0`, or `not installed`.
fn found(f: &Finding) -> String {
    match (&f.found_entity, &f.found) {
        (Some(entity), Some(version)) => format!("{entity} {version}"),
        _ if f.code == Code::MissingDependency => "not installed".to_owned(),
        _ => String::new(),
    }
}

fn location(f: &Finding) -> String {
    f.location
        .as_ref()
        .map(ToString::to_string)
        .unwrap_or_default()
}

/// Findings grouped by entity (the core sorts them so), then the summary line.
#[must_use]
pub fn validation(v: &Validation, fail_on: Severity) -> String {
    let mut out = String::new();
    let findings: Vec<&Finding> = v.findings().collect();
    if !findings.is_empty() {
        let mut t = table(&[
            "Entity",
            "Release",
            "Level",
            "Code",
            "Constraint",
            "Found",
            "Declared at",
        ]);
        for f in findings {
            let release = match (&f.product, &f.version) {
                (Some(p), Some(v)) => format!("{p} {v}"),
                _ => String::new(),
            };
            // an accepted finding keeps its row, marked, with the reason under its constraint
            let (level, constraint) = match &f.accepted {
                None => (f.severity.as_str().to_owned(), f.detail.clone()),
                Some(a) => (
                    format!("{} (accepted)", f.severity.as_str()),
                    format!("{}\naccepted: {}", f.detail, a.reason),
                ),
            };
            t.add_row(vec![
                f.entity.clone().unwrap_or_default(),
                release,
                level,
                f.code.to_string(),
                constraint,
                found(f),
                location(f),
            ]);
        }
        out.push_str(&t.to_string());
        out.push('\n');
    }
    out.push_str(&validation_summary(v, fail_on));
    out.push('\n');
    out
}

/// Lint findings by file and line, then the summary line.
#[must_use]
pub fn lint(l: &Lint) -> String {
    let mut out = String::new();
    if !l.findings.is_empty() {
        let mut t = table(&["Location", "Release", "Level", "Code", "Problem"]);
        for f in &l.findings {
            let release = match (&f.product, &f.version) {
                (Some(p), Some(v)) => format!("{p} {v}"),
                _ => String::new(),
            };
            t.add_row(vec![
                location(f),
                release,
                f.severity.as_str().to_owned(),
                f.code.to_string(),
                f.detail.clone(),
            ]);
        }
        out.push_str(&t.to_string());
        out.push('\n');
    }
    let errors = l
        .findings
        .iter()
        .filter(|f| f.severity == Severity::Error)
        .count();
    let warnings = l.findings.len() - errors;
    let _ = writeln!(
        out,
        "{} checked: {}",
        plural(l.manifests, "manifest"),
        count_summary(errors, warnings)
    );
    out
}

/// `catalog list`: one row per product, versions oldest first, then a count.
#[must_use]
pub fn catalog_list(products: &[(ProductId, Vec<String>)]) -> String {
    let mut t = table(&["Product", "Releases", "Versions (oldest first)"]);
    for (p, versions) in products {
        t.add_row(vec![
            p.to_string(),
            versions.len().to_string(),
            versions.join(", "),
        ]);
    }
    let total: usize = products.iter().map(|(_, v)| v.len()).sum();
    format!(
        "{t}\n{} of {}\n",
        plural(total, "release"),
        plural(products.len(), "product")
    )
}

/// `catalog show`: a release, its dependencies, incompatibilities and warnings.
#[must_use]
pub fn release(m: &Manifest) -> String {
    let at = |l: Location| format!("{}:{}:{}", m.file, l.line, l.column);
    let mut out = format!(
        "{} ({}) declared at {}\n",
        m.release_name(),
        m.product_type.as_deref().unwrap_or("no product-type"),
        at(m.location)
    );
    if m.dependencies.is_empty() {
        out.push_str("no dependencies\n");
    } else {
        let mut t = table(&[
            "Depends on",
            "Range",
            "Recommended",
            "Optional",
            "Declared at",
        ]);
        for d in &m.dependencies {
            t.add_row(vec![
                d.product.to_string(),
                d.range.to_string(),
                d.recommended
                    .as_ref()
                    .map(ToString::to_string)
                    .unwrap_or_default(),
                if d.optional { "yes" } else { "no" }.to_owned(),
                at(d.location),
            ]);
        }
        let _ = writeln!(out, "{t}");
    }
    if !m.incompatibilities.is_empty() {
        let mut t = table(&["Incompatible with", "Range", "Reason", "Declared at"]);
        for i in &m.incompatibilities {
            t.add_row(vec![
                i.product.to_string(),
                i.range.to_string(),
                i.reason.clone().unwrap_or_default(),
                at(i.location),
            ]);
        }
        let _ = writeln!(out, "{t}");
    }
    for i in &m.issues {
        let _ = writeln!(
            out,
            "warning {}: {} at {}",
            i.code,
            i.message,
            at(i.location)
        );
    }
    out
}

/// The install order: waves, then the groups written as cycles, then problems, then a summary.
#[must_use]
pub fn install_order(o: &InstallOrder) -> String {
    let mut out = String::new();
    if !o.waves.is_empty() {
        let mut t = table(&["Wave", "Entities", "Waits for"]);
        for (i, wave) in o.waves.iter().enumerate() {
            t.add_row(vec![
                (i + 1).to_string(),
                wave.entities.join(", "),
                wave.waits_for.join(", "),
            ]);
        }
        let _ = writeln!(out, "{t}");
    }
    for g in &o.groups {
        let _ = writeln!(
            out,
            "group (install together, no guaranteed order): {}",
            g.cycle.join(" -> ")
        );
    }
    for m in &o.missing {
        let _ = writeln!(
            out,
            "cannot install {}: it requires {} {}, which is neither installed nor managed",
            m.entity, m.dependency, m.range
        );
    }
    for u in &o.unknown {
        let _ = writeln!(
            out,
            "note: {u}'s release is not in the catalog; it is placed as if it had no dependencies"
        );
    }
    if o.order.is_empty() {
        let _ = writeln!(
            out,
            "{}: nothing to install (no managed entities)",
            o.environment
        );
    } else {
        let _ = writeln!(
            out,
            "{}: {} in {}{}",
            o.environment,
            plural(o.order.len(), "entity"),
            plural(o.waves.len(), "wave"),
            if o.groups.is_empty() {
                String::new()
            } else {
                format!(", {}", plural(o.groups.len(), "group"))
            }
        );
    }
    out
}

/// A plan: the steps as a numbered table, the final state, the explanation, a summary.
#[must_use]
pub fn plan(p: &Plan) -> String {
    let mut out = String::new();
    if !p.steps.is_empty() {
        let mut t = table(&[
            "Step",
            "Entity",
            "Product",
            "From",
            "To",
            "Group",
            "Why this order",
        ]);
        for (i, s) in p.steps.iter().enumerate() {
            t.add_row(vec![
                (i + 1).to_string(),
                s.entity.clone(),
                s.product.to_string(),
                s.from.clone().unwrap_or_else(|| "(install)".to_owned()),
                s.to.clone(),
                s.group.map(|g| g.to_string()).unwrap_or_default(),
                s.why.clone(),
            ]);
        }
        let _ = writeln!(out, "{t}");
    }
    if p.feasible {
        let mut t = table(&["Entity", "Product", "Version"]);
        for e in &p.final_state {
            t.add_row(vec![
                e.entity.clone(),
                e.product.to_string(),
                e.version.clone(),
            ]);
        }
        let _ = writeln!(out, "final state:\n{t}");
    }
    for line in &p.explanation {
        let _ = writeln!(out, "{line}");
    }
    for line in &p.repairs {
        let _ = writeln!(out, "repairs: {line}");
    }
    for line in &p.unrepaired {
        let _ = writeln!(out, "still broken (not made worse): {line}");
    }
    let verdict = if !p.feasible {
        "no plan: the targets cannot be reached".to_owned()
    } else if p.steps.is_empty() {
        "nothing to change".to_owned()
    } else {
        let groups = p.steps.iter().filter_map(|s| s.group).max().unwrap_or(0);
        format!(
            "{}{}",
            plural(p.steps.len(), "step"),
            if groups > 0 {
                format!(", {} applied at once", plural(groups, "group"))
            } else {
                String::new()
            }
        )
    };
    let _ = writeln!(
        out,
        "{verdict}{}",
        if p.complete {
            ""
        } else {
            " (time limit reached: best plan found so far, not proven best)"
        }
    );
    out
}

/// One blocking constraint as a short "because" sentence, optional dependencies and
/// incompatibilities marked.
#[must_use]
pub fn because(f: &Finding) -> String {
    let who = match (&f.product, &f.version) {
        (Some(p), Some(v)) => format!("{p} {v}"),
        _ => String::new(),
    };
    match f.code {
        Code::IncompatibleRelease => format!("incompatible: {who} excludes {}", f.detail),
        Code::MissingDependency => format!("{who} requires {}, not installed", f.detail),
        _ if f.optional == Some(true) => format!("{who} requires {} (optional)", f.detail),
        _ => format!("{who} requires {}", f.detail),
    }
}

/// What stands in a row's "Blocked by" cell: the reasons, then what would unblock it.
#[must_use]
pub fn blocked_cell(u: &Upgrade) -> String {
    if u.latest.is_none() || u.latest == u.safe {
        return String::new();
    }
    let mut lines: Vec<String> = Vec::new();
    for line in u.blocked_by.iter().map(because) {
        // several entities of one release declare the same thing: say it once
        if !lines.contains(&line) {
            lines.push(line);
        }
    }
    if !u.proven {
        lines.push(if u.requires.is_empty() {
            "time limit reached before co-upgrades were found".to_owned()
        } else {
            let needs: Vec<String> = u.requires.iter().map(|(p, v)| format!("{p} {v}")).collect();
            format!("needs (not proven fewest): {}", needs.join(", "))
        });
    } else if !u.latest_installable {
        lines.push("no upgrade of other installed products makes it installable".to_owned());
    } else if !u.requires.is_empty() {
        let needs: Vec<String> = u.requires.iter().map(|(p, v)| format!("{p} {v}")).collect();
        lines.push(format!("needs: {}", needs.join(", ")));
    }
    lines.join("; ")
}

/// `N can move now, M held back, K up to date`.
#[must_use]
pub fn upgrades_summary(list: &[Upgrade]) -> String {
    let movable = list.iter().filter(|u| u.safe.is_some()).count();
    let held = list
        .iter()
        .filter(|u| u.latest.is_some() && u.latest != u.safe)
        .count();
    let current = list.iter().filter(|u| u.latest.is_none()).count();
    let cut = list.iter().filter(|u| !u.proven).count();
    format!(
        "{} can move now, {} held back, {} up to date (of {}){}",
        movable,
        held,
        current,
        plural(list.len(), "installed product"),
        if cut == 0 {
            String::new()
        } else {
            format!(
                "; time limit reached: {} not proven (marked *)",
                plural(cut, "row")
            )
        }
    )
}

/// `upgrades`: one table sorted by product (with `outdated`, only the rows that can move or
/// are blocked), then the summary of every row.
#[must_use]
pub fn upgrades(list: &[Upgrade], outdated: bool) -> String {
    let mut out = String::new();
    let rows: Vec<&Upgrade> = list.iter().filter(|u| !outdated || u.outdated()).collect();
    if !rows.is_empty() {
        let mut t = table(&["Product", "Installed", "Safe", "Latest", "Blocked by"]);
        for u in rows {
            t.add_row(vec![
                format!("{}{}", u.product, if u.proven { "" } else { " *" }),
                u.installed.clone(),
                u.safe.clone().unwrap_or_else(|| "-".to_owned()),
                u.latest.clone().unwrap_or_else(|| "-".to_owned()),
                blocked_cell(u),
            ]);
        }
        let _ = writeln!(out, "{t}");
    }
    for line in unreachable_latest(list) {
        let _ = writeln!(out, "{line}");
    }
    let _ = writeln!(out, "{}", upgrades_summary(list));
    out
}

/// For each row whose `latest` no co-upgrade makes installable: why, from the proven
/// conflict, as a heading and indented sentences.
#[must_use]
pub fn unreachable_latest(list: &[Upgrade]) -> Vec<String> {
    let mut out = Vec::new();
    for u in list {
        let (Some(why), Some(latest)) = (&u.explanation, &u.latest) else {
            continue;
        };
        out.push(format!("why {} {latest} cannot be installed:", u.product));
        out.extend(why.lines().into_iter().map(|l| format!("  {l}")));
    }
    out
}
