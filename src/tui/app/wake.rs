//! When the App must wake next: a screen's deadline, or the minute a
//! relative time on screen ages.

use time::{Duration, OffsetDateTime};

use super::{App, Overlay};
use crate::tui::effect::Turn;
use crate::tui::nav::Tab;
use crate::tui::screens::Screen;

/// How long a status notice ("copy sent …", "frozen: press f to resume")
/// stays: long enough to read, then the status line shows the status again,
/// as k9s's flash messages and lazygit's toasts clear themselves.
pub const NOTICE_SHOWN_FOR: Duration = Duration::seconds(10);

impl App {
    /// The earliest deadline any screen waits for.
    pub fn wake_at(&self) -> Option<OffsetDateTime> {
        let project = self.project.as_ref().and_then(|p| p.wake_at());
        Tab::ALL
            .iter()
            .map(|tab| self.tab_screen(*tab).wake_at())
            .chain([project])
            .flatten()
            .min()
    }

    /// Wakes every screen whose deadline passed; true when any changed.
    pub(super) fn wake_screens(&mut self, turn: &mut Turn<'_>) -> bool {
        let mut next_token = self.next_token;
        let mut cx = turn.cx(&mut next_token);
        // Every screen is woken, so no `||` short-circuit.
        let mut woken = false;
        for tab in Tab::ALL {
            woken |= self.tab_screen_mut(*tab).wake(&mut cx);
        }
        woken |= self.project.as_mut().is_some_and(|p| p.wake(&mut cx));
        self.next_token = next_token;
        woken
    }

    /// The earliest time the runtime must wake: a screen's deadline, the
    /// minute a relative time on screen ages, or the history's minute check
    /// for another process's writes (a wake that finds nothing redraws nothing).
    pub fn next_wake(&self) -> Option<OffsetDateTime> {
        [
            self.wake_at(),
            self.age_wake,
            self.notice_expiry(),
            self.history_wake(),
        ]
        .into_iter()
        .flatten()
        .min()
    }

    /// When the status notice on screen goes away.
    fn notice_expiry(&self) -> Option<OffsetDateTime> {
        self.status
            .notice
            .as_ref()
            .map(|(_, at)| *at + NOTICE_SHOWN_FOR)
    }

    /// Drops a notice that has been shown long enough; true when one went.
    pub(super) fn expire_notice(&mut self, now: OffsetDateTime) -> bool {
        let expired = self.notice_expiry().is_some_and(|at| at <= now);
        if expired {
            self.status.notice = None;
        }
        expired
    }

    /// The times shown on screen as an age ("3 min ago").
    pub(super) fn shown_ages(&self) -> Vec<OffsetDateTime> {
        let mut ages = vec![self.screen().last_loaded(), self.status.rate_at];
        match self.tab {
            Tab::Monitor => ages.extend(self.monitor.shown_ages()),
            Tab::Insights => ages.push(self.insights.data.as_ref().and_then(|d| d.as_of)),
            _ => {}
        }
        if self.overlay == Some(Overlay::ErrorLog) {
            ages.extend(self.errors.iter().map(|error| Some(error.at)));
        }
        ages.into_iter().flatten().collect()
    }
}
