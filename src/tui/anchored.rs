//! A backend that puts every cell where the buffer has it, whatever width the
//! terminal gives a character. ratatui measures with `unicode-width`; a
//! terminal may not agree (tmux 3.3a on a joiner before a wide character, an
//! emoji's presentation, an ambiguous-width letter). A run of cells after such
//! a character then lands off by a cell or two: a stray half of "表" stays on
//! a row, and the row's end (a member's Joined cell) is never painted. So each
//! cell after a non-ASCII one is placed by an explicit cursor move, and the
//! cells a wide character covers are cleared before it is drawn: a terminal
//! that draws it narrow shows a blank there, not the previous frame. A
//! zero-width joiner is never sent: tmux 3.3a holds it and joins the next wide
//! character drawn, on any row, into the cell before that character.

use std::io::{self, Write};

use ratatui::backend::{Backend, ClearType, WindowSize};
use ratatui::buffer::Cell;
use ratatui::layout::{Position, Size};
use unicode_width::UnicodeWidthStr;

/// The zero-width joiner.
const ZWJ: char = '\u{200d}';

/// Wraps a backend (crossterm's, in the dashboard); see the module docs.
#[derive(Debug)]
pub struct Anchored<B> {
    inner: B,
}

impl<B> Anchored<B> {
    pub fn new(inner: B) -> Self {
        Self { inner }
    }

    pub fn get_ref(&self) -> &B {
        &self.inner
    }
}

impl<B: Backend> Backend for Anchored<B> {
    type Error = B::Error;

    /// Plain ASCII runs go as one draw (the inner backend moves the cursor
    /// only where a run breaks); a cell holding anything else is drawn by a
    /// draw of its own, which starts with a cursor move, and so does the
    /// cell after it.
    fn draw<'a, I>(&mut self, content: I) -> Result<(), Self::Error>
    where
        I: Iterator<Item = (u16, u16, &'a Cell)>,
    {
        let mut run: Vec<(u16, u16, &Cell)> = Vec::new();
        for (x, y, cell) in content {
            if cell.symbol().is_ascii() {
                run.push((x, y, cell));
                continue;
            }
            self.inner.draw(run.drain(..))?;
            // tmux 3.3a keeps a joiner pending across cells, rows and cursor
            // moves, and joins the next wide character drawn anywhere into
            // the cell before it; a joiner is zero-width, so none is sent.
            let unjoined;
            let cell = if cell.symbol().contains(ZWJ) {
                let mut plain = cell.clone();
                let symbol: String = cell.symbol().chars().filter(|&ch| ch != ZWJ).collect();
                plain.set_symbol(if symbol.is_empty() { " " } else { &symbol });
                unjoined = plain;
                &unjoined
            } else {
                cell
            };
            let covered = cell.symbol().width().saturating_sub(1);
            if covered > 0 {
                let mut blank = cell.clone();
                blank.set_symbol(" ");
                let blanks = (1..=covered)
                    .filter_map(|step| x.checked_add(u16::try_from(step).ok()?))
                    .map(|at| (at, y, &blank));
                self.inner.draw(blanks)?;
            }
            self.inner.draw(std::iter::once((x, y, cell)))?;
        }
        self.inner.draw(run.into_iter())
    }

    fn append_lines(&mut self, n: u16) -> Result<(), Self::Error> {
        self.inner.append_lines(n)
    }

    fn hide_cursor(&mut self) -> Result<(), Self::Error> {
        self.inner.hide_cursor()
    }

    fn show_cursor(&mut self) -> Result<(), Self::Error> {
        self.inner.show_cursor()
    }

    fn get_cursor_position(&mut self) -> Result<Position, Self::Error> {
        self.inner.get_cursor_position()
    }

    fn set_cursor_position<P: Into<Position>>(&mut self, position: P) -> Result<(), Self::Error> {
        self.inner.set_cursor_position(position)
    }

    fn clear(&mut self) -> Result<(), Self::Error> {
        self.inner.clear()
    }

    fn clear_region(&mut self, clear_type: ClearType) -> Result<(), Self::Error> {
        self.inner.clear_region(clear_type)
    }

    fn size(&self) -> Result<Size, Self::Error> {
        self.inner.size()
    }

    fn window_size(&mut self) -> Result<WindowSize, Self::Error> {
        self.inner.window_size()
    }

    fn flush(&mut self) -> Result<(), Self::Error> {
        self.inner.flush()
    }
}

impl<B: Write> Write for Anchored<B> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.inner.write(buf)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ratatui::Terminal;
    use ratatui::backend::CrosstermBackend;
    use ratatui::text::Line;
    use unicode_width::UnicodeWidthChar;

    /// Bytes written, readable after the terminal has them.
    #[derive(Clone, Default)]
    struct Captured(std::rc::Rc<std::cell::RefCell<Vec<u8>>>);

    impl Write for Captured {
        fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
            self.0.borrow_mut().extend_from_slice(buf);
            Ok(buf.len())
        }

        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    /// The bytes of two frames: `first`, then `second` on the same row.
    fn frames(anchored: bool, first: &str, second: &str) -> Vec<u8> {
        let draw = |text: &str| {
            let line = Line::raw(text.to_owned());
            move |frame: &mut ratatui::Frame| frame.render_widget(line, frame.area())
        };
        let captured = Captured::default();
        let crossterm = CrosstermBackend::new(captured.clone());
        if anchored {
            let mut terminal = Terminal::with_options(Anchored::new(crossterm), fixed(12)).unwrap();
            terminal.draw(draw(first)).unwrap();
            terminal.draw(draw(second)).unwrap();
        } else {
            let mut terminal = Terminal::with_options(crossterm, fixed(12)).unwrap();
            terminal.draw(draw(first)).unwrap();
            terminal.draw(draw(second)).unwrap();
        }
        captured.0.borrow().clone()
    }

    fn fixed(width: u16) -> ratatui::TerminalOptions {
        ratatui::TerminalOptions {
            viewport: ratatui::Viewport::Fixed(ratatui::layout::Rect::new(0, 0, width, 1)),
        }
    }

    /// What a terminal that measures each character with `width` shows
    /// after `bytes`: a minimal reader of cursor moves and printed text; the
    /// second cell of a character it draws wide shows as `·`.
    fn terminal(bytes: &[u8], columns: usize, width: impl Fn(char) -> usize) -> String {
        let text = String::from_utf8_lossy(bytes);
        let mut row = vec![' '; columns];
        let mut at = 0usize;
        let mut chars = text.chars().peekable();
        while let Some(ch) = chars.next() {
            if ch != '\u{1b}' {
                for step in 0..width(ch) {
                    if let Some(cell) = row.get_mut(at) {
                        *cell = if step == 0 { ch } else { '·' };
                    }
                    at += 1;
                }
                continue;
            }
            // CSI: ESC [ parameters, then a final letter.
            if chars.next_if_eq(&'[').is_none() {
                continue;
            }
            let mut params = String::new();
            let mut last = ' ';
            for next in chars.by_ref() {
                if next.is_ascii_alphabetic() {
                    last = next;
                    break;
                }
                params.push(next);
            }
            if last == 'H' {
                let column = params
                    .split(';')
                    .nth(1)
                    .and_then(|c| c.parse::<usize>().ok());
                at = column.unwrap_or(1).saturating_sub(1);
            }
        }
        row.into_iter().collect()
    }

    /// Issue 35, item 20: a terminal drew "表" one cell wide (tmux 3.3a,
    /// after a joiner); the cell ratatui left to its second half kept the
    /// previous frame's character.
    #[test]
    fn a_cell_a_wide_character_covers_is_cleared() {
        let narrow = |ch: char| usize::from(ch != '\u{200d}');
        let anchored = terminal(&frames(true, "abcdefghijkl", "ab表cdefghij"), 12, narrow);
        assert_eq!(anchored, "ab表 cdefghij");
        let plain = terminal(&frames(false, "abcdefghijkl", "ab表cdefghij"), 12, narrow);
        assert_eq!(plain, "ab表dcdefghij", "the previous frame shows through");
    }

    /// A terminal that draws "★" two cells wide (an ambiguous-width
    /// character in a CJK locale) pushed the rest of the row right, and its
    /// end off the screen.
    #[test]
    fn cells_after_a_character_drawn_wider_stay_in_their_columns() {
        let wide_star = |ch: char| if ch == '★' { 2 } else { 1 };
        let anchored = terminal(&frames(true, "", "ab★defghijk"), 12, wide_star);
        assert_eq!(anchored, "ab★defghijk ");
        let plain = terminal(&frames(false, "", "ab★defghijk"), 12, wide_star);
        assert_eq!(plain, "ab★·defghijk", "the row is pushed right");
    }

    /// What tmux 3.3a shows after `bytes`: a joiner it reads stays pending,
    /// across cells, rows and cursor moves, and the next wide character is
    /// joined into the cell before it (drawn nowhere, taking no column).
    fn tmux(bytes: &[u8], columns: usize) -> String {
        let text = String::from_utf8_lossy(bytes);
        let mut pending = false;
        let mut kept = String::new();
        for ch in text.chars() {
            match ch {
                ZWJ => pending = true,
                ch if pending && ch.width().unwrap_or(0) > 1 => pending = false,
                ch => kept.push(ch),
            }
        }
        terminal(kept.as_bytes(), columns, |ch| ch.width().unwrap_or(0))
    }

    /// Issue 35, item 20: a joiner inside a name ("joiner\u200ds") drew the
    /// next "表" on screen into another cell (on another row, as often), and
    /// left what was there before where "表" belonged.
    #[test]
    fn a_joiner_never_reaches_the_terminal() {
        let first = "abcdefghijkl";
        let second = "r\u{200d}s w 表示X";
        assert_eq!(tmux(&frames(true, first, second), 12), "rs w 表·示·X  ");
        let plain = tmux(&frames(false, first, second), 12);
        // "表" is drawn nowhere and the previous frame shows in its place.
        assert_eq!(plain, "rs w fg示·X  ");
    }

    #[test]
    fn ascii_rows_go_out_as_one_run() {
        let plain = frames(false, "", "abcdefghijkl");
        assert_eq!(frames(true, "", "abcdefghijkl"), plain);
    }
}
