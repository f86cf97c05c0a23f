//! TLS for PostgreSQL connections, libpq's `sslmode`s over rustls (pure Rust apart from
//! ring's primitives; no OpenSSL to install): `disable` plain; `allow`/`prefer` (the default)
//! encrypted when the server offers it, unverified, else plain; `require` encrypted or
//! refused, unverified; `verify-ca` the server's certificate must chain to the root
//! certificates; `verify-full` that, and it must name the host. The roots come from
//! `sslrootcert` (a PEM file), else `PGSSLROOTCERT`, else `~/.postgresql/root.crt`, as in
//! libpq (`sslrootcert=system` is not supported).

use std::path::{Path, PathBuf};
use std::sync::Arc;

use rustls::client::WebPkiServerVerifier;
use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
use rustls::crypto::{CryptoProvider, verify_tls12_signature, verify_tls13_signature};
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, ServerName, UnixTime};
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

/// What a connection needs for TLS: the mode, and for the verifying modes, the root file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Tls {
    pub mode: Mode,
    pub root_cert: Option<PathBuf>,
}

/// The connector for `tls`; `None` for `disable`.
///
/// # Errors
/// A root certificate file that cannot be read (named, with why).
pub fn connector(tls: &Tls) -> Result<Option<MakeRustlsConnect>, InputError> {
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let builder = ClientConfig::builder_with_provider(Arc::clone(&provider))
        .with_safe_default_protocol_versions()
        .map_err(|e| tls_error(&e.to_string()))?;
    let verifier: Arc<dyn ServerCertVerifier> = match tls.mode {
        Mode::Disable => return Ok(None),
        Mode::Allow | Mode::Prefer | Mode::Require => Arc::new(Unverified(Arc::clone(&provider))),
        Mode::VerifyCa | Mode::VerifyFull => {
            let roots = roots(tls.root_cert.as_deref())?;
            let webpki = WebPkiServerVerifier::builder_with_provider(Arc::new(roots), provider)
                .build()
                .map_err(|e| tls_error(&e.to_string()))?;
            if tls.mode == Mode::VerifyFull {
                webpki
            } else {
                Arc::new(AnyName(webpki))
            }
        }
    };
    let config = builder
        .dangerous()
        .with_custom_certificate_verifier(verifier)
        .with_no_client_auth();
    Ok(Some(MakeRustlsConnect::new(config)))
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
