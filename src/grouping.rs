//! Install order of groups of entities (SPEC section 10, `order --by namespace` and
//! `--by label:KEY`, Puppet's cross-host orchestration): group A comes before group B when an
//! entity of B must wait for one of A (the ordering edges `order` uses: required products and
//! capabilities, data wiring); groups in a cycle share a wave. An entity without the key
//! belongs to the group `""`. Waves, cycles and the flat order come from
//! [`crate::order::layers`], everything sorted by group name.
//!
//! What keeps an order from being carried out is the entity order's business and stays
//! in entity terms: required dependencies and capabilities nothing provides, and data
//! cycles (as closed paths of entities), taken from [`crate::order::install_order`], so
//! `order --by` exits as `order` does.

use std::collections::BTreeMap;

use crate::environment::{Entity, State};
use crate::graph::EntityGraph;
use crate::order::{MissingCapability, MissingDependency, install_order, layers};

/// What groups the entities.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum GroupBy {
    Namespace,
    Label(String),
}

impl GroupBy {
    /// Reads `namespace` or `label:KEY`.
    ///
    /// # Errors
    /// Anything else, in words.
    pub fn parse(text: &str) -> Result<GroupBy, String> {
        match text.split_once(':') {
            None if text == "namespace" => Ok(GroupBy::Namespace),
            Some(("label", key)) if !key.is_empty() => Ok(GroupBy::Label(key.to_owned())),
            _ => Err(format!(
                "expected `namespace` or `label:KEY` (a label name), found `{text}`"
            )),
        }
    }

    /// The group an entity belongs to.
    #[must_use]
    pub fn group_of<'e>(&self, entity: &'e Entity) -> &'e str {
        match self {
            GroupBy::Namespace => &entity.placement.namespace,
            GroupBy::Label(key) => entity.placement.labels.get(key).map_or("", String::as_str),
        }
    }
}

impl std::fmt::Display for GroupBy {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            GroupBy::Namespace => f.write_str("namespace"),
            GroupBy::Label(key) => write!(f, "label:{key}"),
        }
    }
}

/// The order of groups.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GroupOrder {
    pub environment: String,
    /// The option's text: `namespace` or `label:KEY`.
    pub by: String,
    /// Groups that can go in parallel, wave by wave, sorted.
    pub waves: Vec<Vec<String>>,
    /// Groups that wait for one another (a cycle), each sorted: installed in one wave.
    pub groups: Vec<Vec<String>>,
    /// Every group, wave after wave.
    pub order: Vec<String>,
    /// Required dependencies of ordered entities that nothing provides (as `order` says).
    pub missing: Vec<MissingDependency>,
    /// Required capabilities of ordered entities that nothing provides in range.
    pub missing_capabilities: Vec<MissingCapability>,
    /// The entity cycles a data edge runs through, as closed paths (`a -> b -> a`).
    pub data_cycles: Vec<Vec<String>>,
}

impl GroupOrder {
    /// Whether the order can be carried out: the rule of [`crate::order::InstallOrder::runnable`].
    #[must_use]
    pub fn runnable(&self) -> bool {
        self.missing.is_empty()
            && self.missing_capabilities.is_empty()
            && self.data_cycles.is_empty()
    }
}

/// Orders the groups of the managed entities (of every entity with `from_scratch`).
#[must_use]
pub fn group_order(graph: &EntityGraph, from_scratch: bool, by: &GroupBy) -> GroupOrder {
    let entities = graph.entities;
    let ordered = |i: usize| from_scratch || entities[i].state == State::Managed;
    let mut index: BTreeMap<&str, usize> = BTreeMap::new();
    for (_, e) in entities.iter().enumerate().filter(|(i, _)| ordered(*i)) {
        let next = index.len();
        index.entry(by.group_of(e)).or_insert(next);
    }
    // group indices in name order, so layers' sorted output is sorted by name
    let names: Vec<&str> = index.keys().copied().collect();
    let position: BTreeMap<&str, usize> = names.iter().enumerate().map(|(i, n)| (*n, i)).collect();
    let group = |i: usize| position[by.group_of(&entities[i])];
    let mut edges: Vec<(usize, usize)> = graph
        .edges
        .iter()
        .filter(|e| e.kind.orders() && ordered(e.from) && ordered(e.to))
        .map(|e| (group(e.from), group(e.to)))
        .filter(|(a, b)| a != b)
        .collect();
    edges.sort_unstable();
    edges.dedup();
    let result = layers(names.len(), &edges);
    let mut waves = vec![Vec::new(); result.count];
    for (g, &w) in result.wave.iter().enumerate() {
        waves[w].push(names[g].to_owned());
    }
    let groups = result
        .cycles
        .iter()
        .map(|members| members.iter().map(|&g| names[g].to_owned()).collect())
        .collect();
    let order = waves.iter().flatten().cloned().collect();
    // the problems are the entities': the entity order finds them
    let entity_order = install_order(graph, from_scratch);
    let data_cycles = entity_order
        .data_cycles()
        .map(|g| g.cycle.clone())
        .collect();
    GroupOrder {
        environment: graph.environment.name.clone(),
        by: by.to_string(),
        waves,
        groups,
        order,
        missing: entity_order.missing,
        missing_capabilities: entity_order.missing_capabilities,
        data_cycles,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn group_keys_are_namespace_or_a_label() {
        assert_eq!(GroupBy::parse("namespace"), Ok(GroupBy::Namespace));
        assert_eq!(
            GroupBy::parse("label:host"),
            Ok(GroupBy::Label("host".into()))
        );
        for bad in ["label:", "labels:host", "host", "namespace:x", ""] {
            assert!(GroupBy::parse(bad).is_err(), "{bad}");
        }
        assert_eq!(GroupBy::Label("host".into()).to_string(), "label:host");
    }
}
