//! A one-line text field (tui-input) with a label and a message under it.

use crossterm::event::{Event, KeyEvent};
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;
use tui_input::Input;
use tui_input::backend::crossterm::EventHandler;

use crate::text::{display_width, fit, sanitize_line};
use crate::tui::theme::Theme;

#[derive(Debug, Clone, Default)]
pub struct TextField {
    input: Input,
}

impl TextField {
    pub fn new(value: impl Into<String>) -> Self {
        Self {
            input: Input::new(value.into()),
        }
    }

    pub fn value(&self) -> &str {
        self.input.value()
    }

    /// Edits the text with `key`; true when the text changed.
    pub fn handle_key(&mut self, key: &KeyEvent) -> bool {
        let before = self.input.value().to_owned();
        self.input.handle_event(&Event::Key(*key));
        self.input.value() != before
    }

    /// Draws `label: value▏` on the first line of `area` and `message` (if any)
    /// on the second, in `message_style`.
    pub fn draw(
        &self,
        frame: &mut Frame,
        area: Rect,
        theme: &Theme,
        label: &str,
        message: Option<(&str, Style)>,
    ) {
        if area.height == 0 || area.width == 0 {
            return;
        }
        let label = format!("{label}: ");
        let label_width = display_width(&label) as u16;
        let width = area.width.saturating_sub(label_width + 1) as usize;
        let scroll = self.input.visual_scroll(width);
        let shown: String = self
            .input
            .value()
            .chars()
            .skip(scroll)
            .take(width)
            .collect();
        let mut lines = vec![Line::from(vec![
            Span::styled(label, theme.key),
            Span::raw(sanitize_line(&shown).into_owned()),
            Span::styled("▏", theme.accent),
        ])];
        if let Some((text, style)) = message {
            lines.push(Line::from(Span::styled(
                fit(text, area.width as usize),
                style,
            )));
        }
        frame.render_widget(Paragraph::new(lines), area);
        let cursor = self.input.visual_cursor().saturating_sub(scroll) as u16;
        let x = (area.x + label_width + cursor).min(area.right().saturating_sub(1));
        frame.set_cursor_position((x, area.y));
    }
}
