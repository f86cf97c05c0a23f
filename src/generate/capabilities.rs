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
    DEPTH, Family, Item, Plan, RUNTIME, Subject, compound, description, runtime_requirement,
    write_constraints, write_properties,
};
use super::{Generated, Product, Rng, render};

/// Where the capability family's section 9 differs from the hard family's.
const FAMILY: Family = Family {
    capability: |c| {
        if c % 2 == 0 {
            format!("gen.io/v1/kind{c:02}")
        } else {
            format!("cap-{c:02}")
        }
    },
    retired: "gen.retired",
    requiring: 12,
    anchored: 75,
    rules: 4,
    from_since: false,
};

/// Generates the capability family over the realistic family's `products`.
pub(super) fn generate(products: &[Product], rng: &mut Rng) -> Generated {
    let plan = plan(products, rng);
    let mut generated = render(products, rng, |rng, i, k, text| {
        section9(rng, &plan, i, k, text);
    });
    environment(rng, products, &mut generated.environment);
    generated
}

/// Who provides and requires what: one state, the items hold at the installed release.
pub(super) fn plan<'a>(products: &'a [Product], rng: &mut Rng) -> Plan<'a> {
    let subjects = products
        .iter()
        .map(|p| Subject::new((&p.group, &p.name), &p.releases, (p.installed, p.installed)));
    Plan::new(rng, subjects.collect(), &FAMILY)
}

/// Writes release `k` of product `i`'s section 9 lines (under `extensions:`).
pub(super) fn section9(rng: &mut Rng, plan: &Plan, i: usize, k: usize, text: &mut String) {
    let product = &plan.products[i];
    plan.write_capabilities(
        rng,
        (i, k),
        text,
        |_| true,
        |rng, provider| plan.around(rng, provider),
    );
    if rng.chance(20) {
        let items: Vec<Item> = (0..=rng.below(2))
            .map(|_| term(rng, plan, i, true, 1))
            .collect();
        write_constraints(text, &items);
    }
    if rng.chance(5) {
        runtime_requirement(rng, k > product.installed, text);
    }
    let deprecated = k < product.installed && rng.chance(4);
    write_properties(text, i, deprecated);
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

/// A constraint item of product `i`, a compound of depth `depth` or an atom, that holds in the
/// installed state when `want`, and fails there otherwise.
fn term(rng: &mut Rng, plan: &Plan, i: usize, want: bool, depth: usize) -> Item {
    let nested = depth <= DEPTH && rng.chance(if depth == 1 { 60 } else { 25 });
    let description = description(rng, depth);
    if !nested {
        return Item {
            description,
            node: plan.atom(rng, i, want),
        };
    }
    compound(rng, want, description, |rng, t| {
        term(rng, plan, i, t, depth + 1)
    })
}

/// Appends `runtime:` and `policy:` to the environment: a pin and a CVE exclusion, each on a
/// product with a newer plain release than its installed one, and the rule excluding retired
/// releases.
pub(super) fn environment(rng: &mut Rng, products: &[Product], environment: &mut String) {
    environment.push_str(RUNTIME);
    environment.push_str("policy:\n");
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
