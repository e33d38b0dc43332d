//! The monitor's watch list: the pinned projects, kept as JSON in the data dir so
//! that a monitor restarted next week watches the same apps. Written atomically
//! (temporary file, then rename); a file we cannot read is reported and ignored.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

/// Most projects one monitor watches: each costs one request per refresh, and the
/// default rate limit is 120 requests a minute.
pub const WATCH_LIMIT: usize = 16;
/// The format of the file; another version is refused, not guessed at.
const FILE_VERSION: u32 = 1;
/// The most of the file read: [`WATCH_LIMIT`] entries take a few KiB.
const MAX_FILE_BYTES: u64 = 256 * 1024;

/// A pinned project. The name is kept so the tile has a title before data arrives.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct WatchEntry {
    pub id: String,
    #[serde(default)]
    pub name: Option<String>,
}

#[derive(Debug, Serialize, Deserialize)]
struct WatchFile {
    version: u32,
    projects: Vec<WatchEntry>,
}

#[derive(Debug, thiserror::Error)]
pub enum WatchlistError {
    #[error("cannot read the watch list {path}: {source}")]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error(
        "the watch list {path} is damaged ({reason}); it is ignored and replaced at the next pin"
    )]
    Corrupt { path: PathBuf, reason: String },
    #[error("cannot save the watch list {path}: {source}")]
    Write {
        path: PathBuf,
        source: std::io::Error,
    },
}

/// `watchlist.json` in the data dir.
pub fn default_path() -> PathBuf {
    crate::paths::data_dir().join("watchlist.json")
}

/// The saved list; a missing file is an empty list.
pub fn load(path: &Path) -> Result<Vec<WatchEntry>, WatchlistError> {
    // Read as vantage writes it: a regular file, not through a link, never
    // blocking on a FIFO, at most [`MAX_FILE_BYTES`].
    let bytes =
        match crate::safe_file::read_small(path, MAX_FILE_BYTES, crate::safe_file::Links::Refuse) {
            Ok(bytes) => bytes,
            Err(err) if err.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
            Err(source) => {
                return Err(WatchlistError::Read {
                    path: path.to_path_buf(),
                    source,
                });
            }
        };
    let corrupt = |reason: String| WatchlistError::Corrupt {
        path: path.to_path_buf(),
        reason,
    };
    let file: WatchFile = serde_json::from_slice(&bytes).map_err(|err| corrupt(err.to_string()))?;
    if file.version != FILE_VERSION {
        return Err(corrupt(format!("unknown version {}", file.version)));
    }
    let mut entries: Vec<WatchEntry> = Vec::new();
    for entry in file.projects {
        if entry.id.trim().is_empty() {
            return Err(corrupt("a project without an id".into()));
        }
        if !entries.iter().any(|kept| kept.id == entry.id) && entries.len() < WATCH_LIMIT {
            entries.push(entry);
        }
    }
    Ok(entries)
}

/// Replaces the file with `entries`: written beside it, flushed, then renamed over
/// it, so a crash leaves the old list or the new one, never half of one.
pub fn save(path: &Path, entries: &[WatchEntry]) -> Result<(), WatchlistError> {
    let failed = |source: std::io::Error| WatchlistError::Write {
        path: path.to_path_buf(),
        source,
    };
    let mut body = serde_json::to_vec_pretty(&WatchFile {
        version: FILE_VERSION,
        projects: entries.to_vec(),
    })
    .map_err(|err| failed(std::io::Error::other(err)))?;
    body.push(b'\n');
    crate::safe_file::replace(path, &body).map_err(failed)
}
