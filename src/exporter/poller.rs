//! The background poller: it refreshes the cache on an interval, within the
//! request budget, and leaves a reserve of the rate limit for whatever the
//! user does next with the same key.
//!
//! Each cycle costs one insights request, one realtime request per watched
//! project, and, when due, the inventory walk (one request per 100 projects)
//! and the watched projects' names (one request each). Before every request
//! the poller reads the rate-limit state the client keeps; when the request
//! would eat into the reserve, it and the rest of its source wait for the next
//! cycle and are counted as deferred. The walk comes last and yields when the
//! next cycle is due, so a long one spans cycles without delaying insights and
//! realtime; a watched project not found or never published rests between
//! checks (`standing.rs`).

use std::collections::BTreeMap;
use std::time::Duration;

use time::OffsetDateTime;
use tokio::sync::{broadcast, watch};

use super::cache::{Cache, InventoryTally, Source, WalkProgress};
use super::standing::{Problem, RECHECK, Standing};
use crate::api::model::InventoryItem;
use crate::api::page::Pages;
use crate::api::{
    ApiError, Client, ClientEvent, InventoryParams, ListInventory, RateLimitState, Reserve,
};
use crate::clock::Clock;
use crate::policy::gather::LiveProjects;
use crate::text::sanitize_line;

/// The largest inventory page: fewest requests per walk.
const INVENTORY_PAGE: u32 = 100;

/// How much of the rate limit background polling leaves untouched.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Budget {
    pub reserve: Reserve,
}

impl Default for Budget {
    fn default() -> Self {
        Self {
            reserve: Reserve::EXPORTER,
        }
    }
}

impl Budget {
    /// Whether one more background request leaves the reserve intact.
    pub fn allows(&self, state: Option<RateLimitState>, now: OffsetDateTime) -> bool {
        self.reserve.allows(state, now, 0)
    }

    /// [`Budget::allows`], keeping `kept` more requests beside the reserve.
    pub fn allows_beyond(
        &self,
        state: Option<RateLimitState>,
        now: OffsetDateTime,
        kept: u32,
    ) -> bool {
        self.reserve.allows(state, now, kept)
    }
}

/// What to poll and how often.
#[derive(Debug, Clone)]
pub struct PollPlan {
    pub workspace: String,
    pub watch: Vec<String>,
    pub interval: Duration,
    /// `None`: no inventory walk (`--no-inventory`).
    pub inventory_interval: Option<Duration>,
    /// How often watched projects' names are read again.
    pub names_interval: Duration,
    pub budget: Budget,
}

impl PollPlan {
    /// The sources this plan polls, each with its interval.
    pub fn polled_sources(&self) -> BTreeMap<Source, Duration> {
        let watching = !self.watch.is_empty();
        [
            (Source::Insights, Some(self.interval)),
            (Source::Inventory, self.inventory_interval),
            (Source::Realtime, watching.then_some(self.interval)),
            (Source::Project, watching.then_some(self.names_interval)),
        ]
        .into_iter()
        .filter_map(|(source, interval)| Some((source, interval?)))
        .collect()
    }
}

/// An inventory walk in progress: the tally so far, its pages (the next
/// one's cursor, the walk's bounds), and its progress as the metrics show it.
struct InventoryWalk {
    tally: InventoryTally,
    /// Its rows as the policies read them, when they are evaluated.
    rows: Option<LiveProjects>,
    pages: Pages<ListInventory>,
    progress: WalkProgress,
}

impl InventoryWalk {
    /// Keeps a page's rows for the policies, if they are kept: a row the
    /// document cannot hold drops them all (logged), so the policies read
    /// the snapshot alone rather than a workspace with a project missing.
    fn keep_rows(&mut self, items: &[InventoryItem], now: OffsetDateTime, workspace: &str) {
        let Some(rows) = &mut self.rows else {
            return;
        };
        for item in items {
            if let Err(error) = rows.add(item) {
                tracing::warn!(%workspace, "the inventory walk's rows are not kept for the policies: {error}");
                self.rows = None;
                return;
            }
        }
        rows.read_at = now;
    }
}

pub struct Poller {
    client: Client,
    events: broadcast::Receiver<ClientEvent>,
    plan: PollPlan,
    cache: Cache,
    clock: Clock,
    cycles: watch::Sender<u64>,
    inventory_done_at: Option<OffsetDateTime>,
    names_done_at: Option<OffsetDateTime>,
    /// A walk in progress.
    inventory_walk: Option<InventoryWalk>,
    /// The watched project whose realtime view the next cycle reads first.
    realtime_start: usize,
    /// Watched projects not found or never published, asked again only
    /// every few minutes.
    standing: Standing,
    /// When the running cycle began: the inventory walk yields to the next
    /// cycle's frequent polls once an interval has passed since.
    cycle_started: OffsetDateTime,
}

impl Poller {
    /// Subscribes to the client's events at once, so no request goes uncounted.
    pub fn new(
        client: Client,
        plan: PollPlan,
        cache: Cache,
        clock: Clock,
        cycles: watch::Sender<u64>,
    ) -> Self {
        let events = client.subscribe();
        cache.update(|snapshot| {
            for id in &plan.watch {
                snapshot.watched.entry(id.clone()).or_default();
            }
            snapshot.polled = plan.polled_sources();
        });
        Self {
            client,
            events,
            plan,
            cache,
            clock,
            cycles,
            inventory_done_at: None,
            names_done_at: None,
            inventory_walk: None,
            realtime_start: 0,
            standing: Standing::default(),
            cycle_started: OffsetDateTime::UNIX_EPOCH,
        }
    }

    /// Polls forever, one cycle per interval; a cycle that overruns delays the next.
    pub async fn run(mut self) {
        let mut ticks = tokio::time::interval(self.plan.interval);
        ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            ticks.tick().await;
            self.cycle().await;
        }
    }

    /// One cycle: insights, the watched projects, and what else is due. The
    /// inventory walk comes last and takes what is left of the interval, so
    /// on a large workspace it spans cycles while insights and realtime keep
    /// their interval.
    pub async fn cycle(&mut self) {
        self.cycle_started = self.clock.now();
        self.poll_insights().await;
        if self.due(self.names_done_at, Some(self.plan.names_interval)) {
            self.poll_names().await;
        }
        self.poll_realtime().await;
        let walk_unfinished = self.inventory_walk.is_some();
        if walk_unfinished || self.due(self.inventory_done_at, self.plan.inventory_interval) {
            self.walk_inventory().await;
        }
        // The rate limit on show is the one the last answer's headers gave
        // (a `RateLimit` event), never the pacer's count of attempts since.
        self.drain_events();
        let cycles = self.cache.update(|snapshot| {
            snapshot.cycles += 1;
            snapshot.cycles
        });
        self.cycles.send_replace(cycles);
    }

    fn due(&self, done_at: Option<OffsetDateTime>, every: Option<Duration>) -> bool {
        match (every, done_at) {
            (None, _) => false,
            (Some(_), None) => true,
            (Some(every), Some(at)) => self.clock.now() - at >= every,
        }
    }

    /// Whether the budget allows one more request; counts a deferral otherwise.
    /// The inventory walk also leaves what the next cycle's frequent polls
    /// need (insights and each watched project), so it never defers them.
    fn may_spend(&self, source: Source) -> bool {
        let frequent = match source {
            Source::Inventory => 1 + self.plan.watch.len() as u32,
            _ => 0,
        };
        let allowed = self.plan.budget.allows_beyond(
            self.client.rate_limit_state(),
            self.clock.now(),
            frequent,
        );
        if !allowed {
            tracing::info!(
                source = source.as_str(),
                "poll deferred to keep the rate-limit reserve"
            );
            self.cache.update(|snapshot| {
                *snapshot.polls_deferred.entry(source).or_default() += 1;
            });
        }
        allowed
    }

    /// Counts every event the client emitted so far. Events are sent in the
    /// task that made the request, so after an await they are all here.
    fn drain_events(&mut self) {
        let mut seen = Vec::new();
        loop {
            match self.events.try_recv() {
                Ok(event) => seen.push(event),
                Err(broadcast::error::TryRecvError::Lagged(lost)) => {
                    tracing::warn!(lost, "the exporter lost client events; counts are low");
                }
                Err(_) => break,
            }
        }
        if !seen.is_empty() {
            self.cache.update(|snapshot| {
                for event in &seen {
                    snapshot.client.record(event);
                }
            });
        }
    }

    fn succeeded(&mut self, source: Source) {
        self.drain_events();
        let now = self.clock.now();
        self.cache.update(|snapshot| {
            snapshot.fetched_at.insert(source, now);
            snapshot.last_poll_ok.insert(source, true);
        });
    }

    fn failed(&mut self, source: Source, subject: &str, error: &ApiError) {
        self.drain_events();
        self.cache.update(|snapshot| {
            *snapshot.poll_errors.entry(source).or_default() += 1;
        });
        let watched = matches!(source, Source::Project | Source::Realtime);
        if let Some(problem) = Problem::of(error).filter(|_| watched) {
            self.watched_failed(source, subject, problem);
            return;
        }
        tracing::warn!(
            source = source.as_str(),
            subject = %sanitize_line(subject),
            error = %sanitize_line(&error.to_string()),
            "poll failed"
        );
        self.cache.update(|snapshot| {
            snapshot.last_poll_ok.insert(source, false);
        });
    }

    /// A watched project not found or never published: its own problem, not
    /// the source's (the service answered, so the source is up). Said once,
    /// then the project rests until it is asked again.
    fn watched_failed(&mut self, source: Source, id: &str, problem: Problem) {
        let news = self.standing.failed(id, problem, self.clock.now());
        let problems = self.standing.problems();
        self.cache.update(|snapshot| {
            snapshot.last_poll_ok.insert(source, true);
            // Its realtime view is not asked while it rests: the project
            // read's answer stands for it, until realtime has an outcome of
            // its own (a watch list of only missing projects is not an outage).
            snapshot
                .last_poll_ok
                .entry(Source::Realtime)
                .or_insert(true);
            snapshot.watch_problems = problems;
        });
        let every = RECHECK.whole_minutes();
        if news {
            tracing::warn!(project = %sanitize_line(id), "watched project {}; asked again every {every} minutes", problem.describe());
        } else {
            tracing::debug!(project = %sanitize_line(id), "watched project still {}", problem.describe());
        }
    }

    /// A watched project answered: a problem it had is over.
    fn watched_answered(&mut self, id: &str) {
        if let Some(problem) = self.standing.answered(id) {
            tracing::info!(project = %sanitize_line(id), "watched project answers again (it was {})", problem.describe());
            let problems = self.standing.problems();
            self.cache
                .update(|snapshot| snapshot.watch_problems = problems);
        }
    }

    async fn poll_insights(&mut self) {
        if !self.may_spend(Source::Insights) {
            return;
        }
        let workspace = self.plan.workspace.clone();
        match self.client.get_insights(&workspace, &[]).await {
            Ok(insights) => {
                self.cache
                    .update(|snapshot| snapshot.insights = Some(insights));
                self.succeeded(Source::Insights);
            }
            Err(error) => self.failed(Source::Insights, &workspace, &error),
        }
    }

    /// Done for `names_interval` only when every name was read (or its
    /// project has a problem of its own): a read that failed in an outage is
    /// asked again next cycle, so the source is up as soon as the API is back.
    async fn poll_names(&mut self) {
        let mut complete = true;
        for id in self.plan.watch.clone() {
            if self.standing.resting(&id, self.clock.now()) {
                continue;
            }
            if !self.may_spend(Source::Project) {
                return;
            }
            match self.client.get_project(&id).await {
                Ok(project) => {
                    self.cache.update(|snapshot| {
                        snapshot.watched.entry(id.clone()).or_default().name = project.name;
                    });
                    self.succeeded(Source::Project);
                    self.watched_answered(&id);
                }
                Err(error) => {
                    complete &= Problem::of(&error).is_some();
                    self.failed(Source::Project, &id, &error);
                }
            }
        }
        if complete {
            self.names_done_at = Some(self.clock.now());
        }
    }

    /// Starts where the last cycle's budget stopped it, so that with more
    /// watched projects than the budget allows every one still gets its turn.
    async fn poll_realtime(&mut self) {
        let watch = self.plan.watch.clone();
        let count = watch.len();
        for step in 0..count {
            let index = (self.realtime_start + step) % count;
            let id = &watch[index];
            if self.standing.resting(id, self.clock.now()) {
                continue;
            }
            if !self.may_spend(Source::Realtime) {
                self.realtime_start = index;
                return;
            }
            match self.client.get_realtime(id).await {
                Ok(realtime) => {
                    let read_at = self.clock.now();
                    self.cache.update(|snapshot| {
                        snapshot
                            .watched
                            .entry(id.clone())
                            .or_default()
                            .record_realtime(&realtime, read_at);
                    });
                    self.succeeded(Source::Realtime);
                    self.watched_answered(id);
                }
                Err(error) => self.failed(Source::Realtime, id, &error),
            }
        }
    }

    /// Walks the whole inventory page by page. A walk cut short (an error, or
    /// the budget) keeps the previous tally on show and resumes at the same
    /// page next cycle, so a workspace larger than one window still completes.
    /// Each page answered makes the source up: an outage ends with the first
    /// answer, not with the walk, and the walk's progress is its own metric.
    async fn walk_inventory(&mut self) {
        let workspace = self.plan.workspace.clone();
        let params = InventoryParams {
            limit: Some(INVENTORY_PAGE),
            ..InventoryParams::default()
        };
        let mut walk = match self.inventory_walk.take() {
            Some(walk) => walk,
            None => {
                let progress = WalkProgress {
                    pages: 0,
                    started_at: self.clock.now(),
                };
                self.cache.update(|snapshot| snapshot.walk = Some(progress));
                let first = ListInventory {
                    workspace_id: workspace.clone(),
                    params,
                    cursor: None,
                };
                let policies = self.cache.update(|snapshot| snapshot.policies_evaluated);
                InventoryWalk {
                    tally: InventoryTally::default(),
                    rows: policies.then(|| LiveProjects::new(progress.started_at)),
                    pages: Pages::new(&self.client, first),
                    progress,
                }
            }
        };
        let mut asked = 0;
        loop {
            // At least one page a cycle, however slow the frequent polls were.
            let next_cycle_due = self.clock.now() - self.cycle_started >= self.plan.interval;
            if (asked > 0 && next_cycle_due) || !self.may_spend(Source::Inventory) {
                self.inventory_walk = Some(walk);
                return;
            }
            asked += 1;
            let page = match walk.pages.next(&self.client).await {
                Some(Ok(page)) => page,
                // Paging that does not end fails the walk; the next cycle starts over.
                Some(Err(error)) if walk.pages.is_done() => {
                    self.cache.update(|snapshot| snapshot.walk = None);
                    return self.failed(Source::Inventory, &workspace, &error);
                }
                Some(Err(error)) => {
                    self.failed(Source::Inventory, &workspace, &error);
                    self.inventory_walk = Some(walk);
                    return;
                }
                None => break,
            };
            for item in &page.data {
                walk.tally.add(item);
            }
            walk.keep_rows(&page.data, self.clock.now(), &workspace);
            walk.progress.pages += 1;
            let progress = walk.progress;
            self.cache.update(|snapshot| snapshot.walk = Some(progress));
            self.succeeded(Source::Inventory);
            if walk.pages.is_done() {
                break;
            }
        }
        let now = self.clock.now();
        let rows = walk.rows.map(|mut rows| {
            rows.complete = true;
            std::sync::Arc::new(rows)
        });
        self.cache.update(|snapshot| {
            snapshot.inventory = Some(walk.tally);
            if rows.is_some() {
                snapshot.live_projects = rows;
            }
            snapshot.walk = None;
            snapshot.walk_completed_at = Some(now);
        });
        self.inventory_done_at = Some(now);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use time::macros::datetime;

    const T0: OffsetDateTime = datetime!(2026-11-22 12:00:00 UTC);

    fn state(limit: u32, remaining: u32) -> Option<RateLimitState> {
        Some(RateLimitState {
            limit,
            remaining,
            reset: Some(T0 + time::Duration::seconds(30)),
        })
    }

    #[test]
    fn the_budget_keeps_a_quarter_of_the_limit() {
        let budget = Budget::default();
        assert_eq!(budget.reserve.kept(120), 30);
        assert_eq!(budget.reserve.kept(2), 1);
        assert!(budget.allows(None, T0));
        assert!(budget.allows(state(120, 31), T0));
        assert!(!budget.allows(state(120, 30), T0));
        assert!(!budget.allows(state(120, 0), T0));
        // Once the reset has passed, one request may find out what recovered.
        assert!(budget.allows(state(120, 0), T0 + time::Duration::minutes(1)));
    }
}
