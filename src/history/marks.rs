//! Reviewed marks: per workspace, kept across snapshots and restarts. Every
//! mark and unmark is a row of `review` (the newest row of a project is its
//! mark), holding who, when, the note and the state that was reviewed: the
//! loaded row the reviewer saw, or the newest snapshot's when that is newer.
//! "Changed since review" compares the newest snapshot's state with that one,
//! field by field ([`PROJECT_FIELDS`]).

use rusqlite::{OptionalExtension, params};
use serde_json::Value;
use time::OffsetDateTime;

use super::document::{ShapedBody, StoredDocument, changed_fields};
use super::model::{NewMark, PROJECT_FIELDS, ReviewMark};
use super::schema::store_document;
use super::store::{from_ms, to_ms};
use super::{HistoryError, Store};

/// The marks of a workspace that stand: each project's newest row, a mark.
const CURRENT_MARKS: &str = "
    current AS (
        SELECT r.* FROM review r
        WHERE r.id IN (SELECT MAX(id) FROM review WHERE workspace_id = ?1 GROUP BY project_id)
          AND r.action = 'mark')";

impl Store {
    /// Marks `mark.project_id` reviewed now (again, when it was: the newest
    /// mark is the one that counts; earlier ones stay in the log).
    pub fn mark_reviewed(
        &mut self,
        workspace_id: &str,
        mark: &NewMark,
        now: OffsetDateTime,
    ) -> Result<ReviewMark, HistoryError> {
        let mut made = self.mark_all_reviewed(workspace_id, std::slice::from_ref(mark), now)?;
        made.pop()
            .ok_or_else(|| HistoryError::Corrupt("a mark just written is missing".into()))
    }

    /// Marks every one of `marks` in one transaction (`m` on the marked rows),
    /// and returns them as they now stand.
    pub fn mark_all_reviewed(
        &mut self,
        workspace_id: &str,
        marks: &[NewMark],
        now: OffsetDateTime,
    ) -> Result<Vec<ReviewMark>, HistoryError> {
        let transaction = self.write()?;
        for mark in marks {
            let in_snapshot: Option<(i64, i64)> = transaction
                .prepare_cached(
                    "SELECT s.id, snap.taken_at_ms FROM snapshot snap
                     JOIN snapshot_project sp ON sp.snapshot_id = snap.id
                     JOIN state s ON s.id = sp.state_id
                     WHERE snap.id = (SELECT MAX(id) FROM snapshot WHERE workspace_id = ?1)
                       AND s.subject = ?2",
                )?
                .query_row(params![workspace_id, mark.project_id], |row| {
                    Ok((row.get(0)?, row.get(1)?))
                })
                .optional()?;
            // Whichever the reviewer's eyes met last: the loaded row, or a snapshot taken since.
            let (state_id, state_at_ms) = match (&mark.seen, in_snapshot) {
                (Some(seen), Some((id, at))) if at > to_ms(seen.read_at) => (Some(id), Some(at)),
                (Some(seen), _) => {
                    let document = StoredDocument::of(&seen.state);
                    let id = store_document(&transaction, &mark.project_id, &document)?;
                    (Some(id), Some(to_ms(seen.read_at)))
                }
                (None, Some((id, at))) => (Some(id), Some(at)),
                (None, None) => (None, None),
            };
            transaction
                .prepare_cached(
                    "INSERT INTO review (workspace_id, project_id, action, at_ms, reviewer, note, state_id, state_at_ms)
                     VALUES (?1, ?2, 'mark', ?3, ?4, ?5, ?6, ?7)",
                )?
                .execute(params![
                    workspace_id,
                    mark.project_id,
                    to_ms(now),
                    mark.reviewer,
                    mark.note,
                    state_id,
                    state_at_ms
                ])?;
        }
        transaction.commit()?;
        let wanted: std::collections::HashSet<&str> =
            marks.iter().map(|mark| mark.project_id.as_str()).collect();
        Ok(self
            .reviewed_marks(workspace_id)?
            .into_iter()
            .filter(|made| wanted.contains(made.project_id.as_str()))
            .collect())
    }

    /// Removes the mark (the log keeps that it was removed, by whom, when);
    /// `false` when there was none.
    pub fn unmark_reviewed(
        &mut self,
        workspace_id: &str,
        project_id: &str,
        reviewer: Option<&str>,
        now: OffsetDateTime,
    ) -> Result<bool, HistoryError> {
        let transaction = self.write()?;
        let marked: bool = transaction.query_row(
            "SELECT COALESCE((SELECT action = 'mark' FROM review
                 WHERE workspace_id = ?1 AND project_id = ?2 ORDER BY id DESC LIMIT 1), 0)",
            params![workspace_id, project_id],
            |row| row.get(0),
        )?;
        if marked {
            transaction.execute(
                "INSERT INTO review (workspace_id, project_id, action, at_ms, reviewer)
                 VALUES (?1, ?2, 'unmark', ?3, ?4)",
                params![workspace_id, project_id, to_ms(now), reviewer],
            )?;
        }
        transaction.commit()?;
        Ok(marked)
    }

    /// Every mark of the workspace that stands, newest first, each with the
    /// project's name and what changed since the reviewed state (as the newest
    /// snapshot shows it).
    pub fn reviewed_marks(&self, workspace_id: &str) -> Result<Vec<ReviewMark>, HistoryError> {
        let mut statement = self.connection.prepare_cached(&format!(
            "WITH {CURRENT_MARKS},
             newest AS (SELECT id, taken_at_ms FROM snapshot WHERE workspace_id = ?1
                        ORDER BY id DESC LIMIT 1),
             latest AS (
                 SELECT s.subject, s.shape, s.body, newest.taken_at_ms
                 FROM newest JOIN snapshot_project sp ON sp.snapshot_id = newest.id
                 JOIN state s ON s.id = sp.state_id)
             SELECT c.project_id, c.at_ms, c.reviewer, c.note, c.state_at_ms,
                    marked.shape, marked.body, latest.shape, latest.body, latest.taken_at_ms
             FROM current c
             LEFT JOIN latest ON latest.subject = c.project_id
             LEFT JOIN state marked ON marked.id = c.state_id
             ORDER BY c.at_ms DESC, c.project_id"
        ))?;
        let mut rows = statement.query([workspace_id])?;
        let mut marks = Vec::new();
        while let Some(row) = rows.next()? {
            let state_at: Option<i64> = row.get(4)?;
            let marked = shaped(row.get(5)?, row.get(6)?)?;
            let latest = shaped(row.get(7)?, row.get(8)?)?;
            let latest_at: Option<i64> = row.get(9)?;
            // A snapshot older than the reviewed state says nothing of what came after it.
            let latest = latest.filter(|_| latest_at >= state_at);
            let name = |body: &Option<ShapedBody>| {
                body.as_ref().and_then(|b| {
                    b.body
                        .get("name")
                        .and_then(Value::as_str)
                        .map(str::to_owned)
                })
            };
            let changed = match (&marked, &latest) {
                (Some(marked), Some(latest)) => {
                    Some(changed_fields(PROJECT_FIELDS, marked, latest))
                }
                _ => None,
            };
            marks.push(ReviewMark {
                project_id: row.get(0)?,
                name: name(&latest).or_else(|| name(&marked)),
                marked_at: from_ms(row.get(1)?),
                reviewer: row.get(2)?,
                note: row.get(3)?,
                reviewed_state_at: state_at.map(from_ms),
                changed_since_review: changed.as_ref().map(|fields| !fields.is_empty()),
                changed_fields: changed.unwrap_or_default(),
            });
        }
        Ok(marks)
    }
}

/// A stored state's shape and body, when the row has one.
fn shaped(shape: Option<u32>, body: Option<String>) -> Result<Option<ShapedBody>, HistoryError> {
    let (Some(shape), Some(body)) = (shape, body) else {
        return Ok(None);
    };
    let body = serde_json::from_str(&body)
        .map_err(|error| HistoryError::Corrupt(format!("a reviewed state: {error}")))?;
    Ok(Some(ShapedBody { shape, body }))
}
