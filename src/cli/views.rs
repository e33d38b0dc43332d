//! The command's views that are not a list's rows (those are declared once in
//! `crate::formats`): one object's fields, the insights' summary, the
//! realtime chart and the traffic breakdowns.

use serde::Serialize;
use time::OffsetDateTime;

use crate::api::model::{Breakdowns, Insights, Realtime};
use crate::formats::flatten;
use crate::formats::row::rows_table;
use crate::formats::table::{self, Column};

use crate::formats::row::when;
use crate::formats::traffic::breakdown_rows;

/// `12:00:05` (UTC).
pub fn clock_time(at: OffsetDateTime) -> String {
    crate::timefmt::utc(at, crate::timefmt::CLOCK)
}

/// Every field of one object, flattened, as FIELD / VALUE rows.
pub fn fields_table<T: Serialize>(value: &T, width: usize) -> String {
    let fields = serde_json::to_value(value)
        .map(|value| flatten(&value))
        .unwrap_or_default();
    table::render_fields(&fields, width)
}

/// The summary metrics, then the finding types.
pub fn insights_table(insights: &Insights, width: usize) -> String {
    let summary = &insights.summary;
    let metric = |name: &str, m: &crate::api::model::Metric| {
        vec![
            name.to_owned(),
            m.value.to_string(),
            format!("{:+}", m.delta_30d),
            m.delta_window.clone(),
        ]
    };
    let risk = &summary.risk;
    let mut out = format!("as of {}\n\n", or_dash(when(insights.as_of)));
    out.push_str(&table::render(
        &[
            Column::fixed("SUMMARY"),
            Column::number("VALUE"),
            Column::number("CHANGE"),
            Column::text("WINDOW", 8),
        ],
        &[
            metric("total projects", &summary.total_projects),
            metric("externally published", &summary.externally_published),
            metric("workspace members", &summary.workspace_members),
            vec!["needs review".into(), risk.needs_review.to_string()],
            vec![
                "review recommended".into(),
                risk.review_recommended.to_string(),
            ],
            vec!["no review needed".into(), risk.no_review_needed.to_string()],
        ],
        width,
    ));
    out.push('\n');
    out.push_str(&rows_table(&insights.findings, width));
    out
}

fn or_dash(text: String) -> String {
    if text.is_empty() { "-".into() } else { text }
}

/// Current visitors and a one-line chart of the last 30 minutes.
pub fn realtime_table(realtime: &Realtime, width: usize) -> String {
    let peak = peak(realtime);
    let first = realtime.buckets.first().map(|b| b.timestamp);
    let last = realtime.buckets.last().map(|b| b.timestamp);
    let window = match (first, last) {
        (Some(first), Some(last)) => format!("{} to {} UTC", when(Some(first)), when(Some(last))),
        _ => "-".into(),
    };
    let total: i64 = realtime.buckets.iter().map(|b| b.visitors).sum();
    let fields = [
        (
            "current visitors (5 min)".to_owned(),
            realtime.current_visitors.to_string(),
        ),
        (
            "per minute".to_owned(),
            format!("{} peak {peak}", sparkline(realtime)),
        ),
        ("visitors (30 min)".to_owned(), total.to_string()),
        ("window".to_owned(), window),
    ];
    table::render_fields(&fields, width)
}

/// The most visitors of one bucket (0 without buckets).
fn peak(realtime: &Realtime) -> i64 {
    realtime
        .buckets
        .iter()
        .map(|b| b.visitors)
        .max()
        .unwrap_or(0)
}

/// One block per bucket, scaled to the peak.
fn sparkline(realtime: &Realtime) -> String {
    const BLOCKS: [char; 8] = ['▁', '▂', '▃', '▄', '▅', '▆', '▇', '█'];
    let peak = peak(realtime);
    realtime
        .buckets
        .iter()
        .map(|bucket| {
            if peak <= 0 || bucket.visitors <= 0 {
                BLOCKS[0]
            } else {
                let level = (bucket.visitors * 7 + peak - 1) / peak;
                BLOCKS[level.clamp(0, 7) as usize]
            }
        })
        .collect()
}

pub fn breakdowns_table(breakdowns: &Breakdowns, width: usize) -> String {
    rows_table(&breakdown_rows(breakdowns), width)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::model::VisitorBucket;
    use time::macros::datetime;

    #[test]
    fn sparkline_scales_to_the_peak() {
        let at = datetime!(2026-11-22 12:00 UTC);
        let realtime = Realtime {
            buckets: [0, 1, 4, 8]
                .into_iter()
                .map(|visitors| VisitorBucket {
                    timestamp: at,
                    visitors,
                })
                .collect(),
            current_visitors: 3,
        };
        assert_eq!(sparkline(&realtime), "▁▂▅█");
    }
}
