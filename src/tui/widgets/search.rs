//! The search box of a server-paged list: it opens over the filter line;
//! what is typed is searched after a short pause (one request, not one a
//! key), `Enter` searches at once and closes it, `Esc` closes it and puts
//! back the search from before it opened.

use crossterm::event::{KeyCode, KeyEvent};
use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;
use time::OffsetDateTime;
use tui_input::Input;
use tui_input::backend::crossterm::EventHandler;

use crate::text::{fit, sanitize_line};
use crate::tui::theme::Theme;

/// Typing waits this long before the list is asked for anew.
pub const DEBOUNCE: time::Duration = time::Duration::milliseconds(250);

/// Whether every term of `text` is shorter than the 3 characters the
/// service reads (such a search matches everything).
pub fn only_short_terms(text: &str) -> bool {
    !text.trim().is_empty() && text.split_whitespace().all(|t| t.chars().count() < 3)
}

/// Edits `field` with `key`; true when the text changed.
fn edited(field: &mut Input, key: &KeyEvent) -> bool {
    let before = field.value().to_owned();
    field.handle_event(&crossterm::event::Event::Key(*key));
    field.value() != before
}

/// What a key did to the search: the text to search for now (when it
/// changed), and whether the list must be read anew at once.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct SearchEdit {
    pub text: Option<String>,
    pub reload: bool,
}

#[derive(Debug, Default)]
pub struct SearchBox {
    /// The field while the box is open, and the search when it opened.
    open: Option<(Input, String)>,
    /// When a typed search is due; `None` once it was sent.
    deadline: Option<OffsetDateTime>,
    /// The search the list's rows answer: the one from before the box
    /// opened, then each typed search once it was sent.
    shown: String,
}

impl SearchBox {
    /// Opens the box on the search `current`.
    pub fn open(&mut self, current: &str) {
        self.open = Some((Input::new(current.to_owned()), current.to_owned()));
        self.shown = current.to_owned();
    }

    pub fn is_open(&self) -> bool {
        self.open.is_some()
    }

    /// Closes the box and forgets a search not sent yet (one set from outside
    /// replaces it).
    pub fn close(&mut self) {
        self.open = None;
        self.deadline = None;
    }

    /// A key while the box is open; `None` when it is closed.
    pub fn handle_key(&mut self, key: &KeyEvent, now: OffsetDateTime) -> Option<SearchEdit> {
        let (field, before) = self.open.as_mut()?;
        Some(match key.code {
            KeyCode::Esc => {
                let before = std::mem::take(before);
                // An earlier edit may have been sent already: the rows then
                // answer it, not `before`, whatever the field holds now.
                let rows_differ = self.shown != before;
                let typed = field.value() != before;
                self.deadline = None;
                self.open = None;
                SearchEdit {
                    reload: rows_differ,
                    text: (typed || rows_differ).then_some(before),
                }
            }
            KeyCode::Enter => {
                self.open = None;
                SearchEdit {
                    text: None,
                    reload: self.deadline.take().is_some(),
                }
            }
            _ if edited(field, key) => {
                self.deadline = Some(now + DEBOUNCE);
                SearchEdit {
                    text: Some(field.value().to_owned()),
                    reload: false,
                }
            }
            _ => SearchEdit::default(),
        })
    }

    /// When the typed search is due, if one waits.
    pub fn deadline(&self) -> Option<OffsetDateTime> {
        self.deadline
    }

    /// Whether the typed search is due at `now`; it is then no longer waiting.
    pub fn due(&mut self, now: OffsetDateTime) -> bool {
        let due = self.deadline.is_some_and(|at| at <= now);
        if due {
            self.deadline = None;
            if let Some((field, _)) = &self.open {
                self.shown = field.value().to_owned();
            }
        }
        due
    }

    /// Draws the list's filter line: the open box (`search: text▏`, with a
    /// word on short terms when `note_short`), else `summary`.
    pub fn draw(
        &self,
        frame: &mut Frame,
        area: Rect,
        theme: &Theme,
        note_short: bool,
        summary: impl FnOnce() -> String,
    ) {
        let Some((field, _)) = &self.open else {
            let summary = fit(&summary(), area.width as usize);
            frame.render_widget(Paragraph::new(Span::styled(summary, theme.accent)), area);
            return;
        };
        let value = field.value();
        let width = area.width.saturating_sub(10) as usize;
        let scroll = field.visual_scroll(width);
        let shown: String = value.chars().skip(scroll).take(width).collect();
        let mut spans = vec![
            Span::styled("search: ", theme.key),
            Span::raw(sanitize_line(&shown).into_owned()),
            Span::styled("▏", theme.accent),
        ];
        if note_short && only_short_terms(value) {
            spans.push(Span::styled(
                "  (terms under 3 characters are ignored)",
                theme.dim,
            ));
        }
        let cursor_x = area.x + 8 + field.visual_cursor().saturating_sub(scroll) as u16;
        frame.set_cursor_position((cursor_x.min(area.right().saturating_sub(1)), area.y));
        frame.render_widget(Paragraph::new(Line::from(spans)), area);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crossterm::event::KeyModifiers;

    fn key(code: KeyCode) -> KeyEvent {
        KeyEvent::new(code, KeyModifiers::NONE)
    }

    /// What Esc gives when it puts `text` back.
    fn put_back(text: &str, reload: bool) -> Option<SearchEdit> {
        Some(SearchEdit {
            text: Some(text.into()),
            reload,
        })
    }

    /// Opens the box on `text`, types `typed`, and lets the pause end: sent.
    fn send_edit(search: &mut SearchBox, text: &str, typed: char, now: OffsetDateTime) {
        search.open(text);
        search.handle_key(&key(KeyCode::Char(typed)), now);
        assert!(search.due(now + DEBOUNCE), "{text}{typed} is sent");
    }

    #[test]
    fn typing_waits_enter_sends_and_esc_puts_back() {
        let now = OffsetDateTime::UNIX_EPOCH;
        let mut search = SearchBox::default();
        assert_eq!(search.handle_key(&key(KeyCode::Esc), now), None, "closed");
        search.open("old");
        let typed = search.handle_key(&key(KeyCode::Char('x')), now);
        assert_eq!(typed.and_then(|edit| edit.text).as_deref(), Some("oldx"));
        assert!(!search.due(now + DEBOUNCE / 2));
        // Esc before the pause ended: back to "old", nothing was sent.
        let esc = search.handle_key(&key(KeyCode::Esc), now);
        assert_eq!(esc, put_back("old", false));
        send_edit(&mut search, "old", 'y', now);
        // Sent already: Esc reads the old search again.
        let esc = search.handle_key(&key(KeyCode::Esc), now);
        assert_eq!(esc.map(|edit| edit.reload), Some(true));
        search.open("old");
        search.handle_key(&key(KeyCode::Backspace), now);
        let enter = search.handle_key(&key(KeyCode::Enter), now);
        assert_eq!(enter.map(|edit| edit.reload), Some(true), "sent at once");
        assert!(!search.is_open() && search.deadline().is_none());
        assert!(only_short_terms("ab c") && !only_short_terms("abc"));
    }

    #[test]
    fn esc_after_a_sent_edit_and_a_pending_one_reads_the_old_search_again() {
        let now = OffsetDateTime::UNIX_EPOCH;
        let mut search = SearchBox::default();
        send_edit(&mut search, "abc", 'd', now);
        // Another key, then Esc before its pause ends: the rows answer
        // "abcd", so putting back "abc" must read the list again.
        search.handle_key(&key(KeyCode::Char('e')), now + DEBOUNCE);
        let esc = search.handle_key(&key(KeyCode::Esc), now + DEBOUNCE);
        assert_eq!(esc, put_back("abc", true));
        // Sent, then edited back to where it began: still a reload.
        send_edit(&mut search, "abc", 'd', now);
        search.handle_key(&key(KeyCode::Backspace), now + DEBOUNCE);
        let esc = search.handle_key(&key(KeyCode::Esc), now + DEBOUNCE);
        assert_eq!(esc, put_back("abc", true));
    }
}
