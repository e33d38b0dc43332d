//! The Policy screen: each policy the dashboard evaluates (the built-in pack
//! and the config dir's `policies/`) with its id, severity, title and how
//! many projects violate it, failing and waived, and how many it could not
//! judge (what it reads is not in the document); enter shows its projects
//! (the inventory under `--violates ID`, so back returns here). What the
//! selected policy says of itself is under the table.

use std::sync::Arc;

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Cell, Paragraph, Row, Table, TableState, Wrap};
use time::OffsetDateTime;

use super::actions::{RowWords, ScreenAction, movement};
use super::{Screen, ScreenView};
use crate::policy::{FindingStatus, Policy};
use crate::text::{fit, sanitize_line};
use crate::tui::action::Action;
use crate::tui::effect::Cx;
use crate::tui::nav::Nav;
use crate::tui::policies::{PolicyShown, severity_style};
use crate::tui::widgets::{ago, thousands};

/// The screen asks nothing itself: the App evaluates (`app/policy.rs`).
#[derive(Debug)]
pub enum Msg {}

/// Rows of the selected policy's description and remediation.
const ABOUT_ROWS: u16 = 5;

#[derive(Debug, Default)]
pub struct PolicyScreen {
    shown: Arc<PolicyShown>,
    pub selected: usize,
    /// The waiver expiry an evaluation was last asked for: woken once.
    expiry_asked: Option<OffsetDateTime>,
}

impl PolicyScreen {
    pub fn set_policies(&mut self, shown: Arc<PolicyShown>) {
        self.shown = shown;
        self.selected = self.selected.min(self.policies().len().saturating_sub(1));
    }

    pub fn policies(&self) -> &[Policy] {
        self.shown
            .evaluation
            .as_ref()
            .map_or(&[], |evaluation| evaluation.policies.as_slice())
    }

    /// When the first waiver the evaluation applied runs out: the
    /// violation fails again then, by itself, without another change.
    fn next_expiry(&self) -> Option<OffsetDateTime> {
        let evaluation = self.shown.evaluation.as_ref()?;
        let evaluated_at = self.shown.over.as_ref()?.at;
        evaluation
            .findings
            .iter()
            .filter(|finding| finding.status == FindingStatus::Waived)
            .filter_map(|finding| finding.waived_until)
            .filter(|until| *until > evaluated_at)
            .min()
    }

    fn selected_policy(&self) -> Option<&Policy> {
        self.policies().get(self.selected)
    }

    /// How many projects the selected policy could not judge, and why.
    fn selected_not_judged(&self) -> Option<(usize, &str)> {
        let id = &self.selected_policy()?.meta.id;
        self.shown
            .evaluation
            .as_ref()?
            .not_judged()
            .into_iter()
            .find(|(policy, _, _)| &policy.meta.id == id)
            .map(|(_, projects, message)| (projects, message))
    }

    pub fn update(&mut self, _token: u64, msg: Msg, _cx: &mut Cx) -> bool {
        match msg {}
    }

    /// What the evaluation read, and when.
    fn head(&self, view: &ScreenView) -> Line<'static> {
        let theme = view.theme;
        let mut spans = vec![Span::styled(
            format!("{} policies", self.policies().len()),
            theme.title,
        )];
        if let Some(over) = &self.shown.over {
            spans.push(Span::styled(
                format!(
                    " · evaluated {} over {} projects",
                    ago((view.now - over.at).whole_seconds().max(0)),
                    thousands(over.projects as i64)
                ),
                theme.dim,
            ));
            let from = match over.snapshot {
                Some((id, taken_at)) if over.live_rows > 0 => format!(
                    " (snapshot #{id}, {}, with {} live rows)",
                    ago((view.now - taken_at).whole_seconds().max(0)),
                    thousands(over.live_rows as i64)
                ),
                Some((id, taken_at)) => format!(
                    " (snapshot #{id}, {})",
                    ago((view.now - taken_at).whole_seconds().max(0))
                ),
                None => " (loaded rows; no snapshot)".to_owned(),
            };
            spans.push(Span::styled(from, theme.dim));
        }
        if self.shown.evaluating {
            spans.push(Span::styled(" · evaluating…", theme.accent));
        }
        Line::from(spans)
    }

    fn draw_table(&self, frame: &mut Frame, area: Rect, view: &ScreenView) {
        let theme = view.theme;
        let Some(evaluation) = &self.shown.evaluation else {
            return;
        };
        let header = Row::new([
            Cell::from("Severity"),
            Cell::from("Policy"),
            Cell::from("Title"),
            Cell::from(Line::from("Failing").right_aligned()),
            Cell::from(Line::from("Waived").right_aligned()),
            Cell::from(Line::from("Unknown").right_aligned()),
        ])
        .style(theme.title);
        let id_width = evaluation
            .policies
            .iter()
            .map(|policy| crate::text::display_width(&policy.meta.id))
            .max()
            .unwrap_or(6)
            .clamp(6, (area.width as usize / 3).max(6)) as u16;
        // What the Title column gets: the row less the other columns, their gaps and the
        // highlight symbol. A cut title ends in "…", as every other cut cell does.
        let title_width = (area.width as usize)
            .saturating_sub(8 + id_width as usize + 7 + 6 + 7 + 5 + 2)
            .max(10);
        let rows: Vec<Row> = evaluation
            .policies
            .iter()
            .map(|policy| {
                let counts = evaluation.policy_counts(&policy.meta.id);
                let failing = if counts.failing > 0 {
                    theme.warn
                } else {
                    theme.dim
                };
                Row::new(vec![
                    Cell::from(Span::styled(
                        policy.meta.severity.as_str(),
                        severity_style(theme, policy.meta.severity),
                    )),
                    Cell::from(fit(&policy.meta.id, id_width as usize)),
                    Cell::from(fit(&policy.meta.title, title_width)),
                    Cell::from(
                        Line::from(Span::styled(thousands(counts.failing as i64), failing))
                            .right_aligned(),
                    ),
                    Cell::from(
                        Line::from(Span::styled(thousands(counts.waived as i64), theme.dim))
                            .right_aligned(),
                    ),
                    // Not judged: never a clean 0 drawn as a pass, never a failure.
                    Cell::from(
                        Line::from(Span::styled(
                            thousands(counts.unknown as i64),
                            if counts.unknown > 0 {
                                theme.accent
                            } else {
                                theme.dim
                            },
                        ))
                        .right_aligned(),
                    ),
                ])
            })
            .collect();
        let empty = rows.is_empty();
        let table = Table::new(
            rows,
            [
                Constraint::Length(8),
                Constraint::Length(id_width),
                Constraint::Min(10),
                Constraint::Length(7),
                Constraint::Length(6),
                Constraint::Length(7),
            ],
        )
        .header(header)
        .block(
            Block::default()
                .borders(Borders::TOP)
                .border_style(theme.border)
                .title(Span::styled(" Policies ", theme.title)),
        )
        .row_highlight_style(theme.selected)
        .highlight_symbol("› ");
        let mut state = TableState::default().with_selected((!empty).then_some(self.selected));
        frame.render_stateful_widget(table, area, &mut state);
    }

    /// The selected policy's description, remediation, why it could not
    /// judge some projects (when it could not), and origin.
    fn draw_about(&self, frame: &mut Frame, area: Rect, view: &ScreenView) {
        let theme = view.theme;
        let Some(policy) = self.selected_policy() else {
            return;
        };
        let mut lines = vec![
            Line::from(vec![
                Span::styled(format!("{}: ", fit(&policy.meta.id, 40)), theme.title),
                Span::styled(
                    sanitize_line(&policy.meta.description).into_owned(),
                    theme.base,
                ),
            ]),
            Line::from(vec![
                Span::styled("fix: ", theme.title),
                Span::styled(
                    sanitize_line(&policy.meta.remediation).into_owned(),
                    theme.base,
                ),
            ]),
            Line::from(Span::styled(
                format!("from {}", sanitize_line(&policy.origin)),
                theme.dim,
            )),
        ];
        if let Some((projects, message)) = self.selected_not_judged() {
            // Said before the origin, which the pane may cut.
            lines.insert(
                2,
                Line::from(vec![
                    Span::styled(
                        format!("{} not judged: ", thousands(projects as i64)),
                        theme.accent,
                    ),
                    Span::styled(sanitize_line(message).into_owned(), theme.dim),
                ]),
            );
        }
        frame.render_widget(Paragraph::new(lines).wrap(Wrap { trim: true }), area);
    }
}

impl Screen for PolicyScreen {
    fn title(&self) -> &'static str {
        "Policy"
    }

    fn last_loaded(&self) -> Option<OffsetDateTime> {
        self.shown.over.as_ref().map(|over| over.at)
    }

    fn wake_at(&self) -> Option<OffsetDateTime> {
        self.next_expiry()
            .filter(|expiry| Some(*expiry) != self.expiry_asked)
    }

    /// A waiver ran out: evaluate again (whatever tab is on screen).
    fn wake(&mut self, cx: &mut Cx) -> bool {
        match self.wake_at() {
            Some(expiry) if expiry <= cx.now => {
                self.expiry_asked = Some(expiry);
                cx.navigate(Nav::EvaluatePolicies);
                true
            }
            _ => false,
        }
    }

    fn handle_action(&mut self, action: Action, cx: &mut Cx) -> bool {
        let rows = self.policies().len();
        match action {
            Action::Up => self.selected = self.selected.saturating_sub(1),
            Action::Down => {
                if self.selected + 1 < rows {
                    self.selected += 1;
                }
            }
            Action::PageUp => self.selected = self.selected.saturating_sub(10),
            Action::PageDown => self.selected = (self.selected + 10).min(rows.saturating_sub(1)),
            Action::Top => self.selected = 0,
            Action::Bottom => self.selected = rows.saturating_sub(1),
            Action::Open => {
                if let Some(policy) = self.selected_policy() {
                    cx.navigate(Nav::OpenInventoryForPolicy(policy.meta.id.clone()));
                }
            }
            // The policy files read again, and everything evaluated anew.
            Action::Refresh => cx.navigate(Nav::EvaluatePolicies),
            Action::Copy => cx.copy(self.selected_policy().map(|policy| policy.meta.id.as_str())),
            _ => return false,
        }
        true
    }

    fn actions(&self) -> Vec<ScreenAction> {
        // Before the first evaluation there is no policy to open or copy.
        let mut actions = Vec::new();
        if self.selected_policy().is_some() {
            actions.extend([
                ScreenAction::new(Action::Open, "projects", "the projects that violate it"),
                ScreenAction::help_only(Action::Copy, "copy the policy id"),
            ]);
        }
        actions.extend([ScreenAction::new(
            Action::Refresh,
            "refresh",
            "evaluate again, the policy files read again",
        )]);
        actions.extend(movement(RowWords {
            next: "next policy",
            previous: "previous policy",
            first: "first policy",
            last: "last policy",
        }));
        actions
    }

    fn draw(&self, frame: &mut Frame, area: Rect, view: &ScreenView) {
        let theme = view.theme;
        let error_rows = if self.shown.error.is_some() { 2 } else { 0 };
        // Two more for why the selected policy could not judge some projects.
        let about_rows = match (area.height >= 16, self.selected_not_judged()) {
            (false, _) => 0,
            (true, None) => ABOUT_ROWS,
            (true, Some(_)) => ABOUT_ROWS + 2,
        };
        let [head_area, error_area, table_area, about_area] = Layout::vertical([
            Constraint::Length(1),
            Constraint::Length(error_rows),
            Constraint::Min(3),
            Constraint::Length(about_rows),
        ])
        .areas(area);
        frame.render_widget(Paragraph::new(self.head(view)), head_area);
        if let Some(error) = &self.shown.error {
            // A policy that does not compile: its file and line, never a pass.
            frame.render_widget(
                Paragraph::new(super::error_text(error, theme)).wrap(Wrap { trim: true }),
                error_area,
            );
        }
        if self.shown.evaluation.is_none() {
            let text = if self.shown.error.is_some() {
                "No evaluation: fix the policy above; it is evaluated again on the next change."
            } else {
                "Evaluating the policies…"
            };
            frame.render_widget(Paragraph::new(Span::styled(text, theme.dim)), table_area);
            return;
        }
        self.draw_table(frame, table_area, view);
        self.draw_about(frame, about_area, view);
    }
}
