//! One handler for every list of the records that belong to a parent (a
//! project's personal data and scans, a scan's findings, a workspace's
//! members): each list declares its parent, its filters and its items with
//! their sort keys beside its record; [`list`] checks, reads and pages them by
//! keyset the same way for all.

use std::sync::Arc;

use axum::Json;
use axum::extract::State;
use serde::Serialize;
use serde::de::DeserializeOwned;

use super::PathParams;
use crate::api::model::Page;
use crate::server::ServerState;
use crate::server::context::Ctx;
use crate::server::errors::HttpError;
use crate::server::paging::{self, SortKey};
use crate::server::store::Data;

/// A list of one parent's records, as an operation serves it.
pub trait ChildList: 'static {
    /// The path's parameters, which name the parent.
    type Parent: DeserializeOwned + Send;
    /// The list's own filters and sort, read from the query.
    type Request: FromQuery;
    /// One item of a page.
    type Item: Serialize;
    /// Whether the list reads the eventually consistent view (the contract
    /// says which).
    const EVENTUAL: bool;

    /// The path the list's cursors are bound to.
    fn path(parent: &Self::Parent) -> String;

    /// Every item with its sort key, or the operation's 404 for the parent.
    fn items(
        data: &Data,
        ctx: &Ctx,
        parent: &Self::Parent,
        request: &Self::Request,
    ) -> Result<Vec<(SortKey, Self::Item)>, HttpError>;
}

/// A list's filters and sort as its query gives them: read first, before the
/// cursor and the parent (validation before resource).
pub trait FromQuery: Sized + Send {
    fn from_query(ctx: &Ctx) -> Result<Self, HttpError>;
}

/// A list with no filters of its own.
impl FromQuery for () {
    fn from_query(_: &Ctx) -> Result<(), HttpError> {
        Ok(())
    }
}

/// The operation of the list `L`: its filters, then `limit` and `cursor` (the
/// cursor bound to the path and the declared parameters), then the parent,
/// then one page in the list's order.
pub async fn list<L: ChildList>(
    ctx: Ctx,
    State(app): State<Arc<ServerState>>,
    PathParams(parent): PathParams<L::Parent>,
) -> Result<Json<Page<L::Item>>, HttpError> {
    let request = L::Request::from_query(&ctx)?;
    let binding = ctx.cursor_binding(&L::path(&parent));
    let page = ctx.page_request(&app.cursor_secret, &binding)?;
    let answer = |data: &Data| {
        let items = L::items(data, &ctx, &parent, &request)?;
        let (data, pagination) = paging::paginate(items, &page, &app.cursor_secret, &binding);
        Ok(Json(Page { data, pagination }))
    };
    if L::EVENTUAL {
        app.store.read_eventual(answer)
    } else {
        app.store.read(answer)
    }
}
