//! Facts with a source: a value on screen is what the service said, with its
//! age, or it says it is unknown. A project's inventory facts (review priority,
//! edits, visitors, last scan, connectors) come from a loaded row (as of its
//! page), the newest snapshot (the inventory seeded from it at start, else that
//! snapshot's state of the project, asked of the history without a request to
//! the service), a search of the inventory that finds the row, or nowhere:
//! then the screen says "not loaded" and names the key that loads them, never
//! a zero, `never` or `none` the service did not send. A snapshot's state
//! lacks edits, visitors and the last scan: those read unknown.
//!
//! The inventory cannot be asked for an id (its `query` reads names and
//! owners), so a row is found by a search for the project's name, matched by id.

use time::OffsetDateTime;

use crate::api::InventoryParams;
use crate::api::model::{InventoryItem, InventoryPage};
use crate::history::{ProjectState, SnapshotInfo};
use crate::tui::effect::{Cx, ErrorInfo, Slot, answers};
use crate::tui::ops::ListInventory;
use crate::tui::request::Message;
use crate::tui::review::ops::LatestProjectState;
use crate::tui::widgets::ago;

/// The search for the project screen's inventory facts.
pub const FACTS: Slot = Slot::new("project", "facts");

/// Most rows a search for a name asks for: the contract's largest page, so
/// one request finds a name that other projects share in part.
pub const NAME_SEARCH_LIMIT: u32 = 100;

/// The request that finds a project's row in `workspace_id` by its name,
/// under `filters` (the inventory's own, or none).
pub fn search_by_name(workspace_id: &str, name: &str, filters: InventoryParams) -> ListInventory {
    ListInventory {
        workspace_id: workspace_id.to_owned(),
        params: InventoryParams {
            limit: Some(NAME_SEARCH_LIMIT),
            query: Some(name.trim().to_owned()),
            sort_by: None,
            sort_order: None,
            ..filters
        },
        cursor: None,
    }
}

/// The answers the facts get (inside the project screen's message).
#[derive(Debug)]
pub enum FactsMsg {
    /// The newest snapshot's state of the project, if it holds it.
    Snapshot(Result<Option<(SnapshotInfo, ProjectState)>, ErrorInfo>),
    /// The search of the inventory by name.
    Search(Result<InventoryPage, ErrorInfo>),
}

/// The row of project `id` among the rows a search returned.
pub fn row_of(page: &InventoryPage, id: &str) -> Option<InventoryItem> {
    page.data.iter().find(|row| row.id == id).cloned()
}

/// Where a row of facts came from, and so how old it is.
#[derive(Debug, Clone, PartialEq)]
pub enum Source {
    /// A page of the inventory list, loaded at that time (if known).
    Page(Option<OffsetDateTime>),
    /// The newest local snapshot, taken then.
    Snapshot(OffsetDateTime),
    /// A search of the inventory by name, at that time, in one request.
    Search(OffsetDateTime),
}

impl Source {
    /// When the row was read, where that is known.
    pub fn read_at(&self) -> Option<OffsetDateTime> {
        match self {
            Source::Page(at) => *at,
            Source::Snapshot(at) | Source::Search(at) => Some(*at),
        }
    }

    /// "from the inventory list, 3 min ago", "from snapshot, 2 h ago".
    pub fn describe(&self, now: OffsetDateTime) -> String {
        let age = |at: OffsetDateTime| ago((now - at).whole_seconds());
        match self {
            Source::Page(Some(at)) => format!("from the inventory list, {}", age(*at)),
            Source::Page(None) => "from the inventory list".to_owned(),
            Source::Snapshot(at) => format!("from snapshot, {}", age(*at)),
            Source::Search(at) => format!("from a search by name (1 request), {}", age(*at)),
        }
    }
}

/// What is known of why there is no row.
#[derive(Debug, Clone, PartialEq)]
pub enum Missing {
    /// Nothing asked yet (the name is not known until the project loads).
    NotAsked,
    /// The newest snapshot is asked for the project's state.
    ReadingSnapshot,
    Searching,
    /// The project has no name to search for.
    Unnamed,
    /// The search by name answered without this project.
    NotFound,
    Failed(String),
}

/// A project's inventory facts and their source.
#[derive(Debug, Clone, PartialEq)]
pub struct Facts {
    pub row: Option<(InventoryItem, Source)>,
    /// Without a row: the newest snapshot's state of the project, and when
    /// that snapshot was taken.
    pub snapshot: Option<(ProjectState, OffsetDateTime)>,
    pub missing: Missing,
    pending: Option<u64>,
    /// Whether the history is still to be asked before the inventory is
    /// searched (a history file is open, and it was not asked yet).
    ask_history: bool,
}

impl Facts {
    pub fn new(row: Option<(InventoryItem, Source)>) -> Self {
        Self {
            row,
            snapshot: None,
            missing: Missing::NotAsked,
            pending: None,
            ask_history: false,
        }
    }

    /// Without a row, the newest snapshot is asked first (free), the
    /// inventory searched only when it does not hold the project.
    pub fn with_history(mut self, enabled: bool) -> Self {
        self.ask_history = enabled;
        self
    }

    pub fn item(&self) -> Option<&InventoryItem> {
        self.row.as_ref().map(|(item, _)| item)
    }

    /// Whether `find` can start without the project's name (the history is
    /// asked by id).
    pub fn asks_by_id(&self) -> bool {
        self.ask_history && self.row.is_none() && self.pending.is_none()
    }

    /// Looks for the facts of project `id`: the newest snapshot's state when
    /// the history is open and was not asked, else a search of the inventory
    /// for the row of the project named `name` (the reply is matched by id),
    /// unless facts are known or a search runs or ran. `force` searches again.
    /// The answers come back as `M` (the project screen's message).
    pub fn find<M: Message + From<FactsMsg>>(
        &mut self,
        id: &str,
        name: Option<&str>,
        force: bool,
        cx: &mut Cx,
    ) {
        let known = self.row.is_some() || self.snapshot.is_some();
        if (known && !force) || self.pending.is_some() {
            return;
        }
        if self.ask_history && self.row.is_none() {
            self.ask_history = false;
            let ask = LatestProjectState {
                project_id: id.to_owned(),
            };
            let read = |result| M::from(FactsMsg::Snapshot(result));
            self.pending = Some(cx.request(FACTS, ask, read));
            self.missing = Missing::ReadingSnapshot;
            return;
        }
        if !force && self.missing != Missing::NotAsked {
            return;
        }
        match name.map(str::trim).filter(|name| !name.is_empty()) {
            Some(name) => {
                let search = search_by_name(cx.workspace, name, InventoryParams::default());
                let found = |result| M::from(FactsMsg::Search(result));
                self.pending = Some(cx.request(FACTS, search, found));
                self.missing = Missing::Searching;
            }
            None => self.missing = Missing::Unnamed,
        }
    }

    /// The history's or the search's answer; true when anything changed.
    pub fn on_reply(&mut self, id: &str, token: u64, msg: FactsMsg, now: OffsetDateTime) -> bool {
        if !answers(&mut self.pending, token) {
            return false;
        }
        match msg {
            FactsMsg::Search(Ok(page)) => match row_of(&page, id) {
                Some(row) => {
                    self.row = Some((row, Source::Search(now)));
                    self.missing = Missing::NotAsked;
                }
                None => self.missing = Missing::NotFound,
            },
            FactsMsg::Search(Err(error)) => self.missing = Missing::Failed(error.summary),
            FactsMsg::Snapshot(Ok(Some((info, state)))) => {
                self.snapshot = Some((state, info.taken_at));
                self.missing = Missing::NotAsked;
            }
            // Not in the newest snapshot: the search by name is next. A
            // history that cannot be read is as one without the project.
            FactsMsg::Snapshot(Ok(None) | Err(_)) => self.missing = Missing::NotAsked,
        }
        true
    }

    /// Why there are no facts, in words.
    pub fn why_not_loaded(&self) -> String {
        match &self.missing {
            Missing::NotAsked => "not asked yet".to_owned(),
            Missing::ReadingSnapshot => "reading the newest snapshot…".to_owned(),
            Missing::Searching => "searching the inventory by name…".to_owned(),
            Missing::Unnamed => "the project has no name to search the inventory by".to_owned(),
            Missing::NotFound => "a search by name did not find it".to_owned(),
            Missing::Failed(why) => format!("the search failed: {why}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_source_says_its_age() {
        let now = time::macros::datetime!(2026-11-26 12:00 UTC);
        let two_hours = now - time::Duration::hours(2);
        assert_eq!(
            Source::Snapshot(two_hours).describe(now),
            "from snapshot, 2 h ago"
        );
        assert_eq!(Source::Page(None).describe(now), "from the inventory list");
    }
}
