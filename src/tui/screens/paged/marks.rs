//! Marks (`space`) on a paged list: kept by each row's stable key.

use super::ListOperation;
use super::PagedList;
use crate::api::model::{InventoryItem, MemberRef, PiiFinding};
use crate::tui::action::Action;
use crate::tui::effect::{Cx, ErrorInfo};
use crate::tui::request::Message;
use crate::tui::widgets::thousands;

/// The glyph a marked row carries, and the blank an unmarked one does.
pub const MARK_GLYPH: &str = "◆";
pub const NO_MARK: &str = " ";

/// A row that can be marked: its stable key. Marks are kept by key, so they
/// survive a row removed above them and pages appended below.
pub trait RowKey {
    fn row_key(&self) -> &str;
}

impl RowKey for InventoryItem {
    fn row_key(&self) -> &str {
        &self.id
    }
}

impl RowKey for MemberRef {
    fn row_key(&self) -> &str {
        &self.user_id
    }
}

impl RowKey for PiiFinding {
    fn row_key(&self) -> &str {
        &self.id
    }
}

impl<T: RowKey> PagedList<T> {
    /// The selected row's key: what `y` copies.
    pub fn selected_key(&self) -> Option<&str> {
        self.selected_row().map(RowKey::row_key)
    }

    pub fn is_marked(&self, row: &T) -> bool {
        self.marks.contains(row.row_key())
    }

    /// The glyph column's text for `row`.
    pub fn mark_glyph(&self, row: &T) -> &'static str {
        if self.is_marked(row) {
            MARK_GLYPH
        } else {
            NO_MARK
        }
    }

    /// The marked rows that are loaded, in list order.
    pub fn marked_rows(&self) -> Vec<&T> {
        self.rows.iter().filter(|row| self.is_marked(row)).collect()
    }

    /// `space` toggles the selected row's mark and moves on; `A` marks every
    /// row, loading the pages not loaded yet first (within the request budget,
    /// as `G`); `C` clears. False for any other action.
    pub fn handle_marks<O: ListOperation, M: Message>(
        &mut self,
        action: Action,
        cx: &mut Cx,
        request: impl FnOnce(Option<String>) -> O,
        message: fn(Result<O::Output, ErrorInfo>) -> M,
    ) -> bool {
        match action {
            Action::Mark => {
                let Some(key) = self.selected_row().map(|row| row.row_key().to_owned()) else {
                    return true;
                };
                if !self.marks.remove(&key) {
                    self.marks.insert(key);
                }
                self.select(self.selected + 1);
            }
            Action::MarkAll => {
                self.seek_stopped = None;
                self.marking_all = self.has_more;
                self.mark_loaded(cx);
                self.prefetch(cx, request, message);
            }
            Action::ClearMarks => {
                // Said, so that an earlier "marked all N" does not outlive them.
                if !self.marks.is_empty() || self.marking_all {
                    cx.notify("marks cleared".into());
                }
                self.marks.clear();
                self.marking_all = false;
            }
            _ => return false,
        }
        true
    }

    /// While `A` walks the pages: marks every row loaded so far (a page that
    /// lands calls it again); the walk ends with the pages, and says so.
    pub fn mark_loaded(&mut self, cx: &mut Cx) {
        let keys: Vec<String> = self
            .rows
            .iter()
            .map(|row| row.row_key().to_owned())
            .collect();
        self.marks.extend(keys);
        if self.marking_all && !self.has_more {
            self.marking_all = false;
            cx.notify(format!("marked all {}", thousands(self.marks.len() as i64)));
        }
    }

    /// Whether `A` is walking the pages to mark every row.
    pub fn is_marking_all(&self) -> bool {
        self.marking_all
    }

    /// Forgets the mark of the row with `key` (a bulk change is done with it).
    pub fn unmark(&mut self, key: &str) {
        self.marks.remove(key);
    }
}
