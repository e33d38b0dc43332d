//! The dashboard's vocabulary: the small types that screens, operations, the
//! services and the App all speak (an error as shown, the client's notices,
//! the history's answers). A leaf: it imports nothing else of `tui`, so every
//! other part may import it.

mod budget;
mod errors;
mod history;
mod notices;

pub use budget::{budget_allows, reserve};
pub use errors::{ANALYTICS_NOT_FOUND, ErrorInfo, ErrorKind, Gate, PII_NOT_FOUND, error_info};
pub use history::{ChangeSet, HistoryStart, SnapshotOutcome, SnapshotSeed};
pub use notices::{ClientNotice, notice};
