//! The script commands: each builds its request from the flags, calls the
//! typed client and writes the result. Runs on a small runtime: the command on
//! this thread, and one worker that carries requests ahead of it (a list's next
//! page travels while this page is written); [`run`] returns the exit code.

use std::io::{BufRead, IsTerminal};
use std::time::Duration;

use crate::api::model::{
    DeploymentStatus, ErrorType, Project, ProjectUpdate, PublishAudience, PublishRequest,
    validate_project_name,
};
use crate::api::{ApiError, CheckedJson, PollPolicy};
use futures::TryStreamExt;

use super::args::{
    InsightsArgs, InventoryArgs, PiiArgs, ProjectsCommand, ScriptCommand, ServiceCommand,
};
use super::exit::{self, CliError};
use super::options::{Format, OutputArgs};
use super::print::{Output, RawItem, write_list, write_one};
use super::read::{read_one, show_one, start_progress};
use super::views;
use super::workspaces;
use crate::session::{GlobalArgs, Session};

/// Runs `command`, reports a failure on stderr in one line, and returns the
/// exit code.
pub fn run(command: ScriptCommand, global: &GlobalArgs) -> u8 {
    if std::env::var_os("VANTAGE_LOG").is_some() {
        crate::logging::to_stderr("warn");
    }
    // One thread: a list's next page is asked for before this page is written
    // (see `api::page`), and the server works on it meanwhile. A second thread
    // only competes with the server for the cores (scripts/perf, row 6).
    let runtime = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(error) => {
            crate::stderr::line(format_args!(
                "error: cannot start the async runtime: {error}"
            ));
            return exit::FAILURE;
        }
    };
    let finished = runtime.block_on(async {
        let result = execute(command, global).await;
        // Progress followers still holding a warning print it before any error.
        tokio::task::yield_now().await;
        result
    });
    match finished {
        Ok(()) => exit::OK,
        Err(error) => {
            if !error.is_broken_pipe() {
                crate::stderr::line(format_args!("error: {error}"));
            }
            exit::exit_code(&error)
        }
    }
}

async fn execute(command: ScriptCommand, global: &GlobalArgs) -> Result<(), CliError> {
    match command {
        ScriptCommand::Service(command) => execute_service(command, global).await,
        // The history is local: only `snapshot` connects, and it does so itself.
        ScriptCommand::History(command) => super::history::execute(command, global).await,
        // Contexts are read from the config file: no key needed.
        ScriptCommand::Context(command) => super::context::execute(command, global).await,
        ScriptCommand::Check(args) => super::check::execute(args, global).await,
    }
}

/// Connects, refuses a mutation in read-only mode, and runs `command`.
async fn execute_service(command: ServiceCommand, global: &GlobalArgs) -> Result<(), CliError> {
    let session = Session::connect(global)?;
    for warning in &session.warnings {
        crate::stderr::line(format_args!("warning: {warning}"));
    }
    if let Some(action) = mutation(&command) {
        refuse_if_read_only(&session, global, &action)?;
    }
    match command {
        ServiceCommand::Insights(args) => insights(&session, args).await,
        ServiceCommand::Inventory(args) => inventory(&session, args, global).await,
        ServiceCommand::Members(args) => super::members::run(&session, args).await,
        ServiceCommand::Projects(command) => projects(&session, command).await,
        ServiceCommand::Pii(args) => pii(&session, args).await,
        ServiceCommand::Analytics(command) => super::analytics::run(&session, command).await,
        ServiceCommand::Scans(command) => super::scans::run(&session, command).await,
        ServiceCommand::Workspaces(args) => workspaces::workspaces(&session, args).await,
        ServiceCommand::Report(args) => super::report::run(&session, *args, global).await,
    }
}

/// What a mutating command would do, in words; `None` for reads.
fn mutation(command: &ServiceCommand) -> Option<String> {
    let ServiceCommand::Projects(command) = command else {
        return None;
    };
    match command {
        ProjectsCommand::List { .. } | ProjectsCommand::Get { .. } => None,
        ProjectsCommand::Rename { project_id, .. } => Some(format!("rename project {project_id}")),
        ProjectsCommand::SetVisibility { project_id, .. } => {
            Some(format!("change the visibility of project {project_id}"))
        }
        ProjectsCommand::Unpublish { project_id, .. } => {
            Some(format!("unpublish project {project_id}"))
        }
        ProjectsCommand::Publish { project_id, .. } => {
            Some(format!("publish project {project_id}"))
        }
        ProjectsCommand::Delete { project_id, .. } => Some(format!("delete project {project_id}")),
        ProjectsCommand::SetAudience { project_id, .. } => Some(format!(
            "change the publish audience of project {project_id}"
        )),
        ProjectsCommand::EmbedUrl { project_id, .. } => {
            Some(format!("create an embed URL for project {project_id}"))
        }
    }
}

/// Read-only mode refuses every mutation before any request is sent.
fn refuse_if_read_only(
    session: &Session,
    global: &GlobalArgs,
    action: &str,
) -> Result<(), CliError> {
    if !session.read_only {
        return Ok(());
    }
    let origin = if global.read_only {
        "--read-only".to_owned()
    } else {
        let path = session.config.path.as_ref().map_or_else(
            || "the config file".to_owned(),
            |path| path.display().to_string(),
        );
        format!("read_only = true in {path}")
    };
    Err(CliError::ReadOnly {
        action: action.to_owned(),
        origin,
    })
}

async fn insights(session: &Session, args: InsightsArgs) -> Result<(), CliError> {
    let output = args.output.resolve();
    let workspace = &workspaces::resolve_workspace(session).await?;
    let read = session
        .client
        .get_insights(workspace, &args.review_priority);
    let insights = read_one(session, "insights", output, read).await?;
    write_one(&insights, output, None, |width| {
        views::insights_table(&insights, width)
    })
}

async fn inventory(
    session: &Session,
    args: InventoryArgs,
    global: &GlobalArgs,
) -> Result<(), CliError> {
    let output = args.list.output.resolve();
    let workspace = &workspaces::resolve_workspace(session).await?;
    if !args.filters.violates.is_empty() {
        return inventory_violating(session, &args, global, workspace).await;
    }
    let (progress, _task) = start_progress(session, "inventory", output);
    if matches!(output.format, Format::Json | Format::Jsonl) {
        // Lossless formats pass items through without a typed parse.
        let stream = session
            .client
            .inventory_raw_stream(workspace, args.params())
            .map_ok(RawItem);
        return write_list(stream, output, args.list.max, &progress).await;
    }
    let stream = session.client.inventory_stream(workspace, args.params());
    write_list(stream, output, args.list.max, &progress).await
}

/// `--violates`: the policies evaluated first, as `vantage check` does; the
/// list then keeps the projects they name. The evaluation walks the whole
/// inventory in the order asked for, and the list is that walk's items: the
/// inventory is read once. Only a filter the service applies (`--is-published`,
/// `--query`, …) is asked of it in a walk of its own, after.
async fn inventory_violating(
    session: &Session,
    args: &InventoryArgs,
    global: &GlobalArgs,
    workspace: &str,
) -> Result<(), CliError> {
    let output = args.list.output.resolve();
    let params = args.params();
    let whole = crate::api::InventoryParams {
        limit: params.limit,
        sort_by: params.sort_by.clone(),
        sort_order: params.sort_order.clone(),
        ..Default::default()
    };
    let narrowed = params != whole;
    let (progress, _task) = start_progress(session, "inventory", output);
    let mut walked = Vec::new();
    let violating = super::check::violating(&args.filters.violates, global, whole, |raw| {
        if !narrowed {
            walked.push(raw);
        }
    })
    .await?;
    let keeps = move |raw: &CheckedJson| raw_id(raw).is_some_and(|id| violating.contains(&id));
    let raw_format = matches!(output.format, Format::Json | Format::Jsonl);
    if narrowed {
        let stream = session
            .client
            .inventory_raw_stream(workspace, params)
            .try_filter(move |raw| std::future::ready(keeps(raw)));
        return if raw_format {
            write_list(stream.map_ok(RawItem), output, args.list.max, &progress).await
        } else {
            write_list(
                stream.and_then(|raw| typed_item(&raw)),
                output,
                args.list.max,
                &progress,
            )
            .await
        };
    }
    let kept = walked.into_iter().filter(|raw| keeps(raw)).map(Ok);
    if raw_format {
        let stream = futures::stream::iter(kept).map_ok(RawItem);
        write_list(stream, output, args.list.max, &progress).await
    } else {
        let stream = futures::stream::iter(kept).and_then(|raw| typed_item(&raw));
        write_list(stream, output, args.list.max, &progress).await
    }
}

/// An inventory item the raw walk kept, read as the typed item that the
/// walk already checked it reads as.
fn typed_item(
    raw: &CheckedJson,
) -> std::future::Ready<Result<crate::api::model::InventoryItem, ApiError>> {
    std::future::ready(serde_json::from_str(raw.get()).map_err(|error| {
        ApiError::Protocol(Box::new(crate::api::ProtocolError {
            operation: "list_inventory".to_owned(),
            method: "GET".to_owned(),
            path: String::new(),
            message: format!("an inventory item: {error}"),
        }))
    }))
}

/// The `id` of an inventory item as the service sent it.
fn raw_id(raw: &CheckedJson) -> Option<String> {
    #[derive(serde::Deserialize)]
    struct Id {
        id: String,
    }
    serde_json::from_str::<Id>(raw.get())
        .ok()
        .map(|item| item.id)
}

async fn pii(session: &Session, args: PiiArgs) -> Result<(), CliError> {
    let output = args.list.output.resolve();
    let params = args.list.page_params();
    let (progress, _task) = start_progress(session, "personal-data findings", output);
    let stream = session.client.pii_stream(&args.project_id, params);
    write_list(stream, output, args.list.max, &progress).await
}

async fn projects(session: &Session, command: ProjectsCommand) -> Result<(), CliError> {
    let client = &session.client;
    match command {
        ProjectsCommand::List { list } => workspaces::list_projects(session, list).await,
        ProjectsCommand::SetAudience {
            project_id,
            audience,
            targets,
            output,
        } => workspaces::set_audience(session, &project_id, audience, targets, output).await,
        ProjectsCommand::EmbedUrl {
            project_id,
            origin,
            output,
        } => workspaces::embed_url(session, &project_id, &origin, output).await,
        ProjectsCommand::Get { project_id, output } => {
            let read = client.get_project(&project_id);
            show_one(session, "project", output.resolve(), read).await
        }
        ProjectsCommand::Rename {
            project_id,
            name,
            output,
        } => {
            validate_project_name(&name)
                .map_err(|error| CliError::Usage(format!("invalid project name: {error}")))?;
            let update = ProjectUpdate {
                name: Some(name),
                visibility: None,
            };
            update_project(session, &project_id, &update, &output).await
        }
        ProjectsCommand::SetVisibility {
            project_id,
            visibility,
            output,
        } => {
            let update = ProjectUpdate {
                name: None,
                visibility: Some(visibility),
            };
            update_project(session, &project_id, &update, &output).await
        }
        ProjectsCommand::Unpublish { project_id, output } => {
            let (progress, _task) = start_progress(session, "unpublish", quiet());
            client.unpublish_project(&project_id).await?;
            progress.clear();
            crate::stderr::line(format_args!("project {project_id} is offline"));
            print_outcome(&project_id, "offline", &output)
        }
        ProjectsCommand::Publish {
            project_id,
            audience,
            wait,
            timeout,
            output,
        } => {
            let wait = wait.then_some(timeout);
            publish(session, &project_id, audience, wait, output.resolve()).await
        }
        ProjectsCommand::Delete {
            project_id,
            yes,
            output,
        } => {
            let result = delete(session, &project_id, yes).await?;
            print_outcome(&project_id, result, &output)
        }
    }
}

/// Progress as a table command draws it: only on a terminal's stderr.
fn quiet() -> Output {
    Output {
        format: Format::Table,
        csv_raw_formulas: false,
    }
}

/// What a mutation without a resource to show did, `{id, result}`, printed
/// only when `--format` was given: scripts that never asked see stdout empty.
fn print_outcome(project_id: &str, result: &str, output: &OutputArgs) -> Result<(), CliError> {
    if output.format.is_none() {
        return Ok(());
    }
    let outcome = serde_json::json!({ "id": project_id, "result": result });
    write_one(&outcome, output.resolve(), None, |width| {
        views::fields_table(&outcome, width)
    })
}

async fn update_project(
    session: &Session,
    project_id: &str,
    update: &ProjectUpdate,
    output: &OutputArgs,
) -> Result<(), CliError> {
    let read = session.client.update_project(project_id, update);
    show_one(session, "update", output.resolve(), read).await
}

async fn publish(
    session: &Session,
    project_id: &str,
    audience: Option<PublishAudience>,
    wait_timeout: Option<Duration>,
    output: Output,
) -> Result<(), CliError> {
    let client = &session.client;
    let (progress, _task) = start_progress(session, "publish", output);
    let mut deployment = client
        .publish_project(project_id, &PublishRequest { audience })
        .await?;
    let wait = wait_timeout.is_some();
    if let Some(timeout) = wait_timeout
        && deployment.status == DeploymentStatus::Running
    {
        progress.waiting(format!("waiting for deployment {}", deployment.id));
        let policy = PollPolicy {
            timeout,
            ..PollPolicy::default()
        };
        deployment = client
            .wait_for_deployment(project_id, &deployment.id, policy)
            .await?;
    }
    progress.clear();
    write_one(&deployment, output, None, |width| {
        views::fields_table(&deployment, width)
    })?;
    match (&deployment.status, wait) {
        (DeploymentStatus::Error, _) => Err(CliError::DeploymentFailed {
            id: deployment.id.clone(),
            class: deployment
                .error_class
                .as_ref()
                .map(|class| format!(" ({class})"))
                .unwrap_or_default(),
            message: deployment
                .error_message
                .as_deref()
                .map(|m| crate::text::escape_invisible(m).into_owned())
                .unwrap_or_else(|| "no error message".into()),
        }),
        (DeploymentStatus::Completed, true) => {
            let url = deployment.url.as_deref().unwrap_or("(no url)");
            crate::stderr::line(format_args!(
                "published: {}",
                crate::text::escape_invisible(url)
            ));
            Ok(())
        }
        // As `kubectl wait --timeout`: still not done is a failure.
        (DeploymentStatus::Running, true) => Err(CliError::DeploymentUnfinished {
            id: deployment.id.clone(),
            reason: format!(
                "still running after {} (--timeout)",
                crate::api::events::human_duration(wait_timeout.unwrap_or_default())
            ),
        }),
        (DeploymentStatus::Unknown(status), true) => Err(CliError::DeploymentUnfinished {
            id: deployment.id.clone(),
            reason: format!(
                "ended in status {:?}, which vantage does not know: check it in the service",
                crate::text::escape_invisible(status)
            ),
        }),
        _ => Ok(()),
    }
}

/// Deletes after confirmation. A project that is already gone is success
/// (the goal state holds), reported on stderr. Returns `deleted` or
/// `already_deleted`.
async fn delete(session: &Session, project_id: &str, yes: bool) -> Result<&'static str, CliError> {
    let client = &session.client;
    if !yes {
        if !std::io::stdin().is_terminal() {
            return Err(CliError::Usage(format!(
                "refusing to delete project {project_id} without --yes: stdin is not a terminal to confirm on"
            )));
        }
        let project = match client.get_project(project_id).await {
            Ok(project) => project,
            Err(error) if is_project_not_found(&error) => {
                return Ok(already_deleted(project_id));
            }
            Err(error) => return Err(error.into()),
        };
        confirm_delete(&project)?;
    }
    let (progress, _task) = start_progress(session, "delete", quiet());
    let result = client.delete_project(project_id).await;
    progress.clear();
    match result {
        Ok(()) => {
            crate::stderr::line(format_args!("deleted project {project_id}"));
            Ok("deleted")
        }
        Err(error) if is_project_not_found(&error) => Ok(already_deleted(project_id)),
        Err(error) => Err(error.into()),
    }
}

fn is_project_not_found(error: &ApiError) -> bool {
    error.kind() == Some(&ErrorType::ProjectNotFound)
}

fn already_deleted(project_id: &str) -> &'static str {
    crate::stderr::line(format_args!(
        "project {project_id} is already deleted (or never existed): nothing to delete"
    ));
    "already_deleted"
}

/// Asks on the terminal for the project id to be typed.
fn confirm_delete(project: &Project) -> Result<(), CliError> {
    let name = project
        .name
        .as_deref()
        .map(|name| format!(" ({})", crate::text::escape_invisible(name)))
        .unwrap_or_default();
    crate::stderr::prompt(format_args!(
        "Delete project {}{name}? Without trash in the workspace this cannot be undone.\n\
         Type the project id to confirm: ",
        project.id
    ));
    let mut answer = String::new();
    std::io::stdin()
        .lock()
        .read_line(&mut answer)
        .map_err(CliError::Terminal)?;
    if answer.trim() == project.id {
        Ok(())
    } else {
        Err(CliError::Cancelled(format!(
            "the id typed does not match; project {} was not deleted",
            project.id
        )))
    }
}
