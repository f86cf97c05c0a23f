//! The capability family ([`super::Shape::Capabilities`]): the realistic family (the same
//! products, versions, dependencies and incompatibilities for the same seed) plus everything of
//! SPEC section 9, built so the environment is valid (no error finding) and upgrades exist:
//! - one capability per 20 products, at most 50, each provided by 1-5 products from one of
//!   their releases at or below the installed one onwards; a provider gives the capability the
//!   version `M.k.0` (`M` 1-3 per provider, `k` the release's index) or, one provider in five,
//!   no version;
//! - about 12% of products require 1-2 capabilities they do not provide, in every release (a
//!   quarter optional, some with `prefer`): a range around the installed version of one
//!   versioned provider, open when no provider has versions;
//! - about 20% of releases carry 1-2 `constraints` items: atoms (product, capability, runtime,
//!   rarely a CEL rule) and compounds nested up to depth 3, some with a description. Each item is
//!   built to hold in the installed state: its parts are chosen true or false there as their
//!   compound needs (`none-of` over false parts, `any-of` with one true part, and so on);
//! - about 5% of releases carry `runtime-requirements` (kubernetes, containerd; a few name
//!   `istio`, which the environment does not declare: `unknown-runtime` warnings); a quarter
//!   of those newer than the installed release need a newer kubernetes than the environment's;
//! - products `i % 5 < 3` carry `properties` (`tier` gold, bronze or silver, `certified`) in
//!   every release, read by the rules;
//! - about 4% of the releases older than the installed one are deprecated, with the property
//!   `retired: true`;
//! - the environment declares `runtime:` (kubernetes 1.29.4, containerd 1.7.2) and a `policy:`
//!   that pins one product with an upgrade, excludes another's newest release (a CVE) and every
//!   retired release (a rule).

use std::fmt::Write;

use super::section9::{
    DESCRIPTIONS, Item, KUBERNETES, Node, rule_atom, runtime_atom, runtime_requirement,
    write_bounds, write_item,
};
use super::{Generated, Product, Rng, Style, covers, matcher, release_at_or_below, render};

/// Most capabilities in a catalog.
const CAPABILITIES: usize = 50;
/// The deepest compound nesting generated (SPEC allows 16).
const DEPTH: usize = 3;
struct Capability {
    name: String,
    providers: Vec<Provider>,
}

struct Provider {
    product: usize,
    /// The capability version's major (`None`: provided without a version).
    major: Option<usize>,
    /// The first release index that provides it (at or below the installed one).
    since: usize,
}

struct Requirement {
    capability: usize,
    optional: bool,
    prefer: Option<usize>,
    /// The versioned provider whose installed version the ranges hold.
    anchor: Option<usize>,
}

/// Who provides and requires what.
struct Plan {
    capabilities: Vec<Capability>,
    /// Per product: the capabilities (indices) it requires.
    requires: Vec<Vec<Requirement>>,
}

impl Plan {
    fn new(rng: &mut Rng, products: &[Product]) -> Plan {
        let count = products.len();
        let wanted = if count < 2 {
            0
        } else {
            (count / 20).clamp(1, CAPABILITIES)
        };
        let capabilities: Vec<Capability> = (0..wanted)
            .map(|c| {
                let name = if c % 2 == 0 {
                    format!("gen.io/v1/kind{c:02}")
                } else {
                    format!("cap-{c:02}")
                };
                let mut providers: Vec<Provider> = Vec::new();
                for _ in 0..=rng.below(5) {
                    let product = rng.below(count);
                    if providers.iter().any(|p| p.product == product) {
                        continue;
                    }
                    let major = (!rng.chance(20)).then(|| 1 + rng.below(3));
                    let since = rng.below(products[product].installed + 1);
                    providers.push(Provider {
                        product,
                        major,
                        since,
                    });
                }
                Capability { name, providers }
            })
            .collect();
        let requires = (0..count)
            .map(|i| {
                let mut out: Vec<Requirement> = Vec::new();
                if capabilities.is_empty() || !rng.chance(12) {
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
                        anchor: (!versioned.is_empty() && rng.chance(75))
                            .then(|| versioned[rng.below(versioned.len())]),
                    });
                }
                out
            })
            .collect();
        Plan {
            capabilities,
            requires,
        }
    }
}

/// Generates the capability family over the realistic family's `products`.
pub(super) fn generate(products: &[Product], rng: &mut Rng) -> Generated {
    let plan = Plan::new(rng, products);
    let mut generated = render(products, rng, |rng, i, k, text| {
        section9(rng, products, &plan, i, k, text);
    });
    environment(rng, products, &mut generated.environment);
    generated
}

/// Writes release `k` of product `i`'s section 9 lines (under `extensions:`).
fn section9(
    rng: &mut Rng,
    products: &[Product],
    plan: &Plan,
    i: usize,
    k: usize,
    text: &mut String,
) {
    let product = &products[i];
    let provides: Vec<(&str, Option<String>)> = plan
        .capabilities
        .iter()
        .flat_map(|c| c.providers.iter().map(move |p| (c, p)))
        .filter(|(_, p)| p.product == i && k >= p.since)
        .map(|(c, p)| (c.name.as_str(), p.major.map(|m| format!("{m}.{k}.0"))))
        .collect();
    let requires = &plan.requires[i];
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
            let capability = &plan.capabilities[r.capability];
            let _ = writeln!(text, "      - name: {}", capability.name);
            if let Some(anchor) = r.anchor {
                let (min, max) = around(rng, products, &capability.providers[anchor]);
                write_bounds(text, 8, min.as_deref(), max.as_deref());
            }
            if r.optional {
                text.push_str("        optional: true\n");
            }
            if let Some(p) = r.prefer {
                let _ = writeln!(
                    text,
                    "        prefer: {}:{}",
                    products[p].group, products[p].name
                );
            }
        }
    }
    if rng.chance(20) {
        text.push_str("  constraints:\n");
        for _ in 0..=rng.below(2) {
            let item = term(rng, products, plan, i, true, 1);
            write_item(text, 4, &item);
        }
    }
    if rng.chance(5) {
        runtime_requirement(rng, k > product.installed, text);
    }
    let deprecated = k < product.installed && rng.chance(4);
    let tier = match i % 5 {
        0 => Some(("gold", Some(true))),
        1 => Some(("bronze", Some(false))),
        2 => Some(("silver", None)),
        _ => None,
    };
    if tier.is_some() || deprecated {
        text.push_str("  properties:\n");
        if let Some((tier, certified)) = tier {
            let _ = writeln!(text, "    tier: {tier}");
            if let Some(certified) = certified {
                let _ = writeln!(text, "    certified: {certified}");
            }
        }
        if deprecated {
            text.push_str("    retired: true\n");
        }
    }
    if deprecated {
        if rng.chance(50) {
            text.push_str("  deprecated: true\n");
        } else {
            let _ = writeln!(
                text,
                "  deprecated: \"use {} {}\"",
                product.name, product.releases[product.installed].text
            );
        }
    }
}

/// A range holding `provider`'s installed capability version `M.k.0`: a minimum a few releases
/// below, a maximum `M.x.x` or `M.n.x` a few above; either side may be open.
fn around(
    rng: &mut Rng,
    products: &[Product],
    provider: &Provider,
) -> (Option<String>, Option<String>) {
    let major = provider.major.unwrap_or(1);
    let installed = products[provider.product].installed;
    let min = rng
        .chance(70)
        .then(|| format!("{major}.{}.0", installed.saturating_sub(rng.below(4))));
    let roll = rng.below(100);
    let max = if roll < 50 {
        Some(format!("{major}.x.x"))
    } else if roll < 85 {
        Some(format!("{major}.{}.x", installed + rng.below(4)))
    } else {
        None
    };
    (min, max)
}

/// A constraint item of depth `depth` (if a compound) that holds in the installed state when
/// `want`, and fails there otherwise.
fn term(
    rng: &mut Rng,
    products: &[Product],
    plan: &Plan,
    i: usize,
    want: bool,
    depth: usize,
) -> Item {
    let compound = depth <= DEPTH && rng.chance(if depth == 1 { 60 } else { 25 });
    let description = rng
        .chance(if depth == 1 { 50 } else { 10 })
        .then(|| DESCRIPTIONS[rng.below(DESCRIPTIONS.len())]);
    if !compound {
        return Item {
            description,
            node: atom(rng, products, plan, i, want),
        };
    }
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
    let children = truths
        .into_iter()
        .map(|t| term(rng, products, plan, i, t, depth + 1))
        .collect();
    Item {
        description,
        node: Node::Compound(kind, children),
    }
}

/// An atom that holds in the installed state when `want`, and fails there otherwise.
fn atom(rng: &mut Rng, products: &[Product], plan: &Plan, i: usize, want: bool) -> Node {
    let roll = rng.below(100);
    let node = if roll < 40 {
        product_atom(rng, products, i, want)
    } else if roll < 75 {
        capability_atom(rng, products, plan, i, want)
    } else if roll < 96 {
        None
    } else {
        rule_atom(rng, products.len(), want)
    };
    node.unwrap_or_else(|| runtime_atom(rng, want))
}

fn product_atom(rng: &mut Rng, products: &[Product], i: usize, want: bool) -> Option<Node> {
    let count = products.len();
    if count < 2 {
        return None;
    }
    let target = &products[(i + 1 + rng.below(count - 1)) % count];
    let releases = &target.releases;
    let installed = target.installed;
    let mut keys = vec![("product", format!("{}:{}", target.group, target.name))];
    if want {
        let min = release_at_or_below(releases, installed.saturating_sub(rng.below(4)));
        if rng.chance(70) {
            keys.push(("minimum-version", releases[min].text.clone()));
        }
        if rng.chance(70) {
            let high = (installed + rng.below(4)).min(releases.len() - 1);
            let style = if rng.chance(50) {
                Style::Major
            } else {
                Style::Minor
            };
            let mut bound = matcher(&releases[high], style);
            if !covers(&releases[min], &bound, &releases[installed]) {
                bound = matcher(&releases[installed], Style::Major);
            }
            keys.push(("maximum-version", bound));
        }
    } else if let Some(newer) = (installed + 1..releases.len())
        .rev()
        .find(|&k| releases[k].plain && releases[k].core > releases[installed].core)
    {
        keys.push(("minimum-version", releases[newer].text.clone()));
    } else if installed > 0 {
        // The first release is plain and older than every later plain release.
        keys.push(("maximum-version", matcher(&releases[0], Style::Exact)));
    } else {
        return None;
    }
    Some(Node::Atom(keys))
}

fn capability_atom(
    rng: &mut Rng,
    products: &[Product],
    plan: &Plan,
    i: usize,
    want: bool,
) -> Option<Node> {
    if plan.capabilities.is_empty() {
        return None;
    }
    let capability = &plan.capabilities[rng.below(plan.capabilities.len())];
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
            let (min, max) = around(rng, products, provider);
            keys.extend(min.map(|v| ("minimum-version", v)));
            keys.extend(max.map(|v| ("maximum-version", v)));
        }
    } else if rng.chance(50) {
        keys.push((
            "capability",
            format!("gen.retired/kind{:02}", rng.below(10)),
        ));
    } else {
        // Every provided version has a major of 3 at most.
        keys.push(("capability", capability.name.clone()));
        keys.push(("minimum-version", "9.0.0".to_owned()));
    }
    Some(Node::Atom(keys))
}

/// Appends `runtime:` and `policy:` to the environment: a pin and a CVE exclusion, each on a
/// product with a newer plain release than its installed one, and the rule excluding retired
/// releases.
fn environment(rng: &mut Rng, products: &[Product], environment: &mut String) {
    let _ = write!(
        environment,
        "runtime:\n  kubernetes: {KUBERNETES}\n  containerd: 1.7.2\npolicy:\n"
    );
    let newer = |p: &Product| {
        (p.installed + 1..p.releases.len())
            .rev()
            .find(|&k| p.releases[k].plain)
    };
    let start = rng.below(products.len());
    let mut movable = (0..products.len())
        .map(|n| (start + n) % products.len())
        .filter_map(|i| newer(&products[i]).map(|k| (&products[i], k)));
    if let Some((pinned, _)) = movable.next() {
        let _ = writeln!(environment, "  pin: [{}:{}]", pinned.group, pinned.name);
    }
    environment.push_str("  exclude:\n");
    if let Some((excluded, newest)) = movable.next() {
        let _ = write!(
            environment,
            "    - product: {}:{}\n      minimum-version: {}\n      reason: \"CVE-2026-{:04}\"\n",
            excluded.group,
            excluded.name,
            excluded.releases[newest].text,
            rng.below(10_000)
        );
    }
    environment.push_str(
        "    - rule: \"has(properties.retired) && properties.retired\"\n      reason: retired\n",
    );
}
