//! Commands over the shapes the real service's reference settles (DESIGN.md):
//! `vantage workspaces [get ID]`, `projects list` on `GET /v1/projects`,
//! `projects set-audience` and `projects embed-url`; and the workspace every
//! workspace command resolves (configured, or asked of the service).

use clap::{Args, Subcommand};

use crate::api::ProjectListParams;
use crate::api::model::{
    AudienceTarget, PublishAudience, PublishSettings, Workspace, validate_parent_origin,
};
use crate::session::{Session, SessionError, WorkspaceChoice};

use super::exit::CliError;
use super::options::{ListArgs, OutputArgs};
use super::print::write_list;
use super::read::{show_one, start_progress};

/// `vantage workspaces`: the list, or `get ID`.
#[derive(Args, Debug, Clone)]
#[command(args_conflicts_with_subcommands = true)]
pub struct WorkspacesArgs {
    #[command(subcommand)]
    pub command: Option<WorkspacesCommand>,
    #[command(flatten)]
    pub list: ListArgs,
}

#[derive(Subcommand, Debug, Clone)]
pub enum WorkspacesCommand {
    /// One workspace.
    Get {
        workspace_id: String,
        #[command(flatten)]
        output: OutputArgs,
    },
}

/// The workspace of a command: `--workspace`, the config, or the one the key
/// reaches, said on stderr in one line. Several reachable is an error listing them.
pub async fn resolve_workspace(session: &Session) -> Result<String, CliError> {
    let choice = session
        .resolve_workspace()
        .await
        .map_err(|error| match error {
            SessionError::Discovery(api) => CliError::Api(api),
            other => CliError::Session(other),
        })?;
    if let WorkspaceChoice::Discovered(workspace) = &choice {
        crate::stderr::line(format_args!(
            "using workspace {}",
            workspace_label(workspace)
        ));
    }
    Ok(choice.into_id(session)?)
}

/// `ws_acme (Acme Corp), the one this key reaches`, made safe to print.
fn workspace_label(workspace: &Workspace) -> String {
    let name = workspace
        .name
        .as_deref()
        .map(|name| format!(" ({})", crate::text::escape_invisible(name)))
        .unwrap_or_default();
    format!(
        "{}{name}, the one this key reaches",
        crate::text::escape_invisible(&workspace.id)
    )
}

pub async fn workspaces(session: &Session, args: WorkspacesArgs) -> Result<(), CliError> {
    if let Some(WorkspacesCommand::Get {
        workspace_id,
        output,
    }) = args.command
    {
        let read = session.client.get_workspace(&workspace_id);
        return show_one(session, "workspace", output.resolve(), read).await;
    }
    let output = args.list.output.resolve();
    let (progress, _task) = start_progress(session, "workspaces", output);
    let stream = session.client.workspaces_stream(args.list.page_params());
    write_list(stream, output, args.list.max, &progress).await
}

/// `projects list`: the global `--workspace` may name several, comma-separated.
pub async fn list_projects(session: &Session, list: ListArgs) -> Result<(), CliError> {
    let output = list.output.resolve();
    let workspace_id = match &session.workspace_id {
        Some(given) => given
            .split(',')
            .map(str::trim)
            .filter(|id| !id.is_empty())
            .map(str::to_owned)
            .collect(),
        None => vec![resolve_workspace(session).await?],
    };
    let params = ProjectListParams {
        workspace_id,
        limit: Some(list.page_size),
    };
    let (progress, _task) = start_progress(session, "projects", output);
    let stream = session.client.projects_stream(params);
    write_list(stream, output, list.max, &progress).await
}

/// `projects set-audience`: targets only with `custom`.
pub async fn set_audience(
    session: &Session,
    project_id: &str,
    audience: PublishAudience,
    targets: Vec<AudienceTarget>,
    output: OutputArgs,
) -> Result<(), CliError> {
    if !targets.is_empty() && audience != PublishAudience::Custom {
        return Err(CliError::Usage(format!(
            "--target applies only to the custom audience, not to {audience}"
        )));
    }
    let output = output.resolve();
    let settings = PublishSettings {
        audience,
        audience_targets: targets,
    };
    let read = session
        .client
        .update_publish_settings(project_id, &settings);
    show_one(session, "audience", output, read).await
}

/// `projects embed-url`: the origin is checked before anything is sent.
pub async fn embed_url(
    session: &Session,
    project_id: &str,
    origin: &str,
    output: OutputArgs,
) -> Result<(), CliError> {
    validate_parent_origin(origin)
        .map_err(|error| CliError::Usage(format!("invalid --origin: {error}")))?;
    let read = session.client.create_embed_url(project_id, origin);
    show_one(session, "embed url", output.resolve(), read).await
}
