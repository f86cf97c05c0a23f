//! SARIF 2.1.0 for code-scanning tools: one rule per finding code (rule id = code), one result
//! per finding, located at the declaration.

use serde_json::{Value, json};

use crate::diagnostic::{FileLocation, STDIN};
use crate::finding::{Code, Finding, Severity};
use crate::validate::Validation;

use super::json::to_json;

#[must_use]
pub fn validation(v: &Validation) -> String {
    let results: Vec<Value> = v.findings().map(result).collect();
    document(&results)
}

/// A SARIF document of one run of `compat` with these results.
pub(super) fn document(results: &[Value]) -> String {
    let rules: Vec<Value> = Code::ALL
        .iter()
        .map(|code| {
            json!({
                "id": code.as_str(),
                "shortDescription": {"text": code.description()},
                "defaultConfiguration": {"level": code.severity().as_str()},
            })
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

/// One finding as a SARIF result, located at its declaration.
pub(super) fn result(f: &Finding) -> Value {
    let mut result = json!({
        "ruleId": f.code.as_str(),
        "ruleIndex": Code::ALL.iter().position(|c| *c == f.code),
        "level": match f.severity {
            Severity::Error => "error",
            Severity::Warning => "warning",
        },
        "message": {"text": f.message},
    });
    if let Some(physical) = f.location.as_ref().and_then(physical) {
        result["locations"] = json!([{"physicalLocation": physical}]);
    }
    result
}

/// A SARIF `physicalLocation`; none for standard input, which is no artifact a SARIF viewer
/// can open (nor a valid URI).
pub(super) fn physical(at: &FileLocation) -> Option<Value> {
    if &*at.file == STDIN {
        return None;
    }
    let mut physical = json!({"artifactLocation": {"uri": at.file.replace('\\', "/")}});
    if at.location.is_known() {
        physical["region"] = json!({
            "startLine": at.location.line,
            "startColumn": at.location.column,
        });
    }
    Some(physical)
}
