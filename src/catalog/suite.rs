//! The one test suite every catalog backend passes, through the traits only: the same example
//! catalog in a directory, imported into a catalog file and into a PostgreSQL database must
//! answer every scope, listing and lookup alike. A new backend adds one line to [`backends`].
//! PostgreSQL takes part when a test server is set (`postgres::testing`; required in CI).

use std::path::PathBuf;

use super::postgres::testing;
use super::scratch::Scratch;
use super::{Batch, Catalog, CatalogSource, CatalogStore, Location, Scope};
use crate::loader;
use crate::product::ProductId;
use crate::version::Version;

const EXAMPLES: &str = "testdata/examples/catalog";

fn id(text: &str) -> ProductId {
    ProductId::parse(text).unwrap()
}

fn version(text: &str) -> Version {
    Version::parse(text).unwrap()
}

fn batch() -> Batch {
    let (files, unreadable) = loader::read_sources_and_errors(&[PathBuf::from(EXAMPLES)]);
    Batch::check(files, unreadable).unwrap()
}

/// A fresh catalog file holding the examples, removed when the guard is dropped.
fn imported(name: &str) -> Scratch {
    let db = Scratch::new(&format!("suite-{name}.db"));
    let mut store = Location::Sqlite(db.path().to_owned())
        .create_store()
        .unwrap();
    let summary = store.import(&batch(), false).unwrap();
    assert_eq!(summary.added, 27);
    db
}

/// A fresh PostgreSQL catalog holding the examples, when there is a test server.
fn imported_postgres(name: &str) -> Option<Location> {
    let location = Location::Postgres(testing::fresh(&format!("suite_{name}"))?);
    let summary = location
        .create_store()
        .unwrap()
        .import(&batch(), false)
        .unwrap();
    assert_eq!(summary.added, 27);
    Some(location)
}

/// Every backend, holding the examples, by name (the catalog file lives as long as the
/// guard).
fn backends(name: &str) -> (Scratch, Vec<(&'static str, Location)>) {
    let db = imported(name);
    let mut all = vec![
        ("directory", Location::Directory(PathBuf::from(EXAMPLES))),
        ("sqlite", Location::Sqlite(db.path().to_owned())),
    ];
    all.extend(imported_postgres(name).map(|location| ("postgres", location)));
    (db, all)
}

/// The releases of a catalog as `product version` lines.
fn releases(catalog: &Catalog) -> Vec<String> {
    catalog
        .products()
        .flat_map(|p| catalog.releases(p))
        .map(|m| m.release_name())
        .collect()
}

fn contains(catalog: &Catalog, release: &str) -> bool {
    let (p, v) = release.split_once('@').unwrap();
    catalog.release(&id(p), &version(v)).is_some()
}

#[test]
fn every_backend_answers_every_scope() {
    let all = Location::Directory(EXAMPLES.into())
        .open()
        .unwrap()
        .load_all()
        .unwrap();
    let everything = releases(&all);
    assert_eq!(everything.len(), 27);
    let (_db, all_backends) = backends("scopes");
    for (backend, location) in all_backends {
        let source: Box<dyn CatalogSource> = location.open().unwrap();
        assert_eq!(
            releases(&source.load(&Scope::All).unwrap()),
            everything,
            "{backend}"
        );

        let wanted = Scope::Releases(vec![
            (id("com.example:api"), version("01.1.0")),
            (id("io.redis:redis"), version("9.9.9")),
        ]);
        let found = source.load(&wanted).unwrap();
        assert!(contains(&found, "com.example:api@1.1.0"), "{backend}");

        let web = id("com.example:web");
        let floor = version("2.4.0");
        let floors = [(web.clone(), Some(floor.clone()))].into_iter().collect();
        let found = source
            .load(&Scope::Products {
                floors,
                closure: false,
            })
            .unwrap();
        let from_floor: Vec<&Version> = all
            .releases(&web)
            .iter()
            .map(|m| &m.version)
            .filter(|v| **v >= floor)
            .collect();
        assert_eq!(from_floor.len(), 3);
        for v in from_floor {
            assert!(found.release(&web, v).is_some(), "{backend}: {v}");
        }

        // The closure reaches every product the web releases depend on, transitively.
        let floors = [(web.clone(), None)].into_iter().collect();
        let closed = source
            .load(&Scope::Products {
                floors,
                closure: true,
            })
            .unwrap();
        for m in closed.products().flat_map(|p| closed.releases(p)) {
            for d in &m.dependencies {
                assert_eq!(
                    closed.releases(&d.product).len(),
                    all.releases(&d.product).len(),
                    "{backend}: {} is closed over",
                    d.product
                );
            }
        }
        assert!(closed.products().count() > 1, "{backend}");
    }
}

/// The scopes commands ask of the examples: each environment's `upgrades` scope under every
/// pair of flags, one product from a floor, from a non-orderable floor and whole, releases by
/// name.
fn asked_scopes(dir: &str) -> Vec<Scope> {
    let mut scopes = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        if !name.starts_with("env") || path.extension().is_none_or(|e| e != "yml") {
            continue;
        }
        let env = loader::read_environment(&path).unwrap();
        for (downgrade, install) in [(false, false), (true, false), (false, true), (true, true)] {
            scopes.push(Scope::upgrades(&env, [], downgrade, install));
        }
    }
    let db = id("org.postgresql:postgresql");
    for floor in [Some(version("9.6.1")), Some(version("9.6.1-hotfix")), None] {
        for closure in [false, true] {
            let floors = [(db.clone(), floor.clone())].into_iter().collect();
            scopes.push(Scope::Products { floors, closure });
        }
    }
    scopes.push(Scope::Releases(vec![
        (id("com.example:api"), version("01.1.0")),
        (id("io.redis:redis"), version("9.9.9")),
    ]));
    scopes.push(Scope::All);
    scopes
}

/// A catalog held whole (a directory's) narrowed to a scope in memory holds exactly what the
/// databases read for it: `upgrades` over a directory then asks its explanations' questions
/// of the same releases, and reads more in the same rounds, as over a database. Over the
/// examples, and over them with the capability examples imported on top (closures that
/// follow capability providers).
#[test]
fn a_catalog_held_whole_narrows_to_what_the_databases_read() {
    let (_db, all_backends) = backends("narrowed");
    let (_caps, capability_backends) = capability_stores("narrowed_caps");
    let stores = all_backends
        .into_iter()
        .filter(|(backend, _)| *backend != "directory")
        .map(|(backend, location)| (backend, location, "testdata/examples"))
        .chain(
            capability_backends
                .into_iter()
                .map(|location| ("with capabilities", location, CAPABILITIES_ENVS)),
        );
    let mut narrower = 0;
    for (backend, location, envs) in stores {
        let source = location.open().unwrap();
        let whole = source.load_all().unwrap();
        let scopes = asked_scopes(envs);
        assert!(scopes.len() > 10, "{envs}");
        for scope in &scopes {
            let read = releases(&source.load(scope).unwrap());
            assert_eq!(releases(&whole.scoped(scope)), read, "{backend}: {scope:?}");
            narrower += usize::from(read.len() < releases(&whole).len());
        }
    }
    assert!(
        narrower > 10,
        "only {narrower} scopes read less than everything"
    );
}

#[test]
fn every_backend_lists_and_shows_alike() {
    let mut answers = Vec::new();
    let (_db, all_backends) = backends("lists");
    for (backend, location) in all_backends {
        let store: Box<dyn CatalogStore> = location.open_store().unwrap();
        let all = store.list(None).unwrap();
        let one = store.list(Some(&id("com.example:api"))).unwrap();
        assert_eq!(one.len(), 1, "{backend}");
        assert!(
            store.list(Some(&id("g:none"))).unwrap().is_empty(),
            "{backend}"
        );
        let shown = store
            .release(&id("com.example:api"), &version("01.1.0"))
            .unwrap()
            .unwrap();
        assert_eq!(
            shown.version.as_str(),
            "1.1.0",
            "{backend}: by version equality"
        );
        assert!(
            store
                .release(&id("com.example:api"), &version("9.9.9"))
                .unwrap()
                .is_none(),
            "{backend}"
        );
        answers.push((all, one, format!("{shown:?}")));
    }
    assert!(answers.windows(2).all(|w| w[0] == w[1]));
}

#[test]
fn directories_refuse_imports_and_catalog_files_take_a_batch_once() {
    let directory = Location::Directory(EXAMPLES.into());
    let refused = |error: &dyn std::error::Error| {
        assert_eq!(
            error.to_string(),
            "testdata/examples/catalog: cannot write: expected a catalog file to import into, \
             found a catalog directory (compat only reads those)"
        );
    };
    match directory.create_store() {
        Ok(_) => panic!("a directory was opened for an import"),
        Err(error) => refused(&error),
    }
    let opened = directory.open_store().unwrap().import(&batch(), false);
    refused(&opened.unwrap_err());

    let db = imported("imports");
    let stores =
        std::iter::once(Location::Sqlite(db.path().to_owned())).chain(imported_postgres("imports"));
    for store in stores {
        let again = store
            .create_store()
            .unwrap()
            .import(&batch(), false)
            .unwrap();
        assert_eq!(
            (again.added, again.unchanged, again.replaced),
            (0, 27, 0),
            "{store}"
        );
    }
}

const CAPABILITIES: &str = "testdata/examples/capabilities/catalog";

/// The environments of the capability examples.
const CAPABILITIES_ENVS: &str = "testdata/examples/capabilities";

/// Every release's section 9 part, as `product version: facets`.
fn facets(catalog: &Catalog) -> Vec<String> {
    catalog
        .products()
        .flat_map(|p| catalog.releases(p))
        .map(|m| format!("{}: {:?}", m.release_name(), m.facets))
        .collect()
}

/// `(catalog list PRODUCT, catalog providers NAME with a range)` pairs to ask every backend.
fn section_9_questions() -> Vec<(Option<ProductId>, &'static str, crate::range::Range)> {
    let range = |min: Option<&str>, max: Option<&str>| crate::range::Range {
        minimum: min.map(version),
        maximum: max.map(|m| crate::matcher::Matcher::parse(m).unwrap()),
    };
    vec![
        (None, "sql", range(None, None)),
        (
            Some(id("com.example:cache")),
            "cache",
            range(Some("2.0.0"), Some("2.4.x")),
        ),
        (
            Some(id("com.example:redis")),
            "legacy-auth",
            range(None, None),
        ),
        (None, "legacy-auth", range(Some("0.0.1"), None)),
        (
            None,
            "etcd.database.coreos.com/v1beta2/etcdbackup",
            range(None, Some("1.x.x")),
        ),
    ]
}

#[test]
fn section_9_survives_an_import_and_a_read() {
    let (files, unreadable) = loader::read_sources_and_errors(&[PathBuf::from(CAPABILITIES)]);
    let batch = Batch::check(files, unreadable).unwrap();
    let directory = Location::Directory(CAPABILITIES.into())
        .open()
        .unwrap()
        .load_all()
        .unwrap();
    let expected = facets(&directory);
    assert_eq!(expected.len(), 17);
    let dir_store = Location::Directory(CAPABILITIES.into())
        .open_store()
        .unwrap();
    assert_eq!(dir_store.facets(None).unwrap().len(), 15);
    assert_eq!(
        dir_store
            .providers("cache", &section_9_questions()[1].2)
            .unwrap()
            .len(),
        2
    );
    assert!(expected.iter().filter(|f| f.ends_with("None")).count() < 5);
    let db = Scratch::new("suite-facets.db");
    let stores = std::iter::once(Location::Sqlite(db.path().to_owned()))
        .chain(testing::fresh("suite_facets").map(Location::Postgres));
    for location in stores {
        let summary = location
            .create_store()
            .unwrap()
            .import(&batch, false)
            .unwrap();
        assert_eq!(summary.added, 17, "{location}");
        let read = location.open().unwrap().load(&Scope::All).unwrap();
        assert_eq!(facets(&read), expected, "{location}");
        // `catalog list` and `catalog providers` answer as the directory does
        let store = location.open_store().unwrap();
        for (product, name, range) in section_9_questions() {
            assert_eq!(
                store.facets(product.as_ref()).unwrap(),
                dir_store.facets(product.as_ref()).unwrap(),
                "{location} {product:?}"
            );
            assert_eq!(
                store.providers(name, &range).unwrap(),
                dir_store.providers(name, &range).unwrap(),
                "{location} {name} {range:?}"
            );
        }
        // the same manifests again are unchanged, section 9 included
        let again = location
            .create_store()
            .unwrap()
            .import(&batch, false)
            .unwrap();
        assert_eq!((again.added, again.unchanged), (0, 17), "{location}");
    }
}

const INSTANCES: &str = "testdata/instances/catalog";

#[test]
fn section_10_survives_an_import_and_a_read() {
    let (files, unreadable) = loader::read_sources_and_errors(&[PathBuf::from(INSTANCES)]);
    let batch = Batch::check(files, unreadable).unwrap();
    let directory = Location::Directory(INSTANCES.into())
        .open()
        .unwrap()
        .load_all()
        .unwrap();
    let expected = facets(&directory);
    let web = directory
        .release(&id("com.example:web"), &version("2.3.0"))
        .unwrap();
    assert_eq!(web.facets().inputs.len(), 2);
    assert_eq!(web.facets().instances.len(), 1);
    assert!(web.facets().requires[0].instance.is_some());
    let worker = directory
        .release(&id("com.example:worker"), &version("1.0.0"))
        .unwrap();
    assert!(worker.facets.is_none());
    let dir_store = Location::Directory(INSTANCES.into()).open_store().unwrap();
    let scratch = Scratch::new("suite-instances.db");
    let db = scratch.path().to_owned();
    let stores = std::iter::once(Location::Sqlite(db.clone()))
        .chain(testing::fresh("suite_instances").map(Location::Postgres));
    for location in stores {
        let summary = location
            .create_store()
            .unwrap()
            .import(&batch, false)
            .unwrap();
        assert_eq!(summary.added, 3, "{location}");
        let read = location.open().unwrap().load(&Scope::All).unwrap();
        assert_eq!(facets(&read), expected, "{location}");
        let store = location.open_store().unwrap();
        assert_eq!(
            store.facets(None).unwrap(),
            dir_store.facets(None).unwrap(),
            "{location}"
        );
        let again = location
            .create_store()
            .unwrap()
            .import(&batch, false)
            .unwrap();
        assert_eq!((again.added, again.unchanged), (0, 3), "{location}");
    }
    // a cell written before section 10 (format 1) still reads
    {
        let conn = rusqlite::Connection::open(&db).unwrap();
        let old = "{\"v\":1,\"provides\":[{\"name\":\"sql\",\"version\":\"15.2.0\",\"at\":[8,9]}]}";
        conn.execute("UPDATE release SET facets = ?1 WHERE facets LIKE '%connection-string%' AND facets NOT LIKE '%inputs%'", [old])
            .unwrap();
    }
    let read = Location::Sqlite(db)
        .open()
        .unwrap()
        .load(&Scope::All)
        .unwrap();
    let pg = read
        .release(&id("org.postgresql:postgresql"), &version("15.2.0"))
        .unwrap();
    assert_eq!(pg.facets().provides[0].name, "sql");
    assert!(pg.facets().outputs.is_empty());
}

#[test]
fn a_catalog_file_of_schema_1_keeps_working_and_an_import_migrates_it() {
    let scratch = imported("schema1");
    let db = scratch.path().to_owned();
    {
        // what a catalog made before section 9 looks like
        let conn = rusqlite::Connection::open(&db).unwrap();
        conn.execute_batch(
            "DROP TABLE provision; ALTER TABLE release DROP COLUMN facets; \
             PRAGMA user_version = 1;",
        )
        .unwrap();
    }
    let location = Location::Sqlite(db.clone());
    let read = location.open().unwrap().load(&Scope::All).unwrap();
    assert_eq!(releases(&read).len(), 27);
    let store = location.open_store().unwrap();
    assert!(store.facets(None).unwrap().is_empty());
    assert!(
        store
            .providers("sql", &section_9_questions()[0].2)
            .unwrap()
            .is_empty()
    );
    drop(store);
    let (files, unreadable) = loader::read_sources_and_errors(&[PathBuf::from(CAPABILITIES)]);
    let batch = Batch::check(files, unreadable).unwrap();
    let summary = location
        .create_store()
        .unwrap()
        .import(&batch, true)
        .unwrap();
    // com.example:web 3.0.0 is in both example catalogs: replaced
    assert_eq!((summary.added, summary.replaced), (16, 1));
    let read = location.open().unwrap().load(&Scope::All).unwrap();
    assert_eq!(releases(&read).len(), 43);
    let web = read
        .release(&id("com.example:web"), &version("3.0.0"))
        .unwrap();
    assert_eq!(web.facets().requires[0].name, "sql");
    let conn = rusqlite::Connection::open(&db).unwrap();
    let schema: i64 = conn
        .query_row("PRAGMA user_version", [], |row| row.get(0))
        .unwrap();
    assert_eq!(schema, 4);
}

/// Runs `sqlite` on a catalog file or `postgres` on a PostgreSQL catalog (statements that
/// make a catalog look older or damaged; PostgreSQL's with the schema `compat` on the search
/// path, so a table is named as in SQLite), then answers `count`, a query for one number.
fn tamper(location: &Location, sqlite: &str, postgres: &str, count: &str) -> i64 {
    match location {
        Location::Sqlite(db) => {
            let conn = rusqlite::Connection::open(db).unwrap();
            conn.execute_batch(sqlite).unwrap();
            conn.query_row(count, [], |row| row.get(0)).unwrap()
        }
        Location::Postgres(url) => {
            let mut client = url.config().unwrap().connect(::postgres::NoTls).unwrap();
            client.batch_execute("SET search_path = compat").unwrap();
            client.batch_execute(postgres).unwrap();
            client.query_one(count, &[]).unwrap().get(0)
        }
        Location::Directory(_) => unreachable!("a directory is not tampered with"),
    }
}

/// Schema 4, in both databases: cells stored by a compat that did not read section 10
/// (format 1 cells, without outputs, inputs or instance criteria; schema 3) are read as they
/// are, and the next import writes them again from the stored sources, after which
/// importing the same manifests again changes nothing.
#[test]
fn cells_stored_before_section_10_are_written_again_from_their_sources() {
    let db = Scratch::new("suite-section-10.db");
    let mut stores = vec![Location::Sqlite(db.path().to_owned())];
    stores.extend(testing::fresh("suite_section_10").map(Location::Postgres));
    let batch = || {
        let catalog = PathBuf::from("testdata/instances/capability-wiring/catalog");
        let (files, unreadable) = loader::read_sources_and_errors(&[catalog]);
        Batch::check(files, unreadable).unwrap()
    };
    let app = id("g:app");
    for location in stores {
        location
            .create_store()
            .unwrap()
            .import(&batch(), false)
            .unwrap();
        let inputs = || {
            let all = location.open().unwrap().load(&Scope::All).unwrap();
            all.releases(&app)[0].facets().inputs.len()
        };
        assert_eq!(inputs(), 1, "{location}");
        let releases = tamper(
            &location,
            "UPDATE release SET facets = json_set(json_remove(facets, '$.inputs', '$.outputs'),
                                                  '$.v', 1)
             WHERE facets IS NOT NULL;
             UPDATE release SET facets = NULL WHERE facets = '{\"v\":1}';
             PRAGMA user_version = 3;",
            "UPDATE release SET facets = ((facets::jsonb - 'inputs' - 'outputs')
                                          || '{\"v\":1}'::jsonb)::text
             WHERE facets IS NOT NULL;
             UPDATE release SET facets = NULL WHERE facets::jsonb = '{\"v\":1}'::jsonb;
             DELETE FROM schema_migration WHERE version >= 4;",
            "SELECT count(*) FROM release",
        );
        assert!(releases > 0, "{location}");
        assert_eq!(schema(&location), 3, "{location}");
        assert_eq!(inputs(), 0, "{location}: the old cell, read as it is");
        let notices = location.open().unwrap().notices();
        assert!(
            notices.len() == 1 && notices[0].contains("catalog schema 3 was written before"),
            "{location}: {notices:?}"
        );
        let again = location
            .create_store()
            .unwrap()
            .import(&batch(), false)
            .unwrap();
        assert_eq!(inputs(), 1, "{location}: written again from the source");
        assert_eq!(again.added, 0, "{location}");
        assert_eq!(schema(&location), 4, "{location}");
        assert_eq!(location.open().unwrap().notices(), Vec::<String>::new());
    }
}

/// The schema version of a catalog file or a PostgreSQL catalog.
fn schema(location: &Location) -> i64 {
    let query = match location {
        Location::Sqlite(_) => "SELECT user_version FROM pragma_user_version",
        _ => "SELECT max(version)::bigint FROM schema_migration",
    };
    tamper(location, "", "", query)
}

/// A fresh catalog file (living as long as the guard) and, when there is a test server, a
/// fresh PostgreSQL catalog, both holding the examples and then the capability examples.
fn capability_stores(name: &str) -> (Scratch, Vec<Location>) {
    let db = imported(name);
    let mut out = vec![Location::Sqlite(db.path().to_owned())];
    out.extend(imported_postgres(name));
    for location in &out {
        location
            .create_store()
            .unwrap()
            .import(&capabilities(), true)
            .unwrap();
    }
    (db, out)
}

fn capabilities() -> Batch {
    let (files, unreadable) = loader::read_sources_and_errors(&[PathBuf::from(CAPABILITIES)]);
    Batch::check(files, unreadable).unwrap()
}

/// The `providers` answers of [`section_9_questions`], as text.
fn provider_answers(location: &Location) -> Vec<String> {
    let store = location.open_store().unwrap();
    section_9_questions()
        .iter()
        .map(|(_, name, range)| format!("{:?}", store.providers(name, range).unwrap()))
        .collect()
}

/// Schema 3 adds the `provision` index (to both databases): a catalog of schema 2 answers
/// `providers` from the cells that name the capability, an import fills the index from the
/// cells already stored, and both ways give the same answers, the index's read through it.
#[test]
fn a_catalog_of_schema_2_answers_providers_before_and_after_its_index() {
    let (_db, stores) = capability_stores("schema2");
    for location in stores {
        let indexed = provider_answers(&location);
        assert!(
            indexed.iter().any(|a| a.contains("mysql")),
            "{location}: {indexed:?}"
        );
        // what a catalog made before the index looks like
        tamper(
            &location,
            "DROP TABLE provision; PRAGMA user_version = 2;",
            "DROP TABLE provision; DELETE FROM schema_migration WHERE version >= 3;",
            "SELECT count(*) FROM release",
        );
        assert_eq!(
            provider_answers(&location),
            indexed,
            "{location}: schema 2, read from the cells"
        );
        let summary = location
            .create_store()
            .unwrap()
            .import(&capabilities(), true)
            .unwrap();
        assert_eq!(summary.added, 0, "{location}");
        assert_eq!(
            provider_answers(&location),
            indexed,
            "{location}: migrated, read from the index"
        );
        let rows = tamper(&location, "", "", "SELECT count(*) FROM provision");
        assert!(
            rows > 5,
            "{location}: the migration filled the index from the cells: {rows}"
        );
        if let Location::Sqlite(db) = &location {
            let conn = rusqlite::Connection::open(db).unwrap();
            let plan: String = conn
                .query_row(
                    "EXPLAIN QUERY PLAN SELECT release_id FROM provision WHERE capability = 'sql'",
                    [],
                    |row| row.get(3),
                )
                .unwrap();
            assert!(plan.contains("USING"), "{plan}");
        }
    }
}

/// `providers` and the `--allow-install` closure's `providing` read only the releases the
/// index names (a damaged cell of a release that provides nothing asked for is never read),
/// and the index follows a replaced release.
#[test]
fn providers_come_from_the_index_and_follow_replacements() {
    let sql = &section_9_questions()[0].2;
    let (_db, stores) = capability_stores("index");
    for location in stores {
        let before = location
            .open_store()
            .unwrap()
            .providers("sql", sql)
            .unwrap();
        let names = |rows: &[super::Providing]| -> Vec<String> {
            rows.iter()
                .map(|p| format!("{} {}", p.product, p.version))
                .collect()
        };
        assert_eq!(
            names(&before),
            [
                "com.example:mariadb 11.4.0",
                "com.example:mysql 5.7.0",
                "com.example:mysql 8.0.0"
            ],
            "{location}"
        );
        // com.example:web requires `sql` and provides nothing
        let damage = "UPDATE release SET facets = '{\"v\":99}' WHERE product_name = 'web'";
        tamper(&location, damage, damage, "SELECT count(*) FROM release");
        let store = location.open_store().unwrap();
        assert!(
            store.facets(None).is_err(),
            "{location}: the damaged cell is there to be read"
        );
        assert_eq!(store.providers("sql", sql).unwrap(), before, "{location}");
        assert_eq!(
            location.open().unwrap().providing("sql").unwrap(),
            [id("com.example:mariadb"), id("com.example:mysql")],
            "{location}"
        );
        drop(store);
        // mysql 8.0.0 replaced by a release that provides `sql-ng` instead
        let scratch = Scratch::new(&format!(
            "suite-index-{}",
            matches!(location, Location::Postgres(_))
        ));
        let dir = scratch.path().to_owned();
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(
            dir.join("mysql.yml"),
            "manifest-version: '1.0'\nproduct-group: com.example\nproduct-name: mysql\n\
             product-version: 8.0.0\nextensions:\n  capabilities:\n    provides:\n      \
             - name: sql-ng\n        version: 8.0.0\n",
        )
        .unwrap();
        let (files, unreadable) = loader::read_sources_and_errors(std::slice::from_ref(&dir));
        let summary = location
            .create_store()
            .unwrap()
            .import(&Batch::check(files, unreadable).unwrap(), true)
            .unwrap();
        assert_eq!(summary.replaced, 1, "{location}");
        let store = location.open_store().unwrap();
        assert_eq!(
            names(&store.providers("sql", sql).unwrap()),
            ["com.example:mariadb 11.4.0", "com.example:mysql 5.7.0"],
            "{location}"
        );
        assert_eq!(
            names(&store.providers("sql-ng", sql).unwrap()),
            ["com.example:mysql 8.0.0", "com.example:mysql 9.0.0"],
            "{location}"
        );
        let orphans = tamper(
            &location,
            "",
            "",
            "SELECT count(*) FROM provision p WHERE NOT EXISTS \
             (SELECT 1 FROM release r WHERE r.id = p.release_id)",
        );
        assert_eq!(
            orphans, 0,
            "{location}: the replaced release left the index"
        );
        let _ = std::fs::remove_dir_all(&dir);
    }
}
