//! The section 10 checks of data wiring: each input of an entity's release is fed
//! (`missing-output`, `unfed-input`, judged by [`crate::wiring`]), and no cycle of installation
//! runs through a data edge (`data-cycle`, over the environment's ordering edges from
//! [`crate::precedence`]).

use std::sync::Arc;

use super::{Check, EntityChecker};
use crate::catalog::Catalog;
use crate::diagnostic::FileLocation;
use crate::environment::Environment;
use crate::finding::{Code, Finding};
use crate::manifest::Manifest;
use crate::precedence::Node;
use crate::wiring::{self, Feed};

impl EntityChecker<'_> {
    /// One check per input of the release: fed, or why not.
    pub(super) fn inputs(&self, manifest: &Manifest) -> Vec<Check> {
        wiring::feeds(self.world, &self.entity.name, manifest)
            .into_iter()
            .map(|(input, feed)| {
                let constraint = format!("input {} from {}", input.name, input.from);
                let finding = |code: Code, why: String| {
                    let message = format!("{} {constraint}{why}", self.who(manifest));
                    let mut f = self.finding(manifest, code, input.location, message, &constraint);
                    f.requirement(input.from.clone());
                    f.optional = Some(input.optional);
                    f
                };
                let findings = match feed {
                    Feed::MissingOutput(source) => {
                        let output = input.output.as_deref().unwrap_or_default();
                        let mut f = finding(
                            Code::MissingOutput,
                            format!(": {source} serves it, but its release declares no output `{output}`"),
                        );
                        f.found = Some(source.to_owned());
                        vec![f]
                    }
                    Feed::Unfed => vec![finding(
                        Code::UnfedInput,
                        format!(", a required input, but nothing serves the optional {}", input.from),
                    )],
                    Feed::Fed(_) | Feed::Quiet => Vec::new(),
                };
                self.check(constraint, findings)
            })
            .collect()
    }
}

/// `data-cycle` findings: each set of installed entities that must be installed before one
/// another through at least one data edge, named by its first entity (by name), all of them
/// in `cycle`. Cycles of required dependencies alone are groups, not findings (section 7).
#[must_use]
pub fn data_cycles(environment: &Environment, catalog: &Catalog) -> Vec<Finding> {
    let installed: Vec<_> = environment
        .entities
        .iter()
        .filter(|e| e.is_installed())
        .map(|e| (e, catalog.release(&e.product, &e.version).map(|m| &**m)))
        .collect();
    if !installed
        .iter()
        .any(|(_, r)| r.is_some_and(|r| !r.facets().inputs.is_empty()))
    {
        return Vec::new();
    }
    let nodes: Vec<Node> = installed
        .iter()
        .map(|(e, release)| Node {
            name: &e.name,
            product: &e.product,
            version: &e.version,
            release: *release,
            placement: &e.placement,
        })
        .collect();
    crate::order::data_cycles(&nodes)
        .into_iter()
        .map(|members| {
            // node indices follow entity-name order: the first member is the first by name
            let names: Vec<String> = members.iter().map(|&m| nodes[m].name.to_owned()).collect();
            let (first, _) = installed[members[0]];
            let detail = format!(
                "{} feed data into one another in a cycle, so none of them can be installed first",
                names.join(", ")
            );
            let mut f = Finding::new(Code::DataCycle, detail.clone(), detail);
            f.entity = Some(first.name.clone());
            f.product = Some(first.product.clone());
            f.version = Some(first.version.to_string());
            f.cycle = Some(names);
            f.location = Some(FileLocation {
                file: Arc::clone(&environment.file),
                location: first.location,
            });
            f
        })
        .collect()
}
