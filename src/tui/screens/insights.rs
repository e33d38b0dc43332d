//! Security insights: summary tiles, the risk distribution and the finding types.

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::Modifier;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Cell, Paragraph, Row, Table, TableState, Wrap};

use super::actions::ScreenAction;
use super::{Screen, ScreenView};
use crate::api::model::{Insights, Metric, ReviewPriority};
use crate::text::fit;
use crate::tui::action::Action;
use crate::tui::effect::{Cx, ErrorInfo, Slot, answers};
use crate::tui::nav::Nav;
use crate::tui::ops::GetInsights;
use crate::tui::theme::{Theme, priority_label};
use crate::tui::widgets::scroll::wrap_lines;
use crate::tui::widgets::{ago, signed, thousands};

/// The review-priority filter cycles through these.
const FILTERS: &[Option<ReviewPriority>] = &[
    None,
    Some(ReviewPriority::NeedsReview),
    Some(ReviewPriority::ReviewRecommended),
    Some(ReviewPriority::NoReviewNeeded),
];

/// The screen's one request: the insights.
pub const INSIGHTS: Slot = Slot::new("insights", "insights");

/// The answers the screen gets.
#[derive(Debug)]
pub enum Msg {
    Loaded(Result<Insights, ErrorInfo>),
}

#[derive(Debug, Default)]
pub struct InsightsScreen {
    pub data: Option<Insights>,
    pub error: Option<ErrorInfo>,
    pending: Option<u64>,
    filter_index: usize,
    pub selected: usize,
    loaded_at: Option<time::OffsetDateTime>,
}

impl InsightsScreen {
    fn filter(&self) -> Option<ReviewPriority> {
        FILTERS[self.filter_index].clone()
    }

    fn load(&mut self, cx: &mut Cx) {
        let review_priority = self.filter().into_iter().collect();
        self.pending = Some(cx.request(INSIGHTS, GetInsights { review_priority }, Msg::Loaded));
    }

    /// An answer to the screen's request; true when anything changed.
    pub fn update(&mut self, token: u64, msg: Msg, cx: &mut Cx) -> bool {
        if !answers(&mut self.pending, token) {
            return false;
        }
        let Msg::Loaded(result) = msg;
        match result {
            Ok(insights) => {
                let rows = insights.findings.len();
                self.data = Some(insights);
                self.selected = self.selected.min(rows.saturating_sub(1));
                self.error = None;
                self.loaded_at = Some(cx.now);
            }
            Err(error) => self.error = Some(error),
        }
        true
    }
}

impl Screen for InsightsScreen {
    fn title(&self) -> &'static str {
        "Insights"
    }

    fn activate(&mut self, cx: &mut Cx) {
        if self.data.is_none() && self.pending.is_none() {
            self.load(cx);
        }
    }

    fn handle_action(&mut self, action: Action, cx: &mut Cx) -> bool {
        let rows = self.data.as_ref().map_or(0, |d| d.findings.len());
        match action {
            Action::Up => self.selected = self.selected.saturating_sub(1),
            Action::Down => {
                if self.selected + 1 < rows {
                    self.selected += 1;
                }
            }
            Action::Top => self.selected = 0,
            Action::Bottom => self.selected = rows.saturating_sub(1),
            Action::Refresh => self.load(cx),
            Action::PriorityFilter => {
                self.filter_index = (self.filter_index + 1) % FILTERS.len();
                self.selected = 0;
                self.load(cx);
            }
            Action::Open => {
                if let Some(finding) = self
                    .data
                    .as_ref()
                    .and_then(|d| d.findings.get(self.selected))
                {
                    cx.navigate(Nav::OpenInventoryForFinding(finding.id.clone()));
                }
            }
            Action::Copy => cx.copy(
                self.data
                    .as_ref()
                    .and_then(|d| d.findings.get(self.selected))
                    .map(|finding| finding.id.as_str()),
            ),
            _ => return false,
        }
        true
    }

    fn actions(&self) -> Vec<ScreenAction> {
        vec![
            ScreenAction::help_only(Action::Up, "previous finding type"),
            ScreenAction::help_only(Action::Down, "next finding type"),
            ScreenAction::new(
                Action::Open,
                "inventory for finding",
                "open the inventory filtered by the finding type",
            ),
            ScreenAction::new(
                Action::PriorityFilter,
                "priority filter",
                "cycle the review-priority filter (findings only; the summary stays workspace-wide)",
            ),
            ScreenAction::help_only(Action::Copy, "copy the finding type id"),
            ScreenAction::help_only(Action::Refresh, "reload"),
        ]
    }

    fn last_loaded(&self) -> Option<time::OffsetDateTime> {
        self.loaded_at
    }

    fn draw(&self, frame: &mut Frame, area: Rect, view: &ScreenView) {
        let theme = view.theme;
        let Some(data) = &self.data else {
            let text = match &self.error {
                Some(error) => super::error_text(error, theme),
                None => vec![Line::from(Span::styled("Loading insights…", theme.dim))],
            };
            frame.render_widget(Paragraph::new(text).wrap(Wrap { trim: true }), area);
            return;
        };
        // The selected finding type's description, as the service sends it,
        // where the table keeps room for a few rows.
        let about_rows = if area.height >= 20 { ABOUT_ROWS } else { 0 };
        let [tiles_area, risk_area, table_area, about_area, foot_area] = Layout::vertical([
            Constraint::Length(4),
            Constraint::Length(3),
            Constraint::Min(3),
            Constraint::Length(about_rows),
            Constraint::Length(1),
        ])
        .areas(area);
        draw_tiles(frame, tiles_area, data, theme);
        draw_risk(frame, risk_area, data, theme);
        self.draw_findings(frame, table_area, data, theme);
        self.draw_about(frame, about_area, data, theme);
        let as_of = match data.as_of {
            Some(at) => format!("review data as of {}", ago((view.now - at).whole_seconds())),
            None => "review data: no freshness reported".into(),
        };
        let filter = match self.filter() {
            Some(priority) => format!("filter: {}", priority_label(&priority)),
            None => "filter: all priorities".into(),
        };
        frame.render_widget(
            Paragraph::new(Line::from(vec![
                Span::styled(as_of, theme.dim),
                Span::styled("  ·  ", theme.dim),
                Span::styled(filter, theme.accent),
            ])),
            foot_area,
        );
    }
}

/// Rows of the selected finding type's description under the table.
const ABOUT_ROWS: u16 = 3;

impl InsightsScreen {
    /// The selected finding type's description, wrapped, cut with `…`.
    fn draw_about(&self, frame: &mut Frame, area: Rect, data: &Insights, theme: &Theme) {
        let Some(finding) = data.findings.get(self.selected) else {
            return;
        };
        if area.height == 0 {
            return;
        }
        let text = crate::text::sanitize_multiline(&finding.description).replace('\n', " ");
        let mut lines = wrap_lines(
            vec![Line::from(vec![
                Span::styled(format!("{}: ", fit(&finding.title, 40)), theme.title),
                Span::styled(text, theme.base),
            ])],
            area.width as usize,
        );
        if lines.len() > area.height as usize {
            lines.truncate(area.height as usize);
            if let Some(last) = lines.last_mut() {
                // The rest goes unsaid: the line ends in `…`, never mid-word silently.
                let text = last.to_string();
                let kept: String = text
                    .chars()
                    .take((area.width as usize).saturating_sub(1))
                    .collect();
                *last = Line::from(Span::styled(format!("{}…", kept.trim_end()), theme.base));
            }
        }
        frame.render_widget(Paragraph::new(lines), area);
    }

    fn draw_findings(&self, frame: &mut Frame, area: Rect, data: &Insights, theme: &Theme) {
        let header =
            Row::new(["Priority", "Finding type", "Category", "Projects"]).style(theme.title);
        let title_width = area.width.saturating_sub(16 + 10 + 9 + 6) as usize;
        let rows: Vec<Row> = data
            .findings
            .iter()
            .map(|finding| {
                Row::new(vec![
                    Cell::from(Span::styled(
                        priority_label(&finding.review_priority),
                        theme.priority(&finding.review_priority),
                    )),
                    Cell::from(fit(&finding.title, title_width.max(8))),
                    Cell::from(fit(&finding.category, 10)),
                    Cell::from(Line::from(thousands(finding.project_count)).right_aligned()),
                ])
            })
            .collect();
        let empty = rows.is_empty();
        let table = Table::new(
            rows,
            [
                Constraint::Length(15),
                Constraint::Min(10),
                Constraint::Length(10),
                Constraint::Length(9),
            ],
        )
        .header(header)
        .block(
            Block::default()
                .borders(Borders::TOP)
                .border_style(theme.border)
                .title(Span::styled(" Finding types ", theme.title)),
        )
        .row_highlight_style(theme.selected)
        .highlight_symbol("› ");
        let mut state = TableState::default().with_selected((!empty).then_some(self.selected));
        frame.render_stateful_widget(table, area, &mut state);
        if empty {
            let inner = Rect {
                y: area.y + 2,
                height: area.height.saturating_sub(2),
                ..area
            };
            frame.render_widget(
                Paragraph::new(Span::styled(
                    "No finding types match this filter.",
                    theme.dim,
                )),
                inner,
            );
        }
    }
}

fn draw_tiles(frame: &mut Frame, area: Rect, data: &Insights, theme: &Theme) {
    let tiles: [(&str, &Metric); 3] = [
        ("Projects", &data.summary.total_projects),
        ("Externally published", &data.summary.externally_published),
        ("Workspace members", &data.summary.workspace_members),
    ];
    let areas = Layout::horizontal([Constraint::Ratio(1, 3); 3]).split(area);
    for ((label, metric), tile) in tiles.iter().zip(areas.iter()) {
        let delta_style = if metric.delta_30d == 0 {
            theme.dim
        } else {
            theme.accent
        };
        let text = vec![
            Line::from(Span::styled(
                thousands(metric.value),
                theme.title.add_modifier(Modifier::BOLD),
            )),
            Line::from(vec![
                Span::styled(signed(metric.delta_30d), delta_style),
                Span::styled(format!(" in {}", fit(&metric.delta_window, 20)), theme.dim),
            ]),
        ];
        frame.render_widget(
            Paragraph::new(text).block(
                Block::default()
                    .borders(Borders::ALL)
                    .border_style(theme.border)
                    .title(Span::styled(format!(" {label} "), theme.dim)),
            ),
            *tile,
        );
    }
}

/// The risk distribution as one stacked bar, with counts written out.
fn draw_risk(frame: &mut Frame, area: Rect, data: &Insights, theme: &Theme) {
    let risk = &data.summary.risk;
    let parts = [
        (ReviewPriority::NeedsReview, risk.needs_review, '█'),
        (
            ReviewPriority::ReviewRecommended,
            risk.review_recommended,
            '▓',
        ),
        (ReviewPriority::NoReviewNeeded, risk.no_review_needed, '░'),
    ];
    let scored: i64 = parts.iter().map(|(_, count, _)| (*count).max(0)).sum();
    // Projects without a score yet still count: the parts add up to the total.
    let unscored = (data.summary.total_projects.value - scored).max(0);
    let total = scored + unscored;
    let width = area.width as i64;
    let mut bar = Vec::new();
    let mut used = 0;
    for (index, (priority, count, glyph)) in parts.iter().enumerate() {
        let cells = if total == 0 {
            0
        } else if index == parts.len() - 1 && unscored == 0 {
            width - used
        } else {
            (*count).max(0) * width / total
        };
        used += cells;
        bar.push(Span::styled(
            glyph.to_string().repeat(cells.max(0) as usize),
            theme.priority(priority),
        ));
    }
    if unscored > 0 {
        bar.push(Span::styled(
            "·".repeat((width - used).max(0) as usize),
            theme.dim,
        ));
    }
    let mut entries: Vec<(String, String, ratatui::style::Style)> = parts
        .iter()
        .map(|(priority, count, _)| {
            (
                priority_label(priority),
                thousands(*count),
                theme.priority(priority),
            )
        })
        .collect();
    if unscored > 0 {
        entries.push(("· not scored yet".into(), thousands(unscored), theme.dim));
    }
    let legend = legend_line(&entries, area.width as usize);
    let lines = vec![
        Line::from(Span::styled("Risk distribution", theme.title)),
        Line::from(if total == 0 {
            vec![Span::styled("no projects", theme.dim)]
        } else {
            bar
        }),
        legend,
    ];
    frame.render_widget(Paragraph::new(lines), area);
}

/// The legend under the bar: every count whole, never cut. Full labels when
/// they fit the width, then closer together, then the glyphs alone
/// (`▲ 408  ● 463`): a cut number would be a wrong number.
fn legend_line(entries: &[(String, String, ratatui::style::Style)], width: usize) -> Line<'static> {
    let glyph = |label: &str| label.split(' ').next().unwrap_or_default().to_owned();
    let forms: [(bool, &str); 3] = [(true, "   "), (true, "  "), (false, "  ")];
    let build = |full: bool, gap: &str| -> Vec<Span<'static>> {
        entries
            .iter()
            .enumerate()
            .flat_map(|(index, (label, number, style))| {
                let label = if full { label.clone() } else { glyph(label) };
                let gap = if index + 1 < entries.len() { gap } else { "" };
                [
                    Span::styled(label, *style),
                    Span::raw(format!(" {number}{gap}")),
                ]
            })
            .collect()
    };
    let fits = |spans: &[Span]| {
        spans
            .iter()
            .map(|span| crate::text::display_width(&span.content))
            .sum::<usize>()
            <= width
    };
    let mut spans = Vec::new();
    for (full, gap) in forms {
        spans = build(full, gap);
        if fits(&spans) {
            break;
        }
    }
    Line::from(spans)
}
