//! What the client reports while it works: every attempt, every retry with its
//! reason and delay, the rate-limit state, pacing waits and ignored query
//! parameters. The TUI shows them, the CLI logs them. Every event is also
//! written to `tracing`; none holds the key.

use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use time::OffsetDateTime;
use tokio::sync::broadcast;

use super::ratelimit::RateLimitState;
use super::retry::RetryReason;

#[derive(Debug, Clone, PartialEq)]
pub enum ClientEvent {
    /// One attempt finished (with an answer or without: `status` is `None`).
    RequestDone {
        /// Numbers the calls of a client; every attempt of a call shares it.
        call: u64,
        attempt: u32,
        method: String,
        path: String,
        status: Option<u16>,
        elapsed: Duration,
        /// When the attempt was sent, on the client's clock.
        sent_at: OffsetDateTime,
        request_id: Option<String>,
        retry_after: Option<Duration>,
    },
    /// A call will be tried again after `delay`.
    Retrying {
        call: u64,
        method: String,
        path: String,
        reason: RetryReason,
        delay: Duration,
        /// The attempt about to be made (2 for the first retry).
        attempt: u32,
        max_attempts: u32,
    },
    /// A retry was due, but the retry budget is spent.
    RetryBudgetExhausted {
        call: u64,
        method: String,
        path: String,
    },
    /// The credential's rate-limit state after an answer.
    RateLimit(RateLimitState),
    /// A request waits for the rate limit to reset instead of drawing a 429.
    /// `background`: background work waiting at the user's reserve, which is
    /// no sign of a spent budget.
    Paced {
        call: u64,
        wait: Duration,
        background: bool,
    },
    /// The server ignored query parameters we sent: a client/server mismatch.
    UnknownQueryParams {
        method: String,
        path: String,
        names: Vec<String>,
        /// How many more names the server left out of the header.
        omitted: u32,
    },
    /// The server answered with another API version than the one pinned.
    VersionMismatch { pinned: String, served: String },
}

impl ClientEvent {
    /// Whether it is a warning: the log's level, and a command prints it
    /// (the rest is progress or only logged): what an answer's check tells
    /// (`transport/checks.rs`) and a spent retry budget.
    pub fn is_warning(&self) -> bool {
        matches!(
            self,
            Self::UnknownQueryParams { .. }
                | Self::VersionMismatch { .. }
                | Self::RetryBudgetExhausted { .. }
        )
    }
}

impl fmt::Display for ClientEvent {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::RequestDone {
                method,
                path,
                status,
                elapsed,
                attempt,
                ..
            } => {
                let status = status.map_or_else(|| "no answer".to_owned(), |s| s.to_string());
                write!(
                    f,
                    "{method} {path} -> {status} in {} ms",
                    elapsed.as_millis()
                )?;
                if *attempt > 1 {
                    write!(f, " (attempt {attempt})")?;
                }
                Ok(())
            }
            Self::Retrying {
                reason,
                delay,
                attempt,
                max_attempts,
                ..
            } => write!(
                f,
                "{reason}, retrying in {} (attempt {attempt} of {max_attempts})",
                human_duration(*delay)
            ),
            Self::RetryBudgetExhausted { method, path, .. } => write!(
                f,
                "not retrying {method} {path}: too many recent failures (retry budget spent)"
            ),
            Self::RateLimit(state) => write!(
                f,
                "rate limit: {} of {} requests left",
                state.remaining, state.limit
            ),
            Self::Paced { wait, .. } => write!(
                f,
                "rate limit reached, waiting {} for it to reset",
                human_duration(*wait)
            ),
            Self::UnknownQueryParams {
                method,
                path,
                names,
                omitted,
            } => {
                write!(
                    f,
                    "the server ignored query parameters {} of {method} {path}",
                    names.join(", ")
                )?;
                if *omitted > 0 {
                    write!(f, " and {omitted} more")?;
                }
                write!(f, "; the client and server versions may not match")
            }
            Self::VersionMismatch { pinned, served } => write!(
                f,
                "pinned API version {pinned}, but the server answered with {served}"
            ),
        }
    }
}

/// "4 s", "1.5 s", "250 ms".
pub fn human_duration(duration: Duration) -> String {
    if duration < Duration::from_secs(1) {
        format!("{} ms", duration.as_millis())
    } else if duration.subsec_millis() == 0 {
        format!("{} s", duration.as_secs())
    } else {
        format!("{:.1} s", duration.as_secs_f64())
    }
}

pub type EventCallback = Arc<dyn Fn(&ClientEvent) + Send + Sync>;

/// Fans an event out to `tracing`, an optional callback and broadcast subscribers.
#[derive(Clone)]
pub(crate) struct EventHub {
    sender: broadcast::Sender<ClientEvent>,
    callback: Option<EventCallback>,
}

impl fmt::Debug for EventHub {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("EventHub")
            .field("subscribers", &self.sender.receiver_count())
            .field("callback", &self.callback.is_some())
            .finish()
    }
}

impl EventHub {
    pub fn new(callback: Option<EventCallback>) -> Self {
        let (sender, _) = broadcast::channel(1024);
        Self { sender, callback }
    }

    pub fn subscribe(&self) -> broadcast::Receiver<ClientEvent> {
        self.sender.subscribe()
    }

    pub fn emit(&self, event: ClientEvent) {
        match &event {
            event if event.is_warning() => tracing::warn!("{event}"),
            ClientEvent::Retrying { .. } | ClientEvent::Paced { .. } => tracing::info!("{event}"),
            _ => tracing::debug!("{event}"),
        }
        if let Some(callback) = &self.callback {
            callback(&event);
        }
        if self.sender.receiver_count() > 0 {
            // No subscriber, or one that lags: neither is the caller's problem.
            let _ = self.sender.send(event);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn retry_reads_like_a_status_line() {
        let event = ClientEvent::Retrying {
            call: 1,
            method: "GET".into(),
            path: "/v1/projects/p".into(),
            reason: RetryReason::RateLimited,
            delay: Duration::from_secs(4),
            attempt: 2,
            max_attempts: 5,
        };
        assert_eq!(
            event.to_string(),
            "rate limited, retrying in 4 s (attempt 2 of 5)"
        );
        assert_eq!(human_duration(Duration::from_millis(1500)), "1.5 s");
        assert_eq!(human_duration(Duration::from_millis(250)), "250 ms");
    }
}
