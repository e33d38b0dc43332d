//! Which shared database, and how to reach it: the `postgres://` URL (its
//! `sslmode` and `sslrootcert` read here, the rest by the driver), the TLS
//! mode with rustls, and the password (the URL, `history_password_command`,
//! `PGPASSWORD`, `~/.pgpass`). A password is never shown: not in an error,
//! not in a log, not in `Debug`.

use std::fmt;
use std::path::{Path, PathBuf};
use std::str::FromStr;
use std::sync::Arc;
use std::time::Duration;

use postgres::config::{Host, SslMode};
use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, ServerName, UnixTime};
use rustls::{DigitallySignedStruct, SignatureScheme};

use crate::history::HistoryError;

/// How long `history_password_command` may run.
pub const PASSWORD_COMMAND_TIMEOUT: Duration = Duration::from_secs(10);

/// How long connecting may take before the store counts as unreachable.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);

/// `sslmode`, as libpq names them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TlsMode {
    /// Plain TCP.
    Disable,
    /// Encrypted when the server offers it (libpq's default).
    Prefer,
    /// Encrypted, the certificate not checked.
    Require,
    /// Encrypted, the certificate checked against the roots (webpki's, or
    /// `sslrootcert`) and the host name.
    VerifyFull,
}

impl TlsMode {
    fn parse(raw: &str) -> Result<Self, HistoryError> {
        match raw {
            "disable" => Ok(Self::Disable),
            "prefer" | "allow" => Ok(Self::Prefer),
            "require" => Ok(Self::Require),
            "verify-full" => Ok(Self::VerifyFull),
            other => Err(HistoryError::Url(format!(
                "sslmode={} is not one of disable, prefer, require, verify-full",
                crate::text::escape_invisible(other)
            ))),
        }
    }
}

/// A shared history database.
#[derive(Clone, PartialEq, Eq)]
pub struct PgTarget {
    /// The URL without `sslmode`/`sslrootcert`; may hold a password: never shown.
    url: String,
    pub tls: TlsMode,
    pub root_cert: Option<PathBuf>,
    /// `history_password_command`.
    pub password_command: Option<String>,
    /// `host:port/db`.
    shown: String,
}

impl fmt::Debug for PgTarget {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PgTarget")
            .field("at", &self.shown)
            .field("tls", &self.tls)
            .finish_non_exhaustive()
    }
}

/// Whether `raw` names a shared database.
pub fn is_database_url(raw: &str) -> bool {
    let lower = raw.trim().to_ascii_lowercase();
    lower.starts_with("postgres://") || lower.starts_with("postgresql://")
}

/// `raw` with the password (between `user:` and `@`) replaced by `***`, for
/// an error about the URL itself.
pub fn redact(raw: &str) -> String {
    let Some(scheme_end) = raw.find("://") else {
        return crate::text::escape_invisible(raw).into_owned();
    };
    let rest = &raw[scheme_end + 3..];
    let authority_end = rest.find(['/', '?']).unwrap_or(rest.len());
    let authority = &rest[..authority_end];
    let shown = match authority.rfind('@') {
        Some(at) => match authority[..at].find(':') {
            Some(colon) => format!("{}:***{}", &authority[..colon], &authority[at..]),
            None => authority.to_owned(),
        },
        None => authority.to_owned(),
    };
    let redacted = format!(
        "{}{}{}",
        &raw[..scheme_end + 3],
        shown,
        &rest[authority_end..]
    );
    crate::text::escape_invisible(&redacted).into_owned()
}

impl PgTarget {
    /// Reads a `postgres://` or `postgresql://` URL.
    pub fn parse(raw: &str, password_command: Option<String>) -> Result<Self, HistoryError> {
        let raw = raw.trim();
        if !is_database_url(raw) {
            return Err(HistoryError::Url(format!(
                "{} is not a postgres:// or postgresql:// URL",
                redact(raw)
            )));
        }
        let (base, query) = raw.split_once('?').unwrap_or((raw, ""));
        let mut tls = TlsMode::Prefer;
        let mut root_cert = None;
        let mut kept = form_urlencoded::Serializer::new(String::new());
        for (key, value) in form_urlencoded::parse(query.as_bytes()) {
            match key.as_ref() {
                "sslmode" => tls = TlsMode::parse(&value)?,
                "sslrootcert" => root_cert = Some(PathBuf::from(value.as_ref())),
                _ => {
                    kept.append_pair(&key, &value);
                }
            }
        }
        let kept = kept.finish();
        let url = if kept.is_empty() {
            base.to_owned()
        } else {
            format!("{base}?{kept}")
        };
        let config = postgres::Config::from_str(&url)
            .map_err(|error| HistoryError::Url(format!("cannot read {}: {error}", redact(raw))))?;
        let host = match config.get_hosts().first() {
            Some(Host::Tcp(host)) => host.clone(),
            #[cfg(unix)]
            Some(Host::Unix(path)) => path.display().to_string(),
            None => "localhost".to_owned(),
        };
        let port = config.get_ports().first().copied().unwrap_or(5432);
        let db = config
            .get_dbname()
            .or(config.get_user())
            .unwrap_or("postgres");
        Ok(Self {
            url,
            tls,
            root_cert,
            password_command,
            shown: crate::text::escape_invisible(&format!("{host}:{port}/{db}")).into_owned(),
        })
    }

    /// `host:port/db`: what errors, logs and the status line name.
    pub fn shown(&self) -> &str {
        &self.shown
    }

    /// The driver's config with the password found and the TLS mode set.
    pub(super) fn config(&self) -> Result<(postgres::Config, Vec<String>), HistoryError> {
        let mut config = postgres::Config::from_str(&self.url)
            .map_err(|error| HistoryError::Url(format!("{error}")))?;
        if config.get_connect_timeout().is_none() {
            config.connect_timeout(CONNECT_TIMEOUT);
        }
        if config.get_application_name().is_none() {
            config.application_name("vantage");
        }
        config.ssl_mode(match self.tls {
            TlsMode::Disable => SslMode::Disable,
            TlsMode::Prefer => SslMode::Prefer,
            TlsMode::Require | TlsMode::VerifyFull => SslMode::Require,
        });
        let mut notes = Vec::new();
        if config.get_password().is_none()
            && let Some(password) = self.find_password(&config, &mut notes)?
        {
            config.password(password);
        }
        Ok((config, notes))
    }

    /// `history_password_command`, then `PGPASSWORD`, then the password file.
    fn find_password(
        &self,
        config: &postgres::Config,
        notes: &mut Vec<String>,
    ) -> Result<Option<String>, HistoryError> {
        if let Some(command) = &self.password_command {
            return crate::config::run_secret_command(
                command,
                PASSWORD_COMMAND_TIMEOUT,
                "the limit for history_password_command",
            )
            .map(Some)
            .map_err(|reason| HistoryError::Password {
                store: format!("the history database {}", self.shown),
                reason: format!("history_password_command failed: {reason}"),
            });
        }
        if let Ok(password) = std::env::var("PGPASSWORD")
            && !password.is_empty()
        {
            return Ok(Some(password));
        }
        let Some(file) = password_file() else {
            return Ok(None);
        };
        let host = match config.get_hosts().first() {
            Some(Host::Tcp(host)) => host.clone(),
            _ => "localhost".to_owned(),
        };
        let port = config
            .get_ports()
            .first()
            .copied()
            .unwrap_or(5432)
            .to_string();
        let user = config
            .get_user()
            .map(str::to_owned)
            .unwrap_or_else(|| std::env::var("USER").unwrap_or_else(|_| "postgres".to_owned()));
        let db = config.get_dbname().unwrap_or(&user).to_owned();
        Ok(pgpass_lookup(&file, [&host, &port, &db, &user], notes))
    }

    /// The TLS connector for the mode: rustls, never OpenSSL.
    pub(super) fn tls_connector(
        &self,
    ) -> Result<tokio_postgres_rustls::MakeRustlsConnect, HistoryError> {
        let provider = Arc::new(rustls::crypto::ring::default_provider());
        let builder = rustls::ClientConfig::builder_with_provider(provider.clone())
            .with_safe_default_protocol_versions()
            .map_err(|error| HistoryError::Url(format!("TLS: {error}")))?;
        let config = match self.tls {
            TlsMode::VerifyFull => {
                let mut roots = rustls::RootCertStore::empty();
                match &self.root_cert {
                    Some(path) => {
                        let bytes = std::fs::read(path).map_err(|source| HistoryError::Io {
                            path: path.clone(),
                            source,
                        })?;
                        for cert in CertificateDer::pem_slice_iter(&bytes) {
                            let cert = cert.map_err(|error| {
                                HistoryError::Url(format!(
                                    "sslrootcert {}: {error}",
                                    path.display()
                                ))
                            })?;
                            roots.add(cert).map_err(|error| {
                                HistoryError::Url(format!(
                                    "sslrootcert {}: {error}",
                                    path.display()
                                ))
                            })?;
                        }
                    }
                    None => roots.extend(webpki_roots::TLS_SERVER_ROOTS.iter().cloned()),
                }
                builder.with_root_certificates(roots).with_no_client_auth()
            }
            // require and prefer encrypt without checking the certificate, as libpq does.
            _ => builder
                .dangerous()
                .with_custom_certificate_verifier(Arc::new(EncryptOnly(provider)))
                .with_no_client_auth(),
        };
        Ok(tokio_postgres_rustls::MakeRustlsConnect::new(config))
    }
}

/// `PGPASSFILE`, else `~/.pgpass`.
fn password_file() -> Option<PathBuf> {
    if let Some(path) = std::env::var_os("PGPASSFILE") {
        return Some(PathBuf::from(path));
    }
    std::env::var_os("HOME").map(|home| Path::new(&home).join(".pgpass"))
}

/// The password of the first line of the password file that matches
/// `host:port:database:user` (`*` matches anything, `\:` and `\\` escape).
/// A file others can read is ignored, as libpq ignores it, and so is one
/// others could have written.
pub fn pgpass_lookup(file: &Path, wanted: [&str; 4], notes: &mut Vec<String>) -> Option<String> {
    // Only a private file of the user's own (`config::trust`).
    let text = match crate::config::trust::read_secret_file(file) {
        Ok(text) => text,
        Err(refused) if refused.is_missing() => return None,
        Err(refused) => {
            notes.push(format!("the password file was ignored: {refused}"));
            return None;
        }
    };
    text.lines()
        .filter(|line| !line.trim_start().starts_with('#') && !line.trim().is_empty())
        .find_map(|line| {
            let fields = pgpass_fields(line);
            let [host, port, db, user, password] = fields.as_slice() else {
                return None;
            };
            let matches = [host, port, db, user]
                .iter()
                .zip(wanted)
                .all(|(field, want)| field.as_str() == "*" || field.as_str() == want);
            matches.then(|| password.clone())
        })
}

/// A password file line's fields, its escapes undone.
fn pgpass_fields(line: &str) -> Vec<String> {
    let mut fields = vec![String::new()];
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => {
                if let Some(next) = chars.next()
                    && let Some(field) = fields.last_mut()
                {
                    field.push(next);
                }
            }
            // The password (the fifth field) may hold colons of its own.
            ':' if fields.len() < 5 => fields.push(String::new()),
            other => {
                if let Some(field) = fields.last_mut() {
                    field.push(other);
                }
            }
        }
    }
    fields
}

/// `sslmode=require`: encrypted, any certificate (the handshake's signatures
/// are still checked, so the session key is the server's).
#[derive(Debug)]
struct EncryptOnly(Arc<rustls::crypto::CryptoProvider>);

impl ServerCertVerifier for EncryptOnly {
    fn verify_server_cert(
        &self,
        _end_entity: &CertificateDer<'_>,
        _intermediates: &[CertificateDer<'_>],
        _server_name: &ServerName<'_>,
        _ocsp_response: &[u8],
        _now: UnixTime,
    ) -> Result<ServerCertVerified, rustls::Error> {
        Ok(ServerCertVerified::assertion())
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls12_signature(
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
        rustls::crypto::verify_tls13_signature(
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_url_is_shown_without_its_password() {
        let target = PgTarget::parse(
            "postgres://ada:s3cret@db.example:6543/vantage?sslmode=verify-full",
            None,
        )
        .unwrap();
        assert_eq!(target.shown(), "db.example:6543/vantage");
        assert_eq!(target.tls, TlsMode::VerifyFull);
        assert!(!format!("{target:?}").contains("s3cret"));
        assert_eq!(
            redact("postgresql://ada:s3cret@db/x"),
            "postgresql://ada:***@db/x"
        );
        let bad = PgTarget::parse("postgres://ada:s3cret@db/x?sslmode=sometimes", None)
            .unwrap_err()
            .to_string();
        assert!(!bad.contains("s3cret"), "{bad}");
        assert!(PgTarget::parse("mysql://db/x", None).is_err());
    }

    #[test]
    fn a_password_command_gives_the_password_and_never_shows_its_output() {
        let target =
            PgTarget::parse("postgres://ada@db/x", Some("printf 'pw-1\\nrest'".into())).unwrap();
        let (config, _) = target.config().unwrap();
        assert_eq!(config.get_password(), Some(&b"pw-1"[..]));
        // The URL's own password wins: the command is not run.
        let given = PgTarget::parse("postgres://ada:url-pw@db/x", Some("exit 9".into())).unwrap();
        assert_eq!(
            given.config().unwrap().0.get_password(),
            Some(&b"url-pw"[..])
        );
        let failing = PgTarget::parse(
            "postgres://ada@db/x",
            Some("echo leaked-secret; exit 3".into()),
        )
        .unwrap();
        let said = failing.config().unwrap_err().to_string();
        assert!(said.contains("history_password_command"), "{said}");
        assert!(said.contains("db:5432/x"), "{said}");
        assert!(!said.contains("leaked-secret"), "{said}");
    }

    #[test]
    fn the_password_file_is_read_as_libpq_reads_it() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("pgpass");
        std::fs::write(
            &file,
            "# comment\nother:5432:*:*:no\ndb\\:1:*:vantage:ada:pa\\:ss:word\n*:*:*:*:fallback\n",
        )
        .unwrap();
        let mut notes = Vec::new();
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o644)).unwrap();
            assert_eq!(
                pgpass_lookup(&file, ["db:1", "5432", "vantage", "ada"], &mut notes),
                None
            );
            assert!(notes[0].contains("chmod 600"), "{notes:?}");
            std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o600)).unwrap();
        }
        assert_eq!(
            pgpass_lookup(&file, ["db:1", "5432", "vantage", "ada"], &mut notes).as_deref(),
            Some("pa:ss:word")
        );
        assert_eq!(
            pgpass_lookup(&file, ["elsewhere", "1", "x", "y"], &mut notes).as_deref(),
            Some("fallback")
        );
    }
}
