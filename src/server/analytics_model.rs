//! The deterministic visitor model behind the analytics operations.
//!
//! Every number is a pure function of the project id, its [`AnalyticsProfile`]
//! and the wall-clock minute or UTC date it describes, so the demo moves live
//! while the same minute always gives the same numbers (and tests can pin them
//! with a manual clock).
//!
//! The model: visitors *arrive* at a rate that follows a smooth daily curve (a
//! sinusoid over the UTC day peaking in the project's busy hour) scaled so that
//! a day's expected arrivals are `daily_visitors` times a day factor (quieter
//! weekends, some day-to-day noise). Each visitor stays [`SESSION_MINUTES`]. A
//! realtime bucket counts the visitors active in that minute; the breakdowns
//! split each day's expected arrivals over countries, devices, pages and
//! sources, so both operations share one scale.

use std::f64::consts::TAU;
use std::ops::RangeInclusive;

use time::{Date, Duration, OffsetDateTime, Time, UtcOffset};

use super::store::AnalyticsProfile;
use crate::api::model::{
    BreakdownItem, Breakdowns, Granularity, Realtime, SeriesPoint, SeriesValue, TimeSeries,
    Traffic, TrafficSeries, VisitorBucket,
};
use crate::hash::{hash_str, mix64};

/// Buckets of the realtime chart (contract: 30 one-minute buckets).
pub const REALTIME_BUCKETS: i64 = 30;
/// The window of `current_visitors` (contract: active over the last 5 minutes).
pub const ACTIVE_WINDOW_MINUTES: i64 = 5;
/// How long a visit lasts in the model.
pub const SESSION_MINUTES: i64 = 4;
/// Items per breakdown list (contract: at most 10).
pub const MAX_BREAKDOWN_ITEMS: usize = 10;

/// How far the daily curve swings around its mean (0 = flat).
const DAILY_SWING: f64 = 0.6;
const MINUTES_PER_DAY: i64 = 1_440;

/// The label shown when a visitor's country cannot be determined (contract).
pub const UNKNOWN_COUNTRY: &str = "Unknown";
/// The source label of visits without a referrer (contract).
pub const DIRECT_SOURCE: &str = "Direct";

/// Labels with their typical share of visitors; each project skews them.
const COUNTRIES: &[(&str, f64)] = &[
    ("United States", 0.28),
    ("India", 0.10),
    ("United Kingdom", 0.08),
    ("Germany", 0.07),
    ("Brazil", 0.05),
    (UNKNOWN_COUNTRY, 0.05),
    ("France", 0.045),
    ("Canada", 0.04),
    ("Japan", 0.035),
    ("Netherlands", 0.03),
    ("Spain", 0.03),
    ("Australia", 0.025),
    ("Indonesia", 0.02),
    ("Mexico", 0.02),
    ("Nigeria", 0.02),
    ("Poland", 0.02),
    ("Sweden", 0.015),
];
const DEVICES: &[(&str, f64)] = &[("Desktop", 0.55), ("Mobile", 0.40), ("Tablet", 0.05)];
const PAGES: &[(&str, f64)] = &[
    ("/", 0.35),
    ("/login", 0.10),
    ("/dashboard", 0.09),
    ("/pricing", 0.07),
    ("/signup", 0.06),
    ("/about", 0.05),
    ("/blog", 0.05),
    ("/docs", 0.04),
    ("/contact", 0.03),
    ("/settings", 0.03),
    ("/profile", 0.03),
    ("/checkout", 0.02),
    ("/help", 0.02),
    ("/terms", 0.01),
];
const SOURCES: &[(&str, f64)] = &[
    (DIRECT_SOURCE, 0.38),
    ("google.com", 0.25),
    ("chatgpt.com", 0.06),
    ("github.com", 0.05),
    ("t.co", 0.04),
    ("linkedin.com", 0.04),
    ("bing.com", 0.03),
    ("reddit.com", 0.03),
    ("news.ycombinator.com", 0.025),
    ("duckduckgo.com", 0.02),
    ("youtube.com", 0.02),
    ("facebook.com", 0.02),
    ("producthunt.com", 0.015),
];

/// One project's model.
pub struct VisitorModel {
    seed: u64,
    daily_visitors: f64,
    /// Fraction of the UTC day at which the curve peaks, minus a quarter day.
    phase: f64,
}

impl VisitorModel {
    pub fn new(project_id: &str, profile: &AnalyticsProfile) -> Self {
        let seed = hash_str(project_id);
        // Busy hour between 12:00 and 20:00 UTC, depending on the audience.
        let peak = 0.5 + unit(seed, 1, 0) / 3.0;
        Self {
            seed,
            daily_visitors: f64::from(profile.daily_visitors),
            phase: peak - 0.25,
        }
    }

    /// The realtime view at `now`: 30 one-minute buckets, oldest first, the last
    /// one being the minute `now` falls in; and the visitors active over the last
    /// 5 minutes. An offline project has no visitors.
    pub fn realtime(&self, now: OffsetDateTime, online: bool) -> Realtime {
        let current = now.unix_timestamp().div_euclid(60);
        let buckets = (current - REALTIME_BUCKETS + 1..=current)
            .map(|minute| VisitorBucket {
                timestamp: minute_start(minute),
                visitors: if online {
                    self.active_in_minute(minute)
                } else {
                    0
                },
            })
            .collect();
        // Everyone whose visit overlaps the window: arrivals from SESSION_MINUTES - 1
        // minutes before it began up to the current minute.
        let current_visitors = if online {
            (current - ACTIVE_WINDOW_MINUTES - SESSION_MINUTES + 2..=current)
                .map(|minute| self.arrivals(minute))
                .sum()
        } else {
            0
        };
        Realtime {
            buckets,
            current_visitors,
        }
    }

    /// Visitors active during one minute: the arrivals of the last session length.
    fn active_in_minute(&self, minute: i64) -> i64 {
        (minute - SESSION_MINUTES + 1..=minute)
            .map(|m| self.arrivals(m))
            .sum()
    }

    /// Visitors arriving during one minute (since the Unix epoch): the curve's
    /// rate with noise, rounded up or down at random so small rates still show.
    fn arrivals(&self, minute: i64) -> i64 {
        let day = minute.div_euclid(MINUTES_PER_DAY);
        let at = (minute.rem_euclid(MINUTES_PER_DAY) as f64 + 0.5) / MINUTES_PER_DAY as f64;
        let rate =
            self.daily_visitors * self.day_factor(day) * self.shape(at) / MINUTES_PER_DAY as f64;
        let noisy = rate * (0.7 + 0.6 * unit(self.seed, 2, minute as u64));
        (noisy + unit(self.seed, 3, minute as u64)).floor() as i64
    }

    /// The daily curve at a fraction of the UTC day; its mean over a day is 1.
    fn shape(&self, at: f64) -> f64 {
        1.0 + DAILY_SWING * (TAU * (at - self.phase)).sin()
    }

    /// The share of a day's visitors that arrive before `at` (a fraction of the day).
    fn share_before(&self, at: f64) -> f64 {
        let cos = |x: f64| (TAU * (x - self.phase)).cos();
        (at - DAILY_SWING / TAU * (cos(at) - cos(0.0))).clamp(0.0, 1.0)
    }

    /// Quieter weekends and some day-to-day noise; `day` counts days since the epoch.
    fn day_factor(&self, day: i64) -> f64 {
        let weekday = (day + 4).rem_euclid(7); // 1970-01-01 was a Thursday (4).
        let weekly = if weekday == 0 || weekday == 6 {
            0.7
        } else {
            1.08
        };
        weekly * (0.85 + 0.3 * unit(self.seed, 4, day as u64))
    }

    /// Expected visitors of one UTC date, counting only up to `now` on its day.
    fn visitors_on(&self, date: Date, now: OffsetDateTime) -> i64 {
        let start = date.with_time(Time::MIDNIGHT).assume_utc();
        let day = start.unix_timestamp().div_euclid(86_400);
        let elapsed = (now - start).as_seconds_f64() / 86_400.0;
        let share = if elapsed >= 1.0 {
            1.0
        } else {
            self.share_before(elapsed)
        };
        (self.daily_visitors * self.day_factor(day) * share).round() as i64
    }

    /// Top items of every dimension over `dates`, each day's visitors split by
    /// label. Days the caller leaves out (retention, future) contribute nothing.
    pub fn breakdowns(&self, dates: impl Iterator<Item = Date>, now: OffsetDateTime) -> Breakdowns {
        let dimensions = [COUNTRIES, DEVICES, PAGES, SOURCES];
        let mut totals: Vec<Vec<i64>> = dimensions.iter().map(|d| vec![0; d.len()]).collect();
        for date in dates {
            let visitors = self.visitors_on(date, now);
            if visitors == 0 {
                continue;
            }
            for (index, labels) in dimensions.iter().enumerate() {
                let day = i64::from(date.to_julian_day());
                let split = self.split(visitors, labels, index as u64, day);
                for (total, part) in totals[index].iter_mut().zip(split) {
                    *total += part;
                }
            }
        }
        let mut lists = dimensions
            .iter()
            .zip(totals)
            .map(|(labels, counts)| top_items(labels, &counts));
        Breakdowns {
            countries: lists.next().unwrap_or_default(),
            devices: lists.next().unwrap_or_default(),
            pages: lists.next().unwrap_or_default(),
            sources: lists.next().unwrap_or_default(),
        }
    }

    /// Splits `visitors` over `labels` by the project's skewed weights with daily
    /// noise, by largest remainder so the parts add up exactly.
    fn split(&self, visitors: i64, labels: &[(&str, f64)], dimension: u64, day: i64) -> Vec<i64> {
        let weights: Vec<f64> = labels
            .iter()
            .map(|(label, base)| {
                let label_seed = mix64(self.seed ^ hash_str(label) ^ dimension);
                // Each project's audience skews the labels, except how often
                // the country is unknown or the referrer missing.
                let neutral = *label == UNKNOWN_COUNTRY || *label == DIRECT_SOURCE;
                let affinity = if neutral {
                    1.0
                } else {
                    0.5 + unit(label_seed, 5, 0)
                };
                base * affinity * (0.8 + 0.4 * unit(label_seed, 6, day as u64))
            })
            .collect();
        largest_remainder(visitors, &weights)
    }

    /// Traffic over `first..=last` (whole UTC dates) in daily or hourly
    /// buckets. A date outside `live` (retention, before the project, the
    /// future) is answered with zeros. Each date's visitors are exactly those
    /// the breakdowns split, and its hours split them again, so every
    /// granularity adds up to the breakdowns' totals.
    pub fn traffic(
        &self,
        first: Date,
        last: Date,
        live: RangeInclusive<Date>,
        granularity: &Granularity,
        now: OffsetDateTime,
    ) -> Traffic {
        let mut buckets = Vec::new();
        for date in std::iter::successors(Some(first), |date| date.next_day())
            .take_while(|date| *date <= last)
        {
            let start = date.with_time(Time::MIDNIGHT).assume_utc();
            let day = start.unix_timestamp().div_euclid(86_400);
            let (visitors, pageviews) = if live.contains(&date) {
                let visitors = self.visitors_on(date, now);
                let per_visit = 1.5 + 2.5 * unit(self.seed, 7, day as u64);
                (visitors, (visitors as f64 * per_visit).round() as i64)
            } else {
                (0, 0)
            };
            // Seconds, and percent: our units (api::model::traffic).
            let session =
                (60 * SESSION_MINUTES) as f64 * (0.8 + 0.4 * unit(self.seed, 8, day as u64));
            let bounce = 30.0 + 30.0 * unit(self.seed, 9, day as u64);
            let day_bucket = |at, visitors, pageviews| TrafficBucket {
                start: at,
                visitors,
                pageviews,
                session_seconds: session.round(),
                bounce_percent: round_to(bounce, 1),
            };
            match granularity {
                Granularity::Hour => {
                    // Each hour's share of the day's curve, up to `now`.
                    let elapsed = (now - start).as_seconds_f64() / 86_400.0;
                    let weights: Vec<f64> = (0..24)
                        .map(|hour| {
                            let from = (f64::from(hour) / 24.0).min(elapsed).max(0.0);
                            let to = (f64::from(hour + 1) / 24.0).min(elapsed).max(0.0);
                            self.share_before(to) - self.share_before(from)
                        })
                        .collect();
                    let hourly_visitors = largest_remainder(visitors, &weights);
                    let hourly_pageviews = largest_remainder(pageviews, &weights);
                    for hour in 0..24 {
                        buckets.push(day_bucket(
                            start + Duration::hours(hour as i64),
                            hourly_visitors[hour],
                            hourly_pageviews[hour],
                        ));
                    }
                }
                _ => buckets.push(day_bucket(start, visitors, pageviews)),
            }
        }
        traffic_series(&buckets)
    }
}

/// One bucket of traffic, before it is written as five series.
struct TrafficBucket {
    start: OffsetDateTime,
    visitors: i64,
    pageviews: i64,
    session_seconds: f64,
    bounce_percent: f64,
}

/// The five series of the buckets; totals are sums, or visitor-weighted means.
fn traffic_series(buckets: &[TrafficBucket]) -> Traffic {
    let visitors: i64 = buckets.iter().map(|b| b.visitors).sum();
    let pageviews: i64 = buckets.iter().map(|b| b.pageviews).sum();
    let weighted = |value: fn(&TrafficBucket) -> f64| {
        if visitors == 0 {
            0.0
        } else {
            buckets
                .iter()
                .map(|b| b.visitors as f64 * value(b))
                .sum::<f64>()
                / visitors as f64
        }
    };
    let series = |label: &str, value: &dyn Fn(&TrafficBucket) -> f64, total: f64| TimeSeries {
        data: buckets
            .iter()
            .map(|b| SeriesPoint {
                timestamp: b.start,
                // A bucket nobody visited has no duration, rate or ratio.
                value: SeriesValue(if b.visitors == 0 { 0.0 } else { value(b) }),
            })
            .collect(),
        label: label.to_owned(),
        total: SeriesValue(total),
    };
    let per_visit = |views: i64, visits: i64| {
        if visits == 0 {
            0.0
        } else {
            round_to(views as f64 / visits as f64, 2)
        }
    };
    Traffic {
        time_series: TrafficSeries {
            visitors: series("Visitors", &|b| b.visitors as f64, visitors as f64),
            pageviews: series("Pageviews", &|b| b.pageviews as f64, pageviews as f64),
            pageviews_per_visit: series(
                "Pageviews per visit",
                &|b| per_visit(b.pageviews, b.visitors),
                per_visit(pageviews, visitors),
            ),
            session_duration: series(
                "Session duration",
                &|b| b.session_seconds,
                weighted(|b| b.session_seconds).round(),
            ),
            bounce_rate: series(
                "Bounce rate",
                &|b| b.bounce_percent,
                round_to(weighted(|b| b.bounce_percent), 1),
            ),
        },
    }
}

fn round_to(value: f64, decimals: i32) -> f64 {
    let scale = 10f64.powi(decimals);
    (value * scale).round() / scale
}

/// Splits `total` by `weights`, by largest remainder so the parts add up
/// exactly; all-zero weights give all-zero parts.
fn largest_remainder(total: i64, weights: &[f64]) -> Vec<i64> {
    let sum: f64 = weights.iter().sum();
    if sum <= 0.0 {
        return vec![0; weights.len()];
    }
    let exact: Vec<f64> = weights.iter().map(|w| total as f64 * w / sum).collect();
    let mut parts: Vec<i64> = exact.iter().map(|x| x.floor() as i64).collect();
    let mut left = total - parts.iter().sum::<i64>();
    let mut by_remainder: Vec<usize> = (0..parts.len()).collect();
    by_remainder.sort_by(|&a, &b| {
        let (ra, rb) = (exact[a] - exact[a].floor(), exact[b] - exact[b].floor());
        rb.total_cmp(&ra).then(a.cmp(&b))
    });
    for index in by_remainder {
        if left <= 0 {
            break;
        }
        parts[index] += 1;
        left -= 1;
    }
    parts
}

/// The dates of `start..=end` that hold analytics at `now`: not in the future,
/// within the last `retention_days` dates (today counts as one), and not before
/// the project existed.
pub fn retained_dates(
    start: Date,
    end: Date,
    now: OffsetDateTime,
    retention_days: u32,
    created_at: Option<OffsetDateTime>,
) -> impl Iterator<Item = Date> {
    dates_in(retained_range(start, end, now, retention_days, created_at))
}

/// Each date of `range`, in order.
pub fn dates_in(range: RangeInclusive<Date>) -> impl Iterator<Item = Date> {
    let (from, to) = (*range.start(), *range.end());
    std::iter::successors(Some(from), |date| date.next_day()).take_while(move |date| *date <= to)
}

/// The dates of `start..=end` that hold analytics, as a range (empty when none).
pub fn retained_range(
    start: Date,
    end: Date,
    now: OffsetDateTime,
    retention_days: u32,
    created_at: Option<OffsetDateTime>,
) -> RangeInclusive<Date> {
    let today = now.to_offset(UtcOffset::UTC).date();
    let oldest_kept = today
        .checked_sub(Duration::days(i64::from(retention_days) - 1))
        .unwrap_or(Date::MIN);
    let created = created_at.map(|at| at.to_offset(UtcOffset::UTC).date());
    let from = [Some(start), Some(oldest_kept), created]
        .into_iter()
        .flatten()
        .max()
        .unwrap_or(start);
    let to = end.min(today);
    from..=to
}

/// At most ten items, most visitors first, ties by label; empty labels left out.
fn top_items(labels: &[(&str, f64)], counts: &[i64]) -> Vec<BreakdownItem> {
    let mut items: Vec<BreakdownItem> = labels
        .iter()
        .zip(counts)
        .filter(|(_, count)| **count > 0)
        .map(|((label, _), count)| BreakdownItem {
            label: (*label).to_owned(),
            visitors: *count,
        })
        .collect();
    items.sort_by(|a, b| {
        b.visitors
            .cmp(&a.visitors)
            .then_with(|| a.label.cmp(&b.label))
    });
    items.truncate(MAX_BREAKDOWN_ITEMS);
    items
}

fn minute_start(minute: i64) -> OffsetDateTime {
    OffsetDateTime::from_unix_timestamp(minute * 60).unwrap_or(OffsetDateTime::UNIX_EPOCH)
}

/// A deterministic float in `[0, 1)` from a seed, a purpose and a counter.
fn unit(seed: u64, purpose: u64, n: u64) -> f64 {
    let bits = mix64(seed ^ mix64(purpose.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ n));
    (bits >> 11) as f64 / (1u64 << 53) as f64
}

#[cfg(test)]
mod tests {
    use super::*;
    use time::macros::{date, datetime};

    fn profile(daily_visitors: u32) -> AnalyticsProfile {
        AnalyticsProfile {
            retention_days: 365,
            daily_visitors,
        }
    }

    #[test]
    fn a_day_of_arrivals_matches_the_daily_scale() {
        let model = VisitorModel::new("prj_scale", &profile(2_000));
        let date = date!(2026 - 11 - 18);
        let start = date.with_time(Time::MIDNIGHT).assume_utc().unix_timestamp() / 60;
        let arrivals: i64 = (start..start + MINUTES_PER_DAY)
            .map(|m| model.arrivals(m))
            .sum();
        let expected = model.visitors_on(date, datetime!(2026-11-30 0:00 UTC));
        let error = (arrivals - expected).abs() as f64 / expected as f64;
        assert!(error < 0.05, "arrivals {arrivals} vs expected {expected}");
    }

    #[test]
    fn share_before_runs_from_zero_to_one_and_rises() {
        let model = VisitorModel::new("prj_share", &profile(100));
        assert!(model.share_before(0.0).abs() < 1e-9);
        assert!((model.share_before(1.0) - 1.0).abs() < 1e-9);
        let mut last = 0.0;
        for step in 1..=96 {
            let share = model.share_before(f64::from(step) / 96.0);
            assert!(share >= last);
            last = share;
        }
    }

    #[test]
    fn split_adds_up_exactly() {
        let model = VisitorModel::new("prj_split", &profile(100));
        for visitors in [0, 1, 7, 999, 12_345] {
            let parts = model.split(visitors, COUNTRIES, 0, 42);
            assert_eq!(parts.iter().sum::<i64>(), visitors);
            assert!(parts.iter().all(|p| *p >= 0));
        }
    }

    #[test]
    fn retention_future_and_creation_bound_the_dates() {
        let now = datetime!(2026-11-22 12:00 UTC);
        let all: Vec<Date> =
            retained_dates(date!(2026 - 01 - 01), date!(2026 - 12 - 31), now, 90, None).collect();
        assert_eq!(all.len(), 90);
        assert_eq!(all.last(), Some(&date!(2026 - 11 - 22)));
        assert_eq!(all.first(), Some(&date!(2026 - 08 - 25)));
        let created = retained_dates(
            date!(2026 - 01 - 01),
            date!(2026 - 12 - 31),
            now,
            365,
            Some(datetime!(2026-11-20 23:00 UTC)),
        )
        .count();
        assert_eq!(created, 3);
    }

    #[test]
    fn hourly_traffic_follows_the_realtime_arrivals_and_adds_up_to_the_day() {
        let model = VisitorModel::new("prj_traffic", &profile(50_000));
        let now = datetime!(2026-11-18 12:00 UTC);
        let day = date!(2026 - 11 - 18);
        let hourly = model.traffic(day, day, day..=day, &Granularity::Hour, now);
        let daily = model.traffic(day, day, day..=day, &Granularity::Day, now);
        let visitors = &hourly.time_series.visitors;
        assert_eq!(visitors.total, daily.time_series.visitors.total);
        assert_eq!(
            visitors.total.0 as i64,
            model.visitors_on(day, now),
            "the breakdowns' day"
        );
        // The last full hour holds about the arrivals the realtime view counts.
        let start = datetime!(2026-11-18 11:00 UTC).unix_timestamp() / 60;
        let arrivals: i64 = (start..start + 60).map(|m| model.arrivals(m)).sum();
        let bucket = visitors.data[11].value.0;
        let error = (bucket - arrivals as f64).abs() / bucket;
        assert!(error < 0.15, "hour {bucket} vs arrivals {arrivals}");
        assert!(visitors.data[12..].iter().all(|p| p.value.0 == 0.0));
    }
}
