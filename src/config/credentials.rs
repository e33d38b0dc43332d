//! The API key: its sources, in order (DESIGN.md), and the warning for a file
//! holding one that others can read. The key is never printed.

use std::fmt;
use std::path::{Path, PathBuf};
use std::time::Duration;

use super::secret_command::run_secret_command;
use super::trust::readable_by_others;
use super::{API_KEY_ENV, Context, LoadedConfig};
use crate::api::{ApiKey, ConfigError};

/// Where the key came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CredentialSource {
    /// `--api-key-env NAME`.
    EnvFlag(String),
    /// `SERVICE_API_KEY`.
    DefaultEnv,
    /// `api_key_env = "NAME"` in the config file.
    ConfigEnv(String),
    /// `api_key_command` in the config file.
    Command,
    /// `api_key` in the config file.
    ConfigFile(PathBuf),
}

impl fmt::Display for CredentialSource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::EnvFlag(name) => write!(f, "environment variable {name} (--api-key-env)"),
            Self::DefaultEnv => write!(f, "environment variable {API_KEY_ENV}"),
            Self::ConfigEnv(name) => write!(f, "environment variable {name} (api_key_env)"),
            Self::Command => write!(f, "api_key_command"),
            Self::ConfigFile(path) => write!(f, "api_key in {}", path.display()),
        }
    }
}

/// Something the user should fix, though it does not stop us.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ConfigWarning {
    /// The file holds a key and its group or others may read it.
    KeyFileReadable { path: PathBuf, mode: u32 },
}

impl fmt::Display for ConfigWarning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::KeyFileReadable { path, mode } => write!(
                f,
                "config file {} holds an API key and is readable by others (mode {:o}); run: chmod 600 {}",
                path.display(),
                mode & 0o777,
                path.display()
            ),
        }
    }
}

#[derive(Debug)]
pub struct ResolvedCredential {
    pub key: ApiKey,
    pub source: CredentialSource,
    pub warnings: Vec<ConfigWarning>,
}

#[derive(Debug, thiserror::Error)]
pub enum CredentialError {
    #[error("no API key found. Tried: {}. {}", tried.join("; "), how_to_set(config_path.as_deref()))]
    NotFound {
        tried: Vec<String>,
        config_path: Option<PathBuf>,
    },
    #[error(
        "api_key_command failed: {reason}. Fix the command in {config_path}, or set {API_KEY_ENV}"
    )]
    Command { reason: String, config_path: String },
    #[error("the API key from {source_name} is not usable: {reason}")]
    Invalid {
        source_name: String,
        reason: ConfigError,
    },
}

fn how_to_set(config_path: Option<&Path>) -> String {
    let file = config_path.map_or_else(
        || "the config file".to_owned(),
        |path| path.display().to_string(),
    );
    format!(
        "Set one: export {API_KEY_ENV}=<key>; or pass --api-key-env NAME; or add \
         api_key_command = \"pass show vantage/api-key\" (or api_key = \"...\", then chmod 600) to {file}"
    )
}

/// Finds the default context's key, trying the sources in order. `env` reads
/// an environment variable (injectable for tests; pass `|name| std::env::var(name).ok()`).
pub fn resolve_credential(
    api_key_env: Option<&str>,
    config: &LoadedConfig,
    env: impl Fn(&str) -> Option<String>,
) -> Result<ResolvedCredential, CredentialError> {
    resolve_context_credential(api_key_env, config, &config.default_context(), env)
}

/// Finds `context`'s key. Order: `--api-key-env NAME`; then, for a named
/// context with a key source of its own, that source alone (a generic
/// `SERVICE_API_KEY` must not follow the user to another service); otherwise
/// `SERVICE_API_KEY`, then the context's `api_key_env`, `api_key_command` and
/// `api_key`.
pub fn resolve_context_credential(
    api_key_env: Option<&str>,
    config: &LoadedConfig,
    context: &Context,
    env: impl Fn(&str) -> Option<String>,
) -> Result<ResolvedCredential, CredentialError> {
    let warnings = key_file_warnings(config);
    for warning in &warnings {
        tracing::warn!("{warning}");
    }
    let found = |key: String, source: CredentialSource| {
        let key = ApiKey::new(key).map_err(|reason| CredentialError::Invalid {
            source_name: source.to_string(),
            reason,
        })?;
        tracing::debug!(context = %context.name, source = %source, fingerprint = %key.fingerprint(), "API key found");
        Ok(ResolvedCredential {
            key,
            source,
            warnings: warnings.clone(),
        })
    };
    let set = |value: Option<String>| value.filter(|v| !v.trim().is_empty());
    let mut tried = Vec::new();

    if let Some(name) = api_key_env {
        // Asked for by name: falling back to another key would be a surprise.
        return match set(env(name)) {
            Some(key) => found(key, CredentialSource::EnvFlag(name.to_owned())),
            None => Err(CredentialError::NotFound {
                tried: vec![format!("--api-key-env {name}: {name} is not set or empty")],
                config_path: config.path.clone(),
            }),
        };
    }
    let connection = &context.connection;
    let own_source = context.named && connection.has_key_source();
    if !own_source {
        match set(env(API_KEY_ENV)) {
            Some(key) => return found(key, CredentialSource::DefaultEnv),
            None => tried.push(format!("{API_KEY_ENV}: not set")),
        }
    }
    let section = if context.named {
        format!("{} under [contexts.{}]", config.shown_path(), context.name)
    } else {
        config.shown_path()
    };
    let where_ = if config.exists {
        format!("not in {section}")
    } else {
        format!("no config file at {}", config.shown_path())
    };
    // A source only some files use: named in the error only when set.
    if let Some(name) = &connection.api_key_env {
        match set(env(name)) {
            Some(key) => return found(key, CredentialSource::ConfigEnv(name.clone())),
            None => tried.push(format!(
                "api_key_env = {name:?} in {section}: {name} is not set or empty"
            )),
        }
    }
    // A file another user could have written was refused whole when it was
    // loaded (`trust.rs`): what it says here is the user's own.
    match &connection.api_key_command {
        Some(command) => {
            let key = key_command_timeout(config)
                .and_then(|timeout| run_key_command(command, timeout))
                .map_err(|reason| CredentialError::Command {
                    reason,
                    config_path: section.clone(),
                })?;
            return found(key, CredentialSource::Command);
        }
        None => tried.push(format!("api_key_command: {where_}")),
    }
    match (&connection.api_key, &config.path) {
        (Some(key), Some(path)) => {
            return found(
                key.expose_secret().to_owned(),
                CredentialSource::ConfigFile(path.clone()),
            );
        }
        _ => tried.push(format!("api_key: {where_}")),
    }
    Err(CredentialError::NotFound {
        tried,
        config_path: config.path.clone(),
    })
}

/// Runs `api_key_command` through the shell; the key is the first line it
/// prints. Its output never appears in an error. A command still running
/// after `timeout` (a `pass` waiting on a pinentry nobody sees, a hung
/// network call) is killed, and the error names it: ssh's `ConnectTimeout`
/// and git's credential helpers both end a wait that would otherwise last forever.
fn run_key_command(command: &str, timeout: Duration) -> Result<String, String> {
    run_secret_command(command, timeout, "api_key_command_timeout_secs")
}

/// How long `api_key_command` may run: `api_key_command_timeout_secs`, 10 s
/// when unset.
fn key_command_timeout(config: &LoadedConfig) -> Result<Duration, String> {
    match config.file.api_key_command_timeout_secs {
        None => Ok(DEFAULT_KEY_COMMAND_TIMEOUT),
        Some(secs) => Duration::try_from_secs_f64(secs)
            .ok()
            .filter(|timeout| !timeout.is_zero())
            .ok_or_else(|| {
                format!(
                    "api_key_command_timeout_secs must be a positive number of seconds, not {secs}"
                )
            }),
    }
}

const DEFAULT_KEY_COMMAND_TIMEOUT: Duration = Duration::from_secs(10);

/// A file holding a key, in any context, should be readable by its owner alone.
fn key_file_warnings(config: &LoadedConfig) -> Vec<ConfigWarning> {
    let holds_key = config.file.api_key.is_some()
        || config
            .file
            .contexts
            .values()
            .any(|context| context.api_key.is_some());
    let (Some(path), true, true) = (&config.path, config.exists, holds_key) else {
        return Vec::new();
    };
    readable_by_others(path)
        .map(|mode| {
            vec![ConfigWarning::KeyFileReadable {
                path: path.clone(),
                mode,
            }]
        })
        .unwrap_or_default()
}
