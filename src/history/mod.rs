//! The local review history: snapshots of a workspace in one SQLite file (a
//! history per workspace), the diff between two of them, and reviewed marks.
//! DESIGN.md, "Review history". Imports `api` and leaf utilities only.
//!
//! What the dashboard will use: [`Store::latest_snapshot`],
//! [`Store::latest_insights`] and [`Store::first_inventory_page`] for an
//! instant start, [`Store::reviewed_marks`] for the inventory's marks,
//! [`walk::capture`] then [`Store::record`] for a background snapshot, and
//! [`diff::diff`] for the Changes screen.

pub mod config;
pub mod diff;
pub mod document;
mod log;
mod marks;
pub mod model;
mod read;
mod schema;
mod store;
pub mod walk;

use std::path::PathBuf;

pub use config::HistoryConfig;
pub use diff::{Change, ChangeKind, diff};
pub use document::FieldChange;
pub use log::{ReviewAction, ReviewEvent};
pub use model::{
    Capture, MemberState, NewMark, ProjectState, ReviewMark, SeenState, Snapshot, SnapshotInfo,
};
pub use read::SnapshotRef;
pub use schema::VERSION as SCHEMA_VERSION;
pub use store::{BUSY_TIMEOUT, Retention, Store};

#[derive(Debug, thiserror::Error)]
pub enum HistoryError {
    #[error("cannot open the history file {path}: {source}")]
    Open {
        path: PathBuf,
        source: rusqlite::Error,
    },
    #[error("cannot create the history file {path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("history file: {0}")]
    Sqlite(#[from] rusqlite::Error),
    #[error(
        "the history file has schema version {found}; this vantage ({}) knows up to version {known}: a newer vantage wrote it",
        env!("CARGO_PKG_VERSION")
    )]
    NewerSchema { found: i64, known: i64 },
    #[error("history file: damaged: {0}")]
    Corrupt(String),
}
