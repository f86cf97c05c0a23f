//! Benchmarks on the shared seeded workload (`compat::generate`). What each group measures,
//! the sizes and the latest figures are in BENCHMARKS.md. Run: `cargo bench --bench compat`,
//! or one group: `cargo bench --bench compat -- validate`.

use std::fmt::Write as _;
use std::hint::black_box;
use std::sync::Arc;

use compat::catalog::Catalog;
use compat::catalog::{Batch, Location, Scope};
use compat::environment::{self, Environment};
use compat::generate::{Generated, Params, Shape, generate};
use compat::plan::{self as planner, Request, Target};
use compat::product::ProductId;
use compat::version::Version;
use compat::{graph, loader, manifest, order, validate};
use criterion::{Criterion, Throughput, criterion_group, criterion_main};

/// The sizes of issue 3: small, medium, large.
const SIZES: [(&str, usize, usize); 3] = [
    ("small-100x10", 100, 10),
    ("medium-1000x20", 1000, 20),
    ("large-5000x40", 5000, 40),
];

fn workload(products: usize, releases: usize) -> Generated {
    generate(Params {
        products,
        releases,
        seed: 1,
        shape: Shape::Realistic,
    })
}

fn load(g: &Generated) -> (Catalog, Environment) {
    g.parse()
}

fn versions(c: &mut Criterion) {
    let g = workload(1000, 20);
    let (catalog, _) = load(&g);
    let texts: Vec<String> = catalog
        .products()
        .flat_map(|p| catalog.releases(p))
        .map(|m| m.version.to_string())
        .collect();
    let parsed: Vec<Version> = texts.iter().map(|t| Version::parse(t).unwrap()).collect();
    let mut group = c.benchmark_group("version");
    group.throughput(Throughput::Elements(texts.len() as u64));
    group.bench_function("parse", |b| {
        b.iter(|| {
            for t in &texts {
                black_box(Version::parse(black_box(t)).ok());
            }
        });
    });
    group.bench_function("compare", |b| {
        b.iter(|| {
            let mut less = 0usize;
            for pair in parsed.windows(2) {
                less += usize::from(black_box(&pair[0]) < black_box(&pair[1]));
            }
            less
        });
    });
    group.finish();
}

fn manifests(c: &mut Criterion) {
    let mut group = c.benchmark_group("load");
    group.sample_size(10);
    for (name, products, releases) in SIZES {
        let g = workload(products, releases);
        group.throughput(Throughput::Bytes(g.manifest_bytes() as u64));
        group.bench_function(format!("parse-manifests/{name}"), |b| {
            b.iter(|| {
                for (path, text) in &g.manifests {
                    black_box(manifest::parse(text, &Arc::from(path.as_str())).unwrap());
                }
            });
        });
        // Reading a catalog directory from disk end to end (walk, read, parse in parallel,
        // index).
        let dir = std::env::temp_dir().join(format!("compat-bench-{name}"));
        let files = g.manifests.iter().map(|(p, t)| (dir.join(p), t.as_str()));
        loader::write_files(files).unwrap();
        group.bench_function(format!("catalog-dir/{name}"), |b| {
            b.iter(|| black_box(Location::Directory(dir.join("catalog")).open().unwrap()));
        });
    }
    group.finish();
}

fn validation(c: &mut Criterion) {
    let mut group = c.benchmark_group("validate");
    for (name, products, releases) in SIZES {
        let g = workload(products, releases);
        let (catalog, env) = load(&g);
        group.throughput(Throughput::Elements(env.entities.len() as u64));
        group.bench_function(name, |b| {
            b.iter(|| black_box(validate::validate(&env, &catalog)));
        });
    }
    // 10,000 entities: the figure issue 2 asks for.
    let g = workload(10_000, 5);
    let (catalog, env) = load(&g);
    group.throughput(Throughput::Elements(env.entities.len() as u64));
    group.bench_function("entities-10000", |b| {
        b.iter(|| black_box(validate::validate(&env, &catalog)));
    });
    group.finish();
}

fn database(c: &mut Criterion) {
    let mut group = c.benchmark_group("catalog-db");
    group.sample_size(10);
    // Import: YAML parse + one transaction, into a fresh database each time.
    let (name, products, releases) = SIZES[1];
    let g = workload(products, releases);
    let dir = std::env::temp_dir().join(format!("compat-bench-db-{name}"));
    let files = g.manifests.iter().map(|(p, t)| (dir.join(p), t.as_str()));
    loader::write_files(files).unwrap();
    let sources = loader::read_sources(&[dir.join("catalog")]).unwrap();
    let batch = Batch::check(sources, Vec::new()).unwrap();
    group.throughput(Throughput::Elements((products * releases) as u64));
    group.bench_function(format!("import/{name}"), |b| {
        b.iter(|| {
            let db = dir.join("bench.db");
            let _ = std::fs::remove_file(&db);
            let mut store = Location::Sqlite(db).create_store().unwrap();
            black_box(store.import(&batch, false).unwrap())
        });
    });
    // Validate from the database: read the installed releases, then validate (the
    // environment is already parsed; BENCHMARKS.md gives the end-to-end command too).
    let (name, products, releases) = SIZES[2];
    let g = workload(products, releases);
    let dir = std::env::temp_dir().join(format!("compat-bench-db-{name}"));
    let db = dir.join("catalog.db");
    if !db.exists() {
        let files = g.manifests.iter().map(|(p, t)| (dir.join(p), t.as_str()));
        loader::write_files(files).unwrap();
        let sources = loader::read_sources(&[dir.join("catalog")]).unwrap();
        let batch = Batch::check(sources, Vec::new()).unwrap();
        Location::Sqlite(db.clone())
            .create_store()
            .unwrap()
            .import(&batch, false)
            .unwrap();
    }
    let env = environment::parse(&g.environment, &Arc::from("env.yml"), "env").unwrap();
    let wanted = Scope::entities(&env);
    let location = Location::Sqlite(db);
    group.throughput(Throughput::Elements(env.entities.len() as u64));
    group.bench_function(format!("validate/{name}"), |b| {
        b.iter(|| {
            let store = location.open().unwrap();
            let catalog = store.load(&wanted).unwrap();
            black_box(validate::validate(&env, &catalog))
        });
    });
    group.finish();
}

fn ordering(c: &mut Criterion) {
    let mut group = c.benchmark_group("order");
    // Every entity ordered as for a new environment: the largest order there is.
    let g = workload(10_000, 5);
    let (catalog, env) = load(&g);
    group.throughput(Throughput::Elements(env.entities.len() as u64));
    group.bench_function("from-scratch-10000", |b| {
        b.iter(|| {
            let graph = graph::build(&env, &catalog, None);
            black_box(order::install_order(&graph, true))
        });
    });
    group.finish();
}

fn planning(c: &mut Criterion) {
    let mut group = c.benchmark_group("plan");
    group.sample_size(10);
    let (name, products, releases) = SIZES[2];
    let g = workload(products, releases);
    let (catalog, env) = load(&g);
    // A product that many others depend on (low numbers are the popular core ones).
    let core = ProductId::parse("com.gen.team01:svc-00001").unwrap();
    group.bench_function(format!("target-core/{name}"), |b| {
        let r = Request::new(vec![Target::Newest(core.clone())], false);
        b.iter(|| black_box(planner::plan(&env, &catalog, &r)));
    });
    let leaf = ProductId::parse("com.gen.team39:svc-04999").unwrap();
    group.bench_function(format!("target-leaf/{name}"), |b| {
        let r = Request::new(vec![Target::Newest(leaf.clone())], false);
        b.iter(|| black_box(planner::plan(&env, &catalog, &r)));
    });
    group.bench_function(format!("all/{name}"), |b| {
        let r = Request::new(Vec::new(), true);
        b.iter(|| black_box(planner::plan(&env, &catalog, &r)));
    });
    group.finish();
}

fn upgrading(c: &mut Criterion) {
    let mut group = c.benchmark_group("upgrades");
    group.sample_size(10);
    let (name, products, releases) = SIZES[2];
    let g = workload(products, releases);
    let (catalog, env) = load(&g);
    group.throughput(Throughput::Elements(products as u64));
    group.bench_function(format!("in-memory/{name}"), |b| {
        b.iter(|| black_box(compat::upgrade::upgrades(&env, &catalog, false)));
    });
    // From the database, as the command runs: read the releases of the installed products.
    // (The database is the one `catalog-db` builds.)
    let db = std::env::temp_dir()
        .join(format!("compat-bench-db-{name}"))
        .join("catalog.db");
    if db.exists() {
        let wanted = Scope::Products {
            floors: catalog.products().map(|p| (p.clone(), None)).collect(),
            closure: false,
        };
        let location = Location::Sqlite(db);
        group.bench_function(format!("from-db/{name}"), |b| {
            b.iter(|| {
                let store = location.open().unwrap();
                let loaded = store.load(&wanted).unwrap();
                black_box(compat::upgrade::upgrades(&env, &loaded, false))
            });
        });
    }
    group.finish();
}

/// The planning engine on the hard family of issue 12 (`generate --hard`): arbitrary
/// dependency windows away from the installed and a hidden consistent state, long co-upgrade
/// chains. In memory (the catalog loaded once); end-to-end figures from the database are in
/// BENCHMARKS.md. Every answer here is proven (no time limit is set).
fn hard(c: &mut Criterion) {
    hard_family(c, "hard", Shape::Hard);
}

/// The hard family with section 9 (`generate --hard --capabilities`, issue 15): the same
/// questions over capabilities, compound constraints, rules and runtime requirements, and
/// validate and order (every entity) in memory.
fn hard_capabilities(c: &mut Criterion) {
    hard_family(c, "hard-capabilities", Shape::HardCapabilities);
}

/// The planning questions of one hard family in memory at 200, 1,000 and 5,000 products x
/// 40 (at 5,000 the issues' targets only: validate, order, `upgrades` and `plan --all`; a
/// single target and an explanation are measured at the smaller sizes).
fn hard_family(c: &mut Criterion, family: &str, shape: Shape) {
    let mut group = c.benchmark_group(family);
    group.sample_size(10);
    for (name, products) in [("200x40", 200), ("1000x40", 1000), ("5000x40", 5000)] {
        let g = generate(Params {
            products,
            releases: 40,
            seed: 1,
            shape,
        });
        let (catalog, env) = load(&g);
        if shape == Shape::HardCapabilities {
            group.bench_function(format!("validate/{name}"), |b| {
                b.iter(|| black_box(validate::validate(&env, &catalog)));
            });
            group.bench_function(format!("order/{name}"), |b| {
                b.iter(|| {
                    let graph = graph::build(&env, &catalog, None);
                    black_box(order::install_order(&graph, true))
                });
            });
        }
        group.bench_function(format!("upgrades/{name}"), |b| {
            b.iter(|| black_box(compat::upgrade::upgrades(&env, &catalog, false)));
        });
        group.bench_function(format!("plan-all/{name}"), |b| {
            let r = Request::new(Vec::new(), true);
            b.iter(|| black_box(planner::plan(&env, &catalog, &r)));
        });
        if products > 1000 {
            continue;
        }
        // A product early in the catalog: many later products depend on it.
        let early = ProductId::parse("com.gen.team05:svc-00005").unwrap();
        group.bench_function(format!("target/{name}"), |b| {
            let r = Request::new(vec![Target::Newest(early.clone())], false);
            b.iter(|| black_box(planner::plan(&env, &catalog, &r)));
        });
        // The first latest release no co-upgrade reaches, as an exact target: the plan is its
        // explanation (core, minimization, chain, fixes checked).
        let rows = compat::upgrade::upgrades(&env, &catalog, false);
        let blocked = rows
            .iter()
            .find(|u| u.proven && !u.latest_installable && u.latest.is_some())
            .expect("the hard family has unreachable latest releases");
        let version = Version::parse(blocked.latest.as_deref().unwrap()).unwrap();
        let exact = Request::new(vec![Target::Exact(blocked.product.clone(), version)], false);
        group.bench_function(format!("explain/{name}"), |b| {
            b.iter(|| black_box(planner::plan(&env, &catalog, &exact)));
        });
    }
    group.finish();
}

/// Invalid starts (`generate --stale 10`: every tenth product at its oldest release, the
/// catalog unchanged): items failing today stand while no move can change their truth
/// (SPEC 9.3) and plans repair first. `upgrades` and `plan --all` at 1,000 x 40 in memory;
/// figures at 5,000 from the database are in BENCHMARKS.md.
fn stale(c: &mut Criterion) {
    let mut group = c.benchmark_group("stale");
    group.sample_size(10);
    for (name, shape) in [
        ("capabilities/1000x40", Shape::Capabilities),
        ("hard-capabilities/1000x40", Shape::HardCapabilities),
    ] {
        let mut g = generate(Params {
            products: 1000,
            releases: 40,
            seed: 1,
            shape,
        });
        g.stale(10);
        let (catalog, env) = load(&g);
        group.bench_function(format!("upgrades/{name}"), |b| {
            b.iter(|| black_box(compat::upgrade::upgrades(&env, &catalog, false)));
        });
        group.bench_function(format!("plan-all/{name}"), |b| {
            let r = Request::new(Vec::new(), true);
            b.iter(|| black_box(planner::plan(&env, &catalog, &r)));
        });
    }
    group.finish();
}

/// The capability family (section 9, issue 15) at 5,000 x 40: validate and order (every
/// entity, as `order --from-scratch`: the generated environment manages none) in memory and
/// from a SQLite catalog (the store opened and the environment's releases read each time, as
/// the commands do; the environment already parsed).
fn capabilities(c: &mut Criterion) {
    family(c, "capabilities", Shape::Capabilities);
}

/// The instance family (section 10, issue 16) at 5,000 x 40: the same questions over
/// namespaces, labels, bindings and wired inputs (order lists bindings and wiring), and
/// `plan --all` in memory.
fn instances(c: &mut Criterion) {
    family(c, "instances", Shape::Instances);
}

/// Both sections at once (`generate --instances --capabilities`) at 5,000 x 40: capability
/// requirements and atoms judged from namespaces beside bindings and wiring; the same
/// questions as the instance family.
fn instances_capabilities(c: &mut Criterion) {
    family(c, "instances-capabilities", Shape::InstancesCapabilities);
}

/// Validate and order of one generated family, in memory and from a SQLite catalog; for the
/// instance families `plan --all` too.
fn family(c: &mut Criterion, family: &str, shape: Shape) {
    let mut group = c.benchmark_group(family);
    group.sample_size(10);
    let (name, products, releases) = SIZES[2];
    let g = generate(Params {
        products,
        releases,
        seed: 1,
        shape,
    });
    let (catalog, env) = load(&g);
    group.throughput(Throughput::Elements(env.entities.len() as u64));
    group.bench_function(format!("validate/in-memory/{name}"), |b| {
        b.iter(|| black_box(validate::validate(&env, &catalog)));
    });
    group.bench_function(format!("order/in-memory/{name}"), |b| {
        b.iter(|| {
            let graph = graph::build(&env, &catalog, None);
            black_box(order::install_order(&graph, true))
        });
    });
    if matches!(shape, Shape::Instances | Shape::InstancesCapabilities) {
        let all = Request::new(vec![], true);
        group.bench_function(format!("plan-all/in-memory/{name}"), |b| {
            b.iter(|| black_box(planner::plan(&env, &catalog, &all)));
        });
    }
    let dir = std::env::temp_dir().join(format!("compat-bench-{family}-{name}"));
    let db = dir.join("catalog.db");
    if !db.exists() {
        let files = g.manifests.iter().map(|(p, t)| (dir.join(p), t.as_str()));
        loader::write_files(files).unwrap();
        let sources = loader::read_sources(&[dir.join("catalog")]).unwrap();
        let batch = Batch::check(sources, Vec::new()).unwrap();
        Location::Sqlite(db.clone())
            .create_store()
            .unwrap()
            .import(&batch, false)
            .unwrap();
    }
    let wanted = Scope::entities(&env);
    let location = Location::Sqlite(db);
    group.bench_function(format!("validate/from-db/{name}"), |b| {
        b.iter(|| {
            let store = location.open().unwrap();
            let catalog = store.load(&wanted).unwrap();
            black_box(validate::validate(&env, &catalog))
        });
    });
    group.bench_function(format!("order/from-db/{name}"), |b| {
        b.iter(|| {
            let store = location.open().unwrap();
            let catalog = store.load(&wanted).unwrap();
            let graph = graph::build(&env, &catalog, None);
            black_box(order::install_order(&graph, true))
        });
    });
    group.finish();
}

/// One product spread over many namespaces (section 10, issue 16): agent runs in each of
/// 1,000 namespaces and needs a metrics provider; a collector stands in every tenth, a hub
/// globally (the shape of `testdata/instances/many-namespaces`). Each agent release gets an
/// item per namespace, and a rolling plan moves 1,100 entities one by one: what is measured
/// is that both stay linear in the entities, not quadratic.
fn spread(c: &mut Criterion) {
    let mut group = c.benchmark_group("spread");
    group.sample_size(10);
    let namespaces = 1000;
    let mut catalog_text = String::new();
    for (product, version, yaml) in [
        (
            "agent",
            "1.0.0",
            "requires: [{name: metrics, minimum-version: 1.0.0}]",
        ),
        (
            "agent",
            "2.0.0",
            "requires: [{name: metrics, minimum-version: 1.7.0}]",
        ),
        (
            "collector",
            "1.6.0",
            "provides: [{name: metrics, version: 1.6.0}]",
        ),
        (
            "collector",
            "1.7.0",
            "provides: [{name: metrics, version: 1.7.0}]",
        ),
        (
            "hub",
            "1.7.0",
            "provides: [{name: metrics, version: 1.7.0}]",
        ),
    ] {
        write!(
            catalog_text,
            "---\nmanifest-version: \"1.0\"\nproduct-group: g\nproduct-name: {product}\n\
             product-version: {version}\nextensions:\n  capabilities:\n    {yaml}\n"
        )
        .unwrap();
    }
    let mut env_text = String::from("entities:\n  - {name: hub, product: g:hub, version: 1.7.0}\n");
    for i in 0..namespaces {
        writeln!(
            env_text,
            "  - {{name: agent-{i:04}, product: g:agent, version: 1.0.0, namespace: t{i:04}}}"
        )
        .unwrap();
        if i % 10 == 0 {
            writeln!(
                env_text,
                "  - {{name: collector-{i:04}, product: g:collector, version: 1.6.0, \
                 namespace: t{i:04}}}"
            )
            .unwrap();
        }
    }
    let manifests = manifest::parse(&catalog_text, &Arc::from("catalog.yml")).expect("parses");
    let catalog = Catalog::from_manifests(manifests).expect("no duplicates");
    let env = environment::parse(&env_text, &Arc::from("env.yml"), "env").expect("env");
    group.throughput(Throughput::Elements(env.entities.len() as u64));
    let name = format!("agent-in-{namespaces}-namespaces");
    group.bench_function(format!("upgrades/{name}"), |b| {
        b.iter(|| black_box(compat::upgrade::upgrades(&env, &catalog, false)));
    });
    group.bench_function(format!("plan-all/{name}"), |b| {
        let all = Request::new(vec![], true);
        b.iter(|| black_box(planner::plan(&env, &catalog, &all)));
    });
    creating(&mut group, 10_000);
    group.finish();
}

/// `plan --all --allow-install` where every one of `namespaces` consumers, each in its own
/// namespace, needs a product nobody runs: the plan creates one entity per namespace. The
/// creations and the steps that install them must stay linear in the entities (they were
/// quadratic: 18 s at 3,000 namespaces, 26 s at 30,000 with the first fix).
fn creating(
    group: &mut criterion::BenchmarkGroup<'_, criterion::measurement::WallTime>,
    namespaces: usize,
) {
    let catalog_text = "manifest-version: \"1.0\"\nproduct-group: g\nproduct-name: a\n\
        product-version: 1.0.0\nextensions:\n  product-dependencies:\n\
        \x20   - {product-group: g, product-name: b, minimum-version: 1.0.0, maximum-version: 1.x.x}\n\
        ---\nmanifest-version: \"1.0\"\nproduct-group: g\nproduct-name: b\n\
        product-version: 1.0.0\n";
    let mut env_text = String::from("entities:\n");
    for i in 0..namespaces {
        writeln!(
            env_text,
            "  - {{name: a{i:05}, product: g:a, version: 1.0.0, namespace: t{i:05}}}"
        )
        .unwrap();
    }
    let manifests = manifest::parse(catalog_text, &Arc::from("catalog.yml")).expect("parses");
    let catalog = Catalog::from_manifests(manifests).expect("no duplicates");
    let env = environment::parse(&env_text, &Arc::from("env.yml"), "env").expect("env");
    let mut install = Request::new(vec![], true);
    install.policy.allow_install = true;
    let plan = planner::plan(&env, &catalog, &install);
    assert_eq!(plan.steps.len(), namespaces, "one creation per namespace");
    group.throughput(Throughput::Elements(namespaces as u64));
    group.bench_function(
        format!("plan-all-allow-install/create-in-{namespaces}-namespaces"),
        |b| {
            b.iter(|| black_box(planner::plan(&env, &catalog, &install)));
        },
    );
}

criterion_group!(
    benches,
    versions,
    manifests,
    validation,
    database,
    ordering,
    planning,
    upgrading,
    hard,
    hard_capabilities,
    stale,
    capabilities,
    instances,
    instances_capabilities,
    spread
);
criterion_main!(benches);
