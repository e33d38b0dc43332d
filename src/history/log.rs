//! The audit trail of reviewed marks: every mark and unmark of a workspace,
//! who made it and when, with the note, in the order they were made. The rows
//! are the `review` log that [`super::marks`] writes; nothing here writes.

use rusqlite::params;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use time::OffsetDateTime;

use super::store::from_ms;
use super::{HistoryError, Store};

/// Whether an entry of the log marked or unmarked the project.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ReviewAction {
    Mark,
    Unmark,
}

impl ReviewAction {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Mark => "mark",
            Self::Unmark => "unmark",
        }
    }

    fn from_stored(raw: &str) -> Result<Self, HistoryError> {
        match raw {
            "mark" => Ok(Self::Mark),
            "unmark" => Ok(Self::Unmark),
            other => Err(HistoryError::Corrupt(format!(
                "a review log entry's action is {other:?}"
            ))),
        }
    }
}

/// One entry of the review log.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReviewEvent {
    /// The entry's place in the log: later entries have larger ids.
    pub id: i64,
    pub project_id: String,
    /// The project's name in the newest snapshot that holds it, else in the
    /// state that was reviewed.
    pub name: Option<String>,
    pub action: ReviewAction,
    #[serde(with = "time::serde::rfc3339")]
    pub at: OffsetDateTime,
    /// Who; `None` for a mark older than the record of reviewers.
    pub reviewer: Option<String>,
    /// The mark's note (an unmark has none).
    pub note: Option<String>,
}

impl Store {
    /// The workspace's review log, oldest first; one project's when `project_id`
    /// is given.
    pub fn review_log(
        &self,
        workspace_id: &str,
        project_id: Option<&str>,
    ) -> Result<Vec<ReviewEvent>, HistoryError> {
        let mut statement = self.connection.prepare_cached(
            "WITH newest AS (SELECT id FROM snapshot WHERE workspace_id = ?1
                             ORDER BY id DESC LIMIT 1),
             latest AS (
                 SELECT s.subject, s.body
                 FROM newest JOIN snapshot_project sp ON sp.snapshot_id = newest.id
                 JOIN state s ON s.id = sp.state_id)
             SELECT r.id, r.project_id, r.action, r.at_ms, r.reviewer, r.note,
                    latest.body, reviewed.body
             FROM review r
             LEFT JOIN latest ON latest.subject = r.project_id
             LEFT JOIN state reviewed ON reviewed.id = r.state_id
             WHERE r.workspace_id = ?1 AND (?2 IS NULL OR r.project_id = ?2)
             ORDER BY r.id",
        )?;
        let mut rows = statement.query(params![workspace_id, project_id])?;
        let mut events = Vec::new();
        while let Some(row) = rows.next()? {
            let action: String = row.get(2)?;
            let latest: Option<String> = row.get(6)?;
            let reviewed: Option<String> = row.get(7)?;
            events.push(ReviewEvent {
                id: row.get(0)?,
                project_id: row.get(1)?,
                name: name_in(latest.as_deref()).or_else(|| name_in(reviewed.as_deref())),
                action: ReviewAction::from_stored(&action)?,
                at: from_ms(row.get(3)?),
                reviewer: row.get(4)?,
                note: row.get(5)?,
            });
        }
        Ok(events)
    }
}

/// The `name` of a stored project state's body, when it has one.
fn name_in(body: Option<&str>) -> Option<String> {
    let body: Value = serde_json::from_str(body?).ok()?;
    body.get("name")?.as_str().map(str::to_owned)
}
