//! Starting the dashboard on a connected client: the configured service's, or
//! the embedded reference server's (`vantage demo`, wired in `src/demo.rs`).

use std::path::PathBuf;

use tokio::sync::{broadcast, mpsc};

use super::app::{App, Identity};
use super::executor::{ClientExecutor, notice};
use super::runtime::{self, Exit};
use super::screens::monitor::{DEFAULT_REFRESH_SECS, MonitorScreen};
use super::settings::{TuiSettings, TuiSettingsError};
use super::terminal::{self, RestoreOnDrop};
use super::theme::{ColorDepth, Theme};
use super::watchlist;
use crate::api::Client;
use crate::clock::Clock;
use crate::session::{Session, SessionError};

#[derive(Debug, thiserror::Error)]
pub enum LaunchError {
    #[error(transparent)]
    Session(#[from] SessionError),
    #[error(transparent)]
    Settings(#[from] TuiSettingsError),
    #[error("terminal: {0}")]
    Terminal(#[from] std::io::Error),
}

impl LaunchError {
    /// A problem with the config file, the flags or the key, which the user fixes
    /// (the commands' exit status 3), rather than one of the terminal.
    pub fn is_configuration(&self) -> bool {
        matches!(self, Self::Session(_) | Self::Settings(_))
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
}

/// Opens the dashboard on the configured service.
pub async fn run_configured(session: Session) -> Result<Exit, LaunchError> {
    let settings = TuiSettings::from_config(&session.config)?;
    let workspace_id = session.workspace()?.to_owned();
    let identity = Identity {
        workspace: workspace_id.clone(),
        plan: None,
        api_version: session.api_version.clone(),
        read_only: session.read_only,
    };
    let target = Target {
        client: session.client,
        identity,
        workspace_id,
        watchlist: watchlist::default_path(),
    };
    run(target, &settings).await
}

/// Runs the dashboard until the user quits or a signal ends it; the terminal is
/// restored either way.
pub async fn run(target: Target, settings: &TuiSettings) -> Result<Exit, LaunchError> {
    let Target {
        client,
        identity,
        workspace_id,
        watchlist: watchlist_path,
    } = target;
    let theme = Theme::for_terminal(settings.theme, ColorDepth::from_env());
    let clock = Clock::system();
    let export_dir = crate::paths::data_dir().join("exports");
    let mut app = App::new(identity, theme, settings.keymap.clone(), export_dir);
    app.monitor = MonitorScreen::new(settings.refresh_secs.unwrap_or(DEFAULT_REFRESH_SECS));
    app.monitor.use_watchlist_file(watchlist_path);
    let (notices_tx, notices_rx) = mpsc::unbounded_channel();
    let mut events = client.subscribe();
    let forward = tokio::spawn(async move {
        loop {
            match events.recv().await {
                Ok(event) => {
                    if let Some(notice) = notice(&event)
                        && notices_tx.send(notice).is_err()
                    {
                        break;
                    }
                }
                Err(broadcast::error::RecvError::Lagged(_)) => continue,
                Err(broadcast::error::RecvError::Closed) => break,
            }
        }
    });
    let executor = ClientExecutor {
        client,
        workspace_id,
        clock: clock.clone(),
    };
    let mut terminal = terminal::enter()?;
    let restore = RestoreOnDrop;
    let exit = runtime::run(&mut terminal, &mut app, executor, clock, notices_rx).await;
    drop(restore);
    forward.abort();
    Ok(exit?)
}
