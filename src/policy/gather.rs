//! The input document built from what was read: live answers of the service
//! (the inventory's items as it sent them), or a stored snapshot's states;
//! and the review history's marks in both cases. The live reads are the
//! command's; a snapshot is read here ([`from_snapshot`]), for the command
//! and the exporter alike.

use std::collections::HashMap;

use time::OffsetDateTime;

use super::PolicyError;
use super::input::{
    EdgeFunctionInput, FindingTypeInput, INPUT_VERSION, InsightsInput, MemberInput, OwnerInput,
    PolicyInput, ProjectInput, ReviewInput, Source, SourceKind, Sources, WorkspaceInput,
};
use crate::api::model::{Insights, InventoryItem};
use crate::history::model::{MemberState, ProjectState, ReviewMark};
use crate::history::{HistoryError, MarkScope, SnapshotRef, Store};

/// A time as the document writes it: RFC 3339, UTC, milliseconds.
pub fn stamp(at: OffsetDateTime) -> String {
    crate::timefmt::rfc3339(at).unwrap_or_default()
}

pub fn live_source(at: OffsetDateTime) -> Source {
    Source {
        from: SourceKind::Live,
        at: stamp(at),
        snapshot_id: None,
    }
}

pub fn snapshot_source(id: i64, taken_at: OffsetDateTime) -> Source {
    Source {
        from: SourceKind::Snapshot,
        at: stamp(taken_at),
        snapshot_id: Some(id),
    }
}

pub fn history_source(at: OffsetDateTime) -> Source {
    Source {
        from: SourceKind::History,
        at: stamp(at),
        snapshot_id: None,
    }
}

pub fn insights(insights: &Insights) -> InsightsInput {
    let summary = &insights.summary;
    InsightsInput {
        as_of: insights.as_of.map(stamp),
        total_projects: summary.total_projects.value,
        externally_published: summary.externally_published.value,
        workspace_members: summary.workspace_members.value,
        needs_review: summary.risk.needs_review,
        review_recommended: summary.risk.review_recommended,
        no_review_needed: summary.risk.no_review_needed,
        findings: insights
            .findings
            .iter()
            .map(|finding| FindingTypeInput {
                id: finding.id.clone(),
                title: finding.title.clone(),
                category: finding.category.clone(),
                review_priority: finding.review_priority.as_str().to_owned(),
                project_count: finding.project_count,
            })
            .collect(),
    }
}

/// A live project: the inventory item's JSON as the service sent it (what it
/// did not send stays absent), with the derived `finding_types` and
/// `open_pii_findings`; and the typed item, when it reads as one, to compare
/// a mark with.
pub fn live_project(item_json: &str) -> Result<(ProjectInput, Option<InventoryItem>), PolicyError> {
    let project = project_input(item_json)?;
    let typed = serde_json::from_str::<InventoryItem>(item_json).ok();
    Ok((project, typed))
}

/// An inventory item's JSON as the document's project, with the derived
/// `finding_types` and `open_pii_findings`.
fn project_input(item_json: &str) -> Result<ProjectInput, PolicyError> {
    let mut project: ProjectInput =
        serde_json::from_str(item_json).map_err(|error| PolicyError::Input {
            reason: format!("an inventory item: {error}"),
        })?;
    if let Some(explanation) = &project.review_priority_explanation {
        let mut ids: Vec<String> = explanation.iter().map(|r| r.id.clone()).collect();
        ids.sort();
        ids.dedup();
        project.finding_types = Some(ids);
    }
    project.open_pii_findings = project
        .matched_reason
        .as_ref()
        .and_then(|reason| reason.as_ref())
        .and_then(|reason| reason.values.as_ref())
        .and_then(|values| values.get("open_pii_finding_count").copied());
    Ok(project)
}

/// A project as a snapshot keeps it: fewer fields than the inventory sends
/// (no counts, no times); those it does not keep are absent.
pub fn snapshot_project(state: &ProjectState) -> ProjectInput {
    ProjectInput {
        id: state.id.clone(),
        name: Some(state.name.clone()),
        is_published: Some(state.is_published),
        publish_audience: Some(state.audience.clone()),
        visibility: Some(state.visibility.clone()),
        connectors: Some(state.connectors.clone()),
        edge_functions: Some(
            state
                .edge_functions
                .iter()
                .map(|name| EdgeFunctionInput { name: name.clone() })
                .collect(),
        ),
        owner: Some(OwnerInput {
            display_name: Some(state.owner.clone()),
        }),
        review_priority: Some(state.review_priority.clone()),
        finding_types: Some(state.finding_types.clone()),
        open_pii_findings: state.pii_open,
        has_pii: state.pii_open.map(|open| open > 0),
        ..ProjectInput::default()
    }
}

pub fn snapshot_member(state: &MemberState) -> MemberInput {
    MemberInput {
        user_id: state.user_id.clone(),
        kind: state.kind.clone(),
        role: state.role.clone(),
        name: (state.name_read || state.name.is_some()).then(|| state.name.clone()),
    }
}

pub fn review(mark: &ReviewMark) -> ReviewInput {
    ReviewInput {
        marked_at: stamp(mark.marked_at),
        reviewer: mark.reviewer.clone(),
        changed_since_review: mark.changed_since_review,
        changed_fields: mark
            .changed_fields
            .iter()
            .map(|change| change.field.clone())
            .collect(),
    }
}

/// Gives each project its standing mark. A live project (one `live_state`
/// knows) is compared with the reviewed state at once
/// (`ReviewMark::against_live`), as the dashboard does; a snapshot's with
/// the snapshot, as the history did.
pub fn attach_reviews(
    projects: &mut [ProjectInput],
    live_state: impl Fn(&str) -> Option<ProjectState>,
    marks: &HashMap<String, ReviewMark>,
    read_at: OffsetDateTime,
) {
    for project in projects {
        let Some(mark) = marks.get(&project.id) else {
            continue;
        };
        let mark = match live_state(&project.id) {
            Some(state) => mark.against_live(&state, read_at),
            None => mark.clone(),
        };
        project.review = Some(review(&mark));
    }
}

/// The live inventory's projects as the document holds them, with the
/// state each mark is compared with: what a reader of the inventory lays
/// over a snapshot ([`from_snapshot`]), which keeps no scan times and few
/// counts, so that the policies reading them can judge.
#[derive(Debug, Clone)]
pub struct LiveProjects {
    /// When the last of them was read.
    pub read_at: OffsetDateTime,
    pub projects: Vec<ProjectInput>,
    pub states: HashMap<String, ProjectState>,
    /// Every project of the workspace (a finished walk): a project only the
    /// snapshot holds is gone since, and left out.
    pub complete: bool,
}

impl LiveProjects {
    pub fn new(read_at: OffsetDateTime) -> Self {
        Self {
            read_at,
            projects: Vec::new(),
            states: HashMap::new(),
            complete: false,
        }
    }

    /// One more row as the service sent it.
    pub fn add(&mut self, item: &InventoryItem) -> Result<(), PolicyError> {
        self.projects.push(typed_project(item)?);
        self.states
            .insert(item.id.clone(), ProjectState::from_item(item));
        Ok(())
    }
}

/// `live` laid over `projects` (a snapshot's, in its order): each live
/// project over its own ([`over_snapshot`]), a project new since the
/// snapshot after them; with `complete`, a project `live` lacks is gone.
pub fn overlay_live(
    projects: &mut Vec<ProjectInput>,
    live: impl IntoIterator<Item = ProjectInput>,
    complete: bool,
) {
    let mut at: HashMap<String, usize> = projects
        .iter()
        .enumerate()
        .map(|(index, project)| (project.id.clone(), index))
        .collect();
    let mut seen = vec![false; projects.len()];
    for project in live {
        match at.get(&project.id) {
            Some(&index) => {
                let merged = over_snapshot(project, projects.get(index));
                projects[index] = merged;
                seen[index] = true;
            }
            None => {
                at.insert(project.id.clone(), projects.len());
                projects.push(project);
                seen.push(true);
            }
        }
    }
    if complete {
        let mut kept = seen.into_iter();
        projects.retain(|_| kept.next().unwrap_or(true));
    }
}

/// The workspace's standing marks, by project.
pub fn standing_marks(
    store: &Store,
    workspace_id: &str,
) -> Result<HashMap<String, ReviewMark>, HistoryError> {
    let mut marks = HashMap::new();
    store.each_reviewed_mark(workspace_id, MarkScope::All, &mut |mark| {
        marks.insert(mark.project_id.clone(), mark);
        Ok(())
    })?;
    Ok(marks)
}

/// The document of a stored snapshot (`reference` of `workspace_id`), with
/// the history's marks, evaluated as of `now`: what `vantage check
/// --from-snapshot` and the exporter evaluate. `None` when there is no
/// such snapshot.
pub fn from_snapshot(
    store: &Store,
    workspace_id: &str,
    reference: &SnapshotRef,
    now: OffsetDateTime,
) -> Result<Option<PolicyInput>, HistoryError> {
    from_snapshot_and_live(store, workspace_id, reference, None, now)
}

/// [`from_snapshot`] with `live` laid over the snapshot's projects
/// ([`overlay_live`]), their marks compared with the live states: what the
/// exporter evaluates once its inventory walk has read every project.
pub fn from_snapshot_and_live(
    store: &Store,
    workspace_id: &str,
    reference: &SnapshotRef,
    live: Option<&LiveProjects>,
    now: OffsetDateTime,
) -> Result<Option<PolicyInput>, HistoryError> {
    let Some(snapshot) = store.resolve(workspace_id, reference)? else {
        return Ok(None);
    };
    let insights = store.insights(snapshot.id)?;
    let mut projects: Vec<ProjectInput> = store
        .projects(snapshot.id)?
        .iter()
        .map(snapshot_project)
        .collect();
    let members: Vec<MemberInput> = store
        .members(snapshot.id)?
        .iter()
        .map(snapshot_member)
        .collect();
    let marks = standing_marks(store, workspace_id)?;
    let source = snapshot_source(snapshot.id, snapshot.taken_at);
    let projects_source = match live {
        Some(live) => {
            overlay_live(&mut projects, live.projects.iter().cloned(), live.complete);
            let state = |id: &str| live.states.get(id).cloned();
            attach_reviews(&mut projects, state, &marks, live.read_at);
            live_source(live.read_at)
        }
        None => {
            attach_reviews(&mut projects, |_| None, &marks, snapshot.taken_at);
            source.clone()
        }
    };
    Ok(Some(PolicyInput {
        version: INPUT_VERSION,
        evaluated_at: stamp(now),
        sources: Sources {
            workspace: source.clone(),
            projects: projects_source,
            members: source,
            reviews: history_source(now),
        },
        workspace: WorkspaceInput {
            id: workspace_id.to_owned(),
            plan: None,
            insights: insights.as_ref().map(self::insights),
        },
        projects,
        members,
    }))
}

/// A row the dashboard holds, typed: its fields as the wire writes them (a
/// typed row cannot tell a field the service left out from its default, so
/// the document is as the row reads), with the derived ones of
/// [`live_project`].
pub fn typed_project(item: &InventoryItem) -> Result<ProjectInput, PolicyError> {
    let json = serde_json::to_string(item).map_err(|error| PolicyError::Input {
        reason: format!("an inventory row: {error}"),
    })?;
    project_input(&json)
}

/// A live project over the snapshot's state of it: the live fields win;
/// what the live row does not carry (whether it holds personal data, when
/// the row has no `matched_reason` count) stays the snapshot's.
pub fn over_snapshot(mut live: ProjectInput, snapshot: Option<&ProjectInput>) -> ProjectInput {
    if let Some(snapshot) = snapshot {
        if live.open_pii_findings.is_none() {
            live.open_pii_findings = snapshot.open_pii_findings;
        }
        if live.has_pii.is_none() {
            live.has_pii = snapshot.has_pii;
        }
    }
    live
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A live project lies over its own, a new one comes after the
    /// snapshot's; a complete walk leaves out what it no longer holds.
    #[test]
    fn live_projects_lie_over_the_snapshot_and_a_complete_walk_drops_the_gone() {
        let project = |id: &str, name: &str| ProjectInput {
            id: id.into(),
            name: Some(Some(name.into())),
            ..ProjectInput::default()
        };
        let snapshot = vec![
            project("a", "old a"),
            project("gone", "gone"),
            project("c", "c"),
        ];
        let live = || {
            vec![
                project("c", "new c"),
                project("a", "new a"),
                project("d", "d"),
            ]
        };
        let names = |projects: &[ProjectInput]| {
            projects
                .iter()
                .map(|p| p.name.clone().flatten().unwrap_or_default())
                .collect::<Vec<_>>()
        };
        let mut partial = snapshot.clone();
        overlay_live(&mut partial, live(), false);
        assert_eq!(names(&partial), ["new a", "gone", "new c", "d"]);
        let mut complete = snapshot;
        overlay_live(&mut complete, live(), true);
        assert_eq!(names(&complete), ["new a", "new c", "d"]);
    }

    /// A live row without the count keeps what the snapshot said of personal
    /// data; one with it says so itself.
    #[test]
    fn a_live_row_over_the_snapshot_keeps_what_it_does_not_carry() {
        let snapshot = ProjectInput {
            id: "prj_1".into(),
            has_pii: Some(true),
            open_pii_findings: Some(3),
            visibility: Some(Some("restricted".into())),
            ..ProjectInput::default()
        };
        let live = ProjectInput {
            id: "prj_1".into(),
            visibility: Some(Some("workspace_edit".into())),
            ..ProjectInput::default()
        };
        let merged = over_snapshot(live, Some(&snapshot));
        assert_eq!(merged.visibility, Some(Some("workspace_edit".into())));
        assert_eq!(
            (merged.has_pii, merged.open_pii_findings),
            (Some(true), Some(3))
        );
        let counted = ProjectInput {
            id: "prj_1".into(),
            has_pii: Some(false),
            open_pii_findings: Some(0),
            ..ProjectInput::default()
        };
        let merged = over_snapshot(counted, Some(&snapshot));
        assert_eq!(
            (merged.has_pii, merged.open_pii_findings),
            (Some(false), Some(0))
        );
        assert_eq!(over_snapshot(snapshot.clone(), None), snapshot);
    }
}
