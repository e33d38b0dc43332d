//! The inventory as the service sent it, each item checked: what the lossless
//! exports (`json`, `jsonl`) and the policies' live document read.
//!
//! An item passes through as its text only once it has read as an
//! [`InventoryItem`]: the same answer must not pass in `json` and fail in
//! `table` (an item without `id`, a number like `1e400` that no field can
//! hold). The check reads each item by the same declaration with its text
//! [`Unkept`], so no string is copied.
//!
//! A page is read in one pass ([`read_in_one_pass`]): each item is checked
//! where it stands in the body, and its text is the span the check read. The
//! declared page, [`RawInventoryPage`], stays the rule: whatever the one pass
//! does not read (any error, and any shape it does not expect) is decoded by
//! it, which accepts what the one pass accepts and names what is wrong.

use std::borrow::Cow;

use bytestring::ByteString;
use serde::de::IgnoredAny;
use serde::{Deserialize, Deserializer};
use serde_json::value::RawValue;

use super::super::model::{InventoryItem, Pagination, Unkept};
use super::super::page::Parts;
use super::Paged;
use crate::api::ApiError;
use crate::api::transport::Answer;

/// An inventory item's JSON text as the service sent it, checked to read as
/// an [`InventoryItem`] (and so valid JSON). A slice of its page's body, not
/// a copy: it holds the page while it lives.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CheckedJson(ByteString);

impl CheckedJson {
    /// The text, as the service sent it.
    pub fn get(&self) -> &str {
        &self.0
    }
}

/// An inventory page whose items are kept as the server's JSON text, as
/// declared: `data`, `pagination` and `total`, other members ignored.
#[derive(Deserialize)]
pub(super) struct RawInventoryPage {
    data: Vec<Checked>,
    pagination: Pagination,
    total: i64,
}

impl Paged for RawInventoryPage {
    type Item = CheckedJson;

    fn read(answer: &Answer) -> Result<Self, ApiError> {
        answer.decode_with(read_in_one_pass)
    }

    fn into_parts(self) -> Parts<Self::Item> {
        let items = self.data.into_iter().map(|item| item.0).collect();
        Parts {
            total: Some(self.total.max(0) as u64),
            ..Parts::new(items, self.pagination)
        }
    }
}

/// One item of the declared page: its text, once it has read as an
/// `InventoryItem<Unkept>`.
struct Checked(CheckedJson);

impl<'de> Deserialize<'de> for Checked {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let raw = Box::<RawValue>::deserialize(deserializer)?;
        serde_json::from_str::<InventoryItem<Unkept>>(raw.get())
            .map_err(serde::de::Error::custom)?;
        Ok(Self(CheckedJson(ByteString::from(Box::<str>::from(raw)))))
    }
}

/// The page read in one pass over its text, each item checked where it stands;
/// `None` for anything else (an error, a member twice, the page as an array),
/// which [`RawInventoryPage`]'s declaration then decides.
fn read_in_one_pass(page: &ByteString) -> Option<RawInventoryPage> {
    let mut body = Reader { page, at: 0 };
    let (mut data, mut pagination, mut total) = (None, None, None);
    body.expect(b'{')?;
    if !body.eat(b'}') {
        loop {
            let key: Cow<str> = body.value()?;
            body.expect(b':')?;
            match key.as_ref() {
                "data" if data.is_none() => data = Some(body.items()?),
                "pagination" if pagination.is_none() => pagination = Some(body.value()?),
                "total" if total.is_none() => total = Some(body.value()?),
                "data" | "pagination" | "total" => return None,
                _ => {
                    body.value::<IgnoredAny>()?;
                }
            }
            if body.eat(b',') {
                continue;
            }
            body.expect(b'}')?;
            break;
        }
    }
    body.skip_whitespace();
    (body.at == page.len()).then_some(())?;
    Some(RawInventoryPage {
        data: data?,
        pagination: pagination?,
        total: total?,
    })
}

/// A position in a JSON text, read value by value.
struct Reader<'a> {
    page: &'a ByteString,
    at: usize,
}

impl<'a> Reader<'a> {
    fn text(&self) -> &'a str {
        self.page
    }

    fn skip_whitespace(&mut self) {
        let rest = &self.text().as_bytes()[self.at..];
        self.at += rest
            .iter()
            .take_while(|byte| matches!(byte, b' ' | b'\n' | b'\r' | b'\t'))
            .count();
    }

    /// Whether `byte` is next (after whitespace), and then past it.
    fn eat(&mut self, byte: u8) -> bool {
        self.skip_whitespace();
        let next = self.text().as_bytes().get(self.at) == Some(&byte);
        self.at += usize::from(next);
        next
    }

    fn expect(&mut self, byte: u8) -> Option<()> {
        self.eat(byte).then_some(())
    }

    /// The value that starts here, read as `T`, and then past it.
    fn value<T: Deserialize<'a>>(&mut self) -> Option<T> {
        self.skip_whitespace();
        let mut values =
            serde_json::Deserializer::from_str(&self.text()[self.at..]).into_iter::<T>();
        let value = values.next()?.ok()?;
        self.at += values.byte_offset();
        Some(value)
    }

    /// The array that starts here, each item checked and kept as its text.
    fn items(&mut self) -> Option<Vec<Checked>> {
        self.expect(b'[')?;
        let mut items = Vec::new();
        if self.eat(b']') {
            return Some(items);
        }
        loop {
            self.skip_whitespace();
            let start = self.at;
            self.value::<Checking>()?;
            let item = self.page.slice_ref(&self.text()[start..self.at]);
            items.push(Checked(CheckedJson(item)));
            if self.eat(b',') {
                continue;
            }
            self.expect(b']')?;
            return Some(items);
        }
    }
}

/// An item read by the check alone (its text is kept by the reader).
type Checking = InventoryItem<Unkept>;

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;
    use crate::api::model::inventory::SAMPLE_ITEM;

    fn page(items: &[&str], tail: &str) -> String {
        format!(
            r#"{{"data":[{}],"pagination":{{"has_more":true,"next_cursor":"c2"}},"total":7{tail}}}"#,
            items.join(",")
        )
    }

    /// What a page holds, to compare two reads of it.
    fn held(page: RawInventoryPage) -> (Vec<CheckedJson>, Pagination, Option<u64>) {
        let parts = page.into_parts();
        (parts.items, parts.pagination, parts.total)
    }

    fn one_pass(text: &str) -> Option<RawInventoryPage> {
        read_in_one_pass(&ByteString::from(text))
    }

    fn declared(text: &str) -> Result<RawInventoryPage, serde_json::Error> {
        serde_json::from_str(text)
    }

    #[test]
    fn a_page_as_the_service_writes_it_reads_in_one_pass_item_by_item() {
        let other = SAMPLE_ITEM.replacen(r#""id":"p1""#, r#""id":"p2""#, 1);
        let text = page(
            &[SAMPLE_ITEM, &other],
            r#","as_of":"2026-11-28T22:00:00.000Z","applied_finding":null"#,
        );
        let (items, pagination, total) = held(one_pass(&text).expect("one pass"));
        let texts: Vec<&str> = items.iter().map(CheckedJson::get).collect();
        assert_eq!(texts, [SAMPLE_ITEM, other.as_str()]);
        assert_eq!(pagination.next_cursor.as_deref(), Some("c2"));
        assert_eq!(total, Some(7));
    }

    #[test]
    fn spacing_member_order_and_escaped_names_read_in_one_pass_as_declared() {
        let spaced = format!(
            " \n{{ \"total\" :7 ,\t\"d\\u0061ta\":[ {SAMPLE_ITEM} ,\r\n{SAMPLE_ITEM}\n] , \
             \"extra\":[1,{{\"a\":null}}],\"pagination\":{{\"has_more\":false,\"next_cursor\":null}} }}\n"
        );
        for text in [spaced.as_str(), &page(&[], "")] {
            let fast = one_pass(text).expect("one pass");
            assert_eq!(held(fast), held(declared(text).unwrap()), "{text}");
        }
    }

    /// What the one pass does not read, the declaration decides: a member
    /// twice is refused with its name, a page sent as an array still reads.
    #[test]
    fn what_the_one_pass_leaves_the_declaration_decides() {
        let twice = page(&[SAMPLE_ITEM], r#","data":[]"#);
        assert!(one_pass(&twice).is_none());
        let refused = declared(&twice).err().expect("refused").to_string();
        assert!(refused.contains("duplicate field `data`"), "{refused}");

        let as_array = format!(r#"[[{SAMPLE_ITEM}],{{"has_more":false}},1]"#);
        assert!(one_pass(&as_array).is_none());
        assert_eq!(held(declared(&as_array).unwrap()).0.len(), 1);

        for text in [
            page(&[SAMPLE_ITEM], "") + " x",
            page(&[&SAMPLE_ITEM.replacen(r#""id":"p1","#, "", 1)], ""),
            page(&[SAMPLE_ITEM], "").replacen(r#","total":7"#, "", 1),
        ] {
            assert!(one_pass(&text).is_none(), "{text}");
            assert!(declared(&text).is_err(), "{text}");
        }
    }

    /// Pieces of JSON an edit inserts.
    const PIECES: &[&str] = &[
        "",
        " ",
        ",",
        ":",
        "{",
        "}",
        "[",
        "]",
        "\"",
        "\\",
        "0",
        "1e400",
        "-",
        "null",
        "true",
        "\"data\":[],",
        ",\"data\":[]",
        "\"total\":1,",
        ",\"total\":1",
        ",\"pagination\":{}",
        ",\"id\":\"x\"",
        "\u{0}",
        "é",
    ];

    /// Whether the one pass and the declaration agree on `text`: whatever
    /// the one pass reads, the declaration reads the same.
    fn agree(text: &str) -> Result<(), String> {
        let Some(fast) = one_pass(text) else {
            return Ok(());
        };
        let declared = declared(text)
            .map_err(|error| format!("refused by the declaration ({error}): {text}"))?;
        (held(declared) == held(fast))
            .then_some(())
            .ok_or_else(|| format!("read otherwise by the declaration: {text}"))
    }

    /// Every piece inserted at every boundary between tokens of a page.
    #[test]
    fn the_one_pass_reads_no_edited_page_its_declaration_would_not() {
        let text = page(&[SAMPLE_ITEM], r#","as_of":null"#);
        let boundaries = text
            .char_indices()
            .filter(|(_, ch)| "{}[],:".contains(*ch))
            .flat_map(|(at, _)| [at, at + 1]);
        for at in boundaries {
            for piece in PIECES {
                let edited = format!("{}{piece}{}", &text[..at], &text[at..]);
                agree(&edited).unwrap();
            }
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(256))]

        /// Cuts anywhere, a piece in their place.
        #[test]
        fn the_one_pass_reads_no_cut_page_its_declaration_would_not(
            at in 0usize..2000, cut in 0usize..4, piece in 0usize..PIECES.len()
        ) {
            let text = page(&[SAMPLE_ITEM, SAMPLE_ITEM], r#","as_of":null"#);
            let at = (0..=at.min(text.len())).rev().find(|&i| text.is_char_boundary(i)).unwrap_or(0);
            let end = (at + cut..=text.len()).find(|&i| text.is_char_boundary(i)).unwrap_or(text.len());
            let edited = format!("{}{}{}", &text[..at], PIECES[piece], &text[end..]);
            prop_assert_eq!(agree(&edited), Ok(()));
        }
    }
}
