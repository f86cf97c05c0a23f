//! Reading a partly read catalog again, for explanations that check a fix under a relaxed
//! candidate policy: which scope each policy reaches ([`Scope::upgrades`] with its flags), each
//! read once, and the whole history of named products.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, PoisonError};

use super::{Catalog, Layers, Location, Scope};
use crate::environment::Environment;
use crate::product::ProductId;

/// The catalogs a command read a scope of, opened again on demand; or a catalog held whole in
/// memory (a directory's), read by scope the same way ([`Reread::in_memory`]).
pub struct Reread {
    origin: Origin,
    env: Environment,
    targets: Vec<ProductId>,
    /// Keyed by `(allow_downgrade, allow_install)`; `None` when the catalog could not be read.
    loaded: Mutex<Loaded>,
}

type Loaded = BTreeMap<(bool, bool), Option<Arc<Catalog>>>;

/// Where [`Reread`] reads from.
enum Origin {
    /// The command's locations, opened again (databases: each read answers its scope).
    Locations(Vec<Location>),
    /// Every release, in memory ([`Catalog::scoped`] answers each scope).
    Memory(Arc<Catalog>),
}

impl Reread {
    /// Rereading for a command over `env` with these `--target` products, from `locations`
    /// (in layer order); `None` when every location is a directory (read whole already).
    #[must_use]
    pub fn new(locations: Vec<Location>, env: &Environment, targets: &[ProductId]) -> Option<Self> {
        if locations
            .iter()
            .all(|l| matches!(l, Location::Directory(_)))
        {
            return None;
        }
        Some(Reread {
            origin: Origin::Locations(locations),
            env: env.clone(),
            targets: targets.to_vec(),
            loaded: Mutex::default(),
        })
    }

    /// Rereading `whole`, every release of a catalog held in memory (read from directories),
    /// for a command over `env` with these `--target` products that works on
    /// [`Catalog::scoped`] of it as a command over a database works on what it read: the
    /// explanations then read more of it in rounds, as they read more of a database.
    #[must_use]
    pub fn in_memory(whole: Arc<Catalog>, env: &Environment, targets: &[ProductId]) -> Self {
        Reread {
            origin: Origin::Memory(whole),
            env: env.clone(),
            targets: targets.to_vec(),
            loaded: Mutex::default(),
        }
    }

    /// The releases a policy with these flags reaches (read once per pair of flags); `None`
    /// when the catalog cannot be read again.
    #[must_use]
    pub fn upgrades(&self, allow_downgrade: bool, allow_install: bool) -> Option<Arc<Catalog>> {
        let key = (allow_downgrade, allow_install);
        let mut loaded = self.loaded.lock().unwrap_or_else(PoisonError::into_inner);
        loaded
            .entry(key)
            .or_insert_with(|| {
                let scope = Scope::upgrades(&self.env, &self.targets, key.0, key.1);
                Some(Arc::new(self.load(&scope)?))
            })
            .clone()
    }

    /// Every release of these products, without their dependencies; `None` when the catalog
    /// cannot be read again.
    #[must_use]
    pub fn products(&self, products: &[ProductId]) -> Option<Catalog> {
        let floors = products.iter().map(|p| (p.clone(), None)).collect();
        self.load(&Scope::Products {
            floors,
            closure: false,
        })
    }

    /// The products some release of which provides capability `name` (every layer's, from
    /// its index where it has one); `None` when the catalog cannot be read again.
    #[must_use]
    pub fn providers(&self, name: &str) -> Option<Vec<ProductId>> {
        match &self.origin {
            Origin::Locations(locations) => Layers::open(locations).ok()?.providing(name).ok(),
            Origin::Memory(whole) => Some(whole.providers(name).to_vec()),
        }
    }

    fn load(&self, scope: &Scope) -> Option<Catalog> {
        match &self.origin {
            Origin::Locations(locations) => Layers::open(locations).ok()?.load(scope).ok(),
            Origin::Memory(whole) => Some(whole.scoped(scope)),
        }
    }
}

#[cfg(test)]
mod tests {
    use std::path::{Path, PathBuf};

    use super::*;
    use crate::catalog::Batch;
    use crate::catalog::scratch::Scratch;

    const EXAMPLES: &str = "testdata/examples/catalog";

    fn env() -> Environment {
        crate::loader::read_environment(Path::new("testdata/examples/env-valid.yml")).unwrap()
    }

    /// A catalog file holding the examples, living as long as the guard.
    fn sqlite() -> (Scratch, Location) {
        let db = Scratch::new("reread.db");
        let (files, unreadable) =
            crate::loader::read_sources_and_errors(&[PathBuf::from(EXAMPLES)]);
        let batch = Batch::check(files, unreadable).unwrap();
        let location = Location::Sqlite(db.path().to_owned());
        location
            .create_store()
            .unwrap()
            .import(&batch, false)
            .unwrap();
        (db, location)
    }

    #[test]
    fn directories_need_no_rereading() {
        let dir = Location::Directory(PathBuf::from(EXAMPLES));
        assert!(Reread::new(vec![dir], &env(), &[]).is_none());
    }

    #[test]
    fn a_database_is_read_again_once_per_policy() {
        let env = env();
        let (_db, location) = sqlite();
        let reread = Reread::new(vec![location], &env, &[]).unwrap();
        let narrow = reread.upgrades(false, false).unwrap();
        let again = reread.upgrades(false, false).unwrap();
        assert!(Arc::ptr_eq(&narrow, &again), "read once, then kept");
        let wide = reread.upgrades(true, true).unwrap();
        assert!(!Arc::ptr_eq(&narrow, &wide));
        let scope = Scope::upgrades(&env, &[], true, true);
        let direct = reread.load(&scope).unwrap();
        assert_eq!(wide.len(), direct.len(), "what the policy's scope holds");
        let product = env.entities[0].product.clone();
        let history = reread.products(std::slice::from_ref(&product)).unwrap();
        assert!(!history.releases(&product).is_empty());
    }
}
