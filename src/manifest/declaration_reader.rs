//! SPEC sections 3 and 4 in a manifest: `product-dependencies` and
//! `product-incompatibilities` entries as written turned into well-formed [`Dependency`] and
//! [`Incompatibility`] declarations, each broken entry one located [`Issue`] instead.

use std::collections::BTreeMap;

use crate::diagnostic::{Location, Spanned};
use crate::finding::Code;
use crate::instance::Criteria;
use crate::matcher::Matcher;
use crate::product::ProductId;
use crate::range::Range;
use crate::version::Version;
use crate::yaml::{KeySet, ScalarMap};

use super::instance_reader::{self, Subject};
use super::{Dependency, Incompatibility, Issue};

/// The keys an entry may hold, in either list; which ones a list accepts is decided later.
#[derive(Debug, PartialEq, Eq)]
pub(super) struct EntryKeys;

impl KeySet for EntryKeys {
    const KEYS: &'static [&'static str] = &[
        "product-group",
        "product-name",
        "minimum-version",
        "maximum-version",
        "recommended-version",
        "optional",
        "reason",
        "product-version",
    ];
    /// Section 10's criteria, on product dependencies only.
    const TREES: &'static [&'static str] = &["instance"];
    const EXPECTING: &'static str = "a mapping with `product-group`, `product-name` and versions";
}

/// A dependency or incompatibility entry as written.
pub(super) type RawEntry = ScalarMap<EntryKeys>;

/// Turns raw entries into declarations, collecting every problem it meets.
pub(super) struct DeclarationReader<'a> {
    pub(super) own: &'a ProductId,
    pub(super) issues: Vec<Issue>,
    /// Section 10: the `instance` criteria of the dependencies kept, by product.
    pub(super) instances: BTreeMap<ProductId, Criteria>,
}

/// Which list an entry comes from: decides the accepted keys and the wording.
#[derive(Clone, Copy, PartialEq, Eq)]
enum List {
    Dependencies,
    Incompatibilities,
}

impl List {
    fn name(self) -> &'static str {
        match self {
            List::Dependencies => "product-dependencies",
            List::Incompatibilities => "product-incompatibilities",
        }
    }

    fn accepts(self, key: &str) -> bool {
        match self {
            List::Dependencies => !matches!(key, "reason" | "product-version"),
            List::Incompatibilities => !matches!(
                key,
                "recommended-version" | "optional" | "product-version" | "instance"
            ),
        }
    }
}

impl DeclarationReader<'_> {
    fn issue(
        &mut self,
        code: Code,
        location: Location,
        dependency: Option<&ProductId>,
        message: String,
    ) {
        self.issues.push(Issue {
            code,
            message,
            location,
            dependency: dependency.cloned(),
            subject: None,
        });
    }

    fn invalid(&mut self, at: Location, product: Option<&ProductId>, message: String) {
        self.issue(Code::InvalidManifest, at, product, message);
    }

    /// Reads the product of an entry and the checks shared by both lists: unknown keys,
    /// the product's own form, duplicates within the list.
    fn entry_product(
        &mut self,
        list: List,
        entry: &Spanned<RawEntry>,
        seen: &mut Vec<(ProductId, Location)>,
    ) -> Option<ProductId> {
        for key in &entry.value.unknown {
            self.issue(
                Code::UnknownKey,
                key.location,
                None,
                format!("unknown key `{}` in a `{}` entry", key.value, list.name()),
            );
        }
        let trees = entry.value.trees.iter().map(|(k, v)| (k, v.location));
        let values = entry.value.values.iter().map(|(k, v)| (k, v.location));
        for (key, location) in values.chain(trees) {
            if !list.accepts(key) {
                self.issue(
                    Code::UnknownKey,
                    location,
                    None,
                    format!("key `{key}` does not belong in a `{}` entry", list.name()),
                );
            }
        }
        let group = self.required(list, entry, "product-group", None)?;
        let name = self.required(list, entry, "product-name", None)?;
        let product = match ProductId::new(&group.value, &name.value) {
            Ok(product) => product,
            Err(message) => {
                self.invalid(group.location, None, message);
                return None;
            }
        };
        if let Some((_, first)) = seen.iter().find(|(p, _)| *p == product) {
            let message = format!(
                "`{product}` is listed twice in `{}` (first at line {})",
                list.name(),
                first.line
            );
            self.invalid(entry.location, Some(&product), message);
            return None;
        }
        seen.push((product.clone(), entry.location));
        Some(product)
    }

    /// A value that must be present and non-null; reports it missing otherwise.
    fn required(
        &mut self,
        list: List,
        entry: &Spanned<RawEntry>,
        key: &str,
        product: Option<&ProductId>,
    ) -> Option<Spanned<String>> {
        match entry.value.get(key) {
            Some(Spanned { value: Some(_), .. }) => Self::optional(entry, key),
            Some(Spanned {
                value: None,
                location,
            }) => {
                let message = format!("`{key}` is empty in a `{}` entry", list.name());
                self.invalid(*location, product, message);
                None
            }
            None => {
                let message = format!("a `{}` entry is missing `{key}`", list.name());
                self.invalid(entry.location, product, message);
                None
            }
        }
    }

    /// An optional value; an explicit null (`optional:`) means absent too.
    fn optional(entry: &Spanned<RawEntry>, key: &str) -> Option<Spanned<String>> {
        let found = entry.value.get(key)?;
        Some(Spanned {
            value: found.value.clone()?,
            location: found.location,
        })
    }

    fn version(
        &mut self,
        key: &str,
        text: &Spanned<String>,
        product: &ProductId,
    ) -> Option<Version> {
        match Version::parse(&text.value) {
            Ok(v) if v.is_orderable() => Some(v),
            Ok(v) => {
                let message = format!("`{key}` must be an orderable version, found `{v}`");
                self.invalid(text.location, Some(product), message);
                None
            }
            Err(e) => {
                self.invalid(text.location, Some(product), format!("`{key}`: {e}"));
                None
            }
        }
    }

    fn matcher(&mut self, text: &Spanned<String>, product: &ProductId) -> Option<Matcher> {
        Matcher::parse(&text.value)
            .map_err(|e| {
                let message = format!("`maximum-version`: {e}");
                self.invalid(text.location, Some(product), message);
            })
            .ok()
    }

    pub(super) fn dependencies(&mut self, entries: Vec<Spanned<RawEntry>>) -> Vec<Dependency> {
        let list = List::Dependencies;
        let mut seen = Vec::new();
        let mut out = Vec::new();
        for entry in entries {
            let Some(product) = self.entry_product(list, &entry, &mut seen) else {
                continue;
            };
            if product == *self.own {
                let message = format!("`{product}` depends on its own product");
                self.invalid(entry.location, Some(&product), message);
                continue;
            }
            let min_text = self.required(list, &entry, "minimum-version", Some(&product));
            let max_text = self.required(list, &entry, "maximum-version", Some(&product));
            let minimum = min_text
                .as_ref()
                .and_then(|t| self.version("minimum-version", t, &product));
            let maximum = max_text.as_ref().and_then(|t| self.matcher(t, &product));
            let recommended_text = Self::optional(&entry, "recommended-version");
            let optional = self.flag(&entry, &product);
            let criteria = self.criteria(&entry, &product);
            let (Some(minimum), Some(maximum), Some(min_text), Some(max_text)) =
                (minimum, maximum, min_text, max_text)
            else {
                continue;
            };
            let range = Range::new(minimum, maximum);
            if range.is_empty() {
                let message = format!(
                    "`maximum-version` `{}` is below `minimum-version` `{}`",
                    max_text.value, min_text.value
                );
                self.invalid(max_text.location, Some(&product), message);
                continue;
            }
            // From here the range itself is sound, so the dependency is kept and checked even
            // when a side field is broken (reported as invalid): hiding a real violation
            // behind a typo in `optional` would be worse.
            let recommended = recommended_text.and_then(|text| {
                let recommended = self.version("recommended-version", &text, &product)?;
                if range.contains(&recommended) {
                    Some(recommended)
                } else {
                    let message = format!(
                        "`recommended-version` `{recommended}` is outside the range {range}"
                    );
                    self.invalid(text.location, Some(&product), message);
                    None
                }
            });
            if min_text.value == max_text.value {
                let message = format!(
                    "`{product}` range `{}` to `{}` allows one release only, forcing lock-step upgrades",
                    min_text.value, max_text.value
                );
                self.issue(
                    Code::LockstepRange,
                    max_text.location,
                    Some(&product),
                    message,
                );
            }
            if let Some(criteria) = criteria {
                self.instances.insert(product.clone(), criteria);
            }
            out.push(Dependency {
                product,
                range,
                recommended,
                // a malformed `optional` (reported) is checked as required: the stricter reading
                optional: optional.unwrap_or(false),
                location: entry.location,
            });
        }
        out
    }

    /// Reads section 10's `instance`; `None` when absent or broken (reported).
    fn criteria(&mut self, entry: &Spanned<RawEntry>, product: &ProductId) -> Option<Criteria> {
        let node = entry.value.tree("instance")?;
        let about = Subject {
            product: Some(product.clone()),
            name: None,
        };
        instance_reader::criteria(node, &mut self.issues, &about).unwrap_or_else(|broken| {
            instance_reader::invalid(&mut self.issues, broken, &about);
            None
        })
    }

    /// Reads `optional`; `None` when it is present but not a boolean (already reported).
    fn flag(&mut self, entry: &Spanned<RawEntry>, product: &ProductId) -> Option<bool> {
        let text = Self::optional(entry, "optional");
        match text.as_ref().map(|t| t.value.as_str()) {
            Some("true" | "True" | "TRUE") => Some(true),
            None | Some("false" | "False" | "FALSE") => Some(false),
            Some(other) => {
                let at = text.as_ref().map_or(entry.location, |t| t.location);
                let message = format!("`optional` must be `true` or `false`, found `{other}`");
                self.invalid(at, Some(product), message);
                None
            }
        }
    }

    pub(super) fn incompatibilities(
        &mut self,
        entries: Vec<Spanned<RawEntry>>,
    ) -> Vec<Incompatibility> {
        let list = List::Incompatibilities;
        let mut seen = Vec::new();
        let mut out = Vec::new();
        for entry in entries {
            let Some(product) = self.entry_product(list, &entry, &mut seen) else {
                continue;
            };
            let (min_text, max_text, reason) = (
                Self::optional(&entry, "minimum-version"),
                Self::optional(&entry, "maximum-version"),
                Self::optional(&entry, "reason"),
            );
            let minimum = match &min_text {
                None => None,
                Some(t) => match self.version("minimum-version", t, &product) {
                    Some(v) => Some(v),
                    None => continue,
                },
            };
            let maximum = match &max_text {
                None => None,
                Some(t) => match self.matcher(t, &product) {
                    Some(m) => Some(m),
                    None => continue,
                },
            };
            let range = Range { minimum, maximum };
            if range.is_empty() {
                let message = format!("`maximum-version` is below `minimum-version` ({range})");
                let at = max_text.map_or(entry.location, |t| t.location);
                self.invalid(at, Some(&product), message);
                continue;
            }
            out.push(Incompatibility {
                product,
                range,
                reason: reason.map(|r| r.value),
                location: entry.location,
            });
        }
        out
    }
}
