//! SPEC section 10's plain values: which requirement a binding or an input names
//! ([`Requirement`]), the instance criteria a requirement may carry ([`Criteria`], with label
//! templates), where an entity stands ([`Placement`]: namespace, labels, bindings) and what a
//! release wires ([`Input`]).
//!
//! Every value here is well formed: the readers (environment and manifest) turn broken input
//! into located errors or issues before building one.

use std::collections::BTreeMap;
use std::fmt;

use crate::diagnostic::Location;
use crate::product::ProductId;

/// A requirement as bindings and inputs name it: a product dependency (`group:name`) or a
/// capability (a name without `:`).
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Requirement {
    Product(ProductId),
    Capability(String),
}

impl Requirement {
    /// Reads a binding key or an input's `from`: `group:name` is a product, anything else a
    /// capability name.
    ///
    /// # Errors
    /// A text with `:` that is not a product, or a capability name that breaks section 9.1's
    /// name form, in words.
    pub fn parse(text: &str) -> Result<Requirement, String> {
        if text.contains(':') {
            ProductId::parse(text).map(Requirement::Product)
        } else {
            check_name("capability", text)?;
            Ok(Requirement::Capability(text.to_owned()))
        }
    }
}

impl fmt::Display for Requirement {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Requirement::Product(p) => p.fmt(f),
            Requirement::Capability(c) => f.write_str(c),
        }
    }
}

/// The placeholders a label value may hold.
const PLACEHOLDERS: [&str; 2] = ["{entity}", "{namespace}"];

/// A label value as a declaration writes it; `{entity}` and `{namespace}` expand to the
/// consumer's name and namespace.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct LabelTemplate(String);

impl LabelTemplate {
    /// A template, checked: every `{` opens one of the two placeholders.
    ///
    /// # Errors
    /// The first other placeholder, in words.
    pub fn new(text: &str) -> Result<LabelTemplate, String> {
        let mut rest = text;
        while let Some(at) = rest.find(['{', '}']) {
            let tail = &rest[at..];
            let Some(p) = PLACEHOLDERS.iter().find(|p| tail.starts_with(**p)) else {
                let end = tail.find('}').map_or(tail.len(), |e| e + 1);
                return Err(format!(
                    "expected only `{{entity}}` and `{{namespace}}` in a label template, \
                     found `{}`",
                    &tail[..end]
                ));
            };
            rest = &tail[p.len()..];
        }
        Ok(LabelTemplate(text.to_owned()))
    }

    /// The template as written.
    #[must_use]
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The value for a consumer.
    #[must_use]
    pub fn expand(&self, entity: &str, namespace: &str) -> String {
        if !self.0.contains('{') {
            return self.0.clone();
        }
        self.0
            .replace("{entity}", entity)
            .replace("{namespace}", namespace)
    }
}

/// `instance:` on a product dependency or a capability requirement: which entities may
/// serve it (section 10's tiers).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Criteria {
    pub labels: BTreeMap<String, LabelTemplate>,
    /// Never served from the global namespace (tiers 3 and 5 skipped).
    pub match_namespace: bool,
    /// Labelled entities are preferred, not required (tiers 4 and 5).
    pub ignore_labels: bool,
    pub location: Location,
}

impl Criteria {
    /// The labels a consumer asks for, templates expanded.
    #[must_use]
    pub fn labels_for(&self, entity: &str, namespace: &str) -> BTreeMap<String, String> {
        self.labels
            .iter()
            .map(|(k, v)| (k.clone(), v.expand(entity, namespace)))
            .collect()
    }

    /// Whether a label names the consumer (`{entity}`): every consumer then asks for labels
    /// of its own.
    #[must_use]
    pub fn per_entity(&self) -> bool {
        self.labels
            .values()
            .any(|t| t.as_str().contains("{entity}"))
    }
}

/// Where an entity stands: its namespace (`""`, the global one, by default), its labels and
/// its bindings (a requirement to the entity that serves it). Empty for an environment that
/// uses none of section 10.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Placement {
    pub namespace: String,
    pub labels: BTreeMap<String, String>,
    pub bindings: BTreeMap<Requirement, String>,
}

impl Placement {
    /// The placement of an entity that uses none of section 10.
    #[must_use]
    pub fn none() -> &'static Placement {
        static PLAIN: Placement = Placement {
            namespace: String::new(),
            labels: BTreeMap::new(),
            bindings: BTreeMap::new(),
        };
        &PLAIN
    }

    /// True when the entity is global, unlabelled and binds nothing.
    #[must_use]
    pub fn is_plain(&self) -> bool {
        self.namespace.is_empty() && self.labels.is_empty() && self.bindings.is_empty()
    }

    /// Whether the entity carries every one of `labels`.
    #[must_use]
    pub fn carries(&self, labels: &BTreeMap<String, String>) -> bool {
        labels.iter().all(|(k, v)| self.labels.get(k) == Some(v))
    }
}

/// An `extensions.inputs` entry: data fed from whoever serves one of the release's own
/// requirements.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Input {
    pub name: String,
    pub from: Requirement,
    /// The source's output it reads; `None`: the input only waits for the source to be ready.
    pub output: Option<String>,
    pub optional: bool,
    pub location: Location,
}

/// Checks a capability (or runtime) name: `[a-z0-9][a-z0-9._/-]*`, at most 253 characters.
///
/// # Errors
/// What is wrong, as a message.
pub fn check_name(kind: &str, name: &str) -> Result<(), String> {
    let first_ok = name
        .bytes()
        .next()
        .is_some_and(|b| b.is_ascii_lowercase() || b.is_ascii_digit());
    let rest_ok = name.bytes().all(|b| {
        b.is_ascii_lowercase() || b.is_ascii_digit() || matches!(b, b'.' | b'_' | b'/' | b'-')
    });
    if !first_ok || !rest_ok || name.len() > 253 {
        let article = if kind.starts_with(['a', 'e', 'i', 'o', 'u']) {
            "an"
        } else {
            "a"
        };
        return Err(format!(
            "expected {article} {kind} name of lowercase letters, digits, `.`, `_`, `/` and `-` \
             (starting with a letter or digit, at most 253 characters), found `{name}`"
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn label_templates_take_only_the_two_placeholders() {
        for (text, expanded) in [
            ("shop", "shop"),
            ("{entity}", "web-1"),
            ("{namespace}-db", "prod-db"),
            ("{entity}.{namespace}", "web-1.prod"),
            ("", ""),
        ] {
            let t = LabelTemplate::new(text).unwrap();
            assert_eq!(t.expand("web-1", "prod"), expanded, "{text}");
            assert_eq!(t.as_str(), text);
        }
        for (text, bad) in [
            ("{host}", "`{host}`"),
            ("a{entity", "`{entity`"),
            ("x}", "`}`"),
            ("{entity}{}", "`{}`"),
        ] {
            let err = LabelTemplate::new(text).unwrap_err();
            assert!(err.contains(bad), "{text}: {err}");
        }
    }

    #[test]
    fn requirements_are_products_with_a_colon_else_capabilities() {
        assert_eq!(
            Requirement::parse("org.postgresql:postgresql").unwrap(),
            Requirement::Product(ProductId::parse("org.postgresql:postgresql").unwrap())
        );
        assert_eq!(
            Requirement::parse("sql").unwrap(),
            Requirement::Capability("sql".into())
        );
        assert!(Requirement::parse("a:b:c").is_err());
        assert!(Requirement::parse("SQL").is_err());
        assert_eq!(Requirement::parse("sql").unwrap().to_string(), "sql");
    }

    #[test]
    fn placement_carries_every_asked_label() {
        let p = Placement {
            labels: [("app".into(), "shop".into()), ("tier".into(), "db".into())].into(),
            ..Placement::default()
        };
        assert!(p.carries(&BTreeMap::new()));
        assert!(p.carries(&[("app".into(), "shop".into())].into()));
        assert!(!p.carries(&[("app".into(), "blog".into())].into()));
        assert!(!p.carries(&[("owner".into(), "x".into())].into()));
        assert!(!p.is_plain());
        assert!(Placement::default().is_plain());
    }
}
