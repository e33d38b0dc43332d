//! A project the service says is gone: a read answered 404
//! `project_not_found`. The screen says so with the name last known and
//! where that name came from, drops the fields it can no longer vouch for
//! (and their age), and tells the App, so every tab about the project says
//! the same.

use ratatui::text::{Line, Span};

use super::ProjectScreen;
use crate::api::model::ErrorType;
use crate::timefmt::date_time;
use crate::tui::effect::{Cx, ErrorInfo};
use crate::tui::facts::Source;
use crate::tui::focus::GoneProject;
use crate::tui::nav::{Nav, ProjectNav};
use crate::tui::theme::Theme;

/// Whether an answer to a read of the project says it is gone.
pub fn is_gone(error: &ErrorInfo) -> bool {
    error.is_service(ErrorType::ProjectNotFound)
}

impl ProjectScreen {
    /// The name last known, and where it came from: the project's own read,
    /// then the inventory row or the snapshot the screen holds, then the name
    /// it was opened with.
    pub fn known_name(&self) -> Option<(String, String)> {
        if let Some(name) = self.project.as_ref().and_then(|p| p.name.clone()) {
            let at = self
                .loaded_at
                .map_or_else(String::new, |at| format!(" at {} UTC", date_time(at)));
            return Some((name, format!("from the project's read{at}")));
        }
        if let Some((item, source)) = &self.facts.row
            && let Some(name) = &item.name
        {
            let said = match source {
                Source::Snapshot(at) => format!("from snapshot, taken {} UTC", date_time(*at)),
                Source::Search(at) => format!("from a search by name at {} UTC", date_time(*at)),
                Source::Page(Some(at)) => {
                    format!("from the inventory list, read {} UTC", date_time(*at))
                }
                Source::Page(None) => "from the inventory list".to_owned(),
            };
            return Some((name.clone(), said));
        }
        if let Some((state, taken_at)) = &self.facts.snapshot
            && let Some(name) = &state.name
        {
            let said = format!("from snapshot, taken {} UTC", date_time(*taken_at));
            return Some((name.clone(), said));
        }
        let name = self.target.name.clone()?;
        Some((name, "as it was opened".to_owned()))
    }

    /// A read of the project answered 404 `project_not_found`.
    pub(super) fn went(&mut self, error: ErrorInfo, cx: &mut Cx) {
        let (name, source) = self.known_name().unzip();
        let gone = GoneProject {
            id: self.target.id.clone(),
            name,
            source,
        };
        // The fields and their age were of a project the service no longer shows.
        self.project = None;
        self.loaded_at = None;
        self.gone = Some(gone.clone());
        self.error = Some(error);
        cx.navigate(Nav::Project(ProjectNav::Gone(gone)));
    }

    /// The body while the project is gone.
    pub(super) fn gone_lines(&self, theme: &Theme, width: usize) -> Option<Vec<Line<'static>>> {
        let gone = self.gone.as_ref()?;
        let wrapped = |text: &str, style| {
            super::view::wrap_words(text, width, 4)
                .into_iter()
                .map(move |line| Line::from(Span::styled(line, style)))
        };
        let mut lines: Vec<Line<'static>> = wrapped(&gone.headline(), theme.warn).collect();
        lines.extend(wrapped(&gone.known(), theme.base));
        if let Some(error) = &self.error {
            lines.extend(
                crate::tui::screens::error_text(error, theme)
                    .into_iter()
                    .skip(1),
            );
        }
        Some(lines)
    }
}
