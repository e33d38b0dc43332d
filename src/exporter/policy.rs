//! The team's policies in the exporter: the review history's newest snapshot
//! evaluated as `vantage check --from-snapshot` evaluates it (the same pack
//! loading, `policy::files::load`; the same document, with the history's
//! marks; its waivers applied), off the scrape path: on a blocking thread
//! beside the poller, one evaluation at a time, never more often than the
//! history changes, a standing waiver expires or `--policy-interval` passes
//! (time moves the age rules) or the inventory walk finishes. No API request
//! of its own: the snapshot job (`vantage snapshot`, the shipped systemd
//! timer) keeps the history fresh, and `vantage_policy_input_timestamp_seconds`
//! says how fresh; the inventory walk's rows, once one has read every
//! project, are laid over the snapshot (which keeps no scan times and few
//! counts), so that `stale_scan` and `public_personal_data` can judge.

use std::time::Duration;

use time::OffsetDateTime;

use super::cache::{Cache, PolicyCount, PolicyTally};
use crate::clock::Clock;
use crate::history::waivers::standing;
use crate::history::{HistoryError, HistoryLocation, SnapshotRef, Store};
use crate::policy::{Evaluation, PolicyError, PolicySet, PolicySource, gather};

/// What the exporter evaluates, and where and how often.
#[derive(Debug, Clone)]
pub struct PolicyPlan {
    /// The policies, loaded once at start as `vantage check` loads them.
    pub sources: Vec<PolicySource>,
    /// The review history holding the snapshots, marks and waivers.
    pub location: HistoryLocation,
    /// Evaluated again at least this often, changed or not.
    pub every: Duration,
}

#[derive(Debug, thiserror::Error)]
pub enum PolicyWatchError {
    #[error("the review history: {0}")]
    History(#[from] HistoryError),
    #[error(transparent)]
    Policy(#[from] PolicyError),
    #[error(
        "no snapshot of workspace {0} in the review history yet (`vantage snapshot` takes one)"
    )]
    NoSnapshot(String),
}

/// When the figures on show were made, and what would make them stale.
struct Evaluated {
    data_version: i64,
    /// When the live rows it read were read, if it read any.
    live_read_at: Option<OffsetDateTime>,
    at: OffsetDateTime,
    /// The first standing waiver's end: the figures change then.
    next_expiry: Option<OffsetDateTime>,
}

/// One workspace's policy evaluation, stepped by [`run`] (or a test).
pub struct PolicyWatch {
    plan: PolicyPlan,
    workspace: String,
    cache: Cache,
    /// Opened on the first step, kept (a shared store reconnects by itself).
    store: Option<Store>,
    last: Option<Evaluated>,
    /// The last failure logged: one that repeats each step is logged once.
    last_error: Option<String>,
}

impl PolicyWatch {
    pub fn new(plan: PolicyPlan, workspace: String, cache: Cache) -> Self {
        cache.update(|snapshot| snapshot.policies_evaluated = true);
        Self {
            plan,
            workspace,
            cache,
            store: None,
            last: None,
            last_error: None,
        }
    }

    /// Evaluates when due at `now` (blocking: run it off the runtime);
    /// whether it did. A failure is logged and counted; the figures on show
    /// stay, with the time they were made.
    pub fn step(&mut self, now: OffsetDateTime) -> bool {
        match self.try_step(now) {
            Ok(evaluated) => {
                self.last_error = None;
                evaluated
            }
            Err(error) => {
                let error = error.to_string();
                if self.last_error.as_ref() != Some(&error) {
                    tracing::warn!(workspace = %self.workspace, "policy evaluation failed: {error}");
                }
                self.last_error = Some(error);
                self.cache.update(|snapshot| snapshot.policy_errors += 1);
                false
            }
        }
    }

    fn due(
        last: Option<&Evaluated>,
        every: Duration,
        data_version: i64,
        live_read_at: Option<OffsetDateTime>,
        now: OffsetDateTime,
    ) -> bool {
        let Some(last) = last else {
            return true;
        };
        last.data_version != data_version
            || last.live_read_at != live_read_at
            || now - last.at >= every
            || last.next_expiry.is_some_and(|at| at <= now)
    }

    fn try_step(&mut self, now: OffsetDateTime) -> Result<bool, PolicyWatchError> {
        let store = match &mut self.store {
            Some(store) => store,
            None => self.store.insert(Store::open_at(&self.plan.location)?),
        };
        let data_version = store.data_version()?;
        // The inventory walk's rows, when one has finished: the snapshot keeps
        // no scan times and few counts, they do.
        let live = self.cache.update(|snapshot| snapshot.live_projects.clone());
        let live_read_at = live.as_ref().map(|live| live.read_at);
        if !Self::due(
            self.last.as_ref(),
            self.plan.every,
            data_version,
            live_read_at,
            now,
        ) {
            return Ok(false);
        }
        let input = gather::from_snapshot_and_live(
            store,
            &self.workspace,
            &SnapshotRef::Last,
            live.as_deref(),
            now,
        )?
        .ok_or_else(|| PolicyWatchError::NoSnapshot(self.workspace.clone()))?;
        // The snapshot's time, as the document says it.
        let taken_at = OffsetDateTime::parse(
            &input.sources.workspace.at,
            &time::format_description::well_known::Rfc3339,
        )
        .ok();
        let mut set = PolicySet::compile(&self.plan.sources, crate::policy::clock_ext::to_ns(now))?;
        let waivers = standing(store.all_waivers(&self.workspace)?);
        let evaluation = Evaluation::of_set(&mut set, &input, waivers.clone(), now)?;
        let counts: Vec<PolicyCount> = evaluation
            .policies
            .iter()
            .map(|policy| {
                let counts = evaluation.policy_counts(&policy.meta.id);
                PolicyCount {
                    policy: policy.meta.id.clone(),
                    severity: policy.meta.severity.as_str(),
                    failing: counts.failing as i64,
                    waived: counts.waived as i64,
                    unknown: counts.unknown as i64,
                }
            })
            .collect();
        let next_expiry = waivers
            .iter()
            .filter(|waiver| waiver.applies_at(now))
            .map(|waiver| waiver.until)
            .min();
        let tally = PolicyTally {
            policies: counts,
            evaluated_at: now,
            snapshot_taken_at: taken_at,
        };
        self.cache.update(|snapshot| snapshot.policy = Some(tally));
        self.last = Some(Evaluated {
            data_version,
            live_read_at,
            at: now,
            next_expiry,
        });
        Ok(true)
    }
}

/// Steps `watch` every `check_every` (the exporter's `--interval`) on a
/// blocking thread, on `clock`'s time: a waiver a teammate gives shows by
/// the next step, as the history's revision moves.
pub async fn run(mut watch: PolicyWatch, clock: Clock, check_every: Duration) {
    let mut ticks = tokio::time::interval(check_every);
    ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        ticks.tick().await;
        let now = clock.now();
        watch = match tokio::task::spawn_blocking(move || {
            watch.step(now);
            watch
        })
        .await
        {
            Ok(watch) => watch,
            Err(error) => {
                tracing::error!("the policy evaluation stopped: {error}");
                return;
            }
        };
    }
}
