//! SARIF 2.1.0 for code-scanning tools: one rule per finding code (rule id = code), one result
//! per finding, located at the declaration.

use serde_json::{Value, json};

use crate::diagnostic::STDIN;
use crate::finding::{Code, Finding, Severity};
use crate::lint::Lint;
use crate::validate::Validation;

use super::json::to_json;

#[must_use]
pub fn validation(v: &Validation) -> String {
    log(v.findings())
}

/// `lint`: one result per manifest finding, at its declaration.
#[must_use]
pub fn lint(l: &Lint) -> String {
    log(l.findings.iter())
}

/// The SARIF log of one run with these results.
fn log<'a>(findings: impl Iterator<Item = &'a Finding>) -> String {
    let findings: Vec<&Finding> = findings.collect();
    // section 7's codes always, section 9's only when a result uses them (so a log without
    // section 9 stays as it was)
    let codes: Vec<Code> = Code::ALL
        .into_iter()
        .filter(|c| c.is_section_7() || findings.iter().any(|f| f.code == *c))
        .collect();
    let rules: Vec<Value> = codes
        .iter()
        .map(|code| {
            json!({
                "id": code.as_str(),
                "shortDescription": {"text": code.description()},
                "defaultConfiguration": {"level": code.severity().as_str()},
            })
        })
        .collect();
    let results: Vec<Value> = findings
        .into_iter()
        .map(|f| {
            let mut result = json!({
                "ruleId": f.code.as_str(),
                "ruleIndex": codes.iter().position(|c| *c == f.code),
                "level": match f.severity {
                    Severity::Error => "error",
                    Severity::Warning => "warning",
                },
                "message": {"text": f.message},
            });
            // SARIF's own way to say a result is known and accepted: a viewer shows it as
            // suppressed, code scanning does not alert on it
            if let Some(a) = &f.accepted {
                result["suppressions"] = json!([{"kind": "external", "justification": a.reason}]);
            }
            // Standard input is no artifact a SARIF viewer can open (nor a valid URI).
            if let Some(at) = f.location.as_ref().filter(|at| &*at.file != STDIN) {
                let mut physical = json!({"artifactLocation": {"uri": at.file.replace('\\', "/")}});
                if at.location.is_known() {
                    physical["region"] = json!({
                        "startLine": at.location.line,
                        "startColumn": at.location.column,
                    });
                }
                result["locations"] = json!([{"physicalLocation": physical}]);
            }
            result
        })
        .collect();
    to_json(&json!({
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {
                "name": "compat",
                "version": env!("CARGO_PKG_VERSION"),
                "rules": rules,
            }},
            "results": results,
        }],
    }))
}
