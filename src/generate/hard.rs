use super::{
    Generated, Release, Rng, Style, covers, manifest_file, matcher, write_dependency, write_entity,
};

/// The hard family with section 9 ([`super::Shape::HardCapabilities`]).
mod capabilities;

/// How near (in release indices) to the installed or the consistent release a release's
/// windows are built to hold the dependency's needed releases.
const NEAR: usize = 6;
/// Most releases a far release's arbitrary window spans, beyond its first.
const SPAN: usize = 20;
/// Most releases of slack on either side of a near release's window.
const SLACK: usize = 3;
/// How far back "mostly among the products before it" reaches.
const LOCAL: usize = 50;
/// Percent of a near release's dependencies that refuse what is installed (so moving
/// the release drags the dependency along): the length of co-upgrade chains.
const CASCADE: u64 = 25;

struct Product {
    group: String,
    name: String,
    releases: Vec<Release>,
    /// Index of the release in the hidden consistent state.
    consistent: usize,
    /// Index of the installed release: 1-4 below `consistent` (at least 0).
    installed: usize,
}

/// `count` plain releases `1.0.0, 1.0.1, 1.1.0, ...`: three patch bumps for one minor.
fn versions(rng: &mut Rng, count: usize) -> Vec<Release> {
    let mut core = (1, 0, 0);
    (0..count)
        .map(|k| {
            if k > 0 {
                core = if rng.chance(75) {
                    (core.0, core.1, core.2 + 1)
                } else {
                    (core.0, core.1 + 1, 0)
                };
            }
            Release {
                core,
                text: format!("{}.{}.{}", core.0, core.1, core.2),
                plain: true,
            }
        })
        .collect()
}

/// Up to four distinct other products, mostly among the [`LOCAL`] before `i`.
fn targets(rng: &mut Rng, i: usize, count: usize) -> Vec<usize> {
    let mut out: Vec<usize> = Vec::new();
    for _ in 0..rng.below(5) {
        let target = if rng.chance(5) {
            Some(rng.below(count))
        } else {
            (i > 0).then(|| i - 1 - rng.below(i.min(LOCAL)))
        };
        if let Some(t) = target.filter(|&t| t != i && !out.contains(&t)) {
            out.push(t);
        }
    }
    out
}

pub(super) fn generate(count: usize, releases: usize, seed: u64) -> Generated {
    let mut rng = Rng(seed);
    let products = products(&mut rng, count, releases);
    render(&products, &mut rng, |_, _, _, _| {})
}

/// The hard family with section 9 ([`super::Shape::HardCapabilities`]).
pub(super) fn generate_with_capabilities(count: usize, releases: usize, seed: u64) -> Generated {
    let mut rng = Rng(seed);
    let products = products(&mut rng, count, releases);
    capabilities::generate(&products, &mut rng)
}

/// The products with their releases and both states.
fn products(rng: &mut Rng, count: usize, releases: usize) -> Vec<Product> {
    (0..count)
        .map(|i| {
            let releases = versions(rng, releases);
            let n = releases.len();
            let consistent = if rng.chance(60) {
                n - 1
            } else {
                n / 2 + rng.below(n - n / 2)
            };
            let installed = consistent.saturating_sub(1 + rng.below(4));
            Product {
                group: format!("com.gen.team{:02}", i % 40),
                name: format!("svc-{i:05}"),
                releases,
                consistent,
                installed,
            }
        })
        .collect()
}

/// Renders the products: each release's dependencies, then what `section9(rng, product,
/// release, text)` writes (lines under `extensions:`); the installed and the consistent state.
fn render(
    products: &[Product],
    rng: &mut Rng,
    mut section9: impl FnMut(&mut Rng, usize, usize, &mut String),
) -> Generated {
    let mut manifests = Vec::with_capacity(products.len());
    for (i, product) in products.iter().enumerate() {
        let file = manifest_file(
            &product.group,
            &product.name,
            &product.releases,
            |k, text| {
                // Each release picks its own dependencies, as real catalogs drift over time.
                let deps: Vec<(usize, bool)> = targets(rng, i, products.len())
                    .into_iter()
                    .map(|t| (t, rng.chance(25)))
                    .collect();
                let mut more = String::new();
                section9(rng, i, k, &mut more);
                if deps.is_empty() && more.is_empty() {
                    return;
                }
                text.push_str("extensions:\n");
                if !deps.is_empty() {
                    text.push_str("  product-dependencies:\n");
                }
                let near_installed = k.abs_diff(product.installed) <= NEAR;
                let near = near_installed || k.abs_diff(product.consistent) <= NEAR;
                for &(target, optional) in &deps {
                    let target = &products[target];
                    let mut needed = Vec::with_capacity(2);
                    if near {
                        needed.push(target.consistent);
                    }
                    if k == product.installed {
                        needed.push(target.installed);
                    }
                    let (mut min, bound) = window(rng, target, &needed);
                    if near
                        && k != product.installed
                        && target.installed < target.consistent
                        && rng.chance(CASCADE)
                    {
                        // Only the installed release accepts what is installed: moving drags
                        // the dependency along, so upgrades cascade.
                        min = min.max(target.installed + 1);
                    }
                    write_dependency(
                        text,
                        (&target.group, &target.name),
                        &target.releases[min].text,
                        &bound,
                        optional,
                    );
                }
                text.push_str(&more);
            },
        );
        manifests.push(file);
    }
    manifests.sort();
    let state = |name: &str, at: fn(&Product) -> usize| {
        let mut text = format!("environment: {name}\nentities:\n");
        for product in products {
            let version = &product.releases[at(product)].text;
            write_entity(&mut text, &product.group, &product.name, version);
        }
        text
    };
    Generated {
        manifests,
        environment: state("generated", |p| p.installed),
        entities: products.len(),
        consistent: Some(state("consistent", |p| p.consistent)),
    }
}

/// A window on `target`'s releases as (index of the minimum, maximum matcher). With
/// `needed` empty it is arbitrary; otherwise it holds every needed release, checked on
/// the rendered bound and widened to `1.x.x` where a matcher would miss one.
fn window(rng: &mut Rng, target: &Product, needed: &[usize]) -> (usize, String) {
    let last = target.releases.len() - 1;
    let needs = needed.iter().min().zip(needed.iter().max());
    let (lo, hi) = if let Some((&low, &high)) = needs {
        let lo = low.saturating_sub(rng.below(SLACK + 1));
        (lo, (high + rng.below(SLACK + 1)).min(last))
    } else {
        let lo = rng.below(last + 1);
        (lo, (lo + rng.below(SPAN + 1)).min(last))
    };
    let style = match rng.below(3) {
        0 => Style::Exact,
        1 => Style::Minor,
        _ => Style::Major,
    };
    let releases = &target.releases;
    let holds = |bound: &str| {
        needed
            .iter()
            .all(|&n| covers(&releases[lo], bound, &releases[n]))
    };
    let mut bound = matcher(&releases[hi], style);
    if !holds(&bound) {
        bound = matcher(&releases[hi], Style::Major);
    }
    debug_assert!(
        holds(&bound),
        "a needed release is below the window's minimum"
    );
    (lo, bound)
}
