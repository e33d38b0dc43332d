//! Keyset pagination shared by every list: items carry a total sort key (always
//! ending in a unique id), and a cursor holds the key of the last item returned,
//! so no item is repeated or skipped across pages while the data does not change.

pub mod compact;
mod cursor;

use std::cmp::Ordering;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::api::model::Pagination;
use crate::server::errors::HttpError;

/// One component of a sort key.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Scalar {
    Int(i64),
    Text(String),
}

/// A component with its direction.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum KeyPart {
    #[serde(rename = "a")]
    Asc(Scalar),
    #[serde(rename = "d")]
    Desc(Scalar),
}

impl KeyPart {
    pub fn asc_int(value: i64) -> Self {
        Self::Asc(Scalar::Int(value))
    }
    pub fn desc_int(value: i64) -> Self {
        Self::Desc(Scalar::Int(value))
    }
    pub fn asc_text(value: impl Into<String>) -> Self {
        Self::Asc(Scalar::Text(value.into()))
    }
    pub fn desc_text(value: impl Into<String>) -> Self {
        Self::Desc(Scalar::Text(value.into()))
    }
    /// `Asc` or `Desc` by a flag.
    pub fn int(value: i64, descending: bool) -> Self {
        if descending {
            Self::desc_int(value)
        } else {
            Self::asc_int(value)
        }
    }
    pub fn text(value: impl Into<String>, descending: bool) -> Self {
        if descending {
            Self::desc_text(value)
        } else {
            Self::asc_text(value)
        }
    }
}

impl Ord for KeyPart {
    fn cmp(&self, other: &Self) -> Ordering {
        match (self, other) {
            (Self::Asc(a), Self::Asc(b)) => a.cmp(b),
            (Self::Desc(a), Self::Desc(b)) => b.cmp(a),
            // Keys of one list always have the same shape; order mixed parts stably.
            (Self::Asc(_), Self::Desc(_)) => Ordering::Less,
            (Self::Desc(_), Self::Asc(_)) => Ordering::Greater,
        }
    }
}

impl PartialOrd for KeyPart {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

pub type SortKey = Vec<KeyPart>;

/// Page size of every list when `limit` is omitted: the contract's default of
/// the inventory and PII lists, the reference's of scan findings, and DESIGN's
/// choice for members and workspace projects.
pub const DEFAULT_LIMIT: u32 = 50;
/// The largest `limit` of every list (contract: 1 to 100).
pub const MAX_LIMIT: u32 = 100;

/// A page request: size, and where the previous page ended.
pub struct PageRequest {
    pub limit: usize,
    pub after: Option<SortKey>,
}

impl PageRequest {
    /// Decodes `cursor` issued under `binding`; 400 at `query.cursor` otherwise.
    pub fn new(
        limit: u32,
        cursor: Option<&str>,
        secret: &[u8],
        binding: &str,
    ) -> Result<Self, HttpError> {
        let after = match cursor {
            None => None,
            Some(raw) => {
                let position = cursor::decode(secret, binding, raw)?;
                Some(serde_json::from_value::<SortKey>(position).map_err(|_| {
                    HttpError::invalid("query.cursor", "the cursor is not one this server issued")
                })?)
            }
        };
        Ok(Self {
            limit: limit as usize,
            after,
        })
    }
}

/// Sorts `items` by key and cuts the page after `request.after`; returns the page
/// and its `pagination` with a cursor bound to `binding`.
pub fn paginate<T>(
    mut items: Vec<(SortKey, T)>,
    request: &PageRequest,
    secret: &[u8],
    binding: &str,
) -> (Vec<T>, Pagination) {
    if let Some(after) = &request.after {
        // Only items after the cursor matter: drop the rest before sorting.
        items.retain(|(key, _)| key > after);
    }
    let take = request.limit.min(items.len());
    if take < items.len() && take > 0 {
        items.select_nth_unstable_by(take - 1, |a, b| a.0.cmp(&b.0));
        items[..take].sort_unstable_by(|a, b| a.0.cmp(&b.0));
    } else {
        items.sort_unstable_by(|a, b| a.0.cmp(&b.0));
    }
    let has_more = items.len() > take;
    items.truncate(take);
    let next_cursor = has_more
        .then(|| {
            items
                .last()
                .map(|(key, _)| key_cursor(key, secret, binding))
        })
        .flatten();
    let page = items.into_iter().map(|(_, item)| item).collect();
    (
        page,
        Pagination {
            has_more,
            next_cursor,
        },
    )
}

fn key_cursor(key: &SortKey, secret: &[u8], binding: &str) -> String {
    cursor::encode(
        secret,
        binding,
        &serde_json::to_value(key).unwrap_or(Value::Null),
    )
}

/// The canonical form of a list request that its cursors are bound to: the
/// operation, the path, and every parameter except `limit` and `cursor`, sorted.
pub fn binding(operation: &str, path: &str, query: &[(String, String)]) -> String {
    let mut params: Vec<&(String, String)> = query
        .iter()
        .filter(|(name, _)| name != "limit" && name != "cursor")
        .collect();
    params.sort();
    let mut out = format!("{operation}|{path}");
    for (name, value) in params {
        out.push('|');
        out.push_str(name);
        out.push('=');
        out.push_str(value);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn walks_every_item_once_in_order() {
        let items: Vec<(SortKey, i64)> = (0..95)
            .map(|n| {
                (
                    vec![
                        KeyPart::desc_int(n % 7),
                        KeyPart::asc_text(format!("{n:03}")),
                    ],
                    n,
                )
            })
            .collect();
        let mut expected = items.clone();
        expected.sort_by(|a, b| a.0.cmp(&b.0));
        let expected: Vec<i64> = expected.into_iter().map(|(_, n)| n).collect();
        let secret = b"s";
        let mut seen = Vec::new();
        let mut cursor: Option<String> = None;
        loop {
            let request = PageRequest::new(10, cursor.as_deref(), secret, "b").unwrap();
            let (page, pagination) = paginate(items.clone(), &request, secret, "b");
            seen.extend(page);
            if !pagination.has_more {
                assert!(pagination.next_cursor.is_none());
                break;
            }
            cursor = pagination.next_cursor;
        }
        assert_eq!(seen, expected);
    }

    #[test]
    fn binding_ignores_limit_cursor_and_order_of_parameters() {
        let bind = |pairs: &[(&str, &str)]| {
            let query: Vec<(String, String)> = pairs
                .iter()
                .map(|&(name, value)| (name.into(), value.into()))
                .collect();
            binding("op", "/p", &query)
        };
        let a = bind(&[("b", "1"), ("limit", "5"), ("a", "2")]);
        assert_eq!(a, bind(&[("a", "2"), ("b", "1"), ("cursor", "x")]));
        assert_ne!(a, bind(&[("a", "3")]));
    }
}
