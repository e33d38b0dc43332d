//! How fresh the monitor's picture is, in words: since when the service is
//! unreachable, since when the view is frozen, and the times shown as an age
//! (they wake the dashboard once a minute while on screen).

use time::OffsetDateTime;

use super::MonitorScreen;
use crate::tui::widgets::ago;
use crate::tui::widgets::display::utc_hms;

impl MonitorScreen {
    /// The times this screen shows as an age: they wake the dashboard once a minute.
    pub fn shown_ages(&self) -> Vec<Option<OffsetDateTime>> {
        let stale = self
            .unreachable_since
            .and(self.last_ok.or(self.unreachable_since));
        let mut ages = vec![self.frozen_at.filter(|_| self.frozen), stale];
        // Each tile's "at 12:00:00 (3 min ago)".
        ages.extend(
            self.shown()
                .iter()
                .map(|project| self.live.get(&project.id).and_then(|live| live.updated_at)),
        );
        ages
    }

    /// What the head line says about freshness; the age is rounded to the
    /// minute, so it changes once a minute at most.
    pub(super) fn freshness(&self, now: OffsetDateTime) -> Option<String> {
        let since = self.unreachable_since?;
        let retry = self.delay().whole_seconds();
        let age = |at: OffsetDateTime| ago((now - at).whole_seconds());
        Some(match self.last_ok {
            Some(ok) => format!(
                "service unreachable · data stale since {} UTC ({}) · retrying every {retry} s",
                utc_hms(ok),
                age(ok)
            ),
            None => format!(
                "service unreachable since {} UTC ({}) · retrying every {retry} s",
                utc_hms(since),
                age(since)
            ),
        })
    }

    /// Since when the view is frozen, as an age.
    pub(super) fn frozen_for(&self, now: OffsetDateTime) -> Option<String> {
        let at = self.frozen_at.filter(|_| self.frozen)?;
        Some(format!(
            "since {} UTC ({})",
            utc_hms(at),
            ago((now - at).whole_seconds())
        ))
    }
}
