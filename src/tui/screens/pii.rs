//! Personal-data findings of the selected project, newest first, pages loaded as
//! the cursor nears the end, the whole quote in a detail pane. Without detection
//! or without Enterprise the screen says what is needed instead of an error.

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Cell as TableCell, Paragraph, Row, Table};
use time::OffsetDateTime;

use super::actions::{RowWords, ScreenAction, movement};
use super::paged::{PageReply, PagedList, draw_placeholder, titled_pane};
use super::{ProjectRef, Screen, ScreenView, draw_no_project};
use crate::api::PageParams;
use crate::api::model::Page;
use crate::api::model::{PiiFinding, PiiStatus};
use crate::text::{fit, sanitize_line, sanitize_multiline};
use crate::tui::action::Action;
use crate::tui::effect::{Cx, ErrorInfo, Slot};
use crate::tui::nav::{Nav, Tab};
use crate::tui::ops::ListPii;
use crate::tui::theme::Theme;
use crate::tui::widgets::ago;
use crate::tui::widgets::display::utc_datetime;
use crate::tui::widgets::scroll::ScrollPane;

/// The screen's one request: a page of findings.
pub const PAGE: Slot = Slot::new("pii", "page");

/// The answers the screen gets.
#[derive(Debug)]
pub enum Msg {
    Page(Result<Page<PiiFinding>, ErrorInfo>),
}

/// Findings per page: the contract's maximum.
pub const PAGE_SIZE: u32 = 100;
/// Height of the detail pane.
const DETAIL_HEIGHT: u16 = 9;

#[derive(Debug)]
pub struct PiiScreen {
    project: Option<ProjectRef>,
    pub list: PagedList<PiiFinding>,
    show_detail: bool,
    /// The project the rows belong to, once its first page was asked for.
    loaded_for: Option<String>,
    /// Enter gives the quote the whole screen and the movement keys, until
    /// esc or enter gives them back to the list.
    quote_focus: bool,
    quote_pane: ScrollPane,
}

impl Default for PiiScreen {
    fn default() -> Self {
        Self {
            project: None,
            list: PagedList::new(PAGE, 20),
            show_detail: true,
            loaded_for: None,
            quote_focus: false,
            quote_pane: ScrollPane::default(),
        }
    }
}

/// A status as symbol and word, so it reads without colour.
fn status_label(status: &PiiStatus, theme: &Theme) -> Span<'static> {
    match status {
        PiiStatus::Open => Span::styled("● open", theme.warn),
        PiiStatus::Ignored => Span::styled("○ ignored", theme.dim),
        PiiStatus::Fixed => Span::styled("✓ fixed", theme.ok),
        PiiStatus::Unknown(raw) => Span::raw(format!("? {}", fit(raw, 8))),
    }
}

impl PiiScreen {
    /// The project selected in the inventory changed (or not).
    pub fn set_project(&mut self, project: Option<ProjectRef>) {
        if self.project != project {
            self.project = project;
            self.list.clear();
            // The previous project's age is not this one's.
            self.list.loaded_at = None;
            self.loaded_for = None;
        }
    }

    /// The request for one page of the project's findings.
    fn page_request(project_id: String) -> impl FnOnce(Option<String>) -> ListPii {
        move |cursor| ListPii {
            project_id,
            params: PageParams {
                limit: Some(PAGE_SIZE),
            },
            cursor,
        }
    }

    fn reload(&mut self, cx: &mut Cx) {
        let Some(project) = &self.project else {
            return;
        };
        let project_id = project.id.clone();
        self.loaded_for = Some(project_id.clone());
        self.list
            .reload(cx, Self::page_request(project_id), Msg::Page);
    }

    fn prefetch(&mut self, cx: &mut Cx) {
        if let Some(project) = &self.project {
            self.list
                .prefetch(cx, Self::page_request(project.id.clone()), Msg::Page);
        }
    }

    /// An answer to one of the screen's requests; true when anything changed.
    pub fn update(&mut self, token: u64, msg: Msg, cx: &mut Cx) -> bool {
        let Msg::Page(result) = msg;
        match self.list.take_reply(PAGE, token, result, cx) {
            PageReply::Stale => return false,
            PageReply::Ok { reply: page, .. } => {
                self.list.append(page.data, page.pagination, cx.now);
                self.prefetch(cx);
            }
            PageReply::Failed => {}
        }
        true
    }

    pub fn selected_finding(&self) -> Option<&PiiFinding> {
        self.list.selected_row()
    }
}

impl Screen for PiiScreen {
    fn title(&self) -> &'static str {
        "Personal data"
    }

    fn observe_rate(&mut self, remaining: u32, limit: u32, _now: OffsetDateTime) {
        self.list.set_rate(remaining, limit);
    }

    fn about_focused_project(&self) -> bool {
        true
    }

    fn activate(&mut self, cx: &mut Cx) {
        let current = self.project.as_ref().map(|p| p.id.as_str());
        if current.is_some() && self.loaded_for.as_deref() != current {
            self.reload(cx);
        }
    }

    fn handle_action(&mut self, action: Action, cx: &mut Cx) -> bool {
        if self.quote_focus {
            match action {
                Action::Back | Action::Open => {
                    self.quote_focus = false;
                    self.quote_pane.reset();
                }
                action if self.quote_pane.handle(action) => {}
                _ => return false,
            }
            return true;
        }
        let project_id = self.project.as_ref().map(|p| p.id.clone());
        if let Some(project_id) = project_id
            && self
                .list
                .navigate(action, cx, Self::page_request(project_id), Msg::Page)
        {
            return true;
        }
        match action {
            Action::Refresh => self.reload(cx),
            Action::Open if self.project.is_none() => cx.navigate(Nav::ShowTab(Tab::Inventory)),
            Action::Open if self.selected_finding().is_some() => {
                self.quote_focus = true;
                self.quote_pane.reset();
            }
            Action::ToggleDetail | Action::Open => self.show_detail = !self.show_detail,
            Action::Copy => cx.copy(self.list.selected_key()),
            _ => return false,
        }
        true
    }

    fn last_loaded(&self) -> Option<OffsetDateTime> {
        self.list.loaded_at
    }

    fn export_rows(&self) -> Option<crate::tui::export::ExportRows> {
        let project_id = self.project.as_ref()?.id.clone();
        Some(crate::tui::export::ExportRows::Pii { project_id })
    }

    fn actions(&self) -> Vec<ScreenAction> {
        let mut actions = movement(RowWords {
            next: "next finding (pages load as you near the end)",
            previous: "previous finding",
            first: "newest finding",
            last: "oldest finding: loads the remaining pages within the request budget",
        });
        actions.extend([
            ScreenAction::new(Action::ToggleDetail, "quote", "show or hide the quote pane"),
            ScreenAction::help_only(
                Action::Open,
                "read the whole quote (it scrolls; back closes it)",
            ),
            ScreenAction::new(Action::Copy, "copy id", "copy the finding id (OSC 52)"),
            ScreenAction::help_only(
                Action::Export,
                "export every finding to CSV, as `vantage pii ID` writes it",
            ),
            ScreenAction::help_only(Action::Refresh, "reload from the newest"),
            ScreenAction::help_only(
                Action::ShowTab(Tab::Inventory),
                "pick the project in the inventory",
            ),
        ]);
        actions
    }

    fn draw(&self, frame: &mut Frame, area: Rect, view: &ScreenView) {
        let theme = view.theme;
        let Some(project) = &self.project else {
            let what = "This tab lists the personal-data findings";
            return draw_no_project(frame, area, view, what);
        };
        let detail_height = if self.show_detail && area.height >= 18 {
            DETAIL_HEIGHT
        } else {
            0
        };
        let [head_area, table_area, detail_area] = Layout::vertical([
            Constraint::Length(1),
            Constraint::Min(3),
            Constraint::Length(detail_height),
        ])
        .areas(area);
        let facts = format!(
            " · {} loaded{}",
            crate::tui::widgets::count(self.list.rows.len() as i64, "finding"),
            if self.list.has_more {
                " · more on the server"
            } else {
                ""
            }
        );
        let width = area.width.saturating_sub(40) as usize;
        let mut head = project.head("Personal data in", width, facts, theme);
        head.extend(self.list.head_spans(None, theme));
        if self.list.is_loading() {
            head.push(Span::styled(" · loading…", theme.dim));
        }
        frame.render_widget(Paragraph::new(Line::from(head)), head_area);
        if self.list.rows.is_empty() {
            let text = match &self.list.error {
                Some(error) if error.gate.is_some() => gate_text(error, theme),
                _ => self.list.placeholder(
                    theme,
                    "Loading findings…",
                    Line::from(Span::styled(
                        "No personal data was found in this project.",
                        theme.ok,
                    )),
                ),
            };
            draw_placeholder(frame, table_area, text, theme);
            return;
        }
        if self.quote_focus {
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

/// What a gate needs, as guidance rather than as an error.
fn gate_text(error: &ErrorInfo, theme: &Theme) -> Vec<Line<'static>> {
    let needed = match error.status {
        Some(402) => {
            "Personal-data findings need the Enterprise plan with personal-data detection."
        }
        _ => crate::tui::executor::PII_NOT_FOUND,
    };
    let mut lines = vec![
        Line::from(Span::styled(needed, theme.title)),
        Line::from(""),
    ];
    // The 404's own words are the line above; another gate says what it needs.
    if let Some(gate) = error.gate.as_ref().filter(|_| error.status != Some(404)) {
        lines.push(Line::from(Span::raw(gate.explain())));
    }
    lines.push(Line::from(Span::raw(
        "If detection is off, a workspace owner can turn it on in the workspace's security settings.",
    )));
    let mut facts = Vec::new();
    if let Some(kind) = &error.kind {
        facts.push(format!("type {}", sanitize_line(kind.as_str())));
    }
    if let Some(id) = &error.request_id {
        facts.push(format!("request {}", sanitize_line(id)));
    }
    if !facts.is_empty() {
        lines.push(Line::from(""));
        lines.push(Line::from(Span::styled(facts.join(" · "), theme.dim)));
    }
    lines
}

impl PiiScreen {
    fn draw_table(&self, frame: &mut Frame, area: Rect, view: &ScreenView) {
        let theme = view.theme;
        let height = area.height.saturating_sub(2).max(1) as usize;
        let range = self.list.layout(height);
        let offset = range.start;
        let quote_width = area.width.saturating_sub(17 + 10 + 9 + 4).max(10) as usize;
        // Only the visible rows are built.
        let rows: Vec<Row> = self.list.rows[range]
            .iter()
            .map(|finding| {
                Row::new(vec![
                    TableCell::from(utc_datetime(finding.found_at)),
                    TableCell::from(status_label(&finding.status, theme)),
                    TableCell::from(fit(finding.source.as_str(), 9)),
                    TableCell::from(fit(&finding.quote, quote_width)),
                ])
            })
            .collect();
        let table = Table::new(
            rows,
            [
                Constraint::Length(17),
                Constraint::Length(10),
                Constraint::Length(9),
                Constraint::Min(10),
            ],
        )
        .header(Row::new(["Found (UTC) ↓", "Status", "Source", "Quote"]).style(theme.title));
        self.list.draw_table(frame, area, table, offset, theme);
    }

    fn draw_detail(&self, frame: &mut Frame, area: Rect, view: &ScreenView) {
        let theme = view.theme;
        let Some(finding) = self.selected_finding() else {
            return;
        };
        let mut lines = vec![Line::from(vec![
            status_label(&finding.status, theme),
            Span::styled(
                format!(
                    " · found {} UTC ({}) · source {} · {}",
                    utc_datetime(finding.found_at),
                    ago((view.now - finding.found_at).whole_seconds()),
                    fit(finding.source.as_str(), 12),
                    fit(&finding.id, 40)
                ),
                theme.dim,
            ),
        ])];
        lines.extend(
            sanitize_multiline(&finding.quote)
                .lines()
                .map(|line| Line::from(line.to_owned())),
        );
        let title = if self.quote_focus {
            " Quote — esc back "
        } else {
            " Quote — enter reads it whole "
        };
        self.quote_pane.draw(
            frame,
            area,
            titled_pane(title, theme),
            lines,
            theme,
            view.keymap,
        );
    }
}
