//! The App's side of the review history: the instant start (the newest
//! snapshot's data drawn at once, marked "from snapshot, N min ago" until the
//! live replies replace it), the background snapshot with its progress on the
//! status line, and reviewed marks with their note field.

use ratatui::text::Span;
use time::OffsetDateTime;

use crate::history::{HistoryConfig, HistoryLocation};
use crate::text::fit;
use crate::tui::action::Action;
use crate::tui::app::App;
use crate::tui::effect::{Cx, ErrorInfo, answers};
use crate::tui::keymap::key_of;
use crate::tui::nav::Tab;
use crate::tui::review::ops::{DataVersion, ListMarks, TakeSnapshot};
use crate::tui::review::start::read_start;
use crate::tui::screens::Screen;
use crate::tui::screens::inventory::reviewed::ReviewFilter;
use crate::tui::vocab::{ErrorKind, HistoryStart, SnapshotOutcome, SnapshotSeed};

mod away;
mod marks;
mod msg;

pub use marks::NoteInput;
pub use msg::{HISTORY_VERSION, HistoryMsg, REVIEW_MARK, REVIEW_MARKS, TAKE_SNAPSHOT};

#[derive(Debug, Default)]
pub struct ReviewState {
    /// Whether the history door answers history requests (a history file is open).
    pub enabled: bool,
    /// Set before `start`: what the first frame draws.
    pub seed: Option<SnapshotSeed>,
    /// When the snapshot was taken whose data is on screen, while some is.
    pub seeded_at: Option<OffsetDateTime>,
    insights_seeded: bool,
    inventory_seeded: bool,
    /// Set before `start`: the newest snapshot is older than `snapshot_max_age`.
    pub snapshot_due: bool,
    snapshot_pending: Option<u64>,
    /// What the background snapshot is doing, for the status line.
    pub progress: Option<String>,
    pub(super) marks_pending: Option<u64>,
    pub(super) mark_pending: Option<marks::PendingMark>,
    pub note: Option<NoteInput>,
    /// The history file's `data_version` when last asked, the request under
    /// way, and when to ask again: another process's snapshot or mark shows
    /// within a minute, without a key.
    data_version: Option<i64>,
    pub(super) version_pending: Option<u64>,
    next_version_check: Option<OffsetDateTime>,
    /// While the history is out of reach (`away.rs`).
    pub(super) away: Option<away::Away>,
    /// It answered again after being away: read marks and changes again.
    pub(super) came_back: bool,
}

/// How often the dashboard asks whether another process wrote to the
/// history. The promise is that such a write shows within a minute: the check
/// runs twice a minute, so the marks (or Changes) read after it have the
/// other half for their own answer, however slow the history is to reply.
pub const VERSION_CHECK: time::Duration = time::Duration::seconds(30);

impl ReviewState {
    pub fn snapshot_running(&self) -> bool {
        self.snapshot_pending.is_some()
    }

    /// When the snapshot was taken whose rows the inventory shows, while it
    /// shows them (a project opened on one says so, with its age).
    pub fn inventory_seeded_at(&self) -> Option<OffsetDateTime> {
        self.seeded_at.filter(|_| self.inventory_seeded)
    }
}

impl App {
    /// At start, after the screens asked for their live data: draws the
    /// snapshot's, loads the marks, and takes a snapshot when one is due.
    pub(super) fn start_history(&mut self, cx: &mut Cx) {
        if !self.review.enabled {
            return;
        }
        if let Some(seed) = self.review.seed.take() {
            if let Some(insights) = seed.insights {
                self.inventory.finding_types = insights.findings.clone();
                self.insights.data = Some(insights);
                self.review.insights_seeded = true;
            }
            if let Some(items) = seed.first_page {
                // The live first page is asked for now, and replaces these rows.
                self.inventory.activate(cx);
                self.inventory.list.rows = items;
                self.review.inventory_seeded = true;
            }
            if self.review.insights_seeded || self.review.inventory_seeded {
                self.review.seeded_at = Some(seed.taken_at);
            }
        }
        self.read_marks(cx);
        if self.review.snapshot_due {
            self.take_snapshot(cx);
        }
    }

    /// Asks the history for the workspace's reviewed marks.
    pub(super) fn read_marks(&mut self, cx: &mut Cx) {
        self.review.marks_pending = Some(cx.request(REVIEW_MARKS, ListMarks, HistoryMsg::Marks));
    }

    /// Starts a background snapshot unless one runs.
    pub fn take_snapshot(&mut self, cx: &mut Cx) {
        if !self.review.enabled || self.review.snapshot_running() {
            return;
        }
        if self.review.away.is_some() {
            // Taken once the history is back.
            self.review.snapshot_due = true;
            return;
        }
        self.review.snapshot_due = false;
        self.review.progress = Some("snapshot: starting".into());
        self.review.snapshot_pending =
            Some(cx.request(TAKE_SNAPSHOT, TakeSnapshot, HistoryMsg::Snapshot));
    }

    /// Live insights replace the snapshot's.
    pub(super) fn insights_live(&mut self) {
        self.review.insights_seeded = false;
        if !self.review.inventory_seeded {
            self.review.seeded_at = None;
        }
    }

    /// A live page of the inventory replaces the snapshot's rows.
    pub(super) fn inventory_live(&mut self) {
        if !self.review.inventory_seeded {
            return;
        }
        self.review.inventory_seeded = false;
        self.inventory.list.rows.clear();
        self.inventory.list.select(0);
        if !self.review.insights_seeded {
            self.review.seeded_at = None;
        }
    }

    /// Whether the data on screen is the snapshot's (the label shows).
    pub fn from_snapshot(&self) -> bool {
        self.review.seeded_at.is_some()
    }

    /// A history answer, then what marks change beyond the history: the
    /// inventory's review filter and the open project's mark.
    pub(super) fn history_answered(&mut self, token: u64, msg: HistoryMsg, cx: &mut Cx) -> bool {
        let marks = matches!(msg, HistoryMsg::Marks(_) | HistoryMsg::Marked(_));
        // A mark, a waiver (read with the marks when the history moved) or
        // a snapshot: the policies' input.
        let input = marks || matches!(msg, HistoryMsg::Snapshot(Ok(_)));
        let changed = self.history_answer(token, msg, cx);
        if input {
            self.policy_input_changed();
        }
        if marks {
            self.inventory.apply_review_filter(cx);
            self.show_review_on_project();
        }
        changed
    }

    /// An answer in one of the history's own slots; true when anything changed.
    fn history_answer(&mut self, token: u64, msg: HistoryMsg, cx: &mut Cx) -> bool {
        // Back after being away: read what may have changed meanwhile, now.
        let came_back = self.review.came_back;
        if came_back {
            self.retry_history(cx);
        }
        match msg {
            HistoryMsg::Marks(marks) if answers(&mut self.review.marks_pending, token) => {
                if let Ok(marks) = marks {
                    self.inventory.reviewed.set(marks);
                }
                true
            }
            HistoryMsg::Marked(marked)
                if self
                    .review
                    .mark_pending
                    .as_ref()
                    .is_some_and(|pending| pending.token == token) =>
            {
                let advance_from = self
                    .review
                    .mark_pending
                    .take()
                    .and_then(|pending| pending.advance_from);
                self.marked(marked, advance_from, cx);
                true
            }
            HistoryMsg::DataVersion(version)
                if answers(&mut self.review.version_pending, token) =>
            {
                let Ok(version) = version else {
                    return false;
                };
                if came_back {
                    // Marks and changes are read again already; this is the new baseline.
                    self.review.data_version = Some(version);
                    return true;
                }
                let before = self.review.data_version.replace(version);
                if before.is_none_or(|before| before == version) {
                    return false;
                }
                // Another process wrote (a snapshot from cron, a mark): read again.
                let visible = self.tab == Tab::Changes;
                self.changes.snapshot_landed(visible, cx);
                self.read_marks(cx);
                false
            }
            HistoryMsg::Snapshot(outcome) if answers(&mut self.review.snapshot_pending, token) => {
                self.review.progress = None;
                match outcome {
                    Ok(SnapshotOutcome::Taken(info)) => {
                        // A quiet event: it never hides what a person just did.
                        if self.status.notice.is_none() {
                            cx.notify(format!(
                                "snapshot #{} recorded: {} projects, {} members",
                                info.id, info.projects, info.members
                            ));
                        }
                        let visible = self.tab == Tab::Changes;
                        self.changes.snapshot_landed(visible, cx);
                        // "Changed since review" is measured against the newest snapshot.
                        self.read_marks(cx);
                    }
                    Ok(SnapshotOutcome::Skipped(reason)) => {
                        if self.status.notice.is_none() {
                            cx.notify(reason);
                        }
                    }
                    // The error is in the `!` log already; the dashboard goes on.
                    Err(_) => cx.notify(format!(
                        "the background snapshot failed ({} for the log)",
                        key_of(Action::ErrorLog)
                    )),
                }
                true
            }
            _ => false,
        }
    }

    /// Asks the history's `data_version` when a minute has passed since the
    /// last time: called on every message the App handles, so it rides on
    /// wakes that happen anyway; [`Self::history_wake`] adds the minute's.
    pub(super) fn check_history_version(&mut self, cx: &mut Cx) {
        if !self.review.enabled || self.retry_history(cx) || self.review.version_pending.is_some() {
            return;
        }
        if self.review.next_version_check.is_some_and(|at| cx.now < at) {
            return;
        }
        self.review.next_version_check = Some(cx.now + VERSION_CHECK);
        self.review.version_pending =
            Some(cx.request(HISTORY_VERSION, DataVersion, HistoryMsg::DataVersion));
    }

    /// When the history's next check is due: a wake that redraws nothing
    /// unless another process wrote.
    pub(super) fn history_wake(&self) -> Option<OffsetDateTime> {
        if let Some(away) = &self.review.away {
            return Some(away.retry_at);
        }
        if self.review.came_back {
            // Back (a Changes reply said so): read marks again at once.
            return Some(OffsetDateTime::UNIX_EPOCH);
        }
        self.review
            .next_version_check
            .filter(|_| self.review.enabled)
    }

    /// A walk's progress; true when the status line changes.
    pub(super) fn snapshot_progress(&mut self, text: String) -> bool {
        if !self.review.snapshot_running() {
            return false;
        }
        self.review.progress.replace(text.clone()) != Some(text)
    }

    /// The history's part of the status line.
    pub(super) fn history_status(&self, now: OffsetDateTime) -> Vec<Span<'static>> {
        let theme = &self.theme;
        let mut spans = self.away_status();
        if let Some(taken_at) = self.review.seeded_at {
            let minutes = (now - taken_at).whole_minutes().max(0);
            spans.push(Span::styled(" · ", theme.dim));
            spans.push(Span::styled(
                format!("from snapshot, {minutes} min ago"),
                theme.warn,
            ));
        }
        let reviewed = &self.inventory.reviewed;
        if self.tab == Tab::Inventory && reviewed.filtering() {
            let mut said = Vec::new();
            if reviewed.filter != ReviewFilter::All {
                said.push(format!("{} (M)", reviewed.filter.label()));
            }
            if let Some(name) = &reviewed.reviewer {
                said.push(format!("reviewed by {}", fit(name, 20)));
            }
            spans.push(Span::styled(" · ", theme.dim));
            spans.push(Span::styled(
                format!("{} · over the rows loaded", said.join(", ")),
                theme.accent,
            ));
        }
        if let Some(progress) = &self.review.progress {
            spans.push(Span::styled(" · ", theme.dim));
            spans.push(Span::styled(fit(progress, 52), theme.accent));
        }
        spans
    }
}

/// The history at a context's first frame: what `review::start` read, given to
/// the App.
impl App {
    /// Reads the newest snapshot (blocking, from a local file: milliseconds)
    /// so the first frame draws its data at once; true when the history
    /// opened (the App then asks it for marks, changes and snapshots).
    pub fn prepare_history(
        &mut self,
        location: &HistoryLocation,
        config: &HistoryConfig,
        workspace_id: &str,
        now: OffsetDateTime,
    ) -> bool {
        let start = read_start(location, config, workspace_id, now);
        self.apply_history_start(start, now)
    }

    /// Gives the App what was read at its start; true when the history
    /// opened (or is out of reach and tried again).
    pub fn apply_history_start(&mut self, start: HistoryStart, now: OffsetDateTime) -> bool {
        match start {
            HistoryStart::Read { seed, due } => {
                self.review.enabled = true;
                self.review.seed = seed;
                self.review.snapshot_due = due;
                true
            }
            HistoryStart::Failed {
                reason,
                unreachable,
            } => {
                self.errors.push(ErrorInfo {
                    status: None,
                    kind: unreachable.then_some(ErrorKind::HistoryAway),
                    detail: None,
                    request_id: None,
                    summary: reason.clone(),
                    gate: None,
                    at: now,
                });
                if unreachable {
                    // The dashboard runs live, says so, and tries again.
                    self.start_away(reason, now);
                    return true;
                }
                false
            }
        }
    }
}
