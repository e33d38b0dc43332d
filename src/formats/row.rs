//! A list item as a table row: one [`Field`] per column, header and cell side
//! by side. Declared here, beside the writers, so the script commands and the
//! dashboard read one declaration of a list's columns: the command's table,
//! the dashboard's list columns and `:columns` ([`Listed`]), and a resource
//! screen's facts ([`Fact`]).

use serde::Serialize;
use serde_json::Value;
use time::OffsetDateTime;

use super::listed::{Cell, Listed};
use super::table::{self, Column};

/// One field of a list's item: its table column (header, and how an item
/// fills its cell), and where the dashboard shows it.
pub struct Field<T> {
    pub column: Column,
    pub cell: fn(&T) -> String,
    /// Whether the command's table shows it (`false`: only the dashboard does).
    pub in_table: bool,
    /// Its column among the dashboard's list columns, `:columns` offers it.
    pub listed: Option<Listed<T>>,
    /// Its line among the resource screen's facts.
    pub fact: Option<Fact<T>>,
}

/// A field's line among a resource screen's facts (the project screen's).
pub struct Fact<T> {
    pub label: &'static str,
    /// Its value; `None`: as its list column shows it, else the table's text.
    pub value: Option<fn(&T) -> Cell>,
}

impl<T> Field<T> {
    /// A column of `column`'s kind, filled by `cell`.
    pub const fn new(column: Column, cell: fn(&T) -> String) -> Self {
        Self {
            column,
            cell,
            in_table: true,
            listed: None,
            fact: None,
        }
    }

    /// A column kept whole: ids, enums, dates.
    pub const fn fixed(title: &'static str, cell: fn(&T) -> String) -> Self {
        Self::new(Column::fixed(title), cell)
    }

    /// A right-aligned number.
    pub const fn number(title: &'static str, cell: fn(&T) -> String) -> Self {
        Self::new(Column::number(title), cell)
    }

    /// Free text that gives way first, never below `min` cells.
    pub const fn text(title: &'static str, min: usize, cell: fn(&T) -> String) -> Self {
        Self::new(Column::text(title, min), cell)
    }

    /// The command's table leaves it out: only the dashboard shows it.
    pub const fn off_table(self) -> Self {
        Self {
            in_table: false,
            ..self
        }
    }

    /// The dashboard lists it, as `listed` says.
    pub const fn listed(self, listed: Listed<T>) -> Self {
        Self {
            listed: Some(listed),
            ..self
        }
    }

    /// A line of the resource screen's facts, labelled `label`.
    pub const fn fact(self, label: &'static str) -> Self {
        Self {
            fact: Some(Fact { label, value: None }),
            ..self
        }
    }

    /// A line of the resource screen's facts with a value of its own.
    pub const fn fact_with(self, label: &'static str, value: fn(&T) -> Cell) -> Self {
        Self {
            fact: Some(Fact {
                label,
                value: Some(value),
            }),
            ..self
        }
    }

    /// Its value in the dashboard's list.
    pub fn list_cell(&self, item: &T) -> Cell {
        match self.listed.as_ref().and_then(|listed| listed.cell) {
            Some(cell) => cell(item),
            None => Cell::of_text((self.cell)(item)),
        }
    }

    /// Its fact's label and value, when it is one of the facts.
    pub fn fact_of(&self, item: &T) -> Option<(&'static str, Cell)> {
        let fact = self.fact.as_ref()?;
        let value = match fact.value {
            Some(value) => value(item),
            None => self.list_cell(item),
        };
        Some((fact.label, value))
    }
}

/// An item of a list, as a table row: one [`Field`] per column, so a header
/// and its cell are written side by side and cannot drift apart.
pub trait Row: Serialize + Sized + 'static {
    const FIELDS: &'static [Field<Self>];

    /// The command's table's columns.
    fn columns() -> Vec<Column> {
        Self::FIELDS
            .iter()
            .filter(|field| field.in_table)
            .map(|field| field.column)
            .collect()
    }

    /// The command's table's cells, in [`Row::columns`]' order.
    fn cells(&self) -> Vec<String> {
        Self::FIELDS
            .iter()
            .filter(|field| field.in_table)
            .map(|field| (field.cell)(self))
            .collect()
    }

    /// The full shape of fields that may be `null` or an object, so CSV
    /// columns never depend on which item comes first (see
    /// [`crate::formats::conform`]).
    fn csv_template() -> Option<Value> {
        None
    }

    /// The item's JSON text, when it is JSON text already (an item passed
    /// through as the service sent it): the JSON formats write it as it is,
    /// made inert, rather than serialize it.
    fn json_text(&self) -> Option<&str> {
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
