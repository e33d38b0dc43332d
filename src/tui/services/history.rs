//! Answers the history operations from the history (the file or a shared
//! database). The store is used on a blocking thread (the screen never waits
//! on it) and kept open between requests, so a failure here is one error in
//! the log, never a broken dashboard; a database out of reach says so
//! ([`ErrorKind::HistoryAway`]), and the App retries with backoff.

use std::sync::Arc;

use time::OffsetDateTime;

use super::{ClientServices, ServiceSource, Services};
use crate::history::walk::{self, WalkEvent, WalkOptions, WalkPlan};
use crate::history::{
    HistoryConfig, HistoryError, HistoryLocation, LockWait, Store, WorkspaceLock,
};
use crate::tui::notice_box::NoticeSender;
use crate::tui::vocab::{ClientNotice, ErrorInfo, ErrorKind, SnapshotOutcome};
use crate::tui::widgets::thousands;

/// Where the workspace's history is, and how to walk it.
#[derive(Clone)]
pub struct HistoryAccess {
    pub location: HistoryLocation,
    pub config: HistoryConfig,
    /// Where the background snapshot reports its progress (the status line).
    pub progress: Option<NoticeSender>,
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

/// The client's services with the history beside them.
#[derive(Clone)]
pub struct WithHistory {
    pub inner: ClientServices,
    pub door: HistoryDoor,
}

impl WithHistory {
    pub fn new(inner: ClientServices, history: HistoryAccess) -> Self {
        Self {
            inner,
            door: HistoryDoor::new(history),
        }
    }
}

impl ServiceSource for WithHistory {
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
    /// [`ErrorKind::HistoryAway`], so the App says so and retries.
    fn history_failure(services: &Services, error: &HistoryError) -> ErrorInfo {
        let mut info = Self::failure(services, error);
        if matches!(error, HistoryError::Waiting { .. }) {
            info.kind = Some(ErrorKind::HistoryWaiting);
        } else if error.is_unreachable() {
            info.kind = Some(ErrorKind::HistoryAway);
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
            reserve: Some(crate::api::Reserve::DASHBOARD),
        };
        let progress = self.history.progress.clone();
        let mut phase = String::new();
        let mut items = 0u64;
        let clock = services.clock.clone();
        let mut pace: Option<Pace> = None;
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
                        pace = Some(Pace::new(&plan, clock.now()));
                        if let Some(progress) = &progress {
                            progress.send(ClientNotice::SnapshotPlanned(announce(&plan)));
                        }
                        return;
                    }
                    WalkEvent::Phase(name) => {
                        phase = name;
                        items = 0;
                    }
                    WalkEvent::Items(count) => {
                        items += count;
                        // Each page or read the walk reports is one request.
                        if let Some(pace) = &mut pace {
                            pace.done += 1;
                        }
                    }
                }
                if let Some(progress) = &progress {
                    let left = pace
                        .and_then(|pace| pace.left(clock.now()))
                        .map_or_else(String::new, |left| format!(" · {left} left"));
                    progress.send(ClientNotice::Snapshot(format!(
                        "snapshot: {phase} {items}{left}"
                    )));
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
/// 5,000 projects: about 464 requests". No time: the service's latency, not
/// only its rate limit, sets the pace (at 0.3 to 2.5 s a request, 464
/// requests took 11 min where the limit alone said 4), so the time left is
/// said once the walk has measured its pace ([`Pace`]).
pub fn announce(plan: &WalkPlan) -> String {
    let requests = plan.list_requests + plan.detail_requests;
    format!(
        "snapshot of {} projects: about {requests} requests",
        thousands(plan.projects)
    )
}

/// The walk's pace as measured: the time its requests so far took says how
/// long the rest will take. Nothing is said before enough were measured.
#[derive(Debug, Clone, Copy)]
pub struct Pace {
    started: OffsetDateTime,
    /// The requests the plan counts (the member and project reads at most).
    planned: u64,
    /// Requests answered, the insights read included.
    pub done: u64,
}

impl Pace {
    /// Requests answered before their pace is taken as the walk's.
    const MEASURED_AFTER: u64 = 10;

    /// Once the plan is known: its insights read is done.
    pub fn new(plan: &WalkPlan, now: OffsetDateTime) -> Self {
        Self {
            started: now,
            planned: plan.list_requests + plan.detail_requests,
            done: 1,
        }
    }

    /// "about 6 min", "under a minute": the requests left at the pace of
    /// those done; `None` before the pace is measured or when none are left.
    pub fn left(&self, now: OffsetDateTime) -> Option<String> {
        let left = self
            .planned
            .checked_sub(self.done)
            .filter(|left| *left > 0)?;
        if self.done < Self::MEASURED_AFTER {
            return None;
        }
        let elapsed = std::time::Duration::try_from(now - self.started).ok()?;
        let each = elapsed.div_f64(self.done as f64);
        Some(walk::describe_duration(each.mul_f64(left as f64)))
    }
}

#[cfg(test)]
mod tests {
    use time::macros::datetime;

    use super::*;

    /// The walk's small defect: the first-launch snapshot announced about 4
    /// minutes (its requests at the rate limit) and took 11 (the latency).
    /// The time left comes from the measured pace.
    #[test]
    fn the_time_left_is_the_measured_pace_never_the_rate_limits_promise() {
        let plan = WalkPlan {
            projects: 5_000,
            members: 800,
            list_requests: 64,
            detail_requests: 400,
            estimate: Some(std::time::Duration::from_secs(240)),
            rate_limit: Some((120, 120)),
        };
        let said = announce(&plan);
        assert_eq!(said, "snapshot of 5,000 projects: about 464 requests");
        let start = datetime!(2026-11-28 22:36 UTC);
        let mut pace = Pace::new(&plan, start);
        assert_eq!(pace.left(start), None, "nothing measured yet");
        pace.done = 5;
        assert_eq!(pace.left(start + time::Duration::seconds(7)), None);
        // 116 requests in 165 s (1.4 s each): 348 left take 8.3 min.
        pace.done = 116;
        assert_eq!(
            pace.left(start + time::Duration::seconds(165)).as_deref(),
            Some("about 9 min")
        );
        pace.done = 464;
        assert_eq!(pace.left(start + time::Duration::seconds(660)), None);
    }
}
