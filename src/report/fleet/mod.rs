//! Fleet reports: `validate` and `upgrades` on several environments (module `fleet`). Each
//! environment's part is what the format gives it alone where the format has room for
//! several (human, JSON, JUnit), and the fleet summary follows; formats that locate findings
//! in files (GitHub annotations, SARIF) locate an entity's findings at its entry in the
//! environment file, so each result says which environment it is about. One file per format.

pub mod github;
pub mod human;
pub mod json;
pub mod junit;
pub mod markdown;
pub mod sarif;

use crate::fleet::{FleetUpgrades, FleetValidation};

use super::{count_summary, plural};

/// `fleet: invalid, 2 of 4 environments valid, 3 errors, 1 warning` (then `, 2 accepted`
/// when an allow rule accepts findings; they count toward neither).
#[must_use]
pub fn summary_line(f: &FleetValidation) -> String {
    let s = &f.summary;
    let accepted = match s.accepted {
        0 => String::new(),
        n => format!(", {n} accepted"),
    };
    format!(
        "fleet: {}, {} of {} valid, {}{accepted}",
        if f.passes() { "valid" } else { "invalid" },
        s.valid,
        plural(s.environments.len(), "environment"),
        count_summary(s.errors, s.warnings),
    )
}

/// `fleet: 3 environments; 2 products behind in 4 places; 1 upgrade safe everywhere`.
#[must_use]
pub fn upgrades_line(f: &FleetUpgrades) -> String {
    let mut products: Vec<_> = f.behind.iter().map(|b| &b.product).collect();
    products.dedup(); // sorted by product
    let rows: Vec<crate::upgrade::Upgrade> = f
        .members
        .iter()
        .flat_map(|m| &m.upgrades)
        .filter(|u| !u.proven)
        .cloned()
        .collect();
    format!(
        "fleet: {}; {} behind in {}; {} safe everywhere{}",
        plural(f.members.len(), "environment"),
        plural(products.len(), "product"),
        plural(f.behind.len(), "place"),
        plural(f.everywhere.len(), "upgrade"),
        super::rows_not_proven(&rows).map_or_else(String::new, |note| format!("; {note}"))
    )
}
