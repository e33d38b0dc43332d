//! What the project screen offers: its one list of actions, the write
//! actions from one table, disabled while this session may not write.

use super::{ProjectScreen, WriteAccess};
use crate::tui::action::Action;
use crate::tui::screens::actions::{ScreenAction, copy_project_id};

/// A write action: the action, its footer word, its help line.
type WriteAction = (Action, &'static str, &'static str);

/// The write actions, in the order the footer lists them. The footer's
/// words are short so that every one fits at 120 columns; the help (`?`)
/// spells each out.
const WRITE_ACTIONS: &[WriteAction] = &[
    (Action::Rename, "rename", "rename the project"),
    (
        Action::Visibility,
        "vis",
        "visibility: who may open it in the editor",
    ),
    (
        Action::Publish,
        "pub",
        "publish, then follow the deployment",
    ),
    (
        Action::Unpublish,
        "unpub",
        "unpublish: take the published app offline",
    ),
    (
        Action::Audience,
        "audience",
        "who may open the published app (shows what changes first)",
    ),
    (
        Action::EmbedUrl,
        "embed",
        "create an embed URL for one https origin, and copy it",
    ),
    (
        Action::Delete,
        "delete",
        "delete the project (type its name)",
    ),
];

impl ProjectScreen {
    /// What the screen offers now (the security part's, while it is open).
    pub(super) fn offered(&self) -> Vec<ScreenAction> {
        if let Some(part) = &self.security {
            return part.actions();
        }
        let mut actions = vec![
            ScreenAction::new(
                Action::Back,
                "back",
                "back to where the project was opened from",
            ),
            ScreenAction::help_only(Action::Down, "scroll the panes down"),
            ScreenAction::help_only(Action::Up, "scroll the panes up"),
            ScreenAction::help_only(Action::PageDown, "scroll a page down"),
            ScreenAction::help_only(Action::PageUp, "scroll a page up"),
            ScreenAction::new(Action::Scans, "scans", "security: scans and their findings"),
            ScreenAction::new(
                Action::Watch,
                "watch",
                "pin or unpin the project on the monitor's watch list",
            ),
        ];
        actions.extend(self.write_actions());
        actions.extend([
            copy_project_id(),
            ScreenAction::help_only(Action::Refresh, "read the project again"),
        ]);
        actions
    }

    /// The write actions, disabled (saying why) while the key lacks the
    /// scope; none in read-only mode, nor when the project failed to load
    /// (a 404 has nothing to change).
    pub(super) fn write_actions(&self) -> Vec<ScreenAction> {
        if self.failed_to_load() || self.access == WriteAccess::ReadOnly {
            return Vec::new();
        }
        let why = match self.access {
            WriteAccess::MissingScope(_) => self.refusal(),
            _ => None,
        };
        WRITE_ACTIONS
            .iter()
            .map(|(action, hint, does)| {
                ScreenAction::new(*action, hint, does).disabled(why.clone())
            })
            .collect()
    }

    /// The read of the project failed and nothing was read before.
    pub(super) fn failed_to_load(&self) -> bool {
        self.project.is_none() && self.error.is_some()
    }
}
