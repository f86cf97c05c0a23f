//! The PostgreSQL catalog through the real binary: the same bytes as a directory and as a
//! SQLite catalog, and no password in any output. A server comes from `COMPAT_TEST_POSTGRES`
//! (`.ci/run` starts one); without it these tests say why they skip, and with `CI=true` they
//! fail instead.

use std::io::Write;
use std::process::{Command, Output};

use super::{compat, scratch};

static SAID: std::sync::Once = std::sync::Once::new();

/// The test server's URL, or `None` (said once on stderr) outside CI.
fn server() -> Option<String> {
    if let Ok(url) = std::env::var("COMPAT_TEST_POSTGRES") {
        return Some(url);
    }
    assert!(
        std::env::var("CI").as_deref() != Ok("true"),
        "CI=true but COMPAT_TEST_POSTGRES is not set: .ci/run starts a PostgreSQL server"
    );
    SAID.call_once(|| {
        let _ = writeln!(
            std::io::stderr(),
            "skipping the PostgreSQL CLI tests: COMPAT_TEST_POSTGRES is not set"
        );
    });
    None
}

/// A new, empty database on the test server, as a URL.
fn fresh(test: &str) -> Option<String> {
    let url = server()?;
    let database = format!("compat_cli_{}_{test}", std::process::id());
    let mut client = url
        .parse::<postgres::Config>()
        .unwrap()
        .connect(postgres::NoTls)
        .expect("the test server accepts connections");
    for sql in [
        format!("DROP DATABASE IF EXISTS {database} WITH (FORCE)"),
        format!("CREATE DATABASE {database}"),
    ] {
        client.batch_execute(&sql).unwrap();
    }
    let (scheme, rest) = url.split_once("://").unwrap();
    let authority = &rest[..rest.find(['/', '?']).unwrap_or(rest.len())];
    Some(format!("{scheme}://{authority}/{database}"))
}

fn import(catalog: &str, db: &str) -> Output {
    compat(&["catalog", "import", catalog, "--db", db])
}

#[track_caller]
fn assert_same(a: &Output, b: &Output, what: &str) {
    assert_eq!(a.status.code(), b.status.code(), "{what}");
    assert_eq!(
        String::from_utf8_lossy(&a.stdout),
        String::from_utf8_lossy(&b.stdout),
        "{what}"
    );
}

#[test]
fn validate_and_upgrades_give_the_directory_s_bytes() {
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
        (
            "testdata/cases/explain-older/catalog",
            "testdata/cases/explain-older/env.yml",
        ),
    ];
    for (i, (catalog, env)) in cases.iter().enumerate() {
        let Some(db) = fresh(&format!("reports{i}")) else {
            return;
        };
        assert_eq!(import(catalog, &db).status.code(), Some(0), "{catalog}");
        let mut commands: Vec<Vec<&str>> = ["human", "json", "junit", "github", "sarif"]
            .iter()
            .map(|f| vec!["validate", env, "-f", f])
            .collect();
        commands.extend([
            vec!["upgrades", env],
            vec!["upgrades", env, "-f", "json"],
            vec!["upgrades", env, "--pre", "-f", "markdown"],
            vec!["plan", env, "--all", "-f", "json"],
            vec!["order", env, "--from-scratch", "-f", "json"],
        ]);
        for command in commands {
            let run = |source: &str| {
                let mut args = command.clone();
                args.extend(["--catalog", source]);
                compat(&args)
            };
            let (from_dir, from_pg) = (run(catalog), run(&db));
            assert_same(&from_dir, &from_pg, &format!("{command:?}"));
            assert_eq!(
                String::from_utf8_lossy(&from_dir.stderr),
                String::from_utf8_lossy(&from_pg.stderr),
                "{command:?}"
            );
        }
    }
}

#[test]
fn list_and_show_give_the_sqlite_catalog_s_bytes() {
    let Some(pg) = fresh("list") else {
        return;
    };
    let dir = scratch("pg-list");
    let sqlite = dir.join("c.db");
    let sqlite = sqlite.to_str().unwrap();
    let imported = [
        import("testdata/examples/catalog", sqlite),
        import("testdata/examples/catalog", &pg),
    ];
    for out in &imported {
        assert_eq!(out.status.code(), Some(0));
    }
    for args in [
        vec!["catalog", "list"],
        vec!["catalog", "list", "-f", "json"],
        vec!["catalog", "list", "com.example:api"],
        vec!["catalog", "show", "com.example:api@01.1.0"],
        vec!["catalog", "show", "com.example:api@2.0.0", "-f", "json"],
    ] {
        let run = |db: &str| {
            let mut args = args.clone();
            args.extend(["--db", db]);
            compat(&args)
        };
        assert_same(&run(sqlite), &run(&pg), &format!("{args:?}"));
    }
    // Replacing one release and adding another: the same summary from both.
    let again = [
        import("testdata/cases/warnings/catalog", sqlite),
        import("testdata/cases/warnings/catalog", &pg),
    ];
    let summary = |out: &Output| {
        let text = String::from_utf8_lossy(&out.stdout).into_owned();
        text.split_once(": ").map(|(_, rest)| rest.to_owned())
    };
    assert_eq!(summary(&again[0]), summary(&again[1]));
}

#[test]
fn no_output_shows_the_password() {
    let Some(db) = fresh("password") else {
        return;
    };
    let config: postgres::Config = db.parse().unwrap();
    let password = String::from_utf8(config.get_password().unwrap().to_vec()).unwrap();
    let wrong = db.replacen(&format!(":{password}@"), ":wrong-secret@", 1);
    assert_ne!(wrong, db, "the test server's URL has a password");
    let runs = [
        import("testdata/examples/catalog", &db),
        compat(&[
            "catalog",
            "import",
            "testdata/examples/catalog",
            "--db",
            &db,
            "-f",
            "json",
        ]),
        compat(&["catalog", "list", "g:none", "--db", &db]),
        compat(&["catalog", "list", "--db", &wrong]),
        compat(&[
            "validate",
            "testdata/examples/env-valid.yml",
            "--catalog",
            &wrong,
        ]),
    ];
    for out in &runs {
        for text in [&out.stdout, &out.stderr] {
            let text = String::from_utf8_lossy(text);
            assert!(!text.contains(&password), "{text}");
            assert!(!text.contains("wrong-secret"), "{text}");
        }
    }
    let refused = String::from_utf8_lossy(&runs[3].stderr);
    assert_eq!(runs[3].status.code(), Some(3));
    assert!(
        refused.contains("password authentication failed"),
        "{refused}"
    );
    let Some(postgres::config::Host::Tcp(host)) = config.get_hosts().first() else {
        panic!("the test server is reached over TCP");
    };
    assert!(refused.contains(host.as_str()), "names the host: {refused}");
}

#[test]
fn a_killed_import_leaves_the_previous_content() {
    use std::process::{Command, Stdio};
    use std::time::{Duration, Instant};
    let Some(db) = fresh("killed") else {
        return;
    };
    assert_eq!(
        import("testdata/examples/catalog", &db).status.code(),
        Some(0)
    );
    let dir = scratch("pg-killed");
    let generated_dir = dir.join("gen");
    let generated = compat(&[
        "generate",
        "--out",
        generated_dir.to_str().unwrap(),
        "--products",
        "3000",
        "--releases",
        "10",
    ]);
    assert_eq!(generated.status.code(), Some(0));
    let big = generated_dir.join("catalog");
    let mut watcher: postgres::Client = db
        .parse::<postgres::Config>()
        .unwrap()
        .connect(postgres::NoTls)
        .unwrap();
    let count = |client: &mut postgres::Client| -> i64 {
        client
            .query_one("SELECT count(*) FROM compat.release", &[])
            .unwrap()
            .get(0)
    };
    let mut child = Command::new(env!("CARGO_BIN_EXE_compat"))
        .args(["catalog", "import", big.to_str().unwrap(), "--db", &db])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    // Kill it as soon as it holds the import lock, that is, inside its transaction.
    let deadline = Instant::now() + Duration::from_secs(60);
    while Instant::now() < deadline && child.try_wait().unwrap().is_none() {
        let locked: i64 = watcher
            .query_one(
                "SELECT count(*) FROM pg_locks l JOIN pg_database d ON d.oid = l.database
                 WHERE l.locktype = 'advisory' AND l.granted AND d.datname = current_database()",
                &[],
            )
            .unwrap()
            .get(0);
        if locked > 0 {
            break;
        }
        std::thread::sleep(Duration::from_millis(1));
    }
    let _ = child.kill();
    let _ = child.wait();
    let after = count(&mut watcher);
    assert!(
        after == 27 || after == 27 + 30_000,
        "all or nothing, found {after}"
    );
    // The server drops the dead connection's transaction and lock: the next import runs.
    let again = import(big.to_str().unwrap(), &db);
    assert_eq!(
        again.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&again.stderr)
    );
    assert_eq!(count(&mut watcher), 27 + 30_000);
}

#[test]
fn an_import_waits_for_another_and_gives_up_clearly() {
    let Some(db) = fresh("locked") else {
        return;
    };
    assert_eq!(
        import("testdata/examples/catalog", &db).status.code(),
        Some(0)
    );
    // Another import holds the lock: the advisory lock every import takes (`IMPORT_LOCK`,
    // 0x636f6d706174, "compat").
    let mut other: postgres::Client = db
        .parse::<postgres::Config>()
        .unwrap()
        .connect(postgres::NoTls)
        .unwrap();
    let mut tx = other.transaction().unwrap();
    tx.batch_execute("SELECT pg_advisory_xact_lock(109330228601204)")
        .unwrap();
    let args = [
        "catalog",
        "import",
        "testdata/cases/warnings/catalog",
        "--db",
        &db,
        "--lock-timeout",
        "1",
    ];
    let waited = compat(&args);
    assert_eq!(waited.status.code(), Some(3));
    let stderr = String::from_utf8_lossy(&waited.stderr);
    assert!(
        stderr.contains("the catalog is locked by another import"),
        "{stderr}"
    );
    tx.rollback().unwrap();
    assert_eq!(compat(&args).status.code(), Some(0));
}

#[test]
fn a_fleet_gives_the_directory_s_bytes() {
    let Some(db) = fresh("fleet") else {
        return;
    };
    let catalog = "testdata/examples/catalog";
    assert_eq!(import(catalog, &db).status.code(), Some(0));
    for command in [
        vec!["validate", "--envs", "testdata/fleet", "-f", "json"],
        vec!["validate", "--envs", "testdata/fleet", "-f", "sarif"],
        vec!["upgrades", "--envs", "testdata/fleet", "-f", "json"],
        vec![
            "validate",
            "testdata/examples/env-broken.yml",
            "testdata/cases/unknown-release/env.yml",
        ],
    ] {
        let run = |source: &str| {
            let mut args = command.clone();
            args.extend(["--catalog", source]);
            compat(&args)
        };
        assert_same(&run(catalog), &run(&db), &format!("{command:?}"));
    }
}

/// The test server's root certificate when it has TLS (`.ci/postgres` sets it up where
/// openssl is installed, as it is wherever Debian's postgresql is).
fn server_ca() -> Option<String> {
    let ca = std::env::var("COMPAT_TEST_POSTGRES_CA").ok();
    assert!(
        ca.is_some() || std::env::var("CI").as_deref() != Ok("true"),
        "CI=true but COMPAT_TEST_POSTGRES_CA is not set: .ci/postgres gives the server TLS"
    );
    ca
}

#[test]
fn sslmodes_against_a_server_with_tls() {
    let Some(db) = fresh("tls") else {
        return;
    };
    let Some(ca) = server_ca() else {
        return;
    };
    assert_eq!(
        import("testdata/examples/catalog", &db).status.code(),
        Some(0)
    );
    let list = |url: &str| compat(&["catalog", "list", "--db", url]);
    let plain = list(&db);
    assert_eq!(plain.status.code(), Some(0));
    for query in [
        "sslmode=disable".to_owned(),
        "sslmode=require".to_owned(),
        format!("sslmode=verify-ca&sslrootcert={ca}"),
        format!("sslmode=verify-full&sslrootcert={ca}"),
    ] {
        assert_same(&plain, &list(&format!("{db}?{query}")), &query);
    }
    // the certificate names 127.0.0.1 and localhost, not the name asked for
    let other_name = db.replacen("@127.0.0.1:", "@db.invalid:", 1);
    let query = format!("hostaddr=127.0.0.1&sslrootcert={ca}&sslmode");
    assert_same(
        &plain,
        &list(&format!("{other_name}?{query}=verify-ca")),
        "verify-ca",
    );
    let wrong = list(&format!("{other_name}?{query}=verify-full"));
    assert_eq!(wrong.status.code(), Some(3));
    let stderr = String::from_utf8_lossy(&wrong.stderr);
    assert!(
        stderr.contains("certificate") && stderr.contains("db.invalid"),
        "{stderr}"
    );
    // no root certificates: said before connecting
    let missing = list(&format!(
        "{db}?sslmode=verify-full&sslrootcert=/nonexistent/ca.pem"
    ));
    assert_eq!(missing.status.code(), Some(3));
    assert!(String::from_utf8_lossy(&missing.stderr).starts_with("error: /nonexistent/ca.pem: "));
}

/// The test server's client certificate and key, when it has TLS.
fn client_cert() -> Option<(String, String)> {
    let cert = std::env::var("COMPAT_TEST_POSTGRES_CLIENT_CERT").ok();
    let key = std::env::var("COMPAT_TEST_POSTGRES_CLIENT_KEY").ok();
    assert!(
        cert.is_some() || std::env::var("CI").as_deref() != Ok("true"),
        "CI=true but COMPAT_TEST_POSTGRES_CLIENT_CERT is not set: .ci/postgres makes one"
    );
    cert.zip(key)
}

#[test]
fn a_client_certificate_logs_in_where_the_server_asks_for_one() {
    let Some(db) = fresh("cert") else {
        return;
    };
    let (Some(ca), Some((cert, key))) = (server_ca(), client_cert()) else {
        return;
    };
    assert_eq!(
        import("testdata/examples/catalog", &db).status.code(),
        Some(0)
    );
    // `compat_cert` may log in over TLS with the certificate only (`.ci/postgres`)
    let mut admin = server()
        .unwrap()
        .parse::<postgres::Config>()
        .unwrap()
        .connect(postgres::NoTls)
        .unwrap();
    admin
        .batch_execute(
            "DO $$ BEGIN CREATE ROLE compat_cert LOGIN SUPERUSER;
             EXCEPTION WHEN duplicate_object THEN NULL; END $$",
        )
        .unwrap();
    let list = |url: &str, env: &[(&str, &str)]| {
        let mut command = Command::new(env!("CARGO_BIN_EXE_compat"));
        command.args(["catalog", "list", "--db", url]);
        command.env_remove("PGPASSWORD");
        for (name, value) in env {
            command.env(name, value);
        }
        command.output().unwrap()
    };
    let plain = list(&db, &[]);
    assert_eq!(plain.status.code(), Some(0));
    let (_, rest) = db.split_once('@').unwrap();
    let as_cert = format!("postgres://compat_cert@{rest}");
    let in_url = list(
        &format!("{as_cert}?sslmode=verify-full&sslrootcert={ca}&sslcert={cert}&sslkey={key}"),
        &[],
    );
    assert_same(&plain, &in_url, "sslcert and sslkey in the URL");
    let from_env = list(
        &format!("{as_cert}?sslmode=require"),
        &[("PGSSLCERT", &cert), ("PGSSLKEY", &key)],
    );
    assert_same(&plain, &from_env, "PGSSLCERT and PGSSLKEY");
    // the operating system's roots, moved to the test CA as OpenSSL's are
    let system = list(
        &format!("{as_cert}?sslrootcert=system&sslcert={cert}&sslkey={key}"),
        &[("SSL_CERT_FILE", &ca)],
    );
    assert_same(&plain, &system, "sslrootcert=system");
    let without = list(
        &format!("{as_cert}?sslmode=require"),
        &[("HOME", "/nonexistent")],
    );
    assert_eq!(without.status.code(), Some(3));
    let stderr = String::from_utf8_lossy(&without.stderr);
    assert!(stderr.contains("certificate"), "{stderr}");
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
}

/// A server that answers a TLS request with "no" (as PostgreSQL without `ssl = on` does).
#[test]
fn a_server_that_refuses_tls_is_a_clear_error_when_tls_is_required() {
    use std::io::Read;
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let server = std::thread::spawn(move || {
        let (mut stream, _) = listener.accept().unwrap();
        let mut request = [0; 8]; // length and the SSLRequest code
        stream.read_exact(&mut request).unwrap();
        stream.write_all(b"N").unwrap();
    });
    let url = format!("postgres://u:secret@127.0.0.1:{port}/db?sslmode=require");
    let out = compat(&["catalog", "list", "--db", &url]);
    server.join().unwrap();
    assert_eq!(out.status.code(), Some(3));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(
        stderr,
        format!(
            "error: postgres://u@127.0.0.1:{port}/db?sslmode=require: cannot read: the PostgreSQL \
             server does not accept TLS connections, and the `sslmode` asks for one (`require`, \
             `verify-ca` and `verify-full` do; `prefer`, the default, falls back to a plain \
             connection)\n"
        )
    );
}
