//! SARIF 2.1.0 for code-scanning tools: one rule per finding code (rule id = code), one result
//! per finding, located at the declaration.

use serde::Serialize;
use serde_json::{Value, json};

use crate::diagnostic::{FileLocation, STDIN};
use crate::finding::{Code, Finding, Severity};
use crate::lint::Lint;
use crate::validate::Validation;

use super::json::to_json;

#[must_use]
pub fn validation(v: &Validation) -> String {
    let mut results: Vec<SarifResult<'_>> = v.findings().map(result).collect();
    document(&mut results)
}

/// `lint`: one result per manifest finding, at its declaration.
#[must_use]
pub fn lint(l: &Lint) -> String {
    let mut results: Vec<SarifResult<'_>> = l.findings.iter().map(result).collect();
    document(&mut results)
}

/// A SARIF document of one run of `compat` with these results. The results are typed and
/// serialized where they are (a fleet can have a great many); every object's fields are in
/// byte order, as the `serde_json::Value`s this was first written with had them. The rules are
/// section 7's codes always and section 9's only when a result uses them (so a log without
/// section 9 stays as it was); each result's `ruleIndex` is set here, into that list.
pub(super) fn document(results: &mut [SarifResult<'_>]) -> String {
    #[derive(Serialize)]
    struct Document<'a> {
        #[serde(rename = "$schema")]
        schema: &'static str,
        runs: [Run<'a>; 1],
        version: &'static str,
    }
    #[derive(Serialize)]
    struct Run<'a> {
        results: &'a [SarifResult<'a>],
        tool: Value,
    }
    let codes: Vec<Code> = Code::ALL
        .into_iter()
        .filter(|c| c.is_section_7() || results.iter().any(|r| r.code == *c))
        .collect();
    for r in results.iter_mut() {
        r.rule_index = codes.iter().position(|c| *c == r.code);
    }
    let results: &[SarifResult<'_>] = results;
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

/// One SARIF result.
#[derive(Serialize)]
pub(super) struct SarifResult<'a> {
    /// The finding's code, which [`document`] indexes into its rules.
    #[serde(skip)]
    pub code: Code,
    pub level: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub locations: Option<[Located; 1]>,
    pub message: Text,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub properties: Option<Properties<'a>>,
    #[serde(rename = "relatedLocations", skip_serializing_if = "Option::is_none")]
    pub related_locations: Option<[Related; 1]>,
    #[serde(rename = "ruleId")]
    pub rule_id: &'static str,
    /// Set by [`document`].
    #[serde(rename = "ruleIndex")]
    pub rule_index: Option<usize>,
    /// SARIF's own way to say a result is known and accepted: a viewer shows it as
    /// suppressed, code scanning does not alert on it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub suppressions: Option<[Suppression; 1]>,
}

/// An accepted finding's suppression, with the allow rule's reason.
#[derive(Serialize)]
pub(super) struct Suppression {
    pub justification: String,
    pub kind: &'static str,
}

#[derive(Serialize)]
pub(super) struct Text {
    pub text: String,
}

#[derive(Serialize)]
pub(super) struct Located {
    #[serde(rename = "physicalLocation")]
    pub physical_location: Physical,
}

/// Where a fleet's result comes from.
#[derive(Serialize)]
pub(super) struct Properties<'a> {
    pub environment: &'a str,
    #[serde(rename = "environmentFile")]
    pub environment_file: &'a str,
}

#[derive(Serialize)]
pub(super) struct Related {
    pub id: u32,
    pub message: Text,
    #[serde(rename = "physicalLocation")]
    pub physical_location: Physical,
}

/// A SARIF `physicalLocation`.
#[derive(Serialize)]
pub(super) struct Physical {
    #[serde(rename = "artifactLocation")]
    artifact_location: Uri,
    #[serde(skip_serializing_if = "Option::is_none")]
    region: Option<Region>,
}

#[derive(Serialize)]
struct Uri {
    uri: String,
}

#[derive(Serialize)]
struct Region {
    #[serde(rename = "startColumn")]
    start_column: u32,
    #[serde(rename = "startLine")]
    start_line: u32,
}

/// One finding as a SARIF result, located at its declaration.
pub(super) fn result(f: &Finding) -> SarifResult<'_> {
    SarifResult {
        code: f.code,
        level: match f.severity {
            Severity::Error => "error",
            Severity::Warning => "warning",
        },
        locations: f
            .location
            .as_ref()
            .and_then(physical)
            .map(|physical_location| [Located { physical_location }]),
        message: Text {
            text: f.message.clone(),
        },
        properties: None,
        related_locations: None,
        rule_id: f.code.as_str(),
        rule_index: None,
        suppressions: f.accepted.as_ref().map(|a| {
            [Suppression {
                justification: a.reason.clone(),
                kind: "external",
            }]
        }),
    }
}

/// A SARIF `physicalLocation`; none for standard input, which is no artifact a SARIF viewer
/// can open (nor a valid URI).
pub(super) fn physical(at: &FileLocation) -> Option<Physical> {
    if &*at.file == STDIN {
        return None;
    }
    Some(Physical {
        artifact_location: Uri {
            uri: at.file.replace('\\', "/"),
        },
        region: at.location.is_known().then_some(Region {
            start_column: at.location.column,
            start_line: at.location.line,
        }),
    })
}
