//! When the App must wake next: a screen's deadline, or the minute a
//! relative time on screen ages.

use time::OffsetDateTime;

use super::{App, Overlay};
use crate::tui::nav::Tab;
use crate::tui::screens::Screen;

impl App {
    /// The earliest deadline any screen waits for.
    pub fn wake_at(&self) -> Option<OffsetDateTime> {
        [
            self.insights.wake_at(),
            self.inventory.wake_at(),
            self.project.as_ref().and_then(|p| p.wake_at()),
            self.members.wake_at(),
            self.monitor.wake_at(),
        ]
        .into_iter()
        .flatten()
        .min()
    }

    /// The earliest time the runtime must wake: a screen's deadline, the
    /// minute a relative time on screen ages, or the history's minute check
    /// for another process's writes (a wake that finds nothing redraws nothing).
    pub fn next_wake(&self) -> Option<OffsetDateTime> {
        [self.wake_at(), self.age_wake, self.history_wake()]
            .into_iter()
            .flatten()
            .min()
    }

    /// The times shown on screen as an age ("3 min ago").
    pub(super) fn shown_ages(&self) -> Vec<OffsetDateTime> {
        let mut ages = vec![self.screen().last_loaded(), self.rate_at];
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
