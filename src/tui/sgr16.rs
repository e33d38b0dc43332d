//! The bytes a 16-colour terminal reads. crossterm writes every colour in the
//! 256-colour form, the 16 named ones too (`ESC[38;5;8m` for dark grey), which
//! a terminal of 16 colours (`TERM=xterm`, no `COLORTERM`) may not read. On
//! such a terminal this writer turns each into its 16-colour code (`90`), as
//! ncurses does from terminfo's `setaf`; a colour beyond the 16 (none is
//! chosen there: the theme is built for the depth) becomes the default.

use std::io::{self, Write};

/// Longest control sequence held back while its end is awaited; a longer one
/// is no colour and goes out as it came.
const MAX_SEQUENCE: usize = 64;

/// Passes bytes to `inner`, rewriting SGR colours to the 16-colour codes when
/// `sixteen` is set.
#[derive(Debug)]
pub struct Sgr16<W: Write> {
    inner: W,
    sixteen: bool,
    /// A control sequence begun in one write and not yet ended.
    pending: Vec<u8>,
}

impl<W: Write> Sgr16<W> {
    pub fn new(inner: W, sixteen: bool) -> Self {
        Self {
            inner,
            sixteen,
            pending: Vec::new(),
        }
    }

    pub fn get_ref(&self) -> &W {
        &self.inner
    }

    /// One byte: out at once, or kept while it may belong to a colour.
    fn take(&mut self, byte: u8, out: &mut Vec<u8>) {
        match (self.pending.len(), byte) {
            (0, 0x1b) => self.pending.push(byte),
            (0, _) => out.push(byte),
            (1, b'[') => self.pending.push(byte),
            (1, _) => {
                out.append(&mut self.pending);
                // An escape may start the next sequence at once.
                self.take(byte, out);
            }
            (_, b'm') => {
                let params = &self.pending[2..];
                out.extend_from_slice(b"\x1b[");
                out.extend_from_slice(rewrite(params).as_bytes());
                out.push(b'm');
                self.pending.clear();
            }
            (_, 0x40..=0x7e) => {
                out.append(&mut self.pending);
                out.push(byte);
            }
            _ => {
                self.pending.push(byte);
                if self.pending.len() > MAX_SEQUENCE {
                    out.append(&mut self.pending);
                }
            }
        }
    }
}

impl<W: Write> Write for Sgr16<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        if !self.sixteen {
            return self.inner.write(buf);
        }
        let mut out = Vec::with_capacity(buf.len() + 8);
        for &byte in buf {
            self.take(byte, &mut out);
        }
        self.inner.write_all(&out)?;
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}

/// The parameters of one SGR sequence with each colour in its 16-colour code.
fn rewrite(params: &[u8]) -> String {
    let text = String::from_utf8_lossy(params);
    let parts: Vec<&str> = text.split(';').collect();
    let mut out: Vec<String> = Vec::with_capacity(parts.len());
    let mut index = 0;
    while index < parts.len() {
        let part = parts[index];
        let (base, bright) = match part {
            "38" => (30, 90),
            "48" => (40, 100),
            // The underline's colour: no 16-colour form; the underline stays.
            "58" => (0, 0),
            _ => {
                out.push(part.to_owned());
                index += 1;
                continue;
            }
        };
        let (code, used) = match parts.get(index + 1).copied() {
            Some("5") => {
                let colour = parts.get(index + 2).and_then(|n| n.parse::<u8>().ok());
                let code = match colour {
                    Some(n) if n < 8 => Some(base + u16::from(n)),
                    Some(n) if n < 16 => Some(bright + u16::from(n) - 8),
                    _ => None,
                };
                (code, 3)
            }
            // 24-bit: not chosen at this depth; the default colour.
            Some("2") => (None, 5),
            _ => (None, 1),
        };
        match code {
            Some(code) if base != 0 => out.push(code.to_string()),
            _ if base != 0 => out.push((base + 9).to_string()),
            _ => {}
        }
        index += used;
    }
    out.retain(|part| !part.is_empty());
    out.join(";")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn through(chunks: &[&[u8]]) -> String {
        let mut writer = Sgr16::new(Vec::new(), true);
        for chunk in chunks {
            writer.write_all(chunk).unwrap();
        }
        String::from_utf8(writer.inner).unwrap()
    }

    #[test]
    fn colours_become_their_16_colour_codes() {
        assert_eq!(through(&[b"\x1b[38;5;8mA"]), "\x1b[90mA");
        assert_eq!(through(&[b"\x1b[39;48;5;7m"]), "\x1b[39;47m");
        assert_eq!(through(&[b"\x1b[38;5;1;48;5;12m"]), "\x1b[31;104m");
        assert_eq!(through(&[b"\x1b[38;2;10;20;30mx"]), "\x1b[39mx");
        assert_eq!(through(&[b"\x1b[38;5;200m"]), "\x1b[39m");
    }

    #[test]
    fn a_sequence_split_across_writes_is_read_whole() {
        assert_eq!(
            through(&[b"ab\x1b", b"[38;", b"5;", b"10", b"mcd"]),
            "ab\x1b[92mcd"
        );
    }

    #[test]
    fn other_sequences_and_text_pass_as_they_are() {
        let bytes = "\x1b[2;5H\x1b[1m\x1b[0mé\x1b7\x1b[?2026h";
        assert_eq!(through(&[bytes.as_bytes()]), bytes);
    }

    #[test]
    fn off_when_the_terminal_has_more_colours() {
        let mut writer = Sgr16::new(Vec::new(), false);
        writer.write_all(b"\x1b[38;5;8m").unwrap();
        assert_eq!(writer.inner, b"\x1b[38;5;8m");
    }
}
