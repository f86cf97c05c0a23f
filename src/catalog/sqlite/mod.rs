//! The SQLite release catalog (`compat catalog import`): an embedded, zero-setup store that
//! saves re-parsing a directory of YAML on every run.
//!
//! Schema (version 4, in `PRAGMA user_version`; version 2 added `release.facets`, section 9
//! as one JSON cell, version 3 the `provision` index, version 4 wrote every cell again from
//! its source so it holds section 10; an older file is still read as it is, and migrated by
//! the next import): `source` keeps every imported file's path and text, so reports still
//! point at file and line; `release` holds one row per release, unique
//! by product and `version_key` ([`Version::storage_key`]: byte order = version order, equality
//! = version equality); `dependency`, `incompatibility` and `issue` hold the declarations with
//! their locations, as [`rows`](super::rows) lays them out. Manifests are rebuilt from rows by
//! its decoder, never by parsing YAML again; imports follow [`import::apply`].
//!
//! Invariants:
//! - an import is one transaction, and everything is parsed and checked before it starts, so
//!   a failed import writes nothing and a killed one leaves the previous content;
//! - only valid manifests are stored (warnings allowed); re-importing an identical manifest
//!   changes nothing, a different one for a stored release is refused unless replacing;
//! - the database runs in WAL mode, so readers are never blocked by an import;
//! - migrations are ordered and numbered; a file with a newer schema is refused, not guessed at.

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

mod tables;

use rusqlite::{Connection, OpenFlags, params};

use super::import;
use super::rows;
use super::{
    Batch, Catalog, CatalogSource, CatalogStore, ImportError, ImportSummary, Listing, Providing,
    ReleaseFacets, capabilities,
};
use crate::diagnostic::{InputError, InputErrors};
use crate::manifest::Manifest;
use crate::product::ProductId;
use crate::range::Range;
use crate::version::Version;
use tables::{Writer, find_release, read_manifest, read_manifests};

/// The first bytes of every SQLite database file.
const SQLITE_MAGIC: &[u8] = b"SQLite format 3\0";

/// The ordered migrations; `PRAGMA user_version` is how many have run.
const MIGRATIONS: &[&str] = &[
    "
    CREATE TABLE source (
        id INTEGER PRIMARY KEY,
        path TEXT NOT NULL,
        text TEXT NOT NULL
    );
    CREATE INDEX source_path ON source(path);
    CREATE TABLE release (
        id INTEGER PRIMARY KEY,
        product_group TEXT NOT NULL,
        product_name TEXT NOT NULL,
        version TEXT NOT NULL,
        version_key TEXT NOT NULL,
        product_type TEXT,
        source_id INTEGER NOT NULL REFERENCES source(id),
        line INTEGER NOT NULL,
        col INTEGER NOT NULL,
        UNIQUE (product_group, product_name, version_key)
    );
    CREATE TABLE dependency (
        release_id INTEGER NOT NULL REFERENCES release(id) ON DELETE CASCADE,
        ord INTEGER NOT NULL,
        product_group TEXT NOT NULL,
        product_name TEXT NOT NULL,
        minimum TEXT NOT NULL,
        maximum TEXT NOT NULL,
        recommended TEXT,
        optional INTEGER NOT NULL,
        line INTEGER NOT NULL,
        col INTEGER NOT NULL,
        PRIMARY KEY (release_id, ord)
    ) WITHOUT ROWID;
    CREATE INDEX dependency_target ON dependency(product_group, product_name);
    CREATE TABLE incompatibility (
        release_id INTEGER NOT NULL REFERENCES release(id) ON DELETE CASCADE,
        ord INTEGER NOT NULL,
        product_group TEXT NOT NULL,
        product_name TEXT NOT NULL,
        minimum TEXT,
        maximum TEXT,
        reason TEXT,
        line INTEGER NOT NULL,
        col INTEGER NOT NULL,
        PRIMARY KEY (release_id, ord)
    ) WITHOUT ROWID;
    CREATE TABLE issue (
        release_id INTEGER NOT NULL REFERENCES release(id) ON DELETE CASCADE,
        ord INTEGER NOT NULL,
        code TEXT NOT NULL,
        message TEXT NOT NULL,
        dependency TEXT,
        line INTEGER NOT NULL,
        col INTEGER NOT NULL,
        PRIMARY KEY (release_id, ord)
    ) WITHOUT ROWID;
",
    "
    -- section 9 (capabilities, constraints, runtime requirements, properties, deprecation) as
    -- one JSON cell (`catalog::facet_cell`); NULL for a release without any
    ALTER TABLE release ADD COLUMN facets TEXT;
",
    "
    -- section 9: which release provides which capability, the index `catalog providers`
    -- and the --allow-install closure ask (filled from the cells stored so far)
    CREATE TABLE provision (
        release_id INTEGER NOT NULL REFERENCES release(id) ON DELETE CASCADE,
        capability TEXT NOT NULL,
        PRIMARY KEY (capability, release_id)
    ) WITHOUT ROWID;
    CREATE INDEX provision_release ON provision(release_id);
    INSERT OR IGNORE INTO provision (release_id, capability)
        SELECT r.id, json_extract(p.value, '$.name')
        FROM release r, json_each(r.facets, '$.provides') p
        WHERE r.facets IS NOT NULL;
",
    "
    -- section 10 (outputs, inputs, instance criteria) in the facets cell: every stored
    -- release's cell is written again from its source text (`tables::refill_cells`, run with
    -- this step), since a compat that did not read section 10 stored cells without it
",
];

/// The first schema version with `release.facets`; an older file is read without it (its
/// releases were stored before section 9 existed) until an import migrates it.
pub const FACETS_SINCE: usize = 2;

/// The first schema version with the `provision` index; an older file's providers are found
/// by reading the cells that name the capability, until an import migrates it.
pub const PROVISION_SINCE: usize = 3;

/// The first schema version whose cells are known to hold section 10 data; an older file's
/// cells are written again from their sources when an import migrates it.
pub const SECTION_10_SINCE: usize = 4;

/// An open catalog database.
pub struct Store {
    conn: Connection,
    path: Arc<str>,
}

fn sql_error(path: &str, error: &rusqlite::Error) -> InputError {
    let text = error.to_string();
    let write_failure = matches!(
        error.sqlite_error_code(),
        Some(rusqlite::ErrorCode::DiskFull | rusqlite::ErrorCode::SystemIoFailure)
    ) || text.contains("disk I/O error")
        || text.contains("database or disk is full");
    if write_failure {
        return InputError::Write {
            path: path.to_owned(),
            reason: format!("{text} (a full disk?); nothing was written"),
        };
    }
    let reason = match error.sqlite_error_code() {
        Some(rusqlite::ErrorCode::NotADatabase) => {
            "not a compat catalog (not an SQLite database)".to_owned()
        }
        Some(rusqlite::ErrorCode::DatabaseBusy | rusqlite::ErrorCode::DatabaseLocked) => {
            "the catalog is locked by another process; try again when it is done, or wait \
             longer with --lock-timeout"
                .to_owned()
        }
        _ => format!("catalog database error: {text}"),
    };
    InputError::Io {
        path: path.to_owned(),
        reason,
    }
}

fn to_i64(n: usize) -> i64 {
    i64::try_from(n).unwrap_or(i64::MAX)
}

impl Store {
    /// Opens an existing catalog for reading.
    ///
    /// # Errors
    /// A missing file, a file that is not a catalog, or one with a newer schema.
    pub fn open(path: &Path) -> Result<Store, InputError> {
        let name: Arc<str> = Arc::from(path.display().to_string());
        if !path.is_file() {
            return Err(InputError::Io {
                path: name.to_string(),
                reason: "no such catalog file".to_owned(),
            });
        }
        // A connection is used by one thread at a time (rusqlite's `Connection` is not
        // `Sync`), so SQLite need not lock it on every call: with its default (serialized)
        // mode, the locks were an eighth of reading releases.
        let flags = OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX;
        let conn = Connection::open_with_flags(path, flags).map_err(|e| sql_error(&name, &e))?;
        let store = Store { conn, path: name };
        store.configure()?;
        let version = store.schema_version()?;
        if version == 0 {
            return Err(InputError::Io {
                path: store.path.to_string(),
                reason: "not a compat catalog (no catalog schema); create one with \
                         `compat catalog import DIR --db FILE`"
                    .to_owned(),
            });
        }
        store.check_not_newer(version)?;
        Ok(store)
    }

    /// Opens the file `--catalog` names, which is not a directory: a catalog made by
    /// `compat catalog import`, told by the SQLite header before SQLite is asked.
    ///
    /// # Errors
    /// A missing file, a file that is not an SQLite database, and as [`Store::open`].
    pub fn open_catalog(path: &Path) -> Result<Store, InputError> {
        let mut head = [0u8; 16];
        let is_sqlite = std::fs::File::open(path)
            .and_then(|mut f| std::io::Read::read_exact(&mut f, &mut head))
            .is_ok_and(|()| head == SQLITE_MAGIC);
        if is_sqlite {
            return Store::open(path);
        }
        let name = path.display().to_string();
        std::fs::metadata(path).map_err(|e| InputError::io(&name, &e))?;
        Err(InputError::Io {
            path: name,
            reason: "expected a catalog directory of manifests or a catalog file made by \
                     `compat catalog import`"
                .to_owned(),
        })
    }

    /// Opens a catalog for an import, creating it (and its schema) when needed.
    ///
    /// # Errors
    /// As [`Store::open`], and a schema that cannot be created.
    pub fn create(path: &Path) -> Result<Store, InputError> {
        let name: Arc<str> = Arc::from(path.display().to_string());
        let conn = Connection::open(path).map_err(|e| sql_error(&name, &e))?;
        let mut store = Store { conn, path: name };
        store.configure()?;
        store.migrate()?;
        Ok(store)
    }

    fn configure(&self) -> Result<(), InputError> {
        let path = &self.path;
        self.conn
            .busy_timeout(Duration::from_millis(crate::limits::get().lock_wait_ms))
            .map_err(|e| sql_error(path, &e))?;
        self.conn
            .pragma_update(None, "foreign_keys", true)
            .map_err(|e| sql_error(path, &e))?;
        Ok(())
    }

    fn schema_version(&self) -> Result<usize, InputError> {
        let version: i64 = self
            .conn
            .query_row("PRAGMA user_version", [], |row| row.get(0))
            .map_err(|e| sql_error(&self.path, &e))?;
        Ok(usize::try_from(version).unwrap_or(usize::MAX))
    }

    fn check_not_newer(&self, version: usize) -> Result<(), InputError> {
        if version > MIGRATIONS.len() {
            return Err(InputError::Io {
                path: self.path.to_string(),
                reason: format!(
                    "catalog schema version {version} is newer than this compat supports ({}); \
                     upgrade compat",
                    MIGRATIONS.len()
                ),
            });
        }
        Ok(())
    }

    /// Runs the migrations the file has not had yet, each batch in one transaction.
    fn migrate(&mut self) -> Result<(), InputError> {
        let version = self.schema_version()?;
        self.check_not_newer(version)?;
        if version == 0 {
            let tables: i64 = self
                .conn
                .query_row("SELECT count(*) FROM sqlite_schema", [], |row| row.get(0))
                .map_err(|e| sql_error(&self.path, &e))?;
            if tables > 0 {
                return Err(InputError::Io {
                    path: self.path.to_string(),
                    reason: "an SQLite database that is not a compat catalog; refusing to add \
                             tables to it"
                        .to_owned(),
                });
            }
        }
        let path = Arc::clone(&self.path);
        if version < MIGRATIONS.len() {
            self.conn
                .pragma_update(None, "journal_mode", "wal")
                .map_err(|e| sql_error(&path, &e))?;
            let tx = self.conn.transaction().map_err(|e| sql_error(&path, &e))?;
            for migration in &MIGRATIONS[version..] {
                tx.execute_batch(migration)
                    .map_err(|e| sql_error(&path, &e))?;
            }
            if version > 0 && version < SECTION_10_SINCE {
                tables::refill_cells(&tx, &path)?;
            }
            tx.pragma_update(None, "user_version", to_i64(MIGRATIONS.len()))
                .map_err(|e| sql_error(&path, &e))?;
            tx.commit().map_err(|e| sql_error(&path, &e))?;
        }
        Ok(())
    }

    /// Reads the releases whose ids `ids_query` selects, given the JSON array `keys` as its
    /// one parameter if there is one (one statement instead of one per key), into a catalog.
    fn collect(&self, keys: Option<&str>, ids_query: &str) -> Result<Catalog, InputErrors> {
        let err = |e: rusqlite::Error| sql_error(&self.path, &e);
        self.conn
            .execute_batch(
                "CREATE TEMP TABLE IF NOT EXISTS pick (id INTEGER PRIMARY KEY); DELETE FROM pick;",
            )
            .map_err(err)?;
        let insert = format!("INSERT OR IGNORE INTO pick {ids_query}");
        match keys {
            Some(keys) => self.conn.execute(&insert, [keys]),
            None => self.conn.execute(&insert, []),
        }
        .map_err(err)?;
        let manifests = read_manifests(&self.conn, &self.path, None)?;
        Catalog::from_manifests(manifests).map_err(InputErrors)
    }
}

impl CatalogStore for Store {
    /// Imports a checked batch in one transaction, by the rules of [`import::apply`].
    ///
    /// # Errors
    /// Conflicting releases (nothing written), or a database failure (nothing written).
    fn import(&mut self, batch: &Batch, replace: bool) -> Result<ImportSummary, ImportError> {
        let path = Arc::clone(&self.path);
        let err = |e: rusqlite::Error| ImportError::from(sql_error(&path, &e));
        let tx = self.conn.transaction().map_err(err)?;
        let mut writer = Writer { tx, path: &path };
        // On an error the transaction is dropped, which rolls it back: nothing is kept.
        let summary = import::apply(&mut writer, batch, replace)?;
        let tx = writer.tx;
        tx.execute(
            "DELETE FROM source WHERE id NOT IN (SELECT source_id FROM release)",
            [],
        )
        .map_err(err)?;
        tx.commit().map_err(err)?;
        Ok(summary)
    }

    /// Every product with its versions, in version order.
    ///
    /// # Errors
    /// A database failure.
    fn list(&self, product: Option<&ProductId>) -> Result<Listing, InputError> {
        let err = |e: rusqlite::Error| sql_error(&self.path, &e);
        let mut stmt = self
            .conn
            .prepare(
                "SELECT product_group, product_name, version FROM release
                 WHERE ?1 IS NULL OR (product_group = ?1 AND product_name = ?2)
                 ORDER BY product_group, product_name, version_key, version",
            )
            .map_err(err)?;
        let rows = stmt
            .query_map(
                params![product.map(ProductId::group), product.map(ProductId::name)],
                |row| {
                    Ok((
                        row.get::<_, String>(0)?,
                        row.get::<_, String>(1)?,
                        row.get::<_, String>(2)?,
                    ))
                },
            )
            .map_err(err)?;
        rows::listing(&self.path, rows.map(|row| row.map_err(err)))
    }

    /// The stored release of `product` at `version`.
    ///
    /// # Errors
    /// A database failure or a damaged row.
    fn release(
        &self,
        product: &ProductId,
        version: &Version,
    ) -> Result<Option<Manifest>, InputError> {
        let id =
            find_release(&self.conn, product, version).map_err(|e| sql_error(&self.path, &e))?;
        id.map(|id| read_manifest(&self.conn, &self.path, id))
            .transpose()
    }

    /// The stored section 9 cells, without reading the releases' other rows.
    ///
    /// # Errors
    /// A database failure or a damaged cell.
    fn facets(&self, product: Option<&ProductId>) -> Result<Vec<ReleaseFacets>, InputErrors> {
        Ok(tables::read_facets(&self.conn, &self.path, product, None)?)
    }

    /// Only the cells that name the capability are decoded.
    ///
    /// # Errors
    /// A database failure or a damaged cell.
    fn providers(&self, name: &str, range: &Range) -> Result<Vec<Providing>, InputErrors> {
        let cells = tables::read_facets(&self.conn, &self.path, None, Some(name))?;
        Ok(capabilities::providers_in(&cells, name, range))
    }
}

impl CatalogSource for Store {
    fn load_all(&self) -> Result<Catalog, InputErrors> {
        self.collect(None, "SELECT id FROM release")
    }

    fn notices(&self) -> Vec<String> {
        let version = self.schema_version().unwrap_or(SECTION_10_SINCE);
        super::stale_schema_notice(&self.path, version, SECTION_10_SINCE)
            .into_iter()
            .collect()
    }

    /// Only the section 9 cells that name the capability are read and decoded.
    fn providing(&self, name: &str) -> Result<Vec<ProductId>, InputErrors> {
        let cells = tables::read_facets(&self.conn, &self.path, None, Some(name))?;
        Ok(capabilities::products_providing(cells, name))
    }

    /// A long list is read in parts at once, as [`Store::load_from`] reads one, every
    /// release of one product in the same part (parts are joined product by product). On
    /// 5,000 entities `validate` waited about 130 ms for one query on one connection.
    fn load_releases(&self, wanted: &[(&ProductId, &Version)]) -> Result<Catalog, InputErrors> {
        let mut sorted = wanted.to_vec();
        sorted.sort_by(|a, b| a.0.cmp(b.0));
        let products: Vec<&[(&ProductId, &Version)]> = sorted.chunk_by(|a, b| a.0 == b.0).collect();
        self.in_parts(&products, Store::releases_part)
    }

    /// A long list is read in parts at once, each part through a connection of its own,
    /// and the parts joined: each product's releases are read apart from the others', so
    /// it is the same catalog. (`upgrades` and `plan` wait for this read, and explanation
    /// rounds for the products they name: on the hard family at 5,000 products the first
    /// round's read of 1,174 products went from 280 to 153 ms.)
    fn load_from(
        &self,
        products: &[(&ProductId, Option<&Version>)],
    ) -> Result<Catalog, InputErrors> {
        self.in_parts(products, Store::load_part)
    }
}

/// The fewest products (or releases) [`Store::in_parts`] reads in one part.
const PART: usize = 128;

impl Store {
    /// `read` over `items` (products or releases, each read apart from the others), in one
    /// part per thread of at least [`PART`] items, each part on a connection of its own (a
    /// connection is not shared between threads), the parts joined.
    fn in_parts<T: Sync>(
        &self,
        items: &[T],
        read: impl Fn(&Store, &[T]) -> Result<Catalog, InputErrors> + Sync,
    ) -> Result<Catalog, InputErrors> {
        let part = items.len().div_ceil(rayon::current_num_threads()).max(PART);
        self.in_parts_of(items, part, read)
    }

    /// [`CatalogSource::load_releases`] in one query, the releases wanted listed by product.
    fn releases_part(&self, wanted: &[&[(&ProductId, &Version)]]) -> Result<Catalog, InputErrors> {
        let keys: Vec<[String; 3]> = wanted
            .iter()
            .copied()
            .flatten()
            .map(|(p, v)| [p.group().to_owned(), p.name().to_owned(), v.storage_key()])
            .collect();
        self.collect(
            Some(&serde_json::to_string(&keys).unwrap_or_default()),
            "SELECT DISTINCT r.id FROM json_each(?1) w CROSS JOIN release r
             ON r.product_group = w.value ->> 0 AND r.product_name = w.value ->> 1
                AND r.version_key = w.value ->> 2",
        )
    }

    /// [`Store::in_parts`] with parts of `part` items.
    fn in_parts_of<T: Sync>(
        &self,
        items: &[T],
        part: usize,
        read: impl Fn(&Store, &[T]) -> Result<Catalog, InputErrors> + Sync,
    ) -> Result<Catalog, InputErrors> {
        use rayon::prelude::*;
        if part >= items.len() {
            return read(self, items);
        }
        let path = std::path::Path::new(&*self.path);
        let parts: Vec<Catalog> = items
            .par_chunks(part.max(1))
            .map(|list| read(&Store::open(path).map_err(|e| InputErrors(vec![e]))?, list))
            .collect::<Result<_, _>>()?;
        Ok(parts
            .into_iter()
            .reduce(|all, more| all.overlaid(&more))
            .unwrap_or_default())
    }

    /// [`CatalogSource::load_from`] in one query.
    fn load_part(
        &self,
        products: &[(&ProductId, Option<&Version>)],
    ) -> Result<Catalog, InputErrors> {
        // `version_key` sorts like versions, so "at least" is one indexed comparison; a
        // non-orderable version has no place in the order, so it asks for everything (from
        // the empty key, below every key: as a range, the index finds where each product's
        // releases start, where "no key, or at least the key" read all of them and took the
        // key out of the JSON for each one, about 250 ms of a 5,000-product read).
        let keys: Vec<[Option<String>; 3]> = products
            .iter()
            .map(|(p, v)| {
                [
                    Some(p.group().to_owned()),
                    Some(p.name().to_owned()),
                    v.filter(|v| v.is_orderable()).map(Version::storage_key),
                ]
            })
            .collect();
        self.collect(
            Some(&serde_json::to_string(&keys).unwrap_or_default()),
            "SELECT DISTINCT r.id FROM json_each(?1) w CROSS JOIN release r
             ON r.product_group = w.value ->> 0 AND r.product_name = w.value ->> 1
                AND r.version_key >= coalesce(w.value ->> 2, '')",
        )
    }
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use super::*;
    use crate::catalog::scratch::Scratch;
    use crate::catalog::{Batch, CatalogStore};

    /// Products read a few at a time, each part on a connection of its own, give the catalog
    /// one query gives.
    #[test]
    fn products_read_in_parts_are_the_products_read_at_once() {
        let db = Scratch::new("sqlite-parts.db");
        let (files, unreadable) =
            crate::loader::read_sources_and_errors(&[PathBuf::from("testdata/examples/catalog")]);
        let batch = Batch::check(files, unreadable).unwrap();
        Store::create(db.path())
            .unwrap()
            .import(&batch, false)
            .unwrap();
        let store = Store::open(db.path()).unwrap();
        let all = store.load_all().unwrap();
        let floor = Version::parse("2.0.0").unwrap();
        let products: Vec<(&ProductId, Option<&Version>)> = all
            .products()
            .enumerate()
            .map(|(i, p)| (p, (i % 2 == 0).then_some(&floor)))
            .collect();
        assert!(products.len() > 3, "several parts");
        let at_once = store.load_part(&products).unwrap();
        for part in [1, 2, 3] {
            let parts = store
                .in_parts_of(&products, part, Store::load_part)
                .unwrap();
            assert_eq!(
                format!("{parts:?}"),
                format!("{at_once:?}"),
                "parts of {part}"
            );
        }
        assert!(at_once.len() < all.len(), "the floors leave releases out");
        // releases: every one of a product in one part, however small the parts
        let mut wanted: Vec<(&ProductId, &Version)> = all
            .products()
            .flat_map(|p| {
                all.releases(p)
                    .iter()
                    .step_by(2)
                    .map(move |m| (p, &m.version))
            })
            .collect();
        wanted.reverse();
        let at_once = store.load_releases(&wanted).unwrap();
        let mut sorted = wanted.clone();
        sorted.sort_by(|a, b| a.0.cmp(b.0));
        let products: Vec<&[(&ProductId, &Version)]> = sorted.chunk_by(|a, b| a.0 == b.0).collect();
        assert!(
            products.iter().any(|p| p.len() > 1),
            "a product of several releases"
        );
        for part in [1, 2, 3] {
            let parts = store
                .in_parts_of(&products, part, Store::releases_part)
                .unwrap();
            assert_eq!(
                format!("{parts:?}"),
                format!("{at_once:?}"),
                "parts of {part}"
            );
        }
        assert_eq!(
            at_once
                .products()
                .map(|p| at_once.releases(p).len())
                .sum::<usize>(),
            wanted.len()
        );
    }
}
