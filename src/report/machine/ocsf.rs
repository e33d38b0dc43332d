//! OCSF 1.x *Detection Finding* records (class 2004), one JSON object a line.
//!
//! Each finding becomes a `Create` activity of category Findings; the project is the
//! affected resource, vantage the product, the workspace the tenant. Times are milliseconds
//! since the epoch, as OCSF's `timestamp_t` is. The record's fields follow the schema of
//! [`SCHEMA_VERSION`]; the tests validate every record against that schema's own files.

use std::io::{self, Write};

use serde::Serialize;
use time::OffsetDateTime;

use super::{Feed, Finding, FindingKind, Severity, Status, findings, project_label};
use crate::build_info;

/// The OCSF schema version the records follow.
pub const SCHEMA_VERSION: &str = "1.8.0";

/// Findings (category 2) × 1000 + Detection Finding (4).
const CLASS_UID: u32 = 2004;
const CATEGORY_UID: u32 = 2;
/// Activity `Create`: the finding as it stands when read.
const ACTIVITY_CREATE: u32 = 1;

#[derive(Serialize)]
struct Record<'a> {
    activity_id: u32,
    activity_name: &'static str,
    category_uid: u32,
    category_name: &'static str,
    class_uid: u32,
    class_name: &'static str,
    type_uid: u64,
    type_name: &'static str,
    severity_id: u8,
    severity: &'static str,
    status_id: u8,
    status: &'a str,
    time: i64,
    message: &'a str,
    is_alert: bool,
    metadata: Metadata<'a>,
    finding_info: FindingInfo<'a>,
    resources: [Resource<'a>; 1],
}

#[derive(Serialize)]
struct Metadata<'a> {
    version: &'static str,
    product: Product,
    tenant_uid: &'a str,
    /// The record's own id: the finding's, so a consumer can deduplicate.
    uid: &'a str,
}

#[derive(Serialize)]
struct Product {
    name: &'static str,
    vendor_name: &'static str,
    version: &'static str,
}

#[derive(Serialize)]
struct FindingInfo<'a> {
    uid: &'a str,
    title: &'a str,
    desc: &'a str,
    types: [&'a str; 1],
    #[serde(skip_serializing_if = "Option::is_none")]
    created_time: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    modified_time: Option<i64>,
    analytic: Analytic<'a>,
}

#[derive(Serialize)]
struct Analytic<'a> {
    uid: &'a str,
    name: &'a str,
    /// 1: Rule.
    type_id: u8,
    #[serde(rename = "type")]
    type_name: &'static str,
}

#[derive(Serialize)]
struct Resource<'a> {
    uid: &'a str,
    name: &'a str,
    #[serde(rename = "type")]
    kind: &'static str,
    labels: Vec<String>,
    /// The owner's display name; absent when the service sent none.
    #[serde(skip_serializing_if = "Option::is_none")]
    owner: Option<Owner<'a>>,
}

#[derive(Serialize)]
struct Owner<'a> {
    name: &'a str,
}

/// OCSF's `severity_id` and its caption.
fn severity(severity: Severity) -> (u8, &'static str) {
    match severity {
        Severity::Unknown => (0, "Unknown"),
        Severity::Informational => (1, "Informational"),
        Severity::Low => (2, "Low"),
        Severity::Medium => (3, "Medium"),
        Severity::High => (4, "High"),
        Severity::Critical => (5, "Critical"),
    }
}

/// OCSF's `status_id` and its caption: a status the schema has no caption for is `Other`
/// (99) with the service's word kept as the caption.
fn status(status: &Status) -> (u8, &str) {
    match status {
        Status::Open => (1, "New"),
        Status::Ignored => (3, "Suppressed"),
        Status::Fixed => (4, "Resolved"),
        Status::Other(raw) => (99, raw.as_str()),
    }
}

fn millis(at: OffsetDateTime) -> i64 {
    i64::try_from(at.unix_timestamp_nanos() / 1_000_000).unwrap_or(i64::MAX)
}

fn record<'a>(feed: &'a Feed<'a>, finding: &'a Finding<'a>) -> Record<'a> {
    let (severity_id, severity_name) = severity(finding.severity);
    let (status_id, status_name) = status(&finding.status);
    let item = finding.project;
    let mut labels = vec![format!("review_priority:{}", item.review_priority.as_str())];
    labels.push(format!("published:{}", item.is_published));
    if let Some(audience) = &item.publish_audience {
        labels.push(format!("publish_audience:{}", audience.as_str()));
    }
    if let Some(visibility) = &item.visibility {
        labels.push(format!("visibility:{}", visibility.as_str()));
    }
    Record {
        activity_id: ACTIVITY_CREATE,
        activity_name: "Create",
        category_uid: CATEGORY_UID,
        category_name: "Findings",
        class_uid: CLASS_UID,
        class_name: "Detection Finding",
        type_uid: u64::from(CLASS_UID) * 100 + u64::from(ACTIVITY_CREATE),
        type_name: "Detection Finding: Create",
        severity_id,
        severity: severity_name,
        status_id,
        status: status_name,
        time: millis(finding.updated_at.unwrap_or(feed.read_at)),
        message: &finding.title,
        is_alert: finding.status == Status::Open,
        metadata: Metadata {
            version: SCHEMA_VERSION,
            product: Product {
                name: "vantage",
                vendor_name: "vantage",
                version: build_info::VERSION,
            },
            tenant_uid: feed.workspace_id,
            uid: &finding.uid,
        },
        finding_info: FindingInfo {
            uid: &finding.uid,
            title: &finding.title,
            desc: &finding.description,
            types: [&finding.category],
            created_time: finding.created_at.map(millis),
            modified_time: finding.updated_at.map(millis),
            analytic: Analytic {
                uid: &finding.rule,
                name: match finding.kind {
                    FindingKind::FindingType => &finding.title,
                    _ => &finding.source,
                },
                type_id: 1,
                type_name: "Rule",
            },
        },
        resources: [Resource {
            uid: &item.id,
            name: project_label(item),
            kind: "project",
            labels,
            owner: item
                .owner
                .display_name
                .as_deref()
                .map(|name| Owner { name }),
        }],
    }
}

/// Writes every finding of the feed as one OCSF record a line; returns how many.
pub fn write(feed: &Feed<'_>, out: &mut dyn Write) -> io::Result<usize> {
    let all = findings(feed);
    for finding in &all {
        serde_json::to_writer(&mut *out, &record(feed, finding))?;
        out.write_all(b"\n")?;
    }
    Ok(all.len())
}
