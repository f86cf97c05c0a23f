//! The hard family with section 9 ([`Shape::HardCapabilities`](crate::generate::Shape)): the
//! hard family's products, releases, dependencies and both states (the same for the same
//! seed), plus capabilities, compound constraints, CEL rules and runtime requirements, built
//! like its dependencies: releases near the installed or the consistent release hold in both
//! states, every other release is arbitrary (a trap):
//! - one capability per 20 products, at most 50, each provided by 1-5 products from one of
//!   their releases at or below the installed one onwards, at `M.k.0` (`M` 1-3 per provider,
//!   `k` the release's index) or, one provider in five, without a version; a far release of a
//!   provider stops providing it one time in three;
//! - about 10% of products require 1-2 capabilities they do not provide, in every release (a
//!   quarter optional, some with `prefer`): near releases in a range holding one versioned
//!   provider's installed and consistent versions, far releases in an arbitrary window;
//! - about 20% of releases carry a compound `constraints` item (`any-of`, `all-of`,
//!   `none-of`, nested up to depth 3, atoms on products, capabilities, the runtime and, a few,
//!   CEL rules over properties), true in both states on near releases;
//! - about 5% of releases carry `runtime-requirements`, a quarter of those above the
//!   consistent release needing a newer kubernetes than the environment's;
//! - products `i % 5 < 3` carry `properties` (`tier`, `certified`), read by the rules;
//! - both environments declare `runtime:` (kubernetes 1.29.4, containerd 1.7.2); no policy.
//!
//! Both states are valid by construction (a test holds them so with `validate`).

use std::fmt::Write;

use super::{NEAR, Product, SLACK, SPAN, render};
use crate::generate::section9::{
    DESCRIPTIONS, Item, KUBERNETES, Node, rule_atom, runtime_atom, runtime_requirement,
    write_bounds, write_item,
};
use crate::generate::{Generated, Rng, Style, covers, matcher};

/// Most capabilities in a catalog.
const CAPABILITIES: usize = 50;
/// The deepest compound nesting generated.
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
    /// The versioned provider (index among the capability's) whose versions near releases
    /// hold.
    anchor: Option<usize>,
}

/// Who provides and requires what.
struct Plan {
    capabilities: Vec<Capability>,
    requires: Vec<Vec<Requirement>>,
}

/// Is release `k` of `product` within [`NEAR`] of its installed or its consistent release?
fn near(product: &Product, k: usize) -> bool {
    k.abs_diff(product.installed) <= NEAR || k.abs_diff(product.consistent) <= NEAR
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
                    name: format!("hard.io/v1/kind{c:02}"),
                    providers,
                }
            })
            .collect();
        let requires = (0..count)
            .map(|i| {
                let mut out: Vec<Requirement> = Vec::new();
                if capabilities.is_empty() || !rng.chance(10) {
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
                        anchor: (!versioned.is_empty())
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

/// Generates the hard family with section 9 over the hard family's `products`.
pub(super) fn generate(products: &[Product], rng: &mut Rng) -> Generated {
    let plan = Plan::new(rng, products);
    let mut generated = render(products, rng, |rng, i, k, text| {
        section9(rng, products, &plan, i, k, text);
    });
    let runtime = format!("runtime:\n  kubernetes: {KUBERNETES}\n  containerd: 1.7.2\n");
    generated.environment.push_str(&runtime);
    if let Some(consistent) = &mut generated.consistent {
        consistent.push_str(&runtime);
    }
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
    let mut provides: Vec<(&str, Option<String>)> = Vec::new();
    for c in &plan.capabilities {
        for p in c
            .providers
            .iter()
            .filter(|p| p.product == i && k >= p.since)
        {
            // a far release may stop providing it: a trap for a plan that moves there
            if near(product, k) || !rng.chance(33) {
                provides.push((&c.name, p.major.map(|m| format!("{m}.{k}.0"))));
            }
        }
    }
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
                let anchored = &capability.providers[anchor];
                let (min, max) = if near(product, k) {
                    around(rng, products, anchored)
                } else {
                    arbitrary(rng, products, anchored)
                };
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
        // true in both states near them, anything elsewhere
        let want = near(product, k) || rng.chance(50);
        text.push_str("  constraints:\n");
        let item = compound(rng, products, plan, i, want, 1);
        write_item(text, 4, &item);
    }
    if rng.chance(5) {
        runtime_requirement(rng, k > product.consistent, text);
    }
    let tier = match i % 5 {
        0 => Some(("gold", Some(true))),
        1 => Some(("bronze", Some(false))),
        2 => Some(("silver", None)),
        _ => None,
    };
    if let Some((tier, certified)) = tier {
        let _ = writeln!(text, "  properties:\n    tier: {tier}");
        if let Some(certified) = certified {
            let _ = writeln!(text, "    certified: {certified}");
        }
    }
}

/// A range holding `provider`'s installed and consistent capability versions (`M.k.0`): a
/// minimum a few releases below the installed one, a maximum `M.x.x` or `M.n.x` a few above
/// the consistent one; either side may be open.
fn around(
    rng: &mut Rng,
    products: &[Product],
    provider: &Provider,
) -> (Option<String>, Option<String>) {
    let major = provider.major.unwrap_or(1);
    let target = &products[provider.product];
    let min = rng.chance(70).then(|| {
        let low = target.installed.saturating_sub(rng.below(SLACK + 1));
        format!("{major}.{}.0", low.max(provider.since))
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

/// An arbitrary window on `provider`'s capability versions: up to [`SPAN`] releases wide.
fn arbitrary(
    rng: &mut Rng,
    products: &[Product],
    provider: &Provider,
) -> (Option<String>, Option<String>) {
    let major = provider.major.unwrap_or(1);
    let last = products[provider.product].releases.len() - 1;
    let low = rng.below(last + 1);
    let high = (low + rng.below(SPAN + 1)).min(last);
    (
        Some(format!("{major}.{low}.0")),
        Some(format!("{major}.{high}.x")),
    )
}

/// A compound item of depth `depth` that holds in both states when `want`, and fails in both
/// otherwise: its children chosen true or false as the compound needs.
fn compound(
    rng: &mut Rng,
    products: &[Product],
    plan: &Plan,
    i: usize,
    want: bool,
    depth: usize,
) -> Item {
    let description = rng
        .chance(if depth == 1 { 50 } else { 10 })
        .then(|| DESCRIPTIONS[rng.below(DESCRIPTIONS.len())]);
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
        .map(|t| {
            if depth < DEPTH && rng.chance(25) {
                compound(rng, products, plan, i, t, depth + 1)
            } else {
                Item {
                    description: None,
                    node: atom(rng, products, plan, i, t),
                }
            }
        })
        .collect();
    Item {
        description,
        node: Node::Compound(kind, children),
    }
}

/// An atom that holds in both states when `want`, and fails in both otherwise.
fn atom(rng: &mut Rng, products: &[Product], plan: &Plan, i: usize, want: bool) -> Node {
    let roll = rng.below(100);
    let node = if roll < 40 {
        product_atom(rng, products, i, want)
    } else if roll < 75 {
        capability_atom(rng, products, plan, i, want)
    } else if roll < 94 {
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
    let last = releases.len() - 1;
    let mut keys = vec![("product", format!("{}:{}", target.group, target.name))];
    if want {
        let min = target.installed.saturating_sub(rng.below(SLACK + 1));
        if rng.chance(70) {
            keys.push(("minimum-version", releases[min].text.clone()));
        }
        if rng.chance(70) {
            let high = (target.consistent + rng.below(SLACK + 1)).min(last);
            let style = if rng.chance(50) {
                Style::Major
            } else {
                Style::Minor
            };
            let mut bound = matcher(&releases[high], style);
            if !covers(&releases[min], &bound, &releases[target.consistent]) {
                bound = matcher(&releases[target.consistent], Style::Major);
            }
            keys.push(("maximum-version", bound));
        }
    } else if target.consistent < last {
        // above both states
        keys.push(("minimum-version", releases[last].text.clone()));
    } else if target.installed > 0 {
        // below both states: the first release only
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
            format!("hard.retired/kind{:02}", rng.below(10)),
        ));
    } else {
        // Every provided version has a major of 3 at most.
        keys.push(("capability", capability.name.clone()));
        keys.push(("minimum-version", "9.0.0".to_owned()));
    }
    Some(Node::Atom(keys))
}
