//! The file's validity ranges (`history/ranges.rs`): recording a list against
//! the open ranges, the posture counted with it, the step from schema 3 (a
//! row per snapshot and subject), and removing snapshots with the ranges and
//! states only they held.

use std::collections::HashMap;

use rusqlite::{Transaction, params};

use super::states::store_document;
use crate::history::HistoryError;
use crate::history::document::{Document, ShapedBody};
use crate::history::marks::MARK_ROWS;
use crate::history::model::{MemberState, ProjectState};
use crate::history::posture::{Posture, shaped};
use crate::history::ranges::{
    OpenRange, Subject, drop_closed, plan_documents, plan_ids, range_tables,
};
use crate::history::read::parse_body;
use crate::history::retention::{KeepReason, waiver_name};

/// Version 7: each range keeps its state's digest, and the open ranges (those
/// the newest snapshot holds) have an index of their own that holds all a
/// new snapshot compares them by. A day's recording reads that index alone:
/// joined to `state`, it read rows scattered over the whole history (each
/// subject's newest state was stored the day it last changed), and took
/// longer as the history grew. `valid_until` (NULL throughout) is among its
/// columns so that SQLite's planner takes it, whole, for that read. A range
/// whose state is missing (damage) gets an empty digest, which recording names.
pub(super) const OPEN_RANGES: &str = "
ALTER TABLE project_range ADD COLUMN digest BLOB NOT NULL DEFAULT x'';
UPDATE project_range SET digest = coalesce(
    (SELECT s.digest FROM state s WHERE s.id = project_range.state_id), x'');
CREATE INDEX project_range_open ON project_range (workspace_id, valid_until, subject, digest, sort_key)
    WHERE valid_until IS NULL;
ALTER TABLE member_range ADD COLUMN digest BLOB NOT NULL DEFAULT x'';
UPDATE member_range SET digest = coalesce(
    (SELECT s.digest FROM state s WHERE s.id = member_range.state_id), x'');
CREATE INDEX member_range_open ON member_range (workspace_id, valid_until, subject, digest, sort_key)
    WHERE valid_until IS NULL;
";

/// The ranges a snapshot holds, in `{kind}_range r` joined to `snapshot snap`.
pub(super) const HELD_BY_SNAP: &str =
    "r.workspace_id = snap.workspace_id AND r.valid_from <= snap.id
     AND (r.valid_until IS NULL OR r.valid_until > snap.id)";

/// The open ranges of `kind` in workspace `?1`: read from `{kind}_range_open`
/// alone ([`OPEN_RANGES`]), what the newest snapshot holds, however long the
/// history.
fn open_ranges(kind: &str) -> String {
    format!(
        "SELECT id, subject, digest, sort_key FROM {kind}_range
         WHERE workspace_id = ?1 AND valid_until IS NULL"
    )
}

/// Ends the open ranges `listed` does not go on in and begins the others at
/// `snapshot_id`, storing the states no row holds yet.
pub(super) fn record_ranges<T: Subject>(
    transaction: &Transaction<'_>,
    workspace_id: &str,
    snapshot_id: i64,
    states: &[T],
) -> Result<(), HistoryError> {
    let kind = T::KIND;
    let open: Vec<OpenRange<i64, Vec<u8>>> = {
        let mut statement = transaction.prepare_cached(&open_ranges(kind))?;
        let rows = statement.query_map([workspace_id], |row| {
            let digest: Vec<u8> = row.get(2)?;
            Ok(OpenRange {
                handle: row.get(0)?,
                subject: row.get(1)?,
                identity: digest,
                sort_key: row.get(3)?,
            })
        })?;
        rows.collect::<Result<_, _>>()?
    };
    let open = open
        .into_iter()
        .map(|range| {
            Ok(OpenRange {
                identity: crate::history::ranges::stored_digest(range.identity)?,
                handle: range.handle,
                subject: range.subject,
                sort_key: range.sort_key,
            })
        })
        .collect::<Result<Vec<OpenRange<i64, [u8; 16]>>, HistoryError>>()?;
    let (documents, plan) = plan_documents(&open, states);
    let mut close = transaction.prepare_cached(&format!(
        "UPDATE {kind}_range SET valid_until = ?1 WHERE id = ?2"
    ))?;
    for handle in plan.close {
        close.execute(params![snapshot_id, handle])?;
    }
    let mut begin = transaction.prepare_cached(&format!(
        "INSERT INTO {kind}_range (workspace_id, subject, state_id, digest, sort_key, valid_from)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6)"
    ))?;
    // Equal states within one snapshot are stored once.
    let mut met: HashMap<[u8; 16], i64> = HashMap::new();
    for (at, sort_key) in plan.open {
        let document = &documents[at];
        let state_id = match met.get(&document.digest) {
            Some(&id) => id,
            None => {
                let id = store_document(transaction, states[at].subject(), document)?;
                met.insert(document.digest, id);
                id
            }
        };
        begin.execute(params![
            workspace_id,
            states[at].subject(),
            state_id,
            document.digest.as_slice(),
            sort_key,
            snapshot_id
        ])?;
    }
    Ok(())
}

/// The marks that stood at `at_ms` (all that stand: `i64::MAX`), by project,
/// each with its reviewed state.
pub(super) fn standing_marks(
    transaction: &Transaction<'_>,
    workspace_id: &str,
    at_ms: i64,
) -> Result<HashMap<String, Option<ShapedBody>>, HistoryError> {
    let mut statement = transaction.prepare_cached(&format!(
        "SELECT r.project_id, s.shape, s.body FROM review r LEFT JOIN state s ON s.id = r.state_id
         WHERE r.id IN (SELECT MAX(id) FROM review WHERE workspace_id = ?1 AND at_ms <= ?2
                          AND {MARK_ROWS} GROUP BY project_id)
           AND r.action = 'mark'"
    ))?;
    let rows = statement.query_map(params![workspace_id, at_ms], |row| {
        let shape: Option<u32> = row.get(1)?;
        let body: Option<String> = row.get(2)?;
        Ok((row.get::<_, String>(0)?, shaped(shape, body.as_deref())))
    })?;
    Ok(rows.collect::<Result<_, _>>()?)
}

/// Counts the snapshot's posture against the marks that stand now and keeps it.
pub(super) fn record_posture(
    transaction: &Transaction<'_>,
    workspace_id: &str,
    snapshot_id: i64,
    projects: &[ProjectState],
) -> Result<(), HistoryError> {
    let marks = standing_marks(transaction, workspace_id, i64::MAX)?;
    let posture = Posture::count(projects, &marks);
    transaction.execute(
        "UPDATE snapshot SET posture = ?1 WHERE id = ?2",
        params![posture.to_json(), snapshot_id],
    )?;
    Ok(())
}

/// The snapshots of the workspace a standing mark refers to: the newest
/// taken when (or before) the reviewed state was read that holds that state,
/// each with the project whose mark needs it.
pub(super) fn marked_snapshots(
    transaction: &rusqlite::Connection,
    workspace_id: &str,
) -> Result<Vec<(i64, String)>, HistoryError> {
    let mut statement = transaction.prepare_cached(&format!(
        "WITH current AS (
             SELECT r.* FROM review r
             WHERE r.id IN (SELECT MAX(id) FROM review WHERE workspace_id = ?1 AND {MARK_ROWS}
                            GROUP BY project_id)
               AND r.action = 'mark' AND r.state_id IS NOT NULL)
         SELECT held.id, held.project_id FROM (
             SELECT c.project_id,
                    (SELECT MAX(snap.id) FROM project_range r
                     JOIN snapshot snap ON {HELD_BY_SNAP}
                     WHERE r.workspace_id = ?1 AND r.subject = c.project_id
                       AND r.state_id = c.state_id
                       AND snap.taken_at_ms <= coalesce(c.state_at_ms, c.at_ms)) AS id
             FROM current c) AS held
         WHERE held.id IS NOT NULL ORDER BY held.id, held.project_id"
    ))?;
    let rows = statement.query_map([workspace_id], |row| Ok((row.get(0)?, row.get(1)?)))?;
    Ok(rows.collect::<Result<_, _>>()?)
}

/// The snapshots standing waivers refer to (`retention.rs`), each with the
/// waiver's name; the clock is this computer's.
pub(super) fn waived_snapshots(
    connection: &rusqlite::Connection,
    workspace_id: &str,
) -> Result<Vec<(i64, String)>, HistoryError> {
    let now_ms = crate::history::read::to_ms(time::OffsetDateTime::now_utc());
    let mut statement = connection.prepare_cached(&format!(
        "WITH standing AS (
             SELECT w.* FROM review w
             WHERE w.id IN (SELECT MAX(id) FROM review WHERE workspace_id = ?1
                              AND action = 'waive'
                            GROUP BY policy_id, project_id)
               AND w.until_ms > ?2)
         SELECT held.id, held.policy_id, held.project_id FROM (
             SELECT w.policy_id, w.project_id,
                    (SELECT MAX(snap.id) FROM project_range r
                     JOIN snapshot snap ON {HELD_BY_SNAP}
                     WHERE r.workspace_id = ?1 AND r.subject = w.project_id
                       AND snap.taken_at_ms <= w.at_ms) AS id
             FROM standing w) AS held
         WHERE held.id IS NOT NULL ORDER BY held.id, held.policy_id, held.project_id"
    ))?;
    let rows = statement.query_map(params![workspace_id, now_ms], |row| {
        let policy: String = row.get(1)?;
        let project: String = row.get(2)?;
        Ok((row.get(0)?, waiver_name(&policy, &project)))
    })?;
    Ok(rows.collect::<Result<_, _>>()?)
}

/// What `snapshot prune` keeps whatever its rules say: the snapshots marks
/// and waivers refer to.
pub(super) fn held_snapshots(
    connection: &rusqlite::Connection,
    workspace_id: &str,
) -> Result<Vec<(i64, KeepReason)>, HistoryError> {
    let marked = marked_snapshots(connection, workspace_id)?
        .into_iter()
        .map(|(id, project)| (id, KeepReason::Marked(project)));
    let waived = waived_snapshots(connection, workspace_id)?
        .into_iter()
        .map(|(id, waiver)| (id, KeepReason::Waived(waiver)));
    Ok(marked.chain(waived).collect())
}

/// Removes `doomed` (snapshots of the workspace), the ranges no snapshot
/// holds any more and the states nothing refers to, in `transaction`.
pub(super) fn remove_snapshots(
    transaction: &Transaction<'_>,
    workspace_id: &str,
    doomed: &[i64],
) -> Result<(), HistoryError> {
    if doomed.is_empty() {
        return Ok(());
    }
    {
        let mut remove = transaction
            .prepare_cached("DELETE FROM snapshot WHERE workspace_id = ?1 AND id = ?2")?;
        for id in doomed {
            remove.execute(params![workspace_id, id])?;
        }
    }
    for kind in [ProjectState::KIND, MemberState::KIND] {
        transaction.execute(
            &format!(
                "DELETE FROM {kind}_range AS r WHERE r.workspace_id = ?1 AND NOT EXISTS (
                     SELECT 1 FROM snapshot snap WHERE snap.workspace_id = ?1
                         AND snap.id >= r.valid_from
                         AND (r.valid_until IS NULL OR snap.id < r.valid_until))"
            ),
            [workspace_id],
        )?;
    }
    transaction.execute(
        "DELETE FROM state WHERE id NOT IN (SELECT state_id FROM project_range)
             AND id NOT IN (SELECT state_id FROM member_range)
             AND id NOT IN (SELECT insights_state FROM snapshot WHERE insights_state IS NOT NULL)
             AND id NOT IN (SELECT state_id FROM review WHERE state_id IS NOT NULL)",
        [],
    )?;
    Ok(())
}

/// Version 3 to 4: each workspace's snapshots, oldest first, become ranges
/// as if recorded now (one snapshot's list in memory at a time), each
/// snapshot's posture counted against the marks that stood when it was
/// taken; then the lists go.
pub(super) fn to_ranges(transaction: &Transaction<'_>) -> Result<(), HistoryError> {
    // Version 4: the tables (the lists of version 3 become ranges, each
    // snapshot's list read back the same), and each snapshot's posture.
    transaction.execute_batch(&range_tables("INTEGER PRIMARY KEY", "INTEGER"))?;
    let snapshots: Vec<(i64, String, i64)> = {
        let mut statement = transaction.prepare(
            "SELECT id, workspace_id, taken_at_ms FROM snapshot ORDER BY workspace_id, id",
        )?;
        let rows = statement.query_map([], |row| Ok((row.get(0)?, row.get(1)?, row.get(2)?)))?;
        rows.collect::<Result<_, _>>()?
    };
    let mut open: HashMap<(&str, &str), Vec<OpenRange<i64, i64>>> = HashMap::new();
    // Parsed once: a state stays the same across many snapshots.
    let mut parsed: HashMap<i64, ProjectState> = HashMap::new();
    for (snapshot_id, workspace_id, taken_at_ms) in &snapshots {
        for kind in [ProjectState::KIND, MemberState::KIND] {
            let listed: Vec<(String, i64)> = {
                let mut statement = transaction.prepare_cached(&format!(
                    "SELECT s.subject, l.state_id FROM snapshot_{kind} l JOIN state s ON s.id = l.state_id
                     WHERE l.snapshot_id = ?1 ORDER BY l.position"
                ))?;
                let rows =
                    statement.query_map([snapshot_id], |row| Ok((row.get(0)?, row.get(1)?)))?;
                rows.collect::<Result<_, _>>()?
            };
            let ranges = open.entry((workspace_id.as_str(), kind)).or_default();
            let plan = plan_ids(ranges, &listed);
            for handle in &plan.close {
                transaction.execute(
                    &format!("UPDATE {kind}_range SET valid_until = ?1 WHERE id = ?2"),
                    params![snapshot_id, handle],
                )?;
            }
            drop_closed(ranges, &plan.close);
            for (at, sort_key) in plan.open {
                let (subject, state_id) = &listed[at];
                transaction.execute(
                    &format!(
                        "INSERT INTO {kind}_range (workspace_id, subject, state_id, sort_key, valid_from)
                         VALUES (?1, ?2, ?3, ?4, ?5)"
                    ),
                    params![workspace_id, subject, state_id, sort_key, snapshot_id],
                )?;
                ranges.push(OpenRange {
                    handle: transaction.last_insert_rowid(),
                    subject: subject.clone(),
                    identity: *state_id,
                    sort_key,
                });
            }
            if kind != ProjectState::KIND {
                continue;
            }
            for (_, state_id) in &listed {
                if !parsed.contains_key(state_id) {
                    let body: String = transaction.query_row(
                        "SELECT body FROM state WHERE id = ?1",
                        [state_id],
                        |row| row.get(0),
                    )?;
                    parsed.insert(*state_id, parse_body(kind, &body)?);
                }
            }
            let projects = listed
                .iter()
                .filter_map(|(_, state_id)| parsed.get(state_id));
            let marks = standing_marks(transaction, workspace_id, *taken_at_ms)?;
            transaction.execute(
                "UPDATE snapshot SET posture = ?1 WHERE id = ?2",
                params![Posture::count(projects, &marks).to_json(), snapshot_id],
            )?;
        }
    }
    transaction.execute_batch("DROP TABLE snapshot_project; DROP TABLE snapshot_member;")?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A day's recording compares the new list with the open ranges read
    /// from their own index, whole: neither the range rows nor `state` (every
    /// state the history keeps), which a year of history had made slower
    /// (issue 39, row 22f: a day took 1.22 times as long at day 365).
    #[test]
    fn the_open_ranges_are_read_from_their_index_alone() {
        let dir = tempfile::tempdir().unwrap();
        let store = super::super::SqliteStore::open(&dir.path().join("history.sqlite3")).unwrap();
        for kind in [ProjectState::KIND, MemberState::KIND] {
            let mut explain = store
                .connection
                .prepare(&format!("EXPLAIN QUERY PLAN {}", open_ranges(kind)))
                .unwrap();
            let plan: Vec<String> = explain
                .query_map(["ws_x"], |row| row.get(3))
                .unwrap()
                .collect::<Result<_, _>>()
                .unwrap();
            assert_eq!(
                plan,
                [format!(
                    "SEARCH {kind}_range USING COVERING INDEX {kind}_range_open \
                     (workspace_id=? AND valid_until=?)"
                )],
                "{kind}"
            );
        }
    }
}
