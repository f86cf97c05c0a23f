//! The SQLite tables row by row: finding, inserting and removing releases inside an import
//! transaction ([`Writer`], the [`ImportTarget`] of this backend), and reading picked releases
//! back through the shared [`Decoder`]. The cells are those of [`rows`](crate::catalog::rows);
//! only the SQL is this backend's.

use rusqlite::{Connection, OptionalExtension, Transaction, params};

use super::{sql_error, to_i64};
use crate::catalog::ReleaseFacets;
use crate::catalog::import::ImportTarget;
use crate::catalog::rows::{
    self, Decoder, DependencyRow, IncompatibilityRow, IssueRow, ReleaseRow,
};
use crate::diagnostic::InputError;
use crate::loader::SourceFile;
use crate::manifest::Manifest;
use crate::product::ProductId;
use crate::version::Version;

pub fn find_release(
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

/// Migration 4's own step: section 10 (outputs, inputs, instance criteria) joined the facets
/// cell without a schema change, so a release imported by a compat that did not read it has
/// a cell without it (or none). Every stored source's text is kept, so each release is read
/// from it again and its cell rewritten where the one written today differs (a release
/// without section 10 data writes the same cell: format 1, or none). A source that no
/// longer parses is left as it is: it was valid when it was stored, and its rows still read.
pub fn refill_cells(tx: &Transaction, path: &str) -> Result<(), InputError> {
    let err = |e: rusqlite::Error| sql_error(path, &e);
    let sources: Vec<(i64, String, String)> = {
        let mut stmt = tx
            .prepare("SELECT id, path, text FROM source ORDER BY id")
            .map_err(err)?;
        stmt.query_map([], |row| Ok((row.get(0)?, row.get(1)?, row.get(2)?)))
            .map_err(err)?
            .collect::<rusqlite::Result<_>>()
            .map_err(err)?
    };
    let mut update = tx
        .prepare(
            "UPDATE release SET facets = ?1
             WHERE source_id = ?2 AND product_group = ?3 AND product_name = ?4
               AND version_key = ?5 AND facets IS NOT ?1",
        )
        .map_err(err)?;
    for (id, file, text) in sources {
        for cell in rows::cells_of_source(&file, &text).unwrap_or_default() {
            update
                .execute(params![
                    cell.facets,
                    id,
                    cell.group,
                    cell.name,
                    cell.version_key
                ])
                .map_err(err)?;
        }
    }
    Ok(())
}

fn insert_manifest(tx: &Transaction, source: i64, m: &Manifest) -> rusqlite::Result<()> {
    let rows = rows::encode(m);
    let r = &rows.release;
    tx.prepare_cached(
        "INSERT INTO release (product_group, product_name, version, version_key, product_type,
                              source_id, line, col, facets)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
    )?
    .execute(params![
        r.group,
        r.name,
        r.version,
        m.version.storage_key(),
        r.product_type,
        source,
        r.line,
        r.col,
        r.facets
    ])?;
    let id = tx.last_insert_rowid();
    let mut provision = tx.prepare_cached(
        "INSERT OR IGNORE INTO provision (release_id, capability) VALUES (?1, ?2)",
    )?;
    for p in &m.facets().provides {
        provision.execute(params![id, p.name])?;
    }
    let mut dep = tx.prepare_cached(
        "INSERT INTO dependency VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
    )?;
    for (ord, d) in rows.dependencies.iter().enumerate() {
        dep.execute(params![
            id,
            to_i64(ord),
            d.group,
            d.name,
            d.minimum,
            d.maximum,
            d.recommended,
            d.optional,
            d.line,
            d.col
        ])?;
    }
    let mut inc = tx.prepare_cached(
        "INSERT INTO incompatibility VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
    )?;
    for (ord, i) in rows.incompatibilities.iter().enumerate() {
        inc.execute(params![
            id,
            to_i64(ord),
            i.group,
            i.name,
            i.minimum,
            i.maximum,
            i.reason,
            i.line,
            i.col
        ])?;
    }
    let mut issue = tx.prepare_cached("INSERT INTO issue VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)")?;
    for (ord, i) in rows.issues.iter().enumerate() {
        issue.execute(params![
            id,
            to_i64(ord),
            i.code,
            i.message,
            i.dependency,
            i.line,
            i.col
        ])?;
    }
    Ok(())
}

/// An import's transaction, for [`import::apply`].
pub struct Writer<'c, 'p> {
    pub tx: Transaction<'c>,
    pub path: &'p str,
}

impl ImportTarget<'_> for Writer<'_, '_> {
    fn find(
        &mut self,
        product: &ProductId,
        version: &Version,
    ) -> Result<Option<(i64, Manifest)>, InputError> {
        let id = find_release(&self.tx, product, version).map_err(|e| sql_error(self.path, &e))?;
        id.map(|id| Ok((id, read_manifest(&self.tx, self.path, id)?)))
            .transpose()
    }

    fn remove(&mut self, release: i64) -> Result<(), InputError> {
        self.tx
            .execute("DELETE FROM release WHERE id = ?1", [release])
            .map(drop)
            .map_err(|e| sql_error(self.path, &e))
    }

    fn add_source(&mut self, file: &SourceFile) -> Result<i64, InputError> {
        insert_source(&self.tx, &file.path, &file.text).map_err(|e| sql_error(self.path, &e))
    }

    fn add_release(&mut self, source: i64, manifest: &Manifest) -> Result<(), InputError> {
        insert_manifest(&self.tx, source, manifest).map_err(|e| sql_error(self.path, &e))
    }
}

/// Rebuilds one stored manifest from its rows.
pub fn read_manifest(conn: &Connection, path: &str, id: i64) -> Result<Manifest, InputError> {
    read_manifests(conn, path, Some(id))?
        .pop()
        .ok_or_else(|| rows::damaged(path, &format!("release {id} vanished")))
}

/// Rebuilds the stored manifests whose release ids are in the temporary table `pick` (or just
/// release `only`), with one query per table rather than per release: the bundled SQLite is
/// built with STAT4, which recompiles a statement whenever a parameter compared with an
/// indexed column is rebound, so per-release queries cost a compile each. The cells are
/// decoded by [`rows::Decoder`].
pub fn read_manifests(
    conn: &Connection,
    path: &str,
    only: Option<i64>,
) -> Result<Vec<Manifest>, InputError> {
    // a catalog of schema 1 has no `facets` column (and no section 9 data)
    let version: i64 = conn
        .query_row("PRAGMA user_version", [], |row| row.get(0))
        .map_err(|e| sql_error(path, &e))?;
    let facets = if usize::try_from(version).unwrap_or(0) >= super::FACETS_SINCE {
        "r.facets"
    } else {
        "NULL"
    };
    let err = |e: rusqlite::Error| sql_error(path, &e);
    if let Some(id) = only {
        conn.execute_batch(&format!(
            "CREATE TEMP TABLE IF NOT EXISTS pick (id INTEGER PRIMARY KEY);
             DELETE FROM pick; INSERT INTO pick VALUES ({id});"
        ))
        .map_err(err)?;
    }
    let mut decoder = Decoder::new(path);
    each_row(
        conn,
        path,
        &format!(
            "SELECT r.id, s.path, r.product_group, r.product_name, r.version, r.product_type,
                    r.line, r.col, {facets}
             FROM pick p CROSS JOIN release r ON r.id = p.id
             CROSS JOIN source s ON s.id = r.source_id"
        ),
        |row| {
            let release = ReleaseRow {
                group: text(row, 2)?,
                name: text(row, 3)?,
                version: text(row, 4)?,
                product_type: maybe_text(row, 5)?,
                line: row.get(6)?,
                col: row.get(7)?,
                facets: maybe_text(row, 8)?,
            };
            Ok(decoder.release(row.get(0)?, text(row, 1)?, release))
        },
    )?;
    each_row(
        conn,
        path,
        "SELECT d.release_id, d.product_group, d.product_name, d.minimum, d.maximum,
                d.recommended, d.optional, d.line, d.col
         FROM pick p CROSS JOIN dependency d ON d.release_id = p.id ORDER BY d.release_id, d.ord",
        |row| {
            let dependency = DependencyRow {
                group: text(row, 1)?,
                name: text(row, 2)?,
                minimum: text(row, 3)?,
                maximum: text(row, 4)?,
                recommended: maybe_text(row, 5)?,
                optional: row.get(6)?,
                line: row.get(7)?,
                col: row.get(8)?,
            };
            Ok(decoder.dependency(row.get(0)?, &dependency))
        },
    )?;
    each_row(
        conn,
        path,
        "SELECT i.release_id, i.product_group, i.product_name, i.minimum, i.maximum,
                i.reason, i.line, i.col
         FROM pick p CROSS JOIN incompatibility i ON i.release_id = p.id
         ORDER BY i.release_id, i.ord",
        |row| {
            let incompatibility = IncompatibilityRow {
                group: text(row, 1)?,
                name: text(row, 2)?,
                minimum: maybe_text(row, 3)?,
                maximum: maybe_text(row, 4)?,
                reason: maybe_text(row, 5)?,
                line: row.get(6)?,
                col: row.get(7)?,
            };
            Ok(decoder.incompatibility(row.get(0)?, incompatibility))
        },
    )?;
    each_row(
        conn,
        path,
        "SELECT i.release_id, i.code, i.message, i.dependency, i.line, i.col
         FROM pick p CROSS JOIN issue i ON i.release_id = p.id ORDER BY i.release_id, i.ord",
        |row| {
            let issue = IssueRow {
                code: row.get(1)?,
                message: row.get(2)?,
                dependency: row.get(3)?,
                line: row.get(4)?,
                col: row.get(5)?,
            };
            Ok(decoder.issue(row.get(0)?, issue))
        },
    )?;
    Ok(decoder.finish())
}

/// The section 9 cells of the releases (of every product, or only `product`) that have one,
/// decoded, in catalog order; with `mentions`, only the cells of releases that provide that
/// capability (from the `provision` index; a file of schema 2: the cells whose text holds it
/// as a `"name"`, the caller keeps what it needs of them). A catalog of schema 1 has none.
pub fn read_facets(
    conn: &Connection,
    path: &str,
    product: Option<&ProductId>,
    mentions: Option<&str>,
) -> Result<Vec<ReleaseFacets>, InputError> {
    let err = |e: rusqlite::Error| sql_error(path, &e);
    let version: i64 = conn
        .query_row("PRAGMA user_version", [], |row| row.get(0))
        .map_err(err)?;
    if usize::try_from(version).unwrap_or(0) < super::FACETS_SINCE {
        return Ok(Vec::new());
    }
    // providers come from the `provision` index where the file has it, else from the
    // cells whose text names the capability
    let indexed = usize::try_from(version).unwrap_or(0) >= super::PROVISION_SINCE;
    let (filter, needle) = match mentions {
        Some(name) if indexed => (
            "id IN (SELECT release_id FROM provision WHERE capability = ?3)",
            Some(name.to_owned()),
        ),
        Some(name) => (
            "instr(facets, ?3) > 0",
            Some(format!("\"name\":{}", serde_json::Value::from(name))),
        ),
        None => ("?3 IS NULL", None),
    };
    let mut stmt = conn
        .prepare(&format!(
            "SELECT product_group, product_name, version, facets FROM release
             WHERE facets IS NOT NULL
               AND (?1 IS NULL OR (product_group = ?1 AND product_name = ?2))
               AND {filter}
             ORDER BY product_group, product_name, version_key, version"
        ))
        .map_err(err)?;
    let mut rows = stmt
        .query(params![
            product.map(ProductId::group),
            product.map(ProductId::name),
            needle
        ])
        .map_err(err)?;
    let mut out = Vec::new();
    while let Some(row) = rows.next().map_err(err)? {
        let (group, name, version, cell): (String, String, String, String) = (
            row.get(0).map_err(err)?,
            row.get(1).map_err(err)?,
            row.get(2).map_err(err)?,
            row.get(3).map_err(err)?,
        );
        out.push(rows::release_facets(path, &group, &name, &version, &cell)?);
    }
    Ok(out)
}

/// Text cell `i` of `row`, borrowed from the driver (a read of a large catalog copied about
/// a million cells into strings of their own only to parse them). A cell of another type is
/// the error `Row::get` gives.
fn text<'r>(row: &'r rusqlite::Row<'_>, i: usize) -> rusqlite::Result<&'r str> {
    let cell = row.get_ref(i)?;
    cell.as_str().map_err(|_| not_text(row, i, cell))
}

/// [`text`] of a cell that may be NULL.
fn maybe_text<'r>(row: &'r rusqlite::Row<'_>, i: usize) -> rusqlite::Result<Option<&'r str>> {
    let cell = row.get_ref(i)?;
    cell.as_str_or_null().map_err(|_| not_text(row, i, cell))
}

/// `Row::get`'s error for cell `i`, which is not text.
fn not_text(
    row: &rusqlite::Row<'_>,
    i: usize,
    cell: rusqlite::types::ValueRef<'_>,
) -> rusqlite::Error {
    let name = row
        .as_ref()
        .column_name(i)
        .map_or_else(|_| i.to_string(), str::to_owned);
    rusqlite::Error::InvalidColumnType(i, name, cell.data_type())
}

/// Runs a query and hands each row to `decode`, which reads its cells (a failure there is the
/// database's) and returns what decoding them gave (a failure there is a damaged catalog).
fn each_row(
    conn: &Connection,
    path: &str,
    sql: &str,
    mut decode: impl FnMut(&rusqlite::Row<'_>) -> rusqlite::Result<Result<(), InputError>>,
) -> Result<(), InputError> {
    let err = |e: rusqlite::Error| sql_error(path, &e);
    let mut stmt = conn.prepare_cached(sql).map_err(err)?;
    let mut rows = stmt.query([]).map_err(err)?;
    while let Some(row) = rows.next().map_err(err)? {
        decode(row).map_err(err)??;
    }
    Ok(())
}
