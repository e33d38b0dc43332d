//! The real binary, and the exporter, against the hostile service (issue 22):
//! every consumer of a page walk stops by itself, with an error naming the
//! operation and exit code 1; loopback never goes through a proxy; `publish
//! --wait` ends; a hung `api_key_command` is stopped and named.

use std::process::Stdio;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;
use vantage::api::{ApiKey, Client, ClientConfig};
use vantage::clock::Clock;
use vantage::exporter::{Budget, PollPlan};

use crate::cli::support::{Cli, Run};
use crate::common::T0;
use crate::common::hostile_service::{self, Hostile, Trick};

const KEY: &str = "vtg_hostile_cli_key";

/// Requests any walk may take against a trick before the test calls it endless.
const BOUND: u64 = 30;

async fn run(service: &Hostile, args: &[&str]) -> Run {
    let cli = Cli::new(service.base_url.clone(), "ws_1", KEY);
    tokio::time::timeout(Duration::from_secs(60), cli.run(args))
        .await
        .expect("the command ends by itself")
}

#[tokio::test]
async fn inventory_stops_under_endless_paging_in_every_format() {
    for trick in [Trick::CursorCycle, Trick::EndlessEmpty] {
        for format in ["jsonl", "json", "table", "csv"] {
            let service = hostile_service::start(trick.clone()).await;
            let run = run(&service, &["inventory", "--format", format]).await;
            let what = format!("{trick:?} --format {format}: {}", run.stderr);
            assert_eq!(run.code, 1, "{what}");
            assert!(
                run.stderr
                    .contains("list_inventory: the service's paging did not end"),
                "{what}"
            );
            assert!(
                service.requests() <= BOUND,
                "{what}: {} requests",
                service.requests()
            );
        }
    }
}

#[tokio::test]
async fn inventory_refuses_a_page_longer_than_it_asked() {
    let service = hostile_service::start(Trick::LongPage(500)).await;
    let run = run(&service, &["inventory", "--format", "table"]).await;
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert!(
        run.stderr
            .contains("held 500 items, more than the 100 asked for"),
        "{}",
        run.stderr
    );
}

#[tokio::test]
async fn json_and_jsonl_fail_where_table_and_csv_fail() {
    for trick in [Trick::ItemWithoutId, Trick::NumberTooLarge] {
        let service = hostile_service::start(trick.clone()).await;
        for format in ["table", "csv", "json", "jsonl"] {
            let run = run(&service, &["inventory", "--format", format]).await;
            assert_eq!(run.code, 1, "{trick:?} {format}: {}", run.stderr);
            assert!(
                run.stderr.contains("data["),
                "{trick:?} {format}: {}",
                run.stderr
            );
        }
    }
}

#[tokio::test]
async fn snapshot_reserves_no_room_for_counts_the_service_made_up() {
    // Insights' counts size the walk; they are the service's word, not memory
    // to reserve: a count of 10^15 (or below zero) must not abort the process.
    for count in [1_000_000_000_000_000, -1] {
        let service = hostile_service::start(Trick::HugeCounts(count)).await;
        let run = run(&service, &["snapshot"]).await;
        assert_eq!(run.code, 0, "{count}: {}", run.stderr);
        assert!(!run.stderr.contains("panicked"), "{count}: {}", run.stderr);
    }
}

#[tokio::test]
async fn snapshot_stops_under_endless_paging() {
    for trick in [Trick::CursorCycle, Trick::EndlessEmpty] {
        let service = hostile_service::start(trick.clone()).await;
        let run = run(&service, &["snapshot"]).await;
        assert_eq!(run.code, 1, "{trick:?}: {}", run.stderr);
        assert!(
            run.stderr
                .contains("list_inventory: the service's paging did not end"),
            "{trick:?}: {}",
            run.stderr
        );
        assert!(
            service.requests() <= BOUND,
            "{trick:?}: {} requests",
            service.requests()
        );
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn the_exporters_inventory_walk_stops_under_endless_paging() {
    for trick in [Trick::CursorCycle, Trick::EndlessEmpty] {
        let service = hostile_service::start(trick.clone()).await;
        let config = ClientConfig::new(service.base_url.clone(), ApiKey::new(KEY).unwrap());
        let plan = PollPlan {
            workspace: "ws_1".to_owned(),
            watch: Vec::new(),
            interval: Duration::from_secs(3600),
            inventory_interval: Some(Duration::from_secs(3600)),
            names_interval: Duration::from_secs(3600),
            budget: Budget::default(),
        };
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let client = Client::new(config).unwrap();
        let mut exporter =
            vantage::exporter::start(client, plan, Clock::manual(T0), listener).unwrap();
        tokio::time::timeout(Duration::from_secs(30), exporter.wait_for_cycles(1))
            .await
            .expect("the first poll cycle ends");
        let text = reqwest::get(exporter.metrics_url())
            .await
            .unwrap()
            .text()
            .await
            .unwrap();
        assert!(
            text.contains("vantage_poll_errors_total{source=\"inventory\"} 1"),
            "{trick:?}: {text}"
        );
        assert!(
            service.requests() <= BOUND,
            "{trick:?}: {} requests",
            service.requests()
        );
        exporter.stop();
    }
}

/// Issue 33, item 5: a service telling `total: 10^15`, one item a page and a
/// fresh cursor each time, gets no further than the configured most items
/// (`max_walk_items`), in the commands and the snapshot alike.
#[tokio::test]
async fn a_walk_ends_at_max_walk_items_whatever_total_the_service_tells() {
    for command in [&["inventory", "--format", "jsonl"][..], &["snapshot"]] {
        let service = hostile_service::start(Trick::EndlessFresh).await;
        let cli = Cli::new(service.base_url.clone(), "ws_1", KEY);
        let config = cli.config_file("max_walk_items = 20\n");
        let config = config.to_str().unwrap();
        let args = [&["--config", config][..], command].concat();
        let run = tokio::time::timeout(Duration::from_secs(60), cli.run(&args))
            .await
            .expect("the command ends by itself");
        let what = format!("{command:?}: {}", run.stderr);
        assert_eq!(run.code, 1, "{what}");
        assert!(
            run.stderr.contains(
                "list_inventory: the walk stopped after 21 items in 21 pages, more than the 20 one walk reads (max_walk_items"
            ),
            "{what}"
        );
        assert!(
            service.requests() <= BOUND,
            "{what}: {} requests",
            service.requests()
        );
    }
}

/// Issue 33, item 5: 32 KiB cursors are refused at the first, naming the
/// operation, in the commands, the snapshot and the exporter.
#[tokio::test(flavor = "multi_thread")]
async fn a_cursor_longer_than_four_kib_ends_every_walk() {
    for command in [&["inventory", "--format", "table"][..], &["snapshot"]] {
        let service = hostile_service::start(Trick::LongCursors(32 * 1024)).await;
        let run = run(&service, command).await;
        let what = format!("{command:?}: {}", run.stderr);
        assert_eq!(run.code, 1, "{what}");
        assert!(
            run.stderr.contains(
                "list_inventory: page 1 gives a next_cursor of 32768 bytes, more than the 4096 a cursor may hold"
            ),
            "{what}"
        );
        assert!(
            service.requests() <= 3,
            "{what}: {} requests",
            service.requests()
        );
    }

    // The exporter: its inventory walk fails, counted as a poll error.
    let service = hostile_service::start(Trick::LongCursors(32 * 1024)).await;
    let config = ClientConfig::new(service.base_url.clone(), ApiKey::new(KEY).unwrap());
    let plan = PollPlan {
        workspace: "ws_1".to_owned(),
        watch: Vec::new(),
        interval: Duration::from_secs(3600),
        inventory_interval: Some(Duration::from_secs(3600)),
        names_interval: Duration::from_secs(3600),
        budget: Budget::default(),
    };
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let client = Client::new(config).unwrap();
    let mut exporter = vantage::exporter::start(client, plan, Clock::manual(T0), listener).unwrap();
    tokio::time::timeout(Duration::from_secs(30), exporter.wait_for_cycles(1))
        .await
        .expect("the first poll cycle ends");
    let text = reqwest::get(exporter.metrics_url())
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert!(
        text.contains("vantage_poll_errors_total{source=\"inventory\"} 1"),
        "{text}"
    );
    assert!(
        service.requests() <= BOUND,
        "{} requests",
        service.requests()
    );
    exporter.stop();
}

/// A fake HTTP proxy on loopback: counts connections and whether a key came.
async fn fake_proxy() -> (String, Arc<AtomicU64>, Arc<AtomicU64>) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    let (connections, keys) = (Arc::new(AtomicU64::new(0)), Arc::new(AtomicU64::new(0)));
    let (counted, keyed) = (connections.clone(), keys.clone());
    tokio::spawn(async move {
        while let Ok((mut socket, _)) = listener.accept().await {
            counted.fetch_add(1, Ordering::SeqCst);
            let mut head = vec![0; 8192];
            let read = socket.read(&mut head).await.unwrap_or(0);
            if String::from_utf8_lossy(&head[..read]).contains(KEY) {
                keyed.fetch_add(1, Ordering::SeqCst);
            }
            let _ = socket
                .write_all(b"HTTP/1.1 502 Bad Gateway\r\ncontent-length: 0\r\n\r\n")
                .await;
        }
    });
    (format!("http://{address}"), connections, keys)
}

#[tokio::test]
async fn loopback_never_goes_through_a_proxy_from_the_environment() {
    let service = hostile_service::start(Trick::Honest).await;
    let (proxy, connections, keys) = fake_proxy().await;
    for base in [
        service.base_url.clone(),
        service.base_url.replace("127.0.0.1", "localhost"),
    ] {
        let cli = Cli::new(base.clone(), "ws_1", KEY);
        let env = [
            ("http_proxy", proxy.as_str()),
            ("HTTP_PROXY", proxy.as_str()),
            ("all_proxy", proxy.as_str()),
            ("ALL_PROXY", proxy.as_str()),
            ("no_proxy", ""),
            ("NO_PROXY", ""),
        ];
        let run = cli.run_env(&["inventory", "--format", "jsonl"], &env).await;
        assert_eq!(run.code, 0, "{base}: {}", run.stderr);
        assert_eq!(run.stdout.lines().count(), 3, "{base}");
    }
    assert_eq!(connections.load(Ordering::SeqCst), 0, "the proxy was used");
    assert_eq!(keys.load(Ordering::SeqCst), 0, "the key reached the proxy");
}

#[tokio::test]
async fn publish_wait_ends_on_an_unknown_status_and_names_it() {
    let service = hostile_service::start(Trick::Deployment("cancelled")).await;
    let run = run(&service, &["projects", "publish", "prj_1", "--wait"]).await;
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert!(
        run.stderr.contains(
            "deployment dep_1 ended in status \"cancelled\", which vantage does not know"
        ),
        "{}",
        run.stderr
    );
}

#[tokio::test]
async fn publish_wait_gives_up_at_its_timeout() {
    let service = hostile_service::start(Trick::Deployment("running")).await;
    let started = Instant::now();
    let run = run(
        &service,
        &["projects", "publish", "prj_1", "--wait", "--timeout", "2s"],
    )
    .await;
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert!(
        run.stderr
            .contains("deployment dep_1 still running after 2 s (--timeout)"),
        "{}",
        run.stderr
    );
    assert!(started.elapsed() < Duration::from_secs(20));
}

#[tokio::test]
async fn a_hung_api_key_command_is_stopped_and_named() {
    let service = hostile_service::start(Trick::Honest).await;
    let home = tempfile::tempdir().unwrap();
    let config = home.path().join("config.toml");
    std::fs::write(
        &config,
        format!(
            "base_url = \"{}\"\nworkspace_id = \"ws_1\"\napi_key_command = \"sleep 30\"\napi_key_command_timeout_secs = 1\n",
            service.base_url
        ),
    )
    .unwrap();
    let started = Instant::now();
    let output = tokio::process::Command::new(env!("CARGO_BIN_EXE_vantage"))
        .args(["--config", config.to_str().unwrap(), "inventory"])
        .env("HOME", home.path())
        .env("XDG_CONFIG_HOME", home.path().join(".config"))
        .env_remove("SERVICE_API_KEY")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .output();
    let output = tokio::time::timeout(Duration::from_secs(20), output)
        .await
        .expect("the command ends by itself")
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_ne!(output.status.code(), Some(0), "{stderr}");
    assert!(
        stderr.contains("`sleep 30` did not finish within 1 s (api_key_command_timeout_secs)"),
        "{stderr}"
    );
    assert!(
        started.elapsed() < Duration::from_secs(10),
        "{:?}",
        started.elapsed()
    );
    assert_eq!(service.requests(), 0);
}
