//! The client against the hostile service (issue 22): every walk ends by
//! itself with an error naming the operation, answers are capped, waits are
//! capped, and a proxy's or a TLS peer's refusals get the retry they deserve.

use std::sync::Arc;
use std::time::Duration;

use futures::{StreamExt, TryStreamExt};
use tokio::io::AsyncWriteExt;
use vantage::api::model::DeploymentStatus;
use vantage::api::{
    ApiError, ClientEvent, InventoryParams, MemberListParams, PollPolicy, RetryReason,
    TokioSleeper, TransportKind,
};
use vantage::clock::Clock;

use crate::client::support::{Harness, client_at};
use crate::common::T0;
use crate::common::hostile_service::{self, Trick};

const KEY: &str = "vtg_hostile_test_key";

fn harness(base_url: &str) -> Harness {
    client_at(base_url, &Clock::manual(T0), KEY, |_| {})
}

fn hundred() -> InventoryParams {
    InventoryParams {
        limit: Some(100),
        ..InventoryParams::default()
    }
}

/// Every inventory item, or the error that ended the walk; bounded in time
/// so a client that does not stop fails instead of hanging.
async fn walk_inventory(harness: &Harness) -> Result<usize, ApiError> {
    let stream = harness.client.inventory_stream("ws_1", hundred());
    tokio::time::timeout(Duration::from_secs(30), stream.try_collect::<Vec<_>>())
        .await
        .expect("the walk ends by itself")
        .map(|items| items.len())
}

fn protocol_message(error: &ApiError) -> String {
    match error {
        ApiError::Protocol(protocol) => error.to_string() + &format!(" <{}>", protocol.operation),
        other => panic!("not a protocol error: {other}"),
    }
}

#[tokio::test]
async fn a_cursor_cycle_ends_the_inventory_walk_with_the_operation_named() {
    let service = hostile_service::start(Trick::CursorCycle).await;
    let harness = harness(&service.base_url);
    let error = walk_inventory(&harness).await.unwrap_err();
    let message = protocol_message(&error);
    assert!(
        message.starts_with(
            "list_inventory: the service's paging did not end: cursor repeated after 3 pages"
        ),
        "{message}"
    );
    assert!(service.requests() <= 4, "{} requests", service.requests());
}

#[tokio::test]
async fn endless_empty_pages_end_the_member_walk_after_a_few() {
    let service = hostile_service::start(Trick::EndlessEmpty).await;
    let harness = harness(&service.base_url);
    let stream = harness
        .client
        .members_stream("ws_1", MemberListParams::default());
    let error = tokio::time::timeout(Duration::from_secs(30), stream.try_collect::<Vec<_>>())
        .await
        .expect("the walk ends by itself")
        .unwrap_err();
    let message = protocol_message(&error);
    assert!(message.contains("list_members"), "{message}");
    assert!(message.contains("11 empty pages in a row"), "{message}");
    // A run of empty pages is legal up to the bound, so ten of them passed.
    assert!(service.requests() <= 12, "{} requests", service.requests());
}

#[tokio::test]
async fn endless_empty_inventory_pages_stop_at_the_told_total() {
    let service = hostile_service::start(Trick::EndlessEmpty).await;
    let harness = harness(&service.base_url);
    let error = walk_inventory(&harness).await.unwrap_err();
    assert!(protocol_message(&error).contains("paging did not end"));
    assert!(service.requests() <= 12, "{} requests", service.requests());
}

#[tokio::test]
async fn a_page_longer_than_the_limit_is_refused() {
    let service = hostile_service::start(Trick::LongPage(1_000)).await;
    let harness = harness(&service.base_url);
    let error = walk_inventory(&harness).await.unwrap_err();
    let message = protocol_message(&error);
    assert!(
        message.contains("page 1 held 1000 items, more than the 100 asked for"),
        "{message}"
    );
}

#[tokio::test]
async fn an_answer_larger_than_the_cap_is_refused_while_streaming() {
    // 100 MB of padding, streamed without a length: refused at the 32 MiB cap.
    let service = hostile_service::start(Trick::PaddedBody(100_000_000)).await;
    let harness = harness(&service.base_url);
    let error = walk_inventory(&harness).await.unwrap_err();
    let ApiError::Transport(transport) = &error else {
        panic!("not a transport error: {error}");
    };
    assert_eq!(transport.kind, TransportKind::TooLarge, "{error}");
    let message = error.to_string();
    assert!(message.starts_with("answer too large"), "{message}");
    assert!(
        message.contains("33554432 bytes max_response_bytes"),
        "{message}"
    );
    // Not retried: the same answer would come back.
    assert_eq!(service.requests(), 1);
}

#[tokio::test]
async fn the_cap_is_configurable_and_an_honest_answer_passes_under_it() {
    let service = hostile_service::start(Trick::PaddedBody(1_500_000)).await;
    let roomy = client_at(&service.base_url, &Clock::manual(T0), KEY, |config| {
        config.max_response_bytes = 2_000_000;
    });
    assert_eq!(walk_inventory(&roomy).await.unwrap(), 3);
    let tight = client_at(&service.base_url, &Clock::manual(T0), KEY, |config| {
        config.max_response_bytes = 1_000_000;
    });
    assert!(matches!(
        walk_inventory(&tight).await,
        Err(ApiError::Transport(t)) if t.kind == TransportKind::TooLarge
    ));
}

#[tokio::test]
async fn a_huge_content_length_is_refused_before_reading() {
    let service = hostile_service::start(Trick::HugeLength).await;
    let harness = harness(&service.base_url);
    let error = walk_inventory(&harness).await.unwrap_err();
    let message = error.to_string();
    assert!(
        message.contains("the answer announced 1000000000000 bytes"),
        "{message}"
    );
}

#[tokio::test]
async fn a_reset_a_billion_seconds_away_is_not_waited_for() {
    let service = hostile_service::start(Trick::ResetFarAway).await;
    // Real time: the old pacing slept the capped 60 s over and over.
    let harness = client_at(&service.base_url, &Clock::manual(T0), KEY, |config| {
        config.sleeper = Arc::new(TokioSleeper);
    });
    for _ in 0..3 {
        let items = tokio::time::timeout(Duration::from_secs(10), walk_inventory(&harness))
            .await
            .expect("no call waits for a reset beyond retry_after_cap_secs");
        assert_eq!(items.unwrap(), 3);
    }
    let paced = harness
        .events()
        .into_iter()
        .filter(|event| matches!(event, ClientEvent::Paced { .. }))
        .count();
    assert_eq!(paced, 0, "nothing was waited");
    assert_eq!(service.requests(), 3);
}

#[tokio::test]
async fn a_proxys_html_429_and_503_are_retried_like_the_services_own() {
    for (status, reason) in [
        (429, RetryReason::RateLimited),
        (503, RetryReason::Unavailable),
    ] {
        let service = hostile_service::start(Trick::NonJsonFirst(status)).await;
        let harness = harness(&service.base_url);
        assert_eq!(walk_inventory(&harness).await.unwrap(), 3, "{status}");
        assert_eq!(harness.retries(), [reason], "{status}");
        assert_eq!(service.requests(), 2);
    }
}

#[tokio::test]
async fn a_tls_failure_is_not_retried() {
    // A peer that answers the TLS handshake with plain HTTP: it cannot
    // succeed on a retry, any more than an untrusted certificate can.
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    let connections = Arc::new(std::sync::atomic::AtomicU64::new(0));
    let counted = connections.clone();
    tokio::spawn(async move {
        while let Ok((mut socket, _)) = listener.accept().await {
            counted.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            let _ = socket
                .write_all(b"HTTP/1.1 400 Bad Request\r\ncontent-length: 0\r\n\r\n")
                .await;
        }
    });
    let harness = harness(&format!("https://{address}"));
    let error = harness.client.get_project("prj_1").await.unwrap_err();
    let ApiError::Transport(transport) = &error else {
        panic!("not a transport error: {error}");
    };
    assert_eq!(transport.kind, TransportKind::Tls, "{error}");
    assert!(
        error.to_string().starts_with("TLS handshake failed"),
        "{error}"
    );
    assert!(harness.retries().is_empty(), "{:?}", harness.retries());
    assert_eq!(connections.load(std::sync::atomic::Ordering::SeqCst), 1);
}

#[tokio::test]
async fn waiting_for_a_deployment_ends_on_an_unknown_status() {
    let service = hostile_service::start(Trick::Deployment("cancelled")).await;
    let harness = harness(&service.base_url);
    let deployment = harness
        .client
        .wait_for_deployment("prj_1", "dep_1", PollPolicy::default())
        .await
        .unwrap();
    assert_eq!(
        deployment.status,
        DeploymentStatus::Unknown("cancelled".into())
    );
    assert_eq!(service.requests(), 1);
}

#[tokio::test]
async fn waiting_for_a_deployment_ends_at_the_timeout() {
    let service = hostile_service::start(Trick::Deployment("running")).await;
    let harness = harness(&service.base_url);
    let policy = PollPolicy {
        timeout: Duration::from_secs(60),
        ..PollPolicy::default()
    };
    let wait = harness.client.wait_for_deployment("prj_1", "dep_1", policy);
    let deployment = tokio::time::timeout(Duration::from_secs(10), wait)
        .await
        .expect("the wait ends by itself")
        .unwrap();
    assert_eq!(deployment.status, DeploymentStatus::Running);
    // The manual clock moved by the polls' waits: 60 s in all, at least 2 s apart.
    let slept = harness.sleeper.sleeps();
    assert_eq!(
        slept.iter().sum::<Duration>(),
        Duration::from_secs(60),
        "{slept:?}"
    );
    assert!(
        slept.iter().all(|wait| *wait >= Duration::from_secs(2)),
        "{slept:?}"
    );
    assert_eq!(service.requests() as usize, slept.len());
}

#[tokio::test]
async fn json_passes_no_item_that_the_typed_walk_refuses() {
    for trick in [Trick::ItemWithoutId, Trick::NumberTooLarge] {
        let service = hostile_service::start(trick.clone()).await;
        let harness = harness(&service.base_url);
        let typed = walk_inventory(&harness).await.unwrap_err();
        let raw: Vec<Result<_, ApiError>> = harness
            .client
            .inventory_raw_stream("ws_1", hundred())
            .collect()
            .await;
        let Some(Err(raw)) = raw.last() else {
            panic!("{trick:?}: the raw walk passed");
        };
        let (ApiError::Decode(typed), ApiError::Decode(raw)) = (&typed, raw) else {
            panic!("{trick:?}: {typed} / {raw}");
        };
        // The raw walk stops at the item, the typed one inside it.
        assert!(
            typed.json_path.starts_with(&raw.json_path) && raw.json_path.starts_with("data["),
            "{trick:?}: {} / {}",
            typed.json_path,
            raw.json_path
        );
    }
}

/// Issue 33, item 9: a NUL (U+0000) in an id breaks every snapshot into
/// PostgreSQL, which refuses it, while the file takes it. Every answer with
/// one in an id is refused where it is decoded, typed or raw, the place named
/// (a NUL in a name passes: the stores keep names inside JSON).
#[tokio::test]
async fn an_answer_with_a_nul_in_a_string_is_refused_where_it_is_decoded() {
    let service = hostile_service::start(Trick::NulInId).await;
    let harness = harness(&service.base_url);
    let typed = walk_inventory(&harness).await.unwrap_err();
    let raw: Vec<Result<_, ApiError>> = harness
        .client
        .inventory_raw_stream("ws_1", hundred())
        .collect()
        .await;
    let Some(Err(raw)) = raw.last() else {
        panic!("the raw walk passed the NUL");
    };
    for error in [&typed, raw] {
        let ApiError::Decode(decode) = error else {
            panic!("not a decode error: {error}");
        };
        assert_eq!(decode.json_path, "data[1].id", "{error}");
        assert!(error.to_string().contains("U+0000"), "{error}");
    }
}
