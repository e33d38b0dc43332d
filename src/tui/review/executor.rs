//! Answers the history requests from the history (the file or a shared
//! database), and hands every other request to the API executor. The store is
//! used on a blocking thread (the screen never waits on it) and kept open
//! between requests, so a failure here is one error in the log, never a
//! broken dashboard; a database out of reach says so ([`HISTORY_AWAY`]), and
//! the App retries with backoff.

use std::sync::Arc;

use tokio::sync::mpsc;

use super::request::{ChangeSet, HISTORY_AWAY, HistoryReply, HistoryRequest};
use crate::history::walk::{self, WalkEvent, WalkOptions, WalkPlan};
use crate::history::{
    HistoryConfig, HistoryError, HistoryLocation, NewMark, SnapshotRef, Store, WorkspaceLock,
};
use crate::tui::app::ClientNotice;
use crate::tui::effect::{ErrorInfo, Reply, Request};
use crate::tui::executor::{ClientExecutor, error_info};
use crate::tui::runtime::Executor;
use crate::tui::widgets::thousands;

/// Where the workspace's history is, and how to walk it.
#[derive(Clone)]
pub struct HistoryAccess {
    pub location: HistoryLocation,
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
    /// One connection kept open for `data_version`, whose value moves only
    /// when a connection other than the one asking commits.
    watcher: Arc<std::sync::Mutex<Option<Store>>>,
    /// The store the requests use, kept open between them (a shared
    /// database's connection is not made again for each); dropped when it
    /// proves unreachable, so the next request connects again.
    kept: Arc<std::sync::Mutex<Option<Store>>>,
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
            watcher: Arc::default(),
            kept: Arc::default(),
        }
    }

    /// The history file's `data_version`, on the kept connection.
    async fn data_version(&self) -> Result<i64, ErrorInfo> {
        let location = self.history.location.clone();
        let watcher = self.watcher.clone();
        let joined = tokio::task::spawn_blocking(move || {
            let mut kept = watcher
                .lock()
                .unwrap_or_else(|poisoned| poisoned.into_inner());
            let store = match kept.take() {
                Some(store) => store,
                None => Store::open_at(&location)?,
            };
            let version = store.data_version();
            *kept = Some(store);
            version
        })
        .await;
        match joined {
            Ok(result) => result.map_err(|error| self.history_failure(&error)),
            Err(error) => Err(self.failure(error)),
        }
    }

    fn failure(&self, error: impl std::fmt::Display) -> ErrorInfo {
        self.inner.local_failure(format!("history: {error}"))
    }

    /// The store's error; one that says the store is out of reach carries
    /// [`HISTORY_AWAY`], so the App says so and retries.
    fn history_failure(&self, error: &HistoryError) -> ErrorInfo {
        let mut info = self.failure(error);
        if error.is_unreachable() {
            info.kind = Some(HISTORY_AWAY.to_owned());
        }
        info
    }

    /// Runs `job` on the store, on a blocking thread.
    async fn with_store<T: Send + 'static>(
        &self,
        job: impl FnOnce(&mut Store) -> Result<T, HistoryError> + Send + 'static,
    ) -> Result<T, ErrorInfo> {
        let location = self.history.location.clone();
        let kept = self.kept.clone();
        let joined = tokio::task::spawn_blocking(move || {
            let slot = || kept.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
            // A request while another holds the kept store opens one of its own.
            let taken = slot().take();
            let mut store = match taken {
                Some(store) => store,
                None => Store::open_at(&location)?,
            };
            let result = job(&mut store);
            if !matches!(&result, Err(error) if error.is_unreachable()) {
                slot().get_or_insert(store);
            }
            result
        })
        .await;
        match joined {
            Ok(result) => result.map_err(|error| self.history_failure(&error)),
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
            HistoryRequest::Mark { projects, note } => {
                let now = self.inner.clock.now();
                let reviewer = self.history.config.reviewer_name();
                let marks: Vec<NewMark> = projects
                    .into_iter()
                    .map(|(project_id, seen)| NewMark {
                        project_id,
                        note: note.clone(),
                        reviewer: reviewer.clone(),
                        seen: seen.map(|seen| *seen),
                    })
                    .collect();
                self.with_store(move |store| store.mark_all_reviewed(&workspace, &marks, now))
                    .await
                    .map(HistoryReply::Marked)
            }
            HistoryRequest::DataVersion => self.data_version().await.map(HistoryReply::DataVersion),
            HistoryRequest::TakeSnapshot => self.take_snapshot().await,
            HistoryRequest::ProjectState { project_id } => self
                .with_store(move |store| store.latest_project_state(&workspace, &project_id))
                .await
                .map(|state| HistoryReply::ProjectState(state.map(Box::new))),
        }
    }

    /// Walks the workspace (the walk paces itself by the rate limit) and
    /// records it in one transaction, holding the workspace's snapshot lock
    /// on a connection of its own (released when it is dropped, however this
    /// ends). Another's snapshot under way, or on a shared history a fresh
    /// one landed since the start (a teammate's, the job's): none is taken.
    async fn take_snapshot(&self) -> Result<HistoryReply, ErrorInfo> {
        let Ok(_walking) = self.walking.try_lock() else {
            return Err(self.failure("a snapshot is already being taken"));
        };
        let location = self.history.location.clone();
        let workspace = self.inner.workspace_id.clone();
        let max_age = self.history.config.snapshot_max_age();
        let now = self.inner.clock.now();
        let locked = tokio::task::spawn_blocking(move || {
            let mut store = Store::open_at(&location)?;
            if store.lock_workspace(&workspace, false)? == WorkspaceLock::Busy {
                return Ok(Err(
                    "another snapshot of this workspace is being taken (a teammate's or a job's): none taken here",
                ));
            }
            if location.is_shared()
                && let Some(max_age) = max_age
                && !store.snapshot_due(&workspace, max_age, now)?
            {
                return Ok(Err(
                    "the shared history holds a fresh snapshot already: none taken here",
                ));
            }
            Ok::<_, HistoryError>(Ok(store))
        })
        .await
        .map_err(|error| self.failure(error))?
        .map_err(|error| self.history_failure(&error))?;
        let mut locker = match locked {
            Ok(store) => store,
            Err(reason) => return Ok(HistoryReply::SnapshotSkipped(reason.to_owned())),
        };
        let workspace = self.inner.workspace_id.clone();
        let previous = self
            .with_store(move |store| match store.latest_snapshot(&workspace)? {
                Some(info) => store.load(&info).map(Some),
                None => Ok(None),
            })
            .await?;
        let window = std::time::Duration::from_secs(self.history.config.rate_window_secs);
        // In the background: the user's reserve is never spent (DESIGN.md).
        let options = WalkOptions {
            detail_requests: self.history.config.detail_requests,
            window,
            reserve: Some(crate::tui::screens::paged::reserve),
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
                    // Said before the walk starts, with its cost.
                    WalkEvent::Planned(plan) => {
                        if let Some(progress) = &progress {
                            let _ = progress
                                .send(ClientNotice::SnapshotPlanned(announce(&plan, window)));
                        }
                        return;
                    }
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
        let workspace = self.inner.workspace_id.clone();
        let recorded = tokio::task::spawn_blocking(move || {
            let info = locker.record(&capture, retention);
            let _ = locker.unlock_workspace(&workspace);
            info
        })
        .await;
        match recorded {
            Ok(result) => result
                .map(HistoryReply::SnapshotTaken)
                .map_err(|error| self.history_failure(&error)),
            Err(error) => Err(self.failure(error)),
        }
    }
}

/// A background snapshot said before it starts, with its cost: "snapshot of
/// 5,000 projects: about 60 requests over 2 min" (whole rate windows at the
/// limit's pace; no time when the service reported no limit).
pub fn announce(plan: &WalkPlan, window: std::time::Duration) -> String {
    let requests = plan.list_requests + plan.detail_requests;
    let over = match plan.rate_limit {
        Some((limit, _)) if limit > 0 => {
            let windows =
                u32::try_from(requests.div_ceil(u64::from(limit)).max(1)).unwrap_or(u32::MAX);
            let said = walk::describe_duration(window * windows);
            format!(" over {}", said.trim_start_matches("about "))
        }
        _ => String::new(),
    };
    format!(
        "snapshot of {} projects: about {requests} requests{over}",
        thousands(plan.projects)
    )
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
