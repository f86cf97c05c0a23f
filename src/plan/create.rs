//! Reuse before create (SPEC section 10): the entities a plan creates for the products it
//! installs. An install fills the product's first managed entity when there is one;
//! otherwise, in an environment that uses no namespaces, labels or bindings, it creates one
//! entity named after the product (section 5's default), as plans always did. Where section
//! 10 is in use, an entity is created only for a consumer's required dependency or capability
//! whose serving set is empty in the final state: in the consumer's namespace, with the
//! requirement's labels (templates expanded), named `<consumer>-<product-name>` (then `-2`,
//! `-3`, ... on a clash), at the release the plan installs. Consumers are taken in name
//! order (created entities too, as they may need others), so a later consumer reuses what an
//! earlier one caused to be created. An install nobody needs (a target of its own) gets one
//! entity in the global namespace, named after the product, and what that one needs is
//! created beside it in turn (the planning model judges its declarations from there).

use std::collections::{BTreeMap, BTreeSet};

use super::{Model, Value};
use crate::constraint;
use crate::environment::Environment;
use crate::instance::Placement;
use crate::manifest::{CapabilityRequirement, Manifest};
use crate::product::ProductId;
use crate::serving::{Index, Key, Member};
pub use crate::solve::model::Created;

use typed_arena::Arena;

/// One entity of the final state, as serving sets see it.
struct Final<'a> {
    name: String,
    product: ProductId,
    placement: Placement,
    release: Option<&'a Manifest>,
}

/// The entities the plan creates, in the order they were decided.
pub(super) fn creations<'a>(
    env: &'a Environment,
    model: &Model<'a>,
    values: &[Value],
) -> Vec<Created> {
    let installs: Vec<usize> = (0..model.vars.len())
        .filter(|&p| !model.vars[p].installed() && matches!(values[p], Value::Release(_)))
        .collect();
    let names = env.install_names();
    let plain = env.entities.iter().all(|e| e.placement.is_plain());
    if plain {
        return installs
            .into_iter()
            .map(|p| Created {
                var: p,
                name: names.name(&model.vars[p].product),
                placement: Placement::default(),
            })
            .collect();
    }
    let moved = |p: usize| match values[p] {
        Value::Release(i) => Some(&*model.vars[p].releases[i]),
        _ => None,
    };
    // what an entity created of a product runs: the value's release, or for a product that
    // keeps its entities, the release of its installed version
    let release = |p: usize| -> Option<&'a Manifest> { model.vars[p].created(values[p])?.1 };
    let arena = Arena::new();
    let mut made = Made {
        arena: &arena,
        members: Vec::new(),
        index: Index::new(Vec::new(), |_| []),
        out: Vec::new(),
        taken: env.entities.iter().map(|e| e.name.clone()).collect(),
    };
    for entity in installed(env, model, &moved) {
        made.push(entity);
    }
    for &p in &installs {
        if let Some(e) = names.managed(&model.vars[p].product) {
            made.add(p, model, e.name.clone(), e.placement.clone(), release(p));
        }
    }
    // every product an entity may be created of: the installs, and with --allow-install the
    // installed products too (for consumers that see none of their entities)
    let installing: BTreeMap<&ProductId, usize> = (0..model.vars.len())
        .filter(|&p| installs.contains(&p) || (model.policy.allow_install && release(p).is_some()))
        .map(|p| (&model.vars[p].product, p))
        .collect();
    let mut queue: Vec<usize> = (0..made.members.len()).collect();
    made.serve(model, &mut queue, &installing, &release);
    // an install nobody needs (a target of its own) still creates one entity, global, and
    // what that one needs is created beside it in turn
    let first = made.members.len();
    for &p in &installs {
        if !made.out.iter().any(|c| c.var == p) {
            let name = names.name(&model.vars[p].product);
            made.taken.insert(name.clone());
            made.add(p, model, name, Placement::default(), release(p));
        }
    }
    let mut queue: Vec<usize> = (first..made.members.len()).collect();
    made.serve(model, &mut queue, &installing, &release);
    made.out
}

/// The final state's entities as they are decided, and the entities created so far. The
/// entities live in an arena so that the serving index can hold them while more are added:
/// each consumer's serving sets are looked up in one index that grows with the creations,
/// never rebuilt per consumer (that was quadratic: 3,000 consumers in their own namespaces
/// took 18 s).
struct Made<'a, 'm> {
    arena: &'m Arena<Final<'a>>,
    members: Vec<&'m Final<'a>>,
    index: Index<'m>,
    out: Vec<Created>,
    /// Entity names in use.
    taken: BTreeSet<String>,
}

impl<'a: 'm, 'm> Made<'a, 'm> {
    /// Adds an entity of the final state to the members and the index.
    fn push(&mut self, entity: Final<'a>) {
        let f: &'m Final<'a> = self.arena.alloc(entity);
        self.members.push(f);
        let provides = f
            .release
            .into_iter()
            .flat_map(|r| r.facets().provides.iter().map(|p| p.name.as_str()));
        self.index.push(
            Member {
                name: &f.name,
                product: &f.product,
                placement: &f.placement,
                present: true,
            },
            provides,
        );
    }

    /// Adds an entity of `p` the plan creates (or installs), running `release`.
    fn add(
        &mut self,
        p: usize,
        model: &Model<'a>,
        name: String,
        placement: Placement,
        release: Option<&'a Manifest>,
    ) {
        self.push(Final {
            name: name.clone(),
            product: model.vars[p].product.clone(),
            placement: placement.clone(),
            release,
        });
        self.out.push(Created {
            var: p,
            name,
            placement,
        });
    }

    /// Creates what the members in `queue` need, in name order, the created ones taken in
    /// turn (they may need others).
    fn serve(
        &mut self,
        model: &Model<'a>,
        queue: &mut Vec<usize>,
        installing: &BTreeMap<&ProductId, usize>,
        release: &impl Fn(usize) -> Option<&'a Manifest>,
    ) {
        let members = &self.members;
        queue.sort_by(|&a, &b| members[b].name.cmp(&members[a].name));
        while let Some(c) = queue.pop() {
            for (p, labels) in needs(&self.members, &self.index, c, installing, release) {
                let consumer = &self.members[c];
                let placement = Placement {
                    namespace: consumer.placement.namespace.clone(),
                    labels,
                    bindings: BTreeMap::new(),
                };
                let base = format!("{}-{}", consumer.name, model.vars[p].product.name());
                let name = fresh(&base, &mut self.taken);
                self.add(p, model, name, placement, release(p));
                queue.push(self.members.len() - 1);
            }
        }
    }
}

/// The final state's installed entities, each with the release it runs after the plan.
fn installed<'a>(
    env: &'a Environment,
    model: &Model<'a>,
    release: &impl Fn(usize) -> Option<&'a Manifest>,
) -> Vec<Final<'a>> {
    // the release each installed entity runs, by name
    let running: BTreeMap<&str, &'a Manifest> = model
        .vars
        .iter()
        .flat_map(|v| &v.current)
        .filter_map(|i| Some((i.entity?, i.manifest?)))
        .collect();
    env.entities
        .iter()
        .filter(|e| e.is_installed())
        .map(|e| Final {
            name: e.name.clone(),
            product: e.product.clone(),
            placement: e.placement.clone(),
            release: model.index.get(&e.product).and_then(|&p| {
                // a release the plan moves it to, else (kept) the one it runs
                release(p).or_else(|| running.get(e.name.as_str()).copied())
            }),
        })
        .collect()
}

/// `base`, or `base-2`, `base-3`, ...: the first name not taken, now taken.
fn fresh(base: &str, taken: &mut BTreeSet<String>) -> String {
    let name = std::iter::once(base.to_owned())
        .chain((2..=taken.len() + 2).map(|k| format!("{base}-{k}")))
        .find(|n| !taken.contains(n))
        .unwrap_or_else(|| base.to_owned());
    taken.insert(name.clone());
    name
}

/// The installs `members[c]` needs created: each required product dependency or required
/// capability of its release that a product the plan installs would serve (its release in
/// the dependency's range, or providing the capability in the requirement's range), whose
/// serving set among the members has no member that serves it (empty for a dependency; for
/// a capability, no member providing it in range); with the labels the requirement asks
/// for, expanded.
fn needs<'a>(
    members: &[&Final<'a>],
    index: &Index<'_>,
    c: usize,
    installing: &BTreeMap<&ProductId, usize>,
    release: &impl Fn(usize) -> Option<&'a Manifest>,
) -> Vec<(usize, BTreeMap<String, String>)> {
    let Some(m) = members[c].release else {
        return Vec::new();
    };
    // a product the plan installs whose release provides what `r` asks for, in range
    let provider = |r: &CapabilityRequirement| {
        installing.values().copied().find(|&p| {
            release(p).is_some_and(|m| constraint::provides_in(m.facets(), &r.name, &r.range))
        })
    };
    let consumer = (members[c].name.as_str(), &members[c].placement);
    let ns = members[c].placement.namespace.as_str();
    let mut out = Vec::new();
    for d in m.dependencies.iter().filter(|d| !d.optional) {
        let Some(&p) = installing.get(&d.product) else {
            continue;
        };
        // an entity that would not serve it is not made: the dependency stays missing, as
        // today (the planning model moves no product so only where it was broken already)
        let serves = release(p).is_some_and(|r| constraint::dependency_holds(d, [&r.version]));
        let criteria = m.facets().instances.get(&d.product);
        if serves
            && index
                .serving(consumer, Key::Product(&d.product), criteria)
                .members
                .is_empty()
        {
            let labels = criteria
                .map(|k| k.labels_for(consumer.0, ns))
                .unwrap_or_default();
            out.push((p, labels));
        }
    }
    for r in m.facets().requires.iter().filter(|r| !r.optional) {
        let Some(p) = provider(r) else { continue };
        // served when some provider it sees provides in range (another out of range, such
        // as one created for a product dependency, does not serve it)
        let served = index
            .serving(consumer, Key::Capability(&r.name), r.instance.as_ref())
            .members
            .iter()
            .any(|&i| {
                members[i]
                    .release
                    .is_some_and(|m| constraint::provides_in(m.facets(), &r.name, &r.range))
            });
        if !served {
            let labels = r
                .instance
                .as_ref()
                .map(|k| k.labels_for(consumer.0, ns))
                .unwrap_or_default();
            out.push((p, labels));
        }
    }
    out.dedup_by_key(|(p, _)| *p);
    out
}

#[cfg(test)]
mod tests {
    use std::fmt::Write;
    use std::sync::Arc;

    use crate::catalog::Catalog;
    use crate::environment::Environment;
    use crate::instance::{Criteria, LabelTemplate};
    use crate::plan::{Plan, Policy, Request, Target, plan};
    use crate::product::ProductId;
    use crate::{environment, manifest};

    const CATALOG: &str = "\
manifest-version: '1.0'
product-group: com.example
product-name: web
product-version: 1.0.0
---
manifest-version: '1.0'
product-group: com.example
product-name: web
product-version: 2.0.0
extensions:
  product-dependencies:
    - product-group: org.redis
      product-name: redis
      minimum-version: 7.0.0
      maximum-version: 7.x.x
---
manifest-version: '1.0'
product-group: org.redis
product-name: redis
product-version: 7.0.0
---
manifest-version: '1.0'
product-group: org.redis
product-name: redis
product-version: 7.2.0
";

    /// The plan taking `product` to its newest release with `--allow-install`, proven.
    fn proven_install(env: &Environment, catalog: &Catalog, product: &str) -> Plan {
        let target = Target::Newest(ProductId::parse(product).unwrap());
        let mut request = Request::new(vec![target], false);
        request.policy = Policy {
            allow_install: true,
            ..Policy::default()
        };
        let p = plan(env, catalog, &request);
        assert!(p.feasible && p.complete, "{:?}", p.explanation);
        p
    }

    /// What `p`'s steps create, as `entity namespace product@version`.
    fn creates(p: &Plan) -> Vec<String> {
        p.steps
            .iter()
            .filter_map(|s| {
                let c = s.create.as_ref()?;
                Some(format!(
                    "{} {} {}@{}",
                    s.entity, c.namespace, s.product, s.to
                ))
            })
            .collect()
    }

    /// Plans web 2.0.0 (which needs redis, not installed) for webs `(name, namespace)`, with
    /// `labels` as redis's instance criteria; the created entities as `name ns labels`.
    fn created(webs: &[(&str, &str)], labels: &[(&str, &str)]) -> Vec<String> {
        let mut manifests = manifest::parse(CATALOG, &Arc::from("c.yml")).unwrap();
        for m in manifests
            .iter_mut()
            .filter(|m| m.version.as_str() == "2.0.0")
        {
            let mut facets = m.facets().clone();
            facets.instances.insert(
                ProductId::parse("org.redis:redis").unwrap(),
                Criteria {
                    labels: labels
                        .iter()
                        .map(|(k, v)| ((*k).to_owned(), LabelTemplate::new(v).unwrap()))
                        .collect(),
                    ..Criteria::default()
                },
            );
            m.facets = Some(Arc::new(facets));
        }
        let catalog = Catalog::from_manifests(manifests).unwrap();
        let mut text = String::from("entities:\n");
        for (name, _) in webs {
            let _ = write!(
                text,
                "  - name: {name}\n    product: com.example:web\n    version: 1.0.0\n"
            );
        }
        let mut env = environment::parse(&text, &Arc::from("e.yml"), "e").unwrap();
        for (e, (_, ns)) in env.entities.iter_mut().zip(webs) {
            e.placement.namespace = (*ns).to_owned();
        }
        let p = proven_install(&env, &catalog, "com.example:web");
        let creates: Vec<String> = p
            .steps
            .iter()
            .filter_map(|s| {
                let c = s.create.as_ref()?;
                assert_eq!(s.to, "7.2.0", "the newest release the plan allows");
                Some(format!("{} {} {:?}", s.entity, c.namespace, c.labels))
            })
            .collect();
        let finals: Vec<String> = p
            .final_state
            .iter()
            .filter(|e| e.product.name() == "redis")
            .map(|e| {
                format!(
                    "{} {} {:?}",
                    e.entity, e.placement.namespace, e.placement.labels
                )
            })
            .collect();
        let mut sorted = creates.clone();
        sorted.sort();
        assert_eq!(sorted, finals, "steps create what the final state holds");
        creates
    }

    #[test]
    fn one_per_namespace_reused_within_it() {
        let got = created(
            &[("a-web", "shop"), ("b-web", "shop"), ("c-web", "blog")],
            &[],
        );
        assert_eq!(got.len(), 2, "{got:?}");
        assert!(got.contains(&"a-web-redis shop {}".to_owned()), "{got:?}");
        assert!(got.contains(&"c-web-redis blog {}".to_owned()), "{got:?}");
    }

    #[test]
    fn an_owner_label_gives_every_consumer_its_own() {
        let got = created(
            &[("a-web", "shop"), ("b-web", "shop")],
            &[("owner", "{entity}")],
        );
        let mut got = got;
        got.sort();
        assert_eq!(
            got,
            [
                "a-web-redis shop {\"owner\": \"a-web\"}",
                "b-web-redis shop {\"owner\": \"b-web\"}"
            ]
        );
    }

    #[test]
    fn an_install_nobody_needs_gets_what_it_needs_beside_it() {
        // redis runs only in namespace `cache`; web, a target nobody needs, is created in
        // the global namespace, which sees no redis: one is created beside it
        let catalog =
            Catalog::from_manifests(manifest::parse(CATALOG, &Arc::from("c.yml")).unwrap())
                .unwrap();
        let text = "entities:\n  - name: r\n    product: org.redis:redis\n    version: 7.2.0\n";
        let mut env = environment::parse(text, &Arc::from("e.yml"), "e").unwrap();
        env.entities[0].placement.namespace = "cache".to_owned();
        let p = proven_install(&env, &catalog, "com.example:web");
        assert_eq!(
            creates(&p),
            [
                "web-redis  org.redis:redis@7.2.0",
                "web  com.example:web@2.0.0"
            ]
        );
    }

    #[test]
    fn a_capability_is_served_by_a_provider_in_range() {
        // web 2.0.0 in `shop` needs mariadb (a product dependency) and capability sql 8.x,
        // which only mysql provides in range (mariadb provides sql 5.5.0): both are
        // installed, and an entity of each is created beside web
        let provides = |version: &str| {
            format!(
                "  capabilities:\n    provides:\n      - name: sql\n        version: {version}\n"
            )
        };
        let web2 = "  product-dependencies:\n    - product-group: org.mariadb\n      \
                    product-name: mariadb\n      minimum-version: 5.0.0\n      \
                    maximum-version: 5.x.x\n  capabilities:\n    requires:\n      \
                    - name: sql\n        minimum-version: 8.0.0\n        \
                    maximum-version: 8.x.x\n";
        let catalog = crate::catalog::tests::catalog_of(&[
            ("com.example:web", "1.0.0", "  product-dependencies: []\n"),
            ("com.example:web", "2.0.0", web2),
            ("org.mariadb:mariadb", "5.5.0", &provides("5.5.0")),
            ("org.mysql:mysql", "8.0.0", &provides("8.0.0")),
        ]);
        let env_text =
            "entities:\n  - name: web\n    product: com.example:web\n    version: 1.0.0\n";
        let mut env = environment::parse(env_text, &Arc::from("e.yml"), "e").unwrap();
        env.entities[0].placement.namespace = "shop".to_owned();
        let p = proven_install(&env, &catalog, "com.example:web");
        let mut made = creates(&p);
        made.sort();
        assert_eq!(
            made,
            [
                "web-mariadb shop org.mariadb:mariadb@5.5.0",
                "web-mysql shop org.mysql:mysql@8.0.0"
            ]
        );
    }

    #[test]
    fn no_entity_is_made_that_would_not_serve() {
        // app in `shop` needs redis 8, which no release is; redis 7.2.0 runs in `cache`. The
        // dependency stays missing as it is today: a redis 7.2.0 beside app would serve
        // nothing and only change the finding.
        let text = format!(
            "{CATALOG}---\nmanifest-version: '1.0'\nproduct-group: com.example\n\
             product-name: app\nproduct-version: 1.0.0\nextensions:\n  \
             product-dependencies:\n    - product-group: org.redis\n      \
             product-name: redis\n      minimum-version: 8.0.0\n      \
             maximum-version: 8.x.x\n"
        );
        let catalog =
            Catalog::from_manifests(manifest::parse(&text, &Arc::from("c.yml")).unwrap()).unwrap();
        let env_text = "entities:\n  - name: app\n    product: com.example:app\n    \
                        version: 1.0.0\n  - name: r\n    product: org.redis:redis\n    \
                        version: 7.2.0\n";
        let mut env = environment::parse(env_text, &Arc::from("e.yml"), "e").unwrap();
        env.entities[0].placement.namespace = "shop".to_owned();
        env.entities[1].placement.namespace = "cache".to_owned();
        let p = proven_install(&env, &catalog, "org.redis:redis");
        assert!(p.steps.iter().all(|s| s.create.is_none()), "{:?}", p.steps);
    }
}
