//! Section 9 of a manifest (SPEC 9.1): the capabilities a release provides and requires, its
//! `constraints` (atoms and compounds), runtime requirements, properties and deprecation,
//! read into typed, validated [`Facets`].
//!
//! Every value here is well formed: an entry that breaks 9.1 becomes one `invalid-manifest`
//! [`Issue`] at the offending value and is left out (the release's valid entries still count);
//! for a `constraints` item, the whole top-level item goes. Unknown keys inside entries are
//! `unknown-key` warnings. On these issues `dependency` / `subject` name the entry's product,
//! capability or runtime where it has one.
//!
//! The reading itself is [`super::facet_reader`]'s.
//!
//! Decisions where SPEC is silent: runtime names follow the capability name form; a
//! `description` may stand on any constraint item, nested ones too (the innermost failing
//! part's own description is quoted); unknown keys directly under `capabilities` are warnings
//! too; a wrongly shaped section (`constraints: 5`) is one invalid entry, not unreadable input.

use std::collections::BTreeMap;
use std::sync::LazyLock;

use crate::diagnostic::Location;
pub use crate::instance::check_name;
use crate::instance::{Criteria, Input};
use crate::product::ProductId;
use crate::range::Range;
use crate::rule::{Property, Rule};
use crate::version::Version;

/// The deepest compound nesting allowed (a compound directly under `constraints` is depth 1).
pub const MAX_COMPOUND_DEPTH: usize = 16;

/// The section 9 part of a release, every entry valid. Empty when the manifest uses none.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Facets {
    pub provides: Vec<Provision>,
    pub requires: Vec<CapabilityRequirement>,
    /// Every item must hold (an implicit all-of).
    pub constraints: Vec<Term>,
    pub runtime: Vec<RuntimeRequirement>,
    pub properties: BTreeMap<String, Property>,
    pub deprecated: Option<Deprecation>,
    /// Section 10: the instance criteria of product dependencies, by the dependency's product.
    pub instances: BTreeMap<ProductId, Criteria>,
    /// Section 10: the outputs the release produces once installed, sorted, without repeats.
    pub outputs: Vec<String>,
    /// Section 10: inputs wired from what serves the release's own requirements.
    pub inputs: Vec<Input>,
}

impl Facets {
    /// The facets of a release that declares nothing of section 9.
    #[must_use]
    pub fn none() -> &'static Facets {
        static EMPTY: LazyLock<Facets> = LazyLock::new(Facets::default);
        &EMPTY
    }

    /// True when the manifest declares nothing of section 9.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        *self == Facets::default()
    }

    /// Whether the release provides `name` (at any version).
    #[must_use]
    pub fn provides(&self, name: &str) -> bool {
        self.provides.iter().any(|p| p.name == name)
    }
}

/// A `capabilities.provides` entry.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Provision {
    pub name: String,
    /// Orderable when present; a provider without one satisfies only unbounded atoms.
    pub version: Option<Version>,
    pub location: Location,
}

/// A `capabilities.requires` entry: the atom `capability` (required), or "no provider, or one
/// in range" (optional).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CapabilityRequirement {
    pub name: String,
    /// Either end may be open.
    pub range: Range,
    pub optional: bool,
    /// The provider to install when one must be added.
    pub prefer: Option<ProductId>,
    /// Section 10: which entities may serve it.
    pub instance: Option<Criteria>,
    pub location: Location,
}

/// A `runtime-requirements` entry: holds when the environment's runtime is in range, or does
/// not declare the runtime at all (`unknown-runtime`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RuntimeRequirement {
    pub name: String,
    pub range: Range,
    pub location: Location,
}

/// `deprecated:`: a reason, or `true` (no reason).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Deprecation {
    pub reason: Option<String>,
    pub location: Location,
}

/// One constraint item: an atom or a compound, with its optional `description`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Term {
    pub kind: TermKind,
    pub description: Option<String>,
    /// Where the item's mapping starts.
    pub location: Location,
}

/// What a constraint item says.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TermKind {
    Atom(Atom),
    /// At least one child holds; never empty.
    AnyOf(Vec<Term>),
    /// Every child holds; never empty.
    AllOf(Vec<Term>),
    /// No child holds; never empty.
    NoneOf(Vec<Term>),
}

/// The atoms of SPEC 9.1; ranges may be open on either side.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Atom {
    /// Some visible entity runs the product, and every visible one is in range.
    Product { product: ProductId, range: Range },
    /// Some other visible entity provides the capability in range.
    Capability { name: String, range: Range },
    /// The environment's runtime is declared and in range.
    Runtime { name: String, range: Range },
    /// A CEL rule true for at least one other visible installed entity.
    Rule(Rule),
}

impl Term {
    /// Every atom in the term, in order, however deep.
    #[must_use]
    pub fn atoms(&self) -> Vec<&Atom> {
        match &self.kind {
            TermKind::Atom(a) => vec![a],
            TermKind::AnyOf(c) | TermKind::AllOf(c) | TermKind::NoneOf(c) => {
                c.iter().flat_map(Term::atoms).collect()
            }
        }
    }
}

impl TermKind {
    /// `any-of`, `all-of`, `none-of`, or `None` for an atom.
    #[must_use]
    pub fn compound_name(&self) -> Option<&'static str> {
        match self {
            TermKind::Atom(_) => None,
            TermKind::AnyOf(_) => Some("any-of"),
            TermKind::AllOf(_) => Some("all-of"),
            TermKind::NoneOf(_) => Some("none-of"),
        }
    }
}
