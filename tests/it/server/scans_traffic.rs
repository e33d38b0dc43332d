//! The operations the real service's reference shows beyond the contract, and
//! the scan operations it details (DESIGN.md): a project's security scans, a
//! scan, its findings, and traffic over time. Literal JSON for each, their
//! errors, and the seeded data agreeing with itself.

use std::collections::HashMap;

use serde_json::{Value, json};
use vantage::api::model::{FindingLevel, FindingStatus, OpenFindingCounts, ScanFinding};
use vantage::hostile::hostile_strings;
use vantage::server::seed::{self, GenerateSpec};
use vantage::server::{RunningServer, ServerConfig, start};

use crate::common::*;
use crate::server::support::get;

const SCANNED: &str = "prj_70256702db4f";
const SCANS: &str = "/v1/projects/prj_70256702db4f/security-scans";

/// Every item of a list, following `next_cursor` with `limit`.
async fn walk(base: &str, key: &str, path: &str, limit: usize) -> Vec<Value> {
    let mut items = Vec::new();
    let mut cursor: Option<String> = None;
    loop {
        let mut url = format!("{path}?limit={limit}");
        if let Some(cursor) = &cursor {
            url.push_str(&format!("&cursor={cursor}"));
        }
        let reply = get(base, &url, key).await;
        assert_eq!(reply.status, 200, "{}", reply.text);
        let body = reply.json();
        items.extend(body["data"].as_array().unwrap().iter().cloned());
        if body["pagination"]["has_more"] != true {
            return items;
        }
        cursor = body["pagination"]["next_cursor"]
            .as_str()
            .map(str::to_owned);
    }
}

fn scan_not_found() -> Value {
    json!({
        "type": "security_scan_not_found", "title": "Security scan not found", "status": 404,
        "detail": null, "errors": null, "props": null,
    })
}

fn invalid(location: &str, message: &str) -> Value {
    json!({
        "type": "invalid_request", "title": "Invalid request", "status": 400,
        "detail": "validation failed",
        "errors": [{"message": message, "location": location}],
        "props": null,
    })
}

// ---------------------------------------------------------------- scans

#[tokio::test]
async fn a_projects_scans_newest_first_paged() {
    let (server, _clock) = demo_server().await;
    let base = server.base_url();
    let reply = get(&base, &format!("{SCANS}?limit=2"), ENTERPRISE_READONLY).await;
    assert_eq!(reply.status, 200, "{}", reply.text);
    let body = reply.json();
    assert_eq!(
        body["data"],
        json!([
            {
                "id": "scn_576ceeb50f0f", "status": "completed",
                "commit_sha": "00000000000000006f8db8b43e7685dd00000000",
                "started_at": "2026-10-25T23:57:00.000Z", "finished_at": "2026-10-26T00:00:00.000Z",
                "requested_scanners": ["supabase_lov", "agent_security"],
            },
            {
                "id": "scn_576ceeb50f0f_1", "status": "completed",
                "commit_sha": "38a70504e38c93c5a94f478928c5ef009b5ec090",
                "started_at": "2026-10-24T00:56:00.000Z", "finished_at": "2026-10-24T01:00:00.000Z",
                "requested_scanners": ["supabase_lov"],
            },
        ])
    );
    assert_eq!(body["pagination"]["has_more"], true);
    assert_eq!(
        super::support::top_level_keys(&reply.text),
        ["data", "pagination"]
    );
    let all = walk(&base, ENTERPRISE_READONLY, SCANS, 1).await;
    let ids: Vec<&str> = all.iter().map(|s| s["id"].as_str().unwrap()).collect();
    assert_eq!(
        ids,
        [
            "scn_576ceeb50f0f",
            "scn_576ceeb50f0f_1",
            "scn_576ceeb50f0f_2",
            "scn_576ceeb50f0f_3"
        ]
    );
    // Default page 50: all four, nothing more.
    let reply = get(&base, SCANS, ENTERPRISE_READONLY).await;
    assert_eq!(
        reply.json()["pagination"],
        json!({"has_more": false, "next_cursor": null})
    );
    // A project never scanned has an empty list; limits as every list.
    let reply = get(
        &base,
        "/v1/projects/prj_ce5ff4f34f08/security-scans",
        ENTERPRISE_READONLY,
    )
    .await;
    assert_eq!(
        reply.json(),
        json!({"data": [], "pagination": {"has_more": false, "next_cursor": null}})
    );
    let reply = get(&base, &format!("{SCANS}?limit=101"), ENTERPRISE_READONLY).await;
    assert_eq!(reply.status, 400);
    assert_eq!(reply.error()["errors"][0]["location"], "query.limit");
    // A missing project's collection: 404 project_not_found.
    let reply = get(
        &base,
        "/v1/projects/prj_missing/security-scans",
        ENTERPRISE_READONLY,
    )
    .await;
    assert_eq!(reply.status, 404);
    assert_eq!(reply.error()["type"], "project_not_found");
    // Business or higher; projects:read.
    let reply = get(
        &base,
        "/v1/projects/prj_initech_001/security-scans",
        PRO_ADMIN,
    )
    .await;
    assert_eq!(reply.status, 402, "{}", reply.text);
    let reply = get(&base, SCANS, WORKSPACES_READ).await;
    assert_eq!(reply.status, 403, "{}", reply.text);
    assert_eq!(reply.error()["type"], "insufficient_scope");
}

#[tokio::test]
async fn a_scan_and_its_findings_as_literal_json() {
    let (server, _clock) = demo_server().await;
    let base = server.base_url();
    let reply = get(&base, &format!("{SCANS}/scn_576ceeb50f0f_3"), PROJECTS_READ).await;
    assert_eq!(reply.status, 200, "{}", reply.text);
    assert_eq!(
        reply.text,
        r#"{"id":"scn_576ceeb50f0f_3","status":"completed","commit_sha":"0ba5671a9a5f6bd11042f853e12b7abc84e94ca4","started_at":"2026-10-04T23:55:00.000Z","finished_at":"2026-10-05T00:00:00.000Z","requested_scanners":["supabase_lov"]}"#
    );
    let reply = get(
        &base,
        &format!("{SCANS}/scn_576ceeb50f0f/findings?limit=3"),
        PROJECTS_READ,
    )
    .await;
    assert_eq!(reply.status, 200, "{}", reply.text);
    let body = reply.json();
    assert_eq!(
        body["data"],
        json!([
            {
                "id": "scn_576ceeb50f0f_info_0", "category": "dependencies", "level": "info",
                "name": "Outdated framework version",
                "description": "Outdated framework version. Found by agent_security in the project's code; see the finding's category (dependencies) for how to fix it.",
                "scanner_name": "agent_security", "status": "open",
                "created_at": "2026-10-11T00:00:00.000Z", "updated_at": "2026-10-11T00:00:00.000Z",
            },
            {
                "id": "scn_576ceeb50f0f_info_0_ignored", "category": "data_exposure", "level": "info",
                "name": "Storage bucket lists its files to anyone",
                "description": "Storage bucket lists its files to anyone. Found by supabase_lov in the project's code; see the finding's category (data_exposure) for how to fix it.",
                "scanner_name": "supabase_lov", "status": "ignored",
                "created_at": "2026-10-16T00:00:00.000Z", "updated_at": "2026-10-26T00:00:00.000Z",
            },
            {
                "id": "scn_576ceeb50f0f_info_1", "category": "dependencies", "level": "info",
                "name": "Package with a known vulnerability",
                "description": "Package with a known vulnerability. Found by agent_security in the project's code; see the finding's category (dependencies) for how to fix it.",
                "scanner_name": "agent_security", "status": "open",
                "created_at": "2026-10-16T00:00:00.000Z", "updated_at": "2026-10-16T00:00:00.000Z",
            },
        ])
    );
    assert_eq!(body["pagination"]["has_more"], true);
    // Every field of a finding, in the reference's order.
    let first = reply.text.find("\"data\":[").unwrap() + 8;
    let item: String = reply.text[first..]
        .split_inclusive('}')
        .next()
        .unwrap()
        .to_owned();
    assert_eq!(
        super::support::top_level_keys(&item),
        [
            "id",
            "category",
            "level",
            "name",
            "description",
            "scanner_name",
            "status",
            "created_at",
            "updated_at"
        ]
    );
}

#[tokio::test]
async fn a_missing_scan_is_security_scan_not_found_only() {
    let (server, _clock) = demo_server().await;
    let base = server.base_url();
    for path in [
        format!("{SCANS}/scn_nope"),
        format!("{SCANS}/scn_nope/findings"),
        // Another project's scan, a missing project, another workspace's project.
        format!("{SCANS}/scn_38ab393881c2"),
        "/v1/projects/prj_missing/security-scans/scn_576ceeb50f0f".to_owned(),
        "/v1/projects/prj_missing/security-scans/scn_576ceeb50f0f/findings".to_owned(),
    ] {
        let reply = get(&base, &path, ENTERPRISE_ADMIN).await;
        assert_eq!(reply.status, 404, "{path}: {}", reply.text);
        assert_eq!(reply.error(), scan_not_found(), "{path}");
    }
    let reply = get(
        &base,
        "/v1/projects/prj_70256702db4f/security-scans/scn_576ceeb50f0f",
        BUSINESS_ADMIN,
    )
    .await;
    assert_eq!(reply.error(), scan_not_found());
}

/// Open findings of a project's latest scan, as the inventory counts them.
fn counts_of(findings: &[Value]) -> OpenFindingCounts {
    let findings: Vec<ScanFinding> = findings
        .iter()
        .map(|f| serde_json::from_value(f.clone()).unwrap())
        .collect();
    OpenFindingCounts::of(&findings)
}

/// For every project of the inventory: its scans are there exactly when it
/// was scanned, the newest finished at `last_security_scan_at`, and the open
/// findings of that scan count what `matched_reason.values` says.
async fn assert_scans_agree_with_inventory(base: &str, key: &str, workspace: &str) -> usize {
    let inventory = walk(
        base,
        key,
        &format!("/v1/workspaces/{workspace}/security-center/insights/projects"),
        100,
    )
    .await;
    assert!(!inventory.is_empty());
    let (mut scanned, mut compared) = (0, 0);
    for item in &inventory {
        let id = item["id"].as_str().unwrap();
        let scans = walk(base, key, &format!("/v1/projects/{id}/security-scans"), 100).await;
        let Some(latest) = scans.first() else {
            assert_eq!(item["last_security_scan_at"], Value::Null, "{id}");
            continue;
        };
        scanned += 1;
        assert_eq!(latest["finished_at"], item["last_security_scan_at"], "{id}");
        let started: Vec<&str> = scans
            .iter()
            .map(|s| s["started_at"].as_str().unwrap())
            .collect();
        let mut sorted = started.clone();
        sorted.sort_by(|a, b| b.cmp(a));
        assert_eq!(started, sorted, "{id}: newest first");
        let scan_id = latest["id"].as_str().unwrap();
        let findings = walk(
            base,
            key,
            &format!("/v1/projects/{id}/security-scans/{scan_id}/findings"),
            7,
        )
        .await;
        // Projects without a reason show no values to agree with.
        let values = &item["matched_reason"]["values"];
        if values.is_null() {
            continue;
        }
        compared += 1;
        let counts = counts_of(&findings);
        assert_eq!(
            json!({
                "error_count": counts.error_count, "warning_count": counts.warning_count,
                "info_count": counts.info_count, "secret_count": counts.secret_count,
            }),
            json!({
                "error_count": values["error_count"], "warning_count": values["warning_count"],
                "info_count": values["info_count"], "secret_count": values["secret_count"],
            }),
            "{id}"
        );
    }
    assert!(compared * 3 > scanned, "{compared} of {scanned}");
    scanned
}

#[tokio::test]
async fn demo_scans_agree_with_the_inventory() {
    let (server, _clock) = server_with(|config| {
        config.rate_limit.limit = 1_000_000;
    })
    .await;
    let scanned =
        assert_scans_agree_with_inventory(&server.base_url(), ENTERPRISE_ADMIN, ENTERPRISE_WS)
            .await;
    assert!(scanned > 40, "{scanned}");
}

async fn generated_server() -> (RunningServer, vantage::server::store::Fixture, String) {
    let anchor = seed::today_anchor(T0);
    let fixture = seed::generate(
        GenerateSpec {
            projects: 150,
            members: 20,
            seed: 13,
        },
        anchor,
    );
    let key = fixture
        .keys
        .iter()
        .find(|k| k.label == "enterprise-admin")
        .map(|k| k.key.clone())
        .expect("an admin key");
    let mut config = ServerConfig::local(fixture.clone());
    config.clock = vantage::clock::Clock::manual(T0);
    config.rate_limit = vantage::server::ratelimit::RateLimit {
        limit: 1_000_000,
        window: time::Duration::seconds(60),
    };
    (start(config).await.expect("server starts"), fixture, key)
}

#[tokio::test]
async fn generated_scans_agree_and_carry_hostile_text() {
    let (server, fixture, key) = generated_server().await;
    let workspace = fixture.workspaces[0].id.clone();
    let scanned = assert_scans_agree_with_inventory(&server.base_url(), &key, &workspace).await;
    assert!(scanned > 100, "{scanned}");
    // Secrets, every level and every state occur; hostile names and descriptions too.
    let findings: Vec<&ScanFinding> = fixture.scans.iter().flat_map(|s| &s.findings).collect();
    let counts = OpenFindingCounts::of(findings.iter().copied());
    assert!(counts.secret_count > 0 && counts.error_count > 0);
    for level in [FindingLevel::Error, FindingLevel::Warn, FindingLevel::Info] {
        assert!(findings.iter().any(|f| f.level == level), "{level}");
    }
    for status in [
        FindingStatus::Open,
        FindingStatus::Fixed,
        FindingStatus::Ignored,
    ] {
        assert!(findings.iter().any(|f| f.status == status), "{status}");
    }
    let hostile = hostile_strings();
    assert!(findings.iter().any(|f| hostile.contains(&f.name)));
    assert!(findings.iter().any(|f| {
        let description = f.description.clone().unwrap_or_default();
        hostile.iter().any(|h| description.ends_with(h.as_str()))
    }));
    // Projects without a reason too: the latest scan counts the stored values.
    for project in &fixture.projects {
        let Some(latest) = fixture
            .scans
            .iter()
            .filter(|s| s.project_id == project.wire.id)
            .max_by_key(|s| s.scan.started_at)
        else {
            continue;
        };
        let counts = OpenFindingCounts::of(&latest.findings);
        let values = &project.security.values;
        assert_eq!(
            (
                counts.error_count,
                counts.warning_count,
                counts.info_count,
                counts.secret_count
            ),
            (
                values.error_count,
                values.warning_count,
                values.info_count,
                values.secret_count
            ),
            "{}",
            project.wire.id
        );
    }
    // Older scans exist.
    let mut per_project: HashMap<&str, usize> = HashMap::new();
    for scan in &fixture.scans {
        *per_project.entry(&scan.project_id).or_default() += 1;
    }
    assert!(per_project.values().any(|n| *n > 1));
}

// ---------------------------------------------------------------- traffic

const TRAFFIC: &str = "/v1/projects/prj_70256702db4f/analytics";

fn range(from: &str, to: &str, granularity: Option<&str>) -> String {
    let mut path = format!("{TRAFFIC}?starts_at={from}&ends_at={to}");
    if let Some(granularity) = granularity {
        path.push_str(&format!("&granularity={granularity}"));
    }
    path
}

#[tokio::test]
async fn traffic_over_two_days_as_literal_json() {
    let (server, _clock) = demo_server().await;
    let base = server.base_url();
    let reply = get(
        &base,
        &range("2026-11-20T00:00:00Z", "2026-11-21T23:59:59Z", None),
        PROJECTS_READ,
    )
    .await;
    assert_eq!(reply.status, 200, "{}", reply.text);
    assert_eq!(reply.text, TRAFFIC_TWO_DAYS);
}

const TRAFFIC_TWO_DAYS: &str = r#"{"time_series":{"visitors":{"data":[{"timestamp":"2026-11-20T00:00:00.000Z","value":10048},{"timestamp":"2026-11-21T00:00:00.000Z","value":6260}],"label":"Visitors","total":16308},"pageviews":{"data":[{"timestamp":"2026-11-20T00:00:00.000Z","value":26373},{"timestamp":"2026-11-21T00:00:00.000Z","value":14448}],"label":"Pageviews","total":40821},"pageviews_per_visit":{"data":[{"timestamp":"2026-11-20T00:00:00.000Z","value":2.62},{"timestamp":"2026-11-21T00:00:00.000Z","value":2.31}],"label":"Pageviews per visit","total":2.5},"session_duration":{"data":[{"timestamp":"2026-11-20T00:00:00.000Z","value":258},{"timestamp":"2026-11-21T00:00:00.000Z","value":277}],"label":"Session duration","total":265},"bounce_rate":{"data":[{"timestamp":"2026-11-20T00:00:00.000Z","value":38.9},{"timestamp":"2026-11-21T00:00:00.000Z","value":34.1}],"label":"Bounce rate","total":37.1}}}"#;

#[tokio::test]
async fn traffic_range_and_granularity_errors_name_their_location() {
    let (server, _clock) = demo_server().await;
    let base = server.base_url();
    let cases = [
        (
            range("2025-11-01T00:00:00Z", "2026-11-02T00:00:00Z", None),
            invalid(
                "query.ends_at",
                "the range may span at most 365 days with granularity day",
            ),
        ),
        (
            range("2026-10-01T00:00:00Z", "2026-11-02T00:00:00Z", Some("hour")),
            invalid(
                "query.ends_at",
                "the range may span at most 31 days with granularity hour",
            ),
        ),
        (
            range("2026-11-02T00:00:00Z", "2026-11-01T00:00:00Z", None),
            invalid("query.ends_at", "ends_at must not be before starts_at"),
        ),
        (
            range("2026-11-01T00:00:00Z", "2026-11-02T00:00:00Z", Some("week")),
            invalid("query.granularity", "granularity must be one of: day, hour"),
        ),
        (
            format!("{TRAFFIC}?ends_at=2026-11-02T00:00:00Z"),
            invalid("query.starts_at", "starts_at is required"),
        ),
    ];
    for (path, expected) in cases {
        let reply = get(&base, &path, PROJECTS_READ).await;
        assert_eq!(reply.status, 400, "{path}: {}", reply.text);
        assert_eq!(reply.error(), expected, "{path}");
    }
    // The longest ranges are accepted.
    for path in [
        range("2025-11-22T00:00:00Z", "2026-11-22T00:00:00Z", None),
        range("2026-10-22T00:00:00Z", "2026-11-22T00:00:00Z", Some("hour")),
    ] {
        let reply = get(&base, &path, PROJECTS_READ).await;
        assert_eq!(reply.status, 200, "{path}: {}", reply.text);
    }
}

#[tokio::test]
async fn traffic_of_a_missing_or_unpublished_project_is_analytics_not_found() {
    let (server, _clock) = demo_server().await;
    let base = server.base_url();
    let query = "?starts_at=2026-11-01T00:00:00Z&ends_at=2026-11-02T00:00:00Z";
    for project in ["prj_missing", "prj_2353359fe650", "prj_globex_001"] {
        let reply = get(
            &base,
            &format!("/v1/projects/{project}/analytics{query}"),
            ENTERPRISE_ADMIN,
        )
        .await;
        assert_eq!(reply.status, 404, "{project}: {}", reply.text);
        assert_eq!(reply.error()["type"], "analytics_not_found", "{project}");
    }
    let reply = get(
        &base,
        &format!("/v1/projects/prj_initech_001/analytics{query}"),
        PRO_ADMIN,
    )
    .await;
    assert_eq!(reply.status, 402, "{}", reply.text);
    let reply = get(&base, &format!("{TRAFFIC}{query}"), WORKSPACES_READ).await;
    assert_eq!(reply.error()["type"], "insufficient_scope");
}

/// Sums a series' bucket values.
fn bucket_sum(series: &Value) -> f64 {
    series["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["value"].as_f64().unwrap())
        .sum()
}

#[tokio::test]
async fn traffic_agrees_with_breakdowns_and_keeps_90_days() {
    let (server, _clock) = demo_server().await;
    let base = server.base_url();
    // A 90-day project over a whole year: the older buckets are there, at zero.
    let (from, to) = ("2025-11-23T00:00:00Z", "2026-11-22T00:00:00Z");
    let reply = get(&base, &range(from, to, None), PROJECTS_READ).await;
    let traffic = reply.json();
    let visitors = &traffic["time_series"]["visitors"];
    let points = visitors["data"].as_array().unwrap();
    assert_eq!(points.len(), 365);
    assert_eq!(points[0]["timestamp"], "2025-11-23T00:00:00.000Z");
    let kept_from = points
        .iter()
        .position(|p| p["value"] != 0)
        .expect("some visitors");
    assert_eq!(points[kept_from]["timestamp"], "2026-08-25T00:00:00.000Z");
    assert_eq!(points.len() - kept_from, 90, "today and the 89 days before");
    for series in [
        "pageviews",
        "pageviews_per_visit",
        "session_duration",
        "bounce_rate",
    ] {
        let data = traffic["time_series"][series]["data"].as_array().unwrap();
        assert!(
            data[..kept_from].iter().all(|p| p["value"] == 0),
            "{series}"
        );
    }
    assert_eq!(bucket_sum(visitors), visitors["total"].as_f64().unwrap());
    // Totals equal the breakdowns' over the same range: every visitor has a device.
    let breakdowns = get(
        &base,
        &format!("/v1/projects/{SCANNED}/analytics/breakdowns?starts_at={from}&ends_at={to}"),
        PROJECTS_READ,
    )
    .await
    .json();
    let devices: i64 = breakdowns["devices"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["visitors"].as_i64().unwrap())
        .sum();
    assert_eq!(visitors["total"], devices);
    // Hourly buckets over the last week add up to the same days.
    let (from, to) = ("2026-11-16T00:00:00Z", "2026-11-22T23:00:00Z");
    let daily = get(&base, &range(from, to, Some("day")), PROJECTS_READ)
        .await
        .json();
    let hourly = get(&base, &range(from, to, Some("hour")), PROJECTS_READ)
        .await
        .json();
    let hours = hourly["time_series"]["visitors"]["data"]
        .as_array()
        .unwrap();
    assert_eq!(hours.len(), 7 * 24);
    assert_eq!(hours[1]["timestamp"], "2026-11-16T01:00:00.000Z");
    for (day, point) in daily["time_series"]["visitors"]["data"]
        .as_array()
        .unwrap()
        .iter()
        .enumerate()
    {
        let of_day: i64 = hours[day * 24..(day + 1) * 24]
            .iter()
            .map(|h| h["value"].as_i64().unwrap())
            .sum();
        assert_eq!(point["value"], of_day, "day {day}");
    }
    for series in [
        "visitors",
        "pageviews",
        "pageviews_per_visit",
        "session_duration",
        "bounce_rate",
    ] {
        assert_eq!(
            daily["time_series"][series]["total"], hourly["time_series"][series]["total"],
            "{series}"
        );
    }
    // Today's hours after the clock (12:00) are zero; the one before is not.
    let today = &hours[6 * 24..];
    assert_ne!(today[11]["value"], 0);
    assert!(today[12..].iter().all(|h| h["value"] == 0));
}
