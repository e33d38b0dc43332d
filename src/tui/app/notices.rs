//! What the client and the replies tell the App beside data: rate limits,
//! retries, the request budget, the error log and the workspace's plan.

use time::OffsetDateTime;

use super::{App, ClientNotice};
use crate::tui::effect::ErrorInfo;
use crate::tui::nav::Tab;
use crate::tui::screens::Screen;

/// Errors kept for the `!` log.
const ERROR_LOG_LIMIT: usize = 200;

/// A status-line message and when it was said.
pub(super) type Notice = (String, OffsetDateTime);

/// The status line's own state: the last notice, the client's rate limit,
/// retries and pacing, and whether the newest reply failed.
#[derive(Debug, Default)]
pub(super) struct StatusLine {
    pub(super) notice: Option<Notice>,
    pub(super) rate: Option<(u32, u32)>,
    /// When the client last reported the rate limit: the figure ages on screen.
    pub(super) rate_at: Option<OffsetDateTime>,
    pub(super) retrying: Option<(String, u64)>,
    /// A request waiting for the rate limit: how long, and since when.
    pub(super) paced: Option<(u64, OffsetDateTime)>,
    /// Whether the newest reply failed: the status line shows the last error
    /// only until a later request succeeds (the `!` log keeps them all).
    pub(super) failing: bool,
}

impl App {
    /// What the client reports; true when the status line changes.
    pub(super) fn handle_notice(&mut self, notice: ClientNotice, now: OffsetDateTime) -> bool {
        match notice {
            ClientNotice::RateLimit { remaining, limit } => {
                // The lists walk pages and fetch details within the budget,
                // the monitor paces its rounds by it.
                for tab in Tab::ALL {
                    self.tab_screen_mut(*tab)
                        .observe_rate(remaining, limit, now);
                }
                if let Some(project) = &mut self.project {
                    project.observe_rate(remaining, limit, now);
                }
                let aged = self
                    .status
                    .rate_at
                    .replace(now)
                    .is_some_and(|at| (now - at).whole_seconds() >= 60);
                let rate_changed =
                    self.status.rate.replace((remaining, limit)) != Some((remaining, limit));
                rate_changed | aged | self.status.paced.take().is_some()
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
                let changed = self.status.retrying != retrying;
                self.status.retrying = retrying;
                changed
            }
            ClientNotice::Paced { wait_ms } => {
                if self.status.paced.is_none() {
                    self.record_budget_problem(
                        format!(
                            "the request budget is spent: a request waited {} s for the rate limit to reset",
                            wait_ms.div_ceil(1000)
                        ),
                        now,
                    );
                }
                self.status.paced = Some((wait_ms, now));
                true
            }
            ClientNotice::RetryBudgetSpent { request } => {
                self.record_budget_problem(
                    format!("not retried: {request} (too many recent failures)"),
                    now,
                );
                true
            }
            ClientNotice::Recovered => {
                self.status.retrying.take().is_some() | self.status.paced.take().is_some()
            }
            ClientNotice::Snapshot(text) => self.snapshot_progress(text),
            ClientNotice::SnapshotPlanned(text) => {
                // A quiet event: it never hides what a person just did.
                if self.status.notice.is_none() {
                    self.status.notice = Some((text, now));
                }
                self.snapshot_progress("snapshot: starting".into()) | self.status.notice.is_some()
            }
        }
    }

    /// A budget problem goes to the error log, which says what happened and why.
    fn record_budget_problem(&mut self, summary: String, now: OffsetDateTime) {
        self.record_error(ErrorInfo {
            kind: Some(crate::tui::effect::ErrorKind::RequestBudget),
            ..ErrorInfo::local(summary, now)
        });
    }

    pub(super) fn record_error(&mut self, error: ErrorInfo) {
        self.errors.push(error);
        if self.errors.len() > ERROR_LOG_LIMIT {
            self.errors.remove(0);
        }
    }

    /// The plan is the workspace read's (`GET /v1/workspaces/{id}`), and
    /// nothing else's: what other replies allow or refuse is no plan, so until
    /// the read answers the header says nothing of it.
    pub(super) fn note_plan(&mut self, workspace: &crate::api::model::Workspace) {
        self.identity.plan = workspace.plan.as_ref().map(|plan| plan.as_str().to_owned());
    }
}
