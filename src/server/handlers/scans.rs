//! The security-scan operations: a project's scans (beyond the contract), one
//! scan's metadata, and the paginated full snapshot of its findings. Shapes and
//! the 404 type as the real service's reference shows them (DESIGN.md).

use std::sync::Arc;

use axum::Json;
use axum::extract::State;

use super::pii::unix_millis;
use super::{PathParams, find_project, keyset_list};
use crate::api::model::{ErrorType, Page, ScanFinding, SecurityScan};
use crate::server::ServerState;
use crate::server::context::Ctx;
use crate::server::errors::HttpError;
use crate::server::paging::{KeyPart, SortKey};
use crate::server::store::{Data, ScanRec};

/// Newest first: by start time, a scan not started yet first of all (it is
/// the newest), ties by scan id.
fn scan_order(scan: &ScanRec) -> SortKey {
    vec![
        KeyPart::desc_int(scan.scan.started_at.map_or(i64::MAX, unix_millis)),
        KeyPart::asc_text(&scan.scan.id),
    ]
}

pub async fn list_scans(
    ctx: Ctx,
    State(app): State<Arc<ServerState>>,
    PathParams(project_id): PathParams<String>,
) -> Result<Json<Page<SecurityScan>>, HttpError> {
    let path = format!("/v1/projects/{project_id}/security-scans");
    keyset_list(&ctx, &app, &path, |data| {
        let project = find_project(data, &ctx, &project_id)?;
        Ok(data
            .scans
            .get(&project.wire.id)
            .into_iter()
            .flatten()
            .map(|scan| (scan_order(scan), scan.scan.clone()))
            .collect())
    })
}

pub async fn get_scan(
    ctx: Ctx,
    State(app): State<Arc<ServerState>>,
    PathParams((project_id, scan_id)): PathParams<(String, String)>,
) -> Result<Json<SecurityScan>, HttpError> {
    app.store.read(|data| {
        let scan = find_scan(data, &ctx, &project_id, &scan_id)?;
        Ok(Json(scan.scan.clone()))
    })
}

pub async fn list_findings(
    ctx: Ctx,
    State(app): State<Arc<ServerState>>,
    PathParams((project_id, scan_id)): PathParams<(String, String)>,
) -> Result<Json<Page<ScanFinding>>, HttpError> {
    let path = format!("/v1/projects/{project_id}/security-scans/{scan_id}/findings");
    keyset_list(&ctx, &app, &path, |data| {
        let scan = find_scan(data, &ctx, &project_id, &scan_id)?;
        // The full snapshot, fixed and ignored findings included, by finding id.
        Ok(scan
            .findings
            .iter()
            .map(|finding| (vec![KeyPart::asc_text(&finding.id)], finding.clone()))
            .collect())
    })
}

/// A scan of a project of the caller's workspace. The operation answers only
/// its own 404 type (DESIGN.md): a missing project, or a project of another
/// workspace, is a missing scan too.
fn find_scan<'a>(
    data: &'a Data,
    ctx: &Ctx,
    project_id: &str,
    scan_id: &str,
) -> Result<&'a ScanRec, HttpError> {
    find_project(data, ctx, project_id)
        .ok()
        .and_then(|project| data.scans.get(&project.wire.id))
        .into_iter()
        .flatten()
        .find(|scan| scan.scan.id == scan_id)
        .ok_or_else(|| {
            HttpError::not_found(ErrorType::SecurityScanNotFound, "Security scan not found")
        })
}
