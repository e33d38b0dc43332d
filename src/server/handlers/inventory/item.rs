//! One project as an inventory item, and the item kept as JSON: the parts of
//! an item that only a write changes are serialized once (and again on each
//! write, see `index.rs`), and a page is spliced from them. The bytes are
//! those of serializing the [`InventoryItem`].

use time::OffsetDateTime;

use super::activity_group;
use crate::api::model::{ActivityGroup, EdgeFunction, InventoryItem, MatchedReason, Owner};
use crate::server::catalog::FindingKind;
use crate::server::store::ProjectRec;

/// An item's JSON around what each request decides: `head` ends with
/// `"activity_group":` (the group moves with the clock), `tail` runs from
/// `,"connectors":` to `"matched_reason":` (the reason follows the applied
/// finding type), and `reason` is the matched reason with none applied.
#[derive(Debug)]
pub(super) struct ItemJson {
    head: Box<str>,
    tail: Box<str>,
    reason: Box<str>,
}

/// Where the group goes: no JSON string can hold `,"` unescaped, so the first
/// match is the field itself.
const GROUP_FIELD: &str = ",\"activity_group\":";
/// The item serialized with no matched reason ends so.
const NO_REASON_END: &str = "null}";
/// `tail` ends so: `matched_reason` is the item's last field (the rule
/// written on [`InventoryItem`]).
const REASON_FIELD: &str = "\"matched_reason\":";

impl ItemJson {
    /// `None` if serde_json fails on the item, or the item's fields break the
    /// order the splice needs; then it is serialized per request (slower), and
    /// the tests fail (`every_item_takes_the_fast_path`).
    pub(super) fn of(project: &ProjectRec) -> Option<Self> {
        let placeholder = ActivityGroup::Last14Days;
        let item = inventory_item(project, placeholder.clone(), None);
        let json = serde_json::to_string(&item).ok()?;
        let group = serde_json::to_string(&placeholder).ok()?;
        let head_end = json.find(GROUP_FIELD)? + GROUP_FIELD.len();
        let tail = json[head_end..]
            .strip_prefix(group.as_str())?
            .strip_suffix(NO_REASON_END)?;
        // A field after `matched_reason` would take the reason spliced in:
        // then the item is serialized per request instead.
        if !tail.ends_with(REASON_FIELD) {
            return None;
        }
        let reason = serde_json::to_string(&matched_reason(project, None)).ok()?;
        Some(Self {
            head: json[..head_end].into(),
            tail: tail.into(),
            reason: reason.into(),
        })
    }
}

impl ItemJson {
    /// About how long the item is: what a page reserves for it.
    pub(super) fn len(&self) -> usize {
        self.head.len() + self.tail.len() + self.reason.len() + 32
    }
}

/// Writes the inventory item of `project` to `out`, from its kept JSON when there is one.
pub(super) fn write_item(
    out: &mut Vec<u8>,
    kept: Option<&ItemJson>,
    project: &ProjectRec,
    now: OffsetDateTime,
    applied: Option<&FindingKind>,
) -> Result<(), serde_json::Error> {
    let group = activity_group(project, now);
    let Some(kept) = kept else {
        let reason = matched_reason(project, applied);
        return serde_json::to_writer(out, &inventory_item(project, group, reason));
    };
    let reason = applied.map(|_| matched_reason(project, applied));
    write_kept(out, kept, &group, reason.as_ref())
}

/// Writes an item from its kept JSON with its activity `group`, and `reason`
/// when a finding type is applied (`None`: the reason kept, none applied).
pub(super) fn write_kept(
    out: &mut Vec<u8>,
    kept: &ItemJson,
    group: &ActivityGroup,
    reason: Option<&Option<MatchedReason>>,
) -> Result<(), serde_json::Error> {
    out.extend_from_slice(kept.head.as_bytes());
    serde_json::to_writer(&mut *out, group)?;
    out.extend_from_slice(kept.tail.as_bytes());
    match reason {
        None => out.extend_from_slice(kept.reason.as_bytes()),
        Some(reason) => serde_json::to_writer(&mut *out, reason)?,
    }
    out.push(b'}');
    Ok(())
}

/// The reason for the applied finding type, else the most important reason.
pub(super) fn matched_reason(
    project: &ProjectRec,
    applied: Option<&FindingKind>,
) -> Option<MatchedReason> {
    let security = &project.security;
    let reason = applied
        .and_then(|kind| security.explanation.iter().find(|r| r.id == kind.id))
        .or_else(|| security.explanation.first())?;
    let mut values = security.values.clone();
    values.open_pii_finding_count = project.derived.open_pii;
    Some(MatchedReason {
        id: reason.id.clone(),
        label: reason.label.clone(),
        detail: reason.detail.clone(),
        category: reason.category.clone(),
        review_priority: reason.review_priority.clone(),
        values,
    })
}

pub(super) fn inventory_item(
    project: &ProjectRec,
    activity_group: ActivityGroup,
    matched_reason: Option<MatchedReason>,
) -> InventoryItem {
    let security = &project.security;
    let url = if project.wire.is_published {
        project
            .published_url
            .clone()
            .or_else(|| project.wire.preview_url.clone())
    } else {
        project.wire.preview_url.clone()
    };
    let activity = &project.activity;
    InventoryItem {
        id: project.wire.id.clone(),
        name: project.wire.name.clone(),
        description: project.wire.description.clone(),
        url,
        is_published: project.wire.is_published,
        publish_audience: project.shown_audience().cloned(),
        visibility: project.wire.visibility.clone(),
        activity_group,
        connectors: security.connectors.clone(),
        edge_functions: security
            .edge_functions
            .iter()
            .map(|name| EdgeFunction { name: name.clone() })
            .collect(),
        edit_count: activity.edit_count,
        message_count: activity.message_count,
        edits_24h: activity.edits_24h,
        edits_7d: activity.edits_7d,
        edits_30d: activity.edits_30d,
        visitors_24h: activity.visitors_24h,
        visitors_7d: activity.visitors_7d,
        visitors_30d: activity.visitors_30d,
        last_edited_at: project.wire.last_edited_at,
        last_security_scan_at: security.last_security_scan_at,
        owner: Owner {
            display_name: project.derived.owner_name.clone(),
        },
        review_priority: security.review_priority.clone(),
        review_priority_explanation: security.explanation.clone(),
        matched_reason,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::server::seed::{self, GenerateSpec};

    /// The rule on [`InventoryItem`]'s field order holds for every item the
    /// demo and the generator make: a field added after `matched_reason`
    /// fails here, rather than silently slowing every page. Each spliced item
    /// is also the item serialized.
    #[test]
    fn every_item_takes_the_fast_path() {
        let anchor = time::macros::datetime!(2026-11-22 00:00 UTC);
        let demo = seed::demo_fixture(anchor).unwrap();
        let generated = seed::generate(GenerateSpec::default(), anchor);
        let projects: Vec<&ProjectRec> = demo.projects.iter().chain(&generated.projects).collect();
        assert!(projects.len() > 200);
        let now = anchor + time::Duration::hours(12);
        for project in projects {
            let kept = ItemJson::of(project);
            assert!(
                kept.is_some(),
                "{} is serialized per request",
                project.wire.id
            );
            let mut spliced = Vec::new();
            write_item(&mut spliced, kept.as_ref(), project, now, None).unwrap();
            let item = inventory_item(
                project,
                super::activity_group(project, now),
                matched_reason(project, None),
            );
            assert_eq!(
                String::from_utf8(spliced).unwrap(),
                serde_json::to_string(&item).unwrap()
            );
        }
    }
}
