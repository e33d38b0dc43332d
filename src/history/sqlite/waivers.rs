//! Waivers in the file: the `waiver` table, append-only as the review log
//! (a later waiver of the same policy and project stands in for an earlier
//! one; none is changed or removed). Schema step 4 (`schema.rs`).

use rusqlite::params;
use time::OffsetDateTime;

use super::SqliteStore;
use crate::history::HistoryError;
use crate::history::read::{from_ms, to_ms};
use crate::history::waivers::{NewWaiver, Waiver};

/// Version 4: waivers, kept apart from the snapshot and state tables.
pub(super) const SCHEMA: &str = "
CREATE TABLE waiver (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    workspace_id TEXT NOT NULL,
    policy_id TEXT NOT NULL,
    project_id TEXT NOT NULL,
    reason TEXT NOT NULL,
    until_ms INTEGER NOT NULL,
    at_ms INTEGER NOT NULL,
    reviewer TEXT
);
CREATE INDEX waiver_by_workspace ON waiver (workspace_id, id);
CREATE TRIGGER waiver_append_only_delete BEFORE DELETE ON waiver
BEGIN
    SELECT RAISE(ABORT, 'waivers are append-only: a waiver cannot be removed');
END;
CREATE TRIGGER waiver_append_only_update BEFORE UPDATE ON waiver
BEGIN
    SELECT RAISE(ABORT, 'waivers are append-only: a waiver cannot be changed');
END;
";

impl SqliteStore {
    pub(super) fn add_waiver(
        &mut self,
        workspace_id: &str,
        waiver: &NewWaiver,
        now: OffsetDateTime,
    ) -> Result<Waiver, HistoryError> {
        let transaction = self.write()?;
        transaction.execute(
            "INSERT INTO waiver (workspace_id, policy_id, project_id, reason, until_ms, at_ms, reviewer)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
            params![
                workspace_id,
                waiver.policy_id,
                waiver.project_id,
                waiver.reason,
                to_ms(waiver.until),
                to_ms(now),
                waiver.by
            ],
        )?;
        transaction.commit()?;
        Ok(Waiver {
            policy_id: waiver.policy_id.clone(),
            project_id: waiver.project_id.clone(),
            reason: waiver.reason.clone(),
            until: from_ms(to_ms(waiver.until), "waiver.until_ms")?,
            waived_at: from_ms(to_ms(now), "waiver.at_ms")?,
            waived_by: waiver.by.clone(),
        })
    }

    pub(super) fn all_waivers(&self, workspace_id: &str) -> Result<Vec<Waiver>, HistoryError> {
        let mut statement = self.connection.prepare_cached(
            "SELECT policy_id, project_id, reason, until_ms, at_ms, reviewer FROM waiver
             WHERE workspace_id = ?1 ORDER BY id",
        )?;
        let mut rows = statement.query([workspace_id])?;
        let mut all = Vec::new();
        while let Some(row) = rows.next()? {
            all.push(Waiver {
                policy_id: row.get(0)?,
                project_id: row.get(1)?,
                reason: row.get(2)?,
                until: from_ms(row.get(3)?, "waiver.until_ms")?,
                waived_at: from_ms(row.get(4)?, "waiver.at_ms")?,
                waived_by: row.get(5)?,
            });
        }
        Ok(all)
    }
}
