//! How a scan's findings are picked and ordered: by severity, the most severe
//! first (the contract's `error`, `warn`, `info`; a level it may add later
//! last), never alphabetically; `t` opens a menu that ticks several levels and
//! statuses at once; `/` searches the findings' names, categories, scanners and
//! ids, as `/` searches on every other list.

use std::cmp::Reverse;

use crossterm::event::{KeyCode, KeyEvent};

use super::SecurityPart;
use crate::api::model::{FindingLevel, FindingStatus, ScanFinding};
use crate::tui::action::Action;
use crate::tui::effect::Cx;
use crate::tui::widgets::checklist::{self, CheckLine, CheckMenu, check_lines, toggle_value};
use crate::tui::widgets::input::TextField;

/// A line of the findings' filter menu.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FindingFilter {
    Level(FindingLevel),
    Status(FindingStatus),
}

/// How severe a level is: higher is more severe; an unknown level least.
pub fn severity(level: &FindingLevel) -> u8 {
    match level {
        FindingLevel::Error => 3,
        FindingLevel::Warn => 2,
        FindingLevel::Info => 1,
        FindingLevel::Unknown(_) => 0,
    }
}

/// Orders `findings` by severity, the most severe first; findings of one
/// level keep the service's order.
pub fn by_severity(findings: &mut [ScanFinding]) {
    findings.sort_by_key(|finding| Reverse(severity(&finding.level)));
}

impl SecurityPart {
    /// The filter menu's lines, ticked as the filters stand.
    fn filter_lines(&self) -> Vec<CheckLine<FindingFilter>> {
        let mut lines = check_lines("level", &self.filter.levels, FindingFilter::Level);
        lines.extend(check_lines(
            "status",
            &self.filter.statuses,
            FindingFilter::Status,
        ));
        lines
    }

    /// `t`: the filter menu, over the findings.
    pub(super) fn open_filter_menu(&mut self) {
        self.filter_menu = Some(CheckMenu::new("Findings: filters", self.filter_lines()));
    }

    /// An action while the filter menu is open: a line toggled loads the
    /// findings anew. True while the menu takes the action.
    pub(super) fn filter_menu_action(&mut self, action: Action, cx: &mut Cx) -> bool {
        if self.filter_menu.is_none() {
            return false;
        }
        if let Some(filter) = checklist::choose(&mut self.filter_menu, action) {
            match &filter {
                FindingFilter::Level(level) => toggle_value(&mut self.filter.levels, level),
                FindingFilter::Status(status) => toggle_value(&mut self.filter.statuses, status),
            }
            let lines = self.filter_lines();
            if let Some(menu) = &mut self.filter_menu {
                menu.update(lines);
            }
            self.refilter(cx);
        }
        true
    }

    /// `/`: the search field, on the search in use.
    pub(super) fn open_search(&mut self) {
        self.search_field = Some(TextField::new(self.filter.search.clone()));
    }

    /// Whether a menu or the search field takes the keys.
    pub fn captures_keys(&self) -> bool {
        self.filter_menu.is_some() || self.search_field.is_some()
    }

    /// A key while the search field is open: enter searches, esc puts the
    /// search back as it was. False when the field is closed.
    pub fn handle_text_key(&mut self, key: &KeyEvent, cx: &mut Cx) -> bool {
        let Some(field) = &mut self.search_field else {
            return false;
        };
        match key.code {
            KeyCode::Esc => self.search_field = None,
            KeyCode::Enter => {
                self.filter.search = field.value().trim().to_owned();
                self.search_field = None;
                self.refilter(cx);
            }
            _ => {
                field.handle_key(key);
            }
        }
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn severity_orders_error_warn_info_then_unknown() {
        let mut levels = vec![
            FindingLevel::Info,
            FindingLevel::Unknown("notice".into()),
            FindingLevel::Error,
            FindingLevel::Warn,
        ];
        levels.sort_by_key(|level| Reverse(severity(level)));
        assert_eq!(
            levels,
            [
                FindingLevel::Error,
                FindingLevel::Warn,
                FindingLevel::Info,
                FindingLevel::Unknown("notice".into())
            ]
        );
    }
}
