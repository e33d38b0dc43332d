//! Personal-data findings of the selected project, newest first, pages loaded as
//! the cursor nears the end, the whole quote in a detail pane. Without detection
//! or without Enterprise the screen says what is needed instead of an error.

use std::cell::Cell;

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{
    Block, Borders, Cell as TableCell, Paragraph, Row, Table, TableState, Wrap,
};
use time::OffsetDateTime;

use super::{ProjectRef, Screen, ScreenView, error_text, no_project_text};
use crate::api::model::{PiiFinding, PiiStatus};
use crate::text::{fit, sanitize_line, sanitize_multiline};
use crate::tui::action::Action;
use crate::tui::effect::{Cx, Effect, ErrorInfo, Reply, Request, Slot};
use crate::tui::nav::{Nav, Tab};
use crate::tui::theme::Theme;
use crate::tui::widgets::display::{scroll_offset, utc_datetime};
use crate::tui::widgets::list;
use crate::tui::widgets::{ago, thousands};

/// Findings per page: the contract's maximum.
pub const PAGE_SIZE: u32 = 100;
/// Height of the detail pane.
const DETAIL_HEIGHT: u16 = 9;

#[derive(Debug)]
pub struct PiiScreen {
    project: Option<ProjectRef>,
    pub rows: Vec<PiiFinding>,
    next_cursor: Option<String>,
    has_more: bool,
    page_pending: Option<u64>,
    pub selected: usize,
    offset: Cell<usize>,
    viewport: Cell<usize>,
    pub error: Option<ErrorInfo>,
    show_detail: bool,
    /// The project the rows belong to, once its first page was asked for.
    loaded_for: Option<String>,
    loaded_at: Option<OffsetDateTime>,
}

impl Default for PiiScreen {
    fn default() -> Self {
        Self {
            project: None,
            rows: Vec::new(),
            next_cursor: None,
            has_more: false,
            page_pending: None,
            selected: 0,
            offset: Cell::new(0),
            viewport: Cell::new(20),
            error: None,
            show_detail: true,
            loaded_for: None,
            loaded_at: None,
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
            self.clear();
            self.loaded_for = None;
        }
    }

    fn clear(&mut self) {
        self.rows.clear();
        self.next_cursor = None;
        self.has_more = false;
        // A reply for what was shown before is dropped by its token.
        self.page_pending = None;
        self.selected = 0;
        self.offset.set(0);
        self.error = None;
    }

    fn reload(&mut self, cx: &mut Cx) {
        let Some(project) = &self.project else {
            return;
        };
        let project_id = project.id.clone();
        self.clear();
        self.loaded_for = Some(project_id.clone());
        self.page_pending = Some(cx.fetch(
            Slot::PiiPage,
            Request::PiiPage {
                project_id,
                cursor: None,
                limit: PAGE_SIZE,
            },
        ));
    }

    fn prefetch(&mut self, cx: &mut Cx) {
        if list::wants_next_page(
            self.selected,
            self.rows.len(),
            self.viewport.get(),
            self.has_more,
            self.page_pending.is_some(),
        ) && let (Some(cursor), Some(project)) = (self.next_cursor.clone(), &self.project)
        {
            self.page_pending = Some(cx.fetch(
                Slot::PiiPage,
                Request::PiiPage {
                    project_id: project.id.clone(),
                    cursor: Some(cursor),
                    limit: PAGE_SIZE,
                },
            ));
        }
    }

    fn move_to(&mut self, index: usize, cx: &mut Cx) {
        self.selected = index.min(self.rows.len().saturating_sub(1));
        self.prefetch(cx);
    }

    pub fn selected_finding(&self) -> Option<&PiiFinding> {
        self.rows.get(self.selected)
    }

    pub fn is_loading(&self) -> bool {
        self.page_pending.is_some()
    }
}

impl Screen for PiiScreen {
    fn title(&self) -> &'static str {
        "Personal data"
    }

    fn activate(&mut self, cx: &mut Cx) {
        let current = self.project.as_ref().map(|p| p.id.as_str());
        if current.is_some() && self.loaded_for.as_deref() != current {
            self.reload(cx);
        }
    }

    fn handle_action(&mut self, action: Action, cx: &mut Cx) -> bool {
        if let Some(index) = list::navigate(action, self.selected, self.viewport.get()) {
            self.move_to(index, cx);
            return true;
        }
        match action {
            Action::Refresh => self.reload(cx),
            Action::Open if self.project.is_none() => cx.navigate(Nav::ShowTab(Tab::Inventory)),
            Action::ToggleDetail | Action::Open => self.show_detail = !self.show_detail,
            Action::Copy => {
                if let Some(finding) = self.selected_finding() {
                    cx.emit(Effect::Copy(finding.id.clone()));
                }
            }
            _ => return false,
        }
        true
    }

    fn handle_reply(
        &mut self,
        slot: Slot,
        token: u64,
        reply: Result<Reply, ErrorInfo>,
        cx: &mut Cx,
    ) -> bool {
        if slot != Slot::PiiPage || self.page_pending != Some(token) {
            return false;
        }
        self.page_pending = None;
        match reply {
            Ok(Reply::PiiPage(page)) => {
                let page = *page;
                self.rows.extend(page.data);
                self.has_more = page.pagination.has_more;
                self.next_cursor = page.pagination.next_cursor;
                self.error = None;
                self.loaded_at = Some(cx.now);
                // An empty page with has_more is legal: keep walking.
                self.prefetch(cx);
            }
            Ok(_) => {}
            Err(error) => self.error = Some(error),
        }
        true
    }

    fn last_loaded(&self) -> Option<OffsetDateTime> {
        self.loaded_at
    }

    fn hints(&self) -> Vec<(Action, &'static str)> {
        vec![(Action::ToggleDetail, "quote"), (Action::Copy, "copy id")]
    }

    fn help(&self) -> Vec<(Action, &'static str)> {
        vec![
            (
                Action::Down,
                "next finding (pages load as you near the end)",
            ),
            (Action::Up, "previous finding"),
            (Action::PageDown, "page down"),
            (Action::PageUp, "page up"),
            (Action::Top, "newest finding"),
            (Action::Bottom, "oldest loaded finding"),
            (Action::ToggleDetail, "show or hide the whole quote"),
            (Action::Copy, "copy the finding id (OSC 52)"),
            (Action::Refresh, "reload from the newest"),
            (Action::Tab2, "pick the project in the inventory"),
        ]
    }

    fn draw(&self, frame: &mut Frame, area: Rect, view: &ScreenView) {
        let theme = view.theme;
        let Some(project) = &self.project else {
            frame.render_widget(
                Paragraph::new(no_project_text(
                    theme,
                    "This tab lists the personal-data findings",
                    view.keymap,
                ))
                .wrap(Wrap { trim: true }),
                area,
            );
            return;
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
        let mut head = vec![
            Span::styled(
                format!(
                    "Personal data in {}",
                    project.label(area.width.saturating_sub(40) as usize)
                ),
                theme.title,
            ),
            Span::styled(
                format!(
                    " · {} findings loaded{}",
                    thousands(self.rows.len() as i64),
                    if self.has_more {
                        " · more on the server"
                    } else {
                        ""
                    }
                ),
                theme.dim,
            ),
        ];
        if self.page_pending.is_some() {
            head.push(Span::styled(" · loading…", theme.dim));
        }
        frame.render_widget(Paragraph::new(Line::from(head)), head_area);
        if self.rows.is_empty() {
            let text = match (&self.error, self.page_pending) {
                (Some(error), _) if error.gate.is_some() => gate_text(error, theme),
                (Some(error), _) => error_text(error, theme),
                (None, Some(_)) => vec![Line::from(Span::styled("Loading findings…", theme.dim))],
                (None, None) => vec![Line::from(Span::styled(
                    "No personal data was found in this project.",
                    theme.ok,
                ))],
            };
            frame.render_widget(
                Paragraph::new(text).wrap(Wrap { trim: true }).block(
                    Block::default()
                        .borders(Borders::TOP)
                        .border_style(theme.border),
                ),
                table_area,
            );
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
        _ => {
            "Personal-data detection is not enabled for this workspace, so there are no findings to list."
        }
    };
    let mut lines = vec![
        Line::from(Span::styled(needed, theme.title)),
        Line::from(""),
    ];
    if let Some(gate) = &error.gate {
        lines.push(Line::from(Span::raw(gate.explain())));
    }
    lines.push(Line::from(Span::raw(
        "A workspace owner can turn detection on in the workspace's security settings.",
    )));
    let mut facts = Vec::new();
    if let Some(kind) = &error.kind {
        facts.push(format!("type {}", sanitize_line(kind)));
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
        self.viewport.set(height);
        let offset = scroll_offset(self.offset.get(), self.selected, height, self.rows.len());
        self.offset.set(offset);
        let end = (offset + height).min(self.rows.len());
        let quote_width = area.width.saturating_sub(17 + 10 + 9 + 4).max(10) as usize;
        // Only the visible rows are built.
        let rows: Vec<Row> = self.rows[offset..end]
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
        .header(Row::new(["Found (UTC) ↓", "Status", "Source", "Quote"]).style(theme.title))
        .block(
            Block::default()
                .borders(Borders::TOP)
                .border_style(theme.border),
        )
        .row_highlight_style(theme.selected);
        let mut state = TableState::default().with_selected(Some(self.selected - offset));
        frame.render_stateful_widget(table, area, &mut state);
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
        frame.render_widget(
            Paragraph::new(lines).wrap(Wrap { trim: false }).block(
                Block::default()
                    .borders(Borders::TOP)
                    .border_style(theme.border)
                    .title(Span::styled(" Quote ", theme.title)),
            ),
            area,
        );
    }
}
