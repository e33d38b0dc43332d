//! Regression tests of the contract conformance review of `vantage serve`: each
//! test pins one discrepancy that was found and fixed, from the contract sentence
//! (`api-v1.md`) or the README rule it breaks. HTTP cases run against a server on
//! 127.0.0.1:0; the command-line cases run the built binary.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use vantage::server::faults::Faults;
use vantage::server::seed;
use vantage::server::store::StoreError;
use vantage::server::{ServerConfig, ServerError, ServerState};

use crate::common::*;
use crate::server::support::*;

/// Errors: "400 invalid_request: malformed path"; the locations name the field,
/// as `path.user_id` does. A path parameter that is not UTF-8 once decoded names
/// its parameter instead of a bare `path`.
#[tokio::test]
async fn a_malformed_path_parameter_is_named_in_the_error_location() {
    let (server, _clock) = demo_server().await;
    let base = server.base_url();
    let cases = [
        ("/v1/projects/%FF", "project_id"),
        ("/v1/projects/%FF%FE/analytics/realtime", "project_id"),
        ("/v1/workspaces/%C3/members", "workspace_id"),
        ("/v1/workspaces/ws_acme/members/%FF", "user_id"),
    ];
    for (path, parameter) in cases {
        let reply = get(&base, path, ENTERPRISE_ADMIN).await;
        assert_eq!(reply.status, 400, "{path}: {}", reply.text);
        assert_eq!(
            reply.error(),
            json!({
                "type": "invalid_request",
                "title": "Invalid request",
                "status": 400,
                "detail": "validation failed",
                "errors": [{
                    "message": format!("Invalid URL: Invalid UTF-8 in `{parameter}`"),
                    "location": format!("path.{parameter}"),
                }],
                "props": null,
            }),
            "{path}"
        );
    }
}

/// Operation 6: "RFC 3339 timestamps; any offset is accepted and converted to
/// UTC". A time whose UTC form leaves the calendar used to panic the handler (the
/// connection dropped without an answer); it is a 400 at its parameter now.
#[tokio::test]
async fn breakdown_times_outside_the_calendar_are_a_validation_error() {
    let (server, _clock) = demo_server().await;
    let base = server.base_url();
    let path = "/v1/projects/prj_70256702db4f/analytics/breakdowns";
    let message = |name: &str| {
        format!(
            "{name} must be an RFC 3339 timestamp between the years 0000 and 9999, e.g. 2026-11-01T00:00:00Z"
        )
    };
    let cases: [(&str, &str, Value); 3] = [
        (
            "9999-12-31T00:00:00Z",
            "9999-12-31T23:59:59-23:59",
            json!({
                "type": "invalid_request",
                "title": "Invalid request",
                "status": 400,
                "detail": "validation failed",
                "errors": [{ "message": message("ends_at"), "location": "query.ends_at" }],
                "props": null,
            }),
        ),
        (
            "9999-12-31T12:00:00-23:00",
            "9999-12-31T13:00:00-23:00",
            json!({
                "type": "invalid_request",
                "title": "Invalid request",
                "status": 400,
                "detail": "validation failed",
                "errors": [
                    { "message": message("starts_at"), "location": "query.starts_at" },
                    { "message": message("ends_at"), "location": "query.ends_at" },
                ],
                "props": null,
            }),
        ),
        // The last representable UTC date still answers, with nothing in it.
        (
            "9999-12-31T00:00:00Z",
            "9999-12-31T23:59:59Z",
            json!({ "countries": [], "devices": [], "pages": [], "sources": [] }),
        ),
    ];
    for (starts_at, ends_at, expected) in cases {
        let query = form_urlencoded::Serializer::new(String::new())
            .append_pair("starts_at", starts_at)
            .append_pair("ends_at", ends_at)
            .finish();
        let reply = get(&base, &format!("{path}?{query}"), ENTERPRISE_ADMIN).await;
        let body = if reply.status == 200 {
            reply.json()
        } else {
            reply.error()
        };
        assert_eq!(body, expected, "{starts_at} .. {ends_at}");
    }
}

/// "Query parameters an operation does not declare are ignored and reported in
/// response headers": `?=1` declares no name, so there is nothing to report (the
/// header used to be sent empty, or with an empty entry).
#[tokio::test]
async fn parameters_without_a_name_are_not_reported() {
    let (server, _clock) = demo_server().await;
    let base = server.base_url();
    let cases: [(&str, Option<&str>); 4] = [
        ("?=1", None),
        ("?=1&foo=2", Some("foo")),
        ("?&&foo&=", Some("foo")),
        ("?bar=1&=2&baz", Some("bar,baz")),
    ];
    for (query, expected) in cases {
        let reply = get(
            &base,
            &format!("/v1/projects/prj_70256702db4f{query}"),
            ENTERPRISE_ADMIN,
        )
        .await;
        assert_eq!(reply.status, 200, "{query}: {}", reply.text);
        assert_eq!(
            reply.header("x-service-unknown-query-params"),
            expected,
            "{query}"
        );
        assert_eq!(
            reply.header("x-service-unknown-query-params-omitted"),
            None,
            "{query}"
        );
    }
}

/// Requests the HTTP layer refuses before the API sees them (bytes that are not
/// a request, a header block over the limit) are answered or closed, and the
/// server keeps answering with the envelope afterwards.
#[tokio::test]
async fn garbage_requests_do_not_stop_the_server() {
    let (server, _clock) = demo_server().await;
    let addr = server.addr;
    let key = format!("Service-API-Key: {ENTERPRISE_ADMIN}\r\n");
    let many_headers: String = (0..200).map(|n| format!("X-H{n}: v\r\n")).collect();
    let cases: Vec<(&str, Vec<u8>)> = vec![
        ("not HTTP", b"\x00\x01GARBAGE\xff\r\n\r\n".to_vec()),
        (
            "raw invalid UTF-8 in the target",
            [
                b"GET /v1/projects/\xff\xfe HTTP/1.1\r\nHost: x\r\n".as_slice(),
                key.as_bytes(),
                b"Connection: close\r\n\r\n",
            ]
            .concat(),
        ),
        (
            "200 headers",
            format!(
                "GET /v1/projects/x HTTP/1.1\r\nHost: x\r\n{key}{many_headers}Connection: close\r\n\r\n"
            )
            .into_bytes(),
        ),
        (
            "a 1 MB header",
            format!(
                "GET /v1/projects/x HTTP/1.1\r\nHost: x\r\n{key}X-Big: {}\r\nConnection: close\r\n\r\n",
                "a".repeat(1 << 20)
            )
            .into_bytes(),
        ),
        (
            "a body shorter than its Content-Length",
            format!(
                "PATCH /v1/projects/prj_70256702db4f HTTP/1.1\r\nHost: x\r\n{key}Content-Type: application/json\r\nContent-Length: 100\r\nConnection: close\r\n\r\n{{\"na"
            )
            .into_bytes(),
        ),
    ];
    for (label, bytes) in cases {
        let status_line = tokio::task::spawn_blocking(move || raw_exchange(addr, &bytes))
            .await
            .unwrap();
        // Either an HTTP status (a 4xx from the HTTP layer) or a closed connection.
        assert!(
            status_line.is_empty() || status_line.starts_with("HTTP/1.1 4"),
            "{label}: {status_line:?}"
        );
        let reply = get(
            &server.base_url(),
            "/v1/projects/prj_missing",
            ENTERPRISE_ADMIN,
        )
        .await;
        assert_eq!(
            reply.error(),
            json!({
                "type": "project_not_found",
                "title": "Project not found",
                "status": 404,
                "detail": null,
                "errors": null,
                "props": null,
            }),
            "after {label}"
        );
    }
}

/// Sends raw bytes, half-closes, and returns the first line of the answer (empty
/// when the server closed without one).
fn raw_exchange(addr: std::net::SocketAddr, bytes: &[u8]) -> String {
    let mut stream = TcpStream::connect(addr).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(5)))
        .unwrap();
    // The server may answer and close before it has read everything.
    let _ = stream.write_all(bytes);
    let _ = stream.shutdown(std::net::Shutdown::Write);
    let mut answer = Vec::new();
    let _ = stream.read_to_end(&mut answer);
    String::from_utf8_lossy(&answer)
        .lines()
        .next()
        .unwrap_or_default()
        .to_owned()
}

/// README: `--db PATH` keeps the data in a SQLite file. A file SQLite can only
/// read used to start a server whose every write answered 500; it is refused at
/// start with the reason.
#[test]
fn a_read_only_database_file_is_refused_at_start() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("vantage.db");
    let config = |path: &Path| {
        let mut config = ServerConfig::local(demo());
        config.db = Some(path.to_owned());
        config
    };
    drop(ServerState::new(config(&path)).expect("a writable file opens"));
    // Never skipped: a test that skips on CI checks nothing. As root this
    // needs `chattr` (e2fsprogs) and a file system with the immutable flag.
    let _guard = ReadOnly::make(&path).expect(
        "a read-only file: permissions for a user, `chattr +i` for root (is e2fsprogs installed?)",
    );
    match ServerState::new(config(&path)) {
        Err(ServerError::Store(StoreError::ReadOnly(named))) => {
            assert_eq!(named, path);
            let message = ServerError::Store(StoreError::ReadOnly(named)).to_string();
            assert_eq!(
                message,
                format!(
                    "store: the database file {} is read-only; every write would fail (give a writable file, or leave out --db to keep the data in memory)",
                    path.display()
                )
            );
        }
        Err(other) => panic!("another error: {other}"),
        Ok(_) => panic!("a read-only database was accepted"),
    }
}

/// Makes a file read-only for the current user: permissions, or for root (whom
/// permissions do not stop) the immutable attribute. Undone on drop.
struct ReadOnly<'a> {
    path: &'a Path,
    immutable: bool,
}

impl<'a> ReadOnly<'a> {
    fn make(path: &'a Path) -> Option<Self> {
        let mut permissions = std::fs::metadata(path).ok()?.permissions();
        permissions.set_readonly(true);
        std::fs::set_permissions(path, permissions).ok()?;
        let writable = || std::fs::OpenOptions::new().append(true).open(path).is_ok();
        if !writable() {
            return Some(Self {
                path,
                immutable: false,
            });
        }
        let made = Command::new("chattr")
            .arg("+i")
            .arg(path)
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|status| status.success());
        let guard = Self {
            path,
            immutable: made,
        };
        (made && !writable()).then_some(guard)
    }
}

impl Drop for ReadOnly<'_> {
    fn drop(&mut self) {
        if self.immutable {
            let _ = Command::new("chattr").arg("-i").arg(self.path).status();
        }
    }
}

/// README, fixture format and `--faults`: a bad fixture or flag is reported
/// clearly, naming the record and field, and the command exits non-zero without
/// a panic.
#[test]
fn serve_reports_bad_fixtures_and_flags_clearly() {
    let dir = tempfile::tempdir().unwrap();
    let fixture = |name: &str, text: &str| {
        let path = dir.path().join(name);
        std::fs::write(&path, text).unwrap();
        path.display().to_string()
    };
    let missing_name = fixture(
        "missing-name.json",
        r#"{"workspaces": [{"id": "ws_x", "plan": "enterprise", "created_at": "2026-01-01T00:00:00Z"}]}"#,
    );
    let bad_visibility = fixture(
        "bad-visibility.json",
        r#"{"projects": [{"id": "p", "workspace_id": "w", "updated_at": "2026-01-01T00:00:00Z"},
                         {"id": "q", "workspace_id": "w", "updated_at": "2026-01-01T00:00:00Z", "visibility": 7}]}"#,
    );
    let out_of_range = fixture(
        "out-of-range.json",
        r#"{"reference_time": "0001-01-01T00:00:00Z",
            "workspaces": [{"id": "w", "name": "W", "plan": "pro", "created_at": "9999-01-01T00:00:00Z"}]}"#,
    );
    let cases: Vec<(Vec<String>, i32, String)> = vec![
        (
            vec!["--fixture".into(), missing_name.clone()],
            1,
            format!("fixture {missing_name}: at workspaces[0]: missing field `name`"),
        ),
        (
            vec!["--fixture".into(), bad_visibility.clone()],
            1,
            format!(
                "fixture {bad_visibility}: at projects[1].visibility: invalid type: integer `7`, expected a string"
            ),
        ),
        (
            vec!["--fixture".into(), out_of_range.clone()],
            1,
            format!(
                "fixture {out_of_range}: created_at 9999-01-01T00:00:00Z moved by reference_time leaves the years -9999 to 9999"
            ),
        ),
        (
            vec!["--faults".into(), "429=0.1,503=0.2,429=0.3".into()],
            2,
            "invalid value '429=0.1,503=0.2,429=0.3' for '--faults <SPEC>': fault 429 is given twice".into(),
        ),
        (
            vec!["--consistency-lag-ms".into(), "9000000000000000000".into()],
            2,
            "invalid value '9000000000000000000' for '--consistency-lag-ms <N>': 9000000000000000000 is not in 0..=86400000".into(),
        ),
    ];
    for (args, code, message) in cases {
        let output = run_serve(&args, Stdio::null());
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(code), "{args:?}: {stderr}");
        assert!(stderr.contains(&message), "{args:?}: {stderr}");
        assert!(!stderr.contains("panicked"), "{args:?}: {stderr}");
    }
}

/// `--print-credentials | head -1` closes the pipe early: that is not a panic
/// (`println!` made it one), and not a failure.
#[test]
fn print_credentials_into_a_closed_pipe_exits_cleanly() {
    let (reader, writer) = std::io::pipe().unwrap();
    drop(reader);
    let output = run_serve(&["--print-credentials".to_owned()], Stdio::from(writer));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(0), "{stderr}");
    assert_eq!(stderr, "");
}

/// Runs `vantage serve ARGS` on a free port with `stdout`, and waits at most 20 s.
fn run_serve(args: &[String], stdout: Stdio) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_vantage"))
        .arg("serve")
        .args(["--addr", "127.0.0.1:0"])
        .args(args)
        .env("NO_COLOR", "1")
        .env("RUST_BACKTRACE", "0")
        .stdin(Stdio::null())
        .stdout(stdout)
        .stderr(Stdio::piped())
        .spawn()
        .expect("vantage runs");
    let started = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if started.elapsed() > Duration::from_secs(20) {
            let _ = child.kill();
            panic!("vantage serve {args:?} did not exit");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    child.wait_with_output().unwrap()
}

/// README, `--faults`: `latency=N..Mms`. The widest range used to overflow when a
/// request drew its latency (a panic per request); a repeated name is refused.
#[test]
fn fault_specs_parse_strictly_and_draw_without_overflow() {
    let cases: [(&str, Result<(), &str>); 4] = [
        ("latency=0..18446744073709551615ms,seed=3", Ok(())),
        ("latency=18446744073709551615ms", Ok(())),
        (
            "latency=5..5ms,latency=6..7ms",
            Err("fault latency is given twice"),
        ),
        ("seed=1,reset=0.5,seed=2", Err("fault seed is given twice")),
    ];
    for (spec, expected) in cases {
        let parsed = spec.parse::<Faults>();
        match (&parsed, expected) {
            (Ok(faults), Ok(())) => {
                let (lo, hi) = faults.latency.unwrap();
                for _ in 0..100 {
                    let drawn = faults.next().latency;
                    assert!(
                        (Duration::from_millis(lo)..=Duration::from_millis(hi)).contains(&drawn),
                        "{spec}: {drawn:?}"
                    );
                }
            }
            (Err(message), Err(expected)) => assert_eq!(message, expected, "{spec}"),
            _ => panic!("{spec}: {parsed:?}"),
        }
    }
}

/// The fixture parser itself, for the in-process servers (`demo`, tests).
#[test]
fn fixture_errors_name_the_record_and_field() {
    let anchor = T0;
    let cases = [
        (
            r#"{"workspaces": [{"id": "w", "name": "W", "plan": "platinum", "created_at": "2026-01-01T00:00:00Z"}]}"#,
            "fixture test: at workspaces[0].plan: unknown variant `platinum`, expected one of `pro`, `business`, `enterprise`",
        ),
        (
            r#"{"keys": [{"label": "k", "key": "x", "workspace_id": "w", "scopes": ["projects:admin"]}]}"#,
            "fixture test: at keys[0].scopes[0]: unknown variant `projects:admin`, expected one of `projects:read`, `projects:write`, `workspaces:read`, `workspaces:write`",
        ),
        (
            r#"{"project": []}"#,
            "fixture test: at project: unknown field `project`, expected one of `workspaces`, `users`, `memberships`, `keys`, `projects`, `pii_findings`, `scans`",
        ),
    ];
    for (text, expected) in cases {
        let err = seed::parse_fixture(text, "test", anchor).expect_err(text);
        assert_eq!(err.to_string(), expected);
    }
    // Untouched: the built-in fixture still loads.
    seed::demo_fixture(anchor).unwrap();
}

/// A project's fixture record is the wire Project and the server's own fields
/// in one object: an error in either part, or a missing field of either,
/// names its path as a plain struct's would.
#[test]
fn fixture_errors_name_the_path_in_either_part_of_a_project() {
    let project = |fields: &str| {
        format!(
            r#"{{"projects": [{{"id": "p", "workspace_id": "w", "updated_at": "2026-01-01T00:00:00Z"}},
                              {{"id": "q", "workspace_id": "w"{fields}}}]}}"#
        )
    };
    let cases = [
        (
            project(
                r#", "updated_at": "2026-01-01T00:00:00Z", "publish_audience_targets": [{"id": "g"}]"#,
            ),
            "fixture test: at projects[1].publish_audience_targets[0]: missing field `type`",
        ),
        (
            project(
                r#", "updated_at": "2026-01-01T00:00:00Z", "security": {"review_priority": 3}"#,
            ),
            "fixture test: at projects[1].security.review_priority: invalid type: integer `3`, expected a string",
        ),
        (
            project(r#", "updated_at": "yesterday""#),
            "fixture test: at projects[1].updated_at: the 'year' component could not be parsed",
        ),
        (
            project(""),
            "fixture test: at projects[1]: missing field `updated_at`",
        ),
        (
            project(
                r#", "updated_at": "2026-01-01T00:00:00Z", "audience": "public", "publish_audience": "public""#,
            ),
            "fixture test: at projects[1]: duplicate field `publish_audience`",
        ),
    ];
    for (text, expected) in cases {
        let err = seed::parse_fixture(&text, "test", T0).expect_err(&text);
        assert_eq!(err.to_string(), expected);
    }
}

/// Sends raw bytes and reads the whole answer until the server closes; the
/// socket's read timeout only bounds a failing test.
fn raw_answer(addr: std::net::SocketAddr, bytes: &[u8]) -> std::io::Result<Vec<u8>> {
    let mut stream = TcpStream::connect(addr)?;
    stream.set_read_timeout(Some(Duration::from_secs(20)))?;
    let _ = stream.write_all(bytes);
    let mut answer = Vec::new();
    stream.read_to_end(&mut answer)?;
    Ok(answer)
}

/// An HTTP/1.1 answer read off the wire, as a `Reply`.
fn parse_raw_reply(answer: &[u8]) -> Reply {
    let text = String::from_utf8_lossy(answer).into_owned();
    let (head, body) = text.split_once("\r\n\r\n").expect("a whole HTTP head");
    let mut lines = head.lines();
    let status = lines
        .next()
        .and_then(|line| line.split(' ').nth(1))
        .and_then(|code| code.parse().ok())
        .expect("a status line");
    let mut headers = reqwest::header::HeaderMap::new();
    for line in lines {
        let (name, value) = line.split_once(':').expect("a header line");
        headers.append(
            reqwest::header::HeaderName::from_bytes(name.trim().as_bytes()).unwrap(),
            value.trim().parse().unwrap(),
        );
    }
    Reply {
        status,
        headers,
        text: body.to_owned(),
    }
}

/// Issue 11, item 8: a connection that sends half its headers, or nothing, is
/// closed once the header-read timeout passes, and so is an idle keep-alive
/// connection waiting for its next request.
#[tokio::test]
async fn slow_or_silent_connections_are_closed_after_the_header_read_timeout() {
    let (server, _clock) = server_with(|config| {
        config.connections.header_read_timeout = Duration::from_millis(200);
    })
    .await;
    let addr = server.addr;
    let cases: [(&str, &[u8]); 3] = [
        (
            "half a request",
            b"GET /v1/projects/x HTTP/1.1\r\nHost: x\r\nService-API",
        ),
        ("nothing", b""),
        (
            "an idle keep-alive connection",
            b"GET /v1/projects/x HTTP/1.1\r\nHost: x\r\n\r\n",
        ),
    ];
    for (label, bytes) in cases {
        let answer = tokio::task::spawn_blocking(move || raw_answer(addr, bytes))
            .await
            .unwrap()
            .unwrap_or_else(|err| panic!("{label}: the server kept the connection open: {err}"));
        let text = String::from_utf8_lossy(&answer);
        if label == "an idle keep-alive connection" {
            // Answered (401: no key), kept alive, then closed while idle.
            assert!(text.starts_with("HTTP/1.1 401 "), "{label}: {text}");
            assert!(!text.contains("connection: close"), "{label}: {text}");
        } else {
            assert_eq!(text, "", "{label}");
        }
    }
}

/// Issue 11, item 9: what hyper refuses before routing (a 100 KB URI, a 1 MB
/// header, 1,000 headers, a raw 0xFF or NUL in the path) is answered with the
/// error envelope and `X-Request-Id`, like every other error.
#[tokio::test]
async fn protocol_level_rejections_carry_the_envelope() {
    let (server, _clock) = demo_server().await;
    let addr = server.addr;
    let request = |target: &[u8], headers: &str| -> Vec<u8> {
        [
            b"GET ".as_slice(),
            target,
            format!(" HTTP/1.1\r\nHost: x\r\nService-API-Key: {ENTERPRISE_ADMIN}\r\n{headers}\r\n")
                .as_bytes(),
        ]
        .concat()
    };
    let long_cursor = format!(
        "/v1/workspaces/ws_acme/security-center/insights/projects?cursor={}",
        "a".repeat(100_000)
    );
    let big_header = format!("X-Big: {}\r\n", "a".repeat(1 << 20));
    let many_headers: String = (0..1000).map(|n| format!("X-H{n}: v\r\n")).collect();
    let too_long = json!({
        "type": "invalid_request",
        "title": "URI Too Long",
        "status": 414,
        "detail": "the request URI is longer than this server reads",
        "errors": null,
        "props": null,
    });
    let too_large = json!({
        "type": "invalid_request",
        "title": "Request Header Fields Too Large",
        "status": 431,
        "detail": "the request headers are too large or too many",
        "errors": null,
        "props": null,
    });
    let unparsable = json!({
        "type": "invalid_request",
        "title": "Bad Request",
        "status": 400,
        "detail": "the request line or a header could not be parsed (e.g. a control or non-ASCII byte in the path)",
        "errors": null,
        "props": null,
    });
    let cases = [
        (
            "a 100 KB cursor",
            request(long_cursor.as_bytes(), ""),
            too_long,
        ),
        (
            "a 1 MB header",
            request(b"/v1/projects/x", &big_header),
            too_large.clone(),
        ),
        (
            "1,000 headers",
            request(b"/v1/projects/x", &many_headers),
            too_large,
        ),
        (
            "a raw 0xFF in the path",
            request(b"/v1/projects/\xff", ""),
            unparsable.clone(),
        ),
        (
            "a raw NUL in the path",
            request(b"/v1/projects/a\x00b", ""),
            unparsable,
        ),
    ];
    for (label, bytes, expected) in cases {
        let answer = tokio::task::spawn_blocking(move || raw_answer(addr, &bytes))
            .await
            .unwrap()
            .unwrap_or_else(|err| panic!("{label}: {err}"));
        let reply = parse_raw_reply(&answer);
        assert_eq!(reply.error(), expected, "{label}");
        assert_eq!(reply.header("connection"), Some("close"), "{label}");
    }
}

fn on_file(path: &Path) -> ServerConfig {
    let mut config = ServerConfig::local(demo());
    config.db = Some(path.to_owned());
    config
}

/// Issue 11, item 6, in-process: the store holds the file's lock while it is
/// open, and gives it back when dropped.
#[test]
fn a_database_file_is_opened_by_one_store_at_a_time() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("vantage.db");
    let first = ServerState::new(on_file(&path)).expect("the first store opens");
    match ServerState::new(on_file(&path)) {
        Err(ServerError::Store(StoreError::InUse(named))) => assert_eq!(named, path),
        Err(other) => panic!("another error: {other}"),
        Ok(_) => panic!("a second store opened a database in use"),
    }
    drop(first);
    ServerState::new(on_file(&path)).expect("the file opens again once the first store is gone");
}

/// Issue 11, item 7: a database with a damaged page is refused at start with a
/// message naming the file, instead of answering 500s or writing into it.
#[test]
fn a_damaged_database_is_refused_at_start() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("vantage.db");
    drop(ServerState::new(on_file(&path)).expect("a new file opens"));
    let mut bytes = std::fs::read(&path).unwrap();
    let page = 4096;
    let pages = bytes.len() / page;
    assert!(pages > 4, "the demo database spans pages: {}", bytes.len());
    // Garbage over a page in the middle of the file.
    let middle = pages / 2 * page;
    for (offset, byte) in bytes[middle..middle + page].iter_mut().enumerate() {
        *byte = (offset * 7 + 13) as u8;
    }
    std::fs::write(&path, &bytes).unwrap();
    match ServerState::new(on_file(&path)) {
        Err(error @ ServerError::Store(StoreError::Damaged { .. })) => {
            let message = error.to_string();
            let prefix = format!("store: the database file {} is damaged (", path.display());
            assert!(message.starts_with(&prefix), "{message}");
            assert!(
                message.ends_with("); restore it from a backup, or give a new file to --db"),
                "{message}"
            );
        }
        Err(other) => panic!("another error: {other}"),
        Ok(_) => panic!("a damaged database was accepted"),
    }
}

/// README, "Order of checks": scope (step 7) comes before path validation (step
/// 10). The route table checks scope, plan and features before the handler reads
/// its path parameters, so a key without the scope learns nothing about the path.
#[tokio::test]
async fn scope_is_checked_before_a_malformed_path_parameter() {
    let (server, _clock) = demo_server().await;
    let reply = get(
        &server.base_url(),
        "/v1/workspaces/%C3/members",
        PROJECTS_READ,
    )
    .await;
    assert_eq!(
        reply.error(),
        json!({
            "type": "insufficient_scope",
            "title": "Insufficient scope",
            "status": 403,
            "detail": "the API key lacks a scope this operation needs",
            "errors": null,
            "props": {"required_scopes": ["workspaces:read", "workspaces:write"]},
        })
    );
    let reply = get(
        &server.base_url(),
        "/v1/workspaces/%C3/members",
        WORKSPACES_READ,
    )
    .await;
    assert_eq!(reply.status, 400, "{}", reply.text);
}
