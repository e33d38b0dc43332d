//! Credentials, scopes, plans and features.

use axum::http::HeaderMap;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use subtle::ConstantTimeEq;

use super::errors::HttpError;

/// An API key scope.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Scope {
    #[serde(rename = "projects:read")]
    ProjectsRead,
    #[serde(rename = "projects:write")]
    ProjectsWrite,
    #[serde(rename = "workspaces:read")]
    WorkspacesRead,
    #[serde(rename = "workspaces:write")]
    WorkspacesWrite,
}

impl Scope {
    pub const ALL: [Scope; 4] = [
        Scope::ProjectsRead,
        Scope::ProjectsWrite,
        Scope::WorkspacesRead,
        Scope::WorkspacesWrite,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Scope::ProjectsRead => "projects:read",
            Scope::ProjectsWrite => "projects:write",
            Scope::WorkspacesRead => "workspaces:read",
            Scope::WorkspacesWrite => "workspaces:write",
        }
    }

    /// Scopes that satisfy a requirement for `self`: a write scope includes the
    /// matching read scope, and nothing carries across families.
    pub fn satisfied_by(self) -> &'static [Scope] {
        match self {
            Scope::ProjectsRead => &[Scope::ProjectsRead, Scope::ProjectsWrite],
            Scope::ProjectsWrite => &[Scope::ProjectsWrite],
            Scope::WorkspacesRead => &[Scope::WorkspacesRead, Scope::WorkspacesWrite],
            Scope::WorkspacesWrite => &[Scope::WorkspacesWrite],
        }
    }
}

/// A workspace plan, in ascending order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Plan {
    Pro,
    Business,
    Enterprise,
}

impl Plan {
    pub fn as_str(self) -> &'static str {
        match self {
            Plan::Pro => "pro",
            Plan::Business => "business",
            Plan::Enterprise => "enterprise",
        }
    }
}

/// A workspace feature entitlement.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Feature {
    SecurityCenter,
    PiiDetection,
    Trash,
}

impl Feature {
    pub fn as_str(self) -> &'static str {
        match self {
            Feature::SecurityCenter => "security_center",
            Feature::PiiDetection => "pii_detection",
            Feature::Trash => "trash",
        }
    }
}

/// Who is calling: the key's workspace and what it may do.
#[derive(Debug, Clone)]
pub struct Principal {
    pub key_id: String,
    pub workspace_id: String,
    pub plan: Plan,
    pub features: Vec<Feature>,
    pub scopes: Vec<Scope>,
}

impl Principal {
    pub fn has_feature(&self, feature: Feature) -> bool {
        self.features.contains(&feature)
    }

    /// 403 `insufficient_scope` unless one acceptable scope is held.
    pub fn require_scope(&self, needed: Scope) -> Result<(), HttpError> {
        let acceptable = needed.satisfied_by();
        if acceptable.iter().any(|scope| self.scopes.contains(scope)) {
            Ok(())
        } else {
            let names: Vec<&str> = acceptable.iter().map(|scope| scope.as_str()).collect();
            Err(HttpError::insufficient_scope(&names))
        }
    }

    /// 402 `payment_required` with `required_plan` below `needed`.
    pub fn require_plan(&self, needed: Plan) -> Result<(), HttpError> {
        if self.plan >= needed {
            Ok(())
        } else {
            Err(HttpError::plan_required(needed.as_str()))
        }
    }

    /// 402 `payment_required` with `required_features` when one is missing.
    pub fn require_features(&self, needed: &[Feature]) -> Result<(), HttpError> {
        if needed.iter().all(|feature| self.has_feature(*feature)) {
            Ok(())
        } else {
            let names: Vec<&str> = needed.iter().map(|feature| feature.as_str()).collect();
            Err(HttpError::features_required(&names))
        }
    }
}

/// SHA-256 of a key: what the store keeps instead of the key.
pub fn hash_key(key: &str) -> [u8; 32] {
    Sha256::digest(key.as_bytes()).into()
}

/// Compares two key hashes without an early exit.
pub fn hashes_match(a: &[u8; 32], b: &[u8; 32]) -> bool {
    a.ct_eq(b).into()
}

/// The presented credential: `Service-API-Key`, else `Authorization: Bearer`.
pub fn presented_credential(headers: &HeaderMap) -> Result<String, HttpError> {
    if let Some(value) = headers.get("service-api-key") {
        return value
            .to_str()
            .ok()
            .map(str::trim)
            .filter(|key| !key.is_empty())
            .map(str::to_owned)
            .ok_or_else(|| {
                HttpError::unauthorized("the Service-API-Key header is empty or not text")
            });
    }
    if let Some(value) = headers.get(axum::http::header::AUTHORIZATION) {
        let text = value.to_str().unwrap_or_default().trim();
        let (scheme, token) = text.split_once(' ').unwrap_or((text, ""));
        if !scheme.eq_ignore_ascii_case("bearer") {
            return Err(HttpError::unauthorized(
                "the Authorization header must use the Bearer scheme",
            ));
        }
        let token = token.trim();
        if token.is_empty() {
            return Err(HttpError::unauthorized("the Bearer token is empty"));
        }
        return Ok(token.to_owned());
    }
    Err(HttpError::unauthorized(
        "send an API key in the Service-API-Key header or as Authorization: Bearer <key>",
    ))
}
