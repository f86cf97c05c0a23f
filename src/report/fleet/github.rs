//! Fleet reports as GitHub Actions workflow commands: the catalog's own findings (files left
//! out unread) once, then one log group per environment file with an annotation per finding
//! at the entity's entry in that file (the message says where the constraint is declared),
//! and the environment's summary line; then the fleet's.

use std::fmt::Write;

use crate::finding::Severity;
use crate::fleet::FleetValidation;
use crate::report::github::annotation;
use crate::report::validation_summary;

use super::summary_line;

#[must_use]
pub fn validation(f: &FleetValidation, fail_on: Severity) -> String {
    let mut out = String::new();
    // The same for every environment: said once.
    for u in f
        .members
        .first()
        .map(|m| &m.validation.unreadable[..])
        .unwrap_or_default()
    {
        out.push_str(&annotation(
            u,
            u.location.as_ref(),
            u.code.as_str(),
            &u.message,
        ));
    }
    for m in &f.members {
        let v = &m.validation;
        let _ = writeln!(out, "::group::{} ({})", v.environment, m.file);
        for finding in v.checks.iter().flat_map(|c| &c.findings) {
            let at = finding
                .entity
                .as_deref()
                .and_then(|e| m.entity_location(e))
                .or_else(|| finding.location.clone());
            let mut message = format!("{}: {}", v.environment, finding.message);
            if let Some(declared) = finding
                .location
                .as_ref()
                .filter(|d| Some(*d) != at.as_ref())
            {
                let _ = write!(message, " (declared at {declared})");
            }
            out.push_str(&annotation(
                finding,
                at.as_ref(),
                finding.code.as_str(),
                &message,
            ));
        }
        let _ = writeln!(out, "{}", validation_summary(v, fail_on));
        out.push_str("::endgroup::\n");
    }
    let _ = writeln!(out, "{}", summary_line(f));
    out
}
