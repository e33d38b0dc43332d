//! Reviewed marks, as both stores keep them: every mark and unmark is a row of
//! the review log (the newest of them of a project is its mark, [`MARK_ROWS`]), holding who,
//! when, the note and the state that was reviewed: the loaded row the reviewer
//! saw, or the newest snapshot's when that is newer. "Changed since review"
//! compares the newest snapshot's state with that one, field by field
//! ([`PROJECT_FIELDS`]). The stores read rows; what they mean is said here once.

use serde_json::Value;
use time::OffsetDateTime;

use super::HistoryError;
use super::chain::{ChainFields, WaiverTerms};
use super::document::{ShapedBody, changed_fields};
use super::model::{NewMark, PROJECT_FIELDS, ReviewAction, ReviewEntry, ReviewMark};
use super::read::{cut_shown, from_ms, to_ms};
use super::waivers::NewWaiver;

/// The log's rows that are marks and unmarks (a project's newest of them is
/// its mark); waive entries share the log and never touch a mark. Both
/// stores' queries of marks filter with it (`review` columns unqualified).
pub(super) const MARK_ROWS: &str = "action IN ('mark', 'unmark')";

/// The columns of a log entry that no update may change: all but the
/// reviewed state's, which a later snapshot gives a mark that has none.
/// Both stores' guards keep them (the database's its `db_role` too).
pub(super) const KEPT_COLUMNS: &[&str] = &[
    "id",
    "workspace_id",
    "project_id",
    "action",
    "at_ms",
    "reviewer",
    "note",
    "hash",
];

/// A waive entry's columns (schema 6 on), kept as well.
pub(super) const WAIVER_COLUMNS: &[&str] = &["policy_id", "until_ms"];

/// What each kind of entry the stores append to the log holds (the shared
/// store fills in the database role as it inserts it).
impl ChainFields {
    fn entry(workspace_id: &str, project_id: &str, action: ReviewAction, at_ms: i64) -> Self {
        Self {
            workspace_id: workspace_id.to_owned(),
            project_id: project_id.to_owned(),
            action: action.as_str().to_owned(),
            at_ms,
            reviewer: None,
            role: None,
            note: None,
            waiver: None,
        }
    }

    /// `mark` given at `now`.
    pub(super) fn mark(workspace_id: &str, mark: &NewMark, now: OffsetDateTime) -> Self {
        Self {
            reviewer: mark.reviewer.clone(),
            note: mark.note.clone(),
            ..Self::entry(
                workspace_id,
                &mark.project_id,
                ReviewAction::Mark,
                to_ms(now),
            )
        }
    }

    /// The project's mark removed by `reviewer` at `now`.
    pub(super) fn unmark(
        workspace_id: &str,
        project_id: &str,
        reviewer: Option<&str>,
        now: OffsetDateTime,
    ) -> Self {
        Self {
            reviewer: reviewer.map(str::to_owned),
            ..Self::entry(workspace_id, project_id, ReviewAction::Unmark, to_ms(now))
        }
    }

    /// `entry` of another log copied into this one, in the name of `reviewer`.
    pub(super) fn copied(workspace_id: &str, entry: &ReviewEntry, reviewer: Option<&str>) -> Self {
        Self {
            reviewer: reviewer.map(str::to_owned),
            note: entry.note.clone(),
            waiver: entry.waiver_terms(),
            ..Self::entry(
                workspace_id,
                &entry.project_id,
                entry.action,
                to_ms(entry.at),
            )
        }
    }

    /// A waiver given at `at_ms`: its reason is the note.
    pub(super) fn waive(workspace_id: &str, waiver: &NewWaiver, at_ms: i64) -> Self {
        Self {
            reviewer: waiver.by.clone(),
            note: Some(waiver.reason.clone()),
            waiver: Some(WaiverTerms {
                policy_id: waiver.policy_id.clone(),
                until_ms: to_ms(waiver.until),
            }),
            ..Self::entry(workspace_id, &waiver.project_id, ReviewAction::Waive, at_ms)
        }
    }
}

/// A mark that stands, as a store reads it: the log row, the reviewed state,
/// and the project in the newest snapshot.
pub(super) struct MarkRow {
    pub project_id: String,
    pub at_ms: i64,
    /// The database role that wrote the mark (a shared history), else the
    /// name the reviewer gave.
    pub reviewer: Option<String>,
    /// The name the reviewer gave, beside a role.
    pub display_name: Option<String>,
    pub note: Option<String>,
    pub state_at_ms: Option<i64>,
    /// The reviewed state's shape and body.
    pub marked: Option<(u32, String)>,
    /// The newest snapshot's state of the project, and when it was taken.
    pub latest: Option<(u32, String)>,
    pub latest_at_ms: Option<i64>,
}

/// Which state a new mark holds: whichever the reviewer's eyes met last, the
/// loaded row (read at `seen_at_ms`) or a snapshot whose walk began since (a
/// snapshot is dated when its walk began: `Capture::taken_at`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Reviewed {
    /// The newest snapshot's state of the project.
    Snapshot,
    /// The loaded row the reviewer saw.
    Seen,
    /// Neither is known: the next snapshot that holds the project gives it.
    Unknown,
}

pub(super) fn reviewed(seen_at_ms: Option<i64>, snapshot_at_ms: Option<i64>) -> Reviewed {
    match (seen_at_ms, snapshot_at_ms) {
        (Some(seen), Some(at)) if at > seen => Reviewed::Snapshot,
        (Some(_), _) => Reviewed::Seen,
        (None, Some(_)) => Reviewed::Snapshot,
        (None, None) => Reviewed::Unknown,
    }
}

/// A stored state's shape and body, when the row has one.
fn shaped(stored: Option<(u32, String)>) -> Result<Option<ShapedBody>, HistoryError> {
    let Some((shape, body)) = stored else {
        return Ok(None);
    };
    let body = serde_json::from_str(&body)
        .map_err(|error| HistoryError::Corrupt(format!("a reviewed state: {error}")))?;
    Ok(Some(ShapedBody { shape, body }))
}

impl MarkRow {
    pub(super) fn into_mark(self) -> Result<ReviewMark, HistoryError> {
        let marked = shaped(self.marked)?;
        // A snapshot whose walk began before the reviewed state was read says
        // nothing of what came after it (its page may predate the reviewer's write).
        let latest = shaped(self.latest)?.filter(|_| self.latest_at_ms >= self.state_at_ms);
        let name = |body: &Option<ShapedBody>| {
            body.as_ref().and_then(|b| {
                b.body
                    .get("name")
                    .and_then(Value::as_str)
                    .map(str::to_owned)
            })
        };
        let changed = match (&marked, &latest) {
            (Some(marked), Some(latest)) => Some(changed_fields(PROJECT_FIELDS, marked, latest)),
            _ => None,
        };
        Ok(ReviewMark {
            name: name(&latest).or_else(|| name(&marked)),
            project_id: self.project_id,
            marked_at: from_ms(self.at_ms, "review.at_ms")?,
            reviewer: cut_shown(self.reviewer),
            display_name: cut_shown(self.display_name),
            note: cut_shown(self.note),
            reviewed_state_at: self
                .state_at_ms
                .map(|ms| from_ms(ms, "review.state_at_ms"))
                .transpose()?,
            changed_since_review: changed.as_ref().map(|fields| !fields.is_empty()),
            changed_fields: changed.unwrap_or_default(),
            reviewed_state: marked,
        })
    }
}
