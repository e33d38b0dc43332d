//! Project operations (get, update, delete) and the publish lifecycle.

use reqwest::Method;
use serde_json::{Value, json};
use time::Duration;
use vantage::server::auth::Feature;

use crate::common::items;
use crate::common::*;
use crate::server::support::*;

const DEPLOYMENT_FIELDS: [&str; 5] = ["id", "status", "url", "error_class", "error_message"];

/// A published project with a custom audience, as the demo fixture holds it.
fn team_hub() -> Value {
    items::project(json!({
        "id": "prj_7c9bcbec550e",
        "name": "Team hub",
        "created_at": "2026-04-02T21:11:00.000Z",
        "last_edited_at": "2026-11-18T04:27:00.000Z",
        "latest_commit_sha": "25dc2a4bf8db59ef12ae30237b17df1400000007",
        "latest_screenshot_url": "https://screenshots.vantage.invalid/prj_7c9bcbec550e.png",
        "owner_id": "082cd0f2-ad67-400a-98df-9f60b823b71d",
        "workspace_id": "ws_acme",
        "preview_url": "https://preview--prj_7c9bcbec550e.vantage.invalid",
        "publish_audience": "custom",
        "publish_audience_targets": [{"id": "grp_e1cb3d", "type": "group"}],
    }))
}

/// An unpublished project with no name and no visibility setting.
fn unnamed() -> Value {
    items::project(json!({
        "id": "prj_fa126dc634f5",
        "name": null,
        "description": "Internal portal where customers file support tickets and follow their status.",
        "created_at": "2025-11-17T10:01:00.000Z",
        "last_edited_at": "2026-10-25T07:58:00.000Z",
        "latest_commit_sha": "22f412a8abca403b37be58e8d7213bbc0000000c",
        "latest_screenshot_url": "https://screenshots.vantage.invalid/prj_fa126dc634f5.png",
        "owner_id": "742a4fc3-d75c-4592-86f1-b862eaf82f39",
        "workspace_id": "ws_acme",
        "is_published": false,
        "preview_url": "https://preview--prj_fa126dc634f5.vantage.invalid",
        "publish_audience": null,
        "visibility": null,
    }))
}

fn with(mut base: Value, changes: Value) -> Value {
    for (key, value) in changes.as_object().unwrap() {
        base[key] = value.clone();
    }
    base
}

/// A project body, checked for the contract's field order.
fn project(reply: &Reply) -> Value {
    // The builder lists the contract's fields in its order.
    let contract: Vec<String> = items::project(json!({}))
        .as_object()
        .expect("an object")
        .keys()
        .cloned()
        .collect();
    assert_eq!(top_level_keys(&reply.text), contract, "{}", reply.text);
    reply.json()
}

fn deployment(reply: &Reply) -> Value {
    assert_eq!(
        top_level_keys(&reply.text),
        DEPLOYMENT_FIELDS,
        "{}",
        reply.text
    );
    reply.json()
}

async fn get_project(base: &str, id: &str) -> Value {
    let reply = get(base, &format!("/v1/projects/{id}"), ENTERPRISE_ADMIN).await;
    assert_eq!(reply.status, 200, "{}", reply.text);
    project(&reply)
}

fn not_found(kind: &str, title: &str) -> Value {
    json!({
        "type": kind, "title": title, "status": 404,
        "detail": null, "errors": null, "props": null,
    })
}

#[tokio::test]
async fn get_returns_the_literal_project() {
    let (server, _clock) = demo_server().await;
    let base = server.base_url();
    for expected in [team_hub(), unnamed()] {
        let id = expected["id"].as_str().unwrap();
        assert_eq!(get_project(&base, id).await, expected, "{id}");
    }
}

#[tokio::test]
async fn update_changes_only_the_given_fields() {
    let (server, _clock) = demo_server().await;
    let base = server.base_url();
    let path = "/v1/projects/prj_7c9bcbec550e";
    // Each step applies to the result of the previous one.
    let steps: Vec<(&str, Value)> = vec![
        (
            r#"{"name":"  Spaced name  "}"#,
            json!({"name": "  Spaced name  "}),
        ),
        (
            r#"{"visibility":"workspace_view"}"#,
            json!({"visibility": "workspace_view"}),
        ),
        (
            r#"{"name":"Café · Menü (v2)","visibility":"restricted"}"#,
            json!({"name": "Café · Menü (v2)", "visibility": "restricted"}),
        ),
        ("{}", json!({})),
        ("  { }  ", json!({})),
    ];
    let mut expected = team_hub();
    for (body, changes) in steps {
        expected = with(expected, changes);
        let reply = call(Method::PATCH, &base, path)
            .key(ENTERPRISE_ADMIN)
            .json(body)
            .send()
            .await;
        assert_eq!(reply.status, 200, "{body}: {}", reply.text);
        assert_eq!(project(&reply), expected, "{body}: the response");
        assert_eq!(
            get_project(&base, "prj_7c9bcbec550e").await,
            expected,
            "{body}: a later GET"
        );
    }
    // A project with no visibility setting gets one.
    let reply = call(Method::PATCH, &base, "/v1/projects/prj_fa126dc634f5")
        .key(ENTERPRISE_ADMIN)
        .json(r#"{"visibility":"workspace_edit","name":"Named at last"}"#)
        .send()
        .await;
    let expected = with(
        unnamed(),
        json!({"name": "Named at last", "visibility": "workspace_edit"}),
    );
    assert_eq!(project(&reply), expected);
}

/// Delete answers 204, then the project is gone for every operation; with and
/// without trash.
#[tokio::test]
async fn delete_then_every_operation_answers_project_not_found() {
    for trash in [true, false] {
        let (server, _clock) = server_with(|config| {
            if !trash {
                for workspace in &mut config.fixture.workspaces {
                    workspace.features.retain(|f| *f != Feature::Trash);
                }
            }
        })
        .await;
        let base = server.base_url();
        let path = "/v1/projects/prj_7c9bcbec550e";
        let deleted = call(Method::DELETE, &base, path)
            .key(ENTERPRISE_ADMIN)
            .send()
            .await;
        assert_eq!(deleted.status, 204, "trash {trash}: {}", deleted.text);
        assert_eq!(deleted.text, "");
        let rows: Vec<(&str, Call)> = vec![
            ("get", call(Method::GET, &base, path)),
            ("delete again", call(Method::DELETE, &base, path)),
            (
                "update",
                call(Method::PATCH, &base, path).json(r#"{"name":"x"}"#),
            ),
            (
                "unpublish",
                call(Method::DELETE, &base, &format!("{path}/publish")),
            ),
            (
                "publish",
                call(Method::POST, &base, &format!("{path}/publish")),
            ),
        ];
        for (name, request) in rows {
            let reply = request.key(ENTERPRISE_ADMIN).send().await;
            assert_eq!(reply.status, 404, "trash {trash}, {name}: {}", reply.text);
            assert_eq!(
                reply.error(),
                not_found("project_not_found", "Project not found"),
                "trash {trash}, {name}"
            );
        }
        // Other projects are untouched.
        assert_eq!(get_project(&base, "prj_fa126dc634f5").await, unnamed());
    }
}

/// Unpublish twice, publish again: the retained audience comes back.
#[tokio::test]
async fn unpublish_and_publish_again_keep_the_audience() {
    let (server, clock) = demo_server().await;
    let base = server.base_url();
    let path = "/v1/projects/prj_7c9bcbec550e";
    let offline = with(
        team_hub(),
        json!({"is_published": false, "publish_audience": null, "publish_audience_targets": []}),
    );
    for attempt in ["first", "repeat"] {
        let reply = call(Method::DELETE, &base, &format!("{path}/publish"))
            .key(ENTERPRISE_ADMIN)
            .send()
            .await;
        assert_eq!(reply.status, 204, "{attempt}: {}", reply.text);
        assert_eq!(reply.text, "", "{attempt}");
        assert_eq!(
            get_project(&base, "prj_7c9bcbec550e").await,
            offline,
            "{attempt}"
        );
    }
    let started = call(Method::POST, &base, &format!("{path}/publish"))
        .key(ENTERPRISE_ADMIN)
        .send()
        .await;
    assert_eq!(started.status, 202, "{}", started.text);
    let mut running = deployment(&started);
    let id = running["id"].as_str().unwrap().to_owned();
    assert!(id.starts_with("dpl_") && id.len() > 4, "{id}");
    running["id"] = Value::from("<id>");
    assert_eq!(
        running,
        json!({"id": "<id>", "status": "running", "url": null, "error_class": null, "error_message": null})
    );
    let poll = || async {
        let reply = get(&base, &format!("{path}/publish/{id}"), ENTERPRISE_READONLY).await;
        assert_eq!(reply.status, 200, "{}", reply.text);
        let mut body = deployment(&reply);
        assert_eq!(body["id"], Value::from(id.as_str()));
        body["id"] = Value::from("<id>");
        body
    };
    let still_running = json!({"id": "<id>", "status": "running", "url": null, "error_class": null, "error_message": null});
    assert_eq!(poll().await, still_running);
    clock.advance(Duration::milliseconds(2_999));
    assert_eq!(poll().await, still_running);
    assert_eq!(get_project(&base, "prj_7c9bcbec550e").await, offline);
    clock.advance(Duration::milliseconds(1));
    assert_eq!(
        poll().await,
        json!({
            "id": "<id>", "status": "completed",
            "url": "https://prj_7c9bcbec550e.apps.vantage.invalid",
            "error_class": null, "error_message": null,
        })
    );
    assert_eq!(get_project(&base, "prj_7c9bcbec550e").await, team_hub());
}

/// Which audience a finished deployment publishes with.
#[tokio::test]
async fn publish_audience_comes_from_the_request_or_the_retained_setting() {
    let (server, clock) = demo_server().await;
    let base = server.base_url();
    // (project, body, audience once published)
    let rows = [
        // Offline with a retained `public` audience.
        ("prj_58e7dc71d1bb", None, "public"),
        (
            "prj_a3dfe46afc24",
            Some(r#"{"audience":"workspace"}"#),
            "workspace",
        ),
        // Never published, nothing retained: public.
        ("prj_2353359fe650", None, "public"),
        ("prj_99548b8c5d35", Some(r#"{"audience":null}"#), "public"),
        ("prj_5384ea428872", Some("{}"), "public"),
    ];
    for (project, body, _) in rows {
        let mut request = call(
            Method::POST,
            &base,
            &format!("/v1/projects/{project}/publish"),
        )
        .key(ENTERPRISE_ADMIN);
        if let Some(body) = body {
            request = request.json(body);
        }
        let reply = request.send().await;
        assert_eq!(reply.status, 202, "{project}: {}", reply.text);
    }
    clock.advance(Duration::seconds(3));
    for (project, _, audience) in rows {
        let shown = get_project(&base, project).await;
        assert_eq!(shown["is_published"], Value::Bool(true), "{project}");
        assert_eq!(
            shown["publish_audience"],
            Value::from(audience),
            "{project}"
        );
        assert_eq!(shown["publish_audience_targets"], json!([]), "{project}");
    }
}

#[tokio::test]
async fn a_project_with_code_errors_fails_to_deploy() {
    let (server, clock) = demo_server().await;
    let base = server.base_url();
    let started = call(Method::POST, &base, "/v1/projects/prj_fa126dc634f5/publish")
        .key(ENTERPRISE_ADMIN)
        .send()
        .await;
    assert_eq!(started.status, 202, "{}", started.text);
    let id = started.json()["id"].as_str().unwrap().to_owned();
    assert_eq!(started.json()["status"], "running");
    clock.advance(Duration::seconds(4));
    let reply = get(
        &base,
        &format!("/v1/projects/prj_fa126dc634f5/publish/{id}"),
        ENTERPRISE_ADMIN,
    )
    .await;
    assert_eq!(
        deployment(&reply),
        json!({
            "id": id, "status": "error", "url": null, "error_class": "code",
            "error_message": "build failed: 1 error in the project's code",
        })
    );
    // The project stays offline.
    assert_eq!(get_project(&base, "prj_fa126dc634f5").await, unnamed());
}

#[tokio::test]
async fn publish_refusals() {
    let (server, _clock) = demo_server().await;
    let base = server.base_url();
    let critical = call(Method::POST, &base, "/v1/projects/prj_ecc3deb7d635/publish")
        .key(ENTERPRISE_ADMIN)
        .send()
        .await;
    assert_eq!(critical.status, 403, "{}", critical.text);
    assert_eq!(
        critical.error(),
        json!({
            "type": "security_critical_findings", "title": "Security critical findings",
            "status": 403,
            "detail": "critical security findings block publishing; fix them and scan again",
            "errors": null,
            "props": {"finding_refs": ["prj_ecc3deb7d635:exposed_secret:1"]},
        })
    );
    let bad_audience = call(Method::POST, &base, "/v1/projects/prj_2353359fe650/publish")
        .key(ENTERPRISE_ADMIN)
        .json(r#"{"audience":"everyone"}"#)
        .send()
        .await;
    assert_eq!(bad_audience.status, 400);
    assert_eq!(
        bad_audience.error()["errors"],
        json!([{"message": "audience must be one of: public, workspace, custom", "location": "body.audience"}])
    );
    let unknown = get(
        &base,
        "/v1/projects/prj_2353359fe650/publish/dpl_missing",
        ENTERPRISE_ADMIN,
    )
    .await;
    assert_eq!(
        unknown.error(),
        not_found("deployment_not_found", "Deployment not found")
    );
}

/// PATCH publish sets the audience and its targets; shown at once when the app is
/// online, and applied at the next publish when it is offline.
#[tokio::test]
async fn update_publish_settings() {
    let (server, clock) = demo_server().await;
    let base = server.base_url();
    let settings = |project: &str, body: &'static str| {
        call(
            Method::PATCH,
            &base,
            &format!("/v1/projects/{project}/publish"),
        )
        .key(ENTERPRISE_ADMIN)
        .json(body)
    };
    let targets = json!([
        {"id": "grp_support", "type": "group"},
        {"id": "5600c17c-292a-4b1b-919b-ac450de43b43", "type": "user"},
    ]);
    // Online: the response and a later GET show the new audience.
    let reply = settings(
        "prj_7c9bcbec550e",
        r#"{"audience":"custom","audience_targets":[{"id":"grp_support","type":"group"},{"id":"5600c17c-292a-4b1b-919b-ac450de43b43","type":"user"}]}"#,
    )
    .send()
    .await;
    // The answer is the resolved settings (DESIGN.md), not the project.
    assert_eq!(
        top_level_keys(&reply.text),
        ["audience", "audience_targets"],
        "{}",
        reply.text
    );
    assert_eq!(
        reply.json(),
        json!({"audience": "custom", "audience_targets": targets})
    );
    let expected = with(team_hub(), json!({"publish_audience_targets": targets}));
    assert_eq!(get_project(&base, "prj_7c9bcbec550e").await, expected);
    // Another audience drops the targets.
    let reply = settings("prj_7c9bcbec550e", r#"{"audience":"workspace"}"#)
        .send()
        .await;
    assert_eq!(
        reply.json(),
        json!({"audience": "workspace", "audience_targets": []})
    );
    let expected = with(
        team_hub(),
        json!({"publish_audience": "workspace", "publish_audience_targets": []}),
    );
    assert_eq!(get_project(&base, "prj_7c9bcbec550e").await, expected);
    // Offline: nothing shows until the next publish.
    let reply = settings(
        "prj_fa126dc634f5",
        r#"{"audience":"custom","audience_targets":[{"id":"grp_ops","type":"group"}]}"#,
    )
    .send()
    .await;
    assert_eq!(
        reply.json(),
        json!({"audience": "custom", "audience_targets": [{"id": "grp_ops", "type": "group"}]})
    );
    assert_eq!(get_project(&base, "prj_fa126dc634f5").await, unnamed());
    let reply = settings(
        "prj_2353359fe650",
        r#"{"audience":"custom","audience_targets":[{"id":"grp_ops","type":"group"}]}"#,
    )
    .send()
    .await;
    assert_eq!(reply.status, 200);
    let publish = call(Method::POST, &base, "/v1/projects/prj_2353359fe650/publish")
        .key(ENTERPRISE_ADMIN)
        .send()
        .await;
    assert_eq!(publish.status, 202);
    clock.advance(Duration::seconds(3));
    let shown = get_project(&base, "prj_2353359fe650").await;
    assert_eq!(shown["publish_audience"], "custom");
    assert_eq!(
        shown["publish_audience_targets"],
        json!([{"id": "grp_ops", "type": "group"}])
    );

    let invalid = |location: &str, message: &str| {
        json!({
            "type": "invalid_request", "title": "Invalid request", "status": 400,
            "detail": "validation failed",
            "errors": [{"message": message, "location": location}], "props": null,
        })
    };
    let rows: Vec<(&'static str, Value)> = vec![
        ("{}", invalid("body.audience", "audience is required")),
        (
            r#"{"audience":"everyone"}"#,
            invalid(
                "body.audience",
                "audience must be one of: public, workspace, custom",
            ),
        ),
        (
            r#"{"audience":"public","audience_targets":[{"id":"grp_ops","type":"group"}]}"#,
            invalid(
                "body.audience_targets",
                "audience_targets may be given only with the custom audience",
            ),
        ),
        (
            r#"{"audience":"custom","audience_targets":{"id":"grp_ops"}}"#,
            invalid("body.audience_targets", "audience_targets must be an array"),
        ),
        (
            r#"{"audience":"custom","audience_targets":[{"id":"grp_ops","type":"group"},{"id":"","type":"group"}]}"#,
            invalid(
                "body.audience_targets[1]",
                "each target needs a non-empty id and a type of group or user",
            ),
        ),
        (
            r#"{"audience":"custom","audience_targets":[{"id":"org_1","type":"organization"}]}"#,
            invalid(
                "body.audience_targets[0]",
                "each target needs a non-empty id and a type of group or user",
            ),
        ),
        (
            r#"{"audience":"custom","visibility":"restricted"}"#,
            invalid(
                "body.visibility",
                "visibility is not a field this operation accepts",
            ),
        ),
    ];
    for (body, expected) in rows {
        let reply = settings("prj_7c9bcbec550e", body).send().await;
        assert_eq!(reply.status, 400, "{body}: {}", reply.text);
        assert_eq!(reply.error(), expected, "{body}");
    }
    // The refused requests changed nothing.
    assert_eq!(
        get_project(&base, "prj_7c9bcbec550e").await["publish_audience"],
        "workspace"
    );
}

/// The store keeps the wire Project itself: a project given as literal JSON
/// in a fixture is served field for field, a write is kept in the database
/// file, and a server started again on that file serves the same project.
/// The fixture's server-only fields (`updated_at`, `security`, …) are never
/// shown; the audience is the setting, shown only while published.
#[tokio::test]
async fn a_fixture_project_is_stored_and_served_as_written() {
    let fixture_text = r#"{
      "workspaces": [{"id": "ws_t", "name": "T", "plan": "enterprise", "created_at": "2026-01-01T00:00:00Z"}],
      "users": [{"id": "6f1c0e43-2f0a-4a5e-9a43-6a1c7f1e2b3d"}],
      "keys": [{"label": "admin", "key": "vtg_test_admin", "workspace_id": "ws_t",
                "scopes": ["projects:read", "projects:write"]}],
      "projects": [{"id": "prj_t", "workspace_id": "ws_t", "name": "Budget tracker",
                    "description": "Tracks budgets", "created_at": "2026-01-02T03:04:05Z",
                    "updated_at": "2026-02-01T00:00:00Z", "last_edited_at": "2026-01-30T10:00:00.5Z",
                    "latest_commit_sha": "abc123", "latest_screenshot_url": "https://s.example/p.png",
                    "owner_id": "6f1c0e43-2f0a-4a5e-9a43-6a1c7f1e2b3d",
                    "preview_url": "https://preview.example", "is_published": true,
                    "publish_audience": "custom",
                    "publish_audience_targets": [{"id": "grp_1", "type": "group"}],
                    "visibility": "workspace_view", "published_url": "https://budget.example",
                    "security": {"risk_score": 3}, "activity": {"edit_count": 2}}]
    }"#;
    let served = json!({
        "id": "prj_t",
        "name": "Budget tracker",
        "description": "Tracks budgets",
        "created_at": "2026-01-02T03:04:05.000Z",
        "last_edited_at": "2026-01-30T10:00:00.500Z",
        "latest_commit_sha": "abc123",
        "latest_screenshot_url": "https://s.example/p.png",
        "owner_id": "6f1c0e43-2f0a-4a5e-9a43-6a1c7f1e2b3d",
        "workspace_id": "ws_t",
        "is_published": true,
        "preview_url": "https://preview.example",
        "publish_audience": "custom",
        "publish_audience_targets": [{"id": "grp_1", "type": "group"}],
        "visibility": "workspace_view"
    });
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("v.db");
    let fixture = vantage::server::seed::parse_fixture(fixture_text, "test", T0).unwrap();
    let (server, _clock) = server_with(|config| {
        config.fixture = fixture;
        config.db = Some(db.clone());
    })
    .await;
    let base = server.base_url();
    let read = get(&base, "/v1/projects/prj_t", "vtg_test_admin").await;
    assert_eq!(read.status, 200, "{}", read.text);
    assert_eq!(project(&read), served);

    let renamed = call(Method::PATCH, &base, "/v1/projects/prj_t")
        .key("vtg_test_admin")
        .json(r#"{"name": "Budget tracker 2"}"#)
        .send()
        .await;
    assert_eq!(renamed.status, 200, "{}", renamed.text);
    let unpublished = call(Method::DELETE, &base, "/v1/projects/prj_t/publish")
        .key("vtg_test_admin")
        .send()
        .await;
    assert_eq!(unpublished.status, 204, "{}", unpublished.text);
    let mut offline = served.clone();
    offline["name"] = json!("Budget tracker 2");
    offline["is_published"] = json!(false);
    offline["publish_audience"] = Value::Null;
    offline["publish_audience_targets"] = json!([]);
    assert_eq!(
        get(&base, "/v1/projects/prj_t", "vtg_test_admin")
            .await
            .json(),
        offline
    );
    server.stop().await;

    // Started again on the file (its fixture ignored): the same project.
    let (again, _clock) = server_with(|config| config.db = Some(db.clone())).await;
    let reread = get(&again.base_url(), "/v1/projects/prj_t", "vtg_test_admin").await;
    assert_eq!(reread.status, 200, "{}", reread.text);
    assert_eq!(reread.json(), offline);
}
