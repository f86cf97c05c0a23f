//! Fleet reports as JUnit XML: one test suite per environment (named after it, with its
//! `file`), each as the environment's own report has it.

use std::fmt::Write;

use crate::finding::Severity;
use crate::fleet::FleetValidation;
use crate::report::junit::{counts, suite};

#[must_use]
pub fn validation(f: &FleetValidation, fail_on: Severity) -> String {
    let (tests, failures) = f
        .members
        .iter()
        .map(|m| counts(&m.validation, fail_on))
        .fold((0, 0), |(t, f), (t2, f2)| (t + t2, f + f2));
    let mut out = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    let _ = writeln!(
        out,
        "<testsuites name=\"compat validate\" tests=\"{tests}\" failures=\"{failures}\" errors=\"0\">"
    );
    for m in &f.members {
        suite(&mut out, &m.validation, fail_on, Some(&m.file));
    }
    out.push_str("</testsuites>\n");
    out
}
