//! A paged list of the focused project's, as one screen: its rows loaded a
//! page at a time as the cursor nears the end, a detail pane under them that
//! `enter` gives the whole screen (it scrolls; `esc` gives the keys back), `y`
//! copying the selected row's key, `ctrl-s` exporting every row. What differs
//! from one list to the next is declared once, by a [`ListResource`]: its
//! list call, its rows, its key, its detail lines and its export's names
//! (`pii.rs` is one): the screen follows the project in focus, and `ctrl-s`
//! walks the same call's pages ([`crate::tui::export::ListRows`]).

use std::fmt::Debug;

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Cell as TableCell, Paragraph, Row, Table};
use time::OffsetDateTime;

use super::actions::{RowWords, ScreenAction, movement};
use super::paged::{
    DetailPane, ListOperation, PageReply, PageSource, PagedList, Pages, RowKey, draw_placeholder,
    titled_pane,
};
use super::{ProjectRef, Screen, ScreenView, draw_no_project};
use crate::api::ListCall;
use crate::api::model::Page;
use crate::formats::row::Row as ExportedRow;
use crate::tui::action::Action;
use crate::tui::effect::{Cx, ErrorInfo, Slot};
use crate::tui::export::{Every, ExportNames, ExportRows, ListRows};
use crate::tui::focus::GoneProject;
use crate::tui::nav::{Nav, Tab};
use crate::tui::theme::Theme;
use crate::tui::widgets::scroll::ScrollPane;

/// What one paged list of a project's declares; [`ListScreen`] does the rest.
pub trait ListResource: 'static {
    /// A row: its key (`y` copies it), and its columns in every export.
    type Item: RowKey + ExportedRow + Debug + Clone + Send + Sync + 'static;
    /// The request for one page: [`ListResource::call`] makes it.
    type Call: ListOperation<Output = Page<Self::Item>> + ListCall<Page = Page<Self::Item>>;

    /// The screen's one request (a page).
    const PAGE: Slot;
    /// The screen's title.
    const TITLE: &'static str;
    /// The head's words before the project: `Personal data in`.
    const HEAD: &'static str;
    /// What a row is: `finding`.
    const NOUN: &'static str;
    /// What the screen lists, for a screen without a project.
    const WITHOUT_PROJECT: &'static str;
    /// Height of the detail pane.
    const DETAIL_HEIGHT: u16;
    /// The detail pane's titles: while the list has the keys, and while it does.
    const DETAIL_TITLES: (&'static str, &'static str);
    /// What `ctrl-s` names its file and its rows: every row of the list,
    /// as the list's command writes them.
    const EXPORT: ExportNames;

    /// The request for the page at `cursor` of `project_id`'s list.
    fn call(project_id: String, cursor: Option<String>) -> Self::Call;

    /// The table's header and its columns' widths, in the cells' order.
    fn columns() -> Vec<(&'static str, Constraint)>;
    /// A row's cells, the table `width` cells wide.
    fn cells(item: &Self::Item, width: u16, theme: &Theme) -> Vec<TableCell<'static>>;
    /// The detail pane's lines of `item`.
    fn detail(item: &Self::Item, now: OffsetDateTime, theme: &Theme) -> Vec<Line<'static>>;

    /// The words of the movement keys in the help.
    fn movement() -> RowWords;
    /// The screen's own actions after the movement.
    fn actions() -> Vec<ScreenAction>;

    /// While nothing is loaded: loading, and what an empty list says.
    fn loading() -> &'static str;
    fn empty(theme: &Theme) -> Line<'static>;
    /// What an error that is a gate (a plan, a feature) says, as guidance;
    /// `None`: the error as it is.
    fn gate(error: &ErrorInfo, theme: &Theme) -> Option<Vec<Line<'static>>>;
}

/// The answers a list screen gets.
#[derive(Debug)]
pub enum ListMsg<T> {
    Page(Result<Page<T>, ErrorInfo>),
}

/// A paged list of the focused project's (see the module's words).
#[derive(Debug)]
pub struct ListScreen<R: ListResource> {
    project: Option<ProjectRef>,
    pub list: PagedList<R::Item>,
    detail: DetailPane,
    /// The project the rows belong to, once its first page was asked for.
    loaded_for: Option<String>,
    /// Enter gives the detail the whole screen and the movement keys, until
    /// esc or enter gives them back to the list.
    detail_focus: bool,
    detail_pane: ScrollPane,
}

impl<R: ListResource> Default for ListScreen<R> {
    fn default() -> Self {
        Self {
            project: None,
            list: PagedList::new(R::PAGE, 20),
            detail: DetailPane::new(R::DETAIL_HEIGHT),
            loaded_for: None,
            detail_focus: false,
            detail_pane: ScrollPane::default(),
        }
    }
}

impl<R: ListResource> ListScreen<R> {
    /// What `ctrl-s` writes of `project_id`'s list: every row.
    pub fn export_of(project_id: &str) -> ExportRows {
        let first = R::call(project_id.to_owned(), None);
        ExportRows::List(ListRows::new(first, Every, R::EXPORT, project_id))
    }

    /// How the list asks for a page of the project's list.
    fn pages(project_id: String) -> impl PageSource<Msg = ListMsg<R::Item>> {
        Pages::new(move |cursor| R::call(project_id, cursor), ListMsg::Page)
    }

    fn reload(&mut self, cx: &mut Cx) {
        let Some(project) = &self.project else {
            return;
        };
        let project_id = project.id.clone();
        self.loaded_for = Some(project_id.clone());
        self.list.reload(cx, Self::pages(project_id));
    }

    fn prefetch(&mut self, cx: &mut Cx) {
        if let Some(project) = &self.project {
            self.list.prefetch(cx, Self::pages(project.id.clone()));
        }
    }

    /// An answer to one of the screen's requests; true when anything changed.
    pub fn update(&mut self, token: u64, msg: ListMsg<R::Item>, cx: &mut Cx) -> bool {
        let ListMsg::Page(result) = msg;
        match self.list.take_reply(R::PAGE, token, result, cx) {
            PageReply::Stale => return false,
            PageReply::Ok { reply: page, .. } => {
                self.list.append(page.data, page.pagination, cx.now);
                self.prefetch(cx);
            }
            PageReply::Failed => {}
        }
        true
    }

    pub fn selected(&self) -> Option<&R::Item> {
        self.list.selected_row()
    }
}

impl<R: ListResource> Screen for ListScreen<R> {
    fn title(&self) -> &'static str {
        R::TITLE
    }

    fn observe_rate(&mut self, remaining: u32, limit: u32, _now: OffsetDateTime) {
        self.list.set_rate(remaining, limit);
    }

    fn about_focused_project(&self) -> bool {
        true
    }

    fn follow_focus(&mut self, project: Option<&ProjectRef>) {
        if self.project.as_ref() != project {
            self.project = project.cloned();
            self.list.clear();
            // The previous project's age is not this one's.
            self.list.loaded_at = None;
            self.loaded_for = None;
        }
    }

    fn activate(&mut self, cx: &mut Cx) {
        let current = self.project.as_ref().map(|p| p.id.as_str());
        if current.is_some() && self.loaded_for.as_deref() != current {
            self.reload(cx);
        }
    }

    fn handle_action(&mut self, action: Action, cx: &mut Cx) -> bool {
        if self.detail_focus {
            match action {
                Action::Back | Action::Open => {
                    self.detail_focus = false;
                    self.detail_pane.reset();
                }
                action if self.detail_pane.handle(action) => {}
                _ => return false,
            }
            return true;
        }
        let project_id = self.project.as_ref().map(|p| p.id.clone());
        if let Some(project_id) = project_id
            && self.list.navigate(action, cx, Self::pages(project_id))
        {
            return true;
        }
        match action {
            Action::Refresh => self.reload(cx),
            Action::Open if self.project.is_none() => cx.navigate(Nav::ShowTab(Tab::Inventory)),
            Action::Open if self.selected().is_some() => {
                self.detail_focus = true;
                self.detail_pane.reset();
            }
            _ => return self.list.row_action(action, &mut self.detail, cx),
        }
        true
    }

    fn last_loaded(&self) -> Option<OffsetDateTime> {
        self.list.loaded_at
    }

    fn export_rows(&self) -> Option<ExportRows> {
        Some(Self::export_of(&self.project.as_ref()?.id))
    }

    fn actions(&self) -> Vec<ScreenAction> {
        let mut actions = movement(R::movement());
        actions.extend(R::actions());
        actions
    }

    fn draw(&self, frame: &mut Frame, area: Rect, view: &ScreenView) {
        let theme = view.theme;
        let Some(project) = &self.project else {
            return draw_no_project(frame, area, view, R::WITHOUT_PROJECT);
        };
        let detail_height = self.detail.height_in(area);
        let [head_area, table_area, detail_area] = Layout::vertical([
            Constraint::Length(1),
            Constraint::Min(3),
            Constraint::Length(detail_height),
        ])
        .areas(area);
        let facts = format!(
            " · {} loaded{}",
            crate::tui::widgets::count(self.list.rows.len() as i64, R::NOUN),
            if self.list.has_more {
                " · more on the server"
            } else {
                ""
            }
        );
        let width = area.width.saturating_sub(40) as usize;
        let mut head = project.head(R::HEAD, width, facts, theme);
        head.extend(self.list.head_spans(None, theme));
        if self.list.is_loading() {
            head.push(Span::styled(" · loading…", theme.dim));
        }
        frame.render_widget(Paragraph::new(Line::from(head)), head_area);
        if self.list.rows.is_empty() {
            let gate = self.list.error.as_ref().and_then(|error| match view.gone {
                // The project is gone: so is its list, whatever else a 404 may mean.
                Some(_) if error.status == Some(404) => Some(vec![Line::from(Span::styled(
                    GoneProject::went_with_it(&R::TITLE.to_lowercase(), error),
                    theme.warn,
                ))]),
                _ => R::gate(error, theme),
            });
            let text = match gate {
                Some(text) => text,
                None => self.list.placeholder(theme, R::loading(), R::empty(theme)),
            };
            draw_placeholder(frame, table_area, text, theme);
            return;
        }
        if self.detail_focus {
            let whole = Rect {
                height: table_area.height + detail_area.height,
                ..table_area
            };
            self.draw_detail(frame, whole, view);
            return;
        }
        self.draw_table(frame, table_area, view);
        if detail_height > 0 {
            self.draw_detail(frame, detail_area, view);
        }
    }
}

impl<R: ListResource> ListScreen<R> {
    fn draw_table(&self, frame: &mut Frame, area: Rect, view: &ScreenView) {
        let theme = view.theme;
        let height = area.height.saturating_sub(2).max(1) as usize;
        let range = self.list.layout(height);
        let offset = range.start;
        // Only the visible rows are built.
        let rows: Vec<Row> = self.list.rows[range]
            .iter()
            .map(|item| Row::new(R::cells(item, area.width, theme)))
            .collect();
        let (titles, widths): (Vec<&str>, Vec<Constraint>) = R::columns().into_iter().unzip();
        let table = Table::new(rows, widths).header(Row::new(titles).style(theme.title));
        self.list.draw_table(frame, area, table, offset, theme);
    }

    fn draw_detail(&self, frame: &mut Frame, area: Rect, view: &ScreenView) {
        let theme = view.theme;
        let Some(item) = self.selected() else {
            return;
        };
        let (listing, focused) = R::DETAIL_TITLES;
        let title = if self.detail_focus { focused } else { listing };
        self.detail_pane.draw(
            frame,
            area,
            titled_pane(title, theme),
            R::detail(item, view.now, theme),
            theme,
            view.keymap,
        );
    }
}
