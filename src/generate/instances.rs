//! The instance family ([`super::Shape::Instances`]): the realistic family (the same
//! products, versions and dependencies for the same seed) plus SPEC section 10, built so the
//! environment is valid:
//! - 50 namespaces; a product many others need (the 43% with the most dependents, the share
//!   that leaves about 5% of entities binding across namespaces) runs in the global
//!   namespace, the others in one of 50 namespaces (`ns-00` .. `ns-49`, runs of neighbouring
//!   products, as dependencies mostly go to the products just before), with its second entity
//!   beside it;
//! - a consumer that cannot see a required dependency's entity binds it (a cross-namespace
//!   binding, Porter's user-provided resource);
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
    let layout = Layout::new(products, |_| false, |_| Vec::new());
    let generated = render(products, rng, |rng, i, _k, text| layout.wire(rng, i, text));
    let environment = placed(products, &generated.environment, &layout.namespaces(), rng);
    Generated {
        environment,
        ..generated
    }
}

/// The instance family over the capability family ([`super::Shape::InstancesCapabilities`]):
/// the capability family's catalog and `runtime:`/`policy:` with this family's namespaces,
/// labels, bindings and wiring besides, still valid. Besides the products most needed, those
/// that provide a capability and those a `product` atom of an installed release names run
/// in the global namespace, which every entity sees (an atom sees only its entity's
/// namespace and the global one, and no binding serves it); an atom of another release
/// may name a product in a namespace its entity cannot see, which a move to it then meets.
pub(super) fn generate_with_capabilities(products: &[Product], rng: &mut Rng) -> Generated {
    let plan = super::capabilities::plan(products, rng);
    let mut layout = Layout::new(
        products,
        |i| plan.provides_any(i),
        |i| plan.required_providers(i).collect(),
    );
    let index = by_name(products);
    let mut named: BTreeSet<usize> = BTreeSet::new();
    let generated = render(products, rng, |rng, i, k, text| {
        let from = text.len();
        super::capabilities::section9(rng, &plan, i, k, text);
        if k == products[i].installed {
            named.extend(text[from..].lines().filter_map(|line| {
                let atom = line.trim_start().trim_start_matches("- ");
                index.get(atom.strip_prefix("product: ")?).copied()
            }));
        }
        layout.wire(rng, i, text);
    });
    layout.global.extend(named);
    let mut environment = placed(products, &generated.environment, &layout.namespaces(), rng);
    super::capabilities::environment(rng, products, &mut environment);
    Generated {
        environment,
        ..generated
    }
}

/// Each product's place in `products` by its `group:name`.
fn by_name(products: &[Product]) -> BTreeMap<String, usize> {
    products
        .iter()
        .enumerate()
        .map(|(i, p)| (format!("{}:{}", p.group, p.name), i))
        .collect()
}

/// Where each product runs and which releases export and wire data.
struct Layout<'p> {
    products: &'p [Product],
    global: BTreeSet<usize>,
    exports: Vec<bool>,
    /// Products whose every path of dependencies (and of what else orders installation) goes
    /// to earlier products: wiring from them into a later product can close no cycle.
    downward: Vec<bool>,
}

impl<'p> Layout<'p> {
    /// The 43% of products with the most dependents and those `global` picks run in the
    /// global namespace. `before(i)`: the products installation orders before `i` besides
    /// its dependencies (the providers of the capabilities it requires).
    fn new(
        products: &'p [Product],
        global: impl Fn(usize) -> bool,
        before: impl Fn(usize) -> Vec<usize>,
    ) -> Self {
        let n = products.len();
        let mut dependents = vec![0usize; n];
        for p in products {
            for d in &p.deps {
                dependents[d.target] += 1;
            }
        }
        let mut by_need: Vec<usize> = (0..n).collect();
        by_need.sort_by_key(|&i| (std::cmp::Reverse(dependents[i]), i));
        let mut downward = vec![false; n];
        for i in 0..n {
            downward[i] = products[i]
                .deps
                .iter()
                .map(|d| d.target)
                .chain(before(i))
                .all(|t| t < i && downward[t]);
        }
        Layout {
            products,
            global: by_need
                .iter()
                .take(n * 43 / 100)
                .copied()
                .chain((0..n).filter(|&i| global(i)))
                .collect(),
            exports: (0..n).map(|i| i % 10 == 3).collect(),
            downward,
        }
    }

    /// Each product's namespace (`""` for the global one). The others are split into
    /// `NAMESPACES` runs of neighbours, numbered among themselves so every namespace gets a
    /// run: dependencies mostly go to the products just before, which then share it.
    fn namespaces(&self) -> Vec<String> {
        let scoped = self.products.len() - self.global.len();
        let mut rank = 0;
        (0..self.products.len())
            .map(|i| {
                if self.global.contains(&i) {
                    return String::new();
                }
                rank += 1;
                format!("ns-{:02}", (rank - 1) * NAMESPACES / scoped.max(1))
            })
            .collect()
    }

    /// Writes product `i`'s outputs and wired inputs (under `extensions:`).
    fn wire(&self, rng: &mut Rng, i: usize, text: &mut String) {
        let product = &self.products[i];
        if self.exports[i] {
            text.push_str("  outputs: [endpoint, secret]\n");
        }
        let wired: Vec<_> = product
            .deps
            .iter()
            .filter(|d| d.target < i && self.exports[d.target] && self.downward[d.target])
            .collect();
        if wired.is_empty() {
            return;
        }
        text.push_str("  inputs:\n");
        for (k, d) in wired.iter().enumerate() {
            let target = &self.products[d.target];
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
    }
}

/// The environment `render` wrote (`text`), its entities placed: namespaces, labels and the
/// bindings a consumer needs to reach a dependency in another namespace (and a few more).
fn placed(products: &[Product], text: &str, namespaces: &[String], rng: &mut Rng) -> String {
    // the entities render wrote, with the product each runs
    let entities = entities(text);
    let index = by_name(products);
    let first: BTreeMap<usize, &str> = entities
        .iter()
        .rev()
        .map(|(name, product, _)| (index[product], name.as_str()))
        .collect();
    let mut environment = String::from("environment: generated\nentities:\n");
    for (name, product, version) in &entities {
        let i = index[product];
        let ns = &namespaces[i];
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
            let theirs = &namespaces[d.target];
            if !(theirs.is_empty() || theirs == ns) {
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
