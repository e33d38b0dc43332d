//! The project inventory: server-side filters and sorts, pages loaded as the
//! cursor nears the end, only visible rows built, and a detail pane.

use std::path::PathBuf;

use crossterm::event::{KeyCode, KeyEvent};
use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Cell as TableCell, Paragraph, Row, Table, TableState};
use time::OffsetDateTime;
use tui_input::Input;
use tui_input::backend::crossterm::EventHandler;

use super::catch_up::{CatchUp, Change, RowPatch};
use super::paged::{PagedList, draw_placeholder};
use super::{Screen, ScreenView};
use crate::api::model::{
    ActivityGroup, FindingType, InventoryItem, InventorySortBy, PublishAudience, ReviewPriority,
    SortOrder, Visibility,
};
use crate::text::{fit, sanitize_line, sanitize_multiline};
use crate::tui::action::Action;
use crate::tui::effect::{Answer, Cx, ExportFormat, InventoryQuery, Reply, Request, Slot};
use crate::tui::nav::{Nav, ProjectNav, ProjectWrite};
use crate::tui::theme::{Theme, priority_label};
use crate::tui::widgets::list;
use crate::tui::widgets::menu::Menu;
use crate::tui::widgets::{ago, thousands};

/// Items per page: the contract's maximum, to keep requests few.
pub const PAGE_SIZE: u32 = 100;
/// Typing in the search box waits this long before asking the server.
const QUERY_DEBOUNCE: time::Duration = time::Duration::milliseconds(250);
/// Height of the detail pane.
const DETAIL_HEIGHT: u16 = 10;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum MenuKind {
    Sort,
    Toggles,
    Export,
}

/// The toggles of the filter menu, in order.
const TOGGLES: &[&str] = &[
    "Review priority",
    "Published",
    "Audience",
    "Visibility",
    "Activity",
    "Has personal data",
    "Has connectors",
    "Finding type",
];

#[derive(Debug)]
pub struct InventoryScreen {
    pub query: InventoryQuery,
    /// The search box while it has focus.
    input: Option<Input>,
    query_deadline: Option<OffsetDateTime>,
    pub list: PagedList<InventoryItem>,
    pub total: Option<i64>,
    export_pending: Option<u64>,
    pub applied_finding: Option<FindingType>,
    show_detail: bool,
    menu: Option<(MenuKind, Menu)>,
    /// Finding types known from the insights screen, for the finding-type toggle.
    pub finding_types: Vec<FindingType>,
    export_dir: PathBuf,
    /// The cursor of each loaded page, and the page each row came from, so a
    /// row's page can be read again.
    page_cursors: Vec<Option<String>>,
    row_pages: Vec<usize>,
    /// Our own writes the list has not shown yet.
    pub catch_up: CatchUp,
}

impl InventoryScreen {
    pub fn new(export_dir: PathBuf) -> Self {
        Self {
            query: InventoryQuery::default(),
            input: None,
            query_deadline: None,
            list: PagedList::new(Slot::InventoryPage, 20),
            total: None,
            export_pending: None,
            applied_finding: None,
            show_detail: true,
            menu: None,
            finding_types: Vec::new(),
            export_dir,
            page_cursors: Vec::new(),
            row_pages: Vec::new(),
            catch_up: CatchUp::default(),
        }
    }

    /// Shows only the projects of one finding type.
    pub fn filter_by_finding(&mut self, finding_type_id: String, cx: &mut Cx) {
        self.query.finding_type_id = Some(finding_type_id);
        self.reload(cx);
    }

    /// The request for one page under the current query.
    fn page_request(&self) -> impl FnOnce(Option<String>) -> Request + use<> {
        let query = self.query.clone();
        move |cursor| Request::InventoryPage {
            query,
            cursor,
            limit: PAGE_SIZE,
        }
    }

    /// Drops what is loaded and asks for the first page under the current query.
    fn reload(&mut self, cx: &mut Cx) {
        self.total = None;
        self.applied_finding = None;
        self.page_cursors.clear();
        self.row_pages.clear();
        let request = self.page_request();
        self.list.reload(cx, request);
    }

    /// Asks for the next page when the selection nears the end of what is loaded.
    fn prefetch(&mut self, cx: &mut Cx) {
        let request = self.page_request();
        self.list.prefetch(cx, request);
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
            .expect(id, change, self.query.clone(), cursor, cx.now);
    }

    pub fn is_loading(&self) -> bool {
        self.list.is_loading()
    }

    fn open_menu(&mut self, kind: MenuKind) {
        let menu = match kind {
            MenuKind::Sort => {
                let mut items =
                    vec!["default (recently edited; best match with a search)".to_owned()];
                items.extend(InventorySortBy::KNOWN.iter().map(|s| s.as_str().to_owned()));
                let selected = self
                    .query
                    .sort_by
                    .as_ref()
                    .and_then(|current| InventorySortBy::KNOWN.iter().position(|s| s == current))
                    .map_or(0, |index| index + 1);
                Menu::new("Sort by", items, selected)
            }
            MenuKind::Toggles => Menu::new("Filters", self.toggle_lines(), 0),
            MenuKind::Export => Menu::new(
                "Export this view",
                vec!["CSV".to_owned(), "JSON".to_owned()],
                0,
            ),
        };
        self.menu = Some((kind, menu));
    }

    fn toggle_lines(&self) -> Vec<String> {
        let q = &self.query;
        let any = |value: Option<String>| value.unwrap_or_else(|| "any".to_owned());
        let yes_no =
            |value: Option<bool>| any(value.map(|v| if v { "yes".into() } else { "no".into() }));
        let values = [
            any(q.review_priority.first().map(|p| p.as_str().to_owned())),
            yes_no(q.is_published),
            any(q.publish_audience.first().map(|a| a.as_str().to_owned())),
            any(q.visibility.first().map(|v| v.as_str().to_owned())),
            any(q.activity_group.first().map(|a| a.as_str().to_owned())),
            yes_no(q.has_pii),
            yes_no(q.has_connectors),
            any(q
                .finding_type_id
                .as_deref()
                .map(|id| sanitize_line(id).into_owned())),
        ];
        TOGGLES
            .iter()
            .zip(values)
            .map(|(label, value)| format!("{label:<18} {value}"))
            .collect()
    }

    /// Moves toggle `index` to its next value.
    fn cycle_toggle(&mut self, index: usize) {
        fn next<T: Clone + PartialEq>(current: Option<&T>, values: &[T]) -> Option<T> {
            match current.and_then(|c| values.iter().position(|v| v == c)) {
                None => values.first().cloned(),
                Some(i) if i + 1 < values.len() => Some(values[i + 1].clone()),
                Some(_) => None,
            }
        }
        fn next_bool(current: Option<bool>) -> Option<bool> {
            match current {
                None => Some(true),
                Some(true) => Some(false),
                Some(false) => None,
            }
        }
        let q = &mut self.query;
        match index {
            0 => {
                q.review_priority = next(q.review_priority.first(), ReviewPriority::KNOWN)
                    .into_iter()
                    .collect()
            }
            1 => {
                q.is_published = next_bool(q.is_published);
                // The contract allows an audience filter only with published projects.
                if q.is_published == Some(false) {
                    q.publish_audience.clear();
                }
            }
            2 => {
                q.publish_audience = next(q.publish_audience.first(), PublishAudience::KNOWN)
                    .into_iter()
                    .collect();
                if !q.publish_audience.is_empty() && q.is_published == Some(false) {
                    q.is_published = None;
                }
            }
            3 => {
                q.visibility = next(q.visibility.first(), Visibility::KNOWN)
                    .into_iter()
                    .collect()
            }
            4 => {
                q.activity_group = next(q.activity_group.first(), ActivityGroup::KNOWN)
                    .into_iter()
                    .collect()
            }
            5 => q.has_pii = next_bool(q.has_pii),
            6 => q.has_connectors = next_bool(q.has_connectors),
            7 => {
                let ids: Vec<String> = self.finding_types.iter().map(|f| f.id.clone()).collect();
                q.finding_type_id = next(q.finding_type_id.as_ref(), &ids);
            }
            _ => {}
        }
    }

    fn handle_menu_action(&mut self, action: Action, cx: &mut Cx) {
        let Some((kind, menu)) = &mut self.menu else {
            return;
        };
        let kind = *kind;
        match action {
            Action::Up => menu.up(),
            Action::Down => menu.down(),
            Action::Back | Action::Quit => self.menu = None,
            Action::Open => {
                let choice = menu.selected;
                match kind {
                    MenuKind::Sort => {
                        self.menu = None;
                        let sort_by = choice
                            .checked_sub(1)
                            .map(|i| InventorySortBy::KNOWN[i].clone());
                        if sort_by == Some(InventorySortBy::Relevance)
                            && self.query.query.trim().is_empty()
                        {
                            cx.notify("sorting by relevance needs a search: press / first".into());
                            return;
                        }
                        self.query.sort_by = sort_by;
                        self.reload(cx);
                    }
                    MenuKind::Toggles => {
                        self.cycle_toggle(choice);
                        let lines = self.toggle_lines();
                        if let Some((_, menu)) = &mut self.menu {
                            menu.items = lines;
                        }
                        self.reload(cx);
                    }
                    MenuKind::Export => {
                        self.menu = None;
                        let format = if choice == 0 {
                            ExportFormat::Csv
                        } else {
                            ExportFormat::Json
                        };
                        self.start_export(format, cx);
                    }
                }
            }
            _ => {}
        }
    }

    fn start_export(&mut self, format: ExportFormat, cx: &mut Cx) {
        let stamp = crate::timefmt::utc(cx.now, crate::timefmt::FILE_STAMP);
        let path = self
            .export_dir
            .join(format!("inventory-{stamp}.{}", format.extension()));
        self.export_pending = Some(cx.fetch(
            Slot::InventoryExport,
            Request::ExportInventory {
                query: self.query.clone(),
                format,
                path,
            },
        ));
        cx.notify("exporting every page of this view…".into());
    }

    /// The active filters in words, for the summary line.
    pub fn filter_summary(&self) -> String {
        let q = &self.query;
        let mut parts = Vec::new();
        if !q.query.trim().is_empty() {
            parts.push(format!("search \"{}\"", sanitize_line(q.query.trim())));
        }
        let list = |name: &str, values: Vec<&str>| {
            (!values.is_empty()).then(|| format!("{name} {}", values.join("|")))
        };
        parts.extend(list(
            "priority",
            q.review_priority.iter().map(|v| v.as_str()).collect(),
        ));
        if let Some(published) = q.is_published {
            parts.push(if published {
                "published".into()
            } else {
                "not published".into()
            });
        }
        parts.extend(list(
            "audience",
            q.publish_audience.iter().map(|v| v.as_str()).collect(),
        ));
        parts.extend(list(
            "visibility",
            q.visibility.iter().map(|v| v.as_str()).collect(),
        ));
        parts.extend(list(
            "activity",
            q.activity_group.iter().map(|v| v.as_str()).collect(),
        ));
        if let Some(pii) = q.has_pii {
            parts.push(if pii {
                "with personal data".into()
            } else {
                "without personal data".into()
            });
        }
        if let Some(connectors) = q.has_connectors {
            parts.push(if connectors {
                "with connectors".into()
            } else {
                "without connectors".into()
            });
        }
        if let Some(id) = &q.finding_type_id {
            parts.push(format!("finding {}", sanitize_line(id)));
        }
        list::filter_summary(
            &parts,
            q.sort_by.as_ref().map(|by| by.as_str()),
            &q.sort_order,
        )
    }
}

impl Screen for InventoryScreen {
    fn title(&self) -> &'static str {
        "Inventory"
    }

    fn activate(&mut self, cx: &mut Cx) {
        if !self.list.started {
            self.reload(cx);
        }
    }

    fn captures_keys(&self) -> bool {
        self.input.is_some() || self.menu.is_some()
    }

    fn handle_text_key(&mut self, key: &KeyEvent, cx: &mut Cx) -> bool {
        let Some(input) = &mut self.input else {
            return false;
        };
        match key.code {
            KeyCode::Enter | KeyCode::Esc => {
                self.input = None;
                if self.query_deadline.take().is_some() {
                    self.reload(cx);
                }
            }
            _ => {
                let before = input.value().to_owned();
                input.handle_event(&crossterm::event::Event::Key(*key));
                if input.value() != before {
                    self.query.query = input.value().to_owned();
                    if self.query.query.trim().is_empty()
                        && self.query.sort_by == Some(InventorySortBy::Relevance)
                    {
                        self.query.sort_by = None;
                    }
                    self.query_deadline = Some(cx.now + QUERY_DEBOUNCE);
                }
            }
        }
        true
    }

    fn wake_at(&self) -> Option<OffsetDateTime> {
        [self.query_deadline, self.catch_up.wake_at()]
            .into_iter()
            .flatten()
            .min()
    }

    fn wake(&mut self, cx: &mut Cx) -> bool {
        // A re-read for the catch-up changes nothing on screen until it answers.
        self.catch_up.wake(cx, PAGE_SIZE);
        if self.query_deadline.is_some_and(|at| at <= cx.now) {
            self.query_deadline = None;
            self.reload(cx);
            return true;
        }
        false
    }

    fn handle_action(&mut self, action: Action, cx: &mut Cx) -> bool {
        if self.menu.is_some() {
            self.handle_menu_action(action, cx);
            return true;
        }
        let request = self.page_request();
        if self.list.navigate(action, cx, request) {
            return true;
        }
        match action {
            Action::Refresh => self.reload(cx),
            Action::Filter => {
                self.input = Some(Input::new(self.query.query.clone()));
            }
            Action::Sort => self.open_menu(MenuKind::Sort),
            Action::Toggles => self.open_menu(MenuKind::Toggles),
            Action::Export => self.open_menu(MenuKind::Export),
            Action::ReverseSort => {
                if self.query.sort_by.is_none() {
                    cx.notify("choose a sort first (s); the default order has no direction".into());
                } else {
                    self.query.sort_order = match self.query.sort_order {
                        SortOrder::Asc => SortOrder::Desc,
                        _ => SortOrder::Asc,
                    };
                    self.reload(cx);
                }
            }
            Action::PriorityFilter => {
                self.cycle_toggle(0);
                self.reload(cx);
            }
            Action::ClearFilters => {
                self.query = InventoryQuery::default();
                self.reload(cx);
            }
            Action::ToggleDetail => self.show_detail = !self.show_detail,
            Action::Open => {
                if let Some(item) = self.selected_item() {
                    cx.navigate(Nav::Project(ProjectNav::Open(Box::new(item.clone()))));
                }
            }
            Action::Copy => cx.copy(self.selected_item().map(|item| item.id.as_str())),
            _ => return false,
        }
        true
    }

    fn handle_reply(&mut self, answer: Answer, cx: &mut Cx) -> bool {
        let Answer { slot, token, reply } = answer;
        match slot {
            Slot::InventoryPage => {
                let Some(cursor) = self.list.accept(slot, token) else {
                    return false;
                };
                match reply {
                    Ok(Reply::InventoryPage(page)) => {
                        let mut page = *page;
                        self.catch_up.overlay(&mut page.data);
                        let page_index = self.page_cursors.len();
                        self.page_cursors.push(cursor);
                        self.row_pages
                            .extend(std::iter::repeat_n(page_index, page.data.len()));
                        self.total =
                            Some(page.total - self.catch_up.unconfirmed_deletes(&self.query));
                        self.applied_finding = page.applied_finding;
                        self.list.append(page.data, page.pagination, cx.now);
                        self.prefetch(cx);
                    }
                    Ok(_) => {}
                    Err(error) => self.list.error = Some(error),
                }
            }
            Slot::InventoryExport if self.export_pending == Some(token) => {
                self.export_pending = None;
                match reply {
                    Ok(Reply::Exported { path, count }) => {
                        cx.notify(format!("exported {count} projects to {}", path.display()))
                    }
                    Ok(_) => {}
                    Err(error) => cx.notify(format!("export failed: {}", error.summary)),
                }
            }
            Slot::InventoryRecheck => {
                let page = match &reply {
                    Ok(Reply::InventoryPage(page)) => Some(page.as_ref()),
                    _ => None,
                };
                if let Some(confirmed) = self.catch_up.on_page(token, page, &self.query, cx.now) {
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
            _ => return false,
        }
        true
    }

    fn last_loaded(&self) -> Option<OffsetDateTime> {
        self.list.loaded_at
    }

    fn hints(&self) -> Vec<(Action, &'static str)> {
        vec![
            (Action::Open, "open"),
            (Action::Filter, "search"),
            (Action::Toggles, "filters"),
            (Action::Sort, "sort"),
            (Action::ReverseSort, "reverse"),
            (Action::ToggleDetail, "detail"),
            (Action::Export, "export"),
        ]
    }

    fn help(&self) -> Vec<(Action, &'static str)> {
        vec![
            (
                Action::Down,
                "next project (pages load as you near the end)",
            ),
            (Action::Up, "previous project"),
            (Action::PageDown, "page down"),
            (Action::PageUp, "page up"),
            (Action::Top, "first project"),
            (Action::Bottom, "last loaded project"),
            (
                Action::Filter,
                "search names and owners (terms under 3 characters are ignored)",
            ),
            (
                Action::Toggles,
                "filter toggles: priority, published, audience, visibility, activity, PII, connectors, finding type",
            ),
            (Action::PriorityFilter, "cycle the review-priority filter"),
            (Action::ClearFilters, "clear every filter and the sort"),
            (Action::Sort, "sort by any field of the contract"),
            (Action::ReverseSort, "reverse the sort order"),
            (
                Action::Open,
                "open the project: every field, rename, publish, delete",
            ),
            (Action::ToggleDetail, "show or hide the detail pane"),
            (Action::Copy, "copy the project id (OSC 52)"),
            (
                Action::Export,
                "export every page of this view to CSV or JSON",
            ),
            (Action::Refresh, "reload from the first page"),
        ]
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
        let [head_area, filter_area, table_area, detail_area] = Layout::vertical([
            Constraint::Length(1),
            Constraint::Length(1),
            Constraint::Min(3),
            Constraint::Length(detail_height),
        ])
        .areas(area);
        self.draw_head(frame, head_area, theme);
        self.draw_filter_line(frame, filter_area, theme);
        if self.list.rows.is_empty() {
            let text = self.list.placeholder(
                theme,
                "Loading projects…",
                Line::from(Span::styled(
                    "No project matches these filters. Press c to clear them.",
                    theme.dim,
                )),
            );
            draw_placeholder(frame, table_area, text, theme);
        } else {
            self.draw_table(frame, table_area, view);
            if detail_height > 0 {
                self.draw_detail(frame, detail_area, view);
            }
        }
        if let Some((_, menu)) = &self.menu {
            menu.draw(frame, area, theme, "enter choose · esc close");
        }
    }
}

/// A column of the table: what it needs and how it is filled.
struct Column {
    title: &'static str,
    width: u16,
    /// Lower goes first when the terminal is narrow.
    keep: u8,
}

const COLUMNS: &[Column] = &[
    Column {
        title: "Priority",
        width: 15,
        keep: 9,
    },
    Column {
        title: "Name",
        width: 0,
        keep: 10,
    },
    Column {
        title: "Owner",
        width: 14,
        keep: 7,
    },
    Column {
        title: "Audience",
        width: 9,
        keep: 8,
    },
    Column {
        title: "Visibility",
        width: 14,
        keep: 2,
    },
    Column {
        title: "Activity",
        width: 8,
        keep: 3,
    },
    Column {
        title: "Edits 7d",
        width: 8,
        keep: 5,
    },
    Column {
        title: "Visit 7d",
        width: 8,
        keep: 6,
    },
    Column {
        title: "PII",
        width: 4,
        keep: 6,
    },
    Column {
        title: "Last scan",
        width: 10,
        keep: 4,
    },
];

/// Minimum width of the name column.
const NAME_MIN: u16 = 18;

fn visible_columns(width: u16) -> Vec<usize> {
    let mut shown: Vec<usize> = (0..COLUMNS.len()).collect();
    let needed = |shown: &[usize]| -> u16 {
        shown.iter().map(|&i| COLUMNS[i].width + 1).sum::<u16>() + NAME_MIN + 2
    };
    while needed(&shown) > width {
        let Some((pos, _)) = shown
            .iter()
            .enumerate()
            .filter(|(_, i)| COLUMNS[**i].width > 0)
            .min_by_key(|(_, i)| COLUMNS[**i].keep)
        else {
            break;
        };
        if COLUMNS[shown[pos]].keep >= 9 {
            break;
        }
        shown.remove(pos);
    }
    shown
}

fn audience_label(item: &InventoryItem) -> String {
    match (&item.publish_audience, item.is_published) {
        (Some(audience), true) => sanitize_line(audience.as_str()).into_owned(),
        _ => "offline".to_owned(),
    }
}

impl InventoryScreen {
    fn draw_head(&self, frame: &mut Frame, area: Rect, theme: &Theme) {
        let total = self.total.map_or("…".to_owned(), thousands);
        let mut spans = vec![
            Span::styled(format!("{total} projects"), theme.title),
            Span::styled(
                format!(" · {} loaded", thousands(self.list.rows.len() as i64)),
                theme.dim,
            ),
        ];
        if self.list.is_loading() {
            spans.push(Span::styled(" · loading…", theme.dim));
        }
        if self.catch_up.waiting() {
            spans.push(Span::styled(
                " · waiting for the list to catch up",
                theme.warn,
            ));
        } else if self.catch_up.gave_up {
            spans.push(Span::styled(
                " · the list has not caught up with a change yet (r reloads)",
                theme.warn,
            ));
        }
        if let Some(finding) = &self.applied_finding {
            spans.push(Span::styled("  finding: ", theme.dim));
            spans.push(Span::styled(
                format!(
                    "{} ({})",
                    fit(&finding.title, 48),
                    priority_label(&finding.review_priority)
                ),
                theme.priority(&finding.review_priority),
            ));
        }
        frame.render_widget(Paragraph::new(Line::from(spans)), area);
    }

    fn draw_filter_line(&self, frame: &mut Frame, area: Rect, theme: &Theme) {
        let line = match &self.input {
            Some(input) => {
                let width = area.width.saturating_sub(10) as usize;
                let scroll = input.visual_scroll(width);
                let shown: String = input.value().chars().skip(scroll).take(width).collect();
                let short_terms = !input.value().trim().is_empty()
                    && input
                        .value()
                        .split_whitespace()
                        .all(|term| term.chars().count() < 3);
                let mut spans = vec![
                    Span::styled("search: ", theme.key),
                    Span::raw(sanitize_line(&shown).into_owned()),
                    Span::styled("▏", theme.accent),
                ];
                if short_terms {
                    spans.push(Span::styled(
                        "  (terms under 3 characters are ignored)",
                        theme.dim,
                    ));
                }
                let cursor_x = area.x + 8 + (input.visual_cursor().saturating_sub(scroll)) as u16;
                frame.set_cursor_position((cursor_x.min(area.right().saturating_sub(1)), area.y));
                Line::from(spans)
            }
            None => Line::from(Span::styled(
                fit(&self.filter_summary(), area.width as usize),
                theme.accent,
            )),
        };
        frame.render_widget(Paragraph::new(line), area);
    }

    fn draw_table(&self, frame: &mut Frame, area: Rect, view: &ScreenView) {
        let theme = view.theme;
        let columns = visible_columns(area.width);
        // Header, plus the table's own top border line.
        let body_height = area.height.saturating_sub(2).max(1) as usize;
        let range = self.list.layout(body_height);
        let offset = range.start;
        let fixed: u16 = columns.iter().map(|&i| COLUMNS[i].width + 1).sum();
        let name_width = area.width.saturating_sub(fixed + 2).max(NAME_MIN) as usize;
        // Only the visible rows are built.
        let rows: Vec<Row> = self.list.rows[range]
            .iter()
            .map(|item| {
                Row::new(
                    columns
                        .iter()
                        .map(|&i| self.cell(i, item, name_width, view))
                        .collect::<Vec<_>>(),
                )
            })
            .collect();
        let widths: Vec<Constraint> = columns
            .iter()
            .map(|&i| match COLUMNS[i].width {
                0 => Constraint::Min(NAME_MIN),
                w => Constraint::Length(w),
            })
            .collect();
        let header = Row::new(
            columns
                .iter()
                .map(|&i| COLUMNS[i].title)
                .collect::<Vec<_>>(),
        )
        .style(theme.title);
        let table = Table::new(rows, widths)
            .header(header)
            .block(
                Block::default()
                    .borders(Borders::TOP)
                    .border_style(theme.border),
            )
            .row_highlight_style(theme.selected);
        let mut state = TableState::default().with_selected(Some(self.list.selected - offset));
        frame.render_stateful_widget(table, area, &mut state);
    }

    fn cell(
        &self,
        column: usize,
        item: &InventoryItem,
        name_width: usize,
        view: &ScreenView,
    ) -> TableCell<'static> {
        let theme = view.theme;
        let number = |value: i64| TableCell::from(Line::from(thousands(value)).right_aligned());
        match COLUMNS[column].title {
            "Priority" => TableCell::from(Span::styled(
                priority_label(&item.review_priority),
                theme.priority(&item.review_priority),
            )),
            "Name" => TableCell::from(match &item.name {
                Some(name) => Span::raw(fit(name, name_width)),
                None => Span::styled("(unnamed)", theme.dim),
            }),
            "Owner" => TableCell::from(fit(item.owner.display_name.as_deref().unwrap_or("—"), 14)),
            "Audience" => TableCell::from(audience_label(item)),
            "Visibility" => TableCell::from(fit(
                item.visibility.as_ref().map_or("—", |v| v.as_str()),
                14,
            )),
            "Activity" => TableCell::from(match &item.activity_group {
                ActivityGroup::Last14Days => "14 d".to_owned(),
                ActivityGroup::Last60Days => "60 d".to_owned(),
                ActivityGroup::Older => "older".to_owned(),
                ActivityGroup::Unknown(raw) => fit(raw, 8),
            }),
            "Edits 7d" => number(item.edits_7d),
            "Visit 7d" => number(item.visitors_7d),
            "PII" => {
                let open = item
                    .matched_reason
                    .as_ref()
                    .map_or(0, |r| r.values.open_pii_finding_count);
                TableCell::from(
                    Line::from(Span::styled(
                        thousands(open),
                        if open > 0 { theme.warn } else { theme.dim },
                    ))
                    .right_aligned(),
                )
            }
            "Last scan" => TableCell::from(match item.last_security_scan_at {
                Some(at) => ago((view.now - at).whole_seconds()),
                None => "never".to_owned(),
            }),
            _ => TableCell::from(""),
        }
    }

    fn draw_detail(&self, frame: &mut Frame, area: Rect, view: &ScreenView) {
        let theme = view.theme;
        let Some(item) = self.selected_item() else {
            return;
        };
        let width = area.width.saturating_sub(4) as usize;
        let mut left = vec![Line::from(vec![
            Span::styled(
                fit(item.name.as_deref().unwrap_or("(unnamed)"), width / 2),
                theme.title,
            ),
            Span::styled(format!("  {}", fit(&item.id, 40)), theme.dim),
        ])];
        let description = item
            .description
            .as_deref()
            .map(|d| sanitize_multiline(d).replace('\n', " "))
            .unwrap_or_else(|| "no description".to_owned());
        left.push(Line::from(Span::raw(fit(
            &description,
            width.saturating_sub(2) / 2 * 2,
        ))));
        if let Some(url) = &item.url {
            left.push(Line::from(Span::styled(fit(url, width), theme.accent)));
        }
        left.push(Line::from(vec![
            Span::styled(
                priority_label(&item.review_priority),
                theme.priority(&item.review_priority),
            ),
            Span::styled(
                format!(
                    "  edits 24h/7d/30d {}/{}/{}  visitors {}/{}/{}  edits {} messages {}",
                    item.edits_24h,
                    item.edits_7d,
                    item.edits_30d,
                    item.visitors_24h,
                    item.visitors_7d,
                    item.visitors_30d,
                    item.edit_count,
                    item.message_count
                ),
                theme.dim,
            ),
        ]));
        for reason in item.review_priority_explanation.iter().take(3) {
            left.push(Line::from(vec![
                Span::styled(
                    format!("  {} ", priority_label(&reason.review_priority)),
                    theme.priority(&reason.review_priority),
                ),
                Span::raw(fit(
                    &format!("{}: {}", reason.label, reason.detail),
                    width.saturating_sub(18),
                )),
            ]));
        }
        if let Some(reason) = &item.matched_reason {
            let v = &reason.values;
            left.push(Line::from(Span::styled(
                fit(
                    &format!(
                        "matched: {} · errors {} warnings {} info {} secrets {} open PII {} shared users {} connectors {} functions {}",
                        reason.label, v.error_count, v.warning_count, v.info_count, v.secret_count,
                        v.open_pii_finding_count, v.shared_user_count, v.connector_count, v.edge_function_count
                    ),
                    width,
                ),
                theme.dim,
            )));
        }
        let connectors = if item.connectors.is_empty() {
            "none".to_owned()
        } else {
            item.connectors.join(", ")
        };
        let functions = if item.edge_functions.is_empty() {
            "none".to_owned()
        } else {
            item.edge_functions
                .iter()
                .map(|f| f.name.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        };
        left.push(Line::from(Span::styled(
            fit(
                &format!("connectors: {connectors} · edge functions: {functions}"),
                width,
            ),
            theme.dim,
        )));
        frame.render_widget(
            Paragraph::new(left).block(
                Block::default()
                    .borders(Borders::TOP)
                    .border_style(theme.border)
                    .title(Span::styled(" Detail ", theme.title)),
            ),
            area,
        );
    }
}
