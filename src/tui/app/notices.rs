//! What the client and the replies tell the App beside data: rate limits,
//! retries, the request budget, the error log and the workspace's plan.

use time::OffsetDateTime;

use super::{App, ClientNotice};
use crate::tui::effect::{ErrorInfo, Gate, Reply};

/// Errors kept for the `!` log.
const ERROR_LOG_LIMIT: usize = 200;

impl App {
    /// What the client reports; true when the status line changes.
    pub(super) fn handle_notice(&mut self, notice: ClientNotice, now: OffsetDateTime) -> bool {
        match notice {
            ClientNotice::RateLimit { remaining, limit } => {
                self.monitor.set_rate_limit(limit);
                // The lists walk pages and fetch details within the budget.
                self.inventory.list.set_rate(remaining, limit);
                self.members.set_rate(remaining, limit);
                self.pii.list.set_rate(remaining, limit);
                let aged = self
                    .rate_at
                    .replace(now)
                    .is_some_and(|at| (now - at).whole_seconds() >= 60);
                let rate_changed =
                    self.rate.replace((remaining, limit)) != Some((remaining, limit));
                rate_changed | aged | self.paced.take().is_some()
            }
            ClientNotice::Retrying { reason, delay_ms } => {
                if reason == "rate limited" {
                    self.record_budget_problem(
                        format!(
                            "the rate limit was reached (HTTP 429): retrying in {} s",
                            delay_ms.div_ceil(1000)
                        ),
                        now,
                    );
                }
                let retrying = Some((reason, delay_ms));
                let changed = self.retrying != retrying;
                self.retrying = retrying;
                changed
            }
            ClientNotice::Paced { wait_ms } => {
                if self.paced.is_none() {
                    self.record_budget_problem(
                        format!(
                            "the request budget is spent: a request waited {} s for the rate limit to reset",
                            wait_ms.div_ceil(1000)
                        ),
                        now,
                    );
                }
                self.paced = Some((wait_ms, now));
                true
            }
            ClientNotice::RetryBudgetSpent { request } => {
                self.record_budget_problem(
                    format!("not retried: {request} (too many recent failures)"),
                    now,
                );
                true
            }
            ClientNotice::Recovered => self.retrying.take().is_some() | self.paced.take().is_some(),
            ClientNotice::Snapshot(text) => self.snapshot_progress(text),
        }
    }

    /// A budget problem goes to the error log, which says what happened and why.
    fn record_budget_problem(&mut self, summary: String, now: OffsetDateTime) {
        self.record_error(ErrorInfo {
            status: None,
            kind: Some("request_budget".into()),
            detail: None,
            request_id: None,
            summary,
            gate: None,
            at: now,
        });
    }

    pub(super) fn record_error(&mut self, error: ErrorInfo) {
        self.errors.push(error);
        if self.errors.len() > ERROR_LOG_LIMIT {
            self.errors.remove(0);
        }
    }

    /// The API does not say which plan a workspace has; what it allows tells.
    pub(super) fn note_plan(&mut self, reply: &Result<Reply, ErrorInfo>) {
        match reply {
            Ok(Reply::InventoryPage(_) | Reply::PiiPage(_)) => {
                self.identity.plan = Some("enterprise".into())
            }
            Ok(Reply::Insights(_)) if self.identity.plan.is_none() => {
                self.identity.plan = Some("business or higher".into())
            }
            Err(ErrorInfo {
                gate: Some(Gate::Plan(needed)),
                ..
            }) => {
                let below = match needed.as_str() {
                    "enterprise" => "business",
                    "business" => "pro",
                    _ => "below requirement",
                };
                if self.identity.plan.as_deref() != Some("enterprise") {
                    self.identity.plan = Some(below.into());
                }
            }
            _ => {}
        }
    }
}
