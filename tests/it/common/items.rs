//! An inventory item's and a project's JSON as the service sends them, with
//! every field the contract lists: one builder each, so a test says only what
//! it means, and a field the contract gains is written here once.

use serde_json::{Value, json};

/// An item of the inventory with `fields` laid over a plain one: published
/// to the public, no findings, a little activity, owned by Ada, needing
/// review. `fields` is a JSON object (give at least `id` and `name`).
pub fn inventory_item(fields: Value) -> Value {
    laid_over(
        json!({
        "id": "prj_000000000000", "name": "Project", "description": null,
        "url": null, "is_published": true, "publish_audience": "public", "visibility": "workspace_edit",
        "activity_group": "last_14_days", "connectors": [], "edge_functions": [],
        "edit_count": 1, "message_count": 1, "edits_24h": 0, "edits_7d": 0, "edits_30d": 0,
        "visitors_24h": 0, "visitors_7d": 0, "visitors_30d": 0,
        "last_edited_at": "2026-11-20T00:00:00Z", "last_security_scan_at": null,
        "owner": {"display_name": "Ada"}, "review_priority": "needs_review",
        "review_priority_explanation": [], "matched_reason": null
        }),
        fields,
    )
}

/// A project (`GET /v1/projects/{id}`) with `fields` laid over a plain one:
/// published to the public, in `ws_test`, owned by `usr_1`. `fields` is a
/// JSON object (give at least `id` and `name`).
pub fn project(fields: Value) -> Value {
    laid_over(
        json!({
            "id": "prj_000000000000", "name": "Project", "description": null,
            "created_at": "2026-01-05T08:00:00Z", "last_edited_at": "2026-11-20T00:00:00Z",
            "latest_commit_sha": null, "latest_screenshot_url": null, "owner_id": "usr_1",
            "workspace_id": "ws_test", "is_published": true, "preview_url": null,
            "publish_audience": "public", "publish_audience_targets": [], "visibility": "workspace_edit"
        }),
        fields,
    )
}

/// `fields` laid over `plain`, each in its place; a field `plain` lacks is a
/// typo, refused.
fn laid_over(mut plain: Value, fields: Value) -> Value {
    let Value::Object(fields) = fields else {
        panic!("a resource's fields are a JSON object, not {fields}");
    };
    let Value::Object(known) = &mut plain else {
        unreachable!("the plain resources are objects")
    };
    for (key, value) in fields {
        assert!(known.contains_key(&key), "no field {key} in {known:?}");
        known.insert(key, value);
    }
    plain
}

#[test]
fn an_item_lays_its_fields_over_the_plain_one_and_keeps_the_order() {
    let item = inventory_item(json!({"id": "prj_1", "name": "Ledger", "is_published": false}));
    assert_eq!(item["id"], "prj_1");
    assert_eq!(item["is_published"], false);
    assert_eq!(item["owner"]["display_name"], "Ada");
    let keys: Vec<&String> = item.as_object().unwrap().keys().collect();
    assert_eq!(keys.first().map(|k| k.as_str()), Some("id"));
    assert_eq!(keys.last().map(|k| k.as_str()), Some("matched_reason"));
}
