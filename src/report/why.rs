//! `compat why`'s answer (module `dependents`) in its two formats, human and JSON, kept
//! together in one file apart from the per-format files (whose shared table style it uses).

use std::fmt::Write;

use serde_json::json;

use crate::dependents::{Declaration, Declared, Dependents};
use crate::matcher::Matcher;
use crate::version::Version;

use super::json::to_json;
use super::layout::{Grid, Layout};
use super::plural;

/// `web (com.example:web 2.4.0)`: who declares.
fn who(d: &Declaration) -> String {
    format!("{} ({})", d.entity, d.release.release_name())
}

/// `yes`, or what breaks it: `no: api-2 runs 2.0.0, above the maximum`.
fn holds_cell(d: &Declaration, answer: &Dependents) -> String {
    if d.holds() {
        return "yes".to_owned();
    }
    let reasons: Vec<String> = d
        .breaks
        .iter()
        .map(|(entity, verdict)| match entity {
            None => "not installed".to_owned(),
            Some(e) => {
                let version = answer
                    .entities
                    .iter()
                    .find(|r| &r.entity == e)
                    .map(|r| r.version.to_string())
                    .unwrap_or_default();
                format!("{e} runs {version}, {}", verdict.why())
            }
        })
        .collect();
    format!("no: {}", reasons.join("; "))
}

/// The declaration's words: `requires >=1.1.0, <=1.x.x (recommended 1.2.0)`.
fn declares(d: &Declaration) -> String {
    let mut text = format!("{} {}", d.kind().as_str(), d.range());
    match &d.declared {
        Declared::Dependency(dep) => {
            if let Some(r) = &dep.recommended {
                let _ = write!(text, " (recommended {r})");
            }
        }
        Declared::Incompatibility(c) => {
            if let Some(r) = &c.reason {
                let _ = write!(text, " ({r})");
            }
        }
    }
    text
}

/// The entities, a table of declarations, then what bounds an upgrade.
#[must_use]
pub fn human(answer: &Dependents, layout: &Layout) -> String {
    let product = &answer.product;
    let mut out = String::new();
    let running: Vec<String> = answer
        .entities
        .iter()
        .map(|r| format!("{} {} ({})", r.entity, r.version, r.state.as_str()))
        .collect();
    let _ = writeln!(
        out,
        "{product} in {}: {}",
        answer.environment,
        if running.is_empty() {
            "no entity".to_owned()
        } else {
            running.join(", ")
        }
    );
    if answer.declarations.is_empty() {
        let _ = writeln!(
            out,
            "nothing installed declares a dependency on or an incompatibility with {product}"
        );
    } else {
        let mut t = Grid::new(&[
            "Entity",
            "Release",
            "Declares",
            "Holds today",
            "Admits up to",
            "Declared at",
        ]);
        for d in &answer.declarations {
            t.row(vec![
                d.entity.clone(),
                d.release.release_name(),
                declares(d),
                holds_cell(d, answer),
                d.newest_admitted
                    .as_ref()
                    .map_or_else(|| "no release".to_owned(), ToString::to_string),
                d.location().to_string(),
            ]);
        }
        let _ = writeln!(out, "{}", t.render(layout));
    }
    for e in &answer.unknown {
        let _ = writeln!(
            out,
            "note: {e}'s release is not in the catalog; what it declares is unknown"
        );
    }
    let Some(newest) = &answer.newest else {
        let _ = writeln!(out, "the catalog has no release of {product}");
        return out;
    };
    let _ = writeln!(out, "newest release in the catalog: {newest}");
    match &answer.newest_admitted {
        Some(v) if v == newest => {
            let _ = writeln!(out, "every declaration admits it");
        }
        admitted => {
            let admitted = match admitted {
                None => "none (no release satisfies them all together)".to_owned(),
                Some(v) if answer.entities.iter().any(|r| r.version == *v) => {
                    format!("{v} (installed)")
                }
                Some(v) => v.to_string(),
            };
            let _ = writeln!(out, "newest release every declaration admits: {admitted}");
            for d in answer.declarations.iter().filter(|d| d.caps) {
                let _ = writeln!(out, "  capped by {} {}", who(d), declares(d));
            }
        }
    }
    let _ = writeln!(
        out,
        "{}: {} from {}",
        answer.environment,
        plural(answer.declarations.len(), "declaration"),
        plural(
            {
                let mut names: Vec<&str> = answer
                    .declarations
                    .iter()
                    .map(|d| d.entity.as_str())
                    .collect();
                names.dedup();
                names.len()
            },
            "entity"
        )
    );
    out
}

/// `{"environment", "product", "entities", "declarations", "unknown", "newest",
/// "newest_admitted"}`.
#[must_use]
pub fn json(answer: &Dependents) -> String {
    let version = |v: &Option<Version>| v.as_ref().map(Version::as_str).map(str::to_owned);
    to_json(&json!({
        "schema_version": super::json::SCHEMA_VERSION,
        "environment": answer.environment,
        "product": answer.product,
        "entities": answer.entities.iter().map(|r| json!({
            "entity": r.entity,
            "version": r.version.as_str(),
            "state": r.state.as_str(),
        })).collect::<Vec<_>>(),
        "declarations": answer.declarations.iter().map(|d| {
            let at = d.location();
            let known = at.location.is_known();
            let range = d.range();
            let mut row = json!({
                "entity": d.entity,
                "product": d.release.product,
                "version": d.release.version.as_str(),
                "kind": match d.declared {
                    Declared::Dependency(_) => "dependency",
                    Declared::Incompatibility(_) => "incompatibility",
                },
                "minimum": range.minimum.as_ref().map(Version::as_str),
                "maximum": range.maximum.as_ref().map(Matcher::as_str),
                "holds": d.holds(),
                "breaks": d.breaks.iter().map(|(entity, verdict)| json!({
                    "entity": entity,
                    "code": verdict.code(),
                    "why": verdict.why(),
                })).collect::<Vec<_>>(),
                "newest_admitted": version(&d.newest_admitted),
                "caps": d.caps,
                "location": {
                    "file": &*at.file,
                    "line": known.then_some(at.location.line),
                    "column": known.then_some(at.location.column),
                },
            });
            match &d.declared {
                Declared::Dependency(dep) => {
                    row["optional"] = json!(dep.optional);
                    row["recommended"] = json!(dep.recommended.as_ref().map(Version::as_str));
                }
                Declared::Incompatibility(c) => row["reason"] = json!(c.reason),
            }
            row
        }).collect::<Vec<_>>(),
        "unknown": answer.unknown,
        "newest": version(&answer.newest),
        "newest_admitted": version(&answer.newest_admitted),
    }))
}
