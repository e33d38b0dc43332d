//! `GET /v1/projects?workspace_id=W`: the listing of a workspace's projects the
//! contract names without detail. Its shape follows the real service's public
//! reference (DESIGN.md, "What the real service publishes"): `workspace_id`
//! repeatable up to 10, Business or higher, scope `workspaces:read`, items of
//! 11 summary fields, last edited first. There is no `/v1/workspaces/{id}/projects`.

use std::collections::BTreeSet;
use std::sync::Arc;

use axum::Json;
use axum::extract::State;

use super::blocking;
use super::pii::unix_millis;
use crate::api::model::{MAX_LISTED_WORKSPACES, Page, ProjectSummary};
use crate::server::ServerState;
use crate::server::context::Ctx;
use crate::server::errors::HttpError;
use crate::server::paging::{self, KeyPart, PageRequest, SortKey};
use crate::server::store::ProjectRec;

/// The projects of every workspace named, last edited first (a project never
/// edited by its update time, one with neither last), then by id. Eventually
/// consistent.
pub async fn list(
    ctx: Ctx,
    State(app): State<Arc<ServerState>>,
) -> Result<Json<Page<ProjectSummary>>, HttpError> {
    let workspaces = workspace_set(&ctx)?;
    // Bound to the set of workspaces, whatever their order or repeats.
    let bound: Vec<(String, String)> = workspaces
        .iter()
        .map(|id| ("workspace_id".to_owned(), id.clone()))
        .collect();
    let binding = paging::binding(ctx.operation.name, "/v1/projects", &bound);
    let request: PageRequest = ctx.page_request(&app.cursor_secret, &binding)?;
    for workspace_id in &workspaces {
        // Another workspace answers exactly as a missing one.
        ctx.own_workspace(workspace_id)?;
    }
    let page = blocking(move || {
        Ok(app.store.read_eventual(|data| {
            let keyed = data
                .projects
                .values()
                .filter(|project| workspaces.contains(&project.wire.workspace_id))
                .map(|project| (sort_key(project), project))
                .collect();
            let (projects, pagination) =
                paging::paginate(keyed, &request, &app.cursor_secret, &binding);
            Page {
                data: projects.into_iter().map(summary_view).collect(),
                pagination,
            }
        }))
    })
    .await?;
    Ok(Json(page))
}

/// `workspace_id`: required, each non-empty, at most [`MAX_LISTED_WORKSPACES`]
/// distinct values.
fn workspace_set(ctx: &Ctx) -> Result<BTreeSet<String>, HttpError> {
    let given: Vec<&str> = ctx.query.all("workspace_id").collect();
    if given.is_empty() {
        return Err(HttpError::invalid(
            "query.workspace_id",
            "workspace_id is required (repeat it for several workspaces)",
        ));
    }
    if given.iter().any(|id| id.is_empty()) {
        return Err(HttpError::invalid(
            "query.workspace_id",
            "workspace_id must not be empty",
        ));
    }
    let set: BTreeSet<String> = given.into_iter().map(str::to_owned).collect();
    if set.len() > MAX_LISTED_WORKSPACES {
        return Err(HttpError::invalid(
            "query.workspace_id",
            format!("workspace_id may name at most {MAX_LISTED_WORKSPACES} workspaces"),
        ));
    }
    Ok(set)
}

fn sort_key(project: &ProjectRec) -> SortKey {
    // Our records always have an update time; the "neither" rank is kept for
    // fixtures and for the rule's sake.
    let edited = project.wire.last_edited_at.or(Some(project.updated_at));
    let (rank, at) = match edited {
        Some(at) => (0, unix_millis(at)),
        None => (1, 0),
    };
    vec![
        KeyPart::asc_int(rank),
        KeyPart::desc_int(at),
        KeyPart::asc_text(project.wire.id.as_str()),
    ]
}

/// The 11-field summary: the Project's fields less three.
pub fn summary_view(project: &ProjectRec) -> ProjectSummary {
    ProjectSummary::from(project.shown())
}
