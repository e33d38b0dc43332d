//! What the client and the background snapshot report while they work, for
//! the status line.

use crate::api::ClientEvent;

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ClientNotice {
    RateLimit {
        remaining: u32,
        limit: u32,
    },
    Retrying {
        reason: String,
        delay_ms: u64,
    },
    /// A request waits for the rate limit to reset before it is sent.
    Paced {
        wait_ms: u64,
    },
    /// A retry was due, but too many recent failures spent the retry budget.
    RetryBudgetSpent {
        request: String,
    },
    Recovered,
    /// The background snapshot's progress.
    Snapshot(String),
    /// The background snapshot's announcement, with its cost, before it starts.
    SnapshotPlanned(String),
}

/// What the status line should say about a client event, if anything.
pub fn notice(event: &ClientEvent) -> Option<ClientNotice> {
    match event {
        ClientEvent::RateLimit(state) => Some(ClientNotice::RateLimit {
            remaining: state.remaining,
            limit: state.limit,
        }),
        ClientEvent::Retrying { reason, delay, .. } => Some(ClientNotice::Retrying {
            reason: reason.to_string(),
            delay_ms: delay.as_millis() as u64,
        }),
        // Background work waiting at the reserve is no spent budget: the
        // snapshot's progress says it waits.
        ClientEvent::Paced {
            wait,
            background: false,
            ..
        } => Some(ClientNotice::Paced {
            wait_ms: wait.as_millis() as u64,
        }),
        ClientEvent::RetryBudgetExhausted { method, path, .. } => {
            Some(ClientNotice::RetryBudgetSpent {
                request: format!("{method} {}", crate::text::sanitize_line(path)),
            })
        }
        ClientEvent::RequestDone {
            status: Some(status),
            ..
        } if *status < 500 && *status != 429 => Some(ClientNotice::Recovered),
        _ => None,
    }
}
