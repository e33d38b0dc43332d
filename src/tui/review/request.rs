//! What the history's operations (`ops.rs`) answer in the dashboard's own
//! words: a set of changes (the kind of error a history out of reach gives is
//! `effect::ErrorKind`).

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
