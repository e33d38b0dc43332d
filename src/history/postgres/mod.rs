//! The shared history: a PostgreSQL database, for a team. The same snapshots,
//! states, marks and review log as the file, in the same shapes (schema.rs).
//! The driver is `postgres` (the blocking face of `tokio-postgres`) over
//! rustls; it runs its own small runtime, so a call made from inside tokio is
//! run on a scoped thread of its own (a runtime cannot block inside another).

mod auth;
mod backend;
mod column;
mod pgpass;
mod ranges;
mod read;
mod schema;
mod target;
mod tls;
mod write;

use std::collections::HashSet;
use std::sync::Mutex;

use postgres::Client;

use super::HistoryError;
use super::store::HistoryLocation;

pub use auth::{AuthMethod, RequireAuth};
pub use pgpass::pgpass_lookup;
pub use schema::{STEPS as PG_SCHEMA_STEPS, VERSION as PG_SCHEMA_VERSION};
pub use target::{
    PgTarget, SessionLimits, TlsMode, is_database_url, password_on_command_line, redact,
};

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

/// A shared history database, one connection (made again when it broke).
pub struct PgStore {
    location: HistoryLocation,
    target: PgTarget,
    client: Mutex<Option<Client>>,
    /// The driver's config once the password was found: a reconnect runs no
    /// password command again.
    config: Mutex<Option<(postgres::Config, Vec<String>)>>,
    /// The workspaces whose snapshot lock this connection holds.
    locks: HashSet<String>,
}

/// Runs `op` where the driver may block: on a scoped thread when called from
/// inside a tokio runtime, else here.
fn off_runtime<R: Send>(op: impl FnOnce() -> R + Send) -> R {
    if tokio::runtime::Handle::try_current().is_err() {
        return op();
    }
    std::thread::scope(|scope| match scope.spawn(op).join() {
        Ok(value) => value,
        Err(panic) => std::panic::resume_unwind(panic),
    })
}

impl PgStore {
    /// Connects, and brings the schema up to date (under a lock: the first
    /// vantage that connects migrates, the others wait for it).
    pub fn connect(target: &PgTarget) -> Result<Self, HistoryError> {
        let store = Self::unconnected(target);
        store.run(|_| Ok(()))?;
        Ok(store)
    }

    /// The store before its first connection (made on first use).
    fn unconnected(target: &PgTarget) -> Self {
        Self {
            location: HistoryLocation::Database(target.clone()),
            target: target.clone(),
            client: Mutex::new(None),
            config: Mutex::new(None),
            locks: HashSet::new(),
        }
    }

    fn describe(&self) -> String {
        self.location.describe()
    }

    /// The database's schema version, read on a connection of its own that
    /// migrates nothing (`history migrate --dry-run`, `doctor`).
    pub fn schema_version(target: &PgTarget) -> Result<i64, HistoryError> {
        let store = Self::unconnected(target);
        let (config, _notes) = target.config()?;
        let tls = target.connector()?;
        let mut client =
            off_runtime(|| config.connect(tls)).map_err(|error| store.failure(error))?;
        let found =
            off_runtime(|| schema::version(&mut client)).map_err(|failure| store.fail(failure));
        off_runtime(move || drop(client));
        found
    }

    fn open_client(&self) -> Result<Client, HistoryError> {
        let (config, notes) = {
            let mut cached = self
                .config
                .lock()
                .unwrap_or_else(|poisoned| poisoned.into_inner());
            match cached.as_ref() {
                Some(found) => found.clone(),
                None => cached.insert(self.target.config()?).clone(),
            }
        };
        let tls = self.target.connector()?;
        let mut client = off_runtime(|| config.connect(tls)).map_err(|error| {
            let mut failure = self.failure(error);
            // A password file that was ignored is why a password is missing.
            if let HistoryError::Database { cause, .. } | HistoryError::Unreachable { cause, .. } =
                &mut failure
            {
                for note in &notes {
                    cause.push_str("; ");
                    cause.push_str(note);
                }
            }
            failure
        })?;
        let store = self.describe();
        if let Err(failure) = off_runtime(|| schema::migrate(&mut client, &store)) {
            // The driver's runtime ends with the client: never on a tokio thread.
            off_runtime(move || drop(client));
            return Err(self.fail(failure));
        }
        Ok(client)
    }

    /// Runs `op` on the connection (connecting first when there is none); a
    /// connection that broke is dropped, so the next call connects again.
    pub(super) fn run<R: Send>(
        &self,
        op: impl FnOnce(&mut Client) -> Step<R> + Send,
    ) -> Result<R, HistoryError> {
        let mut kept = self
            .client
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        if kept.as_ref().is_none_or(Client::is_closed) {
            if let Some(broken) = kept.take() {
                off_runtime(move || drop(broken));
            }
            *kept = Some(self.open_client()?);
        }
        let Some(client) = kept.as_mut() else {
            return Err(HistoryError::Corrupt("no connection".into()));
        };
        let result = off_runtime(|| op(client)).map_err(|failure| self.fail(failure));
        if matches!(result, Err(HistoryError::Unreachable { .. }))
            && let Some(broken) = kept.take()
        {
            off_runtime(move || drop(broken));
        }
        result
    }

    /// Asks the kept connection whether it is still there, never connecting
    /// again: a connection that was lost (and the locks it held) is an error.
    pub(super) fn check_kept(&self) -> Result<(), HistoryError> {
        let mut kept = self
            .client
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        let lost = || HistoryError::Unreachable {
            store: self.describe(),
            cause: "the connection was lost".into(),
        };
        let Some(client) = kept.as_mut().filter(|client| !client.is_closed()) else {
            return Err(lost());
        };
        let result = off_runtime(|| client.simple_query("SELECT 1").map(drop))
            .map_err(|error| self.failure(error));
        if result.is_err()
            && let Some(broken) = kept.take()
        {
            off_runtime(move || drop(broken));
        }
        result
    }

    fn fail(&self, failure: Failure) -> HistoryError {
        match failure {
            Failure::Pg(error) => self.failure(error),
            // The database is damaged, not a file: named as the store it is.
            Failure::History(HistoryError::Corrupt(what)) => HistoryError::Database {
                store: self.describe(),
                cause: format!("damaged: {what}"),
            },
            Failure::History(error) => error,
        }
    }

    /// The driver's error, with the store named (never the password) and
    /// sorted: the database away, or the database refusing.
    fn failure(&self, error: postgres::Error) -> HistoryError {
        let store = self.describe();
        // The driver's top line ("error performing TLS handshake") with its causes.
        let mut said = error.to_string();
        let mut source = std::error::Error::source(&error);
        while let Some(inner) = source {
            let inner_said = inner.to_string();
            if !said.contains(&inner_said) {
                said.push_str(": ");
                said.push_str(&inner_said);
            }
            source = inner.source();
        }
        // vantage itself ended it: the server asked for a method not allowed.
        if let Some(refused) = auth::refused_in(&error) {
            return HistoryError::Database {
                store,
                cause: crate::text::escape_invisible(&refused).into_owned(),
            };
        }
        let cause = crate::text::escape_invisible(&said).into_owned();
        // 55P03: lock_timeout; 57014: statement_timeout (or a cancel).
        if let Some(db) = error.as_db_error()
            && ["55P03", "57014"].contains(&db.code().code())
        {
            let limits = self.target.limits;
            return HistoryError::Waiting {
                store,
                cause: format!(
                    "{cause} (lock_timeout {} s, statement_timeout {} s: another session holds a \
                     lock on the history, or a statement ran too long; [history] \
                     lock_timeout_secs and statement_timeout_secs set them)",
                    limits.lock.as_secs(),
                    limits.statement.as_secs()
                ),
            };
        }
        let unreachable = match error.as_db_error() {
            // 08: connection exception; 57P: the server shutting down.
            Some(db) => {
                let code = db.code().code();
                code.starts_with("08") || code.starts_with("57P")
            }
            None => {
                error.is_closed()
                    || [
                        "error connecting",
                        "error communicating",
                        "error performing TLS",
                        "timeout",
                        "connection closed",
                    ]
                    .iter()
                    .any(|prefix| cause.starts_with(prefix))
            }
        };
        if unreachable {
            HistoryError::Unreachable { store, cause }
        } else {
            HistoryError::Database { store, cause }
        }
    }
}

impl Drop for PgStore {
    fn drop(&mut self) {
        // The driver's runtime ends with the client: never on a tokio thread.
        let kept = self
            .client
            .get_mut()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .take();
        if let Some(client) = kept {
            off_runtime(move || drop(client));
        }
    }
}
