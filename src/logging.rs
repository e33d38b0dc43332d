//! Where logs go: a file in the data dir while the dashboard owns the terminal,
//! stderr for the server and the script commands.

use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use tracing_subscriber::EnvFilter;
use tracing_subscriber::fmt::MakeWriter;

use crate::text::escape_invisible_bytes;

fn filter(default: &str) -> EnvFilter {
    EnvFilter::try_from_env("VANTAGE_LOG").unwrap_or_else(|_| EnvFilter::new(default))
}

/// Logs to `dir/vantage.log`, never to the terminal. Returns the file's path.
/// The log holds request ids and errors: 0600, never through a planted link.
pub fn to_file(dir: &Path) -> std::io::Result<PathBuf> {
    let path = dir.join("vantage.log");
    let file = crate::safe_file::open_private_append(&path)?;
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter("info"))
        .with_ansi(false)
        .with_writer(EscapedFile(Arc::new(Mutex::new(file))))
        .try_init();
    Ok(path)
}

/// The log file. Log lines quote the service (names, error details), and an
/// operator reads the log with `tail -f` in a terminal: each event is escaped
/// whole as stderr's are, its inner line feeds too, then written in one piece.
struct EscapedFile(Arc<Mutex<File>>);

impl<'a> MakeWriter<'a> for EscapedFile {
    type Writer = EscapedEvent;

    fn make_writer(&'a self) -> EscapedEvent {
        EscapedEvent {
            file: Arc::clone(&self.0),
            event: Vec::new(),
        }
    }
}

/// One event on its way to the log file, escaped when dropped, so a
/// character split across writes is never escaped in halves.
struct EscapedEvent {
    file: Arc<Mutex<File>>,
    event: Vec<u8>,
}

impl Write for EscapedEvent {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.event.extend_from_slice(bytes);
        Ok(bytes.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl Drop for EscapedEvent {
    fn drop(&mut self) {
        if self.event.is_empty() {
            return;
        }
        // One event, one line: a line feed the service sent inside a name
        // must not forge a log line of its own.
        let body = self.event.strip_suffix(b"\n").unwrap_or(&self.event);
        let mut line = escape_invisible_bytes(body).replace('\n', "\\n");
        line.push('\n');
        if let Ok(mut file) = self.file.lock() {
            let _ = file.write_all(line.as_bytes());
        }
    }
}

/// Logs to stderr at `default` level unless `VANTAGE_LOG` says otherwise;
/// in colour only on a terminal, so a redirected log file or a journal gets
/// no escape codes.
pub fn to_stderr(default: &str) {
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter(default))
        // Colours would only show as escapes: the writer escapes every control.
        .with_ansi(false)
        .with_writer(crate::stderr::LogWriter::default)
        .try_init();
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hostile::hostile_strings;

    #[test]
    fn a_logged_service_string_reaches_the_file_inert() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("vantage.log");
        let file = File::create(&path).unwrap();
        let writer = EscapedFile(Arc::new(Mutex::new(file)));
        for hostile in hostile_strings() {
            let mut event = writer.make_writer();
            // As tracing writes an event: in pieces, ending with a newline.
            let line = format!("WARN poll failed name={hostile}\n");
            let (head, tail) = line.as_bytes().split_at(line.len() / 2);
            event.write_all(head).unwrap();
            event.write_all(tail).unwrap();
        }
        let written = std::fs::read(&path).unwrap();
        let text = String::from_utf8(written).expect("UTF-8");
        assert_eq!(text.lines().count(), hostile_strings().len(), "{text}");
        for ch in text.chars() {
            // ZWNJ and ZWJ stay, as names may hold them (DESIGN.md).
            let inert = matches!(ch, '\n' | '\u{200c}' | '\u{200d}')
                || !(ch.is_control()
                    || ('\u{200b}'..='\u{200f}').contains(&ch)
                    || ('\u{2028}'..='\u{202e}').contains(&ch)
                    || ('\u{2066}'..='\u{2069}').contains(&ch)
                    || ('\u{e0000}'..='\u{e007f}').contains(&ch)
                    || ch == '\u{feff}');
            assert!(inert, "{ch:?} reached the log raw: {text}");
        }
    }
}
