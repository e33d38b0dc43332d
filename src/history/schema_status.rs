//! A history's schema version, read without migrating anything: what
//! `history migrate --dry-run` and `doctor` say. A newer vantage migrates the
//! schema when it first connects; an older one then refuses the history.

use super::backend::HistoryLocation;
use super::postgres::{PG_SCHEMA_STEPS, PG_SCHEMA_VERSION, PgStore};
use super::{HistoryError, sqlite};

/// Where a history's schema stands against this vantage's.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SchemaStatus {
    /// `the history file PATH` or `the history database host:port/db`.
    pub store: String,
    /// Its version; `None`: no history there yet (the first write creates it).
    pub found: Option<i64>,
    /// The version this vantage writes.
    pub known: i64,
    /// What migrating it to `known` would do, one step a line.
    pub steps: Vec<&'static str>,
}

impl SchemaStatus {
    /// Written by a newer vantage: this one refuses it.
    pub fn is_newer(&self) -> bool {
        self.found.is_some_and(|found| found > self.known)
    }

    /// What migrating would do, for a person.
    pub fn describe(&self) -> String {
        match self.found {
            None => format!(
                "{}: none yet; the first snapshot creates it at schema version {}",
                self.store, self.known
            ),
            Some(found) if found > self.known => format!(
                "{} has schema version {found}, newer than this vantage's {} ({}): upgrade this vantage; nothing to migrate",
                self.store,
                self.known,
                env!("CARGO_PKG_VERSION")
            ),
            Some(found) if found == self.known => format!(
                "{} has schema version {found}, this vantage's: nothing to migrate",
                self.store
            ),
            Some(found) => {
                let mut text = format!(
                    "{} has schema version {found}; migrating takes it to {} in one transaction, after which vantage older than {} refuses it:",
                    self.store,
                    self.known,
                    env!("CARGO_PKG_VERSION")
                );
                for step in &self.steps {
                    text.push_str("\n  ");
                    text.push_str(step);
                }
                text
            }
        }
    }
}

/// The schema of the history at `location`, read only.
pub fn inspect(location: &HistoryLocation) -> Result<SchemaStatus, HistoryError> {
    let (found, known, all_steps): (Option<i64>, i64, &[&'static str]) = match location {
        HistoryLocation::File(path) => (sqlite::version_of(path)?, sqlite::VERSION, &sqlite::STEPS),
        HistoryLocation::Database(target) => (
            Some(PgStore::schema_version(target)?),
            PG_SCHEMA_VERSION,
            &PG_SCHEMA_STEPS,
        ),
    };
    let from = found.unwrap_or(known).clamp(0, known) as usize;
    Ok(SchemaStatus {
        store: location.describe(),
        found,
        known,
        steps: all_steps.iter().skip(from).copied().collect(),
    })
}
