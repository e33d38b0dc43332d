//! Reviewed marks in the file: the `review` table is the log (see
//! `history/marks.rs` for what a row means).

use rusqlite::{OptionalExtension, Transaction, params};
use time::OffsetDateTime;

use super::SqliteStore;
use super::states::store_document;
use crate::history::HistoryError;
use crate::history::backend::{EachItem, LogQuery};
use crate::history::chain::{ChainFields, ChainRow, WaiverTerms, link};
use crate::history::document::{Document, StoredDocument};
use crate::history::marks::{MARK_ROWS, MarkRow, Reviewed, reviewed};
use crate::history::model::{
    LogRead, MarkScope, NewMark, ProjectState, ReviewAction, ReviewEntry, ReviewMark, StoredState,
};
use crate::history::read::{SHOWN_TEXT_CHARS, cut_shown, from_ms, to_ms};

/// The marks of a workspace that stand: each project's newest row of
/// [`MARK_ROWS`], a mark.
fn current_marks() -> String {
    format!(
        "current AS (
             SELECT r.* FROM review r
             WHERE r.id IN (SELECT MAX(id) FROM review WHERE workspace_id = ?1 AND {MARK_ROWS}
                            GROUP BY project_id)
               AND r.action = 'mark')"
    )
}

impl SqliteStore {
    pub(super) fn mark_all(
        &mut self,
        workspace_id: &str,
        marks: &[NewMark],
        now: OffsetDateTime,
    ) -> Result<Vec<ReviewMark>, HistoryError> {
        let transaction = self.write()?;
        for mark in marks {
            let in_snapshot: Option<(i64, i64)> = transaction
                .prepare_cached(
                    "SELECT r.state_id, snap.taken_at_ms FROM snapshot snap
                     JOIN project_range r ON r.workspace_id = ?1 AND r.valid_until IS NULL
                     WHERE snap.id = (SELECT MAX(id) FROM snapshot WHERE workspace_id = ?1)
                       AND r.subject = ?2 ORDER BY r.sort_key LIMIT 1",
                )?
                .query_row(params![workspace_id, mark.project_id], |row| {
                    Ok((row.get(0)?, row.get(1)?))
                })
                .optional()?;
            let seen_at = mark.seen.as_ref().map(|seen| to_ms(seen.read_at));
            let (state_id, state_at_ms) =
                match (reviewed(seen_at, in_snapshot.map(|(_, at)| at)), &mark.seen) {
                    (Reviewed::Seen, Some(seen)) => {
                        let document = StoredDocument::of(&seen.state);
                        let id = store_document(&transaction, &mark.project_id, &document)?;
                        (Some(id), seen_at)
                    }
                    (Reviewed::Snapshot, _) => {
                        (in_snapshot.map(|(id, _)| id), in_snapshot.map(|(_, at)| at))
                    }
                    _ => (None, None),
                };
            let fields = ChainFields::mark(workspace_id, mark, now);
            insert_review(&transaction, &fields, (state_id, state_at_ms))?;
        }
        transaction.commit()?;
        let wanted: Vec<String> = marks.iter().map(|mark| mark.project_id.clone()).collect();
        let mut made = Vec::new();
        self.each_mark(workspace_id, MarkScope::Projects(&wanted), &mut |mark| {
            made.push(mark);
            Ok(())
        })?;
        Ok(made)
    }

    /// The marks that stand in `scope`, newest first, stepped one row at a
    /// time into `each`.
    pub(super) fn each_mark(
        &self,
        workspace_id: &str,
        scope: MarkScope<'_>,
        each: &mut EachItem<'_, ReviewMark>,
    ) -> Result<(), HistoryError> {
        // The projects asked for, as a JSON array the query unpacks.
        let only = match scope {
            MarkScope::Projects(ids) => Some(
                serde_json::to_string(ids)
                    .map_err(|error| HistoryError::Corrupt(format!("a project list: {error}")))?,
            ),
            _ => None,
        };
        let shown = scope == MarkScope::Shown;
        let mut statement = self.connection.prepare_cached(&format!(
            "WITH {},
             newest AS (SELECT id, taken_at_ms FROM snapshot WHERE workspace_id = ?1
                        ORDER BY id DESC LIMIT 1),
             latest AS (
                 SELECT s.subject, s.shape, s.body, newest.taken_at_ms
                 FROM newest JOIN project_range r ON r.workspace_id = ?1 AND r.valid_until IS NULL
                 JOIN state s ON s.id = r.state_id)
             SELECT c.project_id, c.at_ms, substr(c.reviewer, 1, {SHOWN_TEXT_CHARS}),
                    substr(c.note, 1, {SHOWN_TEXT_CHARS}), c.state_at_ms,
                    marked.shape, marked.body, latest.shape, latest.body, latest.taken_at_ms
             FROM current c
             LEFT JOIN latest ON latest.subject = c.project_id
             LEFT JOIN state marked ON marked.id = c.state_id
             WHERE (?2 IS NULL OR c.project_id IN (SELECT value FROM json_each(?2)))
               AND (NOT ?3 OR latest.subject IS NOT NULL
                    OR NOT EXISTS (SELECT 1 FROM newest)
                    OR c.at_ms >= (SELECT taken_at_ms FROM newest))
             ORDER BY c.at_ms DESC, c.project_id",
            current_marks()
        ))?;
        let mut rows = statement.query(params![workspace_id, only, shown])?;
        while let Some(row) = rows.next()? {
            let pair = |shape: Option<u32>, body: Option<String>| shape.zip(body);
            each(
                MarkRow {
                    project_id: row.get(0)?,
                    at_ms: row.get(1)?,
                    reviewer: row.get(2)?,
                    display_name: None,
                    note: row.get(3)?,
                    state_at_ms: row.get(4)?,
                    marked: pair(row.get(5)?, row.get(6)?),
                    latest: pair(row.get(7)?, row.get(8)?),
                    latest_at_ms: row.get(9)?,
                }
                .into_mark()?,
            )?;
        }
        Ok(())
    }

    /// The log (of one project, when given), oldest first, stepped one row at
    /// a time into `each`.
    pub(super) fn each_entry(
        &self,
        query: &LogQuery,
        each: &mut EachItem<'_, ReviewEntry>,
    ) -> Result<(), HistoryError> {
        let whole = query.read == LogRead::Whole;
        let text = |column: &str| {
            if whole {
                format!("r.{column}")
            } else {
                format!("substr(r.{column}, 1, {SHOWN_TEXT_CHARS})")
            }
        };
        // What is shown never needs the reviewed state's body.
        let state = if whole {
            "s.shape, s.body FROM review r LEFT JOIN state s ON s.id = r.state_id"
        } else {
            "NULL, NULL FROM review r"
        };
        let mut statement = self.connection.prepare_cached(&format!(
            "SELECT r.id, r.project_id, r.action, r.at_ms, {}, {}, r.state_at_ms,
                    r.policy_id, r.until_ms, {state}
             WHERE r.workspace_id = ?1 AND (?2 IS NULL OR r.project_id = ?2)
             ORDER BY r.id",
            text("reviewer"),
            text("note"),
        ))?;
        let mut rows = statement.query(params![query.workspace_id, query.project_id])?;
        while let Some(row) = rows.next()? {
            let action: String = row.get(2)?;
            let state_at: Option<i64> = row.get(6)?;
            let until_ms: Option<i64> = row.get(8)?;
            let shape: Option<u32> = row.get(9)?;
            let body: Option<String> = row.get(10)?;
            let (reviewer, note): (Option<String>, Option<String>) = (row.get(4)?, row.get(5)?);
            each(ReviewEntry {
                id: row.get(0)?,
                project_id: row.get(1)?,
                action: ReviewAction::parse(&action).ok_or_else(|| {
                    HistoryError::Corrupt(format!("a review log action {action:?}"))
                })?,
                at: from_ms(row.get(3)?, "review.at_ms")?,
                reviewer: if whole { reviewer } else { cut_shown(reviewer) },
                display_name: None,
                note: if whole { note } else { cut_shown(note) },
                reviewed_state_at: state_at
                    .map(|ms| from_ms(ms, "review.state_at_ms"))
                    .transpose()?,
                reviewed_state: shape
                    .zip(body)
                    .map(|(shape, body)| StoredState { shape, body }),
                policy_id: row.get(7)?,
                until: until_ms
                    .map(|ms| from_ms(ms, "review.until_ms"))
                    .transpose()?,
            })?;
        }
        Ok(())
    }

    /// The workspace's chain, oldest first, until `each` says stop.
    pub(super) fn each_chain_row(
        &self,
        workspace_id: &str,
        each: &mut (dyn FnMut(ChainRow) -> bool + Send),
    ) -> Result<(), HistoryError> {
        let mut statement = self.connection.prepare_cached(
            "SELECT id, project_id, action, at_ms, reviewer, note, hash, policy_id, until_ms
             FROM review WHERE workspace_id = ?1 ORDER BY id",
        )?;
        let mut rows = statement.query([workspace_id])?;
        while let Some(row) = rows.next()? {
            let chained = ChainRow {
                id: row.get(0)?,
                fields: ChainFields {
                    workspace_id: workspace_id.to_owned(),
                    project_id: row.get(1)?,
                    action: row.get(2)?,
                    at_ms: row.get(3)?,
                    reviewer: row.get(4)?,
                    role: None,
                    note: row.get(5)?,
                    waiver: waiver_terms(row.get(7)?, row.get(8)?),
                },
                hash: row.get(6)?,
            };
            if !each(chained) {
                break;
            }
        }
        Ok(())
    }

    pub(super) fn import_log(
        &mut self,
        workspace_id: &str,
        entries: &[ReviewEntry],
    ) -> Result<usize, HistoryError> {
        let transaction = self.write()?;
        let mut added = 0;
        for entry in entries {
            let held: bool = transaction
                .prepare_cached(
                    "SELECT EXISTS (SELECT 1 FROM review WHERE workspace_id = ?1 AND project_id = ?2
                         AND action = ?3 AND at_ms = ?4 AND reviewer IS ?5 AND note IS ?6)",
                )?
                .query_row(
                    params![
                        workspace_id,
                        entry.project_id,
                        entry.action.as_str(),
                        to_ms(entry.at),
                        entry.reviewer,
                        entry.note
                    ],
                    |row| row.get(0),
                )?;
            if held {
                continue;
            }
            let state_id = match &entry.reviewed_state {
                Some(state) => {
                    let document = StoredDocument::from_body(
                        ProjectState::KIND,
                        state.shape,
                        state.body.clone(),
                    );
                    Some(store_document(&transaction, &entry.project_id, &document)?)
                }
                None => None,
            };
            let fields = ChainFields::copied(workspace_id, entry, entry.reviewer.as_deref());
            insert_review(
                &transaction,
                &fields,
                (state_id, entry.reviewed_state_at.map(to_ms)),
            )?;
            added += 1;
        }
        transaction.commit()?;
        Ok(added)
    }
}

/// Appends `unmark` when the project's mark stands; `false` when it did not.
pub(super) fn unmark(
    transaction: &Transaction<'_>,
    unmark: &ChainFields,
) -> Result<bool, HistoryError> {
    let marked: bool = transaction.query_row(
        &format!(
            "SELECT COALESCE((SELECT action = 'mark' FROM review
                 WHERE workspace_id = ?1 AND project_id = ?2 AND {MARK_ROWS}
                 ORDER BY id DESC LIMIT 1), 0)"
        ),
        params![unmark.workspace_id, unmark.project_id],
        |row| row.get(0),
    )?;
    if marked {
        insert_review(transaction, unmark, (None, None))?;
    }
    Ok(marked)
}

/// A waive entry's terms as its columns hold them (both, or it is no waiver).
fn waiver_terms(policy_id: Option<String>, until_ms: Option<i64>) -> Option<WaiverTerms> {
    Some(WaiverTerms {
        policy_id: policy_id?,
        until_ms: until_ms?,
    })
}

/// Appends `fields` to the log, chained to the workspace's newest (the
/// write transaction holds the file's lock: no other entry comes between).
/// `state`: the reviewed state's id and when it was read (marks only).
pub(super) fn insert_review(
    transaction: &Transaction<'_>,
    fields: &ChainFields,
    (state_id, state_at_ms): (Option<i64>, Option<i64>),
) -> Result<(), HistoryError> {
    let previous: Option<Vec<u8>> = transaction
        .prepare_cached("SELECT hash FROM review WHERE workspace_id = ?1 ORDER BY id DESC LIMIT 1")?
        .query_row([&fields.workspace_id], |row| row.get(0))
        .optional()?
        .flatten();
    let hash = link(previous.as_deref(), fields);
    let terms = fields.waiver.as_ref();
    transaction
        .prepare_cached(
            "INSERT INTO review (workspace_id, project_id, action, at_ms, reviewer, note, state_id, state_at_ms, hash, policy_id, until_ms)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)",
        )?
        .execute(params![
            fields.workspace_id,
            fields.project_id,
            fields.action,
            fields.at_ms,
            fields.reviewer,
            fields.note,
            state_id,
            state_at_ms,
            hash,
            terms.map(|terms| terms.policy_id.as_str()),
            terms.map(|terms| terms.until_ms)
        ])?;
    Ok(())
}
