//! `compat.toml`, the project's defaults: a catalog, an operator policy file, a failure level,
//! an output format, and an allow list of accepted findings (module `accept`). This module only parses a text; finding
//! and reading the file is `loader`'s, applying it the command line's (where flags win).
//!
//! ```toml
//! catalog = "catalog/"          # relative to the file's directory
//! policy = "policy.yml"         # likewise; what `--policy` gives when it is not given
//! fail-on = "warning"
//! format = "json"
//! [[allow]]
//! code = "lockstep-range"
//! product = "com.example:api"   # optional; or entity = "api-1"
//! reason = "known, tracked in JIRA-123"
//! ```
//!
//! Every mistake is an error at its file:line:column: unknown keys, unknown codes, a product
//! that is not `group:name`, an entry without a reason or with both `product` and `entity`.

use std::ops::Range;
use std::sync::Arc;

use serde::Deserialize;
use serde_spanned::Spanned;

use crate::accept::{self, AllowList, Rule, Target};
use crate::diagnostic::{self, FileLocation, InputError, Location};
use crate::finding::Severity;
use crate::product::ProductId;

/// The file name searched for.
pub const FILE_NAME: &str = "compat.toml";

/// The output formats a config may name; a command takes `format` when it has that format.
pub const FORMATS: [&str; 8] = [
    "human", "json", "junit", "github", "sarif", "markdown", "dot", "mermaid",
];

/// A parsed config file.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Config {
    /// The file it was read from, as reports name it.
    pub file: Arc<str>,
    /// `catalog`, as written (a relative path is relative to the file's directory).
    pub catalog: Option<diagnostic::Spanned<String>>,
    /// `policy`, as written (relative to the file's directory): the operator policy file.
    pub policy: Option<String>,
    /// `fail-on`.
    pub fail_on: Option<Severity>,
    /// `format`, one of [`FORMATS`].
    pub format: Option<String>,
    /// The `[[allow]]` entries, in file order.
    pub allow: AllowList,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
struct Raw {
    catalog: Option<Spanned<String>>,
    policy: Option<Spanned<String>>,
    fail_on: Option<Spanned<String>>,
    format: Option<Spanned<String>>,
    #[serde(default)]
    allow: Vec<Spanned<RawAllow>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawAllow {
    code: Spanned<String>,
    product: Option<Spanned<String>>,
    entity: Option<Spanned<String>>,
    reason: Option<Spanned<String>>,
}

/// Parses the text of a config file named `file`.
///
/// # Errors
/// The first mistake, located (TOML syntax, unknown keys, wrong types, unknown codes, bad
/// products, entries without a reason).
pub fn parse(text: &str, file: &Arc<str>) -> Result<Config, InputError> {
    let at = |span: Range<usize>| Location::of_offset(text.as_bytes(), span.start);
    let error =
        |span: Range<usize>, message: String| InputError::malformed(file, at(span), message);
    let raw: Raw = toml_edit::de::from_str(text).map_err(|e| {
        let location = e.span().map_or(Location::new(1, 1), &at);
        // toml_edit's messages end in a newline and may span lines; keep the first
        let message = e.message().lines().next().unwrap_or_default().trim_end();
        InputError::malformed(file, location, message.to_owned())
    })?;
    let fail_on = raw
        .fail_on
        .map(|v| match v.as_ref().as_str() {
            "error" => Ok(Severity::Error),
            "warning" => Ok(Severity::Warning),
            other => Err(error(
                v.span(),
                format!("`fail-on`: expected `error` or `warning`, found `{other}`"),
            )),
        })
        .transpose()?;
    let format = raw
        .format
        .map(|v| {
            if FORMATS.contains(&v.as_ref().as_str()) {
                Ok(v.into_inner())
            } else {
                Err(error(
                    v.span(),
                    format!(
                        "`format`: expected one of {}, found `{}`",
                        FORMATS.join(", "),
                        v.as_ref()
                    ),
                ))
            }
        })
        .transpose()?;
    let mut allow = AllowList::default();
    for entry in raw.allow {
        let span = entry.span();
        let entry = entry.into_inner();
        let code =
            accept::parse_code(entry.code.as_ref()).map_err(|m| error(entry.code.span(), m))?;
        let target = match (entry.product, entry.entity) {
            (Some(_), Some(entity)) => {
                return Err(error(
                    entity.span(),
                    "an `[[allow]]` entry names a `product` or an `entity`, not both".to_owned(),
                ));
            }
            (Some(p), None) => {
                Target::Product(ProductId::parse(p.as_ref()).map_err(|m| error(p.span(), m))?)
            }
            (None, Some(e)) if e.as_ref().is_empty() => {
                return Err(error(
                    e.span(),
                    "expected a non-empty entity name".to_owned(),
                ));
            }
            (None, Some(e)) => Target::Entity(e.into_inner()),
            (None, None) => Target::Any,
        };
        let reason = match entry.reason {
            Some(r) if !r.as_ref().trim().is_empty() => r.into_inner(),
            Some(r) => return Err(error(r.span(), "expected a non-empty `reason`".to_owned())),
            None => {
                return Err(error(
                    span,
                    format!(
                        "the `[[allow]]` entry for `{code}` needs a `reason`: why it is accepted"
                    ),
                ));
            }
        };
        allow.rules.push(Rule {
            code,
            target,
            reason,
            origin: Some(FileLocation {
                file: Arc::clone(file),
                location: at(span),
            }),
        });
    }
    Ok(Config {
        file: Arc::clone(file),
        catalog: raw.catalog.map(|c| diagnostic::Spanned {
            location: at(c.span()),
            value: c.into_inner(),
        }),
        policy: raw.policy.map(Spanned::into_inner),
        fail_on,
        format,
        allow,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(text: &str) -> Result<Config, String> {
        parse(text, &Arc::from("compat.toml")).map_err(|e| e.to_string())
    }

    #[track_caller]
    fn check_error(text: &str, expected: &str) {
        assert_eq!(read(text).unwrap_err(), expected);
    }

    #[test]
    fn reads_defaults_and_rules_in_order() {
        let c = read(
            "catalog = \"catalog/\"\npolicy = \"policy.yml\"\nfail-on = \"warning\"\nformat = \"sarif\"\n\n\
             [[allow]]\ncode = \"lockstep-range\"\nproduct = \"com.example:api\"\nreason = \"known\"\n\n\
             [[allow]]\ncode = \"unknown-key\"\nentity = \"api-1\"\nreason = \"JIRA-1\"\n",
        )
        .unwrap();
        assert_eq!(c.catalog.as_ref().unwrap().value, "catalog/");
        assert_eq!(c.catalog.unwrap().location, Location::new(1, 11));
        assert_eq!(c.policy.as_deref(), Some("policy.yml"));
        assert_eq!(c.fail_on, Some(Severity::Warning));
        assert_eq!(c.format.as_deref(), Some("sarif"));
        let rules: Vec<String> = c.allow.rules.iter().map(ToString::to_string).collect();
        assert_eq!(
            rules,
            [
                "lockstep-range for com.example:api",
                "unknown-key for entity api-1"
            ]
        );
        assert_eq!(c.allow.rules[1].reason, "JIRA-1");
        assert_eq!(
            read("").unwrap(),
            Config {
                file: "compat.toml".into(),
                ..Config::default()
            }
        );
    }

    #[test]
    fn mistakes_are_located() {
        check_error(
            "[[allow]]\ncode = \"lockstep\"\nreason = \"r\"\n",
            "compat.toml:2:8: unknown finding code `lockstep`; expected one of: \
             missing-dependency, version-too-low, version-too-high, non-orderable-version, \
             incompatible-release, unknown-release, invalid-manifest, below-recommended, \
             unknown-key, lockstep-range, missing-capability, capability-out-of-range, \
             unsatisfied-constraint, runtime-mismatch, unknown-runtime, excluded-release, \
             deprecated-release, invalid-binding, missing-output, data-cycle, unfed-input",
        );
        check_error(
            "fail-on = \"warning\"\n[[allow]]\ncode = \"unknown-key\"\n",
            "compat.toml:2:1: the `[[allow]]` entry for `unknown-key` needs a `reason`: why it \
             is accepted",
        );
        check_error(
            "[[allow]]\ncode = \"unknown-key\"\nproduct = \"api\"\nreason = \"r\"\n",
            "compat.toml:3:11: expected a product as `group:name`, found `api`",
        );
        check_error(
            "[[allow]]\ncode = \"unknown-key\"\nproduct = \"g:a\"\nentity = \"a\"\nreason = \"r\"\n",
            "compat.toml:4:10: an `[[allow]]` entry names a `product` or an `entity`, not both",
        );
        check_error(
            "fail-on = \"never\"\n",
            "compat.toml:1:11: `fail-on`: expected `error` or `warning`, found `never`",
        );
        check_error(
            "format = \"xml\"\n",
            "compat.toml:1:10: `format`: expected one of human, json, junit, github, sarif, \
             markdown, dot, mermaid, found `xml`",
        );
        check_error(
            "catalog = \"c\"\ncatalgo = \"d\"\n",
            "compat.toml:2:1: unknown field `catalgo`, expected one of `catalog`, `policy`, \
             `fail-on`, `format`, `allow`",
        );
        check_error(
            "catalog = 3\n",
            "compat.toml:1:11: invalid type: integer `3`, expected a string",
        );
        check_error(
            "catalog = \n",
            "compat.toml:1:11: string values must be quoted, expected literal string",
        );
    }
}
