//! What screens ask of the App itself (never of the runtime): switch a tab, open
//! or leave the project view, say something on the status line. A leaf: screens,
//! `effect.rs` and the App import it, and it imports none of them (only the
//! leaves `focus.rs`, `registry.rs` and `vocab/`).

use super::focus::{GoneProject, ProjectOpen};
/// The screens' ids, from the registry (`registry.rs`).
pub use super::registry::Tab;
use crate::api::model::Project;

/// A request a screen makes of the App.
#[derive(Debug, Clone, PartialEq)]
pub enum Nav {
    /// Show the inventory filtered by one finding type.
    OpenInventoryForFinding(String),
    /// Show the inventory filtered to one policy's violators (`--violates`).
    OpenInventoryForPolicy(String),
    /// Evaluate the policies again (their files read again).
    EvaluatePolicies,
    /// A short message for the status line.
    Notify(String),
    /// Open or leave the project detail screen, or tell the inventory of a write.
    Project(ProjectNav),
    /// Switch to a tab, e.g. to pick a project in the inventory.
    ShowTab(Tab),
    /// A reply the screen found wrong (a page past its walk's bounds): the
    /// status line and the error log show it as a failed request.
    Failed(Box<crate::tui::vocab::ErrorInfo>),
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
    /// A read of the project answered 404 `project_not_found`.
    Gone(GoneProject),
    /// A read of the project `id` answered: it is there.
    Found(String),
}

#[derive(Debug, Clone, PartialEq)]
pub enum ProjectWrite {
    /// The project as a write answered, or as read back after one.
    Updated(Box<Project>),
    Deleted(String),
}
