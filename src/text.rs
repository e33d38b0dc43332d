//! Untrusted text made safe for a terminal. Names, descriptions, PII quotes,
//! member names and e-mails come from the API and may hold escape sequences and
//! control characters; everything shown in the TUI or written in a human format
//! passes through here first. This is the one place for those rules
//! (DESIGN.md, "Output that is safe to look at"):
//!
//! - [`escape_invisible`]: the human formats' rule (`table`, `csv`, error
//!   lines): every control, DEL, C1, bidi control and invisible format character
//!   becomes a visible escape (`\x1b`, `\u202e`); a ZWNJ or ZWJ stays only
//!   between two letters of a script that joins, else it is escaped too
//!   ([`joiner_stays`]).
//! - [`is_invisible_or_control`]: which characters that is; the JSON writer
//!   escapes the same set as `\uXXXX`.
//! - [`sanitize_line`] and [`sanitize_multiline`]: the dashboard's rule, the
//!   same escapes (`\t`, `\r` and `\n` too: a name's line break is shown, not
//!   laid out as a space), a multi-line text's line breaks kept as breaks, and
//!   runs of combining marks capped.
//! - [`display_width`], [`fit`] and [`fit_middle`]: widths as shown, an escape
//!   counting its visible cells, and cuts that never split an escape.

mod category;

use std::borrow::Cow;
use std::fmt::Write as _;

pub(crate) use category::general_category;
use category::is_combining;
use unicode_general_category::GeneralCategory as Gc;
use unicode_width::UnicodeWidthChar;

/// Longest run of combining marks kept on one base character ("Zalgo" text).
const MAX_COMBINING_RUN: usize = 2;

/// How line breaks are treated.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Lines {
    /// Every control is an escape, line breaks and tabs included.
    Single,
    /// `\n` and `\r\n` are kept as a line break (`\n`); every other control,
    /// a lone `\r` and a tab included, is an escape.
    Multi,
}

/// One line of safe text: every control (C0 with `\t`, `\n` and `\r`, DEL,
/// C1), bidi control and invisible format character is shown as a visible
/// escape (`\t`, `\x1b`, `\u202e`), so a hostile name shows what it holds
/// and nothing of it reaches the terminal raw. A ZWNJ or ZWJ stays only
/// where it joins ([`joiner_stays`]).
pub fn sanitize_line(text: &str) -> Cow<'_, str> {
    sanitize(text, Lines::Single)
}

/// Like [`sanitize_line`], but keeps line breaks.
pub fn sanitize_multiline(text: &str) -> Cow<'_, str> {
    sanitize(text, Lines::Multi)
}

fn is_safe_plain(ch: char) -> bool {
    !is_invisible_or_control(ch) && !is_combining(ch) && !is_joiner(ch)
}

fn sanitize(text: &str, lines: Lines) -> Cow<'_, str> {
    if text.chars().all(is_safe_plain) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for piece in Pieces::new(text, lines) {
        piece.push_to(&mut out);
    }
    Cow::Owned(out)
}

/// What one character of untrusted text becomes on screen.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Piece {
    /// Shown as it is.
    Plain(char),
    /// Shown as its visible escape, `\x1b` or `\u202e`.
    Escaped(char),
}

impl Piece {
    /// Cells on screen: an escape is plain ASCII, one cell a byte.
    fn width(self) -> usize {
        match self {
            Piece::Plain(ch) => ch.width().unwrap_or(0),
            Piece::Escaped(ch) => {
                let mut shown = String::new();
                write_escape(&mut shown, ch);
                shown.len()
            }
        }
    }

    fn push_to(self, out: &mut String) {
        match self {
            Piece::Plain(ch) => out.push(ch),
            Piece::Escaped(ch) => write_escape(out, ch),
        }
    }
}

/// The dashboard's rule, one piece at a time: what [`sanitize`] writes and what
/// the width math counts and cuts.
struct Pieces<'a> {
    chars: std::iter::Peekable<std::str::Chars<'a>>,
    lines: Lines,
    combining_run: usize,
    started: bool,
    /// The character before the next one, as the text holds it.
    prev: Option<char>,
}

impl<'a> Pieces<'a> {
    fn new(text: &'a str, lines: Lines) -> Self {
        Self {
            chars: text.chars().peekable(),
            lines,
            combining_run: 0,
            started: false,
            prev: None,
        }
    }

    fn emit(&mut self, piece: Piece) -> Option<Piece> {
        self.started = true;
        if !matches!(piece, Piece::Plain(ch) if is_combining(ch)) {
            self.combining_run = 0;
        }
        Some(piece)
    }
}

impl Iterator for Pieces<'_> {
    type Item = Piece;

    fn next(&mut self) -> Option<Piece> {
        while let Some(ch) = self.chars.next() {
            let prev = self.prev.replace(ch);
            match ch {
                '\n' if self.lines == Lines::Multi => return self.emit(Piece::Plain('\n')),
                // `\r\n` is one line break; the `\n` that follows is it.
                '\r' if self.lines == Lines::Multi && self.chars.peek() == Some(&'\n') => {}
                ch if is_invisible_or_control(ch) => return self.emit(Piece::Escaped(ch)),
                ch if is_joiner(ch) && !joiner_stays(prev, self.chars.peek().copied()) => {
                    return self.emit(Piece::Escaped(ch));
                }
                ch if is_combining(ch) => {
                    self.combining_run += 1;
                    if self.combining_run <= MAX_COMBINING_RUN && self.started {
                        self.started = true;
                        return Some(Piece::Plain(ch));
                    }
                }
                ch => return self.emit(Piece::Plain(ch)),
            }
        }
        None
    }
}

/// ZWNJ and ZWJ: invisible, but a name in Persian, Arabic or an Indic script
/// needs them between its letters.
fn is_joiner(ch: char) -> bool {
    matches!(ch, '\u{200c}' | '\u{200d}')
}

/// Whether a ZWNJ or ZWJ between `prev` and `next` is written raw, in every
/// text output: only between two letters (or a letter's marks) of a script
/// that joins, non-ASCII and narrow, where it changes how they are drawn.
/// Anywhere else it joins nothing a person sees, hiding in a name or a CSV
/// cell, or terminals disagree on its width (before a wide character tmux
/// joins the two into one cell while xterm draws both, so a row would shift);
/// it is shown as its escape, `\u200d`, as every invisible character is.
fn joiner_stays(prev: Option<char>, next: Option<char>) -> bool {
    let joining = |ch: Option<char>| {
        ch.is_some_and(|ch| !ch.is_ascii() && (ch.is_alphabetic() || is_combining(ch)))
    };
    joining(prev) && joining(next) && next.is_some_and(|next| next.width().unwrap_or(0) <= 1)
}

/// Whether `ch` is a character no output of vantage writes raw where a person
/// may read it: a control (C0, DEL, C1), an invisible format character (bidi
/// controls, zero-width space, BOM, tag characters, ...) or a line or paragraph
/// separator. ZWNJ and ZWJ, which names may hold, are not: whether they are
/// is a matter of where they stand ([`joiner_stays`]).
pub fn is_invisible_or_control(ch: char) -> bool {
    if ch.is_ascii() {
        return ch.is_ascii_control();
    }
    match ch {
        '\u{200c}' | '\u{200d}' => false,
        '\u{80}'..='\u{9f}' => true,
        // The whole tag block: its unassigned code points are as invisible as
        // the assigned ones, and some terminals drop them silently.
        '\u{e0000}'..='\u{e007f}' => true,
        _ => matches!(
            general_category(ch),
            Gc::Format | Gc::LineSeparator | Gc::ParagraphSeparator
        ),
    }
}

/// `text` with every [`is_invisible_or_control`] character written as a visible
/// escape: `\t`, `\n` and `\r`; `\x1b` for the other ASCII controls and DEL;
/// `\u009b` or `\u202e` above (`\u{e0001}` beyond the BMP). Backslashes are
/// left as they are: this is for people, not for parsing back.
pub fn escape_invisible(text: &str) -> Cow<'_, str> {
    escape_invisible_except(text, |_| false)
}

/// Like [`escape_invisible`], but keeps `\n`: the rule of the stderr edge,
/// where vantage's own messages may span lines. Text from the service is
/// escaped whole before it gets there (an error's `Display` is one line).
pub fn escape_invisible_keep_newlines(text: &str) -> Cow<'_, str> {
    escape_invisible_except(text, |ch| ch == '\n')
}

/// Raw bytes that may not be UTF-8 (a body, a header) as safe text: valid
/// UTF-8 as [`escape_invisible_keep_newlines`], each invalid byte as `\x9b`,
/// so a C1 control sent as one raw byte never reaches a terminal either.
pub fn escape_invisible_bytes(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len());
    for chunk in bytes.utf8_chunks() {
        out.push_str(&escape_invisible_keep_newlines(chunk.valid()));
        for byte in chunk.invalid() {
            let _ = write!(out, "\\x{byte:02x}");
        }
    }
    out
}

fn escape_invisible_except(text: &str, keep: impl Fn(char) -> bool) -> Cow<'_, str> {
    let hidden = |ch: char| is_invisible_or_control(ch) && !keep(ch);
    if !text.chars().any(|ch| hidden(ch) || is_joiner(ch)) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    let mut chars = text.chars().peekable();
    let mut prev = None;
    while let Some(ch) = chars.next() {
        let lone_joiner = is_joiner(ch) && !joiner_stays(prev, chars.peek().copied());
        prev = Some(ch);
        if hidden(ch) || lone_joiner {
            write_escape(&mut out, ch);
        } else {
            out.push(ch);
        }
    }
    Cow::Owned(out)
}

/// Text the clipboard may take (OSC 52): an id or a URL that a terminal pastes
/// as it looks. The copy effect holds only this type, so no copy path can skip
/// the check.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pasteable(String);

/// Why a value was not copied: the first character that a terminal would not
/// paste as it looks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error(
    "not copied: it holds {}, a control, line break or invisible character",
    escape_one(.0)
)]
pub struct Unpasteable(pub char);

impl Pasteable {
    /// Refuses a control or line break (a pasted line runs in a shell), a bidi
    /// control, a tag or any other invisible format character, ZWNJ and ZWJ
    /// included: an id or a URL has no use for them.
    pub fn new(value: &str) -> Result<Self, Unpasteable> {
        match value
            .chars()
            .find(|&ch| is_invisible_or_control(ch) || matches!(ch, '\u{200c}' | '\u{200d}'))
        {
            Some(ch) => Err(Unpasteable(ch)),
            None => Ok(Self(value.to_owned())),
        }
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

fn escape_one(ch: &char) -> String {
    let mut shown = String::new();
    write_escape(&mut shown, *ch);
    shown
}

/// Writes the visible escape of one invisible or control character.
fn write_escape(out: &mut String, ch: char) {
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

/// Display width in terminal cells of `text` as the dashboard shows it on one
/// line ([`sanitize_line`]): an escape counts its visible cells.
pub fn display_width(text: &str) -> usize {
    if text.chars().all(is_safe_plain) {
        return text.chars().map(|ch| ch.width().unwrap_or(0)).sum();
    }
    Pieces::new(text, Lines::Single).map(Piece::width).sum()
}

/// Sanitizes one line and cuts it to `max_width` cells, ending in `…` when cut.
/// The cut never splits an escape.
pub fn fit(text: &str, max_width: usize) -> String {
    if display_width(text) <= max_width {
        return sanitize_line(text).into_owned();
    }
    if max_width == 0 {
        return String::new();
    }
    let mut out = String::new();
    let mut used = 0;
    for piece in Pieces::new(text, Lines::Single) {
        let width = piece.width();
        if used + width > max_width - 1 {
            break;
        }
        used += width;
        piece.push_to(&mut out);
    }
    out.push('…');
    out
}

/// Like [`fit`], but cuts from the middle: `/home/ada/…/inventory-2026.csv`.
/// For paths and ids, whose both ends matter.
pub fn fit_middle(text: &str, max_width: usize) -> String {
    if display_width(text) <= max_width {
        return sanitize_line(text).into_owned();
    }
    if max_width < 3 {
        return fit(text, max_width);
    }
    let pieces: Vec<Piece> = Pieces::new(text, Lines::Single).collect();
    let budget = max_width - 1;
    let (mut head, mut tail) = (String::new(), Vec::new());
    let (mut head_width, mut tail_width) = (0, 0);
    for piece in &pieces {
        let width = piece.width();
        // A third for the head, the rest for the tail: a file name matters most.
        if head_width + width > budget / 3 {
            break;
        }
        head_width += width;
        piece.push_to(&mut head);
    }
    for piece in pieces.iter().rev() {
        let width = piece.width();
        if head_width + tail_width + width > budget {
            break;
        }
        tail_width += width;
        tail.push(*piece);
    }
    head.push('…');
    for piece in tail.into_iter().rev() {
        piece.push_to(&mut head);
    }
    head
}

#[cfg(test)]
mod tests {
    use super::*;

    fn has_no_controls(text: &str) -> bool {
        !text
            .chars()
            .any(|ch| is_invisible_or_control(ch) && ch != '\n')
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
    fn shows_escape_sequences_and_controls_as_visible_escapes() {
        let cases = [
            ("\u{1b}[31mRED\u{1b}[0m", "\\x1b[31mRED\\x1b[0m"),
            ("a\u{1b}]0;title\u{7}b", "a\\x1b]0;title\\x07b"),
            ("bell\u{7}nul\u{0}del\u{7f}", "bell\\x07nul\\x00del\\x7f"),
            ("c1\u{9b}31mred nel\u{85}", "c1\\u009b31mred nel\\u0085"),
            ("tab\there", "tab\\there"),
            ("two\nlines\r\n", "two\\nlines\\r\\n"),
            ("cr\rlf\n", "cr\\rlf\\n"),
            ("vt\u{b}ff\u{c}", "vt\\x0bff\\x0c"),
            (
                "\u{202e}evil\u{2066}x\u{2069}",
                "\\u202eevil\\u2066x\\u2069",
            ),
            ("zero\u{200b}width\u{feff}", "zero\\u200bwidth\\ufeff"),
            ("lone\u{200c}zwnj\u{200d}zwj", "lone\\u200czwnj\\u200dzwj"),
            ("می\u{200c}خواهم", "می\u{200c}خواهم"),
            ("plain text", "plain text"),
            ("\u{1b}", "\\x1b"),
        ];
        for (input, expected) in cases {
            assert_eq!(sanitize_line(input), expected, "{input:?}");
        }
    }

    #[test]
    fn multiline_keeps_breaks_and_escapes_the_rest() {
        assert_eq!(
            sanitize_multiline("a\r\nb\rc\n\u{1b}[2Jd\te"),
            "a\nb\\rc\n\\x1b[2Jd\\te"
        );
    }

    #[test]
    fn widths_count_the_escapes_as_shown() {
        assert_eq!(display_width("\u{1b}[31mred"), "\\x1b[31mred".len());
        assert_eq!(display_width("\u{202e}x"), 7);
        assert_eq!(display_width("tag\u{e0001}"), "tag\\u{e0001}".len());
        assert_eq!(display_width("a\n\nb"), "a\\n\\nb".len());
        for hostile in crate::hostile::hostile_strings() {
            let shown = sanitize_line(&hostile);
            assert_eq!(
                display_width(&hostile),
                display_width(&shown),
                "{hostile:?}"
            );
        }
    }

    #[test]
    fn cuts_never_split_an_escape() {
        // `ab\x1b[0m` is 9 cells: at 5 the escape does not fit whole.
        assert_eq!(fit("ab\u{1b}[0m", 5), "ab…");
        assert_eq!(fit("ab\u{1b}[0m", 8), "ab\\x1b[…");
        assert_eq!(fit("ab\u{1b}[0m", 9), "ab\\x1b[0m");
        let cut = fit_middle("\u{202e}abcdefghij\u{202e}", 12);
        assert_eq!(cut, "…fghij\\u202e");
        assert!(display_width(&cut) <= 12);
        for hostile in crate::hostile::hostile_strings() {
            for width in [0, 1, 5, 12, 40] {
                for cut in [fit(&hostile, width), fit_middle(&hostile, width)] {
                    assert!(display_width(&cut) <= width, "{cut:?} at {width}");
                    assert!(!cut.chars().any(is_invisible_or_control), "{cut:?}");
                }
            }
        }
    }

    /// Issue 35, item 20: a ZWJ before a wide character is joined into one
    /// cell by tmux and not by others; it is shown as an escape, so every
    /// terminal draws the width vantage counts. One that joins narrow
    /// letters stays.
    #[test]
    fn a_zwj_before_a_wide_character_is_escaped() {
        assert_eq!(sanitize_line("Ada\u{200d}表"), "Ada\\u200d表");
        assert_eq!(display_width("Ada\u{200d}表"), "Ada\\u200d".len() + 2);
        assert_eq!(sanitize_line("Ada\u{200d}"), "Ada\\u200d");
        assert_eq!(escape_invisible("a\u{200d}表"), "a\\u200d表");
        assert_eq!(sanitize_line("क\u{94d}\u{200d}ष"), "क\u{94d}\u{200d}ष");
        assert_eq!(escape_invisible("x\u{200d}y"), "x\\u200dy");
        assert_eq!(escape_invisible("\u{200d}क"), "\\u200dक");
        assert_eq!(fit("表\u{200d}表表", 9), "表\\u200d…");
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
        assert_eq!(fit("\u{1b}[31mred", 12), "\\x1b[31mred");
        assert_eq!(fit("\u{1b}[31mred", 10), "\\x1b[31mr…");
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
            ("lone\u{200c}zwnj\u{200d}zwj", "lone\\u200czwnj\\u200dzwj"),
            ("می\u{200c}خواهم", "می\u{200c}خواهم"),
            ("Café · 表 e\u{301}", "Café · 表 e\u{301}"),
        ];
        for (input, expected) in cases {
            assert_eq!(escape_invisible(input), expected, "{input:?}");
        }
        assert!(matches!(escape_invisible("plain"), Cow::Borrowed(_)));
    }

    #[test]
    fn tag_characters_are_escaped_assigned_or_not() {
        assert_eq!(
            escape_invisible("a\u{e0000}\u{e0002}\u{e007f}"),
            "a\\u{e0000}\\u{e0002}\\u{e007f}"
        );
    }

    #[test]
    fn the_stderr_rule_keeps_line_feeds_only() {
        assert_eq!(
            escape_invisible_keep_newlines("a\nb\r\tc\u{1b}[6n\u{2028}"),
            "a\nb\\r\\tc\\x1b[6n\\u2028"
        );
        assert_eq!(
            escape_invisible_bytes(b"ok\n\x9b2J \xe2\x80\xae\xff\x1bP+q\x1b\\"),
            "ok\n\\x9b2J \\u202e\\xff\\x1bP+q\\x1b\\"
        );
    }

    #[test]
    fn only_visible_text_is_pasteable() {
        let refused = |value: &str| Pasteable::new(value).err().map(|Unpasteable(ch)| ch);
        assert_eq!(Pasteable::new("prj_01HXYZ").unwrap().as_str(), "prj_01HXYZ");
        assert_eq!(refused("https://x.example/a?b=c#d"), None);
        assert_eq!(refused("prj_1\ncurl x | sh"), Some('\n'));
        assert_eq!(refused("prj\u{202e}1"), Some('\u{202e}'));
        assert_eq!(refused("prj\u{200d}1"), Some('\u{200d}'));
        assert_eq!(refused("prj\u{e0041}"), Some('\u{e0041}'));
        assert_eq!(
            Unpasteable('\u{1b}').to_string(),
            "not copied: it holds \\x1b, a control, line break or invisible character"
        );
        for hostile in crate::hostile::hostile_strings() {
            if hostile
                .chars()
                .any(|ch| ch.is_control() || is_invisible_or_control(ch))
            {
                assert!(refused(&hostile).is_some(), "{hostile:?}");
            }
        }
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
