//! The published app's audience from the project screen:
//! - the publish confirm, which names the audience and the risk and takes an
//!   explicit choice (a bare enter publishes nothing);
//! - the audience editor (`public`, `workspace`, `custom` with group and user
//!   targets), which shows what changes before it asks, and warns when the
//!   audience widens on a project that needs review or has open personal data;
//! - the embed URL prompt: one https origin, checked as it is typed.

use crossterm::event::{KeyCode, KeyEvent};
use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Clear, Paragraph, Wrap};

use crate::api::model::{
    AudienceTarget, InventoryItem, PublishAudience, PublishSettings, ReviewPriority,
    parse_audience_target, validate_parent_origin,
};
use crate::text::fit;
use crate::tui::theme::Theme;
use crate::tui::widgets::input::TextField;
use crate::tui::widgets::{DialogOutcome, centered};

/// Why opening the app to more people deserves a second look, in words; empty
/// when nothing is known against it.
pub fn risk_lines(item: Option<&InventoryItem>) -> Vec<String> {
    let Some(item) = item else {
        return vec!["its review priority and findings are not loaded: risks unknown".to_owned()];
    };
    let mut risks = Vec::new();
    if item.review_priority == ReviewPriority::NeedsReview {
        risks.push("the project needs review".to_owned());
    }
    if let Some(reason) = &item.matched_reason {
        let open = reason.values.open_pii_finding_count;
        if open > 0 {
            let noun = if open == 1 { "finding" } else { "findings" };
            risks.push(format!("it has {open} open personal-data {noun}"));
        }
    }
    risks
}

/// How many people an audience lets in, for "does it widen?": custom, then
/// workspace, then public. Unknown values rank as the narrowest.
fn reach(audience: &PublishAudience) -> u8 {
    match audience {
        PublishAudience::Custom | PublishAudience::Unknown(_) => 1,
        PublishAudience::Workspace => 2,
        PublishAudience::Public => 3,
    }
}

/// Whether `to` lets more people in than `from`; an audience not shown (the
/// app is offline) widens only to `public`.
pub fn widens(from: Option<&PublishAudience>, to: &PublishAudience) -> bool {
    match from {
        Some(from) => reach(to) > reach(from),
        None => *to == PublishAudience::Public,
    }
}

fn audience_text(audience: Option<&PublishAudience>) -> String {
    audience.map_or_else(
        || "not shown (the app is offline)".to_owned(),
        |audience| fit(audience.as_str(), 30),
    )
}

fn targets_text(targets: &[AudienceTarget]) -> String {
    if targets.is_empty() {
        return "(none)".to_owned();
    }
    let listed: Vec<String> = targets
        .iter()
        .map(|target| format!("{}:{}", target.kind, target.id))
        .collect();
    fit(&listed.join(", "), 60)
}

/// A popup of `lines` titled `title`, with `extra` free rows below them;
/// returns those free rows' area.
fn popup(
    frame: &mut Frame,
    area: Rect,
    theme: &Theme,
    title: &str,
    lines: Vec<Line>,
    extra: u16,
) -> Rect {
    let width = area.width.saturating_sub(4).min(76);
    let inner_width = width.saturating_sub(2).max(1) as usize;
    // Wrapped lines take more rows; count them so nothing is cut.
    let rows: u16 = lines
        .iter()
        .map(|line| (line.width().max(1).div_ceil(inner_width)) as u16)
        .sum();
    let area_popup = centered(area, width, rows + extra + 2);
    frame.render_widget(Clear, area_popup);
    let block = Block::default()
        .borders(Borders::ALL)
        .border_style(theme.warn)
        .title(Span::styled(format!(" {title} "), theme.title));
    let inner = block.inner(area_popup);
    frame.render_widget(block, area_popup);
    let [text, free] =
        Layout::vertical([Constraint::Length(rows), Constraint::Min(0)]).areas(inner);
    frame.render_widget(Paragraph::new(lines).wrap(Wrap { trim: false }), text);
    free
}

fn keys<'a>(theme: &Theme, pairs: &[(&'a str, &'a str)]) -> Line<'a> {
    let mut spans = Vec::new();
    for (index, (key, what)) in pairs.iter().enumerate() {
        if index > 0 {
            spans.push(Span::styled(" · ", theme.dim));
        }
        spans.push(Span::styled(*key, theme.key));
        spans.push(Span::styled(format!(" {what}"), theme.dim));
    }
    Line::from(spans)
}

// ---------------------------------------------------------------- publish confirm

/// What a key did to the publish confirm.
/// Done: publish with this audience; `None` keeps the saved one.
pub type PublishOutcome = DialogOutcome<Option<PublishAudience>>;

/// The publish confirm: it names the audience and the risk, and takes one of
/// `w` (workspace), `P` (everyone) or `k` (keep the saved audience). Enter
/// alone does nothing but say so.
///
/// The contract answers no audience while the app is offline, though the saved
/// one applies again at the next publish: it may be public. So on a project
/// with a risk, `k` with the audience unknown asks a second time (`y`).
#[derive(Debug, Clone)]
pub struct PublishConfirm {
    name: String,
    current: Option<PublishAudience>,
    risks: Vec<String>,
    /// Enter was pressed: the dialog says which keys publish.
    nudged: bool,
    /// `k` was pressed on an unknown audience with a risk: `y` keeps it.
    keep_asked: bool,
}

impl PublishConfirm {
    pub fn new(name: String, current: Option<PublishAudience>, risks: Vec<String>) -> Self {
        Self {
            name,
            current,
            risks,
            nudged: false,
            keep_asked: false,
        }
    }

    /// Keeping the saved audience may publish to everyone, unseen.
    fn keep_is_blind(&self) -> bool {
        self.current.is_none() && !self.risks.is_empty()
    }

    pub fn handle_key(&mut self, key: &KeyEvent) -> PublishOutcome {
        match key.code {
            KeyCode::Esc | KeyCode::Char('n') => PublishOutcome::Cancelled,
            KeyCode::Char('w') => PublishOutcome::Done(Some(PublishAudience::Workspace)),
            KeyCode::Char('P') => PublishOutcome::Done(Some(PublishAudience::Public)),
            KeyCode::Char('k') if self.keep_is_blind() => {
                self.keep_asked = true;
                PublishOutcome::Open
            }
            KeyCode::Char('k') => PublishOutcome::Done(None),
            KeyCode::Char('y') if self.keep_asked => PublishOutcome::Done(None),
            _ => {
                self.nudged = true;
                PublishOutcome::Open
            }
        }
    }

    pub fn draw(&self, frame: &mut Frame, area: Rect, theme: &Theme) {
        let mut lines = vec![
            Line::from(format!("Publish {}?", self.name)),
            Line::from(vec![
                Span::styled("Saved audience: ", theme.dim),
                Span::raw(audience_text(self.current.as_ref())),
            ]),
            Line::from(Span::styled(
                "A deployment starts; this screen follows it until it ends.",
                theme.dim,
            )),
        ];
        if !self.risks.is_empty() {
            lines.push(Line::from(""));
            lines.push(Line::from(Span::styled(
                format!("⚠ Risk: {}.", self.risks.join("; ")),
                theme.error,
            )));
            lines.push(Line::from(Span::styled(
                "Publishing to everyone exposes it to anyone with the link.",
                theme.error,
            )));
        }
        lines.push(Line::from(""));
        if self.keep_asked {
            lines.push(Line::from(Span::styled(
                "The saved audience is unknown while the app is offline: it may be public.",
                theme.error,
            )));
            lines.push(keys(
                theme,
                &[
                    ("y", "keep it anyway"),
                    ("w", "to the workspace"),
                    ("P", "to everyone (public)"),
                    ("esc", "cancel"),
                ],
            ));
            popup(frame, area, theme, "Publish", lines, 0);
            return;
        }
        let keep = if self.keep_is_blind() {
            "keep the saved audience (unknown, may be public)"
        } else {
            "keep the saved audience"
        };
        lines.push(keys(
            theme,
            &[
                ("w", "to the workspace"),
                ("P", "to everyone (public)"),
                ("k", keep),
                ("esc", "cancel"),
            ],
        ));
        if self.nudged {
            lines.push(Line::from(Span::styled(
                "Choose w, P or k: enter alone does not publish.",
                theme.warn,
            )));
        }
        popup(frame, area, theme, "Publish", lines, 0);
    }
}

// ---------------------------------------------------------------- audience editor

const CHOICES: [(PublishAudience, &str); 3] = [
    (PublishAudience::Public, "anyone with the link"),
    (PublishAudience::Workspace, "every member of the workspace"),
    (PublishAudience::Custom, "only the groups and users listed"),
];

/// What a key did to the editor.
/// Done: apply these settings.
pub type EditorOutcome = DialogOutcome<PublishSettings>;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Step {
    Choose,
    /// What changes, shown before it is asked.
    Review,
}

#[derive(Debug)]
pub struct AudienceEditor {
    current: Option<PublishAudience>,
    current_targets: Vec<AudienceTarget>,
    is_published: bool,
    risks: Vec<String>,
    choice: usize,
    targets: TextField,
    problem: Option<String>,
    step: Step,
    /// The settings under review.
    pending: Option<PublishSettings>,
}

impl AudienceEditor {
    pub fn new(
        current: Option<PublishAudience>,
        current_targets: Vec<AudienceTarget>,
        is_published: bool,
        risks: Vec<String>,
    ) -> Self {
        let choice = CHOICES
            .iter()
            .position(|(audience, _)| Some(audience) == current.as_ref())
            .unwrap_or(1);
        let typed: Vec<String> = current_targets
            .iter()
            .map(|target| format!("{}:{}", target.kind, target.id))
            .collect();
        Self {
            current,
            current_targets,
            is_published,
            risks,
            choice,
            targets: TextField::new(typed.join(", ")),
            problem: None,
            step: Step::Choose,
            pending: None,
        }
    }

    fn chosen(&self) -> PublishAudience {
        CHOICES[self.choice.min(CHOICES.len() - 1)].0.clone()
    }

    /// The targets typed: `group:ID` or `user:ID`, separated by commas or spaces.
    fn parsed_targets(&self) -> Result<Vec<AudienceTarget>, String> {
        self.targets
            .value()
            .split([',', ' '])
            .filter(|part| !part.trim().is_empty())
            .map(parse_audience_target)
            .collect()
    }

    pub fn handle_key(&mut self, key: &KeyEvent) -> EditorOutcome {
        match self.step {
            Step::Choose => self.choose_key(key),
            Step::Review => match key.code {
                KeyCode::Esc | KeyCode::Char('n') => {
                    self.step = Step::Choose;
                    EditorOutcome::Open
                }
                KeyCode::Char('y') => self
                    .pending
                    .take()
                    .map_or(EditorOutcome::Open, EditorOutcome::Done),
                _ => EditorOutcome::Open,
            },
        }
    }

    fn choose_key(&mut self, key: &KeyEvent) -> EditorOutcome {
        match key.code {
            KeyCode::Esc => return EditorOutcome::Cancelled,
            KeyCode::Up | KeyCode::BackTab => {
                self.choice = (self.choice + CHOICES.len() - 1) % CHOICES.len();
            }
            KeyCode::Down | KeyCode::Tab => self.choice = (self.choice + 1) % CHOICES.len(),
            KeyCode::Enter => self.review(),
            _ if self.chosen() == PublishAudience::Custom && self.targets.handle_key(key) => {
                self.problem = None;
            }
            _ => {}
        }
        EditorOutcome::Open
    }

    fn review(&mut self) {
        let audience = self.chosen();
        let audience_targets = if audience == PublishAudience::Custom {
            match self.parsed_targets() {
                Ok(targets) => targets,
                Err(problem) => {
                    self.problem = Some(fit(&problem, 60));
                    return;
                }
            }
        } else {
            Vec::new()
        };
        self.pending = Some(PublishSettings {
            audience,
            audience_targets,
        });
        self.step = Step::Review;
    }

    pub fn draw(&self, frame: &mut Frame, area: Rect, theme: &Theme) {
        match (self.step, &self.pending) {
            (Step::Review, Some(pending)) => self.draw_review(frame, area, theme, pending),
            _ => self.draw_choose(frame, area, theme),
        }
    }

    fn draw_choose(&self, frame: &mut Frame, area: Rect, theme: &Theme) {
        let mut lines = vec![Line::from(vec![
            Span::styled("Now: ", theme.dim),
            Span::raw(audience_text(self.current.as_ref())),
        ])];
        for (index, (audience, what)) in CHOICES.iter().enumerate() {
            let selected = index == self.choice;
            let style: Style = if selected { theme.selected } else { theme.base };
            let marker = if selected { "▶ " } else { "  " };
            lines.push(Line::from(vec![
                Span::styled(format!("{marker}{:<10}", audience.as_str()), style),
                Span::styled(format!(" {what}"), theme.dim),
            ]));
        }
        let custom = self.chosen() == PublishAudience::Custom;
        lines.push(Line::from(""));
        lines.push(keys(
            theme,
            &[("↑↓", "choose"), ("enter", "review"), ("esc", "cancel")],
        ));
        let field_rows = if custom { 2 } else { 0 };
        let free = popup(
            frame,
            area,
            theme,
            "Audience of the published app",
            lines,
            field_rows,
        );
        if custom {
            let message = match &self.problem {
                Some(problem) => (problem.as_str(), theme.error),
                None => ("group:ID or user:ID, comma-separated", theme.dim),
            };
            self.targets
                .draw(frame, free, theme, "targets", Some(message));
        }
    }

    fn draw_review(&self, frame: &mut Frame, area: Rect, theme: &Theme, pending: &PublishSettings) {
        let mut lines = vec![Line::from(Span::styled("What changes:", theme.title))];
        let same_audience = self.current.as_ref() == Some(&pending.audience);
        lines.push(Line::from(vec![
            Span::styled("Audience  ", theme.dim),
            Span::raw(audience_text(self.current.as_ref())),
            Span::styled(" → ", theme.dim),
            Span::styled(
                fit(pending.audience.as_str(), 30),
                if same_audience {
                    theme.base
                } else {
                    theme.accent
                },
            ),
        ]));
        if pending.audience == PublishAudience::Custom
            || self.current == Some(PublishAudience::Custom)
        {
            lines.push(Line::from(vec![
                Span::styled("Targets   ", theme.dim),
                Span::raw(targets_text(&self.current_targets)),
                Span::styled(" → ", theme.dim),
                Span::styled(targets_text(&pending.audience_targets), theme.accent),
            ]));
        }
        lines.push(Line::from(vec![
            Span::styled("Applies   ", theme.dim),
            Span::raw(if self.is_published {
                "now: the app is published"
            } else {
                "at the next publish: the app is offline"
            }),
        ]));
        if widens(self.current.as_ref(), &pending.audience) && !self.risks.is_empty() {
            lines.push(Line::from(""));
            lines.push(Line::from(Span::styled(
                format!(
                    "⚠ This widens who can open the app, and {}.",
                    self.risks.join("; ")
                ),
                theme.error,
            )));
        }
        lines.push(Line::from(""));
        lines.push(keys(theme, &[("y", "apply"), ("esc", "back")]));
        popup(frame, area, theme, "Change the audience?", lines, 0);
    }
}

// ---------------------------------------------------------------- embed URL

/// What a key did to the embed prompt.
/// Done: create an embed URL for this origin.
pub type EmbedOutcome = DialogOutcome<String>;

/// Asks for the embedding page's origin, checked before anything is sent.
#[derive(Debug)]
pub struct EmbedPrompt {
    field: TextField,
    problem: Option<String>,
}

impl Default for EmbedPrompt {
    fn default() -> Self {
        Self {
            field: TextField::new("https://"),
            problem: None,
        }
    }
}

impl EmbedPrompt {
    pub fn handle_key(&mut self, key: &KeyEvent) -> EmbedOutcome {
        match key.code {
            KeyCode::Esc => EmbedOutcome::Cancelled,
            KeyCode::Enter => match validate_parent_origin(self.field.value()) {
                Ok(()) => EmbedOutcome::Done(self.field.value().to_owned()),
                Err(problem) => {
                    self.problem = Some(problem.to_string());
                    EmbedOutcome::Open
                }
            },
            _ => {
                if self.field.handle_key(key) {
                    self.problem = None;
                }
                EmbedOutcome::Open
            }
        }
    }

    pub fn draw(&self, frame: &mut Frame, area: Rect, theme: &Theme) {
        let lines = vec![
            Line::from("The page that embeds the app: one https origin, no path."),
            keys(theme, &[("enter", "create"), ("esc", "cancel")]),
        ];
        let free = popup(frame, area, theme, "Embed URL", lines, 2);
        let message = match &self.problem {
            Some(problem) => (problem.as_str(), theme.error),
            None => ("e.g. https://intranet.example.com", theme.dim),
        };
        self.field.draw(frame, free, theme, "origin", Some(message));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn widening_is_toward_more_people() {
        use PublishAudience::*;
        assert!(widens(Some(&Workspace), &Public));
        assert!(widens(Some(&Custom), &Workspace));
        assert!(!widens(Some(&Public), &Workspace));
        assert!(!widens(Some(&Workspace), &Workspace));
        assert!(widens(None, &Public));
        assert!(!widens(None, &Workspace));
    }
}
