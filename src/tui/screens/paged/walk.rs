//! The bounds of a dashboard list's walk over its pages: the same
//! [`PageWalk`] the commands, the snapshot and the exporter use (DESIGN.md,
//! "Every walk is bounded"), kept by the [`super::PagedList`] from its first
//! page on.

use crate::api::model::Pagination;
use crate::api::page::PageWalk;
use crate::tui::effect::{Reply, Request};

/// The walk a first-page `request` starts, named as the client names the
/// operation; `None` for a list that is not the service's (the local history).
/// The workspace id is the executor's, so those paths say `{id}`.
pub(super) fn walk_of(request: &Request) -> Option<PageWalk> {
    let workspace = |rest: &str| format!("/v1/workspaces/{{id}}{rest}");
    let project = |id: &str, rest: &str| format!("/v1/projects/{id}{rest}");
    Some(match request {
        Request::InventoryPage { params, .. } => PageWalk::new(
            "list_inventory",
            workspace("/security-center/insights/projects"),
            params.limit,
        ),
        Request::MemberPage { params, .. } => {
            PageWalk::new("list_members", workspace("/members"), params.limit)
        }
        Request::PiiPage {
            project_id, limit, ..
        } => PageWalk::new("list_pii", project(project_id, "/pii-labels"), Some(*limit)),
        Request::ScanFindingsPage {
            project_id,
            scan_id,
            limit,
            ..
        } => PageWalk::new(
            "list_scan_findings",
            project(project_id, &format!("/security-scans/{scan_id}/findings")),
            Some(*limit),
        ),
        _ => return None,
    })
}

/// A page reply's length, paging and the total it tells (the inventory's),
/// for [`PageWalk::follow`]; `None` for a reply that is no page.
pub(super) fn page_shape(reply: &Reply) -> Option<(usize, &Pagination, Option<i64>)> {
    match reply {
        Reply::InventoryPage(page) => Some((page.data.len(), &page.pagination, Some(page.total))),
        Reply::MemberPage(page) => Some((page.data.len(), &page.pagination, None)),
        Reply::PiiPage(page) => Some((page.data.len(), &page.pagination, None)),
        Reply::ScanFindingsPage(page) => Some((page.data.len(), &page.pagination, None)),
        _ => None,
    }
}
