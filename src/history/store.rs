//! One history, two stores: the local SQLite file (the default, for one
//! person) and a shared PostgreSQL database (for a team). The history code
//! speaks to [`Store`], which hands each call to its [`Backend`]; both keep
//! the same snapshots, states (documents), marks and review log, and the same
//! tests run on both.

use std::ops::{Deref, DerefMut};
use std::path::PathBuf;
use std::time::Duration;

use time::OffsetDateTime;

use super::HistoryError;
use super::chain::{ChainCheck, ChainRow, Verifier};
use super::diff::{Change, diff};
use super::model::{
    Capture, LogRead, MarkScope, MemberState, NewMark, ProjectState, ReviewEntry, ReviewMark,
    Snapshot, SnapshotInfo,
};
use super::postgres::{PgStore, PgTarget};
use super::posture::PostureAt;
use super::ranges::Turnover;
use super::read::SnapshotRef;
use super::retention::{KeepPolicy, KeepReason, PruneOutcome, decide};
use super::sqlite::SqliteStore;
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

    /// Removes the mark (the log keeps that it was removed, by whom, when);
    /// `false` when there was none.
    fn unmark_reviewed(
        &mut self,
        workspace_id: &str,
        project_id: &str,
        reviewer: Option<&str>,
        now: OffsetDateTime,
    ) -> Result<bool, HistoryError>;

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

    /// The audit trail: every mark and unmark of the workspace (of one project
    /// when given), oldest first, handed to `each` as the store reads them.
    fn each_review_entry(
        &self,
        workspace_id: &str,
        project_id: Option<&str>,
        read: LogRead,
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
    ) -> Result<Turnover, HistoryError>;

    /// Every snapshot's posture, oldest first, in one query; a snapshot
    /// recorded without one is left out.
    fn posture(&self, workspace_id: &str) -> Result<Vec<PostureAt>, HistoryError>;

    /// The snapshots a standing mark or a waiver refers to, each with why:
    /// `snapshot prune` keeps them.
    fn held_snapshots(&self, workspace_id: &str) -> Result<Vec<(i64, KeepReason)>, HistoryError>;

    /// Removes `doomed` (snapshots of the workspace) in one transaction,
    /// except those a mark or waiver refers to by then, with the ranges and
    /// states nothing holds any more. Returns the ids removed.
    fn forget(&mut self, workspace_id: &str, doomed: &[i64]) -> Result<Vec<i64>, HistoryError>;
}

/// The history: a store behind the one interface.
pub struct Store {
    backend: Box<dyn Backend>,
}

impl Store {
    /// Opens the history at `location`: the file created when missing, the
    /// database connected to; either brought up to the current schema.
    pub fn open_at(location: &HistoryLocation) -> Result<Self, HistoryError> {
        let backend: Box<dyn Backend> = match location {
            HistoryLocation::File(path) => Box::new(SqliteStore::open(path)?),
            HistoryLocation::Database(target) => Box::new(PgStore::connect(target)?),
        };
        Ok(Self { backend })
    }

    /// Opens (creating when missing) the local history file at `path`.
    pub fn open(path: &std::path::Path) -> Result<Self, HistoryError> {
        Self::open_at(&HistoryLocation::File(path.to_path_buf()))
    }

    /// What a person reads about where the history is.
    pub fn describe(&self) -> String {
        self.backend.location().describe()
    }

    /// Marks `mark.project_id` reviewed now (again, when it was: the newest
    /// mark is the one that counts; earlier ones stay in the log).
    pub fn mark_reviewed(
        &mut self,
        workspace_id: &str,
        mark: &NewMark,
        now: OffsetDateTime,
    ) -> Result<ReviewMark, HistoryError> {
        let mut made = self.mark_all_reviewed(workspace_id, std::slice::from_ref(mark), now)?;
        made.pop()
            .ok_or_else(|| HistoryError::Corrupt("a mark just written is missing".into()))
    }

    /// Every mark of the workspace that stands, newest first (see
    /// [`Backend::each_reviewed_mark`]).
    pub fn reviewed_marks(&self, workspace_id: &str) -> Result<Vec<ReviewMark>, HistoryError> {
        let mut marks = Vec::new();
        self.each_reviewed_mark(workspace_id, MarkScope::All, &mut |mark| {
            marks.push(mark);
            Ok(())
        })?;
        Ok(marks)
    }

    /// The marks that stand of `project_ids` only, newest first.
    pub fn reviewed_marks_of(
        &self,
        workspace_id: &str,
        project_ids: &[String],
    ) -> Result<Vec<ReviewMark>, HistoryError> {
        let mut marks = Vec::new();
        self.each_reviewed_mark(
            workspace_id,
            MarkScope::Projects(project_ids),
            &mut |mark| {
                marks.push(mark);
                Ok(())
            },
        )?;
        Ok(marks)
    }

    /// The marks a dashboard can show ([`MarkScope::Shown`]), newest first.
    pub fn shown_marks(&self, workspace_id: &str) -> Result<Vec<ReviewMark>, HistoryError> {
        let mut marks = Vec::new();
        self.each_reviewed_mark(workspace_id, MarkScope::Shown, &mut |mark| {
            marks.push(mark);
            Ok(())
        })?;
        Ok(marks)
    }

    /// The workspace's log (one project's when given), oldest first, as `read` says.
    pub fn review_log(
        &self,
        workspace_id: &str,
        project_id: Option<&str>,
        read: LogRead,
    ) -> Result<Vec<ReviewEntry>, HistoryError> {
        let mut entries = Vec::new();
        self.each_review_entry(workspace_id, project_id, read, &mut |entry| {
            entries.push(entry);
            Ok(())
        })?;
        Ok(entries)
    }

    /// Walks the workspace's log along its hash chain: how many entries
    /// match, and the first that does not (changed, or an entry before it
    /// removed or inserted out of order). One row in memory at a time.
    pub fn verify_review_log(&self, workspace_id: &str) -> Result<ChainCheck, HistoryError> {
        let mut verifier = Verifier::default();
        self.each_chain_row(workspace_id, &mut |row| verifier.next(row))?;
        Ok(verifier.finish())
    }

    /// [`Store::verify_review_log`] as a command reads it: how many entries
    /// the chain holds, or [`HistoryError::BrokenChain`] naming the first
    /// entry that does not match.
    pub fn check_review_log(&self, workspace_id: &str) -> Result<u64, HistoryError> {
        let check = self.verify_review_log(workspace_id)?;
        let Some(broken) = check.broken else {
            return Ok(check.entries);
        };
        let at = super::read::from_ms(broken.at_ms, "review.at_ms")
            .map(crate::timefmt::date_time)
            .unwrap_or_else(|_| broken.at_ms.to_string());
        Err(HistoryError::BrokenChain {
            store: self.describe(),
            workspace: crate::text::escape_invisible(workspace_id).into_owned(),
            id: broken.id,
            what: format!(
                "{} of project {} at {at}",
                crate::text::escape_invisible(&broken.action),
                crate::text::escape_invisible(&broken.project_id)
            ),
            cause: if broken.missing {
                "it holds no hash: it was written around vantage"
            } else {
                "it was changed, or an entry before it was removed or inserted out of order"
            },
        })
    }

    /// The newest snapshot of the workspace, if any.
    pub fn latest_snapshot(
        &self,
        workspace_id: &str,
    ) -> Result<Option<SnapshotInfo>, HistoryError> {
        self.resolve(workspace_id, &SnapshotRef::Last)
    }

    /// Whether the workspace's newest snapshot is older than `max_age`,
    /// dated in the future, or missing: the dashboard then takes one in the
    /// background ([`SnapshotInfo::freshness`]).
    pub fn snapshot_due(
        &self,
        workspace_id: &str,
        max_age: time::Duration,
        now: OffsetDateTime,
    ) -> Result<bool, HistoryError> {
        Ok(self
            .latest_snapshot(workspace_id)?
            .is_none_or(|latest| latest.freshness(max_age, now) != super::Freshness::Fresh))
    }

    /// The changes from `before` to `after` (snapshots of one workspace),
    /// read from the states that differ only.
    pub fn changes(
        &self,
        before: &SnapshotInfo,
        after: &SnapshotInfo,
    ) -> Result<Vec<Change>, HistoryError> {
        let turnover = self.turnover(&after.workspace_id, before.id, after.id)?;
        let side = |info: &SnapshotInfo, projects, members| Snapshot {
            info: info.clone(),
            insights: None,
            projects,
            members,
        };
        Ok(diff(
            &side(before, turnover.projects.0, turnover.members.0),
            &side(after, turnover.projects.1, turnover.members.1),
        ))
    }

    /// `snapshot prune --keep-*`: decides by `policy` (`retention.rs`) and,
    /// unless `dry_run`, removes what no rule, mark or waiver keeps, in one
    /// transaction. A snapshot that a mark made meanwhile needs stays, and
    /// is said so.
    pub fn prune_keeping(
        &mut self,
        workspace_id: &str,
        policy: KeepPolicy,
        dry_run: bool,
    ) -> Result<PruneOutcome, HistoryError> {
        let snapshots = self.list(workspace_id)?;
        let held = self.held_snapshots(workspace_id)?;
        let mut verdicts = decide(&snapshots, policy, &held);
        if dry_run {
            return Ok(PruneOutcome {
                verdicts,
                applied: false,
            });
        }
        let doomed: Vec<i64> = verdicts
            .iter()
            .filter(|verdict| verdict.kept.is_empty())
            .map(|verdict| verdict.snapshot.id)
            .collect();
        let removed: std::collections::HashSet<i64> =
            self.forget(workspace_id, &doomed)?.into_iter().collect();
        if removed.len() < doomed.len() {
            let held = self.held_snapshots(workspace_id)?;
            for verdict in verdicts.iter_mut() {
                if verdict.kept.is_empty() && !removed.contains(&verdict.snapshot.id) {
                    verdict.kept = held
                        .iter()
                        .filter(|(id, _)| *id == verdict.snapshot.id)
                        .map(|(_, reason)| reason.clone())
                        .collect();
                }
            }
        }
        Ok(PruneOutcome {
            verdicts,
            applied: true,
        })
    }

    /// One snapshot whole: its projects in inventory order, its members.
    pub fn load(&self, info: &SnapshotInfo) -> Result<Snapshot, HistoryError> {
        Ok(Snapshot {
            info: info.clone(),
            insights: self.insights(info.id)?,
            projects: self.projects(info.id)?,
            members: self.members(info.id)?,
        })
    }

    /// The newest snapshot's state of one project, with the snapshot (for its
    /// age): `None` when there is no snapshot or the newest does not hold it
    /// (an older one may, but its facts would be older than the newest's list).
    pub fn latest_project_state(
        &self,
        workspace_id: &str,
        project_id: &str,
    ) -> Result<Option<(SnapshotInfo, ProjectState)>, HistoryError> {
        let Some(latest) = self.latest_snapshot(workspace_id)? else {
            return Ok(None);
        };
        Ok(self
            .project_in(latest.id, project_id)?
            .map(|state| (latest, state)))
    }

    /// The newest snapshot's insights, with the snapshot (for its age).
    pub fn latest_insights(
        &self,
        workspace_id: &str,
    ) -> Result<Option<(SnapshotInfo, Insights)>, HistoryError> {
        let Some(latest) = self.latest_snapshot(workspace_id)? else {
            return Ok(None);
        };
        Ok(self.insights(latest.id)?.map(|insights| (latest, insights)))
    }

    /// The newest snapshot's first inventory page as the service sent it (the
    /// default order), with the snapshot (for its age): what an instant start draws.
    pub fn first_inventory_page(
        &self,
        workspace_id: &str,
    ) -> Result<Option<(SnapshotInfo, Vec<InventoryItem>)>, HistoryError> {
        let Some(latest) = self.latest_snapshot(workspace_id)? else {
            return Ok(None);
        };
        Ok(self.first_page(latest.id)?.map(|items| (latest, items)))
    }
}

impl Deref for Store {
    type Target = dyn Backend;

    fn deref(&self) -> &Self::Target {
        self.backend.as_ref()
    }
}

impl DerefMut for Store {
    fn deref_mut(&mut self) -> &mut Self::Target {
        self.backend.as_mut()
    }
}
