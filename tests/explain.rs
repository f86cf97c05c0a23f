//! Explanations of infeasible questions come from the conflict the engine proved: they name
//! the real cause and nothing else (the PubGrub documentation's examples, written as catalogs
//! in `testdata/cases/pubgrub/`), and every declaration they name is needed (generated
//! infeasible questions).

use std::collections::BTreeSet;
use std::path::Path;
use std::sync::Arc;

use compat::catalog::Catalog;
use compat::environment::{self, Environment};
use compat::generate::{Params, Shape, generate};
use compat::manifest::{self, Manifest};
use compat::plan::{self, Policy, Request, Target};
use compat::product::ProductId;
use compat::solve::conflict::{Cause, Declaration};
use compat::solve::model::{Model, Value};
use compat::solve::{Engine, Query, sat::Sat};
use compat::version::Version;

fn read_case(dir: &Path) -> (Environment, Catalog) {
    let env_path = dir.join("env.yml");
    let text = std::fs::read_to_string(&env_path).unwrap();
    let env = environment::parse(
        &text,
        &Arc::from(env_path.to_string_lossy().as_ref()),
        "env",
    )
    .unwrap();
    let mut manifests = Vec::new();
    let catalog_dir = dir.join("catalog");
    if catalog_dir.is_dir() {
        let mut files: Vec<_> = std::fs::read_dir(&catalog_dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        files.sort();
        for file in files {
            let text = std::fs::read_to_string(&file).unwrap();
            let name: Arc<str> = Arc::from(file.to_string_lossy().as_ref());
            manifests.extend(manifest::parse(&text, &name).unwrap());
        }
    }
    (env, Catalog::from_manifests(manifests).unwrap())
}

/// The few keys of `expect.toml` these tests read.
struct Expect {
    feasible: bool,
    cause: Vec<String>,
    not_cause: Vec<String>,
}

fn read_expect(dir: &Path) -> Expect {
    let text = std::fs::read_to_string(dir.join("expect.toml")).unwrap();
    let list = |key: &str| -> Vec<String> {
        text.lines()
            .find_map(|l| l.strip_prefix(key)?.trim_start().strip_prefix('='))
            .map(|v| {
                v.trim()
                    .trim_start_matches('[')
                    .trim_end_matches(']')
                    .split(',')
                    .map(|s| s.trim().trim_matches('"').to_owned())
                    .filter(|s| !s.is_empty())
                    .collect()
            })
            .unwrap_or_default()
    };
    Expect {
        feasible: text.lines().any(|l| l.replace(' ', "") == "feasible=true"),
        cause: list("cause"),
        not_cause: list("not_cause"),
    }
}

#[test]
fn pubgrub_examples_explain_their_real_cause() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/cases/pubgrub");
    let mut cases: Vec<_> = std::fs::read_dir(&root)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_dir())
        .collect();
    cases.sort();
    assert!(cases.len() >= 7, "the PubGrub examples are missing");
    let mut infeasible = 0;
    for dir in cases {
        let name = dir.file_name().unwrap().to_string_lossy().into_owned();
        let (env, catalog) = read_case(&dir);
        let expect = read_expect(&dir);
        let mut request = Request::new(
            vec![Target::Exact(
                ProductId::parse("pg:root").unwrap(),
                Version::parse("1.0.0").unwrap(),
            )],
            false,
        );
        request.policy = Policy {
            allow_install: true,
            ..Policy::default()
        };
        let plan = plan::plan(&env, &catalog, &request);
        assert_eq!(plan.feasible, expect.feasible, "{name}: feasibility");
        if expect.feasible {
            assert!(plan.conflict.is_none(), "{name}");
            continue;
        }
        infeasible += 1;
        let why = plan
            .conflict
            .unwrap_or_else(|| panic!("{name}: no conflict"));
        assert!(why.minimal, "{name}");
        let named: BTreeSet<String> = why
            .chain
            .iter()
            .flat_map(|l| [Some(&l.product), l.dependency.as_ref()])
            .flatten()
            .map(ToString::to_string)
            .collect();
        for product in &expect.cause {
            assert!(
                named.contains(product),
                "{name}: {product} not named: {why:#?}"
            );
        }
        for product in &expect.not_cause {
            assert!(
                !named.contains(product),
                "{name}: {product} named: {why:#?}"
            );
        }
        let cause: BTreeSet<String> = expect.cause.iter().cloned().collect();
        assert!(
            named.is_subset(&cause),
            "{name}: names {named:?}, cause {cause:?}"
        );
        // short: a sentence or two per product of the cause
        assert!(
            why.chain.len() <= 2 * cause.len() + 3,
            "{name}: {} sentences for {} products",
            why.chain.len(),
            cause.len()
        );
    }
    assert!(infeasible >= 5);
}

/// `manifests` with one declaration of one release taken out.
fn without(catalog: &Catalog, product: &ProductId, version: &Version, d: Declaration) -> Catalog {
    let all = catalog
        .products()
        .flat_map(|p| catalog.releases(p))
        .map(|m| {
            let mut m: Manifest = (**m).clone();
            if m.product == *product && m.version == *version {
                match d {
                    Declaration::Dependency(i) => {
                        m.dependencies.remove(i);
                    }
                    Declaration::Incompatibility(i) => {
                        m.incompatibilities.remove(i);
                    }
                    Declaration::Requirement(i)
                    | Declaration::Constraint(i)
                    | Declaration::Input(i) => {
                        let mut facets = m.facets().clone();
                        match d {
                            Declaration::Requirement(_) => {
                                facets.requires.remove(i);
                            }
                            Declaration::Constraint(_) => {
                                facets.constraints.remove(i);
                            }
                            _ => {
                                facets.inputs.remove(i);
                            }
                        }
                        m.facets = Some(std::sync::Arc::new(facets));
                    }
                }
            }
            m
        });
    Catalog::from_manifests(all.collect::<Vec<_>>()).unwrap()
}

/// The conflict for "p at release i", as names, or `None` when that is feasible.
fn conflict_names(
    env: &Environment,
    catalog: &Catalog,
    p: &ProductId,
    i: usize,
) -> Option<Vec<String>> {
    let model = Model::build(env, catalog, Policy::default(), &[]);
    let baseline = model.current();
    let query = Query::asking(&baseline, vec![(model.index[p], vec![Value::Release(i)])]);
    if Sat.solve(&model, &query).values().is_some() {
        return None;
    }
    let whole = Sat
        .explain(&model, &query, &|_, _| true)
        .expect("an infeasible question has a conflict");
    // a conflict that is not the final word is the same conflict, with nothing looked for
    // beyond it
    let sketch = Sat
        .explain(&model, &query, &|_, _| false)
        .expect("an infeasible question has a conflict");
    assert!(!whole.sketch && sketch.sketch);
    assert_eq!(sketch.conflict, whole.conflict);
    assert!(sketch.fixes.is_empty() && sketch.unchecked.is_empty() && sketch.beyond.is_none());
    let conflict = whole.conflict;
    Some(
        conflict
            .causes
            .iter()
            .map(|c| describe(&model, c))
            .collect(),
    )
}

fn describe(model: &Model<'_>, cause: &Cause) -> String {
    match cause {
        Cause::Declares {
            product,
            release,
            declaration,
        } => {
            // by content, not position: taking a declaration out shifts the ones after it
            let (m, on) =
                compat::solve::conflict::declared(model, *product, *release, *declaration);
            let range = match *declaration {
                Declaration::Dependency(k) => format!("needs {}", m.dependencies[k].range),
                Declaration::Incompatibility(k) => {
                    format!("refuses {}", m.incompatibilities[k].range)
                }
                Declaration::Requirement(k) => {
                    format!("requires capability {}", m.facets().requires[k].name)
                }
                Declaration::Constraint(k) => format!("constraint {:?}", m.facets().constraints[k]),
                Declaration::Input(k) => format!("reads {:?}", m.facets().inputs[k]),
            };
            let on = on.map_or_else(|| "section 9".to_owned(), ToString::to_string);
            format!("{} {} {range} of {on}", m.product, m.version)
        }
        Cause::Asked { product, values } => {
            format!("asked {} {values:?}", model.vars[*product].product)
        }
        other => format!("{other:?}"),
    }
}

/// Property over generated infeasible questions (the tight family, where exact targets are
/// often out of reach): taking out any one declaration the conflict
/// names makes the question feasible or changes the conflict (every named part is needed).
#[test]
fn every_declaration_in_a_conflict_is_needed() {
    let mut checked = 0;
    for seed in 1..=8 {
        let g = generate(Params {
            products: 40,
            releases: 8,
            seed,
            shape: Shape::Tight,
        });
        let (catalog, env) = g.parse();
        let model = Model::build(&env, &catalog, Policy::default(), &[]);
        let questions = model.vars.iter().enumerate().flat_map(|(p, _)| {
            model.base[p].iter().filter_map(move |&v| match v {
                Value::Release(i) => Some((p, i)),
                _ => None,
            })
        });
        for (p, i) in questions {
            if checked >= 200 {
                break;
            }
            let var = &model.vars[p];
            let Some(before) = conflict_names(&env, &catalog, &var.product, i) else {
                continue;
            };
            let baseline = model.current();
            let query = Query::asking(&baseline, vec![(p, vec![Value::Release(i)])]);
            let conflict = Sat.explain(&model, &query, &|_, _| true).unwrap().conflict;
            assert!(conflict.minimal);
            for cause in &conflict.causes {
                let Cause::Declares {
                    product,
                    release,
                    declaration,
                } = cause
                else {
                    continue;
                };
                let declarer = &model.vars[*product];
                let changed = without(
                    &catalog,
                    &declarer.product,
                    &declarer.releases[*release].version,
                    *declaration,
                );
                let after = conflict_names(&env, &changed, &var.product, i);
                assert_ne!(
                    after.as_ref(),
                    Some(&before),
                    "seed {seed}, {} {}: dropping {} leaves the same conflict",
                    var.product,
                    var.releases[i].version,
                    describe(&model, cause)
                );
                checked += 1;
            }
        }
    }
    assert!(checked >= 40, "only {checked} declarations checked");
}

/// A catalog where `pg:root` 2.0.0 needs `pg:c00` older than installed, and each older
/// `pg:cNN` needs the next one older too, `length` products deep; the last older one needs
/// `pg:root` 1.x when `closed` (so no downgrade reaches root 2.0.0), nothing otherwise.
fn downgrade_cascade(length: usize, closed: bool) -> (Environment, Catalog) {
    use std::fmt::Write as _;
    let release = |name: &str, version: &str, needs: Option<&str>| {
        let mut text = format!(
            "manifest-version: \"1.0\"\nproduct-group: pg\nproduct-name: {name}\nproduct-version: {version}\n"
        );
        if let Some(dep) = needs {
            let _ = write!(
                text,
                "extensions:\n  product-dependencies:\n    - product-group: pg\n      product-name: {dep}\n      minimum-version: 1.0.0\n      maximum-version: 1.x.x\n"
            );
        }
        manifest::parse(&text, &Arc::from(format!("{name}-{version}.yml").as_str())).unwrap()
    };
    let chain: Vec<String> = (0..length).map(|i| format!("c{i:02}")).collect();
    let mut manifests = release("root", "1.0.0", None);
    manifests.extend(release("root", "2.0.0", Some(&chain[0])));
    let mut env = String::from("entities:\n  - product: pg:root\n    version: 1.0.0\n");
    for (i, name) in chain.iter().enumerate() {
        let next = chain.get(i + 1).map(String::as_str);
        let last = next.is_none().then_some("root").filter(|_| closed);
        manifests.extend(release(name, "1.0.0", next.or(last)));
        manifests.extend(release(name, "2.0.0", None));
        let _ = writeln!(env, "  - product: pg:{name}\n    version: 2.0.0");
    }
    let env = environment::parse(&env, &Arc::from("env.yml"), "env").unwrap();
    (env, Catalog::from_manifests(manifests).unwrap())
}

/// A fix check through a downgrade cascade far deeper than the rounds that lift the policy
/// product by product (and the solver calls that free held products one by one) is as exact
/// as a shallow one: the flag is a fix exactly when downgrading the whole chain ends well,
/// and when it does not, the conflict behind it is found.
#[test]
fn a_fix_check_through_a_deep_downgrade_cascade_is_exact() {
    let root = ProductId::parse("pg:root").unwrap();
    for length in [3, 100] {
        for closed in [false, true] {
            let (env, catalog) = downgrade_cascade(length, closed);
            let rows = compat::upgrade::upgrades(&env, &catalog, false);
            let row = rows.iter().find(|r| r.product == root).unwrap();
            assert_eq!(row.latest.as_deref(), Some("2.0.0"));
            assert!(!row.latest_installable && row.proven, "{length} {closed}");
            let why = row
                .explanation
                .as_ref()
                .expect("an unreachable latest is explained");
            assert!(why.minimal, "{length} {closed}");
            let fixes: Vec<&[&str]> = why.fixes.iter().map(|f| f.flags.as_slice()).collect();
            if closed {
                assert!(fixes.is_empty(), "{length}: {fixes:?}");
                let (flags, next) = why.beyond.as_ref().expect("the conflict behind the flag");
                assert_eq!(flags, &["--allow-downgrade"]);
                assert!(next.minimal && next.fixes.is_empty(), "{length}");
                // the whole chain, back to root 2.0.0 itself
                let named: BTreeSet<String> =
                    next.chain.iter().map(|l| l.product.to_string()).collect();
                assert_eq!(named.len(), length + 1, "{length}: {named:?}");
            } else {
                assert_eq!(fixes, [["--allow-downgrade"]], "{length}");
            }
        }
    }
}
