//! The workspace project listing the contract names without detail; its shape is
//! DESIGN.md's choice: `{data: [Project], pagination}`, scope `workspaces:read`.

use std::sync::Arc;

use axum::Json;
use axum::extract::State;

use super::projects::project_view;
use super::{PathParams, blocking};
use crate::api::model::{Page, Project};
use crate::server::ServerState;
use crate::server::context::Ctx;
use crate::server::errors::HttpError;
use crate::server::paging::{self, KeyPart};

/// Projects of a workspace in project id order. Eventually consistent.
pub async fn list(
    ctx: Ctx,
    State(app): State<Arc<ServerState>>,
    PathParams(workspace_id): PathParams<String>,
) -> Result<Json<Page<Project>>, HttpError> {
    let binding = ctx.cursor_binding(&format!("/v1/workspaces/{workspace_id}/projects"));
    let request = ctx.page_request(&app.cursor_secret, &binding)?;
    ctx.own_workspace(&workspace_id)?;
    let page = blocking(move || {
        Ok(app.store.read_eventual(|data| {
            let keyed = data
                .workspace_projects(&workspace_id)
                .map(|project| (vec![KeyPart::asc_text(project.id.as_str())], project))
                .collect();
            let (projects, pagination) =
                paging::paginate(keyed, &request, &app.cursor_secret, &binding);
            Page {
                data: projects.into_iter().map(project_view).collect(),
                pagination,
            }
        }))
    })
    .await?;
    Ok(Json(page))
}
