//! Which entity must be installed before which: the one rule `graph` (and through it `order`)
//! and `plan`'s rolling steps share (SPEC section 7 "Install order", 9.3).
//!
//! - A required product dependency orders every other node of that product before the node
//!   that declares it (a dependency holds only if all of them satisfy it).
//! - A required capability (a `capabilities.requires` entry that is not optional) orders
//!   every other node that provides the capability at a version in range before the node that
//!   requires it; "in range" is `constraint`'s rule ([`World`], [`provision_in`]). With no
//!   section 10 bindings, namespaces or labels, every node is visible, installed or not: an
//!   install order is about the entities still to be installed.
//! - Optional dependencies and optional capabilities never order, nor do incompatibilities
//!   or `constraints` items (a `capability` atom there is a condition on the state, possibly
//!   inside an `any-of`, not a need of one provider).
//!
//! With section 10 (namespaces, labels, bindings), "every other node of that product" and
//! "every other node that provides" become the requirement's serving set
//! ([`crate::serving`], through [`World`]), every node counting as present.
//!
//! A node without a known release declares nothing. A catalog without section 9 or 10 builds
//! no [`World`] and costs what the product rule costs: O(nodes + edges).

use std::collections::BTreeMap;

use crate::constraint::{Running, World, provision_in};
use crate::instance::{Input, Placement};
use crate::manifest::{CapabilityRequirement, Dependency, Facets, Manifest};
use crate::product::ProductId;
use crate::version::Version;
use crate::wiring;

/// An entity (or a product a plan moves) with the release it runs or will run.
#[derive(Clone, Copy, Debug)]
pub struct Node<'a> {
    /// Unique among the nodes: the entity's name.
    pub name: &'a str,
    pub product: &'a ProductId,
    pub version: &'a Version,
    /// `None` when the release is not in the catalog.
    pub release: Option<&'a Manifest>,
    /// Its namespace, labels and bindings (section 10).
    pub placement: &'a Placement,
}

impl<'a> Node<'a> {
    /// The node as a [`World`] holds it (a release the catalog does not know declares and
    /// provides nothing).
    #[must_use]
    pub fn running(&self) -> Running<'a> {
        Running {
            entity: self.name,
            product: self.product,
            version: self.version,
            facets: self.release.map_or(Facets::none(), Manifest::facets),
            placement: self.placement,
        }
    }
}

/// Why one node waits for another.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Why<'a> {
    /// A required `product-dependencies` entry of the waiting node's release.
    Product(&'a Dependency),
    /// A required `capabilities.requires` entry of the waiting node's release.
    Capability(&'a CapabilityRequirement),
    /// An input of the waiting node's release, fed by (or waiting for) the node it waits for
    /// (section 10's data edge: strict, a cycle through one cannot be installed).
    Data(&'a Input),
}

impl<'a> Why<'a> {
    /// The product a product dependency names.
    #[must_use]
    pub fn product(self) -> Option<&'a ProductId> {
        match self {
            Why::Product(d) => Some(&d.product),
            Why::Capability(_) | Why::Data(_) => None,
        }
    }
}

/// `after` is installed after `first`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Before<'a> {
    pub after: usize,
    pub first: usize,
    pub why: Why<'a>,
}

/// Every ordering between the nodes, by waiting node, then its release's declarations in
/// file order (products first, then capabilities, then inputs), then the node waited for.
#[must_use]
pub fn edges<'a>(nodes: &[Node<'a>]) -> Vec<Before<'a>> {
    let world = needs_world(nodes).then(|| world(nodes));
    edges_in(nodes, world.as_ref())
}

/// Whether [`edges`] judges serving sets over a [`World`]: some node needs a capability,
/// has a placement, or reads an input (so always where `wiring::in_use` holds).
#[must_use]
pub fn needs_world(nodes: &[Node<'_>]) -> bool {
    nodes.iter().any(|n| !n.placement.is_plain())
        || nodes.iter().filter_map(|n| n.release).any(|r| {
            r.facets().requires.iter().any(|c| !c.optional) || !r.facets().inputs.is_empty()
        })
}

/// The world of `nodes`, every one present (the target state an install order is about).
#[must_use]
pub fn world<'a>(nodes: &[Node<'a>]) -> World<'a> {
    static NO_RUNTIME: BTreeMap<String, Version> = BTreeMap::new();
    World::new(nodes.iter().map(Node::running).collect(), &NO_RUNTIME)
}

/// [`edges`] over `world`, the world of `nodes` ([`world`]) when [`needs_world`] says one is
/// needed, built once by a caller that asks it other questions too.
#[must_use]
pub fn edges_in<'a>(nodes: &[Node<'a>], world: Option<&World<'a>>) -> Vec<Before<'a>> {
    let mut by_product: BTreeMap<&ProductId, Vec<usize>> = BTreeMap::new();
    for (i, n) in nodes.iter().enumerate() {
        by_product.entry(n.product).or_default().push(i);
    }
    let placed = nodes.iter().any(|n| !n.placement.is_plain());
    let capabilities = world.map(|world| Capabilities::new(nodes, world));
    let mut edges = Vec::new();
    for (after, node) in nodes.iter().enumerate() {
        let Some(release) = node.release else {
            continue;
        };
        for d in release.dependencies.iter().filter(|d| !d.optional) {
            let placed_serving;
            let serving = match (&capabilities, placed) {
                (Some(c), true) => {
                    placed_serving = c.serving_product(node.name, d, release);
                    &placed_serving[..]
                }
                _ => by_product.get(&d.product).map_or(&[][..], Vec::as_slice),
            };
            edges.extend(
                serving
                    .iter()
                    .filter(|&&first| first != after)
                    .map(|&first| Before {
                        after,
                        first,
                        why: Why::Product(d),
                    }),
            );
        }
        let Some(capabilities) = &capabilities else {
            continue;
        };
        for r in release.facets().requires.iter().filter(|r| !r.optional) {
            edges.extend(capabilities.serving(node.name, r).map(|first| Before {
                after,
                first,
                why: Why::Capability(r),
            }));
        }
        for (input, feed) in wiring::feeds(capabilities.world, node.name, release) {
            edges.extend(
                feed.source()
                    .and_then(|source| capabilities.index.get(source).copied())
                    .filter(|&first| first != after)
                    .map(|first| Before {
                        after,
                        first,
                        why: Why::Data(input),
                    }),
            );
        }
    }
    edges
}

/// The providers of capabilities among the nodes, judged by `constraint`.
struct Capabilities<'w, 'a> {
    world: &'w World<'a>,
    index: BTreeMap<&'a str, usize>,
}

impl<'w, 'a> Capabilities<'w, 'a> {
    fn new(nodes: &[Node<'a>], world: &'w World<'a>) -> Self {
        Capabilities {
            world,
            index: nodes.iter().enumerate().map(|(i, n)| (n.name, i)).collect(),
        }
    }

    /// The nodes serving `declarer`'s dependency `d` (section 10's serving set).
    fn serving_product(&self, declarer: &str, d: &'a Dependency, release: &Manifest) -> Vec<usize> {
        self.world
            .serving_product(
                declarer,
                &d.product,
                release.facets().instances.get(&d.product),
            )
            .into_iter()
            .filter_map(|r| self.index.get(r.entity).copied())
            .collect()
    }

    /// The nodes other than `declarer` serving `r` that provide its capability in its range.
    fn serving(&self, declarer: &str, r: &'a CapabilityRequirement) -> impl Iterator<Item = usize> {
        self.world
            .serving_providers(&r.name, declarer, r.instance.as_ref())
            .into_iter()
            .filter(|p| provision_in(&r.range, p.version))
            .filter_map(|p| self.index.get(p.running.entity).copied())
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;

    fn manifests(text: &str) -> Vec<Manifest> {
        crate::manifest::parse(text, &Arc::from("test.yml")).unwrap()
    }

    const RELEASES: &str = "\
manifest-version: 1
product-group: org.example
product-name: web
product-version: 2.0.0
extensions:
  product-dependencies:
    - product-group: org.example
      product-name: auth
      minimum-version: 1.0.0
      maximum-version: 1.x.x
    - product-group: org.example
      product-name: metrics
      minimum-version: 1.0.0
      maximum-version: 1.x.x
      optional: true
  capabilities:
    requires:
      - name: sql
        minimum-version: 8.0.0
        maximum-version: 8.x.x
      - name: cache
        optional: true
---
manifest-version: 1
product-group: org.example
product-name: auth
product-version: 1.2.0
---
manifest-version: 1
product-group: org.example
product-name: metrics
product-version: 1.0.0
extensions:
  capabilities:
    provides:
      - name: cache
---
manifest-version: 1
product-group: org.example
product-name: mysql
product-version: 8.0.1
extensions:
  capabilities:
    provides:
      - name: sql
        version: 8.0.1
---
manifest-version: 1
product-group: org.example
product-name: oldsql
product-version: 5.0.0
extensions:
  capabilities:
    provides:
      - name: sql
        version: 5.7.0
";

    fn nodes<'a>(releases: &'a [Manifest], names: &'a [&'a str]) -> Vec<Node<'a>> {
        releases
            .iter()
            .zip(names)
            .map(|(r, name)| Node {
                name,
                product: &r.product,
                version: &r.version,
                release: Some(r),
                placement: crate::instance::Placement::none(),
            })
            .collect()
    }

    fn pairs(edges: &[Before<'_>]) -> Vec<(usize, usize, String)> {
        edges
            .iter()
            .map(|e| {
                let why = match e.why {
                    Why::Product(d) => d.product.to_string(),
                    Why::Capability(c) => format!("capability {}", c.name),
                    Why::Data(i) => format!("input {}", i.name),
                };
                (e.after, e.first, why)
            })
            .collect()
    }

    #[test]
    fn required_products_and_capabilities_in_range_order_and_nothing_else_does() {
        let releases = manifests(RELEASES);
        let names = ["web", "auth", "metrics", "mysql", "oldsql"];
        let edges = edges(&nodes(&releases, &names));
        assert_eq!(
            pairs(&edges),
            [
                (0, 1, "org.example:auth".to_owned()),
                (0, 3, "capability sql".to_owned()),
            ]
        );
    }

    #[test]
    fn a_capability_with_no_provider_in_range_orders_nothing() {
        let releases = manifests(RELEASES);
        let names = ["web", "auth", "metrics", "mysql", "oldsql"];
        let mut nodes = nodes(&releases, &names);
        nodes.remove(3); // mysql: only oldsql (5.7.0, out of range) provides sql
        assert_eq!(
            pairs(&edges(&nodes)),
            [(0, 1, "org.example:auth".to_owned())]
        );
    }

    #[test]
    fn every_other_entity_of_a_required_product_is_ordered_first() {
        let releases = manifests(RELEASES);
        let two = [
            releases[0].clone(),
            releases[1].clone(),
            releases[1].clone(),
        ];
        let names = ["web", "auth-a", "auth-b"];
        let mut nodes = nodes(&two, &names);
        nodes[2].release = None; // an unknown release declares nothing, but still serves
        assert_eq!(
            pairs(&edges(&nodes)),
            [
                (0, 1, "org.example:auth".to_owned()),
                (0, 2, "org.example:auth".to_owned()),
            ]
        );
    }
}
