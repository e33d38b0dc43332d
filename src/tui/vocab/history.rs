//! What the history's operations (`review/ops.rs`) answer in the dashboard's own
//! words: a set of changes (the kind of error a history out of reach gives is
//! `ErrorKind`),
//! what a background snapshot came to, and what a context's first frame
//! reads of the history.

use time::OffsetDateTime;

use crate::api::model::{Insights, InventoryItem};
use crate::history::{Change, SnapshotInfo};

/// The changes between two snapshots, as the Changes screen shows them.
#[derive(Debug, Clone, PartialEq)]
pub struct ChangeSet {
    /// `None` when the history holds fewer than two snapshots.
    pub before: Option<SnapshotInfo>,
    pub after: Option<SnapshotInfo>,
    /// Most serious first.
    pub changes: Vec<Change>,
}

/// What the newest snapshot lends the first frame.
#[derive(Debug, Clone)]
pub struct SnapshotSeed {
    pub taken_at: OffsetDateTime,
    pub insights: Option<Insights>,
    pub first_page: Option<Vec<InventoryItem>>,
}

/// The history as read for a context's first frame (at launch, or on a
/// switch, off the event loop), before the App it goes to exists.
#[derive(Debug, Clone)]
pub enum HistoryStart {
    Read {
        seed: Option<SnapshotSeed>,
        /// The newest snapshot is older than `snapshot_max_age`.
        due: bool,
    },
    /// Not read: why, and whether the history is out of reach (the
    /// dashboard then runs live and tries it again).
    Failed { reason: String, unreachable: bool },
}

/// What a background snapshot came to: taken, or skipped (and why).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SnapshotOutcome {
    Taken(SnapshotInfo),
    /// Another's snapshot under way, or a fresh one on a shared history.
    Skipped(String),
}
