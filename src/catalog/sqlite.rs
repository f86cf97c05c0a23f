//! The SQLite release catalog (`compat catalog import`): an embedded, zero-setup store that
//! saves re-parsing a directory of YAML on every run.
//!
//! Schema (version 1, in `PRAGMA user_version`): `source` keeps every imported file's path and
//! text, so reports still point at file and line; `release` holds one row per release, unique
//! by product and `version_key` ([`Version::storage_key`]: byte order = version order, equality
//! = version equality); `dependency`, `incompatibility` and `issue` hold the declarations with
//! their locations. Manifests are rebuilt from rows, never by parsing YAML again.
//!
//! Invariants:
//! - an import is one transaction, and everything is parsed and checked before it starts, so
//!   a failed import writes nothing and a killed one leaves the previous content;
//! - only valid manifests are stored (warnings allowed); re-importing an identical manifest
//!   changes nothing, a different one for a stored release is refused unless replacing;
//! - the database runs in WAL mode, so readers are never blocked by an import;
//! - migrations are ordered and numbered; a file with a newer schema is refused, not guessed at.

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use rusqlite::{Connection, OpenFlags, OptionalExtension, Transaction, params};

use super::{Catalog, CatalogSource};
use crate::diagnostic::{FileLocation, InputError, InputErrors, Location};
use crate::finding::Code;
use crate::loader::SourceFile;
use crate::manifest::{Dependency, Incompatibility, Issue, Manifest};
use crate::matcher::Matcher;
use crate::product::ProductId;
use crate::range::Range;
use crate::version::Version;

/// The first bytes of every SQLite database file.
const SQLITE_MAGIC: &[u8] = b"SQLite format 3\0";

/// The ordered migrations; `PRAGMA user_version` is how many have run.
const MIGRATIONS: &[&str] = &["
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
"];

/// Why the store could not do what was asked.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// The file is not a catalog, is damaged, locked, or the disk failed (exit 3).
    #[error(transparent)]
    Input(#[from] InputErrors),
    /// Releases already stored with other declarations, and `--replace` was not given (exit 1).
    #[error("{}", .0.iter().map(ToString::to_string).collect::<Vec<_>>().join("\n"))]
    Conflicts(Vec<Conflict>),
}

impl From<InputError> for StoreError {
    fn from(e: InputError) -> Self {
        StoreError::Input(e.into())
    }
}

/// A release the import would change.
#[derive(Debug, Clone)]
pub struct Conflict {
    pub release: String,
    pub stored: FileLocation,
    pub new: FileLocation,
}

impl std::fmt::Display for Conflict {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{}: release `{}` is already stored from {} with other declarations; pass --replace \
             to overwrite it",
            self.new, self.release, self.stored
        )
    }
}

/// What an import did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ImportSummary {
    pub added: usize,
    pub unchanged: usize,
    pub replaced: usize,
}

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

fn corrupt(path: &str, what: &str) -> InputError {
    InputError::Io {
        path: path.to_owned(),
        reason: format!("damaged catalog: {what}"),
    }
}

fn to_i64(n: usize) -> i64 {
    i64::try_from(n).unwrap_or(i64::MAX)
}

fn location(line: i64, col: i64) -> Location {
    Location::new(
        u32::try_from(line).unwrap_or(0),
        u32::try_from(col).unwrap_or(0),
    )
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
        let conn = Connection::open_with_flags(path, OpenFlags::SQLITE_OPEN_READ_WRITE)
            .map_err(|e| sql_error(&name, &e))?;
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
            tx.pragma_update(None, "user_version", to_i64(MIGRATIONS.len()))
                .map_err(|e| sql_error(&path, &e))?;
            tx.commit().map_err(|e| sql_error(&path, &e))?;
        }
        Ok(())
    }

    /// Imports manifests in one transaction; see the module invariants.
    ///
    /// # Errors
    /// Conflicting releases (nothing written), or a database failure (nothing written).
    pub fn import(
        &mut self,
        files: &[SourceFile],
        replace: bool,
    ) -> Result<ImportSummary, StoreError> {
        let path = Arc::clone(&self.path);
        let err = |e: rusqlite::Error| StoreError::from(sql_error(&path, &e));
        let tx = self.conn.transaction().map_err(err)?;
        let mut summary = ImportSummary::default();
        let mut conflicts = Vec::new();
        for file in files {
            let mut source_id = None;
            for manifest in &file.manifests {
                let existing =
                    find_release(&tx, &manifest.product, &manifest.version).map_err(err)?;
                if let Some(id) = existing {
                    let stored = read_manifest(&tx, &path, id)?;
                    if stored.same_declarations(manifest) {
                        summary.unchanged += 1;
                        continue;
                    }
                    if !replace {
                        conflicts.push(Conflict {
                            release: manifest.release_name(),
                            stored: FileLocation {
                                file: Arc::clone(&stored.file),
                                location: stored.location,
                            },
                            new: FileLocation {
                                file: Arc::clone(&manifest.file),
                                location: manifest.location,
                            },
                        });
                        continue;
                    }
                    tx.execute("DELETE FROM release WHERE id = ?1", [id])
                        .map_err(err)?;
                    summary.replaced += 1;
                } else {
                    summary.added += 1;
                }
                let source = if let Some(id) = source_id {
                    id
                } else {
                    let id = insert_source(&tx, &file.path, &file.text).map_err(err)?;
                    source_id = Some(id);
                    id
                };
                insert_manifest(&tx, source, manifest).map_err(err)?;
            }
        }
        if !conflicts.is_empty() {
            // Dropping the transaction rolls it back: nothing of this import is kept.
            return Err(StoreError::Conflicts(conflicts));
        }
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
    pub fn list(
        &self,
        product: Option<&ProductId>,
    ) -> Result<Vec<(ProductId, Vec<String>)>, InputError> {
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
        let mut out: Vec<(ProductId, Vec<String>)> = Vec::new();
        for row in rows {
            let (group, name, version) = row.map_err(err)?;
            let id = ProductId::new(&group, &name).map_err(|m| corrupt(&self.path, &m))?;
            match out.last_mut() {
                Some((last, versions)) if *last == id => versions.push(version),
                _ => out.push((id, vec![version])),
            }
        }
        Ok(out)
    }

    /// The stored release of `product` at `version`.
    ///
    /// # Errors
    /// A database failure or a damaged row.
    pub fn release(
        &self,
        product: &ProductId,
        version: &Version,
    ) -> Result<Option<Manifest>, InputError> {
        let id =
            find_release(&self.conn, product, version).map_err(|e| sql_error(&self.path, &e))?;
        id.map(|id| read_manifest(&self.conn, &self.path, id))
            .transpose()
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

impl CatalogSource for Store {
    fn load_all(&self) -> Result<Catalog, InputErrors> {
        self.collect(None, "SELECT id FROM release")
    }

    fn load_releases(&self, wanted: &[(&ProductId, &Version)]) -> Result<Catalog, InputErrors> {
        let keys: Vec<[String; 3]> = wanted
            .iter()
            .map(|(p, v)| [p.group().to_owned(), p.name().to_owned(), v.storage_key()])
            .collect();
        self.collect(
            Some(&serde_json::to_string(&keys).unwrap_or_default()),
            "SELECT DISTINCT r.id FROM json_each(?1) w CROSS JOIN release r
             ON r.product_group = w.value ->> 0 AND r.product_name = w.value ->> 1
                AND r.version_key = w.value ->> 2",
        )
    }

    fn load_from(
        &self,
        products: &[(&ProductId, Option<&Version>)],
    ) -> Result<Catalog, InputErrors> {
        // `version_key` sorts like versions, so "at least" is one indexed comparison; a
        // non-orderable version has no place in the order, so it asks for everything.
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
                AND (w.value ->> 2 IS NULL OR r.version_key >= w.value ->> 2)",
        )
    }
}

fn find_release(
    conn: &Connection,
    product: &ProductId,
    version: &Version,
) -> rusqlite::Result<Option<i64>> {
    conn.prepare_cached(
        "SELECT id FROM release WHERE product_group = ?1 AND product_name = ?2 AND version_key = ?3",
    )?
    .query_row(
        params![product.group(), product.name(), version.storage_key()],
        |row| row.get(0),
    )
    .optional()
}

fn insert_source(tx: &Transaction, path: &str, text: &str) -> rusqlite::Result<i64> {
    let existing = tx
        .prepare_cached("SELECT id FROM source WHERE path = ?1 AND text = ?2")?
        .query_row(params![path, text], |row| row.get(0))
        .optional()?;
    if let Some(id) = existing {
        return Ok(id);
    }
    tx.prepare_cached("INSERT INTO source (path, text) VALUES (?1, ?2)")?
        .execute(params![path, text])?;
    Ok(tx.last_insert_rowid())
}

fn insert_manifest(tx: &Transaction, source: i64, m: &Manifest) -> rusqlite::Result<()> {
    tx.prepare_cached(
        "INSERT INTO release (product_group, product_name, version, version_key, product_type,
                              source_id, line, col)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
    )?
    .execute(params![
        m.product.group(),
        m.product.name(),
        m.version.as_str(),
        m.version.storage_key(),
        m.product_type,
        source,
        m.location.line,
        m.location.column
    ])?;
    let id = tx.last_insert_rowid();
    let mut dep = tx.prepare_cached(
        "INSERT INTO dependency VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
    )?;
    for (ord, d) in m.dependencies.iter().enumerate() {
        dep.execute(params![
            id,
            to_i64(ord),
            d.product.group(),
            d.product.name(),
            d.range.minimum.as_ref().map(Version::as_str),
            d.range.maximum.as_ref().map(Matcher::as_str),
            d.recommended.as_ref().map(Version::as_str),
            d.optional,
            d.location.line,
            d.location.column
        ])?;
    }
    let mut inc = tx.prepare_cached(
        "INSERT INTO incompatibility VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
    )?;
    for (ord, i) in m.incompatibilities.iter().enumerate() {
        inc.execute(params![
            id,
            to_i64(ord),
            i.product.group(),
            i.product.name(),
            i.range.minimum.as_ref().map(Version::as_str),
            i.range.maximum.as_ref().map(Matcher::as_str),
            i.reason,
            i.location.line,
            i.location.column
        ])?;
    }
    let mut issue = tx.prepare_cached("INSERT INTO issue VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)")?;
    for (ord, i) in m.issues.iter().enumerate() {
        issue.execute(params![
            id,
            to_i64(ord),
            i.code.as_str(),
            i.message,
            i.dependency.as_ref().map(ToString::to_string),
            i.location.line,
            i.location.column
        ])?;
    }
    Ok(())
}

/// Product ids read from rows, shared: 200,000 releases name only a few thousand products,
/// and one `ProductId` per row was most of the allocations of a large read.
#[derive(Default)]
struct Products {
    known: BTreeMap<String, ProductId>,
    key: String,
}

impl Products {
    fn get(&mut self, group: &str, name: &str) -> Result<ProductId, String> {
        self.key.clear();
        self.key.push_str(group);
        self.key.push('\0');
        self.key.push_str(name);
        if let Some(id) = self.known.get(&self.key) {
            return Ok(id.clone());
        }
        let id = ProductId::new(group, name)?;
        self.known.insert(self.key.clone(), id.clone());
        Ok(id)
    }
}

/// Decodes the cells of stored rows back into domain values; a cell that does not decode
/// means the catalog file is damaged. One place for what every `read_*` below needs.
#[derive(Clone, Copy)]
struct Cells<'p> {
    path: &'p str,
}

impl Cells<'_> {
    fn sql(self, error: &rusqlite::Error) -> InputError {
        sql_error(self.path, error)
    }

    fn damaged(self, what: &str) -> InputError {
        corrupt(self.path, what)
    }

    fn get<T: rusqlite::types::FromSql>(
        self,
        row: &rusqlite::Row<'_>,
        i: usize,
    ) -> Result<T, InputError> {
        row.get(i).map_err(|e| self.sql(&e))
    }

    fn version(self, text: &str) -> Result<Version, InputError> {
        Version::parse(text).map_err(|e| self.damaged(&e.to_string()))
    }

    fn matcher(self, text: &str) -> Result<Matcher, InputError> {
        Matcher::parse(text).map_err(|e| self.damaged(&e.to_string()))
    }

    fn product(
        self,
        products: &mut Products,
        row: &rusqlite::Row<'_>,
        group: usize,
    ) -> Result<ProductId, InputError> {
        let (g, n): (String, String) = (self.get(row, group)?, self.get(row, group + 1)?);
        products.get(&g, &n).map_err(|m| self.damaged(&m))
    }

    /// The location stored in columns `line` and `line + 1`.
    fn location(self, row: &rusqlite::Row<'_>, line: usize) -> Result<Location, InputError> {
        Ok(location(self.get(row, line)?, self.get(row, line + 1)?))
    }
}

/// Rebuilds one stored manifest from its rows.
fn read_manifest(conn: &Connection, path: &str, id: i64) -> Result<Manifest, InputError> {
    read_manifests(conn, path, Some(id))?
        .pop()
        .ok_or_else(|| corrupt(path, &format!("release {id} vanished")))
}

/// Rebuilds the stored manifests whose release ids are in the temporary table `pick` (or just
/// release `only`), with one query per table rather than per release: the bundled SQLite is
/// built with STAT4, which recompiles a statement whenever a parameter compared with an
/// indexed column is rebound, so per-release queries cost a compile each.
fn read_manifests(
    conn: &Connection,
    path: &str,
    only: Option<i64>,
) -> Result<Vec<Manifest>, InputError> {
    let cells = Cells { path };
    let err = |e: rusqlite::Error| cells.sql(&e);
    let mut products = Products::default();

    if let Some(id) = only {
        conn.execute_batch(&format!(
            "CREATE TEMP TABLE IF NOT EXISTS pick (id INTEGER PRIMARY KEY);
             DELETE FROM pick; INSERT INTO pick VALUES ({id});"
        ))
        .map_err(err)?;
    }

    let mut manifests: BTreeMap<i64, Manifest> = BTreeMap::new();
    let mut sources: BTreeMap<String, Arc<str>> = BTreeMap::new();
    let mut stmt = conn
        .prepare_cached(
            "SELECT r.id, r.product_group, r.product_name, r.version, r.product_type, s.path,
                    r.line, r.col
             FROM pick p CROSS JOIN release r ON r.id = p.id CROSS JOIN source s ON s.id = r.source_id",
        )
        .map_err(err)?;
    let mut rows = stmt.query([]).map_err(err)?;
    while let Some(row) = rows.next().map_err(err)? {
        let file: String = cells.get(row, 5)?;
        let file = Arc::clone(
            sources
                .entry(file.clone())
                .or_insert_with(|| Arc::from(file)),
        );
        manifests.insert(
            cells.get(row, 0)?,
            Manifest {
                product: cells.product(&mut products, row, 1)?,
                version: cells.version(&cells.get::<String>(row, 3)?)?,
                product_type: cells.get(row, 4)?,
                dependencies: Vec::new(),
                incompatibilities: Vec::new(),
                issues: Vec::new(),
                file,
                location: cells.location(row, 6)?,
            },
        );
    }
    read_dependencies(conn, path, &mut manifests, &mut products)?;
    read_incompatibilities(conn, path, &mut manifests, &mut products)?;
    read_issues(conn, path, &mut manifests)?;
    Ok(manifests.into_values().collect())
}

/// The manifest a declaration row belongs to.
fn owner<'m>(
    manifests: &'m mut BTreeMap<i64, Manifest>,
    path: &str,
    id: i64,
) -> Result<&'m mut Manifest, InputError> {
    manifests
        .get_mut(&id)
        .ok_or_else(|| corrupt(path, &format!("declaration of missing release {id}")))
}

/// Adds the dependency rows of the picked releases.
fn read_dependencies(
    conn: &Connection,
    path: &str,
    manifests: &mut BTreeMap<i64, Manifest>,
    products: &mut Products,
) -> Result<(), InputError> {
    let cells = Cells { path };
    let err = |e: rusqlite::Error| cells.sql(&e);
    let mut stmt = conn
        .prepare_cached(
            "SELECT d.release_id, d.product_group, d.product_name, d.minimum, d.maximum,
                    d.recommended, d.optional, d.line, d.col
             FROM pick p CROSS JOIN dependency d ON d.release_id = p.id ORDER BY d.release_id, d.ord",
        )
        .map_err(err)?;
    let mut rows = stmt.query([]).map_err(err)?;
    while let Some(row) = rows.next().map_err(err)? {
        let recommended: Option<String> = cells.get(row, 5)?;
        let dependency = Dependency {
            product: cells.product(products, row, 1)?,
            range: Range::new(
                cells.version(&cells.get::<String>(row, 3)?)?,
                cells.matcher(&cells.get::<String>(row, 4)?)?,
            ),
            recommended: recommended
                .as_deref()
                .map(|t| cells.version(t))
                .transpose()?,
            optional: cells.get(row, 6)?,
            location: cells.location(row, 7)?,
        };
        owner(manifests, path, cells.get(row, 0)?)?
            .dependencies
            .push(dependency);
    }

    Ok(())
}

/// Adds the incompatibility rows of the picked releases.
fn read_incompatibilities(
    conn: &Connection,
    path: &str,
    manifests: &mut BTreeMap<i64, Manifest>,
    products: &mut Products,
) -> Result<(), InputError> {
    let cells = Cells { path };
    let err = |e: rusqlite::Error| cells.sql(&e);
    let mut stmt = conn
        .prepare_cached(
            "SELECT i.release_id, i.product_group, i.product_name, i.minimum, i.maximum,
                    i.reason, i.line, i.col
             FROM pick p CROSS JOIN incompatibility i ON i.release_id = p.id
             ORDER BY i.release_id, i.ord",
        )
        .map_err(err)?;
    let mut rows = stmt.query([]).map_err(err)?;
    while let Some(row) = rows.next().map_err(err)? {
        let minimum: Option<String> = cells.get(row, 3)?;
        let maximum: Option<String> = cells.get(row, 4)?;
        let incompatibility = Incompatibility {
            product: cells.product(products, row, 1)?,
            range: Range {
                minimum: minimum.as_deref().map(|t| cells.version(t)).transpose()?,
                maximum: maximum.as_deref().map(|t| cells.matcher(t)).transpose()?,
            },
            reason: cells.get(row, 5)?,
            location: cells.location(row, 6)?,
        };
        owner(manifests, path, cells.get(row, 0)?)?
            .incompatibilities
            .push(incompatibility);
    }

    Ok(())
}

/// Adds the issue rows of the picked releases.
fn read_issues(
    conn: &Connection,
    path: &str,
    manifests: &mut BTreeMap<i64, Manifest>,
) -> Result<(), InputError> {
    let cells = Cells { path };
    let err = |e: rusqlite::Error| cells.sql(&e);
    let mut stmt = conn
        .prepare_cached(
            "SELECT i.release_id, i.code, i.message, i.dependency, i.line, i.col
             FROM pick p CROSS JOIN issue i ON i.release_id = p.id ORDER BY i.release_id, i.ord",
        )
        .map_err(err)?;
    let mut rows = stmt.query([]).map_err(err)?;
    while let Some(row) = rows.next().map_err(err)? {
        let code: String = cells.get(row, 1)?;
        let dependency: Option<String> = cells.get(row, 3)?;
        let issue = Issue {
            code: Code::parse(&code)
                .ok_or_else(|| cells.damaged(&format!("unknown finding code `{code}`")))?,
            message: cells.get(row, 2)?,
            dependency: dependency
                .as_deref()
                .map(|d| ProductId::parse(d).map_err(|m| cells.damaged(&m)))
                .transpose()?,
            location: cells.location(row, 4)?,
        };
        owner(manifests, path, cells.get(row, 0)?)?
            .issues
            .push(issue);
    }
    Ok(())
}
