//! The shapes the real service's reference settles (DESIGN.md, "What the real
//! service publishes"): `GET /v1/projects?workspace_id=W`, `GET /v1/workspaces`
//! and `GET /v1/workspaces/{id}`, the answer of `PATCH /publish`, the scope of
//! `POST /embed-url`, and each operation's own 404 type. Literal JSON.

use reqwest::Method;
use serde_json::{Value, json};

use crate::common::*;
use crate::server::support::{Reply, call, get};

fn body(reply: &Reply) -> Value {
    assert_eq!(reply.status, 200, "{}", reply.text);
    reply.json()
}

#[tokio::test]
async fn workspaces_list_and_get_answer_the_keys_workspace() {
    let (server, _clock) = demo_server().await;
    let base = server.base_url();
    let acme = json!({
        "id": "ws_acme",
        "name": "Acme Corp",
        "description": "Internal tools and customer apps of Acme",
        "image_url": null,
        "plan": "enterprise",
        "num_projects": 64,
        "created_at": "2024-06-05T00:00:00.000Z",
        "updated_at": "2026-10-02T08:15:00.000Z"
    });
    let listed = get(&base, "/v1/workspaces", ENTERPRISE_READONLY).await;
    assert_eq!(
        body(&listed),
        json!({"data": [acme], "pagination": {"has_more": false, "next_cursor": null}})
    );
    let one = get(&base, "/v1/workspaces/ws_acme", WORKSPACES_READ).await;
    assert_eq!(body(&one), acme);
    // A workspace without description or update time.
    let globex = get(&base, "/v1/workspaces/ws_globex", BUSINESS_ADMIN).await;
    assert_eq!(
        body(&globex),
        json!({
            "id": "ws_globex",
            "name": "Globex Business",
            "description": null,
            "image_url": null,
            "plan": "business",
            "num_projects": 6,
            "created_at": "2025-03-01T09:00:00.000Z",
            "updated_at": "2025-03-01T09:00:00.000Z"
        })
    );
    // Another workspace answers as a missing one.
    for path in ["/v1/workspaces/ws_globex", "/v1/workspaces/ws_nope"] {
        let reply = get(&base, path, ENTERPRISE_ADMIN).await;
        assert_eq!(reply.status, 404, "{path}");
        assert_eq!(reply.error()["type"], "workspace_not_found");
    }
    // Scope, then plan.
    let reply = get(&base, "/v1/workspaces", PROJECTS_READ).await;
    assert_eq!(reply.status, 403);
    assert_eq!(
        reply.error()["props"],
        json!({"required_scopes": ["workspaces:read", "workspaces:write"]})
    );
    let reply = get(&base, "/v1/workspaces", PRO_ADMIN).await;
    assert_eq!(reply.status, 402);
    assert_eq!(reply.error()["props"], json!({"required_plan": "business"}));
}

#[tokio::test]
async fn projects_are_listed_as_summaries_last_edited_first() {
    let (server, _clock) = demo_server().await;
    let base = server.base_url();
    let fixture = demo();
    // The order, recomputed from the fixture: last edited (or updated) first,
    // then id ascending.
    let mut expected: Vec<_> = fixture
        .projects
        .iter()
        .filter(|p| p.wire.workspace_id == ENTERPRISE_WS)
        .map(|p| {
            (
                p.wire.last_edited_at.unwrap_or(p.updated_at),
                p.wire.id.clone(),
            )
        })
        .collect();
    expected.sort_by(|a, b| b.0.cmp(&a.0).then_with(|| a.1.cmp(&b.1)));
    let expected: Vec<String> = expected.into_iter().map(|(_, id)| id).collect();
    let mut got: Vec<String> = Vec::new();
    let mut cursor: Option<String> = None;
    let mut first_page = None;
    loop {
        let mut path = format!("/v1/projects?workspace_id={ENTERPRISE_WS}&limit=20");
        if let Some(cursor) = &cursor {
            path.push_str(&format!("&cursor={cursor}"));
        }
        let page = body(&get(&base, &path, ENTERPRISE_READONLY).await);
        first_page.get_or_insert_with(|| page.clone());
        got.extend(
            page["data"]
                .as_array()
                .unwrap()
                .iter()
                .map(|p| p["id"].as_str().unwrap().to_owned()),
        );
        if page["pagination"]["has_more"] == json!(false) {
            assert_eq!(page["pagination"]["next_cursor"], Value::Null);
            break;
        }
        cursor = Some(
            page["pagination"]["next_cursor"]
                .as_str()
                .unwrap()
                .to_owned(),
        );
    }
    assert_eq!(got, expected);
    // Each item is the 11-field summary, in the reference's order.
    let first = &first_page.unwrap()["data"][0];
    let keys: Vec<&str> = first
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(
        keys,
        [
            "id",
            "name",
            "description",
            "created_at",
            "last_edited_at",
            "latest_screenshot_url",
            "owner_id",
            "workspace_id",
            "is_published",
            "publish_audience",
            "visibility"
        ]
    );
    let project = body(
        &get(
            &base,
            &format!("/v1/projects/{}", expected[0]),
            ENTERPRISE_ADMIN,
        )
        .await,
    );
    let mut summary = project.clone();
    for dropped in [
        "latest_commit_sha",
        "preview_url",
        "publish_audience_targets",
    ] {
        summary.as_object_mut().unwrap().remove(dropped);
    }
    assert_eq!(first, &summary);
}

#[tokio::test]
async fn the_project_listing_reads_one_summary_literally() {
    let (server, _clock) = demo_server().await;
    let base = server.base_url();
    let reply = get(
        &base,
        &format!("/v1/projects?workspace_id={BUSINESS_WS}&workspace_id={BUSINESS_WS}&limit=1"),
        BUSINESS_ADMIN,
    )
    .await;
    let page = body(&reply);
    assert_eq!(page["data"].as_array().unwrap().len(), 1);
    assert_eq!(page["pagination"]["has_more"], true);
    assert_eq!(
        page["data"][0],
        json!({
            "id": "prj_globex_006",
            "name": "Booking app",
            "description": "Booking system for appointments with e-mail confirmations and a calendar view.",
            "created_at": "2026-05-20T23:08:00.000Z",
            "last_edited_at": "2026-11-19T05:41:00.000Z",
            "latest_screenshot_url": "https://screenshots.vantage.invalid/prj_3fdeb42f2f59.png",
            "owner_id": "0b7d2e94-81c3-4f6a-a2d9-5e1f7c3b9a42",
            "workspace_id": "ws_globex",
            "is_published": true,
            "publish_audience": "public",
            "visibility": "workspace_edit"
        })
    );
}

#[tokio::test]
async fn project_listing_refusals() {
    let (server, _clock) = demo_server().await;
    let base = server.base_url();
    let bad = |path: String| {
        let base = base.clone();
        async move {
            let reply = get(&base, &path, ENTERPRISE_ADMIN).await;
            assert_eq!(reply.status, 400, "{path}: {}", reply.text);
            reply.error()
        }
    };
    let missing = bad("/v1/projects".into()).await;
    assert_eq!(
        missing["errors"],
        json!([{"message": "workspace_id is required (repeat it for several workspaces)", "location": "query.workspace_id"}])
    );
    let eleven: String = (0..11)
        .map(|n| format!("workspace_id=ws_{n}"))
        .collect::<Vec<_>>()
        .join("&");
    let too_many = bad(format!("/v1/projects?{eleven}")).await;
    assert_eq!(
        too_many["errors"],
        json!([{"message": "workspace_id may name at most 10 workspaces", "location": "query.workspace_id"}])
    );
    // A cursor is bound to the workspace set.
    let page = body(
        &get(
            &base,
            &format!("/v1/projects?workspace_id={ENTERPRISE_WS}&limit=2"),
            ENTERPRISE_ADMIN,
        )
        .await,
    );
    let cursor = page["pagination"]["next_cursor"]
        .as_str()
        .unwrap()
        .to_owned();
    let reused = bad(format!(
        "/v1/projects?workspace_id={ENTERPRISE_WS}&workspace_id=ws_other&cursor={cursor}"
    ))
    .await;
    assert_eq!(reused["errors"][0]["location"], "query.cursor");
    // The same set in another order or with repeats keeps the cursor valid.
    let again = get(
        &base,
        &format!(
            "/v1/projects?workspace_id={ENTERPRISE_WS}&workspace_id={ENTERPRISE_WS}&cursor={cursor}"
        ),
        ENTERPRISE_ADMIN,
    )
    .await;
    assert_eq!(again.status, 200, "{}", again.text);
    // Another workspace answers as a missing one; the old path is gone.
    let other = get(
        &base,
        &format!("/v1/projects?workspace_id={ENTERPRISE_WS}&workspace_id={BUSINESS_WS}"),
        ENTERPRISE_ADMIN,
    )
    .await;
    assert_eq!(other.status, 404);
    assert_eq!(other.error()["type"], "workspace_not_found");
    let old = get(&base, "/v1/workspaces/ws_acme/projects", ENTERPRISE_ADMIN).await;
    assert_eq!(old.status, 404);
    assert_eq!(old.error()["type"], "not_found");
    // Scope follows the workspace; Business or higher.
    let scoped = get(&base, "/v1/projects?workspace_id=ws_acme", PROJECTS_READ).await;
    assert_eq!(scoped.status, 403);
    assert_eq!(scoped.error()["type"], "insufficient_scope");
    let pro = get(&base, "/v1/projects?workspace_id=ws_initech", PRO_ADMIN).await;
    assert_eq!(pro.status, 402);
    assert_eq!(pro.error()["props"], json!({"required_plan": "business"}));
}

#[tokio::test]
async fn publish_settings_answer_the_resolved_settings() {
    let (server, _clock) = demo_server().await;
    let base = server.base_url();
    let patch = |project: &str, body: &'static str| {
        call(
            Method::PATCH,
            &base,
            &format!("/v1/projects/{project}/publish"),
        )
        .key(ENTERPRISE_ADMIN)
        .json(body)
        .send()
    };
    let reply = patch(
        "prj_7c9bcbec550e",
        r#"{"audience":"custom","audience_targets":[{"id":"grp_support","type":"group"},{"id":"5600c17c-292a-4b1b-919b-ac450de43b43","type":"user"}]}"#,
    )
    .await;
    assert_eq!(
        body(&reply),
        json!({
            "audience": "custom",
            "audience_targets": [
                {"id": "grp_support", "type": "group"},
                {"id": "5600c17c-292a-4b1b-919b-ac450de43b43", "type": "user"}
            ]
        })
    );
    let reply = patch("prj_7c9bcbec550e", r#"{"audience":"public"}"#).await;
    assert_eq!(
        body(&reply),
        json!({"audience": "public", "audience_targets": []})
    );
    // Offline: the stored setting, which applies at the next publish.
    let reply = patch("prj_fa126dc634f5", r#"{"audience":"workspace"}"#).await;
    assert_eq!(
        body(&reply),
        json!({"audience": "workspace", "audience_targets": []})
    );
}

#[tokio::test]
async fn an_embed_url_needs_the_write_scope() {
    let (server, _clock) = demo_server().await;
    let base = server.base_url();
    let embed = |key: &'static str| {
        call(
            Method::POST,
            &base,
            "/v1/projects/prj_7c9bcbec550e/embed-url",
        )
        .key(key)
        .json(r#"{"parent_origin":"https://intranet.example.com"}"#)
        .send()
    };
    let reply = embed(ENTERPRISE_READONLY).await;
    assert_eq!(reply.status, 403);
    let error = reply.error();
    assert_eq!(error["type"], "insufficient_scope");
    assert_eq!(
        error["props"],
        json!({"required_scopes": ["projects:write"]})
    );
    let reply = embed(ENTERPRISE_ADMIN).await;
    let answer = body(&reply);
    assert_eq!(answer["expires_at"], "2026-11-22T13:00:00.000Z");
    assert!(
        answer["embed_url"]
            .as_str()
            .unwrap()
            .starts_with("https://")
    );
}

#[tokio::test]
async fn each_operation_answers_its_own_404_type_for_a_missing_project() {
    let (server, _clock) = demo_server().await;
    let base = server.base_url();
    let cases = [
        (
            "/v1/projects/prj_missing",
            "project_not_found",
            "Project not found",
        ),
        (
            "/v1/projects/prj_missing/analytics/realtime",
            "analytics_not_found",
            "Analytics not found",
        ),
        (
            "/v1/projects/prj_missing/analytics/breakdowns?starts_at=2026-11-01T00:00:00Z&ends_at=2026-11-02T00:00:00Z",
            "analytics_not_found",
            "Analytics not found",
        ),
        (
            "/v1/projects/prj_missing/pii-labels",
            "pii_labels_not_found",
            "Personal-data findings not found",
        ),
    ];
    for (path, kind, title) in cases {
        let reply = get(&base, path, ENTERPRISE_ADMIN).await;
        assert_eq!(reply.status, 404, "{path}");
        let error = reply.error();
        assert_eq!(error["type"], kind, "{path}");
        assert_eq!(error["title"], title, "{path}");
    }
    // A project of another workspace answers the same.
    let globex = first_project(&demo(), BUSINESS_WS);
    let reply = get(
        &base,
        &format!("/v1/projects/{globex}/analytics/realtime"),
        ENTERPRISE_ADMIN,
    )
    .await;
    assert_eq!(reply.error()["type"], "analytics_not_found");
}
