//! The HTML report (`compat report`): one self-contained page, for people to look at,
//! built from results already computed (the validation, the upgrades, `plan --all`, the
//! dependency graph). Inline CSS, no scripts, nothing fetched when it is viewed; summary
//! cards at the top, then findings, upgrades, the plan and the graph (inline SVG, `graph`).
//! The bytes depend only on the results: no time of its own (a `stamp` is shown as given).

mod graph;

use std::fmt::Write;

use crate::environment::State;
use crate::finding::{Code, Finding, Severity};
use crate::graph::{EdgeKind, EntityGraph};
use crate::plan::Plan;
use crate::solve::Unproven;
use crate::upgrade::Upgrade;
use crate::validate::Validation;

use super::human::{blocked_cell, unreachable_latest, upgrades_summary};
use super::plural;

/// What the page shows.
pub struct Report<'a> {
    pub validation: &'a Validation,
    /// The level that makes the environment invalid (`--fail-on`).
    pub fail_on: Severity,
    pub upgrades: &'a [Upgrade],
    /// The `plan --all` answer.
    pub plan: &'a Plan,
    pub graph: &'a EntityGraph<'a>,
    /// A line under the title, shown as given (such as a date or a CI run); the report adds
    /// no time of its own.
    pub stamp: Option<&'a str>,
}

/// Escapes text for HTML element content and attribute values.
fn esc(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

const STYLE: &str = "\
:root{--bad:#c62828;--bad-bg:#ffebee;--warn:#b26a00;--warn-bg:#fff8e1;--good:#2e7d32;\
--good-bg:#e8f5e9;--muted:#607d8b;--line:#dde3e8}
*{box-sizing:border-box}
body{margin:0;padding:24px 32px;font:14px/1.45 system-ui,-apple-system,'Segoe UI',Helvetica,Arial,sans-serif;color:#1f2a30;background:#fafbfc}
h1{font-size:22px;margin:0 0 4px}
h2{font-size:17px;margin:32px 0 10px;padding-bottom:4px;border-bottom:1px solid var(--line)}
.stamp,.note{color:var(--muted)}
.cards{display:flex;flex-wrap:wrap;gap:12px;margin:18px 0 8px}
.card{flex:1 1 200px;border:1px solid var(--line);border-left:6px solid var(--muted);border-radius:6px;padding:10px 14px;background:#fff}
.card .label{font-size:12px;text-transform:uppercase;letter-spacing:.05em;color:var(--muted)}
.card .value{font-size:22px;font-weight:600;margin:2px 0}
.card .detail{font-size:13px}
.card.good{border-left-color:var(--good)}.card.good .value{color:var(--good)}
.card.bad{border-left-color:var(--bad)}.card.bad .value{color:var(--bad)}
.card.caution{border-left-color:var(--warn)}.card.caution .value{color:var(--warn)}
table{border-collapse:collapse;width:100%;background:#fff;border:1px solid var(--line)}
th,td{text-align:left;vertical-align:top;padding:5px 9px;border-bottom:1px solid var(--line)}
th{background:#eef2f5;font-weight:600;font-size:13px}
td.num{text-align:right}
td code{white-space:nowrap}
td code.loc{white-space:normal;overflow-wrap:anywhere}
code{font:12.5px ui-monospace,SFMono-Regular,Menlo,Consolas,monospace}
pre{white-space:pre-wrap;background:#fff;border:1px solid var(--line);border-radius:4px;padding:8px 12px;overflow-x:auto;font:12.5px/1.4 ui-monospace,SFMono-Regular,Menlo,Consolas,monospace}
.badge{display:inline-block;padding:1px 7px;border-radius:10px;font-size:12px;font-weight:600;white-space:nowrap}
.sev-error{background:var(--bad-bg);color:var(--bad)}
.sev-warning{background:var(--warn-bg);color:var(--warn)}
.accepted{background:#eceff1;color:var(--muted)}
.proven{background:var(--good-bg);color:var(--good)}
.cut{background:var(--warn-bg);color:var(--warn)}
tr.can-move td.safe{color:var(--good);font-weight:600}
tr.held td.latest{color:var(--warn)}
.graph{background:#fff;border:1px solid var(--line);border-radius:4px;padding:8px;overflow-x:auto}
.graph svg{max-width:100%;height:auto}
.graph.wide svg{max-width:none}
.graph svg text{font-family:system-ui,Helvetica,Arial,sans-serif}
.graph .managed rect{stroke-dasharray:5 4}
.graph .missing rect{stroke-dasharray:3 3}
.legend{display:flex;flex-wrap:wrap;gap:18px;margin:8px 0 0;font-size:13px;color:var(--muted)}
.legend svg{vertical-align:middle}
footer{margin-top:36px;font-size:12px;color:var(--muted)}
";

/// The whole page.
#[must_use]
pub fn page(r: &Report) -> String {
    let env = &r.validation.environment;
    let mut out = String::new();
    let _ = write!(
        out,
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <title>compat report: {}</title>\n<style>\n{STYLE}</style>\n</head>\n<body>\n\
         <header>\n<h1>compat report: {}</h1>\n",
        esc(env),
        esc(env)
    );
    if let Some(stamp) = r.stamp {
        let _ = writeln!(out, "<div class=\"stamp\">{}</div>", esc(stamp));
    }
    out.push_str("</header>\n");
    cards(&mut out, r);
    findings(&mut out, r.validation, r.fail_on);
    upgrades(&mut out, r.upgrades);
    plan(&mut out, r.plan);
    dependency_graph(&mut out, r.graph);
    let _ = write!(
        out,
        "<footer>compat {}: validation against the catalog, safe upgrades, and <code>plan --all</code> \
         (every installed product as new as possible, no downgrades or installs).</footer>\n\
         </body>\n</html>\n",
        env!("CARGO_PKG_VERSION")
    );
    out
}

/// One summary card: a label, the value in large type, a line of detail; `tone` (`good`,
/// `caution`, `bad` or `neutral`) colours it.
fn card(out: &mut String, id: &str, label: &str, value: &str, detail: &str, tone: &str) {
    let _ = writeln!(
        out,
        "<div class=\"card {tone}\" id=\"card-{id}\"><div class=\"label\">{}</div>\
         <div class=\"value\">{}</div><div class=\"detail\">{}</div></div>",
        esc(label),
        esc(value),
        esc(detail)
    );
}

fn cards(out: &mut String, r: &Report) {
    out.push_str("<section class=\"cards\" id=\"summary\">\n");
    let v = r.validation;
    let (errors, warnings, accepted) = (
        v.count(Severity::Error),
        v.count(Severity::Warning),
        v.accepted(),
    );
    let mut detail = super::count_summary(errors, warnings);
    if accepted > 0 {
        let _ = write!(detail, ", {accepted} accepted");
    }
    if v.passes(r.fail_on) {
        let tone = if errors + warnings > 0 {
            "caution"
        } else {
            "good"
        };
        card(out, "validation", "Validation", "valid", &detail, tone);
    } else {
        card(out, "validation", "Validation", "invalid", &detail, "bad");
    }

    let movable = r.upgrades.iter().filter(|u| u.safe.is_some()).count();
    let held = r
        .upgrades
        .iter()
        .filter(|u| u.latest.is_some() && u.latest != u.safe)
        .count();
    let current = r.upgrades.iter().filter(|u| u.latest.is_none()).count();
    let tone = if r.upgrades.iter().any(|u| !u.proven) || held > 0 {
        "caution"
    } else {
        "good"
    };
    card(
        out,
        "upgrades",
        "Upgrades",
        &format!("{movable} can move"),
        &format!(
            "{held} held back, {current} up to date (of {})",
            plural(r.upgrades.len(), "product")
        ),
        tone,
    );

    let p = r.plan;
    let value = if !p.feasible {
        "no plan".to_owned()
    } else if p.steps.is_empty() {
        "nothing to change".to_owned()
    } else {
        plural(p.steps.len(), "step")
    };
    let not_proven;
    let (detail, tone) = match (p.complete, p.feasible) {
        (true, true) => ("proven: no better plan exists", "good"),
        (true, false) => ("proven: no valid state exists", "bad"),
        (false, _) if p.unproven.iter().all(|r| *r == Unproven::TimeLimit) => {
            ("not proven: the time limit cut the search short", "caution")
        }
        (false, _) => {
            not_proven = format!("not proven: {}", super::unproven_reasons(&p.unproven));
            (not_proven.as_str(), "caution")
        }
    };
    card(out, "plan", "Plan (all products)", &value, detail, tone);

    let managed = r
        .graph
        .entities
        .iter()
        .filter(|e| e.state == State::Managed)
        .count();
    card(
        out,
        "entities",
        "Entities",
        &r.graph.entities.len().to_string(),
        &format!(
            "{} installed, {managed} managed",
            r.graph.entities.len() - managed
        ),
        "neutral",
    );
    out.push_str("</section>\n");
}

/// `error`, `warning` or `warning (accepted)` as a coloured badge.
fn level(f: &Finding) -> String {
    match &f.accepted {
        None => format!(
            "<span class=\"badge sev-{0}\">{0}</span>",
            f.severity.as_str()
        ),
        Some(_) => format!(
            "<span class=\"badge accepted\">{} (accepted)</span>",
            f.severity.as_str()
        ),
    }
}

fn findings(out: &mut String, v: &Validation, fail_on: Severity) {
    out.push_str("<section id=\"findings\">\n<h2>Validation</h2>\n");
    let _ = writeln!(
        out,
        "<p>{}</p>",
        esc(&super::validation_summary(v, fail_on))
    );
    let all: Vec<&Finding> = v.findings().collect();
    if all.is_empty() {
        out.push_str("<p class=\"note\">No findings: every checked constraint holds.</p>\n");
    } else {
        out.push_str(
            "<table>\n<thead><tr><th>Level</th><th>Code</th><th>Entity</th><th>Release</th>\
             <th>Constraint</th><th>Found</th><th>Declared at</th></tr></thead>\n<tbody>\n",
        );
        for f in all {
            let release = match (&f.product, &f.version) {
                (Some(p), Some(v)) => format!("{p} {v}"),
                _ => String::new(),
            };
            let found = match (&f.found_entity, &f.found) {
                (Some(entity), Some(version)) => format!("{entity} {version}"),
                _ if f.code == Code::MissingDependency => "not installed".to_owned(),
                _ => String::new(),
            };
            let mut constraint = esc(&f.detail);
            if let Some(a) = &f.accepted {
                let _ = write!(
                    constraint,
                    "<br><span class=\"note\">accepted: {}</span>",
                    esc(&a.reason)
                );
            }
            let location = f.location.as_ref().map(ToString::to_string);
            let _ = writeln!(
                out,
                "<tr><td>{}</td><td><code>{}</code></td><td>{}</td><td>{}</td><td>{constraint}</td>\
                 <td>{}</td><td><code class=\"loc\">{}</code></td></tr>",
                level(f),
                f.code,
                esc(f.entity.as_deref().unwrap_or_default()),
                esc(&release),
                esc(&found),
                esc(location.as_deref().unwrap_or_default())
            );
        }
        out.push_str("</tbody>\n</table>\n");
    }
    out.push_str("</section>\n");
}

fn upgrades(out: &mut String, list: &[Upgrade]) {
    out.push_str("<section id=\"upgrades\">\n<h2>Upgrades</h2>\n");
    let _ = writeln!(out, "<p>{}</p>", esc(&upgrades_summary(list)));
    if !list.is_empty() {
        out.push_str(
            "<table>\n<thead><tr><th>Product</th><th>Installed</th><th>Safe now</th>\
             <th>Latest</th><th>Blocked by</th></tr></thead>\n<tbody>\n",
        );
        for u in list {
            let class = if u.safe.is_some() {
                "can-move"
            } else if u.latest.is_some() {
                "held"
            } else {
                "current"
            };
            let mark = if u.proven {
                ""
            } else {
                " <span class=\"badge cut\">* not proven</span>"
            };
            let _ = writeln!(
                out,
                "<tr class=\"{class}\"><td><code>{}</code>{mark}</td><td>{}</td>\
                 <td class=\"safe\">{}</td><td class=\"latest\">{}</td><td>{}</td></tr>",
                esc(&u.product.to_string()),
                esc(&u.installed),
                esc(u.safe.as_deref().unwrap_or("–")),
                esc(u.latest.as_deref().unwrap_or("–")),
                esc(&blocked_cell(u))
            );
        }
        out.push_str("</tbody>\n</table>\n");
    }
    let why = unreachable_latest(list);
    if !why.is_empty() {
        let _ = writeln!(out, "<pre>{}</pre>", esc(&why.join("\n")));
    }
    out.push_str("</section>\n");
}

fn plan(out: &mut String, p: &Plan) {
    out.push_str("<section id=\"plan\">\n<h2>Plan: every product as new as possible</h2>\n");
    let verdict = if !p.feasible {
        "No plan: no valid state reaches the targets.".to_owned()
    } else if p.steps.is_empty() {
        "Nothing to change.".to_owned()
    } else {
        let groups = p.steps.iter().filter_map(|s| s.group).max().unwrap_or(0);
        format!(
            "{}{}.",
            plural(p.steps.len(), "step"),
            if groups > 0 {
                format!(", {} applied at once", plural(groups, "group"))
            } else {
                String::new()
            }
        )
    };
    let (badge, proof) = if p.complete {
        (
            "<span class=\"badge proven\">proven</span>",
            "The search finished: no better plan exists under this policy.".to_owned(),
        )
    } else if p.unproven.iter().all(|r| *r == Unproven::TimeLimit) {
        (
            "<span class=\"badge cut\">not proven</span>",
            "The time limit cut the search short: this is the best plan found so far, not a \
             proven answer (exit code 4)."
                .to_owned(),
        )
    } else {
        (
            "<span class=\"badge cut\">not proven</span>",
            format!(
                "Not proven ({}): see the notes below (exit code 4).",
                esc(&super::unproven_reasons(&p.unproven))
            ),
        )
    };
    let _ = writeln!(
        out,
        "<p id=\"plan-verdict\">{badge} <strong>{}</strong> {proof}</p>",
        esc(&verdict)
    );
    if !p.steps.is_empty() {
        out.push_str(
            "<table>\n<thead><tr><th>Step</th><th>Entity</th><th>Product</th><th>From</th>\
             <th>To</th><th>Group</th><th>Why this order</th></tr></thead>\n<tbody>\n",
        );
        for (i, s) in p.steps.iter().enumerate() {
            let _ = writeln!(
                out,
                "<tr><td class=\"num\">{}</td><td>{}</td><td><code>{}</code></td><td>{}</td>\
                 <td><strong>{}</strong></td><td class=\"num\">{}</td><td>{}</td></tr>",
                i + 1,
                esc(&s.entity),
                esc(&s.product.to_string()),
                esc(s.from.as_deref().unwrap_or("(install)")),
                esc(&s.to),
                s.group.map(|g| g.to_string()).unwrap_or_default(),
                esc(&s.why)
            );
        }
        out.push_str("</tbody>\n</table>\n");
    }
    let notes = super::plan_notes(p);
    if !notes.is_empty() {
        let _ = writeln!(out, "<pre>{}</pre>", esc(&notes.join("\n")));
    }
    if p.feasible && !p.steps.is_empty() {
        out.push_str(
            "<details><summary>Final state</summary>\n<table>\n<thead><tr><th>Entity</th>\
             <th>Product</th><th>Version</th><th>State</th></tr></thead>\n<tbody>\n",
        );
        for e in &p.final_state {
            let _ = writeln!(
                out,
                "<tr><td>{}</td><td><code>{}</code></td><td>{}</td><td>{}</td></tr>",
                esc(&e.entity),
                esc(&e.product.to_string()),
                esc(&e.version),
                e.state.as_str()
            );
        }
        out.push_str("</tbody>\n</table>\n</details>\n");
    }
    out.push_str("</section>\n");
}

/// A short line of a legend: a sample stroke and what it means.
fn legend_line(dash: &str, colour: &str, width: u8, text: &str) -> String {
    format!(
        "<span><svg width=\"34\" height=\"10\" aria-hidden=\"true\"><line x1=\"1\" y1=\"5\" \
         x2=\"33\" y2=\"5\" stroke=\"{colour}\" stroke-width=\"{width}\"{dash}/></svg> {text}</span>"
    )
}

fn dependency_graph(out: &mut String, g: &EntityGraph) {
    out.push_str("<section id=\"graph\">\n<h2>Dependency graph</h2>\n");
    match graph::svg(g) {
        Some(drawing) => {
            // scaled down to the page's width unless that makes it unreadable: then it
            // scrolls
            let class = if drawing.width > 3000.0 {
                "graph wide"
            } else {
                "graph"
            };
            let _ = writeln!(out, "<div class=\"{class}\">");
            out.push_str(&drawing.svg);
            out.push_str("</div>\n<div class=\"legend\">");
            let dashed = " stroke-dasharray=\"5 4\"";
            let capability = g
                .edges
                .iter()
                .any(|e| e.kind == EdgeKind::Capability)
                .then(|| legend_line(dashed, graph::BLUE, 2, "capability (named on the edge)"));
            for line in [legend_line("", "#37474f", 1, "required")]
                .into_iter()
                .chain(capability)
                .chain([
                    legend_line(dashed, "#757575", 1, "optional"),
                    legend_line(dashed, "#c62828", 1, "incompatible"),
                    legend_line("", "#c62828", 2, "broken (finding code on the edge)"),
                    "<span>dashed box: managed (not installed yet); orange box: release not in \
                 the catalog</span>"
                        .to_owned(),
                ])
            {
                out.push_str(&line);
            }
            out.push_str("</div>\n");
        }
        None if g.entities.is_empty() => {
            out.push_str("<p class=\"note\">No entities to draw.</p>\n");
        }
        None if g.entities.len() > graph::MAX_DRAWN => {
            let _ = writeln!(
                out,
                "<p class=\"note\">{} are too many to draw here (at most {}): <code>compat \
                 graph</code> gives the graph as Graphviz DOT or Mermaid.</p>",
                plural(g.entities.len(), "entity"),
                graph::MAX_DRAWN
            );
        }
        None => {
            out.push_str(
                "<p class=\"note\">The graph could not be laid out; <code>compat graph</code> \
                 gives it as Graphviz DOT.</p>\n",
            );
        }
    }
    out.push_str("</section>\n");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_is_escaped_for_content_and_attributes() {
        assert_eq!(
            esc(r#"<a href="x">'&'</a>"#),
            "&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;"
        );
    }
}
