//! What screens ask of the history file, as operations: each reads or writes
//! the file on a blocking thread through the [`HistoryDoor`] of the
//! [`Services`], and fails (one line in the error log) when no file is open.

use crate::history::{
    HistoryError, NewMark, ProjectState, ReviewMark, SeenState, SnapshotInfo, SnapshotRef, Store,
};
use crate::tui::request::Operation;
use crate::tui::services::HistoryDoor;
use crate::tui::services::Services;
use crate::tui::vocab::{ChangeSet, ErrorInfo, SnapshotOutcome};

/// The history file's door; the error says none is open.
fn door(services: &Services) -> Result<&HistoryDoor, Box<ErrorInfo>> {
    services
        .history
        .as_ref()
        .ok_or_else(|| Box::new(services.local_failure("no history file is open".into())))
}

/// Runs `job` on the store with the workspace on screen, on a blocking thread.
async fn on_store<T: Send + 'static>(
    services: &Services,
    job: impl FnOnce(&mut Store, &str) -> Result<T, HistoryError> + Send + 'static,
) -> Result<T, ErrorInfo> {
    let workspace = services.workspace_id.clone();
    door(services)
        .map_err(|error| *error)?
        .with_store(services, move |store| job(store, &workspace))
        .await
}

/// The changes between two snapshots (`(before, after)` ids), or between
/// the newest two when `None`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DiffSnapshots {
    pub between: Option<(i64, i64)>,
}

impl Operation for DiffSnapshots {
    type Output = ChangeSet;

    async fn run(self, services: &Services) -> Result<ChangeSet, ErrorInfo> {
        on_store(services, move |store, workspace| {
            changes(store, workspace, self.between)
        })
        .await
    }
}

/// The workspace's snapshots, oldest first.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ListSnapshots;

impl Operation for ListSnapshots {
    type Output = Vec<SnapshotInfo>;

    async fn run(self, services: &Services) -> Result<Vec<SnapshotInfo>, ErrorInfo> {
        on_store(services, |store, workspace| store.list(workspace)).await
    }
}

/// The workspace's reviewed marks that the dashboard can show: of the
/// projects its newest snapshot holds, and any made since (never one per
/// project the log ever named).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ListMarks;

impl Operation for ListMarks {
    type Output = Vec<ReviewMark>;

    async fn run(self, services: &Services) -> Result<Vec<ReviewMark>, ErrorInfo> {
        on_store(services, |store, workspace| store.shown_marks(workspace)).await
    }
}

/// Marks projects reviewed now, with one optional note; each holds the row
/// as the reviewer saw it. Answers the marks written.
#[derive(Debug, Clone, PartialEq)]
pub struct MarkReviewed {
    pub projects: Vec<(String, Option<Box<SeenState>>)>,
    pub note: Option<String>,
}

impl Operation for MarkReviewed {
    type Output = Vec<ReviewMark>;

    async fn run(self, services: &Services) -> Result<Vec<ReviewMark>, ErrorInfo> {
        let door = door(services).map_err(|error| *error)?;
        let workspace = services.workspace_id.clone();
        let now = services.clock.now();
        let reviewer = door.history.config.reviewer_name();
        let note = self.note;
        let marks: Vec<NewMark> = self
            .projects
            .into_iter()
            .map(|(project_id, seen)| NewMark {
                project_id,
                note: note.clone(),
                reviewer: reviewer.clone(),
                seen: seen.map(|seen| *seen),
            })
            .collect();
        door.with_store(services, move |store| {
            store.mark_all_reviewed(&workspace, &marks, now)
        })
        .await
    }
}

/// SQLite's `data_version` of the history file: it moves when another
/// process records a snapshot or a mark.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DataVersion;

impl Operation for DataVersion {
    type Output = i64;

    async fn run(self, services: &Services) -> Result<i64, ErrorInfo> {
        door(services)
            .map_err(|error| *error)?
            .data_version(services)
            .await
    }
}

/// Walks the workspace within the budget and records a snapshot, unless
/// another's is under way or a shared history holds a fresh one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TakeSnapshot;

impl Operation for TakeSnapshot {
    type Output = SnapshotOutcome;

    async fn run(self, services: &Services) -> Result<SnapshotOutcome, ErrorInfo> {
        door(services)
            .map_err(|error| *error)?
            .take_snapshot(services)
            .await
    }
}

/// The newest snapshot's state of one project (the project screen's facts
/// when its row is not loaded); `None` when that snapshot does not hold it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LatestProjectState {
    pub project_id: String,
}

impl Operation for LatestProjectState {
    type Output = Option<(SnapshotInfo, ProjectState)>;

    async fn run(
        self,
        services: &Services,
    ) -> Result<Option<(SnapshotInfo, ProjectState)>, ErrorInfo> {
        on_store(services, move |store, workspace| {
            store.latest_project_state(workspace, &self.project_id)
        })
        .await
    }
}

/// The diff between the snapshots `between` names, or the newest two.
fn changes(
    store: &Store,
    workspace: &str,
    between: Option<(i64, i64)>,
) -> Result<ChangeSet, HistoryError> {
    let (before, after) = match between {
        Some((before, after)) => (SnapshotRef::Id(before), SnapshotRef::Id(after)),
        None => (SnapshotRef::Previous, SnapshotRef::Last),
    };
    let before = store.resolve(workspace, &before)?;
    let after = store.resolve(workspace, &after)?;
    let (Some(before), Some(after)) = (before, after) else {
        return Ok(ChangeSet {
            before: None,
            after: None,
            changes: Vec::new(),
        });
    };
    let changes = store.changes(&before, &after)?;
    Ok(ChangeSet {
        before: Some(before),
        after: Some(after),
        changes,
    })
}
