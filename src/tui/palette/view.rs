//! Draws the command palette: the input on top, why Enter ran nothing, and the
//! candidates under it (the one Enter takes highlighted).

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Clear, Paragraph};

use super::{Candidate, Palette};
use crate::text::{display_width, fit};
use crate::tui::theme::Theme;

/// Draws the open palette at the top of `area`.
pub fn draw(
    frame: &mut Frame,
    area: Rect,
    palette: &Palette,
    candidates: &[Candidate],
    theme: &Theme,
) {
    let Some(field) = palette.field() else {
        return;
    };
    let width = area.width.saturating_sub(4).min(90);
    let message_lines = u16::from(palette.message.is_some());
    let height = (3 + message_lines + candidates.len() as u16).min(area.height);
    let popup = Rect {
        x: area.x + (area.width.saturating_sub(width)) / 2,
        y: area.y,
        width,
        height,
    };
    frame.render_widget(Clear, popup);
    let block = Block::default()
        .borders(Borders::ALL)
        .border_style(theme.accent)
        .title(Span::styled(
            " : command — tab completes · ↑↓ history · esc closes ",
            theme.title,
        ));
    let inner = block.inner(popup);
    frame.render_widget(block, popup);
    if inner.height == 0 {
        return;
    }
    let input_area = Rect { height: 1, ..inner };
    field.draw(frame, input_area, theme, "", None);
    let inner_width = inner.width as usize;
    let text_width = candidates
        .iter()
        .map(|candidate| display_width(&candidate.text))
        .max()
        .unwrap_or(0)
        .min(inner_width / 2);
    let mut lines = Vec::new();
    if let Some(message) = &palette.message {
        lines.push(Line::from(Span::styled(
            fit(message, inner_width),
            theme.warn,
        )));
    }
    let highlighted = palette.highlighted(candidates);
    for (index, candidate) in candidates.iter().enumerate() {
        let style = if highlighted == Some(index) {
            theme.selected
        } else {
            theme.base
        };
        let text = fit(&candidate.text, text_width);
        let pad = text_width.saturating_sub(display_width(&text));
        let help_width = inner_width.saturating_sub(text_width + 3);
        lines.push(Line::from(vec![
            Span::styled(format!(" {text}{} ", " ".repeat(pad)), style),
            Span::styled(format!(" {}", fit(&candidate.help, help_width)), theme.dim),
        ]));
    }
    let list_area = Rect {
        y: inner.y + 1,
        height: inner.height.saturating_sub(1),
        ..inner
    };
    frame.render_widget(Paragraph::new(lines), list_area);
}
