//! The section 9 part of a catalog as the `catalog` commands show it: what each release
//! declares (`catalog list`, after the listing, only for releases that declare something, so a
//! catalog without section 9 renders exactly as before) and the providers of a capability
//! (`catalog providers`), human and JSON. Section 10's instance criteria, outputs and inputs
//! follow in a table of their own (and in JSON fields of their own) only where a release
//! declares them.

use std::fmt::Write;

use serde_json::{Value, json};

use crate::catalog::{Providing, ReleaseFacets};
use crate::constraint::{atom_text, span_text};
use crate::instance::Criteria;
use crate::manifest::{Term, TermKind};
use crate::product::ProductId;
use crate::range::Range;
use crate::rule::Property;
use crate::version::Version;

use super::json::{SCHEMA_VERSION, to_json};
use super::layout::{Grid, Layout};
use super::plural;

/// `catalog list`'s section 9 table: one row per release that declares something; empty when
/// none does.
#[must_use]
pub fn list_human(releases: &[ReleaseFacets], layout: &Layout) -> String {
    if releases.is_empty() {
        return String::new();
    }
    let mut t = Grid::new(&[
        "Release",
        "Provides",
        "Requires",
        "Constraints",
        "Runtime",
        "Properties",
        "Deprecated",
    ]);
    let or_dash = |items: Vec<String>| {
        if items.is_empty() {
            "-".to_owned()
        } else {
            items.join(", ")
        }
    };
    for r in releases {
        let f = &r.facets;
        t.row(vec![
            format!("{} {}", r.product, r.version),
            or_dash(
                f.provides
                    .iter()
                    .map(|p| provision_text(&p.name, p.version.as_ref()))
                    .collect(),
            ),
            or_dash(
                f.requires
                    .iter()
                    .map(|q| {
                        let mut text = format!("{}{}", q.name, span_text(&q.range));
                        if q.optional {
                            text.push_str(" (optional)");
                        }
                        if let Some(p) = &q.prefer {
                            let _ = write!(text, " (prefer {p})");
                        }
                        text
                    })
                    .collect(),
            ),
            match f.constraints.len() {
                0 => "-".to_owned(),
                n => n.to_string(),
            },
            or_dash(
                f.runtime
                    .iter()
                    .map(|q| format!("{}{}", q.name, span_text(&q.range)))
                    .collect(),
            ),
            or_dash(
                f.properties
                    .iter()
                    .map(|(k, v)| format!("{k}={v}"))
                    .collect(),
            ),
            match &f.deprecated {
                None => "-".to_owned(),
                Some(d) => d.reason.clone().unwrap_or_else(|| "yes".to_owned()),
            },
        ]);
    }
    format!(
        "\n{}\n{} with capabilities, constraints, runtime requirements, properties or \
         deprecation\n{}",
        t.render(layout),
        plural(releases.len(), "release"),
        instances_human(releases, layout)
    )
}

/// Whether a release declares anything of section 10.
fn has_instances(f: &crate::manifest::Facets) -> bool {
    !f.instances.is_empty()
        || !f.outputs.is_empty()
        || !f.inputs.is_empty()
        || f.requires.iter().any(|q| q.instance.is_some())
}

/// Section 10's table, after section 9's: one row per release with instance criteria,
/// outputs or inputs; empty when none has (so other catalogs render as before).
fn instances_human(releases: &[ReleaseFacets], layout: &Layout) -> String {
    let rows: Vec<&ReleaseFacets> = releases
        .iter()
        .filter(|r| has_instances(&r.facets))
        .collect();
    if rows.is_empty() {
        return String::new();
    }
    let mut t = Grid::new(&["Release", "Instance criteria", "Outputs", "Inputs"]);
    let or_dash = |items: Vec<String>| {
        if items.is_empty() {
            "-".to_owned()
        } else {
            items.join(", ")
        }
    };
    for r in &rows {
        let f = &r.facets;
        let criteria = f
            .instances
            .iter()
            .map(|(p, c)| criteria_text(&p.to_string(), c))
            .chain(
                f.requires
                    .iter()
                    .filter_map(|q| q.instance.as_ref().map(|c| criteria_text(&q.name, c))),
            );
        let inputs = f.inputs.iter().map(|i| {
            let mut text = match &i.output {
                Some(o) => format!("{} <- {o} of {}", i.name, i.from),
                None => format!("{} <- {} (ready)", i.name, i.from),
            };
            if i.optional {
                text.push_str(" (optional)");
            }
            text
        });
        t.row(vec![
            format!("{} {}", r.product, r.version),
            or_dash(criteria.collect()),
            or_dash(f.outputs.clone()),
            or_dash(inputs.collect()),
        ]);
    }
    format!(
        "\n{}\n{} with instance criteria, outputs or inputs\n",
        t.render(layout),
        plural(rows.len(), "release")
    )
}

/// A requirement's criteria in one line: `name {key=template, ...} match-namespace ignore-labels`.
fn criteria_text(name: &str, c: &Criteria) -> String {
    let mut text = name.to_owned();
    if !c.labels.is_empty() {
        let labels: Vec<String> = c
            .labels
            .iter()
            .map(|(k, v)| format!("{k}={}", v.as_str()))
            .collect();
        let _ = write!(text, " {{{}}}", labels.join(", "));
    }
    if c.match_namespace {
        text.push_str(" match-namespace");
    }
    if c.ignore_labels {
        text.push_str(" ignore-labels");
    }
    text
}

fn criteria_json(c: &Criteria) -> Value {
    json!({
        "labels": c.labels.iter()
            .map(|(k, v)| (k.clone(), json!(v.as_str())))
            .collect::<serde_json::Map<_, _>>(),
        "match_namespace": c.match_namespace,
        "ignore_labels": c.ignore_labels,
    })
}

/// `catalog list`'s JSON for one product's releases that declare something of section 9.
#[must_use]
pub fn list_json<'a>(releases: impl Iterator<Item = &'a ReleaseFacets>) -> Vec<Value> {
    releases
        .map(|r| {
            let f = &r.facets;
            let mut entry = json!({
                "version": r.version.as_str(),
                "provides": f.provides.iter().map(|p| json!({
                    "name": p.name,
                    "version": p.version.as_ref().map(Version::as_str),
                })).collect::<Vec<_>>(),
                "requires": f.requires.iter().map(|q| {
                    let mut entry = range_json(&q.name, &q.range);
                    entry["optional"] = json!(q.optional);
                    entry["prefer"] = json!(q.prefer);
                    if let Some(c) = &q.instance {
                        entry["instance"] = criteria_json(c);
                    }
                    entry
                }).collect::<Vec<_>>(),
                "constraints": f.constraints.iter().map(|t| json!({
                    "description": t.description,
                    "text": term_text(t),
                })).collect::<Vec<_>>(),
                "runtime": f.runtime.iter().map(|q| range_json(&q.name, &q.range))
                    .collect::<Vec<_>>(),
                "properties": f.properties.iter()
                    .map(|(k, v)| (k.clone(), property_json(v)))
                    .collect::<serde_json::Map<_, _>>(),
                "deprecated": f.deprecated.is_some(),
                "deprecation_reason": f.deprecated.as_ref().and_then(|d| d.reason.as_deref()),
            });
            // section 10, only where declared (so other catalogs' JSON stays as it was)
            if has_instances(f) {
                entry["instances"] = f
                    .instances
                    .iter()
                    .map(|(p, c)| (p.to_string(), criteria_json(c)))
                    .collect::<serde_json::Map<_, _>>()
                    .into();
                entry["outputs"] = json!(f.outputs);
                entry["inputs"] = f
                    .inputs
                    .iter()
                    .map(|i| {
                        json!({
                            "name": i.name,
                            "from": i.from.to_string(),
                            "output": i.output,
                            "optional": i.optional,
                        })
                    })
                    .collect::<Vec<_>>()
                    .into();
            }
            entry
        })
        .collect()
}

fn property_json(p: &Property) -> Value {
    match p {
        Property::Str(s) => json!(s),
        Property::Number(n) => serde_json::from_str(n).unwrap_or_else(|_| json!(n)),
        Property::Bool(b) => json!(b),
    }
}

fn range_json(name: &str, range: &Range) -> Value {
    json!({
        "name": name,
        "minimum": range.minimum.as_ref().map(Version::as_str),
        "maximum": range.maximum.as_ref().map(ToString::to_string),
    })
}

/// A constraint item in one line: atoms as `constraint` words them, compounds as
/// `any-of(…, …)`; nested descriptions are left to the JSON `description` of the top item.
#[must_use]
pub fn term_text(term: &Term) -> String {
    match &term.kind {
        TermKind::Atom(atom) => atom_text(atom),
        TermKind::AnyOf(children) | TermKind::AllOf(children) | TermKind::NoneOf(children) => {
            let parts: Vec<String> = children.iter().map(term_text).collect();
            format!(
                "{}({})",
                term.kind.compound_name().unwrap_or_default(),
                parts.join(", ")
            )
        }
    }
}

fn provision_text(name: &str, version: Option<&Version>) -> String {
    match version {
        Some(v) => format!("{name} {v}"),
        None => name.to_owned(),
    }
}

/// `catalog providers`, human: one row per providing release, then a count.
#[must_use]
pub fn providers_human(name: &str, range: &Range, rows: &[Providing], layout: &Layout) -> String {
    let asked = format!("{name}{}", span_text(range));
    if rows.is_empty() {
        return format!("no release provides capability {asked}\n");
    }
    let mut t = Grid::new(&["Product", "Release", "Provides"]);
    for row in rows {
        t.row(vec![
            row.product.to_string(),
            row.version.to_string(),
            provision_text(name, row.provided.as_ref()),
        ]);
    }
    let products = rows
        .iter()
        .map(|r| &r.product)
        .collect::<std::collections::BTreeSet<&ProductId>>()
        .len();
    let verb = if rows.len() == 1 {
        "provides"
    } else {
        "provide"
    };
    format!(
        "{}\n{} of {} {verb} capability {asked}\n",
        t.render(layout),
        plural(rows.len(), "release"),
        plural(products, "product"),
    )
}

/// `catalog providers -f json`.
#[must_use]
pub fn providers_json(name: &str, range: &Range, rows: &[Providing]) -> String {
    to_json(&json!({
        "schema_version": SCHEMA_VERSION,
        "capability": name,
        "minimum": range.minimum.as_ref().map(Version::as_str),
        "maximum": range.maximum.as_ref().map(ToString::to_string),
        "providers": rows.iter().map(|r| json!({
            "product": r.product,
            "version": r.version.as_str(),
            "provides": r.provided.as_ref().map(Version::as_str),
        })).collect::<Vec<_>>(),
    }))
}
