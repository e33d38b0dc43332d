//! `vantage snapshot`, `changes` and `reviewed`: the local review history from
//! scripts. Only `snapshot` talks to the service; the others read the history
//! file and need no key.

pub mod args;
mod changes;
mod copy;
mod migrate;
mod prune;
mod reviewed;
mod snapshot;

pub use args::HistoryCommand;

use crate::config::{Context, LoadedConfig, SettingsError};
use crate::history::{HistoryConfig, HistoryError, HistoryLocation, Store};

use super::exit::CliError;
use super::workspaces::resolve_workspace;
use crate::session::{GlobalArgs, Session, SessionError};

/// Runs one history command.
pub async fn execute(command: HistoryCommand, global: &GlobalArgs) -> Result<(), CliError> {
    match command {
        HistoryCommand::Snapshot(args) => snapshot::run(args, global).await,
        HistoryCommand::Changes(args) => changes::run(args, &Local::open(global).await?).await,
        HistoryCommand::Reviewed(command) => {
            reviewed::run(command, &mut Local::open(global).await?, global).await
        }
        HistoryCommand::History(args::HistoryAdmin::Copy { to }) => {
            // The blocking driver runs its own runtime: off this one.
            let global = global.clone();
            tokio::task::spawn_blocking(move || copy::run(&to, &global))
                .await
                .map_err(|error| CliError::Usage(format!("history copy stopped: {error}")))?
        }
        HistoryCommand::History(args::HistoryAdmin::Migrate { dry_run }) => {
            let global = global.clone();
            tokio::task::spawn_blocking(move || migrate::run(dry_run, &global))
                .await
                .map_err(|error| CliError::Usage(format!("history migrate stopped: {error}")))?
        }
    }
}

/// The history config of the config file's `[history]` section, with where
/// the history is for `context` (`--history`, `VANTAGE_HISTORY_URL`,
/// `history_url`).
fn history_config(
    config: &LoadedConfig,
    context: &Context,
    global: &GlobalArgs,
) -> Result<HistoryConfig, SessionError> {
    HistoryConfig::for_context(
        &config.file.other,
        &context.connection,
        global.history.as_deref(),
    )
    .map_err(|reason| {
        SessionError::Settings(SettingsError::Invalid {
            path: config.path.as_ref().map_or_else(
                || "the config file".to_owned(),
                |path| path.display().to_string(),
            ),
            key: "history",
            reason,
        })
    })
}

/// Opens the history; a weak `sslmode` chosen for a remote database is said
/// on stderr first.
fn open_store(location: &HistoryLocation) -> Result<Store, HistoryError> {
    if let HistoryLocation::Database(target) = location
        && let Some(warning) = target.tls_warning_once()
    {
        crate::stderr::line(format_args!("warning: {warning}"));
    }
    Store::open_at(location)
}

/// What the offline commands need: the workspace and its history.
struct Local {
    workspace: String,
    config: HistoryConfig,
    store: Store,
}

impl Local {
    /// The workspace as every command finds it: `--workspace` or the config;
    /// else the one the key reaches, through the same path as `inventory`;
    /// else, with no key or none reached, the one workspace the history file
    /// holds (these commands read only the file).
    async fn open(global: &GlobalArgs) -> Result<Self, CliError> {
        let unconfigured = match Session::local_workspace(global) {
            Ok((loaded, context, workspace)) => {
                let config = history_config(&loaded, &context, global)?;
                let store = open_store(&config.location()?)?;
                return Ok(Self {
                    workspace,
                    config,
                    store,
                });
            }
            Err(error @ SessionError::NoWorkspace { .. }) => error,
            Err(other) => return Err(other.into()),
        };
        let loaded = LoadedConfig::load(global.config.as_deref()).map_err(SessionError::from)?;
        let context = loaded
            .select_context(global.context_name().map_err(SessionError::from)?, |name| {
                std::env::var(name).ok()
            })
            .map_err(SessionError::from)?;
        let config = history_config(&loaded, &context, global)?;
        let store = open_store(&config.location()?)?;
        // A key that reaches workspaces decides, as for `inventory`.
        if let Ok(session) = Session::connect(global) {
            match resolve_workspace(&session).await {
                Ok(workspace) => {
                    return Ok(Self {
                        workspace,
                        config,
                        store,
                    });
                }
                Err(CliError::Session(SessionError::NoWorkspace { .. })) => {}
                Err(other) => return Err(other),
            }
        }
        match store.workspaces()?.as_slice() {
            [only] => {
                crate::stderr::line(format_args!(
                    "using workspace {}, the only one in {}",
                    crate::text::escape_invisible(only),
                    store.describe()
                ));
                Ok(Self {
                    workspace: only.clone(),
                    config,
                    store,
                })
            }
            _ => Err(unconfigured.into()),
        }
    }
}
