//! What the inventory asks (its slots) and the answers it gets: a leaf its
//! parts (the catch-up, the bulk changes, the id look-up) share.

use crate::api::model::{InventoryPage, Project};
use crate::tui::effect::{ErrorInfo, Slot};
use crate::tui::ops::Exported;

/// The pages of the list.
pub const PAGE: Slot = Slot::new("inventory", "page");
/// Every row of the view written to a file.
pub const EXPORT: Slot = Slot::new("inventory", "export");
/// A page re-read until it shows our own writes (`catch_up.rs`).
pub const RECHECK: Slot = Slot::new("inventory", "recheck");
/// A bulk change to the marked projects: one at a time.
pub const BULK: Slot = Slot::new("inventory", "bulk");
/// A project id typed into the search, looked up by itself (`find.rs`).
pub const ID_LOOKUP: Slot = Slot::new("inventory", "id lookup");

/// The answers the inventory gets.
#[derive(Debug)]
pub enum Msg {
    Page(Result<InventoryPage, ErrorInfo>),
    /// A page re-read for the catch-up.
    Recheck(Result<InventoryPage, ErrorInfo>),
    Exported(Result<Exported, ErrorInfo>),
    /// A bulk change of one row: its visibility set, or unpublished.
    BulkUpdated(Result<Project, ErrorInfo>),
    BulkUnpublished(Result<(), ErrorInfo>),
    /// The id look-up: the project read, then the search for its name.
    IdProject(Result<Project, ErrorInfo>),
    IdRow(Result<InventoryPage, ErrorInfo>),
}
