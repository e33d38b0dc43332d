//! The project inventory: server-side filters and sorts, pages loaded as the
//! cursor nears the end, only visible rows built, and a detail pane.

pub mod bulk;
mod catch_up;
pub(crate) mod columns;
mod filters;
mod find;
mod msg;
mod offered;
pub(crate) mod policy;
pub(crate) mod query;
pub(crate) mod reviewed;
mod view;

use std::path::PathBuf;

use crossterm::event::KeyEvent;
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use time::OffsetDateTime;

use super::actions::ScreenAction;
use super::paged::{PageReply, PageSource, PagedList, budget_allows, reversed, workspace_pages};
use super::{Screen, ScreenView};
use crate::api::InventoryParams;
use crate::api::model::{
    ActivityGroup, FindingType, InventoryItem, InventorySortBy, PublishAudience, ReviewPriority,
    Visibility,
};
use crate::tui::action::Action;
use crate::tui::effect::{Cx, answers};
use crate::tui::focus::ProjectOpen;
use crate::tui::nav::{Nav, ProjectNav, ProjectWrite};
use crate::tui::ops::{Exported, ListInventory};
use crate::tui::screens::filtered::{self, FilteredList};
use crate::tui::widgets::checklist::CheckMenu;
use crate::tui::widgets::menu::Menu;
use crate::tui::widgets::search::SearchBox;
use catch_up::{CatchUp, Change, RowPatch};
pub use msg::{BULK, EXPORT, ID_LOOKUP, Msg, PAGE, RECHECK};

/// Items per page: the contract's maximum, to keep requests few.
pub const PAGE_SIZE: u32 = 100;

/// Height of the detail pane.
const DETAIL_HEIGHT: u16 = 10;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum MenuKind {
    Sort,
    Export,
}

/// A line of the filter menu: one value of a repeatable filter, or a yes/no one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum InventoryFilter {
    Priority(ReviewPriority),
    Published,
    Audience(PublishAudience),
    Visibility(Visibility),
    Activity(ActivityGroup),
    Pii,
    Connectors,
    Finding(String),
    /// `--violates`: a policy's violators.
    Violates(String),
}

/// What the inventory shows, as back and forward remember it.
#[derive(Debug, Clone, PartialEq)]
pub struct InventoryView {
    pub query: InventoryParams,
    pub review_filter: reviewed::ReviewFilter,
    /// `:reviewer NAME`: a filter too, so back and forward keep it.
    pub reviewer: Option<String>,
    /// `--violates`: the policies whose violators it keeps.
    pub violates: Vec<String>,
}

#[derive(Debug)]
pub struct InventoryScreen {
    /// The filters and sort as the person set them, in the api's own type:
    /// the search as typed, and the direction kept while no sort is chosen.
    pub query: InventoryParams,
    /// The search box while it has focus.
    search_box: SearchBox,
    pub list: PagedList<InventoryItem>,
    pub total: Option<i64>,
    export_pending: Option<u64>,
    pub applied_finding: Option<FindingType>,
    show_detail: bool,
    menu: Option<(MenuKind, Menu)>,
    filters: Option<CheckMenu<InventoryFilter>>,
    /// Finding types known from the insights screen, for the finding-type toggle.
    pub finding_types: Vec<FindingType>,
    export_dir: PathBuf,
    /// The cursor of each loaded page, and the page each row came from, so a
    /// row's page can be read again.
    page_cursors: Vec<Option<String>>,
    row_pages: Vec<usize>,
    /// Our own writes the list has not shown yet.
    pub catch_up: CatchUp,
    /// Bulk changes to the marked rows (`bulk.rs`).
    pub bulk: bulk::Bulk,
    /// Reviewed marks from the history, for the glyph before the name.
    pub reviewed: reviewed::ReviewedMarks,
    /// A search that reads as a project id: the token of its look-up and
    /// the id, and the project's row found (`find.rs`).
    id_lookup: Option<(u64, String)>,
    pub id_hit: Option<InventoryItem>,
    /// The columns `:columns` chose; `None` the default set (`columns.rs`).
    columns: Option<Vec<columns::Column>>,
    /// The policies' evaluation and `--violates` (`policy.rs`).
    pub policy: policy::PolicyFilter,
}

impl InventoryScreen {
    pub fn new(export_dir: PathBuf) -> Self {
        Self {
            query: InventoryParams::default(),
            search_box: SearchBox::default(),
            list: PagedList::new(PAGE, 20),
            total: None,
            export_pending: None,
            applied_finding: None,
            show_detail: true,
            menu: None,
            filters: None,
            finding_types: Vec::new(),
            export_dir,
            page_cursors: Vec::new(),
            row_pages: Vec::new(),
            catch_up: CatchUp::default(),
            bulk: bulk::Bulk::default(),
            reviewed: reviewed::ReviewedMarks::default(),
            id_lookup: None,
            id_hit: None,
            columns: None,
            policy: policy::PolicyFilter::default(),
        }
    }

    /// Shows exactly the projects of one finding type: the jump from insights
    /// starts from clean filters and the default sort, so the count agrees
    /// with the insights screen (`[` goes back to the view before).
    pub fn filter_by_finding(&mut self, finding_type_id: String, cx: &mut Cx) {
        self.restore_view(
            InventoryView {
                query: InventoryParams {
                    finding_type_id: vec![finding_type_id],
                    ..InventoryParams::default()
                },
                review_filter: reviewed::ReviewFilter::All,
                reviewer: None,
                violates: Vec::new(),
            },
            cx,
        );
    }

    /// The filters, sort and review filter on screen, for back and forward.
    pub fn view(&self) -> InventoryView {
        InventoryView {
            query: self.query.clone(),
            review_filter: self.reviewed.filter,
            reviewer: self.reviewed.reviewer.clone(),
            violates: self.policy.violates.clone(),
        }
    }

    /// Shows `view` again; loads only when it differs from what is on screen.
    pub fn restore_view(&mut self, view: InventoryView, cx: &mut Cx) {
        if view == self.view() && self.list.started {
            return;
        }
        self.search_box.close();
        self.query = view.query;
        self.reviewed.filter = view.review_filter;
        self.reviewed.reviewer = view.reviewer;
        self.policy.violates = view.violates;
        self.reload(cx);
    }

    /// The search as typed.
    pub fn search(&self) -> &str {
        self.query.query.as_deref().unwrap_or("")
    }

    /// What the api is asked for: the search trimmed (none when blank), a
    /// direction only with a sort field (the contract's rule), full pages.
    pub fn params(&self) -> InventoryParams {
        InventoryParams {
            limit: Some(PAGE_SIZE),
            query: Some(self.search().trim().to_owned()).filter(|q| !q.is_empty()),
            sort_order: self.query.sort_by.as_ref().map(|_| self.sort_order()),
            ..self.query.clone()
        }
    }

    /// How the list asks for a page under the current query.
    fn pages(&self, cx: &Cx) -> impl PageSource<Msg = Msg> + use<> {
        workspace_pages::<ListInventory, _>(cx, self.params(), Msg::Page)
    }

    /// Asks for the next page when the selection nears the end of what is loaded.
    fn prefetch(&mut self, cx: &mut Cx) {
        // `--violates` before the first evaluation: no walk to fill a
        // list that cannot say yet which rows it keeps.
        if self.policy.waiting() {
            return;
        }
        // A review filter hides rows as pages land, so the cursor stays near
        // the end and each page asks for the next: a walk over the list,
        // which keeps the reserve as `G` does (one rule: `budget_allows`).
        if (self.reviewed.filtering() || self.policy.filtering())
            && self.list.has_more
            && !self.list.is_loading()
            && !budget_allows(self.list.rate())
        {
            if !self.reviewed.walk_stopped {
                self.reviewed.walk_stopped = true;
                cx.notify(format!(
                    "review filter: stopped after reading {} ({} match), request budget low; scroll on when it refills",
                    crate::tui::widgets::thousands(self.reviewed.rows_read as i64),
                    crate::tui::widgets::thousands(self.list.rows.len() as i64),
                ));
            }
            return;
        }
        self.reviewed.walk_stopped = false;
        let pages = self.pages(cx);
        self.list.prefetch(cx, pages);
    }

    pub fn selected_item(&self) -> Option<&InventoryItem> {
        self.list.selected_row()
    }

    /// Shows our own write at once (the list may lag), and starts re-reading the
    /// row's page until the server agrees.
    pub fn apply_project_write(&mut self, write: &ProjectWrite, cx: &mut Cx) {
        let (id, change) = match write {
            ProjectWrite::Updated(project) => (
                project.id.clone(),
                Change::Patch(RowPatch::from_project(project)),
            ),
            ProjectWrite::Deleted(id) => (id.clone(), Change::Deleted),
        };
        let index = self.list.rows.iter().position(|row| row.id == id);
        let cursor = index
            .and_then(|i| self.row_pages.get(i))
            .and_then(|&page| self.page_cursors.get(page).cloned())
            .flatten();
        if let Some(index) = index {
            match &change {
                Change::Patch(patch) => patch.apply(&mut self.list.rows[index]),
                Change::Deleted => {
                    self.list.rows.remove(index);
                    if index < self.row_pages.len() {
                        self.row_pages.remove(index);
                    }
                    self.total = self.total.map(|total| (total - 1).max(0));
                    self.list.select(self.list.selected);
                }
            }
        }
        self.catch_up
            .expect(id, change, self.params(), cursor, cx.now);
    }

    /// An answer to one of the inventory's requests. True when anything on
    /// screen changed; a stale answer changes nothing.
    pub fn update(&mut self, token: u64, msg: Msg, cx: &mut Cx) -> bool {
        match msg {
            Msg::Page(reply) => match self.list.take_reply(PAGE, token, reply, cx) {
                PageReply::Stale => return false,
                PageReply::Ok {
                    reply: mut page,
                    cursor,
                } => {
                    self.catch_up.overlay(&mut page.data);
                    let first = cursor.is_none();
                    if first {
                        // A first page replaces what a refresh kept on screen.
                        self.page_cursors.clear();
                        self.row_pages.clear();
                        // A project found by id before the search answered
                        // goes first again below, counted with the total.
                        self.hide_id_hit();
                    }
                    self.reviewed.count_read(first, page.data.len());
                    let page_index = self.page_cursors.len();
                    self.page_cursors.push(cursor);
                    self.row_pages
                        .extend(std::iter::repeat_n(page_index, page.data.len()));
                    // A project found by id and shown first is no row of
                    // the search's pages, yet counted with them.
                    let id_hit_shown = !first && self.row_pages.first() == Some(&usize::MAX);
                    self.total = Some(
                        page.total - self.catch_up.unconfirmed_deletes(&self.params())
                            + i64::from(id_hit_shown),
                    );
                    self.applied_finding = page.applied_finding;
                    self.list.append(page.data, page.pagination, cx.now);
                    if first {
                        self.show_id_hit();
                    }
                    self.list.settle_marks(first, cx);
                    if self.list.is_marking_all() {
                        self.list.mark_loaded(cx);
                    }
                    self.prefetch(cx);
                }
                PageReply::Failed => {}
            },
            Msg::BulkUpdated(reply) => return self.bulk_reply(token, reply.map(Some), cx),
            Msg::BulkUnpublished(reply) => return self.bulk_reply(token, reply.map(|()| None), cx),
            Msg::IdProject(reply) => return self.id_project(token, reply, cx),
            Msg::IdRow(reply) => return self.id_row(token, reply, cx),
            Msg::Exported(reply) => {
                if !answers(&mut self.export_pending, token) {
                    return false;
                }
                match reply {
                    Ok(Exported { path, count, .. }) => cx.notify(format!(
                        "exported {} to {}",
                        crate::tui::widgets::count(count as i64, "project"),
                        path.display()
                    )),
                    Err(error) => cx.notify(format!("export failed: {}", error.summary)),
                }
            }
            Msg::Recheck(reply) => {
                let page = reply.as_ref().ok();
                if let Some(confirmed) = self.catch_up.on_page(token, page, &self.params(), cx.now)
                {
                    for fresh in confirmed.rows {
                        if let Some(row) = self.list.rows.iter_mut().find(|row| row.id == fresh.id)
                        {
                            *row = fresh;
                        }
                    }
                    if let Some(total) = confirmed.total {
                        self.total = Some(total);
                    }
                }
            }
        }
        true
    }
}

impl Screen for InventoryScreen {
    fn title(&self) -> &'static str {
        "Inventory"
    }

    fn observe_rate(&mut self, remaining: u32, limit: u32, _now: OffsetDateTime) {
        self.list.set_rate(remaining, limit);
    }

    fn activate(&mut self, cx: &mut Cx) {
        if !self.list.started {
            self.reload(cx);
        }
    }

    fn captures_keys(&self) -> bool {
        self.search_box.is_open()
            || self.menu.is_some()
            || self.filters.is_some()
            || self.bulk.is_open()
    }

    fn handle_text_key(&mut self, key: &KeyEvent, cx: &mut Cx) -> bool {
        if self.bulk.is_open() {
            return self.bulk_key(key, cx);
        }
        self.menu_key(key, cx) || self.search_key(key, cx)
    }

    fn wake_at(&self) -> Option<OffsetDateTime> {
        [
            self.search_box.deadline(),
            self.catch_up.wake_at(),
            self.bulk.wake_at(),
        ]
        .into_iter()
        .flatten()
        .min()
    }

    fn wake(&mut self, cx: &mut Cx) -> bool {
        // A re-read for the catch-up changes nothing on screen until it answers.
        self.catch_up.wake(cx);
        let bulk = self.bulk_wake(cx);
        self.search_due(cx) || bulk
    }

    fn handle_action(&mut self, action: Action, cx: &mut Cx) -> bool {
        if self.overlay_action(action, cx) {
            return true;
        }
        let pages = self.pages(cx);
        if self.list.navigate(action, cx, pages) {
            return true;
        }
        if let Some(done) = self.bulk_action(action, cx) {
            return done;
        }
        match action {
            Action::Refresh => {
                let pages = self.pages(cx);
                self.list.refresh(cx, pages);
            }
            Action::Filter => {
                let current = self.search().to_owned();
                self.search_box.open(&current);
            }
            Action::Sort => self.open_menu(MenuKind::Sort),
            Action::Toggles => {
                self.filters = Some(
                    CheckMenu::new("Filters", self.filter_lines())
                        .with_hotkeys(query::filter_hotkeys),
                );
            }
            Action::Export => self.open_menu(MenuKind::Export),
            Action::ReverseSort => {
                let sorted = self.query.sort_by.is_some();
                if let Some(order) = reversed(sorted, &self.sort_order(), cx) {
                    self.query.sort_order = Some(order);
                    self.reload(cx);
                }
            }
            Action::PriorityFilter => {
                self.cycle_priority();
                self.reload(cx);
            }
            Action::ClearFilters => {
                // The sort stays: it is not a filter. The review filters
                // are filters (the rows they hid are read again below).
                let sort_by = self.query.sort_by.take();
                let sort_order = self.query.sort_order.take();
                self.query = InventoryParams::default();
                self.reviewed.clear_filters();
                self.query.sort_by = sort_by.filter(|s| *s != InventorySortBy::Relevance);
                self.query.sort_order = sort_order;
                self.reload(cx);
            }
            Action::ToggleDetail => self.show_detail = !self.show_detail,
            Action::Open => {
                if let Some(item) = self.selected_item() {
                    cx.navigate(Nav::Project(ProjectNav::Open(Box::new(ProjectOpen::row(
                        item.clone(),
                    )))));
                }
            }
            Action::Copy => cx.copy(self.list.selected_key()),
            _ => return false,
        }
        true
    }

    fn last_loaded(&self) -> Option<OffsetDateTime> {
        self.list.loaded_at
    }

    fn actions(&self) -> Vec<ScreenAction> {
        self.offered()
    }

    fn draw(&self, frame: &mut Frame, area: Rect, view: &ScreenView) {
        let theme = view.theme;
        // A shorter detail pane on short terminals, none on very short ones.
        let detail_height = match area.height {
            _ if !self.show_detail => 0,
            h if h >= 28 => DETAIL_HEIGHT,
            h if h >= 16 => DETAIL_HEIGHT - 3,
            _ => 0,
        };
        let [head_area, filter_area, _, table_area, detail_area] =
            filtered::areas(area, 0, detail_height);
        self.draw_head(frame, head_area, view);
        let summary = || self.filter_summary();
        self.search_box
            .draw(frame, filter_area, theme, true, summary);
        // A review filter that emptied the pages read so far has not
        // seen the rest: said so, never "no project matches".
        let empty = if self.reviewed.filtering() && self.list.has_more {
            format!(
                "None of the {} projects read so far matches; the rest is not read yet ({} reads on).",
                crate::tui::widgets::thousands(self.reviewed.rows_read as i64),
                view.keymap.key_for(Action::Down)
            )
        } else {
            format!(
                "No project matches these filters. Press {} to clear them.",
                view.keymap.key_for(Action::ClearFilters)
            )
        };
        self.list.draw_rows(
            frame,
            [table_area, detail_area],
            (
                "Loading projects…",
                Line::from(Span::styled(empty, theme.dim)),
            ),
            theme,
            |frame, area| self.draw_table(frame, area, view),
            |frame, area| self.draw_detail(frame, area, view),
        );
        if let Some((_, menu)) = &self.menu {
            let (choose, close) = (
                view.keymap.key_for(Action::Open),
                view.keymap.key_for(Action::Back),
            );
            let footer = match menu.hotkeys.is_empty() {
                true => format!("{choose} choose · {close} close"),
                false => format!("key or {choose} chooses · / jump · {close} close"),
            };
            menu.draw(frame, area, theme, &footer);
        }
        if let Some(filters) = &self.filters {
            filters.draw(frame, area, theme, view.keymap);
        }
        self.draw_bulk(frame, area, view);
    }
}
