//! The member directory's sort and filter menus, and the line that sums up
//! the filters and the sort.

use super::{MembersScreen, MenuKind, natural_order};
use crate::api::model::{MemberSortBy, Role};
use crate::text::sanitize_line;
use crate::tui::action::Action;
use crate::tui::effect::Cx;
use crate::tui::widgets::list;
use crate::tui::widgets::menu::{self, Menu};

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

    fn toggle_lines(&self) -> Vec<String> {
        let mut lines: Vec<String> = Role::KNOWN
            .iter()
            .map(|role| {
                let mark = if self.roles.contains(role) { "x" } else { " " };
                format!("[{mark}] role {}", role.as_str())
            })
            .collect();
        lines.push(format!(
            "SCIM managed: {}",
            match self.scim_managed {
                None => "any",
                Some(true) => "yes",
                Some(false) => "no",
            }
        ));
        lines
    }

    pub(super) fn open_menu(&mut self, kind: MenuKind) {
        let menu = match kind {
            MenuKind::Sort => {
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
                Menu::new("Sort members by", items, selected)
            }
            MenuKind::Toggles => Menu::new("Filters (enter toggles)", self.toggle_lines(), 0),
        };
        self.menu = Some((kind, menu));
    }

    pub(super) fn handle_menu_action(&mut self, action: Action, cx: &mut Cx) {
        let Some((kind, choice)) = menu::choose(&mut self.menu, action) else {
            return;
        };
        match kind {
            MenuKind::Sort => {
                self.menu = None;
                if let Some(sort_by) = self.sort_choices().get(choice) {
                    if *sort_by != self.sort_by {
                        // A new sort starts in its natural direction: names A to Z,
                        // times and counts newest or largest first.
                        self.sort_order = natural_order(sort_by.as_ref());
                    }
                    self.sort_by = sort_by.clone();
                    self.reload(cx);
                }
            }
            MenuKind::Toggles => {
                match Role::KNOWN.get(choice) {
                    Some(role) => {
                        if let Some(at) = self.roles.iter().position(|r| r == role) {
                            self.roles.remove(at);
                        } else {
                            self.roles.push(role.clone());
                        }
                    }
                    None => {
                        self.scim_managed = match self.scim_managed {
                            None => Some(true),
                            Some(true) => Some(false),
                            Some(false) => None,
                        }
                    }
                }
                let lines = self.toggle_lines();
                if let Some((_, menu)) = &mut self.menu {
                    menu.items = lines;
                }
                self.reload(cx);
            }
        }
    }

    /// The filters and sort in words.
    pub fn filter_summary(&self) -> String {
        let mut parts = Vec::new();
        if !self.search.trim().is_empty() {
            parts.push(format!("search \"{}\"", sanitize_line(self.search.trim())));
        }
        if !self.roles.is_empty() {
            let roles: Vec<&str> = self.roles.iter().map(Role::as_str).collect();
            parts.push(format!("role {}", roles.join("|")));
        }
        match self.scim_managed {
            Some(true) => parts.push("SCIM managed".into()),
            Some(false) => parts.push("not SCIM managed".into()),
            None => {}
        }
        list::filter_summary(
            &parts,
            self.sort_by.as_ref().map(|by| by.as_str()),
            &self.sort_order,
        )
    }
}
