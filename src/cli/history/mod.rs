//! `vantage snapshot`, `changes` and `reviewed`: the local review history from
//! scripts. Only `snapshot` talks to the service; the others read the history
//! file and need no key.

pub mod args;
mod changes;
mod reviewed;
mod snapshot;

pub use args::HistoryCommand;

use crate::config::{LoadedConfig, SettingsError};
use crate::history::{HistoryConfig, Store};

use super::exit::CliError;
use crate::session::{GlobalArgs, SessionError};

/// Runs one history command.
pub async fn execute(command: HistoryCommand, global: &GlobalArgs) -> Result<(), CliError> {
    match command {
        HistoryCommand::Snapshot(args) => snapshot::run(args, global).await,
        HistoryCommand::Changes(args) => changes::run(args, &Local::open(global)?).await,
        HistoryCommand::Reviewed(command) => {
            reviewed::run(command, &mut Local::open(global)?).await
        }
    }
}

/// The history config of the config file's `[history]` section.
fn history_config(config: &LoadedConfig) -> Result<HistoryConfig, SessionError> {
    HistoryConfig::from_sections(&config.file.other).map_err(|reason| {
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

/// What the offline commands need: the workspace and its history.
struct Local {
    workspace: String,
    config: HistoryConfig,
    store: Store,
}

impl Local {
    fn open(global: &GlobalArgs) -> Result<Self, CliError> {
        let loaded = LoadedConfig::load(global.config.as_deref()).map_err(SessionError::from)?;
        let workspace = global
            .workspace
            .clone()
            .or_else(|| loaded.file.workspace_id.clone())
            .ok_or_else(|| SessionError::NoWorkspace {
                path: loaded.path.as_ref().map_or_else(
                    || "the config file".to_owned(),
                    |path| path.display().to_string(),
                ),
            })?;
        let config = history_config(&loaded)?;
        let store = Store::open(&config.file())?;
        Ok(Self {
            workspace,
            config,
            store,
        })
    }
}
