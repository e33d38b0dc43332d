//! The connection itself, as the store's own thread holds it (`worker.rs`):
//! made on first use, made again when it broke, and the driver's errors
//! sorted into the history's (away, waiting, refusing). Nothing here is
//! shared: only that one thread ever touches it.

use postgres::Client;

use super::{Failure, PgTarget, Step, auth, schema};
use crate::history::HistoryError;
use crate::history::backend::HistoryLocation;

pub(super) struct Link {
    target: PgTarget,
    /// `the history database host:port/db`, never a password.
    store: String,
    client: Option<Client>,
    /// The driver's config once the password was found: a reconnect runs no
    /// password command again.
    config: Option<(postgres::Config, Vec<String>)>,
}

impl Link {
    pub(super) fn new(target: &PgTarget) -> Self {
        Self {
            target: target.clone(),
            store: HistoryLocation::Database(target.clone()).describe(),
            client: None,
            config: None,
        }
    }

    pub(super) fn describe(&self) -> &str {
        &self.store
    }

    /// A connection of its own, made and migrated, or the reason why not.
    fn open_client(&mut self) -> Result<Client, HistoryError> {
        let (config, notes) = match &self.config {
            Some(found) => found.clone(),
            None => self.config.insert(self.target.config()?).clone(),
        };
        let tls = self.target.connector()?;
        let mut client = config.connect(tls).map_err(|error| {
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
        schema::migrate(&mut client, &self.store).map_err(|failure| self.fail(failure))?;
        Ok(client)
    }

    /// Runs `op` on the connection (connecting first when there is none); a
    /// connection that broke is dropped, so the next call connects again.
    pub(super) fn run<R>(
        &mut self,
        op: impl FnOnce(&mut Client) -> Step<R>,
    ) -> Result<R, HistoryError> {
        if self.client.as_ref().is_none_or(Client::is_closed) {
            self.client = None;
            self.client = Some(self.open_client()?);
        }
        let Some(client) = self.client.as_mut() else {
            return Err(HistoryError::Corrupt("no connection".into()));
        };
        let result = op(client).map_err(|failure| self.fail(failure));
        if matches!(result, Err(HistoryError::Unreachable { .. })) {
            self.client = None;
        }
        result
    }

    /// Asks the kept connection whether it is still there, never connecting
    /// again: a connection that was lost (and the locks it held) is an error.
    pub(super) fn check_kept(&mut self) -> Result<(), HistoryError> {
        let Some(client) = self.client.as_mut().filter(|client| !client.is_closed()) else {
            self.client = None;
            return Err(HistoryError::Unreachable {
                store: self.store.clone(),
                cause: "the connection was lost".into(),
            });
        };
        let result = client
            .simple_query("SELECT 1")
            .map(drop)
            .map_err(|error| self.failure(error));
        if result.is_err() {
            self.client = None;
        }
        result
    }

    /// Drops the connection: after a panic on it, its state is not known.
    pub(super) fn forget(&mut self) {
        self.client = None;
    }

    /// The schema version on a connection made for the question alone, that
    /// migrates nothing and is closed at once.
    pub(super) fn schema_version(&mut self) -> Result<i64, HistoryError> {
        let (config, _notes) = self.target.config()?;
        let tls = self.target.connector()?;
        let mut client = config.connect(tls).map_err(|error| self.failure(error))?;
        schema::version(&mut client).map_err(|failure| self.fail(failure))
    }

    pub(super) fn fail(&self, failure: Failure) -> HistoryError {
        match failure {
            Failure::Pg(error) => self.failure(error),
            // The database is damaged, not a file: named as the store it is.
            Failure::History(HistoryError::Corrupt(what)) => HistoryError::Database {
                store: self.store.clone(),
                cause: format!("damaged: {what}"),
            },
            Failure::History(error) => error,
        }
    }

    /// The driver's error, with the store named (never the password) and
    /// sorted: the database away, or the database refusing.
    fn failure(&self, error: postgres::Error) -> HistoryError {
        let store = self.store.clone();
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
