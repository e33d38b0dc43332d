//! Shapes of the security-scan operations, which the contract names without
//! detail; chosen in DESIGN.md.

use serde::{Deserialize, Serialize};
use time::OffsetDateTime;

use super::rfc3339;

/// Metadata of a security scan.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SecurityScan {
    pub id: String,
    pub status: String,
    #[serde(default)]
    pub commit_sha: Option<String>,
    #[serde(default, with = "rfc3339::option")]
    pub started_at: Option<OffsetDateTime>,
    #[serde(default, with = "rfc3339::option")]
    pub finished_at: Option<OffsetDateTime>,
    #[serde(default)]
    pub requested_scanners: Vec<String>,
}

/// Item of a scan's findings list.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ScanFinding {
    pub id: String,
    pub category: String,
    pub level: String,
    pub name: String,
    #[serde(default)]
    pub description: Option<String>,
    pub scanner_name: String,
    pub status: String,
    #[serde(with = "rfc3339")]
    pub created_at: OffsetDateTime,
    #[serde(with = "rfc3339")]
    pub updated_at: OffsetDateTime,
}
