//! Free-text `query` matching shared by the list operations, and the case
//! folding that search and name ordering compare by.
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

use crate::api::model::FieldError;

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
            return Err(FieldError {
                message: format!("query may be at most {MAX_QUERY_CHARS} characters long"),
                location: Some(location.to_owned()),
            });
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
}
