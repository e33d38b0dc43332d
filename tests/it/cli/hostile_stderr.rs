//! stderr under a hostile service: every field of the error envelope (an
//! unknown `type`, `title`, `detail`, `request_id`, `errors[]`, every `props`
//! string) holds the hostile set, and the bytes the real binary writes to
//! stderr stay on the allow-list (issue 22, item 1).

use std::sync::{Arc, Mutex};

use serde_json::{Value, json};

use crate::cli::support::{Cli, assert_inert, hostile_set};

/// Every hostile string at once, as one field's value.
fn hostile_text() -> String {
    hostile_set().join(" | ")
}

/// An error envelope of `kind` whose every string is hostile.
fn envelope(kind: &str, status: u16) -> Value {
    let h = hostile_text();
    json!({
        "type": kind,
        "title": h,
        "status": status,
        "request_id": h,
        "detail": h,
        "errors": [{"location": h, "message": h}, {"message": h}],
        "props": {
            "required_scopes": [h, h],
            "required_plan": h,
            "required_features": [h],
            "migration_url": h,
            "finding_refs": [h, h],
            "required_permissions": [[h], [h, h]],
        }
    })
}

/// A service answering every request with `status`, `body` and, when given,
/// an `X-Request-Id` of raw bytes; counts the requests.
async fn answering(status: u16, body: Vec<u8>, request_id: Option<&'static [u8]>) -> String {
    use axum::response::Response;

    let served = Arc::new(Mutex::new(0_u32));
    let app = axum::Router::new().fallback(move || {
        let body = body.clone();
        let served = served.clone();
        async move {
            *served.lock().unwrap() += 1;
            let mut response = Response::new(axum::body::Body::from(body));
            *response.status_mut() = axum::http::StatusCode::from_u16(status).unwrap();
            let headers = response.headers_mut();
            headers.insert("content-type", "application/json".parse().unwrap());
            if let Some(id) = request_id {
                headers.insert(
                    "x-request-id",
                    axum::http::HeaderValue::from_bytes(id).unwrap(),
                );
            }
            response
        }
    });
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    format!("http://{address}")
}

async fn stderr_of(status: u16, body: Vec<u8>, args: &[&str]) -> String {
    let base = answering(status, body, Some(b"req \x9b2J \xff")).await;
    let run = Cli::new(base, "ws_1", "vtg_test_key").run(args).await;
    assert_ne!(run.code, 0, "a refusal fails: {}", run.stderr);
    run.stderr
}

#[tokio::test]
async fn every_field_of_a_hostile_error_envelope_reaches_stderr_escaped() {
    let kinds = [
        ("insufficient_scope", 403),
        ("payment_required", 402),
        ("forbidden", 403),
        ("security_critical_findings", 409),
        ("retired_version", 410),
        ("invalid_request", 400),
        ("project_not_found", 404),
    ];
    let unknown = hostile_text();
    for (kind, status) in kinds
        .iter()
        .map(|&(kind, status)| (kind, status))
        .chain([(unknown.as_str(), 403)])
    {
        let body = serde_json::to_vec(&envelope(kind, status)).unwrap();
        let stderr = stderr_of(status, body, &["projects", "get", "prj_1"]).await;
        assert_inert(
            stderr.as_bytes(),
            &format!("stderr of a {status} {kind:.20}"),
        );
        // Shown, not dropped: the escapes are there to read.
        assert!(stderr.contains("\\x1b]52;c;"), "{stderr}");
        assert!(stderr.contains("\\u202e"), "{stderr}");
    }
}

#[tokio::test]
async fn a_payment_gate_names_the_plan_escaped() {
    let mut body = envelope("payment_required", 402);
    body["props"] =
        json!({"required_plan": "\u{1b}]52;c;ZWNobyBwd25lZA==\u{7}pro\u{2028}\u{e0041}"});
    let stderr = stderr_of(402, serde_json::to_vec(&body).unwrap(), &["insights"]).await;
    assert_inert(stderr.as_bytes(), "the plan gate on stderr");
    assert!(
        stderr.contains("needs the \\x1b]52;c;ZWNobyBwd25lZA==\\x07pro\\u2028\\u{e0041} plan"),
        "{stderr}"
    );
}

#[tokio::test]
async fn raw_bytes_that_are_not_utf8_never_reach_stderr_raw() {
    for bytes in crate::common::hostile_service::hostile_bytes() {
        // As the body of a success that is not JSON, and of an error.
        for status in [200, 500] {
            let stderr = stderr_of(status, bytes.clone(), &["projects", "get", "prj_1"]).await;
            assert_inert(
                stderr.as_bytes(),
                &format!("stderr of raw bytes ({status})"),
            );
        }
    }
}

#[tokio::test]
async fn lists_in_every_format_fail_with_an_inert_error_line() {
    let body = serde_json::to_vec(&envelope("insufficient_scope", 403)).unwrap();
    for format in ["table", "csv", "json", "jsonl"] {
        let stderr = stderr_of(403, body.clone(), &["inventory", "--format", format]).await;
        assert_inert(
            stderr.as_bytes(),
            &format!("stderr of inventory --format {format}"),
        );
    }
}
