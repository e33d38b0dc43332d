//! Following a deployment after publish: polls on a clock-driven schedule with the
//! client's backoff ([`PollPolicy`]), until it completes or fails, ends in a
//! status vantage does not know, or the wait's timeout (the CLI's
//! `publish --wait` default) has passed.

use std::time::Duration;

use time::OffsetDateTime;

use super::{DEPLOYMENT, Msg};
use crate::api::PollPolicy;
use crate::api::events::human_duration;
use crate::api::model::{Deployment, DeploymentStatus};
use crate::tui::effect::{Cx, ErrorInfo, answers};
use crate::tui::ops::GetDeployment;

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
    /// No poll after this: a deployment still running then is left to the
    /// service, as `kubectl wait --timeout` leaves it.
    deadline: OffsetDateTime,
    /// Why polling stopped before the deployment completed or failed.
    pub stopped: Option<String>,
}

impl DeploymentWatch {
    pub(super) fn start(project_id: String, deployment: Deployment, now: OffsetDateTime) -> Self {
        let policy = PollPolicy::default();
        let first = policy.first_interval();
        let terminal = deployment.status.is_terminal();
        let mut watch = Self {
            project_id,
            deployment,
            next_poll: (!terminal).then_some(now + first),
            interval: first,
            poll_pending: None,
            polls: 0,
            last_error: None,
            deadline: now + policy.timeout,
            stopped: None,
        };
        watch.stopped = watch.unknown_status();
        watch
    }

    /// The client's own backoff ([`PollPolicy`]), kept on a clock the screen
    /// owns, until the wait's timeout.
    fn backoff(&mut self, now: OffsetDateTime) {
        if now >= self.deadline {
            self.next_poll = None;
            self.stopped = Some(format!(
                "still {} after {}: no more checks, see the service",
                self.deployment.status,
                human_duration(PollPolicy::default().timeout)
            ));
            return;
        }
        self.interval = PollPolicy::default().next_interval(self.interval);
        self.next_poll = Some(now + self.interval);
    }

    /// What a status vantage does not know ends the poll with.
    fn unknown_status(&self) -> Option<String> {
        match &self.deployment.status {
            DeploymentStatus::Unknown(status) => Some(format!(
                "ended in status {status:?}, which vantage does not know: see the service"
            )),
            _ => None,
        }
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
        let read = GetDeployment {
            project_id: self.project_id.clone(),
            deployment_id: self.deployment.id.clone(),
        };
        self.poll_pending = Some(cx.request(DEPLOYMENT, read, Msg::Deployment));
        true
    }

    /// Takes the answer to a poll: `None` when it is stale, else whether the
    /// deployment has just ended (the project is then read again).
    pub(super) fn on_reply(
        &mut self,
        token: u64,
        reply: Result<Deployment, ErrorInfo>,
        now: OffsetDateTime,
    ) -> Option<bool> {
        if !answers(&mut self.poll_pending, token) {
            return None;
        }
        match reply {
            Ok(deployment) => {
                self.deployment = deployment;
                self.last_error = None;
                if self.is_terminal() {
                    self.next_poll = None;
                    self.stopped = self.unknown_status();
                    return Some(true);
                }
                self.backoff(now);
            }
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
