//! A PostgreSQL server for tests: `COMPAT_TEST_POSTGRES` names one (`.ci/run` starts a
//! throwaway cluster and sets it). Without it a test says why it skips; with `CI=true` it
//! fails instead, so CI never passes without having run them.

use std::io::Write;

use super::PostgresUrl;

static SAID: std::sync::Once = std::sync::Once::new();

/// The test server's URL, or `None` (said on stderr) when there is none outside CI.
///
/// # Panics
/// With `CI=true` and no server.
pub fn server() -> Option<String> {
    if let Ok(url) = std::env::var("COMPAT_TEST_POSTGRES") {
        return Some(url);
    }
    assert!(
        std::env::var("CI").as_deref() != Ok("true"),
        "CI=true but COMPAT_TEST_POSTGRES is not set: .ci/run starts a PostgreSQL server for \
         the PostgreSQL catalog tests"
    );
    // Straight to stderr, past the test harness's capture, once per run.
    SAID.call_once(|| {
        let _ = writeln!(
            std::io::stderr(),
            "skipping the PostgreSQL catalog tests: COMPAT_TEST_POSTGRES is not set (`source \
             .ci/postgres && start_postgres` starts a throwaway server and sets it)"
        );
    });
    None
}

/// `url` with its database replaced by `database`.
#[must_use]
pub fn with_database(url: &str, database: &str) -> String {
    let (scheme, rest) = url.split_once("://").unwrap_or(("postgres", url));
    let authority_end = rest.find(['/', '?']).unwrap_or(rest.len());
    let (authority, tail) = rest.split_at(authority_end);
    let query = tail.split_once('?').map(|(_, q)| format!("?{q}"));
    format!(
        "{scheme}://{authority}/{database}{}",
        query.unwrap_or_default()
    )
}

/// A new, empty database named after the test (dropped first if a run left it), or `None`
/// when there is no server.
///
/// # Panics
/// When the server refuses.
pub fn fresh(test: &str) -> Option<PostgresUrl> {
    let url = server()?;
    let database = format!("compat_test_{}_{test}", std::process::id());
    let mut client = PostgresUrl::new(&url)
        .config()
        .unwrap()
        .connect(::postgres::NoTls)
        .expect("the test server accepts connections");
    // Two calls: several statements in one would be one implicit transaction, which
    // `DROP DATABASE` refuses.
    for sql in [
        format!("DROP DATABASE IF EXISTS {database} WITH (FORCE)"),
        format!("CREATE DATABASE {database}"),
    ] {
        client
            .batch_execute(&sql)
            .expect("the test server creates databases");
    }
    Some(PostgresUrl::new(&with_database(&url, &database)))
}
