//! The security-scan operations: a project's scans (beyond the contract), one
//! scan's metadata, and the paginated full snapshot of its findings. Shapes and
//! the 404 type as the real service's reference shows them (DESIGN.md).

use std::sync::Arc;

use axum::Json;
use axum::extract::State;

use super::child_list::ChildList;
use super::pii::unix_millis;
use super::{PathParams, find_project};
use crate::api::model::{ErrorType, ScanFinding, SecurityScan};
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

/// A project's scans, newest first.
pub struct ScanList;

impl ChildList for ScanList {
    type Parent = String;
    type Request = ();
    type Item = SecurityScan;
    const EVENTUAL: bool = false;

    fn path(project_id: &String) -> String {
        format!("/v1/projects/{project_id}/security-scans")
    }

    fn items(
        data: &Data,
        ctx: &Ctx,
        project_id: &String,
        _: &(),
    ) -> Result<Vec<(SortKey, SecurityScan)>, HttpError> {
        let project = find_project(data, ctx, project_id)?;
        Ok(data
            .scans
            .get(&project.wire.id)
            .into_iter()
            .flatten()
            .map(|scan| (scan_order(scan), scan.scan.clone()))
            .collect())
    }
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

/// The paginated full snapshot of a scan's findings.
pub struct FindingList;

impl ChildList for FindingList {
    type Parent = (String, String);
    type Request = ();
    type Item = ScanFinding;
    const EVENTUAL: bool = false;

    fn path((project_id, scan_id): &(String, String)) -> String {
        format!("/v1/projects/{project_id}/security-scans/{scan_id}/findings")
    }

    fn items(
        data: &Data,
        ctx: &Ctx,
        (project_id, scan_id): &(String, String),
        _: &(),
    ) -> Result<Vec<(SortKey, ScanFinding)>, HttpError> {
        let scan = find_scan(data, ctx, project_id, scan_id)?;
        // The full snapshot, fixed and ignored findings included, by finding id.
        Ok(scan
            .findings
            .iter()
            .map(|finding| (vec![KeyPart::asc_text(&finding.id)], finding.clone()))
            .collect())
    }
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
