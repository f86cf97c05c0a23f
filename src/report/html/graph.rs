//! The dependency graph as inline SVG for the HTML report, laid out and drawn by layout-rs
//! (no Graphviz needed): the same reading as `report::dot`, less the ranges (the report's
//! tables have them). Required edges solid, optional dashed, incompatibilities red and
//! dashed, broken constraints red and thick with the finding code; managed entities dashed
//! and grey, releases missing from the catalog orange; a required dependency nothing
//! provides points at a red placeholder.
//!
//! Every element carries a class (`node managed`, `edge optional broken`, ...) so the page's
//! style sheet draws what layout-rs cannot (dashed boxes); colours are set on the elements
//! too, so the SVG reads the same on its own.

use layout::backends::svg::SVGWriter;
use layout::core::base::Orientation;
use layout::core::color::Color;
use layout::core::style::{LineStyleKind, StyleAttr};
use layout::std_shapes::render::get_shape_size;
use layout::std_shapes::shapes::{Arrow, Element, LineEndKind, ShapeKind};
use layout::topo::layout::VisualGraph;

use crate::environment::State;
use crate::graph::{EdgeKind, EntityGraph};

/// One font size for every label: layout-rs lists its font classes from a hash map, so a
/// single size keeps the SVG's bytes the same from run to run.
const FONT: usize = 13;

const RED: &str = "#c62828";
const GREY: &str = "#757575";
const ORANGE: &str = "#ef6c00";
/// Capability edges (also in the page's legend).
pub const BLUE: &str = "#1565c0";
/// Data edges (section 10).
pub const GREEN: &str = "#2e7d32";

fn look(stroke: &str, width: usize, fill: Option<&str>) -> StyleAttr {
    StyleAttr::new(Color::fast(stroke), width, fill.map(Color::fast), 4, FONT)
}

fn node(label: &str, class: &str, look: StyleAttr) -> Element {
    let shape = ShapeKind::new_box(label);
    // the graph runs top to bottom; layout-rs gives shapes the flipped orientation (as its DOT
    // builder does)
    let size = get_shape_size(Orientation::LeftToRight, &shape, FONT, false);
    Element::create_with_properties(
        shape,
        look,
        Orientation::LeftToRight,
        size,
        format!("class=\"{class}\""),
    )
}

fn arrow(label: &str, class: &str, style: LineStyleKind, look: &StyleAttr) -> Arrow {
    Arrow::with_properties(
        LineEndKind::None,
        LineEndKind::Arrow,
        style,
        label,
        look,
        format!("class=\"{class}\""),
        &None,
        &None,
    )
}

/// The most entities drawn. layout-rs's layout grows much faster than linearly and cannot be
/// interrupted (so `--timeout` could not bound it): on a generated environment of 142
/// entities and 214 edges it takes 0.6 s in a release build (6 s in debug); 400 entities
/// take about two minutes in debug. A drawing that large is unreadable in a page anyway.
pub const MAX_DRAWN: usize = 150;

/// A drawing and its width in pixels.
pub struct Drawing {
    pub svg: String,
    pub width: f64,
}

/// The graph as an `<svg>` element (without an XML declaration, to sit inside HTML), or
/// `None` when there is nothing to draw, more than [`MAX_DRAWN`] entities, or the layout
/// fails.
#[must_use]
pub fn svg(g: &EntityGraph) -> Option<Drawing> {
    if g.entities.is_empty() || g.entities.len() > MAX_DRAWN {
        return None;
    }
    let mut vg = VisualGraph::new(Orientation::TopToBottom);
    let mut handles = Vec::with_capacity(g.entities.len());
    for (i, e) in g.entities.iter().enumerate() {
        let label = format!("{}\n{} {}", e.name, e.product, e.version);
        let (class, style) = match (e.state, g.known[i]) {
            (_, false) => ("node unknown", look(ORANGE, 2, Some("#fff3e0"))),
            (State::Managed, true) => ("node managed", look(GREY, 1, Some("#f5f5f5"))),
            (State::Installed, true) => ("node installed", look("#37474f", 1, Some("#e3f2fd"))),
        };
        handles.push(vg.add_node(node(&label, class, style)));
    }
    for edge in &g.edges {
        // ranges stay in the tables: a label on every edge makes layout-rs's drawing several
        // times wider; a broken edge is labelled with its finding code
        let (class, style, colour) = match edge.kind {
            EdgeKind::Required => ("edge required", LineStyleKind::Normal, "#37474f"),
            EdgeKind::Capability => ("edge capability", LineStyleKind::Dashed, BLUE),
            EdgeKind::Optional => ("edge optional", LineStyleKind::Dashed, GREY),
            EdgeKind::Incompatible => ("edge incompatible", LineStyleKind::Dashed, RED),
            EdgeKind::Data => ("edge data", LineStyleKind::Dotted, GREEN),
        };
        let a = match edge.violation {
            // a capability edge is labelled with the capability: it is not the product
            None => arrow(
                edge.capability
                    .or(edge.input.map(|i| i.name.as_str()))
                    .unwrap_or_default(),
                class,
                style,
                &look(
                    colour,
                    1 + usize::from(edge.kind == EdgeKind::Capability),
                    None,
                ),
            ),
            Some(code) => arrow(
                &format!("✗ {code}"),
                &format!("{class} broken"),
                style,
                &look(RED, 2, None),
            ),
        };
        vg.add_edge(a, handles[edge.from], handles[edge.to]);
    }
    for m in &g.missing {
        let label = format!("{}\n(not installed)", m.product);
        let placeholder = vg.add_node(node(&label, "node missing", look(RED, 2, Some("#ffebee"))));
        let a = arrow(
            "✗ missing-dependency",
            "edge required broken",
            LineStyleKind::Normal,
            &look(RED, 2, None),
        );
        vg.add_edge(a, handles[m.from], placeholder);
    }
    // layout-rs is not ours: a panic inside it leaves the report without its drawing rather
    // than failing the command
    let (drawn, width, height) =
        std::panic::catch_unwind(std::panic::AssertUnwindSafe(move || {
            let mut writer = SVGWriter::new();
            vg.do_it(false, false, false, &mut writer);
            // layout-rs grows its canvas by a guess at each label's length, turned sideways: the
            // nodes laid out (edge labels are nodes too) bound the drawing
            let (mut width, mut height) = (0.0_f64, 0.0_f64);
            for n in vg.iter_nodes() {
                let (_, bottom_right) = vg.pos(n).bbox(false);
                width = width.max(bottom_right.x);
                height = height.max(bottom_right.y);
            }
            (writer.finalize(), width.ceil() + 10.0, height.ceil() + 10.0)
        }))
        .ok()?;
    let start = drawn.find("<svg")?;
    let body = drawn[start..].split_once('>')?.1;
    let open = format!(
        "<svg width=\"{width}\" height=\"{height}\" viewBox=\"0 0 {width} {height}\" \
         xmlns=\"http://www.w3.org/2000/svg\" role=\"img\" aria-label=\"dependency graph\">"
    );
    Some(Drawing {
        svg: tidy(&format!("{open}{body}")),
        width,
    })
}

/// layout-rs indents its elements with runs of blank lines and spaces; one element per line
/// reads better in the page source and keeps it smaller. Text content is untouched: only
/// whitespace between tags goes.
fn tidy(svg: &str) -> String {
    let mut out = String::with_capacity(svg.len());
    for line in svg.lines() {
        let line = line.trim();
        if line.is_empty() {
            continue;
        }
        // an element continued over several lines is joined back with one space
        if !out.is_empty() && !out.ends_with('>') {
            out.push(' ');
        } else if !out.is_empty() {
            out.push('\n');
        }
        out.push_str(line);
    }
    out.push('\n');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tidy_joins_continued_tags_and_drops_blank_lines() {
        let text =
            "<svg a=\"1\">\n<g class=\"x\">\n\n    <rect x=\"1\" \n    y=\"2\" />\n\n</g>\n</svg>";
        assert_eq!(
            tidy(text),
            "<svg a=\"1\">\n<g class=\"x\">\n<rect x=\"1\" y=\"2\" />\n</g>\n</svg>\n"
        );
    }
}
