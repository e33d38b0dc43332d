//! The workspaces a credential reaches (`GET /v1/workspaces`, beyond the
//! contract) and the listing of their projects (`GET /v1/projects`). Both
//! follow the real service's public reference (DESIGN.md); a service without
//! `GET /v1/workspaces` answers 404 `not_found`, which callers treat as "not
//! offered" rather than as a failure.

use super::super::error::{ApiError, ConfigError};
use super::super::model::{MAX_LISTED_WORKSPACES, Page, ProjectSummary, Workspace};
use super::super::page::{PageParams, ProjectListParams, Query};
use super::super::paths;
use super::Client;

const PROJECTS: &str = "/v1/projects";
const WORKSPACES: &str = "/v1/workspaces";

list_operation! {
    /// A page of the project summaries of 1 to 10 workspaces.
    operation ListProjects,
    /// `GET /v1/projects?workspace_id=W…`: one page of project summaries, last
    /// edited first. 1 to 10 workspaces, checked before any request is sent.
    page list_projects,
    /// Every project summary of the workspaces in `params`.
    stream projects_stream,
    () params: ProjectListParams,
    Page<ProjectSummary> => ProjectSummary,
    at check_workspaces(&params.workspace_id).map(|()| PROJECTS.to_owned()),
}

list_operation! {
    /// A page of the workspaces the credential reaches.
    operation ListWorkspaces,
    /// `GET /v1/workspaces`: one page of the workspaces the credential reaches.
    page list_workspaces,
    /// Every workspace the credential reaches.
    stream workspaces_stream,
    () params: PageParams,
    Page<Workspace> => Workspace,
    at Ok(WORKSPACES.to_owned()),
}

impl Client {
    /// `GET /v1/workspaces/{id}`.
    pub async fn get_workspace(&self, workspace_id: &str) -> Result<Workspace, ApiError> {
        self.get(paths::workspace(workspace_id, "")?, Query::default())
            .await
    }
}

/// 1 to [`MAX_LISTED_WORKSPACES`] non-empty workspace ids, refused before any
/// request is sent.
fn check_workspaces(ids: &[String]) -> Result<(), ApiError> {
    let reason = if ids.is_empty() {
        "needs at least one workspace id"
    } else if ids.len() > MAX_LISTED_WORKSPACES {
        "may name at most 10 workspaces"
    } else if ids.iter().any(String::is_empty) {
        "must not be empty"
    } else {
        return Ok(());
    };
    Err(ConfigError::InvalidArgument {
        name: "workspace_id",
        reason,
    }
    .into())
}
