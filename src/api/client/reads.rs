//! The read operations besides a project's own: lists (one page, or a stream
//! over every page), analytics, members and the security center.

use futures::Stream;
use time::OffsetDateTime;

use super::super::error::ApiError;
use super::super::model::{
    Breakdowns, Insights, InventoryItem, InventoryPage, Member, MemberRef, Page, PiiFinding,
    Realtime, ReviewPriority, ScanFinding, SecurityScan, format_timestamp,
};
use super::super::page::{InventoryParams, MemberListParams, PageParams, PageWalk, Query};
use super::super::paths;
use super::Client;

impl Client {
    /// `GET /v1/projects/{id}/analytics/realtime`.
    pub async fn get_realtime(&self, project_id: &str) -> Result<Realtime, ApiError> {
        self.get(
            paths::project(project_id, "/analytics/realtime")?,
            Query::default(),
        )
        .await
    }

    /// `GET /v1/projects/{id}/analytics/breakdowns` over the UTC dates of
    /// `starts_at` to `ends_at`.
    pub async fn get_breakdowns(
        &self,
        project_id: &str,
        starts_at: OffsetDateTime,
        ends_at: OffsetDateTime,
    ) -> Result<Breakdowns, ApiError> {
        let mut query = Query::default();
        query
            .one("starts_at", Some(format_timestamp(starts_at)))
            .one("ends_at", Some(format_timestamp(ends_at)));
        self.get(paths::project(project_id, "/analytics/breakdowns")?, query)
            .await
    }
}

list_operation! {
    /// A page of a project's personal-data findings.
    operation ListPii,
    /// `GET /v1/projects/{id}/pii-labels`: one page.
    page list_pii,
    /// Every personal-data finding of a project.
    stream pii_stream,
    (project_id) params: PageParams,
    Page<PiiFinding> => PiiFinding,
    at paths::project(project_id, "/pii-labels"),
}

impl Client {
    /// `GET /v1/workspaces/{id}/members/{user_id}`.
    pub async fn get_member(&self, workspace_id: &str, user_id: &str) -> Result<Member, ApiError> {
        self.get(paths::member(workspace_id, user_id)?, Query::default())
            .await
    }
}

list_operation! {
    /// A page of a workspace's members.
    operation ListMembers,
    /// `GET /v1/workspaces/{id}/members`: one page.
    page list_members,
    /// Every member of a workspace matching `params`.
    stream members_stream,
    (workspace_id) params: MemberListParams,
    Page<MemberRef> => MemberRef,
    at paths::workspace(workspace_id, "/members"),
}

impl Client {
    /// `GET /v1/workspaces/{id}/security-center/insights`; `review_priority`
    /// filters only `findings`.
    pub async fn get_insights(
        &self,
        workspace_id: &str,
        review_priority: &[ReviewPriority],
    ) -> Result<Insights, ApiError> {
        let mut query = Query::default();
        query.each("review_priority", review_priority);
        self.get(
            paths::workspace(workspace_id, "/security-center/insights")?,
            query,
        )
        .await
    }
}

list_operation! {
    /// A page of the inventory: the filters are the parameters, the page size among them.
    operation ListInventory,
    /// `GET /v1/workspaces/{id}/security-center/insights/projects`: one page, with
    /// `total`, `as_of` and `applied_finding`.
    page list_inventory,
    /// Every inventory item matching `params`, in the requested order.
    stream inventory_stream,
    (workspace_id) params: InventoryParams,
    InventoryPage => InventoryItem,
    at paths::workspace(workspace_id, paths::INVENTORY),
}

impl Client {
    /// The inventory as [`Client::inventory_stream`] reads it, each item left as
    /// the server's JSON text (for exports that pass items through).
    pub fn inventory_raw_stream(
        &self,
        workspace_id: &str,
        params: InventoryParams,
    ) -> impl Stream<Item = Result<super::CheckedJson, ApiError>> + Send + 'static {
        self.paged::<super::checked_page::RawInventoryPage>(
            "list_inventory",
            paths::workspace(workspace_id, paths::INVENTORY),
            params,
            None,
        )
    }

    /// The bounds of a page-by-page walk of the inventory with `params`
    /// ([`Client::list_inventory`] at each cursor), for walks that are not a
    /// stream: they check each page with [`PageWalk::follow`].
    pub fn inventory_walk(&self, workspace_id: &str, params: &InventoryParams) -> PageWalk {
        let first = ListInventory {
            workspace_id: workspace_id.to_owned(),
            params: params.clone(),
            cursor: None,
        };
        self.walk_of(&first)
    }

    /// The bounds of a page-by-page walk of the members with `params`
    /// ([`Client::list_members`] at each cursor), as [`Client::inventory_walk`].
    pub fn members_walk(&self, workspace_id: &str, params: &MemberListParams) -> PageWalk {
        let first = ListMembers {
            workspace_id: workspace_id.to_owned(),
            params: params.clone(),
            cursor: None,
        };
        self.walk_of(&first)
    }

    /// [`Client::members_stream`], the walk bounded by the member count the
    /// caller was told (insights' `summary.workspace_members`).
    pub fn members_stream_expecting(
        &self,
        workspace_id: &str,
        params: MemberListParams,
        expected: u64,
    ) -> impl Stream<Item = Result<MemberRef, ApiError>> + Send + 'static {
        self.paged::<Page<MemberRef>>(
            "list_members",
            paths::workspace(workspace_id, "/members"),
            params,
            Some(expected),
        )
    }

    /// `GET /v1/projects/{id}/security-scans/{scan_id}`.
    pub async fn get_security_scan(
        &self,
        project_id: &str,
        scan_id: &str,
    ) -> Result<SecurityScan, ApiError> {
        self.get(paths::scan(project_id, scan_id)?, Query::default())
            .await
    }
}

list_operation! {
    /// A page of a scan's findings.
    operation ListScanFindings,
    /// `GET /v1/projects/{id}/security-scans/{scan_id}/findings`: one page.
    page list_scan_findings,
    /// Every finding of a scan: the full snapshot, fixed and ignored included.
    stream scan_findings_stream,
    (project_id, scan_id) params: PageParams,
    Page<ScanFinding> => ScanFinding,
    at paths::scan_findings(project_id, scan_id),
}
