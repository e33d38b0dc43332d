//! What a history store is: the [`Backend`] trait both stores implement (the
//! local SQLite file and a shared PostgreSQL database), and the words they
//! share (where a history is, how long snapshots are kept, a workspace's
//! snapshot lock). A leaf of `history`: the stores import it, and it imports
//! neither.

use std::path::PathBuf;
use std::time::Duration;

use time::OffsetDateTime;

use super::HistoryError;
use super::chain::{ChainFields, ChainRow};
use super::model::{
    Capture, LogRead, MarkScope, MemberState, NewMark, ProjectState, ReviewEntry, ReviewMark,
    SnapshotInfo,
};
use super::postgres::target::PgTarget;
use super::read::SnapshotRef;
use crate::api::model::{Insights, InventoryItem};

/// How long a writer waits for another to finish before giving up. A
/// snapshot's write transaction holds the lock for the recording only (the
/// walk is done before it opens): seconds even for 20,000 projects.
pub const BUSY_TIMEOUT: Duration = Duration::from_secs(60);

/// How long snapshots are kept: whichever bound is reached first.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Retention {
    pub max_age: time::Duration,
    /// Per workspace.
    pub max_snapshots: u32,
}

impl Default for Retention {
    fn default() -> Self {
        Self {
            max_age: time::Duration::days(90),
            max_snapshots: 200,
        }
    }
}

/// Where the history is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HistoryLocation {
    /// The local SQLite file.
    File(PathBuf),
    /// A shared PostgreSQL database.
    Database(PgTarget),
}

impl HistoryLocation {
    /// What a person reads: the file's path, or `host:port/db` (never a password).
    pub fn describe(&self) -> String {
        match self {
            Self::File(path) => format!("the history file {}", path.display()),
            Self::Database(target) => format!("the history database {}", target.shown()),
        }
    }

    pub fn is_shared(&self) -> bool {
        matches!(self, Self::Database(_))
    }
}

/// What a store hands each item it reads to: `Err` stops the read (the
/// reader's own failure comes back as [`HistoryError::Stopped`]).
pub type EachItem<'a, T> = dyn FnMut(T) -> Result<(), HistoryError> + Send + 'a;

/// Which entries of a workspace's log a read hands over, and how much of each.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LogQuery {
    pub workspace_id: String,
    /// One project's entries only, when given.
    pub project_id: Option<String>,
    pub read: LogRead,
}

/// What taking a workspace's snapshot lock came to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WorkspaceLock {
    /// Taken at once.
    Taken,
    /// Another snapshot of the workspace held it; taken after it finished.
    TakenAfterWaiting,
    /// Another snapshot of the workspace holds it, and waiting was not asked for.
    Busy,
    /// Another snapshot of the workspace held it for the whole wait.
    TimedOut,
}

/// How long taking a workspace's snapshot lock may wait for another holder.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LockWait {
    /// Not at all: [`WorkspaceLock::Busy`] when it is held.
    No,
    /// Up to this long, then [`WorkspaceLock::TimedOut`].
    UpTo(std::time::Duration),
    /// Until the holder lets it go.
    Forever,
}

/// What a history store does. Reads take `&self`, writes `&mut self`; each
/// write is one transaction, there whole or not at all.
pub trait Backend: Send {
    /// Where it is, for a person: never a password.
    fn location(&self) -> &HistoryLocation;

    /// Whether the store answers now; a shared store whose connection broke
    /// connects again. Cheap: the dashboard calls it to retry with backoff.
    fn check(&mut self) -> Result<(), HistoryError>;

    /// A number that moves when another writer commits, so a dashboard knows
    /// when to read marks and changes again. (A shared store's moves on every
    /// commit, its own too: a read too many, never one too few.)
    fn data_version(&self) -> Result<i64, HistoryError>;

    /// Records `capture` as a new snapshot in one transaction, gives reviewed
    /// marks without a reviewed state this one's, and prunes by `retention` in
    /// the same transaction. Returns the new snapshot.
    fn record(
        &mut self,
        capture: &Capture,
        retention: Retention,
    ) -> Result<SnapshotInfo, HistoryError>;

    /// Removes the workspace's snapshots beyond `retention` (as of `now`), and
    /// the states no snapshot or mark holds any more. Returns how many
    /// snapshots went.
    fn prune(
        &mut self,
        workspace_id: &str,
        retention: Retention,
        now: OffsetDateTime,
    ) -> Result<usize, HistoryError>;

    /// Takes the workspace's snapshot lock, so two snapshot jobs of one
    /// workspace never interleave; `wait`: how long for the other to be done.
    /// Held until [`Backend::unlock_workspace`] or the store is dropped.
    /// [`Store`](super::Store) keeps which locks it holds: a backend is
    /// asked only for one it does not hold, and to let go only one it holds.
    fn lock_workspace(
        &mut self,
        workspace_id: &str,
        wait: LockWait,
    ) -> Result<WorkspaceLock, HistoryError>;

    /// Whether the connection this store works on, and with it the locks it
    /// holds, is still there: never connects again (a new connection would
    /// hold no lock). A snapshot asks it while it walks.
    fn still_connected(&mut self) -> Result<(), HistoryError> {
        Ok(())
    }

    fn unlock_workspace(&mut self, workspace_id: &str) -> Result<(), HistoryError>;

    /// Marks every one of `marks` in one transaction and returns them as they
    /// now stand. Marking again adds to the log; the newest mark counts.
    fn mark_all_reviewed(
        &mut self,
        workspace_id: &str,
        marks: &[NewMark],
        now: OffsetDateTime,
    ) -> Result<Vec<ReviewMark>, HistoryError>;

    /// Appends `unmark` ([`ChainFields::unmark`]) when the project's mark
    /// stands; `false` when there was none (`Store::unmark_reviewed`).
    fn unmark(&mut self, unmark: ChainFields) -> Result<bool, HistoryError>;

    /// Every mark of the workspace that stands (in `scope`), newest first, each with the project's name and what
    /// changed since the reviewed state (as the newest snapshot shows it),
    /// its note and names cut as shown. Handed to `each` a page at a time as
    /// the store reads them: memory stays flat however many there are.
    fn each_reviewed_mark(
        &self,
        workspace_id: &str,
        scope: MarkScope<'_>,
        each: &mut EachItem<'_, ReviewMark>,
    ) -> Result<(), HistoryError>;

    /// The audit trail: the entries of the log `query` names, oldest first,
    /// handed to `each` as the store reads them (`Store::each_review_entry`).
    fn each_log_entry(
        &self,
        query: LogQuery,
        each: &mut EachItem<'_, ReviewEntry>,
    ) -> Result<(), HistoryError>;

    /// The workspace's log as its hash chain holds it (every field whole, the
    /// stored hash), oldest first, until `each` says stop.
    fn each_chain_row(
        &self,
        workspace_id: &str,
        each: &mut (dyn FnMut(ChainRow) -> bool + Send),
    ) -> Result<(), HistoryError>;

    /// Adds the entries the log does not hold yet (the same workspace,
    /// project, action, time, reviewer and note), in their order; how many
    /// were added. `history copy` moves a log with it.
    fn import_review_log(
        &mut self,
        workspace_id: &str,
        entries: &[ReviewEntry],
    ) -> Result<usize, HistoryError>;

    /// Records a waiver (one transaction); returns it as stored, with who
    /// (the database role on a shared store).
    fn add_waiver(
        &mut self,
        workspace_id: &str,
        waiver: &crate::history::waivers::NewWaiver,
        now: OffsetDateTime,
    ) -> Result<crate::history::waivers::Waiver, HistoryError>;

    /// Every waiver of the workspace ever given, oldest first.
    fn all_waivers(
        &self,
        workspace_id: &str,
    ) -> Result<Vec<crate::history::waivers::Waiver>, HistoryError>;

    /// The workspace's snapshots, oldest first.
    fn list(&self, workspace_id: &str) -> Result<Vec<SnapshotInfo>, HistoryError>;

    /// The workspaces the store holds snapshots or marks of, sorted.
    fn workspaces(&self) -> Result<Vec<String>, HistoryError>;

    /// The snapshot `reference` names, if it exists (in this workspace).
    fn resolve(
        &self,
        workspace_id: &str,
        reference: &SnapshotRef,
    ) -> Result<Option<SnapshotInfo>, HistoryError>;

    /// A snapshot's insights; `None` also when this build cannot read them.
    fn insights(&self, snapshot_id: i64) -> Result<Option<Insights>, HistoryError>;

    /// The projects of a snapshot, in the inventory's order.
    fn projects(&self, snapshot_id: i64) -> Result<Vec<ProjectState>, HistoryError>;

    /// The members of a snapshot, in the order they were listed.
    fn members(&self, snapshot_id: i64) -> Result<Vec<MemberState>, HistoryError>;

    /// One project's state in a snapshot, if it holds it.
    fn project_in(
        &self,
        snapshot_id: i64,
        project_id: &str,
    ) -> Result<Option<ProjectState>, HistoryError>;

    /// The first inventory page kept with a snapshot (the newest only).
    fn first_page(&self, snapshot_id: i64) -> Result<Option<Vec<InventoryItem>>, HistoryError>;

    /// What differs between two snapshots of the workspace (either way
    /// round): only the states whose validity ranges start or end between
    /// them are read.
    fn turnover(
        &self,
        workspace_id: &str,
        before: i64,
        after: i64,
    ) -> Result<crate::history::ranges::Turnover, HistoryError>;

    /// Every snapshot's posture, oldest first, in one query; a snapshot
    /// recorded without one is left out.
    fn posture(
        &self,
        workspace_id: &str,
    ) -> Result<Vec<crate::history::posture::PostureAt>, HistoryError>;

    /// The snapshots a standing mark or a waiver refers to, each with why:
    /// `snapshot prune` keeps them.
    fn held_snapshots(
        &self,
        workspace_id: &str,
    ) -> Result<Vec<(i64, crate::history::retention::KeepReason)>, HistoryError>;

    /// Removes `doomed` (snapshots of the workspace) in one transaction,
    /// except those a mark or waiver refers to by then, with the ranges and
    /// states nothing holds any more. Returns the ids removed.
    fn forget(&mut self, workspace_id: &str, doomed: &[i64]) -> Result<Vec<i64>, HistoryError>;
}
