//! The monitor's watch list: which file it lives in, reading it at start and
//! saving every change, both through the executor (never from the screen).

use std::path::PathBuf;

use super::{MonitorScreen, Msg, Round, WATCHLIST_LOAD, WATCHLIST_SAVE};
use crate::tui::effect::Cx;
use crate::tui::ops::{LoadWatchlist, SaveWatchlist};
use crate::tui::screens::ProjectRef;
use crate::tui::watchlist::{WATCH_LIMIT, WatchEntry};

impl MonitorScreen {
    /// Uses `path` for the watch list: [`MonitorScreen::load_watchlist`] reads
    /// it and every change is saved to it, both through the executor.
    pub fn use_watchlist_file(&mut self, path: PathBuf) {
        self.watch_path = Some(path);
    }

    /// Asks for the watch-list file (the App does at start). A file that cannot
    /// be read is reported in `watch_warning` and the error log, and ignored.
    pub fn load_watchlist(&mut self, cx: &mut Cx) {
        if let Some(path) = &self.watch_path {
            self.load_pending = Some(cx.request(
                WATCHLIST_LOAD,
                LoadWatchlist { path: path.clone() },
                Msg::WatchlistLoaded,
            ));
        }
    }

    /// The file's entries first, then what was pinned while it was being read.
    pub(super) fn watchlist_loaded(&mut self, loaded: Vec<WatchEntry>, cx: &mut Cx) {
        let pinned_meanwhile = std::mem::replace(&mut self.watch, loaded);
        let changed = !pinned_meanwhile.is_empty();
        for entry in pinned_meanwhile {
            if !self.is_pinned(&entry.id) && self.watch.len() < WATCH_LIMIT {
                self.watch.push(entry);
            }
        }
        self.prune();
        if changed {
            self.save(cx);
        }
        self.fetch(cx, Round::Missing);
    }

    /// Pins `project`, or unpins it when pinned; saves the list.
    pub fn toggle_watch(&mut self, project: ProjectRef, cx: &mut Cx) {
        let label = project.label(40);
        if let Some(at) = self.watch.iter().position(|entry| entry.id == project.id) {
            self.watch.remove(at);
            cx.notify(format!("unpinned {label} from the monitor"));
        } else if self.watch.len() >= WATCH_LIMIT {
            cx.notify(format!(
                "the watch list holds at most {WATCH_LIMIT} projects; unpin one first"
            ));
            return;
        } else {
            self.watch.push(WatchEntry {
                id: project.id,
                name: project.name,
            });
            cx.notify(format!("pinned {label} to the monitor (tab 4)"));
        }
        self.prune();
        self.save(cx);
        self.fetch(cx, Round::Missing);
    }

    pub(super) fn save(&mut self, cx: &mut Cx) {
        // Not before the file was read: a save now would drop what it holds
        // (the pins made meanwhile are saved with it once it is read).
        if self.load_pending.is_some() {
            return;
        }
        if let Some(path) = &self.watch_path {
            self.save_pending = Some(cx.request(
                WATCHLIST_SAVE,
                SaveWatchlist {
                    path: path.clone(),
                    entries: self.watch.clone(),
                },
                Msg::WatchlistSaved,
            ));
        }
    }
}
