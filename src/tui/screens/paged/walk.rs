//! The bounds of a dashboard list's walk over its pages: the same
//! [`PageWalk`] the commands, the snapshot and the exporter use (DESIGN.md,
//! "Every walk is bounded"), kept by the [`super::PagedList`] from its first
//! page on.

use crate::api::ListCall;
use crate::api::model::Pagination;
use crate::api::page::{PageShape, PageWalk};
use crate::tui::request::Operation;

/// A request for one page of a list: the walk its first page starts.
pub trait ListOperation: Operation<Output: ListPage> {
    /// The walk a first page starts, named as the client names the
    /// operation; `None` for a list that is not the service's (the local
    /// history).
    fn walk(&self) -> Option<PageWalk>;
}

/// A page as a walk reads it: its length, paging and the total it tells (the
/// inventory's); `None` for a list that is not paged by the service.
pub trait ListPage {
    fn shape(&self) -> Option<(usize, &Pagination, Option<i64>)>;
}

/// A list of the client's (`list_operation!`): its walk is declared with it.
impl<L: ListCall<Page: ListPage>> ListOperation for L {
    fn walk(&self) -> Option<PageWalk> {
        Some(ListCall::walk(self))
    }
}

/// A page of the service's lists: as the walk reads it.
impl<P: PageShape> ListPage for P {
    fn shape(&self) -> Option<(usize, &Pagination, Option<i64>)> {
        Some(PageShape::shape(self))
    }
}
