//! A pane that wraps its text and scrolls it (help, quotes, explanations):
//! `j`/`k`/`ctrl-d`/`ctrl-u`/`g`/`G` move it while it has focus, and its bottom
//! border says how much lies below, so nothing is cut without a word.
//! It wraps the lines itself (at spaces when it can), so it knows exactly how
//! many rows the text takes and where its end is.

use std::cell::Cell;

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Paragraph};
use unicode_width::UnicodeWidthChar;

use crate::tui::action::Action;
use crate::tui::keymap::Keymap;
use crate::tui::theme::Theme;

#[derive(Debug, Default)]
pub struct ScrollPane {
    /// The first wrapped row shown, as asked; the draw clamps it to the end.
    offset: usize,
    /// The wrapped rows and the height of the last draw, to clamp and page.
    rows: Cell<usize>,
    height: Cell<usize>,
}

impl ScrollPane {
    /// Scrolls for a movement action; false for any other action.
    pub fn handle(&mut self, action: Action) -> bool {
        let page = self.height.get().max(1);
        let last = self.last_offset();
        self.offset = match action {
            Action::Down => self.offset.min(last).saturating_add(1),
            Action::Up => self.offset.min(last).saturating_sub(1),
            Action::PageDown => self.offset.min(last).saturating_add(page),
            Action::PageUp => self.offset.min(last).saturating_sub(page),
            Action::Top => 0,
            Action::Bottom => usize::MAX,
            _ => return false,
        }
        .min(last);
        true
    }

    /// Back to the top (new text).
    pub fn reset(&mut self) {
        self.offset = 0;
    }

    pub fn offset(&self) -> usize {
        self.offset.min(self.last_offset())
    }

    fn last_offset(&self) -> usize {
        // Before any draw nothing is known: let the draw clamp.
        if self.height.get() == 0 {
            return usize::MAX;
        }
        self.rows.get().saturating_sub(self.height.get())
    }

    /// Draws `lines` wrapped inside `block` in `area`, from the offset; the
    /// bottom border says `↓ N more` while rows lie below, and how to scroll.
    pub fn draw(
        &self,
        frame: &mut Frame,
        area: Rect,
        block: Block<'_>,
        lines: Vec<Line<'static>>,
        theme: &Theme,
        keymap: &Keymap,
    ) {
        let inner = block.inner(area);
        frame.render_widget(block, area);
        let wrapped = wrap_lines(lines, inner.width as usize);
        let fits = wrapped.len() <= inner.height as usize;
        // When the text is longer than the pane, its last row says so.
        let height = if fits {
            inner.height as usize
        } else {
            (inner.height as usize).saturating_sub(1).max(1)
        };
        self.rows.set(wrapped.len());
        self.height.set(height);
        let offset = self.offset();
        let below = wrapped.len().saturating_sub(offset + height);
        let shown: Vec<Line> = wrapped.into_iter().skip(offset).take(height).collect();
        let mut text_area = inner;
        text_area.height = text_area.height.min(height as u16);
        frame.render_widget(Paragraph::new(shown), text_area);
        if !fits && inner.height > 1 {
            let mut hint = String::new();
            if offset > 0 {
                hint.push_str(&format!("↑ {offset} above  "));
            }
            if below > 0 {
                hint.push_str(&format!("↓ {below} more  "));
            }
            hint.push_str(&format!(
                "{}/{} {}/{} scroll",
                keymap.key_for(Action::Down),
                keymap.key_for(Action::Up),
                keymap.key_for(Action::PageDown),
                keymap.key_for(Action::PageUp)
            ));
            let hint_area = Rect {
                y: inner.y + inner.height - 1,
                height: 1,
                ..inner
            };
            frame.render_widget(
                Paragraph::new(Line::from(Span::styled(
                    crate::text::fit(&hint, inner.width as usize),
                    theme.dim,
                )))
                .right_aligned(),
                hint_area,
            );
        }
    }
}

/// Wraps each line to `width` cells: at the last space that fits, else
/// mid-word. Styles are kept. A labelled line (a first span that ends in a
/// space, the label's padding, followed by its value) wraps under its value,
/// not under its label: "Granted to" and a long URL stay in their column.
pub fn wrap_lines(lines: Vec<Line<'static>>, width: usize) -> Vec<Line<'static>> {
    let width = width.max(1);
    let mut out = Vec::new();
    for line in lines {
        if line.width() <= width {
            out.push(line);
            continue;
        }
        let indent = hanging_indent(&line, width);
        // The label's padding is no place to break.
        let label_chars = if indent > 0 {
            line.spans[0].content.chars().count()
        } else {
            0
        };
        let chars: Vec<(char, Style)> = line
            .spans
            .iter()
            .flat_map(|span| {
                let style = line.style.patch(span.style);
                span.content.chars().map(move |ch| (ch, style))
            })
            .collect();
        let mut start = 0;
        while start < chars.len() {
            // Rows after the first start under the value.
            let (lead, room) = if start == 0 {
                (0, width)
            } else {
                (indent, width - indent)
            };
            let mut used = 0;
            let mut end = start;
            let mut last_space = None;
            while end < chars.len() {
                let w = chars[end].0.width().unwrap_or(0);
                if used + w > room {
                    break;
                }
                if chars[end].0 == ' ' && end >= label_chars {
                    last_space = Some(end);
                }
                used += w;
                end += 1;
            }
            if end == start {
                // A character wider than the pane: show it alone.
                end = start + 1;
            } else if end < chars.len()
                && let Some(space) = last_space.filter(|&space| space > start)
            {
                end = space + 1;
            }
            let mut row = styled_line(&chars[start..end]);
            if lead > 0 {
                row.spans.insert(0, Span::raw(" ".repeat(lead)));
            }
            out.push(row);
            start = end;
        }
    }
    out
}

/// The width of a labelled line's label (its first span, padded with
/// spaces, then a value), when at most half the pane: where its wrapped
/// rows start. Zero for any other line.
fn hanging_indent(line: &Line<'_>, width: usize) -> usize {
    match line.spans.as_slice() {
        [label, _, ..] if label.content.ends_with(' ') && label.width() * 2 <= width => {
            label.width()
        }
        _ => 0,
    }
}

/// Characters with their styles, as spans of equal style.
fn styled_line(chars: &[(char, Style)]) -> Line<'static> {
    let mut spans: Vec<Span<'static>> = Vec::new();
    let mut text = String::new();
    let mut current: Option<Style> = None;
    for &(ch, style) in chars {
        if current.is_some_and(|c| c != style) {
            spans.push(Span::styled(
                std::mem::take(&mut text),
                current.unwrap_or_default(),
            ));
        }
        current = Some(style);
        text.push(ch);
    }
    if !text.is_empty() {
        spans.push(Span::styled(text, current.unwrap_or_default()));
    }
    Line::from(spans)
}

#[cfg(test)]
mod tests {
    use super::*;
    use ratatui::Terminal;
    use ratatui::backend::TestBackend;
    use ratatui::widgets::Borders;

    #[test]
    fn long_text_wraps_at_spaces_and_scrolls_to_its_end() {
        let wrapped = wrap_lines(vec![Line::from("alpha beta gamma delta")], 11);
        let texts: Vec<String> = wrapped.iter().map(|l| l.to_string()).collect();
        assert_eq!(texts, ["alpha beta ", "gamma delta"]);
        let long = "x".repeat(25);
        assert_eq!(wrap_lines(vec![Line::from(long)], 10).len(), 3);

        // Issue 35, item 22: a labelled value wraps under the value.
        let labelled = Line::from(vec![
            Span::raw("Screenshot     "),
            Span::raw("https://screenshots.example/prj_0123456789abcdef.png"),
        ]);
        let texts: Vec<String> = wrap_lines(vec![labelled], 40)
            .iter()
            .map(|l| l.to_string())
            .collect();
        assert_eq!(
            texts,
            [
                "Screenshot     https://screenshots.examp",
                "               le/prj_0123456789abcdef.p",
                "               ng",
            ]
        );

        let quote = format!("{}END", "word ".repeat(1_000));
        let mut pane = ScrollPane::default();
        let mut terminal = Terminal::new(TestBackend::new(40, 8)).unwrap();
        let draw = |pane: &ScrollPane, terminal: &mut Terminal<TestBackend>| {
            terminal
                .draw(|frame| {
                    let block = Block::default().borders(Borders::ALL);
                    pane.draw(
                        frame,
                        frame.area(),
                        block,
                        vec![Line::from(quote.clone())],
                        &Theme::for_terminal(
                            crate::tui::theme::ThemeName::Dark,
                            crate::tui::theme::ColorDepth::None,
                        ),
                        &Keymap::default(),
                    )
                })
                .unwrap();
            terminal.backend().to_string()
        };
        let first = draw(&pane, &mut terminal);
        assert!(first.contains("more"), "{first}");
        assert!(!first.contains("END"));
        assert!(pane.handle(Action::Bottom));
        let last = draw(&pane, &mut terminal);
        assert!(last.contains("END"), "{last}");
        assert!(!last.contains("more"), "{last}");
        assert!(pane.handle(Action::Up));
        assert!(pane.handle(Action::Top));
        assert_eq!(pane.offset(), 0);
        assert!(!pane.handle(Action::Open));
    }
}
