//! The one page walk for a caller that handles each page whole (the
//! snapshot's walk, the exporter's inventory, an export that resumes from a
//! cursor): [`Pages`] asks for one page of a list after another, checking
//! each with the list's [`PageWalk`]. A caller that wants items, not pages,
//! reads the client's stream instead (`page/stream.rs`), which checks its
//! pages with the same walk.

use super::super::client::{Client, ListCall};
use super::super::error::ApiError;
use super::super::model::{InventoryPage, Page, Pagination};
use super::walk::PageWalk;

/// A page as a walk reads it: how many items, where the next page is, and
/// the list's total when the page tells it (the inventory's).
pub trait PageShape {
    fn shape(&self) -> (usize, &Pagination, Option<i64>);
}

impl PageShape for InventoryPage {
    fn shape(&self) -> (usize, &Pagination, Option<i64>) {
        (self.data.len(), &self.pagination, Some(self.total))
    }
}

impl<T> PageShape for Page<T> {
    fn shape(&self) -> (usize, &Pagination, Option<i64>) {
        (self.data.len(), &self.pagination, None)
    }
}

/// The pages of one list, one at a time, from the page `call` asks for (its
/// cursor: `None` for the first), within the walk's bounds.
#[derive(Debug)]
pub struct Pages<C: ListCall> {
    /// The next page's request.
    next: C,
    walk: PageWalk,
    done: bool,
}

impl<C> Pages<C>
where
    C: ListCall<Page: PageShape>,
{
    /// The pages from `call`'s on, bounded as `client` bounds every walk.
    pub fn new(client: &Client, call: C) -> Self {
        let walk = client.walk_of(&call);
        Self {
            next: call,
            walk,
            done: false,
        }
    }

    /// The number of items another answer said the list holds (insights'
    /// count): the first one told bounds the walk.
    pub fn expect(&mut self, total: u64) {
        self.walk.expect(total);
    }

    /// Whether the last page was read (or the walk went past its bounds).
    pub fn is_done(&self) -> bool {
        self.done
    }

    /// The next page, `None` after the last. A failed request can be asked
    /// again (the same page); a page past the walk's bounds ends the walk
    /// with its error, its items unread.
    pub async fn next(&mut self, client: &Client) -> Option<Result<C::Page, ApiError>> {
        if self.done {
            return None;
        }
        let page = match self.next.clone().call(client).await {
            Ok(page) => page,
            Err(error) => return Some(Err(error)),
        };
        let (items, pagination, total) = page.shape();
        if let Some(total) = total {
            self.walk.expect(total.max(0) as u64);
        }
        match self.walk.follow(items, pagination) {
            Ok(Some(cursor)) => self.next = self.next.at(Some(cursor)),
            Ok(None) => self.done = true,
            Err(error) => {
                self.done = true;
                return Some(Err(error));
            }
        }
        Some(Ok(page))
    }
}
