//! The review history's lists as tables: a snapshot diff's changes, the
//! snapshots, the reviewed marks and the review log. `vantage changes`,
//! `snapshot list` and `reviewed list|log` write their tables from these
//! declarations; the dashboard's Changes export writes the same CSV.

use serde_json::Value;

use super::row::{Field, Row, when};
use crate::history::{Change, ReviewEntry, ReviewMark, SnapshotInfo, shown_reviewer};

impl Row for Change {
    const FIELDS: &'static [Field<Self>] = &[
        Field::fixed("KIND", |change| change.kind.to_string()),
        Field::fixed("ID", |change| change.id.clone()),
        Field::text("NAME", 8, |change| {
            change.name.clone().unwrap_or_else(|| NULL_CELL.into())
        }),
        Field::text("BEFORE", 6, |change| value_cell(&change.before)),
        Field::text("AFTER", 6, |change| value_cell(&change.after)),
    ];
}

/// A null in the table, as the dashboard's Changes screen shows it: a blank
/// would read as "empty", and a missing value is not one.
const NULL_CELL: &str = "—";

/// A before/after value as a cell: text as is, lists joined, null a dash.
fn value_cell(value: &Value) -> String {
    match value {
        Value::Null => NULL_CELL.into(),
        Value::String(text) => text.clone(),
        Value::Array(items) => items.iter().map(value_cell).collect::<Vec<_>>().join(", "),
        other => other.to_string(),
    }
}

impl Row for SnapshotInfo {
    const FIELDS: &'static [Field<Self>] = &[
        Field::number("ID", |info| info.id.to_string()),
        Field::fixed("TAKEN AT (UTC)", |info| when(Some(info.taken_at))),
        Field::number("PROJECTS", |info| info.projects.to_string()),
        Field::number("MEMBERS", |info| info.members.to_string()),
    ];
}

impl Row for ReviewMark {
    const FIELDS: &'static [Field<Self>] = &[
        Field::fixed("PROJECT", |mark| mark.project_id.clone()),
        Field::text("NAME", 8, |mark| mark.name.clone().unwrap_or_default()),
        Field::fixed("MARKED AT (UTC)", |mark| when(Some(mark.marked_at))),
        Field::text("BY", 4, |mark| {
            shown_reviewer(mark.reviewer.as_deref(), mark.display_name.as_deref())
        }),
        Field::text("SINCE", 12, |mark| match mark.changed_since_review {
            Some(false) => format!("✓ {}", mark.since_review()),
            _ => mark.since_review(),
        }),
        Field::text("NOTE", 6, |mark| mark.note.clone().unwrap_or_default()),
    ];
}

impl Row for ReviewEntry {
    const FIELDS: &'static [Field<Self>] = &[
        Field::fixed("ID", |event| event.id.to_string()),
        Field::fixed("AT (UTC)", |event| when(Some(event.at))),
        Field::fixed("ACTION", |event| event.action.as_str().to_owned()),
        Field::text("BY", 4, |event| {
            shown_reviewer(event.reviewer.as_deref(), event.display_name.as_deref())
        }),
        Field::fixed("PROJECT", |event| event.project_id.clone()),
        // A waiver's policy and end; its reason is the note.
        Field::text("WAIVES", 6, |event| match (&event.policy_id, event.until) {
            (Some(policy), Some(until)) => format!("{policy} until {}", when(Some(until))),
            _ => String::new(),
        }),
        Field::text("NOTE", 6, |event| event.note.clone().unwrap_or_default()),
    ];
}
