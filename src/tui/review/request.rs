//! What screens ask of the history store, and what comes back. Screens never
//! open the file: they return these inside an effect, as they do API requests.

use crate::history::{Change, ProjectState, ReviewMark, SeenState, SnapshotInfo};

/// The `kind` of a history request's error when the history is out of reach
/// (the shared database is down): the App then retries with backoff.
pub const HISTORY_AWAY: &str = "history_unreachable";

#[derive(Debug, Clone, PartialEq)]
pub enum HistoryRequest {
    /// The changes between two snapshots (`(before, after)` ids), or between
    /// the newest two when `None`.
    Changes { between: Option<(i64, i64)> },
    /// The workspace's snapshots, oldest first.
    Snapshots,
    /// The workspace's reviewed marks.
    Marks,
    /// Marks projects reviewed now, with one optional note; each holds the
    /// row as the reviewer saw it.
    Mark {
        projects: Vec<(String, Option<Box<SeenState>>)>,
        note: Option<String>,
    },
    /// SQLite's `data_version` of the history file: it moves when another
    /// process records a snapshot or a mark.
    DataVersion,
    /// Walks the workspace within the budget and records a snapshot.
    TakeSnapshot,
    /// The newest snapshot's state of one project (the project screen's
    /// facts when its row is not loaded).
    ProjectState { project_id: String },
}

/// The changes between two snapshots, as the Changes screen shows them.
#[derive(Debug, Clone, PartialEq)]
pub struct ChangeSet {
    /// `None` when the history holds fewer than two snapshots.
    pub before: Option<SnapshotInfo>,
    pub after: Option<SnapshotInfo>,
    /// Most serious first.
    pub changes: Vec<Change>,
}

#[derive(Debug, Clone, PartialEq)]
pub enum HistoryReply {
    Changes(Box<ChangeSet>),
    Snapshots(Vec<SnapshotInfo>),
    Marks(Vec<ReviewMark>),
    Marked(Vec<ReviewMark>),
    DataVersion(i64),
    SnapshotTaken(SnapshotInfo),
    /// The background snapshot was not taken, and why (a shared history: a
    /// teammate's is being taken, or a fresh one is there).
    SnapshotSkipped(String),
    /// `None` when the newest snapshot does not hold the project.
    ProjectState(Option<Box<(SnapshotInfo, ProjectState)>>),
}
