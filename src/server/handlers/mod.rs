//! One module per family of operations. Each handler follows the order of checks
//! in `ops.rs`: the route layer has checked scope, plan and features; a handler
//! checks its inputs, then the resource.

pub mod analytics;
pub mod child_list;
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

use std::sync::Arc;

use axum::extract::rejection::PathRejection;
use axum::extract::{FromRequestParts, Path};
use axum::http::request::Parts;
use serde::de::DeserializeOwned;

use super::ServerState;
use super::context::Ctx;
use super::errors::HttpError;
use super::store::{Change, Data, ProjectRec, WorkspaceRec};

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

/// Changes the caller's project `project_id` as `change` says and stores it,
/// its update time now; `change` answers `false` when it changed nothing
/// (a safe repeat), and nothing is written. Returns the project as it stands.
pub async fn change_project(
    ctx: Ctx,
    app: Arc<ServerState>,
    project_id: String,
    change: impl FnOnce(&mut ProjectRec) -> bool + Send + 'static,
) -> Result<ProjectRec, HttpError> {
    blocking(move || {
        app.store.write(|data| {
            let mut project = find_project(data, &ctx, &project_id)?.clone();
            if !change(&mut project) {
                return Ok((Vec::new(), project));
            }
            project.updated_at = ctx.now;
            Ok::<_, HttpError>((vec![Change::PutProject(Box::new(project.clone()))], project))
        })
    })
    .await
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
