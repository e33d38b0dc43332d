//! A list screen searched through a [`SearchBox`] and filtered through a
//! checklist (the inventory, members): the box's keys edit the search, which
//! reloads the list once typing pauses; the checklist takes the keys and
//! actions while it is open, as the screen's own menu does before it. The
//! screen says what a search and a filter mean and how the list reloads.

use crossterm::event::KeyEvent;
use ratatui::layout::{Constraint, Layout, Rect};

use crate::tui::action::Action;
use crate::tui::effect::Cx;
use crate::tui::widgets::checklist::{self, CheckMenu};
use crate::tui::widgets::search::SearchBox;

pub trait FilteredList {
    /// What one line of the filter checklist stands for.
    type Filter: Clone;

    fn search_box(&mut self) -> &mut SearchBox;

    /// The filter checklist, while it is open.
    fn filters(&mut self) -> &mut Option<CheckMenu<Self::Filter>>;

    /// Ticks or cycles one filter of the checklist, and loads the list anew.
    fn toggle_filter(&mut self, filter: Self::Filter, cx: &mut Cx);

    /// Searches for `text`, by the screen's own rules (a relevance sort
    /// goes with the search).
    fn set_search(&mut self, text: String);

    /// Drops what is loaded and asks for the first page again.
    fn reload(&mut self, cx: &mut Cx);

    /// An action while the screen's own menu (its sort) is open: it is the
    /// menu's. False when the menu is closed.
    fn menu_action(&mut self, action: Action, cx: &mut Cx) -> bool;

    /// An action while the screen's menu or the checklist is open: it is
    /// theirs, and the list never sees it. False when both are closed.
    fn overlay_action(&mut self, action: Action, cx: &mut Cx) -> bool {
        self.menu_action(action, cx) || self.filter_action(action, cx)
    }

    /// A key for the open search box: what is typed becomes the search, which
    /// reloads the list when due. Whether the box took the key.
    fn search_key(&mut self, key: &KeyEvent, cx: &mut Cx) -> bool {
        let Some(edit) = self.search_box().handle_key(key, cx.now) else {
            return false;
        };
        if let Some(text) = edit.text {
            self.set_search(text);
        }
        if edit.reload {
            self.reload(cx);
        }
        true
    }

    /// On a wake: a typed search that is due reloads the list. Whether it did.
    fn search_due(&mut self, cx: &mut Cx) -> bool {
        let due = self.search_box().due(cx.now);
        if due {
            self.reload(cx);
        }
        due
    }

    /// A key on the open filter checklist (its hotkeys, `/`). Whether the
    /// checklist took it.
    fn filter_key(&mut self, key: &KeyEvent, cx: &mut Cx) -> bool {
        let Some(toggled) = checklist::choose_key(self.filters(), key) else {
            return false;
        };
        if let Some(filter) = toggled {
            self.toggle_filter(filter, cx);
        }
        true
    }

    /// An action while the filter checklist is open: it is the checklist's.
    /// False when the checklist is closed.
    fn filter_action(&mut self, action: Action, cx: &mut Cx) -> bool {
        if self.filters().is_none() {
            return false;
        }
        if let Some(filter) = checklist::choose(self.filters(), action) {
            self.toggle_filter(filter, cx);
        }
        true
    }
}

/// The areas of a filtered list screen, top to bottom: its head line, the
/// search box's line, `notes` lines under it (members say there what the
/// server does with short terms), the rows, and the detail pane,
/// `detail_height` high.
pub fn areas(area: Rect, notes: u16, detail_height: u16) -> [Rect; 5] {
    Layout::vertical([
        Constraint::Length(1),
        Constraint::Length(1),
        Constraint::Length(notes),
        Constraint::Min(3),
        Constraint::Length(detail_height),
    ])
    .areas(area)
}
