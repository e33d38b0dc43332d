//! Exports through the real binary: every project exactly once, in the order
//! the server gives for the same sort, also when the server injects faults;
//! JSON Lines; CSV columns; tables of hostile names.

use std::collections::HashSet;

use futures::TryStreamExt;
use serde_json::Value;
use vantage::api::model::{InventorySortBy, SortOrder};
use vantage::api::{ApiKey, Client, ClientConfig, InventoryParams};
use vantage::server::RunningServer;

use crate::common::*;
use crate::support::{Cli, parse_csv};

/// The inventory's `total` on its first page, and every id in the server's order.
async fn reference(server: &RunningServer, params: InventoryParams) -> (usize, Vec<String>) {
    let client = Client::new(ClientConfig::new(
        server.base_url(),
        ApiKey::new(ENTERPRISE_ADMIN).unwrap(),
    ))
    .unwrap();
    let first = client
        .list_inventory(ENTERPRISE_WS, &params, None)
        .await
        .unwrap();
    let ids: Vec<String> = client
        .inventory_stream(ENTERPRISE_WS, params)
        .map_ok(|item| item.id)
        .try_collect()
        .await
        .unwrap();
    (usize::try_from(first.total).unwrap(), ids)
}

fn sorted(sort_by: InventorySortBy, sort_order: SortOrder) -> InventoryParams {
    InventoryParams {
        sort_by: Some(sort_by),
        sort_order: Some(sort_order),
        ..Default::default()
    }
}

fn json_ids(stdout: &str) -> Vec<String> {
    let items: Vec<Value> = serde_json::from_str(stdout).expect("one JSON array");
    items
        .iter()
        .map(|item| item["id"].as_str().expect("an id").to_owned())
        .collect()
}

/// The ids of a CSV export, after checking every row has the header's columns.
fn csv_ids(stdout: &str) -> Vec<String> {
    let rows = parse_csv(stdout);
    let (header, rows) = rows.split_first().expect("a header row");
    assert_eq!(header[0], "id");
    for column in [
        "owner.display_name",
        "matched_reason.id",
        "matched_reason.values.secret_count",
    ] {
        assert!(
            header.iter().any(|name| name == column),
            "{column} in {header:?}"
        );
    }
    for row in rows {
        assert_eq!(row.len(), header.len(), "{row:?}");
    }
    rows.iter().map(|row| row[0].clone()).collect()
}

fn assert_each_once(ids: &[String], total: usize, expected: &[String]) {
    assert_eq!(ids.len(), total, "every project of `total`");
    assert_eq!(ids.iter().collect::<HashSet<_>>().len(), total, "each once");
    assert_eq!(ids, expected, "in the server's order for the same sort");
}

/// Exports the inventory as JSON (by name, ascending) and CSV (by visitors,
/// descending) in pages of `page_sizes`; returns the two runs' stderr.
async fn check_exports(
    cli: &Cli,
    reference_server: &RunningServer,
    page_sizes: [&str; 2],
    env: &[(&str, &str)],
) -> String {
    let by_name = sorted(InventorySortBy::Name, SortOrder::Asc);
    let (total, expected) = reference(reference_server, by_name).await;
    assert_eq!(total, 64, "the demo workspace's projects");
    let json = cli
        .run_env(
            &[
                "inventory",
                "--format",
                "json",
                "--sort-by",
                "name",
                "--sort-order",
                "asc",
                "--page-size",
                page_sizes[0],
            ],
            env,
        )
        .await
        .expect(0);
    assert_each_once(&json_ids(&json.stdout), total, &expected);

    let by_visitors = sorted(InventorySortBy::Visitors7d, SortOrder::Desc);
    let (total, expected) = reference(reference_server, by_visitors).await;
    let csv = cli
        .run_env(
            &[
                "inventory",
                "--format",
                "csv",
                "--sort-by",
                "visitors_7d",
                "--page-size",
                page_sizes[1],
            ],
            env,
        )
        .await
        .expect(0);
    assert_each_once(&csv_ids(&csv.stdout), total, &expected);
    json.stderr + &csv.stderr
}

#[tokio::test(flavor = "multi_thread")]
async fn json_and_csv_exports_hold_every_project_once_in_order() {
    let (server, _clock) = demo_server().await;
    let cli = Cli::new(server.base_url(), ENTERPRISE_WS, ENTERPRISE_ADMIN);
    let stderr = check_exports(&cli, &server, ["9", "11"], &[]).await;
    assert_eq!(stderr, "", "no progress when stderr is not a terminal");
}

#[tokio::test(flavor = "multi_thread")]
async fn exports_are_complete_under_injected_faults() {
    let (faulty, _clock) = server_with(|config| {
        config.faults = "429=0.1,503=0.05,reset=0.01,seed=3".parse().unwrap();
    })
    .await;
    let (reference_server, _clock) = demo_server().await;
    let cli = Cli::new(faulty.base_url(), ENTERPRISE_WS, ENTERPRISE_ADMIN);
    // Small pages: about 50 requests, enough for this seed's faults to include
    // 429s (each costs its 1 s Retry-After) as well as 503s.
    let log = check_exports(
        &cli,
        &reference_server,
        ["2", "4"],
        &[("VANTAGE_LOG", "info")],
    )
    .await;
    assert!(log.contains("rate limited, retrying"), "{log}");
    assert!(log.contains("server timed out, retrying"), "{log}");
}

#[tokio::test(flavor = "multi_thread")]
async fn jsonl_is_one_object_per_line_with_the_api_field_names() {
    let (server, _clock) = demo_server().await;
    let (total, expected) = reference(&server, InventoryParams::default()).await;
    let cli = Cli::new(server.base_url(), ENTERPRISE_WS, ENTERPRISE_ADMIN);
    let run = cli
        .run(&["inventory", "--format", "jsonl", "--page-size", "10"])
        .await
        .expect(0);
    let lines: Vec<&str> = run.stdout.lines().collect();
    let items: Vec<Value> = lines
        .iter()
        .map(|line| serde_json::from_str(line).expect("each line is one JSON value"))
        .collect();
    assert!(items.iter().all(Value::is_object));
    let ids: Vec<String> = items
        .iter()
        .map(|i| i["id"].as_str().unwrap().to_owned())
        .collect();
    assert_each_once(&ids, total, &expected);
    let keys: Vec<&str> = items[0]
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(
        keys[..8],
        [
            "id",
            "name",
            "description",
            "url",
            "is_published",
            "publish_audience",
            "visibility",
            "activity_group"
        ]
    );

    let capped = cli
        .run(&[
            "inventory",
            "--format",
            "jsonl",
            "--page-size",
            "10",
            "--max",
            "15",
        ])
        .await
        .expect(0);
    let capped: Vec<&str> = capped.stdout.lines().collect();
    assert_eq!(capped, lines[..15]);
}

/// Visible text only: no escape, no control character, no bidi override.
fn assert_terminal_safe(text: &str) {
    for ch in text.chars() {
        assert!(
            ch == '\n' || !(ch.is_control() || ('\u{202a}'..='\u{202e}').contains(&ch)),
            "unsafe {ch:?} in {text:?}"
        );
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn tables_of_hostile_names_hold_no_escapes() {
    let hostile = "\u{1b}[31mEvil\u{1b}]0;pwned\u{7} \u{202e}name\r\nnext\u{9b}2J\u{1b}[2J";
    let fixture = demo();
    let target = first_project(&fixture, ENTERPRISE_WS);
    let renamed = target.clone();
    let (server, _clock) = server_with(move |config| {
        let project = config
            .fixture
            .projects
            .iter_mut()
            .find(|p| p.id == renamed)
            .unwrap();
        project.name = Some(hostile.to_owned());
    })
    .await;
    let cli = Cli::new(server.base_url(), ENTERPRISE_WS, ENTERPRISE_ADMIN);
    for args in [
        vec!["projects", "get", target.as_str(), "--format", "table"],
        vec!["projects", "list", "--format", "table"],
        vec!["inventory", "--format", "table", "--query", "Evil"],
    ] {
        let run = cli.run(&args).await.expect(0);
        assert_terminal_safe(&run.stdout);
        assert!(run.stdout.contains("Evil"), "{args:?}: {}", run.stdout);
        assert!(run.stdout.lines().count() >= 2, "{args:?}: {}", run.stdout);
    }
    // JSON keeps the data as sent: it is not a terminal.
    let json = cli
        .run(&["projects", "get", &target, "--format", "json"])
        .await
        .expect(0);
    let project: Value = serde_json::from_str(&json.stdout).unwrap();
    assert_eq!(project["name"], hostile);
}
