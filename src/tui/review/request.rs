//! What the history's operations (`ops.rs`) answer in the dashboard's own
//! words: a set of changes, and the kind of error a history out of reach gives.

use crate::history::{Change, SnapshotInfo};

/// The `kind` of a history request's error when the history is out of reach
/// (the shared database is down): the App then retries with backoff.
pub const HISTORY_AWAY: &str = "history_unreachable";

/// The `kind` of a history request's error when the shared database kept it
/// waiting past `lock_timeout_secs` or `statement_timeout_secs` (a
/// teammate's lock): away as [`HISTORY_AWAY`] is, said as waiting.
pub const HISTORY_WAITING: &str = "history_waiting";

/// The changes between two snapshots, as the Changes screen shows them.
#[derive(Debug, Clone, PartialEq)]
pub struct ChangeSet {
    /// `None` when the history holds fewer than two snapshots.
    pub before: Option<SnapshotInfo>,
    pub after: Option<SnapshotInfo>,
    /// Most serious first.
    pub changes: Vec<Change>,
}
