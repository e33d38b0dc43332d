//! Operation 7: a project's personal-data (PII) findings.

use super::child_list::ChildList;
use super::find_project_or;
use crate::api::model::{ErrorType, PiiFinding};
use crate::server::auth::Feature;
use crate::server::context::Ctx;
use crate::server::errors::HttpError;
use crate::server::paging::{KeyPart, SortKey};
use crate::server::store::{Data, PiiRec};

/// Newest first; ties by finding id, ascending (the contract leaves the
/// direction of ties open).
fn sort_key(finding: &PiiRec) -> SortKey {
    vec![
        KeyPart::desc_int(unix_millis(finding.finding.found_at)),
        KeyPart::asc_text(&finding.finding.id),
    ]
}

/// Operation 7: the list of a project's personal-data findings.
pub struct PiiList;

impl ChildList for PiiList {
    type Parent = String;
    type Request = ();
    type Item = PiiFinding;
    const EVENTUAL: bool = false;

    fn path(project_id: &String) -> String {
        format!("/v1/projects/{project_id}/pii-labels")
    }

    fn items(
        data: &Data,
        ctx: &Ctx,
        project_id: &String,
        _: &(),
    ) -> Result<Vec<(SortKey, PiiFinding)>, HttpError> {
        // The only 404 type this operation names, a missing project included.
        find_project_or(data, ctx, project_id, || {
            HttpError::not_found(
                ErrorType::PiiLabelsNotFound,
                "Personal-data findings not found",
            )
            .detail("no project with this id in the key's workspace")
        })?;
        // Enterprise is enforced by the plan gate; detection itself being off is
        // a 404 (contract), not a 402.
        if !ctx.principal.has_feature(Feature::PiiDetection) {
            return Err(HttpError::not_found(
                ErrorType::PiiLabelsNotFound,
                "Personal-data findings not found",
            )
            .detail("personal-data detection is not enabled for this workspace"));
        }
        Ok(data
            .pii
            .get(project_id)
            .into_iter()
            .flatten()
            .map(|finding| (sort_key(finding), finding.finding.clone()))
            .collect())
    }
}

/// Milliseconds since the epoch: the clock's resolution, and a sort key that
/// fits an `i64` for the next few hundred million years.
pub fn unix_millis(at: time::OffsetDateTime) -> i64 {
    (at.unix_timestamp_nanos() / 1_000_000) as i64
}
