//! The changes between two snapshots: one item per change, each of a kind
//! from a fixed list, ordered by seriousness.

use std::collections::{BTreeSet, HashMap};

use serde::Serialize;
use serde_json::{Value, json};
use time::OffsetDateTime;

use super::model::{MemberState, ProjectState, Snapshot};
use crate::api::model::ReviewPriority;
use crate::open_enum;

open_enum! {
    /// What changed, declared from the most serious to the least: the order
    /// the table groups them in.
    pub enum ChangeKind {
        Published => "published",
        AudienceChanged => "audience_changed",
        AudienceTargetsChanged => "audience_targets_changed",
        PriorityRaised => "priority_raised",
        PiiOpenIncreased => "pii_open_increased",
        FindingTypeAdded => "finding_type_added",
        VisibilityChanged => "visibility_changed",
        MemberJoined => "member_joined",
        RoleChanged => "role_changed",
        ConnectorAdded => "connector_added",
        EdgeFunctionAdded => "edge_function_added",
        OwnerChanged => "owner_changed",
        ProjectAdded => "project_added",
        Renamed => "renamed",
        ProjectRemoved => "project_removed",
        MemberLeft => "member_left",
        Unpublished => "unpublished",
        PriorityLowered => "priority_lowered",
        PiiOpenDecreased => "pii_open_decreased",
        FindingTypeRemoved => "finding_type_removed",
    }
}

impl ChangeKind {
    /// 0 is the most serious.
    pub fn seriousness_rank(&self) -> usize {
        Self::KNOWN
            .iter()
            .position(|kind| kind == self)
            .unwrap_or(Self::KNOWN.len())
    }
}

/// One change between two snapshots.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Change {
    pub kind: ChangeKind,
    /// The project's id, or the member's user id.
    pub id: String,
    /// The project's or member's name (the newer one when both are known).
    pub name: Option<String>,
    pub before: Value,
    pub after: Value,
    pub before_snapshot: i64,
    #[serde(with = "time::serde::rfc3339")]
    pub before_at: OffsetDateTime,
    pub after_snapshot: i64,
    #[serde(with = "time::serde::rfc3339")]
    pub after_at: OffsetDateTime,
}

/// Seriousness of a review priority: higher needs review more.
fn priority_level(raw: &str) -> u8 {
    match ReviewPriority::parse(raw) {
        ReviewPriority::NeedsReview => 3,
        ReviewPriority::ReviewRecommended => 2,
        ReviewPriority::NoReviewNeeded => 1,
        ReviewPriority::Unscored | ReviewPriority::Unknown(_) => 0,
    }
}

fn text(value: &Option<String>) -> Value {
    value.as_ref().map_or(Value::Null, |text| json!(text))
}

struct Builder<'a> {
    before: &'a Snapshot,
    after: &'a Snapshot,
    changes: Vec<Change>,
}

impl Builder<'_> {
    fn push(
        &mut self,
        kind: ChangeKind,
        id: &str,
        name: Option<&String>,
        before: Value,
        after: Value,
    ) {
        self.changes.push(Change {
            kind,
            id: id.to_owned(),
            name: name.cloned(),
            before,
            after,
            before_snapshot: self.before.info.id,
            before_at: self.before.info.taken_at,
            after_snapshot: self.after.info.id,
            after_at: self.after.info.taken_at,
        });
    }

    /// One change per value that `after` has and `before` had not.
    fn added(
        &mut self,
        kind: ChangeKind,
        project: &ProjectState,
        before: &[String],
        after: &[String],
    ) {
        let known: BTreeSet<&String> = before.iter().collect();
        for value in after.iter().filter(|value| !known.contains(value)) {
            self.push(
                kind.clone(),
                &project.id,
                project.name.as_ref(),
                Value::Null,
                json!(value),
            );
        }
    }

    fn removed(
        &mut self,
        kind: ChangeKind,
        project: &ProjectState,
        before: &[String],
        after: &[String],
    ) {
        let kept: BTreeSet<&String> = after.iter().collect();
        for value in before.iter().filter(|value| !kept.contains(value)) {
            self.push(
                kind.clone(),
                &project.id,
                project.name.as_ref(),
                json!(value),
                Value::Null,
            );
        }
    }

    fn project(&mut self, old: &ProjectState, new: &ProjectState) {
        let (id, name) = (&new.id, new.name.as_ref().or(old.name.as_ref()));
        if old.name != new.name {
            self.push(
                ChangeKind::Renamed,
                id,
                name,
                text(&old.name),
                text(&new.name),
            );
        }
        match (old.is_published, new.is_published) {
            (false, true) => self.push(
                ChangeKind::Published,
                id,
                name,
                Value::Null,
                text(&new.audience),
            ),
            (true, false) => self.push(
                ChangeKind::Unpublished,
                id,
                name,
                text(&old.audience),
                Value::Null,
            ),
            (true, true) => {
                if old.audience != new.audience {
                    self.push(
                        ChangeKind::AudienceChanged,
                        id,
                        name,
                        text(&old.audience),
                        text(&new.audience),
                    );
                } else if let (Some(before), Some(after)) =
                    (&old.audience_targets, &new.audience_targets)
                    && before != after
                {
                    self.push(
                        ChangeKind::AudienceTargetsChanged,
                        id,
                        name,
                        json!(before),
                        json!(after),
                    );
                }
            }
            (false, false) => {}
        }
        if old.visibility != new.visibility {
            self.push(
                ChangeKind::VisibilityChanged,
                id,
                name,
                text(&old.visibility),
                text(&new.visibility),
            );
        }
        if old.review_priority != new.review_priority {
            let (before, after) = (
                priority_level(&old.review_priority),
                priority_level(&new.review_priority),
            );
            let kind = if after > before {
                Some(ChangeKind::PriorityRaised)
            } else if after < before {
                Some(ChangeKind::PriorityLowered)
            } else {
                None
            };
            if let Some(kind) = kind {
                self.push(
                    kind,
                    id,
                    name,
                    json!(old.review_priority),
                    json!(new.review_priority),
                );
            }
        }
        self.added(
            ChangeKind::FindingTypeAdded,
            new,
            &old.finding_types,
            &new.finding_types,
        );
        self.removed(
            ChangeKind::FindingTypeRemoved,
            new,
            &old.finding_types,
            &new.finding_types,
        );
        if let (Some(before), Some(after)) = (old.pii_open, new.pii_open) {
            if after > before {
                self.push(
                    ChangeKind::PiiOpenIncreased,
                    id,
                    name,
                    json!(before),
                    json!(after),
                );
            } else if after < before {
                self.push(
                    ChangeKind::PiiOpenDecreased,
                    id,
                    name,
                    json!(before),
                    json!(after),
                );
            }
        }
        self.added(
            ChangeKind::ConnectorAdded,
            new,
            &old.connectors,
            &new.connectors,
        );
        self.added(
            ChangeKind::EdgeFunctionAdded,
            new,
            &old.edge_functions,
            &new.edge_functions,
        );
        if old.owner != new.owner {
            self.push(
                ChangeKind::OwnerChanged,
                id,
                name,
                text(&old.owner),
                text(&new.owner),
            );
        }
    }

    fn member(&mut self, old: &MemberState, new: &MemberState) {
        if let (Some(before), Some(after)) = (&old.role, &new.role)
            && before != after
        {
            let name = new.name.as_ref().or(old.name.as_ref());
            self.push(
                ChangeKind::RoleChanged,
                &new.user_id,
                name,
                json!(before),
                json!(after),
            );
        }
    }
}

/// Every change from `before` to `after`, the most serious kinds first, then
/// by name and id.
pub fn diff(before: &Snapshot, after: &Snapshot) -> Vec<Change> {
    let mut builder = Builder {
        before,
        after,
        changes: Vec::new(),
    };
    let old_projects: HashMap<&str, &ProjectState> =
        before.projects.iter().map(|p| (p.id.as_str(), p)).collect();
    let new_ids: std::collections::HashSet<&str> =
        after.projects.iter().map(|p| p.id.as_str()).collect();
    for project in &after.projects {
        match old_projects.get(project.id.as_str()) {
            Some(old) if *old == project => {}
            Some(old) => builder.project(old, project),
            None => builder.push(
                ChangeKind::ProjectAdded,
                &project.id,
                project.name.as_ref(),
                Value::Null,
                text(&project.name),
            ),
        }
    }
    for project in before
        .projects
        .iter()
        .filter(|p| !new_ids.contains(p.id.as_str()))
    {
        builder.push(
            ChangeKind::ProjectRemoved,
            &project.id,
            project.name.as_ref(),
            text(&project.name),
            Value::Null,
        );
    }
    let old_members: HashMap<&str, &MemberState> = before
        .members
        .iter()
        .map(|m| (m.user_id.as_str(), m))
        .collect();
    let new_members: std::collections::HashSet<&str> =
        after.members.iter().map(|m| m.user_id.as_str()).collect();
    for member in &after.members {
        match old_members.get(member.user_id.as_str()) {
            Some(old) => builder.member(old, member),
            None => builder.push(
                ChangeKind::MemberJoined,
                &member.user_id,
                member.name.as_ref(),
                Value::Null,
                text(&member.role),
            ),
        }
    }
    for member in before
        .members
        .iter()
        .filter(|m| !new_members.contains(m.user_id.as_str()))
    {
        builder.push(
            ChangeKind::MemberLeft,
            &member.user_id,
            member.name.as_ref(),
            text(&member.role),
            Value::Null,
        );
    }
    let mut changes = builder.changes;
    changes.sort_by(|a, b| {
        a.kind
            .seriousness_rank()
            .cmp(&b.kind.seriousness_rank())
            .then_with(|| a.name.cmp(&b.name))
            .then_with(|| a.id.cmp(&b.id))
    });
    changes
}
