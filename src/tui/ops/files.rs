//! The dashboard's own files, read and written through the same door as the
//! API: the monitor's watch list, the saved views in the config file and the
//! palette's history (kept by `palette/history.rs`).

use std::path::{Path, PathBuf};

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

/// Writes the file whole, through a temporary file and a rename (the
/// executor's part).
pub fn save_palette_history(path: &Path, entries: &[String]) -> std::io::Result<()> {
    let mut text = entries.join("\n");
    text.push('\n');
    crate::safe_file::replace(path, text.as_bytes())
}

/// Writes the command palette's history (atomically) to `path`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SavePaletteHistory {
    pub path: PathBuf,
    pub entries: Vec<String>,
}

impl Operation for SavePaletteHistory {
    type Output = ();

    async fn run(self, services: &Services) -> Result<(), ErrorInfo> {
        save_palette_history(&self.path, &self.entries).map_err(|error| {
            services.local_failure(format!(
                "cannot write the palette history {}: {error}",
                self.path.display()
            ))
        })
    }
}
