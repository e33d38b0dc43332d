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
mod tests;
