//! Catalog rows: a manifest as the normalized records a database backend stores (one release
//! row; dependency, incompatibility and issue rows in declaration order; each with its
//! location), and the one [`Decoder`] that rebuilds manifests from them. Backends map these
//! records to their own tables and drivers (SQLite today); the texts, the declaration order
//! and what a damaged cell is stay the same for all of them.
//!
//! Invariants: `decode(encode(m))` gives back `m` (same declarations, same locations); a cell
//! that does not decode (a version, matcher, product or finding code that does not parse, a
//! declaration of a release that is not there) is reported as a damaged catalog, never
//! skipped. Release identity in storage is `Version::storage_key` (its byte order is the
//! version order, its equality is version equality).

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::sync::Arc;

use super::{Listing, ReleaseFacets, facet_cell};
use crate::diagnostic::{InputError, Location};
use crate::finding::Code;
use crate::manifest::{Dependency, Facets, Incompatibility, Issue, Manifest};
use crate::matcher::Matcher;
use crate::product::ProductId;
use crate::range::Range;
use crate::version::Version;

/// A release's own cells (its id, its source file and the version key are the backend's).
pub struct ReleaseRow<S> {
    pub group: S,
    pub name: S,
    pub version: S,
    pub product_type: Option<S>,
    pub line: i64,
    pub col: i64,
    /// The section 9 part as one JSON cell ([`super::facet_cell`]); `None` without one.
    pub facets: Option<S>,
}

/// One dependency of a release.
pub struct DependencyRow<S> {
    pub group: S,
    pub name: S,
    pub minimum: S,
    pub maximum: S,
    pub recommended: Option<S>,
    pub optional: bool,
    pub line: i64,
    pub col: i64,
}

/// One incompatibility of a release; its bounds are optional.
pub struct IncompatibilityRow<S> {
    pub group: S,
    pub name: S,
    pub minimum: Option<S>,
    pub maximum: Option<S>,
    pub reason: Option<S>,
    pub line: i64,
    pub col: i64,
}

/// One issue (a warning kept with a valid manifest).
pub struct IssueRow<S> {
    pub code: S,
    pub message: S,
    pub dependency: Option<S>,
    pub line: i64,
    pub col: i64,
}

/// A manifest as rows, borrowing its texts where it can.
pub struct Rows<'m> {
    pub release: ReleaseRow<Cow<'m, str>>,
    pub dependencies: Vec<DependencyRow<Cow<'m, str>>>,
    pub incompatibilities: Vec<IncompatibilityRow<Cow<'m, str>>>,
    pub issues: Vec<IssueRow<Cow<'m, str>>>,
}

fn text(s: &str) -> Cow<'_, str> {
    Cow::Borrowed(s)
}

fn version(v: Option<&Version>) -> Option<Cow<'_, str>> {
    v.map(|v| text(v.as_str()))
}

fn matcher(m: Option<&Matcher>) -> Option<Cow<'_, str>> {
    m.map(|m| text(m.as_str()))
}

/// A release's facets cell as written today, keyed as a catalog stores the release.
pub struct Cell {
    pub group: String,
    pub name: String,
    pub version_key: String,
    pub facets: Option<String>,
}

/// The facets cell of every release in a stored source's text, as today's compat writes it:
/// what a migration that re-reads the stored sources writes back (section 10 joined the cell
/// without a schema change). `None` when the text no longer parses: it was valid when it was
/// stored, and its rows still read.
#[must_use]
pub fn cells_of_source(file: &str, text: &str) -> Option<Vec<Cell>> {
    let manifests = crate::manifest::parse(text, &std::sync::Arc::from(file)).ok()?;
    let cells = manifests
        .iter()
        .map(|m| Cell {
            group: m.product.group().to_owned(),
            name: m.product.name().to_owned(),
            version_key: m.version.storage_key(),
            facets: encode(m).release.facets.map(Cow::into_owned),
        })
        .collect();
    Some(cells)
}

/// The rows a manifest is stored as.
#[must_use]
pub fn encode(m: &Manifest) -> Rows<'_> {
    Rows {
        release: ReleaseRow {
            group: text(m.product.group()),
            name: text(m.product.name()),
            version: text(m.version.as_str()),
            product_type: m.product_type.as_deref().map(text),
            line: m.location.line.into(),
            col: m.location.column.into(),
            facets: m
                .facets
                .as_deref()
                .and_then(super::facet_cell::encode)
                .map(Cow::Owned),
        },
        dependencies: m
            .dependencies
            .iter()
            .map(|d| DependencyRow {
                group: text(d.product.group()),
                name: text(d.product.name()),
                // A dependency's range is closed (the manifest invariant).
                minimum: version(d.range.minimum.as_ref()).unwrap_or_default(),
                maximum: matcher(d.range.maximum.as_ref()).unwrap_or_default(),
                recommended: version(d.recommended.as_ref()),
                optional: d.optional,
                line: d.location.line.into(),
                col: d.location.column.into(),
            })
            .collect(),
        incompatibilities: m
            .incompatibilities
            .iter()
            .map(|i| IncompatibilityRow {
                group: text(i.product.group()),
                name: text(i.product.name()),
                minimum: version(i.range.minimum.as_ref()),
                maximum: matcher(i.range.maximum.as_ref()),
                reason: i.reason.as_deref().map(text),
                line: i.location.line.into(),
                col: i.location.column.into(),
            })
            .collect(),
        issues: m
            .issues
            .iter()
            .map(|i| IssueRow {
                code: text(i.code.as_str()),
                message: text(&i.message),
                dependency: i
                    .dependency
                    .as_ref()
                    .map(|d| Cow::Owned(d.to_string()))
                    .or_else(|| i.subject.as_deref().map(Cow::Borrowed)),
                line: i.location.line.into(),
                col: i.location.column.into(),
            })
            .collect(),
    }
}

/// The error for a catalog whose content does not decode.
pub fn damaged(path: &str, what: &str) -> InputError {
    InputError::Io {
        path: path.to_owned(),
        reason: format!("damaged catalog: {what}"),
    }
}

/// One release's stored section 9 cell, decoded (`catalog list` and `catalog providers` read
/// only these cells); a cell that does not decode is a damaged catalog.
///
/// # Errors
/// A product, version or cell that does not decode.
pub fn release_facets(
    path: &str,
    group: &str,
    name: &str,
    version: &str,
    cell: &str,
) -> Result<ReleaseFacets, InputError> {
    let product = ProductId::new(group, name).map_err(|m| damaged(path, &m))?;
    let version = Version::parse(version).map_err(|e| damaged(path, &e.to_string()))?;
    let facets = facet_cell::decode(cell)
        .map_err(|m| damaged(path, &format!("section 9 of {product} {version}: {m}")))?;
    Ok(ReleaseFacets {
        product,
        version,
        facets: Arc::new(facets),
    })
}

/// Product ids read from rows, shared: 200,000 releases name only a few thousand products,
/// and one `ProductId` per row was most of the allocations of a large read. The last one
/// asked for is compared first: release rows come product by product.
#[derive(Default)]
struct Products {
    known: BTreeMap<String, ProductId>,
    key: String,
    last: Option<ProductId>,
}

impl Products {
    fn get(&mut self, group: &str, name: &str) -> Result<ProductId, String> {
        if let Some(last) = self
            .last
            .as_ref()
            .filter(|l| l.group() == group && l.name() == name)
        {
            return Ok(last.clone());
        }
        let id = self.lookup(group, name)?;
        self.last = Some(id.clone());
        Ok(id)
    }

    fn lookup(&mut self, group: &str, name: &str) -> Result<ProductId, String> {
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

/// Rebuilds manifests from rows: first every release row, then the declaration rows of each
/// release in declaration order (any interleaving of releases).
pub struct Decoder<'p> {
    path: &'p str,
    products: Products,
    sources: BTreeMap<String, Arc<str>>,
    /// The file of the last release row.
    last_source: Option<Arc<str>>,
    manifests: BTreeMap<i64, Manifest>,
    /// Section 9 cells decoded so far, by their text: releases that declare the same
    /// things share one [`Facets`] (`None`: the cell declares nothing).
    facets: BTreeMap<Box<str>, Option<Arc<Facets>>>,
}

impl<'p> Decoder<'p> {
    /// A decoder for the catalog at `path` (named in errors).
    #[must_use]
    pub fn new(path: &'p str) -> Self {
        Decoder {
            path,
            products: Products::default(),
            sources: BTreeMap::new(),
            last_source: None,
            manifests: BTreeMap::new(),
            facets: BTreeMap::new(),
        }
    }

    fn damaged(&self, what: &str) -> InputError {
        damaged(self.path, what)
    }

    fn version(&self, text: &str) -> Result<Version, InputError> {
        Version::parse(text).map_err(|e| self.damaged(&e.to_string()))
    }

    fn matcher(&self, text: &str) -> Result<Matcher, InputError> {
        Matcher::parse(text).map_err(|e| self.damaged(&e.to_string()))
    }

    fn product(&mut self, group: &str, name: &str) -> Result<ProductId, InputError> {
        self.products
            .get(group, name)
            .map_err(|m| damaged(self.path, &m))
    }

    /// The manifest a declaration row belongs to.
    fn owner(&mut self, id: i64) -> Result<&mut Manifest, InputError> {
        let path = self.path;
        self.manifests
            .get_mut(&id)
            .ok_or_else(|| damaged(path, &format!("declaration of missing release {id}")))
    }

    /// Release `id`, stored from the file shown as `file`. Rows may borrow their texts from
    /// the driver's row (`S` = `&str`): a large read then copies only what the manifest keeps.
    ///
    /// # Errors
    /// A cell that does not decode.
    pub fn release<S: AsRef<str>>(
        &mut self,
        id: i64,
        file: &str,
        row: ReleaseRow<S>,
    ) -> Result<(), InputError> {
        // the path is copied only the first time a file is seen (rows of one file share it,
        // and come one after another: the last one is compared first, as a lookup among
        // thousands of paths with one long prefix was most of the time spent on them)
        let file = if let Some(last) = self.last_source.as_ref().filter(|l| ***l == *file) {
            Arc::clone(last)
        } else if let Some(known) = self.sources.get(file) {
            Arc::clone(known)
        } else {
            let shared: Arc<str> = Arc::from(file);
            self.sources.insert(file.to_owned(), Arc::clone(&shared));
            shared
        };
        self.last_source = Some(Arc::clone(&file));
        let manifest = Manifest {
            product: self.product(row.group.as_ref(), row.name.as_ref())?,
            version: self.version(row.version.as_ref())?,
            product_type: row.product_type.map(|t| t.as_ref().to_owned()),
            dependencies: Vec::new(),
            incompatibilities: Vec::new(),
            facets: match row.facets.as_ref() {
                Some(cell) => self.facets(cell.as_ref())?,
                None => None,
            },
            issues: Vec::new(),
            file,
            location: location(row.line, row.col),
        };
        self.manifests.insert(id, manifest);
        Ok(())
    }

    /// The section 9 part a cell holds, decoded once per text: on the generated catalog
    /// with capabilities at 5,000 products, 146,746 cells hold 65,893 texts (releases of a
    /// product often declare the same things at the same places), and decoding them was
    /// about two thirds of reading a release.
    fn facets(&mut self, cell: &str) -> Result<Option<Arc<Facets>>, InputError> {
        if let Some(known) = self.facets.get(cell) {
            return Ok(known.clone());
        }
        let decoded = facet_cell::decode(cell).map_err(|m| self.damaged(&m))?;
        let facets = (!decoded.is_empty()).then(|| Arc::new(decoded));
        self.facets.insert(cell.into(), facets.clone());
        Ok(facets)
    }

    /// The next dependency of release `id`.
    ///
    /// # Errors
    /// A cell that does not decode, or no such release.
    pub fn dependency<S: AsRef<str>>(
        &mut self,
        id: i64,
        row: &DependencyRow<S>,
    ) -> Result<(), InputError> {
        let dependency = Dependency {
            product: self.product(row.group.as_ref(), row.name.as_ref())?,
            range: Range::new(
                self.version(row.minimum.as_ref())?,
                self.matcher(row.maximum.as_ref())?,
            ),
            recommended: row
                .recommended
                .as_ref()
                .map(|t| self.version(t.as_ref()))
                .transpose()?,
            optional: row.optional,
            location: location(row.line, row.col),
        };
        self.owner(id)?.dependencies.push(dependency);
        Ok(())
    }

    /// The next incompatibility of release `id`.
    ///
    /// # Errors
    /// A cell that does not decode, or no such release.
    pub fn incompatibility<S: AsRef<str>>(
        &mut self,
        id: i64,
        row: IncompatibilityRow<S>,
    ) -> Result<(), InputError> {
        let incompatibility = Incompatibility {
            product: self.product(row.group.as_ref(), row.name.as_ref())?,
            range: Range {
                minimum: row
                    .minimum
                    .as_ref()
                    .map(|t| self.version(t.as_ref()))
                    .transpose()?,
                maximum: row
                    .maximum
                    .as_ref()
                    .map(|t| self.matcher(t.as_ref()))
                    .transpose()?,
            },
            reason: row.reason.map(|r| r.as_ref().to_owned()),
            location: location(row.line, row.col),
        };
        self.owner(id)?.incompatibilities.push(incompatibility);
        Ok(())
    }

    /// The next issue of release `id`.
    ///
    /// # Errors
    /// A cell that does not decode, or no such release.
    pub fn issue(&mut self, id: i64, row: IssueRow<String>) -> Result<(), InputError> {
        let issue = Issue {
            code: Code::parse(&row.code)
                .ok_or_else(|| self.damaged(&format!("unknown finding code `{}`", row.code)))?,
            message: row.message,
            // one column holds both: a `group:name` is a product, anything else the
            // capability or runtime name of a section 9 entry (which never has a `:`)
            dependency: row
                .dependency
                .as_deref()
                .and_then(|d| ProductId::parse(d).ok()),
            subject: row.dependency.filter(|d| ProductId::parse(d).is_err()),
            location: location(row.line, row.col),
        };
        self.owner(id)?.issues.push(issue);
        Ok(())
    }

    /// The manifests, in release id order.
    #[must_use]
    pub fn finish(self) -> Vec<Manifest> {
        self.manifests.into_values().collect()
    }
}

fn location(line: i64, col: i64) -> Location {
    Location::new(
        u32::try_from(line).unwrap_or(0),
        u32::try_from(col).unwrap_or(0),
    )
}

/// A listing from `(group, name, version)` rows sorted by product, then version order: each
/// product once, with its versions as stored.
///
/// # Errors
/// The first row that could not be read, or a product that does not decode.
pub fn listing(
    path: &str,
    rows: impl IntoIterator<Item = Result<(String, String, String), InputError>>,
) -> Result<Listing, InputError> {
    let mut out: Listing = Vec::new();
    for row in rows {
        let (group, name, version) = row?;
        let id = ProductId::new(&group, &name).map_err(|m| damaged(path, &m))?;
        match out.last_mut() {
            Some((last, versions)) if *last == id => versions.push(version),
            _ => out.push((id, vec![version])),
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::loader;

    /// What a backend does: store the rows, read them back, decode them.
    fn round_trip(manifests: &[Manifest]) -> Vec<Manifest> {
        let mut decoder = Decoder::new("test.db");
        for (id, m) in (0..).zip(manifests) {
            let rows = encode(m);
            decoder.release(id, &m.file, rows.release).unwrap();
            for row in &rows.dependencies {
                decoder.dependency(id, row).unwrap();
            }
            for row in rows.incompatibilities {
                decoder.incompatibility(id, row).unwrap();
            }
            for i in rows.issues {
                let row = IssueRow {
                    code: i.code.into_owned(),
                    message: i.message.into_owned(),
                    dependency: i.dependency.map(Cow::into_owned),
                    line: i.line,
                    col: i.col,
                };
                decoder.issue(id, row).unwrap();
            }
        }
        decoder.finish()
    }

    #[test]
    fn rows_give_back_the_manifests_they_were_made_of() {
        let manifests = loader::read_manifest_paths(&[
            "testdata/examples/catalog".into(),
            "testdata/cases/warnings/catalog".into(),
        ])
        .unwrap();
        assert!(manifests.iter().any(|m| !m.issues.is_empty()));
        assert!(manifests.iter().any(|m| !m.incompatibilities.is_empty()));
        let back = round_trip(&manifests);
        assert_eq!(format!("{manifests:?}"), format!("{back:?}"));
    }

    /// Releases whose section 9 cells are the same text share one decoded part; a cell of
    /// another text is decoded on its own, and one that declares nothing gives none.
    #[test]
    fn equal_section_9_cells_are_decoded_once() {
        fn row<'s>(version: &'s str, facets: Option<&'s str>) -> ReleaseRow<&'s str> {
            ReleaseRow {
                group: "g",
                name: "a",
                version,
                product_type: None,
                line: 1,
                col: 1,
                facets,
            }
        }
        let tier = |t: &str| format!(r#"{{"v":1,"properties":{{"tier":{{"s":"{t}"}}}}}}"#);
        let (gold, silver) = (tier("gold"), tier("silver"));
        let mut decoder = Decoder::new("c.db");
        decoder
            .release(1, "a.yml", row("1.0.0", Some(&gold)))
            .unwrap();
        decoder
            .release(2, "a.yml", row("1.1.0", Some(&gold)))
            .unwrap();
        decoder
            .release(3, "a.yml", row("1.2.0", Some(&silver)))
            .unwrap();
        decoder
            .release(4, "a.yml", row("1.3.0", Some(r#"{"v":1}"#)))
            .unwrap();
        let back = decoder.finish();
        let facets: Vec<Option<&Arc<Facets>>> = back.iter().map(|m| m.facets.as_ref()).collect();
        let (Some(a), Some(b), Some(c), None) = (facets[0], facets[1], facets[2], facets[3]) else {
            panic!("{facets:?}");
        };
        assert!(Arc::ptr_eq(a, b));
        assert!(!Arc::ptr_eq(a, c));
        assert_eq!(a.properties.len(), 1);
        assert_ne!(a.properties, c.properties);
    }

    #[test]
    fn cells_that_do_not_decode_are_a_damaged_catalog() {
        let mut decoder = Decoder::new("c.db");
        let row = ReleaseRow {
            group: "g".to_owned(),
            name: "a".to_owned(),
            version: "1.x.0".to_owned(),
            product_type: None,
            line: 1,
            col: 1,
            facets: None,
        };
        let error = decoder.release(1, "a.yml", row).unwrap_err();
        assert!(
            error
                .to_string()
                .starts_with("c.db: cannot read: damaged catalog: "),
            "{error}"
        );
        let issue = IssueRow {
            code: "unknown-key".to_owned(),
            message: String::new(),
            dependency: None,
            line: 1,
            col: 1,
        };
        assert_eq!(
            decoder.issue(7, issue).unwrap_err().to_string(),
            "c.db: cannot read: damaged catalog: declaration of missing release 7"
        );
    }
}
