//! `GET /v1/workspaces` and `GET /v1/workspaces/{id}`: operations the real
//! service's reference shows beyond the contract (DESIGN.md). A key belongs to
//! one workspace, so the list holds that one.

use std::sync::Arc;

use axum::Json;
use axum::extract::State;

use super::{PathParams, find_workspace};
use crate::api::model::{Page, Workspace, WorkspacePlan};
use crate::server::ServerState;
use crate::server::context::Ctx;
use crate::server::errors::HttpError;
use crate::server::paging::{self, KeyPart};
use crate::server::store::{Data, WorkspaceRec};

pub async fn list(
    ctx: Ctx,
    State(app): State<Arc<ServerState>>,
) -> Result<Json<Page<Workspace>>, HttpError> {
    let binding = ctx.cursor_binding("/v1/workspaces");
    let request = ctx.page_request(&app.cursor_secret, &binding)?;
    let page = app.store.read_eventual(|data| {
        let keyed = data
            .workspaces
            .values()
            .filter(|workspace| workspace.id == ctx.principal.workspace_id)
            .map(|workspace| {
                (
                    vec![KeyPart::asc_text(workspace.id.as_str())],
                    workspace_view(data, workspace),
                )
            })
            .collect();
        let (data, pagination) = paging::paginate(keyed, &request, &app.cursor_secret, &binding);
        Page { data, pagination }
    });
    Ok(Json(page))
}

pub async fn get(
    ctx: Ctx,
    State(app): State<Arc<ServerState>>,
    PathParams(workspace_id): PathParams<String>,
) -> Result<Json<Workspace>, HttpError> {
    ctx.own_workspace(&workspace_id)?;
    app.store.read_eventual(|data| {
        find_workspace(data, &workspace_id).map(|workspace| Json(workspace_view(data, workspace)))
    })
}

fn workspace_view(data: &Data, workspace: &WorkspaceRec) -> Workspace {
    Workspace {
        id: workspace.id.clone(),
        name: Some(workspace.name.clone()),
        description: workspace.description.clone(),
        image_url: workspace.image_url.clone(),
        plan: Some(WorkspacePlan::parse(workspace.plan.as_str())),
        num_projects: Some(data.workspace_projects(&workspace.id).count() as i64),
        created_at: Some(workspace.created_at),
        updated_at: Some(workspace.updated_at.unwrap_or(workspace.created_at)),
    }
}
