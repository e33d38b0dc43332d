//! `vantage demo`: the reference server, in-process on 127.0.0.1:0 with the
//! demo data (or a generated workspace), and the dashboard on it with the
//! `enterprise-admin` key. The one place that wires the server to the dashboard.

use crate::api::{ApiKey, Client, ClientConfig, ConfigError};
use crate::config::LoadedConfig;
use crate::history::HistoryConfig;
use crate::server::seed::{self, GenerateSpec, SeedError};
use crate::server::{self, ServerConfig, ServerError};
use crate::tui::app::Identity;
use crate::tui::launch::{self, LaunchError, Target};
use crate::tui::runtime::Exit;
use crate::tui::settings::{RefreshSecs, TuiSettings};

#[derive(Debug, thiserror::Error)]
pub enum DemoError {
    #[error(transparent)]
    Launch(#[from] LaunchError),
    #[error("demo data: {0}")]
    Seed(#[from] SeedError),
    #[error("demo server: {0}")]
    Server(#[from] ServerError),
    #[error("demo client: {0}")]
    Client(#[from] ConfigError),
    #[error("VANTAGE_DEMO_FAULTS: {0}")]
    Faults(String),
    #[error("the demo data has no enterprise-admin key")]
    NoDemoKey,
}

impl DemoError {
    /// A problem with the config file, which the user fixes (exit status 3).
    pub fn is_configuration(&self) -> bool {
        matches!(self, Self::Launch(launch) if launch.is_configuration())
    }
}

/// Serves the demo data and runs the dashboard on it until it ends; `refresh`
/// is `--refresh` (seconds), over the config file's.
pub async fn run(
    generate: Option<GenerateSpec>,
    read_only: bool,
    config: &LoadedConfig,
    refresh: Option<RefreshSecs>,
) -> Result<Exit, DemoError> {
    // Settings first: a mistake in the file is reported before anything starts.
    let settings = TuiSettings::from_config(config)
        .map_err(LaunchError::from)?
        .with_refresh(refresh);
    let anchor = seed::today_anchor(time::OffsetDateTime::now_utc());
    let fixture = match generate {
        Some(spec) => seed::generate(spec, anchor),
        None => seed::demo_fixture(anchor)?,
    };
    let key = fixture
        .keys
        .iter()
        .find(|key| key.label == "enterprise-admin")
        .ok_or(DemoError::NoDemoKey)?;
    let workspace_id = key.workspace_id.clone();
    let credential = ApiKey::new(key.key.clone())?;
    let mut server_config = ServerConfig::local(fixture);
    // A slow demo (e.g. `latency=2000..2000ms`) shows the instant start at work.
    if let Some(spec) = std::env::var_os("VANTAGE_DEMO_FAULTS") {
        server_config.faults = spec.to_string_lossy().parse().map_err(DemoError::Faults)?;
    }
    let server = server::start(server_config).await?;
    let client = Client::new(ClientConfig::new(server.base_url(), credential))?;
    let target = Target {
        client,
        identity: Identity {
            workspace: format!("{workspace_id} (demo)"),
            workspace_id: workspace_id.clone(),
            plan: None,
            api_version: crate::api::model::API_VERSION.to_owned(),
            read_only,
        },
        workspace_id,
        // The demo's projects are not the service's: they get a watch list of their own.
        watchlist: crate::paths::data_dir().join("watchlist-demo.json"),
        // Its own history too, so the user's real one is never touched.
        history: Some(HistoryConfig {
            path: Some(demo_history_path()),
            ..HistoryConfig::default()
        }),
        // Kept under `views.demo` of the config file.
        views: crate::tui::app::SavedViews {
            path: config.path.clone(),
            by_context: config.file.views.clone(),
        },
    };
    let result = launch::run(target, &settings).await;
    server.stop().await;
    Ok(result?)
}

/// The demo's history file: `VANTAGE_DEMO_HISTORY`, or `history-demo.sqlite3`
/// in the data dir (never the user's real history).
pub fn demo_history_path() -> std::path::PathBuf {
    std::env::var_os("VANTAGE_DEMO_HISTORY")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| crate::paths::data_dir().join("history-demo.sqlite3"))
}
