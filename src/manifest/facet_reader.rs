//! Reading section 9 of a manifest into [`Facets`]: each entry checked against SPEC 9.1 (and
//! section 3's range rules), each problem one located [`Issue`], broken entries left out.

use std::collections::BTreeMap;

use crate::diagnostic::{Location, Spanned};
use crate::finding::Code;
use crate::matcher::Matcher;
use crate::product::ProductId;
use crate::range::Range;
use crate::rule::{Property, Rule};
use crate::version::Version;
use crate::yaml::Tree;

use super::Issue;
use super::facets::{
    Atom, CapabilityRequirement, Deprecation, Facets, MAX_COMPOUND_DEPTH, Provision,
    RuntimeRequirement, Term, TermKind, check_name,
};
use super::instance_reader::{self, Subject};

/// The section 9 keys of `extensions`, as read.
#[derive(Debug, Default, PartialEq)]
pub(super) struct RawFacets {
    pub capabilities: Option<Spanned<Tree>>,
    pub constraints: Option<Spanned<Tree>>,
    pub runtime_requirements: Option<Spanned<Tree>>,
    pub properties: Option<Spanned<Tree>>,
    pub deprecated: Option<Spanned<Tree>>,
}

/// A broken entry: where, what, and the name it is about.
struct Bad {
    at: Location,
    message: String,
}

fn bad(at: Location, message: impl Into<String>) -> Bad {
    Bad {
        at,
        message: message.into(),
    }
}

/// What the issue of an entry names: a product, or a capability or runtime name.
#[derive(Clone, Default)]
struct About {
    product: Option<ProductId>,
    name: Option<String>,
}

/// Reads [`RawFacets`], collecting issues.
pub(super) struct FacetReader<'a> {
    pub issues: &'a mut Vec<Issue>,
}

type Fields = [(Spanned<String>, Spanned<Tree>)];

impl FacetReader<'_> {
    pub fn read(&mut self, raw: RawFacets) -> Facets {
        let mut facets = Facets::default();
        if let Some(caps) = raw.capabilities {
            self.capabilities(&caps, &mut facets);
        }
        if let Some(items) = raw.constraints {
            for item in self.list(&items, "constraints") {
                let about = about_item(item);
                match self.term(item, 0) {
                    Ok(term) => facets.constraints.push(term),
                    Err(e) => self.invalid(e, about),
                }
            }
        }
        if let Some(items) = raw.runtime_requirements {
            for item in self.list(&items, "runtime-requirements") {
                let about = About {
                    product: None,
                    name: name_of(item, "name"),
                };
                match self.runtime(item) {
                    Ok(r) => facets.runtime.push(r),
                    Err(e) => self.invalid(e, about),
                }
            }
        }
        if let Some(properties) = raw.properties {
            self.properties(&properties, &mut facets.properties);
        }
        if let Some(deprecated) = raw.deprecated {
            match &deprecated.value {
                Tree::Null | Tree::Bool(false) => {}
                Tree::Bool(true) => {
                    facets.deprecated = Some(Deprecation {
                        reason: None,
                        location: deprecated.location,
                    });
                }
                Tree::Str(reason) => {
                    facets.deprecated = Some(Deprecation {
                        reason: Some(reason.clone()),
                        location: deprecated.location,
                    });
                }
                other => self.invalid(
                    bad(
                        deprecated.location,
                        format!(
                            "`deprecated` must be a reason or `true`, found {}",
                            other.kind()
                        ),
                    ),
                    About::default(),
                ),
            }
        }
        facets
    }

    fn invalid(&mut self, e: Bad, about: About) {
        self.issues.push(Issue {
            code: Code::InvalidManifest,
            message: e.message,
            location: e.at,
            dependency: about.product,
            subject: about.name,
        });
    }

    fn unknown(&mut self, key: &Spanned<String>, what: &str, about: &About) {
        self.issues.push(Issue {
            code: Code::UnknownKey,
            message: format!("unknown key `{}` in {what}", key.value),
            location: key.location,
            dependency: about.product.clone(),
            subject: about.name.clone(),
        });
    }

    /// The items of a list section; a section that is not a list is one invalid entry.
    fn list<'t>(&mut self, node: &'t Spanned<Tree>, key: &str) -> &'t [Spanned<Tree>] {
        match &node.value {
            Tree::Seq(items) => items,
            Tree::Null => &[],
            other => {
                let message = format!("`{key}` must be a list, found {}", other.kind());
                self.invalid(bad(node.location, message), About::default());
                &[]
            }
        }
    }

    /// The fields of an entry, warning about keys outside `known`.
    fn fields<'t>(
        &mut self,
        node: &'t Spanned<Tree>,
        known: &[&str],
        what: &str,
        about: &About,
    ) -> Result<&'t Fields, Bad> {
        let Tree::Map(fields) = &node.value else {
            return Err(bad(
                node.location,
                format!("{what} must be a mapping, found {}", node.value.kind()),
            ));
        };
        for (key, _) in fields {
            if !known.contains(&key.value.as_str()) {
                self.unknown(key, what, about);
            }
        }
        Ok(fields)
    }

    fn capabilities(&mut self, node: &Spanned<Tree>, facets: &mut Facets) {
        let fields = match self.fields(
            node,
            &["provides", "requires"],
            "`capabilities`",
            &About::default(),
        ) {
            Ok(fields) => fields,
            Err(e) => return self.invalid(e, About::default()),
        };
        if let Some(provides) = get(fields, "provides") {
            for item in self.list(provides, "capabilities.provides") {
                let about = About {
                    product: None,
                    name: name_of(item, "name"),
                };
                match self.provision(item, &about) {
                    Ok(p) => facets.provides.push(p),
                    Err(e) => self.invalid(e, about),
                }
            }
        }
        if let Some(requires) = get(fields, "requires") {
            for item in self.list(requires, "capabilities.requires") {
                let about = About {
                    product: None,
                    name: name_of(item, "name"),
                };
                match self.requirement(item, &about, facets) {
                    Ok(r) => facets.requires.push(r),
                    Err(e) => self.invalid(e, about),
                }
            }
        }
    }

    fn provision(&mut self, node: &Spanned<Tree>, about: &About) -> Result<Provision, Bad> {
        let what = "a `capabilities.provides` entry";
        let fields = self.fields(node, &["name", "version"], what, about)?;
        let name = capability_name(fields, node.location, what, "capability")?;
        let version = match get(fields, "version") {
            None
            | Some(Spanned {
                value: Tree::Null, ..
            }) => None,
            Some(v) => Some(orderable(v, "version")?),
        };
        Ok(Provision {
            name,
            version,
            location: node.location,
        })
    }

    fn requirement(
        &mut self,
        node: &Spanned<Tree>,
        about: &About,
        facets: &Facets,
    ) -> Result<CapabilityRequirement, Bad> {
        let what = "a `capabilities.requires` entry";
        let known = [
            "name",
            "minimum-version",
            "maximum-version",
            "optional",
            "prefer",
            "instance",
        ];
        let fields = self.fields(node, &known, what, about)?;
        let name = capability_name(fields, node.location, what, "capability")?;
        let range = bounds(fields)?;
        let optional = match get(fields, "optional") {
            None
            | Some(Spanned {
                value: Tree::Null | Tree::Bool(false),
                ..
            }) => false,
            Some(Spanned {
                value: Tree::Bool(true),
                ..
            }) => true,
            Some(other) => {
                return Err(bad(
                    other.location,
                    format!(
                        "`optional` must be `true` or `false`, found {}",
                        other.value.kind()
                    ),
                ));
            }
        };
        let prefer = match get(fields, "prefer") {
            None
            | Some(Spanned {
                value: Tree::Null, ..
            }) => None,
            Some(v) => {
                let text = scalar(v, "prefer")?;
                Some(ProductId::parse(&text).map_err(|m| bad(v.location, m))?)
            }
        };
        if facets.provides(&name) {
            return Err(bad(
                node.location,
                format!("requires capability `{name}`, which the release provides itself"),
            ));
        }
        let instance = match get(fields, "instance") {
            None => None,
            Some(v) => {
                let subject = Subject {
                    product: None,
                    name: Some(name.clone()),
                };
                instance_reader::criteria(v, self.issues, &subject)
                    .map_err(|(at, message)| bad(at, message))?
            }
        };
        Ok(CapabilityRequirement {
            name,
            range,
            optional,
            prefer,
            instance,
            location: node.location,
        })
    }

    fn runtime(&mut self, node: &Spanned<Tree>) -> Result<RuntimeRequirement, Bad> {
        let what = "a `runtime-requirements` entry";
        let about = About {
            product: None,
            name: name_of(node, "name"),
        };
        let known = ["name", "minimum-version", "maximum-version"];
        let fields = self.fields(node, &known, what, &about)?;
        Ok(RuntimeRequirement {
            name: capability_name(fields, node.location, what, "runtime")?,
            range: bounds(fields)?,
            location: node.location,
        })
    }

    fn properties(&mut self, node: &Spanned<Tree>, out: &mut BTreeMap<String, Property>) {
        let Tree::Map(fields) = &node.value else {
            if node.value != Tree::Null {
                let message = format!(
                    "`properties` must be a mapping, found {}",
                    node.value.kind()
                );
                self.invalid(bad(node.location, message), About::default());
            }
            return;
        };
        for (key, value) in fields {
            let property = match &value.value {
                Tree::Str(s) => Property::Str(s.clone()),
                Tree::Number(n) => Property::Number(n.clone()),
                Tree::Bool(b) => Property::Bool(*b),
                other => {
                    let message = format!(
                        "property `{}` must be a string, a number or a boolean, found {}",
                        key.value,
                        other.kind()
                    );
                    self.invalid(bad(value.location, message), About::default());
                    continue;
                }
            };
            out.insert(key.value.clone(), property);
        }
    }

    /// The children of a compound at `depth` (1 directly under `constraints`).
    fn compound(
        &mut self,
        compound: &str,
        head: Location,
        value: &Spanned<Tree>,
        depth: usize,
    ) -> Result<TermKind, Bad> {
        if depth > MAX_COMPOUND_DEPTH {
            return Err(bad(
                head,
                format!(
                    "compounds nest {depth} deep here, at most {MAX_COMPOUND_DEPTH} are allowed"
                ),
            ));
        }
        let Tree::Seq(items) = &value.value else {
            return Err(bad(
                value.location,
                format!("`{compound}` must be a list, found {}", value.value.kind()),
            ));
        };
        if items.is_empty() {
            return Err(bad(
                value.location,
                format!("`{compound}` must not be empty"),
            ));
        }
        let children = items
            .iter()
            .map(|item| self.term(item, depth))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(match compound {
            "any-of" => TermKind::AnyOf(children),
            "all-of" => TermKind::AllOf(children),
            _ => TermKind::NoneOf(children),
        })
    }

    /// One constraint item at compound depth `depth` (0 for a top-level atom's parent).
    fn term(&mut self, node: &Spanned<Tree>, depth: usize) -> Result<Term, Bad> {
        const HEADS: [&str; 7] = [
            "product",
            "capability",
            "runtime",
            "rule",
            "any-of",
            "all-of",
            "none-of",
        ];
        let what = "a constraint";
        let Tree::Map(fields) = &node.value else {
            return Err(bad(
                node.location,
                format!("{what} must be a mapping, found {}", node.value.kind()),
            ));
        };
        let heads: Vec<&(Spanned<String>, Spanned<Tree>)> = fields
            .iter()
            .filter(|(k, _)| HEADS.contains(&k.value.as_str()))
            .collect();
        let (head, value) = match heads.as_slice() {
            [one] => (&one.0, &one.1),
            [] => {
                return Err(bad(
                    node.location,
                    "a constraint must have one of `product`, `capability`, `runtime`, `rule`, \
                     `any-of`, `all-of` or `none-of`, found none",
                ));
            }
            [first, second, ..] => {
                return Err(bad(
                    second.0.location,
                    format!(
                        "a constraint must have one of `product`, `capability`, `runtime`, \
                         `rule`, `any-of`, `all-of` or `none-of`, found both `{}` and `{}`",
                        first.0.value, second.0.value
                    ),
                ));
            }
        };
        let bounded = matches!(head.value.as_str(), "product" | "capability" | "runtime");
        let mut known = vec![head.value.as_str(), "description"];
        if bounded {
            known.extend(["minimum-version", "maximum-version"]);
        }
        let about = about_item(node);
        self.fields(
            node,
            &known,
            &format!("a `{}` constraint", head.value),
            &about,
        )?;
        let description = match get(fields, "description") {
            None
            | Some(Spanned {
                value: Tree::Null, ..
            }) => None,
            Some(d) => Some(scalar(d, "description")?),
        };
        let kind = match head.value.as_str() {
            "product" => {
                let text = scalar(value, "product")?;
                let product = ProductId::parse(&text).map_err(|m| bad(value.location, m))?;
                TermKind::Atom(Atom::Product {
                    product,
                    range: bounds(fields)?,
                })
            }
            "capability" | "runtime" => {
                let text = scalar(value, &head.value)?;
                check_name(&head.value, &text).map_err(|m| bad(value.location, m))?;
                let range = bounds(fields)?;
                TermKind::Atom(if head.value == "capability" {
                    Atom::Capability { name: text, range }
                } else {
                    Atom::Runtime { name: text, range }
                })
            }
            "rule" => {
                let text = scalar(value, "rule")?;
                let rule = Rule::compile(&text)
                    .map_err(|m| bad(value.location, format!("`rule`: {m}")))?;
                TermKind::Atom(Atom::Rule(rule))
            }
            compound => self.compound(compound, head.location, value, depth + 1)?,
        };
        Ok(Term {
            kind,
            description,
            location: node.location,
        })
    }
}

fn get<'t>(fields: &'t Fields, key: &str) -> Option<&'t Spanned<Tree>> {
    fields.iter().find(|(k, _)| k.value == key).map(|(_, v)| v)
}

/// The text of a scalar field.
fn scalar(node: &Spanned<Tree>, key: &str) -> Result<String, Bad> {
    node.value.text().ok_or_else(|| {
        bad(
            node.location,
            format!("`{key}` must be a string, found {}", node.value.kind()),
        )
    })
}

/// The `name` text of an entry, when it has one (for the issue's `dependency`).
fn name_of(node: &Spanned<Tree>, key: &str) -> Option<String> {
    match &node.value {
        Tree::Map(fields) => get(fields, key).and_then(|v| v.value.text()),
        _ => None,
    }
}

/// What a constraint item names: its product, capability or runtime, when it is an atom.
fn about_item(node: &Spanned<Tree>) -> About {
    let Tree::Map(fields) = &node.value else {
        return About::default();
    };
    if let Some(product) = get(fields, "product").and_then(|v| v.value.text()) {
        return About {
            product: ProductId::parse(&product).ok(),
            name: None,
        };
    }
    About {
        product: None,
        name: name_of(node, "capability").or_else(|| name_of(node, "runtime")),
    }
}

/// The required `name` of an entry, checked.
fn capability_name(fields: &Fields, at: Location, what: &str, kind: &str) -> Result<String, Bad> {
    let value = match get(fields, "name") {
        None
        | Some(Spanned {
            value: Tree::Null, ..
        }) => return Err(bad(at, format!("{what} is missing `name`"))),
        Some(v) => v,
    };
    let name = scalar(value, "name")?;
    check_name(kind, &name).map_err(|m| bad(value.location, m))?;
    Ok(name)
}

fn orderable(node: &Spanned<Tree>, key: &str) -> Result<Version, Bad> {
    let text = scalar(node, key)?;
    match Version::parse(&text) {
        Ok(v) if v.is_orderable() => Ok(v),
        Ok(v) => Err(bad(
            node.location,
            format!("`{key}` must be an orderable version, found `{v}`"),
        )),
        Err(e) => Err(bad(node.location, format!("`{key}`: {e}"))),
    }
}

/// Optional `minimum-version` / `maximum-version`, ordered (SPEC section 3).
fn bounds(fields: &Fields) -> Result<Range, Bad> {
    let present = |key| get(fields, key).filter(|v| v.value != Tree::Null);
    let minimum = present("minimum-version")
        .map(|v| orderable(v, "minimum-version"))
        .transpose()?;
    let maximum = match present("maximum-version") {
        None => None,
        Some(v) => {
            let text = scalar(v, "maximum-version")?;
            let matcher = Matcher::parse(&text)
                .map_err(|e| bad(v.location, format!("`maximum-version`: {e}")))?;
            Some((matcher, v.location))
        }
    };
    let range = Range {
        minimum,
        maximum: maximum.as_ref().map(|(m, _)| m.clone()),
    };
    if range.is_empty()
        && let (Some(min), Some((max, at))) = (&range.minimum, &maximum)
    {
        return Err(bad(
            *at,
            format!("`maximum-version` `{max}` is below `minimum-version` `{min}`"),
        ));
    }
    Ok(range)
}

#[cfg(test)]
mod tests {
    use std::fmt::Write;
    use std::sync::Arc;

    use super::*;
    use crate::manifest::{Manifest, parse};

    fn manifest(extensions: &str) -> Manifest {
        let text = format!(
            "manifest-version: '1.0'\nproduct-group: com.example\nproduct-name: web\n\
             product-version: 1.0.0\nextensions:\n{extensions}"
        );
        parse(&text, &Arc::from("m.yml")).unwrap().remove(0)
    }

    /// The issues of a manifest as `line:column code dependency message`.
    #[track_caller]
    fn check(extensions: &str, expected: &[&str]) -> Manifest {
        let m = manifest(extensions);
        let got: Vec<String> = m
            .issues
            .iter()
            .map(|i| {
                let about = i
                    .dependency
                    .as_ref()
                    .map(ToString::to_string)
                    .or_else(|| i.subject.clone())
                    .unwrap_or_else(|| "-".to_owned());
                format!(
                    "{}:{} {} {about} {}",
                    i.location.line, i.location.column, i.code, i.message
                )
            })
            .collect();
        assert_eq!(got, expected, "{extensions}");
        m
    }

    #[test]
    fn reads_the_spec_example() {
        let m = check(
            "  capabilities:\n    provides:\n      - name: sql\n        version: 5.7.0\n    \
             requires:\n      - name: cache-api\n        minimum-version: 5.7.0\n        \
             maximum-version: 5.x.x\n        optional: false\n        prefer: com.example:mysql\n  \
             constraints:\n    - description: needs a cache\n      any-of:\n        - product: \
             com.example:redis\n          minimum-version: 6.0.0\n          maximum-version: 7.x.x\n        \
             - capability: cache\n    - none-of:\n        - capability: legacy-auth\n    \
             - rule: 'properties.tier == \"gold\"'\n  runtime-requirements:\n    - name: kubernetes\n      \
             minimum-version: 1.27.0\n      maximum-version: 1.31.x\n  properties:\n    tier: gold\n    \
             certified: true\n    cores: 8\n  deprecated: \"use com.example:web2\"\n",
            &[],
        );
        let f = m.facets();
        assert_eq!(f.provides[0].name, "sql");
        assert_eq!(f.provides[0].version.as_ref().unwrap().as_str(), "5.7.0");
        assert_eq!(f.requires[0].range.to_string(), ">=5.7.0, <=5.x.x");
        assert_eq!(
            f.requires[0].prefer.as_ref().unwrap().to_string(),
            "com.example:mysql"
        );
        assert_eq!(f.constraints.len(), 3);
        assert_eq!(
            f.constraints[0].description.as_deref(),
            Some("needs a cache")
        );
        let TermKind::AnyOf(children) = &f.constraints[0].kind else {
            panic!("{:?}", f.constraints[0]);
        };
        assert_eq!(children.len(), 2);
        assert!(
            matches!(&f.constraints[2].kind, TermKind::Atom(Atom::Rule(r)) if r.text() == "properties.tier == \"gold\"")
        );
        assert_eq!(f.runtime[0].range.to_string(), ">=1.27.0, <=1.31.x");
        assert_eq!(f.properties["certified"], Property::Bool(true));
        assert_eq!(f.properties["cores"], Property::Number("8".to_owned()));
        assert_eq!(f.properties["tier"], Property::Str("gold".to_owned()));
        assert_eq!(
            f.deprecated.as_ref().unwrap().reason.as_deref(),
            Some("use com.example:web2")
        );
        assert!(m.is_valid());
    }

    #[test]
    fn plain_manifests_have_no_facets_and_keep_the_fast_path() {
        let m = manifest("  product-dependencies: []\n");
        assert!(m.facets.is_none() && m.facets().is_empty());
        let text = "manifest-version: '1.0'\nproduct-group: g\nproduct-name: a\n\
                    product-version: 1.0.0\nextensions:\n  product-dependencies: []\n";
        assert!(crate::manifest::takes_fast_path(text));
        let with = format!("{text}  deprecated: true\n");
        assert!(!crate::manifest::takes_fast_path(&with));
        assert!(manifest("  deprecated: false\n").facets.is_none());
        assert_eq!(
            manifest("  deprecated: true\n")
                .facets()
                .deprecated
                .as_ref()
                .map(|d| d.reason.clone()),
            Some(None)
        );
    }

    #[test]
    #[allow(clippy::too_many_lines)] // one table
    fn every_invalid_case_is_one_located_issue() {
        let table: &[(&str, &[&str])] = &[
            (
                "  capabilities:\n    provides:\n      - name: Sql\n",
                &[
                    "8:15 invalid-manifest Sql expected a capability name of lowercase letters, digits, `.`, `_`, `/` and `-` (starting with a letter or digit, at most 253 characters), found `Sql`",
                ],
            ),
            (
                "  capabilities:\n    provides:\n      - name: a:b\n",
                &[
                    "8:15 invalid-manifest a:b expected a capability name of lowercase letters, digits, `.`, `_`, `/` and `-` (starting with a letter or digit, at most 253 characters), found `a:b`",
                ],
            ),
            (
                "  capabilities:\n    provides:\n      - version: 1.0.0\n",
                &["8:9 invalid-manifest - a `capabilities.provides` entry is missing `name`"],
            ),
            (
                "  capabilities:\n    provides:\n      - name: sql\n        version: 1.0.0-branch\n",
                &[
                    "9:18 invalid-manifest sql `version` must be an orderable version, found `1.0.0-branch`",
                ],
            ),
            (
                "  capabilities:\n    provides:\n      - name: sql\n    requires:\n      - name: sql\n      - name: other\n",
                &[
                    "10:9 invalid-manifest sql requires capability `sql`, which the release provides itself",
                ],
            ),
            (
                "  capabilities:\n    requires:\n      - name: q\n        minimum-version: 2.0.0\n        maximum-version: 1.x.x\n",
                &[
                    "10:26 invalid-manifest q `maximum-version` `1.x.x` is below `minimum-version` `2.0.0`",
                ],
            ),
            (
                "  capabilities:\n    requires:\n      - name: q\n        optional: maybe\n",
                &["9:19 invalid-manifest q `optional` must be `true` or `false`, found a string"],
            ),
            (
                "  capabilities:\n    requires:\n      - name: q\n        prefer: mysql\n",
                &["9:17 invalid-manifest q expected a product as `group:name`, found `mysql`"],
            ),
            (
                "  capabilities:\n    requires:\n      - name: q\n        minimun-version: 1.0.0\n    provide: []\n",
                &[
                    "9:9 unknown-key q unknown key `minimun-version` in a `capabilities.requires` entry",
                    "10:5 unknown-key - unknown key `provide` in `capabilities`",
                ],
            ),
            (
                "  constraints:\n    - any-of: []\n",
                &["7:15 invalid-manifest - `any-of` must not be empty"],
            ),
            (
                "  constraints:\n    - all-of: {a: 1}\n",
                &["7:15 invalid-manifest - `all-of` must be a list, found a mapping"],
            ),
            (
                "  constraints:\n    - description: x\n",
                &[
                    "7:7 invalid-manifest - a constraint must have one of `product`, `capability`, `runtime`, `rule`, `any-of`, `all-of` or `none-of`, found none",
                ],
            ),
            (
                "  constraints:\n    - capability: cache\n      runtime: k8s\n",
                &[
                    "8:7 invalid-manifest cache a constraint must have one of `product`, `capability`, `runtime`, `rule`, `any-of`, `all-of` or `none-of`, found both `capability` and `runtime`",
                ],
            ),
            (
                "  constraints:\n    - rule: 'a =='\n",
                &[
                    "7:13 invalid-manifest - `rule`: the rule does not parse as CEL: Syntax error: mismatched input '<EOF>' expecting {'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}",
                ],
            ),
            (
                "  constraints:\n    - product: com.example:redis\n      maximum-version: 7.x.x\n      minimun-version: 6.0.0\n",
                &[
                    "9:7 unknown-key com.example:redis unknown key `minimun-version` in a `product` constraint",
                ],
            ),
            (
                "  constraints:\n    - none-of:\n        - runtime: K8s\n",
                &[
                    "8:20 invalid-manifest - expected a runtime name of lowercase letters, digits, `.`, `_`, `/` and `-` (starting with a letter or digit, at most 253 characters), found `K8s`",
                ],
            ),
            (
                "  constraints: 5\n",
                &["6:16 invalid-manifest - `constraints` must be a list, found a number"],
            ),
            (
                "  runtime-requirements:\n    - name: kubernetes\n      minimum-version: 1.30.0\n      maximum-version: 1.29.x\n",
                &[
                    "9:24 invalid-manifest kubernetes `maximum-version` `1.29.x` is below `minimum-version` `1.30.0`",
                ],
            ),
            (
                "  properties:\n    a: [1]\n    b: ~\n",
                &[
                    "7:8 invalid-manifest - property `a` must be a string, a number or a boolean, found a list",
                    "8:8 invalid-manifest - property `b` must be a string, a number or a boolean, found nothing",
                ],
            ),
            (
                "  deprecated: [x]\n",
                &["6:15 invalid-manifest - `deprecated` must be a reason or `true`, found a list"],
            ),
        ];
        for (extensions, expected) in table {
            let m = check(extensions, expected);
            assert!(
                m.facets().constraints.is_empty()
                    || expected.iter().all(|e| e.contains("unknown-key"))
            );
        }
    }

    #[test]
    fn valid_entries_still_count_beside_invalid_ones() {
        let m = check(
            "  capabilities:\n    provides:\n      - name: Bad\n      - name: sql\n  constraints:\n    \
             - any-of: []\n    - capability: cache\n",
            &[
                "8:15 invalid-manifest Bad expected a capability name of lowercase letters, digits, `.`, `_`, `/` and `-` (starting with a letter or digit, at most 253 characters), found `Bad`",
                "11:15 invalid-manifest - `any-of` must not be empty",
            ],
        );
        assert_eq!(m.facets().provides.len(), 1);
        assert_eq!(m.facets().constraints.len(), 1);
    }

    #[test]
    fn compounds_nest_at_most_16_deep() {
        let nested = |depth: usize| {
            let mut text = String::from("  constraints:\n");
            for level in 0..depth {
                let pad = "  ".repeat(2 + 2 * level);
                let _ = writeln!(text, "{pad}- all-of:");
            }
            let pad = "  ".repeat(2 + 2 * depth);
            let _ = writeln!(text, "{pad}- capability: cache");
            text
        };
        assert!(manifest(&nested(16)).is_valid());
        let m = manifest(&nested(17));
        assert_eq!(m.issues.len(), 1);
        assert_eq!(
            m.issues[0].message,
            "compounds nest 17 deep here, at most 16 are allowed"
        );
        assert_eq!(m.issues[0].location.line, 23);
    }
}
