//! Exports through the real binary: every project exactly once, in the order
//! the server gives for the same sort, also when the server injects faults;
//! JSON Lines; CSV columns; and every format, of the commands and of the
//! dashboard's export writers, byte by byte inert on the hostile set.

use std::collections::{HashMap, HashSet};

use futures::TryStreamExt;
use serde_json::Value;
use vantage::api::model::{InventorySortBy, SortOrder, cut_name};
use vantage::api::{ApiKey, Client, ClientConfig, InventoryParams};
use vantage::server::RunningServer;

use crate::cli::support::{Cli, assert_inert, hostile_set, parse_csv};
use crate::common::*;

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

/// The demo server with the hostile set as the names and descriptions of the
/// first projects of the workspace; returns the server and `(id, text)` pairs.
async fn hostile_server() -> (RunningServer, Vec<(String, String)>) {
    let fixture = demo();
    let targets: Vec<(String, String)> = fixture
        .projects
        .iter()
        .filter(|p| p.wire.workspace_id == ENTERPRISE_WS)
        .map(|p| p.wire.id.clone())
        .zip(hostile_set())
        .collect();
    let renamed = targets.clone();
    let (server, _clock) = server_with(move |config| {
        for (id, text) in &renamed {
            let project = config
                .fixture
                .projects
                .iter_mut()
                .find(|p| &p.wire.id == id)
                .unwrap();
            project.wire.name = Some(text.clone());
            project.wire.description = Some(text.clone());
        }
    })
    .await;
    (server, targets)
}

/// What a human format shows of `raw`: visible escapes, and a leading `'` on a
/// formula when the guard is on.
fn human(raw: &str, guard: bool) -> String {
    let visible = vantage::text::escape_invisible(raw);
    if guard && raw.starts_with(['=', '+', '-', '@', '\t', '\r']) && raw.parse::<f64>().is_err() {
        format!("'{visible}")
    } else {
        visible.into_owned()
    }
}

/// `name` of every row of a CSV text, by `id`, after checking the header.
fn csv_names(text: &str) -> HashMap<String, String> {
    let mut reader = csv::Reader::from_reader(text.as_bytes());
    let header = reader.headers().unwrap().clone();
    let column = |name: &str| header.iter().position(|h| h == name).unwrap();
    let (id, name) = (column("id"), column("name"));
    reader
        .records()
        .map(|record| {
            let record = record.unwrap();
            (record[id].to_owned(), record[name].to_owned())
        })
        .collect()
}

fn json_names(items: &[Value]) -> HashMap<String, Value> {
    items
        .iter()
        .map(|item| {
            (
                item["id"].as_str().unwrap().to_owned(),
                item["name"].clone(),
            )
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread")]
async fn every_format_of_every_command_is_inert_on_the_hostile_set() {
    let (server, targets) = hostile_server().await;
    let cli = Cli::new(server.base_url(), ENTERPRISE_WS, ENTERPRISE_ADMIN);
    let formula = targets
        .iter()
        .find(|(_, text)| text == "=cmd|' /C calc'!A0")
        .map(|(id, _)| id.clone())
        .unwrap();
    let listings: [&[&str]; 3] = [
        &["inventory"],
        &["projects", "list"],
        &["projects", "get", &formula],
    ];
    for command in listings {
        for format in ["json", "jsonl", "csv", "table"] {
            let mut args = command.to_vec();
            args.extend(["--format", format]);
            let run = cli.run(&args).await.expect(0);
            assert_inert(run.stdout.as_bytes(), &format!("{args:?}"));
            let items: Vec<Value> = match format {
                "json" if command[1..].first() == Some(&"get") => {
                    vec![serde_json::from_str(&run.stdout).unwrap()]
                }
                "json" => serde_json::from_str(&run.stdout).unwrap(),
                "jsonl" => run
                    .stdout
                    .lines()
                    .map(|line| serde_json::from_str(line).unwrap())
                    .collect(),
                "csv" => {
                    let names = csv_names(&run.stdout);
                    for (id, raw) in &targets {
                        if let Some(shown) = names.get(id) {
                            // Typed formats read a name cut to the contract's bound.
                            let read = cut_name(raw.clone());
                            assert_eq!(shown, &human(&read, true), "{args:?}");
                        }
                    }
                    assert!(names.contains_key(&formula), "{args:?}");
                    continue;
                }
                _ => continue,
            };
            // Lossless: the parsed value is the server's, byte for byte (a
            // typed list's name as read: cut to the contract's bound).
            let names = json_names(&items);
            for (id, raw) in &targets {
                if let Some(name) = names.get(id) {
                    let read = cut_name(raw.clone());
                    assert!(name == raw.as_str() || name == read.as_str(), "{args:?}");
                }
            }
            assert!(names.contains_key(&formula), "{args:?}");
        }
    }
    let raw = cli
        .run(&[
            "projects",
            "get",
            &formula,
            "-o",
            "csv",
            "--csv-raw-formulas",
        ])
        .await
        .expect(0);
    assert_inert(raw.stdout.as_bytes(), "--csv-raw-formulas");
    assert_eq!(csv_names(&raw.stdout)[&formula], "=cmd|' /C calc'!A0");
}

#[tokio::test(flavor = "multi_thread")]
async fn the_dashboard_export_writers_are_inert_on_the_hostile_set() {
    use vantage::formats::{CsvWriter, JsonArrayWriter, inventory_item_template};
    let (server, targets) = hostile_server().await;
    let client = Client::new(ClientConfig::new(
        server.base_url(),
        ApiKey::new(ENTERPRISE_ADMIN).unwrap(),
    ))
    .unwrap();
    let items: Vec<_> = client
        .inventory_stream(ENTERPRISE_WS, InventoryParams::default())
        .try_collect()
        .await
        .unwrap();
    // The writers and the template the dashboard's ctrl-s uses.
    let mut csv = CsvWriter::with_template(Vec::new(), Some(inventory_item_template()));
    let mut json = JsonArrayWriter::new(Vec::new()).unwrap();
    for item in &items {
        csv.write(item).unwrap();
        json.write(item).unwrap();
    }
    let (csv, json) = (csv.finish().unwrap(), json.finish().unwrap());
    assert_inert(&csv, "CSV export");
    assert_inert(&json, "JSON export");
    let shown = csv_names(std::str::from_utf8(&csv).unwrap());
    let parsed: Vec<Value> = serde_json::from_slice(&json).unwrap();
    let names = json_names(&parsed);
    for (id, raw) in &targets {
        let read = cut_name(raw.clone());
        assert_eq!(shown[id], human(&read, true));
        assert_eq!(names[id], read.as_str());
    }
}
