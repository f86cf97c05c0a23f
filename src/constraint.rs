//! What a declaration means: the one evaluator that says whether a release's dependency or
//! incompatibility holds against what another product runs, and if not, why (as the finding
//! code of SPEC section 7). `validate` turns its verdicts into findings, the planning model into
//! violations and compatibility, explanations into clauses; none of them judges a range itself.
//!
//! Section 9 is judged here too: a [`World`] (the visible installed entities and the
//! environment's runtime) answers whether a capability requirement, a runtime requirement or
//! a constraint item (atom or compound) of a release holds, and names the smallest failing part.

use std::collections::BTreeMap;

use crate::finding::Code;
use crate::instance::{Criteria, Placement as Standing};
use crate::manifest::{
    Atom, CapabilityRequirement, Dependency, Facets, Incompatibility, RuntimeRequirement, Term,
    TermKind,
};
use crate::product::ProductId;
use crate::range::{Placement, Range};
use crate::rule::Subject;
use crate::serving::{self, Index, Key, Member};
use crate::version::Version;

/// Whether one declaration holds against one instance (or against nothing running).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    Holds,
    /// A required dependency with nothing running.
    Missing,
    TooLow,
    TooHigh,
    /// The running version cannot be ordered, so no range holds it.
    Unordered,
    /// An incompatible release is running.
    Incompatible,
}

impl Verdict {
    /// How a finding says it: `below the minimum`, ...
    #[must_use]
    pub fn why(self) -> &'static str {
        match self {
            Verdict::Holds => "it holds",
            Verdict::Missing => "which is not installed",
            Verdict::TooLow => "below the minimum",
            Verdict::TooHigh => "above the maximum",
            Verdict::Unordered => "a version that cannot be ordered",
            Verdict::Incompatible => "an incompatible release",
        }
    }

    /// The finding code of a broken declaration; `None` when it holds.
    #[must_use]
    pub fn code(self) -> Option<Code> {
        match self {
            Verdict::Holds => None,
            Verdict::Missing => Some(Code::MissingDependency),
            Verdict::TooLow => Some(Code::VersionTooLow),
            Verdict::TooHigh => Some(Code::VersionTooHigh),
            Verdict::Unordered => Some(Code::NonOrderableVersion),
            Verdict::Incompatible => Some(Code::IncompatibleRelease),
        }
    }
}

/// A dependency against one running version.
#[must_use]
pub fn dependency_on(d: &Dependency, running: &Version) -> Verdict {
    match d.range.place(running) {
        Placement::Inside => Verdict::Holds,
        Placement::BelowMinimum => Verdict::TooLow,
        Placement::AboveMaximum => Verdict::TooHigh,
        Placement::Unordered => Verdict::Unordered,
    }
}

/// A dependency when its product runs nothing: only an optional one holds.
#[must_use]
pub fn dependency_absent(d: &Dependency) -> Verdict {
    if d.optional {
        Verdict::Holds
    } else {
        Verdict::Missing
    }
}

/// A dependency against every version its product runs (all must be inside; nothing running
/// is [`dependency_absent`]).
#[must_use]
pub fn dependency_holds<'v>(
    d: &Dependency,
    running: impl IntoIterator<Item = &'v Version>,
) -> bool {
    let mut any = false;
    for v in running {
        any = true;
        if dependency_on(d, v) != Verdict::Holds {
            return false;
        }
    }
    any || dependency_absent(d) == Verdict::Holds
}

/// An incompatibility against one running version.
#[must_use]
pub fn incompatibility_on(c: &Incompatibility, running: &Version) -> Verdict {
    if c.range.contains(running) {
        Verdict::Incompatible
    } else {
        Verdict::Holds
    }
}

// ---- Section 9: capabilities, constraints, runtime requirements (SPEC 9.1, 9.3) ----

/// One visible installed entity, as section 9's atoms see it.
#[derive(Clone, Copy, Debug)]
pub struct Running<'a> {
    pub entity: &'a str,
    pub product: &'a ProductId,
    pub version: &'a Version,
    /// Its release's section 9 part; empty when the release is unknown.
    pub facets: &'a Facets,
    /// Its namespace, labels and bindings (section 10).
    pub placement: &'a Standing,
}

/// Up to this many installed entities, a world asks a rule about each entity as a rule atom
/// is judged rather than listing the rule's holders once ([`World::rule_holders`]).
const FEW: usize = 8;

/// What sections 9 and 10 are judged against: the installed entities and the environment's
/// `runtime` map, indexed once. Who sees whom is [`crate::serving`]'s: a requirement is judged
/// against its serving set, an atom against the entities visible to its declarer (with no
/// namespaces, labels or bindings, every installed entity).
#[derive(Debug)]
pub struct World<'a> {
    /// The installed entities, then (`World::placed`) the others a binding may name.
    running: Vec<Running<'a>>,
    /// How many of `running` are installed.
    installed: usize,
    /// (product, entity index) of each installed entity, sorted. Sorted lists rather than
    /// maps of lists: the planning engine makes a world of one product's instances for each
    /// atom verdict it works out (hundreds of thousands), and building and dropping the maps
    /// was most of the cost of one.
    by_product: Vec<(&'a ProductId, usize)>,
    /// (capability name, entity index, the version it provides), sorted.
    providers: Vec<(&'a str, usize, Option<&'a Version>)>,
    /// Serving sets, when some entity uses section 10 (`None`: everyone sees everyone).
    index: Option<Index<'a>>,
    runtime: &'a BTreeMap<String, Version>,
    /// Per rule text: the installed entities (indices into `running`) it holds for, worked out
    /// when first asked (a rule atom is asked about every other entity for each declarer, so
    /// judging every entity's rules in a large world evaluated each rule N times per entity).
    rule_holders: std::sync::Mutex<BTreeMap<String, std::sync::Arc<[usize]>>>,
}

/// A visible entity that provides a capability, with the version it provides.
#[derive(Clone, Copy, Debug)]
pub struct Provider<'a> {
    pub running: Running<'a>,
    pub version: Option<&'a Version>,
}

/// How a capability requirement or a runtime requirement stands.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Need<'a> {
    Holds,
    /// No visible provider of a required capability.
    NoProvider,
    /// Providers are visible, none in range: every one of them (entity, version provided).
    OutOfRange(Vec<(&'a str, Option<&'a Version>)>),
    /// The environment's runtime is outside the range.
    RuntimeMismatch(&'a Version),
    /// The environment does not declare the runtime (the requirement holds: the tool cannot
    /// know).
    UnknownRuntime,
}

impl<'a> World<'a> {
    #[must_use]
    pub fn new(running: Vec<Running<'a>>, runtime: &'a BTreeMap<String, Version>) -> World<'a> {
        World::placed(running, Vec::new(), runtime)
    }

    /// A world that also knows entities that are not installed (`absent`, say `managed`
    /// ones): they serve nothing, but a binding may name them.
    #[must_use]
    pub fn placed(
        mut running: Vec<Running<'a>>,
        absent: Vec<Running<'a>>,
        runtime: &'a BTreeMap<String, Version>,
    ) -> World<'a> {
        let installed = running.len();
        let mut by_product: Vec<(&ProductId, usize)> = Vec::with_capacity(installed);
        let mut providers: Vec<(&str, usize, Option<&Version>)> = Vec::new();
        // serving sets, and the lookup by name data wiring needs
        let placed = running
            .iter()
            .chain(&absent)
            .any(|r| !r.placement.is_plain() || !r.facets.inputs.is_empty());
        running.extend(absent);
        let index = placed.then(|| {
            let members = running
                .iter()
                .enumerate()
                .map(|(i, r)| Member {
                    name: r.entity,
                    product: r.product,
                    placement: r.placement,
                    present: i < installed,
                })
                .collect();
            Index::new(members, |i| {
                running[i].facets.provides.iter().map(|p| p.name.as_str())
            })
        });
        for (i, r) in running.iter().enumerate().take(installed) {
            by_product.push((r.product, i));
            for p in &r.facets.provides {
                providers.push((p.name.as_str(), i, p.version.as_ref()));
            }
        }
        by_product.sort_unstable();
        // by name, then entity (a name an entity provides twice keeps its declaration order)
        providers.sort_by(|a, b| a.0.cmp(b.0).then(a.1.cmp(&b.1)));
        World {
            running,
            installed,
            by_product,
            providers,
            index,
            runtime,
            rule_holders: std::sync::Mutex::default(),
        }
    }

    /// Whether `rule` holds for installed entity `i`.
    fn rule_holds_at(&self, rule: &crate::rule::Rule, i: usize) -> bool {
        rule_holds_for(rule, &self.running[i])
    }

    /// The installed entities `rule` holds for ([`World::rule_holders`]).
    fn rule_holders(&self, rule: &crate::rule::Rule) -> std::sync::Arc<[usize]> {
        let lock = || {
            self.rule_holders
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
        };
        if let Some(found) = lock().get(rule.text()) {
            return std::sync::Arc::clone(found);
        }
        let holders: std::sync::Arc<[usize]> = (0..self.installed)
            .filter(|&i| self.rule_holds_at(rule, i))
            .collect();
        lock().insert(rule.text().to_owned(), std::sync::Arc::clone(&holders));
        holders
    }

    /// The namespace, labels and bindings of `declarer` (global and plain when it is not in
    /// the world: a release judged for an install).
    fn standing(&self, declarer: &str) -> &Standing {
        self.index
            .as_ref()
            .and_then(|x| x.find(declarer))
            .map_or(Standing::none(), |i| self.running[i].placement)
    }

    /// The section 9 and 10 part of the release an installed entity runs (`None` for an
    /// entity the world does not hold; only worlds with section 10 data or inputs know names).
    #[must_use]
    pub fn facets_of(&self, entity: &str) -> Option<&'a Facets> {
        let i = self.index.as_ref()?.find(entity)?;
        (i < self.installed).then(|| self.running[i].facets)
    }

    /// The installed entities serving a product dependency of `declarer` under the
    /// dependency's criteria (section 10's serving set; with no namespaces, labels or
    /// bindings, every installed entity of the product), in entity order.
    #[must_use]
    pub fn serving_product(
        &self,
        declarer: &str,
        product: &'a ProductId,
        criteria: Option<&Criteria>,
    ) -> Vec<&Running<'a>> {
        match &self.index {
            None => self.running(product).collect(),
            Some(index) => {
                let placement = self.standing(declarer);
                index
                    .serving((declarer, placement), Key::Product(product), criteria)
                    .members
                    .into_iter()
                    .map(|i| &self.running[i])
                    .collect()
            }
        }
    }

    /// The installed entities of `product` that `declarer`'s incompatibilities and atoms see:
    /// its namespace and the global one.
    #[must_use]
    pub fn visible(&self, declarer: &str, product: &'a ProductId) -> Vec<&Running<'a>> {
        match &self.index {
            None => self.running(product).collect(),
            Some(index) => index
                .visible(self.standing(declarer), Key::Product(product))
                .into_iter()
                .map(|i| &self.running[i])
                .collect(),
        }
    }

    /// What is wrong with `declarer`'s binding of a requirement, if anything: the entity the
    /// binding names, and the fault (`invalid-binding`).
    #[must_use]
    pub fn binding_fault(
        &self,
        declarer: &str,
        key: Key<'a>,
    ) -> Option<(String, serving::BindingFault)> {
        let index = self.index.as_ref()?;
        index
            .binding_fault(self.standing(declarer), key)
            .map(|(name, fault)| (name.to_owned(), fault))
    }

    /// Whether some entity is called `name` (always, where section 10 is not in use: no
    /// entity binds anything there).
    #[must_use]
    pub fn names_entity(&self, name: &str) -> bool {
        self.index
            .as_ref()
            .is_none_or(|index| index.find(name).is_some())
    }

    /// Every entity visible to `declarer` (its namespace and the global one) other than
    /// itself that provides `name`, in entity order.
    #[must_use]
    pub fn providers(&self, name: &str, declarer: &str) -> Vec<Provider<'a>> {
        let namespace = self
            .index
            .as_ref()
            .map(|_| self.standing(declarer).namespace.as_str());
        self.providing(name)
            .filter(|&&(_, i, _)| {
                namespace.is_none_or(|ns| self.index.as_ref().is_some_and(|x| x.sees(ns, i)))
            })
            .map(|&(_, i, version)| Provider {
                running: self.running[i],
                version,
            })
            .filter(|p| p.running.entity != declarer)
            .collect()
    }

    /// The providers of `name` serving a capability requirement of `declarer` under its
    /// criteria (section 10's serving set), in entity order.
    #[must_use]
    pub fn serving_providers(
        &self,
        name: &'a str,
        declarer: &str,
        criteria: Option<&Criteria>,
    ) -> Vec<Provider<'a>> {
        let Some(index) = &self.index else {
            return self.providers(name, declarer);
        };
        let members = index
            .serving(
                (declarer, self.standing(declarer)),
                Key::Capability(name),
                criteria,
            )
            .members;
        self.providing(name)
            .filter(|(_, i, _)| members.binary_search(i).is_ok())
            .map(|&(_, i, version)| Provider {
                running: self.running[i],
                version,
            })
            .collect()
    }

    /// The entity a product dependency of `declarer` is bound to (section 10): the best
    /// member of its serving set, in range first, then the highest version, then by name.
    #[must_use]
    pub fn bound_product(
        &self,
        declarer: &str,
        product: &'a ProductId,
        range: &Range,
        criteria: Option<&Criteria>,
    ) -> Option<&Running<'a>> {
        self.serving_product(declarer, product, criteria)
            .into_iter()
            .min_by(|a, b| {
                (!range.contains(a.version))
                    .cmp(&!range.contains(b.version))
                    .then_with(|| higher_first(Some(a.version), Some(b.version)))
                    .then_with(|| a.entity.cmp(b.entity))
            })
    }

    /// The provider a capability requirement of `declarer` is bound to (section 10): the best
    /// member of its serving set, in range first, then the highest version it provides the
    /// capability at, then the highest release version, then by name.
    #[must_use]
    pub fn bound_capability(
        &self,
        declarer: &str,
        r: &'a CapabilityRequirement,
    ) -> Option<Provider<'a>> {
        self.serving_providers(&r.name, declarer, r.instance.as_ref())
            .into_iter()
            .min_by(|a, b| {
                (!provision_in(&r.range, a.version))
                    .cmp(&!provision_in(&r.range, b.version))
                    .then_with(|| higher_first(a.version, b.version))
                    .then_with(|| higher_first(Some(a.running.version), Some(b.running.version)))
                    .then_with(|| a.running.entity.cmp(b.running.entity))
            })
    }

    /// Every installed entity running `product`, whoever looks, in entity order.
    pub fn running(&self, product: &ProductId) -> impl Iterator<Item = &Running<'a>> {
        let from = self.by_product.partition_point(|(p, _)| *p < product);
        self.by_product[from..]
            .iter()
            .take_while(move |(p, _)| *p == product)
            .map(|&(_, i)| &self.running[i])
    }

    /// The installed entities providing capability `name`, in entity order.
    fn providing(
        &self,
        name: &str,
    ) -> impl Iterator<Item = &(&'a str, usize, Option<&'a Version>)> {
        let from = self.providers.partition_point(|(n, _, _)| *n < name);
        self.providers[from..]
            .iter()
            .take_while(move |(n, _, _)| *n == name)
    }

    /// The version the environment gives a runtime.
    #[must_use]
    pub fn runtime(&self, name: &str) -> Option<&'a Version> {
        self.runtime.get(name)
    }

    /// A `capabilities.requires` entry of `declarer`'s release.
    #[must_use]
    pub fn capability_need(&self, declarer: &str, r: &'a CapabilityRequirement) -> Need<'a> {
        let providers = self.serving_providers(&r.name, declarer, r.instance.as_ref());
        if providers.is_empty() {
            return if r.optional {
                Need::Holds
            } else {
                Need::NoProvider
            };
        }
        if providers.iter().any(|p| provision_in(&r.range, p.version)) {
            return Need::Holds;
        }
        Need::OutOfRange(
            providers
                .iter()
                .map(|p| (p.running.entity, p.version))
                .collect(),
        )
    }

    /// A `runtime-requirements` entry.
    #[must_use]
    pub fn runtime_need(&self, r: &RuntimeRequirement) -> Need<'a> {
        match self.runtime(&r.name) {
            None => Need::UnknownRuntime,
            Some(v) if r.range.contains(v) => Need::Holds,
            Some(v) => Need::RuntimeMismatch(v),
        }
    }

    /// Whether a constraint item of `declarer`'s release holds.
    #[must_use]
    pub fn term_holds(&self, declarer: &str, term: &Term) -> bool {
        match &term.kind {
            TermKind::Atom(atom) => self.atom(declarer, atom).0,
            TermKind::AnyOf(children) => children.iter().any(|c| self.term_holds(declarer, c)),
            TermKind::AllOf(children) => children.iter().all(|c| self.term_holds(declarer, c)),
            TermKind::NoneOf(children) => !children.iter().any(|c| self.term_holds(declarer, c)),
        }
    }

    /// The smallest failing part of a constraint item, in words (`any-of: com.example:redis
    /// 6.0.0..7.x.x (found 5.0.1) / capability cache (no provider)`), or `None` when it holds.
    /// An `all-of` names its first failing child; an `any-of` every child (all fail); a
    /// `none-of` the children that hold.
    #[must_use]
    pub fn term_failure(&self, declarer: &str, term: &Term) -> Option<String> {
        match &term.kind {
            TermKind::Atom(atom) => {
                let (holds, facts) = self.atom(declarer, atom);
                (!holds).then(|| format!("{} ({facts})", atom_text(atom)))
            }
            TermKind::AllOf(children) => {
                children.iter().find_map(|c| self.term_failure(declarer, c))
            }
            TermKind::AnyOf(children) => {
                let parts: Vec<String> = children
                    .iter()
                    .map(|c| self.term_failure(declarer, c))
                    .collect::<Option<_>>()?;
                Some(format!("any-of: {}", parts.join(" / ")))
            }
            TermKind::NoneOf(children) => {
                let holding: Vec<String> = children
                    .iter()
                    .filter(|c| self.term_holds(declarer, c))
                    .map(|c| self.holding_text(declarer, c))
                    .collect();
                (!holding.is_empty()).then(|| format!("none-of: {}", holding.join(" / ")))
            }
        }
    }

    /// Whether one atom of `declarer`'s release holds (the planning engine asks atom by
    /// atom, over the few instances it varies).
    #[must_use]
    pub fn atom_holds(&self, declarer: &str, atom: &Atom) -> bool {
        self.atom(declarer, atom).0
    }

    /// A child of a `none-of` that holds, in words.
    fn holding_text(&self, declarer: &str, term: &Term) -> String {
        match &term.kind {
            TermKind::Atom(atom) => {
                format!("{} ({})", atom_text(atom), self.atom(declarer, atom).1)
            }
            kind => format!("{} holds", kind.compound_name().unwrap_or("compound")),
        }
    }

    /// Whether an atom holds, and what was found (put in words only where a message asks:
    /// the planning engine asks hundreds of thousands of atoms, and wrote each one's words
    /// only to drop them).
    fn atom(&self, declarer: &str, atom: &Atom) -> (bool, Found<'_>) {
        match atom {
            Atom::Product { product, range } => {
                let running: Vec<&Running> = match &self.index {
                    None => self.running(product).collect(),
                    Some(index) => index
                        .visible(self.standing(declarer), Key::Product(product))
                        .into_iter()
                        .map(|i| &self.running[i])
                        .collect(),
                };
                if running.is_empty() {
                    return (false, Found::NotInstalled);
                }
                let holds = running.iter().all(|r| range.contains(r.version));
                (holds, Found::Versions(running))
            }
            Atom::Capability { name, range } => {
                let providers = self.providers(name, declarer);
                if providers.is_empty() {
                    return (false, Found::NoProvider);
                }
                let holds = providers.iter().any(|p| provision_in(range, p.version));
                (holds, Found::Providers(providers))
            }
            Atom::Runtime { name, range } => match self.runtime(name) {
                None => (false, Found::NotDeclared),
                Some(v) => (range.contains(v), Found::Runtime(v)),
            },
            Atom::Rule(rule) => {
                let namespace = self.standing(declarer).namespace.as_str();
                let other = |i: usize| {
                    self.running[i].entity != declarer
                        && self.index.as_ref().is_none_or(|x| x.sees(namespace, i))
                };
                let holds = if self.installed <= FEW {
                    // a small world (one product's instances) is asked once or twice
                    (0..self.installed).any(|i| other(i) && self.rule_holds_at(rule, i))
                } else {
                    self.rule_holders(rule).iter().any(|&i| other(i))
                };
                (holds, Found::Rule(holds))
            }
        }
    }
}

/// Whether `rule` holds for a running entity.
fn rule_holds_for(rule: &crate::rule::Rule, r: &Running<'_>) -> bool {
    // the product's name is written out only for a rule that may read it
    let product = if rule.reads_product() {
        r.product.to_string()
    } else {
        String::new()
    };
    rule.holds_for(&Subject {
        properties: &r.facets.properties,
        product: &product,
        version: r.version.as_str(),
        entity: r.entity,
    })
}

/// Whether `atom` holds among `running` as judged by no entity in particular: what
/// `World::new(running, runtime).atom_holds("", atom)` answers, without building the world
/// where its serving index would not be built (no entity placed, none with inputs: everyone
/// sees everyone). The planning engine asks this of one product's instances for each atom
/// verdict it works out, hundreds of thousands of times, and building and dropping a world
/// each time was about half of that.
#[must_use]
pub fn atom_holds_among(
    running: Vec<Running<'_>>,
    runtime: &BTreeMap<String, Version>,
    atom: &Atom,
) -> bool {
    if running
        .iter()
        .any(|r| !r.placement.is_plain() || !r.facets.inputs.is_empty())
    {
        return World::new(running, runtime).atom_holds("", atom);
    }
    match atom {
        Atom::Product { product, range } => {
            let mut of = running.iter().filter(|r| r.product == product).peekable();
            of.peek().is_some() && of.all(|r| range.contains(r.version))
        }
        Atom::Capability { name, range } => running
            .iter()
            .filter(|r| !r.entity.is_empty())
            .flat_map(|r| &r.facets.provides)
            .any(|p| p.name == *name && provision_in(range, p.version.as_ref())),
        Atom::Runtime { name, range } => runtime.get(name).is_some_and(|v| range.contains(v)),
        Atom::Rule(rule) => running
            .iter()
            .any(|r| !r.entity.is_empty() && rule_holds_for(rule, r)),
    }
}

/// What an atom found ([`World::atom`]), in words when displayed: `found 6.0.1, 7.0.0`,
/// `provided by db1 8.0.0, db2`, `not installed`.
enum Found<'w> {
    NotInstalled,
    /// The instances of the product the declarer sees.
    Versions(Vec<&'w Running<'w>>),
    NoProvider,
    Providers(Vec<Provider<'w>>),
    NotDeclared,
    Runtime(&'w Version),
    /// Whether the rule held for some other entity.
    Rule(bool),
}

impl std::fmt::Display for Found<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Found::NotInstalled => f.write_str("not installed"),
            Found::Versions(running) => {
                f.write_str(&found_versions(running.iter().map(|r| r.version)))
            }
            Found::NoProvider => f.write_str("no provider"),
            Found::Providers(providers) => {
                let found: Vec<String> = providers
                    .iter()
                    .map(|p| match p.version {
                        Some(v) => format!("{} {v}", p.running.entity),
                        None => p.running.entity.to_owned(),
                    })
                    .collect();
                write!(f, "provided by {}", found.join(", "))
            }
            Found::NotDeclared => f.write_str("not declared"),
            Found::Runtime(v) => write!(f, "found {v}"),
            Found::Rule(true) => f.write_str("true for some entity"),
            Found::Rule(false) => f.write_str("false for every other entity"),
        }
    }
}

/// Highest version first: orderable versions descending, then non-orderable ones (by text),
/// then none.
fn higher_first(a: Option<&Version>, b: Option<&Version>) -> std::cmp::Ordering {
    use std::cmp::Ordering;
    match (a, b) {
        (Some(a), Some(b)) => match (a.is_orderable(), b.is_orderable()) {
            (true, false) => Ordering::Less,
            (false, true) => Ordering::Greater,
            _ => b.display_cmp(a),
        },
        (Some(_), None) => Ordering::Less,
        (None, Some(_)) => Ordering::Greater,
        (None, None) => Ordering::Equal,
    }
}

/// Whether a provided version satisfies a range: a provider without a version satisfies only
/// a range with no bounds.
#[must_use]
pub fn provision_in(range: &Range, version: Option<&Version>) -> bool {
    match version {
        Some(v) => range.contains(v),
        None => range.minimum.is_none() && range.maximum.is_none(),
    }
}

/// Whether a release with `facets` provides capability `name` at a version in `range`
/// ([`provision_in`]).
#[must_use]
pub fn provides_in(facets: &Facets, name: &str, range: &Range) -> bool {
    facets
        .provides
        .iter()
        .any(|p| p.name == name && provision_in(range, p.version.as_ref()))
}

/// `6.0.0..7.x.x`, `6.0.0..`, `..7.x.x`, or nothing for an open range.
#[must_use]
pub fn span_text(range: &Range) -> String {
    match (&range.minimum, &range.maximum) {
        (None, None) => String::new(),
        (min, max) => format!(
            " {}..{}",
            min.as_ref().map(ToString::to_string).unwrap_or_default(),
            max.as_ref().map(ToString::to_string).unwrap_or_default()
        ),
    }
}

/// A range after a name: ` >=1.0.0, <=1.x.x`, or nothing for an open range.
#[must_use]
pub fn range_words(range: &Range) -> String {
    if range.minimum.is_none() && range.maximum.is_none() {
        String::new()
    } else {
        format!(" {range}")
    }
}

/// A capability requirement in words: `requires capability sql >=8.0.0`, `optionally
/// requires capability cache` (findings and step reasons say it so).
#[must_use]
pub fn requirement_text(r: &CapabilityRequirement) -> String {
    let verb = if r.optional {
        "optionally requires"
    } else {
        "requires"
    };
    format!("{verb} capability {}{}", r.name, range_words(&r.range))
}

/// An atom in words: `com.example:redis 6.0.0..7.x.x`, `capability cache`, `rule 'x'`.
#[must_use]
pub fn atom_text(atom: &Atom) -> String {
    match atom {
        Atom::Product { product, range } => format!("{product}{}", span_text(range)),
        Atom::Capability { name, range } => format!("capability {name}{}", span_text(range)),
        Atom::Runtime { name, range } => format!("runtime {name}{}", span_text(range)),
        Atom::Rule(rule) => format!("rule `{rule}`"),
    }
}

/// A whole term in words: atoms as [`atom_text`] says, compounds as `any-of(a / b)`.
#[must_use]
pub fn term_text(term: &Term) -> String {
    match &term.kind {
        TermKind::Atom(atom) => atom_text(atom),
        kind @ (TermKind::AnyOf(c) | TermKind::AllOf(c) | TermKind::NoneOf(c)) => {
            let parts: Vec<String> = c.iter().map(term_text).collect();
            format!(
                "{}({})",
                kind.compound_name().unwrap_or_default(),
                parts.join(" / ")
            )
        }
    }
}

fn found_versions<'v>(versions: impl Iterator<Item = &'v Version>) -> String {
    let mut texts: Vec<String> = versions.map(ToString::to_string).collect();
    texts.dedup();
    format!("found {}", texts.join(", "))
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::manifest;

    fn declarations(optional: bool) -> (Dependency, Incompatibility) {
        let text = format!(
            "manifest-version: '1.0'\nproduct-group: g\nproduct-name: a\nproduct-version: 1.0.0\n\
             extensions:\n  product-dependencies:\n    - product-group: g\n      product-name: b\n\
             \u{20}     minimum-version: 1.2.0\n      maximum-version: 1.x.x\n      optional: {optional}\n\
             \u{20} product-incompatibilities:\n    - product-group: g\n      product-name: c\n\
             \u{20}     minimum-version: 2.0.0\n      maximum-version: 2.x.x\n"
        );
        let m = manifest::parse(&text, &Arc::from("a.yml"))
            .unwrap()
            .remove(0);
        (m.dependencies[0].clone(), m.incompatibilities[0].clone())
    }

    #[test]
    fn verdicts_follow_the_range_and_the_optional_flag() {
        let v = |s: &str| Version::parse(s).unwrap();
        let (required, incompatible) = declarations(false);
        let (optional, _) = declarations(true);
        let table = [
            ("1.1.9", Verdict::TooLow),
            ("1.2.0", Verdict::Holds),
            ("1.9.9", Verdict::Holds),
            ("2.0.0", Verdict::TooHigh),
            ("1.5.0-branch", Verdict::Unordered),
        ];
        for (running, verdict) in table {
            assert_eq!(dependency_on(&required, &v(running)), verdict, "{running}");
            assert_eq!(dependency_on(&optional, &v(running)), verdict, "{running}");
        }
        assert_eq!(dependency_absent(&required), Verdict::Missing);
        assert_eq!(dependency_absent(&optional), Verdict::Holds);
        assert!(!dependency_holds(&required, []));
        assert!(dependency_holds(&optional, []));
        assert!(!dependency_holds(&required, [&v("1.2.0"), &v("2.0.0")]));
        assert!(dependency_holds(&required, [&v("1.2.0"), &v("1.3.0")]));
        assert_eq!(
            incompatibility_on(&incompatible, &v("2.1.0")),
            Verdict::Incompatible
        );
        assert_eq!(
            incompatibility_on(&incompatible, &v("1.9.0")),
            Verdict::Holds
        );
        assert_eq!(Verdict::TooHigh.code(), Some(Code::VersionTooHigh));
        assert_eq!(Verdict::Holds.code(), None);
    }

    /// A manifest of `g:NAME 1.0.0` with `extensions` YAML.
    fn release(name: &str, version: &str, extensions: &str) -> crate::manifest::Manifest {
        let text = format!(
            "manifest-version: '1.0'\nproduct-group: g\nproduct-name: {name}\n\
             product-version: {version}\nextensions:\n{extensions}"
        );
        let m = manifest::parse(&text, &Arc::from("m.yml"))
            .unwrap()
            .remove(0);
        assert!(m.issues.is_empty(), "{:?}", m.issues);
        m
    }

    /// The failure text of `declarer`'s constraints against `others` (name, release).
    fn judge(
        declarer: &crate::manifest::Manifest,
        others: &[(&str, &crate::manifest::Manifest)],
        runtime: &BTreeMap<String, Version>,
    ) -> Vec<Option<String>> {
        let mut running = vec![Running {
            entity: "me",
            product: &declarer.product,
            version: &declarer.version,
            facets: declarer.facets(),
            placement: crate::instance::Placement::none(),
        }];
        running.extend(others.iter().map(|(name, m)| Running {
            entity: name,
            product: &m.product,
            version: &m.version,
            facets: m.facets(),
            placement: crate::instance::Placement::none(),
        }));
        let world = World::new(running, runtime);
        declarer
            .facets()
            .constraints
            .iter()
            .map(|t| {
                let failure = world.term_failure("me", t);
                assert_eq!(failure.is_none(), world.term_holds("me", t));
                failure
            })
            .collect()
    }

    #[test]
    fn compounds_name_the_smallest_failing_part() {
        let me = release(
            "op",
            "1.0.0",
            "  constraints:\n    - any-of:\n        - product: g:redis\n          \
             minimum-version: 6.0.0\n          maximum-version: 7.x.x\n        - capability: cache\n    \
             - none-of:\n        - capability: legacy\n    - all-of:\n        - runtime: k8s\n          \
             minimum-version: 1.27.0\n        - rule: 'properties.tier == \"gold\"'\n",
        );
        let redis5 = release("redis", "5.0.1", "  {}\n");
        let redis6 = release("redis", "6.2.0", "  {}\n");
        let legacy = release(
            "legacy-auth",
            "1.0.0",
            "  capabilities:\n    provides:\n      - name: legacy\n",
        );
        let gold = release("db", "1.0.0", "  properties:\n    tier: gold\n");
        let none = BTreeMap::new();
        let k8s: BTreeMap<String, Version> =
            [("k8s".to_owned(), Version::parse("1.29.0").unwrap())].into();
        assert_eq!(
            judge(&me, &[("redis", &redis5), ("legacy", &legacy)], &none),
            [
                Some(
                    "any-of: g:redis 6.0.0..7.x.x (found 5.0.1) / capability cache (no provider)"
                        .to_owned()
                ),
                Some("none-of: capability legacy (provided by legacy)".to_owned()),
                Some("runtime k8s 1.27.0.. (not declared)".to_owned()),
            ]
        );
        assert_eq!(
            judge(&me, &[("redis", &redis6)], &k8s),
            [
                None,
                None,
                Some(
                    "rule `properties.tier == \"gold\"` (false for every other entity)".to_owned()
                )
            ]
        );
        assert_eq!(
            judge(&me, &[("redis", &redis6), ("db", &gold)], &k8s),
            [None, None, None]
        );
        // every running entity of the product must be in range
        assert!(
            judge(
                &me,
                &[("r1", &redis6), ("r2", &redis5), ("db", &gold)],
                &k8s
            )[0]
            .is_some()
        );
    }

    /// The engine's atom verdicts without a world answer as the world does, judged by no
    /// entity: every atom of a declarer's constraints over every set of running entities
    /// (one nameless), under two runtimes.
    #[test]
    fn atoms_judged_among_instances_agree_with_the_world() {
        let me = release(
            "op",
            "1.0.0",
            "  constraints:\n    - any-of:\n        - product: g:redis\n          \
             minimum-version: 6.0.0\n          maximum-version: 7.x.x\n        - capability: cache\n    \
             - none-of:\n        - capability: legacy\n          minimum-version: 2.0.0\n    \
             - all-of:\n        - runtime: k8s\n          minimum-version: 1.27.0\n        \
             - rule: 'properties.tier == \"gold\"'\n        - rule: 'version.startsWith(\"6\")'\n",
        );
        let redis5 = release("redis", "5.0.1", "  {}\n");
        let redis6 = release("redis", "6.2.0", "  properties:\n    tier: gold\n");
        let legacy = release(
            "legacy-auth",
            "1.0.0",
            "  capabilities:\n    provides:\n      - name: legacy\n        version: 2.1.0\n      \
             - name: cache\n",
        );
        let old = release(
            "legacy-auth",
            "0.9.0",
            "  capabilities:\n    provides:\n      - name: legacy\n        version: 1.0.0\n      \
             - name: cache\n  properties:\n    tier: gold\n",
        );
        let gold = release("db", "1.0.0", "  properties:\n    tier: gold\n");
        let entities = [
            ("r5", &redis5),
            ("r6", &redis6),
            ("legacy", &legacy),
            ("", &old),
            ("db", &gold),
        ];
        let atoms: Vec<&Atom> = me
            .facets()
            .constraints
            .iter()
            .flat_map(Term::atoms)
            .collect();
        assert_eq!(atoms.len(), 6);
        let k8s: BTreeMap<String, Version> =
            [("k8s".to_owned(), Version::parse("1.29.0").unwrap())].into();
        let (mut held, mut failed) = (0, 0);
        for runtime in [BTreeMap::new(), k8s] {
            for set in 0..1u32 << entities.len() {
                let running: Vec<Running> = entities
                    .iter()
                    .enumerate()
                    .filter(|(i, _)| set & (1 << i) != 0)
                    .map(|(_, (name, m))| Running {
                        entity: name,
                        product: &m.product,
                        version: &m.version,
                        facets: m.facets(),
                        placement: crate::instance::Placement::none(),
                    })
                    .collect();
                for atom in &atoms {
                    let world = World::new(running.clone(), &runtime).atom_holds("", atom);
                    let among = atom_holds_among(running.clone(), &runtime, atom);
                    assert_eq!(among, world, "{} over set {set:05b}", atom_text(atom));
                    if world {
                        held += 1;
                    } else {
                        failed += 1;
                    }
                }
            }
        }
        assert!(held > 50 && failed > 50, "{held} held, {failed} failed");
    }

    #[test]
    fn none_of_a_product_is_an_incompatibility_and_one_provider_a_dependency() {
        let (_, incompatible) = declarations(false);
        let none_of = release(
            "a",
            "1.0.0",
            "  constraints:\n    - none-of:\n        - product: g:c\n          \
             minimum-version: 2.0.0\n          maximum-version: 2.x.x\n",
        );
        let requires = release(
            "a",
            "1.0.0",
            "  capabilities:\n    requires:\n      - name: api\n        minimum-version: 1.2.0\n        \
             maximum-version: 1.x.x\n",
        );
        let none = BTreeMap::new();
        for v in ["1.9.0", "2.0.0", "2.5.0", "3.0.0", "2.0.0-rc1"] {
            let c = release("c", v, "  {}\n");
            let holds = judge(&none_of, &[("c", &c)], &none)[0].is_none();
            let verdict = incompatibility_on(&incompatible, &Version::parse(v).unwrap());
            assert_eq!(holds, verdict == Verdict::Holds, "{v}");
            // the only provider of `api` at version v: as a dependency on it
            let provider = release(
                "b",
                v,
                &format!(
                    "  capabilities:\n    provides:\n      - name: api\n        version: {v}\n"
                ),
            );
            let running = vec![
                Running {
                    entity: "a",
                    product: &requires.product,
                    version: &requires.version,
                    facets: requires.facets(),
                    placement: crate::instance::Placement::none(),
                },
                Running {
                    entity: "b",
                    product: &provider.product,
                    version: &provider.version,
                    facets: provider.facets(),
                    placement: crate::instance::Placement::none(),
                },
            ];
            let world = World::new(running, &none);
            let need = world.capability_need("a", &requires.facets().requires[0]);
            let (dependency, _) = declarations(false);
            let as_dependency = dependency_on(&dependency, &Version::parse(v).unwrap());
            assert_eq!(need == Need::Holds, as_dependency == Verdict::Holds, "{v}");
        }
        // nothing provides it: missing, as a missing dependency
        let world = World::new(
            vec![Running {
                entity: "a",
                product: &requires.product,
                version: &requires.version,
                facets: requires.facets(),
                placement: crate::instance::Placement::none(),
            }],
            &none,
        );
        assert_eq!(
            world.capability_need("a", &requires.facets().requires[0]),
            Need::NoProvider
        );
    }
}
