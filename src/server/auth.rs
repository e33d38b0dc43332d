//! Scopes, plans, features, and the caller they make up: plain data, which the
//! store keeps and `access` checks.

use serde::{Deserialize, Serialize};

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
}
