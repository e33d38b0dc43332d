//! The palette's history: the commands run, newest last, kept in a small text
//! file in the data dir, one per line, bounded. A file that cannot be read or
//! written costs the history, never the dashboard. The key handler never
//! writes it: a push asks for [`History::save_request`], which the runtime
//! carries out like every other file write.

use std::path::PathBuf;

use crate::safe_file::Links;

use crate::tui::ops::SavePaletteHistory;

/// Most commands kept.
pub const HISTORY_LIMIT: usize = 100;

/// The most of the file read: [`HISTORY_LIMIT`] lines of a generous length.
const MAX_HISTORY_BYTES: u64 = 256 * 1024;

#[derive(Debug, Clone, Default)]
pub struct History {
    entries: Vec<String>,
    path: Option<PathBuf>,
}

impl History {
    /// The history kept in `path` (a missing file is an empty history).
    pub fn load(path: PathBuf) -> Self {
        // Read as vantage writes it: a regular file, not through a link,
        // never blocking on a FIFO, at most [`MAX_HISTORY_BYTES`].
        let read = crate::safe_file::read_small(&path, MAX_HISTORY_BYTES, Links::Refuse);
        let entries = match read {
            Ok(bytes) => String::from_utf8_lossy(&bytes)
                .lines()
                .map(str::trim)
                .filter(|line| !line.is_empty())
                .map(str::to_owned)
                .collect(),
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => Vec::new(),
            Err(error) => {
                tracing::warn!(
                    "cannot read the palette history {}: {error}",
                    path.display()
                );
                Vec::new()
            }
        };
        let mut history = Self {
            entries,
            path: Some(path),
        };
        history.bound();
        history
    }

    /// The default file: `palette_history` in the data dir.
    pub fn default_path() -> PathBuf {
        crate::paths::data_dir().join("palette_history")
    }

    pub fn entries(&self) -> &[String] {
        &self.entries
    }

    /// Adds `line` as the newest (an earlier copy moves up). The file is
    /// written by the runtime, on [`History::save_request`].
    pub fn push(&mut self, line: &str) {
        let line = line.trim();
        // One line per entry: a line break typed in would split it.
        if line.is_empty() || line.contains(['\n', '\r']) {
            return;
        }
        self.entries.retain(|entry| entry != line);
        self.entries.push(line.to_owned());
        self.bound();
    }

    /// The write of the whole history to its file, for the runtime; none
    /// for a history kept in memory only.
    pub fn save_request(&self) -> Option<SavePaletteHistory> {
        let path = self.path.clone()?;
        Some(SavePaletteHistory {
            path,
            entries: self.entries.clone(),
        })
    }

    fn bound(&mut self) {
        let excess = self.entries.len().saturating_sub(HISTORY_LIMIT);
        self.entries.drain(..excess);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tui::ops::save_palette_history as save;

    #[test]
    fn history_is_bounded_deduplicated_and_kept_on_disk() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("nested").join("palette_history");
        let mut history = History::load(path.clone());
        assert!(history.entries().is_empty());
        for index in 0..HISTORY_LIMIT + 5 {
            history.push(&format!("project prj_{index}"));
        }
        history.push("members");
        history.push("project prj_104");
        history.push("two\nlines");
        assert_eq!(history.entries().len(), HISTORY_LIMIT);
        assert_eq!(history.entries().last().unwrap(), "project prj_104");
        // A push writes nothing: the file is the runtime's.
        assert!(!path.exists());
        let Some(SavePaletteHistory { path: to, entries }) = history.save_request() else {
            panic!("a history with a file asks for its write");
        };
        assert_eq!(to, path);
        save(&to, &entries).unwrap();
        let again = History::load(path);
        assert_eq!(again.entries(), history.entries());
        assert!(History::default().save_request().is_none());
    }
}
