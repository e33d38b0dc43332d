//! The member directory's sort and filter menus, and the line that sums up
//! the filters and the sort.

use super::{MemberFilter, MembersScreen, natural_order};
use crate::api::model::{MemberSortBy, Role};
use crate::tui::action::Action;
use crate::tui::effect::Cx;
use crate::tui::screens::filtered::FilteredList;
use crossterm::event::KeyEvent;

use crate::tui::widgets::checklist::{
    CheckLine, CheckMenu, check_lines, cycle_yes_no, toggle_value,
};
use crate::tui::widgets::list;
use crate::tui::widgets::menu::{Menu, MenuOutcome};
use crate::tui::widgets::search::SearchBox;

/// The sort menu's hotkey of each line, fixed so the fingers learn them, as
/// the inventory's: `d` the default order, then each field by its word.
fn sort_hotkeys(choices: &[Option<MemberSortBy>]) -> Vec<Option<char>> {
    choices
        .iter()
        .map(|choice| match choice {
            None => Some('d'),
            Some(MemberSortBy::DisplayName) => Some('n'),
            Some(MemberSortBy::JoinedAt) => Some('J'),
            Some(MemberSortBy::Role) => Some('r'),
            Some(MemberSortBy::Relevance) => Some('b'),
            Some(MemberSortBy::Unknown(_)) => None,
        })
        .collect()
}

/// The filter menu's hotkey of each line: a role by its initial (`c` for
/// collaborator), `s` for SCIM.
pub(super) fn filter_hotkeys(filters: &[MemberFilter]) -> Vec<Option<char>> {
    filters
        .iter()
        .map(|filter| match filter {
            MemberFilter::Role(Role::Owner) => Some('o'),
            MemberFilter::Role(Role::Admin) => Some('a'),
            MemberFilter::Role(Role::Member) => Some('m'),
            MemberFilter::Role(Role::Collaborator) => Some('c'),
            MemberFilter::Role(Role::Viewer) => Some('v'),
            MemberFilter::Role(Role::Unknown(_)) => None,
            MemberFilter::Scim => Some('s'),
        })
        .collect()
}

impl MembersScreen {
    fn sort_choices(&self) -> Vec<Option<MemberSortBy>> {
        let mut choices = vec![None];
        choices.extend(
            MemberSortBy::KNOWN
                .iter()
                // Relevance ranks search matches: only offered with a search.
                .filter(|by| **by != MemberSortBy::Relevance || !self.search.trim().is_empty())
                .cloned()
                .map(Some),
        );
        choices
    }

    /// The filter menu's lines: a checkbox per role, then the SCIM filter.
    pub(super) fn filter_lines(&self) -> Vec<CheckLine<MemberFilter>> {
        let mut lines = check_lines("role", &self.roles, MemberFilter::Role);
        lines.push(CheckLine::yes_no(
            MemberFilter::Scim,
            "SCIM managed",
            self.scim_managed,
        ));
        lines
    }

    pub(super) fn open_sort_menu(&mut self) {
        let choices = self.sort_choices();
        let items = choices
            .iter()
            .map(|choice| match choice {
                None => "default (role, then newest; best match with a search)".to_owned(),
                Some(by) => by.as_str().to_owned(),
            })
            .collect();
        let selected = choices
            .iter()
            .position(|choice| *choice == self.sort_by)
            .unwrap_or(0);
        self.sort_menu = Some(
            Menu::new("Sort members by", items, selected).with_hotkeys(sort_hotkeys(&choices)),
        );
    }

    /// A key on an open menu before it is read as an action: its hotkeys
    /// and `/` to jump. Whether the key was taken.
    pub(super) fn menu_key(&mut self, key: &KeyEvent, cx: &mut Cx) -> bool {
        if let Some(menu) = &mut self.sort_menu {
            return match menu.key(key) {
                None => false,
                Some(outcome) => {
                    self.sort_menu_outcome(outcome, cx);
                    true
                }
            };
        }
        self.filter_key(key, cx)
    }

    fn sort_menu_outcome(&mut self, outcome: MenuOutcome, cx: &mut Cx) {
        let choice = match outcome {
            MenuOutcome::Open => return,
            MenuOutcome::Closed => None,
            MenuOutcome::Chosen(choice) => Some(choice),
        };
        self.sort_menu = None;
        if let Some(sort_by) = choice.and_then(|choice| self.sort_choices().get(choice).cloned()) {
            if sort_by != self.sort_by {
                // A new sort starts in its natural direction: names A to Z,
                // times and counts newest or largest first.
                self.sort_order = natural_order(sort_by.as_ref());
            }
            self.sort_by = sort_by;
            self.reload(cx);
        }
    }

    /// The filters and sort in words.
    pub fn filter_summary(&self) -> String {
        let parts: Vec<String> = [
            list::search_part(&self.search),
            list::any_of_part("role", &self.roles),
            list::yes_no_part(self.scim_managed, "SCIM managed", "not SCIM managed"),
        ]
        .into_iter()
        .flatten()
        .collect();
        list::filter_summary(
            &parts,
            self.sort_by.as_ref().map(|by| by.as_str()),
            &self.sort_order,
        )
    }
}

impl FilteredList for MembersScreen {
    type Filter = MemberFilter;

    fn search_box(&mut self) -> &mut SearchBox {
        &mut self.search_box
    }

    fn filters(&mut self) -> &mut Option<CheckMenu<MemberFilter>> {
        &mut self.filters
    }

    /// Ticks or cycles one filter of the menu, and loads the list anew.
    fn toggle_filter(&mut self, filter: MemberFilter, cx: &mut Cx) {
        match filter {
            MemberFilter::Role(role) => toggle_value(&mut self.roles, &role),
            MemberFilter::Scim => self.scim_managed = cycle_yes_no(self.scim_managed),
        }
        let lines = self.filter_lines();
        if let Some(menu) = &mut self.filters {
            menu.update(lines);
        }
        self.reload(cx);
    }

    /// Searches for `text`; the relevance sort goes with the search.
    fn set_search(&mut self, text: String) {
        self.search = text;
        if self.search.trim().is_empty() && self.sort_by == Some(MemberSortBy::Relevance) {
            self.sort_by = None;
        }
    }

    /// The sort menu's.
    fn menu_action(&mut self, action: Action, cx: &mut Cx) -> bool {
        let Some(menu) = &mut self.sort_menu else {
            return false;
        };
        let outcome = menu.handle(action);
        self.sort_menu_outcome(outcome, cx);
        true
    }

    fn reload(&mut self, cx: &mut Cx) {
        self.restart_roles();
        let pages = self.pages(cx);
        self.list.reload(cx, pages);
    }
}
