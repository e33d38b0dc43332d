//! The dashboard's own files, read and written through the same door as the
//! API: the monitor's watch list and the saved views in the config file (the
//! palette's history is `palette/history.rs`'s).

use std::path::PathBuf;

use crate::config::SavedView;

use crate::tui::effect::ErrorInfo;
use crate::tui::request::Operation;
use crate::tui::services::Services;
use crate::tui::watchlist::{self, WatchEntry};

/// Reads the monitor's watch list from `path` (a missing file is an empty list).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LoadWatchlist {
    pub path: PathBuf,
}

impl Operation for LoadWatchlist {
    type Output = Vec<WatchEntry>;

    async fn run(self, services: &Services) -> Result<Vec<WatchEntry>, ErrorInfo> {
        watchlist::load(&self.path).map_err(|error| services.local_failure(error.to_string()))
    }
}

/// Writes the monitor's watch list (atomically) to `path`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SaveWatchlist {
    pub path: PathBuf,
    pub entries: Vec<WatchEntry>,
}

impl Operation for SaveWatchlist {
    type Output = ();

    async fn run(self, services: &Services) -> Result<(), ErrorInfo> {
        watchlist::save(&self.path, &self.entries)
            .map_err(|error| services.local_failure(error.to_string()))
    }
}

/// Writes saved view `name` of `context` (or deletes it, with `None`) in the
/// config file at `path`, keeping the rest of the file.
#[derive(Debug, Clone, PartialEq)]
pub struct SaveView {
    pub path: PathBuf,
    pub context: String,
    pub name: String,
    pub view: Option<SavedView>,
}

/// A saved view written (`saved`) or deleted, and where: what the status
/// line says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ViewSaved {
    pub path: PathBuf,
    pub name: String,
    pub saved: bool,
}

impl Operation for SaveView {
    type Output = ViewSaved;

    async fn run(self, services: &Services) -> Result<ViewSaved, ErrorInfo> {
        crate::config::write_view(&self.path, &self.context, &self.name, self.view.as_ref())
            .map_err(|error| services.local_failure(error.to_string()))?;
        Ok(ViewSaved {
            path: self.path,
            name: self.name,
            saved: self.view.is_some(),
        })
    }
}
