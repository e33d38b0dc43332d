//! What the dashboard, the script commands and the exporter share: the global
//! flags, and turning them (with the config file and the environment) into a
//! connected client. Which context (named connection) is used is decided in
//! `contexts.rs`.

mod contexts;
pub mod environment;

pub use contexts::{ContextsError, FlagUse};

use std::path::PathBuf;

use clap::Args;

use futures::{StreamExt, TryStreamExt};

use crate::api::model::{ErrorType, Workspace};
use crate::api::{ApiError, Client, ConfigError, PageParams};
use crate::config::{Context, CredentialError, CredentialSource, LoadedConfig, SettingsError};

/// The most workspaces discovery reads (a picker or an error lists them all).
const DISCOVERY_LIMIT: usize = 200;

/// Flags every command takes.
#[derive(Args, Debug, Clone, Default)]
#[command(next_help_heading = "Global options")]
pub struct GlobalArgs {
    /// Config file (default: the platform config dir, e.g. ~/.config/vantage/config.toml).
    #[arg(long, global = true, value_name = "FILE", env = environment::CONFIG)]
    pub config: Option<PathBuf>,
    /// Context (named connection) to use; overrides VANTAGE_CONTEXT and
    /// current_context. The exporter takes it more than once.
    #[arg(long, global = true, value_name = "NAME")]
    pub context: Vec<String>,
    /// API address; overrides base_url in the config file.
    #[arg(long, global = true, value_name = "URL", env = environment::BASE_URL)]
    pub base_url: Option<String>,
    /// Workspace to show; overrides workspace_id in the config file.
    #[arg(long, global = true, value_name = "ID", env = environment::WORKSPACE)]
    pub workspace: Option<String>,
    /// Read the API key from this environment variable.
    #[arg(long, global = true, value_name = "NAME")]
    pub api_key_env: Option<String>,
    /// Hide and refuse every mutation.
    #[arg(long, global = true, env = environment::READ_ONLY,
          value_parser = clap::builder::FalseyValueParser::new())]
    pub read_only: bool,
    /// The review history: a postgres:// URL for a shared database, or a
    /// file; overrides VANTAGE_HISTORY_URL and history_url.
    #[arg(long, global = true, value_name = "URL")]
    pub history: Option<String>,
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
    #[error(
        "no workspace configured, and the key reaches several; pass --workspace ID or set workspace_id in {path}:\n{listing}"
    )]
    SeveralWorkspaces { path: String, listing: String },
    #[error("no workspace configured, and asking the service which one failed: {0}")]
    Discovery(crate::api::ApiError),
}

/// How [`Session::resolve_workspace`] settled the workspace.
#[derive(Debug, Clone, PartialEq)]
pub enum WorkspaceChoice {
    /// Given by `--workspace` or the config file.
    Configured(String),
    /// Not configured; the one workspace the key reaches (say so to the user).
    Discovered(Workspace),
    /// Not configured, and the key reaches several: the dashboard asks, the
    /// commands list them ([`WorkspaceChoice::into_id`]).
    Several(Vec<Workspace>),
}

impl WorkspaceChoice {
    /// The workspace id; several reachable is an error that lists them (id and
    /// name, made safe to print).
    pub fn into_id(self, session: &Session) -> Result<String, SessionError> {
        match self {
            Self::Configured(id) => Ok(id),
            Self::Discovered(workspace) => Ok(workspace.id),
            Self::Several(workspaces) => Err(SessionError::SeveralWorkspaces {
                path: session.config_path_text(),
                listing: workspaces
                    .iter()
                    .map(|workspace| {
                        format!(
                            "  {}  {}",
                            crate::text::escape_invisible(&workspace.id),
                            crate::text::escape_invisible(workspace.name.as_deref().unwrap_or("")),
                        )
                    })
                    .collect::<Vec<_>>()
                    .join("\n"),
            }),
        }
    }
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
                path: self.config_path_text(),
            })
    }

    /// Where a workspace_id would go: the file, and the context's table in it.
    fn config_path_text(&self) -> String {
        workspace_hint(&self.config, &self.context)
    }

    /// The configured workspace, or else the ones the key reaches, asked of
    /// the service (`GET /v1/workspaces`, DESIGN.md). A service that answers
    /// 404 `not_found` (it lacks the operation) or lists none keeps the "no
    /// workspace" error.
    pub async fn resolve_workspace(&self) -> Result<WorkspaceChoice, SessionError> {
        if let Some(id) = &self.workspace_id {
            return Ok(WorkspaceChoice::Configured(id.clone()));
        }
        let no_workspace = || SessionError::NoWorkspace {
            path: self.config_path_text(),
        };
        let listed: Result<Vec<Workspace>, ApiError> = self
            .client
            .workspaces_stream(PageParams::default())
            .take(DISCOVERY_LIMIT)
            .try_collect()
            .await;
        match listed {
            Err(error) if error.kind() == Some(&ErrorType::NotFound) => Err(no_workspace()),
            Err(error) => Err(SessionError::Discovery(error)),
            Ok(mut workspaces) => match workspaces.len() {
                0 => Err(no_workspace()),
                1 => Ok(WorkspaceChoice::Discovered(workspaces.remove(0))),
                _ => Ok(WorkspaceChoice::Several(workspaces)),
            },
        }
    }
}

/// Where a workspace_id would go: the file, and the context's table in it.
fn workspace_hint(config: &LoadedConfig, context: &Context) -> String {
    match context.named {
        true => format!("{} under [contexts.{}]", config.shown_path(), context.name),
        false => config.shown_path(),
    }
}
