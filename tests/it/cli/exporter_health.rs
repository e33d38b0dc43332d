//! `vantage exporter` when the service is unreachable or refuses the key:
//! `vantage_up{source}` says so within one poll interval, and `/healthz`
//! answers 503 (issue 28, part 2, item 1).

use std::time::Duration;

use tokio::net::TcpListener;
use vantage::api::{ApiKey, Client, ClientConfig, RetryPolicy};
use vantage::clock::Clock;
use vantage::exporter::poller::Poller;
use vantage::exporter::{Budget, Cache, PollPlan, RunningExporter};

use crate::common::*;

const INTERVAL: Duration = Duration::from_secs(60);

/// A client of `base_url` with `key` that does not retry, so a test against a
/// dead address takes no backoff sleeps.
fn client(base_url: &str, key: &str) -> Client {
    let mut config = ClientConfig::new(base_url, ApiKey::new(key).expect("key"));
    config.retry = RetryPolicy {
        max_attempts: 1,
        ..RetryPolicy::default()
    };
    Client::new(config).expect("client")
}

fn plan(watch: Vec<String>) -> PollPlan {
    PollPlan {
        workspace: ENTERPRISE_WS.to_owned(),
        watch,
        interval: INTERVAL,
        inventory_interval: Some(Duration::from_secs(600)),
        names_interval: Duration::from_secs(600),
        budget: Budget::default(),
    }
}

async fn start(client: Client, clock: &Clock) -> RunningExporter {
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let mut exporter =
        vantage::exporter::start(client, plan(vec!["prj_1".into()]), clock.clone(), listener)
            .expect("starts");
    exporter.wait_for_cycles(1).await;
    exporter
}

/// An address where nothing listens: bound, then let go.
async fn dead_address() -> String {
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let addr = listener.local_addr().expect("addr");
    drop(listener);
    format!("http://{addr}")
}

async fn get(url: String) -> (u16, String) {
    let answer = http().get(url).send().await.expect("answers");
    let status = answer.status().as_u16();
    (status, answer.text().await.expect("body"))
}

/// The `vantage_up` lines of a scrape, by source.
fn up_lines(text: &str) -> Vec<String> {
    text.lines()
        .filter(|line| line.starts_with("vantage_up{"))
        .map(str::to_owned)
        .collect()
}

fn all_down() -> Vec<String> {
    ["insights", "inventory", "realtime", "project"]
        .map(|source| format!("vantage_up{{source=\"{source}\"}} 0"))
        .into_iter()
        .collect()
}

async fn assert_reported_down(exporter: &RunningExporter) {
    let (status, text) = get(exporter.metrics_url()).await;
    assert_eq!(status, 200, "a scrape still answers");
    let mut up = up_lines(&text);
    up.sort();
    let mut expected = all_down();
    expected.sort();
    assert_eq!(up, expected, "in\n{text}");
    assert!(
        !text.contains("vantage_last_success_timestamp_seconds{"),
        "nothing ever answered:\n{text}"
    );
    let (status, body) = get(format!("http://{}/healthz", exporter.addr)).await;
    assert_eq!(status, 503, "{body}");
    assert!(body.contains("no source has answered yet"), "{body}");
}

#[tokio::test(flavor = "multi_thread")]
async fn an_unreachable_service_is_down_and_unhealthy() {
    let clock = Clock::manual(T0);
    let exporter = start(client(&dead_address().await, ENTERPRISE_ADMIN), &clock).await;
    assert_reported_down(&exporter).await;
    exporter.stop();
}

#[tokio::test(flavor = "multi_thread")]
async fn a_refused_key_is_down_and_unhealthy() {
    let (server, clock) = demo_server().await;
    let exporter = start(client(&server.base_url(), "vtg_not_a_known_key"), &clock).await;
    assert_reported_down(&exporter).await;
    exporter.stop();
    server.stop().await;
}

/// The service answers, then goes away: the next cycle reports each source it
/// polled down, and once every source has failed for longer than its interval
/// `/healthz` turns 503.
#[tokio::test(flavor = "multi_thread")]
async fn a_service_that_goes_away_is_down_within_one_interval() {
    let (server, clock) = demo_server().await;
    let cache = Cache::default();
    let (cycles, _) = tokio::sync::watch::channel(0);
    let client = client(&server.base_url(), ENTERPRISE_ADMIN);
    let mut plan = plan(Vec::new());
    plan.inventory_interval = None;
    let mut poller = Poller::new(client, plan, cache.clone(), clock.clone(), cycles);
    let served =
        vantage::exporter::http::Served::single(ENTERPRISE_WS.into(), cache.clone(), clock.clone());
    poller.cycle().await;
    let scrape = || {
        vantage::exporter::http::render(&served, vantage::exporter::Format::Text004)
            .expect("renders")
    };
    assert_eq!(up_lines(&scrape()), ["vantage_up{source=\"insights\"} 1"]);
    assert_eq!(vantage::exporter::http::health(&served).0, 200);

    server.stop().await;
    clock.advance(time::Duration::seconds(INTERVAL.as_secs() as i64));
    poller.cycle().await;
    assert_eq!(up_lines(&scrape()), ["vantage_up{source=\"insights\"} 0"]);
    // The last answer stays on show, with when it came.
    assert!(
        scrape().contains(&format!(
            "vantage_last_success_timestamp_seconds{{source=\"insights\"}} {}.0\n",
            T0.unix_timestamp()
        )),
        "{}",
        scrape()
    );
    clock.advance(time::Duration::seconds(1));
    let (status, body) = vantage::exporter::http::health(&served);
    assert_eq!(status, 503, "{body}");
}
