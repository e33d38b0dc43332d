//! Finding a project: the service's search (also what the command palette
//! asks for), and a project id typed into the search. The service's `query`
//! reads names and owners only, so an id is looked up by itself
//! (`GET /v1/projects/{id}`, then a search for its name under the filters)
//! and its row, as the service answers it, shown as the first hit.

use super::{ID_LOOKUP, InventoryScreen, Msg};
use crate::api::model::{InventoryPage, Project};
use crate::text::fit;
use crate::tui::effect::{Cx, ErrorInfo};
use crate::tui::facts::{row_of, search_by_name};
use crate::tui::focus::looks_like_id;
use crate::tui::ops::GetProject;
use crate::tui::screens::filtered::FilteredList;

impl InventoryScreen {
    /// Shows what the service's search finds for `text`.
    pub fn search_service(&mut self, text: &str, cx: &mut Cx) {
        self.search_box.close();
        self.query.query = Some(text.trim().to_owned()).filter(|q| !q.is_empty());
        self.reload(cx);
    }

    /// With a search that reads as a project id, asks for that project too:
    /// its read gives the name, and a search for the name under the list's
    /// filters gives its row, as the service has it (`facts.rs`).
    pub(super) fn look_up_id(&mut self, cx: &mut Cx) {
        self.id_hit = None;
        let search = self.search().trim();
        self.id_lookup = looks_like_id(search).then(|| {
            let project_id = search.to_owned();
            let read = GetProject {
                project_id: project_id.clone(),
            };
            let token = cx.request(ID_LOOKUP, read, Msg::IdProject);
            (token, project_id)
        });
    }

    /// The look-up's answers: the project (then its name is searched for
    /// under the filters), then the search's page. Only a row the service
    /// returned under the filters is shown; a project they exclude is said
    /// so, with the palette's jump. Any error (no such project, no scope to
    /// read it) leaves the search's own result alone.
    pub(super) fn id_project(
        &mut self,
        token: u64,
        reply: Result<Project, ErrorInfo>,
        cx: &mut Cx,
    ) -> bool {
        let Some(project_id) = self.id_answered(token) else {
            return false;
        };
        let Ok(project) = reply else {
            return false;
        };
        match project.name.as_deref() {
            Some(name) if !name.trim().is_empty() => {
                let search = search_by_name(cx.workspace, name, self.params());
                let token = cx.request(ID_LOOKUP, search, Msg::IdRow);
                self.id_lookup = Some((token, project_id));
            }
            _ => cx.notify(format!(
                "{}: no name to find its row by; {} opens it",
                fit(&project_id, 40),
                palette_jump(&project_id)
            )),
        }
        true
    }

    /// The search for the project's name: its row, if the filters keep it.
    pub(super) fn id_row(
        &mut self,
        token: u64,
        reply: Result<InventoryPage, ErrorInfo>,
        cx: &mut Cx,
    ) -> bool {
        let Some(project_id) = self.id_answered(token) else {
            return false;
        };
        let Ok(page) = reply else {
            return false;
        };
        match row_of(&page, &project_id) {
            Some(row) => {
                self.id_hit = Some(row);
                return self.show_id_hit();
            }
            None => cx.notify(format!(
                "{}: not under these filters; {} opens it",
                fit(&project_id, 40),
                palette_jump(&project_id)
            )),
        }
        true
    }

    /// The id looked up, when `token` answers the look-up in flight (which
    /// is then over); a stale answer leaves it waiting.
    fn id_answered(&mut self, token: u64) -> Option<String> {
        let (pending, project_id) = self.id_lookup.take()?;
        if pending != token {
            self.id_lookup = Some((pending, project_id));
            return None;
        }
        Some(project_id)
    }

    /// Takes the project found by id out of the rows (the search's first
    /// page is about to take their place).
    pub(super) fn hide_id_hit(&mut self) {
        if let Some(hit) = &self.id_hit {
            self.list.rows.retain(|row| row.id != hit.id);
        }
    }

    /// Puts the project found by id first in the list, unless the search
    /// found it too. True when the list changed.
    pub(super) fn show_id_hit(&mut self) -> bool {
        let Some(hit) = &self.id_hit else {
            return false;
        };
        if self.list.rows.iter().any(|row| row.id == hit.id) {
            return false;
        }
        self.list.rows.insert(0, hit.clone());
        // The hit belongs to no page of the search: it is re-read by itself.
        self.row_pages.insert(0, usize::MAX);
        self.total = Some(self.total.unwrap_or(0) + 1);
        true
    }
}

/// The palette's jump to a project by id, as typed.
fn palette_jump(project_id: &str) -> String {
    format!(":{}", fit(project_id, 40))
}
