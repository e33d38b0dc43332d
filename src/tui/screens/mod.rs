//! The screens. Each owns its state model, turns actions into effects, and draws.

pub(crate) mod actions;
pub mod analytics;
pub(crate) mod analytics_traffic;
pub mod changes;
pub mod filtered;
pub mod insights;
pub mod inventory;
pub mod list_screen;
pub mod members;
pub mod monitor;
pub mod paged;
pub mod pii;
pub mod policy;
pub mod project;

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Paragraph, Wrap};
use time::OffsetDateTime;

use super::action::Action;
use super::effect::{Cx, ErrorInfo};
use super::keymap::Keymap;
use super::theme::Theme;
use crate::text::sanitize_line;
use actions::ScreenAction;

pub use super::focus::ProjectRef;

/// What a screen needs to draw besides its own state.
pub struct ScreenView<'a> {
    pub theme: &'a Theme,
    pub keymap: &'a Keymap,
    pub now: OffsetDateTime,
    /// The project in focus, when a read found it gone: a tab about it
    /// explains its own 404 by that, never by another cause.
    pub gone: Option<&'a crate::tui::focus::GoneProject>,
}

pub trait Screen {
    fn title(&self) -> &'static str;

    /// Whether the screen is about the project in focus (and names it): the
    /// breadcrumbs then end with that project.
    fn about_focused_project(&self) -> bool {
        false
    }

    /// The screen became visible: load what it lacks.
    fn activate(&mut self, _cx: &mut Cx) {}

    /// Another tab became visible: stop anything that only serves the eye.
    fn deactivate(&mut self) {}

    /// The project in focus, told every screen as a tab is shown: a screen
    /// about it (`about_focused_project`) keeps it, the rest ignore it.
    fn follow_focus(&mut self, _project: Option<&ProjectRef>) {}

    /// Handles an action; false lets the app handle it.
    fn handle_action(&mut self, action: Action, cx: &mut Cx) -> bool;

    /// While a text field has focus, raw keys go here first; true when consumed.
    fn handle_text_key(&mut self, _key: &crossterm::event::KeyEvent, _cx: &mut Cx) -> bool {
        false
    }

    /// Whether a text field or popup has focus (so `q` types a q).
    fn captures_keys(&self) -> bool {
        false
    }

    /// The request budget as the service last told it (`remaining` of
    /// `limit`, at `now`): a screen that walks pages or reads in the
    /// background keeps within it.
    fn observe_rate(&mut self, _remaining: u32, _limit: u32, _now: OffsetDateTime) {}

    /// When the screen wants to be woken (a debounce), if ever.
    fn wake_at(&self) -> Option<OffsetDateTime> {
        None
    }

    /// A deadline passed; true when anything on screen changed.
    fn wake(&mut self, _cx: &mut Cx) -> bool {
        false
    }

    fn last_loaded(&self) -> Option<OffsetDateTime> {
        None
    }

    /// What the screen offers now, once: the footer, the help and the key
    /// handling read it (`actions.rs`).
    fn actions(&self) -> Vec<ScreenAction>;

    /// What `ctrl-s` writes of this list, when the App exports it
    /// (`tui/export.rs`); `None`: nothing to export here.
    fn export_rows(&self) -> Option<crate::tui::export::ExportRows> {
        None
    }

    fn draw(&self, frame: &mut Frame, area: Rect, view: &ScreenView);
}

/// What a project screen says before a project is picked.
pub fn no_project_text(theme: &Theme, what: &str, keymap: &Keymap) -> Vec<Line<'static>> {
    vec![
        Line::from(Span::styled("No project selected.", theme.title)),
        Line::from(""),
        Line::from(Span::raw(format!(
            "{what} for the project selected in the inventory."
        ))),
        Line::from(vec![
            Span::raw("Press "),
            Span::styled(
                keymap.key_for(super::action::Action::ShowTab(super::nav::Tab::Inventory)),
                theme.key,
            ),
            Span::raw(" (or "),
            Span::styled(keymap.key_for(super::action::Action::Open), theme.key),
            Span::raw(") to pick one in the inventory, then come back to this tab."),
        ]),
    ]
}

/// Draws what a project screen says before a project is picked.
pub fn draw_no_project(frame: &mut Frame, area: Rect, view: &ScreenView, what: &str) {
    frame.render_widget(
        Paragraph::new(no_project_text(view.theme, what, view.keymap)).wrap(Wrap { trim: true }),
        area,
    );
}

/// A tab whose screen comes in a later release.
pub struct Placeholder {
    pub title: &'static str,
    pub what: &'static str,
}

impl Screen for Placeholder {
    fn title(&self) -> &'static str {
        self.title
    }

    fn handle_action(&mut self, _action: Action, _cx: &mut Cx) -> bool {
        false
    }

    fn actions(&self) -> Vec<ScreenAction> {
        Vec::new()
    }

    fn draw(&self, frame: &mut Frame, area: Rect, view: &ScreenView) {
        let text = vec![
            Line::from(Span::styled(self.title, view.theme.title)),
            Line::from(""),
            Line::from(Span::styled(self.what, view.theme.base)),
            Line::from(Span::styled(
                "This screen is not built yet; it arrives in the next release.",
                view.theme.dim,
            )),
        ];
        frame.render_widget(
            Paragraph::new(text).wrap(Wrap { trim: true }).block(
                Block::default()
                    .borders(Borders::ALL)
                    .border_style(view.theme.border),
            ),
            area,
        );
    }
}

/// An error as lines: what to do about it first, then type, detail and request id.
/// A gate (plan, feature, scope) is explained in words instead of the raw error.
pub fn error_text(error: &ErrorInfo, theme: &Theme) -> Vec<Line<'static>> {
    let mut lines = Vec::new();
    match &error.gate {
        Some(gate) => {
            lines.push(Line::from(Span::styled(gate.explain(), theme.warn)));
            if let Some(detail) = &error.detail {
                lines.push(Line::from(Span::styled(
                    sanitize_line(detail).into_owned(),
                    theme.base,
                )));
            }
        }
        None => lines.push(Line::from(Span::styled(
            sanitize_line(&error.summary).into_owned(),
            theme.error,
        ))),
    }
    let mut facts = Vec::new();
    if let Some(kind) = &error.kind {
        facts.push(format!("type {}", sanitize_line(kind.as_str())));
    }
    if let Some(status) = error.status {
        facts.push(format!("HTTP {status}"));
    }
    if let Some(id) = &error.request_id {
        facts.push(format!("request {}", sanitize_line(id)));
    }
    if !facts.is_empty() {
        lines.push(Line::from(Span::styled(facts.join(" · "), theme.dim)));
    }
    lines
}
