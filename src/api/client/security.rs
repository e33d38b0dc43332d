//! Operations the real service's reference shows beyond the contract (DESIGN.md):
//! a project's security scans, and its traffic over time. A service that lacks
//! one answers 404 `not_found`; callers fall back on that.

use time::OffsetDateTime;

use super::super::error::ApiError;
use super::super::model::{Granularity, Page, SecurityScan, Traffic, format_timestamp};
use super::super::page::{PageParams, Query};
use super::super::paths;
use super::Client;

list_operation! {
    /// A page of a project's security scans, newest first.
    operation ListSecurityScans,
    /// `GET /v1/projects/{id}/security-scans`: one page, newest first.
    page list_security_scans,
    /// Every scan of a project, newest first.
    stream security_scans_stream,
    (project_id) params: PageParams,
    Page<SecurityScan> => SecurityScan,
    at paths::project(project_id, "/security-scans"),
}

impl Client {
    /// `GET /v1/projects/{id}/analytics`: visitors, pageviews, pageviews per
    /// visit, session duration and bounce rate over the UTC dates of
    /// `starts_at` to `ends_at`, in daily or hourly buckets.
    pub async fn get_traffic(
        &self,
        project_id: &str,
        starts_at: OffsetDateTime,
        ends_at: OffsetDateTime,
        granularity: &Granularity,
    ) -> Result<Traffic, ApiError> {
        let mut query = Query::default();
        query
            .one("starts_at", Some(format_timestamp(starts_at)))
            .one("ends_at", Some(format_timestamp(ends_at)))
            .one("granularity", Some(granularity));
        self.get(paths::project(project_id, "/analytics")?, query)
            .await
    }
}
