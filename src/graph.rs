//! The dependency graph of an environment: one node per entity, one edge per declared
//! constraint between two entities (required, optional, incompatible), with the violations
//! `validate` found marked on the edges. `order` layers it; `report::dot` / `report::mermaid`
//! draw it.
//!
//! A dependency on a product becomes an edge to *every* entity of that product (a dependency
//! holds only if all of them satisfy it); an incompatibility becomes an edge only to the
//! entities whose version falls in its range (those are the violations). A required dependency
//! on a product with no entity at all is kept as a [`Missing`] record.

use std::collections::BTreeMap;

use crate::catalog::Catalog;
use crate::environment::{Entity, Environment};
use crate::finding::Code;
use crate::product::ProductId;
use crate::range::Range;
use crate::validate::Validation;

/// What an edge stands for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum EdgeKind {
    Required,
    Optional,
    Incompatible,
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
    /// The finding `validate` reported for this pair, if the constraint is broken.
    pub violation: Option<Code>,
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
    pub edges: Vec<Edge<'a>>,
    pub missing: Vec<Missing<'a>>,
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
    let mut by_product: BTreeMap<&ProductId, Vec<usize>> = BTreeMap::new();
    for (i, e) in entities.iter().enumerate() {
        by_product.entry(&e.product).or_default().push(i);
    }
    // (declaring entity, other entity name, dependency) -> code
    let mut broken: BTreeMap<(&str, &str, String), Code> = BTreeMap::new();
    // A required dependency whose product runs only as managed entities is missing for
    // `validate`; the edge to the managed entity carries that verdict.
    let mut absent: BTreeMap<(&str, String), Code> = BTreeMap::new();
    for f in validation.into_iter().flat_map(Validation::findings) {
        if let (Code::MissingDependency, Some(entity), Some(dep)) =
            (f.code, &f.entity, &f.dependency)
        {
            absent.insert((entity.as_str(), dep.to_string()), f.code);
        }
        if let (Some(entity), Some(found), Some(dep)) = (&f.entity, &f.found_entity, &f.dependency)
        {
            broken
                .entry((entity.as_str(), found.as_str(), dep.to_string()))
                .or_insert(f.code);
        }
    }
    let mut known = Vec::with_capacity(entities.len());
    let mut edges = Vec::new();
    let mut missing = Vec::new();
    for (from, entity) in entities.iter().enumerate() {
        let Some(manifest) = catalog.release(&entity.product, &entity.version) else {
            known.push(false);
            continue;
        };
        known.push(true);
        let violation = |to: usize, product: &ProductId| {
            broken
                .get(&(
                    entity.name.as_str(),
                    entities[to].name.as_str(),
                    product.to_string(),
                ))
                .or_else(|| absent.get(&(entity.name.as_str(), product.to_string())))
                .copied()
        };
        for dep in &manifest.dependencies {
            let targets: Vec<usize> = by_product
                .get(&dep.product)
                .map(|v| v.iter().copied().filter(|&t| t != from).collect())
                .unwrap_or_default();
            if targets.is_empty() && !dep.optional {
                missing.push(Missing {
                    from,
                    product: &dep.product,
                    range: &dep.range,
                });
            }
            let kind = if dep.optional {
                EdgeKind::Optional
            } else {
                EdgeKind::Required
            };
            for to in targets {
                edges.push(Edge {
                    from,
                    to,
                    kind,
                    range: &dep.range,
                    violation: violation(to, &dep.product),
                });
            }
        }
        for inc in &manifest.incompatibilities {
            let targets = by_product.get(&inc.product).map_or(&[][..], Vec::as_slice);
            for &to in targets {
                if to != from && inc.range.contains(&entities[to].version) {
                    edges.push(Edge {
                        from,
                        to,
                        kind: EdgeKind::Incompatible,
                        range: &inc.range,
                        violation: violation(to, &inc.product),
                    });
                }
            }
        }
    }
    edges.sort_by_key(|e| (e.from, e.to, e.kind));
    edges.dedup_by_key(|e| (e.from, e.to, e.kind));
    EntityGraph {
        environment,
        entities,
        known,
        edges,
        missing,
    }
}
