//! The security-scan operations the contract names without detail: scan
//! metadata and the paginated full snapshot of its findings (DESIGN.md shapes).

use std::sync::Arc;

use axum::Json;
use axum::extract::State;

use super::{PathParams, find_project};
use crate::api::model::{ErrorType, Page, ScanFinding, SecurityScan};
use crate::server::ServerState;
use crate::server::context::Ctx;
use crate::server::errors::HttpError;
use crate::server::paging::{self, KeyPart};
use crate::server::store::{Data, ScanRec};

pub async fn get_scan(
    ctx: Ctx,
    State(app): State<Arc<ServerState>>,
    PathParams((project_id, scan_id)): PathParams<(String, String)>,
) -> Result<Json<SecurityScan>, HttpError> {
    app.store.read(|data| {
        let scan = find_scan(data, &ctx, &project_id, &scan_id)?;
        Ok(Json(SecurityScan {
            id: scan.id.clone(),
            status: scan.status.clone(),
            commit_sha: scan.commit_sha.clone(),
            started_at: scan.started_at,
            finished_at: scan.finished_at,
            requested_scanners: scan.requested_scanners.clone(),
        }))
    })
}

pub async fn list_findings(
    ctx: Ctx,
    State(app): State<Arc<ServerState>>,
    PathParams((project_id, scan_id)): PathParams<(String, String)>,
) -> Result<Json<Page<ScanFinding>>, HttpError> {
    let path = format!("/v1/projects/{project_id}/security-scans/{scan_id}/findings");
    let binding = ctx.cursor_binding(&path);
    let request = ctx.page_request(&app.cursor_secret, &binding)?;
    app.store.read(|data| {
        let scan = find_scan(data, &ctx, &project_id, &scan_id)?;
        // The full snapshot, fixed and ignored findings included, by finding id.
        let items = scan
            .findings
            .iter()
            .map(|finding| (vec![KeyPart::asc_text(&finding.id)], finding.clone()))
            .collect();
        let (data, pagination) = paging::paginate(items, &request, &app.cursor_secret, &binding);
        Ok(Json(Page { data, pagination }))
    })
}

/// A scan of a project of the caller's workspace: 404 `project_not_found` for
/// the project first, then 404 `scan_not_found`.
fn find_scan<'a>(
    data: &'a Data,
    ctx: &Ctx,
    project_id: &str,
    scan_id: &str,
) -> Result<&'a ScanRec, HttpError> {
    let project = find_project(data, ctx, project_id)?;
    data.scans
        .get(&project.id)
        .into_iter()
        .flatten()
        .find(|scan| scan.id == scan_id)
        .ok_or_else(|| HttpError::not_found(ErrorType::ScanNotFound, "Security scan not found"))
}
