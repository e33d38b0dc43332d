//! The one door to stderr. Error lines, warnings, progress and logs may quote
//! the service (an error envelope, a name, a URL), and every string from the
//! service is untrusted (DESIGN.md, "Output that is safe to look at"): what
//! goes through here has every control character but the line feed, DEL, C1,
//! bidi, tag and other invisible characters written as visible escapes
//! (`text::escape_invisible_keep_newlines`), whichever field it came from.
//! `clippy.toml` forbids `eprintln!` and `std::io::stderr` elsewhere, so a new
//! message cannot forget the rule.
#![allow(clippy::disallowed_macros, clippy::disallowed_methods)]

use std::fmt::Display;
use std::io::{IsTerminal, Write};

use crate::text::{escape_invisible_bytes, escape_invisible_keep_newlines};

/// Vantage's own terminal control for its progress line: back to the start of
/// the line and erase it. Never built from service text.
const CLEAR_LINE: &str = "\r\x1b[2K";

/// Writes `text` and a line break.
pub fn line(text: impl Display) {
    let text = text.to_string();
    let _ = writeln!(
        std::io::stderr().lock(),
        "{}",
        escape_invisible_keep_newlines(&text)
    );
}

/// Writes `text` without a line break and flushes: a question before an answer
/// is read.
pub fn prompt(text: impl Display) {
    let text = text.to_string();
    let mut stderr = std::io::stderr().lock();
    let _ = write!(stderr, "{}", escape_invisible_keep_newlines(&text));
    let _ = stderr.flush();
}

/// Erases the progress line (on a terminal only: see `cli::progress`).
pub fn clear_line() {
    let _ = write!(std::io::stderr().lock(), "{CLEAR_LINE}");
}

/// Erases the line and draws `text` in its place, without a line break.
pub fn redraw_line(text: &str) {
    let _ = write!(
        std::io::stderr().lock(),
        "{CLEAR_LINE}{}",
        escape_invisible_keep_newlines(text)
    );
}

/// Whether stderr is a terminal, where progress may be drawn.
pub fn is_terminal() -> bool {
    std::io::stderr().is_terminal()
}

/// A writer for `tracing`: it collects one event's bytes and writes them
/// escaped when dropped, so a log line quoting the service is as safe as an
/// error line, and a character split across writes is never escaped in halves.
#[derive(Default)]
pub struct LogWriter {
    event: Vec<u8>,
}

impl Write for LogWriter {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.event.extend_from_slice(bytes);
        Ok(bytes.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl Drop for LogWriter {
    fn drop(&mut self) {
        if !self.event.is_empty() {
            let _ = std::io::stderr()
                .lock()
                .write_all(escape_invisible_bytes(&self.event).as_bytes());
        }
    }
}
