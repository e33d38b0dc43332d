//! The reference server: a faithful implementation of the v1 contract over an
//! embedded SQLite store. It backs `vantage demo`, `vantage serve`, and every test.

pub mod analytics_model;
pub mod auth;
pub mod catalog;
pub mod cursor;
pub mod errors;
pub mod faults;
pub mod handlers;
pub mod listen;
pub mod ops;
pub mod paging;
pub mod ratelimit;
pub mod router;
pub mod seed;
pub mod serve;
pub mod store;
pub mod version;

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use axum::http::HeaderMap;
use time::OffsetDateTime;
use tokio::net::TcpListener;
use tokio::sync::oneshot;

use self::auth::{Principal, hash_key, hashes_match};
use self::errors::HttpError;
use self::faults::Faults;
use self::listen::ConnectionLimits;
use self::ratelimit::{RateLimit, RateLimiter};
use self::store::{Fixture, Store, StoreError};
use self::version::VersionCatalog;
use crate::clock::{Clock, mix64};

/// How to run a server.
pub struct ServerConfig {
    pub addr: SocketAddr,
    /// SQLite file; `None` keeps everything in memory.
    pub db: Option<PathBuf>,
    /// Data loaded into an empty store.
    pub fixture: Fixture,
    pub rate_limit: RateLimit,
    pub deadline: std::time::Duration,
    pub versions: VersionCatalog,
    pub clock: Clock,
    /// How long lists, insights and member reads lag behind writes.
    pub consistency_lag: time::Duration,
    pub faults: Faults,
    /// Header-read timeout and connection cap.
    pub connections: ConnectionLimits,
}

impl ServerConfig {
    /// Loopback on a free port, in memory, with `fixture`.
    pub fn local(fixture: Fixture) -> Self {
        Self {
            addr: SocketAddr::from(([127, 0, 0, 1], 0)),
            db: None,
            fixture,
            rate_limit: RateLimit::default(),
            deadline: std::time::Duration::from_secs(60),
            versions: VersionCatalog::default(),
            clock: Clock::system(),
            consistency_lag: time::Duration::ZERO,
            faults: Faults::none(),
            connections: ConnectionLimits::default(),
        }
    }
}

#[derive(Debug, thiserror::Error)]
pub enum ServerError {
    #[error("store: {0}")]
    Store(#[from] StoreError),
    #[error("cannot listen on {addr}: {source}")]
    Bind {
        addr: SocketAddr,
        source: std::io::Error,
    },
}

/// Shared state of a running server.
pub struct App {
    pub store: Store,
    pub clock: Clock,
    pub versions: VersionCatalog,
    pub limiter: RateLimiter,
    pub deadline: std::time::Duration,
    pub faults: Faults,
    /// Signs pagination cursors.
    pub cursor_secret: Vec<u8>,
    request_seed: u64,
    request_counter: AtomicU64,
}

impl App {
    /// Opens the store, seeding it from the fixture when it is new.
    pub fn new(config: ServerConfig) -> Result<Self, ServerError> {
        let store = Store::open(
            config.db.as_deref(),
            config.clock.clone(),
            config.consistency_lag,
        )?;
        if store.is_empty() {
            store.seed(&config.fixture)?;
        }
        let start = OffsetDateTime::now_utc().unix_timestamp_nanos() as u64;
        let cursor_secret = store.meta_or_insert("cursor_secret", || {
            format!(
                "{:016x}{:016x}",
                mix64(start),
                mix64(start ^ u64::from(std::process::id()))
            )
        })?;
        Ok(Self {
            store,
            clock: config.clock,
            versions: config.versions,
            limiter: RateLimiter::new(config.rate_limit),
            deadline: config.deadline,
            faults: config.faults,
            cursor_secret: cursor_secret.into_bytes(),
            request_seed: mix64(start),
            request_counter: AtomicU64::new(0),
        })
    }

    pub fn next_request_id(&self) -> String {
        let n = self.request_counter.fetch_add(1, Ordering::Relaxed);
        format!(
            "req_{:016x}{:06x}",
            mix64(self.request_seed ^ n),
            n & 0xff_ffff
        )
    }

    /// Step 3 of the order of checks: the key, its workspace, plan and scopes.
    pub fn authenticate(&self, headers: &HeaderMap) -> Result<Principal, HttpError> {
        let presented = auth::presented_credential(headers)?;
        let presented_hash = hash_key(&presented);
        self.store.read(|data| {
            // Compare against every key, without an early exit.
            let mut found = None;
            for key in &data.keys {
                let mut stored = [0u8; 32];
                if hex::decode_to_slice(&key.key_hash, &mut stored).is_ok()
                    && hashes_match(&stored, &presented_hash)
                {
                    found = Some(key);
                }
            }
            let key = found.ok_or_else(|| HttpError::unauthorized("the API key is not valid"))?;
            let workspace = data.workspaces.get(&key.workspace_id).ok_or_else(|| {
                HttpError::unauthorized("the API key's workspace no longer exists")
            })?;
            Ok(Principal {
                key_id: key.id.clone(),
                workspace_id: workspace.id.clone(),
                plan: workspace.plan,
                features: workspace.features.clone(),
                scopes: key.scopes.clone(),
            })
        })
    }

    /// Applies the outcome of every deployment that has finished by `now`.
    pub fn settle_deployments(&self, now: OffsetDateTime) -> Result<(), HttpError> {
        let due = self.store.read(|data| {
            data.deployments
                .values()
                .any(|d| !d.settled && d.completes_at <= now)
        });
        if !due {
            return Ok(());
        }
        self.store
            .write(|data| Ok::<_, HttpError>((handlers::publish::settle(data, now), ())))
    }
}

/// A server listening in the background.
pub struct RunningServer {
    pub addr: SocketAddr,
    pub app: Arc<App>,
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
    let app = Arc::new(App::new(config)?);
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
pub fn credentials_json(app: &App, fixture: &Fixture) -> Result<String, serde_json::Error> {
    let rows: Vec<serde_json::Value> = app.store.read(|data| {
        data.keys
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
            .collect()
    });
    serde_json::to_string_pretty(&rows)
}
