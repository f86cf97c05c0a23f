//! Section 9 as the capability families build it (`--capabilities`, with or without `--hard`):
//! constraint items and their YAML, runtime requirements and ranges, the parts both families
//! write alike. What a family builds differently stays in its own module.

use std::fmt::Write;

use super::Rng;

/// The environment's kubernetes.
pub(super) const KUBERNETES: &str = "1.29.4";
/// Descriptions of constraint items, by turn.
pub(super) const DESCRIPTIONS: [&str; 6] = [
    "needs a cache",
    "a supported platform",
    "not beside retired services",
    "a certified neighbour",
    "storage it can talk to",
    "the monitoring stack it reports to",
];

/// A constraint item: an atom's keys and values, or a compound of items.
pub(super) enum Node {
    Atom(Vec<(&'static str, String)>),
    Compound(&'static str, Vec<Item>),
}

pub(super) struct Item {
    pub(super) description: Option<&'static str>,
    pub(super) node: Node,
}

/// One `runtime-requirements` entry; for a release `newer` than the installed one it may need
/// a newer kubernetes than the environment's.
pub(super) fn runtime_requirement(rng: &mut Rng, newer: bool, text: &mut String) {
    text.push_str("  runtime-requirements:\n");
    let (name, min, max) = if rng.chance(5) {
        ("istio", Some("1.20.0".to_owned()), None)
    } else if rng.chance(20) {
        (
            "containerd",
            Some(format!("1.{}.0", 5 + rng.below(3))),
            None,
        )
    } else if newer && rng.chance(25) {
        // A newer release that needs a newer platform than the environment's.
        (
            "kubernetes",
            Some(format!("1.{}.0", 30 + rng.below(2))),
            None,
        )
    } else {
        let (min, max) = kubernetes(rng);
        ("kubernetes", min, max)
    };
    let _ = writeln!(text, "    - name: {name}");
    write_bounds(text, 6, min.as_deref(), max.as_deref());
}

/// Bounds holding the environment's kubernetes.
fn kubernetes(rng: &mut Rng) -> (Option<String>, Option<String>) {
    let min = rng.chance(80).then(|| format!("1.{}.0", 24 + rng.below(6)));
    let max = rng.chance(60).then(|| format!("1.{}.x", 29 + rng.below(3)));
    (min, max)
}

pub(super) fn runtime_atom(rng: &mut Rng, want: bool) -> Node {
    let mut keys = Vec::new();
    if want {
        keys.push(("runtime", "kubernetes".to_owned()));
        let (min, max) = kubernetes(rng);
        keys.extend(min.map(|v| ("minimum-version", v)));
        keys.extend(max.map(|v| ("maximum-version", v)));
    } else if rng.chance(50) {
        keys.push(("runtime", "openshift".to_owned()));
    } else {
        keys.push(("runtime", "kubernetes".to_owned()));
        keys.push(("minimum-version", format!("1.{}.0", 30 + rng.below(3))));
    }
    Node::Atom(keys)
}

/// A CEL rule over the other installed entities' properties (products `i % 5 == 0` are gold
/// and certified, so with six products or more some other entity is).
pub(super) fn rule_atom(rng: &mut Rng, count: usize, want: bool) -> Option<Node> {
    if count < 6 {
        return None;
    }
    let rule = match (want, rng.chance(50)) {
        (true, true) => "has(properties.tier) && properties.tier == 'gold'",
        (true, false) => "has(properties.certified) && properties.certified",
        (false, true) => "has(properties.tier) && properties.tier == 'platinum'",
        (false, false) => "has(properties.retired) && properties.retired",
    };
    Some(Node::Atom(vec![("rule", format!("\"{rule}\""))]))
}

/// Writes `- item` at `indent` columns.
pub(super) fn write_item(text: &mut String, indent: usize, item: &Item) {
    let mut first = true;
    let mut key = |text: &mut String, key: &str, value: &str| {
        let lead = if first { "- " } else { "  " };
        first = false;
        let space = if value.is_empty() { "" } else { " " };
        let _ = writeln!(text, "{:indent$}{lead}{key}:{space}{value}", "");
    };
    if let Some(description) = item.description {
        key(text, "description", &format!("\"{description}\""));
    }
    match &item.node {
        Node::Atom(keys) => {
            for (k, v) in keys {
                key(text, k, v);
            }
        }
        Node::Compound(kind, children) => {
            key(text, kind, "");
            for child in children {
                write_item(text, indent + 4, child);
            }
        }
    }
}

/// `min`/`max` bounds at `indent` columns.
pub(super) fn write_bounds(text: &mut String, indent: usize, min: Option<&str>, max: Option<&str>) {
    if let Some(min) = min {
        let _ = writeln!(text, "{:indent$}minimum-version: {min}", "");
    }
    if let Some(max) = max {
        let _ = writeln!(text, "{:indent$}maximum-version: {max}", "");
    }
}
