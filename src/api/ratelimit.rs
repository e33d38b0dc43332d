//! Proactive pacing: the `X-RateLimit-*` state of one credential, and the wait
//! before a request that would find the limit exhausted.
//!
//! The state counts requests in flight against `Remaining`, so concurrent calls
//! do not all spend the last slot. Once `Remaining` is zero the next request
//! waits until `Reset`; after `Reset` one request at a time probes how much
//! capacity the sliding window has recovered. Answers arrive out of order
//! (latency varies): the state is that of the newest request answered, so a
//! slow answer sent earlier, which counted fewer requests, never raises
//! `Remaining` again (the background snapshot met 429s that way). A request
//! cut while it travelled keeps its slot spent: the service counted it.
//! Background requests ([`Lane::Background`]) stop at the reserve, counted
//! with everything in flight, so the user's own request finds room at once.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use reqwest::header::HeaderMap;
use time::OffsetDateTime;
use tokio::sync::Notify;

/// The last known rate-limit state of a credential.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RateLimitState {
    pub limit: u32,
    /// Requests left, less those in flight.
    pub remaining: u32,
    /// When capacity next recovers; `None` when the server did not say.
    pub reset: Option<OffsetDateTime>,
}

impl RateLimitState {
    /// Reads `X-RateLimit-Limit`, `-Remaining` and `-Reset`.
    pub fn from_headers(headers: &HeaderMap) -> Option<Self> {
        let number =
            |name: &str| -> Option<i64> { headers.get(name)?.to_str().ok()?.trim().parse().ok() };
        let limit = u32::try_from(number("x-ratelimit-limit")?).ok()?;
        let remaining = u32::try_from(number("x-ratelimit-remaining")?.max(0)).ok()?;
        let reset = number("x-ratelimit-reset")
            .and_then(|secs| OffsetDateTime::from_unix_timestamp(secs).ok());
        Some(Self {
            limit,
            remaining,
            reset,
        })
    }
}

/// The requests a walk that runs by itself leaves to the user's own actions
/// (DESIGN.md: "The request budget is the user's"): a share of the limit,
/// rounded up, and at least a few. The one rule of the reserve: the
/// dashboard's walks and bulk runs and its background snapshot keep
/// [`Reserve::DASHBOARD`], the exporter [`Reserve::EXPORTER`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Reserve {
    /// The share of the limit kept, in percent.
    pub percent: u32,
    /// Kept however small the limit.
    pub at_least: u32,
}

impl Reserve {
    /// A tenth of the budget, at least two requests: the user's next action
    /// and the one after it.
    pub const DASHBOARD: Self = Self {
        percent: 10,
        at_least: 2,
    };
    /// A quarter, at least one: the exporter polls beside a dashboard or
    /// script spending the same key.
    pub const EXPORTER: Self = Self {
        percent: 25,
        at_least: 1,
    };

    /// The requests kept out of a budget of `limit`.
    pub fn kept(self, limit: u32) -> u32 {
        let share = (u64::from(limit) * u64::from(self.percent)).div_ceil(100);
        u32::try_from(share).unwrap_or(u32::MAX).max(self.at_least)
    }

    /// Whether `remaining` of `limit` leaves more than the reserve and
    /// `beside` more requests.
    pub fn leaves(self, remaining: u32, limit: u32, beside: u32) -> bool {
        remaining > self.kept(limit).saturating_add(beside)
    }

    /// Whether one more request (and `beside` more) leaves the reserve of
    /// `state` intact at `now`. Before the first answer nothing is known and
    /// one request finds out; after the window's reset the next answer says
    /// how much it has recovered.
    pub fn allows(self, state: Option<RateLimitState>, now: OffsetDateTime, beside: u32) -> bool {
        match state {
            None => true,
            Some(RateLimitState {
                reset: Some(reset), ..
            }) if reset <= now => true,
            Some(state) => self.leaves(state.remaining, state.limit, beside),
        }
    }
}

#[derive(Debug, Default)]
struct PacerState {
    known: Option<RateLimitState>,
    in_flight: u32,
    /// Requests admitted so far: each permit's number, in sending order.
    sent: u64,
    /// The number of the newest request whose answer set `known`.
    known_from: u64,
    /// The least `Remaining` answered in the current window (one `Reset`):
    /// the service's count only goes down within a window, so the least is
    /// its latest, in whatever order the answers came back.
    least: Option<RateLimitState>,
}

/// Whose request it is: the user's may spend the whole budget; a background
/// one (a snapshot's walk, details nobody looks at yet) leaves the reserve
/// for what the user does next (DESIGN: "The request budget is the user's").
#[derive(Debug, Clone, Copy, Default)]
pub enum Lane {
    #[default]
    User,
    /// Kept out of the window's last requests: the [`Reserve`].
    Background { reserve: Reserve },
}

/// What the caller must do before sending.
#[derive(Debug, PartialEq, Eq)]
pub enum Admission {
    Go,
    /// Sleep this long (until `Reset`, never beyond the cap), then ask again.
    WaitFor(Duration),
    /// Another request is probing the recovered capacity; wait for its answer.
    WaitForAnswer,
}

/// Shared by a client and its clones: one credential's state.
#[derive(Debug, Default)]
pub struct Pacer {
    state: Mutex<PacerState>,
    answered: Notify,
}

impl Pacer {
    pub fn new() -> Arc<Self> {
        Arc::default()
    }

    /// Decides whether a request may go now; on `Go` it counts as in flight until
    /// the returned permit is dropped or [`Pacer::observe`]d.
    pub fn admit(
        self: &Arc<Self>,
        now: OffsetDateTime,
        max_wait: Duration,
        lane: Lane,
    ) -> (Admission, Option<Permit>) {
        let mut state = self.state.lock().unwrap_or_else(|p| p.into_inner());
        // What this request must leave in `remaining`: nothing for the
        // user's, the reserve for background work. Checked here, where
        // requests in flight are counted, so concurrent background requests
        // never spend it between them.
        let keep = match (lane, state.known) {
            (Lane::Background { reserve }, Some(known)) => reserve.kept(known.limit),
            _ => 0,
        };
        let admission = match state.known {
            None => Admission::Go,
            Some(known) if known.remaining > keep => Admission::Go,
            // The user's request waits for the answers still out before it
            // waits for the window: `observe` takes every request in flight off
            // an answer's `Remaining`, also those the service counted before
            // it, so the count can read 0 while slots are left. Each answer
            // sets it anew; the window is waited for only if none is left then.
            Some(_) if matches!(lane, Lane::User) && state.in_flight > 0 => {
                Admission::WaitForAnswer
            }
            // A reset within `max_wait` is waited for. One further away
            // (an exhausted daily quota, a skewed clock, a hostile 10^9 s) is
            // not: a capped wait could not reach it, so the request goes as a
            // probe and the service's own answer (a 429 and its Retry-After,
            // itself capped by the retry policy) decides.
            Some(RateLimitState {
                reset: Some(reset), ..
            }) if reset > now
                && Duration::try_from(reset - now).is_ok_and(|wait| wait <= max_wait) =>
            {
                Admission::WaitFor(Duration::try_from(reset - now).unwrap_or(max_wait))
            }
            // Reset passed, unknown or beyond the cap: one probe at a time
            // (the window has recovered at least the slot that reset frees).
            Some(_) if state.in_flight == 0 => Admission::Go,
            Some(_) => Admission::WaitForAnswer,
        };
        if admission != Admission::Go {
            return (admission, None);
        }
        let mut took_slot = false;
        if let Some(known) = state.known.as_mut() {
            took_slot = known.remaining > 0;
            known.remaining = known.remaining.saturating_sub(1);
        }
        state.in_flight += 1;
        state.sent += 1;
        (
            Admission::Go,
            Some(Permit {
                pacer: self.clone(),
                open: true,
                took_slot,
                number: state.sent,
            }),
        )
    }

    /// Waits until some request in flight is answered.
    pub async fn answered(&self) {
        let notified = self.answered.notified();
        let idle = self
            .state
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .in_flight
            == 0;
        if !idle {
            notified.await;
        }
    }

    /// Records an answer's headers (and a 429's `Retry-After`), ending the permit.
    pub fn observe(
        &self,
        mut permit: Permit,
        headers: &HeaderMap,
        refused_for: Option<(OffsetDateTime, Duration)>,
    ) -> Option<RateLimitState> {
        permit.open = false;
        let mut state = self.state.lock().unwrap_or_else(|p| p.into_inner());
        state.in_flight = state.in_flight.saturating_sub(1);
        let in_flight = state.in_flight;
        let answered = RateLimitState::from_headers(headers);
        // Within the window the least count seen wins: a request counted
        // earlier may be answered last, with a count no longer true.
        let same_window = |least: &RateLimitState, answered: &RateLimitState| {
            least.reset.is_some() && least.reset == answered.reset && least.limit == answered.limit
        };
        let in_window = answered.map(|answered| match state.least {
            Some(least) if same_window(&least, &answered) => RateLimitState {
                remaining: least.remaining.min(answered.remaining),
                ..answered
            },
            _ => answered,
        });
        // Every request still out is taken off: it may not have been counted yet.
        let mut seen = in_window.map(|mut seen| {
            seen.remaining = seen.remaining.saturating_sub(in_flight);
            seen
        });
        if let Some((now, wait)) = refused_for {
            // A refusal: nothing left until Retry-After has passed. Retry-After
            // wins over a later X-RateLimit-Reset: it is the server's word for
            // this refusal, and relative, so a skewed clock cannot stretch it.
            let until = now + wait;
            let base = seen.or(state.known).unwrap_or(RateLimitState {
                limit: 0,
                remaining: 0,
                reset: None,
            });
            seen = Some(RateLimitState {
                remaining: 0,
                reset: Some(until),
                ..base
            });
        }
        // An answer to a request older than the one that set the state, from
        // another window, is stale (a refusal is not); within the window the
        // least count already keeps it from raising `Remaining`.
        let within = matches!((state.least, in_window), (Some(least), Some(answered)) if same_window(&least, &answered));
        let stale = permit.number < state.known_from && refused_for.is_none() && !within;
        if seen.is_some() && !stale {
            state.known = seen;
            state.known_from = state.known_from.max(permit.number);
            state.least = if refused_for.is_some() {
                seen
            } else {
                in_window
            };
        }
        drop(state);
        self.answered.notify_waiters();
        seen
    }

    pub fn state(&self) -> Option<RateLimitState> {
        self.state.lock().unwrap_or_else(|p| p.into_inner()).known
    }

    /// Ends a permit that got no answer. The slot it took from `remaining`
    /// is given back only when the request surely never reached the service
    /// (`unsent`), so attempts in an outage do not count the limit down; one
    /// cut while it travelled (the dashboard drops the older request of a
    /// slot) was counted there, and stays spent until an answer says more.
    fn release(&self, took_slot: bool, unsent: bool) {
        let mut state = self.state.lock().unwrap_or_else(|p| p.into_inner());
        state.in_flight = state.in_flight.saturating_sub(1);
        if let Some(known) = state.known.as_mut().filter(|_| took_slot && unsent) {
            known.remaining = known.remaining.saturating_add(1).min(known.limit.max(1));
        }
        drop(state);
        self.answered.notify_waiters();
    }
}

/// A request in flight. Dropping it (no answer, or the call was cancelled)
/// frees its place; the slot it took from `remaining` stays taken, as the
/// request may have been counted. [`Permit::unsent`] gives it back.
#[derive(Debug)]
pub struct Permit {
    pacer: Arc<Pacer>,
    open: bool,
    /// Whether admitting it took one from the known `remaining`.
    took_slot: bool,
    /// Its place in sending order.
    number: u64,
}

impl Permit {
    /// Ends a permit whose request never reached the service (no connection,
    /// a refused TLS handshake): its slot is given back.
    pub fn unsent(mut self) {
        self.open = false;
        self.pacer.release(self.took_slot, true);
    }
}

impl Drop for Permit {
    fn drop(&mut self) {
        if self.open {
            self.pacer.release(self.took_slot, false);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_reserve_is_a_share_rounded_up_and_at_least_a_few() {
        assert_eq!(Reserve::DASHBOARD.kept(120), 12);
        assert_eq!(Reserve::DASHBOARD.kept(10), 2);
        assert_eq!(Reserve::DASHBOARD.kept(0), 2);
        assert_eq!(Reserve::EXPORTER.kept(10), 3);
        assert_eq!(Reserve::EXPORTER.kept(1), 1);
        assert_eq!(Reserve::EXPORTER.kept(u32::MAX), u32::MAX / 4 + 1);
        assert!(Reserve::DASHBOARD.leaves(13, 120, 0));
        assert!(!Reserve::DASHBOARD.leaves(12, 120, 0));
        assert!(!Reserve::DASHBOARD.leaves(13, 120, 1));
    }
    use time::macros::datetime;

    const T0: OffsetDateTime = datetime!(2026-11-22 12:00:00 UTC);
    const MAX: Duration = Duration::from_secs(120);

    fn headers(limit: u32, remaining: u32, reset: OffsetDateTime) -> HeaderMap {
        let mut headers = HeaderMap::new();
        headers.insert("x-ratelimit-limit", limit.into());
        headers.insert("x-ratelimit-remaining", remaining.into());
        headers.insert("x-ratelimit-reset", reset.unix_timestamp().into());
        headers
    }

    #[test]
    fn waits_for_reset_instead_of_spending_the_last_slot_twice() {
        let pacer = Pacer::new();
        let reset = T0 + time::Duration::seconds(10);
        let (go, permit) = pacer.admit(T0, MAX, Lane::User);
        assert_eq!(go, Admission::Go);
        pacer.observe(permit.unwrap(), &headers(5, 1, reset), None);
        // One slot left: the first request takes it, the second must wait,
        // first for the first's answer, then (0 left) for the window.
        let (first, first_permit) = pacer.admit(T0, MAX, Lane::User);
        assert_eq!(first, Admission::Go);
        assert_eq!(pacer.admit(T0, MAX, Lane::User).0, Admission::WaitForAnswer);
        pacer.observe(first_permit.unwrap(), &headers(5, 0, reset), None);
        assert_eq!(
            pacer
                .admit(T0 + time::Duration::seconds(4), MAX, Lane::User)
                .0,
            Admission::WaitFor(Duration::from_secs(6))
        );
        // After Reset one probe goes; others wait for its answer.
        let later = reset + time::Duration::milliseconds(1);
        let (probe, probe_permit) = pacer.admit(later, MAX, Lane::User);
        assert_eq!(probe, Admission::Go);
        assert_eq!(
            pacer.admit(later, MAX, Lane::User).0,
            Admission::WaitForAnswer
        );
        drop(probe_permit);
        assert_eq!(pacer.admit(later, MAX, Lane::User).0, Admission::Go);
    }

    #[test]
    fn in_flight_requests_count_against_remaining() {
        let pacer = Pacer::new();
        let reset = T0 + time::Duration::seconds(60);
        let (_, first) = pacer.admit(T0, MAX, Lane::User);
        let (_, second) = pacer.admit(T0, MAX, Lane::User);
        // The first answer says 3 left, but the second request is still out.
        let seen = pacer
            .observe(first.unwrap(), &headers(10, 3, reset), None)
            .unwrap();
        assert_eq!(seen.remaining, 2);
        drop(second);
    }

    /// Issue 35, item 18: with latency of 0.3 to 2.5 s answers cross; an
    /// earlier request answered last must not raise `Remaining` again, or
    /// the walk and the dashboard together spend slots that are gone.
    #[test]
    fn a_late_answer_to_an_earlier_request_never_raises_remaining() {
        let pacer = Pacer::new();
        let reset = T0 + time::Duration::seconds(60);
        let (_, earlier) = pacer.admit(T0, MAX, Lane::User);
        let (_, newer) = pacer.admit(T0, MAX, Lane::User);
        // The newer request is answered first: 1 left, less the earlier one,
        // still out, which may not have been counted yet.
        pacer.observe(newer.unwrap(), &headers(120, 1, reset), None);
        assert_eq!(pacer.state().map(|state| state.remaining), Some(0));
        // The earlier one arrives late with what was left when it was
        // counted (2: before the newer one). The least count stands: 1.
        pacer.observe(earlier.unwrap(), &headers(120, 2, reset), None);
        assert_eq!(pacer.state().map(|state| state.remaining), Some(1));
        let (last, _last) = pacer.admit(T0, MAX, Lane::User);
        assert_eq!(last, Admission::Go);
        assert_eq!(
            pacer.admit(T0, MAX, Lane::User).0,
            Admission::WaitForAnswer,
            "no slot the late answer claimed is spent"
        );
    }

    /// The last answer of a burst may be the first request the service
    /// counted (it travelled on a new connection): its count is not the
    /// window's. Answers that came back with 3, 1, 0, then 2 leave 0, and
    /// the next request waits for the window (it went, and met a 429).
    #[test]
    fn the_least_count_of_the_window_stands_whatever_order_answers_come_in() {
        let pacer = Pacer::new();
        let reset = T0 + time::Duration::seconds(60);
        let permits: Vec<_> = (0..4)
            .map(|_| pacer.admit(T0, MAX, Lane::User).1.unwrap())
            .collect();
        for (permit, left) in permits.into_iter().zip([3, 1, 0, 2]) {
            pacer.observe(permit, &headers(10, left, reset), None);
        }
        assert_eq!(pacer.state().map(|state| state.remaining), Some(0));
        assert_eq!(
            pacer.admit(T0, MAX, Lane::User).0,
            Admission::WaitFor(Duration::from_secs(60))
        );
        // A new window's count is taken as it comes.
        let later = reset + time::Duration::seconds(1);
        let (_, probe) = pacer.admit(later, MAX, Lane::User);
        let next = later + time::Duration::seconds(60);
        pacer.observe(probe.unwrap(), &headers(10, 9, next), None);
        assert_eq!(pacer.state().map(|state| state.remaining), Some(9));
    }

    /// Background requests out when an answer comes are all taken off its
    /// `Remaining`, though the service counted some of them before it: the
    /// count reads 0 with slots left. The user's request then waits for
    /// their answers, which set the count anew, not for the window (it did,
    /// a minute, in one run of six beside a busy test).
    #[test]
    fn the_users_request_waits_for_answers_out_before_the_window() {
        let pacer = Pacer::new();
        let reset = T0 + time::Duration::seconds(60);
        let background = Lane::Background {
            reserve: Reserve::DASHBOARD,
        };
        let (_, first) = pacer.admit(T0, MAX, background);
        pacer.observe(first.unwrap(), &headers(20, 8, reset), None);
        let out: Vec<_> = (0..5)
            .map(|_| pacer.admit(T0, MAX, background).1.unwrap())
            .collect();
        let mut out = out.into_iter();
        // The service counted all five before it answered the first: 3 left.
        pacer.observe(out.next().unwrap(), &headers(20, 3, reset), None);
        assert_eq!(pacer.state().map(|state| state.remaining), Some(0));
        assert_eq!(pacer.admit(T0, MAX, Lane::User).0, Admission::WaitForAnswer);
        // The last answer out says what is left: the user's request goes.
        let last = out.next_back().unwrap();
        drop(out);
        pacer.observe(last, &headers(20, 3, reset), None);
        assert_eq!(pacer.admit(T0, MAX, Lane::User).0, Admission::Go);
    }

    #[test]
    fn attempts_without_an_answer_leave_remaining_as_last_seen() {
        let pacer = Pacer::new();
        let reset = T0 + time::Duration::seconds(60);
        let (_, permit) = pacer.admit(T0, MAX, Lane::User);
        pacer.observe(permit.unwrap(), &headers(120, 113, reset), None);
        // An outage: every attempt goes, none reaches the service.
        for _ in 0..200 {
            let (go, permit) = pacer.admit(T0, MAX, Lane::User);
            assert_eq!(go, Admission::Go);
            permit.unwrap().unsent();
        }
        assert_eq!(pacer.state().map(|s| s.remaining), Some(113));
    }

    /// Issue 35, item 18: a request cut while it travelled was counted by
    /// the service; its slot is not handed out again.
    #[test]
    fn a_request_cut_in_flight_keeps_its_slot_spent() {
        let pacer = Pacer::new();
        let reset = T0 + time::Duration::seconds(60);
        let (_, permit) = pacer.admit(T0, MAX, Lane::User);
        pacer.observe(permit.unwrap(), &headers(120, 3, reset), None);
        for _ in 0..3 {
            let (go, permit) = pacer.admit(T0, MAX, Lane::User);
            assert_eq!(go, Admission::Go);
            drop(permit);
        }
        assert_eq!(
            pacer.admit(T0, MAX, Lane::User).0,
            Admission::WaitFor(Duration::from_secs(60))
        );
    }

    #[test]
    fn background_requests_leave_the_reserve_to_the_user() {
        let pacer = Pacer::new();
        let reset = T0 + time::Duration::seconds(30);
        let tenth = Reserve {
            percent: 10,
            at_least: 0,
        };
        let background = Lane::Background { reserve: tenth };
        let (_, permit) = pacer.admit(T0, MAX, background);
        pacer.observe(permit.unwrap(), &headers(20, 4, reset), None);
        // Two background requests in flight take the window to the reserve.
        let (first, _first) = pacer.admit(T0, MAX, background);
        let (second, _second) = pacer.admit(T0, MAX, background);
        assert_eq!((first, second), (Admission::Go, Admission::Go));
        assert_eq!(
            pacer.admit(T0, MAX, background).0,
            Admission::WaitFor(Duration::from_secs(30))
        );
        // The user's requests still go, down to the last slot.
        let (user, _user) = pacer.admit(T0, MAX, Lane::User);
        assert_eq!(user, Admission::Go);
        let (user, _last) = pacer.admit(T0, MAX, Lane::User);
        assert_eq!(user, Admission::Go);
        // None left, requests out: their answers say more than the window would.
        assert_eq!(pacer.admit(T0, MAX, Lane::User).0, Admission::WaitForAnswer);
    }

    #[test]
    fn a_refusal_blocks_until_retry_after() {
        let pacer = Pacer::new();
        let (_, permit) = pacer.admit(T0, MAX, Lane::User);
        pacer.observe(
            permit.unwrap(),
            &HeaderMap::new(),
            Some((T0, Duration::from_secs(3))),
        );
        assert_eq!(
            pacer.admit(T0, MAX, Lane::User).0,
            Admission::WaitFor(Duration::from_secs(3))
        );
        // A wait beyond the cap is not waited: a skewed clock or a hostile
        // reset cannot stall the client; one probe goes instead.
        let (probe, probe_permit) = pacer.admit(T0, Duration::from_secs(1), Lane::User);
        assert_eq!(probe, Admission::Go);
        assert_eq!(
            pacer.admit(T0, Duration::from_secs(1), Lane::User).0,
            Admission::WaitForAnswer
        );
        drop(probe_permit);
        // A refusal whose X-RateLimit-Reset lies far later (another limit, or
        // the server's clock ahead of ours) still waits only for Retry-After.
        let later = T0 + time::Duration::seconds(10);
        let (go, permit) = pacer.admit(later, MAX, Lane::User);
        assert_eq!(go, Admission::Go);
        pacer.observe(
            permit.unwrap(),
            &headers(120, 90, later + time::Duration::hours(5)),
            Some((later, Duration::from_secs(1))),
        );
        assert_eq!(
            pacer.admit(later, MAX, Lane::User).0,
            Admission::WaitFor(Duration::from_secs(1))
        );
        assert_eq!(
            pacer
                .admit(later + time::Duration::seconds(1), MAX, Lane::User)
                .0,
            Admission::Go
        );
    }
}
