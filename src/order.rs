//! Install order (SPEC section 7): waves of entities that can be installed in parallel, the
//! cycles of required dependencies that must go in together, and one flat order.
//!
//! The rules:
//! - only required dependencies order installation; optional ones never do (Apollo: "if
//!   present" promises nothing about order);
//! - entities that are already installed are not ordered, but satisfy dependencies on them;
//!   with `from_scratch`, every entity is ordered and nothing counts as installed;
//! - the members of a cycle of required dependencies (a strongly connected component) form one
//!   group, installed in the same wave, in no guaranteed order;
//! - each entity sits in the earliest wave its required dependencies allow: wave 0 has no
//!   dependency left to wait for, wave `k` waits for something in wave `k - 1`;
//! - a required dependency on a product with no entity at all is reported as missing.
//!
//! [`layers`] is the core: strongly connected components (Tarjan, from petgraph) give a
//! condensed DAG, and one pass over the components in reverse topological order assigns
//! waves. It costs O(nodes + edges). Everything a user sees is sorted by entity name.

use std::collections::{BTreeMap, BTreeSet, VecDeque};

use petgraph::algo::tarjan_scc;
use petgraph::graph::{DiGraph, NodeIndex};

use crate::environment::State;
use crate::graph::{EdgeKind, EntityGraph};
use crate::product::ProductId;
use crate::range::Range;
use crate::wiring;

/// The layering of a graph whose edge `(a, b)` means "a is installed after b".
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Layers {
    /// The wave of each node.
    pub wave: Vec<usize>,
    /// The cycles: strongly connected components of more than one node, members sorted.
    pub cycles: Vec<Vec<usize>>,
    /// How many waves there are.
    pub count: usize,
}

/// Assigns every node its earliest wave; see the module documentation.
#[must_use]
pub fn layers(nodes: usize, edges: &[(usize, usize)]) -> Layers {
    let mut graph: DiGraph<(), ()> = DiGraph::with_capacity(nodes, edges.len());
    for _ in 0..nodes {
        graph.add_node(());
    }
    for &(a, b) in edges {
        graph.add_edge(NodeIndex::new(a), NodeIndex::new(b), ());
    }
    // Tarjan yields components in reverse topological order: a component comes after every
    // component it depends on, so their waves are known when it is reached.
    let components = tarjan_scc(&graph);
    let mut component_of = vec![0; nodes];
    for (c, members) in components.iter().enumerate() {
        for n in members {
            component_of[n.index()] = c;
        }
    }
    let mut component_wave = vec![0usize; components.len()];
    for (c, members) in components.iter().enumerate() {
        let wave = members
            .iter()
            .flat_map(|n| graph.neighbors(*n))
            .map(|d| component_of[d.index()])
            .filter(|&d| d != c)
            .map(|d| component_wave[d] + 1)
            .max()
            .unwrap_or(0);
        component_wave[c] = wave;
    }
    let wave: Vec<usize> = (0..nodes)
        .map(|n| component_wave[component_of[n]])
        .collect();
    let mut cycles: Vec<Vec<usize>> = components
        .iter()
        .filter(|members| members.len() > 1)
        .map(|members| {
            let mut m: Vec<usize> = members.iter().map(|n| n.index()).collect();
            m.sort_unstable();
            m
        })
        .collect();
    cycles.sort();
    Layers {
        count: wave.iter().max().map_or(0, |w| w + 1),
        wave,
        cycles,
    }
}

/// The cycles among `nodes` that run through a data edge (section 10: they cannot be
/// installed, `data-cycle`), each as its members (node indices, sorted); cycles of required
/// dependencies alone are groups, not data cycles. `validate` reports them for an
/// environment, and the rolling steps of a plan for each state they pass through.
#[must_use]
pub fn data_cycles(nodes: &[crate::precedence::Node<'_>]) -> Vec<Vec<usize>> {
    data_cycles_among(nodes, |_| true)
}

/// [`data_cycles`] among the nodes `inside` keeps, the others there only to serve them: the
/// edges between two kept nodes are judged over every node given, and the cycles use those
/// edges alone. Where every edge out of a kept node leads to a node given (they hold every
/// entity that can serve a kept one), these are exactly the cycles of the whole graph that
/// lie among the kept nodes.
#[must_use]
pub fn data_cycles_among(
    nodes: &[crate::precedence::Node<'_>],
    inside: impl Fn(usize) -> bool,
) -> Vec<Vec<usize>> {
    let before: Vec<crate::precedence::Before<'_>> = crate::precedence::edges(nodes)
        .into_iter()
        .filter(|b| inside(b.after) && inside(b.first))
        .collect();
    let edges: Vec<(usize, usize)> = before.iter().map(|b| (b.after, b.first)).collect();
    let layers = layers(nodes.len(), &edges);
    let mut component = vec![usize::MAX; nodes.len()];
    for (c, members) in layers.cycles.iter().enumerate() {
        for &m in members {
            component[m] = c;
        }
    }
    let mut data = vec![false; layers.cycles.len()];
    for b in &before {
        let c = component[b.after];
        if matches!(b.why, crate::precedence::Why::Data(_))
            && c != usize::MAX
            && c == component[b.first]
        {
            data[c] = true;
        }
    }
    layers
        .cycles
        .into_iter()
        .zip(data)
        .filter_map(|(members, data)| data.then_some(members))
        .collect()
}

/// The shortest cycle through `start` using only edges inside `members`, as a path that ends
/// where it starts (`[a, b, a]`). `next` lists each node's successors in ascending order, so
/// the result is deterministic.
fn cycle_path(start: usize, members: &[usize], next: &[Vec<usize>]) -> Vec<usize> {
    let inside: BTreeSet<usize> = members.iter().copied().collect();
    // Breadth-first from start until start is reached again; `parent` maps a node to the node
    // it was first reached from.
    let mut parent: BTreeMap<usize, usize> = BTreeMap::new();
    let mut queue: VecDeque<usize> = VecDeque::from([start]);
    'search: while let Some(n) = queue.pop_front() {
        for &m in next[n].iter().filter(|m| inside.contains(m)) {
            if let std::collections::btree_map::Entry::Vacant(slot) = parent.entry(m) {
                slot.insert(n);
                if m == start {
                    break 'search;
                }
                queue.push_back(m);
            }
        }
    }
    let mut path = vec![start];
    let mut at = start;
    while let Some(&p) = parent.get(&at) {
        path.push(p);
        if p == start {
            break;
        }
        at = p;
    }
    path.reverse();
    path
}

/// Each node's successors, ascending and without repeats.
fn successors(nodes: usize, edges: &[(usize, usize)]) -> Vec<Vec<usize>> {
    let mut next = vec![Vec::new(); nodes];
    for &(a, b) in edges {
        next[a].push(b);
    }
    for list in &mut next {
        list.sort_unstable();
        list.dedup();
    }
    next
}

/// One wave of the report.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Wave {
    pub entities: Vec<String>,
    /// Entities of earlier waves that members of this wave depend on directly.
    pub waits_for: Vec<String>,
}

/// A cycle of required dependencies installed together.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Group {
    /// The members, sorted.
    pub members: Vec<String>,
    /// One cycle through the first member, written as a path (`auth -> web -> auth`).
    pub cycle: Vec<String>,
}

/// A required dependency that nothing in the environment provides.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MissingDependency {
    pub entity: String,
    pub dependency: ProductId,
    pub range: Range,
}

/// A required capability that no entity provides in range (SPEC 9.3).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MissingCapability {
    pub entity: String,
    pub capability: String,
    pub range: Range,
}

/// The install-order report.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InstallOrder {
    pub environment: String,
    pub waves: Vec<Wave>,
    pub groups: Vec<Group>,
    pub order: Vec<String>,
    pub missing: Vec<MissingDependency>,
    /// Required capabilities of ordered entities that nothing provides in range.
    pub missing_capabilities: Vec<MissingCapability>,
    /// Entities to install whose release is not in the catalog: their dependencies are
    /// unknown, so they are placed as if they had none.
    pub unknown: Vec<String>,
    /// Section 10, when the environment uses it: bindings and wiring of the ordered
    /// entities, and the groups that a data edge runs through (they cannot be installed).
    pub instances: Option<Instances>,
}

/// An install order's section 10 part.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Instances {
    pub lists: wiring::Lists,
    /// Indices into [`InstallOrder::groups`] of the groups a data edge runs through.
    pub data_cycles: Vec<usize>,
}

impl InstallOrder {
    /// Whether the order can be carried out (SPEC 8 and 10: `order` exits 1 otherwise): no
    /// ordered entity misses a required dependency or capability, and no data edge runs
    /// through a cycle.
    #[must_use]
    pub fn runnable(&self) -> bool {
        self.missing.is_empty()
            && self.missing_capabilities.is_empty()
            && self.data_cycles().next().is_none()
    }

    /// The groups that cannot be installed: a data edge runs through them.
    pub fn data_cycles(&self) -> impl Iterator<Item = &Group> {
        self.instances
            .iter()
            .flat_map(|i| &i.data_cycles)
            .map(|&g| &self.groups[g])
    }
}

/// Orders the managed entities of the graph (every entity with `from_scratch`).
#[must_use]
pub fn install_order(graph: &EntityGraph, from_scratch: bool) -> InstallOrder {
    let entities = graph.entities;
    let ordered: Vec<usize> = (0..entities.len())
        .filter(|&i| from_scratch || entities[i].state == State::Managed)
        .collect();
    let mut local = vec![None; entities.len()];
    for (l, &i) in ordered.iter().enumerate() {
        local[i] = Some(l);
    }
    let edges: Vec<(usize, usize)> = graph
        .edges
        .iter()
        .filter(|e| e.kind.orders())
        .filter_map(|e| Some((local[e.from]?, local[e.to]?)))
        .collect();
    let result = layers(ordered.len(), &edges);
    let name = |l: usize| entities[ordered[l]].name.clone();

    let mut waves: Vec<Wave> = (0..result.count)
        .map(|_| Wave {
            entities: Vec::new(),
            waits_for: Vec::new(),
        })
        .collect();
    for (l, &w) in result.wave.iter().enumerate() {
        waves[w].entities.push(name(l));
    }
    let mut waits: Vec<BTreeSet<usize>> = vec![BTreeSet::new(); result.count];
    for &(a, b) in &edges {
        if result.wave[b] < result.wave[a] {
            waits[result.wave[a]].insert(b);
        }
    }
    for (wave, waits) in waves.iter_mut().zip(waits) {
        // local indices follow entity-name order, so these names come out sorted
        wave.waits_for = waits.into_iter().map(name).collect();
    }
    let next = successors(ordered.len(), &edges);
    let groups = result
        .cycles
        .iter()
        .map(|members| Group {
            members: members.iter().map(|&l| name(l)).collect(),
            cycle: cycle_path(members[0], members, &next)
                .into_iter()
                .map(name)
                .collect(),
        })
        .collect();
    let order = waves.iter().flat_map(|w| w.entities.clone()).collect();
    let missing = graph
        .missing
        .iter()
        .filter(|m| local[m.from].is_some())
        .map(|m| MissingDependency {
            entity: entities[m.from].name.clone(),
            dependency: m.product.clone(),
            range: m.range.clone(),
        })
        .collect();
    let unknown = ordered
        .iter()
        .filter(|&&i| !graph.known[i])
        .map(|&i| entities[i].name.clone())
        .collect();
    let instances = instances(graph, &local, &result.cycles);
    let missing_capabilities = graph
        .missing_capabilities
        .iter()
        .filter(|(from, _)| local[*from].is_some())
        .map(|(from, r)| MissingCapability {
            entity: entities[*from].name.clone(),
            capability: r.name.clone(),
            range: r.range.clone(),
        })
        .collect();
    InstallOrder {
        environment: graph.environment.name.clone(),
        waves,
        groups,
        order,
        missing,
        missing_capabilities,
        unknown,
        instances,
    }
}

/// The section 10 part of the order, when the environment uses section 10.
fn instances(
    graph: &EntityGraph,
    local: &[Option<usize>],
    cycles: &[Vec<usize>],
) -> Option<Instances> {
    if !wiring::in_use(graph.entities, &graph.releases) {
        return None;
    }
    // section 10 in use: the graph judged its edges over the world of every entity
    let world = graph.world.as_deref()?;
    let lists = wiring::lists(world, graph.entities, &graph.releases, |i| {
        local[i].is_some()
    });
    let data_cycles = cycles
        .iter()
        .enumerate()
        .filter(|(_, members)| {
            graph.edges.iter().any(|e| {
                e.kind == EdgeKind::Data
                    && [e.from, e.to]
                        .iter()
                        .all(|&n| local[n].is_some_and(|l| members.binary_search(&l).is_ok()))
            })
        })
        .map(|(g, _)| g)
        .collect();
    Some(Instances { lists, data_cycles })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[track_caller]
    fn check(nodes: usize, edges: &[(usize, usize)], waves: &[usize], cycles: &[&[usize]]) {
        let result = layers(nodes, edges);
        assert_eq!(result.wave, waves, "waves");
        let cycles: Vec<Vec<usize>> = cycles.iter().map(|c| c.to_vec()).collect();
        assert_eq!(result.cycles, cycles, "cycles");
    }

    #[test]
    fn shapes() {
        // no edges: everything in wave 0
        check(3, &[], &[0, 0, 0], &[]);
        // chain 0 -> 1 -> 2 (0 after 1 after 2)
        check(3, &[(0, 1), (1, 2)], &[2, 1, 0], &[]);
        // diamond: 0 needs 1 and 2, both need 3
        check(4, &[(0, 1), (0, 2), (1, 3), (2, 3)], &[2, 1, 1, 0], &[]);
        // uneven: 0 needs 1 (needs 2) and 2 directly: earliest wave is after the longest path
        check(3, &[(0, 1), (1, 2), (0, 2)], &[2, 1, 0], &[]);
        // two-cycle 0 <-> 1, and 2 needs the cycle
        check(3, &[(0, 1), (1, 0), (2, 0)], &[0, 0, 1], &[&[0, 1]]);
        // three-cycle 1 -> 2 -> 3 -> 1 that needs 0; 4 is alone
        check(
            5,
            &[(1, 2), (2, 3), (3, 1), (1, 0)],
            &[0, 1, 1, 1, 0],
            &[&[1, 2, 3]],
        );
        // two separate cycles, one after the other
        check(
            4,
            &[(0, 1), (1, 0), (2, 3), (3, 2), (2, 0)],
            &[0, 0, 1, 1],
            &[&[0, 1], &[2, 3]],
        );
    }

    #[test]
    fn cycle_paths_are_shortest_and_closed() {
        let next = successors(3, &[(0, 1), (1, 2), (2, 0), (1, 0)]);
        assert_eq!(cycle_path(0, &[0, 1, 2], &next), [0, 1, 0]);
        let next = successors(3, &[(0, 1), (1, 2), (2, 0)]);
        assert_eq!(cycle_path(0, &[0, 1, 2], &next), [0, 1, 2, 0]);
        // an edge leaving the component is not followed
        let next = successors(4, &[(0, 3), (3, 0), (0, 1), (1, 2), (2, 0)]);
        assert_eq!(cycle_path(0, &[0, 1, 2], &next), [0, 1, 2, 0]);
    }
}
