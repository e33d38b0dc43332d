//! Finding a project: the service's search (also what the command palette
//! asks for), and a project id typed into the search. The service's `query`
//! reads names and owners only, so an id is looked up by itself
//! (`GET /v1/projects/{id}`) and shown as the first hit.

use super::InventoryScreen;
use crate::api::model::{InventoryItem, Project};
use crate::tui::effect::{Cx, ErrorInfo, Reply, Request, Slot, answers};
use crate::tui::palette::command::looks_like_id;

impl InventoryScreen {
    /// Shows what the service's search finds for `text`.
    pub fn search_service(&mut self, text: &str, cx: &mut Cx) {
        self.search_box.close();
        self.query.query = Some(text.trim().to_owned()).filter(|q| !q.is_empty());
        self.reload(cx);
    }

    /// With a search that reads as a project id, asks for that project too.
    pub(super) fn look_up_id(&mut self, cx: &mut Cx) {
        self.id_hit = None;
        let search = self.search().trim();
        self.id_lookup = looks_like_id(search).then(|| {
            let project_id = search.to_owned();
            cx.fetch(Slot::InventoryIdLookup, Request::GetProject { project_id })
        });
    }

    /// The project of the id searched for, if it exists; any error (no such
    /// project, no scope to read it) leaves the search's own result alone.
    pub(super) fn id_reply(&mut self, token: u64, reply: Result<Reply, ErrorInfo>) -> bool {
        if !answers(&mut self.id_lookup, token) {
            return false;
        }
        let Ok(Reply::Project(project)) = reply else {
            return false;
        };
        self.id_hit = inventory_row(&project);
        self.show_id_hit()
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

/// A project as an inventory row: what the project tells, the security and
/// activity figures unknown (the project screen reads them as it opens).
fn inventory_row(project: &Project) -> Option<InventoryItem> {
    let mut value = serde_json::to_value(project).ok()?;
    let fields = value.as_object_mut()?;
    fields.insert("activity_group".into(), "unknown".into());
    fields.insert("owner".into(), serde_json::json!({}));
    // Not "unscored": the priority is not known here, and reads `? unknown`.
    fields.insert("review_priority".into(), "unknown".into());
    serde_json::from_value(value).ok()
}
