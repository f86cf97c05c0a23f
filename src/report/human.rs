//! The human format: tables (comfy-table) and one-line summaries. Laid out for where it goes
//! through a [`Layout`] the command line gives (a width to fit, colour or not);
//! [`Layout::PLAIN`], what a pipe or a file gets, is the same bytes everywhere, so the output
//! can be diffed.

use std::fmt::Write;

use comfy_table::{ContentArrangement, Table, presets};

use crate::diagnostic::Location;
use crate::finding::{Code, Finding, Severity};
use crate::lint::Lint;
use crate::manifest::Manifest;
use crate::order::InstallOrder;
use crate::plan::Plan;
use crate::product::ProductId;
use crate::solve::Unproven;
use crate::upgrade::Upgrade;
use crate::validate::Validation;

use super::layout::{Grid, Layout, Tone, severity_tone};
use super::{count_summary, plural, validation_summary};

/// A table in the house style.
#[must_use]
pub fn table(header: &[&str]) -> Table {
    let mut table = Table::new();
    table
        .force_no_tty() // what is styled is the caller's choice, not the terminal's
        .load_style(presets::UTF8_FULL_CONDENSED)
        .set_content_arrangement(ContentArrangement::Disabled)
        .set_header(header);
    table
}

/// What was found, in a table cell: `api-1 2.0.0`, or `not installed`.
fn found(f: &Finding) -> String {
    match (&f.found_entity, &f.found) {
        (Some(entity), Some(version)) => format!("{entity} {version}"),
        // a runtime's version (section 9: the environment's, not an entity's)
        (None, Some(version)) => version.clone(),
        _ if f.code == Code::MissingDependency => "not installed".to_owned(),
        _ if f.code == Code::MissingCapability => "no provider".to_owned(),
        _ if f.code == Code::UnknownRuntime => "not declared".to_owned(),
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
pub fn validation(v: &Validation, fail_on: Severity, layout: &Layout) -> String {
    let mut out = String::new();
    let findings: Vec<&Finding> = v.findings().collect();
    if !findings.is_empty() {
        let mut t = Grid::new(&[
            "Entity",
            "Release",
            "Level",
            "Code",
            "Constraint",
            "Found",
            "Declared at",
        ]);
        for f in findings {
            let release = finding_release(f);
            // an accepted finding keeps its row, marked, with the reason under its constraint
            let (level, tone, constraint) = match &f.accepted {
                None => (
                    f.severity.as_str().to_owned(),
                    Some(severity_tone(f.severity)),
                    f.detail.clone(),
                ),
                Some(a) => (
                    format!("{} (accepted)", f.severity.as_str()),
                    None,
                    format!("{}\naccepted: {}", f.detail, a.reason),
                ),
            };
            t.toned_row(vec![
                (f.entity.clone().unwrap_or_default(), None),
                (release, None),
                (level, tone),
                (f.code.to_string(), None),
                (constraint, None),
                (found(f), None),
                (location(f), None),
            ]);
        }
        out.push_str(&t.render(layout));
        out.push('\n');
    }
    let summary = validation_summary(v, fail_on);
    let (verdict, tone) = if v.passes(fail_on) {
        ("valid", Tone::Good)
    } else {
        ("invalid", Tone::Bad)
    };
    // `ENV: VERDICT, ...`: the verdict painted
    let head = format!("{}: {verdict}", v.environment);
    match summary.strip_prefix(&head) {
        Some(rest) => {
            let _ = write!(
                out,
                "{}: {}{rest}",
                v.environment,
                layout.paint(verdict, tone)
            );
        }
        None => out.push_str(&summary),
    }
    out.push('\n');
    out
}

/// Lint findings by file and line, then the summary line.
#[must_use]
pub fn lint(l: &Lint, layout: &Layout) -> String {
    let mut out = String::new();
    if !l.findings.is_empty() {
        let mut t = Grid::new(&["Location", "Release", "Level", "Code", "Problem"]);
        for f in &l.findings {
            let release = finding_release(f);
            t.toned_row(vec![
                (location(f), None),
                (release, None),
                (
                    f.severity.as_str().to_owned(),
                    Some(severity_tone(f.severity)),
                ),
                (f.code.to_string(), None),
                (f.detail.clone(), None),
            ]);
        }
        out.push_str(&t.render(layout));
        out.push('\n');
    }
    let errors = l
        .findings
        .iter()
        .filter(|f| f.severity == Severity::Error)
        .count();
    let warnings = l.findings.len() - errors;
    let tone = match (errors, warnings) {
        (0, 0) => Tone::Good,
        (0, _) => Tone::Caution,
        _ => Tone::Bad,
    };
    let _ = writeln!(
        out,
        "{} checked: {}",
        plural(l.manifests, "manifest"),
        layout.paint(&count_summary(errors, warnings), tone)
    );
    out
}

/// `catalog list`: one row per product, versions oldest first, then a count.
#[must_use]
pub fn catalog_list(products: &[(ProductId, Vec<String>)], layout: &Layout) -> String {
    let mut t = Grid::new(&["Product", "Releases", "Versions (oldest first)"]);
    for (p, versions) in products {
        t.row(vec![
            p.to_string(),
            versions.len().to_string(),
            versions.join(", "),
        ]);
    }
    let total: usize = products.iter().map(|(_, v)| v.len()).sum();
    format!(
        "{}\n{} of {}\n",
        t.render(layout),
        plural(total, "release"),
        plural(products.len(), "product")
    )
}

/// `catalog show`: a release, its dependencies, incompatibilities and warnings.
#[must_use]
pub fn release(m: &Manifest, layout: &Layout) -> String {
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
        let mut t = Grid::new(&[
            "Depends on",
            "Range",
            "Recommended",
            "Optional",
            "Declared at",
        ]);
        for d in &m.dependencies {
            t.row(vec![
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
        let _ = writeln!(out, "{}", t.render(layout));
    }
    if !m.incompatibilities.is_empty() {
        let mut t = Grid::new(&["Incompatible with", "Range", "Reason", "Declared at"]);
        for i in &m.incompatibilities {
            t.row(vec![
                i.product.to_string(),
                i.range.to_string(),
                i.reason.clone().unwrap_or_default(),
                at(i.location),
            ]);
        }
        let _ = writeln!(out, "{}", t.render(layout));
    }
    for i in &m.issues {
        let _ = writeln!(
            out,
            "{} {}: {} at {}",
            layout.paint("warning", Tone::Caution),
            i.code,
            i.message,
            at(i.location)
        );
    }
    out
}

/// `order --by`: the waves of groups, the groups in a cycle, a summary. The group `""` (no
/// key) is shown as `(none)`.
#[must_use]
pub fn group_order(o: &crate::grouping::GroupOrder, layout: &Layout) -> String {
    let shown = |g: &String| {
        if g.is_empty() {
            "(none)".to_owned()
        } else {
            g.clone()
        }
    };
    let list = |gs: &[String]| gs.iter().map(shown).collect::<Vec<_>>().join(", ");
    let mut out = String::new();
    if !o.waves.is_empty() {
        let mut t = Grid::new(&["Wave", &format!("Groups by {}", o.by)]);
        for (i, wave) in o.waves.iter().enumerate() {
            t.row(vec![(i + 1).to_string(), list(wave)]);
        }
        let _ = writeln!(out, "{}", t.render(layout));
    }
    for g in &o.groups {
        let _ = writeln!(
            out,
            "groups that wait for one another (one wave): {}",
            list(g)
        );
    }
    // what keeps the order from being carried out, in entity terms as `order` says it
    for cycle in &o.data_cycles {
        data_cycle_line(&mut out, cycle, layout);
    }
    missing_lines(&mut out, &o.missing, &o.missing_capabilities, layout);
    let _ = writeln!(
        out,
        "{}: {} by {} in {}",
        o.environment,
        plural(o.order.len(), "group"),
        o.by,
        plural(o.waves.len(), "wave")
    );
    out
}

/// An order's required dependencies and capabilities that nothing provides, a line each.
fn missing_lines(
    out: &mut String,
    missing: &[crate::order::MissingDependency],
    missing_capabilities: &[crate::order::MissingCapability],
    layout: &Layout,
) {
    for m in missing {
        let _ = writeln!(
            out,
            "{} {}: it requires {} {}, which is neither installed nor managed",
            layout.paint("cannot install", Tone::Bad),
            m.entity,
            m.dependency,
            m.range
        );
    }
    for m in missing_capabilities {
        let _ = writeln!(
            out,
            "{} {}: it requires capability {}{}, which no entity provides{}",
            layout.paint("cannot install", Tone::Bad),
            m.entity,
            m.capability,
            crate::constraint::range_words(&m.range),
            if m.range.minimum.is_none() && m.range.maximum.is_none() {
                ""
            } else {
                " in range"
            }
        );
    }
}

/// A cycle of entities a data edge runs through, as a closed path.
fn data_cycle_line(out: &mut String, cycle: &[String], layout: &Layout) {
    let _ = writeln!(
        out,
        "{} (data flows around it, nothing can go first): {}",
        layout.paint("data cycle", Tone::Bad),
        cycle.join(" -> ")
    );
}

/// Section 10 under the waves: the bindings and the wiring, as tables.
fn instance_lists(out: &mut String, lists: &crate::wiring::Lists, layout: &Layout) {
    if !lists.bindings.is_empty() {
        let mut t = Grid::new(&["Entity", "Requirement", "Bound to"]);
        for (entity, requirement, to) in &lists.bindings {
            t.row(vec![entity.clone(), requirement.clone(), to.clone()]);
        }
        let _ = writeln!(out, "bindings:\n{}", t.render(layout));
    }
    if !lists.wiring.is_empty() {
        let mut t = Grid::new(&["Entity", "Input", "From", "Output"]);
        for (entity, input, from, output) in &lists.wiring {
            t.row(vec![
                entity.clone(),
                input.clone(),
                from.clone(),
                output.clone().unwrap_or_else(|| "(ready)".into()),
            ]);
        }
        let _ = writeln!(out, "wiring:\n{}", t.render(layout));
    }
}

/// The install order: waves, then the groups written as cycles, then problems, then a summary.
#[must_use]
pub fn install_order(o: &InstallOrder, layout: &Layout) -> String {
    let mut out = String::new();
    if !o.waves.is_empty() {
        let mut t = Grid::new(&["Wave", "Entities", "Waits for"]);
        for (i, wave) in o.waves.iter().enumerate() {
            t.row(vec![
                (i + 1).to_string(),
                wave.entities.join(", "),
                wave.waits_for.join(", "),
            ]);
        }
        let _ = writeln!(out, "{}", t.render(layout));
    }
    let data_cycles: Vec<&crate::order::Group> = o.data_cycles().collect();
    for g in &o.groups {
        if data_cycles.contains(&g) {
            data_cycle_line(&mut out, &g.cycle, layout);
        } else {
            let _ = writeln!(
                out,
                "group (install together, no guaranteed order): {}",
                g.cycle.join(" -> ")
            );
        }
    }
    if let Some(i) = &o.instances {
        instance_lists(&mut out, &i.lists, layout);
    }
    missing_lines(&mut out, &o.missing, &o.missing_capabilities, layout);
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

/// Where a plan creates an entity: `(create in shop, owner=api)`, `(create, owner=api)` in
/// the global namespace; `(install)` for a global entity without labels, as in an
/// environment without section 10, whose human output stays as it was (SPEC 9).
fn created_at(c: &crate::instance::Placement) -> String {
    if c.namespace.is_empty() && c.labels.is_empty() {
        return "(install)".to_owned();
    }
    let mut parts = vec![if c.namespace.is_empty() {
        "create".to_owned()
    } else {
        format!("create in {}", c.namespace)
    }];
    parts.extend(c.labels.iter().map(|(k, v)| format!("{k}={v}")));
    format!("({})", parts.join(", "))
}

/// A plan: the steps as a numbered table, the final state, the explanation, a summary.
#[must_use]
pub fn plan(p: &Plan, layout: &Layout) -> String {
    let mut out = String::new();
    if !p.steps.is_empty() {
        let mut t = Grid::new(&[
            "Step",
            "Entity",
            "Product",
            "From",
            "To",
            "Group",
            "Why this order",
        ]);
        for (i, s) in p.steps.iter().enumerate() {
            t.row(vec![
                (i + 1).to_string(),
                s.entity.clone(),
                s.product.to_string(),
                s.from.clone().unwrap_or_else(|| match &s.create {
                    // section 10: where the created entity stands
                    Some(c) => created_at(c),
                    None => "(install)".to_owned(),
                }),
                s.to.clone(),
                s.group.map(|g| g.to_string()).unwrap_or_default(),
                s.why.clone(),
            ]);
        }
        let _ = writeln!(out, "{}", t.render(layout));
    }
    if p.feasible {
        let mut t = Grid::new(&["Entity", "Product", "Version"]);
        for e in &p.final_state {
            t.row(vec![
                e.entity.clone(),
                e.product.to_string(),
                e.version.clone(),
            ]);
        }
        let _ = writeln!(out, "final state:\n{}", t.render(layout));
    }
    for line in super::plan_notes(p) {
        let _ = writeln!(out, "{line}");
    }
    let verdict = if !p.feasible {
        layout.paint("no plan: the targets cannot be reached", Tone::Bad)
    } else if p.steps.is_empty() {
        layout.paint("nothing to change", Tone::Good)
    } else {
        let groups = p.steps.iter().filter_map(|s| s.group).max().unwrap_or(0);
        format!(
            "{}{}",
            layout.paint(&plural(p.steps.len(), "step"), Tone::Good),
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
            String::new()
        } else if p.unproven.iter().all(|r| *r == Unproven::TimeLimit) {
            format!(
                " ({})",
                layout.paint(
                    "time limit reached: best plan found so far, not proven best",
                    Tone::Caution
                )
            )
        } else {
            format!(
                " ({})",
                layout.paint(
                    &format!("not proven: {}", super::unproven_reasons(&p.unproven)),
                    Tone::Caution
                )
            )
        }
    );
    out
}

/// The release a finding is about, `product version`; the product alone for a finding about
/// whatever release the entity runs (a binding of a requirement it does not declare).
fn finding_release(f: &Finding) -> String {
    match (&f.product, &f.version) {
        (Some(p), Some(v)) => format!("{p} {v}"),
        (Some(p), None) => p.to_string(),
        _ => String::new(),
    }
}

/// One blocking constraint as a short "because" sentence, optional dependencies and
/// incompatibilities marked.
#[must_use]
pub fn because(f: &Finding) -> String {
    let who = finding_release(f);
    match f.code {
        Code::IncompatibleRelease => format!("incompatible: {who} excludes {}", f.detail),
        Code::MissingDependency => format!("{who} requires {}, not installed", f.detail),
        // section 9: the detail says the whole requirement (`requires capability sql 8.0.0..`)
        Code::MissingCapability => format!("{who} {}, which no entity would provide", f.detail),
        Code::CapabilityOutOfRange => format!(
            "{who} {}; {} would provide {}",
            f.detail,
            f.found_entity.as_deref().unwrap_or("a provider"),
            f.found.as_deref().unwrap_or("no version")
        ),
        Code::UnsatisfiedConstraint => format!("{who} {}", f.detail),
        Code::InvalidBinding => format!("{who} {}, which would not provide it", f.detail),
        Code::RuntimeMismatch => format!(
            "{who} {}; the environment runs {}",
            f.detail,
            f.found.as_deref().unwrap_or("another version")
        ),
        // section 10's wiring: the message says the input, its source and the output
        Code::MissingOutput | Code::UnfedInput | Code::DataCycle => f.message.clone(),
        _ if f.optional == Some(true) => format!("{who} requires {} (optional)", f.detail),
        _ => format!("{who} requires {}", f.detail),
    }
}

/// What stands in a row's "Blocked by" cell: the reasons, then what would unblock it.
#[must_use]
pub fn blocked_cell(u: &Upgrade) -> String {
    let mut lines: Vec<String> = Vec::new();
    if !u.behind.is_empty() {
        let who: Vec<String> = u.behind.iter().map(|(e, v)| format!("{e} {v}")).collect();
        let align = match u.align {
            Some(true) => format!(", can move to {} now", u.installed),
            Some(false) => format!(", moving them to {} alone breaks a constraint", u.installed),
            None => String::new(),
        };
        lines.push(format!("behind {}: {}{align}", u.installed, who.join(", ")));
    }
    if u.pinned {
        lines.push("pinned by policy".to_owned());
        return lines.join("; ");
    }
    if u.latest.is_none() || u.latest == u.safe {
        return lines.join("; ");
    }
    for line in u.blocked_by.iter().map(because) {
        // several entities of one release declare the same thing: say it once
        if !lines.contains(&line) {
            lines.push(line);
        }
    }
    if !u.proven {
        let cut = u.unproven.iter().all(|r| *r == Unproven::TimeLimit);
        let needs: Vec<String> = u.requires.iter().map(|(p, v)| format!("{p} {v}")).collect();
        lines.push(match (cut, needs.is_empty()) {
            (true, true) => "time limit reached before co-upgrades were found".to_owned(),
            (true, false) => format!("needs (not proven fewest): {}", needs.join(", ")),
            (false, true) => format!("not proven: {}", unproven_details(&u.unproven)),
            (false, false) => format!(
                "needs (not proven fewest): {} ({})",
                needs.join(", "),
                unproven_details(&u.unproven)
            ),
        });
    } else if !u.latest_installable {
        lines.push("no upgrade of other installed products makes it installable".to_owned());
    } else if !u.requires.is_empty() {
        let needs: Vec<String> = u.requires.iter().map(|(p, v)| format!("{p} {v}")).collect();
        lines.push(format!("needs: {}", needs.join(", ")));
    }
    lines.join("; ")
}

/// Why a row is not proven, with the findings a checked state would add.
fn unproven_details(reasons: &[Unproven]) -> String {
    reasons
        .iter()
        .map(|r| match r {
            Unproven::Unjudged(findings) => {
                format!("the state found would add {}", findings.join("; "))
            }
            other => other.short().to_owned(),
        })
        .collect::<Vec<_>>()
        .join("; ")
}

/// `N can move now, M held back, K up to date`.
#[must_use]
pub fn upgrades_summary(list: &[Upgrade]) -> String {
    upgrades_summary_in(list, &Layout::PLAIN)
}

/// [`upgrades_summary`], its counts painted.
fn upgrades_summary_in(list: &[Upgrade], layout: &Layout) -> String {
    let movable = list.iter().filter(|u| u.safe.is_some()).count();
    let held = list
        .iter()
        .filter(|u| u.latest.is_some() && u.latest != u.safe)
        .count();
    let current = list.iter().filter(|u| u.latest.is_none()).count();
    format!(
        "{}, {}, {} up to date (of {}){}",
        layout.paint(&format!("{movable} can move now"), Tone::Good),
        layout.paint(&format!("{held} held back"), Tone::Caution),
        current,
        plural(list.len(), "installed product"),
        super::rows_not_proven(list).map_or_else(String::new, |note| {
            layout.paint(&format!("; {note} (marked *)"), Tone::Caution)
        })
    )
}

/// `upgrades`: one table sorted by product (with `outdated`, only the rows that can move or
/// are blocked), then the summary of every row.
#[must_use]
pub fn upgrades(list: &[Upgrade], outdated: bool, layout: &Layout) -> String {
    let mut out = String::new();
    let rows: Vec<&Upgrade> = list.iter().filter(|u| !outdated || u.outdated()).collect();
    if !rows.is_empty() {
        let mut t = Grid::new(&["Product", "Installed", "Safe", "Latest", "Blocked by"]);
        for u in rows {
            let held = u.latest.is_some() && u.latest != u.safe;
            t.toned_row(vec![
                (
                    format!("{}{}", u.product, if u.proven { "" } else { " *" }),
                    None,
                ),
                (u.installed.clone(), None),
                (
                    u.safe.clone().unwrap_or_else(|| "-".to_owned()),
                    u.safe.is_some().then_some(Tone::Good),
                ),
                (
                    u.latest.clone().unwrap_or_else(|| "-".to_owned()),
                    held.then_some(Tone::Caution),
                ),
                (blocked_cell(u), held.then_some(Tone::Bad)),
            ]);
        }
        let _ = writeln!(out, "{}", t.render(layout));
    }
    for line in unreachable_latest(list) {
        let _ = writeln!(out, "{line}");
    }
    let _ = writeln!(out, "{}", upgrades_summary_in(list, layout));
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
