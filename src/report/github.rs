//! GitHub Actions workflow commands: one `::error` or `::warning` annotation per finding
//! (`::notice` for an accepted one, with the reason), pointing at the declaration in the
//! manifest (or the entity in the environment file), then a plain summary line for the log.

use crate::diagnostic::FileLocation;
use crate::finding::{Finding, Severity};
use crate::lint::Lint;
use crate::validate::Validation;

use super::validation_summary;

/// Escapes a workflow command's message.
fn data(text: &str) -> String {
    text.replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A")
}

/// Escapes a workflow command's property value.
fn property(text: &str) -> String {
    data(text).replace(':', "%3A").replace(',', "%2C")
}

#[must_use]
pub fn validation(v: &Validation, fail_on: Severity) -> String {
    annotations(v.findings(), &validation_summary(v, fail_on))
}

/// `lint`: an annotation per finding at its declaration, then the summary line of the human
/// format.
#[must_use]
pub fn lint(l: &Lint) -> String {
    annotations(l.findings.iter(), &super::lint_summary(l))
}

/// One annotation per finding, then the summary line.
fn annotations<'a>(findings: impl Iterator<Item = &'a Finding>, summary: &str) -> String {
    let mut out = String::new();
    for f in findings {
        out.push_str(&annotation(
            f,
            f.location.as_ref(),
            f.code.as_str(),
            &f.message,
        ));
    }
    out.push_str(summary);
    out.push('\n');
    out
}

/// One finding's annotation line at `at`, with its title and message; an accepted finding is
/// a notice (shown, never failing a check) whose message ends with the reason.
pub(super) fn annotation(
    f: &Finding,
    at: Option<&FileLocation>,
    title: &str,
    message: &str,
) -> String {
    let level = match (f.severity, &f.accepted) {
        (_, Some(_)) => "notice",
        (Severity::Error, None) => "error",
        (Severity::Warning, None) => "warning",
    };
    let message = match &f.accepted {
        None => message.to_owned(),
        Some(a) => format!("{message} (accepted: {})", a.reason),
    };
    let mut props = Vec::new();
    if let Some(at) = at {
        props.push(format!("file={}", property(&at.file)));
        if at.location.is_known() {
            props.push(format!("line={}", at.location.line));
            props.push(format!("col={}", at.location.column));
        }
    }
    props.push(format!("title={}", property(title)));
    format!("::{level} {}::{}\n", props.join(","), data(&message))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_as_the_runner_expects() {
        assert_eq!(data("50%\nnext"), "50%25%0Anext");
        assert_eq!(property("a:b,c"), "a%3Ab%2Cc");
    }
}
