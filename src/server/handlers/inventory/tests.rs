//! Unit tests of the inventory handler's activity groups and request checks;
//! the indexed path has its own in `index_tests.rs`.

use super::*;
use time::macros::datetime;

fn project_edited(
    last_edited_at: Option<OffsetDateTime>,
    updated_at: OffsetDateTime,
) -> ProjectRec {
    let mut project: ProjectRec = serde_json::from_value(serde_json::json!({
        "id": "prj_1",
        "workspace_id": "ws_1",
        "updated_at": "2026-01-01T00:00:00Z",
    }))
    .unwrap();
    project.wire.last_edited_at = last_edited_at;
    project.updated_at = updated_at;
    project
}

#[test]
fn activity_groups_include_their_boundaries_and_fall_back_to_updates() {
    let now = datetime!(2026-11-22 12:00 UTC);
    let old = now - Duration::days(400);
    let group = |edited: OffsetDateTime| activity_group(&project_edited(Some(edited), old), now);
    assert_eq!(group(now - Duration::days(14)), ActivityGroup::Last14Days);
    assert_eq!(
        group(now - Duration::days(14) - Duration::seconds(1)),
        ActivityGroup::Last60Days
    );
    assert_eq!(group(now - Duration::days(60)), ActivityGroup::Last60Days);
    assert_eq!(
        group(now - Duration::days(60) - Duration::seconds(1)),
        ActivityGroup::Older
    );
    let never_edited = project_edited(None, now - Duration::days(3));
    assert_eq!(
        activity_group(&never_edited, now),
        ActivityGroup::Last14Days
    );
}

#[test]
fn a_text_query_is_required_for_relevance_and_sets_the_default_order() {
    let parse = |raw: &str| InventoryRequest::parse(&QueryParams::parse(Some(raw)));
    assert_eq!(parse("").unwrap().sort.by, InventorySortBy::LastEditedAt);
    assert_eq!(
        parse("query=abc").unwrap().sort.by,
        InventorySortBy::Relevance
    );
    assert!(parse("query=abc").unwrap().sort.descending);
    assert!(parse("sort_by=relevance").is_err());
    assert!(parse("sort_by=relevance&query=%20").is_err());
    assert!(parse("sort_by=relevance&query=ab").is_ok());
}
