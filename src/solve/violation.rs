//! A broken constraint between two products' values, as the planning model reports it
//! (steps, `upgrades`' `blocked_by`, repairs), and the check that finds them between any two
//! sets of running instances.

use std::sync::Arc;

use super::model::Instance;
use crate::constraint;
use crate::finding::Code;
use crate::product::ProductId;

/// A broken constraint between two products' values (or of one value alone).
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Violation {
    pub code: Code,
    /// The product whose release declares the constraint, and that release's version.
    pub declarer: ProductId,
    pub declarer_version: String,
    /// The entity that runs the declaring release, when it is an existing one.
    pub declarer_entity: Option<String>,
    /// Whether the broken constraint is an optional dependency.
    pub optional: bool,
    /// The range's two ends, as written.
    pub minimum: Option<String>,
    pub maximum: Option<String>,
    /// The product the constraint is about.
    pub dependency: ProductId,
    /// The version found (absent for a missing dependency), and the entity that runs it when
    /// it is an existing one.
    pub found: Option<String>,
    pub found_entity: Option<String>,
    /// The range, as written.
    pub range: String,
    /// Where the constraint is declared.
    pub location: Option<crate::diagnostic::FileLocation>,
    /// For an input left unfed (section 10's `missing-output`, `unfed-input`): its name and
    /// the output it reads (`None`: it waits for readiness only). `range` then says `input
    /// NAME from REQUIREMENT`.
    pub input: Option<(String, Option<String>)>,
}

impl Violation {
    /// One line for the broken constraint, with both sides.
    #[must_use]
    pub fn describe(&self) -> String {
        if let Some((input, output)) = &self.input {
            let product = self.dependency.to_string();
            let source = self.found_entity.as_deref().unwrap_or(&product);
            return match (self.code, output) {
                (Code::MissingOutput, Some(output)) => format!(
                    "{} {} reads output `{output}` of {} (input {input}), but {source} {} would \
                     not declare it",
                    self.declarer,
                    self.declarer_version,
                    self.dependency,
                    self.found.as_deref().unwrap_or_default()
                ),
                _ => format!(
                    "{} {} has a required input {input} from the optional {}, but nothing \
                     would serve it",
                    self.declarer, self.declarer_version, self.dependency
                ),
            };
        }
        match (self.code, &self.found) {
            (Code::MissingDependency, _) => format!(
                "{} {} requires {} {}, which is not installed",
                self.declarer, self.declarer_version, self.dependency, self.range
            ),
            (Code::IncompatibleRelease, Some(found)) => format!(
                "{} {} is incompatible with {} {}, and {} would run {found}",
                self.declarer, self.declarer_version, self.dependency, self.range, self.dependency
            ),
            (_, found) => format!(
                "{} {} requires {} {}, but {} would run {}",
                self.declarer,
                self.declarer_version,
                self.dependency,
                self.range,
                self.dependency,
                found.as_deref().unwrap_or("nothing")
            ),
        }
    }
}

/// The constraints the `ours` instances of `product` declare on `other` running `theirs`, and
/// break. Works on any mix of instances (a product half-way through a rolling upgrade).
#[must_use]
pub fn check(
    product: &ProductId,
    ours: &[Instance<'_>],
    other: &ProductId,
    theirs: &[Instance<'_>],
) -> Vec<Violation> {
    {
        let mut out = Vec::new();
        for inst in ours {
            let Some(m) = inst.manifest else { continue };
            let conflict = |code,
                            found: Option<&Instance<'_>>,
                            range: &crate::range::Range,
                            optional,
                            at: crate::diagnostic::Location| Violation {
                code,
                declarer: product.clone(),
                declarer_version: inst.version.to_string(),
                declarer_entity: inst.entity.map(str::to_owned),
                optional,
                minimum: range.minimum.as_ref().map(ToString::to_string),
                maximum: range.maximum.as_ref().map(ToString::to_string),
                dependency: other.clone(),
                found: found.map(|t| t.version.to_string()),
                found_entity: found.and_then(|t| t.entity.map(str::to_owned)),
                range: range.to_string(),
                location: Some(crate::diagnostic::FileLocation {
                    file: Arc::clone(&m.file),
                    location: at,
                }),
                input: None,
            };
            for d in m.dependencies.iter().filter(|d| d.product == *other) {
                if theirs.is_empty()
                    && let Some(code) = constraint::dependency_absent(d).code()
                {
                    out.push(conflict(code, None, &d.range, false, d.location));
                }
                for t in theirs {
                    if let Some(code) = constraint::dependency_on(d, t.version).code() {
                        out.push(conflict(code, Some(t), &d.range, d.optional, d.location));
                    }
                }
            }
            for c in m.incompatibilities.iter().filter(|c| c.product == *other) {
                for t in theirs {
                    if let Some(code) = constraint::incompatibility_on(c, t.version).code() {
                        out.push(conflict(code, Some(t), &c.range, false, c.location));
                    }
                }
            }
        }
        out
    }
}
