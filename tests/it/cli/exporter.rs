//! `vantage exporter` on the reference server: what it reports agrees with
//! `vantage insights --format json`, scrapes cost no API requests, and its
//! scrapes, rules and dashboard pass promtool and name only metrics that exist.

use std::collections::BTreeMap;
use std::path::Path;
use std::time::Duration;

use serde_json::Value;
use tokio::net::TcpListener;
use vantage::api::{ApiKey, Client, ClientConfig};
use vantage::clock::Clock;
use vantage::exporter::cache::{InventoryTally, Watched};
use vantage::exporter::http::{Format, Served, render};
use vantage::exporter::poller::Poller;
use vantage::exporter::{Budget, Cache, PollPlan, RunningExporter, Snapshot, Source};
use vantage::server::RunningServer;
use vantage::server::ratelimit::RateLimit;

use crate::cli::support::Cli;
use crate::common::*;

/// Samples by series (`name{labels}` exactly as written) from the text format.
fn samples(text: &str) -> BTreeMap<String, f64> {
    text.lines()
        .filter(|line| !line.starts_with('#') && !line.is_empty())
        .map(|line| {
            let (series, value) = line.rsplit_once(' ').expect("a sample line");
            (series.to_owned(), value.parse().expect("a number"))
        })
        .collect()
}

fn value(samples: &BTreeMap<String, f64>, series: &str) -> i64 {
    let found = samples
        .get(series)
        .unwrap_or_else(|| panic!("no series {series} in {samples:#?}"));
    *found as i64
}

/// The metric names of a scrape's samples.
fn metric_names(text: &str) -> Vec<String> {
    samples(text)
        .keys()
        .map(|series| series.split('{').next().unwrap_or(series).to_owned())
        .collect()
}

/// Published projects of the enterprise workspace, to watch.
fn published_projects(count: usize) -> Vec<String> {
    demo()
        .projects
        .iter()
        .filter(|p| p.wire.workspace_id == ENTERPRISE_WS && p.wire.is_published)
        .take(count)
        .map(|p| p.wire.id.clone())
        .collect()
}

/// An exporter on `server` with the admin key, polled once per hour (so only
/// its first cycle runs during a test), after its first cycle.
pub(crate) async fn exporter(
    server: &RunningServer,
    clock: &Clock,
    watch: Vec<String>,
) -> RunningExporter {
    let config = ClientConfig::new(
        server.base_url(),
        ApiKey::new(ENTERPRISE_ADMIN).expect("key"),
    );
    let client = Client::new(config).expect("client");
    let plan = PollPlan {
        workspace: ENTERPRISE_WS.to_owned(),
        watch,
        interval: Duration::from_secs(3600),
        inventory_interval: Some(Duration::from_secs(3600)),
        names_interval: Duration::from_secs(3600),
        budget: Budget::default(),
    };
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let mut exporter =
        vantage::exporter::start(client, plan, clock.clone(), listener).expect("starts");
    exporter.wait_for_cycles(1).await;
    exporter
}

async fn scrape(exporter: &RunningExporter, accept: Option<&str>) -> (String, String) {
    let mut request = http().get(exporter.metrics_url());
    if let Some(accept) = accept {
        request = request.header("accept", accept);
    }
    let response = request.send().await.expect("scrape");
    assert_eq!(response.status(), 200);
    let content_type = response.headers()["content-type"]
        .to_str()
        .expect("ascii")
        .to_owned();
    (content_type, response.text().await.expect("body"))
}

#[tokio::test(flavor = "multi_thread")]
async fn metrics_agree_with_insights_and_scrapes_cost_no_requests() {
    let (server, clock) = demo_server().await;
    let watched = published_projects(2);
    let exporter = exporter(&server, &clock, watched.clone()).await;
    let (content_type, text) = scrape(&exporter, None).await;
    assert_eq!(content_type, "text/plain; version=0.0.4; charset=utf-8");
    let scraped = samples(&text);

    // What the script command reports, with another key (its own rate-limit window).
    let cli = Cli::new(server.base_url(), ENTERPRISE_WS, ENTERPRISE_READONLY);
    let run = cli.run(&["insights", "--format", "json"]).await.expect(0);
    let insights: Value = serde_json::from_str(&run.stdout).expect("json");
    let summary = &insights["summary"];
    for (metric, field) in [
        ("vantage_projects", "total_projects"),
        (
            "vantage_externally_published_projects",
            "externally_published",
        ),
        ("vantage_workspace_members", "workspace_members"),
    ] {
        assert_eq!(
            value(&scraped, metric),
            summary[field]["value"].as_i64().expect("value"),
            "{metric}"
        );
        assert_eq!(
            value(&scraped, &format!("{metric}_delta_30d")),
            summary[field]["delta_30d"].as_i64().expect("delta"),
            "{metric}_delta_30d"
        );
    }
    let mut scored = 0;
    for priority in ["needs_review", "review_recommended", "no_review_needed"] {
        let count = summary["risk"][priority].as_i64().expect("risk count");
        scored += count;
        assert_eq!(
            value(
                &scraped,
                &format!("vantage_projects_by_review_priority{{review_priority=\"{priority}\"}}")
            ),
            count,
            "{priority}"
        );
    }
    let total = summary["total_projects"]["value"].as_i64().expect("total");
    let unscored = value(
        &scraped,
        "vantage_projects_by_review_priority{review_priority=\"unscored\"}",
    );
    assert_eq!(unscored, total - scored);
    let findings = insights["findings"].as_array().expect("findings");
    assert!(!findings.is_empty());
    for finding in findings {
        let id = finding["id"].as_str().expect("id");
        assert_eq!(
            value(
                &scraped,
                &format!("vantage_projects_by_finding_type{{finding_type=\"{id}\"}}")
            ),
            finding["project_count"].as_i64().expect("count"),
            "{id}"
        );
    }

    // The inventory walk saw every project, and as many unscored ones as
    // insights leaves unaccounted for.
    let by_audience: i64 = scraped
        .iter()
        .filter(|(series, _)| series.starts_with("vantage_projects_by_publish_audience{"))
        .map(|(_, count)| *count as i64)
        .sum();
    assert_eq!(by_audience, total);
    let by_visibility: i64 = scraped
        .iter()
        .filter(|(series, _)| series.starts_with("vantage_projects_by_visibility{"))
        .map(|(_, count)| *count as i64)
        .sum();
    assert_eq!(by_visibility, total);
    let run = cli
        .run(&[
            "inventory",
            "--review-priority",
            "unscored",
            "--format",
            "json",
        ])
        .await
        .expect(0);
    let unscored_items = serde_json::from_str::<Value>(&run.stdout)
        .map(|items| items.as_array().map_or(0, Vec::len))
        .expect("json");
    assert_eq!(unscored, unscored_items as i64);

    // The watched projects: live visitors, and their names in the info metric.
    for id in &watched {
        let project = format!("project=\"{id}\"");
        assert!(scraped.contains_key(&format!("vantage_project_current_visitors{{{project}}}")));
        assert!(scraped.contains_key(&format!(
            "vantage_project_last_minute_visitors{{{project}}}"
        )));
        assert!(
            scraped
                .keys()
                .any(|series| series.starts_with(&format!("vantage_project_info{{{project},name=")))
        );
    }
    assert_eq!(
        value(&scraped, "vantage_poll_errors_total{source=\"insights\"}"),
        0
    );
    assert_eq!(
        value(
            &scraped,
            "vantage_last_success_timestamp_seconds{source=\"insights\"}"
        ),
        T0.unix_timestamp(),
        "the clock stands still"
    );

    // Ten scrapes in a row send no request: the client's count is unchanged,
    // and the server's rate-limit window for the key agrees.
    let sent = exporter.cache.snapshot().client.requests();
    let expected_requests = 1 + 2 * watched.len() as u64 + 1; // insights, names, realtime, one inventory page
    assert_eq!(sent, expected_requests);
    for _ in 0..10 {
        let (_, again) = scrape(&exporter, None).await;
        assert_eq!(
            value(
                &samples(&again),
                "vantage_client_requests_total{code=\"200\"}"
            ),
            sent as i64
        );
    }
    assert_eq!(exporter.cache.snapshot().client.requests(), sent);
    let probe = http()
        .get(format!(
            "{}/v1/workspaces/{ENTERPRISE_WS}/security-center/insights",
            server.base_url()
        ))
        .header("service-api-key", ENTERPRISE_ADMIN)
        .send()
        .await
        .expect("probe");
    let header = |name: &str| -> u64 {
        probe.headers()[name]
            .to_str()
            .expect("ascii")
            .parse()
            .expect("number")
    };
    assert_eq!(
        header("x-ratelimit-remaining"),
        header("x-ratelimit-limit") - sent - 1,
        "the server saw only the poller's requests and the probe"
    );
    assert_eq!(
        value(&scraped, "vantage_rate_limit_remaining") as u64,
        header("x-ratelimit-limit") - sent
    );

    // A scraper asking for OpenMetrics gets it.
    let (content_type, openmetrics) = scrape(
        &exporter,
        Some("application/openmetrics-text;version=1.0.0,text/plain;version=0.0.4;q=0.5"),
    )
    .await;
    assert_eq!(
        content_type,
        "application/openmetrics-text; version=1.0.0; charset=utf-8"
    );
    assert!(openmetrics.ends_with("# EOF\n"));
    assert!(openmetrics.contains("# TYPE vantage_client_requests counter\n"));

    let health = http()
        .get(format!("http://{}/healthz", exporter.addr))
        .send()
        .await
        .expect("healthz");
    assert_eq!(health.status(), 200);
    assert_eq!(
        health.text().await.expect("body"),
        "ok: all sources up; 1 poll cycles\n"
    );
    exporter.stop();
}

#[tokio::test(flavor = "multi_thread")]
async fn poll_errors_are_counted_and_never_break_a_scrape() {
    let (server, clock) = demo_server().await;
    let exporter = exporter(&server, &clock, vec!["prj_missing".to_owned()]).await;
    let (_, text) = scrape(&exporter, None).await;
    let scraped = samples(&text);
    // The name of a missing project fails; its realtime view is not asked
    // until the project is checked again, 5 minutes later.
    assert_eq!(
        value(&scraped, "vantage_poll_errors_total{source=\"project\"}"),
        1
    );
    assert_eq!(
        value(&scraped, "vantage_poll_errors_total{source=\"realtime\"}"),
        0
    );
    assert_eq!(
        value(&scraped, "vantage_client_requests_total{code=\"404\"}"),
        1
    );
    // The service answered: the sources are up, realtime too, though the
    // project's realtime view is not asked while it rests.
    assert_eq!(value(&scraped, "vantage_up{source=\"project\"}"), 1);
    assert_eq!(value(&scraped, "vantage_up{source=\"realtime\"}"), 1);
    let health = http()
        .get(format!("http://{}/healthz", exporter.addr))
        .send()
        .await
        .expect("healthz");
    assert_eq!(health.status(), 200);
    assert!(!text.contains("vantage_project_current_visitors{"));
    // The rest is there.
    assert!(scraped.contains_key("vantage_projects"));
    exporter.stop();
}

#[tokio::test(flavor = "multi_thread")]
async fn the_poller_leaves_the_reserve_of_the_rate_limit_untouched() {
    // 6 requests a minute: the reserve is 2 (a quarter, rounded up), and a
    // cycle would want 6 (insights, 2 names, 2 realtime, 1 inventory page).
    let (server, clock) = server_with(|config| {
        config.rate_limit = RateLimit {
            limit: 6,
            window: time::Duration::seconds(60),
        };
    })
    .await;
    let exporter = exporter(&server, &clock, published_projects(2)).await;
    let snapshot = exporter.cache.snapshot();
    assert_eq!(snapshot.client.requests(), 4);
    let remaining = snapshot.client.rate_limit.expect("seen").remaining;
    assert_eq!(remaining, 2, "the reserve is left");
    let deferred: u64 = snapshot.polls_deferred.values().sum();
    assert!(deferred >= 1, "{:?}", snapshot.polls_deferred);
    assert_eq!(
        snapshot.poll_errors.values().sum::<u64>(),
        0,
        "deferring is no error"
    );
    let (_, text) = scrape(&exporter, None).await;
    assert!(text.contains("vantage_rate_limit_remaining 2\n"), "{text}");
    exporter.stop();
}

#[tokio::test(flavor = "multi_thread")]
async fn watched_projects_the_budget_skipped_go_first_next_time() {
    // 8 a minute, reserve 2. The first cycle reads insights, three names and
    // two realtime views, and defers the third.
    let (server, clock) = server_with(|config| {
        config.rate_limit = RateLimit {
            limit: 8,
            window: time::Duration::seconds(60),
        };
    })
    .await;
    let watch = published_projects(3);
    let client = Client::new(ClientConfig::new(
        server.base_url(),
        ApiKey::new(ENTERPRISE_ADMIN).expect("key"),
    ))
    .expect("client");
    let plan = PollPlan {
        workspace: ENTERPRISE_WS.to_owned(),
        watch: watch.clone(),
        interval: Duration::from_secs(60),
        inventory_interval: None,
        names_interval: Duration::from_secs(3600),
        budget: Budget::default(),
    };
    let cache = Cache::default();
    let (cycles, _) = tokio::sync::watch::channel(0);
    let mut poller = Poller::new(client, plan, cache.clone(), clock.clone(), cycles);
    poller.cycle().await;
    let has_realtime = |id: &str| cache.snapshot().watched[id].current_visitors.is_some();
    assert!(has_realtime(&watch[0]) && has_realtime(&watch[1]));
    assert!(!has_realtime(&watch[2]));

    // A minute later the window is empty, but the user spends 3 requests of
    // it: after insights, the budget allows two realtime views.
    clock.advance(time::Duration::seconds(61));
    for _ in 0..3 {
        let answer = http()
            .get(format!("{}/v1/projects/{}", server.base_url(), watch[0]))
            .header("service-api-key", ENTERPRISE_ADMIN)
            .send()
            .await
            .expect("the user's request");
        assert_eq!(answer.status(), 200);
    }
    poller.cycle().await;
    assert!(has_realtime(&watch[2]), "the deferred project went first");
    assert_eq!(
        cache.snapshot().client.rate_limit.expect("seen").remaining,
        2
    );
}

/// promtool, which the exporter's checks need: missing, they fail, never skip
/// (`.ci/run` installs Debian's `prometheus` package, as it does PostgreSQL).
fn promtool() -> std::process::Command {
    let found = std::process::Command::new("promtool")
        .arg("--version")
        .output()
        .is_ok_and(|output| output.status.success());
    assert!(
        found,
        "promtool is not installed (not on the PATH): the exporter's checks need it \
         (Debian: apt-get install prometheus; .ci/run installs it)"
    );
    std::process::Command::new("promtool")
}

pub(crate) fn promtool_check_metrics(text: &str) {
    use std::io::Write;
    let mut child = promtool()
        .args(["check", "metrics"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("promtool runs");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(text.as_bytes())
        .expect("writes");
    let output = child.wait_with_output().expect("promtool ends");
    assert!(
        output.status.success(),
        "promtool check metrics failed:\n{}{}\non:\n{text}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_scrape_passes_promtool_check_metrics() {
    let (server, clock) = demo_server().await;
    let exporter = exporter(&server, &clock, published_projects(2)).await;
    let (_, text) = scrape(&exporter, None).await;
    exporter.stop();
    promtool_check_metrics(&text);
}

/// Label values from the service are hostile: the crate escapes them, and the
/// 0.0.4 text still parses.
#[test]
fn hostile_label_values_pass_promtool() {
    let hostile = vantage::hostile::hostile_strings();
    let mut snapshot = Snapshot::default();
    let mut tally = InventoryTally::default();
    for (n, text) in hostile.iter().enumerate() {
        snapshot.watched.insert(
            format!("prj_{n}"),
            Watched {
                name: Some(text.clone()),
                current_visitors: Some(n as i64),
                last_minute_visitors: Some(1),
            },
        );
        tally.by_visibility.insert(text.clone(), 1);
    }
    snapshot.inventory = Some(tally);
    snapshot
        .fetched_at
        .insert(Source::Realtime, T0 - time::Duration::seconds(5));
    let cache = Cache::default();
    cache.update(|cached| *cached = snapshot);
    let served = Served::single(hostile[0].clone(), cache, Clock::manual(T0));
    let text = render(&served, Format::Text004).expect("renders");
    for line in text.lines() {
        assert!(
            line.starts_with('#')
                || line.ends_with(" 1")
                || line
                    .rsplit(' ')
                    .next()
                    .is_some_and(|v| v.parse::<f64>().is_ok()),
            "{line:?}"
        );
    }
    promtool_check_metrics(&text);
}

pub(crate) fn assets() -> &'static Path {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/assets"))
}

/// Runs promtool with `args` in `dir`, and asserts that it passes.
pub(crate) fn promtool_passes(args: &[&str], dir: &Path) {
    let output = promtool()
        .args(args)
        .current_dir(dir)
        .output()
        .expect("promtool runs");
    assert!(
        output.status.success(),
        "promtool {args:?}: {}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
}

#[test]
fn alert_rules_and_scrape_config_pass_promtool() {
    let dir = assets().join("prometheus");
    promtool_passes(&["check", "rules", "alerts.yml"], &dir);
    promtool_passes(&["check", "config", "prometheus.yml"], &dir);
}

/// Every `vantage_` name in a JSON value's strings.
fn vantage_names(value: &Value, names: &mut Vec<String>) {
    match value {
        Value::String(text) => {
            let mut rest = text.as_str();
            while let Some(at) = rest.find("vantage_") {
                let tail = &rest[at..];
                let end = tail
                    .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                    .unwrap_or(tail.len());
                names.push(tail[..end].to_owned());
                rest = &tail[end..];
            }
        }
        Value::Array(items) => items.iter().for_each(|item| vantage_names(item, names)),
        Value::Object(fields) => fields.values().for_each(|item| vantage_names(item, names)),
        _ => {}
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn the_dashboard_and_the_rules_name_only_metrics_that_exist() {
    let (server, clock) = demo_server().await;
    let exporter = exporter(&server, &clock, published_projects(2)).await;
    crate::cli::exporter_policy::evaluate_the_pack_once(&exporter.cache);
    let (_, text) = scrape(&exporter, None).await;
    exporter.stop();
    let exist = metric_names(&text);

    let dashboard: Value = serde_json::from_str(
        &std::fs::read_to_string(assets().join("grafana/vantage.json")).expect("dashboard"),
    )
    .expect("the dashboard is JSON");
    assert!(dashboard["panels"].as_array().is_some_and(|p| p.len() >= 4));
    let mut used = Vec::new();
    vantage_names(&dashboard, &mut used);
    let rules = std::fs::read_to_string(assets().join("prometheus/alerts.yml")).expect("rules");
    vantage_names(&Value::String(rules), &mut used);
    used.sort();
    used.dedup();
    assert!(used.len() >= 8, "{used:?}");
    for name in used {
        assert!(exist.contains(&name), "{name} is not in a scrape:\n{text}");
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn the_command_refuses_a_too_short_interval() {
    let (server, _clock) = demo_server().await;
    let cli = Cli::new(server.base_url(), ENTERPRISE_WS, ENTERPRISE_ADMIN);
    let run = cli
        .run(&["exporter", "--listen", "127.0.0.1:0", "--interval", "100ms"])
        .await
        .expect(2);
    assert!(run.stderr.contains("too short"), "{}", run.stderr);

    // No key: a configuration error, exit 3, before anything listens.
    let mut no_key = Cli::new(server.base_url(), ENTERPRISE_WS, "unused");
    no_key.key = None;
    let run = no_key
        .run(&["exporter", "--listen", "127.0.0.1:0"])
        .await
        .expect(3);
    assert!(run.stderr.contains("no API key found"), "{}", run.stderr);
}
