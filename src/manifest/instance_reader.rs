//! Reading section 10 of a manifest: `instance:` criteria on product dependencies and
//! capability requirements, `extensions.outputs` and `extensions.inputs`, each problem one
//! located [`Issue`] (`invalid-manifest`, or an `unknown-key` warning), broken entries left
//! out.
//!
//! Decisions where SPEC is silent: `instance: ~` means no criteria; a label name is a
//! non-blank string and a label value a string (`{tier: 1}` is invalid, as it is in an
//! environment); output and input names follow the capability name form; an input whose
//! `from` names a requirement the release declares but that is itself invalid (left out) is
//! reported as not its own requirement too; a dependency whose criteria are broken is kept
//! without them (the manifest is invalid either way), while a broken capability requirement
//! goes whole, as every broken section 9 entry does.

use std::collections::{BTreeMap, BTreeSet};

use crate::diagnostic::{Location, Spanned};
use crate::finding::Code;
use crate::instance::{Criteria, Input, LabelTemplate, Requirement, check_name};
use crate::product::ProductId;
use crate::yaml::Tree;

use super::Issue;

type Fields = [(Spanned<String>, Spanned<Tree>)];

/// What an issue names: the entry's product, or its capability or input name.
#[derive(Clone, Default)]
pub(super) struct Subject {
    pub product: Option<ProductId>,
    pub name: Option<String>,
}

/// A broken entry: where and what, in words.
pub(super) type Broken = (Location, String);

fn push(issues: &mut Vec<Issue>, code: Code, (location, message): Broken, about: &Subject) {
    issues.push(Issue {
        code,
        message,
        location,
        dependency: about.product.clone(),
        subject: about.name.clone(),
    });
}

/// Reports a broken entry as `invalid-manifest`.
pub(super) fn invalid(issues: &mut Vec<Issue>, broken: Broken, about: &Subject) {
    push(issues, Code::InvalidManifest, broken, about);
}

/// The entries of a mapping, each key outside `known` an `unknown-key` warning.
fn fields<'t>(
    node: &'t Spanned<Tree>,
    known: &[&str],
    what: &str,
    issues: &mut Vec<Issue>,
    about: &Subject,
) -> Result<&'t Fields, Broken> {
    let Tree::Map(fields) = &node.value else {
        return Err((
            node.location,
            format!("{what} must be a mapping, found {}", node.value.kind()),
        ));
    };
    for (key, _) in fields {
        if !known.contains(&key.value.as_str()) {
            let message = format!("unknown key `{}` in {what}", key.value);
            push(issues, Code::UnknownKey, (key.location, message), about);
        }
    }
    Ok(fields)
}

fn get<'t>(fields: &'t Fields, key: &str) -> Option<&'t Spanned<Tree>> {
    fields
        .iter()
        .find(|(k, _)| k.value == key)
        .map(|(_, v)| v)
        .filter(|v| v.value != Tree::Null)
}

fn flag(fields: &Fields, key: &str) -> Result<bool, Broken> {
    match get(fields, key) {
        None => Ok(false),
        Some(Spanned {
            value: Tree::Bool(b),
            ..
        }) => Ok(*b),
        Some(other) => Err((
            other.location,
            format!(
                "`{key}` must be `true` or `false`, found {}",
                other.value.kind()
            ),
        )),
    }
}

fn string(node: &Spanned<Tree>, what: &str) -> Result<String, Broken> {
    match &node.value {
        Tree::Str(text) => Ok(text.clone()),
        other => Err((
            node.location,
            format!("{what} must be a string, found {}", other.kind()),
        )),
    }
}

/// A name of the capability form (`kind` says which name), or the problem.
fn name(node: &Spanned<Tree>, kind: &str) -> Result<String, Broken> {
    let text = string(node, &format!("an {kind} name"))?;
    check_name(kind, &text).map_err(|m| (node.location, m))?;
    Ok(text)
}

/// Reads `instance:`; `Ok(None)` for `instance: ~`. Unknown keys are warned about in
/// `issues`; the first invalid value is the error.
pub(super) fn criteria(
    node: &Spanned<Tree>,
    issues: &mut Vec<Issue>,
    about: &Subject,
) -> Result<Option<Criteria>, Broken> {
    if node.value == Tree::Null {
        return Ok(None);
    }
    let known = ["labels", "match-namespace", "ignore-labels"];
    let fields = fields(node, &known, "`instance`", issues, about)?;
    let mut labels = BTreeMap::new();
    match get(fields, "labels") {
        None => {}
        Some(Spanned {
            value: Tree::Map(entries),
            ..
        }) => {
            for (key, value) in entries {
                if key.value.trim().is_empty() {
                    let message = format!("expected a non-blank label name, found `{}`", key.value);
                    return Err((key.location, message));
                }
                let text = string(value, &format!("label `{}`", key.value))?;
                let template = LabelTemplate::new(&text).map_err(|m| (value.location, m))?;
                labels.insert(key.value.clone(), template);
            }
        }
        Some(other) => {
            let message = format!(
                "`labels` must be a mapping of label names to strings, found {}",
                other.value.kind()
            );
            return Err((other.location, message));
        }
    }
    Ok(Some(Criteria {
        labels,
        match_namespace: flag(fields, "match-namespace")?,
        ignore_labels: flag(fields, "ignore-labels")?,
        location: node.location,
    }))
}

/// Reads `extensions.outputs`: names, sorted, each once.
pub(super) fn outputs(node: &Spanned<Tree>, issues: &mut Vec<Issue>) -> Vec<String> {
    let nameless = Subject::default();
    let items = match &node.value {
        Tree::Null => return Vec::new(),
        Tree::Seq(items) => items,
        other => {
            let message = format!("`outputs` must be a list of names, found {}", other.kind());
            invalid(issues, (node.location, message), &nameless);
            return Vec::new();
        }
    };
    let mut seen: BTreeMap<String, Location> = BTreeMap::new();
    for item in items {
        match name(item, "output") {
            Ok(output) => {
                if let Some(first) = seen.get(&output) {
                    let message = format!(
                        "output `{output}` is listed twice (first at line {})",
                        first.line
                    );
                    let about = Subject {
                        product: None,
                        name: Some(output),
                    };
                    invalid(issues, (item.location, message), &about);
                } else {
                    seen.insert(output, item.location);
                }
            }
            Err(broken) => invalid(issues, broken, &nameless),
        }
    }
    seen.into_keys().collect()
}

/// Reads `extensions.inputs`; `own` are the release's own requirements, which `from` must name.
pub(super) fn inputs(
    node: &Spanned<Tree>,
    own: &BTreeSet<Requirement>,
    issues: &mut Vec<Issue>,
) -> Vec<Input> {
    let items = match &node.value {
        Tree::Null => return Vec::new(),
        Tree::Seq(items) => items,
        other => {
            let message = format!("`inputs` must be a list, found {}", other.kind());
            invalid(issues, (node.location, message), &Subject::default());
            return Vec::new();
        }
    };
    let mut out: Vec<Input> = Vec::new();
    for item in items {
        let about = Subject {
            product: None,
            name: match &item.value {
                Tree::Map(f) => f
                    .iter()
                    .find(|(k, _)| k.value == "name")
                    .and_then(|(_, v)| v.value.text()),
                _ => None,
            },
        };
        match input(item, own, issues, &about) {
            Ok(input) => {
                if let Some(first) = out.iter().find(|i| i.name == input.name) {
                    let message = format!(
                        "input `{}` is listed twice (first at line {})",
                        input.name, first.location.line
                    );
                    invalid(issues, (item.location, message), &about);
                } else {
                    out.push(input);
                }
            }
            Err(broken) => invalid(issues, broken, &about),
        }
    }
    out
}

fn input(
    node: &Spanned<Tree>,
    own: &BTreeSet<Requirement>,
    issues: &mut Vec<Issue>,
    about: &Subject,
) -> Result<Input, Broken> {
    let what = "an `inputs` entry";
    let known = ["name", "from", "output", "optional"];
    let fields = fields(node, &known, what, issues, about)?;
    let required = |key: &str| {
        get(fields, key).ok_or_else(|| (node.location, format!("{what} is missing `{key}`")))
    };
    let input_name = name(required("name")?, "input")?;
    let from_node = required("from")?;
    let from_text = string(from_node, "`from`")?;
    let from =
        Requirement::parse(&from_text).map_err(|m| (from_node.location, format!("`from`: {m}")))?;
    if !own.contains(&from) {
        let message = format!(
            "input `{input_name}` is fed `from` `{from_text}`, which is not one of this \
             release's own product dependencies or capability requirements"
        );
        return Err((from_node.location, message));
    }
    let output = get(fields, "output")
        .map(|o| name(o, "output"))
        .transpose()?;
    Ok(Input {
        name: input_name,
        from,
        output,
        optional: flag(fields, "optional")?,
        location: node.location,
    })
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::manifest::{Manifest, cross_check, parse, takes_fast_path};

    fn manifest(extensions: &str) -> Manifest {
        let text = format!(
            "manifest-version: '1.0'\nproduct-group: com.example\nproduct-name: web\n\
             product-version: 1.0.0\nextensions:\n{extensions}"
        );
        assert_eq!(cross_check(&text), Ok(()));
        parse(&text, &Arc::from("m.yml")).unwrap().remove(0)
    }

    /// The issues as `line:column code subject message`.
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

    const PG: &str = "  product-dependencies:\n    - product-group: org.postgresql\n      \
                      product-name: postgresql\n      minimum-version: 9.0.0\n      \
                      maximum-version: 9.x.x\n";

    #[test]
    fn reads_criteria_outputs_and_inputs() {
        let m = check(
            &format!(
                "{PG}      instance:\n        labels: {{app: \"{{namespace}}\", owner: \"{{entity}}\"}}\n        \
                 match-namespace: true\n  capabilities:\n    requires:\n      - name: sql\n        \
                 instance: {{ignore-labels: true}}\n  outputs: [endpoint, connection-string]\n  \
                 inputs:\n    - name: db-url\n      from: org.postgresql:postgresql\n      \
                 output: connection-string\n    - name: ready\n      from: sql\n      optional: true\n"
            ),
            &[],
        );
        let f = m.facets();
        let pg = ProductId::parse("org.postgresql:postgresql").unwrap();
        let c = &f.instances[&pg];
        assert!(c.match_namespace && !c.ignore_labels);
        assert_eq!(
            c.labels_for("web-1", "shop"),
            BTreeMap::from([
                ("app".to_owned(), "shop".to_owned()),
                ("owner".to_owned(), "web-1".to_owned())
            ])
        );
        assert_eq!(c.location.line, 12);
        let sql = f.requires[0].instance.as_ref().unwrap();
        assert!(sql.ignore_labels && sql.labels.is_empty());
        assert_eq!(f.outputs, ["connection-string", "endpoint"]);
        assert_eq!(f.inputs.len(), 2);
        assert_eq!(f.inputs[0].from, Requirement::Product(pg));
        assert_eq!(f.inputs[0].output.as_deref(), Some("connection-string"));
        assert!(!f.inputs[0].optional);
        assert_eq!(f.inputs[1].from, Requirement::Capability("sql".into()));
        assert_eq!(f.inputs[1].output, None);
        assert!(f.inputs[1].optional);
        assert!(m.dependencies.len() == 1 && m.is_valid());
    }

    #[test]
    fn plain_manifests_stay_plain() {
        let m = manifest(PG);
        assert!(m.facets.is_none());
        let text = format!(
            "manifest-version: '1.0'\nproduct-group: g\nproduct-name: a\nproduct-version: 1.0.0\n\
             extensions:\n{PG}"
        );
        assert!(takes_fast_path(&text));
        // criteria of plain words keep the fast path, read as the full parser reads them
        for (criteria, fast) in [
            ("{}", true),
            ("{match-namespace: yes}", false),
            ("{labels: {app: shop}}", false),
            ("\n        labels: {app: shop}", true),
        ] {
            let with = format!("{text}      instance: {criteria}\n");
            assert_eq!(takes_fast_path(&with), fast, "{criteria}");
            assert_eq!(cross_check(&with), Ok(()), "{criteria}");
        }
        assert!(!takes_fast_path(&format!("{text}  outputs: [a]\n")));
        // `instance: ~` and an empty `outputs` list declare nothing
        assert!(
            manifest(&format!("{PG}      instance: ~\n"))
                .facets
                .is_none()
        );
        assert!(manifest("  outputs: []\n").facets.is_none());
    }

    #[test]
    #[allow(clippy::too_many_lines)] // one table
    fn every_invalid_case_is_one_located_issue() {
        let table: &[(&str, &[&str])] = &[
            (
                "      instance:\n        labels: {app: \"{host}\"}\n",
                &[
                    "12:23 invalid-manifest org.postgresql:postgresql expected only `{entity}` and `{namespace}` in a label template, found `{host}`",
                ],
            ),
            (
                "      instance:\n        labels: {tier: 1}\n",
                &[
                    "12:24 invalid-manifest org.postgresql:postgresql label `tier` must be a string, found a number",
                ],
            ),
            (
                "      instance:\n        labels: [a]\n",
                &[
                    "12:17 invalid-manifest org.postgresql:postgresql `labels` must be a mapping of label names to strings, found a list",
                ],
            ),
            (
                "      instance:\n        match-namespace: maybe\n        ignore-label: true\n",
                &[
                    "12:26 invalid-manifest org.postgresql:postgresql `match-namespace` must be `true` or `false`, found a string",
                    "13:9 unknown-key org.postgresql:postgresql unknown key `ignore-label` in `instance`",
                ],
            ),
            (
                "      instance: shared\n",
                &[
                    "11:17 invalid-manifest org.postgresql:postgresql `instance` must be a mapping, found a string",
                ],
            ),
            (
                "  product-incompatibilities:\n    - product-group: g\n      product-name: old\n      instance: {}\n",
                &[
                    "14:17 unknown-key - key `instance` does not belong in a `product-incompatibilities` entry",
                ],
            ),
            (
                "  capabilities:\n    requires:\n      - name: sql\n        instance: {labels: {a: \"{x}\"}}\n",
                &[
                    "14:32 invalid-manifest sql expected only `{entity}` and `{namespace}` in a label template, found `{x}`",
                ],
            ),
            (
                "  outputs: [url, Bad, url]\n",
                &[
                    "11:18 invalid-manifest - expected an output name of lowercase letters, digits, `.`, `_`, `/` and `-` (starting with a letter or digit, at most 253 characters), found `Bad`",
                    "11:23 invalid-manifest url output `url` is listed twice (first at line 11)",
                ],
            ),
            (
                "  outputs: url\n",
                &["11:12 invalid-manifest - `outputs` must be a list of names, found a string"],
            ),
            (
                "  inputs:\n    - name: x\n      from: com.example:other\n",
                &[
                    "13:13 invalid-manifest x input `x` is fed `from` `com.example:other`, which is not one of this release's own product dependencies or capability requirements",
                ],
            ),
            (
                "  inputs:\n    - name: x\n      from: sql\n      outptu: url\n",
                &[
                    "13:13 invalid-manifest x input `x` is fed `from` `sql`, which is not one of this release's own product dependencies or capability requirements",
                    "14:7 unknown-key x unknown key `outptu` in an `inputs` entry",
                ],
            ),
            (
                "  inputs:\n    - name: x\n      from: org.postgresql:postgresql\n    - name: x\n      from: org.postgresql:postgresql\n    - name: other\n      from: org.postgresql:postgresql\n      optional: 1\n    - from: org.postgresql:postgresql\n",
                &[
                    "14:7 invalid-manifest x input `x` is listed twice (first at line 12)",
                    "18:17 invalid-manifest other `optional` must be `true` or `false`, found a number",
                    "19:7 invalid-manifest - an `inputs` entry is missing `name`",
                ],
            ),
        ];
        for (extensions, expected) in table {
            let m = check(&format!("{PG}{extensions}"), expected);
            assert!(!m.is_valid() || expected.iter().all(|e| e.contains("unknown-key")));
        }
    }
}
