//! A NUL (U+0000) in an id of an answer is refused where the answer is
//! decoded. The history keeps ids as text (PostgreSQL cannot store a NUL in
//! text: a snapshot into the shared history would fail, while the file took
//! it), and an id cannot be changed without naming another thing. Other
//! strings (names, descriptions) keep their NUL: both stores keep them inside
//! JSON documents, where it is written `\u0000`, and every output escapes it.
//! No real service sends one; one rule for every answer, typed or raw.

use serde_json::Value;

/// Whether the JSON text holds the escape `\u0000` at all (a raw NUL byte is
/// no JSON, and serde refuses it already): the cheap test before the walk.
fn holds_nul(body: &[u8]) -> bool {
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

/// Whether a field of this name holds an id (`id`, `project_id`,
/// `member_ids`).
fn names_an_id(key: &str) -> bool {
    key == "id" || key.ends_with("_id") || key.ends_with("_ids")
}

/// The JSON path (`data[1].id`) of the first id that holds a NUL, if any.
pub(super) fn id_with_nul(body: &[u8]) -> Option<String> {
    if !holds_nul(body) {
        return None;
    }
    let value = serde_json::from_slice::<Value>(body).ok()?;
    find_in(&value, String::new(), false)
}

fn find_in(value: &Value, path: String, in_id: bool) -> Option<String> {
    match value {
        Value::String(text) => (in_id && text.contains('\0')).then_some(path),
        Value::Array(items) => items
            .iter()
            .enumerate()
            .find_map(|(n, item)| find_in(item, format!("{path}[{n}]"), in_id)),
        Value::Object(fields) => fields.iter().find_map(|(key, field)| {
            let here = if path.is_empty() {
                key.clone()
            } else {
                format!("{path}.{key}")
            };
            find_in(field, here, names_an_id(key))
        }),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_an_id_with_the_escape_itself_counts() {
        assert!(holds_nul(br#"{"id":"a\u0000b"}"#));
        assert!(holds_nul(br#"{"id":"\\\u0000"}"#));
        assert!(!holds_nul(br#"{"id":"a\\u0000b"}"#));
        assert_eq!(
            id_with_nul(br#"{"data":[{"id":"x"},{"id":"a\u0000"}]}"#).as_deref(),
            Some("data[1].id")
        );
        assert_eq!(
            id_with_nul(br#"{"member_ids":["a","b\u0000"]}"#).as_deref(),
            Some("member_ids[1]")
        );
        assert_eq!(id_with_nul(br#"{"name":"null\u0000"}"#), None);
        assert_eq!(id_with_nul(br#"{"id":"a\\u0000"}"#), None);
    }
}
