//! Findings for machines: OCSF Detection Findings (`ocsf`) and DefectDojo's Generic Findings
//! Import (`defectdojo`).
//!
//! Both formats write the same findings, listed once here ([`findings`]): one per finding
//! type that the service applies to a project (the inventory's explanation), one per finding
//! of the project's latest scan, and one per personal-data finding. Severity and status are
//! decided here too, so that a SIEM and DefectDojo never disagree about one finding.

pub mod defectdojo;
pub mod ocsf;

use std::collections::HashMap;

use serde::Serialize;
use sha2::{Digest, Sha256};
use time::OffsetDateTime;

use crate::api::model::{
    FindingLevel, FindingStatus, FindingType, InventoryItem, PiiFinding, PiiStatus, ReviewPriority,
    ScanFinding,
};
use crate::report::gather::{Part, ReportData};

/// What the machine formats read: the workspace's projects as the inventory lists them, with
/// what was read of each. It borrows the report's gathered data ([`Feed::of_report`]).
#[derive(Debug, Clone)]
pub struct Feed<'a> {
    pub workspace_id: &'a str,
    /// When the service was read (the inventory's walk).
    pub read_at: OffsetDateTime,
    /// The insights' finding types: their titles and descriptions. Empty when not read.
    pub finding_types: &'a [FindingType],
    pub projects: Vec<ProjectEvidence<'a>>,
}

/// One project and its evidence.
#[derive(Debug, Clone)]
pub struct ProjectEvidence<'a> {
    pub item: &'a InventoryItem,
    /// The newest scan's findings; `None` when the project has no scan or it was not read.
    pub scan_findings: Option<&'a [ScanFinding]>,
    /// Personal-data findings; `None` where detection is off or the list was not read.
    pub personal_data: Option<&'a [PiiFinding]>,
}

impl<'a> Feed<'a> {
    /// The feed of a gathered report: every project of the inventory, with the scans and
    /// personal data that were read in detail.
    pub fn of_report(data: &'a ReportData) -> Self {
        let scans: HashMap<&str, &[ScanFinding]> = data
            .live
            .scans
            .value()
            .map(|details| {
                details
                    .read
                    .iter()
                    .filter(|scan| scan.scan.is_some())
                    .map(|scan| (scan.project_id.as_str(), scan.findings.as_slice()))
                    .collect()
            })
            .unwrap_or_default();
        let personal_data: HashMap<&str, &[PiiFinding]> = data
            .live
            .pii
            .value()
            .map(|details| {
                details
                    .read
                    .iter()
                    .map(|pii| (pii.project_id.as_str(), pii.findings.as_slice()))
                    .collect()
            })
            .unwrap_or_default();
        let (items, read_at) = match &data.live.inventory {
            Part::Present { source, value } => (value.items.as_slice(), source.read_at),
            Part::Missing { .. } => (&[][..], data.live.header.generated_at),
        };
        Self {
            workspace_id: &data.live.header.workspace_id,
            read_at,
            finding_types: data.finding_types(),
            projects: items
                .iter()
                .map(|item| ProjectEvidence {
                    item,
                    scan_findings: scans.get(item.id.as_str()).copied(),
                    personal_data: personal_data.get(item.id.as_str()).copied(),
                })
                .collect(),
        }
    }
}

/// Where a finding comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum FindingKind {
    /// A finding type the service applies to the project (the inventory's explanation).
    FindingType,
    /// A finding of the project's latest security scan.
    ScanFinding,
    /// A personal-data finding.
    PersonalData,
}

impl FindingKind {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::FindingType => "finding_type",
            Self::ScanFinding => "scan_finding",
            Self::PersonalData => "personal_data",
        }
    }
}

/// vantage's severity scale: OCSF's, which DefectDojo's five names map onto.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Severity {
    Unknown,
    Informational,
    Low,
    Medium,
    High,
    Critical,
}

/// A finding's state, as the service said it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Status {
    Open,
    /// `ignored`: a person decided to leave it.
    Ignored,
    Fixed,
    /// A status this build does not know, kept as sent.
    Other(String),
}

impl Status {
    fn of_scan(status: &FindingStatus) -> Self {
        match status {
            FindingStatus::Open => Self::Open,
            FindingStatus::Ignored => Self::Ignored,
            FindingStatus::Fixed => Self::Fixed,
            FindingStatus::Unknown(raw) => Self::Other(raw.clone()),
        }
    }

    fn of_personal_data(status: &PiiStatus) -> Self {
        match status {
            PiiStatus::Open => Self::Open,
            PiiStatus::Ignored => Self::Ignored,
            PiiStatus::Fixed => Self::Fixed,
            PiiStatus::Unknown(raw) => Self::Other(raw.clone()),
        }
    }
}

/// One finding, in the terms both formats need.
#[derive(Debug, Clone)]
pub struct Finding<'a> {
    pub kind: FindingKind,
    /// Stable across runs and re-imports: a digest of the workspace, project, kind and the
    /// service's own id for the finding (see [`stable_id`]).
    pub uid: String,
    /// The rule that found it: a finding type's id, a scan finding's name, `personal_data`.
    pub rule: String,
    pub title: String,
    pub description: String,
    /// The finding's category as the service names it.
    pub category: String,
    /// Who found it: the scanner, `insights` or the personal-data source.
    pub source: String,
    pub severity: Severity,
    /// Why the severity is what it is, when vantage rated it rather than the service.
    pub severity_reason: Option<&'static str>,
    pub status: Status,
    pub created_at: Option<OffsetDateTime>,
    pub updated_at: Option<OffsetDateTime>,
    pub project: &'a InventoryItem,
}

/// Why a finding type's severity is what it is.
const FROM_PRIORITY: &str = "rated from the service's review priority for this finding type \
     (needs_review: High, review_recommended: Medium, no_review_needed: Informational)";
/// The service gives personal-data findings no severity; vantage rates an open one Medium.
const PERSONAL_DATA_RATED: &str = "the service gives personal-data findings no severity; vantage \
     rates them Medium";

/// A finding type's severity: the service's review priority for it.
pub fn severity_of_priority(priority: &ReviewPriority) -> Severity {
    match priority {
        ReviewPriority::NeedsReview => Severity::High,
        ReviewPriority::ReviewRecommended => Severity::Medium,
        ReviewPriority::NoReviewNeeded => Severity::Informational,
        _ => Severity::Unknown,
    }
}

/// A scan finding's severity: its level as the service sent it.
pub fn severity_of_level(level: &FindingLevel) -> Severity {
    match level {
        FindingLevel::Error => Severity::High,
        FindingLevel::Warn => Severity::Medium,
        FindingLevel::Info => Severity::Informational,
        FindingLevel::Unknown(_) => Severity::Unknown,
    }
}

/// A finding's id that stays the same across runs: a SHA-256 over length-prefixed parts, so
/// that no id the service sends can make two findings collide or make an id unbounded.
pub fn stable_id(parts: &[&str]) -> String {
    let mut digest = Sha256::new();
    for part in parts {
        digest.update((part.len() as u64).to_be_bytes());
        digest.update(part.as_bytes());
    }
    format!("vantage-{}", hex::encode(&digest.finalize()[..16]))
}

/// Every finding of the feed, project by project, in the inventory's order.
pub fn findings<'a>(feed: &Feed<'a>) -> Vec<Finding<'a>> {
    let mut out = Vec::new();
    for project in &feed.projects {
        let item = project.item;
        for reason in &item.review_priority_explanation {
            let known = feed.finding_types.iter().find(|kind| kind.id == reason.id);
            let title = known.map_or(reason.label.clone(), |kind| kind.title.clone());
            let description = match known {
                Some(kind) if !kind.description.is_empty() => {
                    format!("{}\n\n{}", kind.description, reason.detail)
                }
                _ => reason.detail.clone(),
            };
            out.push(Finding {
                kind: FindingKind::FindingType,
                uid: stable_id(&[feed.workspace_id, &item.id, "finding_type", &reason.id]),
                rule: reason.id.clone(),
                title,
                description,
                category: reason.category.clone(),
                source: "insights".to_owned(),
                severity: severity_of_priority(&reason.review_priority),
                severity_reason: Some(FROM_PRIORITY),
                status: Status::Open,
                created_at: None,
                updated_at: Some(feed.read_at),
                project: item,
            });
        }
        if let Some(scan_findings) = project.scan_findings {
            for finding in scan_findings {
                out.push(Finding {
                    kind: FindingKind::ScanFinding,
                    uid: stable_id(&[feed.workspace_id, &item.id, "scan_finding", &finding.id]),
                    rule: finding.name.clone(),
                    title: finding.name.clone(),
                    description: finding.description.clone().unwrap_or_default(),
                    category: finding.category.clone(),
                    source: finding.scanner_name.clone(),
                    severity: severity_of_level(&finding.level),
                    severity_reason: None,
                    status: Status::of_scan(&finding.status),
                    created_at: Some(finding.created_at),
                    updated_at: Some(finding.updated_at),
                    project: item,
                });
            }
        }
        for finding in project.personal_data.into_iter().flatten() {
            out.push(Finding {
                kind: FindingKind::PersonalData,
                uid: stable_id(&[feed.workspace_id, &item.id, "personal_data", &finding.id]),
                rule: "personal_data".to_owned(),
                title: format!("Personal data in {}", finding.source.as_str()),
                description: format!("Matched text: {}", finding.quote),
                category: "personal_data".to_owned(),
                source: finding.source.as_str().to_owned(),
                severity: Severity::Medium,
                severity_reason: Some(PERSONAL_DATA_RATED),
                status: Status::of_personal_data(&finding.status),
                created_at: Some(finding.found_at),
                updated_at: Some(finding.found_at),
                project: item,
            });
        }
    }
    out
}

/// A project's name for a person: its name, or its id when it has none.
fn project_label(item: &InventoryItem) -> &str {
    item.name
        .as_deref()
        .filter(|name| !name.is_empty())
        .unwrap_or(&item.id)
}
