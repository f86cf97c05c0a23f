//! A PostgreSQL catalog's URL and its credentials, the libpq way: the URL's own user and
//! password first, else `PGPASSWORD`, else the first matching line of the password file
//! (`PGPASSFILE`, or `~/.pgpass`; ignored, as libpq does, when others may read it). A URL
//! without a host (`postgres:///db`) means the local server's Unix socket.
//!
//! Invariant: the password never leaves this module except into the client's configuration:
//! [`PostgresUrl`]'s `Display` and `Debug` drop it (`user:secret@` becomes `user@`, a
//! `password=` query parameter is left out), and every message about a catalog names it that
//! way.

use std::fmt;
use std::path::PathBuf;
use std::time::Duration;

use ::postgres::Config;
use ::postgres::config::Host;

use crate::diagnostic::InputError;

/// How long a connection attempt may take when the URL does not say (`connect_timeout`).
const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);

/// Where a URL without a host looks for the server's socket (`postgres:///db`).
#[cfg(unix)]
const LOCAL_SOCKET_DIR: &str = "/var/run/postgresql";

/// A `postgres://` or `postgresql://` URL as given; shown without its password.
#[derive(Clone, PartialEq, Eq)]
pub struct PostgresUrl(String);

impl PostgresUrl {
    #[must_use]
    pub fn new(url: &str) -> PostgresUrl {
        PostgresUrl(url.to_owned())
    }

    /// The client configuration: the URL's settings, a password from `PGPASSWORD` or the
    /// password file when the URL has none, and a connection timeout.
    ///
    /// # Errors
    /// A URL the client cannot read.
    pub fn config(&self) -> Result<Config, InputError> {
        let mut config: Config = self
            .0
            .parse()
            .map_err(|e: ::postgres::Error| InputError::Io {
                path: self.to_string(),
                reason: format!("expected a PostgreSQL URL like `postgres://user@host/db`: {e}"),
            })?;
        if config.get_password().is_none()
            && let Some(password) = password_from_environment(&config)
        {
            config.password(password);
        }
        // No host: the local server's Unix socket, where libpq looks on Debian.
        #[cfg(unix)]
        if config.get_hosts().is_empty() && config.get_hostaddrs().is_empty() {
            config.host_path(LOCAL_SOCKET_DIR);
        }
        if config.get_connect_timeout().is_none() {
            config.connect_timeout(CONNECT_TIMEOUT);
        }
        Ok(config)
    }
}

/// The URL less its password.
impl fmt::Display for PostgresUrl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&redact(&self.0))
    }
}

impl fmt::Debug for PostgresUrl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "PostgresUrl({:?})", redact(&self.0))
    }
}

/// `scheme://user:password@host/db?password=x&a=b` as `scheme://user@host/db?a=b`. The user
/// part ends at the last `@` before the query, so a password with an unescaped `/` or `@` is
/// still left out.
fn redact(url: &str) -> String {
    let Some((scheme, rest)) = url.split_once("://") else {
        return url.to_owned();
    };
    let (before_query, query) = match rest.split_once('?') {
        Some((before, query)) => (before, Some(query)),
        None => (rest, None),
    };
    let mut shown = format!("{scheme}://");
    match before_query.rsplit_once('@') {
        Some((userinfo, after)) => {
            let user = userinfo.split_once(':').map_or(userinfo, |(user, _)| user);
            shown.push_str(user);
            shown.push('@');
            shown.push_str(after);
        }
        None => shown.push_str(before_query),
    }
    let kept: Vec<&str> = query
        .into_iter()
        .flat_map(|q| q.split('&'))
        .filter(|p| !p.starts_with("password="))
        .collect();
    if !kept.is_empty() {
        shown.push('?');
        shown.push_str(&kept.join("&"));
    }
    shown
}

/// `PGPASSWORD`, or the password file's line for the first host of the configuration.
fn password_from_environment(config: &Config) -> Option<String> {
    if let Some(password) = std::env::var_os("PGPASSWORD") {
        return password.into_string().ok();
    }
    let file = std::env::var_os("PGPASSFILE")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|home| PathBuf::from(home).join(".pgpass")))?;
    if !private(&file) {
        return None;
    }
    let text = std::fs::read_to_string(file).ok()?;
    let host = match config.get_hosts().first() {
        Some(Host::Tcp(host)) => host.clone(),
        // A Unix socket matches `localhost`, as in libpq.
        Some(Host::Unix(_)) | None => "localhost".to_owned(),
    };
    let port = config.get_ports().first().copied().unwrap_or(5432);
    let user = config
        .get_user()
        .map(str::to_owned)
        .or_else(|| std::env::var("USER").ok())?;
    let dbname = config.get_dbname().unwrap_or(&user);
    pgpass_lookup(&text, &host, port, dbname, &user)
}

/// libpq ignores a password file that its group or others may read.
#[cfg(unix)]
fn private(file: &std::path::Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(file)
        .is_ok_and(|m| m.is_file() && m.permissions().mode().trailing_zeros() >= 6)
}

#[cfg(not(unix))]
fn private(file: &std::path::Path) -> bool {
    file.is_file()
}

/// The password of the first `host:port:database:user:password` line that matches (`*`
/// matches anything; `\:` and `\\` are a literal colon and backslash).
fn pgpass_lookup(text: &str, host: &str, port: u16, dbname: &str, user: &str) -> Option<String> {
    let port = port.to_string();
    text.lines()
        .filter(|line| !line.trim().is_empty() && !line.starts_with('#'))
        .find_map(|line| {
            let fields = split_fields(line);
            let [h, p, d, u, password] = fields.as_slice() else {
                return None;
            };
            let matches = |field: &str, value: &str| field == "*" || field == value;
            (matches(h, host) && matches(p, &port) && matches(d, dbname) && matches(u, user))
                .then(|| password.clone())
        })
}

/// A password-file line's fields: the first four split at unescaped colons, the rest the
/// password.
fn split_fields(line: &str) -> Vec<String> {
    let mut fields = vec![String::new()];
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => fields
                .last_mut()
                .into_iter()
                .for_each(|f| f.extend(chars.next())),
            ':' if fields.len() < 5 => fields.push(String::new()),
            c => fields.last_mut().into_iter().for_each(|f| f.push(c)),
        }
    }
    fields
}

#[cfg(test)]
mod tests {
    use super::*;

    #[track_caller]
    fn check(url: &str, shown: &str) {
        assert_eq!(PostgresUrl::new(url).to_string(), shown);
        assert!(!format!("{:?}", PostgresUrl::new(url)).contains("secret"));
    }

    #[test]
    fn urls_are_shown_without_their_password() {
        check("postgres://u:secret@h:5433/db", "postgres://u@h:5433/db");
        check("postgresql://u@h/db", "postgresql://u@h/db");
        check("postgres://u:sec@ret@h/db", "postgres://u@h/db");
        check("postgres://h/db?password=secret", "postgres://h/db");
        check(
            "postgres://h/db?sslmode=disable&password=secret&x=1",
            "postgres://h/db?sslmode=disable&x=1",
        );
        check("postgres://u:secret@h1,h2", "postgres://u@h1,h2");
        check("postgres://u:se/cr@et@h/db", "postgres://u@h/db");
        check("postgres://h", "postgres://h");
    }

    #[test]
    fn the_first_matching_password_file_line_wins() {
        let text = "# comment\n\
                    other:5432:*:u:nope\n\
                    h:5432:db:u:first\\:pw\n\
                    *:*:*:*:fallback\n";
        let lookup = |host, port, db, user| pgpass_lookup(text, host, port, db, user);
        assert_eq!(lookup("h", 5432, "db", "u").as_deref(), Some("first:pw"));
        assert_eq!(lookup("h", 5433, "db", "u").as_deref(), Some("fallback"));
        assert_eq!(pgpass_lookup("h:1:d:u\n", "h", 1, "d", "u"), None);
        assert_eq!(
            pgpass_lookup("h\\:x:1:d:u:p:q\n", "h:x", 1, "d", "u").as_deref(),
            Some("p:q")
        );
    }
}
