//! The one confirm flow for actions that change or destroy things (DESIGN.md):
//! either a plain yes/no, or the exact text (a project's name) typed out.

use crossterm::event::{KeyCode, KeyEvent};
use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Clear, Paragraph, Wrap};

use super::input::TextField;
use super::{DialogOutcome, centered, key_line};
use crate::text::fit;
use crate::tui::theme::Theme;

/// What the person must do to go ahead.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Confirmation {
    /// `y` or enter.
    Yes,
    /// Type exactly this text, then enter.
    Type(String),
}

/// What a key did to the dialog: `Done(())` is the yes.
pub type ConfirmOutcome = DialogOutcome<()>;

#[derive(Debug, Clone)]
pub struct Confirm {
    pub title: String,
    /// What will happen, in words (already sanitized by the caller).
    pub lines: Vec<String>,
    pub need: Confirmation,
    field: TextField,
    /// Enter was pressed with text that does not match.
    mismatch: bool,
}

impl Confirm {
    pub fn new(title: impl Into<String>, lines: Vec<String>, need: Confirmation) -> Self {
        Self {
            title: title.into(),
            lines,
            need,
            field: TextField::default(),
            mismatch: false,
        }
    }

    pub fn typed(&self) -> &str {
        self.field.value()
    }

    /// Whether what is typed allows going ahead.
    pub fn satisfied(&self) -> bool {
        match &self.need {
            Confirmation::Yes => true,
            Confirmation::Type(expected) => self.field.value() == expected,
        }
    }

    pub fn handle_key(&mut self, key: &KeyEvent) -> ConfirmOutcome {
        match (&self.need, key.code) {
            (_, KeyCode::Esc) => ConfirmOutcome::Cancelled,
            (Confirmation::Yes, KeyCode::Enter | KeyCode::Char('y' | 'Y')) => {
                ConfirmOutcome::Done(())
            }
            (Confirmation::Yes, KeyCode::Char('n' | 'N')) => ConfirmOutcome::Cancelled,
            (Confirmation::Yes, _) => ConfirmOutcome::Open,
            (Confirmation::Type(_), KeyCode::Enter) => {
                if self.satisfied() {
                    ConfirmOutcome::Done(())
                } else {
                    self.mismatch = true;
                    ConfirmOutcome::Open
                }
            }
            (Confirmation::Type(_), _) => {
                if self.field.handle_key(key) {
                    self.mismatch = false;
                }
                ConfirmOutcome::Open
            }
        }
    }

    pub fn draw(&self, frame: &mut Frame, area: Rect, theme: &Theme) {
        let width = area.width.saturating_sub(4).min(72);
        let inner_width = width.saturating_sub(2) as usize;
        let mut lines: Vec<Line> = self
            .lines
            .iter()
            .map(|line| Line::from(Span::raw(line.clone())))
            .collect();
        let field_rows = match &self.need {
            Confirmation::Yes => {
                lines.push(Line::from(""));
                lines.push(key_line(
                    theme,
                    &[("y", " / enter confirm   "), ("n", " / esc cancel")],
                ));
                0
            }
            Confirmation::Type(expected) => {
                lines.push(Line::from(""));
                lines.push(Line::from(vec![
                    Span::raw("Type "),
                    Span::styled(fit(expected, inner_width.saturating_sub(20)), theme.title),
                    Span::raw(" to confirm."),
                ]));
                2
            }
        };
        let text_rows = lines.len() as u16;
        let height = text_rows + field_rows + 2;
        let popup = centered(area, width, height);
        frame.render_widget(Clear, popup);
        let block = Block::default()
            .borders(Borders::ALL)
            .border_style(theme.error)
            .title(Span::styled(format!(" {} ", self.title), theme.title));
        let inner = block.inner(popup);
        frame.render_widget(block, popup);
        let [text_area, field_area] = Layout::vertical([
            Constraint::Length(text_rows),
            Constraint::Length(field_rows),
        ])
        .areas(inner);
        frame.render_widget(Paragraph::new(lines).wrap(Wrap { trim: false }), text_area);
        if field_rows > 0 {
            let message = if self.mismatch {
                ("does not match: type it exactly, or esc", theme.error)
            } else if self.satisfied() {
                ("matches: enter to go ahead", theme.warn)
            } else {
                ("enter confirms · esc cancels", theme.dim)
            };
            self.field
                .draw(frame, field_area, theme, "name", Some(message));
        }
    }
}

#[cfg(test)]
mod tests {
    use crossterm::event::KeyModifiers;

    use super::*;

    fn press(dialog: &mut Confirm, code: KeyCode) -> ConfirmOutcome {
        dialog.handle_key(&KeyEvent::new(code, KeyModifiers::NONE))
    }

    #[test]
    fn typed_confirmation_needs_the_exact_text() {
        let mut dialog = Confirm::new("Delete", vec![], Confirmation::Type("Abc".into()));
        for ch in "abc".chars() {
            assert_eq!(press(&mut dialog, KeyCode::Char(ch)), ConfirmOutcome::Open);
        }
        assert_eq!(press(&mut dialog, KeyCode::Enter), ConfirmOutcome::Open);
        // `y` is text here, not a yes.
        assert_eq!(press(&mut dialog, KeyCode::Char('y')), ConfirmOutcome::Open);
        assert_eq!(dialog.typed(), "abcy");
        for _ in 0..4 {
            press(&mut dialog, KeyCode::Backspace);
        }
        for ch in "Abc".chars() {
            press(&mut dialog, KeyCode::Char(ch));
        }
        assert_eq!(press(&mut dialog, KeyCode::Enter), ConfirmOutcome::Done(()));
    }

    #[test]
    fn yes_no_confirmation() {
        let mut dialog = Confirm::new("Unpublish", vec![], Confirmation::Yes);
        assert_eq!(press(&mut dialog, KeyCode::Char('x')), ConfirmOutcome::Open);
        assert_eq!(
            press(&mut dialog, KeyCode::Char('y')),
            ConfirmOutcome::Done(())
        );
        assert_eq!(press(&mut dialog, KeyCode::Esc), ConfirmOutcome::Cancelled);
    }
}
