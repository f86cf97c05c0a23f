//! Section 9 as the capability families build it (`--capabilities`, with or without
//! `--hard`), over a family's products seen as [`Subject`]s and tuned by a [`Family`]: who
//! provides and requires which capabilities ([`Plan`]), ranges around a provider's versions,
//! constraint atoms and compounds built to hold (or to fail) in the states the family keeps
//! valid, runtime requirements, properties, and their YAML. Which releases are built to hold
//! and what the environment declares beside `runtime:` stay in each family's own module.
//!
//! Invariant: the order in which a part draws random numbers is part of what it writes: the
//! same seed writes the same bytes, and a part that draws in another order changes the files
//! of both families.

use std::fmt::Write;

use super::{Release, Rng, Style, covers, matcher, release_at_or_below};

/// Most capabilities in a catalog.
const CAPABILITIES: usize = 50;
/// The deepest compound nesting generated (SPEC allows 16).
pub(super) const DEPTH: usize = 3;
/// Most releases of slack below the installed and above the consistent release in the ranges
/// and product atoms built to hold.
const SLACK: usize = 3;
/// The environment's `runtime:` (every kubernetes range built to hold holds 1.29.4).
pub(super) const RUNTIME: &str = "runtime:\n  kubernetes: 1.29.4\n  containerd: 1.7.2\n";
/// Descriptions of constraint items, by turn.
const DESCRIPTIONS: [&str; 6] = [
    "needs a cache",
    "a supported platform",
    "not beside retired services",
    "a certified neighbour",
    "storage it can talk to",
    "the monitoring stack it reports to",
];

/// A range's minimum and maximum, either open.
pub(super) type Bounds = (Option<String>, Option<String>);

/// What section 9 reads of a family's product: its name, its releases, and the releases the
/// items are built to hold at.
pub(super) struct Subject<'a> {
    pub(super) group: &'a str,
    pub(super) name: &'a str,
    pub(super) releases: &'a [Release],
    /// The index of the installed release.
    pub(super) installed: usize,
    /// The index of the other release the items are built to hold at, at or above the
    /// installed one: the hard family's consistent release, the installed one again in a
    /// family of one state.
    pub(super) consistent: usize,
}

impl<'a> Subject<'a> {
    /// `group:name` with its `releases`, the items built to hold at the `(installed,
    /// consistent)` releases.
    pub(super) fn new(
        (group, name): (&'a str, &'a str),
        releases: &'a [Release],
        (installed, consistent): (usize, usize),
    ) -> Self {
        Subject {
            group,
            name,
            releases,
            installed,
            consistent,
        }
    }
}

/// Where the families' section 9 differs in degree rather than in kind.
pub(super) struct Family {
    /// The name of capability `c`.
    pub(super) capability: fn(usize) -> String,
    /// Where the capabilities no product provides are named (`{retired}/kindNN`), for atoms
    /// built to fail.
    pub(super) retired: &'static str,
    /// Percent of products that require capabilities.
    pub(super) requiring: u64,
    /// Percent of the requirements of a capability with a versioned provider that are anchored
    /// to one (their ranges hold its versions); 100 anchors each without a draw.
    pub(super) anchored: u64,
    /// Percent of atoms that are CEL rules (where the products are enough for one).
    pub(super) rules: usize,
    /// Whether a range around a provider's versions starts no lower than its first providing
    /// release.
    pub(super) from_since: bool,
}

impl Family {
    fn anchors(&self, rng: &mut Rng) -> bool {
        self.anchored >= 100 || rng.chance(self.anchored)
    }
}

struct Capability {
    name: String,
    providers: Vec<Provider>,
}

pub(super) struct Provider {
    pub(super) product: usize,
    /// The capability version's major (`None`: provided without a version).
    pub(super) major: Option<usize>,
    /// The first release index that provides it (at or below the installed one).
    since: usize,
}

struct Requirement {
    capability: usize,
    optional: bool,
    prefer: Option<usize>,
    /// The versioned provider (index among the capability's) whose versions the ranges hold.
    anchor: Option<usize>,
}

/// Who provides and requires what among a family's products, and the atoms built on it.
pub(super) struct Plan<'a> {
    pub(super) products: Vec<Subject<'a>>,
    family: &'a Family,
    capabilities: Vec<Capability>,
    /// Per product: the capabilities it requires.
    requires: Vec<Vec<Requirement>>,
}

impl<'a> Plan<'a> {
    /// The providers of the capabilities product `i` requires (the products installation
    /// orders before it).
    pub(super) fn required_providers(&self, i: usize) -> impl Iterator<Item = usize> + '_ {
        self.requires[i]
            .iter()
            .flat_map(|r| &self.capabilities[r.capability].providers)
            .map(|p| p.product)
    }

    /// Whether product `i` provides some capability (from some release on).
    pub(super) fn provides_any(&self, i: usize) -> bool {
        self.capabilities
            .iter()
            .any(|c| c.providers.iter().any(|p| p.product == i))
    }

    /// One capability per 20 products (at most [`CAPABILITIES`]), each provided by 1-5 products
    /// from one of their releases at or below the installed one onwards, one provider in five
    /// without a version; `family.requiring`% of products require 1-2 capabilities they do not
    /// provide (a quarter optional, some with `prefer`).
    pub(super) fn new(rng: &mut Rng, products: Vec<Subject<'a>>, family: &'a Family) -> Self {
        let count = products.len();
        let wanted = if count < 2 {
            0
        } else {
            (count / 20).clamp(1, CAPABILITIES)
        };
        let capabilities: Vec<Capability> = (0..wanted)
            .map(|c| {
                let mut providers: Vec<Provider> = Vec::new();
                for _ in 0..=rng.below(5) {
                    let product = rng.below(count);
                    if providers.iter().any(|p| p.product == product) {
                        continue;
                    }
                    providers.push(Provider {
                        product,
                        major: (!rng.chance(20)).then(|| 1 + rng.below(3)),
                        since: rng.below(products[product].installed + 1),
                    });
                }
                Capability {
                    name: (family.capability)(c),
                    providers,
                }
            })
            .collect();
        let requires = (0..count)
            .map(|i| {
                let mut out: Vec<Requirement> = Vec::new();
                if capabilities.is_empty() || !rng.chance(family.requiring) {
                    return out;
                }
                for _ in 0..=rng.below(2) {
                    let c = rng.below(capabilities.len());
                    let providers = &capabilities[c].providers;
                    // A release that requires what it provides itself is invalid.
                    if providers.iter().any(|p| p.product == i)
                        || out.iter().any(|r| r.capability == c)
                    {
                        continue;
                    }
                    let versioned: Vec<usize> = (0..providers.len())
                        .filter(|&p| providers[p].major.is_some())
                        .collect();
                    out.push(Requirement {
                        capability: c,
                        optional: rng.chance(25),
                        prefer: rng
                            .chance(30)
                            .then(|| providers[rng.below(providers.len())].product),
                        anchor: (!versioned.is_empty() && family.anchors(rng))
                            .then(|| versioned[rng.below(versioned.len())]),
                    });
                }
                out
            })
            .collect();
        Plan {
            products,
            family,
            capabilities,
            requires,
        }
    }

    /// Writes release `k` of product `i`'s `capabilities:` lines: each capability it provides
    /// from `k` on that `keep` keeps, at `M.k.0` or without a version, and each it requires,
    /// an anchored one within the `bounds` on its anchor.
    pub(super) fn write_capabilities(
        &self,
        rng: &mut Rng,
        (i, k): (usize, usize),
        text: &mut String,
        mut keep: impl FnMut(&mut Rng) -> bool,
        mut bounds: impl FnMut(&mut Rng, &Provider) -> Bounds,
    ) {
        let mut provides: Vec<(&str, Option<String>)> = Vec::new();
        for c in &self.capabilities {
            for p in c
                .providers
                .iter()
                .filter(|p| p.product == i && k >= p.since)
            {
                if keep(rng) {
                    provides.push((&c.name, p.major.map(|m| format!("{m}.{k}.0"))));
                }
            }
        }
        let requires = &self.requires[i];
        if !provides.is_empty() || !requires.is_empty() {
            text.push_str("  capabilities:\n");
        }
        if !provides.is_empty() {
            text.push_str("    provides:\n");
            for (name, version) in provides {
                let _ = writeln!(text, "      - name: {name}");
                if let Some(version) = version {
                    let _ = writeln!(text, "        version: {version}");
                }
            }
        }
        if !requires.is_empty() {
            text.push_str("    requires:\n");
            for r in requires {
                let capability = &self.capabilities[r.capability];
                let _ = writeln!(text, "      - name: {}", capability.name);
                if let Some(anchor) = r.anchor {
                    let (min, max) = bounds(rng, &capability.providers[anchor]);
                    write_bounds(text, 8, min.as_deref(), max.as_deref());
                }
                if r.optional {
                    text.push_str("        optional: true\n");
                }
                if let Some(p) = r.prefer {
                    let preferred = &self.products[p];
                    let _ = writeln!(
                        text,
                        "        prefer: {}:{}",
                        preferred.group, preferred.name
                    );
                }
            }
        }
    }

    /// A range holding `provider`'s installed and consistent capability versions (`M.k.0`): a
    /// minimum a few releases below the installed one (no lower than its first providing
    /// release where [`Family::from_since`]), a maximum `M.x.x` or `M.n.x` a few above the
    /// consistent one; either side may be open.
    pub(super) fn around(&self, rng: &mut Rng, provider: &Provider) -> Bounds {
        let major = provider.major.unwrap_or(1);
        let target = &self.products[provider.product];
        let min = rng.chance(70).then(|| {
            let low = target.installed.saturating_sub(rng.below(SLACK + 1));
            let low = if self.family.from_since {
                low.max(provider.since)
            } else {
                low
            };
            format!("{major}.{low}.0")
        });
        let roll = rng.below(100);
        let max = if roll < 50 {
            Some(format!("{major}.x.x"))
        } else if roll < 85 {
            Some(format!(
                "{major}.{}.x",
                target.consistent + rng.below(SLACK + 1)
            ))
        } else {
            None
        };
        (min, max)
    }

    /// An atom of product `i` that holds in the installed and the consistent state when
    /// `want`, and fails in both otherwise: on another product (40%), a capability (35%), a
    /// CEL rule ([`Family::rules`]%) or the runtime (the rest, and wherever the others cannot
    /// be built).
    pub(super) fn atom(&self, rng: &mut Rng, i: usize, want: bool) -> Node {
        let roll = rng.below(100);
        let node = if roll < 40 {
            self.product_atom(rng, i, want)
        } else if roll < 75 {
            self.capability_atom(rng, i, want)
        } else if roll < 100 - self.family.rules {
            None
        } else {
            rule_atom(rng, self.products.len(), want)
        };
        node.unwrap_or_else(|| runtime_atom(rng, want))
    }

    fn product_atom(&self, rng: &mut Rng, i: usize, want: bool) -> Option<Node> {
        let count = self.products.len();
        if count < 2 {
            return None;
        }
        let target = &self.products[(i + 1 + rng.below(count - 1)) % count];
        let releases = target.releases;
        let (installed, consistent) = (target.installed, target.consistent);
        let mut keys = vec![("product", format!("{}:{}", target.group, target.name))];
        if want {
            let min = release_at_or_below(releases, installed.saturating_sub(rng.below(SLACK + 1)));
            if rng.chance(70) {
                keys.push(("minimum-version", releases[min].text.clone()));
            }
            if rng.chance(70) {
                let high = (consistent + rng.below(SLACK + 1)).min(releases.len() - 1);
                let style = if rng.chance(50) {
                    Style::Major
                } else {
                    Style::Minor
                };
                let mut bound = matcher(&releases[high], style);
                if !covers(&releases[min], &bound, &releases[consistent]) {
                    bound = matcher(&releases[consistent], Style::Major);
                }
                keys.push(("maximum-version", bound));
            }
        } else if let Some(newer) = (consistent + 1..releases.len())
            .rev()
            .find(|&k| releases[k].plain && releases[k].core > releases[consistent].core)
        {
            // above both states
            keys.push(("minimum-version", releases[newer].text.clone()));
        } else if installed > 0 {
            // below both states: the first release is plain and older than every later plain
            // release
            keys.push(("maximum-version", matcher(&releases[0], Style::Exact)));
        } else {
            return None;
        }
        Some(Node::Atom(keys))
    }

    fn capability_atom(&self, rng: &mut Rng, i: usize, want: bool) -> Option<Node> {
        if self.capabilities.is_empty() {
            return None;
        }
        let capability = &self.capabilities[rng.below(self.capabilities.len())];
        let mut keys = Vec::new();
        if want {
            // Another entity must provide it: a provider other than the declaring product.
            let others: Vec<&Provider> = capability
                .providers
                .iter()
                .filter(|p| p.product != i)
                .collect();
            if others.is_empty() {
                return None;
            }
            keys.push(("capability", capability.name.clone()));
            let provider = others[rng.below(others.len())];
            if provider.major.is_some() && rng.chance(60) {
                let (min, max) = self.around(rng, provider);
                keys.extend(min.map(|v| ("minimum-version", v)));
                keys.extend(max.map(|v| ("maximum-version", v)));
            }
        } else if rng.chance(50) {
            let retired = self.family.retired;
            keys.push(("capability", format!("{retired}/kind{:02}", rng.below(10))));
        } else {
            // Every provided version has a major of 3 at most.
            keys.push(("capability", capability.name.clone()));
            keys.push(("minimum-version", "9.0.0".to_owned()));
        }
        Some(Node::Atom(keys))
    }
}

/// A constraint item: an atom's keys and values, or a compound of items.
pub(super) enum Node {
    Atom(Vec<(&'static str, String)>),
    Compound(&'static str, Vec<Item>),
}

pub(super) struct Item {
    pub(super) description: Option<&'static str>,
    pub(super) node: Node,
}

/// The description of an item at `depth`, or none (half of the items at the top, a tenth below).
pub(super) fn description(rng: &mut Rng, depth: usize) -> Option<&'static str> {
    rng.chance(if depth == 1 { 50 } else { 10 })
        .then(|| DESCRIPTIONS[rng.below(DESCRIPTIONS.len())])
}

/// A compound item (`any-of`, `all-of` or `none-of` over 1-3 children) that holds when `want`
/// and fails otherwise: its children are built by `child(rng, truth)`, each truth chosen as the
/// compound needs.
pub(super) fn compound(
    rng: &mut Rng,
    want: bool,
    description: Option<&'static str>,
    mut child: impl FnMut(&mut Rng, bool) -> Item,
) -> Item {
    let n = 1 + rng.below(3);
    let mut truths: Vec<bool> = (0..n).map(|_| rng.chance(50)).collect();
    let kind = match (rng.below(3), want) {
        (0, true) => {
            truths[rng.below(n)] = true;
            "any-of"
        }
        (0, false) => {
            truths.fill(false);
            "any-of"
        }
        (1, true) => {
            truths.fill(true);
            "all-of"
        }
        (1, false) => {
            truths[rng.below(n)] = false;
            "all-of"
        }
        (_, true) => {
            truths.fill(false);
            "none-of"
        }
        (_, false) => {
            truths[rng.below(n)] = true;
            "none-of"
        }
    };
    let children = truths.into_iter().map(|t| child(rng, t)).collect();
    Item {
        description,
        node: Node::Compound(kind, children),
    }
}

/// Writes a `constraints:` section of `items`.
pub(super) fn write_constraints(text: &mut String, items: &[Item]) {
    text.push_str("  constraints:\n");
    for item in items {
        write_item(text, 4, item);
    }
}

/// Writes product `i`'s `properties:`, read by the rules: products `i % 5 < 3` have a `tier`
/// (gold and certified, bronze and not, silver), and a `retired` release says so.
pub(super) fn write_properties(text: &mut String, i: usize, retired: bool) {
    let tier = match i % 5 {
        0 => Some(("gold", Some(true))),
        1 => Some(("bronze", Some(false))),
        2 => Some(("silver", None)),
        _ => None,
    };
    if tier.is_some() || retired {
        text.push_str("  properties:\n");
        if let Some((tier, certified)) = tier {
            let _ = writeln!(text, "    tier: {tier}");
            if let Some(certified) = certified {
                let _ = writeln!(text, "    certified: {certified}");
            }
        }
        if retired {
            text.push_str("    retired: true\n");
        }
    }
}

/// One `runtime-requirements` entry; for a release `newer` than the consistent one it may
/// need a newer kubernetes than the environment's.
pub(super) fn runtime_requirement(rng: &mut Rng, newer: bool, text: &mut String) {
    text.push_str("  runtime-requirements:\n");
    let (name, min, max) = if rng.chance(5) {
        ("istio", Some("1.20.0".to_owned()), None)
    } else if rng.chance(20) {
        (
            "containerd",
            Some(format!("1.{}.0", 5 + rng.below(3))),
            None,
        )
    } else if newer && rng.chance(25) {
        // A newer release that needs a newer platform than the environment's.
        (
            "kubernetes",
            Some(format!("1.{}.0", 30 + rng.below(2))),
            None,
        )
    } else {
        let (min, max) = kubernetes(rng);
        ("kubernetes", min, max)
    };
    let _ = writeln!(text, "    - name: {name}");
    write_bounds(text, 6, min.as_deref(), max.as_deref());
}

/// Bounds holding the environment's kubernetes.
fn kubernetes(rng: &mut Rng) -> Bounds {
    let min = rng.chance(80).then(|| format!("1.{}.0", 24 + rng.below(6)));
    let max = rng.chance(60).then(|| format!("1.{}.x", 29 + rng.below(3)));
    (min, max)
}

/// An atom on the runtime that holds in the environment's when `want`, and fails there otherwise.
fn runtime_atom(rng: &mut Rng, want: bool) -> Node {
    let mut keys = Vec::new();
    if want {
        keys.push(("runtime", "kubernetes".to_owned()));
        let (min, max) = kubernetes(rng);
        keys.extend(min.map(|v| ("minimum-version", v)));
        keys.extend(max.map(|v| ("maximum-version", v)));
    } else if rng.chance(50) {
        keys.push(("runtime", "openshift".to_owned()));
    } else {
        keys.push(("runtime", "kubernetes".to_owned()));
        keys.push(("minimum-version", format!("1.{}.0", 30 + rng.below(3))));
    }
    Node::Atom(keys)
}

/// A CEL rule over the other installed entities' properties (products `i % 5 == 0` are gold
/// and certified, so with six products or more some other entity is).
fn rule_atom(rng: &mut Rng, count: usize, want: bool) -> Option<Node> {
    if count < 6 {
        return None;
    }
    let rule = match (want, rng.chance(50)) {
        (true, true) => "has(properties.tier) && properties.tier == 'gold'",
        (true, false) => "has(properties.certified) && properties.certified",
        (false, true) => "has(properties.tier) && properties.tier == 'platinum'",
        (false, false) => "has(properties.retired) && properties.retired",
    };
    Some(Node::Atom(vec![("rule", format!("\"{rule}\""))]))
}

/// Writes `- item` at `indent` columns.
fn write_item(text: &mut String, indent: usize, item: &Item) {
    let mut first = true;
    let mut key = |text: &mut String, key: &str, value: &str| {
        let lead = if first { "- " } else { "  " };
        first = false;
        let space = if value.is_empty() { "" } else { " " };
        let _ = writeln!(text, "{:indent$}{lead}{key}:{space}{value}", "");
    };
    if let Some(description) = item.description {
        key(text, "description", &format!("\"{description}\""));
    }
    match &item.node {
        Node::Atom(keys) => {
            for (k, v) in keys {
                key(text, k, v);
            }
        }
        Node::Compound(kind, children) => {
            key(text, kind, "");
            for child in children {
                write_item(text, indent + 4, child);
            }
        }
    }
}

/// `min`/`max` bounds at `indent` columns.
fn write_bounds(text: &mut String, indent: usize, min: Option<&str>, max: Option<&str>) {
    if let Some(min) = min {
        let _ = writeln!(text, "{:indent$}minimum-version: {min}", "");
    }
    if let Some(max) = max {
        let _ = writeln!(text, "{:indent$}maximum-version: {max}", "");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Whether a compound of `kind` over children of `truths` holds.
    fn holds(kind: &str, truths: &[bool]) -> bool {
        match kind {
            "any-of" => truths.iter().any(|&t| t),
            "all-of" => truths.iter().all(|&t| t),
            "none-of" => !truths.iter().any(|&t| t),
            _ => unreachable!("{kind}"),
        }
    }

    #[test]
    fn a_compound_holds_exactly_when_wanted() {
        let mut rng = Rng(11);
        for want in (0..300).map(|n| n % 2 == 0) {
            let mut truths = Vec::new();
            let item = compound(&mut rng, want, None, |_, t| {
                truths.push(t);
                Item {
                    description: None,
                    node: Node::Atom(Vec::new()),
                }
            });
            let Node::Compound(kind, children) = item.node else {
                unreachable!("a compound")
            };
            assert_eq!(children.len(), truths.len());
            assert!((1..=3).contains(&truths.len()));
            assert_eq!(holds(kind, &truths), want, "{kind} {truths:?}");
        }
    }
}
