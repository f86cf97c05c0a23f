//! `compat diff`'s answer (module `changes`) in its three formats, human, JSON and Markdown
//! (for a pull request that changes an environment file), kept together in one file apart
//! from the per-format files (whose table style and JSON writer it uses).

use std::fmt::Write;

use serde_json::json;

use crate::changes::{Change, Diff, Side};
use crate::finding::Finding;

use super::json::to_json;
use super::layout::{Grid, Layout};
use super::plural;

/// `1.1.0`, `1.10.0 (managed)`, or `-`.
fn side(s: Option<&Side>) -> String {
    match s {
        None => "-".to_owned(),
        Some(s) if s.state == crate::environment::State::Installed => s.version.to_string(),
        Some(s) => format!("{} ({})", s.version, s.state.as_str()),
    }
}

fn verdict(c: &Change) -> &'static str {
    if c.safe { "safe" } else { "unsafe" }
}

/// `error version-too-high: message`, marked when accepted.
fn line(f: &Finding) -> String {
    let accepted = f
        .accepted
        .as_ref()
        .map(|a| format!(" (accepted: {})", a.reason))
        .unwrap_or_default();
    format!(
        "{} {}: {}{accepted}",
        f.severity.as_str(),
        f.code,
        f.message
    )
}

/// `3 changes (1 upgrade, 1 added, 1 removed), 1 unsafe`.
fn summary(d: &Diff) -> String {
    let mut kinds: Vec<(&str, usize)> = Vec::new();
    for c in &d.changes {
        match kinds.iter_mut().find(|(k, _)| *k == c.kind.as_str()) {
            Some((_, n)) => *n += 1,
            None => kinds.push((c.kind.as_str(), 1)),
        }
    }
    kinds.sort_unstable();
    let kinds: Vec<String> = kinds
        .iter()
        .map(|(k, n)| match *k {
            "upgrade" | "downgrade" => plural(*n, k),
            "state" => plural(*n, "state change"),
            _ => format!("{n} {k}"),
        })
        .collect();
    let unsafe_count = d.changes.iter().filter(|c| !c.safe).count();
    format!(
        "{} -> {}: {}{}, {}",
        d.old,
        d.new,
        plural(d.changes.len(), "change"),
        if kinds.is_empty() {
            String::new()
        } else {
            format!(" ({})", kinds.join(", "))
        },
        if d.safe() {
            "all safe".to_owned()
        } else {
            format!("{unsafe_count} unsafe")
        }
    )
}

/// A table of changes, the findings each causes and fixes, then a summary line.
#[must_use]
pub fn human(d: &Diff, layout: &Layout) -> String {
    let mut out = String::new();
    if !d.changes.is_empty() {
        let mut t = Grid::new(&[
            "Entity", "Product", "Change", "From", "To", "Verdict", "Findings",
        ]);
        for c in &d.changes {
            let findings: Vec<String> = (c.causes.iter().map(line))
                .chain(c.fixes.iter().map(|f| format!("fixes {}", line(f))))
                .collect();
            t.row(vec![
                c.entity.clone(),
                c.product.to_string(),
                c.kind.as_str().to_owned(),
                side(c.from.as_ref()),
                side(c.to.as_ref()),
                verdict(c).to_owned(),
                findings.join("\n"),
            ]);
        }
        let _ = writeln!(out, "{}", t.render(layout));
    }
    for f in &d.other {
        let _ = writeln!(out, "also new: {}", line(f));
    }
    let _ = writeln!(out, "{}", summary(d));
    out
}

/// `{"old", "new", "safe", "changes": [{"entity", "product", "change", "from", "to", "safe",
/// "causes", "fixes"}], "other"}`; findings as `validate -f json` writes them.
#[must_use]
pub fn json(d: &Diff) -> String {
    let side = |s: Option<&Side>| {
        s.map(|s| json!({"version": s.version.as_str(), "state": s.state.as_str()}))
    };
    to_json(&json!({
        "schema_version": super::json::SCHEMA_VERSION,
        "old": d.old,
        "new": d.new,
        "safe": d.safe(),
        "changes": d.changes.iter().map(|c| json!({
            "entity": c.entity,
            "product": c.product,
            "change": c.kind.as_str(),
            "from": side(c.from.as_ref()),
            "to": side(c.to.as_ref()),
            "safe": c.safe,
            "causes": c.causes,
            "fixes": c.fixes,
        })).collect::<Vec<_>>(),
        "other": d.other,
    }))
}

fn cell(text: &str) -> String {
    text.replace('|', "\\|").replace('\n', "<br>")
}

/// A pull-request comment: the changes as a table, then the findings of each unsafe (and
/// each warned-about) change.
#[must_use]
pub fn markdown(d: &Diff) -> String {
    let mut out = format!("## Environment changes: `{}` → `{}`\n\n", d.old, d.new);
    if d.changes.is_empty() {
        out.push_str("No entity changed.\n\n");
    } else {
        out.push_str("| Entity | Product | Change | From | To | Verdict |\n");
        out.push_str("|---|---|---|---|---|---|\n");
        for c in &d.changes {
            let _ = writeln!(
                out,
                "| `{}` | `{}` | {} | {} | {} | {} |",
                c.entity,
                c.product,
                c.kind.as_str(),
                cell(&side(c.from.as_ref())),
                cell(&side(c.to.as_ref())),
                if c.safe { "safe" } else { "**unsafe**" },
            );
        }
        out.push('\n');
    }
    for c in d
        .changes
        .iter()
        .filter(|c| !c.causes.is_empty() || !c.fixes.is_empty())
    {
        let _ = writeln!(
            out,
            "### `{}`: {} → {}\n",
            c.entity,
            side(c.from.as_ref()),
            side(c.to.as_ref())
        );
        for f in &c.causes {
            let _ = writeln!(out, "- {}", cell(&line(f)));
        }
        for f in &c.fixes {
            let _ = writeln!(out, "- fixes {}", cell(&line(f)));
        }
        out.push('\n');
    }
    if !d.other.is_empty() {
        out.push_str("### Also new\n\n");
        for f in &d.other {
            let _ = writeln!(out, "- {}", cell(&line(f)));
        }
        out.push('\n');
    }
    let _ = writeln!(out, "{}", summary(d));
    out
}
