//! Answers the history requests from the history file, and hands every other
//! request to the API executor. The file is opened per request on a blocking
//! thread (SQLite is quick; the screen never waits on it), so a failure here is
//! one error in the log, never a broken dashboard.

use std::path::PathBuf;
use std::sync::Arc;

use tokio::sync::mpsc;

use super::request::{ChangeSet, HistoryReply, HistoryRequest};
use crate::history::walk::{self, WalkEvent, WalkOptions};
use crate::history::{HistoryConfig, HistoryError, SnapshotRef, Store};
use crate::tui::app::ClientNotice;
use crate::tui::effect::{ErrorInfo, Reply, Request};
use crate::tui::executor::{ClientExecutor, error_info};
use crate::tui::runtime::Executor;

/// Where the workspace's history is, and how to walk it.
#[derive(Clone)]
pub struct HistoryAccess {
    pub path: PathBuf,
    pub config: HistoryConfig,
    /// Where the background snapshot reports its progress (the status line).
    pub progress: Option<mpsc::UnboundedSender<ClientNotice>>,
}

/// The API executor with the history beside it.
#[derive(Clone)]
pub struct WithHistory {
    pub inner: ClientExecutor,
    pub history: HistoryAccess,
    /// Held while a snapshot is walked: never two at once.
    walking: Arc<tokio::sync::Mutex<()>>,
}

impl WithHistory {
    pub fn new(inner: ClientExecutor, history: HistoryAccess) -> Self {
        Self::sharing(inner, history, Arc::new(tokio::sync::Mutex::new(())))
    }

    /// One whose background snapshots wait on `walking` (shared across context
    /// switches, so two never run at once).
    pub fn sharing(
        inner: ClientExecutor,
        history: HistoryAccess,
        walking: Arc<tokio::sync::Mutex<()>>,
    ) -> Self {
        Self {
            inner,
            history,
            walking,
        }
    }

    fn failure(&self, error: impl std::fmt::Display) -> ErrorInfo {
        self.inner.local_failure(format!("history: {error}"))
    }

    /// Runs `job` on the store, on a blocking thread.
    async fn with_store<T: Send + 'static>(
        &self,
        job: impl FnOnce(&mut Store) -> Result<T, HistoryError> + Send + 'static,
    ) -> Result<T, ErrorInfo> {
        let path = self.history.path.clone();
        let joined = tokio::task::spawn_blocking(move || {
            let mut store = Store::open(&path)?;
            job(&mut store)
        })
        .await;
        match joined {
            Ok(result) => result.map_err(|error| self.failure(error)),
            Err(error) => Err(self.failure(error)),
        }
    }

    async fn answer(&self, request: HistoryRequest) -> Result<HistoryReply, ErrorInfo> {
        let workspace = self.inner.workspace_id.clone();
        match request {
            HistoryRequest::Changes { between } => self
                .with_store(move |store| changes(store, &workspace, between))
                .await
                .map(|set| HistoryReply::Changes(Box::new(set))),
            HistoryRequest::Snapshots => self
                .with_store(move |store| store.list(&workspace))
                .await
                .map(HistoryReply::Snapshots),
            HistoryRequest::Marks => self
                .with_store(move |store| store.reviewed_marks(&workspace))
                .await
                .map(HistoryReply::Marks),
            HistoryRequest::Mark { project_id, note } => {
                let now = self.inner.clock.now();
                self.with_store(move |store| {
                    store.mark_reviewed(&workspace, &project_id, note.as_deref(), now)
                })
                .await
                .map(HistoryReply::Marked)
            }
            HistoryRequest::TakeSnapshot => self.take_snapshot().await,
        }
    }

    /// Walks the workspace (the walk paces itself by the rate limit) and
    /// records it in one transaction.
    async fn take_snapshot(&self) -> Result<HistoryReply, ErrorInfo> {
        let Ok(_walking) = self.walking.try_lock() else {
            return Err(self.failure("a snapshot is already being taken"));
        };
        let workspace = self.inner.workspace_id.clone();
        let previous = self
            .with_store(move |store| match store.latest_snapshot(&workspace)? {
                Some(info) => store.load(&info).map(Some),
                None => Ok(None),
            })
            .await?;
        let options = WalkOptions {
            detail_requests: self.history.config.detail_requests,
            window: std::time::Duration::from_secs(self.history.config.rate_window_secs),
        };
        let progress = self.history.progress.clone();
        let mut phase = String::new();
        let mut items = 0u64;
        let clock = self.inner.clock.clone();
        let walked = walk::capture(
            &self.inner.client,
            &self.inner.workspace_id,
            previous.as_ref(),
            options,
            || clock.now(),
            |event| {
                match event {
                    WalkEvent::Planned(_) => return,
                    WalkEvent::Phase(name) => {
                        phase = name;
                        items = 0;
                    }
                    WalkEvent::Items(count) => items += count,
                }
                if let Some(progress) = &progress {
                    let _ =
                        progress.send(ClientNotice::Snapshot(format!("snapshot: {phase} {items}")));
                }
            },
        )
        .await;
        let (capture, _report) = walked.map_err(|error| error_info(&error, &self.inner.clock))?;
        let retention = self.history.config.retention();
        self.with_store(move |store| store.record(&capture, retention))
            .await
            .map(HistoryReply::SnapshotTaken)
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
    let changes = crate::history::diff(&store.load(&before)?, &store.load(&after)?);
    Ok(ChangeSet {
        before: Some(before),
        after: Some(after),
        changes,
    })
}

impl Executor for WithHistory {
    async fn execute(&self, request: Request) -> Result<Reply, ErrorInfo> {
        match request {
            Request::History(request) => self
                .answer(request)
                .await
                .map(|reply| Reply::History(Box::new(reply))),
            other => self.inner.execute(other).await,
        }
    }
}
