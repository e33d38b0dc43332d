//! The review history: snapshots of a workspace (a history per workspace), the
//! diff between two of them, and reviewed marks with their log. It lives in a
//! local SQLite file (the default) or a shared PostgreSQL database, behind one
//! interface ([`Store`]). DESIGN.md, "Review history". Imports `api` and leaf
//! utilities only.
//!
//! What the dashboard will use: [`Store::latest_snapshot`],
//! [`Store::latest_insights`] and [`Store::first_inventory_page`] for an
//! instant start, [`Backend::reviewed_marks`] for the inventory's marks,
//! [`walk::capture`] then [`Backend::record`] for a background snapshot, and
//! [`diff::diff`] for the Changes screen.

mod backend;
pub(crate) mod chain;
pub mod config;
pub mod diff;
pub(crate) mod document;
mod marks;
pub(crate) mod model;
pub mod postgres;
pub mod posture;
pub mod ranges;
mod read;
pub mod retention;
pub(crate) mod schema_status;
mod sqlite;
mod store;
pub mod waivers;
pub mod walk;

use std::path::PathBuf;

pub use backend::{
    BUSY_TIMEOUT, Backend, EachItem, HistoryLocation, LockWait, Retention, WorkspaceLock,
};
pub use config::HistoryConfig;
pub use diff::{Change, ChangeKind, Severity, diff};
pub use document::FieldChange;
pub use model::{
    CLOCK_SKEW, Capture, Freshness, LogRead, MarkScope, MemberState, NewMark, ProjectState,
    ReviewAction, ReviewEntry, ReviewMark, SeenState, Snapshot, SnapshotInfo, StoredState,
    shown_reviewer,
};
pub use postgres::{PG_SCHEMA_VERSION, PgTarget};
pub use read::SnapshotRef;
pub use schema_status::{SchemaStatus, inspect as inspect_schema};
pub use sqlite::VERSION as SCHEMA_VERSION;
pub use store::Store;

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
        "{store} has schema version {found}; this vantage ({}) knows up to version {known}: a newer vantage wrote it",
        env!("CARGO_PKG_VERSION")
    )]
    NewerSchema {
        /// `the history file` or `the history database host:port/db`.
        store: String,
        found: i64,
        known: i64,
    },
    #[error("history file: damaged: {0}")]
    Corrupt(String),
    /// The shared database cannot be reached (down, refused, the connection
    /// lost): commands exit with their own code, the dashboard retries.
    #[error("cannot reach {store}: {cause}")]
    Unreachable { store: String, cause: String },
    /// The shared database did not answer in time: a statement or a wait for
    /// a lock ran past `statement_timeout_secs` / `lock_timeout_secs` (a
    /// teammate's `LOCK TABLE`): worth retrying later, as `Unreachable`.
    #[error("{store} kept vantage waiting: {cause}")]
    Waiting { store: String, cause: String },
    /// The shared database answered with an error, or holds what this
    /// vantage cannot read (`damaged: table.column ...`).
    #[error("{store}: {cause}")]
    Database { store: String, cause: String },
    /// `history_url`, `--history` or `VANTAGE_HISTORY_URL` cannot be used.
    #[error("history URL: {0}")]
    Url(String),
    /// No password for the shared database, or its command failed.
    #[error("{store}: {reason}")]
    Password { store: String, reason: String },
    /// A reader of the history stopped the read (its own error is kept by it).
    #[error("the read of the history was stopped by its reader")]
    Stopped,
    /// A snapshot dated ahead of the shared database's clock (beyond
    /// [`CLOCK_SKEW`]): this host's clock is wrong, and recording it would
    /// make it the newest snapshot for good and prune the team's older ones.
    #[error(
        "this host's clock says {taken_at}, ahead of the history database's clock ({database_now}) by more than {} minutes: nothing recorded; set this host's clock (e.g. timedatectl set-ntp true)",
        CLOCK_SKEW.whole_minutes()
    )]
    ClockAhead {
        taken_at: time::OffsetDateTime,
        database_now: time::OffsetDateTime,
    },
    /// The review log does not match its hash chain (`reviewed log --verify`).
    #[error(
        "{store}: the review log of workspace {workspace} does not match its hash chain at entry {id} ({what}): {cause}"
    )]
    BrokenChain {
        store: String,
        workspace: String,
        id: i64,
        /// `mark of project p1 at 2026-…`.
        what: String,
        cause: &'static str,
    },
}

impl HistoryError {
    /// Whether the store could not be reached, or did not answer in time
    /// (rather than refused a request): worth retrying later.
    pub fn is_unreachable(&self) -> bool {
        matches!(self, Self::Unreachable { .. } | Self::Waiting { .. })
    }
}

/// The key of a workspace's snapshot lock: the same on every vantage, so two
/// of them lock the same workspace alike (a PostgreSQL advisory lock, or the
/// lock file's name).
pub fn workspace_lock_key(workspace_id: &str) -> i64 {
    crate::hash::hash_str(&format!("vantage snapshot {workspace_id}")) as i64
}
