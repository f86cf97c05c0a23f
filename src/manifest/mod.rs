//! Manifests: one release and what it declares about other products (SPEC sections 3 and 4).
//!
//! Reading has two outcomes, kept apart on purpose:
//! - text that cannot be read as a manifest (bad YAML, wrong types, missing top-level fields, a
//!   `product-version` that is not a version) is an [`InputError`] (exit 3);
//! - a manifest that reads but whose declarations break SPEC section 3 or 4 is kept, with each
//!   problem recorded as an [`Issue`] located at the offending value. The broken declaration
//!   itself is left out of [`Manifest::dependencies`] / [`Manifest::incompatibilities`], so
//!   every declaration a manifest holds is well formed.
//!
//! Decisions where SPEC is silent: a malformed value inside a dependency entry (a minimum that
//! is not a version, a maximum that is not a matcher) is "a field malformed" in the sense of
//! SPEC section 3, so an invalid declaration, not unreadable input; `optional` accepts `true` /
//! `false` (any capitalisation YAML 1.2 allows); an incompatibility on the manifest's own product
//! is allowed (it constrains the *other* entities of that product).
//!
//! Section 9 (capabilities, constraints, runtime requirements, properties, deprecation) is
//! read by [`facets`] into [`Manifest::facets`] under the same rules.

use std::sync::Arc;

use serde::Deserialize;

use crate::diagnostic::{InputError, Location, Spanned};
use crate::finding::Code;
use crate::instance;
use crate::product::ProductId;
use crate::range::Range;
use crate::version::Version;
use crate::yaml::simple::Node;
use crate::yaml::{self, FromNode, Tree};

mod declaration_reader;
use declaration_reader::{DeclarationReader, RawEntry};
mod facet_reader;
pub mod facets;
mod instance_reader;

pub use facets::{
    Atom, CapabilityRequirement, Deprecation, Facets, Provision, RuntimeRequirement, Term, TermKind,
};

/// One release and its declarations.
#[derive(Clone, Debug)]
pub struct Manifest {
    pub product: ProductId,
    pub version: Version,
    pub product_type: Option<String>,
    pub dependencies: Vec<Dependency>,
    pub incompatibilities: Vec<Incompatibility>,
    /// Section 9 declarations; `None` when the manifest uses none of section 9 (see
    /// [`Manifest::facets`]).
    pub facets: Option<Arc<Facets>>,
    /// SPEC section 3/4 problems and warnings, in file order.
    pub issues: Vec<Issue>,
    /// The file the manifest was read from, as the user named it.
    pub file: Arc<str>,
    /// Where `product-version` stands.
    pub location: Location,
}

/// A well-formed `product-dependencies` entry.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Dependency {
    pub product: ProductId,
    /// Always closed: both ends are required.
    pub range: Range,
    pub recommended: Option<Version>,
    pub optional: bool,
    /// Where the entry starts.
    pub location: Location,
}

/// A well-formed `product-incompatibilities` entry.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Incompatibility {
    pub product: ProductId,
    /// Either end may be open; a range with neither end excludes every version.
    pub range: Range,
    pub reason: Option<String>,
    pub location: Location,
}

/// A problem in a manifest's declarations: `invalid-manifest`, `unknown-key` or
/// `lockstep-range`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Issue {
    pub code: Code,
    pub message: String,
    pub location: Location,
    /// The product the declaration names, when it could be read.
    pub dependency: Option<ProductId>,
    /// The capability or runtime a section 9 entry names (never set with `dependency`).
    pub subject: Option<String>,
}

impl Manifest {
    /// Whether the release declares requirement `r`: a product dependency on it, or a
    /// capability requirement of that name (what a binding's key or an input's `from` names).
    #[must_use]
    pub fn declares(&self, r: &instance::Requirement) -> bool {
        match r {
            instance::Requirement::Product(p) => self.dependencies.iter().any(|d| &d.product == p),
            instance::Requirement::Capability(c) => {
                self.facets().requires.iter().any(|q| &q.name == c)
            }
        }
    }

    /// The section 9 declarations (empty when the manifest has none).
    #[must_use]
    pub fn facets(&self) -> &Facets {
        self.facets.as_deref().unwrap_or(Facets::none())
    }

    /// True when no declaration breaks SPEC section 3 or 4 (warnings allowed).
    #[must_use]
    pub fn is_valid(&self) -> bool {
        self.issues.iter().all(|i| i.code != Code::InvalidManifest)
    }

    /// `group:name version`, as reports name a release.
    #[must_use]
    pub fn release_name(&self) -> String {
        format!("{} {}", self.product, self.version)
    }

    /// True when both manifests declare the same thing (locations aside): two files holding
    /// the same release this way are a harmless copy, not a conflict.
    #[must_use]
    pub fn same_declarations(&self, other: &Manifest) -> bool {
        fn same<T>(a: &[T], b: &[T], eq: impl Fn(&T, &T) -> bool) -> bool {
            a.len() == b.len() && a.iter().zip(b).all(|(x, y)| eq(x, y))
        }
        self.product == other.product
            && self.version.as_str() == other.version.as_str()
            && self.product_type == other.product_type
            && same(&self.dependencies, &other.dependencies, |a, b| {
                (&a.product, &a.range, &a.recommended, a.optional)
                    == (&b.product, &b.range, &b.recommended, b.optional)
            })
            && same(&self.incompatibilities, &other.incompatibilities, |a, b| {
                (&a.product, &a.range, &a.reason) == (&b.product, &b.range, &b.reason)
            })
            && self.facets() == other.facets()
            && same(&self.issues, &other.issues, |a, b| {
                (a.code, &a.message) == (b.code, &b.message)
            })
    }
}

/// Reads every manifest in a YAML or JSON text.
///
/// # Errors
/// When the text is not a stream of manifests; the error is located in `file`.
pub fn parse(text: &str, file: &Arc<str>) -> Result<Vec<Manifest>, InputError> {
    let raw: Vec<Spanned<RawManifest>> = yaml::read_documents(text)
        .map_err(|e| InputError::malformed(file, e.location, e.message))?;
    if raw.is_empty() {
        return Err(InputError::malformed(
            file,
            Location::new(1, 1),
            "expected a manifest (a mapping with `product-group`, `product-name` and \
             `product-version`), found no YAML document",
        ));
    }
    raw.into_iter()
        .map(|r| r.value.into_manifest(file, r.location))
        .collect()
}

/// Checks the fast path's contract on `text` (see [`yaml::cross_check`]). For the fuzzers and
/// tests.
///
/// # Errors
/// Both readings, when they differ.
#[doc(hidden)]
pub fn cross_check(text: &str) -> Result<(), String> {
    yaml::cross_check::<Spanned<RawManifest>>(text)
}

/// Whether the simple reader takes `text` (else the full parser reads it). For tests.
#[doc(hidden)]
pub fn takes_fast_path(text: &str) -> bool {
    yaml::simple_documents::<Spanned<RawManifest>>(text).is_some()
}

#[derive(Deserialize, Default, Debug, PartialEq)]
#[serde(rename_all = "kebab-case")]
struct RawManifest {
    manifest_version: Option<Spanned<String>>,
    product_type: Option<String>,
    product_group: Option<Spanned<String>>,
    product_name: Option<Spanned<String>>,
    product_version: Option<Spanned<String>>,
    extensions: Option<RawExtensions>,
}

#[derive(Deserialize, Default, Debug, PartialEq)]
#[serde(rename_all = "kebab-case")]
struct RawExtensions {
    product_dependencies: Option<Vec<Spanned<RawEntry>>>,
    product_incompatibilities: Option<Vec<Spanned<RawEntry>>>,
    // section 9: read whole as trees (the fast path leaves them to the full parser)
    capabilities: Option<Spanned<Tree>>,
    constraints: Option<Spanned<Tree>>,
    runtime_requirements: Option<Spanned<Tree>>,
    properties: Option<Spanned<Tree>>,
    deprecated: Option<Spanned<Tree>>,
    // section 10
    outputs: Option<Spanned<Tree>>,
    inputs: Option<Spanned<Tree>>,
}

/// The fast path's reading of the same fields, matching serde's rules: unknown keys ignored,
/// absent fields `None`.
impl FromNode for RawManifest {
    fn from_node(node: &Spanned<Node<'_>>) -> Option<Self> {
        let mut raw = RawManifest::default();
        for (key, value) in yaml::entries(node)? {
            match key.value {
                "manifest-version" => raw.manifest_version = FromNode::from_node(value)?,
                "product-type" => raw.product_type = FromNode::from_node(value)?,
                "product-group" => raw.product_group = FromNode::from_node(value)?,
                "product-name" => raw.product_name = FromNode::from_node(value)?,
                "product-version" => raw.product_version = FromNode::from_node(value)?,
                "extensions" => raw.extensions = FromNode::from_node(value)?,
                _ => {}
            }
        }
        Some(raw)
    }
}

impl FromNode for RawExtensions {
    fn from_node(node: &Spanned<Node<'_>>) -> Option<Self> {
        let mut raw = RawExtensions::default();
        for (key, value) in yaml::entries(node)? {
            match key.value {
                "product-dependencies" => raw.product_dependencies = FromNode::from_node(value)?,
                "product-incompatibilities" => {
                    raw.product_incompatibilities = FromNode::from_node(value)?;
                }
                // section 9 keys: their values keep their YAML kinds (booleans, numbers), which
                // the simple reader does not tell apart, so the full parser reads them
                "capabilities"
                | "constraints"
                | "runtime-requirements"
                | "properties"
                | "deprecated"
                | "outputs"
                | "inputs" => return None,
                _ => {}
            }
        }
        Some(raw)
    }
}

impl RawManifest {
    fn into_manifest(self, file: &Arc<str>, start: Location) -> Result<Manifest, InputError> {
        let missing = |key: &str| {
            InputError::malformed(
                file,
                start,
                format!("expected `{key}` in the manifest that starts here"),
            )
        };
        self.manifest_version
            .ok_or_else(|| missing("manifest-version"))?;
        let group = self.product_group.ok_or_else(|| missing("product-group"))?;
        let name = self.product_name.ok_or_else(|| missing("product-name"))?;
        let version_text = self
            .product_version
            .ok_or_else(|| missing("product-version"))?;
        let product = ProductId::new(&group.value, &name.value).map_err(|message| {
            let at = if ProductId::new(&group.value, "x").is_err() {
                group.location
            } else {
                name.location
            };
            InputError::malformed(file, at, message)
        })?;
        let version = Version::parse(&version_text.value).map_err(|e| {
            InputError::malformed(
                file,
                version_text.location,
                format!("`product-version`: {e}"),
            )
        })?;
        let mut reader = DeclarationReader {
            own: &product,
            issues: Vec::new(),
            instances: std::collections::BTreeMap::new(),
        };
        let extensions = self.extensions.unwrap_or_default();
        let dependencies = reader.dependencies(extensions.product_dependencies.unwrap_or_default());
        let incompatibilities =
            reader.incompatibilities(extensions.product_incompatibilities.unwrap_or_default());
        let raw_facets = facet_reader::RawFacets {
            capabilities: extensions.capabilities,
            constraints: extensions.constraints,
            runtime_requirements: extensions.runtime_requirements,
            properties: extensions.properties,
            deprecated: extensions.deprecated,
        };
        let mut facets = (raw_facets != facet_reader::RawFacets::default()).then(|| {
            facet_reader::FacetReader {
                issues: &mut reader.issues,
            }
            .read(raw_facets)
        });
        // section 10: criteria of dependencies, outputs and inputs join the same facets
        let instances = std::mem::take(&mut reader.instances);
        if !instances.is_empty() || extensions.outputs.is_some() || extensions.inputs.is_some() {
            let f = facets.get_or_insert_with(Facets::default);
            f.instances = instances;
            if let Some(node) = &extensions.outputs {
                f.outputs = instance_reader::outputs(node, &mut reader.issues);
            }
            if let Some(node) = &extensions.inputs {
                let own = dependencies
                    .iter()
                    .map(|d| instance::Requirement::Product(d.product.clone()))
                    .chain(
                        f.requires
                            .iter()
                            .map(|r| instance::Requirement::Capability(r.name.clone())),
                    )
                    .collect();
                f.inputs = instance_reader::inputs(node, &own, &mut reader.issues);
            }
        }
        let mut issues = reader.issues;
        issues.sort_by_key(|i| i.location);
        Ok(Manifest {
            product,
            version,
            product_type: self.product_type,
            dependencies,
            incompatibilities,
            facets: facets.filter(|f| !f.is_empty()).map(Arc::new),
            issues,
            file: Arc::clone(file),
            location: version_text.location,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file() -> Arc<str> {
        Arc::from("m.yml")
    }

    #[track_caller]
    fn one(text: &str) -> Manifest {
        assert_eq!(cross_check(text), Ok(()));
        let mut all = parse(text, &file()).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(all.len(), 1);
        all.remove(0)
    }

    fn header(deps: &str) -> String {
        format!(
            "manifest-version: \"1.0\"\nproduct-group: com.example\nproduct-name: web\n\
             product-version: 2.3.0\nextensions:\n  product-dependencies:\n{deps}"
        )
    }

    /// The issues of a manifest as `line:column code message`.
    #[track_caller]
    fn issues(text: &str) -> Vec<String> {
        one(text)
            .issues
            .iter()
            .map(|i| {
                format!(
                    "{}:{} {} {}",
                    i.location.line, i.location.column, i.code, i.message
                )
            })
            .collect()
    }

    #[track_caller]
    fn malformed(text: &str, expected: &str) {
        assert_eq!(cross_check(text), Ok(()));
        match parse(text, &file()) {
            Ok(m) => panic!("parsed {} manifests", m.len()),
            Err(e) => assert_eq!(e.to_string(), expected),
        }
    }

    const PG: &str = "    - product-group: org.postgresql\n      product-name: postgresql\n";

    #[test]
    fn reads_the_spec_example() {
        let m = one(&format!(
            "{}      minimum-version: 9.3.6\n      maximum-version: 9.6.x\n      \
             recommended-version: 9.6.2\n      optional: false\n  \
             product-incompatibilities:\n    - product-group: com.example\n      \
             product-name: legacy-cache\n      minimum-version: 1.0.0\n      \
             maximum-version: 1.x.x\n      reason: \"shares port 6379\"\n",
            header(PG)
        ));
        assert_eq!(m.release_name(), "com.example:web 2.3.0");
        assert!(m.issues.is_empty(), "{:?}", m.issues);
        let d = &m.dependencies[0];
        assert_eq!(d.product.to_string(), "org.postgresql:postgresql");
        assert_eq!(d.range.to_string(), ">=9.3.6, <=9.6.x");
        assert_eq!(d.recommended.as_ref().unwrap().as_str(), "9.6.2");
        assert!(!d.optional);
        assert_eq!(d.location, Location::new(7, 7));
        let i = &m.incompatibilities[0];
        assert_eq!(i.product.to_string(), "com.example:legacy-cache");
        assert_eq!(i.reason.as_deref(), Some("shares port 6379"));
    }

    #[test]
    fn versions_are_text_not_floats() {
        let m = one(&format!(
            "{}      minimum-version: 1.10.0\n      maximum-version: 1.10.x\n",
            header(PG)
        ));
        assert_eq!(m.dependencies[0].range.to_string(), ">=1.10.0, <=1.10.x");
    }

    #[test]
    fn reads_json_and_several_documents() {
        let json = r#"{"manifest-version": "1.0", "product-group": "g", "product-name": "a",
            "product-version": "1.0.0", "extensions": {"product-dependencies": [
            {"product-group": "g", "product-name": "b", "minimum-version": "1.0.0",
             "maximum-version": "1.x.x", "optional": true}]}}"#;
        let m = one(json);
        assert!(m.dependencies[0].optional);
        let two = "manifest-version: '1.0'\nproduct-group: g\nproduct-name: a\n\
                   product-version: 1.0.0\n---\nmanifest-version: '1.0'\nproduct-group: g\n\
                   product-name: a\nproduct-version: 1.1.0\nunknown-top: [1]\n";
        let all = parse(two, &file()).unwrap();
        assert_eq!(all.len(), 2);
        assert_eq!(all[1].location, Location::new(9, 18));
    }

    #[test]
    fn ignored_values_are_never_typed() {
        // SPEC 4: unknown extensions are ignored, whatever YAML they hold; `.inf` and `1e999`
        // once made the full parser refuse the file as a "non-finite float"
        for tools in [
            "  tool:\n    ratio: .inf\n    big: 1e999\n",
            "  tool: {ratio: .nan}\n",
        ] {
            let m = one(&format!(
                "{}{tools}",
                header("    []\n").replace(":\n    []", ": []")
            ));
            assert!(m.dependencies.is_empty());
        }
    }

    #[test]
    fn section_3_violations_point_at_the_value() {
        let text = format!(
            "{PG}      minimum-version: 2.0.0\n      maximum-version: 1.x.x\n\
             {}      minimum-version: 1.0.0\n      maximum-version: 1.x.x\n      \
             recommended-version: 2.0.0\n",
            PG.replace("postgresql", "other")
        );
        assert_eq!(
            issues(&header(&text)),
            [
                "10:24 invalid-manifest `maximum-version` `1.x.x` is below `minimum-version` `2.0.0`",
                "15:28 invalid-manifest `recommended-version` `2.0.0` is outside the range >=1.0.0, <=1.x.x",
            ]
        );
    }

    #[test]
    fn malformed_fields_are_invalid_declarations() {
        let text = format!(
            "{PG}      minimum-version: 1.0\n      maximum-version: 1.x.3\n      optional: maybe\n"
        );
        assert_eq!(
            issues(&header(&text)),
            [
                "9:24 invalid-manifest `minimum-version`: expected a version like `1.2.3`, `1.2.3-rc1` or `1.2.3-4-gabc12`, found `1.0`",
                "10:24 invalid-manifest `maximum-version`: expected a version matcher like `1.2.x`, found `1.x.3` (a number may not follow an `x`)",
                "11:17 invalid-manifest `optional` must be `true` or `false`, found `maybe`",
            ]
        );
        let text = format!("{PG}      minimum-version: 1.0.0-branch\n      maximum-version:\n");
        assert_eq!(
            issues(&header(&text)),
            [
                "9:24 invalid-manifest `minimum-version` must be an orderable version, found `1.0.0-branch`",
                "10:22 invalid-manifest `maximum-version` is empty in a `product-dependencies` entry",
            ]
        );
        assert!(one(&header(&text)).dependencies.is_empty());
    }

    #[test]
    fn missing_fields_self_dependency_and_duplicates() {
        let text = format!(
            "    - product-group: org.postgresql\n      minimum-version: 1.0.0\n\
             {PG}      maximum-version: 1.x.x\n\
             {}      minimum-version: 1.0.0\n      maximum-version: 1.x.x\n\
             {PG}      minimum-version: 1.0.0\n      maximum-version: 1.x.x\n\
             {PG}      minimum-version: 1.0.0\n      maximum-version: 1.x.x\n",
            PG.replace("org.postgresql", "com.example")
                .replace("postgresql", "web")
        );
        assert_eq!(
            issues(&header(&text)),
            [
                "7:7 invalid-manifest a `product-dependencies` entry is missing `product-name`",
                "9:7 invalid-manifest a `product-dependencies` entry is missing `minimum-version`",
                "12:7 invalid-manifest `com.example:web` depends on its own product",
                "16:7 invalid-manifest `org.postgresql:postgresql` is listed twice in `product-dependencies` (first at line 9)",
                "20:7 invalid-manifest `org.postgresql:postgresql` is listed twice in `product-dependencies` (first at line 9)",
            ]
        );
    }

    #[test]
    fn warnings_for_unknown_keys_and_lockstep_ranges() {
        let text = format!(
            "{PG}      minimun-version: 1.0.0\n      minimum-version: 9.6.1\n      \
             maximum-version: 9.6.1\n      reason: nope\n"
        );
        let m = one(&header(&text));
        assert!(m.is_valid());
        assert_eq!(m.dependencies.len(), 1);
        assert_eq!(
            issues(&header(&text)),
            [
                "9:7 unknown-key unknown key `minimun-version` in a `product-dependencies` entry",
                "11:24 lockstep-range `org.postgresql:postgresql` range `9.6.1` to `9.6.1` allows one release only, forcing lock-step upgrades",
                "12:15 unknown-key key `reason` does not belong in a `product-dependencies` entry",
            ]
        );
    }

    #[test]
    fn unreadable_manifests_are_input_errors() {
        malformed(
            "",
            "m.yml:1:1: expected a manifest (a mapping with `product-group`, `product-name` and `product-version`), found no YAML document",
        );
        malformed(
            "manifest-version: '1.0'\nproduct-group: g\nproduct-name: a\n",
            "m.yml:1:1: expected `product-version` in the manifest that starts here",
        );
        malformed(
            "manifest-version: '1.0'\nproduct-group: g\nproduct-name: a\nproduct-version: 1.2\n",
            "m.yml:4:18: `product-version`: expected a version like `1.2.3`, `1.2.3-rc1` or `1.2.3-4-gabc12`, found `1.2`",
        );
        malformed(
            "manifest-version: '1.0'\nproduct-group: g\nproduct-name: a\nproduct-version: 1.0.0\n\
             extensions:\n  product-dependencies: {a: 1}\n",
            "m.yml:6:25: expected sequence start",
        );
        malformed("- 1\n", "m.yml:1:1: expected mapping start");
        malformed(
            "manifest-version: '1.0'\nproduct-group: 'a:b'\nproduct-name: a\nproduct-version: 1.0.0\n",
            "m.yml:2:16: expected a product-group without `:` or whitespace, found `a:b`",
        );
    }
}
