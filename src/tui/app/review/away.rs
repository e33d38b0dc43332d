//! When the history is away (a shared database down or out of reach): the
//! dashboard goes on live, says so on the status line, tries again with a
//! growing wait (5 s, 10 s, … up to 5 min, timed by the App's clock, never a
//! sleep), refuses a mark with a clear word instead of losing it, and when the
//! history answers again reads the marks and changes again by itself.

use ratatui::text::Span;
use time::{Duration, OffsetDateTime};

use super::msg::{HISTORY_VERSION, HistoryMsg, REVIEW_MARK, REVIEW_MARKS, TAKE_SNAPSHOT};
use crate::text::fit;
use crate::tui::app::App;
use crate::tui::effect::{Cx, ErrorInfo, ErrorKind, Slot};
use crate::tui::nav::Tab;
use crate::tui::review::ops::DataVersion;
use crate::tui::screens::changes;

/// The first wait before trying the history again, doubled each failed try.
const FIRST_RETRY: Duration = Duration::seconds(5);
/// The longest wait between two tries.
const LONGEST_RETRY: Duration = Duration::minutes(5);

/// The history out of reach: since when, why, and when to try again.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Away {
    pub since: OffsetDateTime,
    pub reason: String,
    /// Tries that failed since it went away.
    pub tries: u32,
    /// It answered, but kept vantage waiting past a time limit (a lock).
    pub waiting: bool,
    pub retry_at: OffsetDateTime,
}

/// The wait after `tries` failed tries: 5 s doubled each time, at most 5 min.
pub fn backoff(tries: u32) -> Duration {
    let factor = 1i32.checked_shl(tries.min(16)).unwrap_or(i32::MAX);
    (FIRST_RETRY * factor).min(LONGEST_RETRY)
}

/// Whether a slot's replies come from the history.
fn from_history(slot: Slot) -> bool {
    [REVIEW_MARKS, REVIEW_MARK, TAKE_SNAPSHOT, HISTORY_VERSION]
        .into_iter()
        .chain([changes::CHANGES, changes::SNAPSHOTS])
        .any(|history| slot.is(history))
}

impl App {
    /// Whether the history is out of reach now.
    pub fn history_away(&self) -> Option<&Away> {
        self.review.away.as_ref()
    }

    /// At start, when the history could not be reached: the dashboard runs
    /// live and tries again shortly.
    pub fn start_away(&mut self, reason: String, now: OffsetDateTime) {
        self.review.enabled = true;
        self.review.away = Some(Away {
            since: now,
            reason,
            tries: 0,
            waiting: false,
            retry_at: now + backoff(0),
        });
    }

    /// A history answer (its failure, if any), before its owner's handler: an
    /// error saying the history is away starts (or extends) the wait; any
    /// answer ends it.
    pub(in crate::tui::app) fn note_history_reachability(
        &mut self,
        slot: Slot,
        failure: Option<&ErrorInfo>,
    ) {
        if !from_history(slot) {
            return;
        }
        match failure {
            Some(error) if error.kind.as_ref().is_some_and(ErrorKind::is_history_away) => {
                let away = self.review.away.get_or_insert_with(|| Away {
                    since: error.at,
                    reason: String::new(),
                    tries: 0,
                    waiting: false,
                    retry_at: error.at,
                });
                away.waiting = error.kind == Some(ErrorKind::HistoryWaiting);
                away.reason.clone_from(&error.summary);
                away.retry_at = error.at + backoff(away.tries);
                away.tries += 1;
            }
            Some(_) => {}
            None => {
                if self.review.away.take().is_some() {
                    self.review.came_back = true;
                }
            }
        }
    }

    /// On every message: while away, tries again when the wait is over; once
    /// back, reads what may have changed meanwhile. True while away (the
    /// minute's check waits).
    pub(in crate::tui::app) fn retry_history(&mut self, cx: &mut Cx) -> bool {
        if std::mem::take(&mut self.review.came_back) {
            cx.notify("the review history is reachable again".into());
            let visible = self.tab == Tab::Changes;
            self.changes.snapshot_landed(visible, cx);
            self.read_marks(cx);
            if self.review.snapshot_due {
                self.take_snapshot(cx);
            }
        }
        let Some(away) = &mut self.review.away else {
            return false;
        };
        if cx.now < away.retry_at || self.review.version_pending.is_some() {
            return true;
        }
        // The try's answer sets the next wait; none goes out before it.
        away.retry_at = cx.now + LONGEST_RETRY;
        self.review.version_pending =
            Some(cx.request(HISTORY_VERSION, DataVersion, HistoryMsg::DataVersion));
        true
    }

    /// Refuses a mark while the history is away; true when refused.
    pub(in crate::tui::app) fn refuse_mark_while_away(&self, cx: &mut Cx) -> bool {
        let Some(away) = &self.review.away else {
            return false;
        };
        cx.notify(if away.waiting {
            "not marked: the review history keeps vantage waiting on a lock (retrying); try again later"
                .into()
        } else {
            "not marked: the review history is unreachable (retrying); try again later".into()
        });
        true
    }

    /// What the status line says first while away: the words that matter
    /// (no marks, live data only) fit 80 columns beside the rate and the age.
    pub(in crate::tui::app) fn away_head(&self) -> Vec<Span<'static>> {
        let Some(away) = &self.review.away else {
            return Vec::new();
        };
        vec![
            Span::styled(
                if away.waiting {
                    "history waiting on a lock: marks off, live data only"
                } else {
                    "history unreachable: marks off, live data only"
                },
                self.theme.warn,
            ),
            Span::styled(" · ", self.theme.dim),
        ]
    }

    /// The rest of it, at the line's end where it may be cut: the tries and
    /// the reason.
    pub(in crate::tui::app) fn away_status(&self) -> Vec<Span<'static>> {
        let Some(away) = &self.review.away else {
            return Vec::new();
        };
        let tries = match away.tries {
            0 => String::new(),
            1 => ", 1 try".to_owned(),
            n => format!(", {n} tries"),
        };
        vec![
            Span::styled(" · ", self.theme.dim),
            Span::styled(
                format!("retrying{tries} ({})", fit(&away.reason, 40)),
                self.theme.dim,
            ),
        ]
    }
}
