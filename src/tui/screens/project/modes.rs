//! What the project screen's mode tells the App and the tests: a write
//! pending, a rename, a confirm, a dialog or a menu open.

use super::{Mode, ProjectScreen, WriteKind};
use crate::tui::widgets::confirm::Confirm;

impl ProjectScreen {
    pub fn write_pending(&self) -> Option<WriteKind> {
        self.write.map(|(_, kind)| kind)
    }

    pub fn is_renaming(&self) -> bool {
        matches!(self.mode, Mode::Rename(_))
    }

    /// What is wrong with the name being typed: the contract's rule first, then
    /// the server's refusal.
    pub fn rename_error(&self) -> Option<String> {
        match &self.mode {
            Mode::Rename(rename) => rename.problem.clone().or_else(|| rename.refused.clone()),
            _ => None,
        }
    }

    pub fn confirm(&self) -> Option<&Confirm> {
        match &self.mode {
            Mode::Confirm(confirm, _) => Some(confirm),
            _ => None,
        }
    }

    /// The publish confirm, the audience editor or the embed prompt, when open.
    pub fn audience_dialog_open(&self) -> bool {
        matches!(
            self.mode,
            Mode::Publish(_) | Mode::Audience(_) | Mode::Embed(_)
        )
    }

    pub fn menu_open(&self) -> bool {
        matches!(self.mode, Mode::Visibility(_))
    }
}
