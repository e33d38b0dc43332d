//! One history, two stores: the local SQLite file (the default, for one
//! person) and a shared PostgreSQL database (for a team). The history code
//! speaks to [`Store`], which hands each call to its [`Backend`]; both keep
//! the same snapshots, states (documents), marks and review log, and the same
//! tests run on both.

use std::collections::HashSet;
use std::ops::{Deref, DerefMut};

use time::OffsetDateTime;

use super::HistoryError;
use super::backend::{Backend, EachItem, HistoryLocation, LockWait, LogQuery, WorkspaceLock};
use super::chain::{ChainCheck, ChainFields, Verifier};
use super::diff::{Change, diff};
use super::model::{
    LogRead, MarkScope, NewMark, ProjectState, ReviewEntry, ReviewMark, Snapshot, SnapshotInfo,
};
use super::postgres::PgStore;
use super::read::SnapshotRef;
use super::retention::{KeepPolicy, PruneOutcome, decide};
use super::sqlite::SqliteStore;
use crate::api::model::{Insights, InventoryItem};

/// The history: a store behind the one interface.
pub struct Store {
    backend: Box<dyn Backend>,
    /// The workspaces whose snapshot lock this store holds: asked again, a
    /// lock is not asked of the backend twice, nor let go when not held.
    held_locks: HashSet<String>,
}

impl Store {
    /// Opens the history at `location`: the file created when missing, the
    /// database connected to; either brought up to the current schema.
    pub fn open_at(location: &HistoryLocation) -> Result<Self, HistoryError> {
        let backend: Box<dyn Backend> = match location {
            HistoryLocation::File(path) => Box::new(SqliteStore::open(path)?),
            HistoryLocation::Database(target) => Box::new(PgStore::connect(target)?),
        };
        Ok(Self {
            backend,
            held_locks: HashSet::new(),
        })
    }

    /// Opens (creating when missing) the local history file at `path`.
    pub fn open(path: &std::path::Path) -> Result<Self, HistoryError> {
        Self::open_at(&HistoryLocation::File(path.to_path_buf()))
    }

    /// Takes the workspace's snapshot lock ([`Backend::lock_workspace`]);
    /// one this store holds already is taken again at once.
    pub fn lock_workspace(
        &mut self,
        workspace_id: &str,
        wait: LockWait,
    ) -> Result<WorkspaceLock, HistoryError> {
        if self.held_locks.contains(workspace_id) {
            return Ok(WorkspaceLock::Taken);
        }
        let outcome = self.backend.lock_workspace(workspace_id, wait)?;
        if matches!(
            outcome,
            WorkspaceLock::Taken | WorkspaceLock::TakenAfterWaiting
        ) {
            self.held_locks.insert(workspace_id.to_owned());
        }
        Ok(outcome)
    }

    /// Lets the workspace's snapshot lock go, when this store holds it.
    pub fn unlock_workspace(&mut self, workspace_id: &str) -> Result<(), HistoryError> {
        if !self.held_locks.remove(workspace_id) {
            return Ok(());
        }
        self.backend.unlock_workspace(workspace_id)
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

    /// Removes the mark (the log keeps that it was removed, by whom, when);
    /// `false` when there was none.
    pub fn unmark_reviewed(
        &mut self,
        workspace_id: &str,
        project_id: &str,
        reviewer: Option<&str>,
        now: OffsetDateTime,
    ) -> Result<bool, HistoryError> {
        let unmark = ChainFields::unmark(workspace_id, project_id, reviewer, now);
        self.backend.unmark(unmark)
    }

    /// The audit trail: every entry of the workspace's log (of one project
    /// when given), oldest first, handed to `each` as the store reads them.
    pub fn each_review_entry(
        &self,
        workspace_id: &str,
        project_id: Option<&str>,
        read: LogRead,
        each: &mut EachItem<'_, ReviewEntry>,
    ) -> Result<(), HistoryError> {
        let query = LogQuery {
            workspace_id: workspace_id.to_owned(),
            project_id: project_id.map(str::to_owned),
            read,
        };
        self.backend.each_log_entry(query, each)
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
