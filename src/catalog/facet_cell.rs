//! The section 9 part of a manifest ([`Facets`]) as one stored cell: a JSON document, written
//! by [`encode`] (through `rows::encode`) and read by [`decode`] (through `rows::Decoder`).
//! A release without section 9 stores no cell (`NULL`), so catalogs without it store and read
//! exactly what they did before the column existed.
//!
//! Format (version 1; `"v"` names it, and a reader refuses a version it does not know as a
//! damaged cell): `{"v":1, "provides":[...], "requires":[...], "constraints":[...],
//! "runtime":[...], "properties":{...}, "deprecated":{...}}`, empty parts left out; versions,
//! matchers, products and rules as their texts; every entry's location as `"at":[line,col]`;
//! a constraint as `{"product"|"capability"|"runtime"|"rule"|"any-of"|"all-of"|"none-of": ...}`
//! with its bounds and `description`; a property as `{"s"|"n"|"b": value}`.
//!
//! Format 2 adds section 10: `"instances":{"group:name": criteria}` (the criteria of product
//! dependencies), `"outputs":[names]`, `"inputs":[{"name", "from", "output", "optional",
//! "at"}]` and `"instance"` on a `requires` entry, a criteria being `{"labels":{...},
//! "match-namespace":true, "ignore-labels":true, "at":[line,col]}`. A release without section
//! 10 data is still written as format 1, so catalogs without it store the bytes they did;
//! both formats are read.
//!
//! Invariant: `decode(encode(f)) == f`. Rules are compiled again on reading (once per run,
//! through `rule`'s cache).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::diagnostic::Location;
use crate::instance::{Criteria, Input, LabelTemplate, Requirement};
use crate::manifest::{
    Atom, CapabilityRequirement, Deprecation, Facets, Provision, RuntimeRequirement, Term, TermKind,
};
use crate::matcher::Matcher;
use crate::product::ProductId;
use crate::range::Range;
use crate::rule::{Property, Rule};
use crate::version::Version;

/// The format of cells without section 10 data.
const FORMAT: u32 = 1;
/// The format of cells with section 10 data.
const FORMAT_INSTANCES: u32 = 2;

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct Doc {
    v: u32,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    provides: Vec<ProvisionCell>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    requires: Vec<RequirementCell>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    constraints: Vec<TermCell>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    runtime: Vec<RuntimeCell>,
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    properties: BTreeMap<String, PropertyCell>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    deprecated: Option<DeprecationCell>,
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    instances: BTreeMap<String, CriteriaCell>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    outputs: Vec<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    inputs: Vec<InputCell>,
}

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
struct CriteriaCell {
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    labels: BTreeMap<String, String>,
    #[serde(default, skip_serializing_if = "is_false")]
    match_namespace: bool,
    #[serde(default, skip_serializing_if = "is_false")]
    ignore_labels: bool,
    at: At,
}

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct InputCell {
    name: String,
    from: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    output: Option<String>,
    #[serde(default, skip_serializing_if = "is_false")]
    optional: bool,
    at: At,
}

type At = [u32; 2];

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct ProvisionCell {
    name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    version: Option<String>,
    at: At,
}

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct RequirementCell {
    name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    min: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    max: Option<String>,
    #[serde(default, skip_serializing_if = "is_false")]
    optional: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    prefer: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    instance: Option<CriteriaCell>,
    at: At,
}

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct RuntimeCell {
    name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    min: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    max: Option<String>,
    at: At,
}

// (no `deny_unknown_fields`: serde does not support it beside `flatten`)
#[derive(Serialize, Deserialize)]
struct TermCell {
    #[serde(flatten)]
    kind: KindCell,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    min: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    max: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    description: Option<String>,
    at: At,
}

#[derive(Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
enum KindCell {
    Product(String),
    Capability(String),
    Runtime(String),
    Rule(String),
    AnyOf(Vec<TermCell>),
    AllOf(Vec<TermCell>),
    NoneOf(Vec<TermCell>),
}

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
enum PropertyCell {
    #[serde(rename = "s")]
    Str(String),
    #[serde(rename = "n")]
    Number(String),
    #[serde(rename = "b")]
    Bool(bool),
}

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct DeprecationCell {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    reason: Option<String>,
    at: At,
}

#[allow(clippy::trivially_copy_pass_by_ref)] // serde's `skip_serializing_if` passes a reference
fn is_false(b: &bool) -> bool {
    !*b
}

fn at(location: Location) -> At {
    [location.line, location.column]
}

fn location(at: At) -> Location {
    Location::new(at[0], at[1])
}

fn bounds(range: &Range) -> (Option<String>, Option<String>) {
    (
        range.minimum.as_ref().map(ToString::to_string),
        range.maximum.as_ref().map(ToString::to_string),
    )
}

/// The cell of a release's facets; `None` when it has none.
#[must_use]
pub fn encode(facets: &Facets) -> Option<String> {
    if facets.is_empty() {
        return None;
    }
    let section_10 = !facets.instances.is_empty()
        || !facets.outputs.is_empty()
        || !facets.inputs.is_empty()
        || facets.requires.iter().any(|r| r.instance.is_some());
    let doc = Doc {
        v: if section_10 { FORMAT_INSTANCES } else { FORMAT },
        provides: facets
            .provides
            .iter()
            .map(|p| ProvisionCell {
                name: p.name.clone(),
                version: p.version.as_ref().map(ToString::to_string),
                at: at(p.location),
            })
            .collect(),
        requires: facets
            .requires
            .iter()
            .map(|r| {
                let (min, max) = bounds(&r.range);
                RequirementCell {
                    name: r.name.clone(),
                    min,
                    max,
                    optional: r.optional,
                    prefer: r.prefer.as_ref().map(ToString::to_string),
                    instance: r.instance.as_ref().map(criteria_cell),
                    at: at(r.location),
                }
            })
            .collect(),
        constraints: facets.constraints.iter().map(term_cell).collect(),
        runtime: facets
            .runtime
            .iter()
            .map(|r| {
                let (min, max) = bounds(&r.range);
                RuntimeCell {
                    name: r.name.clone(),
                    min,
                    max,
                    at: at(r.location),
                }
            })
            .collect(),
        properties: facets
            .properties
            .iter()
            .map(|(k, v)| {
                let cell = match v {
                    Property::Str(s) => PropertyCell::Str(s.clone()),
                    Property::Number(n) => PropertyCell::Number(n.clone()),
                    Property::Bool(b) => PropertyCell::Bool(*b),
                };
                (k.clone(), cell)
            })
            .collect(),
        deprecated: facets.deprecated.as_ref().map(|d| DeprecationCell {
            reason: d.reason.clone(),
            at: at(d.location),
        }),
        instances: facets
            .instances
            .iter()
            .map(|(p, c)| (p.to_string(), criteria_cell(c)))
            .collect(),
        outputs: facets.outputs.clone(),
        inputs: facets
            .inputs
            .iter()
            .map(|i| InputCell {
                name: i.name.clone(),
                from: i.from.to_string(),
                output: i.output.clone(),
                optional: i.optional,
                at: at(i.location),
            })
            .collect(),
    };
    // a document of strings, numbers and maps always serializes
    serde_json::to_string(&doc).ok()
}

fn criteria_cell(c: &Criteria) -> CriteriaCell {
    CriteriaCell {
        labels: c
            .labels
            .iter()
            .map(|(k, v)| (k.clone(), v.as_str().to_owned()))
            .collect(),
        match_namespace: c.match_namespace,
        ignore_labels: c.ignore_labels,
        at: at(c.location),
    }
}

fn criteria(cell: CriteriaCell) -> Result<Criteria, String> {
    Ok(Criteria {
        labels: cell
            .labels
            .into_iter()
            .map(|(k, v)| Ok((k, LabelTemplate::new(&v)?)))
            .collect::<Result<_, String>>()?,
        match_namespace: cell.match_namespace,
        ignore_labels: cell.ignore_labels,
        location: location(cell.at),
    })
}

fn term_cell(term: &Term) -> TermCell {
    let mut range = (None, None);
    let kind = match &term.kind {
        TermKind::Atom(Atom::Product { product, range: r }) => {
            range = bounds(r);
            KindCell::Product(product.to_string())
        }
        TermKind::Atom(Atom::Capability { name, range: r }) => {
            range = bounds(r);
            KindCell::Capability(name.clone())
        }
        TermKind::Atom(Atom::Runtime { name, range: r }) => {
            range = bounds(r);
            KindCell::Runtime(name.clone())
        }
        TermKind::Atom(Atom::Rule(rule)) => KindCell::Rule(rule.text().to_owned()),
        TermKind::AnyOf(c) => KindCell::AnyOf(c.iter().map(term_cell).collect()),
        TermKind::AllOf(c) => KindCell::AllOf(c.iter().map(term_cell).collect()),
        TermKind::NoneOf(c) => KindCell::NoneOf(c.iter().map(term_cell).collect()),
    };
    TermCell {
        kind,
        min: range.0,
        max: range.1,
        description: term.description.clone(),
        at: at(term.location),
    }
}

/// Reads a cell back.
///
/// # Errors
/// What does not decode, for a damaged-catalog error.
pub fn decode(cell: &str) -> Result<Facets, String> {
    let doc: Doc = serde_json::from_str(cell).map_err(|e| format!("section 9 cell: {e}"))?;
    if doc.v != FORMAT && doc.v != FORMAT_INSTANCES {
        return Err(format!("section 9 cell of unknown format {}", doc.v));
    }
    let mut facets = Facets {
        provides: doc
            .provides
            .into_iter()
            .map(|p| {
                Ok(Provision {
                    name: p.name,
                    version: p.version.as_deref().map(version).transpose()?,
                    location: location(p.at),
                })
            })
            .collect::<Result<_, String>>()?,
        requires: doc
            .requires
            .into_iter()
            .map(|r| {
                Ok(CapabilityRequirement {
                    range: range(r.min.as_deref(), r.max.as_deref())?,
                    name: r.name,
                    optional: r.optional,
                    prefer: r.prefer.as_deref().map(ProductId::parse).transpose()?,
                    instance: r.instance.map(criteria).transpose()?,
                    location: location(r.at),
                })
            })
            .collect::<Result<_, String>>()?,
        constraints: doc
            .constraints
            .into_iter()
            .map(term)
            .collect::<Result<_, _>>()?,
        runtime: doc
            .runtime
            .into_iter()
            .map(|r| {
                Ok(RuntimeRequirement {
                    range: range(r.min.as_deref(), r.max.as_deref())?,
                    name: r.name,
                    location: location(r.at),
                })
            })
            .collect::<Result<_, String>>()?,
        properties: BTreeMap::new(),
        instances: doc
            .instances
            .into_iter()
            .map(|(p, c)| Ok((ProductId::parse(&p)?, criteria(c)?)))
            .collect::<Result<_, String>>()?,
        outputs: doc.outputs,
        inputs: doc
            .inputs
            .into_iter()
            .map(|i| {
                Ok(Input {
                    from: Requirement::parse(&i.from)?,
                    name: i.name,
                    output: i.output,
                    optional: i.optional,
                    location: location(i.at),
                })
            })
            .collect::<Result<_, String>>()?,
        deprecated: doc.deprecated.map(|d| Deprecation {
            reason: d.reason,
            location: location(d.at),
        }),
    };
    for (key, cell) in doc.properties {
        let value = match cell {
            PropertyCell::Str(s) => Property::Str(s),
            PropertyCell::Number(n) => Property::Number(n),
            PropertyCell::Bool(b) => Property::Bool(b),
        };
        facets.properties.insert(key, value);
    }
    Ok(facets)
}

fn version(text: &str) -> Result<Version, String> {
    Version::parse(text).map_err(|e| e.to_string())
}

fn range(min: Option<&str>, max: Option<&str>) -> Result<Range, String> {
    Ok(Range {
        minimum: min.map(version).transpose()?,
        maximum: max
            .map(|m| Matcher::parse(m).map_err(|e| e.to_string()))
            .transpose()?,
    })
}

fn term(cell: TermCell) -> Result<Term, String> {
    let children = |c: Vec<TermCell>| c.into_iter().map(term).collect::<Result<Vec<_>, _>>();
    let r = || range(cell.min.as_deref(), cell.max.as_deref());
    let kind = match cell.kind {
        KindCell::Product(p) => TermKind::Atom(Atom::Product {
            product: ProductId::parse(&p)?,
            range: r()?,
        }),
        KindCell::Capability(name) => TermKind::Atom(Atom::Capability { name, range: r()? }),
        KindCell::Runtime(name) => TermKind::Atom(Atom::Runtime { name, range: r()? }),
        KindCell::Rule(text) => TermKind::Atom(Atom::Rule(Rule::compile(&text)?)),
        KindCell::AnyOf(c) => TermKind::AnyOf(children(c)?),
        KindCell::AllOf(c) => TermKind::AllOf(children(c)?),
        KindCell::NoneOf(c) => TermKind::NoneOf(children(c)?),
    };
    Ok(Term {
        kind,
        description: cell.description,
        location: location(cell.at),
    })
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;

    #[test]
    fn cells_round_trip_and_plain_releases_store_none() {
        let text = "manifest-version: '1.0'\nproduct-group: g\nproduct-name: a\nproduct-version: 1.0.0\n\
                    extensions:\n  capabilities:\n    provides:\n      - name: sql\n        version: 5.7.0\n      \
                    - name: plain\n    requires:\n      - name: cache\n        minimum-version: 1.0.0\n        \
                    optional: true\n        prefer: g:redis\n  constraints:\n    - description: d\n      any-of:\n        \
                    - product: g:redis\n          maximum-version: 7.x.x\n        - none-of:\n            \
                    - rule: 'properties.x == 1'\n  runtime-requirements:\n    - name: k8s\n      \
                    minimum-version: 1.27.0\n  properties:\n    s: text\n    n: 2.5\n    b: false\n  \
                    deprecated: true\n";
        let m = crate::manifest::parse(text, &Arc::from("a.yml"))
            .unwrap()
            .remove(0);
        assert!(m.issues.is_empty(), "{:?}", m.issues);
        let cell = encode(m.facets()).unwrap();
        assert_eq!(decode(&cell).as_ref(), Ok(m.facets()));
        assert_eq!(encode(&Facets::default()), None);
        assert!(cell.starts_with("{\"v\":1,"), "{cell}");
        assert!(
            decode("{\"v\":3}")
                .unwrap_err()
                .contains("unknown format 3")
        );
        assert!(
            decode("{\"v\":1,\"runtime\":[{\"name\":\"k\",\"min\":\"1.0\",\"at\":[1,1]}]}")
                .is_err()
        );
    }

    #[test]
    fn section_10_round_trips_as_format_2() {
        let text = "manifest-version: '1.0'\nproduct-group: g\nproduct-name: a\nproduct-version: 1.0.0\n\
                    extensions:\n  product-dependencies:\n    - product-group: g\n      product-name: db\n      \
                    minimum-version: 1.0.0\n      maximum-version: 1.x.x\n      instance:\n        \
                    labels: {app: '{namespace}', owner: '{entity}'}\n        match-namespace: true\n  \
                    capabilities:\n    requires:\n      - name: sql\n        instance: {ignore-labels: true}\n  \
                    outputs: [url, endpoint]\n  inputs:\n    - name: db-url\n      from: g:db\n      \
                    output: url\n    - name: ready\n      from: sql\n      optional: true\n";
        let m = crate::manifest::parse(text, &Arc::from("a.yml"))
            .unwrap()
            .remove(0);
        assert!(m.issues.is_empty(), "{:?}", m.issues);
        let f = m.facets();
        assert!(!f.instances.is_empty() && f.inputs.len() == 2 && f.outputs.len() == 2);
        let cell = encode(f).unwrap();
        assert!(cell.starts_with("{\"v\":2,"), "{cell}");
        assert_eq!(decode(&cell).as_ref(), Ok(f));
        // a damaged template is a damaged cell, not a panic
        let bad = cell.replace("{entity}", "{host}");
        assert!(decode(&bad).unwrap_err().contains("`{host}`"));
    }

    #[test]
    fn cells_written_before_section_10_still_read() {
        // a format 1 cell exactly as the previous release wrote it
        let old = "{\"v\":1,\"provides\":[{\"name\":\"sql\",\"version\":\"5.7.0\",\"at\":[8,9]}],\
                   \"requires\":[{\"name\":\"cache\",\"min\":\"1.0.0\",\"optional\":true,\"at\":[11,9]}],\
                   \"properties\":{\"tier\":{\"s\":\"gold\"}},\"deprecated\":{\"at\":[20,15]}}";
        let f = decode(old).unwrap();
        assert_eq!(f.provides[0].name, "sql");
        assert_eq!(f.requires[0].instance, None);
        assert!(f.instances.is_empty() && f.outputs.is_empty() && f.inputs.is_empty());
        assert_eq!(encode(&f).as_deref(), Some(old));
    }
}
