//! Contexts: several named connections in one config file, as kubectl and k9s
//! have them.
//!
//! ```toml
//! current_context = "staging"
//!
//! [contexts.staging]
//! base_url = "https://staging.api.example.com"
//! api_key_env = "STAGING_API_KEY"
//! workspace_id = "ws_acme"
//!
//! [contexts.prod]
//! base_url = "https://api.example.com"
//! api_key_command = "pass show vantage/prod"
//! read_only = true
//! ```
//!
//! The connection keys at the top of the file (`base_url`, the key sources,
//! `workspace_id`, `read_only`) are the context named [`DEFAULT_CONTEXT`], so a
//! file written before contexts keeps working. The other top-level keys
//! (`auth_scheme` unless a context sets its own, timeouts, retries, version,
//! `[tui]`, …) apply to every context.
//!
//! Which context: `--context NAME`, then `VANTAGE_CONTEXT`, then
//! `current_context`, then the default.

use std::fmt;

use serde::Deserialize;

use super::{LoadedConfig, SettingsError};
use crate::api::{ApiKey, AuthScheme};

/// The name of the context the top-level keys make.
pub const DEFAULT_CONTEXT: &str = "default";

/// The environment variable that chooses a context when `--context` is not given.
pub const CONTEXT_ENV: &str = "VANTAGE_CONTEXT";

/// One named connection: where, with which key, on which workspace.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ContextConfig {
    pub base_url: Option<String>,
    /// The workspace to show; it also decides which history file is read.
    pub workspace_id: Option<String>,
    /// Read the key from this environment variable.
    pub api_key_env: Option<String>,
    /// A command whose first output line is the key (e.g. `pass show …`).
    pub api_key_command: Option<String>,
    /// The key itself; the file should then be readable by its owner alone.
    pub api_key: Option<ApiKey>,
    pub auth_scheme: Option<AuthScheme>,
    pub read_only: Option<bool>,
    /// The review history: absent, the local file; `postgres://…`, a shared
    /// database (`--history` and `VANTAGE_HISTORY_URL` override it).
    pub history_url: Option<String>,
    /// A command whose first output line is the shared database's password.
    pub history_password_command: Option<String>,
}

impl ContextConfig {
    /// Whether the context names a key source of its own.
    pub fn has_key_source(&self) -> bool {
        self.api_key_env.is_some() || self.api_key_command.is_some() || self.api_key.is_some()
    }

    fn is_empty(&self) -> bool {
        self.base_url.is_none()
            && self.workspace_id.is_none()
            && !self.has_key_source()
            && self.auth_scheme.is_none()
            && self.read_only.is_none()
            && self.history_url.is_none()
            && self.history_password_command.is_none()
    }
}

/// What chose the context.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ContextOrigin {
    /// `--context NAME`.
    Flag,
    /// `VANTAGE_CONTEXT`.
    Env,
    /// `current_context` in the config file.
    CurrentContext,
    /// Nothing chose one: the top-level keys.
    Default,
    /// Chosen while running (the dashboard's picker).
    Switched,
}

impl fmt::Display for ContextOrigin {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::Flag => "--context",
            Self::Env => CONTEXT_ENV,
            Self::CurrentContext => "current_context",
            Self::Default => "default",
            Self::Switched => "switched",
        })
    }
}

/// A context chosen, with its connection settings.
#[derive(Debug, Clone)]
pub struct Context {
    pub name: String,
    pub origin: ContextOrigin,
    pub connection: ContextConfig,
    /// From `[contexts.NAME]`, rather than the top-level keys.
    pub named: bool,
}

/// One line of `vantage context list`: never the key, only where it comes from.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct ContextSummary {
    pub name: String,
    pub current: bool,
    pub base_url: Option<String>,
    pub workspace_id: Option<String>,
    /// `env NAME`, `command`, `file`, or `none`.
    pub key_source: String,
    pub read_only: bool,
}

impl LoadedConfig {
    /// The top-level connection keys, as the default context.
    pub fn flat_connection(&self) -> ContextConfig {
        let file = &self.file;
        ContextConfig {
            base_url: file.base_url.clone(),
            workspace_id: file.workspace_id.clone(),
            api_key_env: file.api_key_env.clone(),
            api_key_command: file.api_key_command.clone(),
            api_key: file.api_key.clone(),
            // Shared by every context: see `context_client_config`.
            auth_scheme: None,
            read_only: file.read_only,
            history_url: file.history_url.clone(),
            history_password_command: file.history_password_command.clone(),
        }
    }

    /// Whether the default context is worth listing: it has keys of its own, or
    /// it is the only one.
    fn lists_default(&self) -> bool {
        !self.flat_connection().is_empty() || self.file.contexts.is_empty()
    }

    /// Every context's name: the default first (when it has keys, or is alone),
    /// then the named ones in order.
    pub fn context_names(&self) -> Vec<String> {
        let default = self
            .lists_default()
            .then(|| DEFAULT_CONTEXT.to_owned())
            .filter(|_| !self.file.contexts.contains_key(DEFAULT_CONTEXT));
        default
            .into_iter()
            .chain(self.file.contexts.keys().cloned())
            .collect()
    }

    /// The default context: `[contexts.default]`, else the top-level keys.
    pub fn default_context(&self) -> Context {
        match self.file.contexts.get(DEFAULT_CONTEXT) {
            Some(connection) => Context {
                name: DEFAULT_CONTEXT.to_owned(),
                origin: ContextOrigin::Default,
                connection: connection.clone(),
                named: true,
            },
            None => Context {
                name: DEFAULT_CONTEXT.to_owned(),
                origin: ContextOrigin::Default,
                connection: self.flat_connection(),
                named: false,
            },
        }
    }

    /// The context called `name`, or an error listing the known ones.
    pub fn context(&self, name: &str, origin: ContextOrigin) -> Result<Context, SettingsError> {
        if let Some(connection) = self.file.contexts.get(name) {
            return Ok(Context {
                name: name.to_owned(),
                origin,
                connection: connection.clone(),
                named: true,
            });
        }
        if name == DEFAULT_CONTEXT {
            return Ok(Context {
                name: name.to_owned(),
                origin,
                connection: self.flat_connection(),
                named: false,
            });
        }
        Err(SettingsError::UnknownContext {
            name: name.to_owned(),
            origin,
            path: self.shown_path(),
            known: self.context_names().join(", "),
        })
    }

    /// The context to use: `flag`, then `VANTAGE_CONTEXT` (read through `env`),
    /// then `current_context`, then the default.
    pub fn select_context(
        &self,
        flag: Option<&str>,
        env: impl Fn(&str) -> Option<String>,
    ) -> Result<Context, SettingsError> {
        let set = |value: Option<String>| value.filter(|v| !v.trim().is_empty());
        if let Some(name) = flag {
            return self.context(name, ContextOrigin::Flag);
        }
        if let Some(name) = set(env(CONTEXT_ENV)) {
            return self.context(name.trim(), ContextOrigin::Env);
        }
        if let Some(name) = &self.file.current_context {
            return self.context(name, ContextOrigin::CurrentContext);
        }
        self.context(DEFAULT_CONTEXT, ContextOrigin::Default)
    }

    /// The name `current_context` (else the default) points at, for marking a list.
    pub fn current_context_name(&self) -> &str {
        self.file
            .current_context
            .as_deref()
            .unwrap_or(DEFAULT_CONTEXT)
    }

    /// What `vantage context list` shows, with `current` marked.
    pub fn context_summaries(&self, current: &str) -> Vec<ContextSummary> {
        self.context_names()
            .into_iter()
            .filter_map(|name| self.context(&name, ContextOrigin::Default).ok())
            .map(|context| {
                let connection = &context.connection;
                let key_source = if let Some(name) = &connection.api_key_env {
                    format!("env {name}")
                } else if connection.api_key_command.is_some() {
                    "command".to_owned()
                } else if connection.api_key.is_some() {
                    "file".to_owned()
                } else {
                    "none".to_owned()
                };
                ContextSummary {
                    current: context.name == current,
                    name: context.name,
                    base_url: connection.base_url.clone(),
                    workspace_id: connection.workspace_id.clone(),
                    key_source,
                    read_only: connection.read_only.unwrap_or(false),
                }
            })
            .collect()
    }

    /// Checks what parsing cannot: the default context defined twice.
    pub(super) fn check_contexts(&self) -> Result<(), SettingsError> {
        if self.file.contexts.contains_key(DEFAULT_CONTEXT) && !self.flat_connection().is_empty() {
            return Err(SettingsError::Invalid {
                path: self.shown_path(),
                key: "contexts.default",
                reason: "defines the default context, and so do the connection keys at the top \
                         of the file; keep one of them"
                    .into(),
            });
        }
        Ok(())
    }
}

/// Rewrites `current_context` in the config file's text, keeping every other
/// byte as written (comments, order, spacing).
pub fn set_current_context(text: &str, name: &str) -> Result<String, String> {
    let mut document: toml_edit::DocumentMut = text
        .parse()
        .map_err(|error: toml_edit::TomlError| error.message().trim().to_owned())?;
    match document.get_mut("current_context") {
        Some(item) if item.is_value() => {
            // Keep the comment and spacing around the old value.
            let decor = item.as_value().map(|value| value.decor().clone());
            let mut value = toml_edit::Value::from(name);
            if let Some(decor) = decor {
                *value.decor_mut() = decor;
            }
            *item = toml_edit::Item::Value(value);
            Ok(document.to_string())
        }
        Some(_) => Err("current_context is a table, not a name".to_owned()),
        None => {
            // A new first line: top-level keys must come before any table.
            let escaped = toml_edit::Value::from(name).to_string();
            Ok(format!("current_context = {}\n{text}", escaped.trim()))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    const TWO: &str = r#"
current_context = "staging"
request_timeout_secs = 5
auth_scheme = "bearer"

[contexts.staging]
base_url = "https://staging.example.com"
api_key_env = "STAGING_KEY"
workspace_id = "ws_stage"

[contexts.prod]
base_url = "https://api.example.com"
api_key = "vtg_prod_secret"
workspace_id = "ws_prod"
read_only = true
auth_scheme = "service-api-key"
"#;

    fn loaded(text: &str) -> Result<LoadedConfig, SettingsError> {
        let path = PathBuf::from("/etc/vantage/c.toml");
        let file = super::super::parse(text, &path)?;
        let config = LoadedConfig {
            file,
            path: Some(path),
            exists: true,
        };
        config.check_contexts()?;
        Ok(config)
    }

    fn no_env(_: &str) -> Option<String> {
        None
    }

    #[test]
    fn a_flat_file_is_the_default_context() {
        let config = loaded("base_url = \"https://a.example\"\nworkspace_id = \"ws_a\"\n").unwrap();
        assert_eq!(config.context_names(), ["default"]);
        let context = config.select_context(None, no_env).unwrap();
        assert_eq!(context.name, DEFAULT_CONTEXT);
        assert_eq!(context.origin, ContextOrigin::Default);
        assert!(!context.named);
        assert_eq!(context.connection.workspace_id.as_deref(), Some("ws_a"));
        // No file at all: still a default context, for flags and the environment.
        assert_eq!(LoadedConfig::default().context_names(), ["default"]);
    }

    #[test]
    fn named_contexts_parse_with_their_settings() {
        let config = loaded(TWO).unwrap();
        // No top-level connection keys: no default listed.
        assert_eq!(config.context_names(), ["prod", "staging"]);
        let prod = config.context("prod", ContextOrigin::Flag).unwrap();
        assert!(prod.named);
        assert_eq!(prod.connection.read_only, Some(true));
        let key = ApiKey::new("k").unwrap();
        let client = config
            .context_client_config(&prod, key.clone(), None)
            .unwrap();
        assert_eq!(client.base_url, "https://api.example.com");
        assert_eq!(client.auth_scheme, AuthScheme::ServiceApiKey);
        assert_eq!(client.request_timeout, std::time::Duration::from_secs(5));
        // A context without a scheme of its own takes the top-level one.
        let staging = config.context("staging", ContextOrigin::Flag).unwrap();
        let client = config.context_client_config(&staging, key, None).unwrap();
        assert_eq!(client.auth_scheme, AuthScheme::Bearer);
    }

    #[test]
    fn selection_order_is_flag_env_current_default() {
        let config = loaded(&format!("base_url = \"https://flat.example\"\n{TWO}")).unwrap();
        assert_eq!(config.context_names(), ["default", "prod", "staging"]);
        let env = |name: &str| (name == CONTEXT_ENV).then(|| "prod".to_owned());
        let chosen = config.select_context(Some("default"), env).unwrap();
        assert_eq!(
            (chosen.name.as_str(), chosen.origin),
            ("default", ContextOrigin::Flag)
        );
        let chosen = config.select_context(None, env).unwrap();
        assert_eq!(
            (chosen.name.as_str(), chosen.origin),
            ("prod", ContextOrigin::Env)
        );
        let chosen = config.select_context(None, no_env).unwrap();
        assert_eq!(
            (chosen.name.as_str(), chosen.origin),
            ("staging", ContextOrigin::CurrentContext)
        );
        // An empty VANTAGE_CONTEXT is unset.
        let empty = |_: &str| Some(" ".to_owned());
        assert_eq!(config.select_context(None, empty).unwrap().name, "staging");
        let flat = loaded(
            "base_url = \"https://flat.example\"\n[contexts.x]\nbase_url = \"https://x.example\"\n",
        )
        .unwrap();
        let chosen = flat.select_context(None, no_env).unwrap();
        assert_eq!((chosen.name.as_str(), chosen.named), ("default", false));
    }

    #[test]
    fn an_unknown_context_names_the_known_ones() {
        let config = loaded(TWO).unwrap();
        let error = config.select_context(Some("prd"), no_env).unwrap_err();
        assert_eq!(
            error.to_string(),
            "no context named \"prd\" (from --context) in /etc/vantage/c.toml; known contexts: prod, staging"
        );
        let env = |name: &str| (name == CONTEXT_ENV).then(|| "nope".to_owned());
        let shown = config.select_context(None, env).unwrap_err().to_string();
        assert!(shown.contains("(from VANTAGE_CONTEXT)"), "{shown}");
        let bad_current =
            loaded("current_context = \"gone\"\n[contexts.a]\nbase_url = \"https://a.example\"\n")
                .unwrap();
        let shown = bad_current
            .select_context(None, no_env)
            .unwrap_err()
            .to_string();
        assert!(
            shown.contains("\"gone\" (from current_context)")
                && shown.ends_with("known contexts: a"),
            "{shown}"
        );
    }

    #[test]
    fn errors_name_the_file_the_context_and_the_key() {
        let text = "[contexts.prod]\nbase_url = \"https://api.example.com\"\nbase_ulr = \"typo\"\n";
        let shown = loaded(text).unwrap_err().to_string();
        assert!(
            shown.starts_with("config file /etc/vantage/c.toml, line 3"),
            "{shown}"
        );
        assert!(
            shown.contains("base_ulr") && shown.contains("(in [contexts.prod])"),
            "{shown}"
        );
        // A key in a context that fails to parse is not quoted.
        let text = "[contexts.prod]\napi_key = vtg_unquoted_secret\n";
        let shown = loaded(text).unwrap_err().to_string();
        assert!(!shown.contains("vtg_unquoted"), "{shown}");
        assert!(shown.contains("[contexts.prod]"), "{shown}");
        // The default context defined twice.
        let text = "base_url = \"https://a.example\"\n[contexts.default]\nbase_url = \"https://b.example\"\n";
        let shown = loaded(text).unwrap_err().to_string();
        assert!(
            shown.contains("contexts.default") && shown.contains("/etc/vantage/c.toml"),
            "{shown}"
        );
        // A context without a base URL says which, and what else there is.
        let config = loaded(
            "[contexts.a]\nworkspace_id = \"w\"\n[contexts.b]\nbase_url = \"https://b.example\"\n",
        )
        .unwrap();
        let a = config.context("a", ContextOrigin::Flag).unwrap();
        let shown = config
            .context_client_config(&a, ApiKey::new("k").unwrap(), None)
            .unwrap_err()
            .to_string();
        assert_eq!(
            shown,
            "no base URL for context a: set base_url in /etc/vantage/c.toml under [contexts.a] or pass --base-url (e.g. https://api.example.com), or choose another context with --context NAME (b)"
        );
    }

    #[test]
    fn summaries_say_where_the_key_is_never_what() {
        let config = loaded(TWO).unwrap();
        let rows = config.context_summaries("staging");
        assert_eq!(rows.len(), 2);
        assert_eq!(rows[0].name, "prod");
        assert_eq!(rows[0].key_source, "file");
        assert!(rows[0].read_only && !rows[0].current);
        assert_eq!(rows[1].key_source, "env STAGING_KEY");
        assert!(rows[1].current);
        let json = serde_json::to_string(&rows).unwrap();
        assert!(!json.contains("vtg_prod_secret"), "{json}");
    }

    #[test]
    fn a_context_key_source_comes_before_service_api_key() {
        use super::super::{CredentialSource, resolve_context_credential};
        let config = loaded(&format!("api_key_command = \"false\"\n{TWO}")).unwrap();
        let env = |name: &str| match name {
            "SERVICE_API_KEY" => Some("generic".to_owned()),
            "STAGING_KEY" => Some("staging".to_owned()),
            _ => None,
        };
        let staging = config.context("staging", ContextOrigin::Flag).unwrap();
        let prod = config.context("prod", ContextOrigin::Flag).unwrap();
        // The key found with `--api-key-env` set to `flag`, and its source.
        let found = |flag: Option<&str>, context: &Context| {
            let found = resolve_context_credential(flag, &config, context, env).unwrap();
            (found.key.expose_secret().to_owned(), found.source)
        };
        let staging_key = CredentialSource::ConfigEnv("STAGING_KEY".into());
        assert_eq!(found(None, &staging), ("staging".into(), staging_key));
        // Asked for by name, the context's variable has no fallback.
        let unset = |name: &str| (name == "SERVICE_API_KEY").then(|| "generic".to_owned());
        let shown = resolve_context_credential(None, &config, &staging, unset)
            .unwrap_err()
            .to_string();
        assert!(
            shown.contains("STAGING_KEY is not set") && shown.contains("[contexts.staging]"),
            "{shown}"
        );
        // The flat default keeps DESIGN's order: SERVICE_API_KEY first.
        let default = config.default_context();
        assert_eq!(found(None, &default).1, CredentialSource::DefaultEnv);
        // --api-key-env beats everything.
        assert_eq!(found(Some("STAGING_KEY"), &prod).0, "staging");
        let key_file = CredentialSource::ConfigFile("/etc/vantage/c.toml".into());
        assert_eq!(found(None, &prod), ("vtg_prod_secret".into(), key_file));
    }

    #[test]
    fn current_context_is_replaced_in_place() {
        let text = "# mine\ncurrent_context = \"a\"   # the usual\nbase_url = \"x\"\n\n[contexts.b]\nbase_url = \"y\"\n";
        let out = set_current_context(text, "b").unwrap();
        assert_eq!(
            out,
            "# mine\ncurrent_context = \"b\"   # the usual\nbase_url = \"x\"\n\n[contexts.b]\nbase_url = \"y\"\n"
        );
    }

    #[test]
    fn current_context_is_added_first_when_missing() {
        let text = "[contexts.b]\nbase_url = \"y\"\n";
        let out = set_current_context(text, "b").unwrap();
        assert_eq!(out, format!("current_context = \"b\"\n{text}"));
        let quoted = set_current_context("", "we\"ird").unwrap();
        assert_eq!(quoted, "current_context = 'we\"ird'\n");
    }
}
