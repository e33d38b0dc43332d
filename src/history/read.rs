//! What both stores share when reading: which snapshot a reference names, and
//! a stored document's body read back.

use serde::de::DeserializeOwned;
use time::OffsetDateTime;

use super::HistoryError;
use crate::api::model::{PROJECT_NAME_MAX_CHARS, cut_name};

/// How many characters of a note or a reviewer's name a read takes from the
/// store: one more than a name from the service keeps, so [`cut_shown`] can
/// tell a longer one and cut it as the service's names are cut. A teammate's
/// megabyte note never leaves the database whole.
pub(super) const SHOWN_TEXT_CHARS: usize = PROJECT_NAME_MAX_CHARS + 1;

/// A note or a name as shown: cut as names from the service are.
pub(super) fn cut_shown(text: Option<String>) -> Option<String> {
    text.map(cut_name)
}

/// A stored document's body read back; fields a newer shape added default
/// when an older document lacks them.
pub(super) fn parse_body<T: DeserializeOwned>(kind: &str, body: &str) -> Result<T, HistoryError> {
    serde_json::from_str(body)
        .map_err(|error| HistoryError::Corrupt(format!("a stored {kind} state: {error}")))
}

/// Which snapshot `--since`/`--until` name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SnapshotRef {
    /// The newest one.
    Last,
    /// The one before the newest.
    Previous,
    Id(i64),
    /// The newest one taken at or before this instant.
    At(OffsetDateTime),
}

pub(super) fn to_ms(at: OffsetDateTime) -> i64 {
    (at.unix_timestamp_nanos() / 1_000_000) as i64
}

/// A stored instant read back (`ms` since the epoch, from `column`); one
/// beyond the times vantage reads is damage, named, never shown as another.
pub(super) fn from_ms(ms: i64, column: &str) -> Result<OffsetDateTime, HistoryError> {
    OffsetDateTime::from_unix_timestamp_nanos(i128::from(ms) * 1_000_000).map_err(|_| {
        HistoryError::Corrupt(format!("{column} is {ms}, beyond the times vantage reads"))
    })
}
