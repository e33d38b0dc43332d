//! A NUL (U+0000) in an id of an answer is refused where the answer is
//! decoded. The history keeps ids as text (PostgreSQL cannot store a NUL in
//! text: a snapshot into the shared history would fail, while the file took
//! it), and an id cannot be changed without naming another thing. Other
//! strings (names, descriptions) keep their NUL: both stores keep them inside
//! JSON documents, where it is written `\u0000`, and every output escapes it.
//! No real service sends one; one rule for every answer, typed or raw.

use serde_json::Value;

/// Where the JSON text holds the escape `\u0000` (a raw NUL byte is no
/// JSON, and serde refuses it already): the position of each backslash.
/// Searched in the bytes with SIMD (`memmem`): every answer pays for it,
/// a 100-item page in a few microseconds. (A body that is not UTF-8 is no
/// JSON either: the parse refuses it.)
fn nul_escapes(body: &[u8]) -> impl Iterator<Item = usize> + '_ {
    memchr::memmem::find_iter(body, b"\\u0000").filter(move |&at| {
        // `\\u0000` is a backslash then `u0000`: an odd run of backslashes
        // before the `u` is the escape.
        let run = body[..=at]
            .iter()
            .rev()
            .take_while(|b| **b == b'\\')
            .count();
        run % 2 == 1
    })
}

/// The start of the string `at` lies in: its opening quote, the first one
/// before `at` that no backslash escapes.
fn string_start(body: &[u8], at: usize) -> Option<usize> {
    let mut end = at;
    loop {
        let quote = body[..end].iter().rposition(|&b| b == b'"')?;
        let run = body[..quote]
            .iter()
            .rev()
            .take_while(|b| **b == b'\\')
            .count();
        if run % 2 == 0 {
            return Some(quote);
        }
        end = quote;
    }
}

/// The key of the object member whose value is the string starting at
/// `quote`, when the text says so plainly (`"key": "…`); `None` for an array
/// element, a key itself, or a key written with escapes.
fn key_of_value(body: &[u8], quote: usize) -> Option<&str> {
    let before = body[..quote]
        .iter()
        .rposition(|b| !b.is_ascii_whitespace())?;
    if body[before] != b':' {
        return None;
    }
    let key_end = body[..before]
        .iter()
        .rposition(|b| !b.is_ascii_whitespace())?;
    if body[key_end] != b'"' {
        return None;
    }
    let key_start = body[..key_end].iter().rposition(|&b| b == b'"')?;
    let key = &body[key_start + 1..key_end];
    if key.contains(&b'\\') {
        return None;
    }
    std::str::from_utf8(key).ok()
}

/// Whether some `\u0000` may lie in an id: each escape is placed by the text
/// around it (names, descriptions and quotes hold NULs on purpose, and are
/// let through without parsing the page a second time); one that is not
/// plainly the value of a key that names no id counts.
fn may_hold_an_id_with_nul(body: &[u8]) -> bool {
    nul_escapes(body).any(|at| {
        string_start(body, at)
            .and_then(|quote| key_of_value(body, quote))
            .is_none_or(names_an_id)
    })
}

/// Whether a field of this name holds an id (`id`, `project_id`,
/// `member_ids`).
fn names_an_id(key: &str) -> bool {
    key == "id" || key.ends_with("_id") || key.ends_with("_ids")
}

/// The JSON path (`data[1].id`) of the first id that holds a NUL, if any.
pub(super) fn id_with_nul(body: &[u8]) -> Option<String> {
    if !may_hold_an_id_with_nul(body) {
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
        assert!(may_hold_an_id_with_nul(br#"{"id":"a\u0000b"}"#));
        assert!(may_hold_an_id_with_nul(br#"{"id":"\\\u0000"}"#));
        assert!(!may_hold_an_id_with_nul(br#"{"id":"a\\u0000b"}"#));
        // A name's NUL needs no second parse; an id's, an array element's
        // or one the text does not place plainly does.
        assert!(!may_hold_an_id_with_nul(
            br#"{"data":[{"id":"p1","name":"a\"\u0000"} ]}"#
        ));
        assert!(may_hold_an_id_with_nul(br#"{"project_id" : "x\u0000"}"#));
        assert!(may_hold_an_id_with_nul(br#"{"tags":["x\u0000"]}"#));
        assert!(may_hold_an_id_with_nul(br#"{"a\u0000":"x"}"#));
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
