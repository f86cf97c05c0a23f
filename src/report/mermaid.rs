//! Mermaid flowcharts for the dependency graph (renders in GitHub and GitLab markdown):
//! required edges solid, optional dotted, capability edges thick and blue labelled with the
//! capability, incompatibilities and broken constraints red.

use std::fmt::Write;

use crate::environment::State;
use crate::graph::{EdgeKind, EntityGraph};

/// Text safe inside a quoted Mermaid label.
fn label(text: &str) -> String {
    text.replace('"', "#quot;")
}

#[must_use]
pub fn graph(g: &EntityGraph) -> String {
    let mut out = String::from("flowchart LR\n");
    for (i, e) in g.entities.iter().enumerate() {
        let text = label(&format!("{}<br/>{} {}", e.name, e.product, e.version));
        let _ = writeln!(out, "  n{i}[\"{text}\"]");
        if e.state == State::Managed {
            let _ = writeln!(out, "  style n{i} stroke-dasharray: 5 5");
        }
    }
    let mut red = Vec::new();
    let mut blue = Vec::new();
    let mut green = Vec::new();
    let mut index = 0;
    for edge in &g.edges {
        let mut text = edge.range.to_string();
        let arrow = match edge.kind {
            EdgeKind::Required => "-->",
            EdgeKind::Capability => {
                text = edge.capability_label().unwrap_or(text);
                blue.push(index);
                "==>"
            }
            EdgeKind::Optional => {
                text = format!("optional {text}");
                "-.->"
            }
            EdgeKind::Data => {
                text = edge.data_label().unwrap_or(text);
                green.push(index);
                "--o"
            }
            EdgeKind::Incompatible => {
                text = format!("incompatible {text}");
                red.push(index);
                "-.-x"
            }
        };
        if let Some(code) = edge.violation {
            text = format!("{text} ✗ {code}");
            red.push(index);
        }
        let _ = writeln!(
            out,
            "  n{} {arrow}|\"{}\"| n{}",
            edge.from,
            label(&text),
            edge.to
        );
        index += 1;
    }
    for (m_index, m) in g.missing.iter().enumerate() {
        let _ = writeln!(
            out,
            "  m{m_index}[\"{} (not installed)\"]\n  n{} -->|\"{} ✗ missing-dependency\"| m{m_index}",
            label(&m.product.to_string()),
            m.from,
            label(&m.range.to_string())
        );
        red.push(index);
        index += 1;
    }
    blue.retain(|i| !red.contains(i));
    green.retain(|i| !red.contains(i));
    if !green.is_empty() {
        let list: Vec<String> = green.iter().map(ToString::to_string).collect();
        let _ = writeln!(out, "  linkStyle {} stroke:#2e7d32", list.join(","));
    }
    if !blue.is_empty() {
        let list: Vec<String> = blue.iter().map(ToString::to_string).collect();
        let _ = writeln!(out, "  linkStyle {} stroke:#1565c0", list.join(","));
    }
    red.sort_unstable();
    red.dedup();
    if !red.is_empty() {
        let list: Vec<String> = red.iter().map(ToString::to_string).collect();
        let _ = writeln!(
            out,
            "  linkStyle {} stroke:red,stroke-width:2px",
            list.join(",")
        );
    }
    out
}
