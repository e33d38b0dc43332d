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
    /// Whether polling can stop: only `running` is worth another poll. A
    /// status vantage does not know (`cancelled`) may never change, so it
    /// ends a wait too (`projects publish --wait` and the dashboard alike).
    pub fn is_terminal(&self) -> bool {
        !matches!(self, Self::Running)
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

/// Why a parent origin cannot be sent to `POST /embed-url`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum OriginError {
    #[error("the parent origin must start with https://")]
    NotHttps,
    #[error("the parent origin is only scheme, host and port: no path, query or fragment")]
    HasPath,
    #[error("the host must be letters, digits and hyphens, in dot-separated labels")]
    BadHost,
    #[error("the port must be a number from 1 to 65535")]
    BadPort,
}

/// The embed URL's parent: one exact https origin (scheme, host, optional
/// port; no path), as the reference asks (DESIGN.md). Checked by the server,
/// the commands and the dashboard alike.
pub fn validate_parent_origin(origin: &str) -> Result<(), OriginError> {
    let rest = origin
        .strip_prefix("https://")
        .ok_or(OriginError::NotHttps)?;
    if rest.contains(['/', '?', '#']) {
        return Err(OriginError::HasPath);
    }
    let (host, port) = match rest.rsplit_once(':') {
        Some((host, port)) => (host, Some(port)),
        None => (rest, None),
    };
    let host_ok = !host.is_empty()
        && host.split('.').all(|label| {
            !label.is_empty() && label.chars().all(|c| c.is_ascii_alphanumeric() || c == '-')
        });
    if !host_ok {
        return Err(OriginError::BadHost);
    }
    if port.is_some_and(|p| p.parse::<u16>().is_ok_and(|p| p > 0)) || port.is_none() {
        Ok(())
    } else {
        Err(OriginError::BadPort)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parent_origins() {
        assert_eq!(validate_parent_origin("https://example.com"), Ok(()));
        assert_eq!(
            validate_parent_origin("https://a-b.example.com:8443"),
            Ok(())
        );
        assert_eq!(
            validate_parent_origin("http://example.com"),
            Err(OriginError::NotHttps)
        );
        assert_eq!(
            validate_parent_origin("https://example.com/app"),
            Err(OriginError::HasPath)
        );
        assert_eq!(
            validate_parent_origin("https://exa mple.com"),
            Err(OriginError::BadHost)
        );
        assert_eq!(
            validate_parent_origin("https://example.com:0"),
            Err(OriginError::BadPort)
        );
    }
}
