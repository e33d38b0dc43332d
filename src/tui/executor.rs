//! The executor of a context without contexts to switch to (the demo, tests):
//! its [`Services`]; and the client's errors and events as the dashboard shows them.

use super::app::ClientNotice;
use super::effect::{ErrorInfo, Gate};
use super::services::{Executor, Services};
use crate::api::model::ErrorType;
use crate::api::{ApiError, Client, ClientEvent};
use crate::clock::Clock;

#[derive(Clone)]
pub struct ClientExecutor {
    pub client: Client,
    pub workspace_id: String,
    pub clock: Clock,
}

impl Executor for ClientExecutor {
    fn services(&self) -> Services {
        Services {
            client: self.client.clone(),
            workspace_id: self.workspace_id.clone(),
            clock: self.clock.clone(),
            history: None,
            contexts: None,
        }
    }
}

/// What 404 `analytics_not_found` may mean.
pub const ANALYTICS_NOT_FOUND: &str = "No analytics (404 analytics_not_found): the project is not published, or it is gone or not visible to this key.";
/// What 404 `pii_labels_not_found` may mean.
pub const PII_NOT_FOUND: &str = "No personal-data findings (404 pii_labels_not_found): detection is off for this workspace, or the project is gone.";

/// The error as the TUI shows it, with what a gate needs spelled out.
pub fn error_info(error: &ApiError, clock: &Clock) -> ErrorInfo {
    let kind = error.kind();
    let gate = if let Some(plan) = error.required_plan() {
        Some(Gate::Plan(plan.to_owned()))
    } else if !error.required_features().is_empty() {
        Some(Gate::Features(error.required_features()))
    } else if !error.required_scopes().is_empty() {
        Some(Gate::Scopes(error.required_scopes()))
    } else {
        match kind {
            // Each 404 type stands for a missing project too (DESIGN.md, "404
            // types"): the words name every cause it may mean.
            Some(ErrorType::PiiLabelsNotFound) => Some(Gate::NotFound(PII_NOT_FOUND.into())),
            Some(ErrorType::AnalyticsNotFound) => Some(Gate::NotFound(ANALYTICS_NOT_FOUND.into())),
            Some(ErrorType::SecurityCriticalFindings) => {
                Some(Gate::BlockingFindings(error.finding_refs()))
            }
            Some(ErrorType::InvalidRequest)
                if error.response().is_some_and(|r| !r.errors.is_empty()) =>
            {
                error.response().map(|r| Gate::Fields(r.errors.clone()))
            }
            _ => None,
        }
    };
    ErrorInfo {
        status: error.status(),
        kind: kind.map(|k| k.as_str().to_owned()),
        detail: error.response().and_then(|r| r.detail.clone()),
        request_id: error.request_id().map(str::to_owned),
        summary: error.to_string(),
        gate,
        at: clock.now(),
    }
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
