//! TLS for PostgreSQL connections, libpq's `sslmode`s over rustls (pure Rust apart from
//! ring's primitives; no OpenSSL to install): `disable` plain; `allow`/`prefer` (the default)
//! encrypted when the server offers it, unverified, else plain; `require` encrypted or
//! refused, unverified; `verify-ca` the server's certificate must chain to the root
//! certificates; `verify-full` that, and it must name the host. The roots come from
//! `sslrootcert` (a PEM file, or `system`: the operating system's trust store, which makes
//! `verify-full` the default and refuses weaker modes, as libpq 16 does), else
//! `PGSSLROOTCERT`, else `~/.postgresql/root.crt`. A client certificate (`sslcert` and
//! `sslkey`, else `PGSSLCERT`/`PGSSLKEY`, else `~/.postgresql/postgresql.crt` and `.key` when
//! the certificate is there) is presented when the server asks for one.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
use rustls::client::{ResolvesClientCert, WebPkiServerVerifier};
use rustls::crypto::{CryptoProvider, verify_tls12_signature, verify_tls13_signature};
use rustls::pki_types::pem::{self, PemObject};
use rustls::pki_types::{CertificateDer, PrivateKeyDer, ServerName, UnixTime};
use rustls::sign::CertifiedKey;
use rustls::{
    CertificateError, ClientConfig, DigitallySignedStruct, RootCertStore, SignatureScheme,
};
use tokio_postgres_rustls::MakeRustlsConnect;

use crate::diagnostic::InputError;

/// A URL's `sslmode`, as libpq spells them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    Disable,
    Allow,
    Prefer,
    Require,
    VerifyCa,
    VerifyFull,
}

impl Mode {
    /// # Errors
    /// A value libpq does not know.
    pub fn parse(text: &str) -> Result<Mode, InputError> {
        Ok(match text {
            "disable" => Mode::Disable,
            "allow" => Mode::Allow,
            "prefer" => Mode::Prefer,
            "require" => Mode::Require,
            "verify-ca" => Mode::VerifyCa,
            "verify-full" => Mode::VerifyFull,
            other => {
                return Err(InputError::Argument {
                    argument: "sslmode".to_owned(),
                    message: format!(
                        "expected `disable`, `allow`, `prefer`, `require`, `verify-ca` or \
                         `verify-full`, found `{other}`"
                    ),
                });
            }
        })
    }

    /// The mode as libpq spells it.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Mode::Disable => "disable",
            Mode::Allow => "allow",
            Mode::Prefer => "prefer",
            Mode::Require => "require",
            Mode::VerifyCa => "verify-ca",
            Mode::VerifyFull => "verify-full",
        }
    }

    /// The client's own setting: it knows only whether TLS is off, tried or required.
    #[must_use]
    pub fn client(self) -> ::postgres::config::SslMode {
        use ::postgres::config::SslMode;
        match self {
            Mode::Disable => SslMode::Disable,
            Mode::Allow | Mode::Prefer => SslMode::Prefer,
            Mode::Require | Mode::VerifyCa | Mode::VerifyFull => SslMode::Require,
        }
    }
}

/// Where the trusted root certificates come from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Roots {
    /// A PEM file.
    File(PathBuf),
    /// The operating system's trust store (`sslrootcert=system`; `SSL_CERT_FILE` and
    /// `SSL_CERT_DIR` move it, as for OpenSSL).
    System,
}

/// The certificate the client presents, and its private key (both PEM files).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ClientCert {
    pub cert: PathBuf,
    /// `None` when neither the URL, `PGSSLKEY` nor a home directory names one.
    pub key: Option<PathBuf>,
}

/// What a connection needs for TLS: the mode, for the verifying modes the roots, and the
/// client certificate when there is one.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Tls {
    pub mode: Mode,
    pub roots: Option<Roots>,
    pub client: Option<ClientCert>,
}

/// The connector for `tls`; `None` for `disable`.
///
/// # Errors
/// As [`client_config`].
pub fn connector(tls: &Tls) -> Result<Option<MakeRustlsConnect>, InputError> {
    Ok(client_config(tls)?.map(MakeRustlsConnect::new))
}

/// The rustls configuration for `tls`; `None` for `disable`.
///
/// # Errors
/// A root, certificate or key file that cannot be read or holds nothing usable (named, with
/// why), a key others may read, no system roots.
pub fn client_config(tls: &Tls) -> Result<Option<ClientConfig>, InputError> {
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let builder = ClientConfig::builder_with_provider(Arc::clone(&provider))
        .with_safe_default_protocol_versions()
        .map_err(|e| tls_error(&e.to_string()))?;
    let verifier: Arc<dyn ServerCertVerifier> = match tls.mode {
        Mode::Disable => return Ok(None),
        Mode::Allow | Mode::Prefer | Mode::Require => Arc::new(Unverified(Arc::clone(&provider))),
        Mode::VerifyCa | Mode::VerifyFull => {
            let roots = match &tls.roots {
                Some(Roots::System) => system_roots(native_roots())?,
                Some(Roots::File(file)) => roots(Some(file))?,
                None => roots(None)?,
            };
            let webpki =
                WebPkiServerVerifier::builder_with_provider(Arc::new(roots), Arc::clone(&provider))
                    .build()
                    .map_err(|e| tls_error(&e.to_string()))?;
            if tls.mode == Mode::VerifyFull {
                webpki
            } else {
                Arc::new(AnyName(webpki))
            }
        }
    };
    let builder = builder
        .dangerous()
        .with_custom_certificate_verifier(verifier);
    let config = match &tls.client {
        None => builder.with_no_client_auth(),
        Some(client) => {
            let identity = identity(client, &provider)?;
            builder.with_client_cert_resolver(Arc::new(Always(Arc::new(identity))))
        }
    };
    Ok(Some(config))
}

/// The client certificate, offered whenever the server asks for one. Not rustls's own
/// (`with_client_auth_cert`): that first parses the certificate with webpki, which refuses
/// X.509 version 1 certificates (what `openssl x509 -req` makes without extensions), and
/// libpq presents those. A key that does not match its certificate fails the handshake.
#[derive(Debug)]
struct Always(Arc<CertifiedKey>);

impl ResolvesClientCert for Always {
    fn resolve(&self, _: &[&[u8]], _: &[SignatureScheme]) -> Option<Arc<CertifiedKey>> {
        Some(Arc::clone(&self.0))
    }

    fn has_certs(&self) -> bool {
        true
    }
}

/// The client certificate chain and its key, read from their PEM files, as rustls signs with
/// them.
fn identity(client: &ClientCert, provider: &CryptoProvider) -> Result<CertifiedKey, InputError> {
    let cert_error = |reason: String| InputError::Io {
        path: client.cert.display().to_string(),
        reason,
    };
    let chain = CertificateDer::pem_file_iter(&client.cert)
        .and_then(Iterator::collect::<Result<Vec<_>, _>>)
        .map_err(|e| pem_error(&client.cert, "a PEM client certificate", e))?;
    if chain.is_empty() {
        return Err(cert_error(
            "expected a PEM client certificate, found none".to_owned(),
        ));
    }
    let Some(key_file) = &client.key else {
        return Err(InputError::Argument {
            argument: "sslkey".to_owned(),
            message: format!(
                "the client certificate {} needs its private key: give `sslkey=FILE` in the \
                 URL or PGSSLKEY",
                client.cert.display()
            ),
        });
    };
    let key_error = |reason: String| InputError::Io {
        path: key_file.display().to_string(),
        reason,
    };
    check_private(key_file)?;
    let key = PrivateKeyDer::from_pem_file(key_file).map_err(|e| match e {
        pem::Error::NoItemsFound => {
            key_error("expected an unencrypted PEM private key, found none".to_owned())
        }
        e => pem_error(key_file, "an unencrypted PEM private key", e),
    })?;
    let key = provider
        .key_provider
        .load_private_key(key)
        .map_err(|e| key_error(format!("not a usable private key: {e}")))?;
    Ok(CertifiedKey::new(chain, key))
}

/// Why a PEM file could not be read: the system's reason when it could not be opened, else
/// what it should have held.
fn pem_error(file: &Path, expected: &str, error: pem::Error) -> InputError {
    match error {
        pem::Error::Io(e) => InputError::io(file.display(), &e),
        e => InputError::Io {
            path: file.display().to_string(),
            reason: format!("expected {expected}: {e}"),
        },
    }
}

/// libpq refuses a private key file that others may read or anyone but its owner may
/// write (it allows group read, for a key owned by root and shared with a group).
#[cfg(unix)]
fn check_private(file: &Path) -> Result<(), InputError> {
    use std::os::unix::fs::PermissionsExt;
    let metadata = std::fs::metadata(file).map_err(|e| InputError::io(file.display(), &e))?;
    let mode = metadata.permissions().mode();
    if mode & 0o037 != 0 {
        return Err(InputError::Io {
            path: file.display().to_string(),
            reason: format!(
                "the private key file has group or world access (mode {:o}); it must be 0600 \
                 or less (`chmod 600`)",
                mode & 0o777
            ),
        });
    }
    Ok(())
}

#[cfg(not(unix))]
fn check_private(_: &Path) -> Result<(), InputError> {
    Ok(())
}

/// The operating system's root certificates, as OpenSSL finds them (`SSL_CERT_FILE`,
/// `SSL_CERT_DIR`, else the distribution's bundle): the certificates, and why some could not
/// be read.
fn native_roots() -> (Vec<CertificateDer<'static>>, Vec<String>) {
    let found = rustls_native_certs::load_native_certs();
    (
        found.certs,
        found.errors.iter().map(ToString::to_string).collect(),
    )
}

/// The system's roots as a store; none usable is an error saying where they are looked for.
fn system_roots(
    (certs, errors): (Vec<CertificateDer<'static>>, Vec<String>),
) -> Result<RootCertStore, InputError> {
    let mut roots = RootCertStore::empty();
    let (added, _) = roots.add_parsable_certificates(certs);
    if added == 0 {
        let why = errors
            .first()
            .map_or_else(|| "none found".to_owned(), |e| format!("none usable ({e})"));
        return Err(InputError::Argument {
            argument: "sslrootcert=system".to_owned(),
            message: format!(
                "the system's root certificates: {why}; install the ca-certificates package or \
                 set SSL_CERT_FILE"
            ),
        });
    }
    Ok(roots)
}

fn tls_error(reason: &str) -> InputError {
    InputError::Argument {
        argument: "sslmode".to_owned(),
        message: format!("cannot set up TLS: {reason}"),
    }
}

/// The certificates of a PEM file, as trusted roots.
fn roots(file: Option<&Path>) -> Result<RootCertStore, InputError> {
    let Some(file) = file else {
        return Err(InputError::Argument {
            argument: "sslrootcert".to_owned(),
            message: "`verify-ca` and `verify-full` need root certificates: give \
                      `sslrootcert=FILE` in the URL, PGSSLROOTCERT, or ~/.postgresql/root.crt"
                .to_owned(),
        });
    };
    let unreadable = |reason: String| InputError::Io {
        path: file.display().to_string(),
        reason,
    };
    let mut roots = RootCertStore::empty();
    let certs = CertificateDer::pem_file_iter(file)
        .map_err(|e| unreadable(format!("expected PEM root certificates: {e}")))?;
    for cert in certs {
        let cert = cert.map_err(|e| unreadable(format!("expected PEM root certificates: {e}")))?;
        roots
            .add(cert)
            .map_err(|e| unreadable(format!("not a usable root certificate: {e}")))?;
    }
    if roots.is_empty() {
        return Err(unreadable(
            "expected PEM root certificates, found none".to_owned(),
        ));
    }
    Ok(roots)
}

/// `require` (and `prefer`) as libpq has them: encrypted, the certificate not checked (only
/// the handshake's signatures, so the session is bound to the key it presented).
#[derive(Debug)]
struct Unverified(Arc<CryptoProvider>);

impl ServerCertVerifier for Unverified {
    fn verify_server_cert(
        &self,
        _: &CertificateDer<'_>,
        _: &[CertificateDer<'_>],
        _: &ServerName<'_>,
        _: &[u8],
        _: UnixTime,
    ) -> Result<ServerCertVerified, rustls::Error> {
        Ok(ServerCertVerified::assertion())
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        verify_tls12_signature(
            message,
            cert,
            dss,
            &self.0.signature_verification_algorithms,
        )
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        verify_tls13_signature(
            message,
            cert,
            dss,
            &self.0.signature_verification_algorithms,
        )
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.0.signature_verification_algorithms.supported_schemes()
    }
}

/// `verify-ca`: the chain is checked, the name is not.
#[derive(Debug)]
struct AnyName(Arc<WebPkiServerVerifier>);

impl ServerCertVerifier for AnyName {
    fn verify_server_cert(
        &self,
        end_entity: &CertificateDer<'_>,
        intermediates: &[CertificateDer<'_>],
        server_name: &ServerName<'_>,
        ocsp: &[u8],
        now: UnixTime,
    ) -> Result<ServerCertVerified, rustls::Error> {
        match self
            .0
            .verify_server_cert(end_entity, intermediates, server_name, ocsp, now)
        {
            Err(rustls::Error::InvalidCertificate(
                CertificateError::NotValidForName | CertificateError::NotValidForNameContext { .. },
            )) => Ok(ServerCertVerified::assertion()),
            other => other,
        }
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        self.0.verify_tls12_signature(message, cert, dss)
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        self.0.verify_tls13_signature(message, cert, dss)
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.0.supported_verify_schemes()
    }
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use super::*;

    fn testdata(file: &str) -> PathBuf {
        PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("testdata/tls")
            .join(file)
    }

    /// A scratch directory of this test's own, with the test key copied in at `mode` (git
    /// keeps no permissions, so the checked-in key's are not the ones tested).
    fn key_with_mode(test: &str, mode: u32) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("compat-tls-{test}-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let key = dir.join("client.key");
        std::fs::copy(testdata("client.key"), &key).unwrap();
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(&key, std::fs::Permissions::from_mode(mode)).unwrap();
        }
        #[cfg(not(unix))]
        let _ = mode;
        key
    }

    fn tls(mode: Mode, roots: Option<Roots>, client: Option<ClientCert>) -> Tls {
        Tls {
            mode,
            roots,
            client,
        }
    }

    fn error(tls: &Tls) -> String {
        client_config(tls)
            .err()
            .map(|e| e.to_string())
            .unwrap_or_default()
    }

    #[test]
    fn disable_needs_no_configuration_and_reads_no_file() {
        let missing = ClientCert {
            cert: PathBuf::from("/nonexistent/client.crt"),
            key: None,
        };
        assert!(
            client_config(&tls(Mode::Disable, None, Some(missing)))
                .unwrap()
                .is_none()
        );
    }

    #[test]
    fn a_client_certificate_and_its_key_are_presented() {
        let key = key_with_mode("presented", 0o600);
        let client = ClientCert {
            cert: testdata("client.crt"),
            key: Some(key.clone()),
        };
        let config = client_config(&tls(Mode::Require, None, Some(client)))
            .unwrap()
            .unwrap();
        assert!(config.client_auth_cert_resolver.has_certs());
        let config = client_config(&tls(Mode::Require, None, None))
            .unwrap()
            .unwrap();
        assert!(!config.client_auth_cert_resolver.has_certs());
        // verified modes too, with the test certificate as the root
        let client = ClientCert {
            cert: testdata("client.crt"),
            key: Some(key.clone()),
        };
        let roots = Some(Roots::File(testdata("client.crt")));
        let config = client_config(&tls(Mode::VerifyFull, roots, Some(client)))
            .unwrap()
            .unwrap();
        assert!(config.client_auth_cert_resolver.has_certs());
        let _ = std::fs::remove_dir_all(key.parent().unwrap());
    }

    #[test]
    fn unreadable_certificate_files_are_named_in_one_line() {
        let key = key_with_mode("unreadable", 0o600);
        let with = |cert: PathBuf, key: Option<PathBuf>| {
            error(&tls(Mode::Prefer, None, Some(ClientCert { cert, key })))
        };
        let missing = with(PathBuf::from("/nonexistent/client.crt"), Some(key.clone()));
        assert_eq!(
            missing,
            "/nonexistent/client.crt: cannot read: no such file or directory"
        );
        let not_pem = with(testdata("README.md"), Some(key.clone()));
        assert!(
            not_pem
                .ends_with("README.md: cannot read: expected a PEM client certificate, found none"),
            "{not_pem}"
        );
        let no_key = with(
            testdata("client.crt"),
            Some(PathBuf::from("/nonexistent/k.key")),
        );
        assert!(
            no_key.starts_with("/nonexistent/k.key: cannot read: "),
            "{no_key}"
        );
        let key_is_cert = with(testdata("client.crt"), Some(testdata("client.crt")));
        assert!(
            key_is_cert.contains("client.crt: cannot read: "),
            "{key_is_cert}"
        );
        let unnamed_key = with(testdata("client.crt"), None);
        assert!(
            unnamed_key.starts_with("sslkey: the client certificate "),
            "{unnamed_key}"
        );
        let root = error(&tls(
            Mode::VerifyCa,
            Some(Roots::File(PathBuf::from("/nonexistent/ca.pem"))),
            None,
        ));
        assert!(
            root.starts_with("/nonexistent/ca.pem: cannot read: "),
            "{root}"
        );
        for message in [missing, not_pem, no_key, key_is_cert, unnamed_key, root] {
            assert!(!message.contains('\n'), "{message}");
        }
        let _ = std::fs::remove_dir_all(key.parent().unwrap());
    }

    #[cfg(unix)]
    #[test]
    fn a_key_others_may_read_is_refused() {
        let key = key_with_mode("shared", 0o644);
        let client = ClientCert {
            cert: testdata("client.crt"),
            key: Some(key.clone()),
        };
        let message = error(&tls(Mode::Require, None, Some(client)));
        assert_eq!(
            message,
            format!(
                "{}: cannot read: the private key file has group or world access (mode 644); \
                 it must be 0600 or less (`chmod 600`)",
                key.display()
            )
        );
        let _ = std::fs::remove_dir_all(key.parent().unwrap());
    }

    #[test]
    fn the_system_roots_must_hold_a_usable_certificate() {
        let cert: Vec<CertificateDer<'static>> =
            CertificateDer::pem_file_iter(testdata("client.crt"))
                .unwrap()
                .collect::<Result<_, _>>()
                .unwrap();
        assert_eq!(system_roots((cert, Vec::new())).unwrap().len(), 1);
        assert_eq!(
            system_roots((Vec::new(), Vec::new()))
                .unwrap_err()
                .to_string(),
            "sslrootcert=system: the system's root certificates: none found; install the \
             ca-certificates package or set SSL_CERT_FILE"
        );
        assert_eq!(
            system_roots((Vec::new(), vec!["/etc/ssl/certs: denied".to_owned()]))
                .unwrap_err()
                .to_string(),
            "sslrootcert=system: the system's root certificates: none usable (/etc/ssl/certs: \
             denied); install the ca-certificates package or set SSL_CERT_FILE"
        );
    }
}
