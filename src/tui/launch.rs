//! Starting the dashboard on a connected client: the configured service's, or
//! the embedded reference server's (`vantage demo`, wired in `src/demo.rs`).
//! On the configured service, the services can switch contexts while running.

use std::path::PathBuf;
use std::sync::{Arc, Mutex, PoisonError, RwLock};

use tokio::sync::broadcast;
use tokio::task::JoinHandle;

use super::app::{App, Identity, SavedViews};
use super::notice_box::{NoticeSender, notice_box};
use super::palette::{History, Palette};
use super::review::start;
use super::runtime::{self, Exit};
use super::services::{
    ClientServices, ContextSwitch, HistoryAccess, HistoryDoor, ServiceSource, Services,
    SwitchedContext,
};
use super::settings::{AppSettings, RefreshSecs, TuiSettings, TuiSettingsError};
use super::terminal::{self, RestoreOnDrop};
use super::theme::ColorDepth;
use super::vocab::{ErrorInfo, notice};
use super::watchlist;
use super::workspace_picker;
use crate::api::Client;
use crate::clock::Clock;
use crate::config::{Context, DEFAULT_CONTEXT};
use crate::history::HistoryConfig;
use crate::session::{GlobalArgs, Session, SessionError, WorkspaceChoice};

#[derive(Debug, thiserror::Error)]
pub enum LaunchError {
    #[error(transparent)]
    Session(#[from] SessionError),
    #[error(transparent)]
    Settings(#[from] TuiSettingsError),
    #[error("config: {0}")]
    History(String),
    #[error("terminal: {0}")]
    Terminal(#[from] std::io::Error),
}

impl LaunchError {
    /// A problem with the config file, the flags or the key, which the user fixes
    /// (the commands' exit status 3), rather than one of the terminal.
    pub fn is_configuration(&self) -> bool {
        matches!(
            self,
            Self::Session(_) | Self::Settings(_) | Self::History(_)
        )
    }
}

/// What the dashboard shows, and where.
pub struct Target {
    pub client: Client,
    pub identity: Identity,
    /// The workspace the screens read.
    pub workspace_id: String,
    /// The monitor's watch list file.
    pub watchlist: PathBuf,
    /// The review history (its file and walk budget); `None` runs without one.
    pub history: Option<HistoryConfig>,
    /// The inventory's saved views, and the config file they go to.
    pub views: SavedViews,
}

/// The monitor's watch list file of a context: the default context keeps the
/// file it always had; a named one has its own, as its projects are another
/// service's.
pub fn watchlist_for(context: &Context) -> PathBuf {
    if !context.named || context.name == DEFAULT_CONTEXT {
        return watchlist::default_path();
    }
    let safe: String = context
        .name
        .chars()
        .map(
            |c| match c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                true => c,
                false => '_',
            },
        )
        .collect();
    crate::paths::data_dir().join(format!("watchlist-{safe}.json"))
}

/// Opens the dashboard on the configured service; `refresh` is the command
/// line's `--refresh` (seconds), over the config file's.
pub async fn run_configured(
    session: Session,
    refresh: Option<RefreshSecs>,
) -> Result<Exit, LaunchError> {
    let settings = TuiSettings::from_config(&session.config)?.with_refresh(refresh);
    // Configured, or asked of the service (DESIGN.md): the one the key reaches
    // is named in the header; several are offered in a picker.
    // The plan of a discovered workspace is known now; otherwise the App reads
    // the workspace as it starts.
    let (workspace_id, label, plan) = match session.resolve_workspace().await? {
        WorkspaceChoice::Configured(id) => (id.clone(), id, None),
        WorkspaceChoice::Discovered(workspace) => {
            let name = workspace
                .name
                .as_deref()
                .map(|name| format!("{} ", crate::text::fit(name, 14)))
                .unwrap_or_default();
            let label = format!("{} ({name}found via the key)", workspace.id);
            let plan = workspace.plan.as_ref().map(|plan| plan.as_str().to_owned());
            (workspace.id, label, plan)
        }
        WorkspaceChoice::Several(workspaces) => {
            let theme = app_settings(&settings).theme();
            let chosen = {
                let mut terminal = terminal::enter()?;
                let _restore = RestoreOnDrop;
                workspace_picker::pick(&mut terminal, workspaces, &theme).await?
            };
            match chosen {
                Some(id) => (id.clone(), id, None),
                None => return Ok(Exit::Quit),
            }
        }
    };
    let identity = Identity {
        workspace: label,
        workspace_id: workspace_id.clone(),
        plan,
        api_version: session.api_version.clone(),
        read_only: session.read_only,
    };
    let switching = Switching {
        args: session.args.clone(),
        names: session.config.context_names(),
        current: session.context.name.clone(),
    };
    let history = HistoryConfig::for_context(
        &session.config.file.other,
        &session.context.connection,
        session.args.history.as_deref(),
    )
    .map_err(LaunchError::History)?;
    // A history URL that cannot be used is said before the terminal is taken.
    let location = history
        .location()
        .map_err(|error| LaunchError::History(error.to_string()))?;
    if let crate::history::HistoryLocation::Database(target) = &location
        && let Some(warning) = target.tls_warning_once()
    {
        tracing::warn!("{warning}");
    }
    let views = SavedViews {
        path: session.config.path.clone(),
        by_context: session.config.file.views.clone(),
    };
    let target = Target {
        views,
        watchlist: watchlist_for(&session.context),
        history: Some(history),
        client: session.client,
        identity,
        workspace_id,
    };
    run_with(target, &settings, Some(switching)).await
}

/// What switching contexts needs: the flags to connect with, and the contexts.
pub struct Switching {
    pub args: GlobalArgs,
    /// Every context of the config file.
    pub names: Vec<String>,
    /// The one connected at start.
    pub current: String,
}

/// The settings for this terminal: its colour depth, the exports in the data
/// directory.
fn app_settings(settings: &TuiSettings) -> AppSettings {
    let export_dir = crate::paths::data_dir().join("exports");
    AppSettings::new(settings, ColorDepth::from_env(), export_dir)
}

/// Runs the dashboard until the user quits or a signal ends it; the terminal is
/// restored either way.
pub async fn run(target: Target, settings: &TuiSettings) -> Result<Exit, LaunchError> {
    run_with(target, settings, None).await
}

/// [`run`], able to switch contexts when `switching` says how.
pub async fn run_with(
    target: Target,
    settings: &TuiSettings,
    switching: Option<Switching>,
) -> Result<Exit, LaunchError> {
    let Target {
        client,
        identity,
        workspace_id,
        watchlist: watchlist_path,
        history,
        views,
    } = target;
    let clock = Clock::system();
    let mut app = App::new(identity, app_settings(settings));
    app.monitor.use_watchlist_file(watchlist_path);
    app.palette = Palette::with_history(History::load(History::default_path()));
    let (notices_tx, notices_rx) = notice_box();
    // The instant start: the newest snapshot's data, before the first frame
    // (read on a blocking thread: the store waits for the disk or the database).
    let history = match history {
        Some(config) => {
            let location = config
                .location()
                .unwrap_or_else(|_| crate::history::HistoryLocation::File(config.file()));
            let (at, now) = (location.clone(), clock.now());
            let (read_config, workspace) = (config.clone(), workspace_id.clone());
            let started = tokio::task::spawn_blocking(move || {
                start::read_start(&at, &read_config, &workspace, now)
            })
            .await;
            match started {
                Ok(started) => {
                    app.apply_history_start(started, clock.now());
                }
                Err(error) if error.is_panic() => std::panic::resume_unwind(error.into_panic()),
                // The runtime is ending: there is no dashboard to start.
                Err(_) => {}
            }
            Some(HistoryAccess {
                location,
                config,
                progress: Some(notices_tx.clone()),
            })
        }
        None => None,
    };
    let forward = forward_notices(&client, notices_tx.clone());
    let source = ClientServices {
        client,
        workspace_id,
        clock: clock.clone(),
    };
    let args = switching.map(|switching| {
        app.set_contexts(switching.names, switching.current);
        switching.args
    });
    app.set_views(views);
    let on_screen = Arc::new(RwLock::new(OnScreen {
        source,
        history: history.map(HistoryDoor::new),
    }));
    let source = SwitchingServices {
        on_screen: on_screen.clone(),
        switcher: args.map(|args| {
            Arc::new(Switcher {
                args,
                clock: clock.clone(),
                notices: notices_tx,
                forward: Mutex::new(forward),
                on_screen,
            })
        }),
    };
    let mut terminal = terminal::enter()?;
    let restore = RestoreOnDrop;
    let exit = runtime::run(&mut terminal, &mut app, source.clone(), clock, notices_rx).await;
    drop(restore);
    source.stop_forwarding();
    Ok(exit?)
}

/// Passes the client's notices (rate limit, retries) to the App.
fn forward_notices(client: &Client, notices: NoticeSender) -> JoinHandle<()> {
    let mut events = client.subscribe();
    tokio::spawn(async move {
        loop {
            match events.recv().await {
                Ok(event) => {
                    if let Some(notice) = notice(&event) {
                        notices.send(notice);
                    }
                }
                Err(broadcast::error::RecvError::Lagged(_)) => continue,
                Err(broadcast::error::RecvError::Closed) => break,
            }
        }
    })
}

/// The context on screen: its client and its review history, swapped
/// together by a switch under one lock, so a request never pairs one
/// context's client with another's history.
#[derive(Clone)]
struct OnScreen {
    source: ClientServices,
    /// Replaced when the new context's history is elsewhere; while it stays,
    /// so does the door (its connections, and its lock keeping background
    /// snapshots to one at a time across switches).
    history: Option<HistoryDoor>,
}

impl OnScreen {
    fn services(&self) -> Services {
        Services {
            history: self.history.clone(),
            ..self.source.services()
        }
    }
}

/// The services of the context on screen; a switch replaces them.
#[derive(Clone)]
pub struct SwitchingServices {
    on_screen: Arc<RwLock<OnScreen>>,
    /// `None` in the demo: nothing to switch to.
    switcher: Option<Arc<Switcher>>,
}

struct Switcher {
    args: GlobalArgs,
    clock: Clock,
    notices: NoticeSender,
    /// Forwards the notices of the client on screen.
    forward: Mutex<JoinHandle<()>>,
    /// The context on screen, which a switch replaces.
    on_screen: Arc<RwLock<OnScreen>>,
}

impl SwitchingServices {
    fn stop_forwarding(&self) {
        if let Some(switcher) = &self.switcher {
            switcher
                .forward
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .abort();
        }
    }
}

impl ServiceSource for SwitchingServices {
    fn services(&self) -> Services {
        Services {
            contexts: self
                .switcher
                .clone()
                .map(|switcher| switcher as Arc<dyn ContextSwitch>),
            ..self
                .on_screen
                .read()
                .unwrap_or_else(PoisonError::into_inner)
                .services()
        }
    }
}

impl Switcher {
    /// Connects to `name` (reading the config file again; a key command runs
    /// off the event loop), then sends every later request there.
    async fn connect(self: Arc<Self>, name: String) -> Result<SwitchedContext, ErrorInfo> {
        let switcher = self;
        let failure = |summary: String| ErrorInfo::local(summary, switcher.clock.now());
        let args = switcher.args.clone();
        let wanted = name.clone();
        let connected = tokio::task::spawn_blocking(move || Session::switch_to(&args, &wanted))
            .await
            .map_err(|error| failure(format!("context {name}: {error}")))?;
        let session = connected.map_err(|error| failure(format!("context {name}: {error}")))?;
        // Configured, or the one the key reaches; several are listed in the error.
        let workspace = match session.resolve_workspace().await {
            Ok(choice) => choice.into_id(&session),
            Err(error) => Err(error),
        }
        .map_err(|error| failure(format!("context {name}: {error}")))?;
        // The new context's history, chosen as at launch (`--history` and
        // `VANTAGE_HISTORY_URL` first); one that cannot be used fails the switch.
        let door = switcher
            .history_of(&session)
            .map_err(|error| failure(format!("context {name}: {error}")))?;
        let history_start = {
            let access = door.history.clone();
            let workspace = workspace.clone();
            let now = switcher.clock.now();
            tokio::task::spawn_blocking(move || {
                start::read_start(&access.location, &access.config, &workspace, now)
            })
            .await
            .map_err(|error| failure(format!("context {name}: history: {error}")))?
        };
        for warning in &session.warnings {
            tracing::warn!(context = %name, "{warning}");
        }
        let switched = SwitchedContext {
            name: session.context.name.clone(),
            workspace: workspace.clone(),
            api_version: session.api_version.clone(),
            read_only: session.read_only,
            watchlist: watchlist_for(&session.context),
            history: Some(history_start),
        };
        let forward = forward_notices(&session.client, switcher.notices.clone());
        let old = std::mem::replace(
            &mut *switcher
                .forward
                .lock()
                .unwrap_or_else(PoisonError::into_inner),
            forward,
        );
        old.abort();
        *switcher
            .on_screen
            .write()
            .unwrap_or_else(PoisonError::into_inner) = OnScreen {
            source: ClientServices {
                client: session.client,
                workspace_id: workspace,
                clock: switcher.clock.clone(),
            },
            history: Some(door),
        };
        tracing::info!(context = %switched.name, workspace = %switched.workspace, "context switched");
        Ok(switched)
    }

    /// The door to `session`'s context's history: the one in use when the
    /// history is the same, else a new one.
    fn history_of(&self, session: &Session) -> Result<HistoryDoor, String> {
        let config = HistoryConfig::for_context(
            &session.config.file.other,
            &session.context.connection,
            self.args.history.as_deref(),
        )?;
        let location = config.location().map_err(|error| error.to_string())?;
        let kept = self
            .on_screen
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .history
            .clone()
            .filter(|door| door.history.location == location);
        Ok(kept.unwrap_or_else(|| {
            tracing::info!(history = %location.describe(), "the switch opens another history");
            HistoryDoor::new(HistoryAccess {
                location,
                config,
                progress: Some(self.notices.clone()),
            })
        }))
    }
}

impl ContextSwitch for Switcher {
    fn switch(
        self: Arc<Self>,
        name: String,
    ) -> std::pin::Pin<
        Box<dyn std::future::Future<Output = Result<SwitchedContext, ErrorInfo>> + Send>,
    > {
        Box::pin(self.connect(name))
    }
}
