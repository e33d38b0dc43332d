//! The read operations besides a project's own: lists (one page, or a stream
//! over every page), analytics, members and the security center.

use futures::Stream;
use time::OffsetDateTime;

use super::super::error::ApiError;
use super::super::model::{
    Breakdowns, Insights, InventoryItem, InventoryPage, Member, MemberRef, Page, PiiFinding,
    Realtime, ReviewPriority, ScanFinding, SecurityScan, format_timestamp,
};
use super::super::page::{InventoryParams, MemberListParams, PageParams, Query};
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

    /// `GET /v1/projects/{id}/pii-labels`: one page.
    pub async fn list_pii(
        &self,
        project_id: &str,
        params: &PageParams,
        cursor: Option<&str>,
    ) -> Result<Page<PiiFinding>, ApiError> {
        self.get(
            paths::project(project_id, "/pii-labels")?,
            params.query(cursor),
        )
        .await
    }

    /// Every personal-data finding of a project.
    pub fn pii_stream(
        &self,
        project_id: &str,
        params: PageParams,
    ) -> impl Stream<Item = Result<PiiFinding, ApiError>> + Send + 'static {
        self.paged::<Page<PiiFinding>, _>(
            paths::project(project_id, "/pii-labels"),
            move |cursor| params.query(cursor),
        )
    }

    /// `GET /v1/workspaces/{id}/members/{user_id}`.
    pub async fn get_member(&self, workspace_id: &str, user_id: &str) -> Result<Member, ApiError> {
        self.get(paths::member(workspace_id, user_id)?, Query::default())
            .await
    }

    /// `GET /v1/workspaces/{id}/members`: one page.
    pub async fn list_members(
        &self,
        workspace_id: &str,
        params: &MemberListParams,
        cursor: Option<&str>,
    ) -> Result<Page<MemberRef>, ApiError> {
        self.get(
            paths::workspace(workspace_id, "/members")?,
            params.query(cursor),
        )
        .await
    }

    /// Every member of a workspace matching `params`.
    pub fn members_stream(
        &self,
        workspace_id: &str,
        params: MemberListParams,
    ) -> impl Stream<Item = Result<MemberRef, ApiError>> + Send + 'static {
        self.paged::<Page<MemberRef>, _>(
            paths::workspace(workspace_id, "/members"),
            move |cursor| params.query(cursor),
        )
    }

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

    /// `GET /v1/workspaces/{id}/security-center/insights/projects`: one page, with
    /// `total`, `as_of` and `applied_finding`.
    pub async fn list_inventory(
        &self,
        workspace_id: &str,
        params: &InventoryParams,
        cursor: Option<&str>,
    ) -> Result<InventoryPage, ApiError> {
        self.get(
            paths::workspace(workspace_id, paths::INVENTORY)?,
            params.query(cursor),
        )
        .await
    }

    /// Every inventory item matching `params`, in the requested order.
    pub fn inventory_stream(
        &self,
        workspace_id: &str,
        params: InventoryParams,
    ) -> impl Stream<Item = Result<InventoryItem, ApiError>> + Send + 'static {
        self.paged::<InventoryPage, _>(
            paths::workspace(workspace_id, paths::INVENTORY),
            move |cursor| params.query(cursor),
        )
    }

    /// The inventory as [`Client::inventory_stream`] reads it, each item left as
    /// the server's JSON text (for exports that pass items through).
    pub fn inventory_raw_stream(
        &self,
        workspace_id: &str,
        params: InventoryParams,
    ) -> impl Stream<Item = Result<Box<serde_json::value::RawValue>, ApiError>> + Send + 'static
    {
        self.paged::<super::RawPage, _>(
            paths::workspace(workspace_id, paths::INVENTORY),
            move |cursor| params.query(cursor),
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

    /// `GET /v1/projects/{id}/security-scans/{scan_id}/findings`: one page.
    pub async fn list_scan_findings(
        &self,
        project_id: &str,
        scan_id: &str,
        params: &PageParams,
        cursor: Option<&str>,
    ) -> Result<Page<ScanFinding>, ApiError> {
        self.get(
            paths::scan_findings(project_id, scan_id)?,
            params.query(cursor),
        )
        .await
    }

    /// Every finding of a scan: the full snapshot, fixed and ignored included.
    pub fn scan_findings_stream(
        &self,
        project_id: &str,
        scan_id: &str,
        params: PageParams,
    ) -> impl Stream<Item = Result<ScanFinding, ApiError>> + Send + 'static {
        self.paged::<Page<ScanFinding>, _>(
            paths::scan_findings(project_id, scan_id),
            move |cursor| params.query(cursor),
        )
    }
}
