use serde::{Deserialize, Serialize};
use time::OffsetDateTime;

use super::{FindingType, Pagination, PublishAudience, ReviewPriority, Visibility, rfc3339};
use crate::open_enum;

open_enum! {
    /// Time since last edit, in the contract's 14- and 60-day groups.
    pub enum ActivityGroup {
        Last14Days => "last_14_days",
        Last60Days => "last_60_days",
        Older => "older",
    }
}

open_enum! {
    /// `sort_by` of the security project inventory.
    pub enum InventorySortBy {
        Relevance => "relevance",
        ReviewPriority => "review_priority",
        Name => "name",
        PublishAudience => "publish_audience",
        LastEditedAt => "last_edited_at",
        RiskFactorCount => "risk_factor_count",
        OpenPiiFindingCount => "open_pii_finding_count",
        ExternalAccessRank => "external_access_rank",
        Edits24h => "edits_24h",
        Edits7d => "edits_7d",
        Edits30d => "edits_30d",
        Visitors24h => "visitors_24h",
        Visitors7d => "visitors_7d",
        Visitors30d => "visitors_30d",
        LastSecurityScanAt => "last_security_scan_at",
    }
}

/// How an inventory item's text is read: as `String` (the default) to be
/// used, or as [`Unkept`] to check only that an item reads, by the same
/// declaration and its rules, without copying its text.
pub trait ItemText: Sized {
    /// A project's name as [`super::project::bounded_name`] keeps it.
    fn bounded_name(self) -> Self;
}

impl ItemText for String {
    fn bounded_name(self) -> Self {
        super::project::cut_name(self)
    }
}

/// A string that was read and checked to be one, not kept: what the jsonl
/// and json exports check each item with before they pass its text through.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Unkept;

impl ItemText for Unkept {
    fn bounded_name(self) -> Self {
        self
    }
}

impl<'de> Deserialize<'de> for Unkept {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct AnyString;
        impl serde::de::Visitor<'_> for AnyString {
            type Value = Unkept;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a string")
            }
            fn visit_str<E: serde::de::Error>(self, _: &str) -> Result<Unkept, E> {
                Ok(Unkept)
            }
        }
        deserializer.deserialize_str(AnyString)
    }
}

/// `{name}` of an edge function.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct EdgeFunction<S = String> {
    pub name: S,
}

/// `{display_name}` of a project owner.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Owner<S = String> {
    #[serde(default = "none")]
    pub display_name: Option<S>,
}

/// `None`, without asking the text type for a `Default` (`#[serde(default)]`
/// would): [`Unkept`] has none.
fn none<S>() -> Option<S> {
    None
}

/// One entry of `review_priority_explanation`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Reason<S = String> {
    pub id: S,
    pub label: S,
    pub detail: S,
    pub category: S,
    pub review_priority: ReviewPriority,
}

/// `matched_reason.values`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReasonValues {
    #[serde(default)]
    pub connector_count: i64,
    #[serde(default)]
    pub edge_function_count: i64,
    #[serde(default)]
    pub error_count: i64,
    #[serde(default)]
    pub info_count: i64,
    #[serde(default)]
    pub open_pii_finding_count: i64,
    #[serde(default)]
    pub secret_count: i64,
    #[serde(default)]
    pub shared_user_count: i64,
    #[serde(default)]
    pub warning_count: i64,
}

/// `matched_reason` of an inventory item.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct MatchedReason<S = String> {
    pub id: S,
    pub label: S,
    pub detail: S,
    pub category: S,
    pub review_priority: ReviewPriority,
    #[serde(default)]
    pub values: ReasonValues,
}

/// Item of the security project inventory.
///
/// **Field order is a rule here:** the reference server splices a page's items
/// from JSON kept per project (`server/handlers/inventory/item.rs`), so
/// `activity_group` must follow another field and `matched_reason` must stay
/// the last field. A field added after it sends every page down the slow path;
/// the server's tests fail when one does (`every_item_takes_the_fast_path`).
///
/// `S` is how its text is read ([`ItemText`]): `InventoryItem` alone is the
/// item to use; `InventoryItem<Unkept>` checks an item by the same rules.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct InventoryItem<S: ItemText = String> {
    pub id: S,
    #[serde(default = "none", deserialize_with = "super::project::bounded_name")]
    pub name: Option<S>,
    #[serde(default = "none")]
    pub description: Option<S>,
    #[serde(default = "none")]
    pub url: Option<S>,
    pub is_published: bool,
    #[serde(default)]
    pub publish_audience: Option<PublishAudience>,
    #[serde(default)]
    pub visibility: Option<Visibility>,
    pub activity_group: ActivityGroup,
    #[serde(default = "Vec::new")]
    pub connectors: Vec<S>,
    #[serde(default = "Vec::new")]
    pub edge_functions: Vec<EdgeFunction<S>>,
    #[serde(default)]
    pub edit_count: i64,
    #[serde(default)]
    pub message_count: i64,
    #[serde(default)]
    pub edits_24h: i64,
    #[serde(default)]
    pub edits_7d: i64,
    #[serde(default)]
    pub edits_30d: i64,
    #[serde(default)]
    pub visitors_24h: i64,
    #[serde(default)]
    pub visitors_7d: i64,
    #[serde(default)]
    pub visitors_30d: i64,
    #[serde(default, with = "rfc3339::option")]
    pub last_edited_at: Option<OffsetDateTime>,
    #[serde(default, with = "rfc3339::option")]
    pub last_security_scan_at: Option<OffsetDateTime>,
    pub owner: Owner<S>,
    pub review_priority: ReviewPriority,
    #[serde(default = "Vec::new")]
    pub review_priority_explanation: Vec<Reason<S>>,
    #[serde(default = "none")]
    pub matched_reason: Option<MatchedReason<S>>,
}

/// `activity_as_of` of the inventory response.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ActivityAsOf {
    #[serde(default, with = "rfc3339::option")]
    pub edits_as_of: Option<OffsetDateTime>,
    #[serde(default, with = "rfc3339::option")]
    pub visitors_as_of: Option<OffsetDateTime>,
}

/// Response of the security project inventory operation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct InventoryPage {
    /// **Stays the first field:** the reference server writes `{"data":[`, the
    /// items, then the rest of this page serialized without them
    /// (`server/handlers/inventory/mod.rs`, `PAGE_START`).
    pub data: Vec<InventoryItem>,
    pub pagination: Pagination,
    pub total: i64,
    #[serde(default, with = "rfc3339::option")]
    pub as_of: Option<OffsetDateTime>,
    #[serde(default)]
    pub activity_as_of: Option<ActivityAsOf>,
    #[serde(default)]
    pub applied_finding: Option<FindingType>,
}

/// An item as the reference server writes one, every field present.
#[cfg(test)]
pub(crate) const SAMPLE_ITEM: &str = r#"{"id":"p1","name":"Budget","description":"d","url":"https://x",
    "is_published":true,"publish_audience":"public","visibility":"workspace",
    "activity_group":"last_14_days","connectors":["slack"],"edge_functions":[{"name":"f"}],
    "edit_count":3,"message_count":1,"edits_24h":0,"edits_7d":1,"edits_30d":2,
    "visitors_24h":0,"visitors_7d":5,"visitors_30d":9,
    "last_edited_at":"2026-11-01T10:00:00.000Z","last_security_scan_at":null,
    "owner":{"display_name":"Ana"},"review_priority":"needs_review",
    "review_priority_explanation":[{"id":"r","label":"l","detail":"d","category":"c",
    "review_priority":"unscored"}],
    "matched_reason":{"id":"m","label":"l","detail":"d","category":"c",
    "review_priority":"whatever_new","values":{"secret_count":2}}}"#;

#[cfg(test)]
mod tests {
    use super::*;

    /// The export checks an item as `InventoryItem<Unkept>` and passes its
    /// text on: it must refuse exactly what the typed read refuses, with the
    /// same message.
    #[test]
    fn the_unkept_check_refuses_what_the_typed_read_refuses() {
        let edits: &[(&str, &str)] = &[
            ("", ""),
            (r#""id":"p1","#, ""),
            (r#""id":"p1""#, r#""id":7"#),
            (r#""name":"Budget""#, r#""name":null"#),
            (r#""name":"Budget""#, r#""name":["x"]"#),
            (r#""url":"https://x""#, r#""url":{}"#),
            (r#""edit_count":3"#, r#""edit_count":1e400"#),
            (r#""edit_count":3"#, r#""edit_count":3.5"#),
            (r#""edit_count":3"#, r#""edit_count":"3""#),
            (r#""connectors":["slack"]"#, r#""connectors":[1]"#),
            (r#"[{"name":"f"}]"#, r#"[{"nom":"f"}]"#),
            (r#""display_name":"Ana""#, r#""display_name":false"#),
            (r#""owner":{"display_name":"Ana"},"#, ""),
            ("2026-11-01T10:00:00.000Z", "yesterday"),
            (
                r#""review_priority":"needs_review""#,
                r#""review_priority":1"#,
            ),
            (r#""activity_group":"last_14_days","#, ""),
            (r#""label":"l","detail":"d","category":"c","#, ""),
            (r#""secret_count":2"#, r#""secret_count":-1e400"#),
            ("\"d\",\"category\"", "\"d\\u00\",\"category\""),
        ];
        for (from, to) in edits {
            let text = SAMPLE_ITEM.replacen(from, to, 1);
            assert!(from.is_empty() || text != SAMPLE_ITEM, "{from} not found");
            let kept = serde_json::from_str::<InventoryItem>(&text).map(|_| ());
            let unkept = serde_json::from_str::<InventoryItem<Unkept>>(&text).map(|_| ());
            assert_eq!(
                kept.map_err(|e| e.to_string()),
                unkept.map_err(|e| e.to_string()),
                "{from} -> {to}"
            );
        }
        assert!(serde_json::from_str::<InventoryItem<Unkept>>(SAMPLE_ITEM).is_ok());
    }
}
