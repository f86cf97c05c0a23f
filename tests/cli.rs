//! End-to-end tests of the real binary: each `testdata/cli/NAME.toml` gives the arguments,
//! stdin and exit code; `NAME.stdout` / `NAME.stderr` the exact expected output. Run with
//! `TRYCMD=overwrite` to rewrite the expected files after an intended change, then review the
//! diff.

#[test]
fn cli_cases() {
    trycmd::TestCases::new()
        .register_bin("compat", trycmd::cargo::cargo_bin!("compat"))
        .case("testdata/cli/*.toml");
}

/// Runs the real binary.
fn compat(args: &[&str]) -> std::process::Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_compat"))
        .args(args)
        .output()
        .expect("the binary runs")
}

/// Asserts a run exited 0, showing what it printed otherwise.
#[track_caller]
fn assert_succeeded(out: &std::process::Output) {
    assert_eq!(
        out.status.code(),
        Some(0),
        "stdout:\n{}\nstderr:\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// A fresh scratch directory for one test, removed when the test is done with it (bind it
/// to a name: a temporary is dropped, and its directory removed, at the end of its line).
fn scratch(name: &str) -> Scratch {
    let dir = std::env::temp_dir().join(format!("compat-test-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    Scratch(dir)
}

/// A directory removed on drop (see [`scratch`]).
struct Scratch(std::path::PathBuf);

impl std::ops::Deref for Scratch {
    type Target = std::path::Path;
    fn deref(&self) -> &std::path::Path {
        &self.0
    }
}

impl AsRef<std::path::Path> for Scratch {
    fn as_ref(&self) -> &std::path::Path {
        &self.0
    }
}

impl AsRef<std::ffi::OsStr> for Scratch {
    fn as_ref(&self) -> &std::ffi::OsStr {
        self.0.as_os_str()
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

#[path = "cli/schemas.rs"]
mod schemas;

#[path = "cli/terminal.rs"]
mod terminal;

#[path = "cli/postgres.rs"]
mod postgres;

#[path = "cli/fleet.rs"]
mod fleet;

#[path = "cli/html.rs"]
mod html;

#[path = "cli/help_examples.rs"]
mod help_examples;

#[path = "cli/providers.rs"]
mod providers;

mod catalog {
    //! Catalog database flows that need several commands and a scratch directory.

    use super::{compat, scratch};
    use std::fs;
    use std::path::{Path, PathBuf};
    use std::process::{Command, Output, Stdio};
    use std::time::{Duration, Instant};

    fn path(p: &Path) -> &str {
        p.to_str().unwrap()
    }

    fn import(dirs: &[&str], db: &Path) -> Output {
        let mut args = vec!["catalog", "import"];
        args.extend_from_slice(dirs);
        args.extend_from_slice(&["--db", path(db)]);
        compat(&args)
    }

    /// A scratch directory holding `c.db`, the example catalog imported into it.
    fn imported(name: &str) -> (crate::Scratch, PathBuf) {
        let dir = scratch(name);
        let db = dir.join("c.db");
        assert_eq!(
            import(&["testdata/examples/catalog"], &db).status.code(),
            Some(0)
        );
        (dir, db)
    }

    /// A database layer under a directory layer reads as the two directories do (the
    /// database read only for the command's scope, closures followed across layers), and a
    /// release the layers describe differently is exit 3 naming both catalogs.
    #[test]
    fn a_database_layer_reads_like_the_directory_it_was_imported_from() {
        let (_dir, db) = imported("layers");
        let env = "testdata/examples/env-valid.yml";
        for command in [
            vec!["upgrades", "-f", "json"],
            vec!["plan", "--all", "--allow-install", "-f", "json"],
            vec!["validate", "-f", "json"],
            vec!["order", "-f", "json"],
        ] {
            let run = |base: &str| {
                let mut args = vec![command[0], env, "--catalog", base];
                args.extend(["--catalog", "testdata/cases/layers/extra"]);
                args.extend(&command[1..]);
                compat(&args)
            };
            let (from_db, from_dir) = (run(path(&db)), run("testdata/examples/catalog"));
            assert_eq!(from_db.status.code(), from_dir.status.code(), "{command:?}");
            assert_eq!(
                String::from_utf8_lossy(&from_db.stdout),
                String::from_utf8_lossy(&from_dir.stdout),
                "{command:?}"
            );
        }
        let clash = compat(&[
            "upgrades",
            env,
            "--catalog",
            path(&db),
            "--catalog",
            "testdata/cases/layers/conflict",
        ]);
        assert_eq!(clash.status.code(), Some(3));
        assert!(clash.stdout.is_empty());
        let stderr = String::from_utf8_lossy(&clash.stderr);
        assert!(
            stderr.contains(&format!("of catalog `{}`", db.display()))
                && stderr.contains("testdata/cases/layers/conflict/api-1.1.0.yml:5:18")
                && stderr.contains("at testdata/examples/catalog/api/api-1.1.0.yml:5:18"),
            "{stderr}"
        );
    }

    /// An infeasible plan's fixes carry the size of the plan their flags give: the steps of
    /// `plan` run again with those flags, from a directory and from a database (where the
    /// relaxed plan reads the older releases it needs again).
    #[test]
    fn a_fix_says_how_many_steps_the_plan_with_its_flags_has() {
        let dir = scratch("fix-size");
        let db_older = dir.join("older.db");
        assert_eq!(
            import(&["testdata/cases/explain-older/catalog"], &db_older)
                .status
                .code(),
            Some(0)
        );
        let cases = [
            (
                "testdata/cases/plan/env.yml",
                "testdata/cases/plan/catalog",
                "g:app@2.0.0",
            ),
            (
                "testdata/cases/explain-older/env.yml",
                "testdata/cases/explain-older/catalog",
                "g:app@3.0.0",
            ),
            (
                "testdata/cases/explain-older/env.yml",
                path(&db_older),
                "g:app@3.0.0",
            ),
        ];
        for (env, catalog, target) in cases {
            let plan = |flags: &[&str]| {
                let mut args = vec!["plan", env, "--catalog", catalog, "--target", target];
                args.extend(flags);
                args.extend(["-f", "json"]);
                let out = compat(&args);
                serde_json::from_slice::<serde_json::Value>(&out.stdout).unwrap()
            };
            let infeasible = plan(&[]);
            assert_eq!(infeasible["feasible"], false, "{env} {catalog}");
            let fixes = infeasible["explanation"]["fixes"].as_array().unwrap();
            assert!(!fixes.is_empty(), "{env} {catalog}");
            for fix in fixes {
                let flags: Vec<&str> = fix["flags"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|f| f.as_str().unwrap())
                    .collect();
                let relaxed = plan(&flags);
                assert_eq!(relaxed["feasible"], true, "{flags:?}");
                let steps = relaxed["steps"].as_array().unwrap().len();
                assert_eq!(fix["plan_size"], steps, "{env} {catalog} {flags:?}");
                assert!(
                    fix["text"]
                        .as_str()
                        .unwrap()
                        .ends_with(&format!("; a plan of {steps} steps)")),
                    "{fix}"
                );
            }
        }
    }

    /// An environment read from stdin (`-`) gives the reports the file gives, with a
    /// database that explanations read again (they reuse the environment already read).
    #[test]
    fn an_environment_from_stdin_reads_like_its_file() {
        use std::io::Write;
        let (_dir, db) = imported("stdin");
        let env = "testdata/cases/explain-older/env.yml";
        let text = fs::read(env).unwrap();
        for command in [
            vec!["plan", "--all", "-f", "json"],
            vec!["upgrades", "-f", "json"],
            vec!["validate", "-f", "json"],
        ] {
            let run = |env: &str| {
                let mut args = vec![command[0], env, "--catalog", path(&db)];
                args.extend(&command[1..]);
                // stdin only where it is read: a run that reads a file may exit before a
                // write to its stdin, which then fails with a broken pipe
                let stdin = if env == "-" {
                    Stdio::piped()
                } else {
                    Stdio::null()
                };
                let mut child = Command::new(env!("CARGO_BIN_EXE_compat"))
                    .args(&args)
                    .stdin(stdin)
                    .stdout(Stdio::piped())
                    .spawn()
                    .unwrap();
                if let Some(mut input) = child.stdin.take() {
                    input.write_all(&text).unwrap();
                }
                child.wait_with_output().unwrap()
            };
            let (from_file, from_stdin) = (run(env), run("-"));
            assert_eq!(
                from_file.status.code(),
                from_stdin.status.code(),
                "{command:?}"
            );
            // Locations in the environment name `<stdin>` instead of the file.
            let shown = String::from_utf8_lossy(&from_file.stdout).replace(env, "<stdin>");
            assert_eq!(
                shown,
                String::from_utf8_lossy(&from_stdin.stdout),
                "{command:?}"
            );
        }
    }

    fn release_count(db: &Path) -> i64 {
        let conn = rusqlite::Connection::open(db).unwrap();
        conn.query_row("SELECT count(*) FROM release", [], |r| r.get(0))
            .unwrap()
    }

    #[test]
    fn directory_and_database_give_identical_reports() {
        let dir = scratch("identical");
        let cases = [
            (
                "testdata/examples/catalog",
                "testdata/examples/env-broken.yml",
            ),
            (
                "testdata/examples/catalog",
                "testdata/examples/env-valid.yml",
            ),
            (
                "testdata/cases/warnings/catalog",
                "testdata/cases/warnings/env.yml",
            ),
            ("testdata/cases/plan/catalog", "testdata/cases/plan/env.yml"),
            // unknown releases: the hints read more than the installed releases
            (
                "testdata/examples/catalog",
                "testdata/cases/unknown-release/env.yml",
            ),
            // explanations that need releases older than the installed ones, which a
            // database catalog reads only when an explanation asks for them
            (
                "testdata/cases/explain-older/catalog",
                "testdata/cases/explain-older/env.yml",
            ),
            // the same through section 9 items: a `constraints` item's product atom and an
            // installed capability provider, both satisfied only by older releases
            (
                "testdata/cases/explain-older-items/catalog",
                "testdata/cases/explain-older-items/env.yml",
            ),
            // a fix check whose cascade goes through an older release of a product read
            // in part (g:web 0.9.0 needs g:cache 1.x, older than the installed 2.0.0)
            (
                "testdata/cases/explain-cascade/catalog",
                "testdata/cases/explain-cascade/env.yml",
            ),
        ];
        for (i, (catalog, env)) in cases.iter().enumerate() {
            let db = dir.join(format!("c{i}.db"));
            assert_eq!(import(&[catalog], &db).status.code(), Some(0));
            // a fleet: the same file twice (by two names), and the examples' three
            let twice = format!("./{env}");
            let fleet = if *catalog == "testdata/examples/catalog" {
                vec![
                    "upgrades",
                    "testdata/examples/env-broken.yml",
                    "testdata/examples/env-valid.yml",
                    "testdata/cases/unknown-release/env.yml",
                    "-f",
                    "json",
                ]
            } else {
                vec!["upgrades", env, &twice, "-f", "json"]
            };
            let mut commands: Vec<Vec<&str>> = ["human", "json", "junit", "github", "sarif"]
                .iter()
                .map(|f| vec!["validate", env, "-f", f])
                .collect();
            commands.extend([
                vec!["upgrades", env, "-f", "json"],
                vec!["upgrades", env, "--pre"],
                vec!["plan", env, "--all", "-f", "json"],
                vec!["plan", env, "--target", "com.example:web"],
                vec!["plan", env, "--target", "g:app", "-f", "json"],
                vec!["order", env, "--from-scratch", "-f", "json"],
                vec!["graph", env],
                fleet,
            ]);
            for command in commands {
                let run = |source: &str| {
                    let mut args = command.clone();
                    args.extend(["--catalog", source]);
                    compat(&args)
                };
                let (from_dir, from_db) = (run(catalog), run(path(&db)));
                assert_eq!(from_dir.status.code(), from_db.status.code(), "{command:?}");
                assert_eq!(
                    String::from_utf8_lossy(&from_dir.stdout),
                    String::from_utf8_lossy(&from_db.stdout),
                    "{command:?}"
                );
            }
        }
    }

    #[test]
    fn imports_are_idempotent_and_listing_is_deterministic() {
        let dir = scratch("idempotent");
        let db = dir.join("c.db");
        let first = import(&["testdata/examples/catalog"], &db);
        assert_eq!(first.status.code(), Some(0));
        assert!(String::from_utf8_lossy(&first.stdout).contains("27 releases added, 0 unchanged"));
        let before = fs::read(&db).unwrap();
        let again = import(&["testdata/examples/catalog"], &db);
        assert_eq!(again.status.code(), Some(0));
        assert!(String::from_utf8_lossy(&again.stdout).contains("0 releases added, 27 unchanged"));
        assert_eq!(
            fs::read(&db).unwrap(),
            before,
            "a repeated import changes nothing"
        );
        let list = |f: &str| compat(&["catalog", "list", "--db", path(&db), "-f", f]).stdout;
        assert_eq!(list("json"), list("json"));
        assert_eq!(list("human"), list("human"));
        let json: serde_json::Value = serde_json::from_slice(&list("json")).unwrap();
        assert_eq!(
            json["products"][7]["versions"],
            serde_json::json!([
                "9.3.6",
                "9.5.4",
                "9.6.1",
                "9.6.2",
                "10.1.0",
                "10.2.0-rc1",
                "9.6.1-hotfix"
            ])
        );
    }

    #[test]
    fn failed_imports_leave_the_database_byte_for_byte_unchanged() {
        let (dir, db) = imported("failed");
        let before = fs::read(&db).unwrap();

        // malformed and invalid manifests: exit 3, every bad file named
        let bad = import(
            &[
                "testdata/bad/invalid.yml",
                "testdata/bad/not-a-version.yml",
                "testdata/examples/catalog/redis",
            ],
            &db,
        );
        assert_eq!(bad.status.code(), Some(3));
        let stderr = String::from_utf8_lossy(&bad.stderr);
        assert!(
            stderr.contains("testdata/bad/not-a-version.yml:4:18"),
            "{stderr}"
        );
        assert!(
            stderr.contains("testdata/bad/invalid.yml:10:24: invalid declaration"),
            "{stderr}"
        );
        assert_eq!(fs::read(&db).unwrap(), before);

        // a different manifest for a stored release: exit 1, both sources named
        let changed = dir.join("changed");
        fs::create_dir_all(&changed).unwrap();
        let text = fs::read_to_string("testdata/examples/catalog/redis/redis-7.0.0.yml").unwrap();
        fs::write(
            changed.join("redis.yml"),
            text.replace("product-type", "x-note: changed\nproduct-type")
                .replace("helm.v1", "other.v1")
                .replace("service.v1", "other.v1"),
        )
        .unwrap();
        let refused = import(&[path(&changed)], &db);
        assert_eq!(
            refused.status.code(),
            Some(1),
            "{}",
            String::from_utf8_lossy(&refused.stderr)
        );
        let stderr = String::from_utf8_lossy(&refused.stderr);
        assert!(
            stderr.contains("redis-7.0.0.yml") && stderr.contains("changed/redis.yml"),
            "{stderr}"
        );
        assert_eq!(fs::read(&db).unwrap(), before);

        // with --replace it goes in
        let replaced = compat(&[
            "catalog",
            "import",
            path(&changed),
            "--db",
            path(&db),
            "--replace",
        ]);
        assert_eq!(replaced.status.code(), Some(0));
        assert!(String::from_utf8_lossy(&replaced.stdout).contains("1 replaced"));
        assert_eq!(release_count(&db), 27);
    }

    #[test]
    fn files_that_are_not_catalogs_are_refused() {
        let dir = scratch("not-catalog");
        let other = dir.join("other.db");
        let conn = rusqlite::Connection::open(&other).unwrap();
        conn.execute_batch("CREATE TABLE t (x)").unwrap();
        drop(conn);
        let out = compat(&[
            "validate",
            "testdata/examples/env-valid.yml",
            "--catalog",
            path(&other),
        ]);
        assert_eq!(out.status.code(), Some(3));
        assert!(String::from_utf8_lossy(&out.stderr).contains("not a compat catalog"));
        let out = import(&["testdata/examples/catalog"], &other);
        assert_eq!(out.status.code(), Some(3));
        assert!(String::from_utf8_lossy(&out.stderr).contains("refusing to add tables"));

        let newer = dir.join("newer.db");
        assert_eq!(
            import(&["testdata/examples/catalog/redis"], &newer)
                .status
                .code(),
            Some(0)
        );
        let conn = rusqlite::Connection::open(&newer).unwrap();
        conn.pragma_update(None, "user_version", 99).unwrap();
        drop(conn);
        let out = compat(&["catalog", "list", "--db", path(&newer)]);
        assert_eq!(out.status.code(), Some(3));
        assert!(String::from_utf8_lossy(&out.stderr).contains("schema version 99 is newer"));

        let text = dir.join("text.db");
        fs::write(&text, "just text").unwrap();
        let out = compat(&["catalog", "list", "--db", path(&text)]);
        assert_eq!(
            out.status.code(),
            Some(3),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }

    /// A catalog file written before section 10 was stored (schema 3) still reads, with a
    /// warning on stderr that says so and how to migrate it; after an import, no warning.
    #[test]
    fn a_catalog_file_older_than_section_10_reads_with_a_warning() {
        let (_dir, db) = imported("schema3");
        let conn = rusqlite::Connection::open(&db).unwrap();
        conn.pragma_update(None, "user_version", 3).unwrap();
        drop(conn);
        let env = "testdata/examples/env-valid.yml";
        let warned = "catalog schema 3 was written before outputs, inputs and instance criteria";
        for command in ["validate", "upgrades", "order"] {
            let out = compat(&[command, env, "--catalog", path(&db)]);
            assert_eq!(out.status.code(), Some(0), "{command}");
            let stderr = String::from_utf8_lossy(&out.stderr);
            assert!(stderr.contains(warned), "{command}: {stderr}");
        }
        assert_eq!(
            import(&["testdata/examples/catalog"], &db).status.code(),
            Some(0)
        );
        let out = compat(&["validate", env, "--catalog", path(&db)]);
        assert_eq!(out.status.code(), Some(0));
        assert_eq!(String::from_utf8_lossy(&out.stderr), "");
    }

    /// Writes a generated catalog big enough that an import takes a while.
    fn generated(dir: &Path, products: &str) -> PathBuf {
        let out = compat(&[
            "generate",
            "--out",
            path(dir),
            "--products",
            products,
            "--releases",
            "10",
            "--seed",
            "3",
        ]);
        assert_eq!(out.status.code(), Some(0));
        dir.join("catalog")
    }

    #[test]
    fn readers_see_a_consistent_catalog_during_an_import() {
        let (dir, db) = imported("reader");
        let big = generated(&dir.join("gen"), "1500");
        let reader = rusqlite::Connection::open(&db).unwrap();
        reader.execute_batch("BEGIN").unwrap();
        let count = |c: &rusqlite::Connection| -> i64 {
            c.query_row("SELECT count(*) FROM release", [], |r| r.get(0))
                .unwrap()
        };
        assert_eq!(count(&reader), 27);
        // The reader holds a read transaction for the whole import; WAL lets the writer go on.
        let writer = import(&[path(&big)], &db);
        super::assert_succeeded(&writer);
        assert_eq!(
            count(&reader),
            27,
            "a reader's snapshot does not change under it"
        );
        reader.execute_batch("COMMIT").unwrap();
        assert_eq!(count(&reader), 27 + 15_000);
    }

    #[test]
    fn a_killed_import_leaves_the_previous_content() {
        let (dir, db) = imported("killed");
        let big = generated(&dir.join("gen"), "3000");
        let wal = dir.join("c.db-wal");
        let mut child = Command::new(env!("CARGO_BIN_EXE_compat"))
            .args(["catalog", "import", path(&big), "--db", path(&db)])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        // Kill it as soon as it has started writing its transaction.
        let deadline = Instant::now() + Duration::from_secs(60);
        while Instant::now() < deadline {
            if fs::metadata(&wal).is_ok_and(|m| m.len() > 0) || child.try_wait().unwrap().is_some()
            {
                break;
            }
            std::thread::sleep(Duration::from_millis(1));
        }
        let _ = child.kill();
        let _ = child.wait();
        let conn = rusqlite::Connection::open(&db).unwrap();
        let check: String = conn
            .query_row("PRAGMA integrity_check", [], |r| r.get(0))
            .unwrap();
        assert_eq!(check, "ok");
        let count = release_count(&db);
        assert!(
            count == 27 || count == 27 + 30_000,
            "all or nothing, found {count}"
        );
        // and it is still a working catalog
        let out = compat(&[
            "validate",
            "testdata/examples/env-valid.yml",
            "--catalog",
            path(&db),
        ]);
        assert_eq!(out.status.code(), Some(0));
    }

    #[test]
    fn show_and_list_one_product() {
        let (_dir, db) = imported("show");
        let show = compat(&[
            "catalog",
            "show",
            "com.example:legacy-cache@1.4.0",
            "--db",
            path(&db),
        ]);
        assert_eq!(show.status.code(), Some(0));
        let text = String::from_utf8_lossy(&show.stdout);
        assert!(text.starts_with("com.example:legacy-cache 1.4.0"), "{text}");
        assert!(
            text.contains("io.redis:redis") && text.contains(">=6.0.0, <=6.x.x"),
            "{text}"
        );
        let json = compat(&[
            "catalog",
            "show",
            "com.example:api@01.1.0",
            "--db",
            path(&db),
            "-f",
            "json",
        ]);
        let json: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
        assert_eq!(json["version"], "1.1.0", "found by version equality");
        assert_eq!(json["dependencies"][0]["product"], "com.example:auth");
        assert_eq!(
            json["location"]["file"],
            "testdata/examples/catalog/api/api-1.1.0.yml"
        );
        let missing = compat(&[
            "catalog",
            "show",
            "com.example:api@9.9.9",
            "--db",
            path(&db),
        ]);
        assert_eq!(missing.status.code(), Some(1));
        assert!(
            String::from_utf8_lossy(&missing.stderr).contains("no release `com.example:api 9.9.9`")
        );
        let bad = compat(&["catalog", "show", "com.example:api", "--db", path(&db)]);
        assert_eq!(bad.status.code(), Some(3));
        let one = compat(&[
            "catalog",
            "list",
            "io.redis:redis",
            "--db",
            path(&db),
            "-f",
            "json",
        ]);
        let one: serde_json::Value = serde_json::from_slice(&one.stdout).unwrap();
        assert_eq!(
            one["products"][0]["versions"],
            serde_json::json!(["5.0.7", "6.2.6", "7.0.0"])
        );
        let none = compat(&["catalog", "list", "io.redis:nope", "--db", path(&db)]);
        assert_eq!(none.status.code(), Some(1));
    }
}

/// The DOT output must be accepted by Graphviz. CI installs it (`.ci/run`) and this test then
/// insists on it: with `CI=true` and no `dot` it fails; elsewhere it says why it skips.
#[test]
#[allow(clippy::print_stderr)] // tell the developer why nothing was checked
fn graphviz_accepts_the_dot_output() {
    use std::io::Write;
    use std::process::{Command, Stdio};
    if Command::new("dot").arg("-V").output().is_err() {
        assert!(
            std::env::var("CI").as_deref() != Ok("true"),
            "CI=true but Graphviz `dot` is not installed: .ci/run installs it (`apt-get install \
             graphviz`) for this test"
        );
        eprintln!("skipping: Graphviz `dot` is not installed");
        return;
    }
    for env in [
        "testdata/examples/env-broken.yml",
        "testdata/examples/env-valid.yml",
        "testdata/cases/order-missing/env.yml",
    ] {
        let graph = Command::new(env!("CARGO_BIN_EXE_compat"))
            .args(["graph", env, "--catalog", "testdata/examples/catalog"])
            .output()
            .unwrap();
        assert_eq!(graph.status.code(), Some(0));
        let mut dot = Command::new("dot")
            .arg("-Tsvg")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        dot.stdin.take().unwrap().write_all(&graph.stdout).unwrap();
        let out = dot.wait_with_output().unwrap();
        assert!(
            out.status.success(),
            "{env}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(String::from_utf8_lossy(&out.stdout).contains("<svg"));
    }
}

#[test]
fn plans_write_their_final_state_as_an_environment_that_validates() {
    let dir = scratch("write-env");
    let out = dir.join("next.yml");
    let (env, catalog) = ("testdata/cases/plan/env.yml", "testdata/cases/plan/catalog");
    let planned = compat(&[
        "plan",
        env,
        "--catalog",
        catalog,
        "--target",
        "g:app",
        "--allow-install",
        "--write-env",
        out.to_str().unwrap(),
        "-f",
        "json",
    ]);
    assert_eq!(planned.status.code(), Some(0));
    let plan: serde_json::Value = serde_json::from_slice(&planned.stdout).unwrap();
    let written = std::fs::read_to_string(&out).unwrap();
    assert!(written.starts_with("environment: \"shop\"\n"), "{written}");
    // every entity of the final state is in the file, and the file is a valid environment
    for e in plan["final"].as_array().unwrap() {
        assert!(
            written.contains(&format!("name: {}", e["entity"])),
            "{written}"
        );
    }
    let check = compat(&["validate", out.to_str().unwrap(), "--catalog", catalog]);
    assert_succeeded(&check);
    // an infeasible plan writes nothing, and leaves no temporary file behind
    let before = std::fs::read(&out).unwrap();
    let failed = compat(&[
        "plan",
        env,
        "--catalog",
        catalog,
        "--target",
        "g:app@2.0.0",
        "--write-env",
        out.to_str().unwrap(),
    ]);
    assert_eq!(failed.status.code(), Some(1));
    assert_eq!(std::fs::read(&out).unwrap(), before);
    let names: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(names.len(), 1, "{names:?}");
}

#[test]
fn written_environments_keep_namespaces_labels_and_bindings() {
    let dir = scratch("write-env-placement");
    let out = dir.join("next.yml");
    let env = "testdata/instances/plan-env.yml";
    let planned = compat(&[
        "plan",
        env,
        "--catalog",
        "testdata/cases/plan/catalog",
        "--target",
        "g:app",
        "--write-env",
        out.to_str().unwrap(),
    ]);
    assert_eq!(planned.status.code(), Some(0));
    let written = std::fs::read_to_string(&out).unwrap();
    let read = |text: &str| {
        compat::environment::parse(text, &std::sync::Arc::from("env.yml"), "env").unwrap()
    };
    let (before, after) = (read(&std::fs::read_to_string(env).unwrap()), read(&written));
    let placements = |e: &compat::environment::Environment| {
        e.entities
            .iter()
            .map(|e| (e.name.clone(), e.placement.clone()))
            .collect::<Vec<_>>()
    };
    assert_eq!(placements(&after), placements(&before), "{written}");
    assert!(written.contains("    namespace: \"shop\"\n    labels:\n      \"app\": \"shop\"\n      \"tier\": \"db\"\n"), "{written}");
    assert!(
        written.contains("    bindings:\n      \"g:db\": \"db\"\n"),
        "{written}"
    );
}

#[test]
fn plans_that_fail_among_namespaces_write_no_environment() {
    let dir = scratch("write-env-fails");
    let out = dir.join("next.yml");
    let porter = "testdata/examples/instances/porter";
    let oam = "testdata/examples/instances/oam";
    let runs: [Vec<String>; 2] = [
        // infeasible: api 2.0.0 needs entities created, and --allow-install is not given
        vec![
            "plan".into(),
            format!("{porter}/env.yml"),
            "--catalog".into(),
            format!("{porter}/catalog"),
            "--target".into(),
            "com.example:api@2.0.0".into(),
        ],
        // feasible, but data flows around a cycle: the plan fails as validate does
        vec![
            "plan".into(),
            format!("{oam}/env-broken.yml"),
            "--catalog".into(),
            format!("{oam}/catalog"),
            "--all".into(),
            "--format".into(),
            "json".into(),
        ],
    ];
    for run in runs {
        let mut args: Vec<&str> = run.iter().map(String::as_str).collect();
        args.extend(["--write-env", out.to_str().unwrap()]);
        let failed = compat(&args);
        assert_eq!(
            failed.status.code(),
            Some(1),
            "{args:?}: {}",
            String::from_utf8_lossy(&failed.stderr)
        );
        let names: Vec<_> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert!(names.is_empty(), "{args:?} wrote {names:?}");
    }
}

/// A plan whose final state has an error today's environment has not (with
/// `--allow-install`, a c created beside a is seen by b, whose optional dependency on c it
/// breaks, which the planning model does not judge) is not proven (exit 4) and writes no
/// environment, saying why.
#[test]
fn plans_whose_final_state_is_invalid_write_no_environment() {
    let dir = scratch("write-env-invalid");
    let out = dir.join("next.yml");
    let case = "testdata/instances/created-seen";
    let planned = compat(&[
        "plan",
        &format!("{case}/env.yml"),
        "--catalog",
        &format!("{case}/catalog"),
        "--target",
        "g:a",
        "--allow-install",
        "--write-env",
        out.to_str().unwrap(),
    ]);
    assert_eq!(planned.status.code(), Some(4));
    let stdout = String::from_utf8_lossy(&planned.stdout);
    assert!(
        stdout.contains("version-too-high: b (g:b 1.0.0) optionally requires g:c"),
        "{stdout}"
    );
    let stderr = String::from_utf8_lossy(&planned.stderr);
    assert!(
        stderr.contains("--write-env: ")
            && stderr.contains("not written: the state found is not valid"),
        "{stderr}"
    );
    let names: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert!(names.is_empty(), "wrote {names:?}");
}

/// Bad input of issue 16: 10,000 namespaces are just many (no limit trips, nothing panics),
/// and every one is a group of `order --by namespace`; a smaller run of the same family
/// plans every entity as a proven rolling plan. (How fast is BENCHMARKS.md's business.)
#[test]
fn ten_thousand_namespaces_validate_order_and_plan() {
    let dir = scratch("tenants");
    let generate = |n: &str, out: &std::path::Path| {
        let made = compat(&[
            "generate",
            "--tenants",
            n,
            "--releases",
            "3",
            "--out",
            out.to_str().unwrap(),
        ]);
        assert_succeeded(&made);
    };
    let big = dir.join("big");
    generate("10000", &big);
    let (env, catalog) = (big.join("env.yml"), big.join("catalog"));
    let (env, catalog) = (env.to_str().unwrap(), catalog.to_str().unwrap());
    let validated = compat(&["validate", env, "--catalog", catalog]);
    assert_succeeded(&validated);
    assert!(
        String::from_utf8_lossy(&validated.stdout).contains("29819 entities installed"),
        "{}",
        String::from_utf8_lossy(&validated.stdout)
    );
    let ordered = compat(&[
        "order",
        env,
        "--catalog",
        catalog,
        "--from-scratch",
        "--by",
        "namespace",
        "-f",
        "json",
    ]);
    assert_succeeded(&ordered);
    let groups: serde_json::Value = serde_json::from_slice(&ordered.stdout).unwrap();
    // the global namespace, `ops` and the tenants; the shared pieces first
    assert_eq!(groups["order"].as_array().unwrap().len(), 10_002);
    assert_eq!(groups["waves"][0], serde_json::json!(["", "ops"]));
    let small = dir.join("small");
    generate("300", &small);
    let planned = compat(&[
        "plan",
        small.join("env.yml").to_str().unwrap(),
        "--catalog",
        small.join("catalog").to_str().unwrap(),
        "--all",
        "-f",
        "json",
    ]);
    assert_succeeded(&planned);
    let plan: serde_json::Value = serde_json::from_slice(&planned.stdout).unwrap();
    assert_eq!(plan["proven"], true);
    let entities = plan["final"].as_array().unwrap().len();
    assert_eq!(plan["steps"].as_array().unwrap().len(), entities);
}

#[test]
fn catalog_directories_with_symlink_loops_are_read_once() {
    use std::process::Command;
    let dir = scratch("symlinks");
    std::fs::create_dir_all(dir.join("sub")).unwrap();
    std::fs::copy(
        "testdata/examples/catalog/redis/redis-7.0.0.yml",
        dir.join("sub/redis.yml"),
    )
    .unwrap();
    // sub/again -> .. : walking it naively would never end
    std::os::unix::fs::symlink("..", dir.join("sub/again")).unwrap();
    std::os::unix::fs::symlink(dir.join("sub"), dir.join("alias")).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_compat"))
        .args(["lint", dir.to_str().unwrap()])
        .output()
        .unwrap();
    assert_succeeded(&out);
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "1 manifest checked: 0 errors, 0 warnings\n"
    );
}

/// A named pipe among a catalog directory's files is passed over: opening it would wait for
/// a writer forever.
#[test]
fn named_pipes_in_a_catalog_directory_are_passed_over() {
    let dir = scratch("fifo");
    std::fs::copy(
        "testdata/examples/catalog/redis/redis-7.0.0.yml",
        dir.join("redis.yml"),
    )
    .unwrap();
    let made = std::process::Command::new("mkfifo")
        .arg(dir.join("pipe.yml"))
        .status()
        .unwrap();
    assert!(made.success());
    let out = compat(&["lint", dir.to_str().unwrap()]);
    assert_succeeded(&out);
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "1 manifest checked: 0 errors, 0 warnings\n"
    );
}

/// A file limit too large to count in bytes means no limit, not a limit of nothing.
#[test]
fn file_limits_beyond_what_bytes_can_count_limit_nothing() {
    for mib in ["17592186044416", "18446744073709551615"] {
        let out = compat(&[
            "lint",
            "testdata/examples/catalog/redis",
            "--max-file-mb",
            mib,
        ]);
        assert_succeeded(&out);
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(stdout.starts_with("3 manifests checked"), "{mib}: {stdout}");
    }
}

/// `-o` through a symbolic link replaces the file the link names and keeps the link; the
/// file keeps its permissions; a device or a named pipe is written to, never replaced.
#[test]
fn output_files_behind_links_and_devices_stay_what_they_are() {
    use std::os::unix::fs::{FileTypeExt, OpenOptionsExt, PermissionsExt};
    let dir = scratch("links");
    let real = dir.join("real.txt");
    std::fs::write(&real, "old").unwrap();
    std::fs::set_permissions(&real, std::fs::Permissions::from_mode(0o600)).unwrap();
    let link = dir.join("link.txt");
    std::os::unix::fs::symlink("real.txt", &link).unwrap();
    let command = ["lint", "testdata/examples/catalog/redis", "-o"];
    let out = compat(&[&command[..], &[link.to_str().unwrap()]].concat());
    assert_succeeded(&out);
    assert!(
        std::fs::symlink_metadata(&link)
            .unwrap()
            .file_type()
            .is_symlink()
    );
    let text = std::fs::read_to_string(&real).unwrap();
    assert!(text.starts_with("3 manifests checked"), "{text}");
    let mode = std::fs::metadata(&real).unwrap().permissions().mode();
    assert_eq!(mode & 0o777, 0o600);
    // a dangling link gets its file created
    let dangling = dir.join("dangling.txt");
    std::os::unix::fs::symlink("made.txt", &dangling).unwrap();
    assert_succeeded(&compat(
        &[&command[..], &[dangling.to_str().unwrap()]].concat(),
    ));
    assert!(
        std::fs::symlink_metadata(&dangling)
            .unwrap()
            .file_type()
            .is_symlink()
    );
    assert!(dir.join("made.txt").is_file());
    // A named pipe stands for a device: it is written to, not replaced by a file. The read
    // end is opened first without waiting (O_NONBLOCK on Linux), so the writer never blocks.
    let pipe = dir.join("pipe");
    let mkfifo = std::process::Command::new("mkfifo").arg(&pipe).status();
    assert!(mkfifo.unwrap().success());
    let mut reader = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(0o4000)
        .open(&pipe)
        .unwrap();
    let out = compat(&[&command[..], &[pipe.to_str().unwrap()]].concat());
    assert_succeeded(&out);
    assert!(out.stdout.is_empty());
    assert!(
        std::fs::symlink_metadata(&pipe)
            .unwrap()
            .file_type()
            .is_fifo()
    );
    let mut sent = String::new();
    std::io::Read::read_to_string(&mut reader, &mut sent).unwrap();
    assert!(sent.starts_with("3 manifests checked"), "{sent}");
    // nothing is left behind but the files, links and pipe made here
    assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 5);
}

#[test]
fn the_environment_is_never_written_to_stdout_beside_the_plan() {
    let out = compat(&[
        "plan",
        "testdata/examples/env-valid.yml",
        "--catalog",
        "testdata/examples/catalog",
        "--all",
        "--write-env",
        "-",
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(out.stdout.is_empty());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("--write-env: `-` would mix"), "{stderr}");
    assert!(!std::path::Path::new("-").exists());
}

mod failures {
    //! The catalog database under trouble: another process holding a lock, a disk that
    //! refuses to grow. Neither may leave a half-written catalog.

    use super::scratch;
    use std::fs;
    use std::process::Command;

    #[test]
    fn a_catalog_locked_by_another_process_is_a_clear_error() {
        let dir = scratch("locked");
        let db = dir.join("c.db");
        let bin = env!("CARGO_BIN_EXE_compat");
        let import = |extra: &[&str]| {
            Command::new(bin)
                .args([
                    "catalog",
                    "import",
                    "testdata/examples/catalog/redis",
                    "--db",
                ])
                .arg(&db)
                .args(extra)
                .output()
                .unwrap()
        };
        assert_eq!(import(&[]).status.code(), Some(0));
        let before = fs::read(&db).unwrap();
        let holder = rusqlite::Connection::open(&db).unwrap();
        holder.execute_batch("BEGIN EXCLUSIVE").unwrap();
        let out = Command::new(bin)
            .args([
                "catalog",
                "import",
                "testdata/examples/catalog/postgresql",
                "--lock-timeout",
                "1",
                "--db",
            ])
            .arg(&db)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(3));
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.contains("locked by another process"), "{stderr}");
        holder.execute_batch("ROLLBACK").unwrap();
        drop(holder);
        assert_eq!(fs::read(&db).unwrap(), before);
    }

    /// A full disk, simulated with a file-size limit: SQLite's writes fail (SIGXFSZ is
    /// ignored, so they return an error instead of killing the process).
    #[test]
    fn a_full_disk_during_an_import_writes_nothing() {
        let dir = scratch("full");
        let db = dir.join("c.db");
        let bin = env!("CARGO_BIN_EXE_compat");
        let first = Command::new(bin)
            .args([
                "catalog",
                "import",
                "testdata/examples/catalog/redis",
                "--db",
            ])
            .arg(&db)
            .output()
            .unwrap();
        assert_eq!(first.status.code(), Some(0));
        let before = fs::read(&db).unwrap();
        // 40 KiB is far less than the whole example catalog needs.
        let script = format!(
            "trap '' XFSZ; ulimit -f 40; exec {bin} catalog import testdata/examples/catalog --db {}",
            db.display()
        );
        let out = Command::new("bash").args(["-c", &script]).output().unwrap();
        assert_eq!(
            out.status.code(),
            Some(3),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.contains("nothing was written"), "{stderr}");
        assert_eq!(fs::read(&db).unwrap(), before);
        let check = rusqlite::Connection::open(&db).unwrap();
        let ok: String = check
            .query_row("PRAGMA integrity_check", [], |r| r.get(0))
            .unwrap();
        assert_eq!(ok, "ok");
    }
}

/// `-o FILE` writes exactly what stdout would have shown, keeps the exit code and leaves
/// stdout empty, for every command that has it.
#[test]
fn output_files_hold_what_stdout_would_have_shown() {
    let dir = scratch("output");
    let (env, catalog) = (
        "testdata/examples/env-broken.yml",
        "testdata/examples/catalog",
    );
    let commands: [&[&str]; 6] = [
        &["validate", env, "--catalog", catalog, "-f", "sarif"],
        &["upgrades", env, "--catalog", catalog, "-f", "json"],
        &["plan", env, "--catalog", catalog, "--all"],
        &["order", env, "--catalog", catalog, "--from-scratch"],
        &["graph", env, "--catalog", catalog],
        &["lint", catalog, "-f", "json"],
    ];
    for (i, command) in commands.iter().enumerate() {
        let plain = compat(command);
        let file = dir.join(format!("report-{i}"));
        let mut args = command.to_vec();
        args.extend(["-o", file.to_str().unwrap()]);
        let written = compat(&args);
        assert_eq!(written.status.code(), plain.status.code(), "{command:?}");
        assert!(written.stdout.is_empty(), "{command:?}");
        assert_eq!(std::fs::read(&file).unwrap(), plain.stdout, "{command:?}");
    }
    // Nothing is left behind but the reports (the temporary files were renamed).
    assert_eq!(std::fs::read_dir(&dir).unwrap().count(), commands.len());
}

mod config {
    //! Where `compat.toml` is looked for: the tree above a directory, which trycmd cases
    //! cannot build (git keeps no `.git` of a test's own).

    use super::scratch;
    use std::fs;
    use std::path::Path;
    use std::process::Output;

    fn validate_in(dir: &Path) -> Output {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("testdata/examples");
        std::process::Command::new(env!("CARGO_BIN_EXE_compat"))
            .current_dir(dir)
            .arg("validate")
            .arg(root.join("env-valid.yml"))
            .arg("--catalog")
            .arg(root.join("catalog"))
            .output()
            .expect("the binary runs")
    }

    /// The search goes up from the working directory and stops at a repository's root
    /// (a `.git` directory, or a worktree's `.git` file), never reading a file above it.
    #[test]
    fn the_search_stops_at_a_repository_root() {
        let dir = scratch("config-search");
        fs::write(dir.join("compat.toml"), "fail-on = \"never\"\n").unwrap();
        let repo = dir.join("repo");
        let sub = repo.join("sub");
        fs::create_dir_all(&sub).unwrap();

        let found = validate_in(&sub);
        assert_eq!(found.status.code(), Some(3));
        assert_eq!(
            String::from_utf8_lossy(&found.stderr),
            "error: ../../compat.toml:1:11: `fail-on`: expected `error` or `warning`, found \
             `never`\n"
        );

        fs::create_dir(repo.join(".git")).unwrap();
        let stopped = validate_in(&sub);
        assert_eq!(stopped.status.code(), Some(0), "{stopped:?}");

        fs::remove_dir(repo.join(".git")).unwrap();
        fs::write(repo.join(".git"), "gitdir: elsewhere\n").unwrap();
        assert_eq!(validate_in(&sub).status.code(), Some(0));

        // the repository's own config is read, however deep the working directory
        fs::write(repo.join("compat.toml"), "fail-on = \"sometimes\"\n").unwrap();
        let own = validate_in(&sub);
        assert_eq!(own.status.code(), Some(3));
        assert!(
            String::from_utf8_lossy(&own.stderr).starts_with("error: ../compat.toml:1:11: "),
            "{own:?}"
        );
    }
}
