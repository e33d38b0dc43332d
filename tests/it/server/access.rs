//! The scope and plan matrix of the project and publish operations, and
//! workspace isolation.

use reqwest::Method;
use serde_json::{Value, json};

use crate::common::*;
use crate::server::support::*;

#[derive(Clone, Copy, Debug)]
enum Op {
    GetProject,
    UpdateProject,
    CreateEmbedUrl,
    UpdatePublishSettings,
    Publish,
    GetDeployment,
    Unpublish,
    DeleteProject,
}

/// In the order each key runs them: the destructive ones last.
const OPS: [Op; 8] = [
    Op::GetProject,
    Op::UpdateProject,
    Op::CreateEmbedUrl,
    Op::UpdatePublishSettings,
    Op::Publish,
    Op::GetDeployment,
    Op::Unpublish,
    Op::DeleteProject,
];

impl Op {
    fn request(self, base: &str, project: &str, deployment: &str) -> Call {
        let path = format!("/v1/projects/{project}");
        match self {
            Op::GetProject => call(Method::GET, base, &path),
            Op::UpdateProject => call(Method::PATCH, base, &path).json(r#"{"name":"Renamed"}"#),
            Op::DeleteProject => call(Method::DELETE, base, &path),
            Op::Unpublish => call(Method::DELETE, base, &format!("{path}/publish")),
            Op::Publish => call(Method::POST, base, &format!("{path}/publish")),
            Op::GetDeployment => call(Method::GET, base, &format!("{path}/publish/{deployment}")),
            Op::UpdatePublishSettings => call(Method::PATCH, base, &format!("{path}/publish"))
                .json(r#"{"audience":"workspace"}"#),
            Op::CreateEmbedUrl => call(Method::POST, base, &format!("{path}/embed-url"))
                .json(r#"{"parent_origin":"https://example.com"}"#),
        }
    }
}

/// What a key gets from an operation.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Outcome {
    /// Passes every check: the operation's success status.
    Allowed(u16),
    /// 403 `insufficient_scope` with these acceptable scopes.
    Scope(&'static [&'static str]),
    /// 402 with `required_plan`.
    Plan(&'static str),
}

use Outcome::{Allowed, Plan, Scope};

const READ: &[&str] = &["projects:read", "projects:write"];
const WRITE: &[&str] = &["projects:write"];

/// Rows: key, its project, then one outcome per entry of `OPS`.
fn matrix() -> Vec<(&'static str, &'static str, [Outcome; 8])> {
    let admin = [
        Allowed(200),
        Allowed(200),
        Allowed(200),
        Allowed(200),
        Allowed(202),
        Allowed(200),
        Allowed(204),
        Allowed(204),
    ];
    let read_only = [
        Allowed(200),
        Scope(WRITE),
        Scope(WRITE),
        Scope(WRITE),
        Scope(WRITE),
        Allowed(200),
        Scope(WRITE),
        Scope(WRITE),
    ];
    vec![
        (ENTERPRISE_ADMIN, "prj_70256702db4f", admin),
        (ENTERPRISE_READONLY, "prj_2353359fe650", read_only),
        (PROJECTS_READ, "prj_6f93c0dfab43", read_only),
        (
            WORKSPACES_READ,
            "prj_99548b8c5d35",
            [
                Scope(READ),
                Scope(WRITE),
                Scope(WRITE),
                Scope(WRITE),
                Scope(WRITE),
                Scope(READ),
                Scope(WRITE),
                Scope(WRITE),
            ],
        ),
        (BUSINESS_ADMIN, "prj_globex_001", admin),
        (PRO_ADMIN, "prj_initech_001", [Plan("business"); 8]),
    ]
}

/// The admin key of a key's workspace, to create the deployment it reads.
fn admin_of(project: &str) -> Option<&'static str> {
    if project.starts_with("prj_globex") {
        Some(BUSINESS_ADMIN)
    } else if project.starts_with("prj_initech") {
        None
    } else {
        Some(ENTERPRISE_ADMIN)
    }
}

#[tokio::test]
async fn each_key_gets_what_its_scopes_and_plan_allow() {
    let (server, _clock) = demo_server().await;
    let base = server.base_url();
    for (key, project, outcomes) in matrix() {
        // A deployment of the project, made by its workspace's admin.
        let deployment = match admin_of(project) {
            Some(admin) => {
                let reply = Op::Publish
                    .request(&base, project, "")
                    .key(admin)
                    .send()
                    .await;
                assert_eq!(reply.status, 202, "{project}: {}", reply.text);
                reply.json()["id"].as_str().unwrap().to_owned()
            }
            None => "dpl_0000000000000000".to_owned(),
        };
        for (op, outcome) in OPS.iter().zip(outcomes) {
            let reply = op
                .request(&base, project, &deployment)
                .key(key)
                .send()
                .await;
            let name = format!("{key} {op:?}");
            match outcome {
                Allowed(status) => {
                    assert_eq!(reply.status, status, "{name}: {}", reply.text)
                }
                Scope(scopes) => {
                    assert_eq!(reply.status, 403, "{name}: {}", reply.text);
                    assert_eq!(
                        reply.error(),
                        json!({
                            "type": "insufficient_scope", "title": "Insufficient scope",
                            "status": 403,
                            "detail": "the API key lacks a scope this operation needs",
                            "errors": null, "props": {"required_scopes": scopes},
                        }),
                        "{name}"
                    );
                }
                Plan(plan) => {
                    assert_eq!(reply.status, 402, "{name}: {}", reply.text);
                    assert_eq!(
                        reply.error(),
                        json!({
                            "type": "payment_required", "title": "Payment required",
                            "status": 402,
                            "detail": format!("this operation needs the {plan} plan or higher"),
                            "errors": null, "props": {"required_plan": plan},
                        }),
                        "{name}"
                    );
                }
            }
        }
    }
}

/// Another workspace's project answers exactly as a missing one, for every
/// operation, revealing no requirement.
#[tokio::test]
async fn other_workspaces_projects_answer_as_missing() {
    let (server, _clock) = demo_server().await;
    let base = server.base_url();
    let not_found = json!({
        "type": "project_not_found", "title": "Project not found", "status": 404,
        "detail": null, "errors": null, "props": null,
    });
    let rows = [
        (BUSINESS_ADMIN, "prj_70256702db4f"),
        (BUSINESS_ADMIN, "prj_initech_001"),
        (ENTERPRISE_ADMIN, "prj_globex_001"),
        (ENTERPRISE_READONLY, "prj_globex_001"),
    ];
    for (key, foreign) in rows {
        for op in OPS {
            // The deployment id is real for the foreign project in no case here.
            let concealed = op.request(&base, foreign, "dpl_x").key(key).send().await;
            let missing = op
                .request(&base, "prj_missing", "dpl_x")
                .key(key)
                .send()
                .await;
            let name = format!("{key} {op:?} {foreign}");
            if key == ENTERPRISE_READONLY
                && matches!(
                    op,
                    Op::UpdateProject
                        | Op::CreateEmbedUrl
                        | Op::UpdatePublishSettings
                        | Op::Publish
                        | Op::Unpublish
                        | Op::DeleteProject
                )
            {
                // The scope check comes first and is the same for both.
                assert_eq!(concealed.status, 403, "{name}");
                assert_eq!(concealed.error(), missing.error(), "{name}");
                continue;
            }
            assert_eq!(concealed.status, 404, "{name}: {}", concealed.text);
            assert_eq!(concealed.error(), not_found, "{name}");
            assert_eq!(missing.error(), not_found, "{name}");
            assert_eq!(
                concealed.headers.get("content-length"),
                missing.headers.get("content-length"),
                "{name}"
            );
        }
    }
    // Nothing was changed in the other workspaces.
    let untouched = get(&base, "/v1/projects/prj_globex_001", BUSINESS_ADMIN).await;
    assert_eq!(untouched.status, 200);
    assert_eq!(untouched.json()["name"], Value::from("Volunteer planner"));
    assert_eq!(untouched.json()["is_published"], Value::Bool(true));
}
