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

use std::sync::{Arc, Mutex, PoisonError};

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
            reviewed::run(command, &Local::open(global).await?, global).await
        }
        HistoryCommand::History(args::HistoryAdmin::Copy { to }) => {
            let global = global.clone();
            off_runtime(move || copy::run(&to, &global)).await
        }
        HistoryCommand::History(args::HistoryAdmin::Migrate { dry_run }) => {
            let global = global.clone();
            off_runtime(move || migrate::run(dry_run, &global)).await
        }
    }
}

/// The history config of the config file's `[history]` section, with where
/// the history is for `context` (`--history`, `VANTAGE_HISTORY_URL`,
/// `history_url`).
pub(crate) fn history_config(
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

/// [`history_config`] for the context the flags and the environment pick.
pub(crate) fn selected_history_config(global: &GlobalArgs) -> Result<HistoryConfig, CliError> {
    let loaded = LoadedConfig::load(global.config.as_deref()).map_err(SessionError::from)?;
    let context = loaded
        .select_context(global.context_name().map_err(SessionError::from)?, |name| {
            std::env::var(name).ok()
        })
        .map_err(SessionError::from)?;
    Ok(history_config(&loaded, &context, global)?)
}

/// Runs `job` on a blocking thread, never on the runtime's own: a store
/// waits (for the disk, the database, a workspace's lock for minutes).
async fn off_runtime<T, E>(
    job: impl FnOnce() -> Result<T, E> + Send + 'static,
) -> Result<T, CliError>
where
    T: Send + 'static,
    E: Into<CliError> + Send + 'static,
{
    match tokio::task::spawn_blocking(job).await {
        Ok(done) => done.map_err(Into::into),
        Err(error) if error.is_panic() => std::panic::resume_unwind(error.into_panic()),
        Err(error) => Err(CliError::Cancelled(format!("the history's work: {error}"))),
    }
}

/// The history as a command holds it: each use of the store runs
/// [`off_runtime`], in turn.
#[derive(Clone)]
pub(crate) struct HeldStore {
    store: Arc<Mutex<Store>>,
    /// Where it is, for a person (never a password).
    described: String,
}

impl HeldStore {
    async fn open(location: HistoryLocation) -> Result<Self, CliError> {
        let store = off_runtime(move || open_store(&location)).await?;
        Ok(Self {
            described: store.describe(),
            store: Arc::new(Mutex::new(store)),
        })
    }

    pub(crate) fn describe(&self) -> &str {
        &self.described
    }

    /// Runs `job` on the store, on a blocking thread.
    pub(crate) async fn with<T, E>(
        &self,
        job: impl FnOnce(&mut Store) -> Result<T, E> + Send + 'static,
    ) -> Result<T, CliError>
    where
        T: Send + 'static,
        E: Into<CliError> + Send + 'static,
    {
        let store = Arc::clone(&self.store);
        off_runtime(move || job(&mut store.lock().unwrap_or_else(PoisonError::into_inner))).await
    }
}

/// Opens the history; a weak `sslmode` chosen for a remote database is said
/// on stderr first.
pub(crate) fn open_store(location: &HistoryLocation) -> Result<Store, HistoryError> {
    if let HistoryLocation::Database(target) = location
        && let Some(warning) = target.tls_warning_once()
    {
        crate::stderr::line(format_args!("warning: {warning}"));
    }
    Store::open_at(location)
}

/// What the offline commands need: the workspace and its history.
pub(crate) struct Local {
    pub(crate) workspace: String,
    pub(crate) config: HistoryConfig,
    pub(crate) store: HeldStore,
}

impl Local {
    /// The workspace as every command finds it: `--workspace` or the config;
    /// else the one the key reaches, through the same path as `inventory`;
    /// else, with no key or none reached, the one workspace the history file
    /// holds (these commands read only the file).
    pub(crate) async fn open(global: &GlobalArgs) -> Result<Self, CliError> {
        let unconfigured = match Session::local_workspace(global) {
            Ok((loaded, context, workspace)) => {
                let config = history_config(&loaded, &context, global)?;
                let store = HeldStore::open(config.location()?).await?;
                return Ok(Self {
                    workspace,
                    config,
                    store,
                });
            }
            Err(error @ SessionError::NoWorkspace { .. }) => error,
            Err(other) => return Err(other.into()),
        };
        let config = selected_history_config(global)?;
        let store = HeldStore::open(config.location()?).await?;
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
        match store.with(|store| store.workspaces()).await?.as_slice() {
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
