//! Page walks against a hostile service (the scripted `hostile_service`):
//! every consumer of a walk (`inventory` in each format, `snapshot`, the
//! exporter's inventory) stops by itself under endless or oversized paging,
//! a walk past `max_walk_items` or a cursor over 4 KiB, with an error naming
//! the operation and exit code 1.

use std::time::Duration;

use tokio::net::TcpListener;
use vantage::api::{ApiKey, Client, ClientConfig};
use vantage::clock::Clock;
use vantage::exporter::{Budget, PollPlan};

use crate::cli::support::{Cli, Run};
use crate::common::T0;
use crate::common::hostile_service::{self, Hostile, Trick};

/// The key every command here sends (a proxy must never see it).
pub(super) const KEY: &str = "vtg_hostile_cli_key";

/// Requests any walk may take against a trick before the test calls it endless.
const BOUND: u64 = 30;

/// The real binary's `args` against `service`, with a time limit.
pub(super) async fn run(service: &Hostile, args: &[&str]) -> Run {
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

/// A service telling `total: 10^15`, one item a page and a
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

/// 32 KiB cursors are refused at the first, naming the
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
