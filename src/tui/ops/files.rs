//! The dashboard's own files, read and written through the same door as the
//! API: the monitor's watch list (the palette's history is `palette/history.rs`'s).

use std::path::PathBuf;

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
