//! Which tiles of the grid are on screen: those scrolled out of view are not
//! asked for, as a list builds only its visible rows (bottom's tables do the same).

use std::ops::Range;

use super::MonitorScreen;

/// The grid as last drawn: tiles per row, and rows that fit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct GridFit {
    pub columns: usize,
    pub rows: usize,
}

impl GridFit {
    /// The first row of tiles shown: the grid scrolls by whole rows so that
    /// the focused tile stays in view.
    pub fn first_row(self, cursor: usize) -> usize {
        (cursor / self.columns.max(1)).saturating_sub(self.rows.max(1) - 1)
    }
}

impl MonitorScreen {
    /// The lanes (indexes of [`Self::shown`]) on screen: all of them but for
    /// tiles of the grid scrolled out of view; all before the grid is drawn.
    pub(super) fn on_screen(&self, shown: usize) -> Range<usize> {
        match self.grid_fit.get() {
            Some(fit) if !self.watch.is_empty() && !self.zoom => {
                let first = fit.first_row(self.cursor) * fit.columns;
                first.min(shown)..(first + fit.rows * fit.columns).min(shown)
            }
            _ => 0..shown,
        }
    }
}
