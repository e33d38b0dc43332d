//! What the command palette asks of the inventory: the service's search.

use super::InventoryScreen;
use crate::tui::effect::Cx;

impl InventoryScreen {
    /// Shows what the service's search finds for `text`.
    pub fn search_service(&mut self, text: &str, cx: &mut Cx) {
        self.input = None;
        self.query_deadline = None;
        self.query.query = Some(text.trim().to_owned()).filter(|q| !q.is_empty());
        self.reload(cx);
    }
}
