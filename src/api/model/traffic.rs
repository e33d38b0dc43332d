//! Traffic over time: `GET /v1/projects/{id}/analytics?starts_at&ends_at`, an
//! operation the real service's reference shows beyond the contract (DESIGN.md,
//! "What the real service publishes"). The reference does not name the bucket
//! parameter; `granularity=day|hour` is our choice, as are the units below.

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use time::OffsetDateTime;

use super::rfc3339;
use crate::open_enum;

open_enum! {
    /// Bucket size of the time series.
    pub enum Granularity {
        Day => "day",
        Hour => "hour",
    }
}

/// Without `granularity`, buckets are days.
pub const DEFAULT_GRANULARITY: Granularity = Granularity::Day;

/// The longest range in daily buckets: the UTC date of `ends_at` at most this
/// many days after that of `starts_at` (as the breakdowns range).
pub const MAX_DAILY_RANGE_DAYS: i64 = 365;
/// The longest range in hourly buckets.
pub const MAX_HOURLY_RANGE_DAYS: i64 = 31;

/// A number of a series: a count is written as an integer, a ratio as a
/// decimal; read back from either.
#[derive(Debug, Clone, Copy, PartialEq, PartialOrd, Default)]
pub struct SeriesValue(pub f64);

impl Serialize for SeriesValue {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        // Whole numbers within f64's exact integers are written without `.0`.
        if self.0.fract() == 0.0 && self.0.abs() < 9.0e15 {
            serializer.serialize_i64(self.0 as i64)
        } else {
            serializer.serialize_f64(self.0)
        }
    }
}

impl<'de> Deserialize<'de> for SeriesValue {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        f64::deserialize(deserializer).map(SeriesValue)
    }
}

/// One bucket: its start, and the value over it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SeriesPoint {
    #[serde(with = "rfc3339")]
    pub timestamp: OffsetDateTime,
    pub value: SeriesValue,
}

/// One metric over the range: its buckets, oldest first, a label for people,
/// and the value over the whole range.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TimeSeries {
    #[serde(default)]
    pub data: Vec<SeriesPoint>,
    #[serde(default)]
    pub label: String,
    #[serde(default)]
    pub total: SeriesValue,
}

/// The five series. Units (our choice): `session_duration` in seconds,
/// `bounce_rate` in percent (0 to 100).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TrafficSeries {
    pub visitors: TimeSeries,
    pub pageviews: TimeSeries,
    pub pageviews_per_visit: TimeSeries,
    pub session_duration: TimeSeries,
    pub bounce_rate: TimeSeries,
}

/// Response of the traffic operation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Traffic {
    pub time_series: TrafficSeries,
}
