//! Environments: the entities that run (or will run) releases (SPEC section 5).
//!
//! Every entity has a unique name (defaulting to the product-name part), a product, a version
//! and a state. `managed` entities are declared but not yet installed: they are not present
//! for dependency checks and their own dependencies are not checked; they are what an
//! install-order report orders. A name clash, a product that is not `group:name`, a version
//! that is not a version or an unknown state is unreadable input (exit 3).
//!
//! Decisions where SPEC is silent: `environment` may be left out, and the report then names the
//! environment after its file; an unknown key inside an entity (`stat: managed`) is probably a
//! typo that changes what is checked, so it is reported as a located warning (unknown keys at
//! the top level are ignored, as they are in a manifest).
//!
//! Section 9.2 adds `runtime:` (platform facts: a runtime name to the version it runs) and
//! `policy:` (module [`crate::policy`]); a malformed one is unreadable input too.
//!
//! Section 10 adds three optional keys to an entity, read into its [`Placement`]:
//! `namespace` (a string; absent, null or `""` is the global namespace), `labels` (a mapping
//! of label names to strings) and `bindings` (a mapping of a requirement, a product
//! `group:name` or a capability name, to the name of the entity that serves it). A value of
//! another YAML kind (`labels: {tier: 1}`, `namespace: [a]`), a binding key that is neither
//! requirement form, or a name of the wrong form is unreadable input, located at the value. A
//! binding naming an entity that does not exist (or cannot serve) reads fine: `validate`
//! reports it as `invalid-binding`. Decisions where SPEC is silent: a namespace, a label name
//! or value and a bound entity's name hold no control characters and no leading or trailing
//! whitespace, and names are not blank (a label value may be `""`); `null` for `labels` or
//! `bindings` means none. An entity using these keys is read by the full YAML parser (their
//! values keep their YAML kinds, which the fast reader does not tell apart).

use std::collections::BTreeMap;
use std::fmt::Write;
use std::sync::Arc;

use serde::Deserialize;

use crate::diagnostic::{InputError, Location, Spanned};
use crate::instance::{Placement, Requirement};
use crate::manifest::facets::check_name;
use crate::policy::{self, Policy};
use crate::product::ProductId;
use crate::version::Version;
use crate::yaml::simple::Node;
use crate::yaml::{self, FromNode, KeySet, ScalarMap, Tree};

/// Whether an entity is running or only declared.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum State {
    Installed,
    Managed,
}

impl State {
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            State::Installed => "installed",
            State::Managed => "managed",
        }
    }
}

/// One entity of an environment.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Entity {
    pub name: String,
    pub product: ProductId,
    pub version: Version,
    pub state: State,
    /// Section 10: namespace, labels and bindings (empty without them).
    pub placement: Placement,
    /// Where the entity's entry starts in the environment file.
    pub location: Location,
    /// Where each of the entity's bindings is written (its key), so a finding about one
    /// points at that line; empty for entities that were not read from a file.
    pub binding_locations: BTreeMap<Requirement, Location>,
}

impl Entity {
    #[must_use]
    pub fn is_installed(&self) -> bool {
        self.state == State::Installed
    }
}

/// A named set of entities, sorted by entity name.
#[derive(Clone, Debug)]
pub struct Environment {
    pub name: String,
    pub entities: Vec<Entity>,
    pub file: Arc<str>,
    /// Located warnings about the file itself (unknown keys in entities), in file order.
    pub warnings: Vec<(Location, String)>,
    /// `runtime:`: the version each declared runtime runs, by name.
    pub runtime: BTreeMap<String, Version>,
    /// `policy:`, merged with any `--policy FILE` by the command line.
    pub policy: Policy,
}

impl Environment {
    /// This environment (its name, file, runtime and policy) with other entities: a state
    /// of it, to judge. The file's warnings stay with the file as read.
    #[must_use]
    pub fn with_entities(&self, entities: Vec<Entity>) -> Environment {
        Environment {
            name: self.name.clone(),
            entities,
            file: Arc::clone(&self.file),
            warnings: Vec::new(),
            runtime: self.runtime.clone(),
            policy: self.policy.clone(),
        }
    }

    /// The names entities created for installs take ([`InstallNames::name`]), worked out
    /// once for many products.
    #[must_use]
    pub fn install_names(&self) -> InstallNames<'_> {
        let mut managed: BTreeMap<&ProductId, &Entity> = BTreeMap::new();
        for e in self.entities.iter().filter(|e| !e.is_installed()) {
            let first = managed.entry(&e.product).or_insert(e);
            if e.name < first.name {
                *first = e;
            }
        }
        InstallNames {
            managed,
            taken: self.entities.iter().map(|e| e.name.as_str()).collect(),
        }
    }

    /// The installed entities of each product, products and entities sorted.
    #[must_use]
    pub fn installed_by_product(&self) -> BTreeMap<&ProductId, Vec<&Entity>> {
        let mut map: BTreeMap<&ProductId, Vec<&Entity>> = BTreeMap::new();
        for entity in self.entities.iter().filter(|e| e.is_installed()) {
            map.entry(&entity.product).or_default().push(entity);
        }
        map
    }
}

/// What an install of a product becomes in an environment ([`Environment::install_names`]).
pub struct InstallNames<'e> {
    /// Each product's first managed entity, by name.
    managed: BTreeMap<&'e ProductId, &'e Entity>,
    /// Every entity name in use.
    taken: std::collections::BTreeSet<&'e str>,
}

impl<'e> InstallNames<'e> {
    /// The product's first managed entity by name: what an install of it fills (installing
    /// is what a managed entity is waiting for).
    #[must_use]
    pub fn managed(&self, product: &ProductId) -> Option<&'e Entity> {
        self.managed.get(product).copied()
    }

    /// The entity an install of `product` becomes: its first managed entity
    /// ([`InstallNames::managed`]), or a new one named after the product, made unique (`-2`,
    /// `-3`, ...).
    #[must_use]
    pub fn name(&self, product: &ProductId) -> String {
        if let Some(managed) = self.managed(product) {
            return managed.name.clone();
        }
        let base = product.name();
        if !self.taken.contains(base) {
            return base.to_owned();
        }
        // there are fewer names taken than numbers to try, so this always finds one
        (2..=self.taken.len() + 2)
            .map(|k| format!("{base}-{k}"))
            .find(|n| !self.taken.contains(n.as_str()))
            .unwrap_or_else(|| base.to_owned())
    }
}

#[derive(Deserialize, Debug, PartialEq)]
struct RawEnvironment {
    environment: Option<String>,
    entities: Vec<Spanned<RawEntity>>,
    runtime: Option<Spanned<Tree>>,
    policy: Option<Spanned<Tree>>,
}

/// The fast path's reading of the same fields, matching serde's rules: unknown keys ignored,
/// `entities` required (without it the full parser reports the error).
impl FromNode for RawEnvironment {
    fn from_node(node: &Spanned<Node<'_>>) -> Option<Self> {
        let mut environment = None;
        let mut entities = None;
        for (key, value) in yaml::entries(node)? {
            match key.value {
                "environment" => environment = FromNode::from_node(value)?,
                "entities" => entities = Some(FromNode::from_node(value)?),
                // section 9.2: values keep their YAML kinds, read by the full parser
                "runtime" | "policy" => return None,
                _ => {}
            }
        }
        Some(RawEnvironment {
            environment,
            entities: entities?,
            runtime: None,
            policy: None,
        })
    }
}

/// Checks the fast path's contract on `text` (see [`yaml::cross_check`]). For the fuzzers and
/// tests.
///
/// # Errors
/// Both readings, when they differ.
#[doc(hidden)]
pub fn cross_check(text: &str) -> Result<(), String> {
    yaml::cross_check::<Spanned<RawEnvironment>>(text)
}

/// Whether the simple reader takes `text` (else the full parser reads it). For tests.
#[doc(hidden)]
pub fn takes_fast_path(text: &str) -> bool {
    yaml::simple_documents::<Spanned<RawEnvironment>>(text).is_some()
}

#[derive(Debug, PartialEq, Eq)]
struct EntityKeys;

impl KeySet for EntityKeys {
    const KEYS: &'static [&'static str] = &["name", "product", "version", "state"];
    const TREES: &'static [&'static str] = &["namespace", "labels", "bindings"];
    const EXPECTING: &'static str = "an entity: a mapping with `product` and `version`";
}

type RawEntity = ScalarMap<EntityKeys>;

/// Reads an environment file. `default_name` names the environment when the file does not.
///
/// # Errors
/// When the text is not one environment document, or an entity is malformed or clashes.
pub fn parse(text: &str, file: &Arc<str>, default_name: &str) -> Result<Environment, InputError> {
    let mut docs: Vec<Spanned<RawEnvironment>> = yaml::read_documents(text)
        .map_err(|e| InputError::malformed(file, e.location, e.message))?;
    if docs.len() != 1 {
        let at = docs.get(1).map_or(Location::new(1, 1), |d| d.location);
        let message = format!(
            "expected one environment document (a mapping with `entities`), found {}",
            docs.len()
        );
        return Err(InputError::malformed(file, at, message));
    }
    let raw = docs.remove(0).value;
    let limit = crate::limits::get().entities;
    if raw.entities.len() > limit {
        let at = raw.entities[limit].location;
        let message = format!("more than {limit} entities; raise the limit with --max-entities");
        return Err(InputError::malformed(file, at, message));
    }
    let mut entities = Vec::with_capacity(raw.entities.len());
    let mut names: BTreeMap<String, Location> = BTreeMap::new();
    let mut warnings = Vec::new();
    for entry in raw.entities {
        for key in &entry.value.unknown {
            let message = format!(
                "unknown key `{}` in an entity (expected `name`, `product`, `version`, `state`, \
                 `namespace`, `labels` or `bindings`)",
                key.value
            );
            warnings.push((key.location, message));
        }
        let entity = into_entity(&entry.value, file, entry.location)?;
        if let Some(first) = names.insert(entity.name.clone(), entity.location) {
            let message = format!(
                "entity name `{}` is already used at line {} (an entity without `name` is \
                 named after its product-name); give one of them its own `name`",
                entity.name, first.line
            );
            return Err(InputError::malformed(file, entity.location, message));
        }
        entities.push(entity);
    }
    entities.sort_by(|a, b| a.name.cmp(&b.name));
    let runtime = raw
        .runtime
        .map(|r| runtime(&r, file))
        .transpose()?
        .unwrap_or_default();
    let policy = raw
        .policy
        .map(|p| policy::read(&p, file, &mut warnings))
        .transpose()?
        .unwrap_or_default();
    Ok(Environment {
        name: raw.environment.unwrap_or_else(|| default_name.to_owned()),
        entities,
        file: Arc::clone(file),
        warnings,
        runtime,
        policy,
    })
}

/// Reads `runtime:`: a mapping of runtime names to versions.
fn runtime(node: &Spanned<Tree>, file: &Arc<str>) -> Result<BTreeMap<String, Version>, InputError> {
    let fields = match &node.value {
        Tree::Null => return Ok(BTreeMap::new()),
        Tree::Map(fields) => fields,
        other => {
            let message = format!(
                "expected `runtime` to be a mapping of runtime names to versions, found {}",
                other.kind()
            );
            return Err(InputError::malformed(file, node.location, message));
        }
    };
    let mut out = BTreeMap::new();
    for (key, value) in fields {
        check_name("runtime", &key.value)
            .map_err(|m| InputError::malformed(file, key.location, m))?;
        let text = value.value.text().ok_or_else(|| {
            let message = format!(
                "expected a version for runtime `{}`, found {}",
                key.value,
                value.value.kind()
            );
            InputError::malformed(file, value.location, message)
        })?;
        let version = Version::parse(&text).map_err(|e| {
            InputError::malformed(
                file,
                value.location,
                format!("runtime `{}`: {e}", key.value),
            )
        })?;
        out.insert(key.value.clone(), version);
    }
    Ok(out)
}

/// Reads a file found in a directory of environments (`--envs DIR`), which may hold other
/// YAML too: `Ok(None)` when the text is not meant as an environment, that is, it reads as
/// YAML (or JSON) documents that are all mappings (or empty) and none has an `entities` key
/// (a manifest, a CI configuration, an empty file). Anything else is read as [`parse`] reads
/// it, errors included: a broken environment is never passed over in silence.
///
/// # Errors
/// As [`parse`], for a text that is meant as an environment.
pub fn recognize(
    text: &str,
    file: &Arc<str>,
    default_name: &str,
) -> Result<Option<Environment>, InputError> {
    // A key's value is read and dropped: only which keys there are matters.
    #[allow(clippy::zero_sized_map_values)]
    type Probe = Option<BTreeMap<String, serde::de::IgnoredAny>>;
    match parse(text, file, default_name) {
        Ok(env) => Ok(Some(env)),
        Err(error) => match yaml::documents::<Probe>(text) {
            Ok(docs)
                if docs
                    .iter()
                    .flatten()
                    .all(|doc| !doc.contains_key("entities")) =>
            {
                Ok(None)
            }
            _ => Err(error),
        },
    }
}

/// The text of a key an entity must have, or a located error.
fn required<'a>(
    raw: &'a RawEntity,
    key: &str,
    file: &Arc<str>,
    entry: Location,
) -> Result<(&'a str, Location), InputError> {
    match raw.get(key) {
        Some(Spanned {
            value: Some(text),
            location,
        }) => Ok((text, *location)),
        Some(Spanned { location, .. }) => Err(InputError::malformed(
            file,
            *location,
            format!("expected a value for `{key}`, found nothing"),
        )),
        None => Err(InputError::malformed(
            file,
            entry,
            format!("an entity is missing `{key}`"),
        )),
    }
}

fn into_entity(raw: &RawEntity, file: &Arc<str>, location: Location) -> Result<Entity, InputError> {
    let (product_text, product_at) = required(raw, "product", file, location)?;
    let product =
        ProductId::parse(product_text).map_err(|m| InputError::malformed(file, product_at, m))?;
    let (version_text, version_at) = required(raw, "version", file, location)?;
    let version = Version::parse(version_text)
        .map_err(|e| InputError::malformed(file, version_at, format!("`version`: {e}")))?;
    let state = match raw.get("state") {
        None | Some(Spanned { value: None, .. }) => State::Installed,
        Some(Spanned {
            value: Some(text),
            location: at,
        }) => match text.as_str() {
            "installed" => State::Installed,
            "managed" => State::Managed,
            other => {
                let message =
                    format!("expected `state` to be `installed` or `managed`, found `{other}`");
                return Err(InputError::malformed(file, *at, message));
            }
        },
    };
    let name = match raw.get("name") {
        None | Some(Spanned { value: None, .. }) => product.name().to_owned(),
        Some(Spanned {
            value: Some(name),
            location: at,
        }) => {
            if name.trim().is_empty() {
                return Err(InputError::malformed(
                    file,
                    *at,
                    "expected a non-empty entity `name`",
                ));
            }
            name.clone()
        }
    };
    let (placement, binding_locations) = placement(raw, file)?;
    Ok(Entity {
        name,
        product,
        version,
        state,
        placement,
        location,
        binding_locations,
    })
}

/// Reads section 10's `namespace`, `labels` and `bindings` of an entity, and where each
/// binding is written.
fn placement(
    raw: &RawEntity,
    file: &Arc<str>,
) -> Result<(Placement, BTreeMap<Requirement, Location>), InputError> {
    let mut placement = Placement::default();
    let mut locations = BTreeMap::new();
    if let Some(node) = raw.tree("namespace") {
        match &node.value {
            Tree::Null => {}
            Tree::Str(text) if text.is_empty() => {}
            Tree::Str(text) => {
                check_text("namespace", text, false)
                    .map_err(|m| InputError::malformed(file, node.location, m))?;
                placement.namespace.clone_from(text);
            }
            other => {
                let message = format!("expected `namespace` to be a string, found {}", kind(other));
                return Err(InputError::malformed(file, node.location, message));
            }
        }
    }
    for (key, value) in mapping(raw.tree("labels"), "labels", "label names to strings", file)? {
        check_text("label name", &key.value, false)
            .map_err(|m| InputError::malformed(file, key.location, m))?;
        let text = string(value, &format!("label `{}`", key.value), true, file)?;
        placement.labels.insert(key.value.clone(), text);
    }
    let bindings = mapping(
        raw.tree("bindings"),
        "bindings",
        "requirements (`group:name` or a capability name) to entity names",
        file,
    )?;
    for (key, value) in bindings {
        let requirement = Requirement::parse(&key.value).map_err(|m| {
            InputError::malformed(file, key.location, format!("binding `{}`: {m}", key.value))
        })?;
        let entity = string(value, &format!("binding `{}`", key.value), false, file)?;
        if placement
            .bindings
            .insert(requirement.clone(), entity)
            .is_some()
        {
            let message = format!("`{}` is bound twice in this entity", key.value);
            return Err(InputError::malformed(file, key.location, message));
        }
        locations.insert(requirement, key.location);
    }
    Ok((placement, locations))
}

/// A mapping's entries as [`Tree`] reads them.
type Fields = [(Spanned<String>, Spanned<Tree>)];

/// The entries of a mapping-valued key (none when absent or null), or a located error.
fn mapping<'t>(
    node: Option<&'t Spanned<Tree>>,
    key: &str,
    of: &str,
    file: &Arc<str>,
) -> Result<&'t Fields, InputError> {
    match node {
        None
        | Some(Spanned {
            value: Tree::Null, ..
        }) => Ok(&[]),
        Some(Spanned {
            value: Tree::Map(fields),
            ..
        }) => Ok(fields),
        Some(other) => {
            let message = format!(
                "expected `{key}` to be a mapping of {of}, found {}",
                kind(&other.value)
            );
            Err(InputError::malformed(file, other.location, message))
        }
    }
}

/// A string value of `what`, checked with [`check_text`], or a located error.
fn string(
    node: &Spanned<Tree>,
    what: &str,
    may_be_empty: bool,
    file: &Arc<str>,
) -> Result<String, InputError> {
    let Tree::Str(text) = &node.value else {
        let message = format!(
            "expected {what} to be a string, found {}",
            kind(&node.value)
        );
        return Err(InputError::malformed(file, node.location, message));
    };
    check_text(what, text, may_be_empty)
        .map_err(|m| InputError::malformed(file, node.location, m))?;
    Ok(text.clone())
}

/// A value's kind for "found ..." messages; a number or boolean shows its text and how to
/// write it as a string.
fn kind(tree: &Tree) -> String {
    match tree {
        Tree::Number(text) => format!("the number `{text}` (quote it: `\"{text}\"`)"),
        Tree::Bool(b) => format!("the boolean `{b}` (quote it: `\"{b}\"`)"),
        other => other.kind().to_owned(),
    }
}

/// The form of section 10's names and values (see the module doc).
fn check_text(what: &str, text: &str, may_be_empty: bool) -> Result<(), String> {
    if text.is_empty() && may_be_empty {
        return Ok(());
    }
    if text.trim().is_empty() {
        return Err(format!("expected a non-blank {what}, found `{text}`"));
    }
    if text.chars().any(char::is_control) {
        return Err(format!(
            "expected {what} without control characters, found {text:?}"
        ));
    }
    if text.trim() != text {
        return Err(format!(
            "expected {what} without leading or trailing whitespace, found `{text}`"
        ));
    }
    Ok(())
}

/// One entity as [`render`] writes it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Written {
    pub name: String,
    pub product: String,
    pub version: String,
    pub state: State,
    /// Section 10: written only where not empty.
    pub placement: Placement,
}

/// Writes an environment file with the given entities, in the format [`parse`] reads: a file
/// written reads back to the same names, products, versions, states and placements.
/// `namespace`, `labels` and `bindings` are written only when not empty, keys sorted.
#[must_use]
pub fn render(name: &str, entities: &[Written]) -> String {
    let quote = |s: &str| {
        let mut out = String::with_capacity(s.len() + 2);
        out.push('"');
        for c in s.chars() {
            match c {
                '\\' => out.push_str("\\\\"),
                '"' => out.push_str("\\\""),
                c if c.is_control() => {
                    let _ = write!(out, "\\u{:04x}", u32::from(c));
                }
                c => out.push(c),
            }
        }
        out.push('"');
        out
    };
    let mut out = format!("environment: {}\nentities:\n", quote(name));
    for e in entities {
        let _ = write!(
            out,
            "  - name: {}\n    product: {}\n    version: {}\n",
            quote(&e.name),
            quote(&e.product),
            quote(&e.version)
        );
        if e.state == State::Managed {
            out.push_str("    state: managed\n");
        }
        let p = &e.placement;
        if !p.namespace.is_empty() {
            let _ = writeln!(out, "    namespace: {}", quote(&p.namespace));
        }
        if !p.labels.is_empty() {
            out.push_str("    labels:\n");
            for (k, v) in &p.labels {
                let _ = writeln!(out, "      {}: {}", quote(k), quote(v));
            }
        }
        if !p.bindings.is_empty() {
            out.push_str("    bindings:\n");
            for (k, v) in &p.bindings {
                let _ = writeln!(out, "      {}: {}", quote(&k.to_string()), quote(v));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(text: &str) -> Result<Environment, String> {
        parse(text, &Arc::from("env.yml"), "env").map_err(|e| e.to_string())
    }

    #[track_caller]
    fn recognized(text: &str, expected: Result<bool, &str>) {
        let got = recognize(text, &Arc::from("env.yml"), "env")
            .map(|env| env.is_some())
            .map_err(|e| e.to_string());
        assert_eq!(got, expected.map_err(str::to_owned), "{text:?}");
    }

    #[test]
    fn recognizes_environments_among_other_yaml() {
        recognized("entities:\n  - {product: g:a, version: 1.0.0}\n", Ok(true));
        recognized("entities: []\n", Ok(true));
        // other YAML a directory of environments may hold: passed over
        recognized("product-group: g\nproduct-name: a\n", Ok(false));
        recognized("", Ok(false));
        recognized("a: 1\n---\nb: 2\n", Ok(false));
        recognized("{\"name\": \"x\"}", Ok(false));
        // meant as an environment, or not readable at all: the error `parse` gives
        recognized(
            "entities:\n  - {product: g:a, version: x..y}\n",
            Err(
                "env.yml:2:29: `version`: expected a version like `1.2.3`, `1.2.3-rc1` or \
                 `1.2.3-4-gabc12`, found `x..y`",
            ),
        );
        recognized("[1, 2]\n", Err("env.yml:1:1: expected mapping start"));
        recognized("a: [\n", Err("env.yml:1:4: unclosed bracket '['"));
    }

    #[test]
    fn reads_the_spec_example() {
        let env = read(
            "environment: prod-eu\nentities:\n  - product: org.postgresql:postgresql\n    \
             version: 9.6.1\n  - name: web-1\n    product: com.example:web\n    \
             version: 2.3.0\n    state: managed\n",
        )
        .unwrap();
        assert_eq!(env.name, "prod-eu");
        let names: Vec<_> = env.entities.iter().map(|e| e.name.as_str()).collect();
        assert_eq!(names, ["postgresql", "web-1"]);
        assert_eq!(env.entities[0].state, State::Installed);
        assert_eq!(env.entities[1].state, State::Managed);
        assert_eq!(env.entities[1].location, Location::new(5, 5));
        assert_eq!(env.installed_by_product().len(), 1);
    }

    #[test]
    fn warns_about_unknown_keys_in_entities() {
        let env =
            read("entities:\n  - product: g:a\n    version: 1.0.0\n    stat: managed\n").unwrap();
        assert_eq!(env.entities[0].state, State::Installed);
        assert_eq!(
            env.warnings,
            [(
                Location::new(4, 5),
                "unknown key `stat` in an entity (expected `name`, `product`, `version`, `state`, \
                 `namespace`, `labels` or `bindings`)"
                    .to_owned()
            )]
        );
    }

    #[test]
    fn defaults_the_environment_name() {
        assert_eq!(read("entities: []\n").unwrap().name, "env");
    }

    #[test]
    fn rejects_malformed_entities() {
        for (text, expected) in [
            (
                "entities:\n  - product: g:a\n    version: 1.0\n",
                "env.yml:3:14: `version`: expected a version like `1.2.3`, `1.2.3-rc1` or `1.2.3-4-gabc12`, found `1.0`",
            ),
            (
                "entities:\n  - product: a\n    version: 1.0.0\n",
                "env.yml:2:14: expected a product as `group:name`, found `a`",
            ),
            (
                "entities:\n  - product: g:a\n    version: 1.0.0\n  - product: g:a\n    version: 2.0.0\n",
                "env.yml:4:5: entity name `a` is already used at line 2 (an entity without `name` is named after its product-name); give one of them its own `name`",
            ),
            (
                "entities:\n  - product: g:a\n    version: 1.0.0\n    state: running\n",
                "env.yml:4:12: expected `state` to be `installed` or `managed`, found `running`",
            ),
            (
                "entities:\n  - product: g:a\n",
                "env.yml:2:5: an entity is missing `version`",
            ),
            (
                "",
                "env.yml:1:1: expected one environment document (a mapping with `entities`), found 0",
            ),
            (
                "entities: []\n---\nentities: []\n",
                "env.yml:3:1: expected one environment document (a mapping with `entities`), found 2",
            ),
        ] {
            assert_eq!(read(text).unwrap_err(), expected, "{text}");
        }
    }

    #[test]
    fn reads_runtime_and_policy() {
        let text = "environment: prod\nruntime:\n  kubernetes: 1.29.4\npolicy:\n  pin: [g:web]\n  \
                    exclude:\n    - product: g:cache\n      maximum-version: 2.3.x\n      reason: CVE\n  \
                    allow-deprecated: true\n  pins: []\nentities:\n  - product: g:web\n    version: 1.0.0\n";
        assert!(!takes_fast_path(text));
        assert_eq!(cross_check(text), Ok(()));
        let env = read(text).unwrap();
        assert_eq!(env.runtime["kubernetes"].as_str(), "1.29.4");
        assert_eq!(env.policy.pin.len(), 1);
        assert_eq!(env.policy.exclude[0].reason.as_deref(), Some("CVE"));
        assert!(env.policy.allow_deprecated);
        assert_eq!(
            env.warnings,
            [(
                Location::new(11, 3),
                "unknown key `pins` in `policy` (expected `pin`, `exclude` or `allow-deprecated`)"
                    .to_owned()
            )]
        );
        let plain = read("entities: []\n").unwrap();
        assert!(plain.runtime.is_empty() && plain.policy.is_empty());
        for (text, expected) in [
            (
                "runtime:\n  kubernetes: 1.29\nentities: []\n",
                "env.yml:2:15: runtime `kubernetes`: expected a version like `1.2.3`, `1.2.3-rc1` or `1.2.3-4-gabc12`, found `1.29`",
            ),
            (
                "runtime: [k8s]\nentities: []\n",
                "env.yml:1:10: expected `runtime` to be a mapping of runtime names to versions, found a list",
            ),
            (
                "policy:\n  pin: [web]\nentities: []\n",
                "env.yml:2:9: expected a product as `group:name`, found `web`",
            ),
        ] {
            assert_eq!(read(text).unwrap_err(), expected, "{text}");
        }
    }

    const SHOP: &str = "entities:\n  - name: shop-db\n    product: org.postgresql:postgresql\n    \
                        version: 15.2.0\n    namespace: shop\n    labels: {app: shop, tier: \"1\"}\n  \
                        - name: shop-web\n    product: com.example:web\n    version: 2.3.0\n    \
                        namespace: shop\n    bindings:\n      org.postgresql:postgresql: shop-db\n      \
                        sql: shop-db\n  - product: g:plain\n    version: 1.0.0\n    namespace: ''\n    \
                        labels: ~\n";

    #[test]
    fn reads_namespaces_labels_and_bindings() {
        assert!(!takes_fast_path(SHOP));
        assert_eq!(cross_check(SHOP), Ok(()));
        let env = read(SHOP).unwrap();
        assert!(env.warnings.is_empty(), "{:?}", env.warnings);
        let [plain, db, web] = &env.entities[..] else {
            panic!("{:?}", env.entities);
        };
        assert!(plain.placement.is_plain());
        assert_eq!(db.placement.namespace, "shop");
        assert_eq!(
            db.placement.labels,
            BTreeMap::from([
                ("app".to_owned(), "shop".to_owned()),
                ("tier".to_owned(), "1".to_owned())
            ])
        );
        assert_eq!(
            web.placement.bindings,
            BTreeMap::from([
                (
                    Requirement::parse("org.postgresql:postgresql").unwrap(),
                    "shop-db".to_owned()
                ),
                (Requirement::parse("sql").unwrap(), "shop-db".to_owned()),
            ])
        );
        // a binding to an entity that does not exist is validate's business, not the reader's
        let env =
            read("entities:\n  - product: g:a\n    version: 1.0.0\n    bindings: {sql: nobody}\n")
                .unwrap();
        assert_eq!(env.entities[0].placement.bindings.len(), 1);
        // plain environments keep the fast path
        assert!(takes_fast_path(
            "entities:\n  - product: g:a\n    version: 1.0.0\n"
        ));
    }

    /// Namespaces, labels and bindings of plain words take the fast path (flow or block),
    /// read as the full parser reads them; a value the two YAMLs could type otherwise (a
    /// number, `yes`, a quoted digit, null) leaves it to the full parser.
    #[test]
    fn plain_placements_take_the_fast_path() {
        let entity = "entities:\n  - name: a\n    product: g:a\n    version: 1.0.0\n";
        for (extra, fast) in [
            ("    labels: {team: t00, tier: gold}\n", true),
            ("    labels: { team:  t00 ,tier: gold }\n", true),
            ("    namespace: shop\n    labels:\n      app: shop\n", true),
            ("    bindings: {sql: db, g:b: db2}\n", true),
            ("    bindings:\n      sql: db\n      g:b: db2\n", true),
            ("    labels: {}\n", true),
            ("    labels: {tier: 1}\n", false),
            ("    labels: {tier: yes}\n", false),
            ("    labels: {tier: On}\n", false),
            ("    labels:\n      tier: '1'\n", false),
            ("    labels: {tier: \"gold\"}\n", false),
            ("    namespace: 2024\n", false),
            ("    namespace: ''\n", false),
        ] {
            let text = format!("{entity}{extra}");
            assert_eq!(takes_fast_path(&text), fast, "{extra}");
            assert_eq!(cross_check(&text), Ok(()), "{extra}");
        }
        // what it reads is what the full parser reads, errors included
        let env = read(&format!("{entity}    labels: {{team: t00, tier: gold}}\n")).unwrap();
        assert_eq!(env.entities[0].placement.labels["tier"], "gold");
    }

    #[test]
    fn rejects_malformed_placements_where_they_stand() {
        let entity = "entities:\n  - product: g:a\n    version: 1.0.0\n";
        for (extra, expected) in [
            (
                "    labels: {tier: 1}\n",
                "env.yml:4:20: expected label `tier` to be a string, found the number `1` (quote it: `\"1\"`)",
            ),
            (
                "    labels:\n      on: true\n",
                "env.yml:5:11: expected label `on` to be a string, found the boolean `true` (quote it: `\"true\"`)",
            ),
            (
                "    labels: {a: [x]}\n",
                "env.yml:4:17: expected label `a` to be a string, found a list",
            ),
            (
                "    labels: [a]\n",
                "env.yml:4:13: expected `labels` to be a mapping of label names to strings, found a list",
            ),
            (
                "    labels: {' ': x}\n",
                "env.yml:4:14: expected a non-blank label name, found ` `",
            ),
            (
                "    labels: {a: \"x\\ny\"}\n",
                "env.yml:4:17: expected label `a` without control characters, found \"x\\ny\"",
            ),
            (
                "    namespace: 3\n",
                "env.yml:4:16: expected `namespace` to be a string, found the number `3` (quote it: `\"3\"`)",
            ),
            (
                "    namespace: {a: b}\n",
                "env.yml:4:16: expected `namespace` to be a string, found a mapping",
            ),
            (
                "    namespace: ' shop'\n",
                "env.yml:4:16: expected namespace without leading or trailing whitespace, found ` shop`",
            ),
            (
                "    namespace: '  '\n",
                "env.yml:4:16: expected a non-blank namespace, found `  `",
            ),
            (
                "    bindings: {sql: 1}\n",
                "env.yml:4:21: expected binding `sql` to be a string, found the number `1` (quote it: `\"1\"`)",
            ),
            (
                "    bindings: {sql: ''}\n",
                "env.yml:4:21: expected a non-blank binding `sql`, found ``",
            ),
            (
                "    bindings: {SQL: db}\n",
                "env.yml:4:16: binding `SQL`: expected a capability name of lowercase letters, digits, `.`, `_`, `/` and `-` (starting with a letter or digit, at most 253 characters), found `SQL`",
            ),
            (
                "    bindings: {'a:b:c': db}\n",
                "env.yml:4:16: binding `a:b:c`: expected a product as `group:name`, found `a:b:c`",
            ),
            (
                "    bindings: db\n",
                "env.yml:4:15: expected `bindings` to be a mapping of requirements (`group:name` or a capability name) to entity names, found a string",
            ),
        ] {
            let text = format!("{entity}{extra}");
            assert_eq!(cross_check(&text), Ok(()));
            let got = read(&text).unwrap_err();
            assert_eq!(got, expected, "{extra}");
        }
    }

    #[test]
    fn ten_thousand_namespaces_read() {
        let mut text = String::from("entities:\n");
        for i in 0..10_000 {
            let _ = writeln!(
                text,
                "  - {{name: e{i}, product: g:a, version: 1.0.0, namespace: ns-{i}, labels: {{app: a{i}}}}}"
            );
        }
        let env = read(&text).unwrap();
        assert_eq!(env.entities.len(), 10_000);
        let namespaces: std::collections::BTreeSet<_> = env
            .entities
            .iter()
            .map(|e| &e.placement.namespace)
            .collect();
        assert_eq!(namespaces.len(), 10_000);
    }

    #[test]
    fn rendered_environments_read_back_the_same() {
        let env = read(SHOP).unwrap();
        let mut written: Vec<Written> = env
            .entities
            .iter()
            .map(|e| Written {
                name: e.name.clone(),
                product: e.product.to_string(),
                version: e.version.to_string(),
                state: e.state,
                placement: e.placement.clone(),
            })
            .collect();
        written[0].state = State::Managed;
        written[0]
            .placement
            .labels
            .insert("odd \"key\"".into(), "back\\slash".into());
        let text = render("shop \"eu\"", &written);
        let back = read(&text).unwrap();
        assert_eq!(back.name, "shop \"eu\"");
        let again: Vec<Written> = back
            .entities
            .iter()
            .map(|e| Written {
                name: e.name.clone(),
                product: e.product.to_string(),
                version: e.version.to_string(),
                state: e.state,
                placement: e.placement.clone(),
            })
            .collect();
        assert_eq!(again, written);
        // plain entities are written as before
        assert!(text.contains(
            "  - name: \"plain\"\n    product: \"g:plain\"\n    version: \"1.0.0\"\n    state: managed\n    labels:\n"
        ));
        assert!(text.contains("    namespace: \"shop\"\n    bindings:\n      \"org.postgresql:postgresql\": \"shop-db\"\n      \"sql\": \"shop-db\"\n"), "{text}");
    }
}
