//! Shapes of the security-scan operations. The contract names them without
//! detail; the fields and the 404 type follow the real service's public API
//! reference (DESIGN.md, "What the real service publishes"). Scan status,
//! finding level and finding status are open enums: the reference shows one
//! value of each (`completed`, `error`, `open`), the others are our choice.

use serde::{Deserialize, Serialize};
use time::OffsetDateTime;

use super::rfc3339;
use crate::open_enum;

open_enum! {
    /// Where a scan stands.
    pub enum ScanStatus {
        Running => "running",
        Completed => "completed",
        Failed => "failed",
    }
}

open_enum! {
    /// How serious a finding is; the inventory's `error_count`,
    /// `warning_count` and `info_count` count the open ones.
    pub enum FindingLevel {
        Error => "error",
        Warn => "warn",
        Info => "info",
    }
}

open_enum! {
    /// State of a scan finding; the findings list includes every state.
    pub enum FindingStatus {
        Open => "open",
        Ignored => "ignored",
        Fixed => "fixed",
    }
}

/// The category of findings that expose a secret: the inventory's
/// `secret_count` counts the open ones (and they count in no level).
pub const SECRET_CATEGORY: &str = "secrets";

/// Metadata of a security scan (an item of the scans list, too).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SecurityScan {
    pub id: String,
    pub status: ScanStatus,
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
    pub level: FindingLevel,
    pub name: String,
    #[serde(default)]
    pub description: Option<String>,
    pub scanner_name: String,
    pub status: FindingStatus,
    #[serde(with = "rfc3339")]
    pub created_at: OffsetDateTime,
    #[serde(with = "rfc3339")]
    pub updated_at: OffsetDateTime,
}

/// Which of a scan's findings a list keeps: the levels and the statuses
/// (empty: any) and a search. The service has no such parameters, so
/// `vantage scans findings`, the dashboard's findings and their `ctrl-s`
/// export all read every page and keep what this one rule keeps.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FindingsFilter {
    pub levels: Vec<FindingLevel>,
    pub statuses: Vec<FindingStatus>,
    /// Words that must all be in a finding's name, category, scanner or id,
    /// in any case; empty: none.
    pub search: String,
}

impl FindingsFilter {
    /// Whether `finding` passes the levels, the statuses and the search.
    pub fn keeps(&self, finding: &ScanFinding) -> bool {
        (self.levels.is_empty() || self.levels.contains(&finding.level))
            && (self.statuses.is_empty() || self.statuses.contains(&finding.status))
            && self.matches_search(finding)
    }

    /// Whether `finding` holds every word of the search.
    pub fn matches_search(&self, finding: &ScanFinding) -> bool {
        let haystack = format!(
            "{} {} {} {}",
            finding.name, finding.category, finding.scanner_name, finding.id
        )
        .to_lowercase();
        self.search
            .to_lowercase()
            .split_whitespace()
            .all(|word| haystack.contains(word))
    }

    /// Whether it keeps every finding.
    pub fn is_empty(&self) -> bool {
        self.levels.is_empty() && self.statuses.is_empty() && self.search.trim().is_empty()
    }
}

/// What the open findings of one scan add up to, as the inventory's
/// `matched_reason.values` count them.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct OpenFindingCounts {
    pub error_count: i64,
    pub warning_count: i64,
    pub info_count: i64,
    pub secret_count: i64,
}

impl OpenFindingCounts {
    pub fn of<'a>(findings: impl IntoIterator<Item = &'a ScanFinding>) -> Self {
        let mut counts = Self::default();
        for finding in findings {
            if finding.status != FindingStatus::Open {
                continue;
            }
            if finding.category == SECRET_CATEGORY {
                counts.secret_count += 1;
                continue;
            }
            match finding.level {
                FindingLevel::Error => counts.error_count += 1,
                FindingLevel::Warn => counts.warning_count += 1,
                FindingLevel::Info => counts.info_count += 1,
                FindingLevel::Unknown(_) => {}
            }
        }
        counts
    }
}
