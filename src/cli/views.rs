//! What each resource looks like as a table: its columns and cells. Cells are
//! raw strings here; `table::render` makes them visible and fits them.

use serde::Serialize;
use serde_json::Value;
use time::OffsetDateTime;

use super::print::{Field, Row, rows_table};
use crate::api::model::{
    Breakdowns, FindingType, Insights, InventoryItem, MemberRef, PiiFinding, Project, Realtime,
};
use crate::formats::flatten;
use crate::formats::table::{self, Column};

/// `2026-11-22 12:00` (UTC), or empty.
pub fn when(at: Option<OffsetDateTime>) -> String {
    at.map(crate::timefmt::date_time).unwrap_or_default()
}

/// `12:00:05` (UTC).
pub fn clock_time(at: OffsetDateTime) -> String {
    crate::timefmt::utc(at, crate::timefmt::CLOCK)
}

/// `2026-11-22` (UTC), or empty.
pub fn day(at: Option<OffsetDateTime>) -> String {
    at.map(|at| crate::timefmt::utc(at, crate::timefmt::DATE))
        .unwrap_or_default()
}

pub(super) fn or_empty<T: ToString>(value: Option<T>) -> String {
    value.map(|v| v.to_string()).unwrap_or_default()
}

/// Every field of one object, flattened, as FIELD / VALUE rows.
pub fn fields_table<T: Serialize>(value: &T, width: usize) -> String {
    let fields = serde_json::to_value(value)
        .map(|value| flatten(&value))
        .unwrap_or_default();
    table::render_fields(&fields, width)
}

/// The columns every shape of a project shows (a project read, a project
/// list item: their fields share names), then the one column given.
macro_rules! project_fields {
    ($last:expr) => {
        [
            Field::fixed("ID", |project| project.id.clone()),
            Field::text("NAME", 12, |project| or_empty(project.name.as_ref())),
            Field::fixed("PUBLISHED", |project| {
                published(project.is_published, project.publish_audience.as_ref())
            }),
            Field::fixed("VISIBILITY", |project| {
                or_empty(project.visibility.as_ref())
            }),
            Field::fixed("LAST EDITED", |project| when(project.last_edited_at)),
            $last,
        ]
    };
}
pub(super) use project_fields;

/// The inventory's table: the reason for the priority (`WHY`) gives way
/// first, then the owner; visibility and the last edit are left out before
/// a name is cut. A PII count the service did not send is blank, never 0.
impl Row for InventoryItem {
    const FIELDS: &'static [Field<Self>] = &[
        Field::fixed("ID", |item| item.id.clone()),
        Field {
            column: Column::text("NAME", 10).yielding(2),
            cell: |item| or_empty(item.name.as_ref()),
        },
        Field::fixed("PRIORITY", |item| item.review_priority.to_string()),
        Field::text("WHY", 8, priority_reason),
        Field::number("PII", |item| {
            or_empty(
                item.matched_reason
                    .as_ref()
                    .map(|reason| reason.values.open_pii_finding_count),
            )
        }),
        Field::fixed("PUBLISHED", |item| {
            published(item.is_published, item.publish_audience.as_ref())
        }),
        Field {
            column: Column::fixed("VISIBILITY").droppable(0),
            cell: |item| or_empty(item.visibility.as_ref()),
        },
        Field::number("EDITS 7D", |item| item.edits_7d.to_string()),
        Field::number("VISIT 7D", |item| item.visitors_7d.to_string()),
        Field {
            column: Column::text("OWNER", 8).yielding(1),
            cell: |item| or_empty(item.owner.display_name.as_ref()),
        },
        Field {
            column: Column::fixed("LAST EDIT").droppable(1),
            cell: |item| day(item.last_edited_at),
        },
    ];

    fn csv_template() -> Option<Value> {
        Some(crate::formats::inventory_item_template())
    }
}

/// Why the project has its priority: the reason the service matched, else
/// the first of its explanation.
fn priority_reason(item: &InventoryItem) -> String {
    item.matched_reason
        .as_ref()
        .map(|reason| reason.label.clone())
        .or_else(|| {
            item.review_priority_explanation
                .first()
                .map(|reason| reason.label.clone())
        })
        .unwrap_or_default()
}

/// `public`, `workspace`, `custom`, `yes` (audience unknown) or `no`.
pub(super) fn published(is_published: bool, audience: Option<&impl ToString>) -> String {
    match (is_published, audience) {
        (false, _) => "no".into(),
        (true, Some(audience)) => audience.to_string(),
        (true, None) => "yes".into(),
    }
}

impl Row for Project {
    const FIELDS: &'static [Field<Self>] =
        &project_fields![Field::text("PREVIEW URL", 12, |project| {
            or_empty(project.preview_url.as_ref())
        })];
}

/// The contract's list item as it is; `vantage members` draws its table from
/// `formats::members::MemberRow`, filled in.
impl Row for MemberRef {
    const FIELDS: &'static [Field<Self>] = &[
        Field::fixed("USER ID", |member| member.user_id.clone()),
        Field::fixed("TYPE", |member| member.kind.to_string()),
    ];
}

impl Row for PiiFinding {
    const FIELDS: &'static [Field<Self>] = &[
        Field::fixed("ID", |finding| finding.id.clone()),
        Field::fixed("FOUND AT", |finding| when(Some(finding.found_at))),
        Field::fixed("SOURCE", |finding| finding.source.to_string()),
        Field::fixed("STATUS", |finding| finding.status.to_string()),
        Field::text("QUOTE", 10, |finding| finding.quote.clone()),
    ];
}

impl Row for FindingType {
    const FIELDS: &'static [Field<Self>] = &[
        Field::fixed("PRIORITY", |finding| finding.review_priority.to_string()),
        Field::fixed("FINDING", |finding| finding.id.clone()),
        Field::fixed("CATEGORY", |finding| finding.category.clone()),
        Field::number("PROJECTS", |finding| finding.project_count.to_string()),
        Field::text("TITLE", 10, |finding| finding.title.clone()),
    ];
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

/// One row per item of the four lists: `{breakdown, label, visitors}`.
#[derive(Debug, Clone, Serialize)]
pub struct BreakdownRow {
    pub breakdown: &'static str,
    pub label: String,
    pub visitors: i64,
}

impl Row for BreakdownRow {
    const FIELDS: &'static [Field<Self>] = &[
        Field::fixed("BREAKDOWN", |row| row.breakdown.to_owned()),
        Field::text("LABEL", 10, |row| row.label.clone()),
        Field::number("VISITORS", |row| row.visitors.to_string()),
    ];
}

pub fn breakdown_rows(breakdowns: &Breakdowns) -> Vec<BreakdownRow> {
    [
        ("countries", &breakdowns.countries),
        ("devices", &breakdowns.devices),
        ("pages", &breakdowns.pages),
        ("sources", &breakdowns.sources),
    ]
    .into_iter()
    .flat_map(|(breakdown, items)| {
        items.iter().map(move |item| BreakdownRow {
            breakdown,
            label: item.label.clone(),
            visitors: item.visitors,
        })
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
