//! Search and ordering shared by the list operations: free-text `query`
//! matching, and compact keyset sort keys for large lists.
//!
//! ## Text search
//!
//! The contract fixes two rules: terms under 3 characters are ignored, and a query
//! is at most 1000 characters. The rest is our choice, kept here in one place:
//!
//! - terms are split on whitespace and compared case-insensitively (Unicode
//!   lowercase) as substrings of the searched fields;
//! - every remaining term must occur in at least one field (AND), so adding a
//!   term narrows the result;
//! - a query whose terms are all too short filters nothing and scores every item 0;
//! - the relevance score is the sum over terms of the best `weight * quality` over
//!   the fields, where quality is 3 when the whole field equals the term, 2 when
//!   the term starts a word of the field, and 1 for any other occurrence.

use std::borrow::Cow;
use std::cmp::Ordering;

use crate::api::model::{FieldError, Pagination};
use crate::server::errors::{HttpError, field_error};
use crate::server::paging::{self, KeyPart, PageRequest, Scalar, SortKey};

/// Longest accepted `query`, in Unicode code points.
pub const MAX_QUERY_CHARS: usize = 1000;
/// Terms shorter than this (in code points) are ignored.
pub const MIN_TERM_CHARS: usize = 3;

/// A parsed `query`: its usable terms, lowercased.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TextQuery {
    terms: Vec<String>,
}

impl TextQuery {
    /// Parses `raw`; more than [`MAX_QUERY_CHARS`] is a field error at `location`.
    pub fn parse(raw: &str, location: &str) -> Result<Self, FieldError> {
        if raw.chars().count() > MAX_QUERY_CHARS {
            return Err(field_error(
                location,
                format!("query may be at most {MAX_QUERY_CHARS} characters long"),
            ));
        }
        let mut terms: Vec<String> = Vec::new();
        for word in raw.split_whitespace() {
            let mut term = String::new();
            fold_into(word, &mut term);
            if term.chars().count() >= MIN_TERM_CHARS && !terms.contains(&term) {
                terms.push(term);
            }
        }
        Ok(Self { terms })
    }

    /// The usable terms, lowercased.
    pub fn terms(&self) -> &[String] {
        &self.terms
    }

    /// Whether no term is long enough to search with: the query filters nothing.
    pub fn is_blank(&self) -> bool {
        self.terms.is_empty()
    }

    /// A scorer that reuses its buffers across items.
    pub fn matcher(&self) -> Matcher<'_> {
        Matcher {
            query: self,
            folded: Vec::new(),
        }
    }
}

/// A searchable field of an item.
#[derive(Debug, Clone, Copy)]
pub struct Field<'t> {
    text: Option<&'t str>,
    weight: u32,
    /// Already case-folded (e.g. folded once for many items).
    folded: bool,
}

impl<'t> Field<'t> {
    pub fn raw(text: Option<&'t str>, weight: u32) -> Self {
        Self {
            text,
            weight,
            folded: false,
        }
    }

    /// A field already passed through [`fold`].
    pub fn folded(text: Option<&'t str>, weight: u32) -> Self {
        Self {
            text,
            weight,
            folded: true,
        }
    }
}

/// Scores items against a [`TextQuery`] without allocating per item.
pub struct Matcher<'q> {
    query: &'q TextQuery,
    folded: Vec<String>,
}

impl Matcher<'_> {
    /// The relevance of an item with these searchable fields, or `None` when some
    /// term occurs in none of them.
    pub fn score(&mut self, fields: &[Field<'_>]) -> Option<u32> {
        if self.query.terms.is_empty() {
            return Some(0);
        }
        if self.folded.len() < fields.len() {
            self.folded.resize_with(fields.len(), String::new);
        }
        for (field, buffer) in fields.iter().zip(self.folded.iter_mut()) {
            buffer.clear();
            if let (Some(text), false) = (field.text, field.folded) {
                fold_into(text, buffer);
            }
        }
        let mut total = 0;
        for term in &self.query.terms {
            let best = fields
                .iter()
                .zip(&self.folded)
                .filter_map(|(field, buffer)| {
                    let text = if field.folded {
                        field.text?
                    } else {
                        field.text.map(|_| buffer.as_str())?
                    };
                    Some(field.weight * match_quality(text, term))
                })
                .max()
                .unwrap_or(0);
            if best == 0 {
                return None;
            }
            total += best;
        }
        Some(total)
    }
}

/// 3: the whole field is the term; 2: the term starts a word; 1: it occurs
/// elsewhere; 0: it does not occur.
fn match_quality(field: &str, term: &str) -> u32 {
    if field == term {
        return 3;
    }
    let (haystack, needle) = (field.as_bytes(), term.as_bytes());
    let Some((&first, rest)) = needle.split_first() else {
        return 0;
    };
    if haystack.len() < needle.len() {
        return 0;
    }
    // A plain scan: fields are short, and a substring searcher's set-up would
    // cost more than the search, once per field and term of every item.
    let mut quality = 0;
    for at in 0..=haystack.len() - needle.len() {
        if haystack[at] != first || haystack[at + 1..at + needle.len()] != *rest {
            continue;
        }
        // A match of a whole UTF-8 term starts on a character boundary.
        let starts_word = field[..at]
            .chars()
            .next_back()
            .is_none_or(|before| !before.is_alphanumeric());
        if starts_word {
            return 2;
        }
        quality = 1;
    }
    quality
}

/// Appends the case-folded form of `text` (Unicode lowercase) to `out`.
pub fn fold_into(text: &str, out: &mut String) {
    if text.is_ascii() {
        let start = out.len();
        out.push_str(text);
        out[start..].make_ascii_lowercase();
    } else {
        out.extend(text.chars().flat_map(char::to_lowercase));
    }
}

/// The case-folded form of `text`.
pub fn fold(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    fold_into(text, &mut out);
    out
}

/// Integer components of a [`CompactKey`].
pub const INT_PARTS: usize = 3;

/// A sort key that is cheap to build for every candidate of a large list: the
/// direction of integer parts is applied up front (descending values are
/// negated, see [`directed`]), so only the optional text part carries one; the
/// unique id is last and ascending. [`CompactKey::to_sort_key`] gives the
/// `paging::SortKey` form cursors carry, which orders exactly the same.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct CompactKey<'a> {
    ints: [i64; INT_PARTS],
    text: Option<DirectedText<'a>>,
    id: Cow<'a, str>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
struct DirectedText<'a> {
    descending: bool,
    value: Cow<'a, str>,
}

impl Ord for DirectedText<'_> {
    fn cmp(&self, other: &Self) -> Ordering {
        let order = self.value.cmp(&other.value);
        if self.descending {
            order.reverse()
        } else {
            order
        }
    }
}

impl PartialOrd for DirectedText<'_> {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

/// An integer key part in its direction: ascending order of the result is the
/// wanted order.
pub fn directed(value: i64, descending: bool) -> i64 {
    if descending {
        value.checked_neg().unwrap_or(i64::MAX)
    } else {
        value
    }
}

impl<'a> CompactKey<'a> {
    /// `ints` already [`directed`]; unused parts are 0.
    pub fn new(ints: [i64; INT_PARTS], id: &'a str) -> Self {
        Self {
            ints,
            text: None,
            id: Cow::Borrowed(id),
        }
    }

    /// Adds the text part, compared after the integers and before the id.
    pub fn with_text(mut self, value: Cow<'a, str>, descending: bool) -> Self {
        self.text = Some(DirectedText { descending, value });
        self
    }

    /// The cursor form.
    pub fn to_sort_key(&self) -> SortKey {
        let mut key: SortKey = Vec::with_capacity(INT_PARTS + 2);
        key.extend(self.ints.iter().map(|value| KeyPart::asc_int(*value)));
        if let Some(text) = &self.text {
            key.push(KeyPart::text(text.value.as_ref(), text.descending));
        }
        key.push(KeyPart::asc_text(self.id.as_ref()));
        key
    }

    /// Reads the cursor form back; `None` when `key` does not have this shape.
    pub fn from_sort_key(key: &SortKey) -> Option<CompactKey<'static>> {
        let (ints, rest) = key.split_at_checked(INT_PARTS)?;
        let mut out = CompactKey::new([0; INT_PARTS], "");
        for (slot, part) in out.ints.iter_mut().zip(ints) {
            let KeyPart::Asc(Scalar::Int(value)) = part else {
                return None;
            };
            *slot = *value;
        }
        let (id, text) = rest.split_last()?;
        let KeyPart::Asc(Scalar::Text(id)) = id else {
            return None;
        };
        out.id = Cow::Owned(id.clone());
        match text {
            [] => {}
            [KeyPart::Asc(Scalar::Text(value))] => {
                out = out.with_text(Cow::Owned(value.clone()), false);
            }
            [KeyPart::Desc(Scalar::Text(value))] => {
                out = out.with_text(Cow::Owned(value.clone()), true);
            }
            _ => return None,
        }
        Some(out)
    }
}

/// Pages a large list: keeps only the candidates after the cursor, and of them
/// the `limit + 1` first (a linear selection), then lets `paging::paginate` order
/// that page and issue its cursor. Only the page's keys are ever allocated.
pub fn paginate_compact<T>(
    mut items: Vec<(CompactKey<'_>, T)>,
    request: &PageRequest,
    secret: &[u8],
    binding: &str,
) -> Result<(Vec<T>, Pagination), HttpError> {
    if let Some(after) = &request.after {
        let after = CompactKey::from_sort_key(after).ok_or_else(|| {
            HttpError::invalid("query.cursor", "the cursor is not one this server issued")
        })?;
        items.retain(|(key, _)| *key > after);
    }
    let keep = request.limit + 1;
    if items.len() > keep {
        items.select_nth_unstable_by(keep - 1, |a, b| a.0.cmp(&b.0));
        items.truncate(keep);
    }
    let keyed = items
        .into_iter()
        .map(|(key, item)| (key.to_sort_key(), item))
        .collect();
    Ok(paging::paginate(keyed, request, secret, binding))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn score(query: &str, fields: &[(Option<&str>, u32)]) -> Option<u32> {
        let fields: Vec<Field> = fields
            .iter()
            .map(|(text, weight)| Field::raw(*text, *weight))
            .collect();
        TextQuery::parse(query, "query.query")
            .unwrap()
            .matcher()
            .score(&fields)
    }

    #[test]
    fn short_terms_are_ignored_and_long_queries_refused() {
        let query = TextQuery::parse("a to Budget  ÉTÉ", "query.query").unwrap();
        assert_eq!(query.terms(), ["budget", "été"]);
        assert!(TextQuery::parse("ab cd", "query.query").unwrap().is_blank());
        assert!(TextQuery::parse(&"x".repeat(1000), "query.query").is_ok());
        let err = TextQuery::parse(&"x".repeat(1001), "query.query").unwrap_err();
        assert_eq!(err.location.as_deref(), Some("query.query"));
    }

    #[test]
    fn every_term_must_match_and_better_matches_score_higher() {
        let name = (Some("Budget Tracker"), 2);
        let owner = (Some("Ada Lovelace"), 1);
        assert_eq!(score("budget ada", &[name, owner]), Some(2 * 2 + 2));
        assert_eq!(score("budget grace", &[name, owner]), None);
        assert_eq!(score("udget", &[name, owner]), Some(2));
        assert_eq!(score("budget tracker", &[(Some("budget"), 2)]), None);
        assert_eq!(score("BUDGET", &[(Some("budget"), 2)]), Some(6));
        assert_eq!(score("ab", &[(None, 2)]), Some(0));
        assert_eq!(score("abc", &[(None, 2)]), None);
        assert_eq!(score("été", &[(Some("Un Été"), 1)]), Some(2));
        assert_eq!(score("tête", &[(Some("entêtement"), 1)]), Some(1));
        assert_eq!(score("anna", &[(Some("banana anna"), 1)]), Some(2));
        let query = TextQuery::parse("lovelace", "query.query").unwrap();
        let fields = [
            Field::raw(Some("x"), 2),
            Field::folded(Some("ada lovelace"), 1),
        ];
        assert_eq!(query.matcher().score(&fields), Some(2));
    }

    #[test]
    fn compact_keys_order_like_their_cursor_form() {
        let names = ["beta", "Alpha", "", "alpha", "zeta"];
        let keys: Vec<CompactKey> = (0..40)
            .map(|n: i64| {
                let id = ["p1", "p2", "p3"][n as usize % 3];
                let key = CompactKey::new([directed(n % 4, n % 2 == 0), -(n % 3), 0], id);
                if n % 5 == 0 {
                    key
                } else {
                    key.with_text(Cow::Borrowed(names[n as usize % 5]), n % 7 < 3)
                }
            })
            .collect();
        for a in &keys {
            let back = CompactKey::from_sort_key(&a.to_sort_key()).unwrap();
            assert_eq!(&back, a);
            for b in &keys {
                let same_shape =
                    a.text.as_ref().map(|t| t.descending) == b.text.as_ref().map(|t| t.descending);
                if same_shape {
                    assert_eq!(
                        a.cmp(b),
                        a.to_sort_key().cmp(&b.to_sort_key()),
                        "{a:?} {b:?}"
                    );
                }
            }
        }
        assert!(CompactKey::from_sort_key(&vec![KeyPart::asc_text("x")]).is_none());
    }
}
