//! One module per family of operations. Each handler follows the order of checks
//! in `ops.rs`: the route layer has checked scope, plan and features; a handler
//! checks its inputs, then the resource.

pub mod analytics;
pub mod insights;
pub mod inventory;
pub mod members;
pub mod pii;
pub mod projects;
pub mod publish;
pub mod scans;
pub mod traffic;
pub mod workspace_projects;
pub mod workspaces;

use axum::Json;
use axum::extract::rejection::PathRejection;
use axum::extract::{FromRequestParts, Path};
use axum::http::request::Parts;
use serde::de::DeserializeOwned;

use super::ServerState;
use super::context::Ctx;
use super::errors::HttpError;
use super::paging::{self, SortKey};
use super::store::{Data, ProjectRec, WorkspaceRec};
use crate::api::model::Page;

/// Path parameters, with axum's rejection turned into our envelope.
pub struct PathParams<T>(pub T);

impl<S, T> FromRequestParts<S> for PathParams<T>
where
    T: DeserializeOwned + Send,
    S: Send + Sync,
{
    type Rejection = HttpError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, Self::Rejection> {
        Path::<T>::from_request_parts(parts, state)
            .await
            .map(|Path(value)| PathParams(value))
            .map_err(|rejection| {
                HttpError::invalid(path_location(&rejection), rejection.body_text())
            })
    }
}

/// `path.<name>` when the rejection names the parameter (e.g. invalid UTF-8 in
/// `%FF`), as the contract's `path.user_id`; else `path`.
fn path_location(rejection: &PathRejection) -> String {
    use axum::extract::path::ErrorKind;
    let key = match rejection {
        PathRejection::FailedToDeserializePathParams(failed) => match failed.kind() {
            ErrorKind::InvalidUtf8InPathParam { key }
            | ErrorKind::ParseErrorAtKey { key, .. }
            | ErrorKind::DeserializeError { key, .. } => Some(key.as_str()),
            _ => None,
        },
        _ => None,
    };
    key.map_or_else(|| "path".to_owned(), |key| format!("path.{key}"))
}

/// Runs store work off the async threads.
pub async fn blocking<R: Send + 'static>(
    work: impl FnOnce() -> Result<R, HttpError> + Send + 'static,
) -> Result<R, HttpError> {
    tokio::task::spawn_blocking(work)
        .await
        .map_err(|err| HttpError::internal(format!("worker failed: {err}")))?
}

/// A list read from the primary view and paged by keyset, its cursors bound to
/// `path`: `items` gives each item with its sort key, or the operation's 404.
pub fn keyset_list<T>(
    ctx: &Ctx,
    app: &ServerState,
    path: &str,
    items: impl FnOnce(&Data) -> Result<Vec<(SortKey, T)>, HttpError>,
) -> Result<Json<Page<T>>, HttpError> {
    let binding = ctx.cursor_binding(path);
    let request = ctx.page_request(&app.cursor_secret, &binding)?;
    app.store.read(|data| {
        let items = items(data)?;
        let (data, pagination) = paging::paginate(items, &request, &app.cursor_secret, &binding);
        Ok(Json(Page { data, pagination }))
    })
}

/// A workspace that the store holds, or 404 `workspace_not_found`.
pub fn find_workspace<'a>(
    data: &'a Data,
    workspace_id: &str,
) -> Result<&'a WorkspaceRec, HttpError> {
    data.workspaces
        .get(workspace_id)
        .ok_or_else(HttpError::workspace_not_found)
}

/// A project of the caller's workspace; any other answers `project_not_found`,
/// exactly as a missing one.
pub fn find_project<'a>(
    data: &'a Data,
    ctx: &Ctx,
    project_id: &str,
) -> Result<&'a ProjectRec, HttpError> {
    data.projects
        .get(project_id)
        .filter(|project| project.wire.workspace_id == ctx.principal.workspace_id)
        .ok_or_else(HttpError::project_not_found)
}

/// [`find_project`] for an operation that names another 404 type: a missing
/// project answers `missing()` (DESIGN.md: each operation answers only its own
/// named 404 type).
pub fn find_project_or<'a>(
    data: &'a Data,
    ctx: &Ctx,
    project_id: &str,
    missing: impl FnOnce() -> HttpError,
) -> Result<&'a ProjectRec, HttpError> {
    find_project(data, ctx, project_id).map_err(|_| missing())
}
