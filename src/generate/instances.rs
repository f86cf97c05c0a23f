//! The instance family ([`super::Shape::Instances`]): the realistic family (the same
//! products, versions and dependencies for the same seed) plus SPEC section 10, built so the
//! environment is valid:
//! - 50 namespaces; a product many others need (two in five, those with the most dependents) runs
//!   in the global namespace, the others in one of 50 namespaces (`ns-00` .. `ns-49`, runs of
//!   neighbouring products, as dependencies mostly go to the products just before), with its
//!   second entity beside it;
//! - a consumer that cannot see a required dependency's entity binds it (a cross-namespace
//!   binding, Porter's user-provided resource); besides those, about 1% of entities bind a
//!   dependency they already see to its serving entity;
//! - about 20% of entities carry labels (`team`, `tier`);
//! - about 10% of products declare outputs (`endpoint`, `secret`) in every release, and each
//!   release that depends on an earlier such product wires an input from it (data edges follow
//!   the dependency order, so they never form a cycle), one in four order-only.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write;

use super::{Generated, Product, Rng, render};

/// How many namespaces the environment spreads over.
const NAMESPACES: usize = 50;

pub(super) fn generate(products: &[Product], rng: &mut Rng) -> Generated {
    let n = products.len();
    let mut dependents = vec![0usize; n];
    for p in products {
        for d in &p.deps {
            dependents[d.target] += 1;
        }
    }
    let mut by_need: Vec<usize> = (0..n).collect();
    by_need.sort_by_key(|&i| (std::cmp::Reverse(dependents[i]), i));
    let global: BTreeSet<usize> = by_need.iter().take(n * 2 / 5).copied().collect();
    let namespace = |i: usize| -> String {
        if global.contains(&i) {
            String::new()
        } else {
            // neighbours share a namespace: dependencies mostly go to the products just before
            format!("ns-{:02}", i * NAMESPACES / n.max(1))
        }
    };
    let exports: Vec<bool> = (0..n).map(|i| i % 10 == 3).collect();
    // products whose every dependency path goes to earlier products: wiring from them into
    // a later product can close no cycle
    let mut downward = vec![false; n];
    for i in 0..n {
        downward[i] = products[i]
            .deps
            .iter()
            .all(|d| d.target < i && downward[d.target]);
    }
    let generated = render(products, rng, |rng, i, _k, text| {
        let product = &products[i];
        if exports[i] {
            text.push_str("  outputs: [endpoint, secret]\n");
        }
        let wired: Vec<_> = product
            .deps
            .iter()
            .filter(|d| d.target < i && exports[d.target] && downward[d.target])
            .collect();
        if wired.is_empty() {
            return;
        }
        text.push_str("  inputs:\n");
        for (k, d) in wired.iter().enumerate() {
            let target = &products[d.target];
            let _ = write!(
                text,
                "    - name: in-{k}\n      from: {}:{}\n",
                target.group, target.name
            );
            if rng.chance(75) {
                text.push_str("      output: endpoint\n");
            }
            if d.optional {
                text.push_str("      optional: true\n");
            }
        }
    });
    let environment = placed(products, &generated.environment, &namespace, rng);
    Generated {
        environment,
        ..generated
    }
}

/// The environment `render` wrote (`text`), its entities placed: namespaces, labels and the
/// bindings a consumer needs to reach a dependency in another namespace (and a few more).
fn placed(
    products: &[Product],
    text: &str,
    namespace: &impl Fn(usize) -> String,
    rng: &mut Rng,
) -> String {
    // the entities render wrote, with the product each runs
    let entities = entities(text);
    let index: BTreeMap<String, usize> = products
        .iter()
        .enumerate()
        .map(|(i, p)| (format!("{}:{}", p.group, p.name), i))
        .collect();
    let first: BTreeMap<usize, &str> = entities
        .iter()
        .rev()
        .map(|(name, product, _)| (index[product], name.as_str()))
        .collect();
    let mut environment = String::from("environment: generated\nentities:\n");
    for (name, product, version) in &entities {
        let i = index[product];
        let ns = namespace(i);
        let _ = write!(
            environment,
            "  - name: {name}\n    product: {product}\n    version: {version}\n"
        );
        if !ns.is_empty() {
            let _ = writeln!(environment, "    namespace: {ns}");
        }
        if rng.chance(20) {
            let _ = writeln!(
                environment,
                "    labels: {{team: t{:02}, tier: {}}}",
                i % 17,
                ["gold", "silver"][i % 2]
            );
        }
        let mut bindings = Vec::new();
        for d in products[i].deps.iter().filter(|d| !d.optional) {
            let theirs = namespace(d.target);
            let visible = theirs.is_empty() || theirs == ns;
            if !visible || rng.chance(1) {
                let target = &products[d.target];
                bindings.push(format!(
                    "      {}:{}: {}",
                    target.group, target.name, first[&d.target]
                ));
            }
        }
        if !bindings.is_empty() {
            let _ = writeln!(environment, "    bindings:\n{}", bindings.join("\n"));
        }
    }
    environment
}

/// `(name, product, version)` of every entity of an environment `render` wrote.
fn entities(text: &str) -> Vec<(String, String, String)> {
    let mut out: Vec<(String, String, String)> = Vec::new();
    let mut name: Option<String> = None;
    let mut product: Option<String> = None;
    for line in text.lines() {
        let line = line.trim_start_matches([' ', '-']);
        if let Some(v) = line.strip_prefix("name: ") {
            name = Some(v.to_owned());
        } else if let Some(v) = line.strip_prefix("product: ") {
            product = Some(v.to_owned());
        } else if let Some(v) = line.strip_prefix("version: ") {
            let product = product.take().unwrap_or_default();
            let name = name.take().unwrap_or_else(|| {
                product
                    .split_once(':')
                    .map_or(product.clone(), |(_, n)| n.to_owned())
            });
            out.push((name, product, v.to_owned()));
        }
    }
    out
}
