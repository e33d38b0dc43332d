//! The shared database as a [`Backend`]: each call one step on the kept
//! connection (`read.rs`, `write.rs`), each write in one transaction; the
//! workspace's snapshot lock is a session advisory lock on its key.

use time::OffsetDateTime;

use super::column::column;
use super::{PgStore, ranges, read, write};
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

impl Backend for PgStore {
    fn location(&self) -> &HistoryLocation {
        &self.location
    }

    fn check(&mut self) -> Result<(), HistoryError> {
        self.run(|client| {
            client.simple_query("SELECT 1")?;
            Ok(())
        })
    }

    fn data_version(&self) -> Result<i64, HistoryError> {
        self.run(|client| {
            let row =
                client.query_one("SELECT value FROM vantage_meta WHERE key = 'revision'", &[])?;
            column(&row, "vantage_meta", 0)
        })
    }

    fn record(
        &mut self,
        capture: &Capture,
        retention: Retention,
    ) -> Result<SnapshotInfo, HistoryError> {
        // The job outlives no borrow: the walk is handed over whole.
        let capture = capture.clone();
        self.run(move |client| {
            let capture = &capture;
            let mut transaction = client.transaction()?;
            let info = write::record(&mut transaction, capture, retention)?;
            transaction.commit()?;
            Ok(info)
        })
    }

    fn prune(
        &mut self,
        workspace_id: &str,
        retention: Retention,
        now: OffsetDateTime,
    ) -> Result<usize, HistoryError> {
        let workspace_id = workspace_id.to_owned();
        self.run(move |client| {
            let mut transaction = client.transaction()?;
            let removed = write::prune(&mut transaction, &workspace_id, retention, now)?;
            transaction.commit()?;
            Ok(removed)
        })
    }

    fn lock_workspace(
        &mut self,
        workspace_id: &str,
        wait: LockWait,
    ) -> Result<WorkspaceLock, HistoryError> {
        let key = workspace_lock_key(workspace_id);
        self.run(move |client| {
            let row = client.query_one("SELECT pg_try_advisory_lock($1) AS taken", &[&key])?;
            let taken: bool = column(&row, "", 0)?;
            if taken {
                return Ok(WorkspaceLock::Taken);
            }
            let limit = match wait {
                LockWait::No => return Ok(WorkspaceLock::Busy),
                // lock_timeout 0 is no timeout.
                LockWait::Forever => std::time::Duration::ZERO,
                // The shortest timeout there is: 1 ms.
                LockWait::UpTo(limit) => limit.max(std::time::Duration::from_millis(1)),
            };
            // Another snapshot may take minutes: this one wait is bounded by
            // the caller's limit alone, never by the session's own
            // statement_timeout and lock_timeout, which SET LOCAL leaves as
            // they were (the session lock outlives the transaction that took
            // it). lock_timeout is an integer of milliseconds.
            let millis = limit.as_millis().min(i32::MAX as u128);
            let mut waiting = client.transaction()?;
            waiting.batch_execute(&format!(
                "SET LOCAL lock_timeout = {millis}; SET LOCAL statement_timeout = 0"
            ))?;
            match waiting.execute("SELECT pg_advisory_lock($1)", &[&key]) {
                Ok(_) => {
                    waiting.commit()?;
                    Ok(WorkspaceLock::TakenAfterWaiting)
                }
                // The transaction is rolled back as it is dropped.
                Err(error)
                    if error.code() == Some(&postgres::error::SqlState::LOCK_NOT_AVAILABLE) =>
                {
                    Ok(WorkspaceLock::TimedOut)
                }
                Err(error) => Err(error.into()),
            }
        })
    }

    fn still_connected(&mut self) -> Result<(), HistoryError> {
        self.check_kept()
    }

    fn unlock_workspace(&mut self, workspace_id: &str) -> Result<(), HistoryError> {
        let key = workspace_lock_key(workspace_id);
        self.run(move |client| {
            client.execute("SELECT pg_advisory_unlock($1)", &[&key])?;
            Ok(())
        })
    }

    fn mark_all_reviewed(
        &mut self,
        workspace_id: &str,
        marks: &[NewMark],
        now: OffsetDateTime,
    ) -> Result<Vec<ReviewMark>, HistoryError> {
        let (workspace_id, marks) = (workspace_id.to_owned(), marks.to_vec());
        self.run(move |client| {
            let workspace_id = workspace_id.as_str();
            let mut transaction = client.transaction()?;
            write::mark_all(&mut transaction, workspace_id, &marks, now)?;
            transaction.commit()?;
            let wanted: Vec<String> = marks.iter().map(|mark| mark.project_id.clone()).collect();
            let mut made = Vec::new();
            read::each_mark(
                client,
                workspace_id,
                MarkScope::Projects(&wanted),
                &mut |mark| {
                    made.push(mark);
                    Ok(())
                },
            )?;
            Ok(made)
        })
    }

    fn unmark(&mut self, unmark: ChainFields) -> Result<bool, HistoryError> {
        self.run(move |client| {
            let mut transaction = client.transaction()?;
            let marked = write::unmark(&mut transaction, unmark)?;
            transaction.commit()?;
            Ok(marked)
        })
    }

    fn each_reviewed_mark(
        &self,
        workspace_id: &str,
        scope: MarkScope<'_>,
        each: &mut EachItem<'_, ReviewMark>,
    ) -> Result<(), HistoryError> {
        let workspace_id = workspace_id.to_owned();
        let scope = OwnedScope::from(scope);
        self.worker.stream(
            move |client, relay| read::each_mark(client, &workspace_id, scope.borrowed(), relay),
            each,
        )
    }

    fn each_log_entry(
        &self,
        query: LogQuery,
        each: &mut EachItem<'_, ReviewEntry>,
    ) -> Result<(), HistoryError> {
        self.worker.stream(
            move |client, relay| read::each_entry(client, &query, relay),
            each,
        )
    }

    fn each_chain_row(
        &self,
        workspace_id: &str,
        each: &mut (dyn FnMut(ChainRow) -> bool + Send),
    ) -> Result<(), HistoryError> {
        let workspace_id = workspace_id.to_owned();
        let relayed = self.worker.stream(
            move |client, relay| {
                read::each_chain_row(client, &workspace_id, &mut |row| relay(row).is_ok())
            },
            &mut |row| {
                if each(row) {
                    Ok(())
                } else {
                    Err(HistoryError::Stopped)
                }
            },
        );
        // `each` said it had read enough: the read is done, not failed.
        match relayed {
            Err(HistoryError::Stopped) => Ok(()),
            other => other,
        }
    }

    fn import_review_log(
        &mut self,
        workspace_id: &str,
        entries: &[ReviewEntry],
    ) -> Result<usize, HistoryError> {
        let (workspace_id, entries) = (workspace_id.to_owned(), entries.to_vec());
        self.run(move |client| {
            let mut transaction = client.transaction()?;
            let added = write::import_log(&mut transaction, &workspace_id, &entries)?;
            transaction.commit()?;
            Ok(added)
        })
    }

    fn add_waiver(
        &mut self,
        workspace_id: &str,
        waiver: &crate::history::waivers::NewWaiver,
        now: OffsetDateTime,
    ) -> Result<crate::history::waivers::Waiver, HistoryError> {
        let (workspace_id, waiver) = (workspace_id.to_owned(), waiver.clone());
        self.run(move |client| {
            let mut transaction = client.transaction()?;
            let added = super::waivers::add(&mut transaction, &workspace_id, &waiver, now)?;
            transaction.commit()?;
            Ok(added)
        })
    }

    fn all_waivers(
        &self,
        workspace_id: &str,
    ) -> Result<Vec<crate::history::waivers::Waiver>, HistoryError> {
        let workspace_id = workspace_id.to_owned();
        self.run(move |client| super::waivers::all(client, &workspace_id))
    }

    fn list(&self, workspace_id: &str) -> Result<Vec<SnapshotInfo>, HistoryError> {
        let workspace_id = workspace_id.to_owned();
        self.run(move |client| read::list(client, &workspace_id))
    }

    fn workspaces(&self) -> Result<Vec<String>, HistoryError> {
        self.run(read::workspaces)
    }

    fn resolve(
        &self,
        workspace_id: &str,
        reference: &SnapshotRef,
    ) -> Result<Option<SnapshotInfo>, HistoryError> {
        let (workspace_id, reference) = (workspace_id.to_owned(), reference.clone());
        self.run(move |client| read::resolve(client, &workspace_id, &reference))
    }

    fn insights(&self, snapshot_id: i64) -> Result<Option<Insights>, HistoryError> {
        self.run(move |client| read::insights(client, snapshot_id))
    }

    fn projects(&self, snapshot_id: i64) -> Result<Vec<ProjectState>, HistoryError> {
        self.run(move |client| read::listed(client, snapshot_id))
    }

    fn members(&self, snapshot_id: i64) -> Result<Vec<MemberState>, HistoryError> {
        self.run(move |client| read::listed(client, snapshot_id))
    }

    fn project_in(
        &self,
        snapshot_id: i64,
        project_id: &str,
    ) -> Result<Option<ProjectState>, HistoryError> {
        let project_id = project_id.to_owned();
        self.run(move |client| read::project_in(client, snapshot_id, &project_id))
    }

    fn first_page(&self, snapshot_id: i64) -> Result<Option<Vec<InventoryItem>>, HistoryError> {
        self.run(move |client| read::first_page(client, snapshot_id))
    }

    fn turnover(
        &self,
        workspace_id: &str,
        before: i64,
        after: i64,
    ) -> Result<Turnover, HistoryError> {
        let workspace_id = workspace_id.to_owned();
        self.run(move |client| ranges::turnover(client, &workspace_id, before, after))
    }

    fn posture(&self, workspace_id: &str) -> Result<Vec<PostureAt>, HistoryError> {
        let workspace_id = workspace_id.to_owned();
        self.run(move |client| ranges::posture(client, &workspace_id))
    }

    fn held_snapshots(&self, workspace_id: &str) -> Result<Vec<(i64, KeepReason)>, HistoryError> {
        let workspace_id = workspace_id.to_owned();
        self.run(move |client| ranges::held_snapshots(client, &workspace_id))
    }

    fn forget(&mut self, workspace_id: &str, doomed: &[i64]) -> Result<Vec<i64>, HistoryError> {
        let (workspace_id, doomed) = (workspace_id.to_owned(), doomed.to_vec());
        self.run(move |client| {
            let mut transaction = client.transaction()?;
            let removed = write::forget(&mut transaction, &workspace_id, &doomed)?;
            transaction.commit()?;
            Ok(removed)
        })
    }
}

/// [`MarkScope`] owned, to travel to the connection's thread.
enum OwnedScope {
    All,
    Projects(Vec<String>),
    Shown,
}

impl From<MarkScope<'_>> for OwnedScope {
    fn from(scope: MarkScope<'_>) -> Self {
        match scope {
            MarkScope::All => Self::All,
            MarkScope::Projects(ids) => Self::Projects(ids.to_vec()),
            MarkScope::Shown => Self::Shown,
        }
    }
}

impl OwnedScope {
    fn borrowed(&self) -> MarkScope<'_> {
        match self {
            Self::All => MarkScope::All,
            Self::Projects(ids) => MarkScope::Projects(ids),
            Self::Shown => MarkScope::Shown,
        }
    }
}
