//! The input document a policy reads (`input` in Rego): one per evaluation.
//! Its JSON Schema is generated from these types ([`schema`]) and published as
//! `docs/policy-input.schema.json`; a test keeps the two equal.
//!
//! A field the service did not send is absent, never a default: every field
//! of a project or member is optional, and one the service sent as `null` is
//! `null` (so `p.last_security_scan_at == null` means "never scanned", and an
//! absent one means "not known here", e.g. in a snapshot that does not keep it).

use schemars::JsonSchema;
use serde::{Deserialize, Deserializer, Serialize};

/// The whole document.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PolicyInput {
    /// The version of this document's shape; raised when a field changes meaning.
    pub version: u32,
    /// When the evaluation ran (RFC 3339, UTC): `time.now_ns()` answers this instant.
    pub evaluated_at: String,
    /// Where each part came from, and when.
    pub sources: Sources,
    pub workspace: WorkspaceInput,
    /// Every project of the workspace, in the inventory's order.
    pub projects: Vec<ProjectInput>,
    /// Every member of the workspace.
    pub members: Vec<MemberInput>,
}

/// The shape's version this build writes.
pub const INPUT_VERSION: u32 = 1;

/// Where each part of the document was read.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Sources {
    /// `workspace` (its insights and plan).
    pub workspace: Source,
    /// `projects[*]`, their inventory fields.
    pub projects: Source,
    /// `members`.
    pub members: Source,
    /// `projects[*].review`: the review history's marks.
    pub reviews: Source,
}

/// Read live from the service, or from a stored snapshot.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum SourceKind {
    Live,
    Snapshot,
    /// The review history (marks are read from it in both cases).
    History,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Source {
    pub from: SourceKind,
    /// When it was read (live) or taken (snapshot), RFC 3339 UTC.
    pub at: String,
    /// The snapshot's id, when `from` is `snapshot`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub snapshot_id: Option<i64>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct WorkspaceInput {
    pub id: String,
    /// The workspace's plan (`business`, `enterprise`, …), when the service said.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub plan: Option<String>,
    /// The security insights, when read.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub insights: Option<InsightsInput>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct InsightsInput {
    /// Freshness of the review-priority data; `null` when the service has none.
    pub as_of: Option<String>,
    pub total_projects: i64,
    pub externally_published: i64,
    pub workspace_members: i64,
    pub needs_review: i64,
    pub review_recommended: i64,
    pub no_review_needed: i64,
    /// The finding types, higher review priority first.
    pub findings: Vec<FindingTypeInput>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct FindingTypeInput {
    pub id: String,
    pub title: String,
    pub category: String,
    pub review_priority: String,
    pub project_count: i64,
}

/// `Some(None)` for a `null` the service sent, `None` (absent) when it sent
/// nothing: serde's `Option` alone would fold the two.
fn sent<'de, D, T>(deserializer: D) -> Result<Option<Option<T>>, D::Error>
where
    D: Deserializer<'de>,
    T: Deserialize<'de>,
{
    Option::<T>::deserialize(deserializer).map(Some)
}

/// One project: the inventory item's fields as the service sent them (those
/// it did not send are absent), with its review state.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ProjectInput {
    pub id: String,
    #[serde(
        default,
        deserialize_with = "sent",
        skip_serializing_if = "Option::is_none"
    )]
    pub name: Option<Option<String>>,
    #[serde(
        default,
        deserialize_with = "sent",
        skip_serializing_if = "Option::is_none"
    )]
    pub description: Option<Option<String>>,
    #[serde(
        default,
        deserialize_with = "sent",
        skip_serializing_if = "Option::is_none"
    )]
    pub url: Option<Option<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub is_published: Option<bool>,
    /// `public`, `workspace`, `custom` (or a newer value); `null` while not published.
    #[serde(
        default,
        deserialize_with = "sent",
        skip_serializing_if = "Option::is_none"
    )]
    pub publish_audience: Option<Option<String>>,
    /// `restricted`, `workspace_edit`, `workspace_view` (or a newer value); `null` when none is stored.
    #[serde(
        default,
        deserialize_with = "sent",
        skip_serializing_if = "Option::is_none"
    )]
    pub visibility: Option<Option<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub activity_group: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub connectors: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub edge_functions: Option<Vec<EdgeFunctionInput>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub edit_count: Option<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message_count: Option<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub edits_24h: Option<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub edits_7d: Option<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub edits_30d: Option<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub visitors_24h: Option<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub visitors_7d: Option<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub visitors_30d: Option<i64>,
    /// RFC 3339; `null` when never edited.
    #[serde(
        default,
        deserialize_with = "sent",
        skip_serializing_if = "Option::is_none"
    )]
    pub last_edited_at: Option<Option<String>>,
    /// RFC 3339; `null` when never scanned. The latest scan the service knows of.
    #[serde(
        default,
        deserialize_with = "sent",
        skip_serializing_if = "Option::is_none"
    )]
    pub last_security_scan_at: Option<Option<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub owner: Option<OwnerInput>,
    /// `needs_review`, `review_recommended`, `no_review_needed`, `unscored`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub review_priority: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub review_priority_explanation: Option<Vec<ReasonInput>>,
    #[serde(
        default,
        deserialize_with = "sent",
        skip_serializing_if = "Option::is_none"
    )]
    pub matched_reason: Option<Option<MatchedReasonInput>>,
    /// The ids of `review_priority_explanation` (the finding types the project
    /// appears under, and other reasons), sorted: the one field a snapshot
    /// keeps of the explanation.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub finding_types: Option<Vec<String>>,
    /// `matched_reason.values.open_pii_finding_count`, where the service sent it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub open_pii_findings: Option<i64>,
    /// Whether personal data is detected (open findings), as the inventory's
    /// `has_pii` filter says: an item without `matched_reason` carries no
    /// count. Absent where the plan has no detection.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub has_pii: Option<bool>,
    /// The review history's standing mark; absent when the project is not marked reviewed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub review: Option<ReviewInput>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct EdgeFunctionInput {
    pub name: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct OwnerInput {
    #[serde(
        default,
        deserialize_with = "sent",
        skip_serializing_if = "Option::is_none"
    )]
    pub display_name: Option<Option<String>>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct ReasonInput {
    pub id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub detail: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub category: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub review_priority: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct MatchedReasonInput {
    pub id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub review_priority: Option<String>,
    /// The counts the service sent (`open_pii_finding_count`, `secret_count`, …).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub values: Option<std::collections::BTreeMap<String, i64>>,
}

/// A project's standing review mark.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ReviewInput {
    /// When it was marked, RFC 3339 UTC.
    pub marked_at: String,
    /// Who marked it; absent when the mark is older than the record of reviewers.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reviewer: Option<String>,
    /// Whether the project changed since the reviewed state; absent when not known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub changed_since_review: Option<bool>,
    /// What changed, by field name (`name`, `visibility`, …); empty when unchanged.
    pub changed_fields: Vec<String>,
}

/// One member: what the member list and the role-filtered lists said (and,
/// from a snapshot, the name when it was read).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct MemberInput {
    pub user_id: String,
    #[serde(rename = "type")]
    pub kind: String,
    /// `owner`, `admin`, `member`, `viewer`, `collaborator`; absent when not known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub role: Option<String>,
    /// The display name; absent when not read, `null` when the member has none.
    #[serde(
        default,
        deserialize_with = "sent",
        skip_serializing_if = "Option::is_none"
    )]
    pub name: Option<Option<String>>,
}

/// The document's JSON Schema, generated from these types.
pub fn schema() -> serde_json::Value {
    let schema = schemars::schema_for!(PolicyInput);
    serde_json::to_value(&schema).unwrap_or_default()
}

/// The schema as published in the repository (`docs/policy-input.schema.json`).
pub fn schema_text() -> String {
    let mut text = serde_json::to_string_pretty(&schema()).unwrap_or_default();
    text.push('\n');
    text
}
