//! The client against the reference server under injected faults and small
//! rate limits: retries, pacing, the retry budget, mutations of unknown outcome
//! and deployment polling. The client's sleeper moves the server's manual clock,
//! so no test waits for real.

use std::collections::{HashMap, HashSet};
use std::time::Duration;

use futures::TryStreamExt;
use vantage::api::model::{DeploymentStatus, ErrorType, ProjectUpdate, PublishRequest, Visibility};
use vantage::api::{ClientEvent, InventoryParams, PollPolicy, RetryReason};
use vantage::server::ratelimit::RateLimit;
use vantage::server::seed::{self, GenerateSpec};

use crate::client::support::client;
use crate::common::*;

fn acme_projects(count: usize) -> Vec<String> {
    demo()
        .projects
        .iter()
        .filter(|p| p.wire.workspace_id == ENTERPRISE_WS)
        .take(count)
        .map(|p| p.wire.id.clone())
        .collect()
}

#[tokio::test]
async fn a_429_storm_ends_in_success_and_no_retry_comes_before_retry_after() {
    let (server, clock) = server_with(|config| {
        config.faults = "429=0.3,seed=4".parse().unwrap();
    })
    .await;
    let harness = client(&server, &clock, ENTERPRISE_ADMIN, |config| {
        config.retry.max_attempts = 12;
    });
    let ids = acme_projects(40);
    let calls = ids.iter().map(|id| harness.client.get_project(id));
    let projects = futures::future::try_join_all(calls).await.unwrap();
    assert_eq!(
        projects.iter().map(|p| p.id.clone()).collect::<Vec<_>>(),
        ids
    );

    let attempts = harness.attempts();
    let refused = attempts.iter().filter(|a| a.status == Some(429)).count();
    assert!(refused >= 5, "a storm: only {refused} refusals");
    assert_eq!(attempts.len(), ids.len() + refused);
    assert!(
        harness
            .retries()
            .iter()
            .all(|r| *r == RetryReason::RateLimited)
    );
    // Per call, every attempt after a 429 is sent once its Retry-After has passed.
    let mut by_call: HashMap<u64, Vec<_>> = HashMap::new();
    for attempt in &attempts {
        by_call
            .entry(attempt.call)
            .or_default()
            .push(attempt.clone());
    }
    let mut checked = 0;
    for tries in by_call.values() {
        for pair in tries.windows(2) {
            let (before, after) = (&pair[0], &pair[1]);
            assert_eq!(before.status, Some(429));
            assert_eq!(after.attempt, before.attempt + 1);
            let retry_after = before.retry_after.expect("a 429 carries Retry-After");
            let waited = after.sent_at - before.sent_at;
            assert!(
                waited >= retry_after,
                "call {} retried after {waited} < {retry_after:?}",
                before.call
            );
            checked += 1;
        }
    }
    assert_eq!(checked, refused);
}

#[tokio::test]
async fn streaming_10000_projects_under_faults_yields_each_exactly_once() {
    let fixture = seed::generate(
        GenerateSpec {
            projects: 10_000,
            members: 50,
            seed: 3,
        },
        seed::today_anchor(T0),
    );
    let workspace = fixture.workspaces[0].id.clone();
    let key = fixture
        .keys
        .iter()
        .find(|k| k.label == "enterprise-readonly")
        .unwrap()
        .key
        .clone();
    let expected: HashSet<String> = fixture.projects.iter().map(|p| p.wire.id.clone()).collect();
    let (server, clock) = server_with(|config| {
        config.fixture = fixture;
        config.faults = "429=0.1,503=0.05,reset=0.01,seed=5".parse().unwrap();
    })
    .await;
    let harness = client(&server, &clock, &key, |_| {});
    let params = InventoryParams {
        limit: Some(100),
        ..Default::default()
    };
    let items: Vec<_> = harness
        .client
        .inventory_stream(&workspace, params)
        .try_collect()
        .await
        .unwrap();
    let ids: Vec<String> = items.into_iter().map(|item| item.id).collect();
    let unique: HashSet<String> = ids.iter().cloned().collect();
    assert_eq!(ids.len(), 10_000);
    assert_eq!(unique, expected);

    let retries = harness.retries();
    for reason in [
        RetryReason::RateLimited,
        RetryReason::RequestTimeout,
        RetryReason::ConnectionDropped,
    ] {
        assert!(retries.contains(&reason), "no {reason:?} in {retries:?}");
    }
    // Pages of 100: at least 100 GETs, and one per retry besides.
    assert_eq!(harness.attempts().len(), 100 + retries.len());
}

#[tokio::test]
async fn pacing_walks_many_pages_under_a_small_limit_without_a_429() {
    let (server, clock) = server_with(|config| {
        config.rate_limit = RateLimit {
            limit: 5,
            window: time::Duration::seconds(10),
        };
    })
    .await;
    let harness = client(&server, &clock, ENTERPRISE_READONLY, |_| {});
    let params = InventoryParams {
        limit: Some(2),
        ..Default::default()
    };
    let items: Vec<_> = harness
        .client
        .inventory_stream(ENTERPRISE_WS, params)
        .try_collect()
        .await
        .unwrap();
    assert_eq!(items.len(), 64);
    let attempts = harness.attempts();
    assert_eq!(attempts.len(), 32, "one request per page, none refused");
    assert!(attempts.iter().all(|a| a.status == Some(200)));
    let paced: Vec<Duration> = harness
        .events()
        .iter()
        .filter_map(|e| match e {
            ClientEvent::Paced { wait, .. } => Some(*wait),
            _ => None,
        })
        .collect();
    // 32 requests at 5 per 10 s: six waits for the window to move.
    assert_eq!(paced.len(), 6, "{paced:?}");
    assert!(
        paced
            .iter()
            .all(|w| *w > Duration::ZERO && *w <= Duration::from_secs(10))
    );
    let state = harness.client.rate_limit_state().unwrap();
    assert_eq!(state.limit, 5);
}

#[tokio::test]
async fn concurrent_calls_share_the_pace() {
    let (server, clock) = server_with(|config| {
        config.rate_limit = RateLimit {
            limit: 3,
            window: time::Duration::seconds(5),
        };
    })
    .await;
    let harness = client(&server, &clock, ENTERPRISE_ADMIN, |_| {});
    // Learn the state first, then fire 12 calls at once.
    harness
        .client
        .get_project(&acme_projects(1)[0])
        .await
        .unwrap();
    let ids = acme_projects(12);
    let calls = ids.iter().map(|id| harness.client.get_project(id));
    futures::future::try_join_all(calls).await.unwrap();
    assert!(
        harness.attempts().iter().all(|a| a.status == Some(200)),
        "{:?}",
        harness.attempts()
    );
}

#[tokio::test]
async fn the_retry_budget_stops_a_storm() {
    let (server, clock) = server_with(|config| {
        config.faults = "429=1.0,seed=1".parse().unwrap();
    })
    .await;
    let harness = client(&server, &clock, ENTERPRISE_ADMIN, |config| {
        config.retry.max_attempts = 4;
        config.retry.budget.capacity = 6.0;
    });
    let id = &acme_projects(1)[0];
    let mut errors = Vec::new();
    for _ in 0..5 {
        errors.push(harness.client.get_project(id).await.unwrap_err());
    }
    assert!(errors.iter().all(|e| e.status() == Some(429)));
    // 6 tokens pay 6 retries: two calls of 4 attempts, then first attempts only.
    let attempts = harness.attempts();
    assert_eq!(attempts.len(), 4 + 4 + 1 + 1 + 1, "{attempts:?}");
    let exhausted = harness
        .events()
        .iter()
        .filter(|e| matches!(e, ClientEvent::RetryBudgetExhausted { .. }))
        .count();
    assert_eq!(exhausted, 3);
    // The error tells the user when to come back.
    assert!(
        errors[4].to_string().contains("retry after 1 s"),
        "{}",
        errors[4]
    );
}

#[tokio::test]
async fn a_delete_of_unknown_outcome_that_went_through_is_a_success() {
    let (server, clock) = server_with(|config| {
        config.faults = "timeout-after-commit=1.0".parse().unwrap();
    })
    .await;
    let harness = client(&server, &clock, ENTERPRISE_ADMIN, |_| {});
    let id = first_project(&demo(), ENTERPRISE_WS);
    harness.client.delete_project(&id).await.unwrap();
    let statuses: Vec<_> = harness.attempts().iter().map(|a| a.status).collect();
    assert_eq!(statuses, [Some(503), Some(404)]);
    assert_eq!(harness.retries(), [RetryReason::RequestTimeout]);
    let gone = harness.client.get_project(&id).await.unwrap_err();
    assert_eq!(gone.kind(), Some(&ErrorType::ProjectNotFound));
    // A 404 without an earlier unknown outcome stays an error.
    let again = harness.client.delete_project(&id).await.unwrap_err();
    assert_eq!(again.kind(), Some(&ErrorType::ProjectNotFound));
}

#[tokio::test]
async fn an_unpublish_whose_retries_ran_out_reads_back_that_the_project_is_offline() {
    let (server, clock) = server_with(|config| {
        config.faults = "timeout-after-commit=1.0".parse().unwrap();
    })
    .await;
    let harness = client(&server, &clock, ENTERPRISE_ADMIN, |_| {});
    let id = demo()
        .projects
        .iter()
        .find(|p| p.wire.workspace_id == ENTERPRISE_WS && p.wire.is_published)
        .unwrap()
        .wire
        .id
        .clone();
    harness.client.unpublish_project(&id).await.unwrap();
    let sent: Vec<(String, Option<u16>)> = harness
        .attempts()
        .iter()
        .map(|a| (a.method.clone(), a.status))
        .collect();
    let mut expected = vec![("DELETE".to_owned(), Some(503)); 5];
    expected.push(("GET".to_owned(), Some(200)));
    assert_eq!(
        sent, expected,
        "every attempt timed out, then the read-back"
    );
    assert!(!harness.client.get_project(&id).await.unwrap().is_published);
}

#[tokio::test]
async fn a_patch_of_unknown_outcome_returns_the_applied_resource() {
    let (server, clock) = server_with(|config| {
        config.faults = "timeout-after-commit=1.0".parse().unwrap();
    })
    .await;
    let harness = client(&server, &clock, ENTERPRISE_ADMIN, |_| {});
    let id = first_project(&demo(), ENTERPRISE_WS);
    let update = ProjectUpdate {
        name: Some("Renamed once".into()),
        visibility: Some(Visibility::WorkspaceView),
    };
    let project = harness.client.update_project(&id, &update).await.unwrap();
    assert_eq!(project.name.as_deref(), Some("Renamed once"));
    assert_eq!(project.visibility, Some(Visibility::WorkspaceView));
    let sent: Vec<(String, Option<u16>)> = harness
        .attempts()
        .iter()
        .map(|a| (a.method.clone(), a.status))
        .collect();
    assert_eq!(
        sent,
        [("PATCH".into(), Some(503)), ("GET".into(), Some(200))],
        "the PATCH was sent once, then the project read back"
    );
}

#[tokio::test]
async fn a_publish_of_unknown_outcome_is_never_repeated() {
    let (server, clock) = server_with(|config| {
        config.faults = "timeout-after-commit=1.0".parse().unwrap();
    })
    .await;
    let harness = client(&server, &clock, ENTERPRISE_ADMIN, |_| {});
    let fixture = demo();
    let id = fixture
        .projects
        .iter()
        .find(|p| p.wire.workspace_id == ENTERPRISE_WS && p.security.values.secret_count == 0)
        .unwrap()
        .wire
        .id
        .clone();
    let error = harness
        .client
        .publish_project(&id, &PublishRequest::default())
        .await
        .unwrap_err();
    assert!(error.is_unknown_outcome(), "{error}");
    assert_eq!(error.kind(), Some(&ErrorType::RequestTimeout));
    assert!(
        error
            .to_string()
            .contains("may or may not have been applied")
    );
    let posts = harness
        .attempts()
        .iter()
        .filter(|a| a.method == "POST")
        .count();
    assert_eq!(posts, 1);
    assert!(harness.retries().is_empty());
    let deployments = server.app.store.read(|data| {
        data.deployments
            .values()
            .filter(|d| d.project_id == id)
            .count()
    });
    assert_eq!(deployments, 1, "the server received it exactly once");
}

#[tokio::test]
async fn deployment_polling_backs_off_until_terminal() {
    let (server, clock) = demo_server().await;
    let harness = client(&server, &clock, ENTERPRISE_ADMIN, |_| {});
    let fixture = demo();
    let id = fixture
        .projects
        .iter()
        .find(|p| p.wire.workspace_id == ENTERPRISE_WS && p.security.values.secret_count == 0)
        .unwrap()
        .wire
        .id
        .clone();
    let deployment = harness
        .client
        .publish_project(&id, &PublishRequest::default())
        .await
        .unwrap();
    assert_eq!(deployment.status, DeploymentStatus::Running);
    // The server finishes a deployment 3 s after it starts; poll slowly enough
    // to see it running once.
    let policy = PollPolicy {
        first: Duration::from_secs(2),
        max: Duration::from_secs(10),
        factor: 1.5,
        ..PollPolicy::default()
    };
    let done = harness
        .client
        .wait_for_deployment(&id, &deployment.id, policy)
        .await
        .unwrap();
    assert!(done.status.is_terminal(), "{done:?}");
    assert_eq!(
        harness.sleeper.sleeps(),
        [Duration::from_secs(2), Duration::from_secs(3)]
    );
    let gets = harness
        .attempts()
        .iter()
        .filter(|a| a.method == "GET")
        .count();
    assert_eq!(gets, 2);
}
