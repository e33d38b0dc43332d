//! What the dashboard and the script commands share: global flags, and turning
//! them (with the config file and the environment) into a connected session.

pub mod args;
pub mod commands;
pub mod docs;
pub mod exit;
pub mod history;
pub mod output;
pub mod progress;
pub mod table;
pub mod views;

pub use args::ScriptCommand;
pub use commands::run;

use std::path::PathBuf;

use clap::Args;

use crate::api::{Client, ConfigError};
use crate::config::{
    CredentialError, CredentialSource, LoadedConfig, SettingsError, resolve_credential,
};

/// Flags every command takes.
#[derive(Args, Debug, Clone, Default)]
#[command(next_help_heading = "Global options")]
pub struct GlobalArgs {
    /// Config file (default: the platform config dir, e.g. ~/.config/vantage/config.toml).
    #[arg(long, global = true, value_name = "FILE")]
    pub config: Option<PathBuf>,
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
    #[error("no workspace: set workspace_id in {path} or pass --workspace ID")]
    NoWorkspace { path: String },
}

/// A client ready to use, with what the flags and the config file decided.
pub struct Session {
    pub client: Client,
    pub config: LoadedConfig,
    pub workspace_id: Option<String>,
    pub read_only: bool,
    pub api_version: String,
    pub credential_source: Option<CredentialSource>,
    /// Things the user should fix (e.g. a key file others can read).
    pub warnings: Vec<String>,
}

impl Session {
    /// Loads the config, finds the key and builds the client. Touches nothing
    /// else: a failure here is reported before the terminal is taken over.
    pub fn connect(args: &GlobalArgs) -> Result<Self, SessionError> {
        let config = LoadedConfig::load(args.config.as_deref())?;
        let credential = resolve_credential(args.api_key_env.as_deref(), &config, |name| {
            std::env::var(name).ok()
        })?;
        let client_config = config.client_config(credential.key, args.base_url.as_deref())?;
        let api_version = client_config.api_version.clone();
        let client = Client::new(client_config)?;
        Ok(Self {
            workspace_id: args
                .workspace
                .clone()
                .or_else(|| config.file.workspace_id.clone()),
            read_only: args.read_only || config.file.read_only.unwrap_or(false),
            api_version,
            credential_source: Some(credential.source),
            warnings: credential
                .warnings
                .iter()
                .map(ToString::to_string)
                .collect(),
            client,
            config,
        })
    }

    /// The workspace, or an error saying how to set one.
    pub fn workspace(&self) -> Result<&str, SessionError> {
        self.workspace_id
            .as_deref()
            .ok_or_else(|| SessionError::NoWorkspace {
                path: self.config.path.as_ref().map_or_else(
                    || "the config file".to_owned(),
                    |path| path.display().to_string(),
                ),
            })
    }
}
