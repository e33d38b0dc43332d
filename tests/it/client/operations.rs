//! Every operation through the client against the reference server: the typed
//! error the contract names for each demo credential, typed results, the auth
//! schemes and the version pin.

use futures::TryStreamExt;
use time::Duration as TimeDuration;
use vantage::api::model::{
    ErrorType, ProjectUpdate, PublishAudience, PublishRequest, PublishSettings, ReviewPriority,
    Role, Visibility,
};
use vantage::api::{
    ApiError, AuthScheme, Client, InventoryParams, MemberListParams, PageParams, ProjectListParams,
};
use vantage::server::store::Fixture;

use crate::client::support::client;
use crate::common::*;

/// The ids one credential's calls use, all in its own workspace.
struct Targets {
    workspace: String,
    project: String,
    scan: String,
    member: String,
}

fn targets(fixture: &Fixture, workspace: &str) -> Targets {
    let scanned = |id: &str| fixture.scans.iter().find(|s| s.project_id == id);
    let candidates: Vec<_> = fixture
        .projects
        .iter()
        .filter(|p| {
            p.wire.workspace_id == workspace
                && p.analytics.is_some()
                && p.security.values.secret_count == 0
        })
        .collect();
    let project = candidates
        .iter()
        .find(|p| scanned(&p.wire.id).is_some())
        .or(candidates.first())
        .expect("a published, publishable project");
    Targets {
        workspace: workspace.to_owned(),
        project: project.wire.id.clone(),
        scan: scanned(&project.wire.id).map_or("scan_missing".to_owned(), |s| s.scan.id.clone()),
        member: fixture
            .memberships
            .iter()
            .find(|m| m.workspace_id == workspace && m.status == "active")
            .expect("an active member")
            .user_id
            .clone(),
    }
}

const OPERATIONS: [&str; 20] = [
    "get_project",
    "get_realtime",
    "get_breakdowns",
    "list_pii",
    "get_deployment",
    "create_embed_url",
    "get_security_scan",
    "list_scan_findings",
    "get_member",
    "list_members",
    "get_insights",
    "list_inventory",
    "list_projects",
    "list_workspaces",
    "get_workspace",
    "update_project",
    "update_publish_settings",
    "publish_project",
    "unpublish_project",
    "delete_project",
];

async fn run(client: &Client, t: &Targets, operation: &str) -> Result<(), ApiError> {
    let page = PageParams::default();
    match operation {
        "get_project" => client.get_project(&t.project).await.map(drop),
        "get_realtime" => client.get_realtime(&t.project).await.map(drop),
        "get_breakdowns" => client
            .get_breakdowns(&t.project, T0 - TimeDuration::days(7), T0)
            .await
            .map(drop),
        "list_pii" => client.list_pii(&t.project, &page, None).await.map(drop),
        "get_deployment" => client
            .get_deployment(&t.project, "dpl_missing")
            .await
            .map(drop),
        "create_embed_url" => client
            .create_embed_url(&t.project, "https://example.com")
            .await
            .map(drop),
        "get_security_scan" => client
            .get_security_scan(&t.project, &t.scan)
            .await
            .map(drop),
        "list_scan_findings" => client
            .list_scan_findings(&t.project, &t.scan, &page, None)
            .await
            .map(drop),
        "get_member" => client.get_member(&t.workspace, &t.member).await.map(drop),
        "list_members" => client
            .list_members(&t.workspace, &MemberListParams::default(), None)
            .await
            .map(drop),
        "get_insights" => client.get_insights(&t.workspace, &[]).await.map(drop),
        "list_inventory" => client
            .list_inventory(&t.workspace, &InventoryParams::default(), None)
            .await
            .map(drop),
        "list_projects" => client
            .list_projects(
                &ProjectListParams {
                    workspace_id: vec![t.workspace.clone()],
                    limit: None,
                },
                None,
            )
            .await
            .map(drop),
        "list_workspaces" => client.list_workspaces(&page, None).await.map(drop),
        "get_workspace" => client.get_workspace(&t.workspace).await.map(drop),
        "update_project" => client
            .update_project(
                &t.project,
                &ProjectUpdate {
                    name: Some("Renamed by the table".into()),
                    visibility: None,
                },
            )
            .await
            .map(drop),
        "update_publish_settings" => client
            .update_publish_settings(
                &t.project,
                &PublishSettings {
                    audience: PublishAudience::Workspace,
                    audience_targets: vec![],
                },
            )
            .await
            .map(drop),
        "publish_project" => client
            .publish_project(&t.project, &PublishRequest::default())
            .await
            .map(drop),
        "unpublish_project" => client.unpublish_project(&t.project).await,
        "delete_project" => client.delete_project(&t.project).await,
        other => panic!("no operation {other}"),
    }
}

/// What the contract says a credential gets from one operation.
fn outcome(result: &Result<(), ApiError>) -> String {
    match result {
        Ok(()) => "ok".into(),
        Err(error) => match error.kind() {
            Some(ErrorType::InsufficientScope) => {
                format!("scope:{}", error.required_scopes().join("|"))
            }
            Some(ErrorType::PaymentRequired) => match error.required_plan() {
                Some(plan) => format!("plan:{plan}"),
                None => format!("features:{}", error.required_features().join("|")),
            },
            Some(kind) => kind.to_string(),
            None => format!("unexpected: {error}"),
        },
    }
}

const PR: &str = "scope:projects:read|projects:write";
const PW: &str = "scope:projects:write";
const WR: &str = "scope:workspaces:read|workspaces:write";
const BIZ: &str = "plan:business";
const ENT: &str = "plan:enterprise";
const NO_DPL: &str = "deployment_not_found";

#[rustfmt::skip]
const TABLE: [(&str, &str, [&str; 20]); 6] = [
    //                                    get   realtime breakdowns pii deployment embed scan findings member members insights inventory projects workspaces workspace | patch publish_settings publish unpublish delete
    (ENTERPRISE_ADMIN, ENTERPRISE_WS,    ["ok", "ok", "ok", "ok", NO_DPL, "ok", "ok", "ok", "ok", "ok", "ok", "ok", "ok", "ok", "ok", "ok", "ok", "ok", "ok", "ok"]),
    (ENTERPRISE_READONLY, ENTERPRISE_WS, ["ok", "ok", "ok", "ok", NO_DPL, PW, "ok", "ok", "ok", "ok", "ok", "ok", "ok", "ok", "ok", PW, PW, PW, PW, PW]),
    (PROJECTS_READ, ENTERPRISE_WS,       ["ok", "ok", "ok", "ok", NO_DPL, PW, "ok", "ok", WR, WR, WR, WR, WR, WR, WR, PW, PW, PW, PW, PW]),
    (WORKSPACES_READ, ENTERPRISE_WS,     [PR, PR, PR, PR, PR, PW, PR, PR, "ok", "ok", "ok", "ok", "ok", "ok", "ok", PW, PW, PW, PW, PW]),
    (BUSINESS_ADMIN, BUSINESS_WS,        ["ok", "ok", "ok", ENT, NO_DPL, "ok", "ok", "ok", "ok", "ok", "ok", ENT, "ok", "ok", "ok", "ok", "ok", "ok", "ok", "ok"]),
    (PRO_ADMIN, PRO_WS,                  [BIZ, BIZ, BIZ, ENT, BIZ, BIZ, BIZ, BIZ, BIZ, BIZ, BIZ, ENT, BIZ, BIZ, BIZ, BIZ, BIZ, BIZ, BIZ, BIZ]),
];

#[tokio::test]
async fn each_credential_gets_the_contracts_answer_from_each_operation() {
    let fixture = demo();
    let mut mismatches = Vec::new();
    for (key, workspace, expected) in TABLE {
        // A fresh server per credential: the mutations change state.
        let (server, clock) = demo_server().await;
        let harness = client(&server, &clock, key, |_| {});
        let t = targets(&fixture, workspace);
        for (operation, want) in OPERATIONS.iter().zip(expected) {
            let got = outcome(&run(&harness.client, &t, operation).await);
            if got != want {
                mismatches.push(format!("{key} {operation}: got {got}, want {want}"));
            }
        }
    }
    assert!(mismatches.is_empty(), "{mismatches:#?}");
}

#[tokio::test]
async fn lists_come_back_typed_and_streams_cover_every_page() {
    let (server, clock) = demo_server().await;
    let harness = client(&server, &clock, ENTERPRISE_ADMIN, |_| {});
    let client = &harness.client;

    let filtered = InventoryParams {
        limit: Some(5),
        finding_type_id: vec!["public_security_exposure".into()],
        ..Default::default()
    };
    let page = client
        .list_inventory(ENTERPRISE_WS, &filtered, None)
        .await
        .unwrap();
    let applied = page
        .applied_finding
        .as_ref()
        .expect("one finding type given");
    assert_eq!(applied.id, "public_security_exposure");
    assert_eq!(applied.project_count, page.total);
    let streamed: Vec<_> = client
        .inventory_stream(ENTERPRISE_WS, filtered)
        .try_collect()
        .await
        .unwrap();
    assert_eq!(streamed.len() as i64, page.total);

    let all: Vec<_> = client
        .projects_stream(ProjectListParams {
            workspace_id: vec![ENTERPRISE_WS.to_owned()],
            limit: Some(7),
        })
        .try_collect()
        .await
        .unwrap();
    assert_eq!(all.len(), 64);
    // Last edited first (by update time when never edited), then by id.
    let order: Vec<_> = all.iter().map(|project| project.last_edited_at).collect();
    assert!(
        order
            .windows(2)
            .all(|pair| pair[0].is_none() || pair[1].is_none() || pair[0] >= pair[1]),
        "{order:?}"
    );

    let admins = MemberListParams {
        limit: Some(3),
        role: vec![Role::Owner, Role::Admin],
        ..Default::default()
    };
    let first = client
        .list_members(ENTERPRISE_WS, &admins, None)
        .await
        .unwrap();
    let owners_and_admins: Vec<_> = client
        .members_stream(ENTERPRISE_WS, admins)
        .try_collect()
        .await
        .unwrap();
    assert!(
        owners_and_admins.len() > first.data.len(),
        "more than one page"
    );
    for member in owners_and_admins.iter().take(3) {
        let detail = client
            .get_member(ENTERPRISE_WS, &member.user_id)
            .await
            .unwrap();
        assert_eq!(detail.user_id, member.user_id);
    }

    let insights = client
        .get_insights(ENTERPRISE_WS, &[ReviewPriority::NeedsReview])
        .await
        .unwrap();
    assert!(
        insights
            .findings
            .iter()
            .all(|f| f.review_priority == ReviewPriority::NeedsReview)
    );

    let t = targets(&demo(), ENTERPRISE_WS);
    let findings: Vec<_> = client
        .scan_findings_stream(&t.project, &t.scan, PageParams { limit: Some(1) })
        .try_collect()
        .await
        .unwrap();
    let expected = demo()
        .scans
        .iter()
        .find(|s| s.scan.id == t.scan)
        .unwrap()
        .findings
        .len();
    assert_eq!(findings.len(), expected);

    let patched = client
        .update_project(
            &t.project,
            &ProjectUpdate {
                name: None,
                visibility: Some(Visibility::Restricted),
            },
        )
        .await
        .unwrap();
    assert_eq!(patched.visibility, Some(Visibility::Restricted));
}

#[tokio::test]
async fn bearer_auth_and_the_version_pin() {
    let (server, clock) = demo_server().await;
    let project = first_project(&demo(), ENTERPRISE_WS);

    let bearer = client(&server, &clock, ENTERPRISE_ADMIN, |config| {
        config.auth_scheme = AuthScheme::Bearer;
    });
    assert_eq!(
        bearer.client.get_project(&project).await.unwrap().id,
        project
    );

    let wrong_key = client(&server, &clock, "vtg_not_a_key", |_| {});
    let error = wrong_key.client.get_project(&project).await.unwrap_err();
    assert_eq!(error.kind(), Some(&ErrorType::Unauthorized));
    assert!(error.to_string().contains("SERVICE_API_KEY"), "{error}");
    assert!(!error.to_string().contains("vtg_not_a_key"), "{error}");

    let unknown = client(&server, &clock, ENTERPRISE_ADMIN, |config| {
        config.api_version = "2027-01-01".into();
    });
    let error = unknown.client.get_project(&project).await.unwrap_err();
    assert_eq!(error.kind(), Some(&ErrorType::UnknownVersion));
    assert!(error.to_string().contains("api_version"), "{error}");

    let retired = client(&server, &clock, ENTERPRISE_ADMIN, |config| {
        config.api_version = "2026-01-15".into();
    });
    let error = retired.client.get_project(&project).await.unwrap_err();
    assert_eq!(error.kind(), Some(&ErrorType::RetiredVersion));
    assert_eq!(error.status(), Some(410));
    let url = error.migration_url().expect("a migration URL").to_owned();
    assert!(error.to_string().contains(&url), "{error}");
}
