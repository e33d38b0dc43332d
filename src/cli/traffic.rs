//! `vantage analytics traffic`: a project's traffic over time, every `--format`.
//! JSON and JSONL keep the service's object; CSV has one row per bucket; the
//! table adds the totals over the range.

use clap::Args;
use serde::Serialize;
use time::OffsetDateTime;

use super::exit::CliError;
use super::options::{Format, OutputArgs, parse_instant, wire};
use super::print::{CsvRows, write_one};
use super::read::start_progress;
use crate::api::model::{Granularity, SeriesValue, Traffic};
use crate::formats::row::when;
use crate::formats::table::{self, Column};
use crate::session::Session;

#[derive(Args, Debug, Clone)]
pub struct TrafficArgs {
    pub project_id: String,
    /// First day: YYYY-MM-DD (UTC) or an RFC 3339 timestamp.
    #[arg(long, value_name = "DATE", value_parser = parse_instant)]
    pub from: OffsetDateTime,
    /// Last day (included): YYYY-MM-DD (UTC) or an RFC 3339 timestamp.
    #[arg(long, value_name = "DATE", value_parser = parse_instant)]
    pub to: OffsetDateTime,
    /// Bucket size: `day` (ranges up to 365 days) or `hour` (up to 31 days).
    #[arg(long, value_name = "SIZE", default_value = "day", value_parser = wire::<Granularity>())]
    pub granularity: Granularity,
    #[command(flatten)]
    pub output: OutputArgs,
}

pub async fn run(session: &Session, args: TrafficArgs) -> Result<(), CliError> {
    let output = args.output.resolve();
    let (progress, _task) = start_progress(session, "traffic", output);
    let traffic = session
        .client
        .get_traffic(&args.project_id, args.from, args.to, &args.granularity)
        .await?;
    progress.clear();
    if output.format == Format::Csv {
        let mut rows = CsvRows::new(output);
        for row in rows_of(&traffic) {
            rows.write(&row)?;
        }
        return Ok(());
    }
    write_one(&traffic, output, None, |width| {
        traffic_table(&traffic, width)
    })
}

/// One bucket of the five series, as a CSV row.
#[derive(Debug, Clone, Serialize)]
pub struct TrafficRow {
    pub timestamp: String,
    pub visitors: SeriesValue,
    pub pageviews: SeriesValue,
    pub pageviews_per_visit: SeriesValue,
    pub session_duration: SeriesValue,
    pub bounce_rate: SeriesValue,
}

/// The buckets, by the visitors series' timestamps; a series shorter than it
/// (a service that answers unevenly) reads as 0.
pub fn rows_of(traffic: &Traffic) -> Vec<TrafficRow> {
    let series = &traffic.time_series;
    let at = |points: &[crate::api::model::SeriesPoint], index: usize| {
        points.get(index).map(|p| p.value).unwrap_or_default()
    };
    series
        .visitors
        .data
        .iter()
        .enumerate()
        .map(|(index, point)| TrafficRow {
            timestamp: crate::api::model::format_timestamp(point.timestamp),
            visitors: point.value,
            pageviews: at(&series.pageviews.data, index),
            pageviews_per_visit: at(&series.pageviews_per_visit.data, index),
            session_duration: at(&series.session_duration.data, index),
            bounce_rate: at(&series.bounce_rate.data, index),
        })
        .collect()
}

/// A number as people read it: whole numbers plain, others to two decimals.
pub fn number(value: SeriesValue) -> String {
    if value.0.fract() == 0.0 {
        format!("{}", value.0 as i64)
    } else {
        format!("{:.2}", value.0)
    }
}

/// The totals as fields, then one row per bucket.
pub fn traffic_table(traffic: &Traffic, width: usize) -> String {
    let series = &traffic.time_series;
    let totals: Vec<(String, String)> = [
        (&series.visitors, ""),
        (&series.pageviews, ""),
        (&series.pageviews_per_visit, ""),
        (&series.session_duration, " s"),
        (&series.bounce_rate, " %"),
    ]
    .into_iter()
    .map(|(one, unit)| {
        (
            format!("{} (total)", one.label),
            format!("{}{unit}", number(one.total)),
        )
    })
    .collect();
    let rows: Vec<Vec<String>> = rows_of(traffic)
        .into_iter()
        .zip(&series.visitors.data)
        .map(|(row, point)| {
            vec![
                when(Some(point.timestamp)),
                number(row.visitors),
                number(row.pageviews),
                number(row.pageviews_per_visit),
                number(row.session_duration),
                number(row.bounce_rate),
            ]
        })
        .collect();
    let mut out = table::render_fields(&totals, width);
    out.push('\n');
    out.push_str(&table::render(
        &[
            Column::fixed("BUCKET (UTC)"),
            Column::number("VISITORS"),
            Column::number("PAGEVIEWS"),
            Column::number("PER VISIT"),
            Column::number("SESSION S"),
            Column::number("BOUNCE %"),
        ],
        &rows,
        width,
    ));
    out
}
