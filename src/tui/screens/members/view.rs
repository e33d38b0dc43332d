//! How the member directory draws: head, search and filter lines, the table
//! (details as they arrive) and the detail pane.

use ratatui::Frame;
use ratatui::layout::{Constraint, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Cell as TableCell, Paragraph, Row, Table, Wrap};
use time::OffsetDateTime;

use super::roles::RoleCell;
use super::{DETAIL_LANES, Detail, MembersScreen};
use crate::api::model::MemberRef;
use crate::formats::members::{MemberRow, column};
use crate::formats::row::Row as _;
use crate::text::fit;
use crate::tui::screens::paged::titled_pane;
use crate::tui::screens::{ScreenView, error_text};
use crate::tui::theme::Theme;
use crate::tui::widgets::ago;
use crate::tui::widgets::display::utc_datetime;
use crate::tui::widgets::search::only_short_terms;

/// A column's title as the dashboard writes it: `E-MAIL` as `E-mail`.
fn screen_title(title: &str) -> String {
    let mut chars = title.chars();
    chars.next().map_or_else(String::new, |first| {
        first.to_string() + &chars.as_str().to_lowercase()
    })
}

/// Width of the role column.
const ROLE_WIDTH: u16 = 12;

impl MembersScreen {
    pub(super) fn draw_head(&self, frame: &mut Frame, area: Rect, theme: &Theme) {
        let mut spans = vec![
            Span::styled(
                crate::tui::widgets::count(self.list.rows.len() as i64, "member"),
                theme.title,
            ),
            Span::styled(
                if self.list.has_more {
                    " loaded · more on the server"
                } else {
                    " loaded"
                },
                theme.dim,
            ),
        ];
        spans.extend(self.list.head_spans(None, theme));
        if self.list.is_loading() {
            spans.push(Span::styled(" · loading…", theme.dim));
        }
        let loading = self.details_in_flight();
        if self.details_paused() {
            let rate = self
                .list
                .rate()
                .map(|(remaining, limit)| format!(" (rate {remaining}/{limit})"))
                .unwrap_or_default();
            spans.push(Span::styled(
                format!(
                    " · details paused, request budget low{rate}: only the selected member's loads"
                ),
                theme.warn,
            ));
        } else if loading > 0 {
            spans.push(Span::styled(
                format!(" · {loading} details loading"),
                theme.dim,
            ));
        }
        frame.render_widget(Paragraph::new(Line::from(spans)), area);
    }

    /// Under the search box: what the server does with short terms.
    pub(super) fn draw_note(&self, frame: &mut Frame, area: Rect, theme: &Theme) {
        let short = only_short_terms(&self.search);
        let text = if short {
            Span::styled(
                "terms under 3 characters are ignored by the server: this search matches everyone",
                theme.warn,
            )
        } else if self.search_box.is_open() {
            Span::styled(
                "terms under 3 characters are ignored by the server · enter or esc to close",
                theme.dim,
            )
        } else {
            Span::raw("")
        };
        frame.render_widget(Paragraph::new(Line::from(text)), area);
    }

    pub(super) fn draw_table(&self, frame: &mut Frame, area: Rect, view: &ScreenView) {
        let theme = view.theme;
        // Header, plus the table's own top border line.
        let height = area.height.saturating_sub(2).max(1) as usize;
        let range = self.list.layout(height);
        if !self.details_paused()
            && !self.list.is_seeking_end()
            && self.missing_details().next().is_some()
            && self.details_in_flight() < DETAIL_LANES
        {
            self.wants_details.set(true);
        }
        let wide = area.width >= 100;
        let email_width: u16 = if wide { 34 } else { 26 };
        let joined_width: u16 = if wide { 12 } else { 0 };
        let name_width = area
            .width
            .saturating_sub(email_width + joined_width + ROLE_WIDTH + 8 + 5)
            .max(12) as usize;
        let rows: Vec<Row> = self.list.rows[range.clone()]
            .iter()
            .map(|member| self.row(member, name_width, email_width as usize, wide, view))
            .collect();
        // The columns of `MemberRow` (the command's and the export's), in
        // its order; the user id is in the detail pane.
        let mut shown = vec![
            (column::NAME, Constraint::Min(12)),
            (column::EMAIL, Constraint::Length(email_width)),
            (column::ROLE, Constraint::Length(ROLE_WIDTH)),
            (column::TYPE, Constraint::Length(6)),
        ];
        if wide {
            shown.push((column::JOINED, Constraint::Length(joined_width)));
        }
        let titles: Vec<String> = shown
            .iter()
            .map(|(at, _)| screen_title(MemberRow::FIELDS[*at].column.title))
            .collect();
        let widths: Vec<Constraint> = shown.iter().map(|(_, width)| *width).collect();
        let table = Table::new(rows, widths).header(Row::new(titles).style(theme.title));
        self.list.draw_table(frame, area, table, range.start, theme);
    }

    pub(super) fn row(
        &self,
        member: &MemberRef,
        name_width: usize,
        email_width: usize,
        wide: bool,
        view: &ScreenView,
    ) -> Row<'static> {
        let theme = view.theme;
        let kind = TableCell::from(fit(member.kind.as_str(), 6));
        let (name, email, joined) = match self.details.get(&member.user_id) {
            // Paused for the budget: the id, not a row of dots.
            None if self.details_paused() && !self.in_flight(&member.user_id) => (
                Span::styled(fit(&member.user_id, name_width), theme.dim),
                Span::styled("—", theme.dim),
                Span::styled("—", theme.dim),
            ),
            None => (
                Span::styled("…", theme.dim),
                Span::styled("…", theme.dim),
                Span::styled("…", theme.dim),
            ),
            Some(Detail::Loaded(detail)) => {
                // The cells `vantage members` and the export write.
                let shown = MemberRow::new(member.clone(), None, Some((**detail).clone()));
                let cell = |at: usize| (MemberRow::FIELDS[at].cell)(&shown);
                (
                    match &detail.name {
                        Some(_) => Span::raw(fit(&cell(column::NAME), name_width)),
                        None => Span::styled("(no name)", theme.dim),
                    },
                    match &detail.email {
                        Some(_) => Span::raw(fit(&cell(column::EMAIL), email_width)),
                        None => Span::styled("—", theme.dim),
                    },
                    match detail.joined_at {
                        Some(_) => Span::raw(cell(column::JOINED)),
                        None => Span::styled("—", theme.dim),
                    },
                )
            }
            Some(Detail::NotActive) => (
                Span::styled("not active", theme.warn),
                Span::styled("—", theme.dim),
                Span::styled("—", theme.dim),
            ),
            Some(Detail::Failed(_)) => (
                Span::styled("✗ could not load", theme.error),
                Span::styled("—", theme.dim),
                Span::styled("—", theme.dim),
            ),
        };
        let role = match self.role_cell(&member.user_id) {
            RoleCell::Known(role) => Span::raw(fit(role.as_str(), ROLE_WIDTH as usize)),
            RoleCell::Pending => Span::styled("…", theme.dim),
            RoleCell::Unknown => Span::styled("unknown", theme.dim),
        };
        let mut cells = vec![
            TableCell::from(name),
            TableCell::from(email),
            TableCell::from(role),
            kind,
        ];
        if wide {
            cells.push(TableCell::from(joined));
        }
        Row::new(cells)
    }

    pub(super) fn draw_detail(&self, frame: &mut Frame, area: Rect, view: &ScreenView) {
        let theme = view.theme;
        let Some(member) = self.selected_ref() else {
            return;
        };
        let width = area.width.saturating_sub(12) as usize;
        let field = |label: &str, value: Span<'static>| {
            Line::from(vec![Span::styled(format!("{label:<9}"), theme.dim), value])
        };
        let when = |at: Option<OffsetDateTime>| match at {
            Some(at) => Span::raw(format!(
                "{} UTC ({})",
                utc_datetime(at),
                ago((view.now - at).whole_seconds())
            )),
            None => Span::styled("not recorded", theme.dim),
        };
        let mut lines = Vec::new();
        match self.details.get(&member.user_id) {
            Some(Detail::Loaded(detail)) => {
                lines.push(field(
                    "Name",
                    match &detail.name {
                        Some(name) => Span::styled(fit(name, width), theme.title),
                        None => Span::styled("(no name)", theme.dim),
                    },
                ));
                lines.push(field(
                    "E-mail",
                    Span::raw(fit(detail.email.as_deref().unwrap_or("—"), width)),
                ));
                lines.push(field("Type", Span::raw(fit(detail.kind.as_str(), width))));
                lines.push(field("Joined", when(detail.joined_at)));
                lines.push(field("Invited", when(detail.invited_at)));
            }
            Some(Detail::NotActive) => lines.push(Line::from(Span::styled(
                "This membership is not active (a pending invitation, or removed since the list was read).",
                theme.warn,
            ))),
            Some(Detail::Failed(error)) => lines.extend(error_text(error, theme)),
            None if self.details_paused() && !self.in_flight(&member.user_id) => lines.push(Line::from(Span::styled(
                "Details wait for the request budget to refill; the rest of it is kept for what you do next.",
                theme.warn,
            ))),
            None => lines.push(Line::from(Span::styled("Loading details…", theme.dim))),
        }
        lines.push(field(
            "User id",
            Span::styled(fit(&member.user_id, width), theme.dim),
        ));
        frame.render_widget(
            Paragraph::new(lines)
                .wrap(Wrap { trim: true })
                .block(titled_pane(" Member ", theme)),
            area,
        );
    }
}
