//! What screens ask of the App itself (never of the runtime): switch a tab, open
//! or leave the project view, say something on the status line. A leaf: screens,
//! `effect.rs` and the App import it, and it imports none of them (only the
//! leaf `focus.rs`).

use super::focus::ProjectOpen;
use crate::api::model::Project;

/// The tabs, in the order the header shows them and `1`-`7` pick them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Tab {
    #[default]
    Insights,
    Inventory,
    Members,
    Monitor,
    Analytics,
    PersonalData,
    Changes,
}

impl Tab {
    pub const ALL: [Tab; 7] = [
        Tab::Insights,
        Tab::Inventory,
        Tab::Members,
        Tab::Monitor,
        Tab::Analytics,
        Tab::PersonalData,
        Tab::Changes,
    ];

    /// 0-based position in [`Tab::ALL`].
    pub fn index(self) -> usize {
        Tab::ALL.iter().position(|tab| *tab == self).unwrap_or(0)
    }

    pub fn next(self) -> Tab {
        Tab::ALL[(self.index() + 1) % Tab::ALL.len()]
    }

    pub fn prev(self) -> Tab {
        Tab::ALL[(self.index() + Tab::ALL.len() - 1) % Tab::ALL.len()]
    }

    pub fn title(self) -> &'static str {
        match self {
            Tab::Insights => "Insights",
            Tab::Inventory => "Inventory",
            Tab::Members => "Members",
            Tab::Monitor => "Monitor",
            Tab::Analytics => "Analytics",
            Tab::PersonalData => "Personal data",
            Tab::Changes => "Changes",
        }
    }

    /// The title for narrow terminals.
    pub fn short_title(self) -> &'static str {
        match self {
            Tab::PersonalData => "PII",
            Tab::Changes => "Diff",
            other => other.title(),
        }
    }
}

/// A request a screen makes of the App.
#[derive(Debug, Clone, PartialEq)]
pub enum Nav {
    /// Show the inventory filtered by one finding type.
    OpenInventoryForFinding(String),
    /// A short message for the status line.
    Notify(String),
    /// Open or leave the project detail screen, or tell the inventory of a write.
    Project(ProjectNav),
    /// Switch to a tab, e.g. to pick a project in the inventory.
    ShowTab(Tab),
    /// A reply the screen found wrong (a page past its walk's bounds): the
    /// status line and the error log show it as a failed request.
    Failed(Box<crate::tui::effect::ErrorInfo>),
}

/// What the project screen asks of the app.
#[derive(Debug, Clone, PartialEq)]
pub enum ProjectNav {
    /// Open the screen on a project, with its row when one is loaded.
    Open(Box<ProjectOpen>),
    /// Back to where the screen was opened from.
    Close,
    /// A write succeeded: the inventory shows it at once.
    Wrote(ProjectWrite),
}

#[derive(Debug, Clone, PartialEq)]
pub enum ProjectWrite {
    /// The project as a write answered, or as read back after one.
    Updated(Box<Project>),
    Deleted(String),
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tabs_cycle_both_ways() {
        assert_eq!(Tab::Insights.prev(), Tab::Changes);
        assert_eq!(Tab::Changes.next(), Tab::Insights);
        assert_eq!(Tab::Members.index(), 2);
        assert_eq!(Tab::PersonalData.short_title(), "PII");
    }
}
