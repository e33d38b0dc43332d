//! What a key means, independent of which key it is.

use super::registry::Tab;

/// Declares [`Action`] with each variant's name in the config file's `[keys]`
/// table beside it: the one list that `ALL`, `name` and `from_name` read.
macro_rules! actions {
    ($($(#[$doc:meta])* $variant:ident = $name:literal,)+) => {
        /// Every command the dashboard understands. Keys map to these (see `keymap.rs`).
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum Action {
            $($(#[$doc])* $variant,)+
            /// Show a screen: its tab key (`1`…, named `tab1`… by position).
            ShowTab(Tab),
        }

        /// The actions that are not a tab's, in the order declared.
        const PLAIN: &[Action] = &[$(Action::$variant),+];

        impl Action {
            /// The name used in the config file's `[keys]` table.
            pub fn name(self) -> &'static str {
                match self {
                    $(Action::$variant => $name,)+
                    Action::ShowTab(tab) => tab.key_name(),
                }
            }
        }
    };
}

actions! {
    Quit = "quit",
    Back = "back",
    Help = "help",
    ErrorLog = "error_log",
    NextTab = "next_tab",
    PrevTab = "prev_tab",
    Up = "up",
    Down = "down",
    Top = "top",
    Bottom = "bottom",
    PageUp = "page_up",
    PageDown = "page_down",
    Open = "open",
    Filter = "filter",
    Sort = "sort",
    ReverseSort = "reverse_sort",
    Refresh = "refresh",
    Copy = "copy",
    Export = "export",
    ToggleDetail = "toggle_detail",
    /// Open the project's security scans.
    Scans = "scans",
    /// Cycle the review-priority filter.
    PriorityFilter = "priority_filter",
    /// Open the filter toggles menu.
    Toggles = "toggles",
    ClearFilters = "clear_filters",
    /// Rename the project.
    Rename = "rename",
    /// Change who may open the project in the editor.
    Visibility = "visibility",
    Unpublish = "unpublish",
    Publish = "publish",
    /// Delete the project (asks for its name).
    Delete = "delete",
    /// Freeze or unfreeze the live monitor.
    Freeze = "freeze",
    /// Pin or unpin the selected project on the monitor's watch list.
    Watch = "watch",
    /// Choose the date range of the analytics.
    Range = "range",
    /// Pick another context (named connection) of the config file.
    Contexts = "contexts",
    /// Edit who may open the published app (public, workspace, custom).
    Audience = "audience",
    /// Create an embed URL for one https origin.
    EmbedUrl = "embed_url",
    /// Open the command palette.
    Palette = "palette",
    /// Mark or unmark the selected row (and move on).
    Mark = "mark",
    /// Mark every loaded row.
    MarkAll = "mark_all",
    /// Clear every mark.
    ClearMarks = "clear_marks",
    /// Back to the previous screen or project.
    NavBack = "nav_back",
    /// Forward again after going back.
    NavForward = "nav_forward",
    MarkReviewed = "mark_reviewed",
    ReviewFilter = "review_filter",
}

impl Action {
    /// Every action, for help screens and config validation: the tab keys
    /// after the others, one per screen of the registry.
    pub fn all() -> impl Iterator<Item = Action> {
        PLAIN
            .iter()
            .copied()
            .chain(Tab::ALL.iter().map(|tab| Action::ShowTab(*tab)))
    }

    pub fn from_name(name: &str) -> Option<Action> {
        Action::all().find(|action| action.name() == name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_and_read_back() {
        let names: Vec<&str> = Action::all().map(Action::name).collect();
        for (index, name) in names.iter().enumerate() {
            assert!(!names[..index].contains(name), "{name} twice");
            assert_eq!(Action::from_name(name).map(Action::name), Some(*name));
        }
        // The tab keys users wrote keep their names.
        assert_eq!(
            Action::from_name("tab7"),
            Some(Action::ShowTab(Tab::Changes))
        );
        assert_eq!(Action::ToggleDetail.name(), "toggle_detail");
    }
}
