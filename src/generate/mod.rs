//! A seeded generator of realistic catalogs and environments, shared by the benchmarks, the
//! tests and the hidden `compat generate` command. Same parameters, same bytes.
//!
//! The shape follows what real platforms look like:
//! - each product has `releases` versions, mostly patch bumps, some minor, a few major; about
//!   one release in ten is preceded by a release candidate and one in twenty is followed by a
//!   snapshot;
//! - most products depend on a few others (none for about 15%, otherwise 1 + a geometric number,
//!   at most 8), chosen with a skew towards low-numbered "core" products, as popular base
//!   services are depended on by many; about a quarter of dependencies are optional;
//! - ranges follow time: release `k` of a product accepts its dependency's releases from a few
//!   before `k` up to a matcher a few after it, written `X.x.x` (45%), `X.Y.x` (40%) or exact
//!   (15%); so newer releases need newer dependencies and upgrades are sometimes blocked;
//! - about 0.5% of products form two-product cycles of required dependencies, and about 2% of
//!   releases declare an incompatibility with an old release of another product;
//! - the environment runs every product a little behind its newest release (one entity each,
//!   a second entity for 3% of products) and is valid by construction: where a release's
//!   natural window would miss the dependency's installed version, that release's range is
//!   widened to include it.
//!
//! The hard family ([`Shape::Hard`]) is built to defeat a search that checks forward but learns
//! no conflicts. Every product has `releases` plain releases `1.x.y` and depends on 0-4
//! products, mostly among the 50 before it (5% anywhere, so some cycles appear; a quarter
//! optional). A hidden consistent state is chosen first (the newest release for 60% of
//! products, else one in the upper half) and the environment installs each product 1-4
//! releases below it. Releases within 6 of either point get windows that hold the
//! dependency's consistent release (a quarter of them also above its installed one; only the
//! installed release's windows hold the dependency's installed release), with a little slack; every other
//! release gets an arbitrary window of up to 21 releases. Each release picks its own
//! dependencies. Both states are valid (checked on the rendered text), so upgrades exist, but
//! moving one product drags its dependencies along in long co-upgrade chains, and the releases
//! nearest to what is installed are traps. [`Generated::consistent`] holds the hidden state
//! as an environment.
//!
//! The tenant family ([`tenants`], its own function: a fixed catalog of four products, the
//! size set by how many namespaces) runs section 10 at scale; `generate/tenants.rs`
//! describes it.
//!
//! The random numbers come from SplitMix64, written here so the output cannot change with a
//! dependency's version.

use std::collections::BTreeMap;
use std::fmt::Write;

/// What to generate.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Params {
    pub products: usize,
    pub releases: usize,
    pub seed: u64,
    pub shape: Shape,
}

/// Which family of catalogs to generate.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shape {
    /// What real platforms look like (the module documentation describes it).
    Realistic,
    /// Adversarial for the planner: every dependency is a two-sided window of one or two
    /// releases with an exact maximum, and none is optional.
    Tight,
    /// A hidden consistent state behind arbitrary windows: hard for a search without
    /// conflict learning (the module documentation describes it).
    Hard,
    /// The hard family plus section 9: capabilities, compound constraints, CEL rules and
    /// runtime requirements, true in both states near them and arbitrary elsewhere (the
    /// module `generate/hard/capabilities.rs` describes it).
    HardCapabilities,
    /// The realistic family plus section 9: capabilities, constraints, runtime requirements,
    /// properties, deprecations, and an environment with `runtime:` and `policy:` (the
    /// module `generate/capabilities.rs` describes it).
    Capabilities,
    /// The realistic family plus section 10: namespaces, labels, bindings, outputs and wired
    /// inputs (the module `generate/instances.rs` describes it).
    Instances,
    /// Both: the capability family's catalog and environment placed and wired as the
    /// instance family's (`instances::generate_with_capabilities`).
    InstancesCapabilities,
}

/// A generated catalog (one multi-document YAML file per product) and environment.
#[derive(Clone, Debug)]
pub struct Generated {
    /// `(relative path, YAML text)`, sorted by path.
    pub manifests: Vec<(String, String)>,
    /// The environment file's YAML text.
    pub environment: String,
    /// How many entities the environment has.
    pub entities: usize,
    /// [`Shape::Hard`] and [`Shape::HardCapabilities`] only: the hidden consistent state (every product at the release the
    /// catalog was built around) as an environment file's YAML text; it is valid too.
    pub consistent: Option<String>,
}

impl Generated {
    /// The catalog and the environment, parsed (for tests, benches and examples).
    ///
    /// # Panics
    /// When a generated file does not parse, or two manifests are one release: a fault of
    /// the generator, never of input a user gave.
    #[must_use]
    pub fn parse(&self) -> (crate::catalog::Catalog, crate::environment::Environment) {
        let manifests = self.manifests.iter().flat_map(|(path, text)| {
            crate::manifest::parse(text, &std::sync::Arc::from(path.as_str()))
                .unwrap_or_else(|e| panic!("{e}"))
        });
        let catalog =
            crate::catalog::Catalog::from_manifests(manifests).unwrap_or_else(|e| panic!("{e:?}"));
        let env =
            crate::environment::parse(&self.environment, &std::sync::Arc::from("env.yml"), "env")
                .unwrap_or_else(|e| panic!("{e}"));
        (catalog, env)
    }

    /// Total bytes of manifest text.
    #[must_use]
    pub fn manifest_bytes(&self) -> usize {
        self.manifests.iter().map(|(_, text)| text.len()).sum()
    }

    /// An invalid start: every `every`-th product the environment names (in the order it
    /// first names them, from the first) runs its oldest release on every entity of it, as
    /// an environment left behind while its neighbours moved on does. The catalog stays as
    /// it is. Its releases' dependencies, incompatibilities and section 9 items that held at
    /// the installed release mostly break at the oldest one, and so do the items of others
    /// that read it; the consistent state (hard families) is unchanged. `every` 0 changes
    /// nothing.
    pub fn stale(&mut self, every: usize) {
        if every == 0 {
            return;
        }
        // a product's oldest release: the first version its file lists (each family writes
        // its releases in order)
        let oldest: BTreeMap<String, &str> = self
            .manifests
            .iter()
            .filter_map(|(_, text)| {
                let field = |key: &str| {
                    text.lines()
                        .find_map(|l| l.strip_prefix(key))
                        .map(str::trim)
                };
                let product = format!("{}:{}", field("product-group:")?, field("product-name:")?);
                Some((product, field("product-version:")?))
            })
            .collect();
        let mut named: BTreeMap<String, usize> = BTreeMap::new();
        let mut current: Option<String> = None;
        let mut out = String::with_capacity(self.environment.len());
        for line in self.environment.split_inclusive('\n') {
            let bare = line.trim_start_matches([' ', '-']);
            if let Some(product) = bare.strip_prefix("product: ") {
                current = Some(product.trim().to_owned());
            }
            let stale_version = bare.starts_with("version: ").then(|| {
                let product = current.take()?;
                let k = named.len();
                let k = *named.entry(product.clone()).or_insert(k);
                (k % every == every - 1).then(|| oldest.get(&product).copied())?
            });
            match stale_version.flatten() {
                Some(version) => {
                    let indent = &line[..line.len() - line.trim_start().len()];
                    let _ = writeln!(out, "{indent}version: {version}");
                }
                None => out.push_str(line),
            }
        }
        self.environment = out;
    }
}

/// SplitMix64: tiny, fast, and stable forever (the fuzzer shares it).
pub struct Rng(pub u64);

impl Rng {
    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `0..n` (`0` when `n` is 0).
    pub fn below(&mut self, n: usize) -> usize {
        // The modulo bias is far below anything a benchmark shape could show.
        usize::try_from(self.next_u64() % (n.max(1) as u64)).unwrap_or(0)
    }

    /// True with probability `percent / 100`.
    fn chance(&mut self, percent: u64) -> bool {
        self.next_u64() % 100 < percent
    }

    /// Uniform in `[0, 1)`.
    #[allow(clippy::cast_precision_loss)] // 53 random bits are all a float can hold anyway
    fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// One generated version.
#[derive(Clone, Debug)]
struct Release {
    core: (u32, u32, u32),
    text: String,
    plain: bool,
}

#[derive(Clone, Debug)]
struct Dep {
    target: usize,
    optional: bool,
    /// How many releases before the depending release's index the window starts.
    behind: usize,
    /// How many releases after it the upper matcher is taken from.
    ahead: usize,
    style: Style,
}

#[derive(Clone, Copy, Debug)]
enum Style {
    Major,
    Minor,
    Exact,
}

struct Product {
    group: String,
    name: String,
    releases: Vec<Release>,
    deps: Vec<Dep>,
    /// Index of the installed release.
    installed: usize,
}

fn versions(rng: &mut Rng, count: usize) -> Vec<Release> {
    let mut out = Vec::with_capacity(count);
    let mut core = (u32::try_from(1 + rng.below(3)).unwrap_or(1), 0, 0);
    let mut first = true;
    while out.len() < count {
        if !first {
            let roll = rng.below(100);
            core = if roll < 60 {
                (core.0, core.1, core.2 + 1)
            } else if roll < 90 {
                (core.0, core.1 + 1, 0)
            } else {
                (core.0 + 1, 0, 0)
            };
        }
        let base = format!("{}.{}.{}", core.0, core.1, core.2);
        if !first && rng.chance(10) && out.len() + 1 < count {
            out.push(Release {
                core,
                text: format!("{base}-rc{}", 1 + rng.below(3)),
                plain: false,
            });
        }
        out.push(Release {
            core,
            text: base.clone(),
            plain: true,
        });
        if rng.chance(5) && out.len() < count {
            out.push(Release {
                core,
                text: format!(
                    "{base}-{}-g{:07x}",
                    1 + rng.below(40),
                    rng.next_u64() & 0xfff_ffff
                ),
                plain: false,
            });
        }
        first = false;
    }
    out.truncate(count);
    out
}

/// The newest plain release at or below `index`.
fn release_at_or_below(releases: &[Release], index: usize) -> usize {
    (0..=index.min(releases.len() - 1))
        .rev()
        .find(|&i| releases[i].plain)
        .unwrap_or(0)
}

fn matcher(release: &Release, style: Style) -> String {
    let (a, b, c) = release.core;
    match style {
        Style::Major => format!("{a}.x.x"),
        Style::Exact if release.plain => format!("{a}.{b}.{c}"),
        Style::Minor | Style::Exact => format!("{a}.{b}.x"),
    }
}

/// Is `v` inside `[min, bound]`, comparing cores only (all mins are plain releases, and every
/// installed version is a plain release)?
fn covers(min: &Release, bound: &str, v: &Release) -> bool {
    if v.core < min.core {
        return false;
    }
    let fields: Vec<&str> = bound.split('.').collect();
    let parts = [v.core.0, v.core.1, v.core.2];
    for (field, actual) in fields.iter().zip(parts) {
        match field.parse::<u32>() {
            Err(_) => return true,
            Ok(n) if actual < n => return true,
            Ok(n) if actual > n => return false,
            Ok(_) => {}
        }
    }
    true
}

/// Generates a catalog and environment.
#[must_use]
pub fn generate(params: Params) -> Generated {
    let Params {
        products: count,
        releases,
        seed,
        shape,
    } = params;
    let releases = releases.max(1);
    if shape == Shape::Hard {
        return hard::generate(count, releases, seed);
    }
    if shape == Shape::HardCapabilities {
        return hard::generate_with_capabilities(count, releases, seed);
    }
    let mut rng = Rng(seed);
    let products = realistic(&mut rng, count, releases, shape == Shape::Tight);
    if shape == Shape::Capabilities {
        return capabilities::generate(&products, &mut rng);
    }
    if shape == Shape::Instances {
        return instances::generate(&products, &mut rng);
    }
    if shape == Shape::InstancesCapabilities {
        return instances::generate_with_capabilities(&products, &mut rng);
    }
    render(&products, &mut rng, |_, _, _, _| {})
}

/// The products of the realistic (or tight) family with their versions, installed releases
/// and dependencies.
fn realistic(rng: &mut Rng, count: usize, releases: usize, tight: bool) -> Vec<Product> {
    let mut products: Vec<Product> = (0..count)
        .map(|i| {
            let releases = versions(rng, releases);
            let newest = releases.len() - 1;
            let lag = rng.below(3);
            Product {
                group: format!("com.gen.team{:02}", i % 40),
                name: format!("svc-{i:05}"),
                installed: release_at_or_below(&releases, newest.saturating_sub(lag)),
                releases,
                deps: Vec::new(),
            }
        })
        .collect();
    for (i, product) in products.iter_mut().enumerate().skip(1) {
        let fan_out = if rng.chance(15) {
            0
        } else {
            let mut n = 1;
            while n < 8 && rng.chance(45) {
                n += 1;
            }
            n
        };
        let mut targets: Vec<usize> = Vec::new();
        for _ in 0..fan_out {
            // Skewed towards the low-numbered core products.
            let u = rng.unit();
            #[allow(
                clippy::cast_possible_truncation,
                clippy::cast_sign_loss,
                clippy::cast_precision_loss
            )]
            let target = ((i as f64) * u * u) as usize;
            if target < i && !targets.contains(&target) {
                targets.push(target);
            }
        }
        product
            .deps
            .extend(targets.into_iter().map(|t| random_dep(rng, t, tight)));
    }
    // A few two-product cycles of required dependencies.
    for i in 0..count {
        if count > 2 && rng.below(1000) < 5 {
            let j = (i + 1 + rng.below(20)).min(count - 1);
            if j != i {
                for (from, to) in [(i, j), (j, i)] {
                    if !products[from].deps.iter().any(|d| d.target == to) {
                        let mut dep = random_dep(rng, to, tight);
                        dep.optional = false;
                        products[from].deps.push(dep);
                    }
                }
            }
        }
    }
    products
}

fn random_dep(rng: &mut Rng, target: usize, tight: bool) -> Dep {
    let roll = rng.below(100);
    if tight {
        return Dep {
            target,
            optional: false,
            behind: rng.below(2),
            ahead: rng.below(2),
            style: Style::Exact,
        };
    }
    Dep {
        target,
        optional: rng.chance(25),
        behind: 3 + rng.below(8),
        ahead: rng.below(7),
        style: if roll < 45 {
            Style::Major
        } else if roll < 85 {
            Style::Minor
        } else {
            Style::Exact
        },
    }
}

/// Renders the products: their manifests, each release's extensions after its dependencies
/// and incompatibilities followed by what `section9(rng, product, release, text)` writes (lines
/// under `extensions:`), and the environment.
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
                let incompatible = if products.len() > 2 && rng.chance(2) {
                    let other = (i + 1 + rng.below(products.len() - 1)) % products.len();
                    let other = &products[other];
                    // "Not beside the first release of X": only when X runs something newer.
                    (other.installed > 0).then_some(other)
                } else {
                    None
                };
                let mut more = String::new();
                section9(rng, i, k, &mut more);
                if product.deps.is_empty() && incompatible.is_none() && more.is_empty() {
                    return;
                }
                text.push_str("extensions:\n");
                if !product.deps.is_empty() {
                    text.push_str("  product-dependencies:\n");
                    for dep in &product.deps {
                        write_dep(text, product, k, dep, &products[dep.target]);
                    }
                }
                if let Some(other) = incompatible {
                    let _ = write!(
                        text,
                        "  product-incompatibilities:\n    - product-group: {}\n      \
                     product-name: {}\n      maximum-version: {}\n      \
                     reason: \"retired protocol\"\n",
                        other.group, other.name, other.releases[0].text,
                    );
                }
                text.push_str(&more);
            },
        );
        manifests.push(file);
    }
    manifests.sort();
    let mut environment = String::from("environment: generated\nentities:\n");
    let mut entities = 0;
    for product in products {
        let version = &product.releases[product.installed].text;
        write_entity(&mut environment, &product.group, &product.name, version);
        entities += 1;
        if rng.chance(3) {
            let _ = writeln!(
                environment,
                "  - name: {}-2\n    product: {}:{}\n    version: {version}",
                product.name, product.group, product.name
            );
            entities += 1;
        }
    }
    Generated {
        manifests,
        environment,
        entities,
        consistent: None,
    }
}

/// One product's catalog file, `(path, text)`: its releases as YAML documents, each the
/// common header followed by what `extensions` writes for release `k`.
fn manifest_file(
    group: &str,
    name: &str,
    releases: &[Release],
    mut extensions: impl FnMut(usize, &mut String),
) -> (String, String) {
    let mut text = String::new();
    for (k, release) in releases.iter().enumerate() {
        if k > 0 {
            text.push_str("---\n");
        }
        write_header(&mut text, group, name, &release.text);
        extensions(k, &mut text);
    }
    (format!("catalog/{group}/{name}.yml"), text)
}

/// The lines every generated manifest opens with.
fn write_header(text: &mut String, group: &str, name: &str, version: &str) {
    let _ = write!(
        text,
        "manifest-version: \"1.0\"\nproduct-type: service.v1\nproduct-group: {group}\n\
         product-name: {name}\nproduct-version: {version}\n",
    );
}

/// One entity of an environment file, named after its product.
fn write_entity(environment: &mut String, group: &str, name: &str, version: &str) {
    let _ = writeln!(
        environment,
        "  - product: {group}:{name}\n    version: {version}"
    );
}

/// One `product-dependencies` entry.
fn write_dependency(
    text: &mut String,
    target: (&str, &str),
    min: &str,
    bound: &str,
    optional: bool,
) {
    let (group, name) = target;
    let _ = write!(
        text,
        "    - product-group: {group}\n      product-name: {name}\n      minimum-version: {min}\n      \
         maximum-version: {bound}\n"
    );
    if optional {
        text.push_str("      optional: true\n");
    }
}

fn write_dep(text: &mut String, product: &Product, k: usize, dep: &Dep, target: &Product) {
    let last = target.releases.len() - 1;
    let mut min = release_at_or_below(&target.releases, k.saturating_sub(dep.behind));
    let mut bound = matcher(&target.releases[(k + dep.ahead).min(last)], dep.style);
    if k == product.installed {
        // Valid by construction: the installed release accepts what is installed.
        let installed = &target.releases[target.installed];
        if !covers(&target.releases[min], &bound, installed) {
            min = min.min(target.installed);
            if !covers(&target.releases[min], &bound, installed) {
                bound = matcher(installed, Style::Major);
            }
        }
    }
    write_dependency(
        text,
        (&target.group, &target.name),
        &target.releases[min].text,
        &bound,
        dep.optional,
    );
}

/// The hard family ([`Shape::Hard`]).
mod hard;

/// The capability family ([`Shape::Capabilities`]).
mod capabilities;
/// The instance family ([`Shape::Instances`]).
mod instances;
/// Section 9 as both capability families build it.
mod section9;
/// The tenant family: section 10 at scale, thousands of namespaces.
mod tenants;
pub use tenants::tenants;

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::catalog::Catalog;
    use crate::finding::Severity;
    use crate::{environment, manifest, validate};

    fn load(g: &Generated) -> (Catalog, environment::Environment) {
        g.parse()
    }

    /// Asserts `env` has no error finding against `catalog` (`what`: which case, for the
    /// failure message).
    fn assert_valid(env: &environment::Environment, catalog: &Catalog, what: &str) {
        let errors = error_messages(env, catalog);
        assert!(errors.is_empty(), "{what}: {errors:#?}");
    }

    /// The messages of `env`'s error findings against `catalog`.
    fn error_messages(env: &environment::Environment, catalog: &Catalog) -> Vec<String> {
        validate::validate(env, catalog)
            .findings()
            .filter(|f| f.severity == Severity::Error)
            .map(|f| f.message.clone())
            .collect()
    }

    fn hard(products: usize, releases: usize, seed: u64) -> Generated {
        generate(Params {
            products,
            releases,
            seed,
            shape: Shape::Hard,
        })
    }

    #[test]
    fn same_seed_same_bytes_other_seed_other_bytes() {
        let params = Params {
            products: 50,
            releases: 8,
            seed: 7,
            shape: Shape::Realistic,
        };
        let a = generate(params);
        let b = generate(params);
        assert_eq!(a.manifests, b.manifests);
        assert_eq!(a.environment, b.environment);
        let c = generate(Params { seed: 8, ..params });
        assert_ne!(a.environment, c.environment);
    }

    #[test]
    fn catalogs_parse_and_environments_are_valid_by_construction() {
        for (seed, shape) in (0..5).flat_map(|s| [(s, Shape::Realistic), (s, Shape::Tight)]) {
            let g = generate(Params {
                products: 300,
                releases: 12,
                seed,
                shape,
            });
            let (catalog, env) = load(&g);
            assert_eq!(catalog.len(), 300 * 12, "seed {seed}");
            assert_eq!(env.entities.len(), g.entities);
            assert_valid(&env, &catalog, &format!("seed {seed}"));
        }
    }

    #[test]
    fn hard_same_seed_same_bytes_other_seed_other_bytes() {
        let (a, b, c) = (hard(60, 40, 3), hard(60, 40, 3), hard(60, 40, 4));
        assert_eq!(a.manifests, b.manifests);
        assert_eq!(a.environment, b.environment);
        assert_eq!(a.consistent, b.consistent);
        assert_ne!(a.manifests, c.manifests);
        assert_ne!(a.environment, c.environment);
    }

    #[test]
    fn hard_installed_and_consistent_states_are_valid_by_construction() {
        for seed in 0..5 {
            let g = hard(60, 40, seed);
            let (catalog, env) = load(&g);
            assert_eq!(catalog.len(), 60 * 40, "seed {seed}");
            assert_eq!(env.entities.len(), 60);
            assert_eq!(g.entities, 60);
            assert_valid(&env, &catalog, &format!("seed {seed}, installed"));
            let text = g.consistent.as_deref().unwrap();
            let consistent = environment::parse(text, &Arc::from("c.yml"), "c").unwrap();
            assert_eq!(consistent.entities.len(), 60);
            assert_valid(&consistent, &catalog, &format!("seed {seed}, consistent"));
            // Upgrades exist: the hidden state is newer than what runs, product by product.
            for (now, then) in env.entities.iter().zip(&consistent.entities) {
                assert_eq!(now.product, then.product);
                assert!(now.version < then.version, "{}", now.product);
            }
        }
    }

    #[test]
    fn the_hard_shape_mostly_misses_what_is_installed() {
        let g = hard(200, 40, 1);
        let (catalog, env) = load(&g);
        let installed: std::collections::BTreeMap<_, _> = env
            .entities
            .iter()
            .map(|e| (&e.product, &e.version))
            .collect();
        let releases: Vec<_> = catalog
            .products()
            .flat_map(|p| catalog.releases(p))
            .collect();
        let deps: Vec<_> = releases.iter().flat_map(|m| &m.dependencies).collect();
        let missed = deps
            .iter()
            .filter(|d| !d.range.contains(installed[&d.product]))
            .count();
        let optional = deps.iter().filter(|d| d.optional).count();
        // Plain `1.x.y` releases only, 0-4 dependencies each, a quarter optional, and more
        // than 30% of dependency windows leave out the installed version.
        assert!(
            releases
                .iter()
                .all(|m| m.version.is_release() && m.version.major() == 1)
        );
        assert!(releases.iter().all(|m| m.dependencies.len() <= 4));
        assert!(
            (deps.len() * 10 / releases.len()).abs_diff(18) < 5,
            "{}",
            deps.len()
        );
        assert!(
            (optional * 100 / deps.len()).abs_diff(25) < 8,
            "{optional}/{}",
            deps.len()
        );
        assert!(missed * 100 > deps.len() * 30, "{missed}/{}", deps.len());
    }

    /// `products` x `releases` of family `shape`.
    fn shaped(shape: Shape, products: usize, releases: usize, seed: u64) -> Generated {
        generate(Params {
            products,
            releases,
            seed,
            shape,
        })
    }

    fn hard_capabilities(products: usize, releases: usize, seed: u64) -> Generated {
        shaped(Shape::HardCapabilities, products, releases, seed)
    }

    #[test]
    fn hard_capabilities_same_seed_same_bytes_and_the_plain_hard_family_unchanged() {
        let (a, b, c) = (
            hard_capabilities(120, 20, 3),
            hard_capabilities(120, 20, 3),
            hard_capabilities(120, 20, 4),
        );
        assert_eq!(a.manifests, b.manifests);
        assert_eq!(
            (&a.environment, &a.consistent),
            (&b.environment, &b.consistent)
        );
        assert_ne!(a.manifests, c.manifests);
        // the same products, versions and states as the hard family of the seed
        let plain = hard(120, 20, 3);
        let entities = |text: &str| {
            text.split_once("runtime:")
                .map_or(text, |(e, _)| e)
                .to_owned()
        };
        assert_eq!(entities(&a.environment), plain.environment);
        assert_eq!(
            entities(a.consistent.as_deref().unwrap()),
            plain.consistent.unwrap()
        );
    }

    /// The messages of every `invalid-manifest` issue in `catalog`.
    fn invalid_manifests(catalog: &Catalog) -> Vec<String> {
        catalog
            .products()
            .flat_map(|p| catalog.releases(p))
            .flat_map(|m| &m.issues)
            .filter(|i| i.code == crate::finding::Code::InvalidManifest)
            .map(|i| i.message.clone())
            .collect()
    }

    #[test]
    fn hard_capabilities_both_states_are_valid_and_section_9_is_used() {
        for seed in 0..3 {
            let g = hard_capabilities(200, 30, seed);
            let (catalog, env) = load(&g);
            assert_eq!(catalog.len(), 200 * 30, "seed {seed}");
            let issues = invalid_manifests(&catalog);
            assert!(issues.is_empty(), "seed {seed}: {issues:#?}");
            assert_valid(&env, &catalog, &format!("seed {seed}, installed"));
            let text = g.consistent.as_deref().unwrap();
            let consistent = environment::parse(text, &Arc::from("c.yml"), "c").unwrap();
            assert_eq!(consistent.runtime, env.runtime);
            assert_valid(&consistent, &catalog, &format!("seed {seed}, consistent"));
        }
        let g = hard_capabilities(1000, 12, 1);
        let (catalog, _) = load(&g);
        let releases: Vec<_> = catalog
            .products()
            .flat_map(|p| catalog.releases(p))
            .collect();
        let share = |f: &dyn Fn(&manifest::Manifest) -> bool| {
            releases.iter().filter(|m| f(m)).count() * 100 / releases.len()
        };
        let mut providers =
            std::collections::BTreeMap::<&str, std::collections::BTreeSet<_>>::new();
        for m in &releases {
            for p in &m.facets().provides {
                providers
                    .entry(p.name.as_str())
                    .or_default()
                    .insert(&m.product);
            }
        }
        assert_eq!(providers.len(), 50);
        assert!(providers.values().all(|p| (1..=5).contains(&p.len())));
        let providing: std::collections::BTreeSet<_> = providers.values().flatten().collect();
        assert!(
            (8..=16).contains(&(providing.len() / 10)),
            "{}",
            providing.len()
        );
        assert!(share(&|m| !m.facets().requires.is_empty()).abs_diff(10) < 4);
        let compound = share(&|m| {
            m.facets()
                .constraints
                .iter()
                .any(|t| t.kind.compound_name().is_some())
        });
        assert!(compound.abs_diff(20) < 3, "{compound}");
        assert!(g.manifests.iter().any(|(_, text)| text.contains("rule: ")));
        assert!(share(&|m| !m.facets().runtime.is_empty()).abs_diff(5) < 2);
    }

    fn capabilities(products: usize, releases: usize, seed: u64) -> Generated {
        shaped(Shape::Capabilities, products, releases, seed)
    }

    #[test]
    fn capabilities_same_seed_same_bytes_other_seed_other_bytes() {
        let (a, b, c) = (
            capabilities(80, 10, 5),
            capabilities(80, 10, 5),
            capabilities(80, 10, 6),
        );
        assert_eq!(a.manifests, b.manifests);
        assert_eq!(a.environment, b.environment);
        assert_ne!(a.manifests, c.manifests);
        assert_ne!(a.environment, c.environment);
    }

    #[test]
    fn capability_catalogs_are_well_formed_and_environments_valid_with_upgrades() {
        for seed in 0..4 {
            let g = capabilities(300, 12, seed);
            let (catalog, env) = load(&g);
            assert_eq!(catalog.len(), 300 * 12, "seed {seed}");
            // Every section 9 entry is well formed: no manifest issue at the error level.
            let issues = invalid_manifests(&catalog);
            assert!(issues.is_empty(), "seed {seed}: {issues:#?}");
            assert!(!env.runtime.is_empty(), "seed {seed}");
            assert_valid(&env, &catalog, &format!("seed {seed}"));
            let rows = crate::upgrade::upgrades(&env, &catalog, false);
            let safe = rows.iter().filter(|r| r.safe.is_some()).count();
            assert!(safe > 30, "seed {seed}: {safe} safe upgrades");
            assert_eq!(rows.iter().filter(|r| r.pinned).count(), 1, "seed {seed}");
        }
    }

    /// A stale environment runs every tenth product the environment names at its oldest
    /// release, every other entity as before, and is invalid: the start `upgrades` and
    /// `plan` must also cope with.
    #[test]
    fn a_stale_environment_runs_every_tenth_product_at_its_oldest_release() {
        let fresh = capabilities(300, 12, 1);
        let mut stale = fresh.clone();
        stale.stale(10);
        let (catalog, before) = load(&fresh);
        let (_, after) = load(&stale);
        assert_eq!(before.entities.len(), after.entities.len());
        let mut order: Vec<&crate::product::ProductId> = Vec::new();
        let mut moved = 0;
        for (was, now) in before.entities.iter().zip(&after.entities) {
            assert_eq!((&was.name, &was.product), (&now.name, &now.product));
            if !order.contains(&&was.product) {
                order.push(&was.product);
            }
            let k = order.iter().position(|p| **p == was.product).unwrap();
            let oldest = &catalog.releases(&was.product)[0].version;
            if k % 10 == 9 {
                assert_eq!(now.version, *oldest, "{}", now.name);
                moved += usize::from(was.version != *oldest);
            } else {
                assert_eq!(now.version, was.version, "{}", now.name);
            }
        }
        assert!(moved > 20, "{moved} entities moved back");
        assert!(error_messages(&before, &catalog).is_empty());
        assert!(error_messages(&after, &catalog).len() > 20);
        let mut same = fresh.clone();
        same.stale(0);
        assert_eq!(same.environment, fresh.environment);
    }

    #[test]
    fn the_instance_shape_is_valid_deterministic_and_uses_section_10() {
        let instances = |products, seed| shaped(Shape::Instances, products, 10, seed);
        let (a, b) = (instances(300, 4), instances(300, 4));
        assert_eq!((a.manifests, a.environment), (b.manifests, b.environment));
        assert_ne!(instances(300, 4).environment, instances(300, 5).environment);
        for seed in 0..4 {
            let g = instances(600, seed);
            let (catalog, env) = load(&g);
            assert_valid(&env, &catalog, &format!("seed {seed}"));
            let placed = |f: &dyn Fn(&crate::instance::Placement) -> bool| {
                env.entities.iter().filter(|e| f(&e.placement)).count() * 100 / env.entities.len()
            };
            let namespaces: std::collections::BTreeSet<&str> = env
                .entities
                .iter()
                .map(|e| e.placement.namespace.as_str())
                .collect();
            // every one of the 50 namespaces, and the global one
            assert_eq!(namespaces.len(), 51, "seed {seed}");
            assert!(placed(&|p| !p.labels.is_empty()).abs_diff(20) < 5);
            let bound = placed(&|p| !p.bindings.is_empty());
            assert!((2..9).contains(&bound), "{bound}% bind");
            let wired = catalog
                .products()
                .flat_map(|p| catalog.releases(p))
                .filter(|m| !m.facets().inputs.is_empty())
                .count();
            assert!(wired * 100 / catalog.len() >= 5, "{wired}");
        }
    }

    /// Both sections at once stay valid: capability requirements and the atoms of installed
    /// releases are served across namespaces, as the family places their products.
    #[test]
    fn the_instances_with_capabilities_shape_is_valid_and_uses_both_sections() {
        let both = |products, seed| shaped(Shape::InstancesCapabilities, products, 10, seed);
        let (a, b) = (both(300, 4), both(300, 4));
        assert_eq!((a.manifests, a.environment), (b.manifests, b.environment));
        for seed in 0..3 {
            let g = both(600, seed);
            let (catalog, env) = load(&g);
            assert_valid(&env, &catalog, &format!("seed {seed}"));
            let namespaced = env
                .entities
                .iter()
                .filter(|e| !e.placement.namespace.is_empty())
                .count();
            assert!(namespaced * 100 / env.entities.len() > 20, "{namespaced}");
            let (mut requiring, mut constrained) = (0, 0);
            for m in catalog.products().flat_map(|p| catalog.releases(p)) {
                requiring += usize::from(!m.facets().requires.is_empty());
                constrained += usize::from(!m.facets().constraints.is_empty());
            }
            assert!(
                requiring > 100 && constrained > 100,
                "{requiring} {constrained}"
            );
            assert!(g.environment.contains("policy:") && g.environment.contains("runtime:"));
        }
    }

    #[test]
    fn the_capability_shape_uses_all_of_section_9() {
        let g = capabilities(1000, 10, 1);
        let (catalog, env) = load(&g);
        let facets: Vec<_> = catalog
            .products()
            .flat_map(|p| catalog.releases(p))
            .filter_map(|m| m.facets.clone())
            .collect();
        let count = |f: &dyn Fn(&manifest::Facets) -> bool| facets.iter().filter(|x| f(x)).count();
        let releases = catalog.len();
        // Capabilities provided by several products, with and without versions.
        let mut providers = std::collections::BTreeMap::<&str, (usize, usize)>::new();
        for f in &facets {
            for p in &f.provides {
                let entry = providers.entry(p.name.as_str()).or_default();
                entry.0 += 1;
                entry.1 += usize::from(p.version.is_none());
            }
        }
        assert_eq!(providers.len(), 50);
        assert!(providers.values().filter(|(n, _)| *n > 10).count() > 20);
        assert!(providers.values().any(|(_, unversioned)| *unversioned > 0));
        let requires: Vec<_> = facets.iter().flat_map(|f| &f.requires).collect();
        assert!(requires.iter().any(|r| r.optional));
        assert!(requires.iter().any(|r| r.prefer.is_some()));
        assert!(requires.iter().any(|r| r.range.minimum.is_some()));
        // About 20% of releases with constraints, some nested, some described, a few rules.
        let constrained = count(&|f| !f.constraints.is_empty());
        assert!(
            (constrained * 100 / releases).abs_diff(20) < 4,
            "{constrained}"
        );
        let terms: Vec<_> = facets.iter().flat_map(|f| &f.constraints).collect();
        let nested = |t: &manifest::Term| match &t.kind {
            manifest::TermKind::Atom(_) => false,
            manifest::TermKind::AnyOf(c)
            | manifest::TermKind::AllOf(c)
            | manifest::TermKind::NoneOf(c) => c.iter().any(|c| c.kind.compound_name().is_some()),
        };
        assert!(terms.iter().any(|t| nested(t)));
        assert!(terms.iter().any(|t| t.description.is_some()));
        for kind in ["any-of", "all-of", "none-of"] {
            assert!(
                terms.iter().any(|t| t.kind.compound_name() == Some(kind)),
                "{kind}"
            );
        }
        assert!(g.manifests.iter().any(|(_, text)| text.contains("rule: ")));
        let runtime = count(&|f| !f.runtime.is_empty());
        assert!((runtime * 100 / releases).abs_diff(5) < 3, "{runtime}");
        assert!(count(&|f| f.deprecated.is_some()) > 20);
        assert!(count(&|f| !f.properties.is_empty()) > releases / 2);
        assert!(!env.policy.pin.is_empty() && env.policy.exclude.len() == 2);
    }

    #[test]
    fn the_shape_is_realistic() {
        let g = generate(Params {
            products: 1000,
            releases: 10,
            seed: 1,
            shape: Shape::Realistic,
        });
        let (catalog, _) = load(&g);
        let newest: Vec<_> = catalog
            .products()
            .filter_map(|p| catalog.releases(p).last())
            .collect();
        let deps: usize = newest.iter().map(|m| m.dependencies.len()).sum();
        let optional = newest
            .iter()
            .flat_map(|m| &m.dependencies)
            .filter(|d| d.optional)
            .count();
        let incompatibilities: usize = catalog
            .products()
            .flat_map(|p| catalog.releases(p))
            .map(|m| m.incompatibilities.len())
            .sum();
        let non_release = catalog
            .products()
            .flat_map(|p| catalog.releases(p))
            .filter(|m| !m.version.is_release())
            .count();
        // a few dependencies each, a quarter optional, some rcs/snapshots, a few incompatibilities
        assert!((1500..4000).contains(&deps), "{deps}");
        assert!(
            (optional * 100 / deps).abs_diff(25) < 6,
            "{optional}/{deps}"
        );
        assert!((500..2500).contains(&non_release), "{non_release}");
        assert!(incompatibilities > 20, "{incompatibilities}");
    }
}
