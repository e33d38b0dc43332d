use serde::{Deserialize, Serialize};
use time::OffsetDateTime;

use super::rfc3339;

/// One minute of the realtime chart.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct VisitorBucket {
    #[serde(with = "rfc3339")]
    pub timestamp: OffsetDateTime,
    pub visitors: i64,
}

/// Response of the realtime analytics operation.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Realtime {
    pub buckets: Vec<VisitorBucket>,
    pub current_visitors: i64,
}

/// One row of a breakdown list.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct BreakdownItem {
    pub label: String,
    pub visitors: i64,
}

/// Response of the analytics breakdowns operation.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Breakdowns {
    #[serde(default)]
    pub countries: Vec<BreakdownItem>,
    #[serde(default)]
    pub devices: Vec<BreakdownItem>,
    #[serde(default)]
    pub pages: Vec<BreakdownItem>,
    #[serde(default)]
    pub sources: Vec<BreakdownItem>,
}
