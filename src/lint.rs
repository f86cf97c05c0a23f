//! Lint: SPEC section 3 and 4 checks on manifests alone, without an environment.
//!
//! Each [`Issue`](crate::manifest::Issue) a manifest carries becomes a finding naming the
//! release and the location of the offending value. Findings are sorted by file and location.

use std::sync::Arc;

use crate::diagnostic::FileLocation;
use crate::finding::Finding;
use crate::manifest::Manifest;

/// The findings of a set of manifests.
#[derive(Clone, Debug)]
pub struct Lint {
    /// How many manifests were checked.
    pub manifests: usize,
    pub findings: Vec<Finding>,
}

/// Lints manifests, in any order.
#[must_use]
pub fn lint(manifests: &[Manifest]) -> Lint {
    let mut findings: Vec<Finding> = manifests
        .iter()
        .flat_map(|m| {
            m.issues.iter().map(move |issue| {
                let message = format!("{}: {}", m.release_name(), issue.message);
                let mut f = Finding::new(issue.code, message, &issue.message);
                f.product = Some(m.product.clone());
                f.version = Some(m.version.to_string());
                f.dependency.clone_from(&issue.dependency);
                f.dependency_name.clone_from(&issue.subject);
                f.location = Some(FileLocation {
                    file: Arc::clone(&m.file),
                    location: issue.location,
                });
                f
            })
        })
        .collect();
    findings.sort_by(|a, b| (&a.location, a.code).cmp(&(&b.location, b.code)));
    Lint {
        manifests: manifests.len(),
        findings,
    }
}
