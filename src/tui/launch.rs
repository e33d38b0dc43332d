//! Starting the dashboard: against the configured service, or against the
//! embedded reference server (`vantage demo`).

use std::collections::HashMap;

use tokio::sync::{broadcast, mpsc};

use super::app::{App, Identity};
use super::effect::ErrorInfo;
use super::executor::{ClientExecutor, notice};
use super::keymap::{Keymap, KeymapError};
use super::runtime::{self, Exit};
use super::screens::monitor::{DEFAULT_REFRESH_SECS, MonitorScreen};
use super::terminal::{self, RestoreOnDrop};
use super::theme::{Theme, ThemeName};
use super::watchlist;
use crate::api::{ApiKey, Client, ClientConfig, ConfigError};
use crate::cli::{Session, SessionError};
use crate::clock::Clock;
use crate::config::LoadedConfig;
use crate::server::seed::{self, GenerateSpec, SeedError};
use crate::server::{self, ServerConfig, ServerError};

#[derive(Debug, thiserror::Error)]
pub enum LaunchError {
    #[error(transparent)]
    Session(#[from] SessionError),
    #[error(transparent)]
    Keymap(#[from] KeymapError),
    #[error("config file: {0}")]
    Config(String),
    #[error("terminal: {0}")]
    Terminal(#[from] std::io::Error),
    #[error("demo data: {0}")]
    Seed(#[from] SeedError),
    #[error("demo server: {0}")]
    Server(#[from] ServerError),
    #[error("demo client: {0}")]
    Client(#[from] ConfigError),
    #[error("the demo data has no enterprise-admin key")]
    NoDemoKey,
}

/// The `[tui]` and `[keys]` tables of the config file.
#[derive(Debug, Clone, Default)]
pub struct TuiSettings {
    pub theme: ThemeName,
    /// Action name to keys; only the overrides.
    pub keys: HashMap<String, Vec<String>>,
    /// `[tui] refresh_secs`: seconds between refreshes of the live monitor.
    pub refresh_secs: Option<u64>,
}

/// The refresh interval the config may ask for, in seconds.
const REFRESH_SECS_RANGE: std::ops::RangeInclusive<i64> = 1..=3600;

impl TuiSettings {
    pub fn from_config(config: &LoadedConfig) -> Result<Self, LaunchError> {
        let mut settings = Self::default();
        let other = &config.file.other;
        if let Some(tui) = other.get("tui") {
            let table = tui
                .as_table()
                .ok_or_else(|| LaunchError::Config("[tui] must be a table".into()))?;
            if let Some(theme) = table.get("theme") {
                settings.theme = match theme.as_str() {
                    Some("dark") => ThemeName::Dark,
                    Some("light") => ThemeName::Light,
                    _ => {
                        return Err(LaunchError::Config(
                            "[tui] theme must be \"dark\" or \"light\"".into(),
                        ));
                    }
                };
            }
            if let Some(refresh) = table.get("refresh_secs") {
                settings.refresh_secs = match refresh.as_integer() {
                    Some(secs) if REFRESH_SECS_RANGE.contains(&secs) => Some(secs as u64),
                    _ => {
                        return Err(LaunchError::Config(format!(
                            "[tui] refresh_secs must be a whole number of seconds from {} to {}",
                            REFRESH_SECS_RANGE.start(),
                            REFRESH_SECS_RANGE.end()
                        )));
                    }
                };
            }
        }
        if let Some(keys) = other.get("keys") {
            let table = keys.as_table().ok_or_else(|| {
                LaunchError::Config("[keys] must be a table of action = [\"key\", ...]".into())
            })?;
            for (action, value) in table {
                let list = match value {
                    toml::Value::String(key) => vec![key.clone()],
                    toml::Value::Array(items) => items
                        .iter()
                        .map(|item| item.as_str().map(str::to_owned))
                        .collect::<Option<Vec<_>>>()
                        .ok_or_else(|| {
                            LaunchError::Config(format!("[keys] {action}: keys must be strings"))
                        })?,
                    _ => {
                        return Err(LaunchError::Config(format!(
                            "[keys] {action}: give a key or a list of keys"
                        )));
                    }
                };
                settings.keys.insert(action.clone(), list);
            }
        }
        Ok(settings)
    }
}

/// Opens the dashboard on the configured service.
pub async fn run_configured(session: Session) -> Result<(), LaunchError> {
    let settings = TuiSettings::from_config(&session.config)?;
    let identity = Identity {
        workspace: session.workspace()?.to_owned(),
        plan: None,
        api_version: session.api_version.clone(),
        read_only: session.read_only,
    };
    run_app(session.client, identity, &settings).await
}

/// Serves the demo data in-process on 127.0.0.1:0 and opens the dashboard on it
/// with the `enterprise-admin` key.
pub async fn run_demo(
    generate: Option<GenerateSpec>,
    read_only: bool,
    config: &LoadedConfig,
) -> Result<(), LaunchError> {
    let settings = TuiSettings::from_config(config)?;
    let anchor = seed::today_anchor(time::OffsetDateTime::now_utc());
    let fixture = match generate {
        Some(spec) => seed::generate(spec, anchor),
        None => seed::demo_fixture(anchor)?,
    };
    let key = fixture
        .keys
        .iter()
        .find(|key| key.label == "enterprise-admin")
        .ok_or(LaunchError::NoDemoKey)?;
    let workspace = key.workspace_id.clone();
    let credential = ApiKey::new(key.key.clone())?;
    let server = server::start(ServerConfig::local(fixture)).await?;
    let client = Client::new(ClientConfig::new(server.base_url(), credential))?;
    let identity = Identity {
        workspace: format!("{workspace} (demo)"),
        plan: None,
        api_version: crate::api::model::API_VERSION.to_owned(),
        read_only,
    };
    // The demo's projects are not the service's: they get a watch list of their own.
    let watchlist = crate::logging::data_dir().join("watchlist-demo.json");
    let result = run_app_on(client, identity, workspace, &settings, watchlist).await;
    server.stop().await;
    result
}

async fn run_app(
    client: Client,
    identity: Identity,
    settings: &TuiSettings,
) -> Result<(), LaunchError> {
    let workspace = identity.workspace.clone();
    run_app_on(
        client,
        identity,
        workspace,
        settings,
        watchlist::default_path(),
    )
    .await
}

async fn run_app_on(
    client: Client,
    identity: Identity,
    workspace_id: String,
    settings: &TuiSettings,
    watchlist_path: std::path::PathBuf,
) -> Result<(), LaunchError> {
    let keymap = Keymap::with_overrides(&settings.keys)?;
    let theme = Theme::new(settings.theme, Theme::no_color_from_env());
    let clock = Clock::system();
    let export_dir = crate::logging::data_dir().join("exports");
    let mut app = App::new(identity, theme, keymap, export_dir);
    app.monitor = MonitorScreen::new(settings.refresh_secs.unwrap_or(DEFAULT_REFRESH_SECS));
    app.monitor.use_watchlist_file(watchlist_path);
    if let Some(warning) = app.monitor.watch_warning.clone() {
        // Reported in the status line and the error log; the dashboard goes on.
        app.errors.push(ErrorInfo {
            status: None,
            kind: None,
            detail: None,
            request_id: None,
            summary: warning,
            gate: None,
            at: clock.now(),
        });
    }
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
    match exit? {
        Exit::Quit | Exit::Signal | Exit::InputClosed => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::FileConfig;

    fn settings(toml_text: &str) -> Result<TuiSettings, LaunchError> {
        let file: FileConfig = toml::from_str(toml_text).unwrap();
        TuiSettings::from_config(&LoadedConfig {
            file,
            ..LoadedConfig::default()
        })
    }

    #[test]
    fn refresh_secs_is_read_and_checked() {
        assert_eq!(settings("").unwrap().refresh_secs, None);
        let read = settings("[tui]\nrefresh_secs = 30\n").unwrap();
        assert_eq!(read.refresh_secs, Some(30));
        for bad in ["0", "3601", "\"10\"", "2.5"] {
            let error = settings(&format!("[tui]\nrefresh_secs = {bad}\n")).unwrap_err();
            assert!(error.to_string().contains("refresh_secs"), "{bad}: {error}");
        }
    }
}
