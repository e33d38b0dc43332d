//! `--web.config.file`: TLS and basic auth for `/metrics`, in the format of
//! the Prometheus exporter toolkit (node_exporter's), read again when the
//! file (or a certificate or key it names) changes:
//!
//! ```yaml
//! tls_server_config:
//!   cert_file: server.crt   # relative to this file's directory
//!   key_file: server.key
//! basic_auth_users:
//!   prometheus: $2y$10$…   # bcrypt, as `htpasswd -nBC 10 ""` writes it
//! ```
//!
//! A key vantage does not implement (client certificates, cipher suites) is
//! refused by name rather than ignored. The file is checked on each new
//! connection and each request by its and its files' modification times; a
//! change that does not load keeps the last good configuration, and says why
//! in the log. [`auth`] checks the passwords; [`tls`] is the stream that
//! carries TLS or not.

pub(crate) mod auth;
pub(crate) mod tls;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::SystemTime;

use serde::Deserialize;
use tokio_rustls::TlsAcceptor;

pub use auth::require_basic_auth;
pub use tls::{MaybeTls, handshake};

/// The file vantage reads no more of: a web config is a few lines.
const MAX_FILE_BYTES: u64 = 1 << 20;

#[derive(Debug, thiserror::Error)]
pub enum WebConfigError {
    #[error("cannot read {path}: {source}")]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{path} is larger than 1 MiB: not a web config file")]
    TooLarge { path: PathBuf },
    #[error("{path}: {message}")]
    Invalid { path: PathBuf, message: String },
}

/// The file's shape; every key vantage does not implement is refused.
#[derive(Debug, Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct FileShape {
    #[serde(default)]
    tls_server_config: Option<TlsShape>,
    #[serde(default)]
    basic_auth_users: Option<BTreeMap<String, String>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct TlsShape {
    cert_file: PathBuf,
    key_file: PathBuf,
}

/// One loaded configuration: what a connection and a request are checked by.
pub struct Active {
    /// `None`: plain HTTP.
    pub tls: Option<TlsAcceptor>,
    pub users: auth::Users,
}

impl Active {
    /// No TLS, no users: what serving without a web config file means.
    pub fn open() -> Arc<Self> {
        Arc::new(Self {
            tls: None,
            users: auth::Users::default(),
        })
    }
}

/// The files a configuration came from, with their modification times and
/// sizes: a change to any of them is a reason to load again.
type Stamps = Vec<(PathBuf, Option<(SystemTime, u64)>)>;

fn stamp(path: &Path) -> Option<(SystemTime, u64)> {
    let meta = std::fs::metadata(path).ok()?;
    Some((meta.modified().ok()?, meta.len()))
}

fn stamps(paths: &[PathBuf]) -> Stamps {
    paths.iter().map(|p| (p.clone(), stamp(p))).collect()
}

/// `--web.config.file`, kept current.
pub struct WebConfig {
    path: PathBuf,
    state: Mutex<State>,
}

struct State {
    active: Arc<Active>,
    /// The stamps of the files last tried, loaded or not: a broken file is
    /// said once, not on every connection.
    tried: Stamps,
}

impl WebConfig {
    /// Loads `path`; an error here stops the exporter from starting.
    pub fn load(path: &Path) -> Result<Arc<Self>, WebConfigError> {
        let (active, files) = read(path)?;
        Ok(Arc::new(Self {
            path: path.to_owned(),
            state: Mutex::new(State {
                active: Arc::new(active),
                tried: stamps(&files),
            }),
        }))
    }

    /// The configuration now: loaded again first when a file changed.
    pub fn current(&self) -> Arc<Active> {
        let mut state = self.state.lock().unwrap_or_else(|p| p.into_inner());
        let paths: Vec<PathBuf> = state.tried.iter().map(|(p, _)| p.clone()).collect();
        if stamps(&paths) == state.tried {
            return state.active.clone();
        }
        match read(&self.path) {
            Ok((active, files)) => {
                tracing::info!(file = %self.path.display(), tls = active.tls.is_some(), users = active.users.len(), "web config reloaded");
                state.active = Arc::new(active);
                state.tried = stamps(&files);
            }
            Err(error) => {
                tracing::error!(%error, "web config not reloaded; the last good one stays in force");
                // The config file's own path first, so its next change is seen.
                let mut files = vec![self.path.clone()];
                files.extend(paths.into_iter().filter(|p| *p != self.path));
                state.tried = stamps(&files);
            }
        }
        state.active.clone()
    }

    /// Whether the configuration in force serves TLS.
    pub fn serves_tls(&self) -> bool {
        self.current().tls.is_some()
    }
}

/// Reads the file and what it names; the files to watch come back with it.
fn read(path: &Path) -> Result<(Active, Vec<PathBuf>), WebConfigError> {
    let text = read_small(path)?;
    let invalid = |message: String| WebConfigError::Invalid {
        path: path.to_owned(),
        message,
    };
    // An empty file is an empty mapping: no TLS, no users.
    let shape: FileShape = if text.trim().is_empty() {
        FileShape::default()
    } else {
        serde_yaml::from_str(&text).map_err(|e| invalid(e.to_string()))?
    };
    let mut files = vec![path.to_owned()];
    let tls = match shape.tls_server_config {
        None => None,
        Some(tls_shape) => {
            let dir = path.parent().unwrap_or(Path::new("."));
            let cert_file = dir.join(&tls_shape.cert_file);
            let key_file = dir.join(&tls_shape.key_file);
            let acceptor = tls::acceptor(&read_small(&cert_file)?, &read_small(&key_file)?)
                .map_err(|message| invalid(format!("tls_server_config: {message}")))?;
            files.push(cert_file);
            files.push(key_file);
            Some(acceptor)
        }
    };
    let users = auth::Users::new(shape.basic_auth_users.unwrap_or_default())
        .map_err(|message| invalid(format!("basic_auth_users: {message}")))?;
    Ok((Active { tls, users }, files))
}

fn read_small(path: &Path) -> Result<String, WebConfigError> {
    let read_error = |source| WebConfigError::Read {
        path: path.to_owned(),
        source,
    };
    let meta = std::fs::metadata(path).map_err(read_error)?;
    if meta.len() > MAX_FILE_BYTES {
        return Err(WebConfigError::TooLarge {
            path: path.to_owned(),
        });
    }
    std::fs::read_to_string(path).map_err(read_error)
}
