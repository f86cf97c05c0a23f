//! Data wiring and bindings (SPEC section 10): which entity each requirement of a release is
//! bound to, and which entity feeds each of its inputs, judged over a [`World`] (so through
//! [`crate::serving`]). `validate` turns the faults into findings, `precedence` the fed inputs
//! into data edges, `order` both into its `bindings` and `wiring` lists.

use crate::constraint::World;
use crate::environment::Entity;
use crate::instance::{Input, Requirement};
use crate::manifest::Manifest;

/// A requirement of a release and the entity it is bound to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Binding<'a> {
    pub requirement: Requirement,
    pub bound_to: &'a str,
}

/// How one input of a release stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Feed<'a> {
    /// Fed by the entity its `from` requirement is bound to (for an order-only input, that
    /// entity is waited for).
    Fed(&'a str),
    /// The source is bound but its release does not declare the output (`missing-output`;
    /// a release the catalog does not know declares none).
    MissingOutput(&'a str),
    /// A required input whose optional source requirement has nobody serving it
    /// (`unfed-input`).
    Unfed,
    /// Nothing serves the source requirement and nothing more is to be said: a required
    /// requirement is already `missing-dependency`/`missing-capability`, an optional input of
    /// an absent optional requirement stays unfed silently.
    Quiet,
}

impl<'a> Feed<'a> {
    /// The entity the input waits for, if any: every bound source orders installation.
    #[must_use]
    pub fn source(self) -> Option<&'a str> {
        match self {
            Feed::Fed(s) | Feed::MissingOutput(s) => Some(s),
            Feed::Unfed | Feed::Quiet => None,
        }
    }
}

/// The entity `declarer`'s requirement `requirement` of `release` is bound to, and whether
/// the requirement is optional; `None` when the release declares no such requirement.
fn bound<'a>(
    world: &World<'a>,
    declarer: &str,
    release: &'a Manifest,
    requirement: &Requirement,
) -> Option<(Option<&'a str>, bool)> {
    match requirement {
        Requirement::Product(p) => {
            let d = release.dependencies.iter().find(|d| d.product == *p)?;
            let criteria = release.facets().instances.get(p);
            let to = world
                .bound_product(declarer, &d.product, &d.range, criteria)
                .map(|r| r.entity);
            Some((to, d.optional))
        }
        Requirement::Capability(c) => {
            let r = release.facets().requires.iter().find(|r| r.name == *c)?;
            let to = world
                .bound_capability(declarer, r)
                .map(|p| p.running.entity);
            Some((to, r.optional))
        }
    }
}

/// Every requirement of `release` (run by `declarer`) that something serves, with the entity
/// it is bound to: product dependencies in file order, then capability requirements.
#[must_use]
pub fn bindings<'a>(world: &World<'a>, declarer: &str, release: &'a Manifest) -> Vec<Binding<'a>> {
    let requirements = release
        .dependencies
        .iter()
        .map(|d| Requirement::Product(d.product.clone()))
        .chain(
            release
                .facets()
                .requires
                .iter()
                .map(|r| Requirement::Capability(r.name.clone())),
        );
    requirements
        .filter_map(|requirement| {
            let (to, _) = bound(world, declarer, release, &requirement)?;
            Some(Binding {
                requirement,
                bound_to: to?,
            })
        })
        .collect()
}

/// How each input of `release` (run by `declarer`) is fed, in file order.
#[must_use]
pub fn feeds<'a>(
    world: &World<'a>,
    declarer: &str,
    release: &'a Manifest,
) -> Vec<(&'a Input, Feed<'a>)> {
    release
        .facets()
        .inputs
        .iter()
        .filter_map(|input| {
            let (to, optional_requirement) = bound(world, declarer, release, &input.from)?;
            let feed = match to {
                None if optional_requirement && !input.optional => Feed::Unfed,
                None => Feed::Quiet,
                Some(source) => match &input.output {
                    Some(output)
                        if !world
                            .facets_of(source)
                            .is_some_and(|f| f.outputs.contains(output)) =>
                    {
                        Feed::MissingOutput(source)
                    }
                    _ => Feed::Fed(source),
                },
            };
            Some((input, feed))
        })
        .collect()
}

/// `order`'s section 10 lists, each sorted by entity, then requirement or input.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Lists {
    /// (entity, requirement, bound to): every requirement with a non-empty serving set.
    pub bindings: Vec<(String, String, String)>,
    /// (entity, input, fed from, output): every fed input, `None` for order-only ones.
    pub wiring: Vec<(String, String, String, Option<String>)>,
}

/// Whether an environment uses section 10 at all: a placement, or a release with inputs.
#[must_use]
pub fn in_use(entities: &[Entity], releases: &[Option<&Manifest>]) -> bool {
    entities.iter().any(|e| !e.placement.is_plain())
        || releases
            .iter()
            .flatten()
            .any(|r| !r.facets().inputs.is_empty())
}

/// The bindings and wiring of the entities `which` selects, every entity counting as
/// present (an install order is about the target state): judged over `world`, the world of
/// every entity ([`crate::precedence::world`]).
#[must_use]
pub fn lists(
    world: &World<'_>,
    entities: &[Entity],
    releases: &[Option<&Manifest>],
    which: impl Fn(usize) -> bool,
) -> Lists {
    let mut out = Lists::default();
    for (i, e) in entities.iter().enumerate().filter(|(i, _)| which(*i)) {
        let Some(release) = releases[i] else {
            continue;
        };
        for b in bindings(world, &e.name, release) {
            out.bindings.push((
                e.name.clone(),
                b.requirement.to_string(),
                b.bound_to.to_owned(),
            ));
        }
        for (input, feed) in feeds(world, &e.name, release) {
            if let Feed::Fed(source) = feed {
                out.wiring.push((
                    e.name.clone(),
                    input.name.clone(),
                    source.to_owned(),
                    input.output.clone(),
                ));
            }
        }
    }
    out.bindings.sort();
    out.wiring.sort();
    out
}
