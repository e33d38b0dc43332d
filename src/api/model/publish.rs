//! Shapes of the publish operations, which the contract names without detail.
//! They follow the vendor's public docs, as DESIGN.md records.

use serde::{Deserialize, Serialize};
use time::OffsetDateTime;

use super::{AudienceTarget, PublishAudience, rfc3339};
use crate::open_enum;

open_enum! {
    /// Status of a deployment.
    pub enum DeploymentStatus {
        Running => "running",
        Completed => "completed",
        Error => "error",
    }
}

impl DeploymentStatus {
    /// Whether polling can stop.
    pub fn is_terminal(&self) -> bool {
        matches!(self, Self::Completed | Self::Error)
    }
}

open_enum! {
    /// Why a deployment failed.
    pub enum DeploymentErrorClass {
        Transient => "transient",
        Code => "code",
        Configuration => "configuration",
        Data => "data",
        Integration => "integration",
        Policy => "policy",
        Internal => "internal",
    }
}

/// Response of `POST /publish` and `GET /publish/{deployment_id}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Deployment {
    pub id: String,
    pub status: DeploymentStatus,
    #[serde(default)]
    pub url: Option<String>,
    #[serde(default)]
    pub error_class: Option<DeploymentErrorClass>,
    #[serde(default)]
    pub error_message: Option<String>,
}

/// Optional body of `POST /publish`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct PublishRequest {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub audience: Option<PublishAudience>,
}

/// Body of `PATCH /publish`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PublishSettings {
    pub audience: PublishAudience,
    #[serde(default)]
    pub audience_targets: Vec<AudienceTarget>,
}

/// Body of `POST /embed-url`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct EmbedUrlRequest {
    pub parent_origin: String,
}

/// Response of `POST /embed-url`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct EmbedUrl {
    pub embed_url: String,
    #[serde(with = "rfc3339")]
    pub expires_at: OffsetDateTime,
}
