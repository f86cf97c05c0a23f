//! Fleet reports as SARIF 2.1.0: one run; each finding of an entity is a result located at
//! the entity's entry in its environment file, with the declaration as a related location
//! and the environment named in the message and in `properties`; the catalog's own findings
//! (files left out unread) are results once, at those files.

use serde_json::{Value, json};

use crate::fleet::FleetValidation;
use crate::report::sarif::{document, physical, result};

#[must_use]
pub fn validation(f: &FleetValidation) -> String {
    let mut results: Vec<Value> = f
        .members
        .first()
        .map(|m| m.validation.unreadable.iter().map(result).collect())
        .unwrap_or_default();
    for m in &f.members {
        let v = &m.validation;
        for finding in v.checks.iter().flat_map(|c| &c.findings) {
            let mut out = result(finding);
            out["message"] = json!({"text": format!("{}: {}", v.environment, finding.message)});
            out["properties"] = json!({"environment": v.environment, "environmentFile": &*m.file});
            let entry = finding.entity.as_deref().and_then(|e| m.entity_location(e));
            if let Some(here) = entry.as_ref().and_then(physical) {
                if let Some(declared) = finding
                    .location
                    .as_ref()
                    .filter(|d| Some(*d) != entry.as_ref())
                    .and_then(physical)
                {
                    out["relatedLocations"] = json!([{
                        "id": 1,
                        "physicalLocation": declared,
                        "message": {"text": "declared here"},
                    }]);
                }
                out["locations"] = json!([{"physicalLocation": here}]);
            }
            results.push(out);
        }
    }
    document(&results)
}
