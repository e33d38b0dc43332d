//! A NUL (U+0000) in a string of an answer is refused where the answer is
//! decoded: PostgreSQL cannot store it in text (a snapshot into the shared
//! history would fail), and an id, name or note that the file could hold but
//! the database not would make the two stores disagree. No real service
//! sends one; refusing it, with where it is, is one rule for every answer.

/// Whether the JSON text holds the escape `\u0000` (a raw NUL byte is no
/// JSON at all, and serde refuses it already).
pub(super) fn holds_nul(body: &[u8]) -> bool {
    let mut from = 0;
    while let Some(found) = find(&body[from..], b"\\u0000") {
        let at = from + found;
        // `\\u0000` is a backslash then `u0000`: an odd run of backslashes
        // before the `u` is the escape.
        let run = body[..=at]
            .iter()
            .rev()
            .take_while(|b| **b == b'\\')
            .count();
        if run % 2 == 1 {
            return true;
        }
        from = at + 1;
    }
    false
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack
        .windows(needle.len())
        .position(|window| window == needle)
}

/// The JSON path (`data[1].id`) of the first string or key with a NUL.
pub(super) fn path_of_nul(body: &[u8]) -> String {
    let Ok(value) = serde_json::from_slice::<serde_json::Value>(body) else {
        return String::new();
    };
    find_in(&value, String::new()).unwrap_or_default()
}

fn find_in(value: &serde_json::Value, path: String) -> Option<String> {
    match value {
        serde_json::Value::String(text) => text.contains('\0').then_some(path),
        serde_json::Value::Array(items) => items
            .iter()
            .enumerate()
            .find_map(|(n, item)| find_in(item, format!("{path}[{n}]"))),
        serde_json::Value::Object(fields) => fields.iter().find_map(|(key, field)| {
            let here = if path.is_empty() {
                key.clone()
            } else {
                format!("{path}.{key}")
            };
            if key.contains('\0') {
                return Some(here);
            }
            find_in(field, here)
        }),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_escape_itself_counts() {
        assert!(holds_nul(br#"{"id":"a\u0000b"}"#));
        assert!(holds_nul(br#"{"id":"\\\u0000"}"#));
        assert!(!holds_nul(br#"{"id":"a\\u0000b"}"#));
        assert_eq!(
            path_of_nul(br#"{"data":[{"id":"x"},{"id":"a\u0000"}]}"#),
            "data[1].id"
        );
        assert_eq!(path_of_nul(br#"{"a\u0000":1}"#), "a\u{0}");
    }
}
