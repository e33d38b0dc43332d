//! The file as a [`Backend`]: each call handed to the file's own code
//! (`mod.rs`, `read.rs`, `marks.rs`), and the workspace's snapshot lock as a
//! lock file beside it.

use std::fs::TryLockError;

use time::OffsetDateTime;

use super::marks::unmark as unmark_in;
use super::ranges::held_snapshots;
use super::{SqliteStore, prune_in};
use crate::api::model::{Insights, InventoryItem};
use crate::history::backend::{
    Backend, EachItem, HistoryLocation, LockWait, LogQuery, Retention, WorkspaceLock,
};
use crate::history::chain::{ChainFields, ChainRow};
use crate::history::model::{
    Capture, MarkScope, MemberState, NewMark, ProjectState, ReviewEntry, ReviewMark, SnapshotInfo,
};
use crate::history::posture::PostureAt;
use crate::history::ranges::Turnover;
use crate::history::read::SnapshotRef;
use crate::history::retention::KeepReason;
use crate::history::{HistoryError, workspace_lock_key};

/// Tries the lock file's lock until `limit` has passed: a file lock has no
/// timed wait, so it is asked again, at most every quarter second.
fn lock_within(
    file: &std::fs::File,
    limit: std::time::Duration,
) -> Result<WorkspaceLock, std::io::Error> {
    let deadline = std::time::Instant::now() + limit;
    let mut pause = std::time::Duration::from_millis(10);
    loop {
        let left = deadline.saturating_duration_since(std::time::Instant::now());
        if left.is_zero() {
            return Ok(WorkspaceLock::TimedOut);
        }
        std::thread::sleep(pause.min(left));
        match file.try_lock() {
            Ok(()) => return Ok(WorkspaceLock::TakenAfterWaiting),
            Err(TryLockError::WouldBlock) => {}
            Err(TryLockError::Error(error)) => return Err(error),
        }
        pause = (pause * 2).min(std::time::Duration::from_millis(250));
    }
}

impl SqliteStore {
    /// `history.sqlite3.lock-<key>`: one lock file per workspace.
    fn lock_path(&self, workspace_id: &str) -> Option<std::path::PathBuf> {
        let HistoryLocation::File(path) = &self.location else {
            return None;
        };
        let mut name = path.file_name()?.to_os_string();
        name.push(format!(".lock-{:016x}", workspace_lock_key(workspace_id)));
        Some(path.with_file_name(name))
    }
}

impl Backend for SqliteStore {
    fn location(&self) -> &HistoryLocation {
        &self.location
    }

    fn add_waiver(
        &mut self,
        workspace_id: &str,
        waiver: &crate::history::waivers::NewWaiver,
        now: OffsetDateTime,
    ) -> Result<crate::history::waivers::Waiver, HistoryError> {
        SqliteStore::add_waiver(self, workspace_id, waiver, now)
    }

    fn all_waivers(
        &self,
        workspace_id: &str,
    ) -> Result<Vec<crate::history::waivers::Waiver>, HistoryError> {
        SqliteStore::all_waivers(self, workspace_id)
    }

    fn check(&mut self) -> Result<(), HistoryError> {
        self.data_version().map(drop)
    }

    fn data_version(&self) -> Result<i64, HistoryError> {
        SqliteStore::data_version(self)
    }

    fn record(
        &mut self,
        capture: &Capture,
        retention: Retention,
    ) -> Result<SnapshotInfo, HistoryError> {
        SqliteStore::record(self, capture, retention)
    }

    fn prune(
        &mut self,
        workspace_id: &str,
        retention: Retention,
        now: OffsetDateTime,
    ) -> Result<usize, HistoryError> {
        let transaction = self.write()?;
        let removed = prune_in(&transaction, workspace_id, retention, now)?;
        transaction.commit()?;
        if removed > 0 {
            self.reclaim();
        }
        Ok(removed)
    }

    fn lock_workspace(
        &mut self,
        workspace_id: &str,
        wait: LockWait,
    ) -> Result<WorkspaceLock, HistoryError> {
        let Some(path) = self.lock_path(workspace_id) else {
            return Ok(WorkspaceLock::Taken);
        };
        let io = |source| HistoryError::Io {
            path: path.clone(),
            source,
        };
        let file = crate::safe_file::open_private_append(&path).map_err(io)?;
        let outcome = match file.try_lock() {
            Ok(()) => WorkspaceLock::Taken,
            Err(TryLockError::WouldBlock) => match wait {
                LockWait::No => return Ok(WorkspaceLock::Busy),
                LockWait::Forever => {
                    file.lock().map_err(io)?;
                    WorkspaceLock::TakenAfterWaiting
                }
                LockWait::UpTo(limit) => match lock_within(&file, limit).map_err(io)? {
                    WorkspaceLock::TimedOut => return Ok(WorkspaceLock::TimedOut),
                    taken => taken,
                },
            },
            Err(TryLockError::Error(error)) => return Err(io(error)),
        };
        self.locks.insert(workspace_id.to_owned(), file);
        Ok(outcome)
    }

    fn unlock_workspace(&mut self, workspace_id: &str) -> Result<(), HistoryError> {
        // Closing the file lets the lock go.
        self.locks.remove(workspace_id);
        Ok(())
    }

    fn mark_all_reviewed(
        &mut self,
        workspace_id: &str,
        marks: &[NewMark],
        now: OffsetDateTime,
    ) -> Result<Vec<ReviewMark>, HistoryError> {
        self.mark_all(workspace_id, marks, now)
    }

    fn unmark(&mut self, unmark: ChainFields) -> Result<bool, HistoryError> {
        let transaction = self.write()?;
        let marked = unmark_in(&transaction, &unmark)?;
        transaction.commit()?;
        Ok(marked)
    }

    fn each_reviewed_mark(
        &self,
        workspace_id: &str,
        scope: MarkScope<'_>,
        each: &mut EachItem<'_, ReviewMark>,
    ) -> Result<(), HistoryError> {
        self.each_mark(workspace_id, scope, each)
    }

    fn each_log_entry(
        &self,
        query: LogQuery,
        each: &mut EachItem<'_, ReviewEntry>,
    ) -> Result<(), HistoryError> {
        self.each_entry(&query, each)
    }

    fn each_chain_row(
        &self,
        workspace_id: &str,
        each: &mut (dyn FnMut(ChainRow) -> bool + Send),
    ) -> Result<(), HistoryError> {
        SqliteStore::each_chain_row(self, workspace_id, each)
    }

    fn import_review_log(
        &mut self,
        workspace_id: &str,
        entries: &[ReviewEntry],
    ) -> Result<usize, HistoryError> {
        self.import_log(workspace_id, entries)
    }

    fn list(&self, workspace_id: &str) -> Result<Vec<SnapshotInfo>, HistoryError> {
        SqliteStore::list(self, workspace_id)
    }

    fn workspaces(&self) -> Result<Vec<String>, HistoryError> {
        SqliteStore::workspaces(self)
    }

    fn resolve(
        &self,
        workspace_id: &str,
        reference: &SnapshotRef,
    ) -> Result<Option<SnapshotInfo>, HistoryError> {
        SqliteStore::resolve(self, workspace_id, reference)
    }

    fn insights(&self, snapshot_id: i64) -> Result<Option<Insights>, HistoryError> {
        SqliteStore::insights(self, snapshot_id)
    }

    fn projects(&self, snapshot_id: i64) -> Result<Vec<ProjectState>, HistoryError> {
        SqliteStore::projects(self, snapshot_id)
    }

    fn members(&self, snapshot_id: i64) -> Result<Vec<MemberState>, HistoryError> {
        SqliteStore::members(self, snapshot_id)
    }

    fn project_in(
        &self,
        snapshot_id: i64,
        project_id: &str,
    ) -> Result<Option<ProjectState>, HistoryError> {
        SqliteStore::project_in(self, snapshot_id, project_id)
    }

    fn first_page(&self, snapshot_id: i64) -> Result<Option<Vec<InventoryItem>>, HistoryError> {
        SqliteStore::first_page(self, snapshot_id)
    }

    fn turnover(
        &self,
        workspace_id: &str,
        before: i64,
        after: i64,
    ) -> Result<Turnover, HistoryError> {
        SqliteStore::turnover(self, workspace_id, before, after)
    }

    fn posture(&self, workspace_id: &str) -> Result<Vec<PostureAt>, HistoryError> {
        SqliteStore::posture(self, workspace_id)
    }

    fn held_snapshots(&self, workspace_id: &str) -> Result<Vec<(i64, KeepReason)>, HistoryError> {
        held_snapshots(&self.connection, workspace_id)
    }

    fn forget(&mut self, workspace_id: &str, doomed: &[i64]) -> Result<Vec<i64>, HistoryError> {
        SqliteStore::forget(self, workspace_id, doomed)
    }
}
