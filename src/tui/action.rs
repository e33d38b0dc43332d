//! What a key means, independent of which key it is.

use serde::{Deserialize, Serialize};

/// Every command the dashboard understands. Keys map to these (see `keymap.rs`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Action {
    Quit,
    Back,
    Help,
    ErrorLog,
    NextTab,
    PrevTab,
    Tab1,
    Tab2,
    Tab3,
    Tab4,
    Tab5,
    Tab6,
    Tab7,
    Up,
    Down,
    Top,
    Bottom,
    PageUp,
    PageDown,
    Open,
    Filter,
    Sort,
    ReverseSort,
    Refresh,
    Copy,
    Export,
    ToggleDetail,
    /// Cycle the review-priority filter.
    PriorityFilter,
    /// Open the filter toggles menu.
    Toggles,
    ClearFilters,
    /// Rename the project.
    Rename,
    /// Change who may open the project in the editor.
    Visibility,
    Unpublish,
    Publish,
    /// Delete the project (asks for its name).
    Delete,
    /// Freeze or unfreeze the live monitor.
    Freeze,
    /// Pin or unpin the selected project on the monitor's watch list.
    Watch,
    /// Choose the date range of the analytics.
    Range,
    /// Pick another context (named connection) of the config file.
    Contexts,
    /// Edit who may open the published app (public, workspace, custom).
    Audience,
    /// Create an embed URL for one https origin.
    EmbedUrl,
    /// Open the command palette.
    Palette,
    /// Mark or unmark the selected row (and move on).
    Mark,
    /// Mark every loaded row.
    MarkAll,
    /// Clear every mark.
    ClearMarks,
    /// Back to the previous screen or project.
    NavBack,
    /// Forward again after going back.
    NavForward,
    MarkReviewed,
    ReviewFilter,
}

impl Action {
    /// Every action, for help screens and config validation.
    pub const ALL: &'static [Action] = &[
        Action::Quit,
        Action::Back,
        Action::Help,
        Action::ErrorLog,
        Action::NextTab,
        Action::PrevTab,
        Action::Tab1,
        Action::Tab2,
        Action::Tab3,
        Action::Tab4,
        Action::Tab5,
        Action::Tab6,
        Action::Tab7,
        Action::Up,
        Action::Down,
        Action::Top,
        Action::Bottom,
        Action::PageUp,
        Action::PageDown,
        Action::Open,
        Action::Filter,
        Action::Sort,
        Action::ReverseSort,
        Action::Refresh,
        Action::Copy,
        Action::Export,
        Action::ToggleDetail,
        Action::PriorityFilter,
        Action::Toggles,
        Action::ClearFilters,
        Action::Rename,
        Action::Visibility,
        Action::Unpublish,
        Action::Publish,
        Action::Delete,
        Action::Freeze,
        Action::Watch,
        Action::Range,
        Action::Contexts,
        Action::Audience,
        Action::EmbedUrl,
        Action::Palette,
        Action::Mark,
        Action::MarkAll,
        Action::ClearMarks,
        Action::NavBack,
        Action::NavForward,
        Action::MarkReviewed,
        Action::ReviewFilter,
    ];

    /// The name used in the config file's `[keys]` table.
    pub fn name(self) -> &'static str {
        match self {
            Action::Quit => "quit",
            Action::Back => "back",
            Action::Help => "help",
            Action::ErrorLog => "error_log",
            Action::NextTab => "next_tab",
            Action::PrevTab => "prev_tab",
            Action::Tab1 => "tab1",
            Action::Tab2 => "tab2",
            Action::Tab3 => "tab3",
            Action::Tab4 => "tab4",
            Action::Tab5 => "tab5",
            Action::Tab6 => "tab6",
            Action::Tab7 => "tab7",
            Action::Up => "up",
            Action::Down => "down",
            Action::Top => "top",
            Action::Bottom => "bottom",
            Action::PageUp => "page_up",
            Action::PageDown => "page_down",
            Action::Open => "open",
            Action::Filter => "filter",
            Action::Sort => "sort",
            Action::ReverseSort => "reverse_sort",
            Action::Refresh => "refresh",
            Action::Copy => "copy",
            Action::Export => "export",
            Action::ToggleDetail => "toggle_detail",
            Action::PriorityFilter => "priority_filter",
            Action::Toggles => "toggles",
            Action::ClearFilters => "clear_filters",
            Action::Rename => "rename",
            Action::Visibility => "visibility",
            Action::Unpublish => "unpublish",
            Action::Publish => "publish",
            Action::Delete => "delete",
            Action::Freeze => "freeze",
            Action::Watch => "watch",
            Action::Range => "range",
            Action::Contexts => "contexts",
            Action::Audience => "audience",
            Action::EmbedUrl => "embed_url",
            Action::Palette => "palette",
            Action::Mark => "mark",
            Action::MarkAll => "mark_all",
            Action::ClearMarks => "clear_marks",
            Action::NavBack => "nav_back",
            Action::NavForward => "nav_forward",
            Action::MarkReviewed => "mark_reviewed",
            Action::ReviewFilter => "review_filter",
        }
    }

    pub fn from_name(name: &str) -> Option<Action> {
        Action::ALL
            .iter()
            .copied()
            .find(|action| action.name() == name)
    }
}
