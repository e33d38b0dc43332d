//! An injectable wall clock, so tests move time instead of sleeping.

use std::sync::{Arc, Mutex};

use time::OffsetDateTime;

/// The source of "now" for the server and the TUI.
#[derive(Clone, Debug, Default)]
pub struct Clock {
    manual: Option<Arc<Mutex<OffsetDateTime>>>,
}

impl Clock {
    /// The system clock.
    pub fn system() -> Self {
        Self { manual: None }
    }

    /// A clock that stands still at `start` until advanced.
    pub fn manual(start: OffsetDateTime) -> Self {
        Self {
            manual: Some(Arc::new(Mutex::new(start))),
        }
    }

    /// The current time in UTC, truncated to whole milliseconds.
    pub fn now(&self) -> OffsetDateTime {
        let now = match &self.manual {
            Some(cell) => *cell.lock().unwrap_or_else(|poisoned| poisoned.into_inner()),
            None => OffsetDateTime::now_utc(),
        };
        now.replace_nanosecond(now.nanosecond() / 1_000_000 * 1_000_000)
            .unwrap_or(now)
    }

    /// Moves a manual clock forward; the system clock ignores it.
    pub fn advance(&self, by: time::Duration) {
        if let Some(cell) = &self.manual {
            let mut now = cell.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
            *now += by;
        }
    }

    /// Sets a manual clock; the system clock ignores it.
    pub fn set(&self, to: OffsetDateTime) {
        if let Some(cell) = &self.manual {
            *cell.lock().unwrap_or_else(|poisoned| poisoned.into_inner()) = to;
        }
    }

    /// Whether this clock is driven by hand.
    pub fn is_manual(&self) -> bool {
        self.manual.is_some()
    }
}
