//! A field's value ([`Cell`], declared with the field in `formats`) painted
//! for the dashboard: as a list's table cell, or as the value of a fact line.

use ratatui::text::{Line, Span};
use ratatui::widgets::Cell as TableCell;
use time::OffsetDateTime;

use super::{ago, thousands};
use crate::formats::listed::Cell;
use crate::text::fit;
use crate::tui::theme::{Theme, priority_label};

/// What a cell is drawn with: the theme, its width and the time now.
pub struct CellView<'a> {
    pub theme: &'a Theme,
    pub width: usize,
    pub now: OffsetDateTime,
}

/// `cell` as a list's table cell.
pub fn table_cell(cell: Cell, view: &CellView) -> TableCell<'static> {
    match cell {
        Cell::Count(value) => TableCell::from(Line::from(thousands(value)).right_aligned()),
        other => TableCell::from(span(other, view)),
    }
}

/// `cell` as a fact's value; `None` for a link the service did not send
/// (its line is left out).
pub fn fact_value(cell: Cell, view: &CellView) -> Option<Span<'static>> {
    match cell {
        Cell::Link(None) => None,
        Cell::Link(Some(url)) => Some(Span::styled(fit(&url, view.width), view.theme.accent)),
        other => Some(span(other, view)),
    }
}

fn span(cell: Cell, view: &CellView) -> Span<'static> {
    let theme = view.theme;
    match cell {
        Cell::Text(text) | Cell::Link(text) => {
            Span::raw(fit(text.as_deref().unwrap_or("—"), view.width))
        }
        Cell::Quiet(text) => Span::styled(fit(&text, view.width), theme.dim),
        Cell::Count(value) => Span::raw(thousands(value)),
        Cell::Values(values) if values.is_empty() => Span::raw("none"),
        Cell::Values(values) => Span::raw(fit(&values.join(", "), view.width)),
        Cell::Ago(at, never) => Span::raw(match at {
            Some(at) => ago((view.now - at).whole_seconds()),
            None => never.to_owned(),
        }),
        Cell::Priority(priority) => {
            Span::styled(priority_label(&priority), theme.priority(&priority))
        }
        Cell::ByScreen => Span::raw(""),
    }
}
