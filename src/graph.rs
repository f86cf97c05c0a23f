//! The dependency graph of an environment: one node per entity, one edge per declared
//! constraint between two entities (required, capability, optional, incompatible), with the
//! violations `validate` found marked on the edges. `order` layers it; `report::dot` /
//! `report::mermaid` draw it.
//!
//! The edges that order installation (required products and capabilities) are
//! [`precedence`]'s; the graph adds the ones that do not. A dependency on a product becomes an
//! edge to *every* entity of that product (a dependency holds only if all of them satisfy it);
//! a required capability an edge to every entity providing it in range; an incompatibility
//! an edge only to the entities whose version falls in its range (those are the violations).
//! A required dependency on a product with no entity at all is kept as a [`Missing`] record.

use std::collections::{BTreeMap, BTreeSet};

use crate::catalog::Catalog;
use crate::constraint::{Running, World};
use crate::environment::{Entity, Environment};
use crate::finding::Code;
use crate::instance::{Criteria, Input};
use crate::manifest::{CapabilityRequirement, Manifest};
use crate::precedence::{self, Before, Node, Why};
use crate::product::ProductId;
use crate::range::Range;
use crate::validate::Validation;

/// What an edge stands for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum EdgeKind {
    Required,
    /// A required capability, to a provider in range (SPEC 9.3).
    Capability,
    Optional,
    Incompatible,
    /// Data wired from one entity into another's input (section 10): strict ordering.
    Data,
}

impl EdgeKind {
    /// Whether the edge orders installation (the declaring entity after the other).
    #[must_use]
    pub fn orders(self) -> bool {
        matches!(
            self,
            EdgeKind::Required | EdgeKind::Capability | EdgeKind::Data
        )
    }
}

/// A constraint from one entity's release on another entity.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Edge<'a> {
    /// Index into [`EntityGraph::entities`] of the declaring entity.
    pub from: usize,
    /// Index of the entity the constraint is about.
    pub to: usize,
    pub kind: EdgeKind,
    pub range: &'a Range,
    /// The capability a [`EdgeKind::Capability`] edge stands for.
    pub capability: Option<&'a str>,
    /// The input a [`EdgeKind::Data`] edge feeds.
    pub input: Option<&'a Input>,
    /// The finding `validate` reported for this pair, if the constraint is broken.
    pub violation: Option<Code>,
}

impl<'a> Edge<'a> {
    /// The edge of an ordering [`precedence`] found; `violation` is the finding on a
    /// product's edge (a capability edge goes to a provider in range: never broken).
    fn ordering(b: Before<'a>, violation: Option<Code>) -> Self {
        static ANY: Range = Range {
            minimum: None,
            maximum: None,
        };
        let (kind, range, capability, input) = match b.why {
            Why::Product(d) => (EdgeKind::Required, &d.range, None, None),
            Why::Capability(r) => (EdgeKind::Capability, &r.range, Some(r.name.as_str()), None),
            Why::Data(i) => (EdgeKind::Data, &ANY, None, Some(i)),
        };
        Edge {
            from: b.after,
            to: b.first,
            kind,
            range,
            capability,
            input,
            violation,
        }
    }

    /// The words of a data edge: `data db-url <- connection-string`, or `waits: ready` for
    /// an order-only input; `None` for other edges.
    #[must_use]
    pub fn data_label(&self) -> Option<String> {
        let input = self.input?;
        Some(match &input.output {
            Some(output) => format!("data {} <- {output}", input.name),
            None => format!("waits: {}", input.name),
        })
    }

    /// The words of a capability edge: `capability sql >=8.0.0`, or `capability sql` for
    /// any version; `None` for other edges.
    #[must_use]
    pub fn capability_label(&self) -> Option<String> {
        let name = self.capability?;
        Some(
            if self.range.minimum.is_none() && self.range.maximum.is_none() {
                format!("capability {name}")
            } else {
                format!("capability {name} {}", self.range)
            },
        )
    }
}

/// A required dependency on a product that has no entity in the environment.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Missing<'a> {
    pub from: usize,
    pub product: &'a ProductId,
    pub range: &'a Range,
}

/// The graph; entities are in environment order (sorted by name), edges sorted.
#[derive(Clone, Debug)]
pub struct EntityGraph<'a> {
    pub environment: &'a Environment,
    pub entities: &'a [Entity],
    /// Whether each entity's release was found in the catalog.
    pub known: Vec<bool>,
    /// Each entity's release, when the catalog has it.
    pub releases: Vec<Option<&'a Manifest>>,
    pub edges: Vec<Edge<'a>>,
    pub missing: Vec<Missing<'a>>,
    /// Required capabilities no entity serves in range: (declaring entity, requirement).
    pub missing_capabilities: Vec<(usize, &'a CapabilityRequirement)>,
    /// Who serves whom, every entity present, when section 9 or 10 is in use
    /// ([`precedence::world`]).
    pub world: Option<std::sync::Arc<World<'a>>>,
}

/// The findings of a validation, by the constraint between two entities they are about.
#[derive(Default)]
struct Verdicts<'v> {
    /// (declaring entity, other entity name, dependency) -> code
    broken: BTreeMap<(&'v str, &'v str, &'v ProductId), Code>,
    /// A required dependency whose product runs only as managed entities is missing for
    /// `validate`; the edge to the managed entity carries that verdict.
    absent: BTreeMap<(&'v str, &'v ProductId), Code>,
}

impl<'v> Verdicts<'v> {
    fn of(validation: Option<&'v Validation>) -> Self {
        let mut verdicts = Verdicts::default();
        for f in validation.into_iter().flat_map(Validation::findings) {
            if let (Code::MissingDependency, Some(entity), Some(dep)) =
                (f.code, &f.entity, &f.dependency)
            {
                verdicts.absent.insert((entity.as_str(), dep), f.code);
            }
            if let (Some(entity), Some(found), Some(dep)) =
                (&f.entity, &f.found_entity, &f.dependency)
            {
                verdicts
                    .broken
                    .entry((entity.as_str(), found.as_str(), dep))
                    .or_insert(f.code);
            }
        }
        verdicts
    }

    /// The finding on `entity`'s constraint about `product` that `other` runs, if broken
    /// (looked up by borrowed keys: a product name made per edge was a tenth of `order` on
    /// 5,000 entities).
    fn violation(&self, entity: &str, other: &str, product: &ProductId) -> Option<Code> {
        self.broken
            .get(&(entity, other, product))
            .or_else(|| self.absent.get(&(entity, product)))
            .copied()
    }
}

/// Builds the graph of every entity (installed and managed). `validation`, when given, marks
/// the broken constraints.
#[must_use]
pub fn build<'a>(
    environment: &'a Environment,
    catalog: &'a Catalog,
    validation: Option<&Validation>,
) -> EntityGraph<'a> {
    let entities = environment.entities.as_slice();
    let verdicts = Verdicts::of(validation);
    let releases: Vec<_> = entities
        .iter()
        .map(|e| catalog.release(&e.product, &e.version).map(|m| &**m))
        .collect();
    let known = releases.iter().map(Option::is_some).collect();
    let nodes: Vec<Node> = entities
        .iter()
        .zip(&releases)
        .map(|(e, release)| Node {
            name: &e.name,
            product: &e.product,
            version: &e.version,
            release: *release,
            placement: &e.placement,
        })
        .collect();
    let violation = |from: usize, to: usize, product: Option<&ProductId>| {
        verdicts.violation(&entities[from].name, &entities[to].name, product?)
    };
    // one world (serving index) for the ordering edges, who sees whom, and the install
    // order's bindings and wiring: each built its own, on 5,000 entities in namespaces each
    // about a fifth of `order`
    let world =
        precedence::needs_world(&nodes).then(|| std::sync::Arc::new(precedence::world(&nodes)));
    let before = precedence::edges_in(&nodes, world.as_deref());
    let missing_capabilities = unserved(&releases, &before);
    let mut edges: Vec<Edge> = before
        .into_iter()
        .map(|b| Edge::ordering(b, violation(b.after, b.first, b.why.product())))
        .collect();
    let mut missing = Vec::new();
    let sight = Sight::new(entities, world.as_deref());
    for (from, manifest) in releases.iter().enumerate() {
        let Some(manifest) = manifest else {
            continue;
        };
        let serving = |product: &'a ProductId| {
            sight.serving(from, product, manifest.facets().instances.get(product))
        };
        for dep in &manifest.dependencies {
            if !dep.optional {
                if serving(&dep.product).is_empty() {
                    missing.push(Missing {
                        from,
                        product: &dep.product,
                        range: &dep.range,
                    });
                }
                continue; // ordered: precedence's edge
            }
            edges.extend(serving(&dep.product).into_iter().map(|to| Edge {
                from,
                to,
                kind: EdgeKind::Optional,
                range: &dep.range,
                capability: None,
                input: None,
                violation: violation(from, to, Some(&dep.product)),
            }));
        }
        for inc in &manifest.incompatibilities {
            edges.extend(
                sight
                    .visible(from, &inc.product)
                    .into_iter()
                    .filter(|&to| inc.range.contains(&entities[to].version))
                    .map(|to| Edge {
                        from,
                        to,
                        kind: EdgeKind::Incompatible,
                        range: &inc.range,
                        capability: None,
                        input: None,
                        violation: violation(from, to, Some(&inc.product)),
                    }),
            );
        }
    }
    let key = |e: &Edge<'a>| (e.from, e.to, e.kind, e.capability, e.input.map(|i| &i.name));
    edges.sort_by_key(key);
    edges.dedup_by_key(|e| key(e));
    EntityGraph {
        environment,
        entities,
        known,
        releases,
        edges,
        missing,
        missing_capabilities,
        world,
    }
}
/// The required capabilities that order nothing: no entity provides them in range.
fn unserved<'a>(
    releases: &[Option<&'a Manifest>],
    before: &[Before<'a>],
) -> Vec<(usize, &'a CapabilityRequirement)> {
    // the requirements that order something, by entity and address (a scan of every edge
    // per requirement was quadratic: a tenth of `order` on 5,000 entities)
    let ordering: BTreeSet<(usize, *const CapabilityRequirement)> = before
        .iter()
        .filter_map(|b| match b.why {
            Why::Capability(r) => Some((b.after, std::ptr::from_ref(r))),
            _ => None,
        })
        .collect();
    let mut out: Vec<(usize, &CapabilityRequirement)> = releases
        .iter()
        .enumerate()
        .flat_map(|(i, r)| {
            r.iter()
                .flat_map(move |m| m.facets().requires.iter().map(move |c| (i, c)))
        })
        .filter(|(i, c)| !c.optional && !ordering.contains(&(*i, std::ptr::from_ref(*c))))
        .collect();
    out.sort_by_key(|(i, c)| (*i, c.name.as_str()));
    out
}

/// Who serves and sees whom among the graph's entities, every entity counting as present
/// (an install graph is about the target state): with section 10 in use, through a
/// [`World`]; otherwise every other entity of the product.
struct Sight<'w, 'a> {
    entities: &'a [Entity],
    by_product: BTreeMap<&'a ProductId, Vec<usize>>,
    /// Only when some entity has a namespace, labels or bindings.
    world: Option<(&'w World<'a>, BTreeMap<&'a str, usize>)>,
}

impl<'w, 'a> Sight<'w, 'a> {
    /// Over `world`, the world of `entities` (used only when some entity has a placement).
    fn new(entities: &'a [Entity], world: Option<&'w World<'a>>) -> Self {
        let mut by_product: BTreeMap<&ProductId, Vec<usize>> = BTreeMap::new();
        for (i, e) in entities.iter().enumerate() {
            by_product.entry(&e.product).or_default().push(i);
        }
        let placed = entities.iter().any(|e| !e.placement.is_plain());
        let world = world.filter(|_| placed).map(|world| {
            let index = entities
                .iter()
                .enumerate()
                .map(|(i, e)| (e.name.as_str(), i))
                .collect();
            (world, index)
        });
        Sight {
            entities,
            by_product,
            world,
        }
    }

    /// The entities other than `from` among `running`, or every other entity of `product`.
    fn others<'r>(
        &self,
        from: usize,
        product: &ProductId,
        running: Option<Vec<&'r Running<'a>>>,
    ) -> Vec<usize>
    where
        'a: 'r,
    {
        let all = self.by_product.get(product).map_or(&[][..], Vec::as_slice);
        match (running, &self.world) {
            (Some(running), Some((_, index))) => running
                .into_iter()
                .filter_map(|r| index.get(r.entity).copied())
                .filter(|&t| t != from)
                .collect(),
            _ => all.iter().copied().filter(|&t| t != from).collect(),
        }
    }

    /// The serving set of entity `from`'s dependency on `product`, `from` left out.
    fn serving(
        &self,
        from: usize,
        product: &'a ProductId,
        criteria: Option<&Criteria>,
    ) -> Vec<usize> {
        let name = &self.entities[from].name;
        let running = self
            .world
            .as_ref()
            .map(|(w, _)| w.serving_product(name, product, criteria));
        self.others(from, product, running)
    }

    /// What entity `from`'s incompatibilities with `product` see, `from` left out.
    fn visible(&self, from: usize, product: &'a ProductId) -> Vec<usize> {
        let name = &self.entities[from].name;
        let running = self.world.as_ref().map(|(w, _)| w.visible(name, product));
        self.others(from, product, running)
    }
}
