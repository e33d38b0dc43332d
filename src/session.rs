//! What the dashboard, the script commands and the exporter share: the global
//! flags, and turning them (with the config file and the environment) into a
//! connected client. Which context (named connection) is used is decided in
//! `contexts.rs`.

mod contexts;

pub use contexts::{ContextsError, FlagUse};

use std::path::PathBuf;

use clap::Args;

use crate::api::{Client, ConfigError};
use crate::config::{Context, CredentialError, CredentialSource, LoadedConfig, SettingsError};

/// Flags every command takes.
#[derive(Args, Debug, Clone, Default)]
#[command(next_help_heading = "Global options")]
pub struct GlobalArgs {
    /// Config file (default: the platform config dir, e.g. ~/.config/vantage/config.toml).
    #[arg(long, global = true, value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// Context (named connection) to use; overrides VANTAGE_CONTEXT and
    /// current_context. The exporter takes it more than once.
    #[arg(long, global = true, value_name = "NAME")]
    pub context: Vec<String>,
    /// API address; overrides base_url in the config file.
    #[arg(long, global = true, value_name = "URL")]
    pub base_url: Option<String>,
    /// Workspace to show; overrides workspace_id in the config file.
    #[arg(long, global = true, value_name = "ID")]
    pub workspace: Option<String>,
    /// Read the API key from this environment variable.
    #[arg(long, global = true, value_name = "NAME")]
    pub api_key_env: Option<String>,
    /// Hide and refuse every mutation.
    #[arg(long, global = true)]
    pub read_only: bool,
}

#[derive(Debug, thiserror::Error)]
pub enum SessionError {
    #[error(transparent)]
    Settings(#[from] SettingsError),
    #[error(transparent)]
    Credential(#[from] CredentialError),
    #[error(transparent)]
    Client(#[from] ConfigError),
    #[error(transparent)]
    Contexts(#[from] ContextsError),
    #[error("no workspace: set workspace_id in {path} or pass --workspace ID")]
    NoWorkspace { path: String },
}

/// A client ready to use, with what the flags and the config file decided.
pub struct Session {
    pub client: Client,
    pub config: LoadedConfig,
    /// The context this session connects to.
    pub context: Context,
    /// The flags it was made from, to connect to another context later.
    pub args: GlobalArgs,
    pub workspace_id: Option<String>,
    pub read_only: bool,
    pub api_version: String,
    pub credential_source: Option<CredentialSource>,
    /// Things the user should fix (e.g. a key file others can read).
    pub warnings: Vec<String>,
}

impl Session {
    /// Loads the config, chooses the context (`--context`, `VANTAGE_CONTEXT`,
    /// `current_context`, the default), finds the key and builds the client.
    /// Touches nothing else: a failure here is reported before the terminal is
    /// taken over.
    pub fn connect(args: &GlobalArgs) -> Result<Self, SessionError> {
        let config = LoadedConfig::load(args.config.as_deref())?;
        let context =
            config.select_context(args.context_name()?, |name| std::env::var(name).ok())?;
        Self::connect_to(args, config, context, FlagUse::All)
    }

    /// The workspace, or an error saying how to set one.
    pub fn workspace(&self) -> Result<&str, SessionError> {
        self.workspace_id
            .as_deref()
            .ok_or_else(|| SessionError::NoWorkspace {
                path: workspace_hint(&self.config, &self.context),
            })
    }
}

/// Where a workspace_id would go: the file, and the context's table in it.
fn workspace_hint(config: &LoadedConfig, context: &Context) -> String {
    match context.named {
        true => format!("{} under [contexts.{}]", config.shown_path(), context.name),
        false => config.shown_path(),
    }
}
