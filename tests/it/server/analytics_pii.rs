//! Reference server, operations 5 to 7 and the security-scan operations, over
//! loopback: realtime and breakdown analytics, personal-data findings, scans.

use std::collections::HashSet;

use crate::common::*;
use serde_json::{Value, json};
use time::macros::datetime;
use time::{Duration, OffsetDateTime};
use vantage::api::model::{FindingStatus, PiiFinding, PiiSource, PiiStatus, format_timestamp};
use vantage::clock::Clock;
use vantage::server::auth::Feature;
use vantage::server::ratelimit::RateLimit;
use vantage::server::store::{Fixture, PiiRec, ProjectRec, ScanRec};
use vantage::server::{RunningServer, ServerConfig, start};

/// A server on `fixture` with a manual clock at T0 and a rate limit tests never reach.
async fn server_on(fixture: Fixture) -> (RunningServer, Clock) {
    let clock = Clock::manual(T0);
    let mut config = ServerConfig::local(fixture);
    config.clock = clock.clone();
    config.rate_limit = RateLimit {
        limit: 1_000_000,
        window: Duration::seconds(60),
    };
    (start(config).await.expect("server starts"), clock)
}

/// Query parameters of one request, in order.
type Query<'a> = &'a [(&'a str, &'a str)];

async fn get(
    server: &RunningServer,
    key: &str,
    path: &str,
    query: &[(&str, &str)],
) -> (u16, Value) {
    let response = http()
        .get(format!("{}{path}", server.base_url()))
        .header("Service-API-Key", key)
        .query(query)
        .send()
        .await
        .unwrap();
    let status = response.status().as_u16();
    let body = response.json::<Value>().await.unwrap_or(Value::Null);
    (status, body)
}

/// Asserts the error envelope: type, status, and the field error locations.
fn assert_error(status: u16, body: &Value, expected_status: u16, kind: &str, locations: &[&str]) {
    assert_eq!(status, expected_status, "{body}");
    assert_eq!(body["type"], kind, "{body}");
    assert_eq!(body["status"], expected_status);
    let keys: Vec<&str> = body
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    let mut sorted = keys.clone();
    sorted.sort();
    assert_eq!(
        sorted,
        [
            "detail",
            "errors",
            "props",
            "request_id",
            "status",
            "title",
            "type"
        ]
    );
    if locations.is_empty() {
        assert!(
            body["errors"].is_null() || body["errors"] == json!([]),
            "{body}"
        );
    } else {
        let found: Vec<&str> = body["errors"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| e["location"].as_str().unwrap())
            .collect();
        assert_eq!(found, locations, "{body}");
    }
}

fn object_keys(value: &Value) -> Vec<&str> {
    let mut keys: Vec<&str> = value
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    keys.sort();
    keys
}

/// The enterprise project with the most daily visitors, among those matching `pick`.
fn busiest(fixture: &Fixture, pick: impl Fn(&ProjectRec) -> bool) -> ProjectRec {
    fixture
        .projects
        .iter()
        .filter(|p| p.wire.workspace_id == ENTERPRISE_WS && p.analytics.is_some() && pick(p))
        .max_by_key(|p| p.analytics.as_ref().unwrap().daily_visitors)
        .cloned()
        .expect("a matching project")
}

fn realtime_path(project_id: &str) -> String {
    format!("/v1/projects/{project_id}/analytics/realtime")
}

fn breakdowns_path(project_id: &str) -> String {
    format!("/v1/projects/{project_id}/analytics/breakdowns")
}

fn ts(at: OffsetDateTime) -> String {
    format_timestamp(at)
}

// ---------------------------------------------------------------- realtime

#[tokio::test]
async fn realtime_has_thirty_minute_buckets_ending_at_the_clock_minute() {
    let fixture = demo();
    let project = busiest(&fixture, |p| p.wire.is_published);
    let (server, clock) = server_on(fixture).await;
    clock.set(T0 + Duration::seconds(37));
    let (status, body) = get(
        &server,
        ENTERPRISE_READONLY,
        &realtime_path(&project.wire.id),
        &[],
    )
    .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(object_keys(&body), ["buckets", "current_visitors"]);
    let buckets = body["buckets"].as_array().unwrap();
    assert_eq!(buckets.len(), 30);
    // Oldest first, one minute apart, the last one the minute the clock is in.
    for (index, bucket) in buckets.iter().enumerate() {
        assert_eq!(object_keys(bucket), ["timestamp", "visitors"]);
        let expected = T0 - Duration::minutes(29 - index as i64);
        assert_eq!(bucket["timestamp"], json!(ts(expected)));
        assert!(bucket["visitors"].as_i64().unwrap() >= 0);
    }
    assert_eq!(buckets[29]["timestamp"], "2026-11-22T12:00:00.000Z");
    assert_eq!(buckets[0]["timestamp"], "2026-11-22T11:31:00.000Z");
    let visitors: Vec<i64> = buckets
        .iter()
        .map(|b| b["visitors"].as_i64().unwrap())
        .collect();
    assert!(
        visitors.iter().sum::<i64>() > 0,
        "a busy app has visitors: {visitors:?}"
    );
    // Visitors active over the last 5 minutes: at least the busiest of those
    // minutes, at most everyone counted in them.
    let current = body["current_visitors"].as_i64().unwrap();
    let last_five = &visitors[25..];
    assert!(
        current >= *last_five.iter().max().unwrap(),
        "{current} {last_five:?}"
    );
    assert!(
        current <= last_five.iter().sum::<i64>(),
        "{current} {last_five:?}"
    );
}

#[tokio::test]
async fn realtime_is_deterministic_per_minute_and_moves_with_the_clock() {
    let fixture = demo();
    let project = busiest(&fixture, |p| p.wire.is_published);
    let path = realtime_path(&project.wire.id);
    let (server, clock) = server_on(fixture.clone()).await;
    let (_, first) = get(&server, ENTERPRISE_ADMIN, &path, &[]).await;
    clock.advance(Duration::seconds(59));
    let (_, same_minute) = get(&server, ENTERPRISE_ADMIN, &path, &[]).await;
    assert_eq!(first, same_minute);
    // Another server (a restart) gives the same numbers for the same minute.
    let (other, _) = server_on(fixture).await;
    let (_, restarted) = get(&other, ENTERPRISE_ADMIN, &path, &[]).await;
    assert_eq!(first, restarted);

    clock.advance(Duration::seconds(1));
    let (_, next) = get(&server, ENTERPRISE_ADMIN, &path, &[]).await;
    assert_ne!(first, next);
    let old = first["buckets"].as_array().unwrap();
    let new = next["buckets"].as_array().unwrap();
    assert_eq!(new[29]["timestamp"], "2026-11-22T12:01:00.000Z");
    // The window slid by one minute; the minutes both cover kept their numbers.
    assert_eq!(old[1..], new[..29]);

    // Over a few hours the numbers do move.
    let mut seen = HashSet::new();
    for _ in 0..12 {
        clock.advance(Duration::minutes(17));
        let (_, body) = get(&server, ENTERPRISE_ADMIN, &path, &[]).await;
        seen.insert(body["current_visitors"].as_i64().unwrap());
    }
    assert!(seen.len() > 1, "current_visitors never changed: {seen:?}");
}

#[tokio::test]
async fn realtime_gates() {
    let fixture = demo();
    let never_published = fixture
        .projects
        .iter()
        .find(|p| p.wire.workspace_id == ENTERPRISE_WS && p.analytics.is_none())
        .unwrap()
        .wire
        .id
        .clone();
    let offline = busiest(&fixture, |p| !p.wire.is_published);
    let globex = first_project(&fixture, BUSINESS_WS);
    let globex_published = fixture
        .projects
        .iter()
        .find(|p| p.wire.workspace_id == BUSINESS_WS && p.analytics.is_some())
        .unwrap()
        .wire
        .id
        .clone();
    let initech = first_project(&fixture, PRO_WS);
    let (server, _) = server_on(fixture).await;

    let (status, body) = get(
        &server,
        ENTERPRISE_ADMIN,
        &realtime_path(&never_published),
        &[],
    )
    .await;
    assert_error(status, &body, 404, "analytics_not_found", &[]);
    assert_eq!(body["props"], Value::Null);

    // Offline with history: the window is there, with nobody in it.
    let (status, body) = get(
        &server,
        ENTERPRISE_ADMIN,
        &realtime_path(&offline.wire.id),
        &[],
    )
    .await;
    assert_eq!(status, 200);
    assert_eq!(body["current_visitors"], 0);
    assert_eq!(body["buckets"].as_array().unwrap().len(), 30);
    assert!(
        body["buckets"]
            .as_array()
            .unwrap()
            .iter()
            .all(|b| b["visitors"] == 0)
    );

    for (key, project, status, kind) in [
        (
            ENTERPRISE_ADMIN,
            "prj_does_not_exist",
            404,
            "analytics_not_found",
        ),
        (
            ENTERPRISE_ADMIN,
            globex.as_str(),
            404,
            "analytics_not_found",
        ),
        (WORKSPACES_READ, globex.as_str(), 403, "insufficient_scope"),
        (PRO_ADMIN, initech.as_str(), 402, "payment_required"),
    ] {
        let (got, body) = get(&server, key, &realtime_path(project), &[]).await;
        assert_error(got, &body, status, kind, &[]);
    }
    let (status, _) = get(
        &server,
        BUSINESS_ADMIN,
        &realtime_path(&globex_published),
        &[],
    )
    .await;
    assert_eq!(status, 200, "Business is enough");
}

// ---------------------------------------------------------------- breakdowns

#[tokio::test]
async fn breakdowns_validation() {
    let fixture = demo();
    let project = busiest(&fixture, |p| p.wire.is_published).wire.id;
    let path = breakdowns_path(&project);
    let (server, _) = server_on(fixture).await;
    let cases: &[(Query, &[&str])] = &[
        (&[], &["query.starts_at", "query.ends_at"]),
        (&[("starts_at", "2026-11-01T00:00:00Z")], &["query.ends_at"]),
        (&[("ends_at", "2026-11-01T00:00:00Z")], &["query.starts_at"]),
        (
            &[
                ("starts_at", "2026-11-01"),
                ("ends_at", "2026-11-02T00:00:00Z"),
            ],
            &["query.starts_at"],
        ),
        (
            &[
                ("starts_at", "2026-11-01T00:00:00Z"),
                ("ends_at", "yesterday"),
            ],
            &["query.ends_at"],
        ),
        (
            &[
                ("starts_at", "2026-11-01T00:00:00"),
                ("ends_at", "2026-11-02T25:00:00Z"),
            ],
            &["query.starts_at", "query.ends_at"],
        ),
        (
            &[("starts_at", ""), ("ends_at", "2026-11-02T00:00:00Z")],
            &["query.starts_at"],
        ),
        (
            &[
                ("starts_at", "2026-11-01T00:00:00Z"),
                ("starts_at", "2026-11-02T00:00:00Z"),
                ("ends_at", "2026-11-03T00:00:00Z"),
            ],
            &["query.starts_at"],
        ),
        // Reversed, even within one date.
        (
            &[
                ("starts_at", "2026-11-10T00:00:00Z"),
                ("ends_at", "2026-11-09T23:59:59Z"),
            ],
            &["query.ends_at"],
        ),
        (
            &[
                ("starts_at", "2026-11-10T12:00:00Z"),
                ("ends_at", "2026-11-10T11:00:00Z"),
            ],
            &["query.ends_at"],
        ),
        // 366 days between the UTC dates.
        (
            &[
                ("starts_at", "2025-11-21T00:00:00Z"),
                ("ends_at", "2026-11-22T00:00:00Z"),
            ],
            &["query.ends_at"],
        ),
        // 366 days between the UTC dates once converted, under 365 in local time.
        (
            &[
                ("starts_at", "2025-11-22T02:00:00+05:30"),
                ("ends_at", "2026-11-22T00:00:00Z"),
            ],
            &["query.ends_at"],
        ),
    ];
    for (query, locations) in cases {
        let (status, body) = get(&server, ENTERPRISE_ADMIN, &path, query).await;
        assert_error(status, &body, 400, "invalid_request", locations);
        assert_eq!(body["detail"], "validation failed", "{query:?}");
    }
    // Exactly 365 days apart ("the last 365 days") is fine.
    let (status, body) = get(
        &server,
        ENTERPRISE_ADMIN,
        &path,
        &[
            ("starts_at", "2025-11-22T12:00:00Z"),
            ("ends_at", "2026-11-22T12:00:00Z"),
        ],
    )
    .await;
    assert_eq!(status, 200, "{body}");
    // Validation (400) comes before the resource (404).
    let (status, body) = get(
        &server,
        ENTERPRISE_ADMIN,
        &breakdowns_path("prj_missing"),
        &[],
    )
    .await;
    assert_error(
        status,
        &body,
        400,
        "invalid_request",
        &["query.starts_at", "query.ends_at"],
    );
}

/// The breakdowns of `path` for a range given as query values.
async fn breakdowns(server: &RunningServer, path: &str, starts_at: &str, ends_at: &str) -> Value {
    let (status, body) = get(
        server,
        ENTERPRISE_ADMIN,
        path,
        &[("starts_at", starts_at), ("ends_at", ends_at)],
    )
    .await;
    assert_eq!(status, 200, "{body}");
    body
}

#[tokio::test]
async fn breakdowns_use_utc_dates_of_any_offset() {
    let fixture = demo();
    let project = busiest(&fixture, |p| p.wire.is_published).wire.id;
    let path = breakdowns_path(&project);
    let (server, _) = server_on(fixture).await;
    let utc_21st = breakdowns(
        &server,
        &path,
        "2026-11-21T00:00:00Z",
        "2026-11-21T23:59:59Z",
    )
    .await;
    // 03:00 and 04:00 on the 22nd in India are still the 21st in UTC.
    let india = breakdowns(
        &server,
        &path,
        "2026-11-22T03:00:00+05:30",
        "2026-11-22T04:00:00+05:30",
    )
    .await;
    assert_eq!(india, utc_21st);
    // 22:00 on the 20th in New York is the 21st in UTC.
    let new_york = breakdowns(
        &server,
        &path,
        "2026-11-20T22:00:00-05:00",
        "2026-11-20T23:00:00-05:00",
    )
    .await;
    assert_eq!(new_york, utc_21st);
    // Whole dates: any time of the same dates gives the same answer.
    let whole = breakdowns(
        &server,
        &path,
        "2026-11-21T23:00:00Z",
        "2026-11-21T23:00:00Z",
    )
    .await;
    assert_eq!(whole, utc_21st);
    let utc_22nd = breakdowns(
        &server,
        &path,
        "2026-11-22T00:00:00Z",
        "2026-11-22T01:00:00Z",
    )
    .await;
    assert_ne!(utc_22nd, utc_21st);
}

#[tokio::test]
async fn breakdowns_lists_are_ordered_capped_and_labelled() {
    let fixture = demo();
    let project = busiest(&fixture, |p| {
        p.wire.is_published && p.analytics.as_ref().unwrap().retention_days == 365
    });
    let daily = i64::from(project.analytics.as_ref().unwrap().daily_visitors);
    let path = breakdowns_path(&project.wire.id);
    let (server, _) = server_on(fixture).await;
    let year = breakdowns(
        &server,
        &path,
        "2025-11-23T00:00:00Z",
        "2026-11-22T12:00:00Z",
    )
    .await;
    assert_eq!(
        object_keys(&year),
        ["countries", "devices", "pages", "sources"]
    );
    for list in ["countries", "devices", "pages", "sources"] {
        let items = year[list].as_array().unwrap();
        assert!(
            !items.is_empty() && items.len() <= 10,
            "{list}: {}",
            items.len()
        );
        for item in items {
            assert_eq!(object_keys(item), ["label", "visitors"]);
            assert!(item["visitors"].as_i64().unwrap() > 0);
        }
        for pair in items.windows(2) {
            let (a, b) = (&pair[0], &pair[1]);
            let (va, vb) = (
                a["visitors"].as_i64().unwrap(),
                b["visitors"].as_i64().unwrap(),
            );
            assert!(
                va > vb || (va == vb && a["label"].as_str() < b["label"].as_str()),
                "{list} out of order: {a} before {b}"
            );
        }
    }
    // Countries and pages have more than ten labels over a year.
    assert_eq!(year["countries"].as_array().unwrap().len(), 10);
    assert_eq!(year["pages"].as_array().unwrap().len(), 10);
    let labels = |list: &str| -> Vec<String> {
        year[list]
            .as_array()
            .unwrap()
            .iter()
            .map(|i| i["label"].as_str().unwrap().to_owned())
            .collect()
    };
    assert!(
        labels("countries").contains(&"Unknown".to_owned()),
        "{:?}",
        labels("countries")
    );
    assert!(
        labels("sources").contains(&"Direct".to_owned()),
        "{:?}",
        labels("sources")
    );
    assert!(labels("pages").iter().all(|p| p.starts_with('/')));

    // The scale matches the daily pattern: the devices list is complete, so its
    // sum is every visitor of four past weeks.
    let weeks = breakdowns(
        &server,
        &path,
        "2026-10-25T00:00:00Z",
        "2026-11-21T00:00:00Z",
    )
    .await;
    let total: i64 = weeks["devices"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["visitors"].as_i64().unwrap())
        .sum();
    assert!(
        (daily * 28 * 6 / 10..=daily * 28 * 13 / 10).contains(&total),
        "{total} visitors in 28 days at {daily} a day"
    );
    // Today counts up to the clock: the afternoon adds visitors, not the past days.
    let past = breakdowns(
        &server,
        &path,
        "2026-11-20T00:00:00Z",
        "2026-11-21T00:00:00Z",
    )
    .await;
    let sum = |body: &Value| -> i64 {
        body["devices"]
            .as_array()
            .unwrap()
            .iter()
            .map(|i| i["visitors"].as_i64().unwrap())
            .sum()
    };
    let today = breakdowns(
        &server,
        &path,
        "2026-11-22T00:00:00Z",
        "2026-11-22T00:00:00Z",
    )
    .await;
    let (later_server, later_clock) = server_on(demo()).await;
    later_clock.set(T0 + Duration::hours(6));
    let later_today = breakdowns(
        &later_server,
        &path,
        "2026-11-22T00:00:00Z",
        "2026-11-22T00:00:00Z",
    )
    .await;
    let later_past = breakdowns(
        &later_server,
        &path,
        "2026-11-20T00:00:00Z",
        "2026-11-21T00:00:00Z",
    )
    .await;
    assert!(
        sum(&later_today) > sum(&today),
        "{} then {}",
        sum(&today),
        sum(&later_today)
    );
    assert_eq!(later_past, past);
}

#[tokio::test]
async fn breakdowns_respect_retention_and_the_future() {
    let fixture = demo();
    let short = busiest(&fixture, |p| {
        p.wire.is_published && p.analytics.as_ref().unwrap().retention_days == 90
    });
    let long = busiest(&fixture, |p| {
        p.wire.is_published
            && p.analytics.as_ref().unwrap().retention_days == 365
            && p.wire
                .created_at
                .is_none_or(|at| at < T0 - Duration::days(250))
    });
    let never_published = fixture
        .projects
        .iter()
        .find(|p| p.wire.workspace_id == ENTERPRISE_WS && p.analytics.is_none())
        .unwrap()
        .wire
        .id
        .clone();
    let (server, _) = server_on(fixture).await;
    let days_ago = |n: i64| ts(T0 - Duration::days(n));
    let empty = json!({"countries": [], "devices": [], "pages": [], "sources": []});

    let old = breakdowns(
        &server,
        &breakdowns_path(&short.wire.id),
        &days_ago(200),
        &days_ago(100),
    )
    .await;
    assert_eq!(old, empty);
    let kept = breakdowns(
        &server,
        &breakdowns_path(&long.wire.id),
        &days_ago(200),
        &days_ago(100),
    )
    .await;
    assert_ne!(kept, empty);
    // The 90 dates up to today are kept; the 90th day back is not.
    let gone = breakdowns(
        &server,
        &breakdowns_path(&short.wire.id),
        &days_ago(90),
        &days_ago(90),
    )
    .await;
    assert_eq!(gone, empty);
    let last_kept = breakdowns(
        &server,
        &breakdowns_path(&short.wire.id),
        &days_ago(89),
        &days_ago(89),
    )
    .await;
    assert_ne!(last_kept, empty);
    let all = breakdowns(
        &server,
        &breakdowns_path(&short.wire.id),
        &days_ago(300),
        &days_ago(0),
    )
    .await;
    let retained = breakdowns(
        &server,
        &breakdowns_path(&short.wire.id),
        &days_ago(89),
        &days_ago(0),
    )
    .await;
    assert_eq!(all, retained);
    // Days in the future have no visitors yet.
    let future = breakdowns(
        &server,
        &breakdowns_path(&long.wire.id),
        "2026-11-23T00:00:00Z",
        "2027-01-31T00:00:00Z",
    )
    .await;
    assert_eq!(future, empty);

    let (status, body) = get(
        &server,
        ENTERPRISE_ADMIN,
        &breakdowns_path(&never_published),
        &[("starts_at", &days_ago(3)), ("ends_at", &days_ago(0))],
    )
    .await;
    assert_error(status, &body, 404, "analytics_not_found", &[]);
    let (status, body) = get(
        &server,
        ENTERPRISE_ADMIN,
        &breakdowns_path("prj_missing"),
        &[("starts_at", &days_ago(3)), ("ends_at", &days_ago(0))],
    )
    .await;
    assert_error(status, &body, 404, "analytics_not_found", &[]);
}

// ---------------------------------------------------------------- PII

fn pii_path(project_id: &str) -> String {
    format!("/v1/projects/{project_id}/pii-labels")
}

/// Follows `next_cursor` until `has_more` is false; checks the envelope.
async fn walk(server: &RunningServer, key: &str, path: &str, limit: &str) -> Vec<Value> {
    let mut items = Vec::new();
    let mut cursor: Option<String> = None;
    for _ in 0..1_000 {
        let mut query = vec![("limit", limit)];
        if let Some(cursor) = &cursor {
            query.push(("cursor", cursor));
        }
        let (status, body) = get(server, key, path, &query).await;
        assert_eq!(status, 200, "{body}");
        assert_eq!(object_keys(&body), ["data", "pagination"]);
        assert_eq!(
            object_keys(&body["pagination"]),
            ["has_more", "next_cursor"]
        );
        let page = body["data"].as_array().unwrap();
        assert!(page.len() <= limit.parse().unwrap());
        items.extend(page.iter().cloned());
        if body["pagination"]["has_more"] == false {
            assert_eq!(body["pagination"]["next_cursor"], Value::Null);
            return items;
        }
        cursor = Some(
            body["pagination"]["next_cursor"]
                .as_str()
                .unwrap()
                .to_owned(),
        );
    }
    panic!("pagination did not end");
}

fn pii_json(pii: &PiiRec) -> Value {
    let finding = &pii.finding;
    json!({
        "id": finding.id,
        "found_at": ts(finding.found_at),
        "quote": finding.quote,
        "source": finding.source.as_str(),
        "status": finding.status.as_str(),
    })
}

/// Newest first, ties by id ascending, computed from the fixture.
fn expected_pii(fixture: &Fixture, project_id: &str) -> Vec<Value> {
    let mut findings: Vec<&PiiRec> = fixture
        .pii_findings
        .iter()
        .filter(|f| f.project_id == project_id)
        .collect();
    findings.sort_by(|a, b| {
        let (a, b) = (&a.finding, &b.finding);
        b.found_at.cmp(&a.found_at).then(a.id.cmp(&b.id))
    });
    findings.into_iter().map(pii_json).collect()
}

/// The demo fixture plus 120 findings on one project, in pairs that share a time.
fn fixture_with_many_findings() -> (Fixture, String) {
    let mut fixture = demo();
    let project = fixture
        .projects
        .iter()
        .find(|p| {
            p.wire.workspace_id == ENTERPRISE_WS
                && !fixture
                    .pii_findings
                    .iter()
                    .any(|f| f.project_id == p.wire.id)
        })
        .unwrap()
        .wire
        .id
        .clone();
    let statuses = [PiiStatus::Open, PiiStatus::Ignored, PiiStatus::Fixed];
    let sources = [PiiSource::Chat, PiiSource::Code, PiiSource::Database];
    for n in 0..120u32 {
        fixture.pii_findings.push(PiiRec {
            project_id: project.clone(),
            finding: PiiFinding {
                // Ids out of time order, so the tie-break is visible.
                id: format!("pii_many_{:03}", (n * 37) % 120),
                found_at: datetime!(2026-11-01 00:00 UTC) + Duration::hours(i64::from(n / 2)),
                quote: format!("customer{n}@example.com"),
                source: sources[n as usize % 3].clone(),
                status: statuses[n as usize % 3].clone(),
            },
        });
    }
    (fixture, project)
}

#[tokio::test]
async fn pii_lists_every_finding_once_newest_first() {
    let (fixture, many) = fixture_with_many_findings();
    let most = fixture
        .projects
        .iter()
        .filter(|p| p.wire.workspace_id == ENTERPRISE_WS && p.wire.id != many)
        .max_by_key(|p| {
            fixture
                .pii_findings
                .iter()
                .filter(|f| f.project_id == p.wire.id)
                .count()
        })
        .unwrap()
        .wire
        .id
        .clone();
    let (server, _) = server_on(fixture.clone()).await;

    // Literal JSON of a whole small list.
    let (status, body) = get(&server, ENTERPRISE_READONLY, &pii_path(&most), &[]).await;
    assert_eq!(status, 200);
    assert_eq!(
        body,
        json!({"data": expected_pii(&fixture, &most), "pagination": {"has_more": false, "next_cursor": null}})
    );

    for limit in ["1", "7", "50", "100"] {
        let walked = walk(&server, ENTERPRISE_READONLY, &pii_path(&many), limit).await;
        assert_eq!(walked, expected_pii(&fixture, &many), "limit {limit}");
    }
    let walked = walk(&server, ENTERPRISE_READONLY, &pii_path(&many), "13").await;
    let statuses: HashSet<&str> = walked
        .iter()
        .map(|f| f["status"].as_str().unwrap())
        .collect();
    assert_eq!(statuses, HashSet::from(["open", "ignored", "fixed"]));

    // Default page size 50; at most 100.
    let (_, body) = get(&server, ENTERPRISE_READONLY, &pii_path(&many), &[]).await;
    assert_eq!(body["data"].as_array().unwrap().len(), 50);
    assert_eq!(body["pagination"]["has_more"], true);
    for bad in ["0", "101", "-1", "ten", ""] {
        let (status, body) = get(
            &server,
            ENTERPRISE_READONLY,
            &pii_path(&many),
            &[("limit", bad)],
        )
        .await;
        assert_error(status, &body, 400, "invalid_request", &["query.limit"]);
    }

    // An existing project without findings: an empty list.
    let clean = fixture
        .projects
        .iter()
        .find(|p| {
            p.wire.workspace_id == ENTERPRISE_WS
                && !fixture
                    .pii_findings
                    .iter()
                    .any(|f| f.project_id == p.wire.id)
        })
        .unwrap()
        .wire
        .id
        .clone();
    let (status, body) = get(&server, ENTERPRISE_READONLY, &pii_path(&clean), &[]).await;
    assert_eq!(status, 200);
    assert_eq!(
        body,
        json!({"data": [], "pagination": {"has_more": false, "next_cursor": null}})
    );
}

#[tokio::test]
async fn pii_cursors_are_bound_to_their_list() {
    let (fixture, many) = fixture_with_many_findings();
    let other = fixture
        .pii_findings
        .iter()
        .find(|f| f.project_id != many)
        .unwrap()
        .project_id
        .clone();
    let (server, _) = server_on(fixture).await;
    let (_, body) = get(
        &server,
        ENTERPRISE_ADMIN,
        &pii_path(&many),
        &[("limit", "10")],
    )
    .await;
    let cursor = body["pagination"]["next_cursor"]
        .as_str()
        .unwrap()
        .to_owned();
    // Another page size keeps the cursor valid.
    let (status, _) = get(
        &server,
        ENTERPRISE_ADMIN,
        &pii_path(&many),
        &[("limit", "20"), ("cursor", &cursor)],
    )
    .await;
    assert_eq!(status, 200);
    let mut tampered = cursor.clone();
    tampered.insert(3, 'x');
    for (path, bad) in [
        (pii_path(&other), cursor.as_str()),
        (pii_path(&many), tampered.as_str()),
        (pii_path(&many), "not-a-cursor"),
    ] {
        let (status, body) = get(&server, ENTERPRISE_ADMIN, &path, &[("cursor", bad)]).await;
        assert_error(status, &body, 400, "invalid_request", &["query.cursor"]);
    }
}

#[tokio::test]
async fn pii_gates() {
    let fixture = demo();
    let acme = fixture
        .pii_findings
        .iter()
        .find(|f| {
            fixture
                .projects
                .iter()
                .any(|p| p.wire.id == f.project_id && p.wire.workspace_id == ENTERPRISE_WS)
        })
        .unwrap()
        .project_id
        .clone();
    let globex = first_project(&fixture, BUSINESS_WS);
    let (server, _) = server_on(fixture.clone()).await;

    let (status, body) = get(&server, BUSINESS_ADMIN, &pii_path(&globex), &[]).await;
    assert_error(status, &body, 402, "payment_required", &[]);
    assert_eq!(body["props"], json!({"required_plan": "enterprise"}));
    let (status, body) = get(&server, WORKSPACES_READ, &pii_path(&acme), &[]).await;
    assert_error(status, &body, 403, "insufficient_scope", &[]);
    let (status, body) = get(&server, PROJECTS_READ, &pii_path(&acme), &[]).await;
    assert_eq!(status, 200, "{body}");
    for project in ["prj_missing", globex.as_str()] {
        let (status, body) = get(&server, ENTERPRISE_ADMIN, &pii_path(project), &[]).await;
        assert_error(status, &body, 404, "pii_labels_not_found", &[]);
    }

    // An enterprise workspace without personal-data detection.
    let mut without = fixture;
    for ws in &mut without.workspaces {
        if ws.id == ENTERPRISE_WS {
            ws.features.retain(|f| *f != Feature::PiiDetection);
        }
    }
    let (server, _) = server_on(without).await;
    let (status, body) = get(&server, ENTERPRISE_ADMIN, &pii_path(&acme), &[]).await;
    assert_error(status, &body, 404, "pii_labels_not_found", &[]);
    assert_eq!(body["props"], Value::Null, "a 404 reveals no requirements");
    let (status, body) = get(&server, ENTERPRISE_ADMIN, &pii_path("prj_missing"), &[]).await;
    assert_error(status, &body, 404, "pii_labels_not_found", &[]);
}

// ---------------------------------------------------------------- security scans

fn scan_json(scan: &ScanRec) -> Value {
    json!({
        "id": scan.scan.id,
        "status": scan.scan.status,
        "commit_sha": scan.scan.commit_sha,
        "started_at": scan.scan.started_at.map(ts),
        "finished_at": scan.scan.finished_at.map(ts),
        "requested_scanners": scan.scan.requested_scanners,
    })
}

#[tokio::test]
async fn scans_metadata_and_the_full_findings_snapshot() {
    let mut fixture = demo();
    let acme_scans: Vec<ScanRec> = fixture
        .scans
        .iter()
        .filter(|s| {
            fixture
                .projects
                .iter()
                .any(|p| p.wire.id == s.project_id && p.wire.workspace_id == ENTERPRISE_WS)
        })
        .cloned()
        .collect();
    let biggest = acme_scans
        .iter()
        .max_by_key(|s| s.findings.len())
        .unwrap()
        .clone();
    let other = acme_scans
        .iter()
        .find(|s| s.project_id != biggest.project_id)
        .unwrap()
        .clone();
    // One scan with more findings than a default page.
    let many = fixture
        .scans
        .iter_mut()
        .find(|s| s.scan.id == other.scan.id)
        .unwrap();
    let template = biggest.findings[0].clone();
    many.findings = (0..120)
        .map(|n| {
            let mut finding = template.clone();
            finding.id = format!("{}_f{:03}", many.scan.id, (n * 53) % 120);
            finding.status = [
                FindingStatus::Open,
                FindingStatus::Fixed,
                FindingStatus::Ignored,
            ][n % 3]
                .clone();
            finding
        })
        .collect();
    let many = many.clone();
    let (server, _) = server_on(fixture).await;
    let scan_path =
        |s: &ScanRec| format!("/v1/projects/{}/security-scans/{}", s.project_id, s.scan.id);

    let (status, body) = get(&server, ENTERPRISE_READONLY, &scan_path(&biggest), &[]).await;
    assert_eq!(status, 200);
    assert_eq!(body, scan_json(&biggest));

    let findings_path = |s: &ScanRec| format!("{}/findings", scan_path(s));
    let expected = |s: &ScanRec| -> Vec<Value> {
        let mut findings = s.findings.clone();
        findings.sort_by(|a, b| a.id.cmp(&b.id));
        findings
            .iter()
            .map(|f| {
                json!({
                    "id": f.id, "category": f.category, "level": f.level, "name": f.name,
                    "description": f.description, "scanner_name": f.scanner_name,
                    "status": f.status, "created_at": ts(f.created_at), "updated_at": ts(f.updated_at),
                })
            })
            .collect()
    };
    let (_, body) = get(&server, ENTERPRISE_READONLY, &findings_path(&biggest), &[]).await;
    assert_eq!(
        body,
        json!({"data": expected(&biggest), "pagination": {"has_more": false, "next_cursor": null}})
    );
    for limit in ["1", "3", "100"] {
        assert_eq!(
            walk(&server, ENTERPRISE_READONLY, &findings_path(&many), limit).await,
            expected(&many)
        );
    }
    let (_, body) = get(&server, ENTERPRISE_READONLY, &findings_path(&many), &[]).await;
    assert_eq!(
        body["data"].as_array().unwrap().len(),
        50,
        "default page size"
    );
    let (status, body) = get(
        &server,
        ENTERPRISE_READONLY,
        &findings_path(&many),
        &[("limit", "101")],
    )
    .await;
    assert_error(status, &body, 400, "invalid_request", &["query.limit"]);

    // A scan id under another project is unknown here.
    let misplaced = format!(
        "/v1/projects/{}/security-scans/{}",
        biggest.project_id, other.scan.id
    );
    for path in [
        misplaced.clone(),
        format!("{misplaced}/findings"),
        format!(
            "/v1/projects/{}/security-scans/scn_nope",
            biggest.project_id
        ),
    ] {
        let (status, body) = get(&server, ENTERPRISE_ADMIN, &path, &[]).await;
        assert_error(status, &body, 404, "security_scan_not_found", &[]);
    }
    // The operation answers only its own 404 type, a missing project included.
    let (status, body) = get(
        &server,
        ENTERPRISE_ADMIN,
        "/v1/projects/prj_missing/security-scans/scn_nope",
        &[],
    )
    .await;
    assert_error(status, &body, 404, "security_scan_not_found", &[]);
    let (status, body) = get(&server, PRO_ADMIN, &scan_path(&biggest), &[]).await;
    assert_error(status, &body, 402, "payment_required", &[]);
}
