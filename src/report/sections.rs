//! What the people's formats share: the sections' ids and titles, in order,
//! and the words for a reason, a source, a missing part. HTML and Markdown
//! read these, so the two cannot drift apart.

use time::OffsetDateTime;

use super::gather::{AttentionReason, Part, ReportData, SincePick};
use crate::api::model::InventoryItem;

/// One section of the report.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Section {
    /// Its anchor in HTML.
    pub id: &'static str,
    pub title: &'static str,
}

impl Section {
    const fn new(id: &'static str, title: &'static str) -> Self {
        Self { id, title }
    }
}

pub const POSTURE: Section = Section::new("posture", "Posture now");
pub const ATTENTION: Section = Section::new("attention", "What needs attention");
pub const CHANGES: Section = Section::new("changes", "What changed");
pub const COVERAGE: Section = Section::new("coverage", "Review coverage");
pub const SCANS: Section = Section::new("scans", "Scans and findings");
pub const MEMBERS: Section = Section::new("members", "Members and roles");
pub const APPENDIX: Section = Section::new("appendix", "Appendix: every project");

/// Every section after the header, in the order they are written.
pub const SECTIONS: [Section; 7] = [
    POSTURE, ATTENTION, CHANGES, COVERAGE, SCANS, MEMBERS, APPENDIX,
];

/// The report's title (the header's heading).
pub fn title(data: &ReportData) -> String {
    format!("Security review report: {}", workspace_name(data))
}

/// The workspace's name when the service gave one, else its id.
pub fn workspace_name(data: &ReportData) -> String {
    data.live
        .header
        .workspace
        .value()
        .and_then(|workspace| workspace.name.clone())
        .unwrap_or_else(|| data.live.header.workspace_id.clone())
}

/// "Source: …" under a section, or why the part is missing.
pub fn source_line<T>(part: &Part<T>) -> String {
    match part {
        Part::Present { source, .. } => format!("Source: {}.", source.describe()),
        Part::Missing { reason } => format!("Not in this report: {reason}."),
    }
}

/// A reason a project needs attention, as a person reads it.
pub fn reason_text(reason: &AttentionReason) -> String {
    match reason {
        AttentionReason::NeedsReview => "review priority is needs_review".to_owned(),
        AttentionReason::ChangedSinceReview { fields } => {
            format!("changed since its review: {}", fields.join("; "))
        }
        AttentionReason::PublishedWithPii { open } => {
            format!("published with {open} open personal-data findings")
        }
    }
}

/// Why the `--since` snapshot is the one it is.
pub fn since_text(pick: &SincePick) -> &'static str {
    match pick {
        SincePick::Given => "named with --since",
        SincePick::LastReviewed => {
            "the last snapshot before the newest during which someone reviewed"
        }
        SincePick::Previous => "no snapshot was reviewed yet: the one before the newest",
    }
}

/// A time for people, or what is known instead.
pub fn when(at: Option<OffsetDateTime>, unknown: &str) -> String {
    at.map_or_else(
        || unknown.to_owned(),
        |at| format!("{} UTC", crate::timefmt::date_time(at)),
    )
}

/// Published, and to whom.
pub fn publication(item: &InventoryItem) -> String {
    match (&item.is_published, &item.publish_audience) {
        (false, _) => "not published".to_owned(),
        (true, Some(audience)) => format!("published ({audience})"),
        (true, None) => "published".to_owned(),
    }
}

/// A project's open-findings counts from the inventory (`matched_reason`):
/// `None` when the item carries none (unknown is never 0).
pub fn open_counts(item: &InventoryItem) -> Option<[i64; 4]> {
    item.matched_reason.as_ref().map(|reason| {
        let v = &reason.values;
        [v.error_count, v.warning_count, v.info_count, v.secret_count]
    })
}

/// The open-findings columns, in [`open_counts`]' order.
pub const SEVERITIES: [&str; 4] = ["error", "warning", "info", "secret"];

/// A count the item does not carry.
pub const UNKNOWN: &str = "not given";

/// Reviewer coverage: per reviewer, projects reviewed and unchanged, and
/// changed since review; then the projects in scope with no mark.
pub struct Coverage {
    pub by_reviewer: Vec<(String, u64, u64)>,
    pub unreviewed: Option<u64>,
}

impl Coverage {
    pub fn of(data: &ReportData) -> Option<Self> {
        let history = data.history.value()?;
        let mut by: std::collections::BTreeMap<String, (u64, u64)> = Default::default();
        for mark in &history.marks {
            let who = crate::history::shown_reviewer(
                mark.reviewer.as_deref(),
                mark.display_name.as_deref(),
            );
            let who = if who.is_empty() {
                "(reviewer not recorded)".to_owned()
            } else {
                who
            };
            let entry = by.entry(who).or_default();
            if mark.changed_since_review == Some(true) {
                entry.1 += 1;
            } else {
                entry.0 += 1;
            }
        }
        let unreviewed = data.live.inventory.value().map(|inventory| {
            let marked: std::collections::HashSet<&str> = history
                .marks
                .iter()
                .map(|m| m.project_id.as_str())
                .collect();
            inventory
                .items
                .iter()
                .filter(|item| !marked.contains(item.id.as_str()))
                .count() as u64
        });
        Some(Self {
            by_reviewer: by.into_iter().map(|(who, (a, b))| (who, a, b)).collect(),
            unreviewed,
        })
    }
}

/// A before/after value as text: lists joined, null a dash.
pub fn value_text(value: &serde_json::Value) -> String {
    match value {
        serde_json::Value::Null => "—".into(),
        serde_json::Value::String(text) => text.clone(),
        serde_json::Value::Array(items) => {
            items.iter().map(value_text).collect::<Vec<_>>().join(", ")
        }
        other => other.to_string(),
    }
}

/// The changes grouped by kind, the most serious kind first.
pub fn by_kind(
    changes: &[crate::history::Change],
) -> std::collections::BTreeMap<(usize, String), Vec<&crate::history::Change>> {
    let mut by_kind = std::collections::BTreeMap::<_, Vec<_>>::new();
    for change in changes {
        by_kind
            .entry((change.kind.seriousness_rank(), change.kind.to_string()))
            .or_default()
            .push(change);
    }
    by_kind
}

/// A wire word for people: `review_recommended` → `review recommended`
/// (it wraps at the space in a narrow column).
pub fn spaced(wire: &str) -> String {
    wire.replace('_', " ")
}
