//! Warnings from the client's events reach stderr for single reads too, and
//! before the error line when the read fails: the commands run on one thread,
//! where the progress follower runs only when the command yields.

use axum::http::{HeaderValue, StatusCode};
use axum::response::Response;

use crate::cli::support::Cli;
use crate::common::*;

/// Answers every request with `status` and `body`, served as another API version.
async fn newer_version_server(status: u16, body: &'static str) -> String {
    let app = axum::Router::new().fallback(move || async move {
        let mut response = Response::new(axum::body::Body::from(body));
        *response.status_mut() = StatusCode::from_u16(status).unwrap();
        let headers = response.headers_mut();
        headers.insert("content-type", HeaderValue::from_static("application/json"));
        headers.insert("service-version", HeaderValue::from_static("2099-01-01"));
        response
    });
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    format!("http://{address}")
}

#[tokio::test(flavor = "multi_thread")]
async fn a_single_read_prints_the_version_warning() {
    let project = r#"{"id":"prj_1","name":"One","workspace_id":"ws_acme","is_published":false}"#;
    let base = newer_version_server(200, project).await;
    let cli = Cli::new(base, ENTERPRISE_WS, ENTERPRISE_ADMIN);
    let run = cli
        .run(&["projects", "get", "prj_1", "--format", "json"])
        .await
        .expect(0);
    assert!(run.stdout.contains("\"prj_1\""), "{}", run.stdout);
    let warnings: Vec<&str> = run.stderr.lines().collect();
    assert_eq!(warnings.len(), 1, "{}", run.stderr);
    assert!(warnings[0].starts_with("warning: "), "{}", run.stderr);
    assert!(warnings[0].contains("2099-01-01"), "{}", run.stderr);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_failed_single_read_prints_the_warning_before_the_error() {
    let not_found = r#"{"type":"project_not_found","title":"Project not found","status":404,"request_id":"req_stub","detail":null,"errors":null,"props":null}"#;
    let base = newer_version_server(404, not_found).await;
    let cli = Cli::new(base, ENTERPRISE_WS, ENTERPRISE_ADMIN);
    let run = cli.run(&["projects", "get", "prj_gone"]).await.expect(4);
    let lines: Vec<&str> = run.stderr.lines().collect();
    assert_eq!(lines.len(), 2, "{}", run.stderr);
    assert!(lines[0].starts_with("warning: ") && lines[0].contains("2099-01-01"));
    assert!(lines[1].starts_with("error: ") && lines[1].contains("project_not_found"));
}

/// A reader that stops reading for longer than the request timeout blocks
/// only the writing: the next page, asked for before this one is written,
/// is read meanwhile, so it is neither timed out nor asked for again.
#[tokio::test(flavor = "multi_thread")]
async fn a_stalled_reader_does_not_time_out_the_next_page() {
    use std::sync::{Arc, Mutex};
    use tokio::io::AsyncReadExt;

    // Page 1 is larger than a pipe's buffer, so writing it blocks.
    let filler = "x".repeat(256 * 1024);
    // Whole items: json and jsonl pass only items the typed formats can read.
    let item = |id: &str, name: &str| {
        let mut item = crate::common::hostile_service::item(0);
        item["id"] = id.into();
        item["name"] = name.into();
        item.to_string()
    };
    let first: &'static str = Box::leak(
        format!(
            r#"{{"data":[{}],"pagination":{{"has_more":true,"next_cursor":"c2"}},"total":2}}"#,
            item("prj_a", &filler)
        )
        .into_boxed_str(),
    );
    let last_line = item("prj_b", "B");
    let second: &'static str = Box::leak(
        format!(
            r#"{{"data":[{last_line}],"pagination":{{"has_more":false,"next_cursor":null}},"total":2}}"#
        )
        .into_boxed_str(),
    );
    let asked: Arc<Mutex<Vec<String>>> = Arc::default();
    let log = asked.clone();
    let app = axum::Router::new().fallback(move |request: axum::extract::Request| {
        let log = log.clone();
        async move {
            let query = request.uri().query().unwrap_or("").to_owned();
            let body = if query.contains("cursor=c2") {
                second
            } else {
                first
            };
            log.lock().unwrap().push(query);
            let mut response = Response::new(axum::body::Body::from(body));
            response
                .headers_mut()
                .insert("content-type", HeaderValue::from_static("application/json"));
            response
        }
    });
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });

    let cli = Cli::new(format!("http://{address}"), ENTERPRISE_WS, ENTERPRISE_ADMIN);
    let config = cli.config_file("request_timeout_secs = 0.5\n");
    let mut child = tokio::process::Command::new(env!("CARGO_BIN_EXE_vantage"))
        .args(["--config", config.to_str().unwrap()])
        .args(["--base-url", &cli.base_url, "--workspace", ENTERPRISE_WS])
        .args(["inventory", "--format", "jsonl"])
        .env("HOME", cli.home.path())
        .env("XDG_CONFIG_HOME", cli.home.path().join(".config"))
        .env("SERVICE_API_KEY", ENTERPRISE_ADMIN)
        .env_remove("VANTAGE_LOG")
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    // The stall: three request timeouts without reading stdout.
    tokio::time::sleep(std::time::Duration::from_millis(1500)).await;
    let mut stdout = String::new();
    child
        .stdout
        .take()
        .unwrap()
        .read_to_string(&mut stdout)
        .await
        .unwrap();
    let output = child.wait_with_output().await.unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(0), "{stderr}");
    assert_eq!(stdout.lines().count(), 2, "{stderr}");
    assert!(stdout.ends_with(&format!("{last_line}\n")));
    let asked = asked.lock().unwrap().clone();
    assert_eq!(asked.len(), 2, "page 2 asked for again: {asked:?}");
}
