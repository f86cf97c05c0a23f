//! What every question over one model works out alike, worked out once: how two neighbouring
//! products' values get on, and what each declaration between them says about each pair.
//!
//! Questions over one model run in parallel (the rows of `upgrades`, the explanations of one
//! round) and encode many of the same products: on the hard family at 5,000 products the
//! same pair was judged again for each question that reached it, and those judgements (each a
//! version comparison through [`crate::constraint`]) were about a fifth of the run. Each entry
//! here is filled once, by the first question that needs it, and read by every other.
//!
//! Entries are keyed by a product and the slot of a neighbour in [`Model::neighbors`], so
//! reading one needs no lock and no hashing.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, OnceLock};

use rayon::prelude::*;

use super::conflict::Declaration;
use super::model::{Exclusion, Model, Value};
use super::placed::Meeting;
use crate::product::ProductId;

/// The caches of one model (empty until used).
pub struct Memo {
    /// Per product and neighbour slot: [`Model::compatibility`] over both base domains.
    compatible: Vec<Vec<OnceLock<Vec<Vec<bool>>>>>,
    /// Per product and neighbour slot: [`Judgement`]s of its declarations on the neighbour.
    judged: Vec<Vec<OnceLock<Vec<Judgement>>>>,
    /// Per product: [`Reach`].
    reach: Vec<OnceLock<Reach>>,
    /// Per product, per value it can take at all (`Keep`, each release in catalog order,
    /// `Absent`: [`today_slot`]): whether it is compatible with each neighbour's value
    /// today ([`Model::compatible_with_today`]).
    with_today: Vec<OnceLock<Vec<OnceLock<Vec<bool>>>>>,
    /// Per product, per value as in `with_today`: whether it is compatible with every
    /// neighbour's value today ([`Model::fits_today`]).
    fits_today: Vec<OnceLock<Vec<OnceLock<bool>>>>,
    /// The section 9 items ([`Model::facets`]).
    pub(super) facets: OnceLock<Option<super::facets::FacetIndex>>,
    /// What models built before over the same environment found that more of the catalog
    /// read cannot change ([`Model::carry`]).
    pub(super) carried: OnceLock<Arc<super::facets::Carried>>,
    /// Where section 10's wiring is more than pairwise ([`Model::wiring_risk`]).
    pub(super) wiring: OnceLock<super::wired::Risk>,
    /// Per capability: the catalog's providers that are not variables
    /// ([`Model::outside_providers`]), looked up once (the catalog walks every product).
    pub(super) providers: Mutex<BTreeMap<String, Arc<[ProductId]>>>,
}

/// Every value a product could take under any policy, as the conflict search encodes it: its
/// first value (`Keep` or `Absent`), then each catalog release but the installed one and
/// non-orderable ones, with the rules that leave it out under the model's policy (none: it
/// is a value today). And its declarations that need a product that is not a variable:
/// required dependencies on it, and required inputs wired from an optional dependency on it
/// (section 10: nothing can feed them), as `(value slot, release, declaration, product)`.
pub struct Reach {
    pub values: Vec<(Value, Vec<Exclusion>)>,
    pub missing: Vec<(usize, usize, Declaration, crate::product::ProductId)>,
}

/// One declaration of one release a product's value runs, on a neighbour: which of the
/// neighbour's [`Reach`] values it holds with (only declarations some value breaks are kept).
/// A pair of values that both keep their entities always holds, as the model says.
#[derive(Debug, PartialEq, Eq)]
pub struct Judgement {
    /// The slot of the declaring value in its product's [`Reach::values`].
    pub at: usize,
    pub release: usize,
    pub declaration: Declaration,
    pub holds: Vec<bool>,
}

impl Memo {
    pub(super) fn new(neighbors: &[Vec<usize>]) -> Self {
        fn slots<T>(neighbors: &[Vec<usize>]) -> Vec<Vec<OnceLock<T>>> {
            neighbors
                .iter()
                .map(|n| n.iter().map(|_| OnceLock::new()).collect())
                .collect()
        }
        Memo {
            compatible: slots(neighbors),
            judged: slots(neighbors),
            reach: neighbors.iter().map(|_| OnceLock::new()).collect(),
            with_today: neighbors.iter().map(|_| OnceLock::new()).collect(),
            fits_today: neighbors.iter().map(|_| OnceLock::new()).collect(),
            facets: OnceLock::new(),
            carried: OnceLock::new(),
            wiring: OnceLock::new(),
            providers: Mutex::new(BTreeMap::new()),
        }
    }
}

/// A model's memo handed on to the next model built over the same products and policy with
/// more of the catalog read ([`Model::bequeath`], [`Model::inherit`]), with what its entries
/// were worked out over. Reading a product whole only adds its older releases, so a product
/// with as many releases as before has the same ones, and an entry over such products alone
/// holds in the next model (a row over a product's neighbours, when they are the same; a
/// matrix over base domains, when those are).
///
/// An explanation round reads the products its conflicts name and builds its model again;
/// on the hard family at 5,000 products the rounds after the first judged 94,000 pairs
/// already judged, of 145,000 (instrumented count), besides the same rows of
/// [`Model::compatible_with_today`]; and the first round judged again much of what the
/// examining model of `upgrades` had worked out over the same catalog.
pub struct Inheritance {
    policy: super::candidates::Policy,
    products: Vec<ProductId>,
    releases: Vec<usize>,
    neighbors: Vec<Vec<usize>>,
    base: Vec<Vec<Value>>,
    memo: Memo,
}

impl Model<'_> {
    /// This model's memo, for [`Model::inherit`] by the next model over the same products.
    #[must_use]
    pub fn bequeath(self) -> Inheritance {
        Inheritance {
            policy: self.policy,
            products: self.vars.iter().map(|v| v.product.clone()).collect(),
            releases: self.vars.iter().map(|v| v.releases.len()).collect(),
            neighbors: self.neighbors,
            base: self.base,
            memo: self.memo,
        }
    }

    /// Takes over the entries of `from` that hold here (see [`Inheritance`]); nothing when
    /// the products or the policy differ. Call it on a model no question has used yet.
    pub fn inherit(&self, from: Inheritance) {
        if from.policy != self.policy
            || from.products.len() != self.vars.len()
            || from
                .products
                .iter()
                .zip(&self.vars)
                .any(|(p, v)| *p != v.product)
        {
            return;
        }
        // the products are the same, in the same order: so are their indices
        let same: Vec<bool> = (0..self.vars.len())
            .map(|p| from.releases[p] == self.vars[p].releases.len())
            .collect();
        let same_base: Vec<bool> = (0..self.vars.len())
            .map(|p| same[p] && from.base[p] == self.base[p])
            .collect();
        let Memo {
            compatible,
            judged,
            reach,
            with_today,
            fits_today,
            facets,
            ..
        } = from.memo;
        // Every product as it was (the first explanation round of `upgrades`, over the
        // catalog its examining model had): the section 9 index is the same, with all it
        // worked out since (on the hard family with capabilities at 5,000, a build of about
        // 120 ms that left a core idle).
        if same.iter().all(|&s| s)
            && from.neighbors == self.neighbors
            && let Some(index) = facets.into_inner()
        {
            let _ = self.memo.facets.set(index);
        }
        // in parallel (a round's model waits for it, and most of its time is freeing what
        // does not hold: 15-50 ms a round on one thread at 5,000 products)
        let rows = compatible.into_par_iter().zip(judged);
        let today = with_today.into_par_iter().zip(fits_today);
        let rows = rows.zip(reach.into_par_iter().zip(today));
        rows.enumerate().for_each(
            |(p, ((compatible, judged), (reach, (with_today, fits_today))))| {
                if !same[p] {
                    return;
                }
                if let Some(reach) = reach.into_inner() {
                    let _ = self.memo.reach[p].set(reach);
                }
                // rows over the neighbours, in their order (and what they all say)
                if from.neighbors[p] == self.neighbors[p] {
                    if let Some(row) = with_today.into_inner() {
                        let _ = self.memo.with_today[p].set(row);
                    }
                    if let Some(row) = fits_today.into_inner() {
                        let _ = self.memo.fits_today[p].set(row);
                    }
                }
                let slots = from.neighbors[p]
                    .iter()
                    .zip(compatible.into_iter().zip(judged));
                for (&q, (matrix, judgements)) in slots {
                    let Ok(slot) = self.neighbors[p].binary_search(&q) else {
                        continue;
                    };
                    if !same[q] {
                        continue;
                    }
                    // over both base domains
                    if same_base[p]
                        && same_base[q]
                        && let Some(matrix) = matrix.into_inner()
                    {
                        let _ = self.memo.compatible[p][slot].set(matrix);
                    }
                    if let Some(judgements) = judgements.into_inner() {
                        let _ = self.memo.judged[p][slot].set(judgements);
                    }
                }
            },
        );
    }
}

impl Clone for Memo {
    /// A clone starts empty: the caches are a matter of speed, never of meaning.
    fn clone(&self) -> Self {
        let neighbors: Vec<Vec<usize>> = self
            .compatible
            .iter()
            .map(|slots| (0..slots.len()).collect())
            .collect();
        Memo::new(&neighbors)
    }
}

impl std::fmt::Debug for Memo {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Memo")
    }
}

/// Where value `a` of a product with `releases` catalog releases stands in its
/// [`Memo::with_today`] rows: `Keep`, each release, `Absent`.
fn today_slot(a: Value, releases: usize) -> Option<usize> {
    match a {
        Value::Keep => Some(0),
        Value::Release(i) if i < releases => Some(i + 1),
        Value::Release(_) => None,
        Value::Absent => Some(releases + 1),
    }
}

/// The position of each of `values` in `base`, when every one is there (both in the order
/// of the model's domains, so one forward scan finds them).
fn positions(base: &[Value], values: &[Value]) -> Option<Vec<usize>> {
    let mut out = Vec::with_capacity(values.len());
    let mut from = 0;
    for v in values {
        let at = from + base[from..].iter().position(|b| b == v)?;
        out.push(at);
        from = at + 1;
    }
    Some(out)
}

impl Model<'_> {
    fn slot(&self, p: usize, q: usize) -> Option<usize> {
        self.neighbors[p].iter().position(|&n| n == q)
    }

    /// [`Model::compatibility`] of `ps` (values of `p`) and `qs` (values of `q`), read from
    /// the matrix of both base domains when the two are neighbours and the values lie in
    /// them (the domains of every engine question do); the matrix itself, not a copy, when
    /// both are the base domains (most products of most questions).
    #[must_use]
    pub fn compatibility_memo(
        &self,
        p: usize,
        ps: &[Value],
        q: usize,
        qs: &[Value],
    ) -> std::borrow::Cow<'_, [Vec<bool>]> {
        let (Some(slot), Some(rows), Some(cols)) = (
            self.slot(p, q),
            positions(&self.base[p], ps),
            positions(&self.base[q], qs),
        ) else {
            return self.compatibility(p, ps, q, qs).into();
        };
        let matrix = self.memo.compatible[p][slot]
            .get_or_init(|| self.compatibility(p, &self.base[p], q, &self.base[q]));
        if rows.len() == self.base[p].len() && cols.len() == self.base[q].len() {
            return matrix.as_slice().into();
        }
        rows.iter()
            .map(|&i| cols.iter().map(|&j| matrix[i][j]).collect())
            .collect::<Vec<Vec<bool>>>()
            .into()
    }

    /// [`Model::compatible`], read from the memo when the pair's matrix is already there (a
    /// single test never fills it: most pairs tested once, to see whether an answer reaches
    /// a product not encoded, are never encoded together).
    #[must_use]
    pub fn compatible_memo(&self, p: usize, a: Value, q: usize, b: Value) -> bool {
        let matrix = self
            .slot(p, q)
            .and_then(|slot| self.memo.compatible[p][slot].get());
        let found = matrix.and_then(|m| {
            let row = self.base[p].iter().position(|&v| v == a)?;
            let column = self.base[q].iter().position(|&v| v == b)?;
            Some(m[row][column])
        });
        found.unwrap_or_else(|| self.compatible(p, a, q, b))
    }

    /// Whether value `a` of `p` is compatible with each neighbour's value today, in
    /// `neighbors[p]` order, worked out once per value of `p` (`None` for a value `p` cannot
    /// take). Every answer of a search is checked against the products it has not encoded,
    /// which stand at today's values: a lookup instead of a search for the pair's slot and a
    /// walk of the declarations each time. Values the policy leaves out are covered too: the
    /// conflict search's fix checks take them (`--allow-downgrade`), and judged each such
    /// pair anew, a tenth of a hard `upgrades` run.
    #[must_use]
    pub fn compatible_with_today(&self, p: usize, a: Value) -> Option<&[bool]> {
        let releases = self.vars[p].releases.len();
        let at = today_slot(a, releases)?;
        let per_value = self.memo.with_today[p]
            .get_or_init(|| (0..releases + 2).map(|_| OnceLock::new()).collect());
        Some(per_value[at].get_or_init(|| {
            self.neighbors[p]
                .iter()
                .map(|&q| self.fits_neighbour_today(p, a, q))
                .collect()
        }))
    }

    /// Whether value `a` of `p` is compatible with neighbour `q`'s value today: one cell of
    /// [`Model::compatible_with_today`]'s row, one step of [`Model::fits_today`].
    fn fits_neighbour_today(&self, p: usize, a: Value, q: usize) -> bool {
        self.compatible(p, a, q, self.vars[q].domain[0])
    }

    /// Whether value `a` of `p` is compatible with every neighbour's value today (false for
    /// a value `p` cannot take): [`Model::compatible_with_today`]'s row all true, read from
    /// it when it is there, else judged up to the first neighbour it breaks with and kept
    /// apart. The conflict search asks this of every value it encodes (a preference,
    /// `solve::sat::core`), and most of those values never need the whole row: working it
    /// out was a tenth of the time of `upgrades`' fix checks on the hard family with
    /// capabilities.
    #[must_use]
    pub fn fits_today(&self, p: usize, a: Value) -> bool {
        let releases = self.vars[p].releases.len();
        let Some(at) = today_slot(a, releases) else {
            return false;
        };
        if let Some(row) = self.memo.with_today[p].get().and_then(|r| r[at].get()) {
            return row.iter().all(|&fits| fits);
        }
        let per_value = self.memo.fits_today[p]
            .get_or_init(|| (0..releases + 2).map(|_| OnceLock::new()).collect());
        *per_value[at].get_or_init(|| {
            self.neighbors[p]
                .iter()
                .all(|&q| self.fits_neighbour_today(p, a, q))
        })
    }

    /// The neighbours of `p` (but those `skip` passes over) that `p` at `a` breaks with, each
    /// at its value in `values`: read from the row of today's values where a neighbour is
    /// where it is today.
    pub fn breaking<'s>(
        &'s self,
        p: usize,
        a: Value,
        values: &'s [Value],
        skip: impl Fn(usize) -> bool + 's,
    ) -> impl Iterator<Item = usize> + 's {
        let today = self.compatible_with_today(p, a);
        self.neighbors[p]
            .iter()
            .enumerate()
            .filter(move |&(_, &q)| !skip(q))
            .filter(move |&(slot, &q)| match today {
                Some(row) if values[q] == self.vars[q].domain[0] => !row[slot],
                _ => !self.compatible_memo(p, a, q, values[q]),
            })
            .map(|(_, &q)| q)
    }

    /// `p`'s [`Reach`].
    #[must_use]
    pub fn reach(&self, p: usize) -> &Reach {
        self.memo.reach[p].get_or_init(|| {
            let var = &self.vars[p];
            let mut values = vec![(var.domain[0], Vec::new())];
            for i in 0..var.releases.len() {
                let rules = var.exclusions(i, self.policy);
                if !rules
                    .iter()
                    .any(|r| matches!(r, Exclusion::Installed | Exclusion::Unorderable))
                {
                    values.push((Value::Release(i), rules));
                }
            }
            let mut missing = Vec::new();
            for (at, &(v, _)) in values.iter().enumerate() {
                if v == Value::Keep {
                    continue; // what a kept release breaks today is tolerated
                }
                for (i, m) in self.manifests(p, v) {
                    for (k, d) in m.dependencies.iter().enumerate() {
                        if !d.optional && !self.index.contains_key(&d.product) {
                            missing.push((at, i, Declaration::Dependency(k), d.product.clone()));
                        }
                    }
                    for (k, v) in self.unfed_outside(p, m, None) {
                        missing.push((at, i, Declaration::Input(k), v.dependency));
                    }
                }
            }
            Reach { values, missing }
        })
    }

    /// The declarations of `p`'s values on its neighbour `q`, judged against each of `q`'s
    /// [`Reach`] values.
    #[must_use]
    pub fn judged(&self, p: usize, q: usize) -> &[Judgement] {
        let Some(slot) = self.slot(p, q) else {
            return &[];
        };
        if !self.declares_on(p, q) {
            return &[];
        }
        self.memo.judged[p][slot].get_or_init(|| self.judge(p, q))
    }

    fn judge(&self, p: usize, q: usize) -> Vec<Judgement> {
        let qd: Vec<Value> = self.reach(q).values.iter().map(|&(v, _)| v).collect();
        let other = &self.vars[q].product;
        let mut out = Vec::new();
        for (at, &(a, _)) in self.reach(p).values.iter().enumerate() {
            for (release, m) in self.manifests(p, a) {
                let both_keep = |b: Value| a == Value::Keep && b == Value::Keep;
                let deps = m
                    .dependencies
                    .iter()
                    .enumerate()
                    .filter(|(_, d)| d.product == *other)
                    .map(|(k, d)| {
                        let meeting = self.meeting((p, a, m), d, q);
                        let inside = self.product_wide(&meeting, &d.range, q);
                        let holds: Vec<bool> = qd
                            .iter()
                            .map(|&b| {
                                both_keep(b)
                                    || held(inside.as_ref(), b)
                                        .unwrap_or_else(|| self.meets_as(&meeting, d, q, b))
                            })
                            .collect();
                        (Declaration::Dependency(k), holds)
                    });
                let incs = m
                    .incompatibilities
                    .iter()
                    .enumerate()
                    .filter(|(_, c)| c.product == *other)
                    .map(|(k, c)| {
                        let sighting = self.sighting((p, a, m), c, q);
                        let inside = self.product_wide(&sighting, &c.range, q);
                        let holds: Vec<bool> = qd
                            .iter()
                            .map(|&b| {
                                both_keep(b)
                                    || held(inside.as_ref(), b)
                                        .map_or_else(|| self.avoids_as(&sighting, c, q, b), |h| !h)
                            })
                            .collect();
                        (Declaration::Incompatibility(k), holds)
                    });
                let reads = m
                    .facets()
                    .inputs
                    .iter()
                    .enumerate()
                    .filter(|(_, i)| super::wired::from_product(i, other))
                    .map(|(k, i)| {
                        let holds: Vec<bool> = qd
                            .iter()
                            .map(|&b| both_keep(b) || self.feeds_from((p, a, m), i, q, b))
                            .collect();
                        (Declaration::Input(k), holds)
                    });
                for (declaration, holds) in deps.chain(incs).chain(reads) {
                    if holds.iter().all(|&h| h) {
                        continue;
                    }
                    out.push(Judgement {
                        at,
                        release,
                        declaration,
                        holds,
                    });
                }
            }
        }
        out
    }

    /// Where `meeting` is product-wide, the releases of `q` that `range` holds
    /// ([`Model::inside`]), found once for every value a judgement tests.
    fn product_wide(
        &self,
        meeting: &Meeting,
        range: &crate::range::Range,
        q: usize,
    ) -> Option<std::ops::Range<usize>> {
        matches!(meeting, Meeting::Product).then(|| self.inside(range, q))
    }
}

/// Whether `range` holds value `b`, when that is known by position: `b` a release and the
/// judgement product-wide ([`Model::product_wide`]).
fn held(range: Option<&std::ops::Range<usize>>, b: Value) -> Option<bool> {
    match (b, range) {
        (Value::Release(j), Some(range)) => Some(range.contains(&j)),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::positions;
    use crate::catalog::Catalog;
    use crate::generate::{Params, Shape, generate};
    use crate::solve::model::{Model, Policy, Value};
    use crate::{environment, manifest};

    /// Works out every entry of `model`'s memo.
    fn fill(model: &Model<'_>) {
        for p in 0..model.vars.len() {
            let _ = model.reach(p);
            for i in 0..model.vars[p].releases.len() {
                let _ = model.compatible_with_today(p, Value::Release(i));
            }
            let _ = model.compatible_with_today(p, model.vars[p].domain[0]);
            for &q in &model.neighbors[p] {
                let _ = model.judged(p, q);
                let _ = model.compatibility_memo(p, &model.base[p], q, &model.base[q]);
            }
        }
    }

    /// A model over more of the catalog that takes over a model's memo over less of it
    /// (products read from their installed release up, others whole, as an explanation
    /// round reads them) works out exactly what a model of its own does, entry by entry;
    /// and it does take entries over (those of products read whole both times).
    #[test]
    fn an_inheriting_model_works_out_what_a_fresh_one_does() {
        for shape in [Shape::Hard, Shape::Instances] {
            let g = generate(Params {
                products: 40,
                releases: 12,
                seed: 7,
                shape,
            });
            let manifests: Vec<manifest::Manifest> = g
                .manifests
                .iter()
                .flat_map(|(path, text)| manifest::parse(text, &Arc::from(path.as_str())).unwrap())
                .collect();
            let env = environment::parse(&g.environment, &Arc::from("e.yml"), "e").unwrap();
            let installed = |m: &manifest::Manifest| {
                env.entities
                    .iter()
                    .find(|e| e.product == m.product)
                    .map(|e| &e.version)
            };
            // every other product read from its installed release up
            let mut products: Vec<_> = manifests.iter().map(|m| m.product.clone()).collect();
            products.dedup();
            let partial = manifests.iter().filter(|m| {
                let k = products.iter().position(|p| *p == m.product).unwrap_or(0);
                k % 2 == 0 || installed(m).is_none_or(|v| m.version >= *v)
            });
            let partial = Catalog::from_manifests(partial.cloned()).unwrap();
            let whole = Catalog::from_manifests(manifests.iter().cloned()).unwrap();
            let policy = Policy::default();
            let before = Model::build(&env, &partial, policy, &[]);
            fill(&before);
            let grown = (0..before.vars.len())
                .filter(|&p| {
                    before.vars[p].releases.len() < whole.releases(&before.vars[p].product).len()
                })
                .count();
            let inheriting = Model::build(&env, &whole, policy, &[]);
            inheriting.inherit(before.bequeath());
            let taken = (0..inheriting.vars.len())
                .flat_map(|p| inheriting.memo.judged[p].iter())
                .filter(|entry| entry.get().is_some())
                .count();
            assert!(
                grown > 5 && taken > 10,
                "{shape:?}: {grown} grown, {taken} taken over"
            );
            let fresh = Model::build(&env, &whole, policy, &[]);
            for p in 0..fresh.vars.len() {
                assert_eq!(
                    inheriting.reach(p).values,
                    fresh.reach(p).values,
                    "{shape:?} {p}"
                );
                assert_eq!(
                    inheriting.reach(p).missing,
                    fresh.reach(p).missing,
                    "{shape:?} {p}"
                );
                for i in 0..fresh.vars[p].releases.len() {
                    let a = Value::Release(i);
                    let row = inheriting.compatible_with_today(p, a);
                    assert_eq!(
                        row,
                        fresh.compatible_with_today(p, a),
                        "{shape:?} {p}={a:?}"
                    );
                }
                for &q in &fresh.neighbors[p] {
                    assert_eq!(
                        inheriting.judged(p, q),
                        fresh.judged(p, q),
                        "{shape:?} {p} {q}"
                    );
                    let (ps, qs) = (&fresh.base[p], &fresh.base[q]);
                    assert_eq!(
                        inheriting.compatibility_memo(p, ps, q, qs),
                        fresh.compatibility_memo(p, ps, q, qs),
                        "{shape:?} {p} {q}"
                    );
                }
            }
        }
    }

    #[test]
    fn positions_follow_the_base_order() {
        let base = [
            Value::Keep,
            Value::Release(2),
            Value::Release(5),
            Value::Release(7),
        ];
        assert_eq!(
            positions(&base, &[Value::Keep, Value::Release(5)]),
            Some(vec![0, 2])
        );
        assert_eq!(positions(&base, &[Value::Release(7)]), Some(vec![3]));
        assert_eq!(positions(&base, &[Value::Release(3)]), None);
        assert_eq!(positions(&base, &[]), Some(vec![]));
    }
}
