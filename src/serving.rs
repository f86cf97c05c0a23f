//! Who serves a requirement (SPEC section 10): the serving set of an entity's product
//! dependency or capability requirement, tier by tier, and the entities a section 9 atom sees.
//! The one place `validate`, `constraint::World` (and through it the planning engine's
//! judgements), `precedence`, `order`, `graph` and `services` ask.
//!
//! An [`Index`] is built once over the entities a command considers (the installed ones for
//! checks, every entity for install orders), keyed by (product or capability, namespace), so a
//! serving set costs a few map lookups, never a scan of the environment. With no namespaces,
//! labels or bindings anywhere (a *plain* environment) the serving set of a product is every
//! member running it and of a capability every member providing it: section 7 unchanged.
//!
//! Decisions where SPEC is silent: a binding to an entity that exists but is not among the
//! members (a `managed` entity, for checks) serves nothing, so a required dependency is
//! missing; no tier below the binding is tried, the binding being the operator's word. An
//! entity never serves its own capability requirement (section 9), but does count for its own
//! product (as section 7 always did).

use std::collections::BTreeMap;

use crate::instance::{Criteria, Placement, Requirement};
use crate::product::ProductId;

/// What a requirement names: a product or a capability.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Key<'a> {
    Product(&'a ProductId),
    Capability(&'a str),
}

impl<'a> Key<'a> {
    /// The key of a requirement as bindings and inputs name it.
    #[must_use]
    pub fn of(requirement: &'a Requirement) -> Key<'a> {
        match requirement {
            Requirement::Product(p) => Key::Product(p),
            Requirement::Capability(c) => Key::Capability(c),
        }
    }

    /// The binding key: `group:name` or the capability name.
    #[must_use]
    pub fn requirement(self) -> Requirement {
        match self {
            Key::Product(p) => Requirement::Product(p.clone()),
            Key::Capability(c) => Requirement::Capability(c.to_owned()),
        }
    }
}

/// One entity an index holds: its name, product and placement, and whether it counts as
/// present (installed, for checks); an entity that does not count serves nothing but may
/// still be named by a binding.
#[derive(Clone, Copy, Debug)]
pub struct Member<'a> {
    pub name: &'a str,
    pub product: &'a ProductId,
    pub placement: &'a Placement,
    pub present: bool,
}

/// The tier a serving set came from (SPEC section 10's list).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Tier {
    /// 1: the entity the consumer binds the requirement to.
    Binding,
    /// 2: the consumer's namespace, with the requirement's labels.
    Namespace,
    /// 3: the global namespace, with the requirement's labels.
    Global,
    /// 4: the consumer's namespace, labels ignored.
    NamespaceAnyLabels,
    /// 5: the global namespace, labels ignored.
    GlobalAnyLabels,
    /// No tier has a member.
    Empty,
}

/// Tiers 2 to 5 of the serving set of a consumer in namespace `ns` (SPEC 10), in order: each
/// with the namespace it looks in and whether its members must carry the requirement's
/// labels (`labelled`: the criteria ask for some). The planning model's tiered judgement
/// (`solve::facets`) takes them from here too.
#[must_use]
pub fn tiers<'n>(
    ns: &'n str,
    labelled: bool,
    criteria: Option<&Criteria>,
) -> Vec<(Tier, &'n str, bool)> {
    let match_namespace = criteria.is_some_and(|c| c.match_namespace);
    let ignore_labels = criteria.is_some_and(|c| c.ignore_labels);
    let mut out = vec![(Tier::Namespace, ns, true)];
    if !match_namespace && !ns.is_empty() {
        out.push((Tier::Global, "", true));
    }
    if ignore_labels && labelled {
        out.push((Tier::NamespaceAnyLabels, ns, false));
        if !match_namespace && !ns.is_empty() {
            out.push((Tier::GlobalAnyLabels, "", false));
        }
    }
    out
}

/// A serving set: member indices in member order, and the tier they came from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Serving {
    pub members: Vec<usize>,
    pub tier: Tier,
}

/// Why a binding cannot serve (`invalid-binding`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BindingFault {
    /// No entity of the environment has that name.
    NoEntity,
    /// The entity runs another product, or does not provide the capability.
    CannotServe,
}

/// The members of an environment, indexed for serving sets.
#[derive(Debug)]
pub struct Index<'a> {
    members: Vec<Member<'a>>,
    by_name: BTreeMap<&'a str, usize>,
    /// (key, namespace) -> present members, in member order.
    by_key: BTreeMap<(Key<'a>, &'a str), Vec<usize>>,
    /// key -> every present member, in member order (what a plain environment serves).
    present: BTreeMap<Key<'a>, Vec<usize>>,
    /// key -> every member, present or not (what a binding may name).
    any: BTreeMap<Key<'a>, Vec<usize>>,
    /// No member has a namespace, labels or bindings.
    plain: bool,
}

impl<'a> Index<'a> {
    /// Indexes `members`, each with the capabilities its release provides (`provides(i)`).
    pub fn new<P>(members: Vec<Member<'a>>, provides: impl Fn(usize) -> P) -> Index<'a>
    where
        P: IntoIterator<Item = &'a str>,
    {
        let mut index = Index {
            members: Vec::with_capacity(members.len()),
            by_name: BTreeMap::new(),
            by_key: BTreeMap::new(),
            present: BTreeMap::new(),
            any: BTreeMap::new(),
            plain: true,
        };
        for (i, m) in members.into_iter().enumerate() {
            index.push(m, provides(i));
        }
        index
    }

    /// Adds a member after the others (an entity a plan creates), with the capabilities its
    /// release provides; gives its index.
    pub fn push(&mut self, m: Member<'a>, provides: impl IntoIterator<Item = &'a str>) -> usize {
        let i = self.members.len();
        self.by_name.insert(m.name, i);
        self.plain &= m.placement.is_plain();
        let ns = m.placement.namespace.as_str();
        let mut add = |key: Key<'a>| {
            self.any.entry(key).or_default().push(i);
            if m.present {
                self.present.entry(key).or_default().push(i);
                self.by_key.entry((key, ns)).or_default().push(i);
            }
        };
        add(Key::Product(m.product));
        for c in provides {
            add(Key::Capability(c));
        }
        self.members.push(m);
        i
    }

    /// True when no member uses a namespace, labels or bindings.
    #[must_use]
    pub fn is_plain(&self) -> bool {
        self.plain
    }

    #[must_use]
    pub fn member(&self, i: usize) -> &Member<'a> {
        &self.members[i]
    }

    /// How many present members are of `key`'s product or provide its capability.
    #[must_use]
    pub fn count(&self, key: Key<'a>) -> usize {
        self.of(key).len()
    }

    /// The present members of `key` in `namespace` (`""`: the global one), in member order.
    #[must_use]
    pub fn at<'s>(&'s self, key: Key<'a>, namespace: &'s str) -> &'s [usize] {
        // the keys borrow for 'a, the namespace asked for only as long as `self`
        let this: &'s Index<'s> = self;
        this.by_key
            .get(&(key, namespace))
            .map_or(&[][..], Vec::as_slice)
    }

    /// Every present member of `key`, in member order.
    #[must_use]
    pub fn of(&self, key: Key<'a>) -> &[usize] {
        self.present.get(&key).map_or(&[][..], Vec::as_slice)
    }

    /// The member called `name`.
    #[must_use]
    pub fn find(&self, name: &str) -> Option<usize> {
        self.by_name.get(name).copied()
    }

    /// Whether member `i` is of `key`'s product or provides its capability.
    fn is_of(&self, i: usize, key: Key<'a>) -> bool {
        self.any
            .get(&key)
            .is_some_and(|v| v.binary_search(&i).is_ok())
    }

    /// What is wrong with the consumer's binding of `key`, if it binds it: the entity named,
    /// and why it cannot serve (`invalid-binding`).
    #[must_use]
    pub fn binding_fault<'p>(
        &self,
        placement: &'p Placement,
        key: Key<'a>,
    ) -> Option<(&'p str, BindingFault)> {
        let bound = placement.bindings.get(&key.requirement())?;
        match self.find(bound) {
            None => Some((bound, BindingFault::NoEntity)),
            Some(i) if !self.is_of(i, key) => Some((bound, BindingFault::CannotServe)),
            Some(_) => None,
        }
    }

    /// The serving set of requirement `key` of `consumer` (its name and placement; it need
    /// not be a member: a planned install is not), under the requirement's criteria. A
    /// binding that names no entity, or one that cannot serve, is judged as if unbound (the
    /// fault is [`Index::binding_fault`]'s to report); one that names an entity that is not
    /// present serves nothing (see the module doc).
    #[must_use]
    pub fn serving(
        &self,
        consumer: (&str, &Placement),
        key: Key<'a>,
        criteria: Option<&Criteria>,
    ) -> Serving {
        let (name, placement) = consumer;
        let exclude_self = |v: &[usize]| -> Vec<usize> {
            v.iter()
                .copied()
                .filter(|&i| matches!(key, Key::Product(_)) || self.members[i].name != name)
                .collect()
        };
        if self.plain && placement.is_plain() {
            let members = exclude_self(self.present.get(&key).map_or(&[][..], Vec::as_slice));
            let tier = if members.is_empty() {
                Tier::Empty
            } else {
                Tier::Global
            };
            return Serving { members, tier };
        }
        if let Some(bound) = placement.bindings.get(&key.requirement())
            && let Some(i) = self.find(bound).filter(|&i| self.is_of(i, key))
        {
            // a bound entity that is not present (not installed) serves nothing
            let members = if self.members[i].present {
                vec![i]
            } else {
                Vec::new()
            };
            return Serving {
                members,
                tier: Tier::Binding,
            };
        }
        let ns = placement.namespace.as_str();
        let labels = criteria.map(|c| c.labels_for(name, ns)).unwrap_or_default();
        let at = |namespace: &str, with_labels: bool| -> Vec<usize> {
            exclude_self(
                self.by_key
                    .get(&(key, namespace))
                    .map_or(&[][..], Vec::as_slice),
            )
            .into_iter()
            .filter(|&i| !with_labels || self.members[i].placement.carries(&labels))
            .collect()
        };
        for (tier, namespace, with_labels) in tiers(ns, !labels.is_empty(), criteria) {
            let members = at(namespace, with_labels);
            if !members.is_empty() {
                return Serving { members, tier };
            }
        }
        Serving {
            members: Vec::new(),
            tier: Tier::Empty,
        }
    }

    /// The present members of `key` a section 9 atom (or an incompatibility) of the consumer
    /// sees: its namespace and the global one, labels aside (tiers 2 and 3 without labels),
    /// in member order.
    #[must_use]
    pub fn visible(&self, placement: &Placement, key: Key<'a>) -> Vec<usize> {
        let ns = placement.namespace.as_str();
        if self.plain || ns.is_empty() {
            let slot = if self.plain { None } else { Some(&(key, "")) };
            let list = match slot {
                None => self.present.get(&key),
                Some(k) => self.by_key.get(k),
            };
            return list.cloned().unwrap_or_default();
        }
        let mut members: Vec<usize> = [ns, ""]
            .iter()
            .filter_map(|n| self.by_key.get(&(key, *n)))
            .flatten()
            .copied()
            .collect();
        members.sort_unstable();
        members
    }

    /// Whether member `i` is visible to a consumer in `namespace` (its own or the global one).
    #[must_use]
    pub fn sees(&self, namespace: &str, i: usize) -> bool {
        let theirs = self.members[i].placement.namespace.as_str();
        theirs.is_empty() || theirs == namespace
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::instance::LabelTemplate;

    struct Env {
        names: Vec<String>,
        products: Vec<ProductId>,
        placements: Vec<Placement>,
        present: Vec<bool>,
        provides: Vec<Vec<String>>,
    }

    /// `(name, product, namespace, labels "k=v,k=v", present, provides "a,b")`.
    fn env(rows: &[(&str, &str, &str, &str, bool, &str)]) -> Env {
        let split = |s: &str| -> Vec<String> {
            s.split(',')
                .filter(|x| !x.is_empty())
                .map(str::to_owned)
                .collect()
        };
        Env {
            names: rows.iter().map(|r| r.0.to_owned()).collect(),
            products: rows
                .iter()
                .map(|r| ProductId::parse(r.1).unwrap())
                .collect(),
            placements: rows
                .iter()
                .map(|r| Placement {
                    namespace: r.2.to_owned(),
                    labels: split(r.3)
                        .iter()
                        .map(|kv| {
                            let (k, v) = kv.split_once('=').unwrap();
                            (k.to_owned(), v.to_owned())
                        })
                        .collect(),
                    bindings: BTreeMap::new(),
                })
                .collect(),
            present: rows.iter().map(|r| r.4).collect(),
            provides: rows.iter().map(|r| split(r.5)).collect(),
        }
    }

    fn index(e: &Env) -> Index<'_> {
        let members = (0..e.names.len())
            .map(|i| Member {
                name: &e.names[i],
                product: &e.products[i],
                placement: &e.placements[i],
                present: e.present[i],
            })
            .collect();
        Index::new(members, |i| e.provides[i].iter().map(String::as_str))
    }

    fn names(e: &Env, s: &Serving) -> Vec<String> {
        s.members.iter().map(|&i| e.names[i].clone()).collect()
    }

    fn criteria(labels: &[(&str, &str)], match_namespace: bool, ignore_labels: bool) -> Criteria {
        Criteria {
            labels: labels
                .iter()
                .map(|(k, v)| ((*k).to_owned(), LabelTemplate::new(v).unwrap()))
                .collect(),
            match_namespace,
            ignore_labels,
            ..Criteria::default()
        }
    }

    #[test]
    fn plain_environments_serve_every_present_entity_of_the_product() {
        let e = env(&[
            ("db-1", "org.pg:pg", "", "", true, "sql"),
            ("db-2", "org.pg:pg", "", "", true, "sql"),
            ("db-3", "org.pg:pg", "", "", false, "sql"),
            ("web", "com.example:web", "", "", true, ""),
        ]);
        let idx = index(&e);
        assert!(idx.is_plain());
        let pg = ProductId::parse("org.pg:pg").unwrap();
        let web = ("web", &e.placements[3]);
        let s = idx.serving(web, Key::Product(&pg), None);
        assert_eq!(
            (names(&e, &s), s.tier),
            (vec!["db-1".into(), "db-2".into()], Tier::Global)
        );
        let s = idx.serving(web, Key::Capability("sql"), None);
        assert_eq!(names(&e, &s), ["db-1", "db-2"]);
        // a provider never serves its own capability requirement
        let s = idx.serving(("db-1", &e.placements[0]), Key::Capability("sql"), None);
        assert_eq!(names(&e, &s), ["db-2"]);
        let s = idx.serving(web, Key::Capability("cache"), None);
        assert_eq!((s.members.len(), s.tier), (0, Tier::Empty));
        assert_eq!(idx.visible(&e.placements[3], Key::Product(&pg)), [0, 1]);
    }

    type Case<'a> = (
        (&'a str, &'a Placement),
        Option<Criteria>,
        Vec<&'a str>,
        Tier,
    );

    #[test]
    fn tiers_in_the_order_of_section_10() {
        let e = env(&[
            ("g-plain", "org.pg:pg", "", "", true, ""),
            ("g-shop", "org.pg:pg", "", "app=shop", true, ""),
            ("other", "org.pg:pg", "blog", "app=shop", true, ""),
            ("shop-db", "org.pg:pg", "shop", "", true, ""),
            ("shop-db-l", "org.pg:pg", "shop", "app=shop", true, ""),
            ("web", "com.example:web", "shop", "", true, ""),
            ("web-blank", "com.example:web", "empty", "", true, ""),
        ]);
        let idx = index(&e);
        let pg = ProductId::parse("org.pg:pg").unwrap();
        let key = Key::Product(&pg);
        let web = ("web", &e.placements[5]);
        let blank = ("web-blank", &e.placements[6]);
        let cases: Vec<Case> = vec![
            // no labels asked: the namespace first, another namespace never
            (web, None, vec!["shop-db", "shop-db-l"], Tier::Namespace),
            (blank, None, vec!["g-plain", "g-shop"], Tier::Global),
            // labels, with templates
            (
                web,
                Some(criteria(&[("app", "{namespace}")], false, false)),
                vec!["shop-db-l"],
                Tier::Namespace,
            ),
            (
                blank,
                Some(criteria(&[("app", "shop")], false, false)),
                vec!["g-shop"],
                Tier::Global,
            ),
            // match-namespace: never the global namespace
            (blank, Some(criteria(&[], true, false)), vec![], Tier::Empty),
            // labels nobody carries, then ignore-labels falls back namespace first
            (
                web,
                Some(criteria(&[("owner", "{entity}")], false, false)),
                vec![],
                Tier::Empty,
            ),
            (
                web,
                Some(criteria(&[("owner", "{entity}")], false, true)),
                vec!["shop-db", "shop-db-l"],
                Tier::NamespaceAnyLabels,
            ),
            (
                blank,
                Some(criteria(&[("owner", "{entity}")], false, true)),
                vec!["g-plain", "g-shop"],
                Tier::GlobalAnyLabels,
            ),
            (
                blank,
                Some(criteria(&[("owner", "{entity}")], true, true)),
                vec![],
                Tier::Empty,
            ),
        ];
        for (consumer, c, want, tier) in cases {
            let s = idx.serving(consumer, key, c.as_ref());
            assert_eq!(
                (names(&e, &s), s.tier),
                (want.iter().map(|w| (*w).to_owned()).collect(), tier),
                "{} {c:?}",
                consumer.0
            );
        }
        assert_eq!(idx.visible(&e.placements[5], key), [0, 1, 3, 4]);
        assert_eq!(idx.visible(&e.placements[0], key), [0, 1]);
        assert!(idx.sees("shop", 0) && idx.sees("shop", 3) && !idx.sees("shop", 2));
    }

    #[test]
    fn bindings_win_and_faulty_ones_are_judged_as_unbound() {
        let e = env(&[
            ("far-db", "org.pg:pg", "blog", "", true, "sql"),
            ("managed-db", "org.pg:pg", "shop", "", false, ""),
            ("near-db", "org.pg:pg", "shop", "", true, ""),
            ("cache", "org.redis:redis", "shop", "", true, ""),
        ]);
        let pg = ProductId::parse("org.pg:pg").unwrap();
        let key = Key::Product(&pg);
        let idx = index(&e);
        let bound = |to: &str, what: Requirement| Placement {
            namespace: "shop".into(),
            bindings: [(what, to.to_owned())].into(),
            ..Placement::default()
        };
        let product = Requirement::Product(pg.clone());
        // a binding reaches into another namespace
        let p = bound("far-db", product.clone());
        let s = idx.serving(("web", &p), key, None);
        assert_eq!(
            (names(&e, &s), s.tier),
            (vec!["far-db".into()], Tier::Binding)
        );
        assert_eq!(idx.binding_fault(&p, key), None);
        let s = idx.serving(
            (
                "web",
                &bound("far-db", Requirement::Capability("sql".into())),
            ),
            Key::Capability("sql"),
            None,
        );
        assert_eq!(names(&e, &s), ["far-db"]);
        // bound to an entity that is not installed: nothing serves
        let p = bound("managed-db", product.clone());
        let s = idx.serving(("web", &p), key, None);
        assert_eq!((s.members.len(), s.tier), (0, Tier::Binding));
        // faults: judged as if unbound
        for (to, fault) in [
            ("nobody", BindingFault::NoEntity),
            ("cache", BindingFault::CannotServe),
        ] {
            let p = bound(to, product.clone());
            assert_eq!(idx.binding_fault(&p, key), Some((to, fault)));
            let s = idx.serving(("web", &p), key, None);
            assert_eq!(
                (names(&e, &s), s.tier),
                (vec!["near-db".into()], Tier::Namespace)
            );
        }
        let p = bound("near-db", Requirement::Capability("sql".into()));
        assert_eq!(
            idx.binding_fault(&p, Key::Capability("sql")),
            Some(("near-db", BindingFault::CannotServe))
        );
        assert!(!idx.is_plain());
    }
}
