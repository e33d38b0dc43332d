//! Commands over the shapes the real service's reference settles (DESIGN.md):
//! `vantage workspaces [get ID]`, `projects list` on `GET /v1/projects`,
//! `projects set-audience` and `projects embed-url`; and the workspace every
//! workspace command resolves (configured, or asked of the service).

use crate::api::model::{
    AudienceSettings, AudienceTarget, ProjectSummary, PublishAudience, PublishSettings, Workspace,
    validate_parent_origin,
};
use crate::api::{PageParams, ProjectListParams};
use crate::session::{Session, SessionError, WorkspaceChoice};

use super::args::{ListArgs, OutputArgs, WorkspacesArgs, WorkspacesCommand};
use super::exit::CliError;
use super::print::{Field, Output, Row, write_list, write_one};
use super::progress::{Progress, ProgressTask};
use super::views::{self, day, or_empty, published, when};

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
        eprintln!("using workspace {}", workspace_label(workspace));
    }
    Ok(choice.into_id(session)?)
}

fn start(session: &Session, label: &str, output: Output) -> (Progress, ProgressTask) {
    Progress::start(&session.client, label, output.progress_visible())
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
        let output = output.resolve();
        let (progress, _task) = start(session, "workspace", output);
        let workspace = session.client.get_workspace(&workspace_id).await?;
        progress.clear();
        return write_one(&workspace, output, None, |width| {
            views::fields_table(&workspace, width)
        });
    }
    let output = args.output.resolve();
    let (progress, _task) = start(session, "workspaces", output);
    let stream = session.client.workspaces_stream(PageParams {
        limit: Some(args.list.page_size),
    });
    write_list(stream, output, args.list.max, &progress).await
}

/// `projects list`: the global `--workspace` may name several, comma-separated.
pub async fn list_projects(
    session: &Session,
    list: ListArgs,
    output: OutputArgs,
) -> Result<(), CliError> {
    let output = output.resolve();
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
    let (progress, _task) = start(session, "projects", output);
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
    let (progress, _task) = start(session, "audience", output);
    let resolved: AudienceSettings = session
        .client
        .update_publish_settings(project_id, &settings)
        .await?;
    progress.clear();
    write_one(&resolved, output, None, |width| {
        views::fields_table(&resolved, width)
    })
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
    let output = output.resolve();
    let (progress, _task) = start(session, "embed url", output);
    let embed = session.client.create_embed_url(project_id, origin).await?;
    progress.clear();
    write_one(&embed, output, None, |width| {
        views::fields_table(&embed, width)
    })
}

impl Row for ProjectSummary {
    const FIELDS: &'static [Field<Self>] = &[
        Field::fixed("ID", |project| project.id.clone()),
        Field::text("NAME", 12, |project| or_empty(project.name.as_ref())),
        Field::fixed("PUBLISHED", |project| {
            published(project.is_published, project.publish_audience.as_ref())
        }),
        Field::fixed("VISIBILITY", |project| {
            or_empty(project.visibility.as_ref())
        }),
        Field::fixed("LAST EDITED", |project| when(project.last_edited_at)),
        Field::fixed("WORKSPACE", |project| project.workspace_id.clone()),
    ];
}

impl Row for Workspace {
    const FIELDS: &'static [Field<Self>] = &[
        Field::fixed("ID", |workspace| workspace.id.clone()),
        Field::text("NAME", 12, |workspace| or_empty(workspace.name.as_ref())),
        Field::fixed("PLAN", |workspace| or_empty(workspace.plan.as_ref())),
        Field::number("PROJECTS", |workspace| or_empty(workspace.num_projects)),
        Field::fixed("CREATED", |workspace| day(workspace.created_at)),
    ];
}
