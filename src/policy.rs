//! Operator policy (SPEC 9.2): pinned products, excluded releases, whether deprecated releases
//! may be chosen; read from an environment's `policy:` or a `--policy FILE`, and merged.
//!
//! Invariants: a merged policy is the union of its parts (pins and exclusions; `allow-
//! deprecated` when either says so); pins are sorted and unique; exclusions keep the order
//! they were read in (environment first), so the first matching one is reported. A malformed
//! policy is unreadable input (exit 3), located; unknown keys inside an exclusion are warnings.

use std::collections::BTreeSet;
use std::sync::Arc;

use crate::diagnostic::{FileLocation, InputError, Location, Spanned};
use crate::manifest::Manifest;
use crate::matcher::Matcher;
use crate::product::ProductId;
use crate::range::Range;
use crate::rule::{Rule, Subject};
use crate::version::Version;
use crate::yaml::{self, Tree};

/// What an administrator allows and forbids.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Policy {
    /// Products never moved by `upgrades` or `plan`.
    pub pin: BTreeSet<ProductId>,
    pub exclude: Vec<Exclusion>,
    pub allow_deprecated: bool,
}

/// One `exclude` entry.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Exclusion {
    pub what: Excluded,
    /// Quoted in findings.
    pub reason: Option<String>,
    pub location: FileLocation,
}

/// Which releases an exclusion forbids.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Excluded {
    /// The product's releases in range (either end may be open).
    Product { product: ProductId, range: Range },
    /// The releases a CEL rule is true for.
    Rule(Rule),
}

impl Policy {
    /// True when the policy says nothing.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        *self == Policy::default()
    }

    /// Adds `other` to this policy (SPEC 9.2's union).
    pub fn merge(&mut self, other: Policy) {
        self.pin.extend(other.pin);
        self.exclude.extend(other.exclude);
        self.allow_deprecated |= other.allow_deprecated;
    }

    /// The first exclusion that forbids `manifest`'s release, run by `entity` (empty when the
    /// release is judged as a candidate).
    #[must_use]
    pub fn excluding(&self, manifest: &Manifest, entity: &str) -> Option<&Exclusion> {
        self.exclude
            .iter()
            .find(|e| e.excludes(manifest, &manifest.version, entity))
    }

    /// Whether `manifest`'s release may be chosen as a candidate: not excluded, and not
    /// deprecated unless `allow-deprecated`.
    #[must_use]
    pub fn admits(&self, manifest: &Manifest) -> bool {
        self.excluding(manifest, "").is_none()
            && (self.allow_deprecated || manifest.facets().deprecated.is_none())
    }
}

impl Exclusion {
    /// Whether this entry forbids `manifest` (whose release runs as `version`).
    #[must_use]
    pub fn excludes(&self, manifest: &Manifest, version: &Version, entity: &str) -> bool {
        match &self.what {
            Excluded::Product { product, range } => {
                *product == manifest.product && range.contains(version)
            }
            Excluded::Rule(rule) => rule.holds_for(&Subject {
                properties: &manifest.facets().properties,
                product: &manifest.product.to_string(),
                version: version.as_str(),
                entity,
            }),
        }
    }
}

/// Reads a `--policy FILE`: a YAML document whose top level has the one key `policy:`.
///
/// # Errors
/// Malformed YAML or a malformed policy, located in `file`.
/// Warnings (unknown keys) come as `file:line:column: message`.
pub fn parse_file(text: &str, file: &Arc<str>) -> Result<(Policy, Vec<String>), InputError> {
    let docs: Vec<Spanned<Tree>> =
        yaml::documents(text).map_err(|e| InputError::malformed(file, e.location, e.message))?;
    let [doc] = docs.as_slice() else {
        return Err(InputError::malformed(
            file,
            Location::new(1, 1),
            format!(
                "expected one policy document (a mapping with the key `policy`), found {}",
                docs.len()
            ),
        ));
    };
    let Tree::Map(fields) = &doc.value else {
        return Err(InputError::malformed(
            file,
            doc.location,
            "expected a mapping with the key `policy`",
        ));
    };
    if let Some((key, _)) = fields.iter().find(|(k, _)| k.value != "policy") {
        return Err(InputError::malformed(
            file,
            key.location,
            format!(
                "expected only the key `policy` in a policy file, found `{}`",
                key.value
            ),
        ));
    }
    let Some((_, node)) = fields.first() else {
        return Err(InputError::malformed(
            file,
            doc.location,
            "expected the key `policy`",
        ));
    };
    let mut warnings = Vec::new();
    let policy = read(node, file, &mut warnings)?;
    let warnings = warnings
        .into_iter()
        .map(|(at, message)| format!("{file}:{}:{}: {message}", at.line, at.column))
        .collect();
    Ok((policy, warnings))
}

/// Reads a `policy:` value (from an environment or a policy file), collecting warnings.
///
/// # Errors
/// A malformed policy, located in `file`.
pub fn read(
    node: &Spanned<Tree>,
    file: &Arc<str>,
    warnings: &mut Vec<(Location, String)>,
) -> Result<Policy, InputError> {
    let err = |at: Location, message: String| InputError::malformed(file, at, message);
    let mut policy = Policy::default();
    let fields = match &node.value {
        Tree::Null => return Ok(policy),
        Tree::Map(fields) => fields,
        other => {
            return Err(err(
                node.location,
                format!("expected `policy` to be a mapping, found {}", other.kind()),
            ));
        }
    };
    for (key, value) in fields {
        match key.value.as_str() {
            "pin" => {
                for item in list(value, "pin", file)? {
                    let text = item.value.text().ok_or_else(|| {
                        err(
                            item.location,
                            "expected a product as `group:name`".to_owned(),
                        )
                    })?;
                    let product = ProductId::parse(&text).map_err(|m| err(item.location, m))?;
                    policy.pin.insert(product);
                }
            }
            "exclude" => {
                for item in list(value, "exclude", file)? {
                    policy.exclude.push(exclusion(item, file, warnings)?);
                }
            }
            "allow-deprecated" => match value.value {
                Tree::Bool(b) => policy.allow_deprecated = b,
                Tree::Null => {}
                ref other => {
                    return Err(err(
                        value.location,
                        format!(
                            "expected `allow-deprecated` to be `true` or `false`, found {}",
                            other.kind()
                        ),
                    ));
                }
            },
            other => warnings.push((
                key.location,
                format!(
                    "unknown key `{other}` in `policy` (expected `pin`, `exclude` or \
                     `allow-deprecated`)"
                ),
            )),
        }
    }
    Ok(policy)
}

fn list<'t>(
    node: &'t Spanned<Tree>,
    key: &str,
    file: &Arc<str>,
) -> Result<&'t [Spanned<Tree>], InputError> {
    match &node.value {
        Tree::Seq(items) => Ok(items),
        Tree::Null => Ok(&[]),
        other => Err(InputError::malformed(
            file,
            node.location,
            format!("expected `{key}` to be a list, found {}", other.kind()),
        )),
    }
}

fn exclusion(
    node: &Spanned<Tree>,
    file: &Arc<str>,
    warnings: &mut Vec<(Location, String)>,
) -> Result<Exclusion, InputError> {
    let err = |at: Location, message: String| InputError::malformed(file, at, message);
    let Tree::Map(fields) = &node.value else {
        return Err(err(
            node.location,
            format!(
                "expected an exclusion (a mapping with `product` or `rule`), found {}",
                node.value.kind()
            ),
        ));
    };
    let get = |key: &str| {
        fields
            .iter()
            .find(|(k, _)| k.value == key)
            .map(|(_, v)| v)
            .filter(|v| v.value != Tree::Null)
    };
    let text = |v: &Spanned<Tree>, key: &str| {
        v.value.text().ok_or_else(|| {
            err(
                v.location,
                format!("expected `{key}` to be a string, found {}", v.value.kind()),
            )
        })
    };
    let (what, known): (Excluded, &[&str]) = match (get("product"), get("rule")) {
        (Some(p), None) => {
            let product = ProductId::parse(&text(p, "product")?).map_err(|m| err(p.location, m))?;
            let minimum = get("minimum-version")
                .map(|v| {
                    let t = text(v, "minimum-version")?;
                    match Version::parse(&t) {
                        Ok(version) if version.is_orderable() => Ok(version),
                        Ok(_) => Err(err(
                            v.location,
                            format!("`minimum-version` must be an orderable version, found `{t}`"),
                        )),
                        Err(e) => Err(err(v.location, format!("`minimum-version`: {e}"))),
                    }
                })
                .transpose()?;
            let maximum = get("maximum-version")
                .map(|v| {
                    Matcher::parse(&text(v, "maximum-version")?)
                        .map_err(|e| err(v.location, format!("`maximum-version`: {e}")))
                })
                .transpose()?;
            let range = Range { minimum, maximum };
            if range.is_empty() {
                let at = get("maximum-version").map_or(node.location, |v| v.location);
                return Err(err(
                    at,
                    format!("`maximum-version` is below `minimum-version` ({range})"),
                ));
            }
            (
                Excluded::Product { product, range },
                &["product", "minimum-version", "maximum-version", "reason"],
            )
        }
        (None, Some(r)) => {
            let rule = Rule::compile(&text(r, "rule")?)
                .map_err(|m| err(r.location, format!("`rule`: {m}")))?;
            (Excluded::Rule(rule), &["rule", "reason"])
        }
        _ => {
            return Err(err(
                node.location,
                "expected an exclusion with either `product` or `rule`".to_owned(),
            ));
        }
    };
    for (key, _) in fields {
        if !known.contains(&key.value.as_str()) {
            warnings.push((
                key.location,
                format!("unknown key `{}` in a policy `exclude` entry", key.value),
            ));
        }
    }
    let reason = get("reason").map(|v| text(v, "reason")).transpose()?;
    Ok(Exclusion {
        what,
        reason,
        location: FileLocation {
            file: Arc::clone(file),
            location: node.location,
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file() -> Arc<str> {
        Arc::from("policy.yml")
    }

    #[test]
    fn reads_and_merges_policies() {
        let (a, warnings) = parse_file(
            "policy:\n  pin: [com.example:web]\n  exclude:\n    - product: com.example:cache\n      \
             minimum-version: 2.0.0\n      maximum-version: 2.3.x\n      reason: CVE-2026-0001\n      \
             severity: high\n",
            &file(),
        )
        .unwrap();
        assert_eq!(
            warnings,
            ["policy.yml:8:7: unknown key `severity` in a policy `exclude` entry"]
        );
        let (b, _) = parse_file(
            "policy:\n  exclude:\n    - rule: '!has(properties.certified)'\n      reason: \
             uncertified\n  allow-deprecated: true\n",
            &file(),
        )
        .unwrap();
        let mut merged = a.clone();
        merged.merge(b);
        assert_eq!(merged.pin.len(), 1);
        assert_eq!(merged.exclude.len(), 2);
        assert!(merged.allow_deprecated && !a.allow_deprecated);
        assert_eq!(merged.exclude[0].reason.as_deref(), Some("CVE-2026-0001"));
    }

    #[test]
    fn rejects_malformed_policies() {
        for (text, expected) in [
            (
                "other: 1\n",
                "policy.yml:1:1: expected only the key `policy` in a policy file, found `other`",
            ),
            (
                "policy:\n  pin: web\n",
                "policy.yml:2:8: expected `pin` to be a list, found a string",
            ),
            (
                "policy:\n  pin: [web]\n",
                "policy.yml:2:9: expected a product as `group:name`, found `web`",
            ),
            (
                "policy:\n  exclude:\n    - reason: x\n",
                "policy.yml:3:7: expected an exclusion with either `product` or `rule`",
            ),
            (
                "policy:\n  exclude:\n    - rule: 'a ==='\n",
                "policy.yml:3:13: `rule`: the rule does not parse as CEL: Syntax error: token recognition error at: '='",
            ),
            (
                "policy:\n  exclude:\n    - product: g:a\n      minimum-version: 2.0.0\n      maximum-version: 1.x.x\n",
                "policy.yml:5:24: `maximum-version` is below `minimum-version` (>=2.0.0, <=1.x.x)",
            ),
            (
                "policy:\n  allow-deprecated: maybe\n",
                "policy.yml:2:21: expected `allow-deprecated` to be `true` or `false`, found a string",
            ),
        ] {
            let got = parse_file(text, &file())
                .map(|_| ())
                .unwrap_err()
                .to_string();
            assert_eq!(got, expected, "{text}");
        }
    }
}
