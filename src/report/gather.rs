//! What a report shows, gathered once: read live from the service, or from
//! the review history, each part with its [`Source`] (where and as of when).
//! Every writer (HTML, Markdown, the machine formats) reads this and nothing
//! else. A part whose data could not be had is [`Part::Missing`] with the
//! reason: never a default dressed as a fact.

mod history;
mod live;

use serde::Serialize;
use time::OffsetDateTime;

use crate::api::model::{
    FindingType, InventoryItem, Member, PiiFinding, Role, ScanFinding, SecurityScan, Workspace,
};
use crate::history::{Change, ReviewEntry, ReviewMark, SnapshotInfo};

pub use history::{HistoryInput, SincePick, gather_history};
pub use live::{Live, LiveOptions, gather_live};

/// Where a part's data came from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Origin {
    /// Read from the service now (`base_url`).
    Live { base_url: String },
    /// Read from the review history (`store` as `Store::describe` says it).
    History { store: String },
}

/// Where a part came from, and as of when: the service's own `as_of` when it
/// sent one, else the time the read finished (`read_at`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Source {
    pub origin: Origin,
    /// The freshness the service or the history states for the data.
    #[serde(with = "crate::timefmt::serde_rfc3339::option")]
    pub as_of: Option<OffsetDateTime>,
    /// When vantage read it.
    #[serde(with = "crate::timefmt::serde_rfc3339")]
    pub read_at: OffsetDateTime,
}

impl Source {
    /// "the service (http://…), as of 2026-11-22 14:03 UTC" for a person.
    pub fn describe(&self) -> String {
        let from = match &self.origin {
            Origin::Live { base_url } => format!("read live from the service at {base_url}"),
            Origin::History { store } => format!("read from {store}"),
        };
        let when = crate::timefmt::date_time(self.read_at);
        match self.as_of {
            Some(as_of) => format!(
                "{from} at {when} UTC; the data is as of {} UTC",
                crate::timefmt::date_time(as_of)
            ),
            None => format!("{from} at {when} UTC"),
        }
    }
}

/// One part of the report: its data with its source, or why it is missing.
#[derive(Debug, Clone, Serialize)]
#[serde(tag = "state", rename_all = "snake_case")]
pub enum Part<T> {
    Present {
        source: Source,
        value: T,
    },
    /// Not in the report, and why (a plan without the feature, no snapshot
    /// yet, a failed read): the writers print the reason in its place.
    Missing {
        reason: String,
    },
}

impl<T> Part<T> {
    pub fn value(&self) -> Option<&T> {
        match self {
            Self::Present { value, .. } => Some(value),
            Self::Missing { .. } => None,
        }
    }

    pub fn source(&self) -> Option<&Source> {
        match self {
            Self::Present { source, .. } => Some(source),
            Self::Missing { .. } => None,
        }
    }

    pub fn missing(reason: impl Into<String>) -> Self {
        Self::Missing {
            reason: reason.into(),
        }
    }
}

/// Who wrote the report, about what, and with what.
#[derive(Debug, Clone, Serialize)]
pub struct Header {
    pub workspace_id: String,
    /// The workspace as `GET /v1/workspaces/{id}` gives it (name, plan).
    pub workspace: Part<Workspace>,
    #[serde(with = "crate::timefmt::serde_rfc3339")]
    pub generated_at: OffsetDateTime,
    /// The reviewer's name (the history's `reviewer`, else the login name).
    pub generated_by: Option<String>,
    /// `vantage X.Y.Z (commit …, built …)`.
    pub vantage_version: String,
    /// The API version vantage pins (`Service-Version`).
    pub api_version: String,
    pub base_url: String,
    /// The inventory's filters the report was scoped to (the dashboard's
    /// current ones), as words; `None`: the whole workspace.
    pub scope: Option<String>,
}

/// The live inventory (every project in scope) with its freshness.
#[derive(Debug, Clone, Serialize)]
pub struct Inventory {
    pub items: Vec<InventoryItem>,
    /// `total` as the first page said it.
    pub total: i64,
}

/// A project's latest security scan and its findings, read for the projects
/// that need attention within the detail budget.
#[derive(Debug, Clone, Serialize)]
pub struct ProjectScan {
    pub project_id: String,
    /// `None`: the project has no scan.
    pub scan: Option<SecurityScan>,
    pub findings: Vec<ScanFinding>,
}

/// What was read in detail (scans, personal data), and what was left to the
/// inventory's counts by the budget.
#[derive(Debug, Clone, Serialize)]
pub struct Details<T> {
    pub read: Vec<T>,
    /// Projects that qualified but were not read (the budget ran out).
    pub left_out: usize,
}

/// A project's personal-data findings (open, ignored and fixed).
#[derive(Debug, Clone, Serialize)]
pub struct ProjectPii {
    pub project_id: String,
    pub findings: Vec<PiiFinding>,
}

/// A member with the role its role-filtered list gave and its detail read.
#[derive(Debug, Clone, Serialize)]
pub struct ReportMember {
    pub user_id: String,
    pub role: Option<Role>,
    /// `None`: not read (the budget), or gone between the list and the read.
    pub detail: Option<Member>,
}

/// The workspace's posture in one snapshot, for the charts over time.
#[derive(Debug, Clone, Serialize)]
pub struct SnapshotPosture {
    pub snapshot: SnapshotInfo,
    pub needs_review: u64,
    pub published: u64,
    pub public_with_pii: u64,
    /// Projects of the snapshot with a reviewed mark standing at its time.
    pub reviewed: u64,
}

/// The snapshot compared with the newest for "what changed", and why it.
#[derive(Debug, Clone, Serialize)]
pub struct ChangesSince {
    pub since: SnapshotInfo,
    pub until: SnapshotInfo,
    pub picked: SincePick,
    pub changes: Vec<Change>,
}

/// The review history's part of the report.
#[derive(Debug, Clone, Serialize)]
pub struct HistoryPart {
    /// Every snapshot of the workspace, oldest first, with its posture.
    pub posture: Vec<SnapshotPosture>,
    pub changes: Part<ChangesSince>,
    /// The marks that stand, newest first (changed since review or not).
    pub marks: Vec<ReviewMark>,
    /// The review log's entries since the `--since` snapshot (all when none).
    pub log: Vec<ReviewEntry>,
    /// Where the log's period starts (the `--since` snapshot's time).
    #[serde(with = "crate::timefmt::serde_rfc3339::option")]
    pub log_since: Option<OffsetDateTime>,
}

/// Everything a report shows.
#[derive(Debug, Clone, Serialize)]
pub struct ReportData {
    /// What was read from the service.
    #[serde(flatten)]
    pub live: Live,
    pub history: Part<HistoryPart>,
}

/// Why a project needs attention.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "reason", rename_all = "snake_case")]
pub enum AttentionReason {
    /// Its review priority is `needs_review`.
    NeedsReview,
    /// It changed since its reviewed mark: the fields.
    ChangedSinceReview { fields: Vec<String> },
    /// Published with open personal-data findings.
    PublishedWithPii { open: i64 },
}

/// A project that needs attention, with why.
#[derive(Debug, Clone, Serialize)]
pub struct Attention<'a> {
    pub item: &'a InventoryItem,
    pub reasons: Vec<AttentionReason>,
}

impl ReportData {
    /// The report from its live reads and the history's part. A mark is
    /// compared with the live row at once ([`ReviewMark::against_live`]), so
    /// "changed since review" does not wait for the next snapshot.
    pub fn assemble(live: Live, mut history: Part<HistoryPart>) -> Self {
        if let (Part::Present { value: history, .. }, Part::Present { source, value }) =
            (&mut history, &live.inventory)
        {
            let rows: std::collections::HashMap<&str, &InventoryItem> = value
                .items
                .iter()
                .map(|item| (item.id.as_str(), item))
                .collect();
            for mark in &mut history.marks {
                if let Some(item) = rows.get(mark.project_id.as_str()) {
                    let state = crate::history::ProjectState::from_item(item);
                    *mark = mark.against_live(&state, source.read_at);
                }
            }
        }
        Self { live, history }
    }

    /// Every project that needs review, changed since its review, or is
    /// published with open personal data, in the inventory's order: the one
    /// rule every writer reads.
    pub fn attention(&self) -> Vec<Attention<'_>> {
        let Some(inventory) = self.live.inventory.value() else {
            return Vec::new();
        };
        let marks = self
            .history
            .value()
            .map(|h| h.marks.as_slice())
            .unwrap_or(&[]);
        let changed: std::collections::HashMap<&str, &ReviewMark> = marks
            .iter()
            .filter(|mark| mark.changed_since_review == Some(true))
            .map(|mark| (mark.project_id.as_str(), mark))
            .collect();
        inventory
            .items
            .iter()
            .filter_map(|item| {
                let reasons = attention_reasons(item, changed.get(item.id.as_str()).copied());
                (!reasons.is_empty()).then_some(Attention { item, reasons })
            })
            .collect()
    }

    /// Each project's name as the inventory shows it, by id (none when the
    /// inventory is missing).
    pub fn project_names(&self) -> std::collections::HashMap<&str, Option<&str>> {
        let items = self.live.inventory.value().map_or(&[][..], |i| &i.items);
        items
            .iter()
            .map(|item| (item.id.as_str(), item.name.as_deref()))
            .collect()
    }

    /// Each part left out, with why: what the command says beside the file.
    pub fn missing_parts(&self) -> Vec<String> {
        fn reason<T>(name: &str, part: &Part<T>, out: &mut Vec<String>) {
            if let Part::Missing { reason } = part {
                out.push(format!("{name}: {reason}"));
            }
        }
        let mut out = Vec::new();
        reason("workspace", &self.live.header.workspace, &mut out);
        reason("insights", &self.live.insights, &mut out);
        reason("inventory", &self.live.inventory, &mut out);
        reason("scans", &self.live.scans, &mut out);
        reason("personal data", &self.live.pii, &mut out);
        reason("members", &self.live.members, &mut out);
        reason("history", &self.history, &mut out);
        if let Some(history) = self.history.value() {
            reason("changes", &history.changes, &mut out);
        }
        out
    }

    /// The finding types as the insights list them (empty when missing).
    pub fn finding_types(&self) -> &[FindingType] {
        self.live
            .insights
            .value()
            .map_or(&[], |insights| insights.findings.as_slice())
    }
}

/// Why `item` needs attention (none: it does not).
pub fn attention_reasons(item: &InventoryItem, mark: Option<&ReviewMark>) -> Vec<AttentionReason> {
    use crate::api::model::ReviewPriority;
    let mut reasons = Vec::new();
    if item.review_priority == ReviewPriority::NeedsReview {
        reasons.push(AttentionReason::NeedsReview);
    }
    if let Some(mark) = mark.filter(|mark| mark.changed_since_review == Some(true)) {
        reasons.push(AttentionReason::ChangedSinceReview {
            fields: mark
                .changed_fields
                .iter()
                .map(|change| change.to_string())
                .collect(),
        });
    }
    let open = item
        .matched_reason
        .as_ref()
        .map(|reason| reason.values.open_pii_finding_count);
    if item.is_published
        && let Some(open) = open.filter(|open| *open > 0)
    {
        reasons.push(AttentionReason::PublishedWithPii { open });
    }
    reasons
}
