//! The workspace project listing the contract names without detail; its shape is
//! DESIGN.md's choice: `{data: [Project], pagination}`, scope `workspaces:read`.

use std::sync::Arc;

use axum::Json;
use axum::extract::State;

use super::projects::project_view;
use super::{PathParams, blocking, cursor_binding};
use crate::api::model::{Page, Project};
use crate::server::App;
use crate::server::errors::HttpError;
use crate::server::ops::{self, Ctx, Validation};
use crate::server::paging::{self, KeyPart, PageRequest};

/// Page size when `limit` is omitted, and the largest accepted.
const DEFAULT_LIMIT: u32 = 50;
const MAX_LIMIT: u32 = 100;

/// Projects of a workspace in project id order. Eventually consistent.
pub async fn list(
    ctx: Ctx,
    State(app): State<Arc<App>>,
    PathParams(workspace_id): PathParams<String>,
) -> Result<Json<Page<Project>>, HttpError> {
    ctx.authorize(&ops::LIST_WORKSPACE_PROJECTS)?;
    let mut validation = Validation::default();
    let limit = validation.check(ctx.query.limit(DEFAULT_LIMIT, MAX_LIMIT));
    let cursor = validation.check(ctx.query.one("cursor"));
    validation.finish()?;
    let binding = cursor_binding(
        "list_workspace_projects",
        &format!("/v1/workspaces/{workspace_id}/projects"),
        &ctx,
        &ops::LIST_WORKSPACE_PROJECTS,
    );
    let request = PageRequest::new(
        limit.unwrap_or(DEFAULT_LIMIT),
        cursor.flatten(),
        &app.cursor_secret,
        &binding,
    )?;
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
