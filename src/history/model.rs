//! What a snapshot keeps of each project and member: the fields a diff needs,
//! as the service spelled them (enum values as wire strings, so a value this
//! build does not know survives). Never a PII quote, never an e-mail.

use serde::{Deserialize, Serialize};
use time::OffsetDateTime;

use super::document::{Document, FieldChange, NamedField, ShapedBody, Shown, changed_fields};
use crate::api::model::{Insights, InventoryItem, MemberRef, Project, PublishAudience};
use crate::open_enum;

/// One project as a snapshot keeps it. A field added later is all said in
/// this file: it carries `#[serde(default)]` (documents of an older shape
/// lack it: absent, read as `None`, never a made-up value), its value in
/// [`ProjectState::from_item`], [`Document::SHAPE`] raised, a line in
/// [`PROJECT_FIELDS`] naming the shape it arrived in, and, when the diff
/// between snapshots says it, a [`ChangeKind`] (its severity) and its line in
/// [`PROJECT_TEXTS`].
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProjectState {
    pub id: String,
    pub name: Option<String>,
    pub is_published: bool,
    /// `publish_audience`: null while not published.
    pub audience: Option<String>,
    /// `type:id` of each audience target, sorted. `None` when not known: a
    /// custom audience whose targets were not read (the inventory does not
    /// carry them; the contract says they are empty for other audiences).
    pub audience_targets: Option<Vec<String>>,
    pub visibility: Option<String>,
    pub review_priority: String,
    /// Ids of `review_priority_explanation` (the finding types the project
    /// appears under, and other reasons), sorted.
    pub finding_types: Vec<String>,
    /// `matched_reason.values.open_pii_finding_count`; `None` when the item
    /// has no `matched_reason` (unknown is never 0).
    pub pii_open: Option<i64>,
    pub connectors: Vec<String>,
    pub edge_functions: Vec<String>,
    /// The owner's display name.
    pub owner: Option<String>,
}

impl Document for ProjectState {
    const KIND: &'static str = "project";
    const SHAPE: u32 = 1;
}

/// What "changed since review" compares, by the document's key. The diff
/// between snapshots names kinds ([`ChangeKind`]); a mark names fields.
pub const PROJECT_FIELDS: &[NamedField] = &[
    NamedField::new("name", "name", Shown::Name),
    NamedField::new("is_published", "published", Shown::Values),
    NamedField::new("audience", "audience", Shown::Values),
    NamedField::new("audience_targets", "audience targets", Shown::Set).unknown_when_null(),
    NamedField::new("visibility", "visibility", Shown::Values),
    NamedField::new("review_priority", "priority", Shown::Values),
    NamedField::new("finding_types", "finding types", Shown::Set),
    NamedField::new("pii_open", "open PII", Shown::Count).unknown_when_null(),
    NamedField::new("connectors", "connectors", Shown::Set),
    NamedField::new("edge_functions", "edge functions", Shown::Set),
    NamedField::new("owner", "owner", Shown::Values),
];

/// Reads one field of a project.
pub(super) type FieldOf<T> = fn(&ProjectState) -> &T;

/// A project's text fields, each a change of one kind when it differs
/// (`diff.rs` compares them).
pub(super) const PROJECT_TEXTS: &[(ChangeKind, FieldOf<Option<String>>)] = &[
    (ChangeKind::Renamed, |project| &project.name),
    (ChangeKind::VisibilityChanged, |project| &project.visibility),
    (ChangeKind::OwnerChanged, |project| &project.owner),
];

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

/// How much a kind of change matters to a reviewer: what the screens colour
/// it by.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Severity {
    /// Widens who can reach a project or what it exposes.
    Exposure,
    /// Worth a look: who can act, what it connects to, who owns it.
    Notable,
    /// Narrows exposure, or names and comings and goings.
    Routine,
}

impl ChangeKind {
    /// 0 is the most serious.
    pub fn seriousness_rank(&self) -> usize {
        Self::KNOWN
            .iter()
            .position(|kind| kind == self)
            .unwrap_or(Self::KNOWN.len())
    }

    /// Said of each kind, so a kind added or moved says its own.
    pub fn severity(&self) -> Severity {
        match self {
            Self::Published
            | Self::AudienceChanged
            | Self::AudienceTargetsChanged
            | Self::PriorityRaised
            | Self::PiiOpenIncreased => Severity::Exposure,
            Self::FindingTypeAdded
            | Self::VisibilityChanged
            | Self::MemberJoined
            | Self::RoleChanged
            | Self::ConnectorAdded
            | Self::EdgeFunctionAdded
            | Self::OwnerChanged => Severity::Notable,
            Self::ProjectAdded
            | Self::Renamed
            | Self::ProjectRemoved
            | Self::MemberLeft
            | Self::Unpublished
            | Self::PriorityLowered
            | Self::PiiOpenDecreased
            | Self::FindingTypeRemoved
            | Self::Unknown(_) => Severity::Routine,
        }
    }
}

/// Sorted, without repeats.
fn set(mut values: Vec<String>) -> Vec<String> {
    values.sort();
    values.dedup();
    values
}

impl ProjectState {
    /// From an inventory item; audience targets are known (empty) unless the
    /// audience is `custom`, whose targets only the project read gives.
    pub fn from_item(item: &InventoryItem) -> Self {
        let custom = matches!(item.publish_audience, Some(PublishAudience::Custom));
        Self {
            id: item.id.clone(),
            name: item.name.clone(),
            is_published: item.is_published,
            audience: item
                .publish_audience
                .as_ref()
                .map(|a| a.as_str().to_owned()),
            audience_targets: if item.is_published && custom {
                None
            } else {
                Some(Vec::new())
            },
            visibility: item.visibility.as_ref().map(|v| v.as_str().to_owned()),
            review_priority: item.review_priority.as_str().to_owned(),
            finding_types: set(item
                .review_priority_explanation
                .iter()
                .map(|reason| reason.id.clone())
                .collect()),
            pii_open: item
                .matched_reason
                .as_ref()
                .map(|reason| reason.values.open_pii_finding_count),
            connectors: set(item.connectors.clone()),
            edge_functions: set(item.edge_functions.iter().map(|f| f.name.clone()).collect()),
            owner: item.owner.display_name.clone(),
        }
    }

    /// This state with what a read of the project says now laid over it: its
    /// name, visibility, publication, audience and targets (the fields the
    /// Project resource holds; the inventory's own are kept as they were).
    pub fn with_project(self, project: &Project) -> Self {
        Self {
            name: project.name.clone(),
            is_published: project.is_published,
            audience: project
                .publish_audience
                .as_ref()
                .map(|a| a.as_str().to_owned()),
            audience_targets: Some(target_keys(&project.publish_audience_targets)),
            visibility: project.visibility.as_ref().map(|v| v.as_str().to_owned()),
            ..self
        }
    }

    /// What differs from `reviewed` (a mark's state) to this state, through
    /// [`PROJECT_FIELDS`]: the live row's "changed since review".
    pub fn changed_since(&self, reviewed: &ShapedBody) -> Vec<FieldChange> {
        let now = ShapedBody {
            shape: <Self as Document>::SHAPE,
            body: serde_json::to_value(self).unwrap_or_default(),
        };
        changed_fields(PROJECT_FIELDS, reviewed, &now)
    }

    /// Whether the published app's audience is `custom` (its targets need a
    /// project read).
    pub fn needs_targets(&self) -> bool {
        self.is_published && self.audience.as_deref() == Some("custom")
    }
}

/// `type:id` of audience targets, sorted.
pub fn target_keys(targets: &[crate::api::model::AudienceTarget]) -> Vec<String> {
    set(targets
        .iter()
        .map(|t| format!("{}:{}", t.kind, t.id))
        .collect())
}

impl Document for MemberState {
    const KIND: &'static str = "member";
    /// 2: `name_read`.
    const SHAPE: u32 = 2;
}

impl Document for Insights {
    const KIND: &'static str = "insights";
    const SHAPE: u32 = 1;
}

/// One member as a snapshot keeps it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct MemberState {
    pub user_id: String,
    /// The member `type` (`user`).
    pub kind: String,
    /// From the role-filtered member lists; `None` when the member was listed
    /// under no role this build asks for.
    pub role: Option<String>,
    /// Display name from the member read, when the budget allowed one (or
    /// carried over from an earlier snapshot).
    pub name: Option<String>,
    /// Whether the member was read: a member without a display name is
    /// then known to have none, and is not read again. Shape 2.
    #[serde(default)]
    pub name_read: bool,
}

impl MemberState {
    pub fn from_ref(member: &MemberRef, role: Option<&str>) -> Self {
        Self {
            user_id: member.user_id.clone(),
            kind: member.kind.as_str().to_owned(),
            role: role.map(str::to_owned),
            name: None,
            name_read: false,
        }
    }

    /// Whether the name is known: read, or carried from a snapshot that had
    /// it (a shape-1 document holds a name only when it was read).
    pub fn name_known(&self) -> bool {
        self.name_read || self.name.is_some()
    }
}

/// A walk of the workspace, complete, ready to record.
#[derive(Debug, Clone)]
pub struct Capture {
    pub workspace_id: String,
    /// When the walk began. Every state in it was read at or after then, but
    /// maybe before a write made during the walk (which takes minutes): so a
    /// snapshot counts as newer than a state read before it began, never than
    /// one read while it walked. "Changed since review" and which state a
    /// mark holds compare in that order (`marks.rs`).
    pub taken_at: OffsetDateTime,
    pub insights: Insights,
    /// In the inventory's default order (most recently edited first).
    pub projects: Vec<ProjectState>,
    /// The first inventory page as the service sent it, for an instant start,
    /// without descriptions.
    pub first_page: Vec<InventoryItem>,
    pub members: Vec<MemberState>,
}

/// A recorded snapshot, as listed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SnapshotInfo {
    pub id: i64,
    pub workspace_id: String,
    #[serde(with = "crate::timefmt::serde_rfc3339")]
    pub taken_at: OffsetDateTime,
    pub projects: i64,
    pub members: i64,
}

/// How far ahead of this machine's clock a snapshot may be dated and still
/// count as taken now: a teammate's clock may be a little ahead.
pub const CLOCK_SKEW: time::Duration = time::Duration::minutes(5);

/// How a snapshot's age compares with the most a job or the dashboard allows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Freshness {
    /// Taken within the allowed age: nothing new need be recorded.
    Fresh,
    /// Older than allowed: record a new one.
    Stale,
    /// Dated after now, beyond [`CLOCK_SKEW`]: a wrong clock or a wrong
    /// record. Never fresh (it would stay so until that date, and the team's
    /// snapshot job would never record again): record a new one, and say so.
    Future,
}

impl SnapshotInfo {
    /// Whether this snapshot is fresh at `now` for a `max_age`: the one rule
    /// for `snapshot --if-older-than` and the dashboard's background snapshot.
    pub fn freshness(&self, max_age: time::Duration, now: OffsetDateTime) -> Freshness {
        if self.taken_at > now + CLOCK_SKEW {
            Freshness::Future
        } else if now - self.taken_at <= max_age {
            Freshness::Fresh
        } else {
            Freshness::Stale
        }
    }
}

/// A snapshot read back whole.
#[derive(Debug, Clone)]
pub struct Snapshot {
    pub info: SnapshotInfo,
    pub insights: Option<Insights>,
    pub projects: Vec<ProjectState>,
    pub members: Vec<MemberState>,
}

/// The project as the reviewer saw it when marking: a loaded row, with the
/// time its page was read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SeenState {
    pub state: ProjectState,
    pub read_at: OffsetDateTime,
}

/// A mark to make.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewMark {
    pub project_id: String,
    pub note: Option<String>,
    /// Who marks (the config's `reviewer`, else the user name).
    pub reviewer: Option<String>,
    /// The loaded row, when there is one; the newest snapshot's state is held
    /// instead when it is newer.
    pub seen: Option<SeenState>,
}

/// A project marked reviewed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReviewMark {
    pub project_id: String,
    /// The project's name in the newest snapshot that holds it.
    pub name: Option<String>,
    #[serde(with = "crate::timefmt::serde_rfc3339")]
    pub marked_at: OffsetDateTime,
    /// Who marked it: in a shared history the database role that wrote the
    /// mark, else the name the reviewer gave; `None` for a mark older than the
    /// record of reviewers.
    pub reviewer: Option<String>,
    /// In a shared history, the name the reviewer gave (the config's
    /// `reviewer`), beside the role: added, never in its place.
    #[serde(default)]
    pub display_name: Option<String>,
    pub note: Option<String>,
    /// When the state the reviewer saw was read (a loaded page, or the
    /// snapshot's time); `None` when not known.
    #[serde(with = "crate::timefmt::serde_rfc3339::option")]
    pub reviewed_state_at: Option<OffsetDateTime>,
    /// Whether the project differs in the newest snapshot from the state that
    /// was reviewed; `None` when no snapshot holds it since the mark.
    pub changed_since_review: Option<bool>,
    /// What differs, field by field (empty when unchanged).
    pub changed_fields: Vec<FieldChange>,
    /// The state that was reviewed, when one is held: a live row is compared
    /// with it ([`ReviewMark::against_live`]) without waiting for a snapshot.
    #[serde(skip)]
    pub reviewed_state: Option<ShapedBody>,
}

impl ReviewMark {
    /// The mark as a live row shows it: the project's `live` state, read at
    /// `read_at`. A row read before the reviewed state says nothing of what
    /// came after it, so the mark stays as the history said. Otherwise what
    /// the row shows differently from the reviewed state is a change since
    /// review at once, named field by field (with the snapshot's other
    /// changes, if it found any).
    pub fn against_live(&self, live: &ProjectState, read_at: OffsetDateTime) -> ReviewMark {
        let Some(reviewed) = &self.reviewed_state else {
            return self.clone();
        };
        if self.reviewed_state_at.is_some_and(|at| read_at < at) {
            return self.clone();
        }
        let mut changed = live.changed_since(reviewed);
        if changed.is_empty() {
            return self.clone();
        }
        let from_snapshot = self
            .changed_fields
            .iter()
            .filter(|old| changed.iter().all(|new| new.field != old.field))
            .cloned()
            .collect::<Vec<_>>();
        changed.extend(from_snapshot);
        ReviewMark {
            changed_since_review: Some(true),
            changed_fields: changed,
            ..self.clone()
        }
    }

    /// Where the project stands against its review, as a reviewer reads it:
    /// `unchanged since review`, `changed since review: name; open PII 2 → 3`,
    /// or `no snapshot since the review`.
    pub fn since_review(&self) -> String {
        match self.changed_since_review {
            Some(true) => format!(
                "changed since review: {}",
                self.changed_fields
                    .iter()
                    .map(ToString::to_string)
                    .collect::<Vec<_>>()
                    .join("; ")
            ),
            Some(false) => "unchanged since review".to_owned(),
            None => "no snapshot since the review".to_owned(),
        }
    }
}

/// What a line of the review log records.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ReviewAction {
    Mark,
    Unmark,
    /// A policy's violation by the project accepted until a date
    /// (`history/waivers.rs`): the entry's note is the reason.
    Waive,
}

impl ReviewAction {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Mark => "mark",
            Self::Unmark => "unmark",
            Self::Waive => "waive",
        }
    }

    /// As a store keeps it; anything else is a damaged row.
    pub fn parse(raw: &str) -> Option<Self> {
        match raw {
            "mark" => Some(Self::Mark),
            "unmark" => Some(Self::Unmark),
            "waive" => Some(Self::Waive),
            _ => None,
        }
    }
}

/// A reviewed state as stored: its shape and JSON body, copied as they are.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredState {
    pub shape: u32,
    pub body: String,
}

/// One line of the audit trail: who marked, unmarked or waived which
/// project, when, with which note (a waiver's reason).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReviewEntry {
    /// The entry's id in its store: what `reviewed log --verify` names.
    #[serde(default)]
    pub id: i64,
    pub project_id: String,
    pub action: ReviewAction,
    #[serde(with = "crate::timefmt::serde_rfc3339")]
    pub at: OffsetDateTime,
    /// Who: in a shared history the database role that wrote the entry, else
    /// the name the reviewer gave; `None` for a mark older than the record of
    /// reviewers.
    pub reviewer: Option<String>,
    /// In a shared history, the name the reviewer gave, beside the role.
    #[serde(default)]
    pub display_name: Option<String>,
    pub note: Option<String>,
    /// When the reviewed state was read (marks only; `None` when not known).
    #[serde(with = "crate::timefmt::serde_rfc3339::option")]
    pub reviewed_state_at: Option<OffsetDateTime>,
    /// The state that was reviewed, for a copy of the log; never printed.
    #[serde(skip)]
    pub reviewed_state: Option<StoredState>,
    /// A waiver's policy and end (waive entries only).
    #[serde(default)]
    pub policy_id: Option<String>,
    #[serde(default, with = "crate::timefmt::serde_rfc3339::option")]
    pub until: Option<OffsetDateTime>,
}

impl ReviewEntry {
    /// A waive entry's terms, as the chain covers them.
    pub fn waiver_terms(&self) -> Option<crate::history::chain::WaiverTerms> {
        Some(crate::history::chain::WaiverTerms {
            policy_id: self.policy_id.clone()?,
            until_ms: crate::history::read::to_ms(self.until?),
        })
    }
}

/// Who, as a person reads it: the reviewer (the database role in a shared
/// history), with the name they gave when it differs.
pub fn shown_reviewer(reviewer: Option<&str>, display_name: Option<&str>) -> String {
    match (reviewer, display_name) {
        (Some(who), Some(name)) if name != who => format!("{who} ({name})"),
        (Some(who), _) => who.to_owned(),
        (None, name) => name.unwrap_or_default().to_owned(),
    }
}

/// Which standing marks a read hands over.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MarkScope<'a> {
    /// Every one: `reviewed list`.
    All,
    /// Those of these projects.
    Projects(&'a [String]),
    /// Those a dashboard can show: of the projects the newest snapshot holds,
    /// and any made since it was taken (a project new since then). A mark of
    /// a project the workspace no longer holds stays in the log, not in
    /// memory: a dashboard holds at most one mark per project it can list.
    Shown,
}

/// How much of each log entry a read carries.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LogRead {
    /// What is shown: a note and a name cut as names from the service are
    /// ([`crate::api::model::cut_name`]), no reviewed state.
    Shown,
    /// Every field whole, with the reviewed state: what `history copy` moves.
    Whole,
}

#[cfg(test)]
mod tests {
    use time::macros::datetime;

    use super::*;

    #[test]
    fn a_snapshot_dated_in_the_future_is_never_fresh() {
        let now = datetime!(2026-11-28 12:00 UTC);
        let taken = |taken_at| SnapshotInfo {
            id: 1,
            workspace_id: "ws_1".into(),
            taken_at,
            projects: 0,
            members: 0,
        };
        let six_hours = time::Duration::hours(6);
        let at = |when| taken(when).freshness(six_hours, now);
        assert_eq!(at(datetime!(2026-11-28 08:00 UTC)), Freshness::Fresh);
        assert_eq!(at(datetime!(2026-11-28 05:59 UTC)), Freshness::Stale);
        // A teammate's clock a few minutes ahead: still fresh.
        assert_eq!(at(now + CLOCK_SKEW), Freshness::Fresh);
        assert_eq!(
            at(now + CLOCK_SKEW + time::Duration::seconds(1)),
            Freshness::Future
        );
        assert_eq!(at(datetime!(2100-01-01 00:00 UTC)), Freshness::Future);
    }
}
