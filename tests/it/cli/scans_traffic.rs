//! `vantage scans list|get|findings` and `vantage analytics traffic`, in every
//! format, against the reference server; hostile finding text stays inert.

use serde_json::Value;
use vantage::server::seed::{self, GenerateSpec};
use vantage::server::{ServerConfig, start};

use crate::cli::support::{Cli, assert_inert, parse_csv};
use crate::common::*;

const PROJECT: &str = "prj_70256702db4f";
const SCAN: &str = "scn_576ceeb50f0f";

#[tokio::test(flavor = "multi_thread")]
async fn scans_in_every_format() {
    let (server, _clock) = demo_server().await;
    let cli = Cli::new(server.base_url(), ENTERPRISE_WS, ENTERPRISE_READONLY);

    let run = cli
        .run(&[
            "scans",
            "list",
            PROJECT,
            "--format",
            "json",
            "--page-size",
            "1",
        ])
        .await
        .expect(0);
    let scans: Value = serde_json::from_str(&run.stdout).unwrap();
    let ids: Vec<&str> = scans
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["id"].as_str().unwrap())
        .collect();
    assert_eq!(
        ids,
        [
            SCAN,
            "scn_576ceeb50f0f_1",
            "scn_576ceeb50f0f_2",
            "scn_576ceeb50f0f_3"
        ]
    );
    let run = cli
        .run(&["scans", "list", PROJECT, "--format", "jsonl", "--max", "2"])
        .await
        .expect(0);
    assert_eq!(run.stdout.lines().count(), 2);
    let run = cli
        .run(&["scans", "list", PROJECT, "--format", "csv"])
        .await
        .expect(0);
    let rows = parse_csv(&run.stdout);
    assert_eq!(
        rows[0],
        [
            "id",
            "status",
            "commit_sha",
            "started_at",
            "finished_at",
            "requested_scanners"
        ]
    );
    assert_eq!(rows.len(), 5);
    let run = cli
        .run(&["scans", "list", PROJECT, "--format", "table"])
        .await
        .expect(0);
    let header = run.stdout.lines().next().unwrap();
    for column in ["ID", "STATUS", "COMMIT", "STARTED", "FINISHED", "SCANNERS"] {
        assert!(header.contains(column), "{header}");
    }
    assert!(run.stdout.contains("00000000000"), "{}", run.stdout);

    let run = cli
        .run(&["scans", "get", PROJECT, SCAN, "--format", "json"])
        .await
        .expect(0);
    let scan: Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(scan["finished_at"], "2026-10-26T00:00:00.000Z");
    assert_eq!(scan["status"], "completed");
    for format in ["jsonl", "csv", "table"] {
        let run = cli
            .run(&["scans", "get", PROJECT, SCAN, "--format", format])
            .await
            .expect(0);
        assert!(run.stdout.contains("completed"), "{format}: {}", run.stdout);
    }
    let run = cli
        .run(&["scans", "get", PROJECT, "scn_nope"])
        .await
        .expect(4);
    assert!(
        run.stderr.contains("security_scan_not_found"),
        "{}",
        run.stderr
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn findings_filter_by_level_and_status_here() {
    let (server, _clock) = demo_server().await;
    let cli = Cli::new(server.base_url(), ENTERPRISE_WS, ENTERPRISE_READONLY);
    let run = cli
        .run(&[
            "scans",
            "findings",
            PROJECT,
            SCAN,
            "--format",
            "json",
            "--page-size",
            "1",
        ])
        .await
        .expect(0);
    let all: Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(all.as_array().unwrap().len(), 4);
    let run = cli
        .run(&[
            "scans",
            "findings",
            PROJECT,
            SCAN,
            "--status",
            "open",
            "--level",
            "info,warn",
            "--format",
            "jsonl",
        ])
        .await
        .expect(0);
    let open: Vec<Value> = run
        .stdout
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    assert_eq!(open.len(), 2);
    assert!(
        open.iter()
            .all(|f| f["status"] == "open" && f["level"] == "info")
    );
    let run = cli
        .run(&[
            "scans", "findings", PROJECT, SCAN, "--level", "error", "--format", "csv",
        ])
        .await
        .expect(0);
    assert_eq!(run.stdout, "", "no row, no header: nothing matched");
    let run = cli
        .run(&[
            "scans", "findings", PROJECT, SCAN, "--status", "ignored", "--format", "table",
        ])
        .await
        .expect(0);
    assert_eq!(run.stdout.lines().count(), 3, "{}", run.stdout);
    let run = cli
        .run(&["scans", "findings", PROJECT, SCAN, "--level", "severe"])
        .await
        .expect(2);
    assert!(run.stderr.contains("error, warn, info"), "{}", run.stderr);
    let run = cli.run(&["scans", "findings", "--help"]).await.expect(0);
    assert!(run.stdout.contains("no such parameter"), "{}", run.stdout);
}

#[tokio::test(flavor = "multi_thread")]
async fn hostile_finding_text_is_inert_in_human_formats() {
    let anchor = seed::today_anchor(T0);
    let fixture = seed::generate(
        GenerateSpec {
            projects: 150,
            members: 10,
            seed: 13,
        },
        anchor,
    );
    let hostile = vantage::hostile::hostile_strings();
    let scan = fixture
        .scans
        .iter()
        .find(|s| s.findings.iter().any(|f| hostile.contains(&f.name)))
        .expect("a scan with a hostile finding name")
        .clone();
    let key = fixture
        .keys
        .iter()
        .find(|k| k.label == "enterprise-admin")
        .unwrap()
        .key
        .clone();
    let workspace = fixture.workspaces[0].id.clone();
    let mut config = ServerConfig::local(fixture);
    config.clock = vantage::clock::Clock::manual(T0);
    let server = start(config).await.unwrap();
    let cli = Cli::new(server.base_url(), &workspace, &key);
    for format in ["table", "csv", "json", "jsonl"] {
        let run = cli
            .run(&[
                "scans",
                "findings",
                &scan.project_id,
                &scan.scan.id,
                "--format",
                format,
            ])
            .await
            .expect(0);
        assert_inert(run.stdout.as_bytes(), format);
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn traffic_in_every_format() {
    let (server, _clock) = demo_server().await;
    let cli = Cli::new(server.base_url(), ENTERPRISE_WS, ENTERPRISE_READONLY);
    let range = ["--from", "2026-11-20", "--to", "2026-11-21"];
    let run = cli
        .run(
            &[
                &["analytics", "traffic", PROJECT, "--format", "json"][..],
                &range,
            ]
            .concat(),
        )
        .await
        .expect(0);
    let traffic: Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(traffic["time_series"]["visitors"]["total"], 16308);
    assert_eq!(traffic["time_series"]["pageviews_per_visit"]["total"], 2.5);
    let run = cli
        .run(
            &[
                &["analytics", "traffic", PROJECT, "--format", "jsonl"][..],
                &range,
            ]
            .concat(),
        )
        .await
        .expect(0);
    assert_eq!(run.stdout.lines().count(), 1);
    let run = cli
        .run(
            &[
                &["analytics", "traffic", PROJECT, "--format", "csv"][..],
                &range,
            ]
            .concat(),
        )
        .await
        .expect(0);
    assert_eq!(
        parse_csv(&run.stdout),
        [
            [
                "timestamp",
                "visitors",
                "pageviews",
                "pageviews_per_visit",
                "session_duration",
                "bounce_rate"
            ],
            [
                "2026-11-20T00:00:00.000Z",
                "10048",
                "26373",
                "2.62",
                "258",
                "38.9"
            ],
            [
                "2026-11-21T00:00:00.000Z",
                "6260",
                "14448",
                "2.31",
                "277",
                "34.1"
            ],
        ]
    );
    let run = cli
        .run(
            &[
                &[
                    "analytics",
                    "traffic",
                    PROJECT,
                    "--format",
                    "table",
                    "--granularity",
                    "hour",
                ][..],
                &range,
            ]
            .concat(),
        )
        .await
        .expect(0);
    assert!(run.stdout.contains("Visitors (total)"), "{}", run.stdout);
    assert!(run.stdout.contains("BOUNCE %"), "{}", run.stdout);
    assert!(run.stdout.lines().count() > 48, "{}", run.stdout);
    let run = cli
        .run(&[
            "analytics",
            "traffic",
            PROJECT,
            "--from",
            "2026-01-01",
            "--to",
            "2026-11-01",
            "--granularity",
            "hour",
        ])
        .await;
    assert_ne!(run.code, 0);
    assert!(run.stderr.contains("invalid_request"), "{}", run.stderr);
    assert!(run.stderr.contains("31 days"), "{}", run.stderr);
    let run = cli
        .run(&[&["analytics", "traffic", "prj_missing"][..], &range].concat())
        .await
        .expect(4);
    assert!(run.stderr.contains("analytics_not_found"), "{}", run.stderr);
}
