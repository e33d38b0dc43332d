//! What the poller last learned, and what the client did to learn it. A scrape
//! reads only this: it never calls the API.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use time::OffsetDateTime;

use super::standing::Problem;
use crate::api::model::{Insights, InventoryItem, Realtime};
use crate::api::{ClientEvent, RateLimitState};
use crate::policy::gather::LiveProjects;

/// Where a cached value came from; the `source` label of the data-age and
/// poll-error metrics.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Source {
    Insights,
    Inventory,
    Realtime,
    Project,
}

impl Source {
    pub const ALL: [Source; 4] = [
        Source::Insights,
        Source::Inventory,
        Source::Realtime,
        Source::Project,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Self::Insights => "insights",
            Self::Inventory => "inventory",
            Self::Realtime => "realtime",
            Self::Project => "project",
        }
    }
}

/// The inventory walk, counted: projects by publish audience and by visibility,
/// and open personal-data findings.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct InventoryTally {
    pub projects: i64,
    /// Published projects by `publish_audience`; unpublished ones under
    /// [`NOT_PUBLISHED`].
    pub by_publish_audience: BTreeMap<String, i64>,
    pub by_visibility: BTreeMap<String, i64>,
    pub by_review_priority: BTreeMap<String, i64>,
    /// The sum of `matched_reason.values.open_pii_finding_count`: the only place
    /// the inventory reports the count (a project without a matched reason has
    /// no open finding to report).
    pub open_pii_findings: i64,
}

/// The `publish_audience` label of projects that are not published.
pub const NOT_PUBLISHED: &str = "not_published";
/// The `visibility` label of projects whose visibility the service left out.
pub const UNSPECIFIED: &str = "unspecified";

impl InventoryTally {
    pub fn add(&mut self, item: &InventoryItem) {
        self.projects += 1;
        let audience = match (&item.publish_audience, item.is_published) {
            (Some(audience), true) => audience.as_str().to_owned(),
            (None, true) => UNSPECIFIED.to_owned(),
            (_, false) => NOT_PUBLISHED.to_owned(),
        };
        *self.by_publish_audience.entry(audience).or_default() += 1;
        let visibility = item
            .visibility
            .as_ref()
            .map_or(UNSPECIFIED, |v| v.as_str())
            .to_owned();
        *self.by_visibility.entry(visibility).or_default() += 1;
        *self
            .by_review_priority
            .entry(item.review_priority.as_str().to_owned())
            .or_default() += 1;
        if let Some(reason) = &item.matched_reason {
            self.open_pii_findings += reason.values.open_pii_finding_count.max(0);
        }
    }
}

/// The policies' figures from one evaluation of the history's newest
/// snapshot (`exporter/policy.rs`).
#[derive(Debug, Clone, PartialEq)]
pub struct PolicyTally {
    /// Every policy evaluated, in load order, 0s included.
    pub policies: Vec<PolicyCount>,
    pub evaluated_at: OffsetDateTime,
    /// When the snapshot evaluated was taken (`None`: its time unreadable).
    pub snapshot_taken_at: Option<OffsetDateTime>,
}

/// One policy's findings: violations not waived, violations waived by a
/// standing waiver, and projects it could not judge (a field it reads is
/// not in a snapshot).
#[derive(Debug, Clone, PartialEq)]
pub struct PolicyCount {
    pub policy: String,
    pub severity: &'static str,
    pub failing: i64,
    pub waived: i64,
    pub unknown: i64,
}

/// One watched project: its name (for the info metric) and its realtime view.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Watched {
    pub name: Option<String>,
    pub current_visitors: Option<i64>,
    pub last_minute_visitors: Option<i64>,
}

impl Watched {
    /// Takes the realtime answer read at `read_at`: the newest bucket whose
    /// minute had ended by then is the last complete minute.
    pub fn record_realtime(&mut self, realtime: &Realtime, read_at: OffsetDateTime) {
        self.current_visitors = Some(realtime.current_visitors);
        self.last_minute_visitors = realtime
            .buckets
            .iter()
            .filter(|bucket| bucket.timestamp + time::Duration::MINUTE <= read_at)
            .max_by_key(|bucket| bucket.timestamp)
            .map(|bucket| bucket.visitors);
    }
}

/// What the client did, from its events and its rate-limit state.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ClientStats {
    /// Attempts answered, by HTTP status code.
    pub requests_by_code: BTreeMap<String, u64>,
    /// Attempts that got no answer (refused, reset, timed out, TLS).
    pub transport_failures: u64,
    /// How long the answered attempts took.
    pub durations: DurationHistogram,
    pub retries: u64,
    pub rate_limit: Option<RateLimitState>,
}

impl ClientStats {
    pub fn record(&mut self, event: &ClientEvent) {
        match event {
            ClientEvent::RequestDone {
                status: Some(status),
                elapsed,
                ..
            } => {
                *self.requests_by_code.entry(status.to_string()).or_default() += 1;
                self.durations.observe(*elapsed);
            }
            ClientEvent::RequestDone { status: None, .. } => self.transport_failures += 1,
            ClientEvent::Retrying { .. } => self.retries += 1,
            ClientEvent::RateLimit(state) => self.rate_limit = Some(*state),
            _ => {}
        }
    }

    /// Every attempt, answered or not.
    pub fn requests(&self) -> u64 {
        self.requests_by_code.values().sum::<u64>() + self.transport_failures
    }
}

/// Upper bounds of the request-duration buckets, in seconds: client_golang's
/// `DefBuckets`, made for network requests.
pub const DURATION_BUCKETS: [f64; 11] = [
    0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0,
];

/// Request durations as a Prometheus histogram: a count per bucket of
/// [`DURATION_BUCKETS`] (not cumulative), and one for beyond the last.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct DurationHistogram {
    pub counts: [u64; DURATION_BUCKETS.len() + 1],
    pub sum_seconds: f64,
}

impl DurationHistogram {
    pub fn observe(&mut self, elapsed: Duration) {
        let seconds = elapsed.as_secs_f64();
        let bucket = DURATION_BUCKETS
            .iter()
            .position(|bound| seconds <= *bound)
            .unwrap_or(DURATION_BUCKETS.len());
        self.counts[bucket] += 1;
        self.sum_seconds += seconds;
    }

    pub fn count(&self) -> u64 {
        self.counts.iter().sum()
    }

    /// `(upper bound, count)` per bucket, `+Inf` last, as the encoder takes them.
    pub fn buckets(&self) -> Vec<(f64, u64)> {
        DURATION_BUCKETS
            .iter()
            .copied()
            .chain([f64::INFINITY])
            .zip(self.counts)
            .collect()
    }
}

/// Everything a scrape shows.
#[derive(Debug, Clone, Default)]
pub struct Snapshot {
    /// The sources this exporter polls, and how often: a source not here has
    /// no `vantage_up` series (no `--watch`, `--no-inventory`).
    pub polled: BTreeMap<Source, Duration>,
    /// Whether each source's last poll answered (`true`) or failed (`false`);
    /// absent before its first answer or failure.
    pub last_poll_ok: BTreeMap<Source, bool>,
    pub insights: Option<Insights>,
    pub inventory: Option<InventoryTally>,
    /// By project id, in the order of `--watch` (ids sort stably).
    pub watched: BTreeMap<String, Watched>,
    /// Watched projects that have nothing to report, and why.
    pub watch_problems: BTreeMap<String, Problem>,
    /// When each source last answered.
    pub fetched_at: BTreeMap<Source, OffsetDateTime>,
    pub poll_errors: BTreeMap<Source, u64>,
    /// Polls left for later because the budget's reserve would have been spent.
    pub polls_deferred: BTreeMap<Source, u64>,
    pub client: ClientStats,
    /// Poll cycles finished (with or without errors).
    pub cycles: u64,
    /// The inventory walk in progress, if one is: its tally is not on show
    /// until it ends, but its progress is.
    pub walk: Option<WalkProgress>,
    /// When the inventory tally on show was completed.
    pub walk_completed_at: Option<OffsetDateTime>,
    /// Whether this exporter evaluates the policies at all: the inventory
    /// walk then keeps its rows for them.
    pub policies_evaluated: bool,
    /// The last finished walk's projects, for the policies: laid over the
    /// newest snapshot, which keeps no scan times and few counts.
    pub live_projects: Option<Arc<LiveProjects>>,
    /// The last evaluation's figures that succeeded.
    pub policy: Option<PolicyTally>,
    /// Evaluations that failed (no history, no snapshot, a broken policy).
    pub policy_errors: u64,
}

/// How far the inventory walk in progress has come.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WalkProgress {
    /// Pages answered so far.
    pub pages: u64,
    pub started_at: OffsetDateTime,
}

impl Snapshot {
    /// `vantage_up`: the source's last poll answered. A source that never
    /// answered is down, as `mysql_up` is 0 before the first connection.
    pub fn up(&self, source: Source) -> bool {
        self.last_poll_ok.get(&source) == Some(&true)
    }

    /// Whether a source still counts as healthy at `now`: up, or failing for
    /// less than one of its intervals since it last answered (one lost poll
    /// is a blip, not an outage).
    pub fn healthy(&self, source: Source, now: OffsetDateTime) -> bool {
        if self.up(source) {
            return true;
        }
        match (self.polled.get(&source), self.fetched_at.get(&source)) {
            (Some(interval), Some(at)) => now - *at <= *interval,
            _ => false,
        }
    }

    /// The sources polled that are down at `now`: failed past their
    /// interval since they last answered, or failed without ever answering.
    /// A source not polled yet is not down: it has no outcome.
    pub fn down(&self, now: OffsetDateTime) -> Vec<Source> {
        self.polled
            .keys()
            .copied()
            .filter(|source| self.last_poll_ok.contains_key(source))
            .filter(|source| !self.healthy(*source, now))
            .collect()
    }

    /// Whether some source has answered: before that, nothing is on show.
    pub fn answered_once(&self) -> bool {
        !self.fetched_at.is_empty()
    }
}

/// The shared cache: the poller writes, scrapes read a clone. Every update
/// counts as a new version, so a reader can tell that nothing changed without
/// copying the snapshot.
#[derive(Debug, Clone, Default)]
pub struct Cache {
    inner: Arc<Mutex<Versioned>>,
}

#[derive(Debug, Default)]
struct Versioned {
    snapshot: Snapshot,
    version: u64,
}

impl Cache {
    pub fn snapshot(&self) -> Snapshot {
        self.lock().snapshot.clone()
    }

    /// The number of updates so far.
    pub fn version(&self) -> u64 {
        self.lock().version
    }

    /// The snapshot and its version, read together.
    pub fn versioned_snapshot(&self) -> (u64, Snapshot) {
        let inner = self.lock();
        (inner.version, inner.snapshot.clone())
    }

    pub fn update<T>(&self, change: impl FnOnce(&mut Snapshot) -> T) -> T {
        let mut inner = self.lock();
        inner.version += 1;
        change(&mut inner.snapshot)
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Versioned> {
        self.inner.lock().unwrap_or_else(|p| p.into_inner())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::model::VisitorBucket;
    use time::macros::datetime;

    #[test]
    fn durations_fall_in_the_first_bucket_that_holds_them() {
        let mut histogram = DurationHistogram::default();
        for millis in [3, 5, 6, 700, 60_000] {
            histogram.observe(Duration::from_millis(millis));
        }
        let buckets = histogram.buckets();
        assert_eq!(buckets[0], (0.005, 2));
        assert_eq!(buckets[1], (0.01, 1));
        assert_eq!(buckets[7], (1.0, 1));
        assert_eq!(buckets[11], (f64::INFINITY, 1));
        assert_eq!(histogram.count(), 5);
        assert!((histogram.sum_seconds - 60.714).abs() < 1e-9);
    }

    #[test]
    fn last_complete_minute_skips_the_running_one() {
        let read_at = datetime!(2026-11-22 12:00:30 UTC);
        let bucket = |timestamp, visitors| VisitorBucket {
            timestamp,
            visitors,
        };
        // 11:59 ended at 12:00; 12:00 is still running at 12:00:30.
        let realtime = Realtime {
            buckets: vec![
                bucket(datetime!(2026-11-22 11:58 UTC), 3),
                bucket(datetime!(2026-11-22 11:59 UTC), 5),
                bucket(datetime!(2026-11-22 12:00 UTC), 9),
            ],
            current_visitors: 7,
        };
        let mut watched = Watched::default();
        watched.record_realtime(&realtime, read_at);
        assert_eq!(watched.current_visitors, Some(7));
        assert_eq!(watched.last_minute_visitors, Some(5));
    }
}
