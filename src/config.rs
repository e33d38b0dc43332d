//! The TOML configuration file and the API key sources.
//!
//! Key sources, in order (DESIGN.md): `--api-key-env NAME`, `SERVICE_API_KEY`,
//! `api_key_command` from the file, `api_key` in the file. The key is never
//! printed; a file holding a key that others can read draws a warning.
//! `config.example.toml` in the repository root documents every key.
//! Several named connections live in `[contexts.NAME]` ([`contexts`]); the
//! dashboard's saved views in `[views.CONTEXT.NAME]` ([`views`]).

mod contexts;
mod credentials;
mod file;
pub mod keys;
mod secret_command;
pub(crate) mod trust;
mod views;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::Deserialize;

use crate::api::{ApiKey, AuthScheme, ClientConfig, ConfigError};

pub use contexts::{
    CONTEXT_ENV, Context, ContextConfig, ContextOrigin, ContextSummary, DEFAULT_CONTEXT,
    set_current_context,
};
pub use credentials::{
    ConfigWarning, CredentialError, CredentialSource, ResolvedCredential,
    resolve_context_credential, resolve_credential,
};
pub use file::{MAX_CONFIG_BYTES, read_text, rewrite};
pub use secret_command::run_secret_command;
pub use trust::WritableByOthers;
pub use views::{SavedView, VIEW_NAME_MAX, ViewsByContext, check_view_name, set_view, write_view};

/// The environment variable read when `--api-key-env` is not given.
pub const API_KEY_ENV: &str = "SERVICE_API_KEY";

/// The smallest `max_response_bytes` accepted: below it an honest page of
/// 100 items would not fit.
const MIN_RESPONSE_BYTES: u64 = 1024 * 1024;

/// The file's keys. Every key is optional; sections this module does not know
/// (e.g. the TUI's) are kept in `other` for their owners to read.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct FileConfig {
    /// The context used when neither `--context` nor `VANTAGE_CONTEXT` names one.
    pub current_context: Option<String>,
    /// Named connections, `[contexts.NAME]`.
    pub contexts: BTreeMap<String, ContextConfig>,
    // The connection keys below make the default context.
    pub base_url: Option<String>,
    /// The workspace whose members and security center to show.
    pub workspace_id: Option<String>,
    pub api_key_env: Option<String>,
    pub api_key_command: Option<String>,
    /// How long `api_key_command` may run, in seconds (10 by default).
    pub api_key_command_timeout_secs: Option<f64>,
    pub api_key: Option<ApiKey>,
    pub auth_scheme: Option<AuthScheme>,
    pub api_version: Option<String>,
    pub betas: Vec<String>,
    pub connect_timeout_secs: Option<f64>,
    pub request_timeout_secs: Option<f64>,
    /// Attempts per call, the first included.
    pub max_attempts: Option<u32>,
    /// The longest `Retry-After` (and rate-limit reset) to wait for.
    pub retry_after_cap_secs: Option<f64>,
    /// The most one answer's body may hold, in bytes.
    pub max_response_bytes: Option<u64>,
    /// The most items one walk over a list's pages reads
    /// (`api::page::DEFAULT_MAX_WALK_ITEMS` by default).
    pub max_walk_items: Option<u64>,
    pub read_only: Option<bool>,
    /// The dashboard's saved views, `[views.CONTEXT.NAME]` ([`views`]).
    pub views: ViewsByContext,
    /// The default context's review history (`postgres://…` for a shared one).
    pub history_url: Option<String>,
    pub history_password_command: Option<String>,
    #[serde(flatten)]
    pub other: toml::Table,
}

/// A configuration file as loaded.
#[derive(Debug, Clone, Default)]
pub struct LoadedConfig {
    pub file: FileConfig,
    /// Where the file is, or would be: the default path when it does not exist.
    pub path: Option<PathBuf>,
    pub exists: bool,
}

#[derive(Debug, thiserror::Error)]
pub enum SettingsError {
    #[error("cannot read config file {path}: {source}")]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    /// Only the position and message: the parser's excerpt could show a key.
    /// Another user could have written the file (ssh's rule, `trust.rs`):
    /// none of it is used, not only its keys and commands.
    #[error(
        "refusing to use config file {path}: {place}. Whoever can write it could make vantage run \
         commands as you, or send your keys and passwords where they choose; nothing in it is used \
         until that is fixed"
    )]
    Untrusted {
        path: PathBuf,
        place: WritableByOthers,
    },
    #[error("config file {path}, line {line}, column {column}: {message}")]
    Parse {
        path: PathBuf,
        line: usize,
        column: usize,
        message: String,
    },
    #[error("config file {path}: {key} {reason}")]
    Invalid {
        path: String,
        key: &'static str,
        reason: String,
    },
    #[error(
        "no base URL for context {context}: set base_url in {path}{where_} or pass --base-url (e.g. https://api.example.com){others}"
    )]
    NoBaseUrl {
        path: String,
        context: String,
        /// ` under [contexts.NAME]` for a named context.
        where_: String,
        /// The other contexts, when there are some to choose instead.
        others: String,
    },
    #[error("no context named {name:?} (from {origin}) in {path}; known contexts: {known}")]
    UnknownContext {
        name: String,
        origin: ContextOrigin,
        path: String,
        known: String,
    },
    #[error("cannot write config file {path}: {source}")]
    Write {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error(transparent)]
    Client(#[from] ConfigError),
}

impl LoadedConfig {
    /// Reads `explicit` (which must exist), else the default path when a file is
    /// there, else an empty configuration.
    pub fn load(explicit: Option<&Path>) -> Result<Self, SettingsError> {
        let (path, required) = match explicit {
            Some(path) => (Some(path.to_path_buf()), true),
            None => (crate::paths::config_file(), false),
        };
        let Some(path) = path else {
            return Ok(Self::default());
        };
        let text = match file::read_text(&path) {
            Ok(text) => text,
            Err(error) if !required && error.kind() == std::io::ErrorKind::NotFound => {
                return Ok(Self {
                    file: FileConfig::default(),
                    path: Some(path),
                    exists: false,
                });
            }
            Err(source) => return Err(SettingsError::Read { path, source }),
        };
        if let Some(place) = trust::writable_by_others(&path) {
            return Err(SettingsError::Untrusted { path, place });
        }
        let file = parse(&text, &path)?;
        let loaded = Self {
            file,
            path: Some(path),
            exists: true,
        };
        loaded.check_contexts()?;
        Ok(loaded)
    }

    pub(crate) fn shown_path(&self) -> String {
        self.path.as_ref().map_or_else(
            || "the config file".to_owned(),
            |path| path.display().to_string(),
        )
    }

    /// The client configuration: `base_url` (a flag overrides the file), the
    /// key, and the file's version, betas, timeouts and retry settings.
    /// Of the default context: see [`Self::context_client_config`].
    pub fn client_config(
        &self,
        credential: ApiKey,
        base_url_flag: Option<&str>,
    ) -> Result<ClientConfig, SettingsError> {
        let context = self.context(DEFAULT_CONTEXT, ContextOrigin::Default)?;
        self.context_client_config(&context, credential, base_url_flag)
    }

    /// The client configuration of `context`: its `base_url` (a flag overrides
    /// it) and auth scheme, the key, and the file's version, betas, timeouts
    /// and retry settings, which every context shares.
    pub fn context_client_config(
        &self,
        context: &Context,
        credential: ApiKey,
        base_url_flag: Option<&str>,
    ) -> Result<ClientConfig, SettingsError> {
        let file = &self.file;
        let base_url = base_url_flag
            .map(str::to_owned)
            .or_else(|| context.connection.base_url.clone())
            .ok_or_else(|| {
                let others: Vec<String> = self
                    .context_names()
                    .into_iter()
                    .filter(|name| *name != context.name)
                    .collect();
                SettingsError::NoBaseUrl {
                    path: self.shown_path(),
                    context: context.name.clone(),
                    where_: if context.named {
                        format!(" under [contexts.{}]", context.name)
                    } else {
                        String::new()
                    },
                    others: if others.is_empty() {
                        String::new()
                    } else {
                        format!(
                            ", or choose another context with --context NAME ({})",
                            others.join(", ")
                        )
                    },
                }
            })?;
        let mut config = ClientConfig::new(base_url, credential);
        // A context's own scheme, else the top-level one, which every context shares.
        if let Some(scheme) = context.connection.auth_scheme.or(file.auth_scheme) {
            config.auth_scheme = scheme;
        }
        if let Some(version) = &file.api_version {
            config.api_version = version.clone();
        }
        config.betas = file.betas.clone();
        let seconds =
            |key: &'static str, value: Option<f64>| -> Result<Option<Duration>, SettingsError> {
                value
                    .map(|secs| {
                        Duration::try_from_secs_f64(secs)
                            .ok()
                            .filter(|d| !d.is_zero())
                            .ok_or_else(|| SettingsError::Invalid {
                                path: self.shown_path(),
                                key,
                                reason: format!("must be a positive number of seconds, not {secs}"),
                            })
                    })
                    .transpose()
            };
        if let Some(timeout) = seconds("connect_timeout_secs", file.connect_timeout_secs)? {
            config.connect_timeout = timeout;
        }
        if let Some(timeout) = seconds("request_timeout_secs", file.request_timeout_secs)? {
            config.request_timeout = timeout;
        }
        if let Some(cap) = seconds("retry_after_cap_secs", file.retry_after_cap_secs)? {
            config.retry.retry_after_cap = cap;
        }
        if let Some(bytes) = file.max_response_bytes {
            if bytes < MIN_RESPONSE_BYTES {
                return Err(SettingsError::Invalid {
                    path: self.shown_path(),
                    key: "max_response_bytes",
                    reason: format!(
                        "must be at least {MIN_RESPONSE_BYTES} (a full page), not {bytes}"
                    ),
                });
            }
            config.max_response_bytes = bytes;
        }
        if let Some(items) = file.max_walk_items {
            if items == 0 {
                return Err(SettingsError::Invalid {
                    path: self.shown_path(),
                    key: "max_walk_items",
                    reason: "must be at least 1".into(),
                });
            }
            config.max_walk_items = items;
        }
        if let Some(attempts) = file.max_attempts {
            if attempts == 0 {
                return Err(SettingsError::Invalid {
                    path: self.shown_path(),
                    key: "max_attempts",
                    reason: "must be at least 1 (1 disables retries)".into(),
                });
            }
            config.retry.max_attempts = attempts;
        }
        Ok(config)
    }
}

fn parse(text: &str, path: &Path) -> Result<FileConfig, SettingsError> {
    toml::from_str(text).map_err(|error| {
        let (line, column) = error
            .span()
            .map_or((0, 0), |span| position(text, span.start));
        let mut message = without_value(error.message().trim());
        if let Some(context) = context_at_line(text, line) {
            message.push_str(&format!(" (in [contexts.{context}])"));
        }
        SettingsError::Parse {
            path: path.to_path_buf(),
            line,
            column,
            message,
        }
    })
}

/// serde quotes the offending value ("invalid type: integer `98765…`"): that
/// value may be a key written without quotes, so the message keeps only its kind.
fn without_value(message: &str) -> String {
    let quotes_a_value =
        message.starts_with("invalid type: ") || message.starts_with("invalid value: ");
    match (quotes_a_value, message.find(" `")) {
        (true, Some(start)) => match message[start + 2..].find('`') {
            Some(len) => format!("{}{}", &message[..start], &message[start + 2 + len + 1..]),
            None => message[..start].to_owned(),
        },
        _ => message.to_owned(),
    }
}

/// The context whose table holds `line` (1-based), for naming it in an error.
fn context_at_line(text: &str, line: usize) -> Option<String> {
    let header = text
        .lines()
        .take(line)
        .map(str::trim)
        .filter(|l| l.starts_with('['))
        .last()?;
    let inner = header.trim_start_matches('[').split(']').next()?.trim();
    let name = inner.strip_prefix("contexts.")?;
    Some(name.trim_matches(|c| c == '"' || c == '\'').to_owned())
}

/// 1-based line and column of a byte offset.
fn position(text: &str, offset: usize) -> (usize, usize) {
    let before = &text[..offset.min(text.len())];
    let line = before.matches('\n').count() + 1;
    let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    (line, column)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_errors_show_position_not_the_line() {
        let text = "base_url = \"https://x.example\"\napi_key = vtg_secret_unquoted\n";
        let error = parse(text, Path::new("/tmp/c.toml")).unwrap_err();
        let shown = error.to_string();
        assert!(shown.contains("line 2"), "{shown}");
        assert!(!shown.contains("vtg_secret"), "{shown}");
    }

    #[test]
    fn a_key_written_as_a_number_is_not_echoed() {
        let text = "base_url = \"https://x.example\"\napi_key = 98765432109876\n";
        let shown = parse(text, Path::new("/tmp/c.toml"))
            .unwrap_err()
            .to_string();
        assert!(shown.contains("line 2"), "{shown}");
        assert!(
            shown.contains("invalid type: integer, expected a string"),
            "{shown}"
        );
        assert!(!shown.contains("98765"), "{shown}");
    }

    #[test]
    fn example_config_parses_and_builds_a_client_config() {
        let text = include_str!("../config.example.toml");
        let file = parse(text, Path::new("config.example.toml")).unwrap();
        let loaded = LoadedConfig {
            file,
            path: None,
            exists: true,
        };
        let config = loaded
            .client_config(ApiKey::new("k").unwrap(), None)
            .unwrap();
        assert_eq!(config.base_url, "https://api.example.com");
        assert_eq!(config.api_version, crate::api::model::API_VERSION);
    }

    #[test]
    fn settings_are_checked() {
        let file = parse("max_attempts = 0\n", Path::new("c.toml")).unwrap();
        let loaded = LoadedConfig {
            file,
            path: None,
            exists: true,
        };
        let key = || ApiKey::new("k").unwrap();
        assert!(matches!(
            loaded.client_config(key(), None),
            Err(SettingsError::NoBaseUrl { .. })
        ));
        assert!(matches!(
            loaded.client_config(key(), Some("https://a.example")),
            Err(SettingsError::Invalid {
                key: "max_attempts",
                ..
            })
        ));
        let file = parse(
            "base_url = \"http://api.example.com\"\nrequest_timeout_secs = 2.5\nauth_scheme = \"bearer\"\nbetas = [\"x-1\"]\n[tui]\ntheme = \"light\"\n",
            Path::new("c.toml"),
        )
        .unwrap();
        assert!(file.other.contains_key("tui"));
        let loaded = LoadedConfig {
            file,
            path: None,
            exists: true,
        };
        let config = loaded.client_config(key(), None).unwrap();
        assert_eq!(config.request_timeout, Duration::from_millis(2500));
        assert_eq!(config.auth_scheme, AuthScheme::Bearer);
        assert_eq!(config.betas, ["x-1"]);
        // Refused when the client is built, not here: plain http to a remote host.
        assert!(matches!(
            crate::api::Client::new(config),
            Err(ConfigError::InsecureHttp { .. })
        ));
    }
}
