//! What the one retry loop (in `transport.rs`) needs: the policy, full-jitter
//! backoff, `Retry-After` parsing and the retry budget.

use std::fmt;
use std::sync::Mutex;
use std::time::Duration;

use time::OffsetDateTime;

use crate::rng::SplitMix64;

/// How hard to retry.
#[derive(Debug, Clone, PartialEq)]
pub struct RetryPolicy {
    /// Attempts per call, the first included. 1 disables retries.
    pub max_attempts: u32,
    /// Full-jitter exponential backoff: attempt `n` waits a random time in
    /// `0..=min(cap, base * 2^(n-1))`.
    pub base: Duration,
    pub cap: Duration,
    /// The longest `Retry-After` we wait for. A longer one ends the retries with
    /// the error: coming back sooner would only be refused again.
    pub retry_after_cap: Duration,
    pub budget: BudgetPolicy,
}

impl Default for RetryPolicy {
    fn default() -> Self {
        Self {
            max_attempts: 5,
            base: Duration::from_millis(500),
            cap: Duration::from_secs(20),
            retry_after_cap: Duration::from_secs(60),
            budget: BudgetPolicy::default(),
        }
    }
}

/// A token bucket shared by every call of a client (and its clones): each retry
/// spends `retry_cost`, each success earns `success_refund`, up to `capacity`.
/// With the defaults retries stop once more than about a third of attempts fail
/// for long enough to spend the whole bucket: a retry storm.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BudgetPolicy {
    pub capacity: f64,
    pub retry_cost: f64,
    pub success_refund: f64,
}

impl Default for BudgetPolicy {
    fn default() -> Self {
        Self {
            capacity: 50.0,
            retry_cost: 1.0,
            success_refund: 0.5,
        }
    }
}

#[derive(Debug)]
pub struct RetryBudget {
    policy: BudgetPolicy,
    tokens: Mutex<f64>,
}

impl RetryBudget {
    pub fn new(policy: BudgetPolicy) -> Self {
        Self {
            policy,
            tokens: Mutex::new(policy.capacity),
        }
    }

    /// Takes the cost of one retry, or refuses when the bucket cannot pay it.
    pub fn try_spend(&self) -> bool {
        let mut tokens = self.tokens.lock().unwrap_or_else(|p| p.into_inner());
        if *tokens >= self.policy.retry_cost {
            *tokens -= self.policy.retry_cost;
            true
        } else {
            false
        }
    }

    pub fn record_success(&self) {
        let mut tokens = self.tokens.lock().unwrap_or_else(|p| p.into_inner());
        *tokens = (*tokens + self.policy.success_refund).min(self.policy.capacity);
    }

    #[cfg(test)]
    pub fn tokens(&self) -> f64 {
        *self.tokens.lock().unwrap_or_else(|p| p.into_inner())
    }
}

/// Why a call is tried again.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RetryReason {
    /// 429.
    RateLimited,
    /// 503 `request_timeout`.
    RequestTimeout,
    /// 503 from something in front of the service (not its envelope).
    Unavailable,
    /// The connection could not be made.
    Connect,
    /// The connection dropped after the request was sent.
    ConnectionDropped,
    /// The client's request timeout elapsed.
    Timeout,
}

impl fmt::Display for RetryReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::RateLimited => "rate limited",
            Self::RequestTimeout => "server timed out",
            Self::Unavailable => "service unavailable",
            Self::Connect => "cannot connect",
            Self::ConnectionDropped => "connection dropped",
            Self::Timeout => "request timed out",
        })
    }
}

/// The jitter source: seeded for reproducible tests, else from the time.
#[derive(Debug)]
pub struct Jitter(Mutex<SplitMix64>);

impl Jitter {
    pub fn new(seed: Option<u64>) -> Self {
        let seed = seed.unwrap_or_else(|| {
            OffsetDateTime::now_utc().unix_timestamp_nanos() as u64 ^ u64::from(std::process::id())
        });
        Self(Mutex::new(SplitMix64::new(seed)))
    }

    fn unit(&self) -> f64 {
        self.0.lock().unwrap_or_else(|p| p.into_inner()).unit()
    }
}

impl RetryPolicy {
    /// The full-jitter wait before attempt `next_attempt` (2 for the first retry).
    pub fn backoff(&self, next_attempt: u32, jitter: &Jitter) -> Duration {
        let exponent = next_attempt.saturating_sub(2).min(30);
        let ceiling = self
            .base
            .saturating_mul(1u32 << exponent)
            .min(self.cap)
            .as_secs_f64();
        Duration::from_secs_f64(ceiling * jitter.unit())
    }

    /// The wait before attempt `next_attempt`: at least `Retry-After` when given,
    /// `None` when `Retry-After` is beyond the cap.
    pub fn delay(
        &self,
        next_attempt: u32,
        retry_after: Option<Duration>,
        jitter: &Jitter,
    ) -> Option<Duration> {
        let backoff = self.backoff(next_attempt, jitter);
        match retry_after {
            Some(wait) if wait > self.retry_after_cap => None,
            Some(wait) => Some(wait.max(backoff)),
            None => Some(backoff),
        }
    }
}

/// `Retry-After`: delay-seconds or an HTTP date (relative to `now`).
pub fn parse_retry_after(value: &str, now: OffsetDateTime) -> Option<Duration> {
    let value = value.trim();
    if let Ok(seconds) = value.parse::<u64>() {
        return Some(Duration::from_secs(seconds));
    }
    let at = httpdate::parse_http_date(value).ok()?;
    let at = OffsetDateTime::from(at);
    let wait = at - now;
    Some(if wait.is_positive() {
        wait.try_into().unwrap_or(Duration::MAX)
    } else {
        Duration::ZERO
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use time::macros::datetime;

    #[test]
    fn retry_after_in_seconds_or_http_date() {
        let now = datetime!(2026-11-22 12:00:00 UTC);
        assert_eq!(parse_retry_after("7", now), Some(Duration::from_secs(7)));
        assert_eq!(
            parse_retry_after("Sun, 22 Nov 2026 12:00:30 GMT", now),
            Some(Duration::from_secs(30))
        );
        assert_eq!(
            parse_retry_after("Sun, 22 Nov 2026 11:00:00 GMT", now),
            Some(Duration::ZERO)
        );
        assert_eq!(parse_retry_after("soon", now), None);
        assert_eq!(parse_retry_after("-3", now), None);
    }

    #[test]
    fn full_jitter_stays_under_the_exponential_ceiling() {
        let policy = RetryPolicy::default();
        let jitter = Jitter::new(Some(3));
        for attempt in 2..12u32 {
            let ceiling = Duration::from_millis(500)
                .saturating_mul(1 << (attempt - 2))
                .min(Duration::from_secs(20));
            let waits: Vec<Duration> = (0..200).map(|_| policy.backoff(attempt, &jitter)).collect();
            assert!(waits.iter().all(|w| *w <= ceiling), "attempt {attempt}");
            // Full jitter spreads over the whole range, not around the ceiling.
            assert!(waits.iter().any(|w| *w < ceiling / 4), "attempt {attempt}");
            assert!(
                waits.iter().any(|w| *w > ceiling * 3 / 4),
                "attempt {attempt}"
            );
        }
    }

    #[test]
    fn retry_after_is_a_floor_and_its_cap_ends_retries() {
        let policy = RetryPolicy {
            retry_after_cap: Duration::from_secs(10),
            ..RetryPolicy::default()
        };
        let jitter = Jitter::new(Some(1));
        for _ in 0..50 {
            let wait = policy
                .delay(2, Some(Duration::from_secs(3)), &jitter)
                .unwrap();
            assert!(wait >= Duration::from_secs(3));
        }
        assert_eq!(
            policy.delay(2, Some(Duration::from_secs(11)), &jitter),
            None
        );
    }

    #[test]
    fn budget_stops_a_storm_and_recovers_with_successes() {
        let budget = RetryBudget::new(BudgetPolicy {
            capacity: 3.0,
            retry_cost: 1.0,
            success_refund: 0.5,
        });
        assert!(budget.try_spend() && budget.try_spend() && budget.try_spend());
        assert!(!budget.try_spend());
        budget.record_success();
        assert!(!budget.try_spend(), "half a token does not pay a retry");
        budget.record_success();
        assert!(budget.try_spend());
        for _ in 0..100 {
            budget.record_success();
        }
        assert_eq!(budget.tokens(), 3.0);
    }
}
