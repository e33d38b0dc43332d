//! The project screen's write actions as it offers them: one table,
//! disabled while this session may not write.

use super::{ProjectScreen, WriteAccess};
use crate::tui::action::Action;
use crate::tui::screens::actions::ScreenAction;

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
