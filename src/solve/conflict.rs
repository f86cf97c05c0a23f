//! A proven conflict: the parts of a question (what it asks, what the releases declare, what
//! the policy leaves out) that together leave no valid state, each of them needed.
//!
//! An engine finds one with [`super::Engine::explain`]; [`super::explain`] turns it into
//! sentences and checks which flags would lift it. The structure names releases and
//! declarations by position (a product's index in the model, a release's index in its
//! catalog list, a declaration's index in its manifest), so reports can quote them exactly.

use super::model::{Exclusion, Model, Value};
use crate::manifest::Manifest;
use crate::product::ProductId;

/// Which declaration of a manifest.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Declaration {
    /// `product-dependencies[i]`.
    Dependency(usize),
    /// `product-incompatibilities[i]`.
    Incompatibility(usize),
    /// `capabilities.requires[i]` (SPEC 9.1).
    Requirement(usize),
    /// `constraints[i]` (SPEC 9.1).
    Constraint(usize),
    /// `inputs[i]` (SPEC 10), wired from a product dependency.
    Input(usize),
}

impl Declaration {
    /// The section 9 item this is, if it is one.
    #[must_use]
    pub fn item(self) -> Option<super::facets::Source> {
        match self {
            Declaration::Requirement(i) => Some(super::facets::Source::Requires(i)),
            Declaration::Constraint(i) => Some(super::facets::Source::Constraint(i)),
            _ => None,
        }
    }
}

impl From<super::facets::Source> for Declaration {
    fn from(source: super::facets::Source) -> Declaration {
        match source {
            super::facets::Source::Requires(i) => Declaration::Requirement(i),
            super::facets::Source::Constraint(i) => Declaration::Constraint(i),
        }
    }
}

/// One part of a conflict.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Cause {
    /// The question asks for `product` (a model index) at one of `values` (a target).
    Asked { product: usize, values: Vec<Value> },
    /// `product` is held at `value` (decided before this question).
    Held { product: usize, value: Value },
    /// Release `release` of `product` declares `declaration` (on another product).
    Declares {
        product: usize,
        release: usize,
        declaration: Declaration,
    },
    /// The policy leaves some releases of `product` out, for this reason.
    Excluded { product: usize, rule: Exclusion },
    /// `product` is not a variable: not installed, and installing is not allowed.
    Missing { product: ProductId },
    /// These values together close a section 10 data cycle or leave an input wired from a
    /// capability unfed (a nogood of the question, [`super::Query::forbid`]), said by
    /// its reason.
    Learnt(super::cycles::Nogood),
}

impl Cause {
    /// The flag that lifts this part, if a flag does.
    #[must_use]
    pub fn flag(&self) -> Option<&'static str> {
        match self {
            Cause::Excluded { rule, .. } => rule.flag(),
            Cause::Missing { .. } => Some("--allow-install"),
            _ => None,
        }
    }
}

/// The parts of a question that together leave no valid state, in a deterministic order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Conflict {
    pub causes: Vec<Cause>,
    /// True when every part is needed: dropping any one leaves a valid state, and every flag
    /// was checked. False when a time limit cut the search (every part is still real, but
    /// some may be spare, and a fix may be missing).
    pub minimal: bool,
    /// The policy rules lifted for every product while it was found (an "even with"
    /// conflict, behind the flags that did not suffice): the values they leave out are
    /// among each product's choices.
    pub lifted: Vec<Exclusion>,
}

impl Conflict {
    /// The flags that could lift the conflict (each lifts one of its parts), sorted.
    #[must_use]
    pub fn flags(&self) -> Vec<&'static str> {
        let mut flags: Vec<&'static str> = self.causes.iter().filter_map(Cause::flag).collect();
        flags.sort_unstable();
        flags.dedup();
        flags
    }
}

/// A conflict with what an engine could check about it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Explained {
    pub conflict: Conflict,
    /// Sets of flags (of the conflict's) that make the question answerable, checked.
    pub fixes: Vec<Vec<&'static str>>,
    /// Flags of the conflict the engine could not check (the caller may, with a model built
    /// for them).
    pub unchecked: Vec<&'static str>,
    /// When no checked flag suffices: the conflict behind them, with those flags on.
    pub beyond: Option<(Vec<&'static str>, Box<Explained>)>,
    /// True when the conflict was not [`Settled`] (nothing above was looked for), or the
    /// one `beyond` was not (the caller reads what either names and asks again).
    pub sketch: bool,
    /// The most products the search encoded for it, a measure of what asking the question
    /// again costs (0 from a search that does not say).
    pub encoded: usize,
}

impl Explained {
    /// Only `conflict`, not settled: what it names is read before the question is asked
    /// again. `encoded`: as [`Explained::encoded`].
    #[must_use]
    pub fn sketched(conflict: Conflict, encoded: usize) -> Self {
        Explained {
            conflict,
            fixes: Vec::new(),
            unchecked: Vec::new(),
            beyond: None,
            sketch: true,
            encoded,
        }
    }
}

/// Whether a conflict is the final word on its question, so its fixes are worth checking
/// (they are most of a conflict search's time). A caller that reads more of the catalog
/// for a conflict naming a product it read in part, and asks again, says no for those: only
/// the conflict is wanted then, to learn what to read.
pub type Settled<'a> = &'a (dyn Fn(&Model<'_>, &Conflict) -> bool + Sync);

/// The manifest `release` of `product` and the declaration's target product (`None` for a
/// section 9 item, which is about capabilities and terms, not one product).
#[must_use]
pub fn declared<'m>(
    model: &'m Model<'_>,
    product: usize,
    release: usize,
    declaration: Declaration,
) -> (&'m Manifest, Option<&'m ProductId>) {
    let m: &Manifest = &model.vars[product].releases[release];
    let on = match declaration {
        Declaration::Dependency(i) => Some(&m.dependencies[i].product),
        Declaration::Incompatibility(i) => Some(&m.incompatibilities[i].product),
        Declaration::Input(i) => match &m.facets().inputs[i].from {
            crate::instance::Requirement::Product(p) => Some(p),
            crate::instance::Requirement::Capability(_) => None,
        },
        Declaration::Requirement(_) | Declaration::Constraint(_) => None,
    };
    (m, on)
}
