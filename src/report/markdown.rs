//! Markdown for change requests and pull-request comments.

use std::fmt::Write;

use crate::order::InstallOrder;
use crate::upgrade::Upgrade;

use super::human::{blocked_cell, upgrades_summary};

pub(super) fn cell(text: &str) -> String {
    text.replace('|', "\\|")
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
    if !o.missing.is_empty() {
        out.push_str("\n**Cannot be installed:** required dependencies that are neither installed nor managed:\n\n");
        for m in &o.missing {
            let _ = writeln!(
                out,
                "- `{}` requires `{}` {}",
                m.entity, m.dependency, m.range
            );
        }
    }
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
