//! `vantage exporter`: scrape latency with about 1,000 series, and the API
//! requests the poller spends per minute at the default intervals.
//!
//! Run: `cargo bench --bench exporter` (optionally `-- ROUNDS`, scrapes per
//! format, default 500).
//!
//! - Scrapes go over a real loopback socket to the exporter's router, serving a
//!   cache of 320 watched projects (3 series each) plus the workspace series.
//! - Requests per minute: the poller's cycles against an in-process reference
//!   server on a generated workspace of 2,000 projects with 5 watched projects,
//!   counted by the client; the first cycle also walks the inventory and reads
//!   the names, which the defaults repeat every 10 minutes.

use std::sync::Arc;
use std::time::{Duration, Instant};

use time::OffsetDateTime;
use time::macros::datetime;
use tokio::sync::watch;
use vantage::api::model::{
    FindingType, Insights, InsightsSummary, Metric, ReviewPriority, RiskCounts,
};
use vantage::api::{ApiKey, Client, ClientConfig};
use vantage::clock::Clock;
use vantage::exporter::cache::{InventoryTally, Watched};
use vantage::exporter::http::{Served, router};
use vantage::exporter::poller::Poller;
use vantage::exporter::{Budget, Cache, PollPlan, Snapshot, Source};
use vantage::server::seed::{self, GenerateSpec};
use vantage::server::{ServerConfig, start};

const NOW: OffsetDateTime = datetime!(2026-11-22 12:00:00 UTC);
const WATCHED: usize = 320;

fn metric(value: i64) -> Metric {
    Metric {
        value,
        delta_30d: 3,
        delta_window: "30 days".into(),
    }
}

/// About 1,000 series: 320 watched projects × 3, and the workspace's own.
fn big_snapshot() -> Snapshot {
    let mut snapshot = Snapshot {
        insights: Some(Insights {
            as_of: None,
            findings: (0..4)
                .map(|n| FindingType {
                    id: format!("finding_{n}"),
                    title: format!("Finding type {n}"),
                    description: String::new(),
                    category: "exposure".into(),
                    review_priority: ReviewPriority::NeedsReview,
                    project_count: n,
                })
                .collect(),
            summary: InsightsSummary {
                total_projects: metric(20_000),
                externally_published: metric(4_000),
                workspace_members: metric(5_000),
                risk: RiskCounts {
                    needs_review: 100,
                    no_review_needed: 19_000,
                    review_recommended: 800,
                },
            },
        }),
        inventory: Some(InventoryTally {
            projects: 20_000,
            by_publish_audience: [
                ("public", 1),
                ("workspace", 2),
                ("custom", 3),
                ("not_published", 4),
            ]
            .into_iter()
            .map(|(k, v)| (k.to_owned(), v))
            .collect(),
            by_visibility: [
                ("restricted", 1),
                ("workspace_edit", 2),
                ("workspace_view", 3),
            ]
            .into_iter()
            .map(|(k, v)| (k.to_owned(), v))
            .collect(),
            by_review_priority: Default::default(),
            open_pii_findings: 42,
        }),
        ..Snapshot::default()
    };
    for n in 0..WATCHED {
        snapshot.watched.insert(
            format!("prj_{n:012x}"),
            Watched {
                name: Some(format!("Project \"{n}\" \u{202e}name")),
                current_visitors: Some(n as i64),
                last_minute_visitors: Some(1),
            },
        );
    }
    for source in Source::ALL {
        snapshot
            .fetched_at
            .insert(source, NOW - time::Duration::seconds(30));
    }
    snapshot.client.requests_by_code.insert("200".into(), 1234);
    snapshot
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    let at = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[at.min(sorted.len() - 1)]
}

async fn scrape_latency(rounds: usize) {
    let cache = Cache::default();
    cache.update(|cached| *cached = big_snapshot());
    let served = Arc::new(Served::single("ws_bench".into(), cache, Clock::manual(NOW)));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let url = format!("http://{}/metrics", listener.local_addr().expect("addr"));
    let server =
        tokio::spawn(async move { axum::serve(listener, router(served, "/metrics", None)).await });
    let http = reqwest::Client::new();
    for (label, accept) in [
        ("text 0.0.4", "text/plain"),
        ("OpenMetrics", "application/openmetrics-text;version=1.0.0"),
    ] {
        let mut times = Vec::with_capacity(rounds);
        let mut series = 0;
        let mut bytes = 0;
        for round in 0..rounds + 20 {
            let started = Instant::now();
            let body = http
                .get(&url)
                .header("accept", accept)
                .send()
                .await
                .expect("scrape")
                .text()
                .await
                .expect("body");
            let elapsed = started.elapsed();
            if round >= 20 {
                times.push(elapsed);
            }
            series = body.lines().filter(|l| !l.starts_with('#')).count();
            bytes = body.len();
        }
        times.sort();
        println!(
            "scrape {label:<11} {series} series, {bytes} bytes: median {:.2} ms, p99 {:.2} ms ({rounds} scrapes)",
            percentile(&times, 0.5).as_secs_f64() * 1e3,
            percentile(&times, 0.99).as_secs_f64() * 1e3,
        );
        // One JSON line per case, for scripts/perf.
        println!(
            "{}",
            serde_json::json!({
                "case": "scrape",
                "format": label,
                "series": series,
                "bytes": bytes,
                "scrapes": rounds,
                "median_ms": percentile(&times, 0.5).as_secs_f64() * 1e3,
                "p99_ms": percentile(&times, 0.99).as_secs_f64() * 1e3,
            })
        );
    }
    server.abort();
}

async fn requests_per_minute() {
    let anchor = datetime!(2026-11-22 00:00 UTC);
    let fixture = seed::generate(
        GenerateSpec {
            projects: 2_000,
            members: 200,
            seed: 1,
        },
        anchor,
    );
    let key = fixture
        .keys
        .iter()
        .find(|key| key.label == "enterprise-admin")
        .map(|key| key.key.clone())
        .expect("an enterprise-admin key");
    let workspace = fixture.workspaces[0].id.clone();
    let watch: Vec<String> = fixture
        .projects
        .iter()
        .filter(|p| p.wire.workspace_id == workspace && p.wire.is_published)
        .take(5)
        .map(|p| p.wire.id.clone())
        .collect();
    let clock = Clock::manual(anchor + time::Duration::hours(12));
    let mut config = ServerConfig::local(fixture);
    config.clock = clock.clone();
    let server = start(config).await.expect("server");
    let client = Client::new(ClientConfig::new(
        server.base_url(),
        ApiKey::new(key).expect("key"),
    ))
    .expect("client");
    let plan = PollPlan {
        workspace,
        watch: watch.clone(),
        interval: Duration::from_secs(60),
        inventory_interval: Some(Duration::from_secs(600)),
        names_interval: Duration::from_secs(600),
        budget: Budget::default(),
    };
    let cache = Cache::default();
    let (cycles, _) = watch::channel(0);
    let mut poller = Poller::new(client, plan, cache.clone(), clock.clone(), cycles);
    poller.cycle().await;
    let first = cache.snapshot().client.requests();
    // Ten minutes at the default interval: nine more cycles, one a minute.
    for _ in 0..9 {
        clock.advance(time::Duration::minutes(1));
        poller.cycle().await;
    }
    let ten_minutes = cache.snapshot().client.requests();
    let steady = (ten_minutes - first) / 9;
    println!(
        "poller, 2000 projects, {} watched, defaults (60s, inventory 10m): first cycle {first} requests, \
         then {steady} a cycle; {ten_minutes} requests in 10 minutes = {:.1} requests/min (limit 120/min, reserve 30)",
        watch.len(),
        ten_minutes as f64 / 10.0
    );
    let limit_per_minute = 120.0;
    println!(
        "{}",
        serde_json::json!({
            "case": "poller",
            "watched": watch.len(),
            "first_cycle": first,
            "steady_cycle": steady,
            "per_minute": ten_minutes as f64 / 10.0,
            "limit_per_minute": limit_per_minute,
            "budget_per_minute": limit_per_minute - f64::from(Budget::default().reserve.kept(120)),
        })
    );
    server.stop().await;
}

fn main() {
    let rounds: usize = std::env::args()
        .skip(1)
        .find_map(|arg| arg.parse().ok())
        .unwrap_or(500);
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("runtime");
    runtime.block_on(async {
        scrape_latency(rounds).await;
        requests_per_minute().await;
    });
}
