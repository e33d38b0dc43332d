//! The reference server: a faithful implementation of the v1 contract over an
//! embedded SQLite store. It backs `vantage demo`, `vantage serve`, and every test.

pub mod access;
pub mod analytics_model;
pub mod auth;
pub mod catalog;
pub mod context;
pub mod errors;
pub mod faults;
pub mod handlers;
pub mod key_hash;
pub mod listen;
pub mod ops;
pub mod paging;
pub mod ratelimit;
pub mod router;
pub mod search;
pub mod seed;
pub mod serve;
mod state;
pub mod store;
pub mod version;

use std::net::SocketAddr;
use std::sync::Arc;

use tokio::net::TcpListener;
use tokio::sync::oneshot;

use self::key_hash::hash_key;
pub use self::state::{ConnectionLimits, ServerConfig, ServerError, ServerState};
use self::store::{Data, Fixture};

/// A server listening in the background.
pub struct RunningServer {
    pub addr: SocketAddr,
    pub app: Arc<ServerState>,
    shutdown: Option<oneshot::Sender<()>>,
    task: tokio::task::JoinHandle<()>,
}

impl RunningServer {
    /// `http://127.0.0.1:PORT`.
    pub fn base_url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// Stops accepting, lets requests in flight finish, and waits.
    pub async fn stop(mut self) {
        if let Some(tx) = self.shutdown.take() {
            let _ = tx.send(());
        }
        let _ = (&mut self.task).await;
    }
}

impl Drop for RunningServer {
    fn drop(&mut self) {
        if let Some(tx) = self.shutdown.take() {
            let _ = tx.send(());
        }
    }
}

/// Binds and serves in a background task.
pub async fn start(config: ServerConfig) -> Result<RunningServer, ServerError> {
    let addr = config.addr;
    let limits = config.connections;
    let app = Arc::new(ServerState::new(config)?);
    let listener = TcpListener::bind(addr)
        .await
        .map_err(|source| ServerError::Bind { addr, source })?;
    let addr = listener
        .local_addr()
        .map_err(|source| ServerError::Bind { addr, source })?;
    let router = router::build(app.clone());
    let (tx, rx) = oneshot::channel::<()>();
    let shutdown = async {
        let _ = rx.await;
    };
    let task = tokio::spawn(listen::serve(
        listener,
        router,
        app.clone(),
        limits,
        shutdown,
    ));
    tracing::info!(%addr, "reference server listening");
    Ok(RunningServer {
        addr,
        app,
        shutdown: Some(tx),
        task,
    })
}

/// `--print-credentials`: the loaded keys as JSON. A key stored by an earlier run
/// under another fixture cannot be shown (only its hash is kept): `key` is null.
pub fn credentials_json(data: &Data, fixture: &Fixture) -> Result<String, serde_json::Error> {
    let rows: Vec<serde_json::Value> = data
        .keys
        .iter()
        .map(|key| {
            let plain = fixture
                .keys
                .iter()
                .find(|candidate| hex::encode(hash_key(&candidate.key)) == key.key_hash)
                .map(|candidate| candidate.key.clone());
            let workspace = data.workspaces.get(&key.workspace_id);
            serde_json::json!({
                "label": key.label,
                "key": plain,
                "workspace_id": key.workspace_id,
                "plan": workspace.map(|w| w.plan.as_str()),
                "scopes": key.scopes.iter().map(|s| s.as_str()).collect::<Vec<_>>(),
                "features": workspace
                    .map(|w| w.features.iter().map(|f| f.as_str()).collect::<Vec<_>>())
                    .unwrap_or_default(),
            })
        })
        .collect();
    serde_json::to_string_pretty(&rows)
}
