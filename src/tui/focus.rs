//! The project in focus: one project the App keeps (set by the inventory's
//! cursor, the palette, Changes, a finding's list, the monitor's tiles), that
//! the breadcrumb names and the project screen, Monitor, Analytics and
//! Personal data show. A leaf: screens, `nav.rs` and the App import it.

use ratatui::text::Span;

use super::theme::Theme;
use crate::api::model::InventoryItem;

/// A project as the screens name it: its id and its name as far as known.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProjectRef {
    pub id: String,
    pub name: Option<String>,
}

impl ProjectRef {
    /// The project of an inventory row.
    pub fn of_row(item: &InventoryItem) -> Self {
        Self {
            id: item.id.clone(),
            name: item.name.clone(),
        }
    }

    /// The name, sanitized and cut to `width`, or the id when unnamed.
    pub fn label(&self, width: usize) -> String {
        crate::text::fit(self.name.as_deref().unwrap_or(&self.id), width)
    }

    /// The start of a project screen's head line: `what` and the label cut to
    /// `width`, in the title style, then `facts` dimmed.
    pub fn head(
        &self,
        what: &str,
        width: usize,
        facts: String,
        theme: &Theme,
    ) -> Vec<Span<'static>> {
        vec![
            Span::styled(format!("{what} {}", self.label(width)), theme.title),
            Span::styled(facts, theme.dim),
        ]
    }
}

/// What opens the project screen: the project, and its inventory row when one
/// is loaded (never a made-up one: the screen finds the facts it lacks).
#[derive(Debug, Clone, PartialEq)]
pub struct ProjectOpen {
    pub project: ProjectRef,
    pub row: Option<InventoryItem>,
    /// The row came from a search of the service just now (the palette's
    /// jump by name), not from the inventory's loaded pages.
    pub searched: bool,
}

impl ProjectOpen {
    /// A project known by id and perhaps a name, without its row.
    pub fn by_ref(project: ProjectRef) -> Self {
        Self {
            project,
            row: None,
            searched: false,
        }
    }

    /// A project opened on its loaded inventory row.
    pub fn row(item: InventoryItem) -> Self {
        Self {
            project: ProjectRef::of_row(&item),
            row: Some(item),
            searched: false,
        }
    }

    /// A project whose row a search of the service found just now.
    pub fn searched(item: InventoryItem) -> Self {
        Self {
            searched: true,
            ..Self::row(item)
        }
    }
}

/// A project the service says is gone: a read of it answered 404
/// `project_not_found` (deleted, or not visible to this key). Every screen
/// that shows it says so, with the name last known and where that came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GoneProject {
    pub id: String,
    /// The name last known, if any.
    pub name: Option<String>,
    /// Where that name came from ("the project's read, 2 min ago", "snapshot, 3 h ago").
    pub source: Option<String>,
}

impl GoneProject {
    /// What the service said, the name last known first:
    /// `“Ledger” (prj_a) is gone, or not visible to this key (404 project_not_found).`
    pub fn headline(&self) -> String {
        let id = crate::text::fit(&self.id, 40);
        let who = match &self.name {
            Some(name) => format!("\u{201c}{}\u{201d} ({id})", crate::text::fit(name, 40)),
            None => format!("Project {id}"),
        };
        format!("{who} is gone, or not visible to this key (404 project_not_found).")
    }

    /// A tab's own 404 while its project is gone: the project's going is
    /// the cause, never another (not published, detection off):
    /// `Its analytics went with it (404 analytics_not_found).`
    pub fn went_with_it(what: &str, error: &crate::tui::vocab::ErrorInfo) -> String {
        let kind = error
            .kind
            .as_ref()
            .map_or("not_found", |kind| kind.as_str());
        format!(
            "Its {what} went with it (404 {}).",
            crate::text::sanitize_line(kind)
        )
    }

    /// Where the name last known came from.
    pub fn known(&self) -> String {
        match (&self.name, &self.source) {
            (Some(_), Some(source)) => format!("Name last known {source}."),
            (Some(_), None) => "Name last known as shown.".to_owned(),
            (None, _) => "No name known.".to_owned(),
        }
    }
}

/// Whether `text` reads as a project id rather than a name: one token of
/// letters, digits, `_` and `-`, holding a digit, `_` or `-` (`prj_0a1b…`, a UUID).
pub fn looks_like_id(text: &str) -> bool {
    !text.is_empty()
        && text
            .chars()
            .all(|ch| ch.is_ascii_alphanumeric() || ch == '_' || ch == '-')
        && text
            .chars()
            .any(|ch| ch.is_ascii_digit() || ch == '_' || ch == '-')
}
