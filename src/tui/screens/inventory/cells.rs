//! The inventory table's cells that need only the item: each named in its
//! column's line of `COLUMNS` (`columns.rs`). The name (with its review mark)
//! and the open PII count (unknown until the service says) need the screen's
//! state: `view.rs` draws those two.

use ratatui::text::{Line, Span};
use ratatui::widgets::Cell as TableCell;
use time::OffsetDateTime;

use crate::api::model::{ActivityGroup, InventoryItem};
use crate::text::{fit, sanitize_line};
use crate::tui::theme::{Theme, priority_label};
use crate::tui::widgets::{ago, thousands};

/// What a cell is drawn with: the theme, its width and the time now.
pub struct CellView<'a> {
    pub theme: &'a Theme,
    pub width: usize,
    pub now: OffsetDateTime,
}

/// How a column's cell is drawn from an item.
pub type CellOf = fn(&InventoryItem, &CellView) -> TableCell<'static>;

/// The screen draws it (the name, the PII count): never called.
pub fn by_screen(_: &InventoryItem, _: &CellView) -> TableCell<'static> {
    TableCell::from("")
}

fn number(value: i64) -> TableCell<'static> {
    TableCell::from(Line::from(thousands(value)).right_aligned())
}

fn ago_or(at: Option<OffsetDateTime>, none: &str, cell: &CellView) -> TableCell<'static> {
    TableCell::from(match at {
        Some(at) => ago((cell.now - at).whole_seconds()),
        None => none.to_owned(),
    })
}

pub fn priority(item: &InventoryItem, cell: &CellView) -> TableCell<'static> {
    TableCell::from(Span::styled(
        priority_label(&item.review_priority),
        cell.theme.priority(&item.review_priority),
    ))
}

pub fn id(item: &InventoryItem, cell: &CellView) -> TableCell<'static> {
    TableCell::from(Span::styled(fit(&item.id, cell.width), cell.theme.dim))
}

/// Text cut to the cell, `—` when the service did not say.
pub fn text(value: Option<&str>, cell: &CellView) -> TableCell<'static> {
    TableCell::from(fit(value.unwrap_or("—"), cell.width))
}

pub fn audience(item: &InventoryItem, _: &CellView) -> TableCell<'static> {
    TableCell::from(audience_label(item))
}

pub fn activity(item: &InventoryItem, cell: &CellView) -> TableCell<'static> {
    TableCell::from(match &item.activity_group {
        ActivityGroup::Last14Days => "14 d".to_owned(),
        ActivityGroup::Last60Days => "60 d".to_owned(),
        ActivityGroup::Older => "older".to_owned(),
        ActivityGroup::Unknown(raw) => fit(raw, cell.width),
    })
}

pub fn last_edited(item: &InventoryItem, cell: &CellView) -> TableCell<'static> {
    ago_or(item.last_edited_at, "—", cell)
}

pub fn last_scan(item: &InventoryItem, cell: &CellView) -> TableCell<'static> {
    ago_or(item.last_security_scan_at, "never", cell)
}

pub fn edits_24h(item: &InventoryItem, _: &CellView) -> TableCell<'static> {
    number(item.edits_24h)
}

pub fn edits_7d(item: &InventoryItem, _: &CellView) -> TableCell<'static> {
    number(item.edits_7d)
}

pub fn edits_30d(item: &InventoryItem, _: &CellView) -> TableCell<'static> {
    number(item.edits_30d)
}

pub fn visitors_24h(item: &InventoryItem, _: &CellView) -> TableCell<'static> {
    number(item.visitors_24h)
}

pub fn visitors_7d(item: &InventoryItem, _: &CellView) -> TableCell<'static> {
    number(item.visitors_7d)
}

pub fn visitors_30d(item: &InventoryItem, _: &CellView) -> TableCell<'static> {
    number(item.visitors_30d)
}

pub(super) fn audience_label(item: &InventoryItem) -> String {
    match (&item.publish_audience, item.is_published) {
        (Some(audience), true) => sanitize_line(audience.as_str()).into_owned(),
        _ => "offline".to_owned(),
    }
}
