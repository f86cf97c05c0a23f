//! Findings: the stable codes of SPEC section 7, their severities, and the finding record
//! that `validate` and `lint` produce and every report format renders.

use std::fmt;

use serde::Serialize;

use crate::diagnostic::FileLocation;
use crate::product::ProductId;

/// How bad a finding is; `--fail-on` picks the level that fails a run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    Warning,
    Error,
}

impl Severity {
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Warning => "warning",
            Severity::Error => "error",
        }
    }
}

/// A finding code of SPEC section 7. The string forms are stable: CI users match on them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Code {
    UnknownRelease,
    InvalidManifest,
    MissingDependency,
    VersionTooLow,
    VersionTooHigh,
    NonOrderableVersion,
    IncompatibleRelease,
    BelowRecommended,
    UnknownKey,
    LockstepRange,
    MissingCapability,
    CapabilityOutOfRange,
    UnsatisfiedConstraint,
    RuntimeMismatch,
    UnknownRuntime,
    ExcludedRelease,
    DeprecatedRelease,
    InvalidBinding,
    MissingOutput,
    DataCycle,
    UnfedInput,
}

impl Code {
    /// Every code, in the order SPEC section 7 lists them (used for SARIF rules).
    pub const ALL: [Code; 21] = [
        Code::MissingDependency,
        Code::VersionTooLow,
        Code::VersionTooHigh,
        Code::NonOrderableVersion,
        Code::IncompatibleRelease,
        Code::UnknownRelease,
        Code::InvalidManifest,
        Code::BelowRecommended,
        Code::UnknownKey,
        Code::LockstepRange,
        Code::MissingCapability,
        Code::CapabilityOutOfRange,
        Code::UnsatisfiedConstraint,
        Code::RuntimeMismatch,
        Code::UnknownRuntime,
        Code::ExcludedRelease,
        Code::DeprecatedRelease,
        Code::InvalidBinding,
        Code::MissingOutput,
        Code::DataCycle,
        Code::UnfedInput,
    ];

    /// One of the ten codes of SPEC section 7 (not a section 9 addition).
    #[must_use]
    pub fn is_section_7(self) -> bool {
        Code::ALL[..10].contains(&self)
    }

    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Code::MissingDependency => "missing-dependency",
            Code::VersionTooLow => "version-too-low",
            Code::VersionTooHigh => "version-too-high",
            Code::NonOrderableVersion => "non-orderable-version",
            Code::IncompatibleRelease => "incompatible-release",
            Code::UnknownRelease => "unknown-release",
            Code::InvalidManifest => "invalid-manifest",
            Code::BelowRecommended => "below-recommended",
            Code::UnknownKey => "unknown-key",
            Code::LockstepRange => "lockstep-range",
            Code::MissingCapability => "missing-capability",
            Code::CapabilityOutOfRange => "capability-out-of-range",
            Code::UnsatisfiedConstraint => "unsatisfied-constraint",
            Code::RuntimeMismatch => "runtime-mismatch",
            Code::UnknownRuntime => "unknown-runtime",
            Code::ExcludedRelease => "excluded-release",
            Code::DeprecatedRelease => "deprecated-release",
            Code::InvalidBinding => "invalid-binding",
            Code::MissingOutput => "missing-output",
            Code::DataCycle => "data-cycle",
            Code::UnfedInput => "unfed-input",
        }
    }

    /// The code with this stable string form.
    #[must_use]
    pub fn parse(text: &str) -> Option<Code> {
        Code::ALL.into_iter().find(|c| c.as_str() == text)
    }

    #[must_use]
    pub fn severity(self) -> Severity {
        match self {
            Code::BelowRecommended
            | Code::UnknownKey
            | Code::LockstepRange
            | Code::UnknownRuntime
            | Code::DeprecatedRelease => Severity::Warning,
            _ => Severity::Error,
        }
    }

    /// One line on what the code means, for SARIF rule descriptions and help.
    #[must_use]
    pub fn description(self) -> &'static str {
        match self {
            Code::MissingDependency => "a required dependency has no installed entity",
            Code::VersionTooLow => "an installed dependency is below the minimum",
            Code::VersionTooHigh => "an installed dependency is above the maximum bound",
            Code::NonOrderableVersion => {
                "an installed dependency's version cannot be ordered, so no range holds"
            }
            Code::IncompatibleRelease => "a declared incompatibility is installed",
            Code::UnknownRelease => "an installed entity's release has no manifest in the catalog",
            Code::InvalidManifest => "a manifest breaks the dependency or manifest rules",
            Code::BelowRecommended => "an installed dependency is below the recommended version",
            Code::UnknownKey => "an unknown key inside a dependency or incompatibility entry",
            Code::LockstepRange => "a dependency's minimum and maximum are the same string",
            Code::MissingCapability => "a required capability has no visible provider",
            Code::CapabilityOutOfRange => {
                "providers of a required capability are visible, but none at a version in range"
            }
            Code::UnsatisfiedConstraint => "a `constraints` item of a release does not hold",
            Code::RuntimeMismatch => {
                "the environment's runtime version is outside a release's requirement"
            }
            Code::UnknownRuntime => "a release requires a runtime the environment does not declare",
            Code::ExcludedRelease => "an installed release is excluded by policy",
            Code::DeprecatedRelease => "an installed release is deprecated",
            Code::InvalidBinding => {
                "a binding names no entity, or one that cannot serve the requirement"
            }
            Code::MissingOutput => "a wired input's source does not declare that output",
            Code::DataCycle => "inputs and outputs form a cycle, so nothing can go first",
            Code::UnfedInput => "a required input whose source requirement is optional and absent",
        }
    }
}

impl fmt::Display for Code {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl Serialize for Code {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

/// One problem, with every field SPEC section 8 names where it applies.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Finding {
    pub code: Code,
    pub severity: Severity,
    pub message: String,
    /// The constraint or problem alone, without who declares it (for tables).
    #[serde(skip)]
    pub detail: String,
    /// The entity whose release declares the constraint (or runs the unknown/invalid release).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub entity: Option<String>,
    /// The product of the declaring release.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub product: Option<ProductId>,
    /// The version of the declaring release.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub version: Option<String>,
    /// The depended-on or incompatible product.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dependency: Option<ProductId>,
    /// In `dependency`'s place for section 9 findings: the capability or runtime name
    /// (never set together with `dependency`).
    #[serde(rename = "dependency", skip_serializing_if = "Option::is_none")]
    pub dependency_name: Option<String>,
    /// The version of the entity that breaks the constraint.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub found: Option<String>,
    /// The name of the entity that runs `found`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub found_entity: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub minimum: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub maximum: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub recommended: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub optional: Option<bool>,
    #[serde(
        skip_serializing_if = "Option::is_none",
        serialize_with = "location_json"
    )]
    pub location: Option<FileLocation>,
    /// `unknown-release`: whether the catalog knows the product at all.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub known_product: Option<bool>,
    /// `unknown-release` of a known product: the known versions nearest to `version`
    /// (`suggest::nearest_versions`), ascending.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub nearest_versions: Option<Vec<String>>,
    /// `unknown-release` of an unknown product: products with close names
    /// (`suggest::similar_products`), closest first.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub similar_products: Option<Vec<ProductId>>,
    /// `data-cycle`: every entity of the cycle, sorted by name.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cycle: Option<Vec<String>>,
    /// Accepted by an allow rule (module `accept`): still reported, never failing a run.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub accepted: Option<Accepted>,
}

/// Why a finding is accepted: `"accepted": {"reason": ...}` in JSON.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Accepted {
    pub reason: String,
}

impl Finding {
    /// A finding with only its code, message and detail set.
    #[must_use]
    pub fn new(code: Code, message: impl Into<String>, detail: impl Into<String>) -> Finding {
        Finding {
            code,
            severity: code.severity(),
            message: message.into(),
            detail: detail.into(),
            entity: None,
            product: None,
            version: None,
            dependency: None,
            dependency_name: None,
            found: None,
            found_entity: None,
            minimum: None,
            maximum: None,
            recommended: None,
            optional: None,
            location: None,
            known_product: None,
            nearest_versions: None,
            similar_products: None,
            cycle: None,
            accepted: None,
        }
    }

    /// Sets `dependency` to the requirement a section 10 finding is about: the product, or
    /// the capability's name.
    pub fn requirement(&mut self, requirement: crate::instance::Requirement) {
        match requirement {
            crate::instance::Requirement::Product(p) => self.dependency = Some(p),
            crate::instance::Requirement::Capability(c) => self.dependency_name = Some(c),
        }
    }
}

#[allow(clippy::ref_option)] // serde's `serialize_with` passes `&Option<T>`
fn location_json<S: serde::Serializer>(
    location: &Option<FileLocation>,
    serializer: S,
) -> Result<S::Ok, S::Error> {
    #[derive(Serialize)]
    struct Json<'a> {
        file: &'a str,
        #[serde(skip_serializing_if = "Option::is_none")]
        line: Option<u32>,
        #[serde(skip_serializing_if = "Option::is_none")]
        column: Option<u32>,
    }
    let Some(at) = location else {
        return serializer.serialize_none();
    };
    let known = at.location.is_known();
    Json {
        file: &at.file,
        line: known.then_some(at.location.line),
        column: known.then_some(at.location.column),
    }
    .serialize(serializer)
}
