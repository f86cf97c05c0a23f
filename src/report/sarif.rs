//! SARIF 2.1.0 for code-scanning tools: one rule per finding code (rule id = code), one result
//! per finding, located at the declaration.

use serde::Serialize;
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

/// A SARIF document of one run of `compat` with these results. The results are serialized
/// where they are, not copied into the document first (a fleet can have a great many); the
/// fields are in the order a `serde_json::Value` would sort them, as before.
pub(super) fn document(results: &[Value]) -> String {
    #[derive(Serialize)]
    struct Document<'a> {
        #[serde(rename = "$schema")]
        schema: &'static str,
        runs: [Run<'a>; 1],
        version: &'static str,
    }
    #[derive(Serialize)]
    struct Run<'a> {
        results: &'a [Value],
        tool: Value,
    }
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
    to_json(&Document {
        schema: "https://json.schemastore.org/sarif-2.1.0.json",
        runs: [Run {
            results,
            tool: json!({"driver": {
                "name": "compat",
                "version": env!("CARGO_PKG_VERSION"),
                "rules": rules,
            }}),
        }],
        version: "2.1.0",
    })
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
