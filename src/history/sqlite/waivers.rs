//! Waivers in the file: entries of the review log (`action = 'waive'`, the
//! reason its note, with the policy and the end), chained and append-only
//! as marks are (`marks.rs` appends them). Schema step 5 kept them in a
//! table of their own; step 6 moves them into the log (`MOVE_INTO_LOG`).

use rusqlite::Transaction;
use time::OffsetDateTime;

use super::SqliteStore;
use super::guard::update_trigger;
use super::marks::insert_review;
use crate::history::HistoryError;
use crate::history::chain::ChainFields;
use crate::history::marks::WAIVER_COLUMNS;
use crate::history::read::{from_ms, to_ms};
use crate::history::waivers::{NewWaiver, Waiver};

/// Version 5: waivers, kept apart from the snapshot and state tables.
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

/// Version 6: the log holds a waiver's policy and end; the update trigger
/// covers them, and lets a later snapshot give a reviewed state to a mark
/// only (never to a waive entry).
const LOG_COLUMNS: &str = "
ALTER TABLE review ADD COLUMN policy_id TEXT;
ALTER TABLE review ADD COLUMN until_ms INTEGER;
CREATE INDEX review_waivers ON review (workspace_id, id) WHERE action = 'waive';
DROP TRIGGER review_append_only_update;
";

/// Version 5 to 6: the columns, then each waiver given, in the order given,
/// appended to its workspace's chain as it was (who, when, why, until);
/// the table goes with its triggers.
pub(super) fn move_into_log(transaction: &Transaction<'_>) -> Result<(), HistoryError> {
    transaction.execute_batch(LOG_COLUMNS)?;
    let trigger = update_trigger(
        "OLD.state_id IS NULL AND OLD.action = 'mark'",
        WAIVER_COLUMNS,
    );
    transaction.execute_batch(&trigger)?;
    let kept: Vec<(String, NewWaiver, i64)> = {
        let mut statement = transaction.prepare(
            "SELECT workspace_id, policy_id, project_id, reason, until_ms, at_ms, reviewer
             FROM waiver ORDER BY id",
        )?;
        let rows = statement.query_map([], |row| {
            Ok((
                row.get::<_, String>(0)?,
                row.get::<_, String>(1)?,
                row.get::<_, String>(2)?,
                row.get::<_, String>(3)?,
                row.get::<_, i64>(4)?,
                row.get::<_, i64>(5)?,
                row.get::<_, Option<String>>(6)?,
            ))
        })?;
        let mut kept = Vec::new();
        for row in rows {
            let (workspace_id, policy_id, project_id, reason, until_ms, at_ms, by) = row?;
            let waiver = NewWaiver {
                policy_id,
                project_id,
                reason,
                until: from_ms(until_ms, "waiver.until_ms")?,
                by,
            };
            kept.push((workspace_id, waiver, at_ms));
        }
        kept
    };
    for (workspace_id, waiver, at_ms) in &kept {
        append(transaction, workspace_id, waiver, *at_ms)?;
    }
    transaction.execute_batch("DROP TABLE waiver;")?;
    Ok(())
}

/// Appends `waiver` to the workspace's log as given at `at_ms`.
fn append(
    transaction: &Transaction<'_>,
    workspace_id: &str,
    waiver: &NewWaiver,
    at_ms: i64,
) -> Result<(), HistoryError> {
    let fields = ChainFields::waive(workspace_id, waiver, at_ms);
    insert_review(transaction, &fields, (None, None))
}

impl SqliteStore {
    pub(super) fn add_waiver(
        &mut self,
        workspace_id: &str,
        waiver: &NewWaiver,
        now: OffsetDateTime,
    ) -> Result<Waiver, HistoryError> {
        let transaction = self.write()?;
        append(&transaction, workspace_id, waiver, to_ms(now))?;
        transaction.commit()?;
        waiver.given(now, waiver.by.clone())
    }

    pub(super) fn all_waivers(&self, workspace_id: &str) -> Result<Vec<Waiver>, HistoryError> {
        let mut statement = self.connection.prepare_cached(
            "SELECT policy_id, project_id, note, until_ms, at_ms, reviewer FROM review
             WHERE workspace_id = ?1 AND action = 'waive' ORDER BY id",
        )?;
        let mut rows = statement.query([workspace_id])?;
        let mut all = Vec::new();
        while let Some(row) = rows.next()? {
            let policy_id: Option<String> = row.get(0)?;
            let reason: Option<String> = row.get(2)?;
            let until_ms: Option<i64> = row.get(3)?;
            let (Some(policy_id), Some(reason), Some(until_ms)) = (policy_id, reason, until_ms)
            else {
                return Err(HistoryError::Corrupt(
                    "a waive entry of the review log without its policy, reason or end".into(),
                ));
            };
            all.push(Waiver {
                policy_id,
                project_id: row.get(1)?,
                reason,
                until: from_ms(until_ms, "review.until_ms")?,
                waived_at: from_ms(row.get(4)?, "review.at_ms")?,
                waived_by: row.get(5)?,
            });
        }
        Ok(all)
    }
}
