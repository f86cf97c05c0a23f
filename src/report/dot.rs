//! Graphviz DOT for the dependency graph: required edges solid, optional dashed,
//! capability edges bold and blue with an open arrowhead, labelled with the capability,
//! incompatibilities red and dotted, broken constraints red and bold with the finding code;
//! managed entities dashed; required dependencies that nothing provides point at a dashed red
//! placeholder node.

use std::fmt::Write;

use crate::environment::State;
use crate::graph::{EdgeKind, EntityGraph};

/// The colour of capability edges.
const CAPABILITY: &str = "\"#1565c0\"";
/// Data edges (section 10) are green.
const DATA: &str = "\"#2e7d32\"";

/// Quotes a DOT string.
fn quote(text: &str) -> String {
    quote_lines(&[text])
}

/// Quotes lines of text as one DOT label, each line escaped, joined by DOT's `\n`.
fn quote_lines(lines: &[&str]) -> String {
    let escaped: Vec<String> = lines
        .iter()
        .map(|l| l.replace('\\', "\\\\").replace('"', "\\\""))
        .collect();
    format!("\"{}\"", escaped.join("\\n"))
}

#[must_use]
pub fn graph(g: &EntityGraph) -> String {
    let mut out = format!("digraph {} {{\n", quote(&g.environment.name));
    out.push_str("  rankdir=LR;\n  node [shape=box, fontname=\"Helvetica\"];\n  edge [fontname=\"Helvetica\", fontsize=10];\n");
    for (i, e) in g.entities.iter().enumerate() {
        let release = format!("{} {}", e.product, e.version);
        let mut attrs = vec![format!("label={}", quote_lines(&[&e.name, &release]))];
        if e.state == State::Managed {
            attrs.push("style=dashed".to_owned());
        }
        if !g.known[i] {
            attrs.push("color=orange".to_owned());
            attrs.push("tooltip=\"release not in the catalog\"".to_owned());
        }
        let _ = writeln!(out, "  {} [{}];", quote(&e.name), attrs.join(", "));
    }
    for edge in &g.edges {
        let mut label = edge.range.to_string();
        let mut second = None;
        let mut attrs = Vec::new();
        match edge.kind {
            EdgeKind::Required => {}
            EdgeKind::Capability => {
                attrs.push("style=bold".to_owned());
                attrs.push(format!("color={CAPABILITY}"));
                attrs.push(format!("fontcolor={CAPABILITY}"));
                attrs.push("arrowhead=empty".to_owned());
                label = edge.capability_label().unwrap_or(label);
            }
            EdgeKind::Optional => {
                attrs.push("style=dashed".to_owned());
                label = format!("optional {label}");
            }
            EdgeKind::Data => {
                attrs.push("style=bold".to_owned());
                attrs.push(format!("color={DATA}"));
                attrs.push(format!("fontcolor={DATA}"));
                attrs.push("arrowhead=odot".to_owned());
                label = edge.data_label().unwrap_or(label);
            }
            EdgeKind::Incompatible => {
                attrs.push("style=dotted".to_owned());
                attrs.push("color=red".to_owned());
                label = format!("incompatible {label}");
            }
        }
        if let Some(code) = edge.violation {
            attrs.push("color=red".to_owned());
            attrs.push("penwidth=2".to_owned());
            second = Some(format!("✗ {code}"));
        }
        let lines: Vec<&str> = std::iter::once(label.as_str())
            .chain(second.as_deref())
            .collect();
        attrs.insert(0, format!("label={}", quote_lines(&lines)));
        attrs.dedup();
        let _ = writeln!(
            out,
            "  {} -> {} [{}];",
            quote(&g.entities[edge.from].name),
            quote(&g.entities[edge.to].name),
            attrs.join(", ")
        );
    }
    for m in &g.missing {
        let placeholder = format!("missing {}", m.product);
        let _ = writeln!(
            out,
            "  {} [label={}, style=dashed, color=red];",
            quote(&placeholder),
            quote_lines(&[&m.product.to_string(), "(not installed)"])
        );
        let _ = writeln!(
            out,
            "  {} -> {} [label={}, color=red, penwidth=2];",
            quote(&g.entities[m.from].name),
            quote(&placeholder),
            quote_lines(&[&m.range.to_string(), "✗ missing-dependency"])
        );
    }
    out.push_str("}\n");
    out
}
