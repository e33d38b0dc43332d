//! Time as the client sees it: "now" (for `Retry-After` dates and
//! `X-RateLimit-Reset`) and sleeping (backoff, pacing, deployment polling).
//! Injectable, so tests assert delays without waiting for them.

use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use time::OffsetDateTime;

use crate::clock::Clock;

pub type SleepFuture = Pin<Box<dyn Future<Output = ()> + Send>>;

pub trait Sleeper: Send + Sync + fmt::Debug {
    fn now(&self) -> OffsetDateTime;
    fn sleep(&self, duration: Duration) -> SleepFuture;
}

/// The system clock and `tokio::time::sleep`.
#[derive(Debug, Clone, Copy, Default)]
pub struct TokioSleeper;

impl Sleeper for TokioSleeper {
    fn now(&self) -> OffsetDateTime {
        OffsetDateTime::now_utc()
    }

    fn sleep(&self, duration: Duration) -> SleepFuture {
        Box::pin(tokio::time::sleep(duration))
    }
}

/// A sleeper on a manual [`Clock`]: sleeping moves the clock forward at once
/// and records the duration. Share the clock with an in-process server and its
/// rate-limit windows move with the client's waits.
#[derive(Debug, Clone)]
pub struct ManualSleeper {
    clock: Clock,
    slept: Arc<Mutex<Vec<Duration>>>,
}

impl ManualSleeper {
    pub fn new(clock: Clock) -> Self {
        Self {
            clock,
            slept: Arc::default(),
        }
    }

    /// Every sleep so far, in order.
    pub fn sleeps(&self) -> Vec<Duration> {
        self.slept
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .clone()
    }

    pub fn clock(&self) -> &Clock {
        &self.clock
    }
}

impl Sleeper for ManualSleeper {
    fn now(&self) -> OffsetDateTime {
        self.clock.now()
    }

    fn sleep(&self, duration: Duration) -> SleepFuture {
        self.slept
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .push(duration);
        self.clock
            .advance(time::Duration::try_from(duration).unwrap_or(time::Duration::MAX));
        // Let other tasks run, as a real sleep would.
        Box::pin(tokio::task::yield_now())
    }
}
