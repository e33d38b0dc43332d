//! The bounds of one walk over a list's pages (DESIGN.md, "Every walk is
//! bounded"). A service that answers `has_more` forever, with cursors that cycle
//! or with new cursors on empty pages, would keep a walk going and spend the
//! user's request budget: [`PageWalk::follow`] is the one check every walk makes
//! after each page, the streams of `stream.rs` and the page-by-page walks of the
//! snapshot, the exporter and the dashboard alike. Its bounds that do not
//! come from the service: at most [`DEFAULT_MAX_WALK_ITEMS`] items (the
//! config's `max_walk_items`), cursors of at most [`MAX_CURSOR_BYTES`].

use std::collections::HashSet;

use sha2::{Digest, Sha256};

use super::super::error::{ApiError, ProtocolError};
use super::super::model::Pagination;

/// Empty pages with `has_more` in a row before a walk gives up. An empty page
/// with `has_more` is legal (DESIGN.md, "Pagination"), a run of them is a
/// service that is not moving.
pub const MAX_EMPTY_PAGES_IN_ROW: u32 = 10;

/// The most items one walk reads unless configured (`max_walk_items`): far
/// above any real workspace, and a bound the service cannot raise, where the
/// `total` it tells can say 10^15.
pub const DEFAULT_MAX_WALK_ITEMS: u64 = 1_000_000;

/// The longest cursor followed. Real cursors are well under 1 KiB; a service
/// handing out 32 KiB ones would have every walk keep megabytes of them.
pub const MAX_CURSOR_BYTES: usize = 4096;

/// The page size the contract allows at most: a walk that did not ask for a
/// `limit` still never gets more.
const CONTRACT_MAX_LIMIT: u32 = 100;

/// What one walk has seen so far. Cheap: a digest of each cursor it
/// followed (32 bytes, whatever the cursor's length) and a few counts.
#[derive(Debug, Clone)]
pub struct PageWalk {
    operation: String,
    path: String,
    limit: u32,
    expected: Option<u64>,
    max_items: u64,
    seen: HashSet<[u8; 32]>,
    pages: u64,
    items: u64,
    empty_in_row: u32,
}

impl PageWalk {
    /// A walk of `operation` (named in errors, e.g. `list_inventory`) at
    /// `path`, asking pages of `limit` items (`None`: the server's default).
    pub fn new(operation: impl Into<String>, path: impl Into<String>, limit: Option<u32>) -> Self {
        Self {
            operation: operation.into(),
            path: path.into(),
            limit: limit
                .unwrap_or(CONTRACT_MAX_LIMIT)
                .clamp(1, CONTRACT_MAX_LIMIT),
            expected: None,
            max_items: DEFAULT_MAX_WALK_ITEMS,
            seen: HashSet::new(),
            pages: 0,
            items: 0,
            empty_in_row: 0,
        }
    }

    /// The number of items the service said the list holds (an inventory
    /// page's `total`, insights' `summary.total_projects`). The first one told
    /// stays: a service that raises it page after page does not move the bound.
    pub fn expect(&mut self, total: u64) {
        self.expected.get_or_insert(total);
    }

    /// The most items this walk reads (`max_walk_items`), whatever the
    /// service says the list holds; at least one.
    pub fn with_max_items(mut self, max_items: u64) -> Self {
        self.max_items = max_items.max(1);
        self
    }

    /// Whether `cursor` was not followed yet (a guess worth asking for early).
    pub fn is_new(&self, cursor: &str) -> bool {
        !self.seen.contains(&digest(cursor))
    }

    /// Pages checked so far.
    pub fn pages(&self) -> u64 {
        self.pages
    }

    /// Checks the page just read (`items` long) and gives the cursor of the
    /// next one, or `None` at the end. An error ends the walk: the items of
    /// this page are still good to use.
    pub fn follow(
        &mut self,
        items: usize,
        pagination: &Pagination,
    ) -> Result<Option<String>, ApiError> {
        self.pages += 1;
        let items = items as u64;
        if items > u64::from(self.limit) {
            return Err(self.error(format!(
                "page {} held {items} items, more than the {} asked for",
                self.pages, self.limit
            )));
        }
        self.items += items;
        if self.items > self.max_items {
            return Err(self.error(format!(
                "the walk stopped after {} items in {} pages, more than the {} one walk reads \
                 (max_walk_items in the config file)",
                self.items, self.pages, self.max_items
            )));
        }
        if let Some(expected) = self.expected {
            // The list may grow while it is walked (eventually consistent),
            // so the bound leaves a page's worth, or a tenth, of room.
            let margin = u64::from(self.limit).max(expected / 10);
            if self.items > expected + margin {
                return Err(self.error(format!(
                    "the service's paging did not end: {} items after {} pages, though it said the list holds {expected}",
                    self.items, self.pages
                )));
            }
            let expected_pages = expected.div_ceil(u64::from(self.limit)).max(1);
            let page_margin = u64::from(MAX_EMPTY_PAGES_IN_ROW).max(expected_pages / 10);
            if self.pages > expected_pages + page_margin {
                return Err(self.error(format!(
                    "the service's paging did not end: {} pages for the {expected} items it said the list holds",
                    self.pages
                )));
            }
        }
        if !pagination.has_more {
            return Ok(None);
        }
        let next = match pagination.next_cursor.as_deref() {
            Some(next) if !next.is_empty() => next,
            _ => {
                return Err(self.error(format!(
                    "page {} says has_more but gives no next_cursor",
                    self.pages
                )));
            }
        };
        if next.len() > MAX_CURSOR_BYTES {
            return Err(self.error(format!(
                "page {} gives a next_cursor of {} bytes, more than the {MAX_CURSOR_BYTES} a cursor may hold",
                self.pages,
                next.len()
            )));
        }
        self.empty_in_row = if items == 0 { self.empty_in_row + 1 } else { 0 };
        if self.empty_in_row > MAX_EMPTY_PAGES_IN_ROW {
            return Err(self.error(format!(
                "the service's paging did not end: {} empty pages in a row, each with has_more, after {} pages",
                self.empty_in_row, self.pages
            )));
        }
        if !self.seen.insert(digest(next)) {
            return Err(self.error(format!(
                "the service's paging did not end: cursor repeated after {} pages",
                self.pages
            )));
        }
        Ok(Some(next.to_owned()))
    }

    fn error(&self, message: String) -> ApiError {
        ApiError::Protocol(Box::new(ProtocolError {
            operation: self.operation.clone(),
            method: "GET".into(),
            path: self.path.clone(),
            message,
        }))
    }
}

/// What the seen-set keeps of a cursor: its SHA-256.
fn digest(cursor: &str) -> [u8; 32] {
    Sha256::digest(cursor.as_bytes()).into()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn more(next: &str) -> Pagination {
        Pagination {
            has_more: true,
            next_cursor: Some(next.to_owned()),
        }
    }

    fn end() -> Pagination {
        Pagination {
            has_more: false,
            next_cursor: None,
        }
    }

    fn message(error: ApiError) -> String {
        error.to_string()
    }

    #[test]
    fn a_cycling_cursor_ends_the_walk_with_the_operation_named() {
        let mut walk = PageWalk::new("list_inventory", "/v1/x", Some(2));
        assert_eq!(walk.follow(2, &more("A")).unwrap().as_deref(), Some("A"));
        assert_eq!(walk.follow(2, &more("B")).unwrap().as_deref(), Some("B"));
        let error = message(walk.follow(2, &more("A")).unwrap_err());
        assert_eq!(
            error,
            "list_inventory: the service's paging did not end: cursor repeated after 3 pages [GET /v1/x]"
        );
    }

    #[test]
    fn a_few_empty_pages_are_legal_an_endless_run_is_not() {
        let mut walk = PageWalk::new("list_members", "/v1/m", None);
        for page in 0..MAX_EMPTY_PAGES_IN_ROW {
            assert!(walk.follow(0, &more(&format!("c{page}"))).is_ok());
        }
        // An item resets the run.
        assert!(walk.follow(1, &more("x")).is_ok());
        for page in 0..MAX_EMPTY_PAGES_IN_ROW {
            assert!(walk.follow(0, &more(&format!("d{page}"))).is_ok());
        }
        let error = message(walk.follow(0, &more("last")).unwrap_err());
        assert!(error.contains("11 empty pages in a row"), "{error}");
        assert_eq!(walk.pages(), 22);
    }

    #[test]
    fn a_page_longer_than_the_limit_is_refused() {
        let mut walk = PageWalk::new("list_inventory", "/v1/x", Some(100));
        let error = message(walk.follow(101, &end()).unwrap_err());
        assert!(
            error.contains("page 1 held 101 items, more than the 100 asked for"),
            "{error}"
        );
        // Without a limit the contract's maximum applies.
        let mut walk = PageWalk::new("list_pii", "/v1/p", None);
        assert!(walk.follow(101, &end()).is_err());
    }

    #[test]
    fn a_walk_past_the_told_total_ends() {
        let mut walk = PageWalk::new("list_inventory", "/v1/x", Some(10));
        walk.expect(30);
        // The first total told stays.
        walk.expect(1_000_000);
        let mut cursor = 0;
        let error = loop {
            cursor += 1;
            match walk.follow(10, &more(&cursor.to_string())) {
                Ok(_) => continue,
                Err(error) => break message(error),
            }
        };
        // 30 plus a page's worth of room: the fifth page goes past.
        assert_eq!(cursor, 5);
        assert!(
            error.contains("50 items after 5 pages, though it said the list holds 30"),
            "{error}"
        );
    }

    #[test]
    fn trickling_pages_end_at_the_page_bound() {
        // One item every few pages stays under the item bound and the empty run.
        let mut walk = PageWalk::new("list_inventory", "/v1/x", Some(100));
        walk.expect(100);
        let mut pages = 0;
        let error = loop {
            pages += 1;
            let items = usize::from(pages % 5 == 0);
            if let Err(error) = walk.follow(items, &more(&pages.to_string())) {
                break message(error);
            }
        };
        assert_eq!(pages, 12, "{error}");
        assert!(error.contains("12 pages for the 100 items"), "{error}");
    }

    #[test]
    fn a_walk_ends_at_its_own_bound_whatever_total_the_service_tells() {
        let mut walk = PageWalk::new("list_inventory", "/v1/x", Some(1)).with_max_items(50);
        walk.expect(1_000_000_000_000_000);
        let mut pages = 0;
        let error = loop {
            pages += 1;
            if let Err(error) = walk.follow(1, &more(&format!("fresh{pages}"))) {
                break message(error);
            }
        };
        assert_eq!(pages, 51);
        assert!(
            error.starts_with(
                "list_inventory: the walk stopped after 51 items in 51 pages, more than the 50"
            ),
            "{error}"
        );
        assert_eq!(
            PageWalk::new("x", "/", None).max_items,
            DEFAULT_MAX_WALK_ITEMS
        );
    }

    #[test]
    fn a_cursor_longer_than_four_kib_is_refused_naming_the_operation() {
        let mut walk = PageWalk::new("list_members", "/v1/m", None);
        let fits = "c".repeat(MAX_CURSOR_BYTES);
        assert!(walk.follow(1, &more(&fits)).is_ok());
        assert!(!walk.is_new(&fits));
        let error = message(walk.follow(1, &more(&"c".repeat(32 * 1024))).unwrap_err());
        assert_eq!(
            error,
            "list_members: page 2 gives a next_cursor of 32768 bytes, more than the 4096 a cursor may hold [GET /v1/m]"
        );
    }

    #[test]
    fn a_missing_next_cursor_with_has_more_is_an_error() {
        let mut walk = PageWalk::new("list_inventory", "/v1/x", None);
        let stuck = Pagination {
            has_more: true,
            next_cursor: Some(String::new()),
        };
        assert!(message(walk.follow(1, &stuck).unwrap_err()).contains("gives no next_cursor"));
    }

    #[test]
    fn an_honest_walk_ends_at_the_last_page() {
        let mut walk = PageWalk::new("list_inventory", "/v1/x", Some(2));
        walk.expect(5);
        assert!(walk.follow(2, &more("a")).unwrap().is_some());
        assert!(walk.follow(0, &more("b")).unwrap().is_some());
        assert!(walk.follow(2, &more("c")).unwrap().is_some());
        assert_eq!(walk.follow(1, &end()).unwrap(), None);
    }
}
