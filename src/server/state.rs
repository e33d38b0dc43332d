//! What a server is started with, and the state its requests share.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};

use time::OffsetDateTime;

use super::errors::HttpError;
use super::faults::Faults;
use super::ratelimit::{RateLimit, RateLimiter};
use super::store::{Fixture, Store, StoreError, settle_deployments};
use super::version::VersionCatalog;
use crate::clock::Clock;
use crate::hash::mix64;

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
pub struct ServerState {
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
    /// How many requests each operation answered, by its name: what a test
    /// counts to see that a client spent no requests on something.
    served: std::sync::Mutex<std::collections::HashMap<&'static str, u64>>,
}

impl ServerState {
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
            served: std::sync::Mutex::default(),
        })
    }

    /// Counts one request answered by the operation `name` (a fixed set of
    /// names: the map stays small).
    pub fn count_served(&self, name: &'static str) {
        let mut served = self
            .served
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        *served.entry(name).or_default() += 1;
    }

    /// How many requests the operation `name` answered since the start.
    pub fn served(&self, name: &str) -> u64 {
        self.served
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .get(name)
            .copied()
            .unwrap_or(0)
    }

    /// How many requests reached the pipeline since the start (each is
    /// counted by the rate limit, or refused by it, before anything awaits).
    pub fn requests_received(&self) -> u64 {
        self.request_counter.load(Ordering::Relaxed)
    }

    pub fn next_request_id(&self) -> String {
        let n = self.request_counter.fetch_add(1, Ordering::Relaxed);
        format!(
            "req_{:016x}{:06x}",
            mix64(self.request_seed ^ n),
            n & 0xff_ffff
        )
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
            .write(|data| Ok::<_, HttpError>((settle_deployments(data, now), ())))
    }
}

/// Limits of the connection layer: the accept loop's, shared with the exporter.
pub use crate::accept::ConnectionLimits;
