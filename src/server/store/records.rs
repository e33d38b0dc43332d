//! What the store holds. These are also the fixture format (see README).

mod project;

pub use project::ProjectRec;

use serde::{Deserialize, Serialize};
use time::OffsetDateTime;

use crate::api::model::{
    DeploymentErrorClass, PiiFinding, PublishAudience, Reason, ReasonValues, ReviewPriority, Role,
    ScanFinding, SecurityScan, rfc3339,
};
use crate::server::auth::{Feature, Plan, Scope};

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct WorkspaceRec {
    pub id: String,
    pub name: String,
    /// Shown by `GET /v1/workspaces` (DESIGN.md: beyond the contract).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub image_url: Option<String>,
    pub plan: Plan,
    #[serde(default)]
    pub features: Vec<Feature>,
    #[serde(with = "rfc3339")]
    pub created_at: OffsetDateTime,
    /// Last change of the workspace's own settings; `created_at` when none.
    #[serde(
        default,
        with = "rfc3339::option",
        skip_serializing_if = "Option::is_none"
    )]
    pub updated_at: Option<OffsetDateTime>,
    /// Workspace-wide counts 30 days ago, for the insights `delta_30d`.
    #[serde(default)]
    pub baseline_30d: Baseline,
    /// Freshness of review-priority data (`as_of`).
    #[serde(default, with = "rfc3339::option")]
    pub as_of: Option<OffsetDateTime>,
    #[serde(default, with = "rfc3339::option")]
    pub edits_as_of: Option<OffsetDateTime>,
    #[serde(default, with = "rfc3339::option")]
    pub visitors_as_of: Option<OffsetDateTime>,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct Baseline {
    pub total_projects: i64,
    pub externally_published: i64,
    pub workspace_members: i64,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct UserRec {
    /// Public user UUID.
    pub id: String,
    #[serde(default)]
    pub email: Option<String>,
    #[serde(default)]
    pub username: Option<String>,
}

/// Status of a membership; only `active` is readable through the API.
pub const MEMBERSHIP_ACTIVE: &str = "active";

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct MembershipRec {
    pub id: String,
    pub workspace_id: String,
    pub user_id: String,
    pub role: Role,
    /// `active`, `pending` (an invitation) or another non-active state.
    pub status: String,
    /// Display name in this workspace.
    #[serde(default)]
    pub display_name: Option<String>,
    #[serde(default, with = "rfc3339::option")]
    pub joined_at: Option<OffsetDateTime>,
    #[serde(default, with = "rfc3339::option")]
    pub invited_at: Option<OffsetDateTime>,
    #[serde(default)]
    pub scim_managed: bool,
}

impl MembershipRec {
    pub fn is_active(&self) -> bool {
        self.status == MEMBERSHIP_ACTIVE
    }
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct KeyRec {
    pub id: String,
    pub label: String,
    /// Hex SHA-256 of the key; the key itself is never stored.
    pub key_hash: String,
    pub workspace_id: String,
    pub scopes: Vec<Scope>,
}

/// Editor and visitor activity counts of a project.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(default)]
pub struct Activity {
    pub edit_count: i64,
    pub message_count: i64,
    pub edits_24h: i64,
    pub edits_7d: i64,
    pub edits_30d: i64,
    pub visitors_24h: i64,
    pub visitors_7d: i64,
    pub visitors_30d: i64,
}

/// What the security center knows of a project.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(default)]
pub struct SecurityProfile {
    pub connectors: Vec<String>,
    pub edge_functions: Vec<String>,
    #[serde(with = "rfc3339::option")]
    pub last_security_scan_at: Option<OffsetDateTime>,
    pub review_priority: ReviewPriority,
    /// Ties of the `review_priority` sort break by this score.
    pub risk_score: i64,
    pub explanation: Vec<Reason>,
    pub values: ReasonValues,
    /// Finding types this project appears under.
    pub finding_type_ids: Vec<String>,
    pub external_collaborators: i64,
}

impl Default for SecurityProfile {
    fn default() -> Self {
        Self {
            connectors: Vec::new(),
            edge_functions: Vec::new(),
            last_security_scan_at: None,
            review_priority: ReviewPriority::Unscored,
            risk_score: 0,
            explanation: Vec::new(),
            values: ReasonValues::default(),
            finding_type_ids: Vec::new(),
            external_collaborators: 0,
        }
    }
}

/// Parameters of the synthetic visitor analytics of a published project.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct AnalyticsProfile {
    /// Days of analytics kept: 90 for some projects, 365 otherwise.
    pub retention_days: u32,
    /// Typical visitors per day.
    pub daily_visitors: u32,
}

/// What a project's reads need from other records, worked out once when the
/// store loads instead of on every request. PII findings and memberships do
/// not change through the API, so these stay true until the next load.
#[derive(Debug, Clone, Default)]
pub struct Derived {
    /// Open personal-data findings.
    pub open_pii: i64,
    /// The owner's display name in the project's workspace (an active
    /// membership wins over another of the same user).
    pub owner_name: Option<String>,
    /// `owner_name` case-folded, as text search compares it.
    pub owner_name_folded: Option<String>,
    /// The project's own name case-folded; kept current on every write.
    pub name_folded: Option<String>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(tag = "result", rename_all = "snake_case")]
pub enum DeploymentOutcome {
    Success {
        url: String,
    },
    Failure {
        error_class: DeploymentErrorClass,
        error_message: String,
    },
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct DeploymentRec {
    pub id: String,
    pub project_id: String,
    #[serde(with = "rfc3339")]
    pub created_at: OffsetDateTime,
    /// When the deployment reaches its outcome.
    #[serde(with = "rfc3339")]
    pub completes_at: OffsetDateTime,
    #[serde(default)]
    pub audience: Option<PublishAudience>,
    pub outcome: DeploymentOutcome,
    /// Whether the outcome has been applied to the project.
    #[serde(default)]
    pub settled: bool,
}

/// A personal-data finding of a project: the wire's finding.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct PiiRec {
    pub project_id: String,
    #[serde(flatten)]
    pub finding: PiiFinding,
}

/// A scan of a project: the wire's metadata, and its findings.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ScanRec {
    pub project_id: String,
    #[serde(flatten)]
    pub scan: SecurityScan,
    #[serde(default)]
    pub findings: Vec<ScanFinding>,
}

/// A key as a fixture gives it: in plain text, hashed when stored.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct FixtureKey {
    pub label: String,
    pub key: String,
    pub workspace_id: String,
    pub scopes: Vec<Scope>,
}

/// A whole data set: the `--fixture` file format, and what the generator makes.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Fixture {
    pub workspaces: Vec<WorkspaceRec>,
    pub users: Vec<UserRec>,
    pub memberships: Vec<MembershipRec>,
    pub keys: Vec<FixtureKey>,
    pub projects: Vec<ProjectRec>,
    pub pii_findings: Vec<PiiRec>,
    pub scans: Vec<ScanRec>,
}
