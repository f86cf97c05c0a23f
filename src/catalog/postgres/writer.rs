//! An import into PostgreSQL: the [`Writer`] this backend gives
//! [`import::apply`](crate::catalog::import::apply) (its [`ImportTarget`]). It reads the
//! stored releases its batch names in one read before it starts (none when the catalog holds
//! no release), answers [`ImportTarget::find`] from them, keeps what it adds (borrowed from
//! the batch), and at the end writes it with one binary `COPY` per table: the rows are encoded
//! by [`copy`](super::copy) in chunks on all cores while the sources already stream, and the
//! ids come from each table's sequence in one round trip. The cells are those of
//! [`rows`](crate::catalog::rows), as for SQLite; the `provision` index (which release
//! provides which capability) is written and deleted with the releases, as their
//! declarations are.

use std::collections::BTreeMap;
use std::io::Write;

use ::postgres::Transaction;
use rayon::prelude::*;

use super::copy::{self, Rows};
use super::pg_error;
use super::tables::{Pick, read_manifests};
use crate::catalog::import::ImportTarget;
use crate::catalog::rows;
use crate::catalog::{Batch, ImportError};
use crate::diagnostic::InputError;
use crate::loader::SourceFile;
use crate::manifest::Manifest;
use crate::product::ProductId;
use crate::version::{OrderKey, Version};

/// Releases encoded per task: large enough that a chunk's rows go to the connection in
/// pieces of a few hundred kilobytes, small enough that two cores share the work evenly.
const CHUNK: usize = 2048;

/// An import's transaction, for [`import::apply`](crate::catalog::import::apply): finds
/// are answered from the releases read at the start and those added since; writes wait for
/// [`Writer::finish`].
pub struct Writer<'c, 'n, 'b> {
    tx: Transaction<'c>,
    name: &'n str,
    /// The stored releases the batch names.
    stored: BTreeMap<ProductId, BTreeMap<VersionKey, (i64, Manifest)>>,
    /// The releases added so far, by their place in `added`.
    pending: BTreeMap<&'b ProductId, BTreeMap<VersionKey, usize>>,
    /// Stored releases to delete.
    removed: Vec<i64>,
    sources: Vec<&'b SourceFile>,
    added: Vec<(usize, &'b Manifest)>,
}

impl<'c, 'n> Writer<'c, 'n, '_> {
    /// Starts an import in `tx`, reading the stored releases `batch` names.
    ///
    /// # Errors
    /// A database failure or a damaged row.
    pub fn start(
        mut tx: Transaction<'c>,
        name: &'n str,
        batch: &Batch,
    ) -> Result<Self, InputError> {
        let any_stored: bool = tx
            .query_one("SELECT EXISTS (SELECT 1 FROM compat.release)", &[])
            .map_err(|e| pg_error(name, &e))?
            .get(0);
        let mut stored: BTreeMap<ProductId, BTreeMap<VersionKey, (i64, Manifest)>> =
            BTreeMap::new();
        if any_stored {
            let manifests = batch.files().iter().flat_map(|f| &f.manifests);
            let wanted: Vec<(&ProductId, &Version)> =
                manifests.map(|m| (&m.product, &m.version)).collect();
            let (ids, manifests) = read_manifests(&mut tx, name, &Pick::Releases(&wanted))?;
            for (id, m) in ids.into_iter().zip(manifests) {
                stored
                    .entry(m.product.clone())
                    .or_default()
                    .insert(version_key(&m.version), (id, m));
            }
        }
        Ok(Writer {
            tx,
            name,
            stored,
            pending: BTreeMap::new(),
            removed: Vec::new(),
            sources: Vec::new(),
            added: Vec::new(),
        })
    }

    /// Writes what the import added and removed, drops the sources only removed releases
    /// used, and commits.
    ///
    /// # Errors
    /// A database failure (nothing is written then).
    pub fn finish(mut self) -> Result<(), ImportError> {
        let name = self.name;
        let err = |e: ::postgres::Error| ImportError::from(pg_error(name, &e));
        let tx = &mut self.tx;
        let removed = &self.removed;
        let mut removed_sources: Vec<i64> = Vec::new();
        if !removed.is_empty() {
            for table in ["dependency", "incompatibility", "issue", "provision"] {
                tx.execute(
                    &format!("DELETE FROM compat.{table} WHERE release_id = ANY($1)"),
                    &[removed],
                )
                .map_err(err)?;
            }
            let rows = tx
                .query(
                    "DELETE FROM compat.release WHERE id = ANY($1) RETURNING source_id",
                    &[removed],
                )
                .map_err(err)?;
            for row in rows {
                removed_sources.push(row.try_get(0).map_err(err)?);
            }
        }
        let source_ids = next_ids(tx, "compat.source_id_seq", self.sources.len()).map_err(err)?;
        let release_ids = next_ids(tx, "compat.release_id_seq", self.added.len()).map_err(err)?;
        // The sources stream while the releases' rows are encoded on the other threads.
        let sources = &self.sources;
        let added = &self.added;
        let (sent, encoded) = rayon::join(
            || {
                let rows = encode_sources(sources, &source_ids);
                copy_rows(tx, name, "source (id, path, text)", [&rows])
            },
            || encode_releases(added, &release_ids, &source_ids),
        );
        sent?;
        let tables: [(&str, RowsOf); 5] = [
            (
                "release (id, product_group, product_name, version, version_key, product_type, \
                 source_id, line, col, facets)",
                |c| &c.releases,
            ),
            (
                "dependency (release_id, ord, product_group, product_name, minimum, maximum, \
                 recommended, optional, line, col)",
                |c| &c.dependencies,
            ),
            (
                "incompatibility (release_id, ord, product_group, product_name, minimum, \
                 maximum, reason, line, col)",
                |c| &c.incompatibilities,
            ),
            (
                "issue (release_id, ord, code, message, dependency, line, col)",
                |c| &c.issues,
            ),
            ("provision (capability, release_id)", |c| &c.provisions),
        ];
        for (table, rows) in tables {
            copy_rows(tx, name, table, encoded.iter().map(rows))?;
        }
        drop(encoded);
        if !removed_sources.is_empty() {
            // Only a removed release can leave its source unused.
            tx.execute(
                "DELETE FROM compat.source s WHERE s.id = ANY($1)
                 AND NOT EXISTS (SELECT 1 FROM compat.release r WHERE r.source_id = s.id)",
                &[&removed_sources],
            )
            .map_err(err)?;
        }
        self.tx.commit().map_err(err)
    }
}

/// A release's version as a map key with version equality (no allocation for an orderable
/// one).
type VersionKey = (Option<OrderKey>, String);

fn version_key(version: &Version) -> VersionKey {
    match version.order_key() {
        Some(key) => (Some(key), String::new()),
        None => (None, version.as_str().to_owned()),
    }
}

/// Which of a chunk's buffers a table's rows are in.
type RowsOf = fn(&Chunk) -> &Rows;

/// The rows of a chunk of added releases, one buffer per table.
#[derive(Default)]
struct Chunk {
    releases: Rows,
    dependencies: Rows,
    incompatibilities: Rows,
    issues: Rows,
    /// The `provision` index: one row per capability a release provides.
    provisions: Rows,
}

/// The source rows: id, path, text.
fn encode_sources(sources: &[&SourceFile], ids: &[i64]) -> Rows {
    let mut rows = Rows::default();
    for (id, file) in ids.iter().zip(sources) {
        rows.row(3);
        rows.bigint(*id);
        rows.text(&file.path);
        rows.text(&file.text);
    }
    rows
}

/// The added releases' rows, in chunks encoded in parallel (in order).
fn encode_releases(
    added: &[(usize, &Manifest)],
    release_ids: &[i64],
    source_ids: &[i64],
) -> Vec<Chunk> {
    added
        .par_chunks(CHUNK)
        .zip(release_ids.par_chunks(CHUNK))
        .map(|(added, ids)| {
            let mut chunk = Chunk::default();
            for (&id, &(source, m)) in ids.iter().zip(added) {
                encode_release(&mut chunk, id, source_ids[source], m);
            }
            chunk
        })
        .collect()
}

/// One release's rows, as [`rows::encode`] has them.
fn encode_release(chunk: &mut Chunk, id: i64, source: i64, m: &Manifest) {
    let encoded = rows::encode(m);
    let r = &encoded.release;
    let c = &mut chunk.releases;
    c.row(10);
    c.bigint(id);
    c.text(&r.group);
    c.text(&r.name);
    c.text(&r.version);
    c.text(&m.version.storage_key());
    c.optional_text(r.product_type.as_deref());
    c.bigint(source);
    c.bigint(r.line);
    c.bigint(r.col);
    c.optional_text(r.facets.as_deref());
    let c = &mut chunk.dependencies;
    for (ord, d) in (0i32..).zip(&encoded.dependencies) {
        c.row(10);
        c.bigint(id);
        c.integer(ord);
        c.text(&d.group);
        c.text(&d.name);
        c.text(&d.minimum);
        c.text(&d.maximum);
        c.optional_text(d.recommended.as_deref());
        c.boolean(d.optional);
        c.bigint(d.line);
        c.bigint(d.col);
    }
    let c = &mut chunk.incompatibilities;
    for (ord, i) in (0i32..).zip(&encoded.incompatibilities) {
        c.row(9);
        c.bigint(id);
        c.integer(ord);
        c.text(&i.group);
        c.text(&i.name);
        c.optional_text(i.minimum.as_deref());
        c.optional_text(i.maximum.as_deref());
        c.optional_text(i.reason.as_deref());
        c.bigint(i.line);
        c.bigint(i.col);
    }
    let c = &mut chunk.issues;
    for (ord, i) in (0i32..).zip(&encoded.issues) {
        c.row(7);
        c.bigint(id);
        c.integer(ord);
        c.text(&i.code);
        c.text(&i.message);
        c.optional_text(i.dependency.as_deref());
        c.bigint(i.line);
        c.bigint(i.col);
    }
    // a capability provided at two versions is one row of the index
    let provides = &m.facets().provides;
    let c = &mut chunk.provisions;
    for (n, p) in provides.iter().enumerate() {
        if provides[..n].iter().all(|q| q.name != p.name) {
            c.row(2);
            c.text(&p.name);
            c.bigint(id);
        }
    }
}

/// Writes encoded rows into `compat.TABLE (COLUMNS)` with one binary `COPY`.
fn copy_rows<'r>(
    tx: &mut Transaction<'_>,
    name: &str,
    table: &str,
    parts: impl IntoIterator<Item = &'r Rows>,
) -> Result<(), ImportError> {
    let err = |e: ::postgres::Error| ImportError::from(pg_error(name, &e));
    // A write fails with the client's error inside an `io::Error`.
    let io_err = |e: std::io::Error| match e
        .into_inner()
        .map(<dyn std::error::Error + Send + Sync>::downcast::<::postgres::Error>)
    {
        Some(Ok(e)) => err(*e),
        Some(Err(e)) => ImportError::from(InputError::Io {
            path: name.to_owned(),
            reason: e.to_string(),
        }),
        None => ImportError::from(InputError::Io {
            path: name.to_owned(),
            reason: "the connection failed during COPY".to_owned(),
        }),
    };
    let mut sink = tx
        .copy_in(&format!("COPY compat.{table} FROM STDIN (FORMAT binary)"))
        .map_err(err)?;
    sink.write_all(copy::HEADER).map_err(io_err)?;
    for part in parts {
        let Some(bytes) = part.bytes() else {
            return Err(ImportError::from(InputError::Io {
                path: name.to_owned(),
                reason: "a text longer than 2 GiB cannot be stored; nothing was written".to_owned(),
            }));
        };
        sink.write_all(bytes).map_err(io_err)?;
    }
    sink.write_all(copy::TRAILER).map_err(io_err)?;
    sink.finish().map(drop).map_err(err)
}

/// `n` fresh ids from a sequence, in one round trip: the sequence moves past them at once
/// (`setval`), rather than by `n` calls of `nextval` (a third of a second for 200,000). Safe
/// because only imports draw from these sequences, and they hold the import lock.
fn next_ids(
    tx: &mut Transaction<'_>,
    sequence: &str,
    n: usize,
) -> Result<Vec<i64>, ::postgres::Error> {
    if n == 0 {
        return Ok(Vec::new());
    }
    let count = i64::try_from(n).unwrap_or(i64::MAX);
    let last: i64 = tx
        .query_one(
            "SELECT setval($1::text::regclass, nextval($1::text::regclass) + $2::bigint - 1)",
            &[&sequence, &count],
        )?
        .try_get(0)?;
    Ok((last - count + 1..=last).collect())
}

impl<'b> ImportTarget<'b> for Writer<'_, '_, 'b> {
    fn find(
        &mut self,
        product: &ProductId,
        version: &Version,
    ) -> Result<Option<(i64, Manifest)>, InputError> {
        // A release added by this import hides the stored one it replaced.
        let key = version_key(version);
        if let Some(&place) = self.pending.get(product).and_then(|v| v.get(&key)) {
            let pending = -i64::try_from(place + 1).unwrap_or(i64::MAX);
            return Ok(Some((pending, self.added[place].1.clone())));
        }
        Ok(self.stored.get(product).and_then(|v| v.get(&key)).cloned())
    }

    fn remove(&mut self, release: i64) -> Result<(), InputError> {
        self.removed.push(release);
        Ok(())
    }

    fn add_source(&mut self, file: &'b SourceFile) -> Result<i64, InputError> {
        self.sources.push(file);
        Ok(i64::try_from(self.sources.len() - 1).unwrap_or(i64::MAX))
    }

    fn add_release(&mut self, source: i64, manifest: &'b Manifest) -> Result<(), InputError> {
        let source = usize::try_from(source).unwrap_or(usize::MAX);
        self.pending
            .entry(&manifest.product)
            .or_default()
            .insert(version_key(&manifest.version), self.added.len());
        self.added.push((source, manifest));
        Ok(())
    }
}
