//! The dashboard's own files, read and written through the same door as the
//! API: the monitor's watch list, the saved views in the config file and the
//! palette's history (kept by `palette/history.rs`), each a `file_call!`.

use std::path::{Path, PathBuf};

use crate::config::SavedView;

use crate::tui::effect::ErrorInfo;
use crate::tui::request::Operation;
use crate::tui::services::Services;
use crate::tui::watchlist::{self, WatchEntry};

file_call! {
    /// Reads the monitor's watch list from `path` (a missing file is an empty list).
    LoadWatchlist { path: PathBuf } -> Vec<WatchEntry>,
    watchlist::load(&path)
}

file_call! {
    /// Writes the monitor's watch list (atomically) to `path`.
    SaveWatchlist { path: PathBuf, entries: Vec<WatchEntry> } -> (),
    watchlist::save(&path, &entries)
}

file_call! {
    /// Writes saved view `name` of `context` (or deletes it, with `None`) in the
    /// config file at `path`, keeping the rest of the file.
    SaveView { path: PathBuf, context: String, name: String, view: Option<SavedView> } -> ViewSaved,
    crate::config::write_view(&path, &context, &name, view.as_ref()).map(|()| ViewSaved {
        saved: view.is_some(),
        path,
        name,
    })
}

/// A saved view written (`saved`) or deleted, and where: what the status
/// line says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ViewSaved {
    pub path: PathBuf,
    pub name: String,
    pub saved: bool,
}

/// Writes the file whole, through a temporary file and a rename (the
/// executor's part).
pub fn save_palette_history(path: &Path, entries: &[String]) -> std::io::Result<()> {
    let mut text = entries.join("\n");
    text.push('\n');
    crate::safe_file::replace(path, text.as_bytes())
}

file_call! {
    /// Writes the command palette's history (atomically) to `path`.
    SavePaletteHistory { path: PathBuf, entries: Vec<String> } -> (),
    save_palette_history(&path, &entries).map_err(|error| {
        format!("cannot write the palette history {}: {error}", path.display())
    })
}
