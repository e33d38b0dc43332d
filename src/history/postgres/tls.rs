//! TLS to the shared database with rustls, never OpenSSL, as libpq's
//! `sslmode` says: `verify-full` checks the certificate against the roots
//! (webpki's, or `sslrootcert`) and the host name, `verify-ca` the
//! certificate only, `require` and `prefer` encrypt without checking it.

use std::path::Path;
use std::sync::Arc;

use rustls::client::WebPkiServerVerifier;
use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, ServerName, UnixTime};
use rustls::{CertificateError, DigitallySignedStruct, SignatureScheme};

use crate::history::HistoryError;

/// `sslmode`, as libpq names them, weakest first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum TlsMode {
    /// Plain TCP.
    Disable,
    /// Encrypted when the server offers it (the default on loopback).
    Prefer,
    /// Encrypted, the certificate not checked (libpq's `require` without a
    /// root certificate).
    Require,
    /// Encrypted, the certificate checked against the roots, not the host
    /// name (also `require` with `sslrootcert`, as libpq).
    VerifyCa,
    /// Encrypted, the certificate checked against the roots (webpki's, or
    /// `sslrootcert`) and the host name (the default off loopback).
    VerifyFull,
}

impl TlsMode {
    pub(super) fn parse(raw: &str) -> Result<Self, HistoryError> {
        match raw {
            "disable" => Ok(Self::Disable),
            "prefer" | "allow" => Ok(Self::Prefer),
            "require" => Ok(Self::Require),
            "verify-ca" => Ok(Self::VerifyCa),
            "verify-full" => Ok(Self::VerifyFull),
            other => Err(HistoryError::Url(format!(
                "sslmode={} is not one of disable, prefer, require, verify-ca, verify-full",
                crate::text::escape_invisible(other)
            ))),
        }
    }

    /// libpq's name.
    pub fn name(self) -> &'static str {
        match self {
            Self::Disable => "disable",
            Self::Prefer => "prefer",
            Self::Require => "require",
            Self::VerifyCa => "verify-ca",
            Self::VerifyFull => "verify-full",
        }
    }

    /// What a man in the middle can do under this mode, when it is weaker
    /// than `verify-full`.
    pub(super) fn weakness(self) -> Option<&'static str> {
        match self {
            Self::Disable => Some("the connection is not encrypted"),
            Self::Prefer => Some("the connection may go unencrypted"),
            Self::Require => Some("the server's certificate is not checked"),
            Self::VerifyCa => Some("the server's host name is not checked"),
            Self::VerifyFull => None,
        }
    }
}

/// The rustls connector for `mode`, with `root_cert` (else webpki's roots)
/// where the certificate is checked.
pub(super) fn connector(
    mode: TlsMode,
    root_cert: Option<&Path>,
) -> Result<tokio_postgres_rustls::MakeRustlsConnect, HistoryError> {
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let builder = rustls::ClientConfig::builder_with_provider(provider.clone())
        .with_safe_default_protocol_versions()
        .map_err(|error| HistoryError::Url(format!("TLS: {error}")))?;
    let config = match mode {
        TlsMode::VerifyFull => builder
            .with_root_certificates(roots(root_cert)?)
            .with_no_client_auth(),
        TlsMode::VerifyCa => {
            let webpki = WebPkiServerVerifier::builder_with_provider(
                Arc::new(roots(root_cert)?),
                provider.clone(),
            )
            .build()
            .map_err(|error| HistoryError::Url(format!("TLS: {error}")))?;
            builder
                .dangerous()
                .with_custom_certificate_verifier(Arc::new(Lenient {
                    provider,
                    roots: Some(webpki),
                }))
                .with_no_client_auth()
        }
        // require and prefer encrypt without checking the certificate, as libpq does.
        TlsMode::Disable | TlsMode::Prefer | TlsMode::Require => builder
            .dangerous()
            .with_custom_certificate_verifier(Arc::new(Lenient {
                provider,
                roots: None,
            }))
            .with_no_client_auth(),
    };
    Ok(tokio_postgres_rustls::MakeRustlsConnect::new(config))
}

/// `sslrootcert`'s certificates, else webpki's roots.
fn roots(root_cert: Option<&Path>) -> Result<rustls::RootCertStore, HistoryError> {
    let mut roots = rustls::RootCertStore::empty();
    let Some(path) = root_cert else {
        roots.extend(webpki_roots::TLS_SERVER_ROOTS.iter().cloned());
        return Ok(roots);
    };
    let bytes = std::fs::read(path).map_err(|source| HistoryError::Io {
        path: path.to_owned(),
        source,
    })?;
    let unreadable =
        |error: String| HistoryError::Url(format!("sslrootcert {}: {error}", path.display()));
    for cert in CertificateDer::pem_slice_iter(&bytes) {
        let cert = cert.map_err(|error| unreadable(error.to_string()))?;
        roots
            .add(cert)
            .map_err(|error| unreadable(error.to_string()))?;
    }
    if roots.is_empty() {
        return Err(unreadable("no certificate in the file".into()));
    }
    Ok(roots)
}

/// What libpq's weaker modes check: the handshake's signatures always (so
/// the session key is the server's), and the certificate against the roots
/// whatever host it names (`verify-ca`) or not at all (`require`).
#[derive(Debug)]
struct Lenient {
    provider: Arc<rustls::crypto::CryptoProvider>,
    /// `verify-ca`'s check of the certificate; `None`: any certificate.
    roots: Option<Arc<WebPkiServerVerifier>>,
}

impl Lenient {
    /// The provider's signature checks, as webpki's verifier makes them.
    fn algorithms(&self) -> &rustls::crypto::WebPkiSupportedAlgorithms {
        &self.provider.signature_verification_algorithms
    }
}

impl ServerCertVerifier for Lenient {
    fn verify_server_cert(
        &self,
        end_entity: &CertificateDer<'_>,
        intermediates: &[CertificateDer<'_>],
        server_name: &ServerName<'_>,
        ocsp_response: &[u8],
        now: UnixTime,
    ) -> Result<ServerCertVerified, rustls::Error> {
        let Some(roots) = &self.roots else {
            return Ok(ServerCertVerified::assertion());
        };
        match roots.verify_server_cert(end_entity, intermediates, server_name, ocsp_response, now) {
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
        rustls::crypto::verify_tls12_signature(message, cert, dss, self.algorithms())
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls13_signature(message, cert, dss, self.algorithms())
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.algorithms().supported_schemes()
    }
}
