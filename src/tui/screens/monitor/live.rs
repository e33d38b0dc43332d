//! What the monitor holds for one shown project, and what its answers mean.

use time::{Duration, OffsetDateTime};

use crate::api::model::{Realtime, VisitorBucket};
use crate::tui::effect::ErrorInfo;

/// The realtime window: 30 one-minute buckets.
pub const BUCKETS_KEPT: usize = 30;
/// How often a project that was never published is asked again: it has no
/// visitors to show, so a round every few seconds would only spend the budget
/// (`r` asks at once).
pub const NEVER_PUBLISHED_RECHECK: Duration = Duration::minutes(5);

/// Whether the realtime answer says the project was never published.
pub(super) fn never_published(error: &ErrorInfo) -> bool {
    error.is_service(crate::api::model::ErrorType::AnalyticsNotFound)
}

/// What is on screen for one project.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Live {
    /// The last buckets, oldest first; at most [`BUCKETS_KEPT`].
    pub buckets: Vec<VisitorBucket>,
    pub current_visitors: i64,
    /// Set when the service refused (e.g. 404 `analytics_not_found`).
    pub error: Option<ErrorInfo>,
    pub loaded: bool,
    /// When the last answer for this project arrived.
    pub updated_at: Option<OffsetDateTime>,
}

impl Live {
    /// The service said the project was never published (no analytics).
    pub(super) fn never_published(&self) -> bool {
        self.error.as_ref().is_some_and(never_published)
    }

    /// A never-published project asked within the recheck interval: it sits
    /// out the regular rounds.
    pub(super) fn resting(&self, now: OffsetDateTime) -> bool {
        self.never_published()
            && self
                .updated_at
                .is_some_and(|at| now - at < NEVER_PUBLISHED_RECHECK)
    }

    pub(super) fn update(&mut self, realtime: Realtime) {
        let mut buckets = realtime.buckets;
        buckets.sort_by_key(|bucket| bucket.timestamp);
        let extra = buckets.len().saturating_sub(BUCKETS_KEPT);
        buckets.drain(..extra);
        self.buckets = buckets;
        self.current_visitors = realtime.current_visitors;
        self.error = None;
        self.loaded = true;
    }
}
