//! A project's traffic breakdowns as one list: a row per item of the four
//! lists (`countries`, `devices`, `pages`, `sources`), for the table and CSV
//! of `vantage traffic breakdowns`.

use serde::Serialize;

use super::row::{Field, Row};
use crate::api::model::Breakdowns;

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

/// The four lists as one, in the order above.
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
