//! Markdown for change requests and pull-request comments.

use std::fmt::Write;

use crate::order::InstallOrder;
use crate::plan::Plan;
use crate::upgrade::Upgrade;

use super::human::{blocked_cell, upgrades_summary};

pub(super) fn cell(text: &str) -> String {
    text.replace('|', "\\|")
}

/// A plan for a pull request: the verdict first (proven or cut short, said plainly), the
/// steps as a table, the explanation and repairs as a fenced block, the final state folded.
#[must_use]
pub fn plan(environment: &str, p: &Plan) -> String {
    let mut out = format!("## Upgrade plan for `{environment}`\n\n");
    let groups = p.steps.iter().filter_map(|s| s.group).max().unwrap_or(0);
    let verdict = if !p.feasible {
        "**No plan**: the targets cannot be reached.".to_owned()
    } else if p.steps.is_empty() {
        "**Nothing to change.**".to_owned()
    } else {
        format!(
            "**{}**{}.",
            super::plural(p.steps.len(), "step"),
            if groups > 0 {
                format!(", {} applied at once", super::plural(groups, "group"))
            } else {
                String::new()
            }
        )
    };
    let cut = p
        .unproven
        .iter()
        .all(|r| *r == crate::solve::Unproven::TimeLimit);
    let proof = match (p.complete, p.feasible, cut) {
        (true, true, _) => {
            "Proven: the search finished; no better plan exists under this policy.".to_owned()
        }
        (true, false, _) => "Proven: no valid state reaches them under this policy.".to_owned(),
        (false, true, true) => "**Not proven**: the time limit cut the search short; this is \
            the best plan found so far (exit code 4)."
            .to_owned(),
        (false, false, true) => "**Not proven**: the time limit cut the search short before a \
            plan was found (exit code 4)."
            .to_owned(),
        (false, _, false) => format!(
            "**Not proven** ({}): see the notes below (exit code 4).",
            super::unproven_reasons(&p.unproven)
        ),
    };
    let _ = writeln!(out, "{verdict} {proof}\n");
    if !p.steps.is_empty() {
        out.push_str(
            "| Step | Entity | Product | From | To | Group | Why this order |\n\
             |---:|---|---|---|---|---:|---|\n",
        );
        for (i, s) in p.steps.iter().enumerate() {
            let _ = writeln!(
                out,
                "| {} | {} | `{}` | {} | **{}** | {} | {} |",
                i + 1,
                cell(&s.entity),
                s.product,
                s.from.as_deref().unwrap_or("(install)"),
                s.to,
                s.group.map(|g| g.to_string()).unwrap_or_default(),
                cell(&s.why)
            );
        }
        out.push('\n');
    }
    let notes = super::plan_notes(p);
    if !notes.is_empty() {
        let _ = writeln!(out, "```text\n{}\n```\n", notes.join("\n"));
    }
    if p.feasible && !p.final_state.is_empty() {
        out.push_str(
            "<details><summary>Final state</summary>\n\n\
             | Entity | Product | Version |\n|---|---|---|\n",
        );
        for e in &p.final_state {
            let _ = writeln!(
                out,
                "| {} | `{}` | {} |",
                cell(&e.entity),
                e.product,
                e.version
            );
        }
        out.push_str("\n</details>\n");
    }
    out
}

/// `order --by` as a markdown section: the waves of groups, the groups in a cycle.
#[must_use]
pub fn group_order(o: &crate::grouping::GroupOrder) -> String {
    let mut out = format!("## Install order for `{}` by {}\n\n", o.environment, o.by);
    out.push_str("| Wave | Groups |\n|---:|---|\n");
    for (i, wave) in o.waves.iter().enumerate() {
        let names: Vec<&str> = wave
            .iter()
            .map(|g| if g.is_empty() { "(none)" } else { g.as_str() })
            .collect();
        let _ = writeln!(out, "| {} | {} |", i + 1, cell(&names.join(", ")));
    }
    for g in &o.groups {
        let _ = writeln!(
            out,
            "\nWaiting for one another (one wave): `{}`",
            g.join(", ")
        );
    }
    let data_cycles: Vec<&[String]> = o.data_cycles.iter().map(Vec::as_slice).collect();
    data_cycle_list(&mut out, &data_cycles);
    missing_lists(&mut out, &o.missing, &o.missing_capabilities);
    out
}

/// The cycles of entities a data edge runs through, as closed paths.
fn data_cycle_list(out: &mut String, cycles: &[&[String]]) {
    if !cycles.is_empty() {
        out.push_str("\n**Data cycles:** data flows around these groups, so nothing in them can go first:\n\n");
        for cycle in cycles {
            let _ = writeln!(out, "- `{}`", cycle.join(" -> "));
        }
    }
}

/// An order's required capabilities and dependencies that nothing provides.
fn missing_lists(
    out: &mut String,
    missing: &[crate::order::MissingDependency],
    missing_capabilities: &[crate::order::MissingCapability],
) {
    if !missing_capabilities.is_empty() {
        out.push_str(
            "\n**Cannot be installed:** required capabilities that no entity provides:\n\n",
        );
        for m in missing_capabilities {
            let _ = writeln!(
                out,
                "- `{}` requires capability `{}`{}",
                m.entity,
                m.capability,
                crate::constraint::range_words(&m.range)
            );
        }
    }
    if !missing.is_empty() {
        out.push_str("\n**Cannot be installed:** required dependencies that are neither installed nor managed:\n\n");
        for m in missing {
            let _ = writeln!(
                out,
                "- `{}` requires `{}` {}",
                m.entity, m.dependency, m.range
            );
        }
    }
}

/// The install order as a markdown section: waves table, groups, problems.
#[must_use]
pub fn install_order(o: &InstallOrder) -> String {
    let mut out = format!("## Install order for `{}`\n\n", o.environment);
    if o.order.is_empty() {
        out.push_str("Nothing to install: no managed entities.\n");
    } else {
        out.push_str("| Wave | Entities | Waits for |\n|---:|---|---|\n");
        for (i, wave) in o.waves.iter().enumerate() {
            let _ = writeln!(
                out,
                "| {} | {} | {} |",
                i + 1,
                cell(&wave.entities.join(", ")),
                cell(&wave.waits_for.join(", "))
            );
        }
    }
    if !o.groups.is_empty() {
        out.push_str(
            "\nInstalled together (cycles of required dependencies, no guaranteed order):\n\n",
        );
        for g in &o.groups {
            let _ = writeln!(out, "- `{}`", g.cycle.join(" -> "));
        }
    }
    let data_cycles: Vec<&[String]> = o.data_cycles().map(|g| g.cycle.as_slice()).collect();
    data_cycle_list(&mut out, &data_cycles);
    if let Some(i) = o
        .instances
        .as_ref()
        .filter(|i| !i.lists.bindings.is_empty())
    {
        out.push_str("\n| Entity | Requirement | Bound to |\n|---|---|---|\n");
        for (entity, requirement, to) in &i.lists.bindings {
            let _ = writeln!(
                out,
                "| {} | {} | {} |",
                cell(entity),
                cell(requirement),
                cell(to)
            );
        }
    }
    if let Some(i) = o.instances.as_ref().filter(|i| !i.lists.wiring.is_empty()) {
        out.push_str("\n| Entity | Input | From | Output |\n|---|---|---|---|\n");
        for (entity, input, from, output) in &i.lists.wiring {
            let output = output.as_deref().unwrap_or("(ready)");
            let _ = writeln!(
                out,
                "| {} | {} | {} | {} |",
                cell(entity),
                cell(input),
                cell(from),
                cell(output)
            );
        }
    }
    missing_lists(&mut out, &o.missing, &o.missing_capabilities);
    if !o.unknown.is_empty() {
        let _ = writeln!(
            out,
            "\nNot in the catalog (placed as if they had no dependencies): {}",
            o.unknown
                .iter()
                .map(|u| format!("`{u}`"))
                .collect::<Vec<_>>()
                .join(", ")
        );
    }
    out
}

/// Safe upgrades as a markdown table for a pull-request comment.
#[must_use]
pub fn upgrades(environment: &str, list: &[Upgrade], outdated: bool) -> String {
    let mut out = format!("## Upgrades for `{environment}`\n\n");
    let rows: Vec<&Upgrade> = list.iter().filter(|u| !outdated || u.outdated()).collect();
    if !rows.is_empty() {
        out.push_str(
            "| Product | Installed | Safe | Latest | Blocked by |\n|---|---|---|---|---|\n",
        );
        for u in rows {
            let _ = writeln!(
                out,
                "| `{}`{} | {} | {} | {} | {} |",
                u.product,
                if u.proven { "" } else { " \\*" },
                u.installed,
                u.safe
                    .as_deref()
                    .map_or_else(|| "–".to_owned(), |s| format!("**{s}**")),
                u.latest.as_deref().unwrap_or("–"),
                cell(&blocked_cell(u))
            );
        }
        out.push('\n');
    }
    let why = super::human::unreachable_latest(list);
    if !why.is_empty() {
        // the sentences as a fenced block: indentation is their structure
        let _ = writeln!(out, "```text\n{}\n```\n", why.join("\n"));
    }
    let _ = writeln!(out, "{}", upgrades_summary(list));
    out
}
