//! Following a deployment after publish: polls on a clock-driven schedule with the
//! client's backoff ([`PollPolicy`]), until it completes or fails.

use std::time::Duration;

use time::OffsetDateTime;

use crate::api::PollPolicy;
use crate::api::model::Deployment;
use crate::tui::effect::{Cx, ErrorInfo, Reply, Request, Slot, answers};

/// A deployment being followed, polled on a clock-driven schedule within the
/// contract's limits: the first poll 2 s after the 202, then backing off toward
/// 10 s, never more often than every 2 s.
#[derive(Debug, Clone, PartialEq)]
pub struct DeploymentWatch {
    pub project_id: String,
    pub deployment: Deployment,
    /// When the next poll is due; None while one is in flight or when terminal.
    pub next_poll: Option<OffsetDateTime>,
    pub interval: Duration,
    pub(super) poll_pending: Option<u64>,
    pub polls: u32,
    pub last_error: Option<ErrorInfo>,
}

impl DeploymentWatch {
    pub(super) fn start(project_id: String, deployment: Deployment, now: OffsetDateTime) -> Self {
        let first = PollPolicy::default().first_interval();
        let terminal = deployment.status.is_terminal();
        Self {
            project_id,
            deployment,
            next_poll: (!terminal).then_some(now + first),
            interval: first,
            poll_pending: None,
            polls: 0,
            last_error: None,
        }
    }

    /// The client's own backoff ([`PollPolicy`]), kept on a clock the screen owns.
    fn backoff(&mut self, now: OffsetDateTime) {
        self.interval = PollPolicy::default().next_interval(self.interval);
        self.next_poll = Some(now + self.interval);
    }

    pub fn is_terminal(&self) -> bool {
        self.deployment.status.is_terminal()
    }
}

impl DeploymentWatch {
    /// Asks for the deployment's status when a poll is due; true when it did
    /// (the poll count shows).
    pub(super) fn poll(&mut self, cx: &mut Cx) -> bool {
        if self.poll_pending.is_some() || self.next_poll.is_none_or(|at| at > cx.now) {
            return false;
        }
        self.next_poll = None;
        self.polls += 1;
        self.poll_pending = Some(cx.fetch(
            Slot::Deployment,
            Request::GetDeployment {
                project_id: self.project_id.clone(),
                deployment_id: self.deployment.id.clone(),
            },
        ));
        true
    }

    /// Takes the reply to a poll: `None` when it is stale, else whether the
    /// deployment has just ended (the project is then read again).
    pub(super) fn on_reply(
        &mut self,
        token: u64,
        reply: Result<Reply, ErrorInfo>,
        now: OffsetDateTime,
    ) -> Option<bool> {
        if !answers(&mut self.poll_pending, token) {
            return None;
        }
        match reply {
            Ok(Reply::Deployment(deployment)) => {
                self.deployment = *deployment;
                self.last_error = None;
                if self.is_terminal() {
                    self.next_poll = None;
                    return Some(true);
                }
                self.backoff(now);
            }
            Ok(_) => self.backoff(now),
            Err(error) => {
                // A rate limit or a timeout is worth another poll, later; anything
                // else (the deployment is unknown, the key lacks a scope) is not.
                let transient = matches!(error.status, None | Some(429) | Some(503));
                self.last_error = Some(error);
                if transient {
                    self.backoff(now);
                } else {
                    self.next_poll = None;
                }
            }
        }
        Some(false)
    }
}
