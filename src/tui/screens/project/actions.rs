//! The project screen's write actions as the footer and the help list them:
//! one table, labelled by whether this session may write.

use super::{ProjectScreen, WriteAccess};
use crate::tui::action::Action;

/// A write action: the action, its hint, its hint while disabled, its help line.
pub(super) type WriteAction = (Action, &'static str, &'static str, &'static str);

/// The write actions, in the order hints list them. The
/// hints are short so that every one fits the footer at 120 columns; the help
/// (`?`) spells each out.
const WRITE_ACTIONS: &[WriteAction] = &[
    (Action::Rename, "rename", "rename ✗", "rename the project"),
    (
        Action::Visibility,
        "vis",
        "vis ✗",
        "visibility: who may open it in the editor",
    ),
    (
        Action::Publish,
        "pub",
        "pub ✗",
        "publish, then follow the deployment",
    ),
    (
        Action::Unpublish,
        "unpub",
        "unpub ✗",
        "unpublish: take the published app offline",
    ),
    (
        Action::Audience,
        "audience",
        "audience ✗",
        "who may open the published app (shows what changes first)",
    ),
    (
        Action::EmbedUrl,
        "embed",
        "embed ✗",
        "create an embed URL for one https origin, and copy it",
    ),
    (
        Action::Delete,
        "delete",
        "delete ✗",
        "delete the project (type its name)",
    ),
];

impl ProjectScreen {
    /// The write actions as hints or help lines, each labelled by `allowed`
    /// while writes are allowed and by `disabled` while the key lacks the
    /// scope; none in read-only mode, nor when the project failed to load
    /// (a 404 has nothing to change).
    pub(super) fn write_entries(
        &self,
        allowed: fn(&WriteAction) -> &'static str,
        disabled: fn(&WriteAction) -> &'static str,
    ) -> Vec<(Action, &'static str)> {
        if self.failed_to_load() {
            return Vec::new();
        }
        let label = match self.access {
            WriteAccess::ReadOnly => return Vec::new(),
            WriteAccess::Allowed => allowed,
            WriteAccess::MissingScope(_) => disabled,
        };
        WRITE_ACTIONS
            .iter()
            .map(|entry| (entry.0, label(entry)))
            .collect()
    }

    /// The read of the project failed and nothing was read before.
    pub(super) fn failed_to_load(&self) -> bool {
        self.project.is_none() && self.error.is_some()
    }
}
