//! Headers every answer carries, unknown query parameters, and the rate limit on
//! the injected clock.

use reqwest::Method;
use serde_json::{Value, json};
use time::Duration;
use vantage::server::ratelimit::RateLimit;

use crate::common::*;
use crate::server::support::*;

const PROJECT: &str = "/v1/projects/prj_70256702db4f";

/// Successes of every kind (200, 202, 204) carry the request id, the selected
/// version and the rate-limit state, and no beta echo when none was selected.
#[tokio::test]
async fn successes_carry_request_id_version_and_rate_headers() {
    let (server, _clock) = demo_server().await;
    let base = server.base_url();
    let rows: Vec<(&str, Method, &str, Option<&str>, u16)> = vec![
        ("get project", Method::GET, PROJECT, None, 200),
        ("update project", Method::PATCH, PROJECT, Some("{}"), 200),
        (
            "publish",
            Method::POST,
            "/v1/projects/prj_2353359fe650/publish",
            None,
            202,
        ),
        (
            "unpublish",
            Method::DELETE,
            "/v1/projects/prj_3fdeb42f2f59/publish",
            None,
            204,
        ),
        (
            "delete project",
            Method::DELETE,
            "/v1/projects/prj_6f93c0dfab43",
            None,
            204,
        ),
    ];
    let mut ids = Vec::new();
    for (index, (name, method, path, body, status)) in rows.into_iter().enumerate() {
        let mut request = call(method, &base, path).key(ENTERPRISE_ADMIN);
        if let Some(body) = body {
            request = request.json(body);
        }
        let reply = request.send().await;
        assert_eq!(reply.status, status, "{name}: {}", reply.text);
        let id = reply
            .header("x-request-id")
            .expect("X-Request-Id")
            .to_owned();
        assert!(id.starts_with("req_") && id.len() > 8, "{name}: {id}");
        assert!(!ids.contains(&id), "{name}: request ids are unique");
        ids.push(id);
        assert_eq!(
            reply.header("service-version"),
            Some("2026-09-11"),
            "{name}"
        );
        assert_eq!(reply.header("service-beta"), None, "{name}");
        assert_eq!(reply.header("x-ratelimit-limit"), Some("120"), "{name}");
        let remaining = 119 - index;
        assert_eq!(
            reply.header("x-ratelimit-remaining"),
            Some(remaining.to_string().as_str()),
            "{name}"
        );
        // Every request so far happened at T0, the oldest leaves the window at T0+60.
        let reset = (T0 + Duration::seconds(60)).unix_timestamp().to_string();
        assert_eq!(
            reply.header("x-ratelimit-reset"),
            Some(reset.as_str()),
            "{name}"
        );
        if status == 204 {
            assert_eq!(reply.text, "", "{name}: 204 has no body");
        } else {
            assert_eq!(
                reply.header("content-type"),
                Some("application/json"),
                "{name}"
            );
        }
    }
}

/// `X-Service-Unknown-Query-Params` names undeclared parameters as sent, each once,
/// at most 20; the companion header counts the rest.
#[tokio::test]
async fn unknown_query_parameters_are_reported() {
    let (server, _clock) = demo_server().await;
    let base = server.base_url();
    let names = |range: std::ops::RangeInclusive<u32>| {
        range.map(|n| format!("p{n:02}")).collect::<Vec<_>>()
    };
    let query_of = |names: &[String]| {
        names
            .iter()
            .map(|n| format!("{n}=1"))
            .collect::<Vec<_>>()
            .join("&")
    };
    let twenty = names(1..=20);
    let twenty_one = names(1..=21);
    let twenty_five = names(1..=25);
    // (case, path and query, status, listed names, omitted count)
    type Row = (
        &'static str,
        String,
        u16,
        Option<String>,
        Option<&'static str>,
    );
    let rows: Vec<Row> = vec![
        ("no query", PROJECT.into(), 200, None, None),
        ("empty query", format!("{PROJECT}?"), 200, None, None),
        (
            "one",
            format!("{PROJECT}?foo=1"),
            200,
            Some("foo".into()),
            None,
        ),
        (
            "repeats listed once, in first-seen order",
            format!("{PROJECT}?foo=1&bar=&foo=2&baz"),
            200,
            Some("foo,bar,baz".into()),
            None,
        ),
        (
            "list parameters are not declared on get project",
            format!("{PROJECT}?limit=5&cursor=x"),
            200,
            Some("limit,cursor".into()),
            None,
        ),
        (
            "exactly twenty",
            format!("{PROJECT}?{}", query_of(&twenty)),
            200,
            Some(twenty.join(",")),
            None,
        ),
        (
            "twenty-one",
            format!("{PROJECT}?{}", query_of(&twenty_one)),
            200,
            Some(twenty.join(",")),
            Some("1"),
        ),
        (
            "twenty-five",
            format!("{PROJECT}?{}", query_of(&twenty_five)),
            200,
            Some(twenty.join(",")),
            Some("5"),
        ),
        (
            "reported on the operation's 404 as well",
            "/v1/projects/prj_missing?foo=1".into(),
            404,
            Some("foo".into()),
            None,
        ),
    ];
    for (name, path, status, listed, omitted) in rows {
        let reply = get(&base, &path, ENTERPRISE_ADMIN).await;
        assert_eq!(reply.status, status, "{name}: {}", reply.text);
        assert_eq!(
            reply.header("x-service-unknown-query-params"),
            listed.as_deref(),
            "{name}"
        );
        assert_eq!(
            reply.header("x-service-unknown-query-params-omitted"),
            omitted,
            "{name}"
        );
    }
}

/// Three requests per 10 s: Remaining counts down, the fourth is refused with
/// Retry-After, and capacity comes back as the clock moves. Keys do not share.
#[tokio::test]
async fn rate_limit_follows_the_injected_clock() {
    let (server, clock) = server_with(|config| {
        config.rate_limit = RateLimit {
            limit: 3,
            window: Duration::seconds(10),
        };
    })
    .await;
    let base = server.base_url();
    let t0_plus = |seconds: i64| {
        (T0 + Duration::seconds(seconds))
            .unix_timestamp()
            .to_string()
    };
    // (advance the clock by, key, status, Remaining, Reset, Retry-After)
    type Row = (
        i64,
        &'static str,
        u16,
        &'static str,
        String,
        Option<&'static str>,
    );
    let rows: Vec<Row> = vec![
        (0, ENTERPRISE_ADMIN, 200, "2", t0_plus(10), None),
        (2, ENTERPRISE_ADMIN, 200, "1", t0_plus(10), None),
        (2, ENTERPRISE_ADMIN, 200, "0", t0_plus(10), None),
        // t0+4: the first request leaves the window at t0+10.
        (0, ENTERPRISE_ADMIN, 429, "0", t0_plus(10), Some("6")),
        // Another key of the same workspace has a window of its own.
        (0, ENTERPRISE_READONLY, 200, "2", t0_plus(14), None),
        // Refused requests do not count: one second later, 5 s are left.
        (1, ENTERPRISE_ADMIN, 429, "0", t0_plus(10), Some("5")),
        // t0+10: the first request has left; the second leaves at t0+12.
        (5, ENTERPRISE_ADMIN, 200, "0", t0_plus(12), None),
        (0, ENTERPRISE_ADMIN, 429, "0", t0_plus(12), Some("2")),
        // t0+20: everything has left the window.
        (10, ENTERPRISE_ADMIN, 200, "2", t0_plus(30), None),
    ];
    for (step, (advance, key, status, remaining, reset, retry_after)) in
        rows.into_iter().enumerate()
    {
        clock.advance(Duration::seconds(advance));
        let reply = get(&base, PROJECT, key).await;
        let name = format!("step {step}");
        assert_eq!(reply.status, status, "{name}: {}", reply.text);
        assert_eq!(reply.header("x-ratelimit-limit"), Some("3"), "{name}");
        assert_eq!(
            reply.header("x-ratelimit-remaining"),
            Some(remaining),
            "{name}"
        );
        assert_eq!(
            reply.header("x-ratelimit-reset"),
            Some(reset.as_str()),
            "{name}"
        );
        assert_eq!(reply.header("retry-after"), retry_after, "{name}");
        if status == 429 {
            let detail = format!("retry after {} s", retry_after.unwrap());
            assert_eq!(
                reply.error(),
                json!({
                    "type": "rate_limited", "title": "Rate limit exceeded", "status": 429,
                    "detail": detail, "errors": null, "props": null,
                }),
                "{name}"
            );
            assert_eq!(reply.header("service-version"), Some("2026-09-11"));
        } else {
            assert_eq!(reply.json()["id"], Value::from("prj_70256702db4f"));
        }
    }
}
