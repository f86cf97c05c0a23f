//! The tenant family ([`tenants`]): SPEC section 10 at scale, the way a multi-tenant platform
//! runs it. A small catalog of four products, and an environment of `namespaces` tenant
//! namespaces (`t00000`, `t00001`, ...), each running a web tier, its own database and its
//! own cache:
//! - the web tier's releases need a database labelled with their namespace as `app`
//!   (`{namespace}`), a cache labelled with their own name as `owner` (`{entity}`, Porter's
//!   exclusive resource) and the cluster's one flux (global); they wire the database's
//!   connection string and wait for the cache (an order-only input);
//! - newer web releases need newer databases (release `k` a database from release `k / 2`),
//!   so `plan --all` moves every product, and every entity;
//! - about one tenant in fifty has no database of its own and binds the shared one in
//!   namespace `ops` (a cross-namespace binding, Porter's user-provided resource);
//! - everything is installed at its first release, and the environment is valid.
//!
//! About `3 * namespaces + 2` entities. Same parameters, same bytes.

use std::fmt::Write;

use super::{Generated, Rng};

/// The catalog (`releases` releases of each product) and the environment of `namespaces`
/// tenants; see the module documentation.
#[must_use]
pub fn tenants(namespaces: usize, releases: usize, seed: u64) -> Generated {
    let releases = releases.max(1);
    let mut rng = Rng(seed);
    let manifests = vec![
        (
            "catalog/flux.yml".to_owned(),
            plain("io.fluxcd", "flux", "2.{}.0", "", releases),
        ),
        (
            "catalog/postgresql.yml".to_owned(),
            plain(
                "org.postgresql",
                "postgresql",
                "15.{}.0",
                "extensions:\n  outputs: [connection-string]\n",
                releases,
            ),
        ),
        (
            "catalog/redis.yml".to_owned(),
            plain("org.redis", "redis", "7.{}.0", "", releases),
        ),
        ("catalog/web.yml".to_owned(), web(releases)),
    ];
    let mut env = String::from(
        "# generated: compat generate --tenants (multi-tenant, SPEC section 10)\n\
         environment: tenants\nentities:\n\
         \x20 - {name: flux, product: \"io.fluxcd:flux\", version: 2.0.0}\n\
         \x20 - {name: shared-db, product: \"org.postgresql:postgresql\", version: 15.0.0, \
         namespace: ops, labels: {app: ops}}\n",
    );
    let mut entities = 2;
    for t in 0..namespaces {
        let ns = format!("t{t:05}");
        let shared = rng.below(50) == 0;
        if shared {
            let _ = writeln!(
                env,
                "  - {{name: {ns}-web, product: \"com.example:web\", version: 3.0.0, \
                 namespace: {ns}, bindings: {{\"org.postgresql:postgresql\": shared-db}}}}"
            );
        } else {
            let _ = writeln!(
                env,
                "  - {{name: {ns}-web, product: \"com.example:web\", version: 3.0.0, \
                 namespace: {ns}}}\n\
                 \x20 - {{name: {ns}-db, product: \"org.postgresql:postgresql\", \
                 version: 15.0.0, namespace: {ns}, labels: {{app: {ns}}}}}"
            );
            entities += 1;
        }
        let _ = writeln!(
            env,
            "  - {{name: {ns}-cache, product: \"org.redis:redis\", version: 7.0.0, \
             namespace: {ns}, labels: {{owner: {ns}-web}}}}"
        );
        entities += 2;
    }
    Generated {
        manifests,
        environment: env,
        entities,
        consistent: None,
    }
}

/// `releases` releases of a product without dependencies, versions from `pattern` (`{}` the
/// release's index), each with `extensions` (a block, or empty).
fn plain(group: &str, name: &str, pattern: &str, extensions: &str, releases: usize) -> String {
    let mut out = String::new();
    for k in 0..releases {
        let version = pattern.replace("{}", &k.to_string());
        let _ = write!(
            out,
            "---\nmanifest-version: \"1.0\"\nproduct-group: {group}\nproduct-name: {name}\n\
             product-version: {version}\n{extensions}"
        );
    }
    out
}

/// The web tier's releases `3.k.0`: see the module documentation.
fn web(releases: usize) -> String {
    let mut out = String::new();
    for k in 0..releases {
        let _ = write!(
            out,
            "---\nmanifest-version: \"1.0\"\nproduct-group: com.example\nproduct-name: web\n\
             product-version: 3.{k}.0\nextensions:\n  product-dependencies:\n\
             \x20   - product-group: org.postgresql\n      product-name: postgresql\n\
             \x20     minimum-version: 15.{}.0\n      maximum-version: 15.x.x\n\
             \x20     instance:\n        labels: {{app: \"{{namespace}}\"}}\n\
             \x20   - product-group: org.redis\n      product-name: redis\n\
             \x20     minimum-version: 7.0.0\n      maximum-version: 7.x.x\n\
             \x20     instance:\n        labels: {{owner: \"{{entity}}\"}}\n\
             \x20   - product-group: io.fluxcd\n      product-name: flux\n\
             \x20     minimum-version: 2.0.0\n      maximum-version: 2.x.x\n\
             \x20 inputs:\n    - name: db-url\n      from: org.postgresql:postgresql\n\
             \x20     output: connection-string\n    - name: cache-ready\n\
             \x20     from: org.redis:redis\n",
            k / 2
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::validate;

    #[test]
    fn tenants_are_valid_and_spread_over_their_namespaces() {
        let g = tenants(120, 4, 7);
        let (catalog, env) = g.parse();
        assert_eq!(catalog.len(), 16);
        assert_eq!(env.entities.len(), g.entities);
        let namespaces: std::collections::BTreeSet<&str> = env
            .entities
            .iter()
            .map(|e| e.placement.namespace.as_str())
            .collect();
        // the tenants, ops and the global namespace
        assert_eq!(namespaces.len(), 122);
        let bound = env
            .entities
            .iter()
            .filter(|e| !e.placement.bindings.is_empty());
        assert!(bound.count() > 0, "some tenant binds the shared database");
        let v = validate::validate(&env, &catalog);
        assert!(
            v.findings().next().is_none(),
            "{:?}",
            v.findings().collect::<Vec<_>>()
        );
        assert_eq!(
            g.environment,
            tenants(120, 4, 7).environment,
            "same seed, same bytes"
        );
    }
}
