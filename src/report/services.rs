//! `compat services`' answer (module `services`) in its two formats, human and JSON, kept
//! together in one file.

use std::fmt::Write;

use serde_json::json;

use super::json::{SCHEMA_VERSION, to_json};
use super::layout::{Grid, Layout};
use super::plural;
use crate::services::Service;

/// Per capability, a table of its providers and one of its consumers.
#[must_use]
pub fn human(environment: &str, list: &[Service], layout: &Layout) -> String {
    let mut out = String::new();
    for s in list {
        let _ = writeln!(out, "capability {}", s.capability);
        if s.providers.is_empty() {
            let _ = writeln!(out, "  provided by no installed entity");
        } else {
            let mut t = Grid::new(&["Provider", "Product", "Release", "Provides"]);
            for p in &s.providers {
                t.row(vec![
                    p.entity.clone(),
                    p.product.to_string(),
                    p.release.clone(),
                    p.version.clone().unwrap_or_else(|| "(no version)".into()),
                ]);
            }
            let _ = writeln!(out, "{}", t.render(layout));
        }
        if !s.consumers.is_empty() {
            let mut t = Grid::new(&["Consumer", "Product", "Requirement", "Bound to"]);
            for c in &s.consumers {
                let bound = match (&c.bound_to, c.in_range) {
                    (Some(p), true) => p.clone(),
                    (Some(p), false) => format!("{p} (out of range)"),
                    (None, _) if c.optional => "nothing (optional)".into(),
                    (None, _) => "nothing".into(),
                };
                t.row(vec![
                    c.entity.clone(),
                    c.product.to_string(),
                    c.requirement.clone(),
                    bound,
                ]);
            }
            let _ = writeln!(out, "{}", t.render(layout));
        }
    }
    let providers: usize = list.iter().map(|s| s.providers.len()).sum();
    let consumers: usize = list.iter().map(|s| s.consumers.len()).sum();
    let _ = writeln!(
        out,
        "{environment}: {}, {} and {}",
        plural(list.len(), "capability"),
        plural(providers, "provider"),
        plural(consumers, "consumer")
    );
    out
}

/// `{"environment", "services": [{"capability", "providers", "consumers"}]}`.
#[must_use]
pub fn json(environment: &str, list: &[Service]) -> String {
    to_json(&json!({
        "schema_version": SCHEMA_VERSION,
        "environment": environment,
        "services": list.iter().map(|s| json!({
            "capability": s.capability,
            "providers": s.providers.iter().map(|p| json!({
                "entity": p.entity,
                "product": p.product,
                "release": p.release,
                "version": p.version,
            })).collect::<Vec<_>>(),
            "consumers": s.consumers.iter().map(|c| json!({
                "entity": c.entity,
                "product": c.product,
                "requirement": c.requirement,
                "optional": c.optional,
                "bound_to": c.bound_to,
                "in_range": c.in_range,
            })).collect::<Vec<_>>(),
        })).collect::<Vec<_>>(),
    }))
}
