use serde::{Deserialize, Serialize};
use time::OffsetDateTime;

use super::rfc3339;
use crate::open_enum;

open_enum! {
    /// Where personal data was found. The contract shows only `chat`; the other
    /// values are our choice (DESIGN.md).
    pub enum PiiSource {
        Chat => "chat",
        Code => "code",
        Database => "database",
    }
}

open_enum! {
    /// State of a personal-data finding.
    pub enum PiiStatus {
        Open => "open",
        Ignored => "ignored",
        Fixed => "fixed",
    }
}

/// Item of the personal-data findings list.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PiiFinding {
    pub id: String,
    #[serde(with = "rfc3339")]
    pub found_at: OffsetDateTime,
    pub quote: String,
    pub source: PiiSource,
    pub status: PiiStatus,
}
