use serde::{Deserialize, Serialize};
use time::OffsetDateTime;

use super::{ReviewPriority, rfc3339};

/// A security finding type (item of insights `findings`, and `applied_finding`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FindingType {
    pub id: String,
    pub title: String,
    pub description: String,
    pub category: String,
    pub review_priority: ReviewPriority,
    pub project_count: i64,
}

/// `{value, delta_30d, delta_window}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Metric {
    pub value: i64,
    pub delta_30d: i64,
    pub delta_window: String,
}

/// `summary.risk`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct RiskCounts {
    pub needs_review: i64,
    pub no_review_needed: i64,
    pub review_recommended: i64,
}

/// `summary` of the insights response; workspace-wide whatever the filter.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct InsightsSummary {
    pub total_projects: Metric,
    pub externally_published: Metric,
    pub workspace_members: Metric,
    pub risk: RiskCounts,
}

/// Response of the workspace security insights operation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Insights {
    #[serde(default, with = "rfc3339::option")]
    pub as_of: Option<OffsetDateTime>,
    pub findings: Vec<FindingType>,
    pub summary: InsightsSummary,
}
