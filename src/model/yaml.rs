//! The one place that knows the YAML library (serde-saphyr): reading documents into serde
//! types, locating values, and turning parser errors into located messages.
//!
//! serde-saphyr was chosen over the archived `serde_yaml` because it reports a correct line and
//! column for every error (missing fields and duplicate keys included), keeps scalars as their
//! original text when a `String` is asked for (`1.10` stays `1.10`), and has no unsafe code.
//! Keeping it behind this module means a major-version bump touches only this file.
//!
//! Invariant: nothing outside this module names `serde_saphyr`.

use std::fmt;
use std::marker::PhantomData;

use serde::de::{Deserialize, DeserializeOwned, Deserializer, IgnoredAny, MapAccess, Visitor};

use crate::diagnostic::{Location, Spanned};

pub mod simple;

/// A YAML text that could not be read as the requested type.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct YamlError {
    pub location: Location,
    pub message: String,
}

/// Reads every document of a YAML (or JSON) stream; a stream with no documents gives none.
///
/// # Errors
/// The first syntax or type error, with its location.
pub fn documents<T: DeserializeOwned>(text: &str) -> Result<Vec<T>, YamlError> {
    let limits = crate::limits::get();
    let options = serde_saphyr::options! {
        with_snippet: false,
        // ignored values (unknown keys, unknown extensions) are read untyped; `.inf` or `1e999`
        // there must not make the file unreadable
        non_finite_float_policy: serde_saphyr::NonFiniteFloatPolicy::PassThrough,
        budget: serde_saphyr::budget! {
            max_documents: limits.documents,
            max_depth: limits.depth,
            max_nodes: limits.nodes,
            // replaying an alias replays its events: the same bound keeps expansion in check
            max_events: limits.nodes,
            max_recorded_anchor_events: limits.nodes,
        },
        alias_limits: serde_saphyr::alias_limits! {
            max_total_replayed_events: limits.nodes,
        },
    };
    serde_saphyr::from_multiple_with_options(text, options).map_err(|error| {
        let location = error
            .location()
            .map(|l| Location::new(to_u32(l.line()), to_u32(l.column())))
            .unwrap_or_default();
        let message = bare_message(&error.without_snippet().to_string(), location);
        let message = plain_message(&message).unwrap_or(message);
        YamlError {
            message: limit_message(&message, &limits).unwrap_or(message),
            location,
        }
    })
}

/// Reads every document as [`documents`] does, taking the [`simple`] reader's fast path when
/// the text is of its shape.
///
/// # Errors
/// As [`documents`] (errors always come from the full parser).
pub fn read_documents<T: FromNode + DeserializeOwned>(text: &str) -> Result<Vec<T>, YamlError> {
    simple_documents(text).map_or_else(|| documents(text), Ok)
}

/// Reads every document with the [`simple`] reader, or gives `None` when the text is not of
/// its shape or does not read as `T` there: the caller then uses [`documents`], which agrees
/// with this wherever this answers.
pub fn simple_documents<T: FromNode>(text: &str) -> Option<Vec<T>> {
    simple::documents(text)?.iter().map(T::from_node).collect()
}

/// Checks the fast path's contract on `text`: where the simple reader answers, the full
/// parser reads the same values at the same locations. For the fuzzers and tests.
///
/// # Errors
/// Both readings, when they differ.
pub fn cross_check<T>(text: &str) -> Result<(), String>
where
    T: FromNode + DeserializeOwned + PartialEq + fmt::Debug,
{
    let Some(simple) = simple_documents::<T>(text) else {
        return Ok(());
    };
    match documents::<T>(text) {
        Ok(full) if full == simple => Ok(()),
        full => Err(format!(
            "simple reader: {simple:#?}\nfull parser: {full:#?}"
        )),
    }
}

/// A type that can be read from a node of the [`simple`] shape. `from_node` gives `None`
/// wherever [`documents`] might read the node differently or refuse it (wrong types
/// included), so that errors are always the full parser's.
pub trait FromNode: Sized {
    fn from_node(node: &Spanned<simple::Node<'_>>) -> Option<Self>;
}

impl FromNode for String {
    fn from_node(node: &Spanned<simple::Node<'_>>) -> Option<Self> {
        match node.value {
            simple::Node::Scalar(text) => Some(text.to_owned()),
            _ => None,
        }
    }
}

impl<T: FromNode> FromNode for Spanned<T> {
    fn from_node(node: &Spanned<simple::Node<'_>>) -> Option<Self> {
        Some(Spanned {
            value: T::from_node(node)?,
            location: node.location,
        })
    }
}

/// A value that is present (the simple shape has no nulls).
impl<T: FromNode> FromNode for Option<T> {
    fn from_node(node: &Spanned<simple::Node<'_>>) -> Option<Self> {
        T::from_node(node).map(Some)
    }
}

impl<T: FromNode> FromNode for Vec<T> {
    fn from_node(node: &Spanned<simple::Node<'_>>) -> Option<Self> {
        match &node.value {
            simple::Node::Seq(items) => items.iter().map(T::from_node).collect(),
            _ => None,
        }
    }
}

/// The entries of a mapping node, for [`FromNode`] implementations of structs.
pub fn entries<'n, 't>(
    node: &'n Spanned<simple::Node<'t>>,
) -> Option<&'n [(Spanned<&'t str>, Spanned<simple::Node<'t>>)]> {
    match &node.value {
        simple::Node::Map(entries) => Some(entries),
        _ => None,
    }
}

/// Says which limit a breach hit and how to raise it, instead of the parser's own words.
fn limit_message(message: &str, limits: &crate::limits::Limits) -> Option<String> {
    let nesting = || {
        format!(
            "more than {} levels of nesting; raise the limit with --max-depth",
            limits.depth
        )
    };
    if message.starts_with("recursion limit exceeded") {
        return Some(nesting());
    }
    let kind = if message.starts_with("alias replay limit exceeded") {
        "alias replay"
    } else {
        message.strip_prefix("budget breached: ")?
    };
    let kind = kind.split([' ', '{']).next().unwrap_or(kind);
    Some(match kind {
        "Documents" => format!(
            "more than {} YAML documents in one file; raise the limit with --max-documents",
            limits.documents
        ),
        "Depth" => nesting(),
        // Nodes, Events, Aliases, RecordedAnchorEvents, ...: all measure how much YAML the
        // file unfolds to, aliases expanded (the "billion laughs" shape)
        _ => format!(
            "the file unfolds to more YAML than allowed ({kind}; each use of an alias counts \
             its whole value again); raise the limit with --max-yaml-nodes (now {})",
            limits.nodes
        ),
    })
}

fn to_u32(n: u64) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

/// The parser appends ` at line L, column C` (rendered separately here) and, for duplicate
/// keys, advice to the programmer about its options (not the user's business).
fn bare_message(message: &str, location: Location) -> String {
    let suffix = format!(" at line {}, column {}", location.line, location.column);
    let message = message.strip_suffix(&suffix).unwrap_or(message);
    let message = message
        .split_once(", set DuplicateKeyPolicy")
        .map_or(message, |(head, _)| head);
    message.to_owned()
}

/// The library's messages that speak of Rust types (they advise the programmer, not the
/// author of the file), said in terms of the YAML instead.
fn plain_message(message: &str) -> Option<String> {
    const RUST_ADVICE: [(&str, &str); 3] = [
        (
            "cannot deserialize null into string",
            "expected text, found null (`~`, `null` or nothing); write the value, or quote it \
             (`\"~\"`) to mean the text",
        ),
        (
            "recursive references require weak recursion types",
            "this alias refers to a node that contains it (a recursive alias): it has no \
             finite value",
        ),
        (
            "cannot deserialize tagged scalar into string",
            "expected plain text, found a tagged scalar (a `!!tag` before the value); remove \
             the tag",
        ),
    ];
    if let Some((_, plain)) = RUST_ADVICE.iter().find(|(m, _)| message.starts_with(m)) {
        return Some((*plain).to_owned());
    }
    // Our located wrappers ask for "a span-aware newtype wrapper"; what reached one is a value
    // of the wrong kind (such as a `!!binary` list, which reads as a list of byte values).
    let (found, _) = message.split_once(", expected a span-aware")?;
    let found = found.strip_prefix("invalid type: ").unwrap_or(found);
    Some(format!(
        "found {found}, which this place does not take (a `!!binary` value reads as a list of \
         numbers)"
    ))
}

/// The keys a [`ScalarMap`] reads as scalar values (and as whole [`Tree`]s); every other key
/// is collected as unknown.
pub trait KeySet {
    const KEYS: &'static [&'static str];
    /// Keys whose values are read whole, as [`Tree`]s keeping their YAML kinds. The simple
    /// reader does not tell those kinds apart, so a mapping holding one takes the full parser.
    const TREES: &'static [&'static str] = &[];
    /// What the mapping is, for "expected ..." messages.
    const EXPECTING: &'static str;
}

/// A mapping read key by key: the values of the known keys as text (any scalar, so `1.10`
/// stays `1.10`; `None` for an explicit null), each with its location, and the unknown keys
/// with theirs, so callers can warn about typos exactly where they are. The keys of
/// [`KeySet::TREES`] are kept whole in `trees`.
#[derive(Debug, PartialEq, Eq)]
pub struct ScalarMap<K> {
    pub values: Vec<(&'static str, Spanned<Option<String>>)>,
    pub trees: Vec<(&'static str, Spanned<Tree>)>,
    pub unknown: Vec<Spanned<String>>,
    keys: PhantomData<K>,
}

impl<K> ScalarMap<K> {
    /// The value of a known key, if the key is present.
    pub fn get(&self, key: &str) -> Option<&Spanned<Option<String>>> {
        self.values.iter().find(|(k, _)| *k == key).map(|(_, v)| v)
    }

    /// The value of a [`KeySet::TREES`] key, if the key is present.
    pub fn tree(&self, key: &str) -> Option<&Spanned<Tree>> {
        self.trees.iter().find(|(k, _)| *k == key).map(|(_, v)| v)
    }
}

impl<'de, K: KeySet> Deserialize<'de> for ScalarMap<K> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct MapVisitor<K>(PhantomData<K>);
        impl<'de, K: KeySet> Visitor<'de> for MapVisitor<K> {
            type Value = ScalarMap<K>;

            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(K::EXPECTING)
            }

            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<ScalarMap<K>, A::Error> {
                let mut out = ScalarMap {
                    values: Vec::new(),
                    trees: Vec::new(),
                    unknown: Vec::new(),
                    keys: PhantomData,
                };
                while let Some(key) = map.next_key::<Spanned<String>>()? {
                    if let Some(known) = K::KEYS.iter().find(|k| **k == key.value) {
                        out.values.push((known, map.next_value()?));
                    } else if let Some(known) = K::TREES.iter().find(|k| **k == key.value) {
                        out.trees.push((known, map.next_value()?));
                    } else {
                        map.next_value::<IgnoredAny>()?;
                        out.unknown.push(key);
                    }
                }
                Ok(out)
            }
        }
        deserializer.deserialize_map(MapVisitor(PhantomData))
    }
}

impl<K: KeySet> FromNode for ScalarMap<K> {
    fn from_node(node: &Spanned<simple::Node<'_>>) -> Option<Self> {
        let mut out = ScalarMap {
            values: Vec::new(),
            trees: Vec::new(),
            unknown: Vec::new(),
            keys: PhantomData,
        };
        for (key, value) in entries(node)? {
            if let Some(known) = K::KEYS.iter().find(|k| **k == key.value) {
                out.values.push((known, FromNode::from_node(value)?));
            } else if let Some(known) = K::TREES.iter().find(|k| **k == key.value) {
                // the value's YAML kinds matter: read only where they cannot differ
                out.trees.push((known, FromNode::from_node(value)?));
            } else {
                out.unknown.push(Spanned {
                    value: key.value.to_owned(),
                    location: key.location,
                });
            }
        }
        Some(out)
    }
}

/// Any YAML value with the location of every node: the shape of section 9's nested entries
/// (compounds inside compounds), read key by key so unknown keys can be warned about where
/// they stand. Scalars keep their kind (string, number, boolean, null) as YAML 1.2 reads them;
/// numbers keep a text form.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Tree {
    Null,
    Bool(bool),
    /// A number, as text (`3`, `2.5`).
    Number(String),
    Str(String),
    Seq(Vec<Spanned<Tree>>),
    Map(Vec<(Spanned<String>, Spanned<Tree>)>),
}

/// A tree from the simple shape, where every scalar is surely a string to the full parser
/// too: it starts with a letter and is no boolean or null of YAML 1.1 or 1.2 (`yes`, `on`,
/// `True`, `null`...). Any other scalar (a number, a word the two YAMLs read differently, a
/// quoted digit) gives `None`, and the full parser reads the text.
impl FromNode for Tree {
    fn from_node(node: &Spanned<simple::Node<'_>>) -> Option<Self> {
        Some(match &node.value {
            simple::Node::Scalar(text) if simple::surely_string(text) => {
                Tree::Str((*text).to_owned())
            }
            simple::Node::Scalar(_) => return None,
            simple::Node::Seq(items) => Tree::Seq(
                items
                    .iter()
                    .map(FromNode::from_node)
                    .collect::<Option<_>>()?,
            ),
            simple::Node::Map(entries) => Tree::Map(
                entries
                    .iter()
                    .map(|(key, value)| {
                        let key = Spanned {
                            value: key.value.to_owned(),
                            location: key.location,
                        };
                        Some((key, FromNode::from_node(value)?))
                    })
                    .collect::<Option<_>>()?,
            ),
        })
    }
}

impl Tree {
    /// A scalar as text (what a version or name field reads); `None` for null and
    /// collections.
    #[must_use]
    pub fn text(&self) -> Option<String> {
        match self {
            Tree::Bool(b) => Some(b.to_string()),
            Tree::Number(n) | Tree::Str(n) => Some(n.clone()),
            Tree::Null | Tree::Seq(_) | Tree::Map(_) => None,
        }
    }

    /// What kind of value this is, for "found ..." messages.
    #[must_use]
    pub fn kind(&self) -> &'static str {
        match self {
            Tree::Null => "nothing",
            Tree::Bool(_) => "a boolean",
            Tree::Number(_) => "a number",
            Tree::Str(_) => "a string",
            Tree::Seq(_) => "a list",
            Tree::Map(_) => "a mapping",
        }
    }
}

impl<'de> Deserialize<'de> for Tree {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct TreeVisitor;
        impl<'de> Visitor<'de> for TreeVisitor {
            type Value = Tree;

            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("any YAML value")
            }
            fn visit_bool<E>(self, v: bool) -> Result<Tree, E> {
                Ok(Tree::Bool(v))
            }
            fn visit_i64<E>(self, v: i64) -> Result<Tree, E> {
                Ok(Tree::Number(v.to_string()))
            }
            fn visit_u64<E>(self, v: u64) -> Result<Tree, E> {
                Ok(Tree::Number(v.to_string()))
            }
            fn visit_i128<E>(self, v: i128) -> Result<Tree, E> {
                Ok(Tree::Number(v.to_string()))
            }
            fn visit_u128<E>(self, v: u128) -> Result<Tree, E> {
                Ok(Tree::Number(v.to_string()))
            }
            fn visit_f64<E>(self, v: f64) -> Result<Tree, E> {
                Ok(Tree::Number(v.to_string()))
            }
            fn visit_str<E>(self, v: &str) -> Result<Tree, E> {
                Ok(Tree::Str(v.to_owned()))
            }
            fn visit_string<E>(self, v: String) -> Result<Tree, E> {
                Ok(Tree::Str(v))
            }
            fn visit_unit<E>(self) -> Result<Tree, E> {
                Ok(Tree::Null)
            }
            fn visit_none<E>(self) -> Result<Tree, E> {
                Ok(Tree::Null)
            }
            fn visit_some<D2: Deserializer<'de>>(self, d: D2) -> Result<Tree, D2::Error> {
                Tree::deserialize(d)
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<Tree, A::Error> {
                let mut items = Vec::new();
                while let Some(item) = seq.next_element::<Spanned<Tree>>()? {
                    items.push(item);
                }
                Ok(Tree::Seq(items))
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Tree, A::Error> {
                let mut entries = Vec::new();
                while let Some(key) = map.next_key::<Spanned<String>>()? {
                    entries.push((key, map.next_value::<Spanned<Tree>>()?));
                }
                Ok(Tree::Map(entries))
            }
        }
        deserializer.deserialize_any(TreeVisitor)
    }
}

impl<'de, T: Deserialize<'de>> Deserialize<'de> for Spanned<T> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let spanned = serde_saphyr::Spanned::<T>::deserialize(deserializer)?;
        Ok(Spanned {
            value: spanned.value,
            location: Location::new(
                to_u32(spanned.referenced.line()),
                to_u32(spanned.referenced.column()),
            ),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, serde::Deserialize)]
    struct Doc {
        name: Spanned<String>,
    }

    #[test]
    fn values_keep_their_text_and_location() {
        let docs: Vec<Doc> = documents("name: 1.10\n---\nname: \"x\"\n").unwrap();
        assert_eq!(docs[0].name.value, "1.10");
        assert_eq!(docs[0].name.location, Location::new(1, 7));
        assert_eq!(docs[1].name.location, Location::new(3, 7));
    }

    #[test]
    fn duplicate_keys_are_reported_without_library_advice() {
        let error = documents::<Doc>("name: a\nname: b\n").unwrap_err();
        assert_eq!(error.message, "duplicate mapping key: name");
        assert_eq!(error.location, Location::new(2, 1));
    }

    #[test]
    fn errors_are_located_without_a_repeated_suffix() {
        let error = documents::<Doc>("other: 1\n").unwrap_err();
        assert_eq!(error.message, "missing field `name`");
        assert_eq!(error.location, Location::new(1, 1));
        let error = documents::<Doc>("name: [1]\n").unwrap_err();
        assert_eq!(error.message, "expected string scalar");
        assert_eq!(error.location, Location::new(1, 7));
    }

    /// Advice meant for Rust programmers (`use Option<String>`) never reaches a file's author.
    #[test]
    fn messages_speak_of_yaml_not_rust_types() {
        #[derive(Debug, serde::Deserialize)]
        #[allow(dead_code)] // read only to be refused
        struct Items {
            items: Vec<Spanned<String>>,
        }
        #[derive(Debug, serde::Deserialize)]
        #[allow(dead_code)]
        struct Nested {
            name: Vec<IgnoredAny>,
        }
        let cases: [(&str, Location, &str); 4] = [
            (
                "name: ~\n",
                Location::new(1, 7),
                "expected text, found null",
            ),
            ("name: &a [*a]\n", Location::new(1, 11), "a recursive alias"),
            (
                "name: !!timestamp x\n",
                Location::new(1, 19),
                "found a tagged scalar",
            ),
            (
                "items: !!binary aGk=\n",
                Location::new(1, 1),
                "found integer `104`, which",
            ),
        ];
        for (text, location, expected) in cases {
            let error = if text.starts_with("items") {
                documents::<Items>(text).unwrap_err()
            } else if text.contains('[') {
                documents::<Nested>(text).unwrap_err()
            } else {
                documents::<Doc>(text).unwrap_err()
            };
            assert!(
                error.message.contains(expected),
                "{text:?}: {}",
                error.message
            );
            assert!(!error.message.contains("Option<"), "{}", error.message);
            assert!(!error.message.contains("span-aware"), "{}", error.message);
            assert_eq!(error.location, location, "{text:?}");
        }
    }
}
