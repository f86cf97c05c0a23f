//! Section 10 in the planning model: when some installed entity has a namespace, labels or
//! bindings, a dependency of a product's release is judged entity by entity against that
//! entity's serving set ([`crate::serving`]) and an incompatibility against what the entity
//! sees, instead of against every entity of the other product.
//!
//! Products still move as a whole (every entity of a product runs the value's release), so a
//! judgement stays a function of the two products' values and the engine's pairwise clauses
//! stay exact for the entities that exist. Two simplifications, both on the safe side (they
//! may refuse a plan, never accept a broken one):
//! - a product the plan installs creates one entity for each consumer that finds no serving
//!   entity (`plan::final_state` names and places them), so each such consumer is served by
//!   it; a consumer that already has a serving set never sees the new entity;
//! - a product the plan installs is itself judged as if it saw every entity (its namespace is
//!   the consumer's it is created for, which the pairwise model does not know).
//!
//! A consumer whose serving set is empty while the product runs elsewhere (in a namespace it
//! cannot see) is missing that dependency: the plan does not create a second entity of a
//! product that is installed.
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
        })
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
