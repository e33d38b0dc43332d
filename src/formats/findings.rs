//! What a project's reviews find, as every list of them shows it: personal
//! data, security scans and their findings, and the insights' finding types.
//! `vantage pii|scans|insights` write their tables from these declarations.

use super::row::{Field, Row, when};
use crate::api::model::{FindingType, PiiFinding, ScanFinding, SecurityScan};

impl Row for PiiFinding {
    const FIELDS: &'static [Field<Self>] = &[
        Field::fixed("ID", |finding| finding.id.clone()),
        Field::fixed("FOUND AT", |finding| when(Some(finding.found_at))),
        Field::fixed("SOURCE", |finding| finding.source.to_string()),
        Field::fixed("STATUS", |finding| finding.status.to_string()),
        Field::text("QUOTE", 10, |finding| finding.quote.clone()),
    ];
}

impl Row for FindingType {
    const FIELDS: &'static [Field<Self>] = &[
        Field::fixed("PRIORITY", |finding| finding.review_priority.to_string()),
        Field::fixed("FINDING", |finding| finding.id.clone()),
        Field::fixed("CATEGORY", |finding| finding.category.clone()),
        Field::number("PROJECTS", |finding| finding.project_count.to_string()),
        Field::text("TITLE", 10, |finding| finding.title.clone()),
    ];
}

impl Row for SecurityScan {
    const FIELDS: &'static [Field<Self>] = &[
        Field::fixed("ID", |scan| scan.id.clone()),
        Field::fixed("STATUS", |scan| scan.status.to_string()),
        Field::fixed("COMMIT", |scan| {
            let sha = scan.commit_sha.as_deref().unwrap_or_default();
            sha.chars().take(12).collect()
        }),
        Field::fixed("STARTED", |scan| when(scan.started_at)),
        Field::fixed("FINISHED", |scan| when(scan.finished_at)),
        Field::text("SCANNERS", 10, |scan| scan.requested_scanners.join(", ")),
    ];
}

impl Row for ScanFinding {
    const FIELDS: &'static [Field<Self>] = &[
        Field::fixed("ID", |finding| finding.id.clone()),
        Field::fixed("LEVEL", |finding| finding.level.to_string()),
        Field::fixed("STATUS", |finding| finding.status.to_string()),
        Field::fixed("CATEGORY", |finding| finding.category.clone()),
        Field::fixed("SCANNER", |finding| finding.scanner_name.clone()),
        Field::text("NAME", 12, |finding| finding.name.clone()),
        Field::fixed("UPDATED", |finding| when(Some(finding.updated_at))),
    ];
}
