//! The client on the shapes the real service's reference settles: workspaces,
//! project summaries on `GET /v1/projects`, and `PATCH /publish` answering the
//! resolved settings, reconciled after an unknown outcome.

use futures::TryStreamExt;
use vantage::api::model::{AudienceTarget, PublishAudience, PublishSettings, WorkspacePlan};
use vantage::api::{ApiError, ConfigError, PageParams, ProjectListParams};

use crate::client::support::client;
use crate::common::*;

#[tokio::test]
async fn workspaces_and_project_summaries_come_back_typed() {
    let (server, clock) = demo_server().await;
    let harness = client(&server, &clock, ENTERPRISE_READONLY, |_| {});
    let client = &harness.client;
    let workspaces: Vec<_> = client
        .workspaces_stream(PageParams::default())
        .try_collect()
        .await
        .unwrap();
    assert_eq!(workspaces.len(), 1);
    assert_eq!(workspaces[0].id, ENTERPRISE_WS);
    assert_eq!(workspaces[0].plan, Some(WorkspacePlan::Enterprise));
    assert_eq!(workspaces[0].num_projects, Some(64));
    let one = client.get_workspace(ENTERPRISE_WS).await.unwrap();
    assert_eq!(one, workspaces[0]);

    let params = ProjectListParams {
        workspace_id: vec![ENTERPRISE_WS.to_owned()],
        limit: Some(3),
    };
    let first = client.list_projects(&params, None).await.unwrap();
    assert_eq!(first.data.len(), 3);
    assert!(first.pagination.has_more);
    let second = client
        .list_projects(&params, first.pagination.next_cursor.as_deref())
        .await
        .unwrap();
    assert!(second.data.iter().all(|p| !first.data.contains(p)));

    // Refused before sending: none, or more than 10 workspaces.
    for workspace_id in [vec![], (0..11).map(|n| format!("ws_{n}")).collect()] {
        let refused = client
            .list_projects(
                &ProjectListParams {
                    workspace_id,
                    limit: None,
                },
                None,
            )
            .await;
        assert!(
            matches!(
                refused,
                Err(ApiError::Config(ConfigError::InvalidArgument {
                    name: "workspace_id",
                    ..
                }))
            ),
            "{refused:?}"
        );
    }
}

#[tokio::test]
async fn publish_settings_of_unknown_outcome_are_compared_on_the_project_read_back() {
    let (server, clock) = server_with(|config| {
        config.faults = "timeout-after-commit=1.0".parse().unwrap();
    })
    .await;
    let harness = client(&server, &clock, ENTERPRISE_ADMIN, |_| {});
    // A published project: its audience shows on the project.
    let settings = PublishSettings {
        audience: PublishAudience::Custom,
        audience_targets: vec![AudienceTarget {
            id: "grp_support".into(),
            kind: "group".into(),
        }],
    };
    let resolved = harness
        .client
        .update_publish_settings("prj_7c9bcbec550e", &settings)
        .await
        .unwrap();
    assert_eq!(resolved.audience, Some(PublishAudience::Custom));
    assert_eq!(resolved.audience_targets, settings.audience_targets);
    let sent: Vec<(String, Option<u16>)> = harness
        .attempts()
        .iter()
        .map(|a| (a.method.clone(), a.status))
        .collect();
    assert_eq!(
        sent,
        [("PATCH".into(), Some(503)), ("GET".into(), Some(200))],
        "the PATCH was sent once, then the settings compared on the project"
    );
}

/// Offline, the project does not show its audience, so the change cannot be
/// seen on a read back: the (repeatable) PATCH is sent once more, and when its
/// outcome is unknown too the caller is told so.
#[tokio::test]
async fn publish_settings_of_an_offline_project_are_sent_once_more() {
    let (server, clock) = server_with(|config| {
        config.faults = "timeout-after-commit=1.0".parse().unwrap();
    })
    .await;
    let harness = client(&server, &clock, ENTERPRISE_ADMIN, |_| {});
    let settings = PublishSettings {
        audience: PublishAudience::Workspace,
        audience_targets: vec![],
    };
    let result = harness
        .client
        .update_publish_settings("prj_fa126dc634f5", &settings)
        .await;
    let error = result.expect_err("the outcome stays unknown");
    assert!(error.is_unknown_outcome(), "{error}");
    let sent: Vec<(String, Option<u16>)> = harness
        .attempts()
        .iter()
        .map(|a| (a.method.clone(), a.status))
        .collect();
    assert_eq!(
        sent,
        [
            ("PATCH".into(), Some(503)),
            ("GET".into(), Some(200)),
            ("PATCH".into(), Some(503)),
            ("GET".into(), Some(200)),
        ]
    );
    // Both went through: the setting is stored for the next publish.
    let stored = server.app.store.read(|data| {
        data.projects["prj_fa126dc634f5"]
            .wire
            .publish_audience
            .clone()
    });
    assert_eq!(stored, Some(PublishAudience::Workspace));
}
