//! What a list on screen and a resource's own screen need of a row's field,
//! beside its table column (`row.rs`'s [`super::row::Field`]): the dashboard's
//! list column (its name for `:columns` and saved views, title, width, how long
//! it stays on a narrow terminal, the sorts it shows) and the label of its
//! line among a resource's facts. The value is a [`Cell`], said without a
//! terminal's styles: the dashboard paints it.

use time::OffsetDateTime;

use crate::api::model::ReviewPriority;

/// A field's value as a screen shows it; the dashboard chooses the style.
#[derive(Debug, Clone, PartialEq)]
pub enum Cell {
    /// Text cut to the cell; `—` when the service did not say.
    Text(Option<String>),
    /// Text that matters less (an id): cut and dimmed.
    Quiet(String),
    /// A link: in a list cut as text, among facts shown in the accent colour;
    /// a fact whose link the service did not send is left out.
    Link(Option<String>),
    /// A count, right-aligned with thousands separators.
    Count(i64),
    /// Values listed with commas; `none` when there are none.
    Values(Vec<String>),
    /// How long ago (`3 h ago`); the word given when it never happened.
    Ago(Option<OffsetDateTime>, &'static str),
    /// A review priority, in its words and colour.
    Priority(ReviewPriority),
    /// Drawn by the screen from its own state (a name with its review mark,
    /// a count not yet known): never asked of the field.
    ByScreen,
}

impl Cell {
    /// The cell of a table's text: `—` when empty.
    pub fn of_text(text: String) -> Self {
        Self::Text((!text.is_empty()).then_some(text))
    }
}

/// How the dashboard lists a field: one column of its table.
pub struct Listed<T> {
    /// What `:columns` and saved views call it.
    pub name: &'static str,
    pub title: &'static str,
    /// Its width in cells (a name's is what the others leave).
    pub width: u16,
    /// How long it stays when the terminal is narrow: lower goes first; from
    /// [`Listed::STAYS`] it always stays.
    pub keep: u8,
    /// Columns of one family show one measure over different windows: a sort
    /// by one the table lacks turns a shown one of its family to it (0: none).
    pub family: u8,
    /// The values of the list's `sort_by` this column shows.
    pub sorts: &'static [&'static str],
    /// Its cell; `None`: the table cell's text ([`Cell::of_text`]).
    pub cell: Option<fn(&T) -> Cell>,
}

impl<T> Listed<T> {
    /// A column that stays from this `keep` on, whatever the width.
    pub const STAYS: u8 = 9;

    pub const fn new(name: &'static str, title: &'static str, width: u16, keep: u8) -> Self {
        Self {
            name,
            title,
            width,
            keep,
            family: 0,
            sorts: &[],
            cell: None,
        }
    }

    pub const fn family(self, family: u8) -> Self {
        Self { family, ..self }
    }

    pub const fn sorts(self, sorts: &'static [&'static str]) -> Self {
        Self { sorts, ..self }
    }

    pub const fn cell(self, cell: fn(&T) -> Cell) -> Self {
        Self {
            cell: Some(cell),
            ..self
        }
    }
}
