//! One model of a server-paged list, shared by every list screen (inventory,
//! members, personal data; scan findings and changes next): the rows loaded so
//! far, the selection and scroll offset, the request in flight and its token,
//! reload, next-page prefetch, movement, marks (`space`), the position counter,
//! and what to say while there are no rows.
//! The screen keeps its filters and builds the request for a cursor.

use std::cell::Cell;
use std::collections::HashSet;
use std::ops::Range;

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Paragraph, Table, TableState, Wrap};
use time::OffsetDateTime;

use super::error_text;
use crate::api::model::{Pagination, SortOrder};
use crate::api::page::PageWalk;
use crate::tui::action::Action;
use crate::tui::effect::{Cx, ErrorInfo, Slot, answers};
use crate::tui::keymap::key_of;
use crate::tui::nav::Nav;
use crate::tui::theme::Theme;
/// The reserve rule, named where the lists use it.
pub use crate::tui::vocab::{budget_allows, reserve};
use crate::tui::widgets::display::scroll_offset;
use crate::tui::widgets::{list, rule, thousands};
pub use walk::{ListOperation, ListPage, PageSource, Pages, workspace_pages};

/// A reply to a page request, as [`PagedList::take_reply`] sorts it.
#[derive(Debug)]
pub enum PageReply<P> {
    /// Not the request in flight (another list's, or superseded): nothing changed.
    Stale,
    /// The request failed; the list keeps the error for its placeholder.
    Failed,
    /// The reply, and the cursor the page was asked with (`None`: the first).
    Ok { reply: P, cursor: Option<String> },
}

#[derive(Debug)]
pub struct PagedList<T> {
    /// The request slot of its pages: a newer page request aborts an older one.
    slot: Slot,
    pub rows: Vec<T>,
    pub selected: usize,
    /// The first row on screen, and how many rows the last draw showed.
    offset: Cell<usize>,
    viewport: Cell<usize>,
    next_cursor: Option<String>,
    pub has_more: bool,
    /// The token of the page request in flight, and the cursor it was made with.
    pending: Option<u64>,
    pending_cursor: Option<String>,
    pub error: Option<ErrorInfo>,
    pub loaded_at: Option<OffsetDateTime>,
    /// Whether any page was asked for yet.
    pub started: bool,
    /// The keys of the marked rows.
    marks: HashSet<String>,
    /// Marks carried over from the query before, waiting for their rows to
    /// land (see `marks.rs`).
    carried: HashSet<String>,
    /// A refresh in flight: the rows stay on screen until its first page
    /// replaces them (an outage keeps what was loaded).
    replacing: bool,
    /// `G` walks the pages to the real end: each page follows the last while
    /// the request budget allows.
    seeking_end: bool,
    /// Why the walk to the end stopped early, said until the next move.
    seek_stopped: Option<String>,
    /// The walk to the end has just reached it (said once, by the next prefetch).
    seek_arrived: bool,
    /// `A` walks the pages as `G` does (the selection stays), marking every
    /// row as it lands.
    marking_all: bool,
    /// The request budget as the service last told it: (remaining, limit).
    rate: Option<(u32, u32)>,
    /// The bounds of the walk since the first page (see `walk.rs`): a service
    /// whose cursors cycle, or whose empty pages never end, stops `G` and `A`.
    walk: Option<PageWalk>,
}

impl<T> PagedList<T> {
    /// A list of `slot`'s pages; `viewport` is the height assumed before the
    /// first draw (0: nothing is on screen yet).
    pub fn new(slot: Slot, viewport: usize) -> Self {
        Self {
            slot,
            rows: Vec::new(),
            selected: 0,
            offset: Cell::new(0),
            viewport: Cell::new(viewport),
            next_cursor: None,
            has_more: false,
            pending: None,
            pending_cursor: None,
            error: None,
            loaded_at: None,
            started: false,
            marks: HashSet::new(),
            carried: HashSet::new(),
            replacing: false,
            seeking_end: false,
            seek_stopped: None,
            seek_arrived: false,
            marking_all: false,
            rate: None,
            walk: None,
        }
    }

    /// Drops the rows and forgets the request in flight: its reply is then
    /// dropped by its token.
    pub fn clear(&mut self) {
        self.rows.clear();
        self.next_cursor = None;
        self.has_more = false;
        self.pending = None;
        self.pending_cursor = None;
        self.selected = 0;
        self.offset.set(0);
        self.error = None;
        // Marks are of the rows on screen: another query starts unmarked.
        self.marks.clear();
        self.carried.clear();
        self.replacing = false;
        self.seeking_end = false;
        self.marking_all = false;
        self.seek_stopped = None;
        self.walk = None;
    }

    /// Asks for the first page again and keeps the rows on screen until it
    /// answers: `r` during an outage never empties the list.
    pub fn refresh(&mut self, cx: &mut Cx, pages: impl PageSource) {
        if self.rows.is_empty() {
            return self.reload(cx, pages);
        }
        self.started = true;
        self.replacing = true;
        self.seeking_end = false;
        self.marking_all = false;
        self.seek_stopped = None;
        self.pending_cursor = None;
        self.fetch_first(cx, pages);
    }

    /// A failed page: the rows on screen stay, and the error is shown.
    pub fn fail(&mut self, error: ErrorInfo) {
        self.replacing = false;
        self.seeking_end = false;
        self.marking_all = false;
        self.error = Some(error);
    }

    /// Drops what is loaded and asks for the first page.
    pub fn reload(&mut self, cx: &mut Cx, pages: impl PageSource) {
        self.clear();
        self.started = true;
        self.fetch_first(cx, pages);
    }

    /// Asks for the first page: a new walk starts.
    fn fetch_first(&mut self, cx: &mut Cx, pages: impl PageSource) {
        let (request, message) = pages.at(None);
        // The walk's own bounds, and the configured most items it reads.
        self.walk = request
            .walk()
            .map(|walk| walk.with_max_items(cx.walk_limit));
        self.pending = Some(cx.request(self.slot, request, message));
    }

    /// Asks for the next page when the selection nears the end of what is
    /// loaded, more exists and none is in flight. True when it asked.
    pub fn prefetch(&mut self, cx: &mut Cx, pages: impl PageSource) -> bool {
        if std::mem::take(&mut self.seek_arrived) {
            cx.notify(format!(
                "at the end: all {} loaded",
                thousands(self.rows.len() as i64)
            ));
        }
        // A walk (`G`, `A`) asks wherever the selection is.
        let walking = self.seeking_end || self.marking_all;
        let near_end = list::wants_next_page(
            self.selected,
            self.rows.len(),
            self.viewport.get(),
            self.has_more,
            self.pending.is_some(),
        );
        let walk_on = walking && self.has_more && self.pending.is_none();
        if !(near_end || walk_on) {
            return false;
        }
        let Some(cursor) = self.next_cursor.clone() else {
            return false;
        };
        if walking && !budget_allows(self.rate) {
            let stopped = self.stopped_text();
            self.seeking_end = false;
            self.marking_all = false;
            cx.notify(stopped.clone());
            self.seek_stopped = Some(stopped);
            return false;
        }
        if self.marking_all {
            cx.notify(format!(
                "marking all: {} loaded and marked, the next page asked for",
                thousands(self.rows.len() as i64)
            ));
        }
        if self.seeking_end {
            cx.notify(format!(
                "going to the end: {} loaded, the next page asked for",
                thousands(self.rows.len() as i64)
            ));
        }
        self.pending_cursor = Some(cursor.clone());
        let (request, message) = pages.at(Some(cursor));
        self.pending = Some(cx.request(self.slot, request, message));
        true
    }

    /// Moves the selection for a movement action (then prefetches); false for
    /// any other action.
    pub fn navigate(&mut self, action: Action, cx: &mut Cx, pages: impl PageSource) -> bool {
        let Some(index) = list::navigate(action, self.selected, self.viewport.get()) else {
            return false;
        };
        self.seek_stopped = None;
        // `G` goes to the real end: the pages not loaded yet follow one another.
        self.seeking_end = action == Action::Bottom && self.has_more;
        self.select(index);
        self.prefetch(cx, pages);
        true
    }

    /// What the head line says when a walk (`G`, `A`) stopped for the budget.
    fn stopped_text(&self) -> String {
        let rate = self
            .rate
            .map(|(remaining, limit)| format!(" ({remaining}/{limit})"))
            .unwrap_or_default();
        let loaded = thousands(self.rows.len() as i64);
        if self.marking_all {
            format!(
                "only the {loaded} loaded are marked: request budget low{rate}; A again when it refills"
            )
        } else {
            format!("stopped at {loaded}: request budget low{rate}; G again when it refills")
        }
    }

    /// The request budget the service last told: (remaining, limit).
    pub fn set_rate(&mut self, remaining: u32, limit: u32) {
        self.rate = Some((remaining, limit));
    }

    pub fn rate(&self) -> Option<(u32, u32)> {
        self.rate
    }

    /// Whether `G` is walking the pages to the end.
    pub fn is_seeking_end(&self) -> bool {
        self.seeking_end
    }

    /// Selects row `index`, or the last one loaded.
    pub fn select(&mut self, index: usize) {
        self.selected = index.min(self.rows.len().saturating_sub(1));
    }

    /// Moves the stored offset so the selection is in view, for screens that
    /// act on the rows on screen before the next draw.
    pub fn follow_selection(&self) {
        let height = self.viewport.get();
        if height > 0 {
            self.offset.set(scroll_offset(
                self.offset.get(),
                self.selected,
                height,
                self.rows.len(),
            ));
        }
    }

    /// Whether a reply in `slot` with `token` answers the page request in
    /// flight; if so it is no longer pending, and the cursor it was asked with
    /// comes back (`None` for the first page). A stale reply gives `None`.
    pub fn accept(&mut self, slot: Slot, token: u64) -> Option<Option<String>> {
        if slot != self.slot || !answers(&mut self.pending, token) {
            return None;
        }
        Some(self.pending_cursor.take())
    }

    /// Sorts the reply to a page request: a stale one changes nothing, a
    /// failure is kept (see [`PagedList::fail`]), and a reply is the screen's
    /// to read, with the cursor it was asked with. A page past the walk's
    /// bounds fails like a failed page (the status line and the error log say
    /// why), and the list ends there until it reloads.
    pub fn take_reply<P: ListPage>(
        &mut self,
        slot: Slot,
        token: u64,
        reply: Result<P, ErrorInfo>,
        cx: &mut Cx,
    ) -> PageReply<P> {
        let Some(cursor) = self.accept(slot, token) else {
            return PageReply::Stale;
        };
        let error = match reply {
            Ok(reply) => match self.walk_ended(&reply, cx.now) {
                None => return PageReply::Ok { reply, cursor },
                Some(error) => {
                    // The walk ends on this page: no cursor of it is followed,
                    // and the App logs it as it logs a failed reply.
                    self.has_more = false;
                    self.next_cursor = None;
                    cx.navigate(Nav::Failed(Box::new(error.clone())));
                    error
                }
            },
            Err(error) => error,
        };
        self.fail(error);
        PageReply::Failed
    }

    /// Checks a page reply against the walk's bounds; past them the walk is
    /// over (dropped), and the error that names the operation comes back.
    fn walk_ended(&mut self, reply: &impl ListPage, now: OffsetDateTime) -> Option<ErrorInfo> {
        let (walk, (items, pagination, total)) = (self.walk.as_mut()?, reply.shape()?);
        if let Some(total) = total {
            walk.expect(total.max(0) as u64);
        }
        let error = walk.follow(items, pagination).err()?;
        self.walk = None;
        Some(ErrorInfo::local(error.to_string(), now))
    }

    /// Adds an accepted page. An empty page with `has_more` is legal: the
    /// caller's next [`PagedList::prefetch`] keeps walking.
    pub fn append(&mut self, rows: Vec<T>, pagination: Pagination, now: OffsetDateTime) {
        if std::mem::take(&mut self.replacing) {
            self.rows.clear();
            self.selected = self.selected.min(rows.len().saturating_sub(1));
        }
        self.rows.extend(rows);
        self.has_more = pagination.has_more;
        if self.seeking_end {
            // The selection rides on the last row; the walk ends with the pages.
            self.select(usize::MAX);
            self.seeking_end = self.has_more;
            self.seek_arrived = !self.has_more;
        }
        self.next_cursor = pagination.next_cursor;
        self.error = None;
        self.loaded_at = Some(now);
    }

    /// Where the loaded rows stop, while more exist.
    pub fn next_cursor(&self) -> Option<&str> {
        self.next_cursor.as_deref().filter(|_| self.has_more)
    }

    pub fn is_loading(&self) -> bool {
        self.pending.is_some()
    }

    pub fn selected_row(&self) -> Option<&T> {
        self.rows.get(self.selected)
    }

    /// The rows on screen, as the next draw will show them.
    pub fn visible_rows(&self) -> Range<usize> {
        let height = self.viewport.get();
        if height == 0 || self.rows.is_empty() {
            return 0..0;
        }
        let offset = scroll_offset(self.offset.get(), self.selected, height, self.rows.len());
        offset..(offset + height).min(self.rows.len())
    }

    /// For a draw `height` rows high: remembers the height and the offset, and
    /// returns the rows to build (only those are).
    pub fn layout(&self, height: usize) -> Range<usize> {
        self.viewport.set(height.max(1));
        let range = self.visible_rows();
        self.offset.set(range.start);
        range
    }

    /// Remembers the height rows will have, before there are any.
    pub fn set_viewport(&self, height: usize) {
        self.viewport.set(height);
    }

    /// What the table area says while there are no rows: the error, that a
    /// page is loading, or `empty`.
    pub fn placeholder(
        &self,
        theme: &Theme,
        loading: &'static str,
        empty: Line<'static>,
    ) -> Vec<Line<'static>> {
        match (&self.error, self.pending) {
            (Some(error), _) => error_text(error, theme),
            (None, Some(_)) => vec![Line::from(Span::styled(loading, theme.dim))],
            (None, None) => vec![empty],
        }
    }
}

impl<T> PagedList<T> {
    /// Draws `table`, built of the rows from `offset` on (as
    /// [`PagedList::layout`] gave them), under the top border with the
    /// selection highlighted.
    pub fn draw_table(
        &self,
        frame: &mut Frame,
        area: Rect,
        table: Table<'_>,
        offset: usize,
        theme: &Theme,
    ) {
        let table = table.block(rule(theme)).row_highlight_style(theme.selected);
        let mut state =
            TableState::default().with_selected(Some(self.selected.saturating_sub(offset)));
        frame.render_stateful_widget(table, area, &mut state);
    }

    /// Where the selection is: `17/5,000`, counted against `total` when the
    /// service gave one, else against the rows loaded (`300+` while more exist).
    pub fn position(&self, total: Option<i64>) -> String {
        let at = if self.rows.is_empty() {
            0
        } else {
            self.selected + 1
        };
        let of = match total {
            Some(total) => thousands(total),
            None if self.has_more => format!("{}+", thousands(self.rows.len() as i64)),
            None => thousands(self.rows.len() as i64),
        };
        format!("{}/{of}", thousands(at as i64))
    }

    /// The counter and the marks, for a list's head line: ` · 17/5,000 · 3 marked`.
    pub fn head_spans(&self, total: Option<i64>, theme: &Theme) -> Vec<Span<'static>> {
        let mut spans = vec![Span::styled(
            format!(" · {}", self.position(total)),
            theme.dim,
        )];
        if let Some(marks) = self.marks_label() {
            spans.push(Span::styled(marks, theme.accent));
        }
        if self.seeking_end {
            spans.push(Span::styled(" · loading to the end…", theme.accent));
        }
        if self.marking_all {
            spans.push(Span::styled(
                " · loading the rest to mark all…",
                theme.accent,
            ));
        }
        if let Some(stopped) = &self.seek_stopped {
            spans.push(Span::styled(format!(" · {stopped}"), theme.warn));
        }
        spans
    }

    pub fn marked_count(&self) -> usize {
        self.marks.len()
    }

    /// `· 3 marked` for a list's head line, or nothing.
    pub fn marks_label(&self) -> Option<String> {
        (!self.marks.is_empty())
            .then(|| format!(" · {} marked", thousands(self.marks.len() as i64)))
    }

    pub fn clear_marks(&mut self) -> bool {
        let had = !self.marks.is_empty();
        self.marks.clear();
        had
    }
}

/// `S`: the other direction of the sort, or `None` (said why) without a
/// sort: the default order has no direction.
pub fn reversed(sorted: bool, order: &SortOrder, cx: &mut Cx) -> Option<SortOrder> {
    if !sorted {
        cx.notify(format!(
            "choose a sort first ({}); the default order has no direction",
            key_of(Action::Sort)
        ));
        return None;
    }
    Some(match order {
        SortOrder::Asc => SortOrder::Desc,
        _ => SortOrder::Asc,
    })
}

/// A pane under a titled rule (` Detail `).
pub fn titled_pane(title: &'static str, theme: &Theme) -> Block<'static> {
    rule(theme).title(Span::styled(title, theme.title))
}

/// Draws `lines` where the table would be, under the table's top border.
pub fn draw_placeholder(frame: &mut Frame, area: Rect, lines: Vec<Line<'static>>, theme: &Theme) {
    frame.render_widget(
        Paragraph::new(lines)
            .wrap(Wrap { trim: true })
            .block(rule(theme)),
        area,
    );
}

mod detail;
mod marks;
#[cfg(test)]
mod tests;
mod walk;

pub use detail::DetailPane;
pub use marks::{MARK_GLYPH, NO_MARK, RowKey};
