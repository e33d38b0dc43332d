//! Untrusted text made safe for a terminal. Names, descriptions, PII quotes,
//! member names and e-mails come from the API and may hold escape sequences and
//! control characters; everything shown in the TUI or written in a human format
//! passes through here first. This is the one place for those rules:
//!
//! - [`escape_invisible`]: the human formats' rule (`table`, `csv`, error
//!   lines): every control, DEL, C1, bidi control and invisible format character
//!   becomes a visible escape (`\x1b`, `\u202e`); ZWNJ and ZWJ stay.
//! - [`is_invisible_or_control`]: which characters that is; the JSON writer
//!   escapes the same set as `\uXXXX`.
//! - [`sanitize_line`] and [`sanitize_multiline`]: the dashboard's rule, which
//!   drops escape sequences whole.

use std::borrow::Cow;
use std::fmt::Write as _;

use unicode_width::UnicodeWidthChar;

/// Longest run of combining marks kept on one base character ("Zalgo" text).
const MAX_COMBINING_RUN: usize = 2;

/// How line breaks are treated.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Lines {
    /// Line breaks and tabs become spaces.
    Single,
    /// `\n` is kept; `\r\n` becomes `\n`; tabs become spaces.
    Multi,
}

/// One line of safe text: escape sequences removed, control characters dropped
/// or turned into spaces, bidirectional overrides removed.
pub fn sanitize_line(text: &str) -> Cow<'_, str> {
    sanitize(text, Lines::Single)
}

/// Like [`sanitize_line`], but keeps line breaks.
pub fn sanitize_multiline(text: &str) -> Cow<'_, str> {
    sanitize(text, Lines::Multi)
}

fn is_safe_plain(ch: char) -> bool {
    !ch.is_control() && !is_bidi_control(ch) && !is_combining(ch)
}

fn sanitize(text: &str, lines: Lines) -> Cow<'_, str> {
    if text.chars().all(is_safe_plain) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    let mut combining_run = 0;
    while let Some(ch) = chars.next() {
        match ch {
            '\u{1b}' => skip_escape(&mut chars),
            // C1 control sequence introducers, as single code points.
            '\u{9b}' => skip_csi(&mut chars),
            '\u{9d}' | '\u{90}' | '\u{98}' | '\u{9e}' | '\u{9f}' => skip_string(&mut chars),
            '\n' if lines == Lines::Multi => {
                out.push('\n');
                combining_run = 0;
            }
            '\r' if lines == Lines::Multi => {
                if chars.peek() != Some(&'\n') {
                    out.push('\n');
                }
            }
            '\n' | '\r' | '\t' | '\u{b}' | '\u{c}' => {
                if !out.ends_with(' ') {
                    out.push(' ');
                }
                combining_run = 0;
            }
            ch if ch.is_control() || is_bidi_control(ch) => {}
            ch if is_combining(ch) => {
                combining_run += 1;
                if combining_run <= MAX_COMBINING_RUN && !out.is_empty() {
                    out.push(ch);
                }
            }
            ch => {
                combining_run = 0;
                out.push(ch);
            }
        }
    }
    Cow::Owned(out)
}

/// Skips the rest of an escape sequence that began with ESC.
fn skip_escape(chars: &mut std::iter::Peekable<std::str::Chars<'_>>) {
    match chars.next() {
        Some('[') => skip_csi(chars),
        // OSC, DCS, SOS, PM, APC: strings ended by BEL or ST.
        Some(']' | 'P' | 'X' | '^' | '_') => skip_string(chars),
        // Two-character sequences with an intermediate byte, e.g. ESC ( B.
        Some(' '..='/') => {
            chars.next();
        }
        _ => {}
    }
}

/// Skips parameters and intermediates up to the final byte of a CSI sequence.
fn skip_csi(chars: &mut std::iter::Peekable<std::str::Chars<'_>>) {
    for ch in chars.by_ref() {
        if ('\u{40}'..='\u{7e}').contains(&ch) {
            break;
        }
        // A sequence cut short by another control ends here.
        if ch.is_control() {
            break;
        }
    }
}

/// Skips a control string up to BEL, ST (ESC \) or the C1 ST.
fn skip_string(chars: &mut std::iter::Peekable<std::str::Chars<'_>>) {
    while let Some(ch) = chars.next() {
        match ch {
            '\u{7}' | '\u{9c}' => break,
            '\u{1b}' => {
                if chars.peek() == Some(&'\\') {
                    chars.next();
                }
                break;
            }
            _ => {}
        }
    }
}

/// Characters that reorder text on screen (Trojan Source): removed.
fn is_bidi_control(ch: char) -> bool {
    matches!(
        ch,
        '\u{061c}' | '\u{200e}' | '\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}'
    )
}

fn is_combining(ch: char) -> bool {
    use unicode_general_category::{GeneralCategory as Gc, get_general_category};
    matches!(
        get_general_category(ch),
        Gc::NonspacingMark | Gc::EnclosingMark | Gc::SpacingMark
    )
}

/// Whether `ch` is a character no output of vantage writes raw where a person
/// may read it: a control (C0, DEL, C1), an invisible format character (bidi
/// controls, zero-width space, BOM, tag characters, ...) or a line or paragraph
/// separator. ZWNJ and ZWJ, which names may hold, are not.
pub fn is_invisible_or_control(ch: char) -> bool {
    use unicode_general_category::{GeneralCategory as Gc, get_general_category};
    if ch.is_ascii() {
        return ch.is_ascii_control();
    }
    match ch {
        '\u{200c}' | '\u{200d}' => false,
        '\u{80}'..='\u{9f}' => true,
        _ => matches!(
            get_general_category(ch),
            Gc::Format | Gc::LineSeparator | Gc::ParagraphSeparator
        ),
    }
}

/// `text` with every [`is_invisible_or_control`] character written as a visible
/// escape: `\t`, `\n` and `\r`; `\x1b` for the other ASCII controls and DEL;
/// `\u009b` or `\u202e` above (`\u{e0001}` beyond the BMP). Backslashes are
/// left as they are: this is for people, not for parsing back.
pub fn escape_invisible(text: &str) -> Cow<'_, str> {
    if !text.chars().any(is_invisible_or_control) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for ch in text.chars() {
        if !is_invisible_or_control(ch) {
            out.push(ch);
            continue;
        }
        let code = u32::from(ch);
        let _ = match ch {
            '\t' => write!(out, "\\t"),
            '\n' => write!(out, "\\n"),
            '\r' => write!(out, "\\r"),
            _ if ch.is_ascii() => write!(out, "\\x{code:02x}"),
            _ if code <= 0xffff => write!(out, "\\u{code:04x}"),
            _ => write!(out, "\\u{{{code:x}}}"),
        };
    }
    Cow::Owned(out)
}

/// Display width in terminal cells.
pub fn display_width(text: &str) -> usize {
    text.chars().map(|ch| ch.width().unwrap_or(0)).sum()
}

/// Sanitizes one line and cuts it to `max_width` cells, ending in `…` when cut.
pub fn fit(text: &str, max_width: usize) -> String {
    let clean = sanitize_line(text);
    if display_width(&clean) <= max_width {
        return clean.into_owned();
    }
    if max_width == 0 {
        return String::new();
    }
    let mut out = String::new();
    let mut used = 0;
    for ch in clean.chars() {
        let width = ch.width().unwrap_or(0);
        if used + width > max_width - 1 {
            break;
        }
        used += width;
        out.push(ch);
    }
    out.push('…');
    out
}

/// Like [`fit`], but cuts from the middle: `/home/ada/…/inventory-2026.csv`.
/// For paths and ids, whose both ends matter.
pub fn fit_middle(text: &str, max_width: usize) -> String {
    let clean = sanitize_line(text);
    if display_width(&clean) <= max_width {
        return clean.into_owned();
    }
    if max_width < 3 {
        return fit(&clean, max_width);
    }
    let chars: Vec<char> = clean.chars().collect();
    let budget = max_width - 1;
    let (mut head, mut tail) = (String::new(), Vec::new());
    let (mut head_width, mut tail_width) = (0, 0);
    for ch in &chars {
        let width = ch.width().unwrap_or(0);
        // A third for the head, the rest for the tail: a file name matters most.
        if head_width + width > budget / 3 {
            break;
        }
        head_width += width;
        head.push(*ch);
    }
    for ch in chars.iter().rev() {
        let width = ch.width().unwrap_or(0);
        if head_width + tail_width + width > budget {
            break;
        }
        tail_width += width;
        tail.push(*ch);
    }
    head.push('…');
    head.extend(tail.into_iter().rev());
    head
}

#[cfg(test)]
mod tests {
    use super::*;

    fn has_no_controls(text: &str) -> bool {
        !text.chars().any(|ch| ch.is_control() && ch != '\n')
    }

    #[test]
    fn fit_middle_keeps_both_ends() {
        assert_eq!(fit_middle("short", 10), "short");
        let path = "/home/ada/.local/share/vantage/exports/inventory-20261122.csv";
        let cut = fit_middle(path, 40);
        assert_eq!(display_width(&cut), 40);
        assert!(cut.starts_with("/home/ada/"), "{cut}");
        assert!(cut.ends_with("inventory-20261122.csv"), "{cut}");
        assert!(cut.contains('…'));
    }

    #[test]
    fn strips_escape_sequences_and_controls() {
        let cases = [
            ("\u{1b}[31mRED\u{1b}[0m", "RED"),
            ("a\u{1b}]0;title\u{7}b", "ab"),
            ("a\u{1b}]52;c;ZXZpbA==\u{1b}\\b", "ab"),
            ("\u{1b}]8;;https://x/\u{1b}\\link\u{1b}]8;;\u{1b}\\", "link"),
            ("bell\u{7}nul\u{0}del\u{7f}", "bellnuldel"),
            ("c1\u{9b}31mred", "c1red"),
            ("tab\there", "tab here"),
            ("two\nlines\r\n", "two lines "),
            ("\u{202e}evil\u{2066}x\u{2069}", "evilx"),
            ("plain text", "plain text"),
            ("\u{1b}(Bcharset", "charset"),
            ("\u{1b}", ""),
            ("\u{1b}[", ""),
        ];
        for (input, expected) in cases {
            assert_eq!(sanitize_line(input), expected, "{input:?}");
        }
    }

    #[test]
    fn multiline_keeps_breaks_only() {
        assert_eq!(sanitize_multiline("a\r\nb\rc\n\u{1b}[2Jd"), "a\nb\nc\nd");
    }

    #[test]
    fn caps_combining_runs() {
        let zalgo = "Z\u{351}\u{358}\u{300}\u{301}a";
        assert_eq!(sanitize_line(zalgo), "Z\u{351}\u{358}a");
        assert_eq!(sanitize_line("e\u{301}"), "e\u{301}");
    }

    #[test]
    fn borrows_when_already_safe() {
        assert!(matches!(sanitize_line("Café · 表"), Cow::Borrowed(_)));
    }

    #[test]
    fn fits_to_width() {
        assert_eq!(fit("hello world", 5), "hell…");
        assert_eq!(fit("表示テスト", 5), "表示…");
        assert_eq!(fit("ok", 5), "ok");
        assert_eq!(fit("\u{1b}[31mred", 10), "red");
        assert_eq!(fit("abc", 0), "");
    }

    #[test]
    fn hostile_generator_strings_come_out_clean() {
        for hostile in crate::hostile::hostile_strings() {
            let line = sanitize_line(&hostile);
            assert!(has_no_controls(&line) && !line.contains('\n'), "{line:?}");
            assert!(has_no_controls(&sanitize_multiline(&hostile)));
        }
    }

    #[test]
    fn escapes_every_invisible_character_visibly() {
        let cases = [
            ("\u{1b}[31mRED", "\\x1b[31mRED"),
            ("a\tb\nc\r\u{7f}\u{0}", "a\\tb\\nc\\r\\x7f\\x00"),
            ("c1\u{9b}2J\u{85}", "c1\\u009b2J\\u0085"),
            ("\u{202e}evil\u{2066}", "\\u202eevil\\u2066"),
            ("zw\u{200b}sp\u{feff}\u{2028}", "zw\\u200bsp\\ufeff\\u2028"),
            ("tag\u{e0001}", "tag\\u{e0001}"),
            (
                "keeps\u{200c}zwnj\u{200d}zwj",
                "keeps\u{200c}zwnj\u{200d}zwj",
            ),
            ("Café · 表 e\u{301}", "Café · 表 e\u{301}"),
        ];
        for (input, expected) in cases {
            assert_eq!(escape_invisible(input), expected, "{input:?}");
        }
        assert!(matches!(escape_invisible("plain"), Cow::Borrowed(_)));
    }

    #[test]
    fn hostile_strings_escape_to_visible_text_only() {
        for hostile in crate::hostile::hostile_strings() {
            let shown = escape_invisible(&hostile);
            assert!(!shown.chars().any(is_invisible_or_control), "{shown:?}");
        }
    }

    proptest::proptest! {
        #[test]
        fn escaping_leaves_nothing_invisible(input in "(?s:.*)|[\\x00-\\x{a0}\\x{2000}-\\x{206f}\\x{e0000}-\\x{e007f}a-z]*") {
            let shown = escape_invisible(&input);
            proptest::prop_assert!(!shown.chars().any(is_invisible_or_control));
        }

        #[test]
        fn never_leaves_a_control_character(input in ".*") {
            let line = sanitize_line(&input);
            proptest::prop_assert!(has_no_controls(&line) && !line.contains('\n'));
            proptest::prop_assert!(has_no_controls(&sanitize_multiline(&input)));
        }
    }
}
