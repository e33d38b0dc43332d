//! The one escape of the HTML report: every value from the service or the
//! history passes here. Invisible and control characters become visible
//! escapes first (the human-format rule, `text::escape_invisible`), then
//! the characters HTML gives meaning to become entities, so a value is text
//! in an element and in a quoted attribute alike.

/// Appends `value`, escaped, to `out`.
pub fn push(out: &mut String, value: &str) {
    let visible = crate::text::escape_invisible(value);
    for ch in visible.chars() {
        match ch {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            ch => out.push(ch),
        }
    }
}

/// `value`, escaped.
pub fn text(value: &str) -> String {
    let mut out = String::with_capacity(value.len());
    push(&mut out, value);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markup_and_controls_are_text() {
        assert_eq!(
            text("<img src=x onerror=alert(1)>"),
            "&lt;img src=x onerror=alert(1)&gt;"
        );
        assert_eq!(text("a\"b'c&d"), "a&quot;b&#39;c&amp;d");
        assert_eq!(text("\u{1b}[31m\u{202e}"), "\\x1b[31m\\u202e");
        for hostile in crate::hostile::hostile_strings() {
            let escaped = text(&hostile);
            assert!(
                !escaped.contains('<') && !escaped.contains('"'),
                "{escaped}"
            );
            assert!(!escaped.chars().any(crate::text::is_invisible_or_control));
        }
    }
}
