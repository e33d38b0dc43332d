//! Reviewed marks: per workspace, kept across snapshots and restarts. A mark
//! remembers the project's state when it was made, so "changed since review"
//! is the newest snapshot's state compared with it.

use rusqlite::{OptionalExtension, params};
use time::OffsetDateTime;

use super::model::ReviewMark;
use super::store::{from_ms, to_ms};
use super::{HistoryError, Store};

impl Store {
    /// Marks `project_id` reviewed now (again, when it was: the note and the
    /// baseline are replaced). The baseline is the project's state in the newest
    /// snapshot; without one, the next snapshot that holds the project.
    pub fn mark_reviewed(
        &mut self,
        workspace_id: &str,
        project_id: &str,
        note: Option<&str>,
        now: OffsetDateTime,
    ) -> Result<ReviewMark, HistoryError> {
        let transaction = self.connection.transaction()?;
        let state_id: Option<i64> = transaction
            .query_row(
                "SELECT sp.state_id FROM snapshot_project sp
                 JOIN project_state ps ON ps.id = sp.state_id
                 WHERE sp.snapshot_id = (SELECT MAX(id) FROM snapshot WHERE workspace_id = ?1)
                   AND ps.project_id = ?2",
                params![workspace_id, project_id],
                |row| row.get(0),
            )
            .optional()?;
        transaction.execute(
            "INSERT INTO review_mark (workspace_id, project_id, marked_at_ms, note, state_id)
             VALUES (?1, ?2, ?3, ?4, ?5)
             ON CONFLICT (workspace_id, project_id) DO UPDATE SET
                 marked_at_ms = excluded.marked_at_ms, note = excluded.note,
                 state_id = excluded.state_id",
            params![workspace_id, project_id, to_ms(now), note, state_id],
        )?;
        transaction.commit()?;
        let mark = self
            .reviewed_marks(workspace_id)?
            .into_iter()
            .find(|mark| mark.project_id == project_id);
        mark.ok_or_else(|| HistoryError::Corrupt("a mark just written is missing".into()))
    }

    /// Removes the mark; `false` when there was none.
    pub fn unmark_reviewed(
        &mut self,
        workspace_id: &str,
        project_id: &str,
    ) -> Result<bool, HistoryError> {
        let removed = self.connection.execute(
            "DELETE FROM review_mark WHERE workspace_id = ?1 AND project_id = ?2",
            params![workspace_id, project_id],
        )?;
        Ok(removed > 0)
    }

    /// Every mark of the workspace, newest first, each with the project's name
    /// and whether it changed since the mark (as the newest snapshot shows it).
    pub fn reviewed_marks(&self, workspace_id: &str) -> Result<Vec<ReviewMark>, HistoryError> {
        let mut statement = self.connection.prepare_cached(
            "WITH latest AS (
                 SELECT ps.id AS state_id, ps.project_id, ps.name
                 FROM snapshot_project sp JOIN project_state ps ON ps.id = sp.state_id
                 WHERE sp.snapshot_id = (SELECT MAX(id) FROM snapshot WHERE workspace_id = ?1))
             SELECT m.project_id, m.marked_at_ms, m.note, m.state_id,
                    latest.state_id, COALESCE(latest.name, marked.name)
             FROM review_mark m
             LEFT JOIN latest ON latest.project_id = m.project_id
             LEFT JOIN project_state marked ON marked.id = m.state_id
             WHERE m.workspace_id = ?1
             ORDER BY m.marked_at_ms DESC, m.project_id",
        )?;
        let rows = statement.query_map([workspace_id], |row| {
            let baseline: Option<i64> = row.get(3)?;
            let current: Option<i64> = row.get(4)?;
            Ok(ReviewMark {
                project_id: row.get(0)?,
                marked_at: from_ms(row.get(1)?),
                note: row.get(2)?,
                changed_since_review: match (baseline, current) {
                    (Some(baseline), Some(current)) => Some(baseline != current),
                    _ => None,
                },
                name: row.get(5)?,
            })
        })?;
        Ok(rows.collect::<Result<_, _>>()?)
    }
}
