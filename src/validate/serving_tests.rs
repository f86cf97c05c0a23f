//! Section 10 in `validate`: findings follow serving sets (namespaces, labels, bindings).
//! Placements are set on parsed entities here; the readers have their own tests.

use std::fmt::Write;
use std::sync::Arc;

use super::validate;
use crate::catalog::Catalog;
use crate::environment;
use crate::instance::{Placement, Requirement};
use crate::manifest;

const CATALOG: &str = "\
manifest-version: '1.0'
product-group: com.example
product-name: web
product-version: 2.0.0
extensions:
  product-dependencies:
    - product-group: org.pg
      product-name: pg
      minimum-version: 15.0.0
      maximum-version: 15.x.x
  product-incompatibilities:
    - product-group: org.legacy
      product-name: auth
  capabilities:
    requires:
      - name: sql
        minimum-version: 15.0.0
---
manifest-version: '1.0'
product-group: org.pg
product-name: pg
product-version: 15.2.0
extensions:
  capabilities:
    provides:
      - name: sql
        version: 15.2.0
---
manifest-version: '1.0'
product-group: org.pg
product-name: pg
product-version: 9.6.0
extensions:
  capabilities:
    provides:
      - name: sql
        version: 9.6.0
---
manifest-version: '1.0'
product-group: org.legacy
product-name: auth
product-version: 1.0.0
";

/// Findings as `entity code dependency found`, over entities `(name, product, version,
/// namespace, bindings)`.
type Row<'a> = (&'a str, &'a str, &'a str, &'a str, &'a [(&'a str, &'a str)]);

fn run(entities: &[Row]) -> Vec<String> {
    let catalog =
        Catalog::from_manifests(manifest::parse(CATALOG, &Arc::from("c.yml")).unwrap()).unwrap();
    let mut text = String::from("entities:\n");
    for (name, product, version, ..) in entities {
        let _ = write!(
            text,
            "  - name: {name}\n    product: {product}\n    version: {version}\n"
        );
    }
    let mut env = environment::parse(&text, &Arc::from("e.yml"), "e").unwrap();
    for (name, _, _, namespace, bindings) in entities {
        let e = env.entities.iter_mut().find(|e| e.name == *name).unwrap();
        e.placement = Placement {
            namespace: (*namespace).to_owned(),
            bindings: bindings
                .iter()
                .map(|(k, v)| (Requirement::parse(k).unwrap(), (*v).to_owned()))
                .collect(),
            ..Placement::default()
        };
    }
    validate(&env, &catalog)
        .findings()
        .map(|f| {
            format!(
                "{} {} {} {}",
                f.entity.as_deref().unwrap_or("-"),
                f.code,
                f.dependency.as_ref().map_or_else(
                    || f.dependency_name.clone().unwrap_or("-".into()),
                    ToString::to_string
                ),
                f.found.as_deref().unwrap_or("-")
            )
        })
        .collect()
}

#[test]
fn other_namespaces_are_invisible_and_the_own_one_comes_first() {
    // the old database in another namespace breaks nothing of shop's web
    let found = run(&[
        ("shop-web", "com.example:web", "2.0.0", "shop", &[]),
        ("shop-db", "org.pg:pg", "15.2.0", "shop", &[]),
        ("blog-db", "org.pg:pg", "9.6.0", "blog", &[]),
        ("blog-auth", "org.legacy:auth", "1.0.0", "blog", &[]),
    ]);
    assert!(found.is_empty(), "{found:?}");
    // the same entities in one namespace: the old database and the auth module count
    let found = run(&[
        ("shop-web", "com.example:web", "2.0.0", "", &[]),
        ("shop-db", "org.pg:pg", "15.2.0", "", &[]),
        ("blog-db", "org.pg:pg", "9.6.0", "", &[]),
        ("blog-auth", "org.legacy:auth", "1.0.0", "", &[]),
    ]);
    assert_eq!(
        found,
        [
            "shop-web version-too-low org.pg:pg 9.6.0",
            "shop-web incompatible-release org.legacy:auth 1.0.0"
        ]
    );
    // the namespace's own database hides a global one; a global one serves when it has none
    let found = run(&[
        ("shop-web", "com.example:web", "2.0.0", "shop", &[]),
        ("shop-db", "org.pg:pg", "15.2.0", "shop", &[]),
        ("global-db", "org.pg:pg", "9.6.0", "", &[]),
        ("auth", "org.legacy:auth", "1.0.0", "", &[]),
    ]);
    assert_eq!(
        found,
        ["shop-web incompatible-release org.legacy:auth 1.0.0"]
    );
    let found = run(&[
        ("shop-web", "com.example:web", "2.0.0", "shop", &[]),
        ("global-db", "org.pg:pg", "9.6.0", "", &[]),
    ]);
    assert_eq!(
        found,
        [
            "shop-web version-too-low org.pg:pg 9.6.0",
            "shop-web capability-out-of-range sql 9.6.0"
        ]
    );
    // nothing visible: missing, although another namespace runs the product
    let found = run(&[
        ("shop-web", "com.example:web", "2.0.0", "shop", &[]),
        ("blog-db", "org.pg:pg", "15.2.0", "blog", &[]),
    ]);
    assert_eq!(
        found,
        [
            "shop-web missing-dependency org.pg:pg -",
            "shop-web missing-capability sql -"
        ]
    );
}

#[test]
fn bindings_reach_across_namespaces_and_faulty_ones_are_findings() {
    let found = run(&[
        (
            "shop-web",
            "com.example:web",
            "2.0.0",
            "shop",
            &[("org.pg:pg", "blog-db"), ("sql", "blog-db")],
        ),
        ("shop-db", "org.pg:pg", "9.6.0", "shop", &[]),
        ("blog-db", "org.pg:pg", "15.2.0", "blog", &[]),
    ]);
    assert!(found.is_empty(), "{found:?}");
    let found = run(&[
        (
            "shop-web",
            "com.example:web",
            "2.0.0",
            "shop",
            &[("org.pg:pg", "nobody"), ("sql", "auth")],
        ),
        ("shop-db", "org.pg:pg", "15.2.0", "shop", &[]),
        ("auth", "org.legacy:auth", "1.0.0", "blog", &[]),
    ]);
    // judged as if unbound: shop-db serves both
    assert_eq!(
        found,
        [
            "shop-web invalid-binding org.pg:pg nobody",
            "shop-web invalid-binding sql auth"
        ]
    );
}

const WIRED: &str = "\
manifest-version: '1.0'
product-group: com.example
product-name: web
product-version: 1.0.0
extensions:
  product-dependencies:
    - product-group: org.pg
      product-name: pg
      minimum-version: 14.0.0
      maximum-version: 15.x.x
    - product-group: org.redis
      product-name: redis
      minimum-version: 7.0.0
      maximum-version: 7.x.x
      optional: true
---
manifest-version: '1.0'
product-group: org.pg
product-name: pg
product-version: 15.0.0
---
manifest-version: '1.0'
product-group: org.pg
product-name: pg
product-version: 14.0.0
---
manifest-version: '1.0'
product-group: org.redis
product-name: redis
product-version: 7.0.0
---
manifest-version: '1.0'
product-group: com.example
product-name: a
product-version: 1.0.0
extensions:
  product-dependencies:
    - product-group: com.example
      product-name: b
      minimum-version: 1.0.0
      maximum-version: 1.x.x
      optional: true
---
manifest-version: '1.0'
product-group: com.example
product-name: b
product-version: 1.0.0
extensions:
  product-dependencies:
    - product-group: com.example
      product-name: a
      minimum-version: 1.0.0
      maximum-version: 1.x.x
      optional: true
";

fn input(name: &str, from: &str, output: Option<&str>, optional: bool) -> crate::instance::Input {
    crate::instance::Input {
        name: name.into(),
        from: Requirement::parse(from).unwrap(),
        output: output.map(Into::into),
        optional,
        location: crate::diagnostic::Location::new(1, 1),
    }
}

/// The wired catalog: web feeds `db-url` from pg's `connection-string` (15.0.0 declares it,
/// 14.0.0 does not) and needs `cache-url` from the optional redis; a and b feed each other.
fn wired() -> Catalog {
    let mut manifests = manifest::parse(WIRED, &Arc::from("c.yml")).unwrap();
    for m in &mut manifests {
        let mut facets = m.facets().clone();
        match (m.product.name(), m.version.as_str()) {
            ("web", _) => {
                facets.inputs = vec![
                    input("db-url", "org.pg:pg", Some("connection-string"), false),
                    input("cache-url", "org.redis:redis", Some("url"), false),
                ];
            }
            ("pg", "15.0.0") => facets.outputs = vec!["connection-string".into()],
            ("redis", _) => facets.outputs = vec!["url".into()],
            ("a", _) => facets.inputs = vec![input("peer", "com.example:b", None, false)],
            ("b", _) => facets.inputs = vec![input("peer", "com.example:a", Some("x"), true)],
            _ => continue,
        }
        m.facets = Some(Arc::new(facets));
    }
    Catalog::from_manifests(manifests).unwrap()
}

fn run_wired(entities: &[(&str, &str, &str)]) -> Vec<String> {
    let mut text = String::from("entities:\n");
    for (name, product, version) in entities {
        let _ = write!(
            text,
            "  - name: {name}\n    product: {product}\n    version: {version}\n"
        );
    }
    let env = environment::parse(&text, &Arc::from("e.yml"), "e").unwrap();
    validate(&env, &wired())
        .findings()
        .map(|f| {
            let cycle = f.cycle.as_ref().map(|c| c.join(","));
            format!(
                "{} {} {}",
                f.entity.as_deref().unwrap_or("-"),
                f.code,
                cycle.or(f.found.clone()).unwrap_or("-".into())
            )
        })
        .collect()
}

#[test]
fn inputs_need_their_outputs_and_required_inputs_their_source() {
    let fed = run_wired(&[
        ("web", "com.example:web", "1.0.0"),
        ("db", "org.pg:pg", "15.0.0"),
        ("cache", "org.redis:redis", "7.0.0"),
    ]);
    assert!(fed.is_empty(), "{fed:?}");
    let found = run_wired(&[
        ("web", "com.example:web", "1.0.0"),
        ("db", "org.pg:pg", "14.0.0"),
    ]);
    assert_eq!(found, ["web missing-output db", "web unfed-input -"]);
    // a missing required dependency says nothing more about its inputs
    let found = run_wired(&[
        ("web", "com.example:web", "1.0.0"),
        ("cache", "org.redis:redis", "7.0.0"),
    ]);
    assert_eq!(found, ["web missing-dependency -"]);
}

#[test]
fn a_cycle_through_data_edges_is_a_finding_of_its_first_entity() {
    let found = run_wired(&[
        ("x-b", "com.example:b", "1.0.0"),
        ("y-a", "com.example:a", "1.0.0"),
    ]);
    assert_eq!(found, ["x-b missing-output y-a", "x-b data-cycle x-b,y-a"]);
    // alone, a's required input from the optional b is unfed; b's optional one is silent
    let found = run_wired(&[("y-a", "com.example:a", "1.0.0")]);
    assert_eq!(found, ["y-a unfed-input -"]);
    let found = run_wired(&[("x-b", "com.example:b", "1.0.0")]);
    assert!(found.is_empty(), "{found:?}");
}
