//! A session on a chosen context: the flags that apply, the key, the client.

use super::{GlobalArgs, Session, SessionError};
use crate::api::Client;
use crate::config::{Context, ContextOrigin, LoadedConfig, resolve_context_credential};

/// What the `--context` flags ask that cannot be done.
#[derive(Debug, thiserror::Error)]
pub enum ContextsError {
    #[error("--context is given {0} times; only `vantage exporter` serves several contexts")]
    Several(usize),
    #[error("--context {0} is given twice")]
    Repeated(String),
    #[error(
        "{0} names one connection; with several --context, set base_url, workspace_id and the key in each [contexts.NAME]"
    )]
    FlagWithSeveral(&'static str),
}

impl GlobalArgs {
    /// The one context `--context` names, if any.
    pub fn context_name(&self) -> Result<Option<&str>, ContextsError> {
        match self.context.as_slice() {
            [] => Ok(None),
            [name] => Ok(Some(name)),
            several => Err(ContextsError::Several(several.len())),
        }
    }
}

/// Which global flags apply to a context.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FlagUse {
    /// The context chosen at start: `--base-url`, `--workspace`,
    /// `--api-key-env` and `--read-only` override it.
    All,
    /// A context switched to while running, or one of several the exporter
    /// serves: the flags named one connection, not this one; only
    /// `--read-only`, which only ever narrows, still applies.
    ReadOnlyOnly,
}

impl Session {
    /// Connects to `context` of `config`.
    pub fn connect_to(
        args: &GlobalArgs,
        config: LoadedConfig,
        context: Context,
        flags: FlagUse,
    ) -> Result<Self, SessionError> {
        let all = flags == FlagUse::All;
        let api_key_env = args.api_key_env.as_deref().filter(|_| all);
        let base_url = args.base_url.as_deref().filter(|_| all);
        let credential = resolve_context_credential(api_key_env, &config, &context, |name| {
            std::env::var(name).ok()
        })?;
        let client_config = config.context_client_config(&context, credential.key, base_url)?;
        let api_version = client_config.api_version.clone();
        let client = Client::new(client_config)?;
        let workspace_flag = args.workspace.clone().filter(|_| all);
        Ok(Self {
            workspace_id: workspace_flag.or_else(|| context.connection.workspace_id.clone()),
            read_only: args.read_only || context.connection.read_only.unwrap_or(false),
            api_version,
            credential_source: Some(credential.source),
            warnings: credential
                .warnings
                .iter()
                .map(ToString::to_string)
                .collect(),
            client,
            config,
            context,
            args: args.clone(),
        })
    }

    /// The workspace of the context the flags and the file choose, without a
    /// key or a connection: for commands that read only local files (the
    /// history, whose file is chosen by workspace).
    pub fn local_workspace(
        args: &GlobalArgs,
    ) -> Result<(LoadedConfig, Context, String), SessionError> {
        let config = LoadedConfig::load(args.config.as_deref())?;
        let context =
            config.select_context(args.context_name()?, |name| std::env::var(name).ok())?;
        let workspace = args
            .workspace
            .clone()
            .or_else(|| context.connection.workspace_id.clone())
            .ok_or_else(|| SessionError::NoWorkspace {
                path: super::workspace_hint(&config, &context),
            })?;
        Ok((config, context, workspace))
    }

    /// Connects to the context called `name`, reading the config file again (it
    /// may have changed since the start), as the dashboard's picker does.
    pub fn switch_to(args: &GlobalArgs, name: &str) -> Result<Self, SessionError> {
        let config = LoadedConfig::load(args.config.as_deref())?;
        let context = config.context(name, ContextOrigin::Switched)?;
        Self::connect_to(args, config, context, FlagUse::ReadOnlyOnly)
    }
}
