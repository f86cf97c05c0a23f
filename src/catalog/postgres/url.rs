//! A PostgreSQL catalog's URL and its credentials, the libpq way: what the URL says first;
//! what it leaves out from `PGHOST`, `PGPORT`, `PGUSER`, `PGDATABASE`, `PGCONNECT_TIMEOUT`;
//! the password from `PGPASSWORD`, else the first matching line of the password file
//! (`PGPASSFILE`, or `~/.pgpass`; ignored, as libpq does, when others may read it). A URL
//! without a host from either (`postgres:///db`) means the local server's Unix socket.
//!
//! Invariant: the password never leaves this module except into the client's configuration:
//! [`PostgresUrl`]'s `Display` and `Debug` drop it (`user:secret@` becomes `user@`, a
//! `password=` query parameter is left out), and every message about a catalog names it that
//! way.

use std::ffi::OsString;
use std::fmt;
use std::path::PathBuf;
use std::time::Duration;

use ::postgres::Config;
use ::postgres::config::Host;

use super::tls::{ClientCert, Mode, Roots, Tls};
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

    /// The client configuration: the URL's settings, what it leaves out from the `PG*`
    /// environment variables ([`PostgresUrl::config_with`]), a password from `PGPASSWORD` or
    /// the password file when neither gives one, and a connection timeout.
    ///
    /// # Errors
    /// A URL the client cannot read, or a `PGPORT`/`PGCONNECT_TIMEOUT` that is not a number.
    pub fn config(&self) -> Result<Config, InputError> {
        self.config_with(&|name| std::env::var_os(name))
    }

    /// [`PostgresUrl::config`] with the environment given as a lookup (tests pass their own).
    /// As libpq does, each setting the URL leaves out comes from its variable: the host
    /// from `PGHOST` (a comma-separated list; an entry starting with `/` is a Unix socket
    /// directory), the port from `PGPORT` (one for all hosts, or one per host), the user from
    /// `PGUSER` (else the login name, `USER`), the database from `PGDATABASE`, the password
    /// from `PGPASSWORD` or the password file (`PGPASSFILE`, or `~/.pgpass`), the connection
    /// timeout from `PGCONNECT_TIMEOUT` (seconds). Without a host from either, the local
    /// server's Unix socket.
    ///
    /// # Errors
    /// As [`PostgresUrl::config`].
    pub fn config_with(
        &self,
        env: &dyn Fn(&str) -> Option<OsString>,
    ) -> Result<Config, InputError> {
        let var = |name: &str| {
            env(name)
                .and_then(|v| v.into_string().ok())
                .filter(|v| !v.is_empty())
        };
        let bad = |reason: String| InputError::Io {
            path: self.to_string(),
            reason,
        };
        // The client fills in 5432 for a host written without a port, so `PGPORT` goes into
        // the text first.
        let ports: Vec<u16> = match var("PGPORT") {
            Some(ports) => ports
                .split(',')
                .map(|p| {
                    p.trim().parse().map_err(|_| InputError::Argument {
                        argument: "PGPORT".to_owned(),
                        message: format!("expected a port number, found `{}`", p.trim()),
                    })
                })
                .collect::<Result<_, _>>()?,
            None => Vec::new(),
        };
        let mut config: Config = without_tls(&with_ports(&self.0, &ports))
            .0
            .parse()
            .map_err(|e: ::postgres::Error| {
                bad(format!(
                    "expected a PostgreSQL URL like `postgres://user@host/db`: {e}"
                ))
            })?;
        if config.get_hosts().is_empty()
            && config.get_hostaddrs().is_empty()
            && let Some(hosts) = var("PGHOST")
        {
            for host in hosts.split(',').map(str::trim).filter(|h| !h.is_empty()) {
                if host.starts_with('/') {
                    config.host_path(host);
                } else {
                    config.host(host);
                }
            }
        }
        if config.get_ports().is_empty() {
            for &port in &ports {
                config.port(port);
            }
        }
        if config.get_user().is_none()
            && let Some(user) = var("PGUSER").or_else(|| var("USER"))
        {
            config.user(&user);
        }
        if config.get_dbname().is_none()
            && let Some(dbname) = var("PGDATABASE")
        {
            config.dbname(&dbname);
        }
        config.ssl_mode(self.tls_with(env)?.mode.client());
        if config.get_password().is_none()
            && let Some(password) = password_from_environment(&config, &var)
        {
            config.password(password);
        }
        // No host: the local server's Unix socket, where libpq looks on Debian.
        #[cfg(unix)]
        if config.get_hosts().is_empty() && config.get_hostaddrs().is_empty() {
            config.host_path(LOCAL_SOCKET_DIR);
        }
        if config.get_connect_timeout().is_none() {
            let timeout = match var("PGCONNECT_TIMEOUT") {
                Some(seconds) => Duration::from_secs(seconds.trim().parse().map_err(|_| {
                    InputError::Argument {
                        argument: "PGCONNECT_TIMEOUT".to_owned(),
                        message: format!("expected a number of seconds, found `{seconds}`"),
                    }
                })?),
                None => CONNECT_TIMEOUT,
            };
            config.connect_timeout(timeout);
        }
        Ok(config)
    }
}

impl PostgresUrl {
    /// How to secure the connection (module `tls`): `sslmode`, `sslrootcert`, `sslcert` and
    /// `sslkey` from the URL, else `PGSSLMODE`, `PGSSLROOTCERT`, `PGSSLCERT` and `PGSSLKEY`,
    /// else `prefer` (`verify-full` with `sslrootcert=system`), `~/.postgresql/root.crt`, and
    /// `~/.postgresql/postgresql.crt`/`.key` when that certificate is there.
    ///
    /// # Errors
    /// An `sslmode` libpq does not know, or one weaker than `verify-full` with
    /// `sslrootcert=system`.
    pub fn tls(&self) -> Result<Tls, InputError> {
        self.tls_with(&|name| std::env::var_os(name))
    }

    /// [`PostgresUrl::tls`] with the environment given as a lookup.
    ///
    /// # Errors
    /// As [`PostgresUrl::tls`].
    pub fn tls_with(&self, env: &dyn Fn(&str) -> Option<OsString>) -> Result<Tls, InputError> {
        let var = |name: &str| {
            env(name)
                .and_then(|v| v.into_string().ok())
                .filter(|v| !v.is_empty())
        };
        let (_, params) = without_tls(&self.0);
        let home =
            |file: &str| var("HOME").map(|h| PathBuf::from(h).join(".postgresql").join(file));
        let root = params.root.or_else(|| var("PGSSLROOTCERT"));
        let system = root.as_deref() == Some("system");
        let mode = match params.mode.or_else(|| var("PGSSLMODE")) {
            Some(mode) => Mode::parse(&mode)?,
            None if system => Mode::VerifyFull,
            None => Mode::Prefer,
        };
        if system && mode != Mode::VerifyFull {
            return Err(InputError::Argument {
                argument: "sslrootcert".to_owned(),
                message: format!(
                    "`sslrootcert=system` needs `sslmode=verify-full` (its default): with the \
                     system's roots anyone can get a certificate that a weaker mode accepts; \
                     found `sslmode={}`",
                    mode.as_str()
                ),
            });
        }
        let roots = if system {
            Some(Roots::System)
        } else {
            root.map(PathBuf::from)
                .or_else(|| home("root.crt"))
                .filter(|path| mode == Mode::VerifyCa || mode == Mode::VerifyFull || path.exists())
                .map(Roots::File)
        };
        // A certificate named in the URL or `PGSSLCERT` must be readable; the default one is
        // presented only when it is there, as in libpq.
        let key = params
            .key
            .or_else(|| var("PGSSLKEY"))
            .map(PathBuf::from)
            .or_else(|| home("postgresql.key"));
        let client = params
            .cert
            .or_else(|| var("PGSSLCERT"))
            .map(PathBuf::from)
            .or_else(|| home("postgresql.crt").filter(|path| path.exists()))
            .map(|cert| ClientCert { cert, key });
        Ok(Tls {
            mode,
            roots,
            client,
        })
    }

    /// The URL as shown (without its password), and when it names no host, the server the
    /// configuration reaches (from `PGHOST`/`PGPORT` or the local socket), so an error names
    /// the host: `postgres:// (server 10.0.0.5:6432)`.
    #[must_use]
    pub fn shown_with(&self, config: &Config) -> String {
        let shown = self.to_string();
        let names_host = self.0.split_once("://").is_some_and(|(_, rest)| {
            let authority = &rest[..rest.find(['/', '?']).unwrap_or(rest.len())];
            !authority
                .rsplit_once('@')
                .map_or(authority, |(_, h)| h)
                .is_empty()
        });
        if names_host {
            return shown;
        }
        let ports = config.get_ports();
        let servers: Vec<String> = config
            .get_hosts()
            .iter()
            .enumerate()
            .map(|(i, host)| {
                let host = match host {
                    Host::Tcp(h) => h.clone(),
                    #[cfg(unix)]
                    Host::Unix(p) => p.display().to_string(),
                };
                let port = ports.get(i).or(ports.first()).copied().unwrap_or(5432);
                format!("{host}:{port}")
            })
            .collect();
        format!("{shown} (server {})", servers.join(", "))
    }
}

/// The TLS parameters of a URL's query, which the client does not know (it has no
/// `verify-*` mode, no root file, no client certificate: module `tls` does those).
#[derive(Default)]
struct TlsParams {
    mode: Option<String>,
    root: Option<String>,
    cert: Option<String>,
    key: Option<String>,
}

/// `url` without its `sslmode`, `sslrootcert`, `sslcert` and `sslkey` query parameters, and
/// their values.
fn without_tls(url: &str) -> (String, TlsParams) {
    let mut params = TlsParams::default();
    let Some((before, query)) = url.split_once('?') else {
        return (url.to_owned(), params);
    };
    let kept: Vec<&str> = query
        .split('&')
        .filter(|p| {
            let Some((name, value)) = p.split_once('=') else {
                return true;
            };
            let slot = match name {
                "sslmode" => &mut params.mode,
                "sslrootcert" => &mut params.root,
                "sslcert" => &mut params.cert,
                "sslkey" => &mut params.key,
                _ => return true,
            };
            *slot = Some(value.to_owned());
            false
        })
        .collect();
    let url = if kept.is_empty() {
        before.to_owned()
    } else {
        format!("{before}?{}", kept.join("&"))
    };
    (url, params)
}

/// `url` with `ports` given to the hosts it writes without one (the first port to every
/// host when there is one port, else the port of the same place), as libpq reads `PGPORT`.
/// A URL that names a port anywhere (a host's, or `port=` in the query) is left alone.
fn with_ports(url: &str, ports: &[u16]) -> String {
    let Some((scheme, rest)) = url.split_once("://") else {
        return url.to_owned();
    };
    let end = rest.find(['/', '?']).unwrap_or(rest.len());
    let (authority, tail) = rest.split_at(end);
    let (userinfo, hosts) = match authority.rsplit_once('@') {
        Some((userinfo, hosts)) => (Some(userinfo), hosts),
        None => (None, authority),
    };
    let has_port = |host: &str| {
        let after_bracket = host.rsplit_once(']').map_or(host, |(_, after)| after);
        after_bracket.contains(':')
    };
    let query_port = tail
        .split_once('?')
        .is_some_and(|(_, q)| q.split('&').any(|p| p.starts_with("port=")));
    if ports.is_empty() || hosts.is_empty() || query_port || hosts.split(',').any(has_port) {
        return url.to_owned();
    }
    let hosts: Vec<String> = hosts
        .split(',')
        .enumerate()
        .map(|(i, host)| {
            let port = ports.get(i).or(ports.first()).copied().unwrap_or(5432);
            format!("{host}:{port}")
        })
        .collect();
    let userinfo = userinfo.map(|u| format!("{u}@")).unwrap_or_default();
    format!("{scheme}://{userinfo}{}{tail}", hosts.join(","))
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
fn password_from_environment(
    config: &Config,
    var: &dyn Fn(&str) -> Option<String>,
) -> Option<String> {
    if let Some(password) = var("PGPASSWORD") {
        return Some(password);
    }
    let file = var("PGPASSFILE")
        .map(PathBuf::from)
        .or_else(|| var("HOME").map(|home| PathBuf::from(home).join(".pgpass")))?;
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
    let user = config.get_user().map(str::to_owned)?;
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
    use std::collections::BTreeMap;

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

    /// The configuration `url` gives in an environment of `vars` only.
    fn config(url: &str, vars: &[(&str, &str)]) -> Result<Config, String> {
        let vars: BTreeMap<String, OsString> = vars
            .iter()
            .map(|(k, v)| ((*k).to_owned(), OsString::from(v)))
            .collect();
        PostgresUrl::new(url)
            .config_with(&|name| vars.get(name).cloned())
            .map_err(|e| e.to_string())
    }

    fn hosts(config: &Config) -> Vec<String> {
        config
            .get_hosts()
            .iter()
            .map(|h| match h {
                Host::Tcp(h) => h.clone(),
                Host::Unix(p) => p.display().to_string(),
            })
            .collect()
    }

    #[test]
    fn what_the_url_leaves_out_comes_from_pg_variables() {
        let env = [
            ("PGHOST", "db.example, /run/pg"),
            ("PGPORT", "6432"),
            ("PGUSER", "alice"),
            ("PGDATABASE", "catalog"),
            ("PGPASSWORD", "secret"),
            ("PGCONNECT_TIMEOUT", "3"),
            ("USER", "login"),
        ];
        let c = config("postgres://", &env).unwrap();
        assert_eq!(hosts(&c), ["db.example", "/run/pg"]);
        assert_eq!(c.get_ports(), [6432]);
        assert_eq!(c.get_user(), Some("alice"));
        assert_eq!(c.get_dbname(), Some("catalog"));
        assert_eq!(c.get_password(), Some(&b"secret"[..]));
        assert_eq!(c.get_connect_timeout(), Some(&Duration::from_secs(3)));
        // the URL wins over every variable
        let c = config("postgres://bob:pw@h:5433/db?connect_timeout=7", &env).unwrap();
        assert_eq!(hosts(&c), ["h"]);
        assert_eq!(c.get_ports(), [5433]);
        assert_eq!(c.get_user(), Some("bob"));
        assert_eq!(c.get_dbname(), Some("db"));
        assert_eq!(c.get_password(), Some(&b"pw"[..]));
        assert_eq!(c.get_connect_timeout(), Some(&Duration::from_secs(7)));
    }

    #[test]
    fn a_url_without_a_host_is_shown_with_the_server_it_reaches() {
        let env = [
            ("PGHOST", "db.example"),
            ("PGPORT", "6432"),
            ("PGPASSWORD", "secret"),
        ];
        let url = PostgresUrl::new("postgres://u@/db");
        let shown = url.shown_with(&config("postgres://u@/db", &env).unwrap());
        assert_eq!(shown, "postgres://u@/db (server db.example:6432)");
        let url = PostgresUrl::new("postgres://u:secret@h/db");
        let shown = url.shown_with(&config("postgres://u:secret@h/db", &env).unwrap());
        assert_eq!(shown, "postgres://u@h/db");
    }

    #[track_caller]
    fn tls(url: &str, vars: &[(&str, &str)]) -> Result<(Mode, Option<String>), String> {
        let vars: BTreeMap<String, OsString> = vars
            .iter()
            .map(|(k, v)| ((*k).to_owned(), OsString::from(v)))
            .collect();
        PostgresUrl::new(url)
            .tls_with(&|name| vars.get(name).cloned())
            .map(|t| {
                let root = t.roots.map(|r| match r {
                    Roots::File(p) => p.display().to_string(),
                    Roots::System => "system".to_owned(),
                });
                (t.mode, root)
            })
            .map_err(|e| e.to_string())
    }

    #[test]
    fn sslmode_and_the_root_file_come_from_the_url_then_the_environment() {
        let home = [("HOME", "/home/u")];
        assert_eq!(tls("postgres://h/db", &home), Ok((Mode::Prefer, None)));
        assert_eq!(
            tls(
                "postgres://h/db?sslmode=require",
                &[("PGSSLMODE", "disable")]
            ),
            Ok((Mode::Require, None))
        );
        assert_eq!(
            tls(
                "postgres://h/db",
                &[("PGSSLMODE", "verify-ca"), ("HOME", "/home/u")]
            ),
            Ok((
                Mode::VerifyCa,
                Some("/home/u/.postgresql/root.crt".to_owned())
            ))
        );
        assert_eq!(
            tls(
                "postgres://h/db?sslrootcert=/etc/ca.pem&sslmode=verify-full",
                &[("PGSSLROOTCERT", "/other.pem")]
            ),
            Ok((Mode::VerifyFull, Some("/etc/ca.pem".to_owned())))
        );
        assert_eq!(
            tls("postgres://h/db?sslmode=maybe", &[]),
            Err(
                "sslmode: expected `disable`, `allow`, `prefer`, `require`, `verify-ca` or \
                 `verify-full`, found `maybe`"
                    .to_owned()
            )
        );
        // the client sees the mode it knows, and no parameter it does not
        let c = config(
            "postgres://u@h/db?sslmode=verify-full&sslrootcert=/ca.pem&application_name=x",
            &[],
        )
        .unwrap();
        assert_eq!(c.get_ssl_mode(), ::postgres::config::SslMode::Require);
        assert_eq!(c.get_application_name(), Some("x"));
        let c = config("postgres://u@h/db", &[("PGSSLMODE", "disable")]).unwrap();
        assert_eq!(c.get_ssl_mode(), ::postgres::config::SslMode::Disable);
        assert_eq!(
            without_tls("postgres://h/db?sslmode=require").0,
            "postgres://h/db"
        );
        let c = config(
            "postgres://u@h/db?sslcert=/c.crt&connect_timeout=3&sslkey=/c.key",
            &[],
        )
        .unwrap();
        assert_eq!(c.get_connect_timeout(), Some(&Duration::from_secs(3)));
    }

    #[test]
    fn sslrootcert_system_means_verify_full_and_refuses_weaker_modes() {
        assert_eq!(
            tls("postgres://h/db?sslrootcert=system", &[]),
            Ok((Mode::VerifyFull, Some("system".to_owned())))
        );
        assert_eq!(
            tls("postgres://h/db", &[("PGSSLROOTCERT", "system")]),
            Ok((Mode::VerifyFull, Some("system".to_owned())))
        );
        assert_eq!(
            tls(
                "postgres://h/db?sslmode=verify-full",
                &[("PGSSLROOTCERT", "system")]
            ),
            Ok((Mode::VerifyFull, Some("system".to_owned())))
        );
        for weaker in ["disable", "prefer", "require", "verify-ca"] {
            let expected = format!(
                "sslrootcert: `sslrootcert=system` needs `sslmode=verify-full` (its default): \
                 with the system's roots anyone can get a certificate that a weaker mode \
                 accepts; found `sslmode={weaker}`"
            );
            assert_eq!(
                tls(
                    &format!("postgres://h/db?sslrootcert=system&sslmode={weaker}"),
                    &[]
                ),
                Err(expected.clone())
            );
            assert_eq!(
                tls(
                    "postgres://h/db?sslrootcert=system",
                    &[("PGSSLMODE", weaker)]
                ),
                Err(expected)
            );
        }
        // a file named `system` elsewhere in the path is a file
        assert_eq!(
            tls(
                "postgres://h/db?sslrootcert=./system&sslmode=verify-ca",
                &[]
            ),
            Ok((Mode::VerifyCa, Some("./system".to_owned())))
        );
    }

    /// The client certificate and key `url` gives in an environment of `vars` only.
    fn client(url: &str, vars: &[(&str, &str)]) -> Option<(String, Option<String>)> {
        let vars: BTreeMap<String, OsString> = vars
            .iter()
            .map(|(k, v)| ((*k).to_owned(), OsString::from(v)))
            .collect();
        let tls = PostgresUrl::new(url)
            .tls_with(&|name| vars.get(name).cloned())
            .unwrap();
        tls.client.map(|c| {
            (
                c.cert.display().to_string(),
                c.key.map(|k| k.display().to_string()),
            )
        })
    }

    #[test]
    fn the_client_certificate_comes_from_the_url_then_the_environment_then_home() {
        let pair = |cert: &str, key: Option<&str>| Some((cert.to_owned(), key.map(str::to_owned)));
        let env = [("PGSSLCERT", "/env.crt"), ("PGSSLKEY", "/env.key")];
        assert_eq!(
            client("postgres://h/db?sslcert=/url.crt&sslkey=/url.key", &env),
            pair("/url.crt", Some("/url.key"))
        );
        assert_eq!(
            client("postgres://h/db", &env),
            pair("/env.crt", Some("/env.key"))
        );
        assert_eq!(
            client("postgres://h/db?sslcert=/url.crt", &[("HOME", "/home/u")]),
            pair("/url.crt", Some("/home/u/.postgresql/postgresql.key"))
        );
        assert_eq!(
            client("postgres://h/db?sslcert=/url.crt", &[]),
            pair("/url.crt", None)
        );
        // no certificate named: the one in the home directory only when it is there
        assert_eq!(client("postgres://h/db?sslkey=/url.key", &[]), None);
        assert_eq!(client("postgres://h/db", &[("HOME", "/nonexistent")]), None);
        let home = std::env::temp_dir().join(format!("compat-pghome-{}", std::process::id()));
        std::fs::create_dir_all(home.join(".postgresql")).unwrap();
        std::fs::write(home.join(".postgresql/postgresql.crt"), "").unwrap();
        let home_str = home.display().to_string();
        assert_eq!(
            client("postgres://h/db", &[("HOME", &home_str)]),
            pair(
                &format!("{home_str}/.postgresql/postgresql.crt"),
                Some(&format!("{home_str}/.postgresql/postgresql.key"))
            )
        );
        let _ = std::fs::remove_dir_all(&home);
        // the client never sees the parameters
        assert_eq!(
            without_tls("postgres://h/db?sslcert=/a&sslkey=/b&x=1").0,
            "postgres://h/db?x=1"
        );
    }

    #[test]
    fn without_variables_the_defaults_hold() {
        let c = config("postgres:///db", &[("USER", "login")]).unwrap();
        assert_eq!(c.get_user(), Some("login"));
        assert_eq!(c.get_password(), None);
        assert_eq!(c.get_connect_timeout(), Some(&CONNECT_TIMEOUT));
        #[cfg(unix)]
        assert_eq!(hosts(&c), [LOCAL_SOCKET_DIR]);
        // one port per host
        let c = config("postgres://u@/db", &[("PGHOST", "a,b"), ("PGPORT", "1,2")]).unwrap();
        assert_eq!(c.get_ports(), [1, 2]);
        // a host written without a port takes `PGPORT`; one with a port keeps it
        let c = config("postgres://u@h1,[::1]/db", &[("PGPORT", "7")]).unwrap();
        assert_eq!(hosts(&c), ["h1", "::1"]);
        assert_eq!(c.get_ports(), [7, 7]);
        let c = config("postgres://u@h1:1,h2/db", &[("PGPORT", "7")]).unwrap();
        assert_eq!(c.get_ports(), [1, 5432]);
        // empty variables count as unset, as in libpq
        let c = config("postgres://u@h/db", &[("PGPORT", ""), ("PGPASSWORD", "")]).unwrap();
        assert!(c.get_ports() == [5432] && c.get_password().is_none());
    }

    #[test]
    fn variables_that_are_not_numbers_are_named() {
        assert_eq!(
            config("postgres://u:secret@h/db", &[("PGPORT", "x")]).unwrap_err(),
            "PGPORT: expected a port number, found `x`"
        );
        assert_eq!(
            config("postgres://u@h/db", &[("PGCONNECT_TIMEOUT", "soon")]).unwrap_err(),
            "PGCONNECT_TIMEOUT: expected a number of seconds, found `soon`"
        );
    }

    #[test]
    fn the_password_file_is_read_for_the_host_and_user_the_variables_give() {
        let dir = std::env::temp_dir().join(format!("compat-pgpass-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("pgpass");
        std::fs::write(&file, "db.example:6432:catalog:alice:from-file\n").unwrap();
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o600)).unwrap();
        }
        let env = [
            ("PGHOST", "db.example"),
            ("PGPORT", "6432"),
            ("PGUSER", "alice"),
            ("PGDATABASE", "catalog"),
            ("PGPASSFILE", file.to_str().unwrap()),
        ];
        let c = config("postgresql://", &env).unwrap();
        assert_eq!(c.get_password(), Some(&b"from-file"[..]));
        let c = config("postgresql://bob@", &env).unwrap();
        assert_eq!(c.get_password(), None);
        let _ = std::fs::remove_dir_all(&dir);
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
