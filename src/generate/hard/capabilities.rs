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

use super::{NEAR, Product, SPAN, render};
use crate::generate::section9::{
    Bounds, DEPTH, Family, Item, Plan, Provider, RUNTIME, Subject, compound, description,
    runtime_requirement, write_constraints, write_properties,
};
use crate::generate::{Generated, Rng};

/// Where the hard family's section 9 differs from the capability family's.
const FAMILY: Family = Family {
    capability: |c| format!("hard.io/v1/kind{c:02}"),
    retired: "hard.retired",
    requiring: 10,
    anchored: 100,
    rules: 6,
    from_since: true,
};

/// Is release `k` of `product` within [`NEAR`] of its installed or its consistent release?
fn near(product: &Subject, k: usize) -> bool {
    k.abs_diff(product.installed) <= NEAR || k.abs_diff(product.consistent) <= NEAR
}

/// Generates the hard family with section 9 over the hard family's `products`.
pub(super) fn generate(products: &[Product], rng: &mut Rng) -> Generated {
    let subjects = products.iter().map(|p| {
        Subject::new(
            (&p.group, &p.name),
            &p.releases,
            (p.installed, p.consistent),
        )
    });
    let plan = Plan::new(rng, subjects.collect(), &FAMILY);
    let mut generated = render(products, rng, |rng, i, k, text| {
        section9(rng, &plan, i, k, text);
    });
    generated.environment.push_str(RUNTIME);
    if let Some(consistent) = &mut generated.consistent {
        consistent.push_str(RUNTIME);
    }
    generated
}

/// Writes release `k` of product `i`'s section 9 lines (under `extensions:`): near releases
/// hold in both states, far ones are arbitrary.
fn section9(rng: &mut Rng, plan: &Plan, i: usize, k: usize, text: &mut String) {
    let product = &plan.products[i];
    let near = near(product, k);
    plan.write_capabilities(
        rng,
        (i, k),
        text,
        // a far release may stop providing it: a trap for a plan that moves there
        |rng| near || !rng.chance(33),
        |rng, provider| {
            if near {
                plan.around(rng, provider)
            } else {
                arbitrary(rng, &plan.products, provider)
            }
        },
    );
    if rng.chance(20) {
        // true in both states near them, anything elsewhere
        let want = near || rng.chance(50);
        write_constraints(text, &[compound_term(rng, plan, i, want, 1)]);
    }
    if rng.chance(5) {
        runtime_requirement(rng, k > product.consistent, text);
    }
    write_properties(text, i, false);
}

/// An arbitrary window on `provider`'s capability versions: up to [`SPAN`] releases wide.
fn arbitrary(rng: &mut Rng, products: &[Subject], provider: &Provider) -> Bounds {
    let major = provider.major.unwrap_or(1);
    let last = products[provider.product].releases.len() - 1;
    let low = rng.below(last + 1);
    let high = (low + rng.below(SPAN + 1)).min(last);
    (
        Some(format!("{major}.{low}.0")),
        Some(format!("{major}.{high}.x")),
    )
}

/// A compound item of product `i` at depth `depth` that holds in both states when `want`, and
/// fails in both otherwise; a quarter of its children nest (down to [`DEPTH`]), the others are
/// atoms without a description.
fn compound_term(rng: &mut Rng, plan: &Plan, i: usize, want: bool, depth: usize) -> Item {
    let description = description(rng, depth);
    compound(rng, want, description, |rng, t| {
        if depth < DEPTH && rng.chance(25) {
            compound_term(rng, plan, i, t, depth + 1)
        } else {
            Item {
                description: None,
                node: plan.atom(rng, i, t),
            }
        }
    })
}
