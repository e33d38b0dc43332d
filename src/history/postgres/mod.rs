//! The shared history: a PostgreSQL database, for a team. The same snapshots,
//! states, marks and review log as the file, in the same shapes (schema.rs).
//! The driver is `postgres` (the blocking face of `tokio-postgres`) over
//! rustls; it runs its own small runtime, so the connection lives on a
//! thread of the store's own (`worker.rs`, `link.rs`) and each call is sent
//! to it: a caller on any thread, a tokio thread too, only waits for the answer.

mod auth;
mod backend;
mod backfill;
mod column;
mod guard;
mod link;
mod locks;
mod packed;
mod pgpass;
mod ranges;
mod read;
mod schema;
pub(super) mod target;
mod tls;
mod waivers;
mod worker;
mod write;

use postgres::Client;

use super::HistoryError;
use super::backend::HistoryLocation;
use link::Link;
use worker::Worker;

pub use auth::{AuthMethod, RequireAuth};
pub use pgpass::pgpass_lookup;
pub use schema::{STEPS as PG_SCHEMA_STEPS, VERSION as PG_SCHEMA_VERSION};
pub use target::{PgTarget, SessionLimits, is_database_url, password_on_command_line, redact};
pub use tls::TlsMode;

/// What a step on the database can fail with: the driver, or the history's own.
pub(super) enum Failure {
    Pg(postgres::Error),
    History(HistoryError),
}

impl From<postgres::Error> for Failure {
    fn from(error: postgres::Error) -> Self {
        Self::Pg(error)
    }
}

impl From<HistoryError> for Failure {
    fn from(error: HistoryError) -> Self {
        Self::History(error)
    }
}

type Step<T> = Result<T, Failure>;

/// A shared history database, one connection (made again when it broke) on
/// a thread of its own.
pub struct PgStore {
    location: HistoryLocation,
    worker: Worker,
}

impl PgStore {
    /// Connects, and brings the schema up to date (under a lock: the first
    /// vantage that connects migrates, the others wait for it).
    pub fn connect(target: &PgTarget) -> Result<Self, HistoryError> {
        let store = Self {
            location: HistoryLocation::Database(target.clone()),
            worker: Worker::start(target)?,
        };
        store.run(|_| Ok(()))?;
        Ok(store)
    }

    /// The database's schema version, read on a connection of its own that
    /// migrates nothing (`history migrate --dry-run`, `doctor`).
    pub fn schema_version(target: &PgTarget) -> Result<i64, HistoryError> {
        Worker::start(target)?.call(Link::schema_version)
    }

    /// Runs `op` on the connection (connecting first when there is none); a
    /// connection that broke is dropped, so the next call connects again.
    pub(super) fn run<R: Send + 'static>(
        &self,
        op: impl FnOnce(&mut Client) -> Step<R> + Send + 'static,
    ) -> Result<R, HistoryError> {
        self.worker.call(move |link| link.run(op))
    }

    /// Asks the kept connection whether it is still there, never connecting
    /// again: a connection that was lost (and the locks it held) is an error.
    pub(super) fn check_kept(&self) -> Result<(), HistoryError> {
        self.worker.call(Link::check_kept)
    }
}
