//! The member directory's sort and filter menus, and the line that sums up
//! the filters and the sort.

use super::{MemberFilter, MembersScreen, natural_order};
use crate::api::model::MemberSortBy;
use crate::tui::action::Action;
use crate::tui::effect::Cx;
use crate::tui::widgets::checklist::{CheckLine, check_lines, cycle_yes_no, toggle_value};
use crate::tui::widgets::list;
use crate::tui::widgets::menu::{Menu, MenuOutcome};

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

    /// Ticks or cycles one filter of the menu, and loads the list anew.
    pub(super) fn toggle_filter(&mut self, filter: MemberFilter, cx: &mut Cx) {
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
        self.sort_menu = Some(Menu::new("Sort members by", items, selected));
    }

    pub(super) fn handle_sort_menu(&mut self, action: Action, cx: &mut Cx) {
        let Some(menu) = &mut self.sort_menu else {
            return;
        };
        let choice = match menu.handle(action) {
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
