//! A list item as a table row: one [`Field`] per column, header and cell side
//! by side. Declared here, beside the writers, so the script commands and the
//! dashboard read one declaration of a list's columns (the members').

use serde::Serialize;
use serde_json::Value;
use time::OffsetDateTime;

use super::table::{self, Column};

/// One column of a list's table: its header, and how an item fills its cell.
pub struct Field<T> {
    pub column: Column,
    pub cell: fn(&T) -> String,
}

impl<T> Field<T> {
    /// A column kept whole: ids, enums, dates.
    pub const fn fixed(title: &'static str, cell: fn(&T) -> String) -> Self {
        Self {
            column: Column::fixed(title),
            cell,
        }
    }

    /// A right-aligned number.
    pub const fn number(title: &'static str, cell: fn(&T) -> String) -> Self {
        Self {
            column: Column::number(title),
            cell,
        }
    }

    /// Free text that gives way first, never below `min` cells.
    pub const fn text(title: &'static str, min: usize, cell: fn(&T) -> String) -> Self {
        Self {
            column: Column::text(title, min),
            cell,
        }
    }
}

/// An item of a list, as a table row: one [`Field`] per column, so a header
/// and its cell are written side by side and cannot drift apart.
pub trait Row: Serialize + Sized + 'static {
    const FIELDS: &'static [Field<Self>];

    fn columns() -> Vec<Column> {
        Self::FIELDS.iter().map(|field| field.column).collect()
    }

    fn cells(&self) -> Vec<String> {
        Self::FIELDS
            .iter()
            .map(|field| (field.cell)(self))
            .collect()
    }

    /// The full shape of fields that may be `null` or an object, so CSV
    /// columns never depend on which item comes first (see
    /// [`crate::formats::conform`]).
    fn csv_template() -> Option<Value> {
        None
    }
}

/// `items` as a table of their columns within `width`.
pub fn rows_table<T: Row>(items: &[T], width: usize) -> String {
    let rows: Vec<Vec<String>> = items.iter().map(Row::cells).collect();
    table::render(&T::columns(), &rows, width)
}

/// `2026-11-22 12:00` (UTC), or empty.
pub fn when(at: Option<OffsetDateTime>) -> String {
    at.map(crate::timefmt::date_time).unwrap_or_default()
}

/// `2026-11-22` (UTC), or empty.
pub fn day(at: Option<OffsetDateTime>) -> String {
    at.map(|at| crate::timefmt::utc(at, crate::timefmt::DATE))
        .unwrap_or_default()
}

/// A value the service may leave out, or empty.
pub fn or_empty<T: ToString>(value: Option<T>) -> String {
    value.map(|v| v.to_string()).unwrap_or_default()
}

/// `public`, `workspace`, `custom`, `yes` (audience unknown) or `no`.
pub fn published(is_published: bool, audience: Option<&impl ToString>) -> String {
    match (is_published, audience) {
        (false, _) => "no".into(),
        (true, Some(audience)) => audience.to_string(),
        (true, None) => "yes".into(),
    }
}
