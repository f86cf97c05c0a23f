//! Section 10 in the planning model: when some installed entity has a namespace, labels or
//! bindings, a dependency of a product's release is judged entity by entity against that
//! entity's serving set ([`crate::serving`]) and an incompatibility against what the entity
//! sees, instead of against every entity of the other product.
//!
//! Products still move as a whole (every entity of a product runs the value's release), so a
//! judgement stays a function of the two products' values and the engine's pairwise clauses
//! stay exact for the entities that exist.
//!
//! Reuse before create: with `--allow-install`, a consumer whose required dependency has an
//! empty serving set (the product is not installed, or runs only where the consumer cannot
//! see it) gets an entity created for it (`plan::create` names and places them), at the
//! version the product has in the plan (for a product that keeps its entities, its installed
//! version), so the dependency holds iff that version is in range; without the flag it is
//! missing. Two simplifications, both on the safe side (they may refuse a plan, never accept
//! a broken one): a product the plan installs is judged as if its entity saw every entity, and
//! as if every entity saw it (its namespace is the consumer's it is created for, which the
//! pairwise model does not know).
#![allow(clippy::many_single_char_names)] // p, a, q, b: the model's names for two values

use super::model::{Instance, Model, Value};
use super::violation::{Violation, check};
use crate::constraint::{self, Verdict};
use crate::environment::Environment;
use crate::finding::Code;
use crate::manifest::{Dependency, Incompatibility, Manifest};
use crate::serving::{Index, Key, Member};
use crate::version::Version;

/// The serving index over the installed entities, with each one's version.
#[derive(Debug)]
pub struct Placed<'a> {
    index: Index<'a>,
    versions: Vec<&'a Version>,
    /// The entities that are not installed (`managed`): they serve nothing, but a binding
    /// may name one.
    managed: Vec<&'a crate::environment::Entity>,
    /// [`Placed::approximate`], worked out once.
    approximate: std::sync::OnceLock<bool>,
}

impl<'a> Placed<'a> {
    /// The index, or `None` when no entity uses section 10 (the model then judges every
    /// entity of a product alike, as section 7 does).
    #[must_use]
    pub fn build(env: &'a Environment) -> Option<Placed<'a>> {
        if env.entities.iter().all(|e| e.placement.is_plain()) {
            return None;
        }
        let installed: Vec<_> = env.entities.iter().filter(|e| e.is_installed()).collect();
        let members = installed
            .iter()
            .map(|e| Member {
                name: &e.name,
                product: &e.product,
                placement: &e.placement,
                present: true,
            })
            .collect();
        Some(Placed {
            index: Index::new(members, |_| std::iter::empty()),
            versions: installed.iter().map(|e| &e.version).collect(),
            managed: env.entities.iter().filter(|e| !e.is_installed()).collect(),
            approximate: std::sync::OnceLock::new(),
        })
    }

    /// Whether section 10 can change what the model's section 9 items say: some item exists,
    /// and an entity of a product involved in one (declaring it, or named by it: a product
    /// atom's product, a capability's providers, a rule's support) has a namespace, labels or
    /// bindings, or a capability requirement carries instance criteria, or the plan may
    /// create entities (`--allow-install`, in the consumers' namespaces). Otherwise every
    /// entity involved is global and plain, and sees and is seen exactly as product-wide
    /// judgement assumes.
    #[must_use]
    pub fn approximate(&self, model: &Model<'a>) -> bool {
        *self.approximate.get_or_init(|| {
            let Some(index) = model.facets() else {
                return false;
            };
            if model.policy.allow_install {
                return true;
            }
            let mut involved = std::collections::BTreeSet::new();
            for (k, item) in index.items.iter().enumerate() {
                involved.insert(item.declarer);
                involved.extend(index.mentions(model, k).iter().copied());
            }
            involved.iter().any(|&q| {
                let var = &model.vars[q];
                let placed = var.current.iter().any(|c| {
                    c.entity
                        .and_then(|name| self.index.find(name))
                        .is_some_and(|i| !self.index.member(i).placement.is_plain())
                });
                let criteria = var
                    .every_manifest()
                    .any(|m| m.facets().requires.iter().any(|r| r.instance.is_some()));
                placed || criteria
            })
        })
    }

    /// The namespace, labels and bindings of installed entity `name` (global and plain for
    /// an entity the environment does not hold).
    #[must_use]
    pub fn placement(&self, name: &str) -> &'a crate::instance::Placement {
        self.index
            .find(name)
            .map_or(crate::instance::Placement::none(), |i| {
                self.index.member(i).placement
            })
    }

    /// The managed entities of `product`, as a [`crate::constraint::World`] holds entities
    /// that are not installed.
    #[must_use]
    pub fn managed(
        &self,
        product: &crate::product::ProductId,
    ) -> Vec<crate::constraint::Running<'a>> {
        self.managed
            .iter()
            .filter(|e| e.product == *product)
            .map(|e| crate::constraint::Running {
                entity: &e.name,
                product: &e.product,
                version: &e.version,
                facets: crate::manifest::Facets::none(),
                placement: &e.placement,
            })
            .collect()
    }

    /// The versions serving `entity`'s dependency `d` of `release` when the other product
    /// keeps its entities (`None` when `entity` is not installed).
    fn serving(
        &self,
        entity: &str,
        release: &Manifest,
        d: &'a Dependency,
    ) -> Option<Vec<&'a Version>> {
        let i = self.index.find(entity)?;
        let placement = self.index.member(i).placement;
        let criteria = release.facets().instances.get(&d.product);
        let members = self
            .index
            .serving((entity, placement), Key::Product(&d.product), criteria)
            .members;
        Some(members.into_iter().map(|m| self.versions[m]).collect())
    }

    /// The versions of `product` that `entity` sees (its namespace and the global one).
    fn visible(&self, entity: &str, c: &'a Incompatibility) -> Option<Vec<&'a Version>> {
        let i = self.index.find(entity)?;
        let placement = self.index.member(i).placement;
        let members = self.index.visible(placement, Key::Product(&c.product));
        Some(members.into_iter().map(|m| self.versions[m]).collect())
    }
}

impl<'a> Model<'a> {
    /// True when some entity uses section 10 (judgements go through serving sets).
    #[must_use]
    pub fn is_placed(&self) -> bool {
        self.placed.is_some()
    }

    /// [`Model::one_way`] entity by entity, when section 10 is in use and both products are
    /// installed: each entity of `p` (at `a`'s release) against the instances of `q` (at `b`)
    /// that serve it, for dependencies, and that it sees, for incompatibilities.
    pub(super) fn one_way_placed(
        &self,
        p: usize,
        a: Value,
        q: usize,
        b: Value,
    ) -> Option<Vec<Violation>> {
        let placed = self.placed.as_ref()?;
        let (vp, vq) = (&self.vars[p], &self.vars[q]);
        if !vp.installed() || !vq.installed() {
            return None;
        }
        let theirs = vq.instances(b);
        let mut out = Vec::new();
        for (entity, ours) in vp.current.iter().filter_map(|c| c.entity.map(|e| (e, c))) {
            // a product that moves is one planned instance, as `Var::instances` has it
            let mine = match a {
                Value::Release(i) => Instance {
                    version: &vp.releases[i].version,
                    manifest: Some(&vp.releases[i]),
                    entity: None,
                },
                _ => ours.clone(),
            };
            let Some(m) = mine.manifest else { continue };
            let i = placed.index.find(entity)?;
            let placement = placed.index.member(i).placement;
            let key = Key::Product(&vq.product);
            let criteria = m.facets().instances.get(&vq.product);
            let serving = placed
                .index
                .serving((entity, placement), key, criteria)
                .members;
            let seen = placed.index.visible(placement, key);
            let pick = |members: &[usize]| -> Vec<Instance<'a>> {
                match b {
                    Value::Keep => vq
                        .current
                        .iter()
                        .filter(|t| {
                            t.entity
                                .and_then(|n| placed.index.find(n))
                                .is_some_and(|k| members.contains(&k))
                        })
                        .cloned()
                        .collect(),
                    _ if members.is_empty() => Vec::new(),
                    _ => theirs.clone(),
                }
            };
            let mut needs = check(
                &vp.product,
                std::slice::from_ref(&mine),
                &vq.product,
                &pick(&serving),
            );
            needs.retain(|v| v.code != Code::IncompatibleRelease);
            let mut refuses = check(
                &vp.product,
                std::slice::from_ref(&mine),
                &vq.product,
                &pick(&seen),
            );
            refuses.retain(|v| v.code == Code::IncompatibleRelease);
            for v in needs.into_iter().chain(refuses) {
                if !out.contains(&v) {
                    out.push(v);
                }
            }
        }
        Some(out)
    }

    /// The existing entities of `p` that run `release` under value `a` (every entity of `p`
    /// for a release it moves to; none for a product the plan installs).
    fn declarers(&self, p: usize, a: Value, release: &Manifest) -> Vec<&'a str> {
        let var = &self.vars[p];
        var.current
            .iter()
            .filter(|c| match a {
                Value::Keep => c.manifest.is_some_and(|m| std::ptr::eq(m, release)),
                _ => true,
            })
            .filter_map(|c| c.entity)
            .collect()
    }

    /// Whether `q` under `b` satisfies dependency `d` of `p`'s `release` under `a`, for every
    /// entity of `p` that runs it, each judged against its own serving set.
    #[must_use]
    pub fn meets_from(
        &self,
        (p, a, release): (usize, Value, &'a Manifest),
        d: &'a Dependency,
        q: usize,
        b: Value,
    ) -> bool {
        let Some(placed) = &self.placed else {
            return self.meets(d, q, b);
        };
        let declarers = self.declarers(p, a, release);
        if declarers.is_empty() || !self.vars[q].installed() {
            // an install on either side: judged product-wide (see the module doc)
            return self.meets(d, q, b);
        }
        declarers.into_iter().all(|entity| {
            let Some(kept) = placed.serving(entity, release, d) else {
                return self.meets(d, q, b);
            };
            match b {
                // nothing serves it: with --allow-install the plan creates an entity of `q`
                // for it, at `q`'s version under `b` (see `plan::create`)
                _ if kept.is_empty() && !d.optional && self.policy.allow_install => self.vars[q]
                    .version(b)
                    .is_some_and(|v| constraint::dependency_holds(d, [v])),
                _ if kept.is_empty() => constraint::dependency_absent(d) == Verdict::Holds,
                Value::Keep => constraint::dependency_holds(d, kept),
                Value::Release(j) => {
                    constraint::dependency_holds(d, [&self.vars[q].releases[j].version])
                }
                Value::Absent => constraint::dependency_holds(d, []),
            }
        })
    }

    /// Whether `q` under `b` avoids incompatibility `c` of `p`'s `release` under `a`, for
    /// every entity of `p` that runs it, each judged against what it sees.
    #[must_use]
    pub fn avoids_from(
        &self,
        (p, a, release): (usize, Value, &'a Manifest),
        c: &'a Incompatibility,
        q: usize,
        b: Value,
    ) -> bool {
        let Some(placed) = &self.placed else {
            return self.avoids(c, q, b);
        };
        let declarers = self.declarers(p, a, release);
        if declarers.is_empty() || !self.vars[q].installed() {
            return self.avoids(c, q, b);
        }
        let avoided = |v: &Version| constraint::incompatibility_on(c, v) == Verdict::Holds;
        declarers.into_iter().all(|entity| {
            let Some(seen) = placed.visible(entity, c) else {
                return self.avoids(c, q, b);
            };
            match b {
                _ if seen.is_empty() => true,
                Value::Keep => seen.into_iter().all(avoided),
                Value::Release(j) => avoided(&self.vars[q].releases[j].version),
                Value::Absent => true,
            }
        })
    }
}

impl<'a> Model<'a> {
    /// The constraints entity `ours` (of `p`, running `mine`) declares on `q` and breaks
    /// while `q`'s entities run `theirs` (by entity name; a product half-way through a
    /// rolling upgrade), each with the entity of `q` it is about (`""` for a missing one).
    /// With section 10 in use, a dependency is judged against the entity's serving set among
    /// `theirs` and an incompatibility against what it sees; an entity the plan creates (not
    /// in the environment) counts for everyone. `None` without section 10: every pair counts.
    #[must_use]
    pub fn placed_pairs(
        &self,
        (p, ours, mine): (usize, &str, &Instance<'a>),
        q: usize,
        theirs: &std::collections::BTreeMap<String, Instance<'a>>,
    ) -> Option<Vec<(Violation, String)>> {
        let placed = self.placed.as_ref()?;
        let m = mine.manifest?;
        let (vp, vq) = (&self.vars[p], &self.vars[q]);
        let Some(i) = placed.index.find(ours) else {
            return None; // a created entity: judged product-wide
        };
        let placement = placed.index.member(i).placement;
        let key = Key::Product(&vq.product);
        let pick = |members: &[usize]| -> Vec<(&String, &Instance<'a>)> {
            theirs
                .iter()
                .filter(|(name, _)| placed.index.find(name).is_none_or(|k| members.contains(&k)))
                .collect()
        };
        let one = std::slice::from_ref(mine);
        let mut out = Vec::new();
        let criteria = m.facets().instances.get(&vq.product);
        let serving = pick(
            &placed
                .index
                .serving((ours, placement), key, criteria)
                .members,
        );
        let mut needs = |list: &[(&String, &Instance<'a>)]| {
            if list.is_empty() {
                out.extend(
                    check(&vp.product, one, &vq.product, &[])
                        .into_iter()
                        .filter(|v| v.code != Code::IncompatibleRelease)
                        .map(|v| (v, String::new())),
                );
            }
            for (name, inst) in list {
                out.extend(
                    check(&vp.product, one, &vq.product, std::slice::from_ref(*inst))
                        .into_iter()
                        .filter(|v| v.code != Code::IncompatibleRelease)
                        .map(|v| (v, (*name).clone())),
                );
            }
        };
        needs(&serving);
        let seen = pick(&placed.index.visible(placement, key));
        for (name, inst) in seen {
            out.extend(
                check(&vp.product, one, &vq.product, std::slice::from_ref(inst))
                    .into_iter()
                    .filter(|v| v.code == Code::IncompatibleRelease)
                    .map(|v| (v, name.clone())),
            );
        }
        Some(out)
    }
}
