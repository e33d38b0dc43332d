//! Answers the history operations from the history (the file or a shared
//! database). The store is used on a blocking thread (the screen never waits
//! on it) and kept open between requests, so a failure here is one error in
//! the log, never a broken dashboard; a database out of reach says so
//! ([`HISTORY_AWAY`]), and the App retries with backoff.

use std::sync::Arc;

use tokio::sync::mpsc;

use super::request::{ChangeSet, HISTORY_AWAY, HISTORY_WAITING};
use crate::history::walk::{self, WalkEvent, WalkOptions, WalkPlan};
use crate::history::{
    HistoryConfig, HistoryError, HistoryLocation, LockWait, SnapshotInfo, SnapshotRef, Store,
    WorkspaceLock,
};
use crate::tui::app::ClientNotice;
use crate::tui::effect::ErrorInfo;
use crate::tui::executor::ClientExecutor;
use crate::tui::services::{Executor, Services};
use crate::tui::widgets::thousands;

/// What a background snapshot came to: taken, or skipped (and why).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SnapshotOutcome {
    Taken(SnapshotInfo),
    /// Another's snapshot under way, or a fresh one on a shared history.
    Skipped(String),
}

/// Where the workspace's history is, and how to walk it.
#[derive(Clone)]
pub struct HistoryAccess {
    pub location: HistoryLocation,
    pub config: HistoryConfig,
    /// Where the background snapshot reports its progress (the status line).
    pub progress: Option<mpsc::UnboundedSender<ClientNotice>>,
}

/// Opens the anchor (a file's connection for the dashboard's life) once.
fn hold_open(anchor: &std::sync::Mutex<Option<Store>>, location: &HistoryLocation) {
    if !matches!(location, HistoryLocation::File(_)) {
        return;
    }
    let mut anchor = anchor
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    if anchor.is_none() {
        // A file that cannot be opened is the request's error to report.
        *anchor = Store::open_at(location).ok();
    }
}

/// The API executor with the history beside it.
#[derive(Clone)]
pub struct WithHistory {
    pub inner: ClientExecutor,
    pub door: HistoryDoor,
}

impl WithHistory {
    pub fn new(inner: ClientExecutor, history: HistoryAccess) -> Self {
        Self {
            inner,
            door: HistoryDoor::new(history),
        }
    }
}

impl Executor for WithHistory {
    fn services(&self) -> Services {
        Services {
            history: Some(self.door.clone()),
            ..self.inner.services()
        }
    }
}

/// The history file as the operations reach it: where it is, and what is
/// kept across requests (shared across context switches).
#[derive(Clone)]
pub struct HistoryDoor {
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
    /// A file's connection held for the dashboard's life and never used:
    /// while one is open, an outside reader that closes the file leaves the
    /// WAL the dashboard writes to in place (issue 33).
    anchor: Arc<std::sync::Mutex<Option<Store>>>,
}

impl HistoryDoor {
    pub fn new(history: HistoryAccess) -> Self {
        Self {
            history,
            walking: Arc::default(),
            watcher: Arc::default(),
            kept: Arc::default(),
            anchor: Arc::default(),
        }
    }

    /// The history file's `data_version`, on the kept connection.
    pub(crate) async fn data_version(&self, services: &Services) -> Result<i64, ErrorInfo> {
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
            Ok(result) => result.map_err(|error| Self::history_failure(services, &error)),
            Err(error) => Err(Self::failure(services, error)),
        }
    }

    fn failure(services: &Services, error: impl std::fmt::Display) -> ErrorInfo {
        services.local_failure(format!("history: {error}"))
    }

    /// The store's error; one that says the store is out of reach carries
    /// [`HISTORY_AWAY`], so the App says so and retries.
    fn history_failure(services: &Services, error: &HistoryError) -> ErrorInfo {
        let mut info = Self::failure(services, error);
        if matches!(error, HistoryError::Waiting { .. }) {
            info.kind = Some(HISTORY_WAITING.to_owned());
        } else if error.is_unreachable() {
            info.kind = Some(HISTORY_AWAY.to_owned());
        }
        info
    }

    /// Runs `job` on the store, on a blocking thread.
    pub(crate) async fn with_store<T: Send + 'static>(
        &self,
        services: &Services,
        job: impl FnOnce(&mut Store) -> Result<T, HistoryError> + Send + 'static,
    ) -> Result<T, ErrorInfo> {
        let location = self.history.location.clone();
        let kept = self.kept.clone();
        let anchor = self.anchor.clone();
        let joined = tokio::task::spawn_blocking(move || {
            hold_open(&anchor, &location);
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
            Ok(result) => result.map_err(|error| Self::history_failure(services, &error)),
            Err(error) => Err(Self::failure(services, error)),
        }
    }

    /// Walks the workspace (the walk paces itself by the rate limit) and
    /// records it in one transaction, holding the workspace's snapshot lock
    /// on a connection of its own (released when it is dropped, however this
    /// ends). Another's snapshot under way, or on a shared history a fresh
    /// one landed since the start (a teammate's, the job's): none is taken.
    pub(crate) async fn take_snapshot(
        &self,
        services: &Services,
    ) -> Result<SnapshotOutcome, ErrorInfo> {
        let Ok(_walking) = self.walking.try_lock() else {
            return Err(Self::failure(services, "a snapshot is already being taken"));
        };
        let location = self.history.location.clone();
        let workspace = services.workspace_id.clone();
        let max_age = self.history.config.snapshot_max_age();
        let now = services.clock.now();
        let locked = tokio::task::spawn_blocking(move || {
            let mut store = Store::open_at(&location)?;
            if store.lock_workspace(&workspace, LockWait::No)? == WorkspaceLock::Busy {
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
        .map_err(|error| Self::failure(services, error))?
        .map_err(|error| Self::history_failure(services, &error))?;
        let mut locker = match locked {
            Ok(store) => store,
            Err(reason) => return Ok(SnapshotOutcome::Skipped(reason.to_owned())),
        };
        let workspace = services.workspace_id.clone();
        let previous = self
            .with_store(services, move |store| {
                match store.latest_snapshot(&workspace)? {
                    Some(info) => store.load(&info).map(Some),
                    None => Ok(None),
                }
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
        let clock = services.clock.clone();
        let walked = walk::capture(
            &services.client,
            &services.workspace_id,
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
        let (capture, _report) = walked.map_err(|error| services.api_failure(&error))?;
        let retention = self.history.config.retention();
        let workspace = services.workspace_id.clone();
        let recorded = tokio::task::spawn_blocking(move || {
            let info = locker.record(&capture, retention);
            let _ = locker.unlock_workspace(&workspace);
            info
        })
        .await;
        match recorded {
            Ok(result) => result
                .map(SnapshotOutcome::Taken)
                .map_err(|error| Self::history_failure(services, &error)),
            Err(error) => Err(Self::failure(services, error)),
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
pub(crate) fn changes(
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
