//! Which shared database, and how to reach it: the `postgres://` URL (its
//! `sslmode`, `sslrootcert`, `sslnegotiation` and `require_auth` read here,
//! the rest by the driver), the TLS mode, the session's time limits, and the
//! password (the URL, `history_password_command`, `PGPASSWORD`,
//! `~/.pgpass`). A password is never shown: not in an error, not in a log,
//! not in `Debug`; a URL is named `host:port/db`, even one that cannot be read.

use std::collections::HashSet;
use std::fmt;
use std::net::IpAddr;
use std::path::{Path, PathBuf};
use std::str::FromStr;
use std::sync::Mutex;
use std::time::Duration;

use postgres::config::{Host, SslMode, SslNegotiation};

use super::auth::RequireAuth;
use super::tls::TlsMode;
use crate::history::HistoryError;

/// How long `history_password_command` may run.
pub const PASSWORD_COMMAND_TIMEOUT: Duration = Duration::from_secs(10);

/// The URL options the driver reads (libpq's names); vantage reads
/// `sslmode`, `sslrootcert`, `sslnegotiation` and `require_auth` itself.
const DRIVER_OPTIONS: &[&str] = &[
    "user",
    "password",
    "dbname",
    "options",
    "application_name",
    "host",
    "hostaddr",
    "port",
    "connect_timeout",
    "tcp_user_timeout",
    "keepalives",
    "keepalives_idle",
    "keepalives_interval",
    "keepalives_retries",
    "target_session_attrs",
    "channel_binding",
    "load_balance_hosts",
];

/// How long connecting may take before the store counts as unreachable.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);

/// How long one statement, and one wait for a lock, may take on the shared
/// database (`[history] statement_timeout_secs`, `lock_timeout_secs`): a
/// teammate's `LOCK TABLE` ends a command instead of hanging it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SessionLimits {
    pub statement: Duration,
    pub lock: Duration,
}

impl Default for SessionLimits {
    fn default() -> Self {
        Self {
            statement: Duration::from_secs(30),
            lock: Duration::from_secs(10),
        }
    }
}

/// A shared history database.
#[derive(Clone, PartialEq, Eq)]
pub struct PgTarget {
    /// The URL without the keys read here; may hold a password: never shown.
    url: String,
    pub tls: TlsMode,
    pub root_cert: Option<PathBuf>,
    /// `sslnegotiation=direct`: TLS at once, without the SSLRequest.
    direct_tls: bool,
    /// What a weak `sslmode` off loopback gives up (`tls_warning_once`).
    weak_tls: Option<String>,
    /// The methods the server may ask for (`require_auth`).
    pub require_auth: RequireAuth,
    pub limits: SessionLimits,
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

/// Whether `raw` names a shared database: it starts with a database scheme
/// (`postgres:`, `postgresql:`), whether or not the rest can be read: one
/// slash missing is a URL to refuse, never a file.
pub fn is_database_url(raw: &str) -> bool {
    let lower = raw.trim().to_ascii_lowercase();
    lower.starts_with("postgres:") || lower.starts_with("postgresql:")
}

/// `raw` as an error may name it: `host:port/db` at most, read as far as it
/// safely can be, never the user, the password or the query.
pub fn redact(raw: &str) -> String {
    let raw = raw.trim();
    let Some(scheme_end) = raw.find("://") else {
        return "a URL that cannot be read".to_owned();
    };
    let rest = &raw[scheme_end + 3..];
    // The password may hold '/', '?', '@' or ':': the host follows the last
    // '@', unless that '@' is in the query ('=' before it), where nothing
    // after it can be trusted to be the host.
    let host_part = match rest.rfind('@') {
        Some(at) if rest[..at].contains(['=', '&']) => return unreadable(&raw[..scheme_end]),
        Some(at) => &rest[at + 1..],
        None => rest,
    };
    let host_part = host_part.split(['?', '#']).next().unwrap_or("");
    let (authority, db) = host_part.split_once('/').unwrap_or((host_part, ""));
    let (host, port) = match authority.strip_prefix('[') {
        Some(v6) => match v6.split_once(']') {
            Some((host, after)) => (host, after.strip_prefix(':').unwrap_or("")),
            None => return unreadable(&raw[..scheme_end]),
        },
        None => authority.split_once(':').unwrap_or((authority, "")),
    };
    // A port that is not a number may be a password (`user:password` with
    // no host): nothing is named then.
    if !port.chars().all(|c| c.is_ascii_digit()) || port.len() > 5 || host.contains(',') {
        return unreadable(&raw[..scheme_end]);
    }
    let port = if port.is_empty() { "5432" } else { port };
    let host = if host.is_empty() { "localhost" } else { host };
    let db = if db.is_empty() { "?" } else { db };
    let shown = format!("{host}:{port}/{db}");
    crate::text::fit(&crate::text::escape_invisible(&shown), 200)
}

fn unreadable(scheme: &str) -> String {
    format!(
        "a {}:// URL that cannot be read",
        crate::text::escape_invisible(&scheme.to_ascii_lowercase())
    )
}

/// Whether `host` is this machine: `localhost`, a loopback address, or a
/// Unix socket's directory.
fn is_loopback(host: &Host) -> bool {
    match host {
        Host::Tcp(name) => {
            let name = name.trim_start_matches('[').trim_end_matches(']');
            name.eq_ignore_ascii_case("localhost")
                || name.parse::<IpAddr>().is_ok_and(|ip| ip.is_loopback())
        }
        #[cfg(unix)]
        Host::Unix(_) => true,
    }
}

/// What was said once in this process (a weak `sslmode` per database).
static SAID: Mutex<Option<HashSet<String>>> = Mutex::new(None);

/// Whether `what` is new to this process (and now said).
fn first_time(what: &str) -> bool {
    let mut said = SAID.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    said.get_or_insert_with(HashSet::new)
        .insert(what.to_owned())
}

/// Whether the URL given on the command line holds a password (the
/// userinfo's, or `password=` in the query): visible to every local user in
/// `/proc/PID/cmdline`.
pub fn holds_password(raw: &str) -> bool {
    let Some(scheme_end) = raw.find("://") else {
        return false;
    };
    let rest = &raw[scheme_end + 3..];
    let userinfo_password = rest
        .rfind('@')
        .is_some_and(|at| rest[..at].split('?').next().unwrap_or("").contains(':'));
    let query_password = raw.split_once('?').is_some_and(|(_, query)| {
        form_urlencoded::parse(query.as_bytes()).any(|(key, _)| key == "password")
    });
    userinfo_password || query_password
}

/// The warning for a password in `flag`'s URL, if it holds one.
pub fn password_on_command_line(flag: &str, raw: &str) -> Option<String> {
    holds_password(raw).then(|| {
        format!(
            "warning: the URL of {flag} holds a password, which every local user can read in \
             /proc/PID/cmdline while vantage runs; give it through PGPASSWORD, ~/.pgpass or \
             history_password_command instead"
        )
    })
}

impl PgTarget {
    /// Reads a `postgres://` or `postgresql://` URL.
    pub fn parse(raw: &str, password_command: Option<String>) -> Result<Self, HistoryError> {
        let raw = raw.trim();
        let lower = raw.to_ascii_lowercase();
        if !(lower.starts_with("postgres://") || lower.starts_with("postgresql://")) {
            return Err(HistoryError::Url(if is_database_url(raw) {
                "a database URL must begin with postgres:// or postgresql:// (two slashes)"
                    .to_owned()
            } else {
                format!("{} is not a postgres:// or postgresql:// URL", redact(raw))
            }));
        }
        let cannot_read = |why: &dyn fmt::Display| {
            HistoryError::Url(format!("cannot read the URL of {}: {why}", redact(raw)))
        };
        let (base, query) = raw.split_once('?').unwrap_or((raw, ""));
        let mut tls = None;
        let mut root_cert = None;
        let mut direct_tls = false;
        let mut require_auth = RequireAuth::default();
        let mut kept = form_urlencoded::Serializer::new(String::new());
        for (key, value) in form_urlencoded::parse(query.as_bytes()) {
            match key.as_ref() {
                "sslmode" => tls = Some(TlsMode::parse(&value)?),
                "sslrootcert" => root_cert = Some(PathBuf::from(value.as_ref())),
                "sslnegotiation" => {
                    direct_tls = match value.as_ref() {
                        "direct" => true,
                        "postgres" => false,
                        _ => return Err(cannot_read(&"sslnegotiation is direct or postgres")),
                    }
                }
                "require_auth" => require_auth = RequireAuth::parse(&value)?,
                // Not named: after a '?' inside a password, the "option" is the
                // rest of the password.
                other if !DRIVER_OPTIONS.contains(&other) => {
                    return Err(cannot_read(
                        &"an option in it is not one libpq knows (not named here: it may be \
                          part of the password; percent-encode a '?', '/' or '@' in a password)",
                    ));
                }
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
        // The driver's error names an option, never its value.
        let config = postgres::Config::from_str(&url).map_err(|error| cannot_read(&error))?;
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
        let shown = crate::text::escape_invisible(&format!("{host}:{port}/{db}")).into_owned();
        let local = config.get_hosts().iter().all(is_loopback);
        // libpq: `require` with a root certificate checks it (verify-ca).
        if root_cert.is_none() && tls.is_some_and(|mode| mode >= TlsMode::Require) {
            root_cert = default_root_cert();
        }
        let tls = match tls {
            Some(TlsMode::Require) if root_cert.is_some() => TlsMode::VerifyCa,
            Some(chosen) => chosen,
            None if local => TlsMode::Prefer,
            None => TlsMode::VerifyFull,
        };
        // A weaker mode than verify-full, chosen for a host off this machine.
        let weak_tls = (!local).then(|| tls.weakness()).flatten().map(|weakness| {
            format!(
                "sslmode={} for the history database {shown}: {weakness}, so a man in the \
                     middle can read or change the history (sslmode=verify-full checks the server)",
                tls.name()
            )
        });
        Ok(Self {
            url,
            tls,
            root_cert,
            direct_tls,
            weak_tls,
            require_auth,
            limits: SessionLimits::default(),
            password_command,
            shown,
        })
    }

    /// The warning for a weak `sslmode` the user chose for a host off this
    /// machine: the first time this process asks about this database, then
    /// `None` (said once: on stderr by the commands, in the dashboard's log).
    pub fn tls_warning_once(&self) -> Option<String> {
        let warning = self.weak_tls.as_ref()?;
        first_time(warning).then(|| warning.clone())
    }

    /// The same database with these time limits for each session.
    pub fn with_limits(mut self, limits: SessionLimits) -> Self {
        self.limits = limits;
        self
    }

    /// `host:port/db`: what errors, logs and the status line name.
    pub fn shown(&self) -> &str {
        &self.shown
    }

    /// The driver's config with the password found, the time limits set, and
    /// TLS left to the connector (`auth.rs`), which starts it at once.
    pub(super) fn config(&self) -> Result<(postgres::Config, Vec<String>), HistoryError> {
        let mut config = postgres::Config::from_str(&self.url)
            .map_err(|error| HistoryError::Url(format!("cannot read {}: {error}", self.shown)))?;
        if config.get_connect_timeout().is_none() {
            config.connect_timeout(CONNECT_TIMEOUT);
        }
        if config.get_application_name().is_none() {
            config.application_name("vantage");
        }
        let limits = format!(
            "-c statement_timeout={} -c lock_timeout={}",
            self.limits.statement.as_millis(),
            self.limits.lock.as_millis()
        );
        let options = match config.get_options() {
            Some(given) => format!("{given} {limits}"),
            None => limits,
        };
        config.options(&options);
        // A Unix socket has no host name to check a certificate against, and
        // libpq uses no TLS on one: the driver connects it plainly. Over TCP
        // the connector does the negotiation, `disable` too, so every
        // connection's authentication is watched.
        if config
            .get_hosts()
            .iter()
            .any(|host| !matches!(host, Host::Tcp(_)))
        {
            config.ssl_mode(SslMode::Disable);
        } else {
            config.ssl_mode(SslMode::Require);
            config.ssl_negotiation(SslNegotiation::Direct);
        }
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
        let Some(file) = super::pgpass::password_file() else {
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
        Ok(super::pgpass::pgpass_lookup(
            &file,
            [&host, &port, &db, &user],
            notes,
        ))
    }

    /// The connector for the driver: the TLS mode with rustls, and the
    /// authentication methods the URL allows (`auth.rs`).
    pub(super) fn connector(&self) -> Result<super::auth::GuardedConnect, HistoryError> {
        Ok(super::auth::GuardedConnect {
            tls: self.tls,
            direct: self.direct_tls,
            rustls: super::tls::connector(self.tls, self.root_cert.as_deref())?,
            policy: self.require_auth,
        })
    }
}

/// `~/.postgresql/root.crt`, which libpq reads when `sslrootcert` is not given.
fn default_root_cert() -> Option<PathBuf> {
    let home = std::env::var_os("HOME")?;
    let path = Path::new(&home).join(".postgresql").join("root.crt");
    path.is_file().then_some(path)
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
        assert_eq!(redact("postgresql://ada:s3cret@db/x"), "db:5432/x");
        // The password may hold what ends a part of the URL; a query's '@'
        // leaves nothing to name.
        assert_eq!(redact("postgres://ada:pa/s?s@db:6/x?a=1"), "db:6/x");
        assert_eq!(
            redact("postgres://db/x?password=p@ss"),
            "a postgres:// URL that cannot be read"
        );
        assert_eq!(
            redact("postgres://ada:s3cret"),
            "a postgres:// URL that cannot be read"
        );
        assert_eq!(redact("postgres://[::1]:7/x"), "::1:7/x");
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
}
