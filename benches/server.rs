//! Server-side latency of the heavy list operations over a generated workspace of
//! 20,000 projects and 5,000 members, measured in-process (the axum router called
//! with `tower::ServiceExt::oneshot`, so no socket time), pipeline included.
//!
//! Run: `cargo bench --bench server` (optionally `-- ROUNDS FILTER...`: the
//! number of requests per case, default 200, and substrings selecting cases).

use std::sync::Arc;
use std::time::{Duration, Instant};

use axum::body::Body;
use axum::http::{Request, StatusCode};
use time::macros::datetime;
use tower::ServiceExt;
use vantage::clock::Clock;
use vantage::server::ratelimit::RateLimit;
use vantage::server::seed::{self, GenerateSpec};
use vantage::server::{ServerConfig, ServerState, router};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let rounds: usize = args.iter().find_map(|arg| arg.parse().ok()).unwrap_or(200);
    // Any other argument that is not a cargo flag selects cases by substring.
    let only: Vec<&String> = args
        .iter()
        .filter(|arg| arg.parse::<usize>().is_err() && !arg.starts_with("--"))
        .collect();
    let anchor = datetime!(2026-11-22 00:00 UTC);
    let started = Instant::now();
    let fixture = seed::generate(
        GenerateSpec {
            projects: 20_000,
            members: 5_000,
            seed: 1,
        },
        anchor,
    );
    let generated = started.elapsed();
    let key = fixture
        .keys
        .iter()
        .find(|key| key.label == "enterprise-admin")
        .map(|key| key.key.clone())
        .expect("generated fixtures have an enterprise-admin key");
    let workspace = fixture.workspaces[0].id.clone();
    let mut config = ServerConfig::local(fixture);
    config.clock = Clock::manual(anchor + time::Duration::hours(12));
    config.rate_limit = RateLimit {
        limit: u32::MAX,
        window: time::Duration::seconds(1),
    };
    let app = Arc::new(ServerState::new(config).expect("server state"));
    println!(
        "fixture: 20000 projects, 5000 members (generate {:.0} ms, load {:.0} ms)",
        generated.as_secs_f64() * 1e3,
        (started.elapsed() - generated).as_secs_f64() * 1e3
    );
    let router = router::build(app);
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("runtime");

    let inventory = format!("/v1/workspaces/{workspace}/security-center/insights/projects");
    let cases: Vec<(&str, String)> = vec![
        (
            "inventory limit=100 is_published=true sort_by=visitors_7d",
            format!("{inventory}?limit=100&is_published=true&sort_by=visitors_7d"),
        ),
        (
            "inventory limit=100 review_priority=needs_review,review_recommended sort_by=review_priority asc",
            format!(
                "{inventory}?limit=100&review_priority=needs_review&review_priority=review_recommended&sort_by=review_priority&sort_order=asc"
            ),
        ),
        (
            "inventory limit=100 has_pii=true sort_by=name",
            format!("{inventory}?limit=100&has_pii=true&sort_by=name"),
        ),
        (
            "inventory limit=100 has_pii=false sort_by=visitors_30d",
            format!("{inventory}?limit=100&has_pii=false&sort_by=visitors_30d"),
        ),
        (
            "inventory limit=100 visibility=restricted sort_by=name desc",
            format!("{inventory}?limit=100&visibility=restricted&sort_by=name&sort_order=desc"),
        ),
        (
            "inventory limit=100 (default order, no filter)",
            format!("{inventory}?limit=100"),
        ),
        (
            "inventory limit=100 query=\"budget ada\" (relevance)",
            format!("{inventory}?limit=100&query=budget%20ada"),
        ),
        (
            "inventory limit=100 finding_type_id=inactive_owner sort_by=last_security_scan_at",
            format!(
                "{inventory}?limit=100&finding_type_id=inactive_owner&sort_by=last_security_scan_at"
            ),
        ),
        (
            "members limit=100 query=\"ada lovelace\" (best match first)",
            format!("/v1/workspaces/{workspace}/members?limit=100&query=ada%20lovelace"),
        ),
        (
            "members limit=100 query=example sort_by=display_name asc",
            format!(
                "/v1/workspaces/{workspace}/members?limit=100&query=example&sort_by=display_name&sort_order=asc"
            ),
        ),
        (
            "members limit=100 role=member sort_by=joined_at",
            format!("/v1/workspaces/{workspace}/members?limit=100&role=member&sort_by=joined_at"),
        ),
        (
            "insights",
            format!("/v1/workspaces/{workspace}/security-center/insights"),
        ),
        (
            "workspace projects limit=100",
            format!("/v1/workspaces/{workspace}/projects?limit=100"),
        ),
    ];

    runtime.block_on(async {
        for (label, uri) in &cases {
            if !only.is_empty() && !only.iter().any(|filter| label.contains(filter.as_str())) {
                continue;
            }
            let mut times = Vec::with_capacity(rounds);
            let mut bytes = 0;
            for _ in 0..rounds {
                let request = Request::get(uri.as_str())
                    .header("Service-API-Key", &key)
                    .body(Body::empty())
                    .expect("request");
                let start = Instant::now();
                let response = router.clone().oneshot(request).await.expect("response");
                let status = response.status();
                let body = axum::body::to_bytes(response.into_body(), usize::MAX)
                    .await
                    .expect("body");
                times.push(start.elapsed());
                assert_eq!(status, StatusCode::OK, "{label}: {}", String::from_utf8_lossy(&body));
                bytes = body.len();
            }
            times.sort();
            let at = |q: f64| ms(times[((times.len() - 1) as f64 * q) as usize]);
            println!(
                "{label}\n    median {:.2} ms  p90 {:.2} ms  min {:.2} ms  ({rounds} requests, {bytes} bytes)",
                at(0.5),
                at(0.9),
                ms(times[0]),
            );
        }
    });
}

fn ms(duration: Duration) -> f64 {
    duration.as_secs_f64() * 1e3
}
