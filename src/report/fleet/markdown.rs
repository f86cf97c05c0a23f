//! Fleet upgrades as Markdown, for a pull-request comment or a change request: where products
//! are behind and what is safe everywhere.

use std::fmt::Write;

use crate::fleet::FleetUpgrades;
use crate::report::markdown::cell;

use super::upgrades_line;

#[must_use]
pub fn upgrades(f: &FleetUpgrades) -> String {
    let mut out = format!("## Upgrades across {} environments\n\n", f.members.len());
    if !f.behind.is_empty() {
        out.push_str(
            "| Product | Environment | Installed | Safe | Latest |\n|---|---|---|---|---|\n",
        );
        for b in &f.behind {
            let _ = writeln!(
                out,
                "| `{}` | {} (`{}`) | {} | {} | {} |",
                b.product,
                cell(&b.environment),
                cell(&b.file),
                b.installed,
                b.safe
                    .as_deref()
                    .map_or_else(|| "–".to_owned(), |s| format!("**{s}**")),
                b.latest,
            );
        }
        out.push('\n');
    }
    if !f.everywhere.is_empty() {
        out.push_str(
            "Safe everywhere:\n\n| Product | Version | Moves | Runs it |\n|---|---|---|---|\n",
        );
        for e in &f.everywhere {
            let _ = writeln!(
                out,
                "| `{}` | **{}** | {} | {} |",
                e.product, e.version, e.moves, e.running
            );
        }
        out.push('\n');
    }
    let _ = writeln!(out, "{}", upgrades_line(f));
    out
}
