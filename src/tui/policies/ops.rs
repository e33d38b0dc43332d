//! The evaluation as an operation, run off the UI thread: the history's
//! part (the newest snapshot's states, kept between evaluations while it is
//! the newest; every standing mark; every waiver) on the history door's
//! blocking thread, then the policies (the built-in pack and the config
//! dir's `policies/`, loaded as `vantage check` loads them) evaluated on a
//! blocking thread of their own. Never on the draw path.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Arc;

use time::OffsetDateTime;

use super::Coverage;
use crate::api::model::InventoryItem;
use crate::history::model::ProjectState;
use crate::history::waivers::Waiver;
use crate::history::{HistoryError, MarkScope, ReviewMark, SnapshotRef, Store};
use crate::policy::gather as build;
use crate::policy::input::{
    INPUT_VERSION, InsightsInput, MemberInput, PolicyInput, ProjectInput, Sources, WorkspaceInput,
};
use crate::policy::{Evaluation, PolicyError};
use crate::tui::request::Operation;
use crate::tui::services::Services;
use crate::tui::vocab::ErrorInfo;

/// A row the inventory loaded live, and when it was read.
#[derive(Debug, Clone, PartialEq)]
pub struct LiveRow {
    pub item: InventoryItem,
    pub read_at: OffsetDateTime,
}

/// The newest snapshot's part of the document, converted once.
#[derive(Debug, Clone, PartialEq)]
pub struct SnapshotBase {
    pub id: i64,
    pub taken_at: OffsetDateTime,
    pub projects: Vec<ProjectInput>,
    pub members: Vec<MemberInput>,
    pub insights: Option<InsightsInput>,
}

/// Evaluates the policies over the newest snapshot with the live rows the
/// inventory loaded over it, the marks and the waivers.
#[derive(Debug, Clone, PartialEq)]
pub struct EvaluatePolicies {
    /// Every live row loaded so far, by project.
    pub live: Arc<Vec<LiveRow>>,
    /// The config file, beside which `policies/` is read.
    pub config_file: Option<PathBuf>,
    /// The snapshot's part the last evaluation read: read again only when a
    /// newer snapshot is recorded.
    pub base: Option<Arc<SnapshotBase>>,
}

/// What an evaluation answers.
#[derive(Debug, Clone)]
pub struct Evaluated {
    pub evaluation: Arc<Evaluation>,
    pub over: Coverage,
    /// The snapshot's part, for the next evaluation.
    pub base: Option<Arc<SnapshotBase>>,
}

/// What the history holds for an evaluation.
#[derive(Default)]
struct HistoryPart {
    base: Option<Arc<SnapshotBase>>,
    marks: HashMap<String, ReviewMark>,
    waivers: Vec<Waiver>,
}

fn read_history(
    store: &mut Store,
    workspace: &str,
    kept: Option<Arc<SnapshotBase>>,
) -> Result<HistoryPart, HistoryError> {
    let base = match store.resolve(workspace, &SnapshotRef::Last)? {
        None => None,
        Some(newest) if kept.as_ref().is_some_and(|kept| kept.id == newest.id) => kept,
        Some(newest) => Some(Arc::new(SnapshotBase {
            id: newest.id,
            taken_at: newest.taken_at,
            projects: store
                .projects(newest.id)?
                .iter()
                .map(build::snapshot_project)
                .collect(),
            members: store
                .members(newest.id)?
                .iter()
                .map(build::snapshot_member)
                .collect(),
            insights: store.insights(newest.id)?.as_ref().map(build::insights),
        })),
    };
    let mut marks = HashMap::new();
    store.each_reviewed_mark(workspace, MarkScope::All, &mut |mark| {
        marks.insert(mark.project_id.clone(), mark);
        Ok(())
    })?;
    let waivers = store.all_waivers(workspace)?;
    Ok(HistoryPart {
        base,
        marks,
        waivers,
    })
}

/// The document: the snapshot's projects in its order, each live row over
/// its own (a project new since the snapshot after them), the marks
/// compared with the live rows at once, as the inventory shows them.
fn document(
    workspace: String,
    history: &HistoryPart,
    live: &[LiveRow],
    now: OffsetDateTime,
) -> Result<(PolicyInput, Coverage), PolicyError> {
    let base = history.base.as_deref();
    let mut projects: Vec<ProjectInput> = base.map(|b| b.projects.clone()).unwrap_or_default();
    let typed = live
        .iter()
        .map(|row| build::typed_project(&row.item))
        .collect::<Result<Vec<_>, _>>()?;
    build::overlay_live(&mut projects, typed, false);
    let items: HashMap<&str, &InventoryItem> = live
        .iter()
        .map(|row| (row.item.id.as_str(), &row.item))
        .collect();
    let read_at = live.iter().map(|row| row.read_at).max().unwrap_or(now);
    let state = |id: &str| items.get(id).map(|item| ProjectState::from_item(item));
    build::attach_reviews(&mut projects, state, &history.marks, read_at);
    let (workspace_source, projects_source) = match base {
        Some(base) => {
            let source = build::snapshot_source(base.id, base.taken_at);
            let projects = if live.is_empty() {
                source.clone()
            } else {
                build::live_source(read_at)
            };
            (source, projects)
        }
        None => (build::live_source(read_at), build::live_source(read_at)),
    };
    let coverage = Coverage {
        at: now,
        projects: projects.len(),
        snapshot: base.map(|base| (base.id, base.taken_at)),
        live_rows: live.len(),
        ids: Arc::new(projects.iter().map(|project| project.id.clone()).collect()),
    };
    let input = PolicyInput {
        version: INPUT_VERSION,
        evaluated_at: build::stamp(now),
        sources: Sources {
            workspace: workspace_source.clone(),
            projects: projects_source,
            members: workspace_source,
            reviews: build::history_source(now),
        },
        workspace: WorkspaceInput {
            id: workspace,
            plan: None,
            insights: base.and_then(|base| base.insights.clone()),
        },
        projects,
        members: base.map(|base| base.members.clone()).unwrap_or_default(),
    };
    Ok((input, coverage))
}

impl Operation for EvaluatePolicies {
    type Output = Evaluated;

    async fn run(self, services: &Services) -> Result<Evaluated, ErrorInfo> {
        let now = services.clock.now();
        let workspace = services.workspace_id.clone();
        let history = match &services.history {
            Some(door) => {
                let (workspace, kept) = (workspace.clone(), self.base.clone());
                door.with_store(services, move |store| read_history(store, &workspace, kept))
                    .await?
            }
            None => HistoryPart::default(),
        };
        let config_file = self.config_file;
        let live = self.live;
        let joined = tokio::task::spawn_blocking(move || {
            // None named: the pack and the config dir's `policies/`, as `vantage check` loads.
            let (sources, _) = crate::policy::files::load(&[], config_file.as_deref())?;
            let (input, over) = document(workspace, &history, &live, now)?;
            let evaluation = crate::policy::evaluate(&sources, &input, history.waivers, now)?;
            Ok::<_, PolicyError>(Evaluated {
                evaluation: Arc::new(evaluation),
                over,
                base: history.base,
            })
        })
        .await;
        match joined {
            Ok(Ok(evaluated)) => Ok(evaluated),
            Ok(Err(error)) => Err(services.local_failure(format!("policies: {error}"))),
            Err(error) => Err(services.local_failure(format!("policies: {error}"))),
        }
    }
}
