//! A sliding-window rate limit per key, on an injectable clock.

use std::collections::{HashMap, VecDeque};
use std::sync::Mutex;

use time::{Duration, OffsetDateTime};

/// `N` requests per `window`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RateLimit {
    pub limit: u32,
    pub window: Duration,
}

impl Default for RateLimit {
    /// DESIGN.md: 120 requests per 60 s per key.
    fn default() -> Self {
        Self {
            limit: 120,
            window: Duration::seconds(60),
        }
    }
}

impl std::str::FromStr for RateLimit {
    type Err = String;

    /// `N/SECONDS`, e.g. `120/60`.
    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let (limit, seconds) = text
            .split_once('/')
            .ok_or_else(|| format!("rate limit {text:?} is not N/SECONDS"))?;
        let limit: u32 = limit
            .trim()
            .parse()
            .map_err(|_| format!("rate limit count {limit:?} is not a whole number"))?;
        let seconds: u32 = seconds.trim().parse().map_err(|_| {
            format!("rate limit window {seconds:?} is not a whole number of seconds")
        })?;
        if limit == 0 || seconds == 0 {
            return Err("rate limit count and window must both be above zero".into());
        }
        Ok(Self {
            limit,
            window: Duration::seconds(i64::from(seconds)),
        })
    }
}

/// The `X-RateLimit-*` values of one request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RateState {
    pub limit: u32,
    pub remaining: u32,
    /// Absolute Unix seconds at which capacity next recovers.
    pub reset: i64,
    /// Set when the request is refused: seconds to wait.
    pub retry_after: Option<u64>,
}

/// Request times per key within the window.
#[derive(Debug, Default)]
pub struct RateLimiter {
    config: RateLimit,
    windows: Mutex<HashMap<String, VecDeque<OffsetDateTime>>>,
}

impl RateLimiter {
    pub fn new(config: RateLimit) -> Self {
        Self {
            config,
            windows: Mutex::new(HashMap::new()),
        }
    }

    /// Counts a request of `key` at `now`, or refuses it. Refused requests do not
    /// count, so a client that honours `Retry-After` gets through.
    pub fn check(&self, key: &str, now: OffsetDateTime) -> RateState {
        let mut windows = self
            .windows
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        let window = windows.entry(key.to_owned()).or_default();
        while window
            .front()
            .is_some_and(|oldest| *oldest + self.config.window <= now)
        {
            window.pop_front();
        }
        let limit = self.config.limit;
        let allowed = (window.len() as u32) < limit;
        if allowed {
            window.push_back(now);
        }
        let recovers_at = window
            .front()
            .map_or(now, |oldest| *oldest + self.config.window);
        let reset = ceil_unix_seconds(recovers_at);
        let retry_after = (!allowed).then(|| {
            let wait = recovers_at - now;
            let millis = wait.whole_milliseconds().max(0) as u64;
            millis.div_ceil(1000).max(1)
        });
        RateState {
            limit,
            remaining: limit.saturating_sub(window.len() as u32),
            reset,
            retry_after,
        }
    }
}

fn ceil_unix_seconds(at: OffsetDateTime) -> i64 {
    let secs = at.unix_timestamp();
    if at.nanosecond() > 0 { secs + 1 } else { secs }
}

#[cfg(test)]
mod tests {
    use super::*;
    use time::macros::datetime;

    #[test]
    fn sliding_window_recovers_as_requests_age_out() {
        let limiter = RateLimiter::new(RateLimit {
            limit: 3,
            window: Duration::seconds(10),
        });
        let t0 = datetime!(2026-11-22 12:00:00 UTC);
        assert_eq!(limiter.check("k", t0).remaining, 2);
        assert_eq!(limiter.check("k", t0 + Duration::seconds(4)).remaining, 1);
        assert_eq!(limiter.check("k", t0 + Duration::seconds(5)).remaining, 0);
        let refused = limiter.check("k", t0 + Duration::seconds(6));
        assert_eq!(refused.retry_after, Some(4));
        assert_eq!(refused.reset, (t0 + Duration::seconds(10)).unix_timestamp());
        // Another key has its own window.
        assert_eq!(
            limiter.check("other", t0 + Duration::seconds(6)).remaining,
            2
        );
        // The first request leaves the window at t0+10.
        let later = limiter.check("k", t0 + Duration::seconds(10));
        assert_eq!(later.retry_after, None);
        assert_eq!(later.remaining, 0);
    }

    #[test]
    fn parses_n_per_seconds() {
        assert_eq!(
            "5/2".parse::<RateLimit>(),
            Ok(RateLimit {
                limit: 5,
                window: Duration::seconds(2)
            })
        );
        assert!("5".parse::<RateLimit>().is_err());
        assert!("0/10".parse::<RateLimit>().is_err());
        assert!("x/10".parse::<RateLimit>().is_err());
    }
}
