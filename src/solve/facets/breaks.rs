//! What items break, in words and for rolling steps: findings of a candidate's broken items
//! (`upgrades`' `blocked_by`), an item in words (a step's reason), and the items that fail
//! product by product or, while some product is half-way through a rolling upgrade, entity by
//! entity over one `World` of every entity.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use super::{FacetIndex, Source, declares_items, requirement_term};
use crate::constraint::{Need, Running, World, requirement_text};
use crate::diagnostic::FileLocation;
use crate::finding::{Code, Finding};
use crate::manifest::{Atom, Facets, Manifest};
use crate::solve::model::{Model, Value};
use crate::version::Version;

/// An entry of `manifest` in words, after `who` declares it: `web1 (com.example:web 3.0.0)
/// requires capability sql 8.0.0..`, `... constraint `needs a cache``.
fn entry_words(who: &str, manifest: &Manifest, source: Source) -> String {
    match source {
        Source::Requires(i) => {
            format!("{who} {}", requirement_text(&manifest.facets().requires[i]))
        }
        Source::Constraint(i) => {
            let t = &manifest.facets().constraints[i];
            match &t.description {
                Some(d) => format!("{who} constraint `{d}`"),
                None => format!("{who} constraint {}", crate::constraint::term_text(t)),
            }
        }
    }
}

impl FacetIndex {
    /// Item `k` broken when every product runs `state[q]`, as findings of SPEC 9.3's codes
    /// (`missing-capability`, one `capability-out-of-range` per provider, or
    /// `unsatisfied-constraint` naming the smallest failing part), worded for a state that
    /// would be: `upgrades`' `blocked_by`. `runner` is the entity named for an item of a
    /// release the product would move to.
    #[must_use]
    pub fn findings(
        &self,
        model: &Model<'_>,
        k: usize,
        state: &[Value],
        runner: Option<&str>,
    ) -> Vec<Finding> {
        let item = &self.items[k];
        let var = &model.vars[item.declarer];
        let manifest: &Manifest = &var.releases[item.release];
        let world = self.world(model, k, state);
        let name = self.declarer_name(model, k, 0);
        let who = match &item.entity {
            Some(entity) => format!("{entity} ({} {})", var.product, manifest.version),
            None => format!("{} {}", var.product, manifest.version),
        };
        let base = |code, message: String, detail: String, at| {
            let mut f = Finding::new(code, message, detail);
            f.entity = item.entity.clone().or_else(|| runner.map(str::to_owned));
            f.product = Some(var.product.clone());
            f.version = Some(manifest.version.to_string());
            f.location = Some(FileLocation {
                file: Arc::clone(&manifest.file),
                location: at,
            });
            f
        };
        match item.source {
            Source::Requires(i) => {
                let r = &manifest.facets().requires[i];
                let constraint = requirement_text(r);
                let with_range = |mut f: Finding| {
                    f.dependency_name = Some(r.name.clone());
                    f.minimum = r.range.minimum.as_ref().map(ToString::to_string);
                    f.maximum = r.range.maximum.as_ref().map(ToString::to_string);
                    f.optional = Some(r.optional);
                    f
                };
                match (world.capability_need(name, r), self.bound_to(k)) {
                    // the entity it is bound to would provide none: the binding breaks
                    (Need::NoProvider, Some(to)) => {
                        let detail = format!("binds capability {} to {to}", r.name);
                        let mut f = with_range(base(
                            Code::InvalidBinding,
                            format!("{who} {detail}, which would not provide it"),
                            detail,
                            r.location,
                        ));
                        f.found = Some(to.to_owned());
                        vec![f]
                    }
                    (Need::NoProvider, None) => vec![with_range(base(
                        Code::MissingCapability,
                        format!("{who} {constraint}, which no entity would provide"),
                        constraint.clone(),
                        r.location,
                    ))],
                    (Need::OutOfRange(providers), _) => providers
                        .into_iter()
                        .map(|(entity, version)| {
                            let what = version.map_or_else(
                                || "would provide it without a version".to_owned(),
                                |v| format!("would provide {v}, outside the range"),
                            );
                            let mut f = with_range(base(
                                Code::CapabilityOutOfRange,
                                format!("{who} {constraint}; {entity} {what}"),
                                constraint.clone(),
                                r.location,
                            ));
                            f.found = version.map(ToString::to_string);
                            f.found_entity = Some(entity.to_owned());
                            f
                        })
                        .collect(),
                    _ => Vec::new(),
                }
            }
            Source::Constraint(i) => {
                let term = &manifest.facets().constraints[i];
                let Some(part) = world.term_failure(name, term) else {
                    return Vec::new();
                };
                let quoted = term
                    .description
                    .as_ref()
                    .map(|d| format!(" `{d}`"))
                    .unwrap_or_default();
                vec![base(
                    Code::UnsatisfiedConstraint,
                    format!("{who} constraint{quoted} would not hold: {part}"),
                    format!("constraint{quoted} does not hold: {part}"),
                    term.location,
                )]
            }
        }
    }
}

/// An entry of an entity's release that fails: (entity, its product, the entry, the
/// release's version text), with the release beside it in [`FacetIndex::failing`]'s map.
pub type Failing<'a> = (String, usize, Source, &'a str);

impl FacetIndex {
    /// A failing entry in words, as a step's reason gives it: `web1 (com.example:web 3.0.0)
    /// requires capability sql 8.0.0..`.
    #[must_use]
    pub fn failing_words(model: &Model<'_>, failing: &Failing<'_>, manifest: &Manifest) -> String {
        let (entity, q, source, _) = failing;
        let who = format!("{entity} ({} {})", model.vars[*q].product, manifest.version);
        entry_words(&who, manifest, *source)
    }

    /// The products whose entities can change whether a failing entry ([`Failing`]) of
    /// `manifest` holds: those its atoms can be made true by (named products, capability
    /// providers, rule supports), as [`FacetIndex::failing`] builds its world from.
    #[must_use]
    pub fn entry_reads(
        &self,
        model: &Model<'_>,
        manifest: &Manifest,
        source: Source,
    ) -> BTreeSet<usize> {
        let facets = manifest.facets();
        let term = match source {
            Source::Requires(i) => requirement_term(&facets.requires[i]),
            Source::Constraint(i) => facets.constraints[i].clone(),
        };
        super::atoms(&term)
            .into_iter()
            .flat_map(|atom| self.atom_mentions(model, atom))
            .collect()
    }

    /// The products whose entities' items a move of `p` may change: `p` and the declarers of
    /// the items that name it (a rule names the products some value of which satisfies it).
    #[must_use]
    pub fn concerned(&self, model: &Model<'_>, p: usize) -> BTreeSet<usize> {
        let mut out: BTreeSet<usize> = self.naming(model, p).keys().copied().collect();
        out.insert(p);
        out
    }

    /// [`FacetIndex::concerned`] by `p` as things run: `p`, and the products some entity of
    /// which runs a release whose items name `p` (`runs(d, releases)`: whether some entity
    /// of `d` runs one of these releases, indices into its releases). Only running entities'
    /// items are judged, so no other product's verdicts can change when `p` moves alone. A
    /// catalog read whole lists every release's items, most of which no entity runs: on the
    /// capabilities family at 5,000 read from a directory, a rolling plan's steps were
    /// concerned about 950 products each, of which about 35 run such a release.
    pub fn concerned_running<'s>(
        &'s self,
        model: &Model<'_>,
        p: usize,
        runs: impl Fn(usize, &[usize]) -> bool + 's,
    ) -> impl Iterator<Item = usize> + 's {
        let releases = self.naming(model, p);
        std::iter::once(p).chain(
            releases
                .iter()
                .filter(move |&(&d, list)| runs(d, list))
                .map(|(&d, _)| d),
        )
    }

    /// Per product other than `p` whose items name `p`, the releases (indices) declaring
    /// them, worked out once.
    fn naming(&self, model: &Model<'_>, p: usize) -> &Naming {
        self.concerned[p].get_or_init(|| {
            let mut releases: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
            for k in self.affected_by(model, p) {
                if self.names(model, k, p) {
                    let item = &self.items[k];
                    releases
                        .entry(item.declarer)
                        .or_default()
                        .push(item.release);
                }
            }
            for list in releases.values_mut() {
                list.sort_unstable();
                list.dedup();
            }
            releases.remove(&p);
            releases
        })
    }

    /// Item `k` in words, for a step's reason: `web1 (com.example:web 3.0.0) requires
    /// capability sql 8.0.0..`, `... constraint `needs a cache``.
    #[must_use]
    pub fn words(&self, model: &Model<'_>, item: usize) -> String {
        let it = &self.items[item];
        let var = &model.vars[it.declarer];
        let manifest = &var.releases[it.release];
        let who = format!(
            "{} ({} {})",
            it.entity.as_deref().unwrap_or(&self.names[it.declarer]),
            var.product,
            manifest.version
        );
        entry_words(&who, manifest, it.source)
    }

    /// The items that fail in `state` (product by product) among those the products in
    /// `declarers` declare at their values there.
    #[must_use]
    pub fn failing_at(
        &self,
        model: &Model<'_>,
        state: &[Value],
        declarers: &BTreeSet<usize>,
    ) -> BTreeSet<usize> {
        let moved = self.moved(state);
        let others = super::Others::default();
        declarers
            .iter()
            .flat_map(|&d| self.items_of(d, state[d]).iter().copied())
            .filter(|&k| !self.holds_in(model, k, state, (&moved, &others)))
            .collect()
    }

    /// The products not as today in `values`, a half-way one (`None`) included.
    fn moved_split(&self, values: &[Option<Value>]) -> Vec<usize> {
        (0..values.len())
            .filter(|&q| values[q] != Some(self.today[q]))
            .collect()
    }

    /// [`FacetIndex::failing`], judged product by product: the same answer without a
    /// `World` of every entity. `values[q]` is product `q`'s value where all its entities run
    /// one (as the model's values), `None` where it is half-way (its entities on two
    /// releases). An atom of entity `e` of product `d` holds when `d`'s other entities make
    /// it true (a `World` of `d`'s entities alone), or other products do: a product at a
    /// value by the remembered verdict, a half-way one by a `World` of its own entities.
    /// `None` when an entity's items cannot be found among the model's (its release is not
    /// one of the product's values): the caller then asks [`FacetIndex::failing`]. Entities
    /// come from `entities_of(q)` (all of `q`'s) or `entity_of(q, name)` (one, when only a
    /// few can matter).
    #[must_use]
    pub fn failing_split<'s, 'a>(
        &self,
        model: &Model<'_>,
        (entities_of, entity_of): (
            impl Fn(usize) -> Vec<Entity<'s, 'a>>,
            impl Fn(usize, &str) -> Option<Entity<'s, 'a>>,
        ),
        values: &[Option<Value>],
        declarers: &BTreeSet<usize>,
        focus: Option<(usize, &str)>,
    ) -> Option<BTreeMap<Failing<'a>, &'a Manifest>> {
        // products half-way through a rolling upgrade count as moved
        let moved = self.moved_split(values);
        let running = |q: usize, list: &[Entity<'s, 'a>]| running_of(model, q, list);
        // half-way products' worlds, one per view that asks (a view that sees part of a
        // product judges the entities it sees), built when first asked
        let worlds: std::cell::RefCell<BTreeMap<(usize, usize), World<'_>>> =
            std::cell::RefCell::default();
        let truth = |id: usize, q: usize| {
            if let Some(v) = values[q] {
                return self.verdict(model, id, q, v);
            }
            let view = self.atoms.view[id];
            let mut worlds = worlds.borrow_mut();
            let world = worlds.entry((q, view)).or_insert_with(|| {
                let mut list = match self.seen_in(model, view, q) {
                    Some(names) => names.into_iter().filter_map(|n| entity_of(q, n)).collect(),
                    None => entities_of(q),
                };
                list.retain(|e| self.sees_entity(model, view, e.0));
                World::new(running(q, &list), model.runtime)
            });
            world.atom_holds("", &self.atoms.interned[id])
        };
        // an installed entity moved: where it stands (an entity the plan creates stands
        // where its consumers are, not where the index would say)
        let moved_entity = focus.and_then(|(p, entity)| {
            let member = model.placed.as_deref()?.member(entity)?;
            member.present.then_some((p, entity, member.placement))
        });
        let others = super::Others::default();
        let mut out = BTreeMap::new();
        for &d in declarers {
            let declared = self.declared(model, d);
            let sighted = declared.sighted;
            // another product's entity moved: only `d`'s entities beside it can see it
            let beside = moved_entity
                .filter(|&(p, ..)| p != d && !sighted && !declared.sees_all)
                .and_then(|(_, seen, placement)| beside(model, d, seen, &placement.namespace));
            // unsighted, only the focused entity's own items of its product can differ
            let own = focus.filter(|&(p, _)| p == d && !sighted);
            let list: Vec<Entity<'s, 'a>> = match (own, beside) {
                (Some((_, entity)), _) => entity_of(d, entity).into_iter().collect(),
                (None, Some(names)) => names.into_iter().filter_map(|n| entity_of(d, n)).collect(),
                (None, None) => entities_of(d),
            };
            if !list.iter().any(|e| e.2.is_some_and(declares_items)) {
                continue;
            }
            // asked only when half-way; the declaring entity sees its product's others as
            // placed (`FacetIndex::atom_by_declarer`), built when first asked, and of the
            // entity alone when no entity of `d` can make its items' atoms true (then only
            // the runtime, which every world has, can)
            let world_of = |list: &[Entity<'s, 'a>]| {
                let mut mine = running(d, list);
                super::as_placed(model, &mut mine);
                World::new(mine, model.runtime)
            };
            let all = std::cell::OnceCell::new();
            let apart = std::cell::RefCell::new(BTreeMap::new()); // per view: `apart_world`
            for &(entity, version, manifest) in &list {
                let alone = std::cell::OnceCell::new();
                let Some(m) = manifest.filter(|m| declares_items(m)) else {
                    continue;
                };
                let items = self.items_of_entity(model, d, (entity, version, m))?;
                let facets = m.facets();
                if items.len() != facets.requires.len() + facets.constraints.len() {
                    return None; // some entry is not an item of the model's
                }
                if let Some((_, seen, placement)) = moved_entity.filter(|&(p, ..)| p != d)
                    && !items.iter().any(|&k| self.may_see(k, seen, placement))
                {
                    // another product's entity moved, out of sight of all these items'
                    // views: they judge as they did
                    continue;
                }
                for k in items {
                    // the perspective of `entity` where the model's own judgement applies
                    let j = if self.perspectives(model, k) > 1 {
                        self.speaks_for(model, k)
                            .position(|e| e == entity)
                            .unwrap_or(0)
                    } else {
                        0
                    };
                    let holds = self.compiled[k].eval(&mut |id| {
                        let by_own = if values[d].is_some() {
                            self.own_holds(model, k, j, id)
                        } else if self.views.apart(self.atoms.view[id]) {
                            let view = self.atoms.view[id];
                            apart
                                .borrow_mut()
                                .entry(view)
                                .or_insert_with(|| self.apart_world(model, d, view, &list))
                                .atom_holds(entity, &self.atoms.interned[id])
                        } else {
                            let own = if sighted {
                                all.get_or_init(|| world_of(&list))
                            } else {
                                alone.get_or_init(|| world_of(&[(entity, version, manifest)]))
                            };
                            own.atom_holds(entity, &self.atoms.interned[id])
                        };
                        by_own || self.by_others(model, id, d, (&moved, &others), |q| truth(id, q))
                    });
                    if !holds {
                        let source = self.items[k].source;
                        out.insert((entity.to_owned(), d, source, m.version.as_str()), m);
                    }
                }
            }
        }
        Some(out)
    }

    /// The items `entity` of product `d` declares, running `version` of release `m`: a
    /// kept entity's own, else those of the release made for its namespace (or for every
    /// namespace) and for it (or for every entity), in item order. `None` when `m` is not
    /// one of the product's values.
    fn items_of_entity(
        &self,
        model: &Model<'_>,
        d: usize,
        (entity, version, m): (&str, &Version, &Manifest),
    ) -> Option<Vec<usize>> {
        let declared = self.declared(model, d);
        if declared.today.get(entity).map(String::as_str) == Some(version.as_str()) {
            return Some(declared.kept.get(entity).cloned().unwrap_or_default());
        }
        let i = model.vars[d]
            .releases
            .iter()
            .position(|r| std::ptr::eq(r.as_ref(), m))?;
        let Some(release) = declared.released.get(&i) else {
            return Some(Vec::new());
        };
        // a release item made for each namespace speaks for the entities there
        let home = model
            .placed
            .as_deref()
            .map(|placed| placed.placement(entity).namespace.as_str());
        let mut items: Vec<usize> = release.everywhere.clone();
        items.extend(
            home.and_then(|h| release.by_home.get(h))
                .into_iter()
                .flatten(),
        );
        items.extend(
            release
                .by_entity
                .get(entity)
                .into_iter()
                .flatten()
                .filter(|&&k| {
                    let at = self.items[k].home.as_deref();
                    at.is_none() || at == home
                }),
        );
        items.sort_unstable();
        items.dedup();
        Some(items)
    }

    /// The world of those of product `d`'s entities in `list` that tier or binding view
    /// `view` sees, unplaced: the view has decided who is seen (see `own_worlds`).
    fn apart_world<'w>(
        &self,
        model: &'w Model<'_>,
        d: usize,
        view: usize,
        list: &[Entity<'w, 'w>],
    ) -> World<'w> {
        let seen: Vec<Entity<'w, 'w>> = list
            .iter()
            .filter(|e| self.sees_entity(model, view, e.0))
            .copied()
            .collect();
        World::new(running_of(model, d, &seen), model.runtime)
    }

    /// The installed entities of product `q` that view `view` can see, by name, asked of
    /// the serving index (a namespace's: those in it and the global ones; a tier's: those
    /// standing in it; a binding's: its entity); `None` for the view that sees everything.
    /// A superset: labels are left to [`FacetIndex::sees_entity`].
    pub(super) fn seen_in<'m>(
        &self,
        model: &'m Model<'_>,
        view: usize,
        q: usize,
    ) -> Option<Vec<&'m str>> {
        model.placed.as_deref()?;
        let names: Vec<&'m str> = match self.views.sight_of(view)? {
            super::judge::Sight::From(ns) => super::entities_in(model, q, Some(ns))
                .chain(super::entities_in(model, q, Some("")))
                .collect(),
            super::judge::Sight::Tier { namespace, .. } => {
                super::entities_in(model, q, Some(namespace)).collect()
            }
            super::judge::Sight::Bound { entity } => model
                .placed
                .as_deref()?
                .member(entity)
                .map(|m| m.name)
                .into_iter()
                .collect(),
        };
        Some(sorted(names))
    }

    /// Whether some atom of item `k` is judged in a view that sees `entity`, standing at
    /// `placement`.
    fn may_see(&self, k: usize, entity: &str, placement: &crate::instance::Placement) -> bool {
        let mut ids = Vec::new();
        super::judge::atom_ids(&self.compiled[k], &mut ids);
        ids.iter().any(|&id| {
            self.views
                .sees_entity(self.atoms.view[id], entity, placement)
        })
    }

    /// [`Declared`] of product `d`, worked out once.
    fn declared(&self, model: &Model<'_>, d: usize) -> &Declared {
        self.declared[d].get_or_init(|| self.declared_by(model, d))
    }

    fn declared_by(&self, model: &Model<'_>, d: usize) -> Declared {
        let var = &model.vars[d];
        let provides = |name: &str| var.every_manifest().any(|m| m.facets().provides(name));
        let mut declared = Declared {
            today: var
                .current
                .iter()
                .filter_map(|c| Some((c.entity?.to_owned(), c.version.to_string())))
                .collect(),
            ..Declared::default()
        };
        for (&(p, value), items) in self.by_value.range((d, Value::Keep)..) {
            if p != d {
                break;
            }
            for &k in items {
                let item = &self.items[k];
                let mut ids = Vec::new();
                super::judge::atom_ids(&self.compiled[k], &mut ids);
                declared.sees_all |= ids
                    .iter()
                    .any(|&id| self.atoms.view[id] == super::judge::Views::ALL);
                declared.sighted |= ids.iter().any(|&id| match &self.atoms.interned[id] {
                    Atom::Product { product, .. } => *product == var.product,
                    Atom::Capability { name, .. } => provides(name),
                    Atom::Runtime { .. } => false,
                    Atom::Rule(_) => true,
                });
                let Value::Release(i) = value else {
                    if let Some(e) = &item.entity {
                        declared.kept.entry(e.clone()).or_default().push(k);
                    }
                    continue;
                };
                let release = declared.released.entry(i).or_default();
                match (&item.entity, &item.home) {
                    (Some(e), _) => release.by_entity.entry(e.clone()).or_default().push(k),
                    (None, Some(h)) => release.by_home.entry(h.clone()).or_default().push(k),
                    (None, None) => release.everywhere.push(k),
                }
            }
        }
        declared
    }

    /// The items that fail, entity by entity, when each product `q`'s entities run what
    /// `entities_of(q)` says (by name, as a rolling upgrade has them half-way: a product may
    /// run two releases), among the entities of the products in `declarers`: (entity, its
    /// product, the entry, the entry in words), sorted. Judged in one [`World`] of the
    /// declarers' entities and those of the products their items' atoms can be made true by
    /// (named products, capability providers, rule supports): the others cannot change an
    /// item, so the world need not hold every entity.
    #[must_use]
    pub fn failing<'s, 'a>(
        &self,
        model: &Model<'_>,
        entities_of: impl Fn(usize) -> Vec<(&'s str, &'a crate::version::Version, Option<&'a Manifest>)>,
        declarers: &BTreeSet<usize>,
    ) -> BTreeMap<Failing<'a>, &'a Manifest> {
        let mut relevant: BTreeSet<usize> = declarers.clone();
        let mut running = Vec::new();
        for &q in declarers {
            for (entity, version, manifest) in entities_of(q) {
                running.push((q, entity, version, manifest));
                let Some(m) = manifest.filter(|m| declares_items(m)) else {
                    continue;
                };
                let facets = m.facets();
                for r in &facets.requires {
                    relevant.extend(self.providers.get(&r.name).into_iter().flatten());
                }
                for atom in facets.constraints.iter().flat_map(super::atoms) {
                    relevant.extend(self.atom_mentions(model, atom));
                }
            }
        }
        for &q in relevant.difference(declarers) {
            running.extend(
                entities_of(q)
                    .into_iter()
                    .map(|(entity, version, manifest)| (q, entity, version, manifest)),
            );
        }
        let mut all: Vec<Running> = running
            .iter()
            .map(|&(q, entity, version, manifest)| Running {
                entity,
                product: &model.vars[q].product,
                version,
                facets: manifest.map_or(Facets::none(), Manifest::facets),
                placement: crate::instance::Placement::none(),
            })
            .collect();
        // each entity sees what its namespace sees, as the model's items do
        super::as_placed(model, &mut all);
        let world = World::new(all, model.runtime);
        let mut out = BTreeMap::new();
        for &(q, entity, _, manifest) in &running {
            let Some(m) = manifest.filter(|m| declares_items(m) && declarers.contains(&q)) else {
                continue;
            };
            let facets = m.facets();

            for (k, r) in facets.requires.iter().enumerate() {
                if !world.term_holds(entity, &requirement_term(r)) {
                    let source = Source::Requires(k);
                    out.insert((entity.to_owned(), q, source, m.version.as_str()), m);
                }
            }
            for (k, t) in facets.constraints.iter().enumerate() {
                if !world.term_holds(entity, t) {
                    let source = Source::Constraint(k);
                    out.insert((entity.to_owned(), q, source, m.version.as_str()), m);
                }
            }
        }
        out
    }
}

/// Per product whose items name one product, the releases declaring them (indices into its
/// releases): [`FacetIndex::concerned`] and [`FacetIndex::concerned_running`] are read off it.
pub(super) type Naming = BTreeMap<usize, Vec<usize>>;

/// The items of one product's entities, indexed once so that finding an entity's items
/// walks neither every entity nor every item of its product (a product in many namespaces
/// has an item per namespace at each release, and a rolling plan asks after every step).
#[derive(Debug, Default)]
pub(super) struct Declared {
    /// The installed entities and the versions they run today.
    today: BTreeMap<String, String>,
    /// The items of kept entities, by entity.
    kept: BTreeMap<String, Vec<usize>>,
    /// Per release: its items.
    released: BTreeMap<usize, ReleaseItems>,
    /// Some atom of its items can be made true by its own entities (a capability some
    /// release of it provides, its own product, a rule): then one entity's move can change
    /// what another's items judge.
    sighted: bool,
    /// Some atom of its items is judged in the view that sees every entity (an item
    /// declared from several namespaces at once).
    sees_all: bool,
}

/// The items of one release of a product, by whom they speak for.
#[derive(Debug, Default)]
struct ReleaseItems {
    /// Every entity, wherever it stands.
    everywhere: Vec<usize>,
    /// The entities of one namespace.
    by_home: BTreeMap<String, Vec<usize>>,
    /// One entity.
    by_entity: BTreeMap<String, Vec<usize>>,
}

/// An entity as [`FacetIndex::failing_split`] is given it: its name, the version it runs and
/// that release's manifest (when the catalog has it).
pub type Entity<'s, 'a> = (&'s str, &'a crate::version::Version, Option<&'a Manifest>);

/// The instances of product `q` that `list` says run.
fn running_of<'m, 's: 'm, 'a: 'm>(
    model: &'m Model<'_>,
    q: usize,
    list: &[Entity<'s, 'a>],
) -> Vec<Running<'m>> {
    list.iter()
        .map(|&(entity, version, manifest)| Running {
            entity,
            product: &model.vars[q].product,
            version,
            facets: manifest.map_or(Facets::none(), Manifest::facets),
            placement: crate::instance::Placement::none(),
        })
        .collect()
}

/// The installed entities of product `d` that stand in namespace `ns` or bind something to
/// entity `seen`, by name, sorted: when `seen` stands in `ns`, the only ones some view of
/// whose items can see it (a namespace's view sees it and the global ones, a tier those in
/// it, a binding its entity), unless an item of `d` sees everything. Asked of the serving
/// index rather than walked: a product in many namespaces has an entity in each. `None`
/// when `ns` is the global namespace, which everyone sees.
fn beside<'m>(model: &'m Model<'_>, d: usize, seen: &str, ns: &str) -> Option<Vec<&'m str>> {
    if ns.is_empty() {
        return None;
    }
    let mut names: Vec<&str> = super::entities_in(model, d, Some(ns)).collect();
    if let Some(placed) = model.placed.as_deref() {
        names.extend(placed.binding_to(seen, &model.vars[d].product));
    }
    Some(sorted(names))
}

/// Entity names sorted, each once (what `binary_search` and the worlds built from them
/// expect).
fn sorted(mut names: Vec<&str>) -> Vec<&str> {
    names.sort_unstable();
    names.dedup();
    names
}
