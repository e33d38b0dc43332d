//! The input document for `vantage check`: read live (the workspace, its
//! insights, every inventory page as the service sent it, the members and
//! their roles) or from a stored snapshot, with the history's marks.

use std::collections::HashMap;
use std::pin::pin;

use futures::TryStreamExt;
use time::OffsetDateTime;

use crate::api::model::MemberRef;
use crate::api::{CheckedJson, InventoryParams, MemberListParams};
use crate::cli::exit::CliError;
use crate::cli::history::Local;
use crate::cli::workspaces::resolve_workspace;
use crate::history::model::ProjectState;
use crate::history::{ReviewMark, SnapshotRef};
use crate::policy::gather as build;
use crate::policy::input::{INPUT_VERSION, MemberInput, PolicyInput, Sources, WorkspaceInput};
use crate::session::{GlobalArgs, Session};

/// The workspace's standing marks, read on the store's blocking thread.
async fn marks(local: &Local) -> Result<HashMap<String, ReviewMark>, CliError> {
    let workspace = local.workspace.clone();
    local
        .store
        .with(move |store| build::standing_marks(store, &workspace))
        .await
}

pub async fn live(
    local: &Local,
    global: &GlobalArgs,
    now: OffsetDateTime,
) -> Result<PolicyInput, CliError> {
    live_walking(local, global, now, InventoryParams::default(), |_| {}).await
}

/// [`live`], the inventory walked in `walk`'s page size and order (never
/// its filters: the document holds every project), each item handed to
/// `keep` as the service sent it once it is read: `inventory --violates`
/// lists them without walking the inventory a second time.
pub async fn live_walking(
    local: &Local,
    global: &GlobalArgs,
    now: OffsetDateTime,
    walk: InventoryParams,
    mut keep: impl FnMut(CheckedJson),
) -> Result<PolicyInput, CliError> {
    let session = Session::connect(global)?;
    let workspace = resolve_workspace(&session).await?;
    let client = &session.client;
    let plan = match client.get_workspace(&workspace).await {
        Ok(found) => found.plan.map(|plan| plan.as_str().to_owned()),
        // A service without the workspace read: the plan is not known.
        Err(_) => None,
    };
    let insights = client.get_insights(&workspace, &[]).await?;
    let workspace_read = OffsetDateTime::now_utc();
    let params = InventoryParams {
        limit: walk.limit.or(Some(100)),
        sort_by: walk.sort_by,
        sort_order: walk.sort_order,
        ..InventoryParams::default()
    };
    let mut projects = Vec::new();
    let mut typed = HashMap::new();
    let mut stream = pin!(client.inventory_raw_stream(&workspace, params));
    while let Some(raw) = stream.try_next().await? {
        let (project, item) = build::live_project(raw.get())?;
        if let Some(item) = item {
            typed.insert(project.id.clone(), item);
        }
        projects.push(project);
        keep(raw);
    }
    // Which projects hold personal data, as the `has_pii` filter says (an
    // item carries the count only with a `matched_reason`); a plan without
    // detection answers 402, and then it is not known.
    let with_pii = InventoryParams {
        limit: Some(100),
        has_pii: Some(true),
        ..InventoryParams::default()
    };
    let mut pii_ids = std::collections::HashSet::new();
    let mut stream = pin!(client.inventory_raw_stream(&workspace, with_pii));
    let pii_known = loop {
        match stream.try_next().await {
            Ok(Some(raw)) => {
                let (project, _) = build::live_project(raw.get())?;
                pii_ids.insert(project.id);
            }
            Ok(None) => break true,
            Err(error) if error.status() == Some(402) => break false,
            Err(error) => return Err(error.into()),
        }
    };
    if pii_known {
        for project in &mut projects {
            project.has_pii = Some(pii_ids.contains(&project.id));
        }
    }
    let projects_read = OffsetDateTime::now_utc();
    let member_params = MemberListParams {
        limit: Some(100),
        ..MemberListParams::default()
    };
    let listed: Vec<MemberRef> = client
        .members_stream(&workspace, member_params.clone())
        .try_collect()
        .await?;
    let mut roles = client
        .member_roles(&workspace, &member_params, &listed)
        .await?;
    let members: Vec<MemberInput> = listed
        .into_iter()
        .map(|member| MemberInput {
            role: roles.remove(&member.user_id).map(|r| r.as_str().to_owned()),
            kind: member.kind.as_str().to_owned(),
            user_id: member.user_id,
            name: None,
        })
        .collect();
    let members_read = OffsetDateTime::now_utc();
    let marks = marks(local).await?;
    let state = |id: &str| typed.get(id).map(ProjectState::from_item);
    build::attach_reviews(&mut projects, state, &marks, projects_read);
    Ok(PolicyInput {
        version: INPUT_VERSION,
        evaluated_at: build::stamp(now),
        sources: Sources {
            workspace: build::live_source(workspace_read),
            projects: build::live_source(projects_read),
            members: build::live_source(members_read),
            reviews: build::history_source(OffsetDateTime::now_utc()),
        },
        workspace: WorkspaceInput {
            id: workspace,
            plan,
            insights: Some(build::insights(&insights)),
        },
        projects,
        members,
    })
}

pub async fn from_snapshot(
    local: &Local,
    reference: &SnapshotRef,
    now: OffsetDateTime,
) -> Result<PolicyInput, CliError> {
    let (workspace, reference) = (local.workspace.clone(), reference.clone());
    let described = local.store.describe().to_owned();
    local
        .store
        .with(move |store| {
            build::from_snapshot(store, &workspace, &reference, now)?.ok_or_else(|| {
                CliError::NoSnapshot(format!(
                    "no such snapshot of workspace {} in {described} (see `vantage snapshot list`)",
                    crate::text::escape_invisible(&workspace),
                ))
            })
        })
        .await
}

/// The most an input document read from a file may hold.
const MAX_INPUT_BYTES: u64 = 512 * 1024 * 1024;

/// A document `--print-input` wrote (its shape checked field by field).
pub fn from_file(path: &std::path::Path) -> Result<PolicyInput, CliError> {
    let refused = |reason: String| CliError::Usage(format!("--input {}: {reason}", path.display()));
    let bytes =
        crate::safe_file::read_small(path, MAX_INPUT_BYTES, crate::safe_file::Links::Follow)
            .map_err(|error| refused(error.to_string()))?;
    serde_json::from_slice(&bytes).map_err(|error| refused(error.to_string()))
}
