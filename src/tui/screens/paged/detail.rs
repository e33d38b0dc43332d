//! What a list screen with a detail pane under its rows does as every such
//! list does (the inventory, members, personal data; see `list_screen.rs`):
//! the rows, or what the list says while it has none; the pane shown while
//! there is room for it, `d` (and `enter`, where it opens nothing) showing or
//! hiding it, `y` copying the selected row's key.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::Line;

use super::{PagedList, RowKey, draw_placeholder};
use crate::tui::action::Action;
use crate::tui::effect::Cx;
use crate::tui::theme::Theme;

/// A screen this many rows high or more has room for the detail pane.
const ROOM_FOR_DETAIL: u16 = 18;

/// The detail pane under a list's rows: shown or hidden, and its height.
#[derive(Debug, Clone, Copy)]
pub struct DetailPane {
    shown: bool,
    height: u16,
}

impl DetailPane {
    /// A pane `height` rows high, shown.
    pub const fn new(height: u16) -> Self {
        Self {
            shown: true,
            height,
        }
    }

    /// Its height in a screen of `area`: its own while shown and there is
    /// room, else none.
    pub fn height_in(&self, area: Rect) -> u16 {
        if self.shown && area.height >= ROOM_FOR_DETAIL {
            self.height
        } else {
            0
        }
    }

    pub fn toggle(&mut self) {
        self.shown = !self.shown;
    }
}

impl<T: RowKey> PagedList<T> {
    /// The actions a list with a detail pane takes as every such list does:
    /// the pane shown or hidden, the selected row's key copied. False for
    /// any other action.
    pub fn row_action(&self, action: Action, detail: &mut DetailPane, cx: &mut Cx) -> bool {
        match action {
            Action::ToggleDetail | Action::Open => detail.toggle(),
            Action::Copy => cx.copy(self.selected_key()),
            _ => return false,
        }
        true
    }
}

impl<T> PagedList<T> {
    /// Draws the rows and the detail pane under them: while no row is
    /// loaded, what the list says instead where the rows go (the error,
    /// `loading`, or `empty`) and no pane; else the screen's `table`, and
    /// its `detail` where the pane has height.
    pub fn draw_rows(
        &self,
        frame: &mut Frame,
        [rows_area, detail_area]: [Rect; 2],
        (loading, empty): (&'static str, Line<'static>),
        theme: &Theme,
        table: impl FnOnce(&mut Frame, Rect),
        detail: impl FnOnce(&mut Frame, Rect),
    ) {
        if self.rows.is_empty() {
            let text = self.placeholder(theme, loading, empty);
            return draw_placeholder(frame, rows_area, text, theme);
        }
        table(frame, rows_area);
        if detail_area.height > 0 {
            detail(frame, detail_area);
        }
    }
}
