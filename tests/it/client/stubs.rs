//! The client against scripted stub servers on 127.0.0.1:0, for answers the
//! reference server never gives: unknown values and fields, non-JSON error
//! pages, truncated bodies, HTTP-date `Retry-After`, ignored query parameters, a
//! PATCH that did not apply, and nothing listening at all.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::Router;
use axum::body::{Body, to_bytes};
use axum::extract::{Request, State};
use axum::response::Response;
use futures::TryStreamExt;
use time::macros::datetime;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;
use vantage::api::model::{ErrorType, ProjectUpdate, PublishAudience, PublishRequest, Visibility};
use vantage::api::{ApiError, ClientEvent, InventoryParams, RetryReason, TransportKind};
use vantage::clock::Clock;

use crate::client::support::{Harness, client_at};

const T0: time::OffsetDateTime = datetime!(2026-11-22 12:00:00 UTC);
const KEY: &str = "vtg_stub_secret_key";

#[derive(Clone)]
struct Reply {
    status: u16,
    headers: Vec<(&'static str, String)>,
    body: String,
}

fn json(status: u16, body: &str) -> Reply {
    Reply {
        status,
        headers: vec![("content-type", "application/json".into())],
        body: body.to_owned(),
    }
}

fn with_header(mut reply: Reply, name: &'static str, value: &str) -> Reply {
    reply.headers.push((name, value.to_owned()));
    reply
}

/// What the stub saw: method, path with query, and whether the key came along.
#[derive(Debug, Clone, PartialEq)]
struct Seen {
    method: String,
    target: String,
    key: Option<String>,
    body: String,
}

#[derive(Clone, Default)]
struct Script {
    replies: Arc<Mutex<VecDeque<Reply>>>,
    seen: Arc<Mutex<Vec<Seen>>>,
}

async fn scripted(State(script): State<Script>, request: Request) -> Response {
    let method = request.method().to_string();
    let target = request
        .uri()
        .path_and_query()
        .map(|pq| pq.to_string())
        .unwrap_or_default();
    let key = request
        .headers()
        .get("service-api-key")
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned);
    let body = to_bytes(request.into_body(), 1 << 20).await.unwrap();
    script.seen.lock().unwrap().push(Seen {
        method,
        target,
        key,
        body: String::from_utf8_lossy(&body).into_owned(),
    });
    let reply = script
        .replies
        .lock()
        .unwrap()
        .pop_front()
        .unwrap_or_else(|| json(500, r#"{"type":"script_exhausted"}"#));
    let mut response = Response::new(Body::from(reply.body));
    *response.status_mut() = axum::http::StatusCode::from_u16(reply.status).unwrap();
    for (name, value) in reply.headers {
        response.headers_mut().insert(name, value.parse().unwrap());
    }
    response
}

async fn stub(replies: Vec<Reply>) -> (String, Script) {
    let script = Script::default();
    script.replies.lock().unwrap().extend(replies);
    let app = Router::new().fallback(scripted).with_state(script.clone());
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    (format!("http://{addr}"), script)
}

fn harness(base_url: &str) -> Harness {
    client_at(base_url, &Clock::manual(T0), KEY, |_| {})
}

/// A project's body as the service sends it, compact (so a test can edit it
/// as text): `p1`, "One", in `ws`.
fn project_body() -> String {
    crate::common::items::project(
        serde_json::json!({"id": "p1", "name": "One", "workspace_id": "ws"}),
    )
    .to_string()
}

#[tokio::test]
async fn unknown_enum_values_and_fields_are_kept_not_refused() {
    let body = r#"{"id":"p1","name":"One","workspace_id":"ws","is_published":true,
        "publish_audience":"partners_only","visibility":"org_wide",
        "publish_audience_targets":[{"id":"g1","type":"team","since":"2026"}],
        "brand_new_field":{"nested":[1,2,3]}}"#;
    let (base, script) = stub(vec![json(200, body)]).await;
    let project = harness(&base).client.get_project("p1").await.unwrap();
    assert_eq!(
        project.publish_audience,
        Some(PublishAudience::Unknown("partners_only".into()))
    );
    assert_eq!(
        project.visibility,
        Some(Visibility::Unknown("org_wide".into()))
    );
    assert_eq!(project.publish_audience_targets[0].kind, "team");
    let seen = script.seen.lock().unwrap().clone();
    assert_eq!(seen[0].method, "GET");
    assert_eq!(seen[0].target, "/v1/projects/p1");
    assert_eq!(seen[0].key.as_deref(), Some(KEY));
}

#[tokio::test]
async fn an_unknown_error_type_is_typed_and_shown() {
    let (base, _) = stub(vec![json(
        409,
        r#"{"type":"project_locked","title":"Locked","status":409,"request_id":"req_9",
            "detail":"someone else is editing","errors":[{"location":"body.name"}],
            "props":{"locked_by":"u1"},"extra":true}"#,
    )])
    .await;
    let error = harness(&base).client.get_project("p1").await.unwrap_err();
    assert_eq!(
        error.kind(),
        Some(&ErrorType::Unknown("project_locked".into()))
    );
    assert_eq!(error.status(), Some(409));
    let response = error.response().unwrap();
    assert_eq!(response.props["locked_by"], "u1");
    assert_eq!(response.errors[0].location.as_deref(), Some("body.name"));
    assert_eq!(
        error.to_string(),
        "project_locked (HTTP 409): someone else is editing; body.name: (no message) \
         [GET /v1/projects/p1, request_id req_9]"
    );
}

#[tokio::test]
async fn a_non_json_error_page_is_a_decode_error_with_status_and_request_id() {
    let page = Reply {
        status: 502,
        headers: vec![
            ("content-type", "text/html".into()),
            ("x-request-id", "req_proxy".into()),
        ],
        body: "<html><body><h1>502 Bad Gateway</h1></body></html>".into(),
    };
    let (base, script) = stub(vec![page]).await;
    let error = harness(&base).client.get_project("p1").await.unwrap_err();
    let ApiError::Decode(decode) = &error else {
        panic!("{error:?}");
    };
    assert_eq!(decode.status, 502);
    assert_eq!(decode.request_id.as_deref(), Some("req_proxy"));
    assert!(decode.body_start.starts_with("<html>"));
    let shown = error.to_string();
    assert!(
        shown.contains("HTTP 502") && shown.contains("req_proxy"),
        "{shown}"
    );
    assert!(!shown.contains(KEY));
    assert_eq!(script.seen.lock().unwrap().len(), 1, "a 502 is not retried");
}

#[tokio::test]
async fn a_wrong_shape_names_the_json_path() {
    let body = project_body().replace(r#""is_published":true"#, r#""is_published":"yes""#);
    let (base, _) = stub(vec![json(200, &body)]).await;
    let error = harness(&base).client.get_project("p1").await.unwrap_err();
    let ApiError::Decode(decode) = &error else {
        panic!("{error:?}");
    };
    assert_eq!(decode.json_path, "is_published");
    assert_eq!(decode.status, 200);
}

/// Serves `raw` bytes to every connection, then closes it.
async fn raw_stub(raw: &'static str) -> (String, Arc<Mutex<u32>>) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let connections = Arc::new(Mutex::new(0));
    let count = connections.clone();
    tokio::spawn(async move {
        loop {
            let (mut socket, _) = listener.accept().await.unwrap();
            *count.lock().unwrap() += 1;
            let mut buffer = [0u8; 4096];
            let _ = socket.read(&mut buffer).await;
            let _ = socket.write_all(raw.as_bytes()).await;
            let _ = socket.shutdown().await;
        }
    });
    (format!("http://{addr}"), connections)
}

#[tokio::test]
async fn a_truncated_body_is_a_decode_or_transport_error_never_a_panic() {
    // Delimited by the connection closing: the JSON itself is cut short.
    let (base, _) = raw_stub(
        "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\nx-request-id: req_cut\r\nconnection: close\r\n\r\n{\"id\":\"p1\",\"name\":\"On",
    )
    .await;
    let error = harness(&base).client.get_project("p1").await.unwrap_err();
    let ApiError::Decode(decode) = &error else {
        panic!("{error:?}");
    };
    assert_eq!(decode.request_id.as_deref(), Some("req_cut"));
    assert!(decode.message.contains("EOF"), "{}", decode.message);

    // Shorter than its Content-Length: the connection dropped mid-answer.
    let (base, connections) = raw_stub(
        "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 500\r\n\r\n{\"id\":\"p1\"",
    )
    .await;
    let harness = harness(&base);
    let error = harness.client.get_project("p1").await.unwrap_err();
    let ApiError::Transport(transport) = &error else {
        panic!("{error:?}");
    };
    assert_eq!(transport.kind, TransportKind::ConnectionDropped);
    assert!(transport.may_have_been_sent);
    assert_eq!(
        *connections.lock().unwrap(),
        5,
        "a GET is retried up to max_attempts"
    );
    assert_eq!(harness.retries(), [RetryReason::ConnectionDropped; 4]);
}

#[tokio::test]
async fn retry_after_as_an_http_date_is_honoured_and_its_cap_ends_retries() {
    let limited = |retry_after: &str| {
        with_header(
            json(
                429,
                r#"{"type":"rate_limited","title":"Too many","status":429,"request_id":"r"}"#,
            ),
            "retry-after",
            retry_after,
        )
    };
    let (base, script) = stub(vec![
        limited("Sun, 22 Nov 2026 12:00:30 GMT"),
        json(200, &project_body()),
        limited("3600"),
    ])
    .await;
    let harness = harness(&base);
    harness.client.get_project("p1").await.unwrap();
    let slept = harness.sleeper.sleeps();
    assert_eq!(slept.len(), 1);
    assert!(slept[0] >= Duration::from_secs(30), "{slept:?}");

    let error = harness.client.get_project("p1").await.unwrap_err();
    assert_eq!(error.status(), Some(429));
    assert_eq!(
        script.seen.lock().unwrap().len(),
        3,
        "an hour is beyond the cap"
    );
    assert!(error.to_string().contains("retry after 3600 s"), "{error}");
}

#[tokio::test]
async fn ignored_query_parameters_and_another_version_are_reported() {
    let reply = with_header(
        with_header(
            with_header(
                json(
                    200,
                    r#"{"data":[],"pagination":{"has_more":false,"next_cursor":null},"total":0}"#,
                ),
                "x-service-unknown-query-params",
                "has_connectors,review_priority",
            ),
            "x-service-unknown-query-params-omitted",
            "2",
        ),
        "service-version",
        "2026-12-01",
    );
    let (base, _) = stub(vec![reply]).await;
    let harness = harness(&base);
    let params = InventoryParams {
        has_connectors: Some(false),
        ..Default::default()
    };
    harness
        .client
        .list_inventory("ws", &params, None)
        .await
        .unwrap();
    let events = harness.events();
    let ignored = events
        .iter()
        .find_map(|e| match e {
            ClientEvent::UnknownQueryParams { names, omitted, .. } => {
                Some((names.clone(), *omitted))
            }
            _ => None,
        })
        .expect("reported");
    assert_eq!(
        ignored,
        (vec!["has_connectors".into(), "review_priority".into()], 2)
    );
    assert!(events.iter().any(|e| matches!(
        e,
        ClientEvent::VersionMismatch { served, .. } if served == "2026-12-01"
    )));
}

#[tokio::test]
async fn streams_keep_filters_across_pages_and_pass_empty_pages() {
    let page = |data: &str, more: bool, next: &str| {
        json(
            200,
            &format!(
                r#"{{"data":[{data}],"pagination":{{"has_more":{more},"next_cursor":{next}}}}}"#
            ),
        )
    };
    let member = |id: &str| format!(r#"{{"user_id":"{id}","type":"user"}}"#);
    let (base, script) = stub(vec![
        page(&member("u1"), true, r#""c1""#),
        page("", true, r#""c 2""#),
        page(&format!("{},{}", member("u2"), member("u3")), false, "null"),
    ])
    .await;
    let params = vantage::api::MemberListParams {
        role: vec![
            vantage::api::model::Role::Admin,
            vantage::api::model::Role::Owner,
        ],
        sort_by: Some(vantage::api::model::MemberSortBy::JoinedAt),
        scim_managed: Some(true),
        ..Default::default()
    };
    let members: Vec<_> = harness(&base)
        .client
        .members_stream("ws 1", params)
        .try_collect()
        .await
        .unwrap();
    let ids: Vec<_> = members.iter().map(|m| m.user_id.as_str()).collect();
    assert_eq!(ids, ["u1", "u2", "u3"]);
    let targets: Vec<String> = script
        .seen
        .lock()
        .unwrap()
        .iter()
        .map(|s| s.target.clone())
        .collect();
    let filters = "role=admin&role=owner&sort_by=joined_at&scim_managed=true";
    assert_eq!(
        targets,
        [
            format!("/v1/workspaces/ws%201/members?{filters}"),
            format!("/v1/workspaces/ws%201/members?{filters}&cursor=c1"),
            format!("/v1/workspaces/ws%201/members?{filters}&cursor=c+2"),
        ]
    );
}

#[tokio::test]
async fn a_patch_that_did_not_apply_is_sent_once_more() {
    let timeout = json(
        503,
        r#"{"type":"request_timeout","title":"Timeout","status":503,"request_id":"r1"}"#,
    );
    let renamed = project_body().replace(r#""name":"One""#, r#""name":"Two""#);
    let (base, script) = stub(vec![
        timeout,
        json(200, &project_body()),
        json(200, &renamed),
    ])
    .await;
    let update = ProjectUpdate {
        name: Some("Two".into()),
        visibility: None,
    };
    let project = harness(&base)
        .client
        .update_project("p1", &update)
        .await
        .unwrap();
    assert_eq!(project.name.as_deref(), Some("Two"));
    let seen: Vec<(String, String)> = script
        .seen
        .lock()
        .unwrap()
        .iter()
        .map(|s| (s.method.clone(), s.body.clone()))
        .collect();
    assert_eq!(
        seen,
        [
            ("PATCH".into(), r#"{"name":"Two"}"#.into()),
            ("GET".into(), String::new()),
            ("PATCH".into(), r#"{"name":"Two"}"#.into()),
        ]
    );
}

#[tokio::test]
async fn nothing_listening_is_a_connect_error_and_safe_to_retry_even_for_publish() {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    drop(listener);
    let harness = harness(&base);
    let error = harness
        .client
        .publish_project("p1", &PublishRequest::default())
        .await
        .unwrap_err();
    let ApiError::Transport(transport) = &error else {
        panic!("{error:?}");
    };
    assert_eq!(transport.kind, TransportKind::Connect);
    assert!(!transport.may_have_been_sent && !error.is_unknown_outcome());
    assert_eq!(harness.retries(), [RetryReason::Connect; 4]);
    assert!(error.to_string().starts_with("cannot connect"), "{error}");
}

/// Reads one request's head (to its blank line) from `socket`.
async fn read_head(socket: &mut tokio::net::TcpStream) -> bool {
    let mut head = Vec::new();
    let mut byte = [0u8; 1];
    while !head.ends_with(b"\r\n\r\n") {
        match socket.read(&mut byte).await {
            Ok(1) => head.push(byte[0]),
            _ => return false,
        }
    }
    true
}

/// The monitor's refresh equalled the server's idle timeout: a pooled
/// connection closed by the server just as it was reused made a "connection
/// dropped" retry every few minutes (issue 36, item 5). The client's pool
/// now lets connections go before the reference server does, and a reuse
/// race is sent again on a new connection, uncounted.
#[tokio::test]
async fn a_pooled_connection_closed_as_it_is_reused_is_no_failure() {
    assert!(
        vantage::api::POOL_IDLE_TIMEOUT
            < vantage::accept::ConnectionLimits::default().header_read_timeout,
        "the pool keeps connections longer than the reference server"
    );
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let body = project_body();
    let answer = format!(
        "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\n\r\n{body}",
        body.len()
    );
    tokio::spawn(async move {
        // The first connection answers once, then closes as the next
        // request arrives on it: the server's idle timeout, just then.
        let (mut first, _) = listener.accept().await.unwrap();
        assert!(read_head(&mut first).await);
        first.write_all(answer.as_bytes()).await.unwrap();
        let _ = read_head(&mut first).await;
        drop(first);
        // Every later connection answers whatever comes.
        loop {
            let (mut socket, _) = listener.accept().await.unwrap();
            let answer = answer.clone();
            tokio::spawn(async move {
                while read_head(&mut socket).await {
                    if socket.write_all(answer.as_bytes()).await.is_err() {
                        return;
                    }
                }
            });
        }
    });
    let clock = Clock::manual(T0);
    let harness = client_at(&base, &clock, KEY, |_| {});
    harness.client.get_project("p1").await.unwrap();
    // The dashboard's 10 s between refreshes.
    clock.advance(time::Duration::seconds(10));
    harness.client.get_project("p1").await.unwrap();
    let statuses: Vec<Option<u16>> = harness.attempts().iter().map(|a| a.status).collect();
    assert_eq!(statuses, [Some(200), Some(200)], "{:?}", harness.events());
    assert_eq!(harness.retries(), []);
}
