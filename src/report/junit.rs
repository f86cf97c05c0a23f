//! JUnit XML: one test suite per environment, one test case per checked constraint (classname
//! = entity), failing when it has a finding at or above the failure level. Findings below that
//! level, and accepted findings (marked, with the reason), are kept in the case's `system-out`.

use std::fmt::Write;

use crate::finding::{Finding, Severity};
use crate::validate::Validation;

/// Escapes text for an XML attribute or element.
fn xml(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            '\n' => out.push_str("&#10;"),
            c if c.is_control() => {}
            c => out.push(c),
        }
    }
    out
}

/// A finding that does not fail its case, as a `system-out` line.
fn other_line(f: &Finding) -> String {
    match &f.accepted {
        None => format!("{} {}: {}", f.severity.as_str(), f.code, f.message),
        Some(a) => format!(
            "accepted {} {}: {} (accepted: {})",
            f.severity.as_str(),
            f.code,
            f.message,
            a.reason
        ),
    }
}

/// The whole report as one JUnit XML document.
#[must_use]
pub fn validation(v: &Validation, fail_on: Severity) -> String {
    let (tests, failures) = counts(v, fail_on);
    let mut out = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    let _ = writeln!(
        out,
        "<testsuites name=\"compat validate\" tests=\"{tests}\" failures=\"{failures}\" errors=\"0\">"
    );
    suite(&mut out, v, fail_on, None);
    out.push_str("</testsuites>\n");
    out
}

/// Whether a finding fails its case: at or above the failure level and not accepted.
fn fails(f: &Finding, fail_on: Severity) -> bool {
    f.severity >= fail_on && f.accepted.is_none()
}

/// How many test cases a validation's suite has, and how many of them fail.
pub(super) fn counts(v: &Validation, fail_on: Severity) -> (usize, usize) {
    let failing = |c: &&crate::validate::Check| c.findings.iter().any(|f| fails(f, fail_on));
    let failures = v.checks.iter().filter(failing).count()
        + v.unreadable.iter().filter(|f| fails(f, fail_on)).count();
    (v.checks.len() + v.unreadable.len(), failures)
}

/// Writes one validation as a `<testsuite>` (with a `file` attribute when given).
pub(super) fn suite(out: &mut String, v: &Validation, fail_on: Severity, file: Option<&str>) {
    let (tests, failures) = counts(v, fail_on);
    let suite = xml(&v.environment);
    let file = file
        .map(|f| format!(" file=\"{}\"", xml(f)))
        .unwrap_or_default();
    let _ = writeln!(
        out,
        "  <testsuite name=\"{suite}\"{file} tests=\"{tests}\" failures=\"{failures}\" errors=\"0\" skipped=\"0\">"
    );
    // Each unreadable catalog file is a failed case of its own: the catalog's, not an entity's.
    for f in &v.unreadable {
        if !fails(f, fail_on) {
            let _ = writeln!(
                out,
                "    <testcase classname=\"catalog\" name=\"{} is a readable manifest file\">\n      \
                 <system-out>{}</system-out>\n    </testcase>",
                xml(f.location.as_ref().map_or("", |l| &*l.file)),
                xml(&other_line(f)),
            );
            continue;
        }
        let file = f.location.as_ref().map_or("", |l| &*l.file);
        let at = f
            .location
            .as_ref()
            .map(|l| format!(" at {l}"))
            .unwrap_or_default();
        let _ = writeln!(
            out,
            "    <testcase classname=\"catalog\" name=\"{} is a readable manifest file\">\n      \
             <failure type=\"{}\" message=\"{}\">{}</failure>\n    </testcase>",
            xml(file),
            f.code,
            xml(&f.message),
            xml(&format!("{}: {}{at}", f.code, f.message)),
        );
    }
    for check in &v.checks {
        let _ = write!(
            out,
            "    <testcase classname=\"{}\" name=\"{}\"",
            xml(&check.entity),
            xml(&check.constraint)
        );
        if check.findings.is_empty() {
            out.push_str("/>\n");
            continue;
        }
        out.push_str(">\n");
        let (failed, other): (Vec<_>, Vec<_>) =
            check.findings.iter().partition(|f| fails(f, fail_on));
        if let Some(first) = failed.first() {
            let body: Vec<String> = failed
                .iter()
                .map(|f| {
                    let at = f
                        .location
                        .as_ref()
                        .map(|l| format!(" at {l}"))
                        .unwrap_or_default();
                    xml(&format!("{}: {}{at}", f.code, f.message))
                })
                .collect();
            let _ = writeln!(
                out,
                "      <failure type=\"{}\" message=\"{}\">{}</failure>",
                first.code,
                xml(&first.message),
                body.join("&#10;")
            );
        }
        if !other.is_empty() {
            let body: Vec<String> = other.iter().map(|f| xml(&other_line(f))).collect();
            let _ = writeln!(out, "      <system-out>{}</system-out>", body.join("&#10;"));
        }
        out.push_str("    </testcase>\n");
    }
    out.push_str("  </testsuite>\n");
}
