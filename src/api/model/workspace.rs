//! Shapes the contract leaves "not shown" and the real service's public
//! reference settles (DESIGN.md, "What the real service publishes"): the
//! workspaces a credential reaches, a workspace's project listing, and the
//! answer of `PATCH /publish`.

use serde::{Deserialize, Serialize};
use time::OffsetDateTime;

use super::{AudienceTarget, PublishAudience, rfc3339};
use crate::open_enum;

open_enum! {
    /// A workspace's plan, as `GET /v1/workspaces` shows it.
    pub enum WorkspacePlan {
        Free => "free",
        Pro => "pro",
        Business => "business",
        Enterprise => "enterprise",
    }
}

/// Item of `GET /v1/workspaces`, and the answer of `GET /v1/workspaces/{id}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Workspace {
    pub id: String,
    #[serde(default)]
    pub name: Option<String>,
    #[serde(default)]
    pub description: Option<String>,
    #[serde(default)]
    pub image_url: Option<String>,
    #[serde(default)]
    pub plan: Option<WorkspacePlan>,
    #[serde(default)]
    pub num_projects: Option<i64>,
    #[serde(default, with = "rfc3339::option")]
    pub created_at: Option<OffsetDateTime>,
    #[serde(default, with = "rfc3339::option")]
    pub updated_at: Option<OffsetDateTime>,
}

/// The most workspaces one `GET /v1/projects` may name (the reference's limit).
pub const MAX_LISTED_WORKSPACES: usize = 10;

/// Answer of `PATCH /v1/projects/{id}/publish`: the resolved settings, not the
/// project. Targets are listed only for the `custom` audience.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AudienceSettings {
    #[serde(default)]
    pub audience: Option<PublishAudience>,
    #[serde(default)]
    pub audience_targets: Vec<AudienceTarget>,
}

/// `group:ID` or `user:ID`: one target of a custom audience, as the commands
/// and the dashboard take it.
pub fn parse_audience_target(raw: &str) -> Result<AudienceTarget, String> {
    match raw.trim().split_once(':') {
        Some((kind @ ("group" | "user"), id)) if !id.trim().is_empty() => Ok(AudienceTarget {
            id: id.trim().to_owned(),
            kind: kind.to_owned(),
        }),
        _ => Err(format!("{raw:?}: expected group:ID or user:ID")),
    }
}
