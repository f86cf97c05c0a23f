//! Fleet reports as SARIF 2.1.0: one run; each finding of an entity is a result located at
//! the entity's entry in its environment file, with the declaration as a related location
//! and the environment named in the message and in `properties`; the catalog's own findings
//! (files left out unread) are results once, at those files.

use crate::fleet::FleetValidation;
use crate::report::sarif::{
    Located, Properties, Related, SarifResult, Text, document, physical, result,
};

#[must_use]
pub fn validation(f: &FleetValidation) -> String {
    let mut results: Vec<SarifResult<'_>> = f
        .members
        .first()
        .map(|m| m.validation.unreadable.iter().map(result).collect())
        .unwrap_or_default();
    for m in &f.members {
        let v = &m.validation;
        for finding in v.checks.iter().flat_map(|c| &c.findings) {
            let mut out = result(finding);
            out.message = Text {
                text: format!("{}: {}", v.environment, finding.message),
            };
            out.properties = Some(Properties {
                environment: &v.environment,
                environment_file: &m.file,
            });
            if let Some(entry) = finding.entity.as_deref().and_then(|e| m.entity_location(e))
                && let Some(here) = physical(&entry)
            {
                if let Some(declared) = finding
                    .location
                    .as_ref()
                    .filter(|d| **d != entry)
                    .and_then(physical)
                {
                    out.related_locations = Some([Related {
                        id: 1,
                        message: Text {
                            text: "declared here".to_owned(),
                        },
                        physical_location: declared,
                    }]);
                }
                out.locations = Some([Located {
                    physical_location: here,
                }]);
            }
            results.push(out);
        }
    }
    document(&mut results)
}
