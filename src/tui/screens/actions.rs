//! What a screen offers, declared once (gitui's `commands()`): each action with
//! its footer word, its help line, and whether it may run now and why not. The
//! footer, the help and the App's key handling all read the one list; the key
//! shown is always the one bound (`Keymap::key_for`), never a letter in text.

use super::super::action::Action;
use super::super::nav::Tab;

/// One action a screen offers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScreenAction {
    pub action: Action,
    /// The footer's word for it; `None` keeps it to the help, and the footer
    /// then ends with `? more`.
    pub hint: Option<&'static str>,
    /// The help's line.
    pub does: &'static str,
    /// Why it cannot run now; `None` while it can. A disabled action is shown
    /// as such in the footer and the help, and its key says why.
    pub disabled: Option<String>,
}

impl ScreenAction {
    /// An action the help lists, and the footer shows as `hint`.
    pub fn new(action: Action, hint: &'static str, does: &'static str) -> Self {
        Self {
            action,
            hint: Some(hint),
            does,
            disabled: None,
        }
    }

    /// An action only the help lists (movement, copy): the footer says `? more`.
    pub fn help_only(action: Action, does: &'static str) -> Self {
        Self {
            action,
            hint: None,
            does,
            disabled: None,
        }
    }

    /// The footer shows it only while `shown`.
    pub fn hint_if(mut self, shown: bool) -> Self {
        if !shown {
            self.hint = None;
        }
        self
    }

    /// Disabled while `why` says so.
    pub fn disabled(mut self, why: Option<String>) -> Self {
        self.disabled = why;
        self
    }

    pub fn enabled(&self) -> bool {
        self.disabled.is_none()
    }
}

/// The words a list's movement keys are said in, in its help.
pub struct RowWords {
    pub next: &'static str,
    pub previous: &'static str,
    pub first: &'static str,
    pub last: &'static str,
}

/// A list's movement keys, for the help only.
pub fn movement(words: RowWords) -> Vec<ScreenAction> {
    vec![
        ScreenAction::help_only(Action::Down, words.next),
        ScreenAction::help_only(Action::Up, words.previous),
        ScreenAction::help_only(Action::PageDown, "page down"),
        ScreenAction::help_only(Action::PageUp, "page up"),
        ScreenAction::help_only(Action::Top, words.first),
        ScreenAction::help_only(Action::Bottom, words.last),
    ]
}

/// `y` where a project is shown (its screen, the inventory's row, a tab
/// about the project in focus): its id.
pub fn copy_project_id() -> ScreenAction {
    ScreenAction::help_only(Action::Copy, "copy the project id (OSC 52)")
}

/// The inventory's tab key on a tab about the project in focus: another
/// project is picked there.
pub fn pick_project() -> ScreenAction {
    ScreenAction::help_only(
        Action::ShowTab(Tab::Inventory),
        "pick the project in the inventory",
    )
}

/// The first of `actions` that offers `action`.
pub fn find(actions: &[ScreenAction], action: Action) -> Option<&ScreenAction> {
    actions.iter().find(|offered| offered.action == action)
}
