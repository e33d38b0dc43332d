//! Marks (`space`) on a paged list: kept by each row's stable key.

use super::PageSource;
use super::PagedList;
use crate::api::model::{InventoryItem, MemberRef};
use crate::tui::action::Action;
use crate::tui::effect::Cx;
use crate::tui::widgets::thousands;

/// The glyph a marked row carries, and the blank an unmarked one does.
pub const MARK_GLYPH: &str = "◆";
pub const NO_MARK: &str = " ";

/// A row that can be marked: its stable key. Marks are kept by key, so they
/// survive a row removed above them and pages appended below. A list
/// screen's row declares it in the screen's file (`pii.rs`).
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
    pub fn handle_marks(&mut self, action: Action, cx: &mut Cx, pages: impl PageSource) -> bool {
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
                self.prefetch(cx, pages);
            }
            Action::ClearMarks => {
                // Said, so that an earlier "marked all N" does not outlive them.
                if !self.marks.is_empty() || !self.carried.is_empty() || self.marking_all {
                    cx.notify("marks cleared".into());
                }
                self.marks.clear();
                self.carried.clear();
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

    /// A new query of the same rows (a filter, a sort, a search): drops the
    /// rows as [`PagedList::reload`] does, but the marks go along, each one
    /// coming back as its row lands ([`PagedList::settle_marks`]).
    pub fn reload_keeping_marks(&mut self, cx: &mut Cx, pages: impl PageSource) {
        let mut carried = std::mem::take(&mut self.marks);
        carried.extend(std::mem::take(&mut self.carried));
        self.reload(cx, pages);
        self.carried = carried;
    }

    /// After a page landed: the carried marks whose rows it holds are marks
    /// again. The first page says how many came back; once the list is whole,
    /// the rest are dropped (their rows are no longer in the list), and that
    /// is said too, never silently.
    pub fn settle_marks(&mut self, first_page: bool, cx: &mut Cx) {
        if self.carried.is_empty() {
            return;
        }
        let found: Vec<String> = self
            .rows
            .iter()
            .map(|row| row.row_key())
            .filter(|key| self.carried.contains(*key))
            .map(str::to_owned)
            .collect();
        for key in found {
            self.carried.remove(&key);
            self.marks.insert(key);
        }
        let kept = thousands(self.marks.len() as i64);
        let waiting = self.carried.len();
        if !self.has_more {
            self.carried.clear();
            let dropped = crate::tui::widgets::count(waiting as i64, "mark");
            cx.notify(if waiting == 0 {
                format!("{kept} marked: every mark is still in the list")
            } else {
                format!("{kept} marked: {dropped} dropped, no longer in the list")
            });
        } else if first_page {
            let waiting = thousands(waiting as i64);
            cx.notify(format!(
                "{kept} marked; {waiting} more kept until their rows load"
            ));
        }
    }

    /// Forgets the mark of the row with `key` (a bulk change is done with it).
    pub fn unmark(&mut self, key: &str) {
        self.marks.remove(key);
    }
}
