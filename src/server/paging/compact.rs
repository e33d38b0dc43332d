//! Compact keyset sort keys for large lists: cheap to build for every
//! candidate, turned into the cursor's [`SortKey`] only for the page.

use std::borrow::Cow;
use std::cmp::Ordering;

use super::{KeyPart, PageRequest, Scalar, SortKey, paginate};
use crate::api::model::Pagination;
use crate::server::errors::HttpError;

/// Integer components of a [`CompactKey`].
pub const INT_PARTS: usize = 3;

/// A sort key that is cheap to build for every candidate of a large list: the
/// direction of integer parts is applied up front (descending values are
/// negated, see [`directed`]), so only the optional text part carries one; the
/// unique id is last and ascending. [`CompactKey::to_sort_key`] gives the
/// `SortKey` form cursors carry, which orders exactly the same.
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
/// the `limit + 1` first (a linear selection), then lets [`paginate`] order
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
    Ok(paginate(keyed, request, secret, binding))
}

/// Pages a list that is already in key order and starts after the cursor
/// (an index walked from the cursor): its first `limit` items, and when more
/// follow (`items` then holds `limit + 1`) the cursor at the last one shown,
/// whose key `key_of` gives. Only that one key takes the cursor's form: what
/// [`paginate_compact`] answers for the same items, without their sort.
pub fn paginate_in_order<'k, T>(
    mut items: Vec<T>,
    limit: usize,
    key_of: impl FnOnce(&T) -> Option<CompactKey<'k>>,
    secret: &[u8],
    binding: &str,
) -> Result<(Vec<T>, Pagination), HttpError> {
    let has_more = items.len() > limit;
    items.truncate(limit);
    let next_cursor = match items.last().filter(|_| has_more) {
        Some(last) => {
            let key = key_of(last)
                .ok_or_else(|| HttpError::internal("the page's last item has no sort key"))?;
            Some(super::key_cursor(&key.to_sort_key(), secret, binding))
        }
        None => None,
    };
    Ok((
        items,
        Pagination {
            has_more,
            next_cursor,
        },
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

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

    #[test]
    fn a_list_in_order_pages_as_the_sorted_selection_does() {
        let ids: Vec<String> = (0..12).map(|n| format!("p{n:02}")).collect();
        let key = |n: usize| {
            CompactKey::new([directed(n as i64 / 3, true), 0, 0], &ids[n])
                .with_text(Cow::Borrowed(["b", "A", "c"][n % 3]), false)
        };
        let mut in_order: Vec<usize> = (0..ids.len()).collect();
        in_order.sort_by(|a, b| key(*a).cmp(&key(*b)));
        let (secret, binding) = (b"s".as_slice(), "b");
        let mut cursor: Option<String> = None;
        let mut pages = 0;
        loop {
            let request = PageRequest::new(5, cursor.as_deref(), secret, binding).unwrap();
            let shuffled: Vec<(CompactKey, usize)> =
                in_order.iter().rev().map(|&n| (key(n), n)).collect();
            let expected = paginate_compact(shuffled, &request, secret, binding).unwrap();
            let after: Vec<usize> = in_order
                .iter()
                .copied()
                .filter(|&n| {
                    let after = request.after.as_ref();
                    after.is_none_or(|after| key(n).to_sort_key() > *after)
                })
                .take(request.limit + 1)
                .collect();
            let got = paginate_in_order(after, request.limit, |&n| Some(key(n)), secret, binding)
                .unwrap();
            assert_eq!(got, expected);
            pages += 1;
            match got.1.next_cursor {
                Some(next) => cursor = Some(next),
                None => break,
            }
        }
        assert_eq!(pages, 3);
    }
}
