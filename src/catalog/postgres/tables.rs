//! The PostgreSQL tables: bulk reads of picked releases through the shared [`Decoder`], and an
//! import's [`Writer`] (this backend's [`ImportTarget`]). The cells are those of
//! [`rows`](crate::catalog::rows); only the SQL is this backend's.
//!
//! Every read is one statement per table, whatever the number of releases: the picked keys
//! travel as arrays (`unnest`), the declarations are read by `release_id = ANY(ids)`. An import
//! reads the stored releases its batch names in one such read before it starts, answers
//! [`ImportTarget::find`] from them, buffers what it adds, and writes it with binary `COPY`
//! at the end (ids drawn from the tables' sequences), so a large import costs a few round
//! trips rather than one per row.

use std::collections::BTreeMap;

use ::postgres::binary_copy::BinaryCopyInWriter;
use ::postgres::types::{FromSql, Type};
use ::postgres::{GenericClient, Row, Transaction};

use super::pg_error;
use crate::catalog::import::ImportTarget;
use crate::catalog::rows::{
    self, Decoder, DependencyRow, IncompatibilityRow, IssueRow, ReleaseRow,
};
use crate::catalog::{Batch, ImportError};
use crate::diagnostic::InputError;
use crate::loader::SourceFile;
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
    let version: i32 = client
        .query_one(
            "SELECT coalesce(max(version), 0) FROM compat.schema_migration",
            &[],
        )
        .map_err(err)?
        .get(0);
    let facets = if usize::try_from(version).unwrap_or(0) >= super::FACETS_SINCE {
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
        let release = ReleaseRow {
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
        let dependency = DependencyRow {
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
        let incompatibility = IncompatibilityRow {
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

/// A release's identity in storage: group, name, version key.
type Key = (String, String, String);

fn key(product: &ProductId, version: &Version) -> Key {
    (
        product.group().to_owned(),
        product.name().to_owned(),
        version.storage_key(),
    )
}

/// An import's transaction, for [`import::apply`](crate::catalog::import::apply): finds are
/// answered from the releases read at the start (and those added since), writes are buffered
/// until [`Writer::finish`].
pub struct Writer<'c, 'n> {
    tx: Transaction<'c>,
    name: &'n str,
    /// Stored releases the batch names, and the ones added so far (negative ids).
    known: BTreeMap<Key, (i64, Manifest)>,
    removed: Vec<i64>,
    sources: Vec<(String, String)>,
    added: Vec<(usize, Manifest)>,
}

impl<'c, 'n> Writer<'c, 'n> {
    /// Starts an import in `tx`, reading the stored releases `batch` names.
    ///
    /// # Errors
    /// A database failure or a damaged row.
    pub fn start(
        mut tx: Transaction<'c>,
        name: &'n str,
        batch: &Batch,
    ) -> Result<Self, InputError> {
        let manifests = batch.files().iter().flat_map(|f| &f.manifests);
        let wanted: Vec<(&ProductId, &Version)> =
            manifests.map(|m| (&m.product, &m.version)).collect();
        let (ids, stored) = read_manifests(&mut tx, name, &Pick::Releases(&wanted))?;
        let known = ids
            .into_iter()
            .zip(stored)
            .map(|(id, m)| (key(&m.product, &m.version), (id, m)))
            .collect();
        Ok(Writer {
            tx,
            name,
            known,
            removed: Vec::new(),
            sources: Vec::new(),
            added: Vec::new(),
        })
    }

    /// Writes what the import added and removed, drops sources no release uses any more, and
    /// commits.
    ///
    /// # Errors
    /// A database failure (nothing is written then).
    pub fn finish(mut self) -> Result<(), ImportError> {
        let name = self.name;
        let err = |e: ::postgres::Error| ImportError::from(pg_error(name, &e));
        let tx = &mut self.tx;
        if !self.removed.is_empty() {
            for table in ["dependency", "incompatibility", "issue"] {
                tx.execute(
                    &format!("DELETE FROM compat.{table} WHERE release_id = ANY($1)"),
                    &[&self.removed],
                )
                .map_err(err)?;
            }
            tx.execute(
                "DELETE FROM compat.release WHERE id = ANY($1)",
                &[&self.removed],
            )
            .map_err(err)?;
        }
        let source_ids = next_ids(tx, "compat.source_id_seq", self.sources.len()).map_err(err)?;
        let release_ids = next_ids(tx, "compat.release_id_seq", self.added.len()).map_err(err)?;
        copy(
            tx,
            "source (id, path, text)",
            &[Type::INT8, Type::TEXT, Type::TEXT],
            |w| {
                for (id, (path, text)) in source_ids.iter().zip(&self.sources) {
                    w.write(&[id, path, text])?;
                }
                Ok(())
            },
        )
        .map_err(err)?;
        let encoded: Vec<Encoded<'_>> = release_ids
            .iter()
            .zip(&self.added)
            .map(|(id, (source, m))| (*id, source_ids[*source], m, rows::encode(m)))
            .collect();
        copy_releases(tx, &encoded).map_err(err)?;
        copy_dependencies(tx, &encoded).map_err(err)?;
        copy_incompatibilities(tx, &encoded).map_err(err)?;
        copy_issues(tx, &encoded).map_err(err)?;
        drop(encoded);
        self.tx
            .execute(
                "DELETE FROM compat.source s
                 WHERE NOT EXISTS (SELECT 1 FROM compat.release r WHERE r.source_id = s.id)",
                &[],
            )
            .map_err(err)?;
        self.tx.commit().map_err(err)
    }
}

/// An added release: its id, its source's id, the manifest and its rows.
type Encoded<'m> = (i64, i64, &'m Manifest, rows::Rows<'m>);

/// The releases rows of the added releases, with one binary `COPY`.
fn copy_releases(
    tx: &mut Transaction<'_>,
    encoded: &[Encoded<'_>],
) -> Result<(), ::postgres::Error> {
    copy(
        tx,
        "release (id, product_group, product_name, version, version_key, product_type, \
         source_id, line, col, facets)",
        &[
            Type::INT8,
            Type::TEXT,
            Type::TEXT,
            Type::TEXT,
            Type::TEXT,
            Type::TEXT,
            Type::INT8,
            Type::INT8,
            Type::INT8,
            Type::TEXT,
        ],
        |w| {
            for (id, source, m, rows) in encoded {
                let r = &rows.release;
                w.write(&[
                    id,
                    &r.group.as_ref(),
                    &r.name.as_ref(),
                    &r.version.as_ref(),
                    &m.version.storage_key(),
                    &r.product_type.as_deref(),
                    source,
                    &r.line,
                    &r.col,
                    &r.facets.as_deref(),
                ])?;
            }
            Ok(())
        },
    )
}

/// The dependencies rows of the added releases, with one binary `COPY`.
fn copy_dependencies(
    tx: &mut Transaction<'_>,
    encoded: &[Encoded<'_>],
) -> Result<(), ::postgres::Error> {
    copy(
        tx,
        "dependency (release_id, ord, product_group, product_name, minimum, maximum, \
         recommended, optional, line, col)",
        &[
            Type::INT8,
            Type::INT4,
            Type::TEXT,
            Type::TEXT,
            Type::TEXT,
            Type::TEXT,
            Type::TEXT,
            Type::BOOL,
            Type::INT8,
            Type::INT8,
        ],
        |w| {
            for (id, _, _, rows) in encoded {
                for (ord, d) in (0i32..).zip(&rows.dependencies) {
                    w.write(&[
                        id,
                        &ord,
                        &d.group.as_ref(),
                        &d.name.as_ref(),
                        &d.minimum.as_ref(),
                        &d.maximum.as_ref(),
                        &d.recommended.as_deref(),
                        &d.optional,
                        &d.line,
                        &d.col,
                    ])?;
                }
            }
            Ok(())
        },
    )
}

/// The incompatibilities rows of the added releases, with one binary `COPY`.
fn copy_incompatibilities(
    tx: &mut Transaction<'_>,
    encoded: &[Encoded<'_>],
) -> Result<(), ::postgres::Error> {
    copy(
        tx,
        "incompatibility (release_id, ord, product_group, product_name, minimum, maximum, \
         reason, line, col)",
        &[
            Type::INT8,
            Type::INT4,
            Type::TEXT,
            Type::TEXT,
            Type::TEXT,
            Type::TEXT,
            Type::TEXT,
            Type::INT8,
            Type::INT8,
        ],
        |w| {
            for (id, _, _, rows) in encoded {
                for (ord, i) in (0i32..).zip(&rows.incompatibilities) {
                    w.write(&[
                        id,
                        &ord,
                        &i.group.as_ref(),
                        &i.name.as_ref(),
                        &i.minimum.as_deref(),
                        &i.maximum.as_deref(),
                        &i.reason.as_deref(),
                        &i.line,
                        &i.col,
                    ])?;
                }
            }
            Ok(())
        },
    )
}

/// The issues rows of the added releases, with one binary `COPY`.
fn copy_issues(tx: &mut Transaction<'_>, encoded: &[Encoded<'_>]) -> Result<(), ::postgres::Error> {
    copy(
        tx,
        "issue (release_id, ord, code, message, dependency, line, col)",
        &[
            Type::INT8,
            Type::INT4,
            Type::TEXT,
            Type::TEXT,
            Type::TEXT,
            Type::INT8,
            Type::INT8,
        ],
        |w| {
            for (id, _, _, rows) in encoded {
                for (ord, i) in (0i32..).zip(&rows.issues) {
                    w.write(&[
                        id,
                        &ord,
                        &i.code.as_ref(),
                        &i.message.as_ref(),
                        &i.dependency.as_deref(),
                        &i.line,
                        &i.col,
                    ])?;
                }
            }
            Ok(())
        },
    )
}

/// `n` fresh ids from a sequence, in one round trip.
fn next_ids(
    tx: &mut Transaction<'_>,
    sequence: &str,
    n: usize,
) -> Result<Vec<i64>, ::postgres::Error> {
    if n == 0 {
        return Ok(Vec::new());
    }
    let n = i64::try_from(n).unwrap_or(i64::MAX);
    let rows = tx.query(
        "SELECT nextval($1::text::regclass) FROM generate_series(1, $2::bigint)",
        &[&sequence, &n],
    )?;
    rows.iter().map(|row| row.try_get(0)).collect()
}

/// Writes rows into `compat.TABLE (COLUMNS)` with one binary `COPY`.
fn copy(
    tx: &mut Transaction<'_>,
    table: &str,
    types: &[Type],
    write: impl FnOnce(&mut BinaryCopyInWriter<'_>) -> Result<(), ::postgres::Error>,
) -> Result<(), ::postgres::Error> {
    let sink = tx.copy_in(&format!("COPY compat.{table} FROM STDIN (FORMAT binary)"))?;
    let mut writer = BinaryCopyInWriter::new(sink, types);
    write(&mut writer)?;
    writer.finish().map(drop)
}

impl ImportTarget for Writer<'_, '_> {
    fn find(
        &mut self,
        product: &ProductId,
        version: &Version,
    ) -> Result<Option<(i64, Manifest)>, InputError> {
        Ok(self.known.get(&key(product, version)).cloned())
    }

    fn remove(&mut self, release: i64) -> Result<(), InputError> {
        self.removed.push(release);
        Ok(())
    }

    fn add_source(&mut self, file: &SourceFile) -> Result<i64, InputError> {
        self.sources
            .push((file.path.to_string(), file.text.clone()));
        Ok(i64::try_from(self.sources.len() - 1).unwrap_or(i64::MAX))
    }

    fn add_release(&mut self, source: i64, manifest: &Manifest) -> Result<(), InputError> {
        let source = usize::try_from(source).unwrap_or(usize::MAX);
        let pending = -i64::try_from(self.added.len() + 1).unwrap_or(i64::MAX);
        self.known.insert(
            key(&manifest.product, &manifest.version),
            (pending, manifest.clone()),
        );
        self.added.push((source, manifest.clone()));
        Ok(())
    }
}
