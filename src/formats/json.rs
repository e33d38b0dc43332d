//! JSON and JSON Lines, lossless and inert on a terminal.
//!
//! serde_json escapes C0 controls itself; [`InertFormatter`] also writes DEL,
//! the C1 controls, bidi controls and other invisible format characters, and
//! U+2028/2029, as `\uXXXX` (surrogate pairs beyond the BMP). The parsed value
//! is exactly the server's; the bytes hold nothing a terminal acts on.

use std::io::{self, Write};

use serde::Serialize;
use serde_json::ser::{CharEscape, CompactFormatter, Formatter, PrettyFormatter};

use super::error::OutputError;
use crate::text::is_invisible_or_control;

/// A serde_json formatter that escapes what [`is_invisible_or_control`] names,
/// around another formatter (compact or pretty) that keeps the layout.
#[derive(Debug, Clone, Default)]
pub struct InertFormatter<F>(pub F);

/// Writes `value` as compact JSON.
pub fn to_writer<W: Write, T: Serialize + ?Sized>(out: W, value: &T) -> serde_json::Result<()> {
    let mut serializer =
        serde_json::Serializer::with_formatter(out, InertFormatter(CompactFormatter));
    value.serialize(&mut serializer)
}

/// Writes `value` as pretty JSON (two-space indent).
pub fn to_writer_pretty<W: Write, T: Serialize + ?Sized>(
    out: W,
    value: &T,
) -> serde_json::Result<()> {
    let formatter = InertFormatter(PrettyFormatter::new());
    let mut serializer = serde_json::Serializer::with_formatter(out, formatter);
    value.serialize(&mut serializer)
}

/// `value` as compact JSON text.
pub fn to_string<T: Serialize + ?Sized>(value: &T) -> serde_json::Result<String> {
    let mut out = Vec::new();
    to_writer(&mut out, value)?;
    // The serializer writes UTF-8 only, and every escape is ASCII.
    String::from_utf8(out).map_err(|error| serde_json::Error::io(io::Error::other(error)))
}

macro_rules! delegate {
    ($($name:ident($($arg:ident: $ty:ty),*);)+) => {
        $(fn $name<W: ?Sized + Write>(&mut self, writer: &mut W $(, $arg: $ty)*) -> io::Result<()> {
            self.0.$name(writer $(, $arg)*)
        })+
    };
}

impl<F: Formatter> Formatter for InertFormatter<F> {
    delegate! {
        begin_array();
        end_array();
        begin_array_value(first: bool);
        end_array_value();
        begin_object();
        end_object();
        begin_object_key(first: bool);
        end_object_key();
        begin_object_value();
        end_object_value();
        write_char_escape(char_escape: CharEscape);
    }

    fn write_string_fragment<W: ?Sized + Write>(
        &mut self,
        writer: &mut W,
        fragment: &str,
    ) -> io::Result<()> {
        let mut start = 0;
        for (index, ch) in fragment.char_indices() {
            if !is_invisible_or_control(ch) {
                continue;
            }
            self.0
                .write_string_fragment(writer, &fragment[start..index])?;
            write_unicode_escape(writer, ch)?;
            start = index + ch.len_utf8();
        }
        self.0.write_string_fragment(writer, &fragment[start..])
    }

    /// JSON text passed through unparsed (`RawValue`): [`write_inert_text`].
    fn write_raw_fragment<W: ?Sized + Write>(
        &mut self,
        writer: &mut W,
        fragment: &str,
    ) -> io::Result<()> {
        write_inert_text(writer, fragment)
    }
}

/// JSON text written as it is, made inert in one pass without a parse: a
/// passed-through item (a `RawValue`, an export's checked item). The text
/// must be valid JSON, which settles where each character can stand: a raw
/// byte below 0x20 is whitespace between tokens (JSON forbids it inside
/// strings), so it becomes a space; DEL and every non-ASCII character are
/// inside a string, where `\uXXXX` means the same character. The parsed value
/// stays the server's.
pub fn write_inert_text<W: ?Sized + Write>(writer: &mut W, text: &str) -> io::Result<()> {
    let bytes = text.as_bytes();
    let mut start = 0;
    let mut at = 0;
    while at < bytes.len() {
        at += printable_ascii_run(&bytes[at..]);
        let Some(&byte) = bytes.get(at) else { break };
        let ch = if byte < 0x80 {
            char::from(byte)
        } else {
            // `at` is on a character boundary: every byte skipped was ASCII.
            text[at..]
                .chars()
                .next()
                .unwrap_or(char::REPLACEMENT_CHARACTER)
        };
        let next = at + ch.len_utf8();
        if is_invisible_or_control(ch) {
            writer.write_all(&bytes[start..at])?;
            if ch < ' ' {
                writer.write_all(b" ")?;
            } else {
                write_unicode_escape(writer, ch)?;
            }
            start = next;
        }
        at = next;
    }
    writer.write_all(&bytes[start..])
}

/// `ch` as a JSON string escape: `\uXXXX`, a surrogate pair beyond the BMP.
fn write_unicode_escape<W: ?Sized + Write>(writer: &mut W, ch: char) -> io::Result<()> {
    let mut units = [0u16; 2];
    for unit in ch.encode_utf16(&mut units) {
        write!(writer, "\\u{unit:04x}")?;
    }
    Ok(())
}

/// How many bytes at the start of `bytes` are printable ASCII (0x20 to 0x7e),
/// the common case of JSON text. Checked 16 bytes at a time without an early
/// exit inside a block, which the compiler turns into vector instructions.
fn printable_ascii_run(bytes: &[u8]) -> usize {
    const BLOCK: usize = 16;
    let printable = |byte: u8| byte.wrapping_sub(0x20) < 0x5f;
    let mut run = 0;
    for block in bytes.chunks_exact(BLOCK) {
        if !block.iter().fold(true, |all, &byte| all & printable(byte)) {
            break;
        }
        run += BLOCK;
    }
    run + bytes[run..]
        .iter()
        .take_while(|&&byte| printable(byte))
        .count()
}

/// A JSON array written item by item, so memory stays flat for any size.
pub struct JsonArrayWriter<W: Write> {
    out: W,
    count: usize,
}

impl<W: Write> JsonArrayWriter<W> {
    pub fn new(mut out: W) -> Result<Self, OutputError> {
        out.write_all(b"[")?;
        Ok(Self { out, count: 0 })
    }

    pub fn write<T: Serialize + ?Sized>(&mut self, item: &T) -> Result<(), OutputError> {
        self.next_item()?;
        to_writer(&mut self.out, item)?;
        Ok(())
    }

    /// An item that is JSON text already, written as it is, made inert.
    pub fn write_text(&mut self, json: &str) -> Result<(), OutputError> {
        self.next_item()?;
        write_inert_text(&mut self.out, json)?;
        Ok(())
    }

    fn next_item(&mut self) -> Result<(), OutputError> {
        if self.count > 0 {
            self.out.write_all(b",")?;
        }
        self.out.write_all(b"\n  ")?;
        self.count += 1;
        Ok(())
    }

    pub fn flush(&mut self) -> Result<(), OutputError> {
        self.out.flush()?;
        Ok(())
    }

    pub fn finish(mut self) -> Result<W, OutputError> {
        if self.count > 0 {
            self.out.write_all(b"\n")?;
        }
        self.out.write_all(b"]\n")?;
        self.out.flush()?;
        Ok(self.out)
    }
}

/// One compact JSON object per line.
pub struct JsonLinesWriter<W: Write> {
    out: W,
}

impl<W: Write> JsonLinesWriter<W> {
    pub fn new(out: W) -> Self {
        Self { out }
    }

    pub fn write<T: Serialize + ?Sized>(&mut self, item: &T) -> Result<(), OutputError> {
        to_writer(&mut self.out, item)?;
        self.out.write_all(b"\n")?;
        Ok(())
    }

    /// An item that is JSON text already, written as it is, made inert.
    pub fn write_text(&mut self, json: &str) -> Result<(), OutputError> {
        write_inert_text(&mut self.out, json)?;
        self.out.write_all(b"\n")?;
        Ok(())
    }

    pub fn flush(&mut self) -> Result<(), OutputError> {
        self.out.flush()?;
        Ok(())
    }

    pub fn finish(mut self) -> Result<W, OutputError> {
        self.out.flush()?;
        Ok(self.out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{Value, json};

    #[test]
    fn writes_a_json_array_incrementally() {
        let mut writer = JsonArrayWriter::new(Vec::new()).unwrap();
        writer.write(&json!({"a": 1})).unwrap();
        writer.write(&json!({"a": 2})).unwrap();
        writer.write_text(r#"{"a": 3}"#).unwrap();
        let text = String::from_utf8(writer.finish().unwrap()).unwrap();
        let parsed: Value = serde_json::from_str(&text).unwrap();
        assert_eq!(parsed, json!([{"a": 1}, {"a": 2}, {"a": 3}]));
        let empty = JsonArrayWriter::new(Vec::new()).unwrap().finish().unwrap();
        assert_eq!(serde_json::from_slice::<Value>(&empty).unwrap(), json!([]));
    }

    #[test]
    fn escapes_what_a_terminal_could_act_on() {
        let text = "\u{1b}[2J\u{7f}\u{9b}1m\u{202e}x\u{2028}\u{feff}\u{e0001}\u{200d}é";
        assert_eq!(
            to_string(&json!({ "s": text })).unwrap(),
            r#"{"s":"\u001b[2J\u007f\u009b1m\u202ex\u2028\ufeff\udb40\udc01"#.to_owned()
                + "\u{200d}é\"}"
        );
    }

    #[test]
    fn raw_items_pass_through_when_inert_and_are_escaped_when_not() {
        use serde_json::value::RawValue;
        let plain = RawValue::from_string(r#"{"name":"Budget app é","n":1.50}"#.into()).unwrap();
        assert_eq!(
            to_string(&plain).unwrap(),
            r#"{"name":"Budget app é","n":1.50}"#
        );
        for hostile in crate::hostile::hostile_strings() {
            let value = json!({ "name": hostile, "nested": [hostile] });
            // As a server may send it: raw characters, pretty-printed over lines.
            let text = serde_json::to_string_pretty(&value).unwrap();
            let mut as_text = JsonLinesWriter::new(Vec::new());
            as_text.write_text(&text).unwrap();
            let raw = RawValue::from_string(text).unwrap();
            let mut lines = JsonLinesWriter::new(Vec::new());
            lines.write(&raw).unwrap();
            let bytes = lines.finish().unwrap();
            // An export's checked item is written as a `RawValue` is.
            assert_eq!(as_text.finish().unwrap(), bytes);
            let out = std::str::from_utf8(&bytes).unwrap();
            assert_eq!(out.matches('\n').count(), 1, "{out:?}");
            assert!(
                out.chars()
                    .all(|ch| ch == '\n' || !is_invisible_or_control(ch)),
                "{out:?}"
            );
            assert_eq!(serde_json::from_str::<Value>(out).unwrap(), value);
        }
    }

    #[test]
    fn hostile_strings_round_trip_through_inert_bytes() {
        for hostile in crate::hostile::hostile_strings() {
            let value = json!({ "name": hostile, "nested": [hostile] });
            for bytes in [to_string(&value).unwrap().into_bytes(), {
                let mut out = Vec::new();
                to_writer_pretty(&mut out, &value).unwrap();
                out
            }] {
                let text = std::str::from_utf8(&bytes).unwrap();
                assert!(
                    text.chars()
                        .all(|ch| ch == '\n' || !is_invisible_or_control(ch)),
                    "{text:?}"
                );
                assert_eq!(serde_json::from_slice::<Value>(&bytes).unwrap(), value);
            }
        }
    }
}
