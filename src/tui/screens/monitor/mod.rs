//! The live monitor: realtime visitors of the selected project, or of every
//! pinned project side by side. Built to stay open for days:
//! - it refreshes on a deadline (`wake_at`), only while visible and not frozen;
//! - it keeps the last 30 buckets per shown project and nothing else;
//! - labels come from the server's bucket timestamps, and a wall clock that
//!   jumps backwards re-arms the deadline instead of stalling it;
//! - when the service is unreachable it says since when the data is stale and
//!   retries with a growing pause (one interval, doubling, capped), by itself.

mod ages;
mod answers;
mod axis;
mod budget;
mod grid;
mod live;
mod view;
mod watch;

use std::cell::Cell;
use std::collections::HashMap;
use std::path::PathBuf;

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;
use time::{Duration, OffsetDateTime};

use self::grid::GridFit;
pub use self::live::{BUCKETS_KEPT, Live, NEVER_PUBLISHED_RECHECK};
use super::paged::draw_placeholder;
use super::{ProjectRef, Screen, ScreenView, no_project_text};
use crate::api::model::Realtime;
use crate::text::fit;
use crate::tui::action::Action;
use crate::tui::effect::{Cx, ErrorInfo, Slot};
use crate::tui::keymap::key_of;
use crate::tui::nav::{Nav, Tab};
use crate::tui::ops::GetRealtime;
use crate::tui::screens::actions::{ScreenAction, copy_project_id};
use crate::tui::watchlist::{WATCH_LIMIT, WatchEntry};

/// The longest pause between retries while the service is unreachable (or one
/// refresh interval, when that is longer).
const BACKOFF_CAP: Duration = Duration::seconds(60);
/// Smallest height and width of a tile of the watch grid: a line, two rows of
/// chart and the time axis in the border; tiles grow with the terminal.
const TILE_HEIGHT: u16 = 6;
const TILE_MIN_WIDTH: u16 = 34;

/// Why a round of requests is sent.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Round {
    /// The refresh is due: never-published projects rest between rechecks.
    Due,
    /// Only the shown projects without data yet (a tile just pinned, say).
    Missing,
    /// `r`: every shown project, now.
    Asked,
}

/// No answer, or one that means "try later": the data on screen goes stale.
fn unreachable(error: &ErrorInfo) -> bool {
    error
        .status
        .is_none_or(|status| status >= 500 || status == 429)
}

/// The screen's requests: a lane per project shown, the watch list's file.
pub const REALTIME: Slot = Slot::new("monitor", "realtime");
pub const WATCHLIST_LOAD: Slot = Slot::new("monitor", "watchlist load");
pub const WATCHLIST_SAVE: Slot = Slot::new("monitor", "watchlist save");

/// The answers the screen gets.
#[derive(Debug)]
pub enum Msg {
    Realtime(Result<Realtime, ErrorInfo>),
    WatchlistLoaded(Result<Vec<WatchEntry>, ErrorInfo>),
    WatchlistSaved(Result<(), ErrorInfo>),
}

#[derive(Debug)]
pub struct MonitorScreen {
    refresh: Duration,
    visible: bool,
    pub frozen: bool,
    /// The rate limit the client last reported: the refresh fits within it.
    rate_limit: Option<u32>,
    /// What the client last reported left of it, and when: a round waits for
    /// room when others (the background snapshot) spent it.
    remaining: Option<(u32, OffsetDateTime)>,
    /// Since when the view is frozen.
    frozen_at: Option<OffsetDateTime>,
    /// The project selected in the inventory.
    selected: Option<ProjectRef>,
    pub watch: Vec<WatchEntry>,
    watch_path: Option<PathBuf>,
    /// Why the saved watch list could not be read, when it could not.
    pub watch_warning: Option<String>,
    /// The focused tile of the watch grid.
    pub cursor: usize,
    /// One pinned project in large instead of the grid.
    zoom: bool,
    /// The grid's tiles share one scale (to compare them) instead of each
    /// its own peak.
    pub shared_scale: bool,
    pub live: HashMap<String, Live>,
    /// Lane index to the request in it: (token, project id).
    lanes: Vec<Option<(u64, String)>>,
    /// The next refresh, and the wall-clock time it was set at (to notice the
    /// clock moving backwards).
    next_at: Option<OffsetDateTime>,
    scheduled_at: Option<OffsetDateTime>,
    round_unreachable: bool,
    /// Rounds in a row that found the service unreachable.
    pub failures: u32,
    unreachable_since: Option<OffsetDateTime>,
    last_ok: Option<OffsetDateTime>,
    save_pending: Option<u64>,
    /// The read of the watch-list file, while it is under way.
    load_pending: Option<u64>,
    /// How many tiles the last drawn grid fits: tiles scrolled out of view
    /// are not asked for (as a list builds only its visible rows).
    grid_fit: Cell<Option<GridFit>>,
}

impl MonitorScreen {
    /// Refreshing every `refresh_secs` (`[tui] refresh_secs`, `--refresh`).
    pub fn new(refresh_secs: u64) -> Self {
        Self {
            refresh: Duration::seconds(refresh_secs.max(1) as i64),
            visible: false,
            frozen: false,
            frozen_at: None,
            rate_limit: None,
            remaining: None,
            selected: None,
            watch: Vec::new(),
            watch_path: None,
            watch_warning: None,
            cursor: 0,
            zoom: false,
            shared_scale: false,
            live: HashMap::new(),
            lanes: vec![None; WATCH_LIMIT + 1],
            next_at: None,
            scheduled_at: None,
            round_unreachable: false,
            failures: 0,
            unreachable_since: None,
            last_ok: None,
            save_pending: None,
            load_pending: None,
            grid_fit: Cell::new(None),
        }
    }

    pub fn refresh_interval(&self) -> Duration {
        self.refresh
    }

    /// The project in focus, as the monitor is shown: its tile takes the
    /// cursor (▶), so the header and `w` name the same project.
    fn set_project(&mut self, project: Option<ProjectRef>) {
        if self.selected != project {
            self.selected = project.clone();
            self.prune();
        }
        let Some(project) = project else {
            return;
        };
        let tile = if self.zoom {
            self.watch.iter().position(|entry| entry.id == project.id)
        } else {
            self.shown().iter().position(|shown| shown.id == project.id)
        };
        if let Some(tile) = tile
            && tile != self.cursor
        {
            self.cursor = tile;
            if self.zoom {
                self.prune();
            }
        }
    }

    /// The projects on screen, in lane order.
    pub fn shown(&self) -> Vec<ProjectRef> {
        let pinned = |entry: &WatchEntry| ProjectRef {
            id: entry.id.clone(),
            name: entry.name.clone(),
        };
        if self.watch.is_empty() {
            return self.selected.iter().cloned().collect();
        }
        if self.zoom {
            let focused = self.cursor.min(self.watch.len() - 1);
            return vec![pinned(&self.watch[focused])];
        }
        let mut shown: Vec<ProjectRef> = self.watch.iter().map(pinned).collect();
        // The inventory's selection, offered for pinning.
        if let Some(selected) = &self.selected
            && !self.is_pinned(&selected.id)
        {
            shown.push(selected.clone());
        }
        shown
    }

    pub fn is_pinned(&self, project_id: &str) -> bool {
        self.watch.iter().any(|entry| entry.id == project_id)
    }

    /// When the next refresh is due, while one is scheduled.
    pub fn next_refresh(&self) -> Option<OffsetDateTime> {
        self.next_at
    }

    fn busy(&self) -> bool {
        self.lanes.iter().any(Option::is_some)
    }

    /// The pause before the next round: one interval, or a growing one after
    /// rounds that found the service unreachable.
    pub fn delay(&self) -> Duration {
        let refresh = self.effective_refresh();
        if self.failures == 0 {
            return refresh;
        }
        let factor = 1i32 << (self.failures - 1).min(16);
        (refresh * factor).min(BACKOFF_CAP.max(refresh))
    }

    /// Tiles of the watch grid: the pinned projects and an unpinned selection.
    fn tile_count(&self) -> usize {
        let extra = self
            .selected
            .as_ref()
            .is_some_and(|selected| !self.is_pinned(&selected.id));
        self.watch.len() + usize::from(extra)
    }

    /// Keeps data only for what is shown: memory stays bounded however long it runs.
    fn prune(&mut self) {
        if self.watch.is_empty() {
            self.zoom = false;
        }
        let limit = if self.zoom {
            self.watch.len()
        } else {
            self.tile_count()
        };
        self.cursor = self.cursor.min(limit.saturating_sub(1));
        let shown: Vec<String> = self.shown().into_iter().map(|p| p.id).collect();
        self.live.retain(|id, _| shown.contains(id));
    }

    /// Asks for every shown project not already in flight, as `round` says.
    fn fetch(&mut self, cx: &mut Cx, round: Round) {
        let only_missing = round == Round::Missing;
        if !self.visible || self.frozen {
            return;
        }
        let shown = self.shown();
        if !only_missing {
            self.round_unreachable = false;
        }
        let on_screen = self.on_screen(shown.len());
        let mut to_ask = Vec::new();
        for (lane, project) in shown.iter().enumerate().take(self.lanes.len()) {
            if !on_screen.contains(&lane) {
                continue;
            }
            let in_flight = matches!(&self.lanes[lane], Some((_, id)) if *id == project.id);
            let has_data = self.live.get(&project.id).is_some_and(|live| live.loaded);
            let resting = round == Round::Due
                && self
                    .live
                    .get(&project.id)
                    .is_some_and(|live| live.resting(cx.now));
            if in_flight || (only_missing && has_data) || resting {
                continue;
            }
            to_ask.push((lane, project));
        }
        // `r` is the user's own request: it goes now, whatever the budget.
        if round != Round::Asked
            && let Some(at) = self.room_at(to_ask.len(), cx.now)
        {
            if !self.busy() {
                self.next_at = Some(at);
                self.scheduled_at = Some(cx.now);
            }
            return;
        }
        let asked = !to_ask.is_empty();
        for (lane, project) in to_ask {
            let token = cx.request(
                REALTIME.lane(lane as u8),
                GetRealtime {
                    project_id: project.id.clone(),
                },
                Msg::Realtime,
            );
            self.lanes[lane] = Some((token, project.id.clone()));
        }
        if asked || self.busy() {
            // The replies schedule the next round.
            self.next_at = None;
            self.scheduled_at = None;
        }
    }

    fn schedule(&mut self, now: OffsetDateTime) {
        self.next_at = Some(now + self.delay());
        self.scheduled_at = Some(now);
    }

    /// Sees the time of every message: a wall clock that went backwards would
    /// push the deadline far away, so the deadline is re-armed at once.
    pub fn observe_clock(&mut self, now: OffsetDateTime) {
        if let Some(at) = self.scheduled_at
            && now < at
        {
            self.next_at = Some(now);
            self.scheduled_at = Some(now);
        }
    }

    fn round_done(&mut self, now: OffsetDateTime) {
        if self.round_unreachable {
            self.failures = self.failures.saturating_add(1);
            self.unreachable_since.get_or_insert(now);
        } else {
            self.failures = 0;
            self.unreachable_since = None;
        }
        self.round_unreachable = false;
        self.schedule(now);
    }

    /// The project `w` and `y` act on here; a move of the cursor makes it the
    /// App's project in focus.
    pub fn focused(&self) -> Option<ProjectRef> {
        if self.watch.is_empty() {
            return self.selected.clone();
        }
        self.shown()
            .get(if self.zoom { 0 } else { self.cursor })
            .cloned()
    }

    fn move_cursor(&mut self, to: usize, cx: &mut Cx) {
        let tiles = if self.zoom {
            self.watch.len()
        } else {
            self.tile_count()
        };
        let before = self.cursor;
        self.cursor = to.min(tiles.saturating_sub(1));
        if self.zoom && before != self.cursor {
            self.prune();
        }
        if before != self.cursor {
            // The zoomed project, or tiles scrolled into view, may have no data.
            self.fetch(cx, Round::Missing);
        }
    }
}

impl Screen for MonitorScreen {
    fn title(&self) -> &'static str {
        "Monitor"
    }

    fn follow_focus(&mut self, project: Option<&ProjectRef>) {
        self.set_project(project.cloned());
    }

    fn observe_rate(&mut self, remaining: u32, limit: u32, now: OffsetDateTime) {
        self.set_rate_limit(remaining, limit, now);
    }

    fn about_focused_project(&self) -> bool {
        true
    }

    fn activate(&mut self, cx: &mut Cx) {
        self.visible = true;
        let missing = self
            .shown()
            .iter()
            .any(|project| !self.live.get(&project.id).is_some_and(|live| live.loaded));
        if !self.busy() && (missing || self.next_at.is_none_or(|at| at <= cx.now)) {
            self.fetch(cx, Round::Due);
        }
    }

    fn deactivate(&mut self) {
        self.visible = false;
    }

    fn wake_at(&self) -> Option<OffsetDateTime> {
        if self.visible && !self.frozen {
            self.next_at
        } else {
            None
        }
    }

    fn wake(&mut self, cx: &mut Cx) -> bool {
        self.observe_clock(cx.now);
        if self.visible && !self.frozen && self.next_at.is_some_and(|at| at <= cx.now) {
            self.fetch(cx, Round::Due);
            return true;
        }
        false
    }

    fn handle_action(&mut self, action: Action, cx: &mut Cx) -> bool {
        match action {
            Action::Freeze => {
                self.frozen = !self.frozen;
                self.frozen_at = self.frozen.then_some(cx.now);
                if self.frozen {
                    // Replies already under way are dropped: the picture stays put.
                    self.lanes.iter_mut().for_each(|lane| *lane = None);
                    self.next_at = None;
                    self.scheduled_at = None;
                    self.round_unreachable = false;
                } else {
                    self.fetch(cx, Round::Due);
                }
            }
            Action::Watch => match self.focused() {
                Some(project) => self.toggle_watch(project, cx),
                None => cx.notify(format!(
                    "select a project in the inventory ({}) first",
                    key_of(Action::ShowTab(Tab::Inventory))
                )),
            },
            Action::Up => self.move_cursor(self.cursor.saturating_sub(1), cx),
            Action::Down => self.move_cursor(self.cursor + 1, cx),
            Action::Top => self.move_cursor(0, cx),
            Action::Bottom => self.move_cursor(usize::MAX, cx),
            Action::Open | Action::ToggleDetail => {
                if self.watch.is_empty() && self.selected.is_none() {
                    cx.navigate(Nav::ShowTab(Tab::Inventory));
                } else if !self.watch.is_empty() {
                    if !self.zoom && self.cursor >= self.watch.len() {
                        // The unpinned selection has no large view of its own here.
                        return true;
                    }
                    self.zoom = !self.zoom;
                    self.prune();
                    self.fetch(cx, Round::Missing);
                }
            }
            Action::Refresh => {
                if self.frozen {
                    cx.notify(format!(
                        "frozen: press {} to resume",
                        key_of(Action::Freeze)
                    ));
                } else if !self.busy() {
                    self.fetch(cx, Round::Asked);
                }
            }
            Action::Copy => cx.copy(self.focused().as_ref().map(|p| p.id.as_str())),
            Action::Sort if !self.watch.is_empty() && !self.zoom => {
                self.shared_scale = !self.shared_scale;
            }
            _ => return false,
        }
        true
    }

    fn last_loaded(&self) -> Option<OffsetDateTime> {
        self.last_ok
    }

    fn actions(&self) -> Vec<ScreenAction> {
        let watching = !self.watch.is_empty();
        vec![
            ScreenAction::new(
                Action::Freeze,
                if self.frozen { "unfreeze" } else { "freeze" },
                "freeze or resume the live view (no requests while frozen)",
            ),
            ScreenAction::new(
                Action::Watch,
                "pin/unpin",
                "pin or unpin the focused project (works in the inventory too)",
            ),
            ScreenAction::help_only(Action::Down, "next tile of the watch grid"),
            ScreenAction::help_only(Action::Up, "previous tile"),
            ScreenAction::new(
                Action::Open,
                if self.zoom { "grid" } else { "zoom" },
                "zoom into the focused tile, or back to the grid",
            )
            .hint_if(watching),
            ScreenAction::new(
                Action::Sort,
                if self.shared_scale {
                    "own scales"
                } else {
                    "shared scale"
                },
                "grid: one shared scale for every tile (to compare them), or each its own",
            )
            .hint_if(watching && !self.zoom),
            copy_project_id(),
            ScreenAction::help_only(Action::Refresh, "refresh now"),
            ScreenAction::help_only(
                Action::ShowTab(Tab::Inventory),
                "pick the project in the inventory; refresh interval: [tui] refresh_secs",
            ),
        ]
    }

    fn draw(&self, frame: &mut Frame, area: Rect, view: &ScreenView) {
        let theme = view.theme;
        let [head_area, body] =
            Layout::vertical([Constraint::Length(1), Constraint::Min(3)]).areas(area);
        self.draw_head(frame, head_area, view);
        let mut body = body;
        // Warnings get a line each under the head: staleness, a damaged file.
        let freshness = self.freshness(view.now).map(|text| format!("⚠ {text}"));
        for warning in [freshness.as_ref(), self.watch_warning.as_ref()]
            .into_iter()
            .flatten()
        {
            let [warn_area, rest] =
                Layout::vertical([Constraint::Length(1), Constraint::Min(2)]).areas(body);
            frame.render_widget(
                Paragraph::new(Span::styled(
                    fit(warning, warn_area.width as usize),
                    theme.warn,
                )),
                warn_area,
            );
            body = rest;
        }
        let shown = self.shown();
        if shown.is_empty() {
            let mut text = no_project_text(theme, "The monitor shows live visitors", view.keymap);
            text.push(Line::from(""));
            text.push(view::watch_key_line(
                view,
                "Or pin projects with ",
                " in the inventory: the monitor then watches them all.",
            ));
            draw_placeholder(frame, body, text, theme);
            return;
        }
        if self.watch.is_empty() || self.zoom {
            self.draw_large(frame, body, &shown[0], view);
        } else {
            self.draw_grid(frame, body, &shown, view);
        }
    }
}
