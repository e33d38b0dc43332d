//! What the App's side of the review history asks (its slots) and the
//! answers it gets: a leaf its parts share.

use crate::history::ReviewMark;
use crate::tui::effect::{ErrorInfo, Slot};
use crate::tui::vocab::SnapshotOutcome;

/// Reviewed marks: the list, and one mark written.
pub const REVIEW_MARKS: Slot = Slot::new("history", "marks");
pub const REVIEW_MARK: Slot = Slot::new("history", "mark");
/// The background snapshot: one at a time.
pub const TAKE_SNAPSHOT: Slot = Slot::new("history", "snapshot");
/// Whether another process wrote to the history (its `data_version`).
pub const HISTORY_VERSION: Slot = Slot::new("history", "data version");

/// The answers the App's side of the history gets.
#[derive(Debug)]
pub enum HistoryMsg {
    Marks(Result<Vec<ReviewMark>, ErrorInfo>),
    /// The marks written by `m`.
    Marked(Result<Vec<ReviewMark>, ErrorInfo>),
    DataVersion(Result<i64, ErrorInfo>),
    Snapshot(Result<SnapshotOutcome, ErrorInfo>),
}
