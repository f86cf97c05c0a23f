//! The PostgreSQL release catalog (`--catalog postgres://…`): the SQLite catalog's tables in a
//! shared database server, for many machines reading one catalog.
//!
//! Schema: everything lives in the schema `compat` of the database the URL names, so a
//! catalog can share a database with other applications. `compat.schema_migration` holds one
//! row per migration run (its number and when); the tables are those of the SQLite catalog
//! (`source`, `release`, `dependency`, `incompatibility`, `issue`), laid out as
//! [`rows`](super::rows) says. Every text column that is compared or sorted is `COLLATE "C"`,
//! so `version_key` ([`Version::storage_key`]) sorts in version order and listings sort by
//! bytes as in SQLite, whatever the server's locale. The tables have no foreign keys: their
//! per-row checks were 60% of the time `COPY` took (an import of 20,000 releases 1.0 s with
//! them, 0.6 s without); the one writer, [`writer::Writer`], deletes a release's declarations
//! with it, and reads only ever follow `release_id` from a release row.
//!
//! Invariants:
//! - an import is one transaction (`import::apply` over this backend's [`writer::Writer`]),
//!   under a transaction-level advisory lock, so two imports serialize (or the second gives up
//!   after `--lock-timeout`), a failed or killed one writes nothing, and readers never see half
//!   of one;
//! - a reading connection works in one `REPEATABLE READ READ ONLY` transaction, so every read
//!   of one command sees the same catalog, even while an import commits;
//! - migrations are numbered and run under the same lock; a catalog with a newer schema is
//!   refused, not guessed at;
//! - the password is never shown: errors name the catalog by [`PostgresUrl`]'s display.

use std::cell::{RefCell, RefMut};
use std::sync::Arc;

mod copy;
mod tables;
#[cfg(test)]
pub mod testing;
mod tls;
mod url;
mod writer;

pub use url::PostgresUrl;

use ::postgres::error::SqlState;
use ::postgres::{Client, NoTls};

use super::capabilities::{self, Providing, ReleaseFacets};
use super::import;
use super::{Batch, Catalog, CatalogSource, CatalogStore, ImportError, ImportSummary, Listing};
use crate::diagnostic::{InputError, InputErrors};
use crate::manifest::Manifest;
use crate::product::ProductId;
use crate::range::Range;
use crate::version::Version;
use tables::Pick;
use writer::Writer;

/// The advisory lock every import and migration holds for its transaction ("compat").
const IMPORT_LOCK: i64 = 0x636f_6d70_6174;

/// The ordered migrations; migration `n` (from 1) is recorded in `compat.schema_migration`.
const MIGRATIONS: &[&str] = &[
    r#"
    CREATE TABLE compat.source (
        id bigserial PRIMARY KEY,
        path text COLLATE "C" NOT NULL,
        text text NOT NULL
    );
    CREATE TABLE compat.release (
        id bigserial PRIMARY KEY,
        product_group text COLLATE "C" NOT NULL,
        product_name text COLLATE "C" NOT NULL,
        version text COLLATE "C" NOT NULL,
        version_key text COLLATE "C" NOT NULL,
        product_type text,
        source_id bigint NOT NULL,
        line bigint NOT NULL,
        col bigint NOT NULL,
        UNIQUE (product_group, product_name, version_key)
    );
    CREATE INDEX release_source ON compat.release(source_id);
    CREATE TABLE compat.dependency (
        release_id bigint NOT NULL,
        ord integer NOT NULL,
        product_group text COLLATE "C" NOT NULL,
        product_name text COLLATE "C" NOT NULL,
        minimum text NOT NULL,
        maximum text NOT NULL,
        recommended text,
        optional boolean NOT NULL,
        line bigint NOT NULL,
        col bigint NOT NULL,
        PRIMARY KEY (release_id, ord)
    );
    CREATE INDEX dependency_target ON compat.dependency(product_group, product_name);
    CREATE TABLE compat.incompatibility (
        release_id bigint NOT NULL,
        ord integer NOT NULL,
        product_group text COLLATE "C" NOT NULL,
        product_name text COLLATE "C" NOT NULL,
        minimum text,
        maximum text,
        reason text,
        line bigint NOT NULL,
        col bigint NOT NULL,
        PRIMARY KEY (release_id, ord)
    );
    CREATE TABLE compat.issue (
        release_id bigint NOT NULL,
        ord integer NOT NULL,
        code text NOT NULL,
        message text NOT NULL,
        dependency text,
        line bigint NOT NULL,
        col bigint NOT NULL,
        PRIMARY KEY (release_id, ord)
    );
"#,
    "
    -- section 9 as one JSON cell (`catalog::facet_cell`); NULL for a release without any
    ALTER TABLE compat.release ADD COLUMN facets text;
",
    r#"
    -- section 9: which release provides which capability, the index `catalog providers` and
    -- the --allow-install closure ask (filled from the cells stored so far; the writer keeps
    -- it with the releases, as it keeps their declarations)
    CREATE TABLE compat.provision (
        capability text COLLATE "C" NOT NULL,
        release_id bigint NOT NULL,
        PRIMARY KEY (capability, release_id)
    );
    CREATE INDEX provision_release ON compat.provision(release_id);
    INSERT INTO compat.provision (capability, release_id)
        SELECT DISTINCT p.value ->> 'name', r.id
        FROM compat.release r,
             jsonb_array_elements(r.facets::jsonb -> 'provides') p
        WHERE r.facets IS NOT NULL;
"#,
    "
    -- section 10 (outputs, inputs, instance criteria) in the facets cell: every stored
    -- release's cell is written again from its source text (`tables::refill_cells`, run with
    -- this step), since a compat that did not read section 10 stored cells without it
    COMMENT ON COLUMN compat.release.facets IS
        'sections 9 and 10 of the release as one JSON cell (catalog::facet_cell)';
",
];

/// The first schema version with `release.facets`; an older catalog is read without it (its
/// releases were stored before section 9 existed) until an import migrates it.
pub const FACETS_SINCE: usize = 2;

/// The first schema version with the `provision` index; an older catalog's providers are
/// found by reading the cells that name the capability, until an import migrates it.
pub const PROVISION_SINCE: usize = 3;

/// The first schema version whose cells are known to hold section 10 data; an older
/// catalog's cells are written again from their sources when an import migrates it.
pub const SECTION_10_SINCE: usize = 4;

/// An open PostgreSQL catalog: one connection.
pub struct Store {
    client: RefCell<Client>,
    /// The URL as shown (no password).
    name: Arc<str>,
}

/// The error for a failed database call, naming the catalog by its shown URL.
fn pg_error(name: &str, error: &::postgres::Error) -> InputError {
    if let Some(db) = error.as_db_error() {
        let code = db.code();
        if *code == SqlState::DISK_FULL || *code == SqlState::OUT_OF_MEMORY {
            return InputError::Write {
                path: name.to_owned(),
                reason: format!("{} (a full disk?); nothing was written", db.message()),
            };
        }
        let reason = if *code == SqlState::ADMIN_SHUTDOWN || *code == SqlState::CRASH_SHUTDOWN {
            format!(
                "the connection to the PostgreSQL server was lost: {}",
                db.message()
            )
        } else if *code == SqlState::LOCK_NOT_AVAILABLE {
            "the catalog is locked by another import; try again when it is done, or wait \
             longer with --lock-timeout"
                .to_owned()
        } else {
            format!("the PostgreSQL server said: {}", db.message())
        };
        return InputError::Io {
            path: name.to_owned(),
            reason,
        };
    }
    let text = match std::error::Error::source(error) {
        Some(cause) => format!("PostgreSQL: {error}: {cause}"),
        None => format!("PostgreSQL: {error}"),
    };
    let reason = if error.is_closed() {
        "the connection to the PostgreSQL server was lost".to_owned()
    } else if let Some(cause) =
        text.strip_prefix("PostgreSQL: error communicating with the server: ")
    {
        format!("the connection to the PostgreSQL server was lost: {cause}")
    } else if text.contains("server does not support TLS") {
        "the PostgreSQL server does not accept TLS connections, and the `sslmode` asks for one \
         (`require`, `verify-ca` and `verify-full` do; `prefer`, the default, falls back to a \
         plain connection)"
            .to_owned()
    } else if text.ends_with("password missing") {
        "the server asks for a password and none was given: put it in the URL \
         (`postgres://user:password@host/db`), PGPASSWORD or ~/.pgpass"
            .to_owned()
    } else {
        text
    };
    InputError::Io {
        path: name.to_owned(),
        reason,
    }
}

impl Store {
    fn connect(url: &PostgresUrl) -> Result<Store, InputError> {
        let config = url.config()?;
        let name: Arc<str> = Arc::from(url.shown_with(&config));
        let client = match tls::connector(&url.tls()?)? {
            None => config.connect(NoTls),
            Some(tls) => config.connect(tls),
        }
        .map_err(|e| pg_error(&name, &e))?;
        Ok(Store {
            client: RefCell::new(client),
            name,
        })
    }

    fn client(&self) -> RefMut<'_, Client> {
        self.client.borrow_mut()
    }

    fn err(&self) -> impl Fn(::postgres::Error) -> InputError + '_ {
        |e| pg_error(&self.name, &e)
    }

    /// Opens an existing catalog for reading: one read-only snapshot for the connection's
    /// life, so every read of a command sees the same catalog.
    ///
    /// # Errors
    /// An unreachable server, refused credentials, a database without a catalog, or one with
    /// a newer schema.
    pub fn open(url: &PostgresUrl) -> Result<Store, InputError> {
        let store = Store::connect(url)?;
        store
            .client()
            .batch_execute("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY")
            .map_err(store.err())?;
        let version = store.schema_version()?;
        if version == 0 {
            return Err(InputError::Io {
                path: store.name.to_string(),
                reason: "not a compat catalog (no catalog schema); create one with \
                         `compat catalog import DIR --db URL`"
                    .to_owned(),
            });
        }
        store.check_not_newer(version)?;
        Ok(store)
    }

    /// Opens a catalog for an import, creating its schema when needed.
    ///
    /// # Errors
    /// As [`Store::open`], and a schema that cannot be created.
    pub fn create(url: &PostgresUrl) -> Result<Store, InputError> {
        let store = Store::connect(url)?;
        store.migrate()?;
        Ok(store)
    }

    /// How many migrations have run (0: no catalog here).
    fn schema_version(&self) -> Result<usize, InputError> {
        let mut client = self.client();
        let exists: bool = client
            .query_one(
                "SELECT to_regclass('compat.schema_migration') IS NOT NULL",
                &[],
            )
            .map_err(self.err())?
            .get(0);
        if !exists {
            return Ok(0);
        }
        let version: i32 = client
            .query_one(
                "SELECT coalesce(max(version), 0) FROM compat.schema_migration",
                &[],
            )
            .map_err(self.err())?
            .get(0);
        Ok(usize::try_from(version).unwrap_or(0))
    }

    fn check_not_newer(&self, version: usize) -> Result<(), InputError> {
        if version > MIGRATIONS.len() {
            return Err(InputError::Io {
                path: self.name.to_string(),
                reason: format!(
                    "catalog schema version {version} is newer than this compat supports ({}); \
                     upgrade compat",
                    MIGRATIONS.len()
                ),
            });
        }
        Ok(())
    }

    /// Runs the migrations the catalog has not had yet, in one transaction under the import
    /// lock (two first imports at once create the schema once).
    fn migrate(&self) -> Result<(), InputError> {
        let err = self.err();
        let mut client = self.client();
        let mut tx = client.transaction().map_err(&err)?;
        tx.batch_execute(&format!(
            "SET LOCAL lock_timeout = {}; SELECT pg_advisory_xact_lock({IMPORT_LOCK});
             CREATE SCHEMA IF NOT EXISTS compat;
             CREATE TABLE IF NOT EXISTS compat.schema_migration (
                 version integer PRIMARY KEY,
                 applied_at timestamptz NOT NULL DEFAULT now()
             );",
            crate::limits::get().lock_wait_ms
        ))
        .map_err(&err)?;
        let version: i32 = tx
            .query_one(
                "SELECT coalesce(max(version), 0) FROM compat.schema_migration",
                &[],
            )
            .map_err(&err)?
            .get(0);
        let version = usize::try_from(version).unwrap_or(0);
        self.check_not_newer(version)?;
        if version == 0 {
            let others: i64 = tx
                .query_one(
                    "SELECT count(*) FROM pg_tables WHERE schemaname = 'compat'
                     AND tablename <> 'schema_migration'",
                    &[],
                )
                .map_err(&err)?
                .get(0);
            if others > 0 {
                return Err(InputError::Io {
                    path: self.name.to_string(),
                    reason: "the database has a schema `compat` that is not a compat \
                             catalog; refusing to add tables to it"
                        .to_owned(),
                });
            }
        }
        for (n, migration) in MIGRATIONS.iter().enumerate().skip(version) {
            tx.batch_execute(migration).map_err(&err)?;
            let number = i32::try_from(n + 1).unwrap_or(i32::MAX);
            tx.execute(
                "INSERT INTO compat.schema_migration (version) VALUES ($1)",
                &[&number],
            )
            .map_err(&err)?;
        }
        if version > 0 && version < SECTION_10_SINCE {
            tables::refill_cells(&mut tx, &self.name)?;
        }
        tx.commit().map_err(&err)
    }
}

impl CatalogStore for Store {
    /// Imports a checked batch in one transaction, by the rules of [`import::apply`].
    ///
    /// # Errors
    /// Conflicting releases (nothing written), another import holding the lock past
    /// `--lock-timeout`, or a database failure (nothing written).
    fn import(&mut self, batch: &Batch, replace: bool) -> Result<ImportSummary, ImportError> {
        let name = Arc::clone(&self.name);
        let err = |e: ::postgres::Error| ImportError::from(pg_error(&name, &e));
        let client = self.client.get_mut();
        // The sources' texts are large enough to be compressed: lz4 where the server has it
        // (PostgreSQL 14+ built with it) costs a sixth of the server's import time less than
        // its default, pglz. A server that refuses the setting keeps its default.
        if let Err(e) = client.batch_execute("SET default_toast_compression = 'lz4'")
            && e.as_db_error().is_none()
        {
            return Err(err(e));
        }
        let mut tx = client.transaction().map_err(err)?;
        tx.batch_execute(&format!(
            "SET LOCAL lock_timeout = {}; SELECT pg_advisory_xact_lock({IMPORT_LOCK});",
            crate::limits::get().lock_wait_ms
        ))
        .map_err(err)?;
        let mut writer = Writer::start(tx, &name, batch)?;
        // On an error the transaction is dropped, which rolls it back: nothing is kept.
        let summary = import::apply(&mut writer, batch, replace)?;
        writer.finish()?;
        Ok(summary)
    }

    /// Every product with its versions, in version order.
    ///
    /// # Errors
    /// A database failure.
    fn list(&self, product: Option<&ProductId>) -> Result<Listing, InputError> {
        let rows = self
            .client()
            .query(
                "SELECT product_group, product_name, version FROM compat.release
                 WHERE $1::text IS NULL OR (product_group = $1 AND product_name = $2)
                 ORDER BY product_group, product_name, version_key, version",
                &[
                    &product.map(ProductId::group),
                    &product.map(ProductId::name),
                ],
            )
            .map_err(self.err())?;
        super::rows::listing(
            &self.name,
            rows.iter().map(|row| {
                Ok((
                    tables::cell(&self.name, row, 0)?,
                    tables::cell(&self.name, row, 1)?,
                    tables::cell(&self.name, row, 2)?,
                ))
            }),
        )
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
        let wanted = [(product, version)];
        let (_, mut manifests) =
            tables::read_manifests(&mut *self.client(), &self.name, &Pick::Releases(&wanted))?;
        Ok(manifests.pop())
    }

    /// The stored section 9 cells, without reading the releases' other rows.
    ///
    /// # Errors
    /// A database failure or a damaged cell.
    fn facets(&self, product: Option<&ProductId>) -> Result<Vec<ReleaseFacets>, InputErrors> {
        Ok(tables::read_facets(
            &mut *self.client(),
            &self.name,
            product,
            None,
        )?)
    }

    /// Only the cells of the releases the `provision` index names are read and decoded.
    ///
    /// # Errors
    /// A database failure or a damaged cell.
    fn providers(&self, name: &str, range: &Range) -> Result<Vec<Providing>, InputErrors> {
        let cells = tables::read_facets(&mut *self.client(), &self.name, None, Some(name))?;
        Ok(capabilities::providers_in(&cells, name, range))
    }
}

impl Store {
    fn collect(&self, pick: &Pick<'_>) -> Result<Catalog, InputErrors> {
        let (_, manifests) = tables::read_manifests(&mut *self.client(), &self.name, pick)?;
        Catalog::from_manifests(manifests).map_err(InputErrors)
    }
}

impl CatalogSource for Store {
    fn load_all(&self) -> Result<Catalog, InputErrors> {
        self.collect(&Pick::All)
    }

    fn notices(&self) -> Vec<String> {
        let version = self.schema_version().unwrap_or(SECTION_10_SINCE);
        super::stale_schema_notice(&self.name, version, SECTION_10_SINCE)
            .into_iter()
            .collect()
    }

    fn load_releases(&self, wanted: &[(&ProductId, &Version)]) -> Result<Catalog, InputErrors> {
        self.collect(&Pick::Releases(wanted))
    }

    fn load_from(
        &self,
        products: &[(&ProductId, Option<&Version>)],
    ) -> Result<Catalog, InputErrors> {
        self.collect(&Pick::From(products))
    }

    /// Only the cells of the releases the `provision` index names are read and decoded.
    fn providing(&self, name: &str) -> Result<Vec<ProductId>, InputErrors> {
        let cells = tables::read_facets(&mut *self.client(), &self.name, None, Some(name))?;
        Ok(capabilities::products_providing(cells, name))
    }
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use super::testing;
    use super::*;
    use crate::catalog::Location;
    use crate::loader;

    fn batch(dirs: &[&str]) -> Batch {
        let paths: Vec<PathBuf> = dirs.iter().map(PathBuf::from).collect();
        let (files, unreadable) = loader::read_sources_and_errors(&paths);
        Batch::check(files, unreadable).unwrap()
    }

    /// A fresh catalog holding the examples, or `None` without a test server.
    fn examples(test: &str) -> Option<Location> {
        let location = Location::Postgres(testing::fresh(test)?);
        let mut store = location.create_store().unwrap();
        store
            .import(&batch(&["testdata/examples/catalog"]), false)
            .unwrap();
        Some(location)
    }

    fn everything(location: &Location) -> String {
        let catalog = location.open().unwrap().load_all().unwrap();
        format!(
            "{:?}",
            catalog
                .products()
                .map(|p| catalog.releases(p))
                .collect::<Vec<_>>()
        )
    }

    #[test]
    fn a_failed_import_leaves_the_catalog_as_it_was() {
        let Some(location) = examples("failed_import") else {
            return;
        };
        let before = everything(&location);
        let listed = location.open_store().unwrap().list(None).unwrap();
        // New releases and one that differs from its stored manifest: refused as a whole.
        let dir = std::env::temp_dir().join(format!("compat-pg-{}-conflict", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(
            dir.join("api.yml"),
            "manifest-version: '1.0'\nproduct-group: com.example\nproduct-name: api\n\
             product-version: 1.1.0\nproduct-type: changed\n",
        )
        .unwrap();
        std::fs::write(
            dir.join("new.yml"),
            "manifest-version: '1.0'\nproduct-group: com.example\nproduct-name: new\n\
             product-version: 1.0.0\n",
        )
        .unwrap();
        let mut store = location.create_store().unwrap();
        let error = store
            .import(&batch(&[dir.to_str().unwrap()]), false)
            .unwrap_err();
        assert!(
            matches!(error, ImportError::Conflicts(ref c) if c.len() == 1),
            "{error}"
        );
        assert_eq!(everything(&location), before);
        assert_eq!(location.open_store().unwrap().list(None).unwrap(), listed);
        // Replacing is allowed, and then both are written.
        let summary = store
            .import(&batch(&[dir.to_str().unwrap()]), true)
            .unwrap();
        assert_eq!((summary.added, summary.replaced), (1, 1));
        // The replaced release's declarations went with it.
        let Location::Postgres(url) = &location else {
            unreachable!()
        };
        let orphans: i64 = Store::open(url)
            .unwrap()
            .client()
            .query_one(
                "SELECT (SELECT count(*) FROM compat.dependency d WHERE NOT EXISTS
                           (SELECT 1 FROM compat.release r WHERE r.id = d.release_id))
                      + (SELECT count(*) FROM compat.source s WHERE NOT EXISTS
                           (SELECT 1 FROM compat.release r WHERE r.source_id = s.id))",
                &[],
            )
            .unwrap()
            .get(0);
        assert_eq!(orphans, 0);
        let api = location.open_store().unwrap().release(
            &ProductId::parse("com.example:api").unwrap(),
            &Version::parse("1.1.0").unwrap(),
        );
        assert!(api.unwrap().unwrap().dependencies.is_empty());
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_reader_keeps_its_snapshot_while_an_import_commits() {
        let Some(location) = examples("snapshot") else {
            return;
        };
        let reader = location.open().unwrap();
        assert_eq!(reader.load_all().unwrap().len(), 27);
        location
            .create_store()
            .unwrap()
            .import(&batch(&["testdata/cases/warnings/catalog"]), false)
            .unwrap();
        assert_eq!(
            reader.load_all().unwrap().len(),
            27,
            "the reader's snapshot"
        );
        assert!(location.open().unwrap().load_all().unwrap().len() > 27);
    }

    #[test]
    fn schemas_are_versioned_and_a_newer_one_is_refused() {
        let Some(url) = testing::fresh("schema") else {
            return;
        };
        let message = |result: Result<Store, InputError>| match result {
            Ok(_) => panic!("opened"),
            Err(error) => error.to_string().replace(&url.to_string(), "URL"),
        };
        assert_eq!(
            message(Store::open(&url)),
            "URL: cannot read: not a compat catalog (no catalog schema); create one with \
             `compat catalog import DIR --db URL`"
        );
        let store = Store::create(&url).unwrap();
        assert_eq!(store.schema_version().unwrap(), MIGRATIONS.len());
        Store::create(&url).unwrap(); // nothing left to migrate
        // a catalog of schema 1 (before section 9) is read as it is, and migrated by the
        // next import
        store
            .client()
            .batch_execute(
                "DROP TABLE compat.provision;
                 ALTER TABLE compat.release DROP COLUMN facets;
                 DELETE FROM compat.schema_migration WHERE version >= 2",
            )
            .unwrap();
        assert_eq!(store.schema_version().unwrap(), 1);
        let old = Store::open(&url).unwrap();
        assert!(old.load_all().unwrap().is_empty());
        assert!(old.facets(None).unwrap().is_empty());
        assert!(old.providing("sql").unwrap().is_empty());
        drop(old);
        Store::create(&url).unwrap();
        assert_eq!(store.schema_version().unwrap(), MIGRATIONS.len());
        store
            .client()
            .execute(
                "INSERT INTO compat.schema_migration (version) VALUES (99)",
                &[],
            )
            .unwrap();
        let newer = format!(
            "URL: cannot read: catalog schema version 99 is newer than this compat supports \
             ({}); upgrade compat",
            MIGRATIONS.len()
        );
        assert_eq!(message(Store::open(&url)), newer);
        assert_eq!(message(Store::create(&url)), newer);
    }

    #[test]
    fn errors_name_the_server_but_never_the_password() {
        let Some(server) = testing::server() else {
            return;
        };
        let config = PostgresUrl::new(&server).config().unwrap();
        let Some(::postgres::config::Host::Tcp(host)) = config.get_hosts().first() else {
            panic!("the test server is reached over TCP");
        };
        let port = config.get_ports().first().copied().unwrap_or(5432);
        let url = PostgresUrl::new(&format!(
            "postgres://compat:not-the-secret@{host}:{port}/postgres"
        ));
        let error = Store::open(&url).err().unwrap().to_string();
        assert!(error.contains(host.as_str()), "{error}");
        assert!(!error.contains("not-the-secret"), "{error}");
        assert!(error.contains("password authentication failed"), "{error}");
    }

    #[test]
    fn a_lost_connection_is_an_error_never_an_answer() {
        let Some(location) = examples("lost") else {
            return;
        };
        let Location::Postgres(url) = &location else {
            unreachable!()
        };
        let reader = Store::open(url).unwrap();
        let pid: i32 = reader
            .client()
            .query_one("SELECT pg_backend_pid()", &[])
            .unwrap()
            .get(0);
        let mut admin = url.config().unwrap().connect(::postgres::NoTls).unwrap();
        admin
            .execute("SELECT pg_terminate_backend($1)", &[&pid])
            .unwrap();
        let error = reader.load_all().unwrap_err().to_string();
        assert!(
            error
                .replace(&url.to_string(), "URL")
                .starts_with("URL: cannot read: the connection to the PostgreSQL server was lost"),
            "{error}"
        );
    }
}
