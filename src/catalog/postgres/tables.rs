//! The PostgreSQL tables, read: picked releases in bulk through the shared [`Decoder`] (an
//! import's writes are module `writer`'s). The cells are those of
//! [`rows`](crate::catalog::rows); only the SQL is this backend's.
//!
//! Every read is one statement per table, whatever the number of releases: the picked keys
//! travel as arrays (`unnest`), the declarations are read by `release_id = ANY(ids)`.

use ::postgres::types::FromSql;
use ::postgres::{GenericClient, Row};

use super::pg_error;
use crate::catalog::ReleaseFacets;
use crate::catalog::rows::{
    self, Decoder, DependencyRow, IncompatibilityRow, IssueRow, ReleaseRow,
};
use crate::diagnostic::InputError;
use crate::manifest::Manifest;
use crate::product::ProductId;
use crate::version::Version;

/// Which releases a read picks.
pub enum Pick<'a> {
    All,
    /// These releases (version equality).
    Releases(&'a [(&'a ProductId, &'a Version)]),
    /// Every release of these products at least the version given (all for `None`).
    From(&'a [(&'a ProductId, Option<&'a Version>)]),
}

/// One cell; a cell of an unexpected type is a damaged catalog.
pub fn cell<'r, T: FromSql<'r>>(name: &str, row: &'r Row, i: usize) -> Result<T, InputError> {
    row.try_get(i)
        .map_err(|e| rows::damaged(name, &format!("column {i}: {e}")))
}

/// Migration 4's own step, as in the SQLite catalog (`sqlite::tables::refill_cells`): each
/// stored source is read again and its releases' facets cells written where today's differ.
pub fn refill_cells(client: &mut impl GenericClient, name: &str) -> Result<(), InputError> {
    let sources = client
        .query("SELECT id, path, text FROM compat.source ORDER BY id", &[])
        .map_err(|e| pg_error(name, &e))?;
    let update = client
        .prepare(
            "UPDATE compat.release SET facets = $1
             WHERE source_id = $2 AND product_group = $3 AND product_name = $4
               AND version_key = $5 AND facets IS DISTINCT FROM $1",
        )
        .map_err(|e| pg_error(name, &e))?;
    for row in &sources {
        let (id, file, text): (i64, &str, &str) = (
            cell(name, row, 0)?,
            cell(name, row, 1)?,
            cell(name, row, 2)?,
        );
        for c in rows::cells_of_source(file, text).unwrap_or_default() {
            let params: [&(dyn ::postgres::types::ToSql + Sync); 5] =
                [&c.facets, &id, &c.group, &c.name, &c.version_key];
            client
                .execute(&update, &params)
                .map_err(|e| pg_error(name, &e))?;
        }
    }
    Ok(())
}

/// How many migrations the catalog has had.
fn schema_version(client: &mut impl GenericClient, name: &str) -> Result<usize, InputError> {
    let version: i32 = client
        .query_one(
            "SELECT coalesce(max(version), 0) FROM compat.schema_migration",
            &[],
        )
        .map_err(|e| pg_error(name, &e))?
        .get(0);
    Ok(usize::try_from(version).unwrap_or(0))
}

/// The section 9 cells of the releases (of every product, or only `product`) that have one,
/// decoded, in catalog order, without reading the releases' other rows; with `provides`, only
/// the cells of releases that provide that capability (from the `provision` index; a catalog
/// of schema 2: the cells whose text holds it as a `"name"`, the caller keeps what it needs of
/// them). A catalog of schema 1 has none.
pub fn read_facets(
    client: &mut impl GenericClient,
    name: &str,
    product: Option<&ProductId>,
    provides: Option<&str>,
) -> Result<Vec<ReleaseFacets>, InputError> {
    let schema = schema_version(client, name)?;
    if schema < super::FACETS_SINCE {
        return Ok(Vec::new());
    }
    let (filter, needle) = match provides {
        Some(capability) if schema >= super::PROVISION_SINCE => (
            "r.id IN (SELECT release_id FROM compat.provision WHERE capability = $3)",
            Some(capability.to_owned()),
        ),
        Some(capability) => (
            "strpos(r.facets, $3) > 0",
            Some(format!("\"name\":{}", serde_json::Value::from(capability))),
        ),
        None => ("$3::text IS NULL", None),
    };
    let rows = client
        .query(
            &format!(
                "SELECT r.product_group, r.product_name, r.version, r.facets
                 FROM compat.release r
                 WHERE r.facets IS NOT NULL
                   AND ($1::text IS NULL OR (r.product_group = $1 AND r.product_name = $2))
                   AND {filter}
                 ORDER BY r.product_group, r.product_name, r.version_key, r.version"
            ),
            &[
                &product.map(ProductId::group),
                &product.map(ProductId::name),
                &needle,
            ],
        )
        .map_err(|e| pg_error(name, &e))?;
    rows.iter()
        .map(|row| {
            let group: &str = cell(name, row, 0)?;
            let product: &str = cell(name, row, 1)?;
            let version: &str = cell(name, row, 2)?;
            let facets: &str = cell(name, row, 3)?;
            rows::release_facets(name, group, product, version, facets)
        })
        .collect()
}

/// The picked releases' ids (ascending) and manifests (in the same order), rebuilt by the
/// shared decoder from one query per table.
pub fn read_manifests(
    client: &mut impl GenericClient,
    name: &str,
    pick: &Pick<'_>,
) -> Result<(Vec<i64>, Vec<Manifest>), InputError> {
    let mut decoder = Decoder::new(name);
    let ids = read_releases(client, name, pick, &mut decoder)?;
    if !ids.is_empty() {
        let filter = if matches!(pick, Pick::All) {
            None
        } else {
            Some(ids.as_slice())
        };
        read_declarations(client, name, filter, &mut decoder)?;
    }
    Ok((ids, decoder.finish()))
}

/// The picked release rows, into `decoder`; their ids, ascending.
fn read_releases(
    client: &mut impl GenericClient,
    name: &str,
    pick: &Pick<'_>,
    decoder: &mut Decoder<'_>,
) -> Result<Vec<i64>, InputError> {
    let err = |e: ::postgres::Error| pg_error(name, &e);
    // a catalog of schema 1 has no `facets` column (and no section 9 data)
    let facets = if schema_version(client, name)? >= super::FACETS_SINCE {
        "r.facets"
    } else {
        "NULL::text"
    };
    let select = format!(
        "SELECT r.id, s.path, r.product_group, r.product_name, r.version,
                r.product_type, r.line, r.col, {facets}
         FROM compat.release r JOIN compat.source s ON s.id = r.source_id"
    );
    let releases = match pick {
        Pick::All => client.query(&select, &[]),
        Pick::Releases(wanted) => {
            let (groups, names, keys): (Vec<&str>, Vec<&str>, Vec<String>) = wanted
                .iter()
                .map(|(p, v)| (p.group(), p.name(), v.storage_key()))
                .collect();
            client.query(
                &format!(
                    "{select} WHERE (r.product_group, r.product_name, r.version_key) IN
                     (SELECT * FROM unnest($1::text[], $2::text[], $3::text[]))"
                ),
                &[&groups, &names, &keys],
            )
        }
        Pick::From(products) => {
            // `version_key` sorts like versions, so "at least" is one comparison; a
            // non-orderable version has no place in the order, so it asks for everything.
            let (groups, names, keys): (Vec<&str>, Vec<&str>, Vec<Option<String>>) = products
                .iter()
                .map(|(p, v)| {
                    let key = v.filter(|v| v.is_orderable()).map(Version::storage_key);
                    (p.group(), p.name(), key)
                })
                .collect();
            client.query(
                &format!(
                    "{select} WHERE EXISTS (
                         SELECT 1 FROM unnest($1::text[], $2::text[], $3::text[]) w(g, n, k)
                         WHERE r.product_group = w.g AND r.product_name = w.n
                           AND (w.k IS NULL OR r.version_key >= w.k))"
                ),
                &[&groups, &names, &keys],
            )
        }
    }
    .map_err(err)?;
    let mut ids = Vec::with_capacity(releases.len());
    for row in &releases {
        let id: i64 = cell(name, row, 0)?;
        let release = ReleaseRow::<&str> {
            group: cell(name, row, 2)?,
            name: cell(name, row, 3)?,
            version: cell(name, row, 4)?,
            product_type: cell(name, row, 5)?,
            line: cell(name, row, 6)?,
            col: cell(name, row, 7)?,
            facets: cell(name, row, 8)?,
        };
        decoder.release(id, cell(name, row, 1)?, release)?;
        ids.push(id);
    }
    ids.sort_unstable();
    Ok(ids)
}

/// The declaration rows of the releases `ids` (of every release for `None`), into `decoder`.
fn read_declarations(
    client: &mut impl GenericClient,
    name: &str,
    ids: Option<&[i64]>,
    decoder: &mut Decoder<'_>,
) -> Result<(), InputError> {
    let mut query = |table: &str, columns: &str| {
        let filter = if ids.is_some() {
            "WHERE release_id = ANY($1)"
        } else {
            ""
        };
        let sql = format!(
            "SELECT release_id, {columns} FROM compat.{table} {filter} ORDER BY release_id, ord"
        );
        match ids {
            Some(ids) => client.query(&sql, &[&ids]),
            None => client.query(&sql, &[]),
        }
        .map_err(|e| pg_error(name, &e))
    };
    let dependency = query(
        "dependency",
        "product_group, product_name, minimum, maximum, recommended, optional, line, col",
    )?;
    for row in &dependency {
        let dependency = DependencyRow::<&str> {
            group: cell(name, row, 1)?,
            name: cell(name, row, 2)?,
            minimum: cell(name, row, 3)?,
            maximum: cell(name, row, 4)?,
            recommended: cell(name, row, 5)?,
            optional: cell(name, row, 6)?,
            line: cell(name, row, 7)?,
            col: cell(name, row, 8)?,
        };
        decoder.dependency(cell(name, row, 0)?, &dependency)?;
    }
    drop(dependency);
    let incompatibility = query(
        "incompatibility",
        "product_group, product_name, minimum, maximum, reason, line, col",
    )?;
    for row in &incompatibility {
        let incompatibility = IncompatibilityRow::<&str> {
            group: cell(name, row, 1)?,
            name: cell(name, row, 2)?,
            minimum: cell(name, row, 3)?,
            maximum: cell(name, row, 4)?,
            reason: cell(name, row, 5)?,
            line: cell(name, row, 6)?,
            col: cell(name, row, 7)?,
        };
        decoder.incompatibility(cell(name, row, 0)?, incompatibility)?;
    }
    drop(incompatibility);
    let issue = query("issue", "code, message, dependency, line, col")?;
    for row in &issue {
        let issue = IssueRow {
            code: cell(name, row, 1)?,
            message: cell(name, row, 2)?,
            dependency: cell(name, row, 3)?,
            line: cell(name, row, 4)?,
            col: cell(name, row, 5)?,
        };
        decoder.issue(cell(name, row, 0)?, issue)?;
    }
    Ok(())
}
