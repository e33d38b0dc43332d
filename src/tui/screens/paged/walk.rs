//! The bounds of a dashboard list's walk over its pages: the same
//! [`PageWalk`] the commands, the snapshot and the exporter use (DESIGN.md,
//! "Every walk is bounded"), kept by the [`super::PagedList`] from its first
//! page on.

use crate::api::model::Pagination;
use crate::api::page::{PageShape, PageWalk};
use crate::api::{InventoryParams, ListCall, MemberListParams};
use crate::tui::effect::{Cx, ErrorInfo};
use crate::tui::ops::{ListInventory, ListMembers};
use crate::tui::request::{Message, Operation};

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

/// What the answer to a request `O` becomes: its owner's message.
pub type Answer<O, M> = fn(Result<<O as Operation>::Output, ErrorInfo>) -> M;

/// How a list asks for its pages: the request for the page at a cursor and
/// the message its answer becomes, the one argument of every
/// [`super::PagedList`] call that may ask for a page. A screen makes it
/// where it keeps its filters ([`Pages::new`]).
pub trait PageSource {
    type Request: ListOperation;
    type Msg: Message;

    /// The request for the page at `cursor` (`None`: the first), and what
    /// its answer becomes.
    fn at(self, cursor: Option<String>) -> (Self::Request, Answer<Self::Request, Self::Msg>);
}

/// A [`PageSource`] of a request made for a cursor and a message.
pub struct Pages<F, O: Operation, M> {
    request: F,
    message: Answer<O, M>,
}

impl<F, O, M> Pages<F, O, M>
where
    F: FnOnce(Option<String>) -> O,
    O: ListOperation,
    M: Message,
{
    pub fn new(request: F, message: Answer<O, M>) -> Self {
        Self { request, message }
    }
}

impl<F, O, M> PageSource for Pages<F, O, M>
where
    F: FnOnce(Option<String>) -> O,
    O: ListOperation,
    M: Message,
{
    type Request = O;
    type Msg = M;

    fn at(self, cursor: Option<String>) -> (O, Answer<O, M>) {
        ((self.request)(cursor), self.message)
    }
}

/// The pages of a list of the client's, from its first page's call: each
/// page the same call at its cursor.
pub fn pages_from<L, M>(first: L, message: Answer<L, M>) -> impl PageSource<Msg = M>
where
    L: ListCall + ListOperation,
    M: Message,
{
    Pages::new(move |cursor| first.at(cursor), message)
}

/// A list of the workspace on screen (the inventory, members): its first
/// page's call is the workspace's id and the screen's parameters.
pub trait WorkspaceList: ListCall + ListOperation {
    type Params;

    fn first(workspace_id: String, params: Self::Params) -> Self;
}

/// How a screen asks for the pages of workspace list `L` with `params`.
pub fn workspace_pages<L, M>(
    cx: &Cx,
    params: L::Params,
    message: Answer<L, M>,
) -> impl PageSource<Msg = M> + use<L, M>
where
    L: WorkspaceList,
    M: Message,
{
    pages_from(L::first(cx.workspace.to_owned(), params), message)
}

/// Declares the workspace lists: each one's call and parameters.
macro_rules! workspace_lists {
    ($($list:ty: $params:ty),* $(,)?) => {
        $(impl WorkspaceList for $list {
            type Params = $params;

            fn first(workspace_id: String, params: $params) -> Self {
                Self {
                    workspace_id,
                    params,
                    cursor: None,
                }
            }
        })*
    };
}

workspace_lists!(ListInventory: InventoryParams, ListMembers: MemberListParams);
