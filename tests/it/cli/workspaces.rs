//! Workspace discovery, `vantage workspaces`, `projects list` on
//! `GET /v1/projects`, `projects set-audience` and `projects embed-url`, in
//! every format, against the reference server and stubs.

use serde_json::{Value, json};

use crate::cli::support::{Cli, parse_csv, stub};
use crate::common::*;

const FORMATS: [&str; 4] = ["json", "jsonl", "csv", "table"];

#[tokio::test(flavor = "multi_thread")]
async fn inventory_needs_no_workspace_when_the_key_reaches_one() {
    let (server, _clock) = demo_server().await;
    let cli = Cli::new(server.base_url(), "", ENTERPRISE_READONLY);
    let run = cli
        .run(&["inventory", "--max", "3", "--format", "json"])
        .await
        .expect(0);
    assert_eq!(
        run.stderr,
        "using workspace ws_acme (Acme Corp), the one this key reaches\n"
    );
    let items: Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(items.as_array().unwrap().len(), 3);
    // A configured workspace is used as it is, without a word.
    let cli = Cli::new(server.base_url(), ENTERPRISE_WS, ENTERPRISE_READONLY);
    let run = cli
        .run(&["inventory", "--max", "1", "--format", "json"])
        .await
        .expect(0);
    assert_eq!(run.stderr, "");
}

#[tokio::test(flavor = "multi_thread")]
async fn without_the_workspaces_operation_the_no_workspace_error_stays() {
    let not_found = r#"{"type":"not_found","title":"Not found","status":404,"request_id":"r1","detail":null,"errors":null,"props":null}"#;
    let (base, seen) = stub(vec![(404, not_found)]).await;
    let cli = Cli::new(base, "", ENTERPRISE_ADMIN);
    let run = cli.run(&["inventory"]).await.expect(3);
    assert!(
        run.stderr
            .starts_with("error: no workspace: set workspace_id in"),
        "{}",
        run.stderr
    );
    assert_eq!(
        *seen.lock().unwrap(),
        [("GET".to_owned(), "/v1/workspaces".to_owned())]
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn several_workspaces_are_listed_in_the_error_made_safe() {
    let two = r#"{"data":[
        {"id":"ws_a","name":"Alpha","description":null,"image_url":null,"plan":"business","num_projects":3,"created_at":null,"updated_at":null},
        {"id":"ws_b","name":"Evil\u001b[2J\u202e","description":null,"image_url":null,"plan":"enterprise_plus","num_projects":1,"created_at":null,"updated_at":null}
    ],"pagination":{"has_more":false,"next_cursor":null}}"#;
    let (base, _seen) = stub(vec![(200, two)]).await;
    let cli = Cli::new(base, "", ENTERPRISE_ADMIN);
    let run = cli.run(&["members"]).await.expect(3);
    assert!(
        run.stderr
            .starts_with("error: no workspace configured, and the key reaches several;"),
        "{}",
        run.stderr
    );
    assert!(run.stderr.contains("\n  ws_a  Alpha\n"), "{}", run.stderr);
    assert!(
        run.stderr.contains("\n  ws_b  Evil\\x1b[2J\\u{202e}\n")
            || run.stderr.contains("\n  ws_b  Evil\\x1b[2J\\u202e\n"),
        "{}",
        run.stderr
    );
    assert!(!run.stderr.contains('\u{1b}'));
}

#[tokio::test(flavor = "multi_thread")]
async fn workspaces_in_every_format() {
    let (server, _clock) = demo_server().await;
    let cli = Cli::new(server.base_url(), "", ENTERPRISE_READONLY);
    let acme = json!({
        "id": "ws_acme",
        "name": "Acme Corp",
        "description": "Internal tools and customer apps of Acme",
        "image_url": null,
        "plan": "enterprise",
        "num_projects": 64,
        "created_at": "2024-06-05T00:00:00.000Z",
        "updated_at": "2026-10-02T08:15:00.000Z"
    });
    for format in FORMATS {
        let run = cli.run(&["workspaces", "--format", format]).await.expect(0);
        match format {
            "json" => assert_eq!(
                serde_json::from_str::<Value>(&run.stdout).unwrap(),
                json!([acme])
            ),
            "jsonl" => assert_eq!(
                serde_json::from_str::<Value>(run.stdout.trim_end()).unwrap(),
                acme
            ),
            "csv" => {
                let rows = parse_csv(&run.stdout);
                assert_eq!(rows.len(), 2, "{}", run.stdout);
                assert_eq!(rows[0][0], "id");
                assert_eq!(rows[1][0], "ws_acme");
            }
            _ => {
                let mut lines = run.stdout.lines();
                let header = lines.next().unwrap();
                assert!(header.starts_with("ID"), "{header}");
                assert!(header.contains("PLAN"), "{header}");
                let row = lines.next().unwrap();
                assert!(row.starts_with("ws_acme"), "{row}");
                assert!(row.contains("enterprise"), "{row}");
            }
        }
    }
    let run = cli
        .run(&["workspaces", "get", "ws_acme", "--format", "json"])
        .await
        .expect(0);
    assert_eq!(serde_json::from_str::<Value>(&run.stdout).unwrap(), acme);
    let run = cli.run(&["workspaces", "get", "ws_globex"]).await.expect(4);
    assert!(run.stderr.contains("workspace_not_found"), "{}", run.stderr);
}

#[tokio::test(flavor = "multi_thread")]
async fn projects_list_reads_the_summaries_in_every_format() {
    let (server, _clock) = demo_server().await;
    let cli = Cli::new(server.base_url(), ENTERPRISE_WS, ENTERPRISE_READONLY);
    let run = cli
        .run(&["projects", "list", "--format", "json"])
        .await
        .expect(0);
    let all: Value = serde_json::from_str(&run.stdout).unwrap();
    let all = all.as_array().unwrap();
    assert_eq!(all.len(), 64);
    assert_eq!(all[0].as_object().unwrap().len(), 11, "{}", all[0]);
    for format in ["jsonl", "csv", "table"] {
        let run = cli
            .run(&["projects", "list", "--max", "5", "--format", format])
            .await
            .expect(0);
        let first_id = all[0]["id"].as_str().unwrap();
        match format {
            "jsonl" => {
                assert_eq!(run.stdout.lines().count(), 5);
                let first: Value =
                    serde_json::from_str(run.stdout.lines().next().unwrap()).unwrap();
                assert_eq!(first, all[0]);
            }
            "csv" => {
                let rows = parse_csv(&run.stdout);
                assert_eq!(rows.len(), 6);
                assert_eq!(rows[0].len(), 11, "{:?}", rows[0]);
                assert_eq!(rows[1][0], first_id);
            }
            _ => {
                let lines: Vec<&str> = run.stdout.lines().collect();
                assert_eq!(lines.len(), 6, "{}", run.stdout);
                assert!(lines[0].starts_with("ID"), "{}", lines[0]);
                assert!(lines[1].starts_with(first_id), "{}", lines[1]);
            }
        }
    }
    // Several workspaces, comma-separated: another one answers as missing.
    let cli = Cli::new(server.base_url(), "", ENTERPRISE_READONLY);
    let run = cli
        .run(&["--workspace", "ws_acme,ws_globex", "projects", "list"])
        .await
        .expect(4);
    assert!(run.stderr.contains("workspace_not_found"), "{}", run.stderr);
    // No workspace configured: the one the key reaches.
    let run = cli
        .run(&["projects", "list", "--max", "1", "--format", "jsonl"])
        .await
        .expect(0);
    assert!(
        run.stderr.starts_with("using workspace ws_acme"),
        "{}",
        run.stderr
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn set_audience_prints_the_resolved_settings() {
    let (server, _clock) = demo_server().await;
    let cli = Cli::new(server.base_url(), ENTERPRISE_WS, ENTERPRISE_ADMIN);
    let id = "prj_7c9bcbec550e";
    let run = cli
        .run(&[
            "projects",
            "set-audience",
            id,
            "custom",
            "--target",
            "group:grp_support",
            "--target",
            "user:5600c17c-292a-4b1b-919b-ac450de43b43",
            "--format",
            "json",
        ])
        .await
        .expect(0);
    assert_eq!(
        serde_json::from_str::<Value>(&run.stdout).unwrap(),
        json!({
            "audience": "custom",
            "audience_targets": [
                {"id": "grp_support", "type": "group"},
                {"id": "5600c17c-292a-4b1b-919b-ac450de43b43", "type": "user"}
            ]
        })
    );
    let stored = server
        .app
        .store
        .read(|data| data.projects[id].wire.publish_audience.clone());
    assert_eq!(stored.map(|a| a.to_string()).as_deref(), Some("custom"));
    for format in ["jsonl", "csv", "table"] {
        let run = cli
            .run(&[
                "projects",
                "set-audience",
                id,
                "workspace",
                "--format",
                format,
            ])
            .await
            .expect(0);
        assert!(run.stdout.contains("workspace"), "{format}: {}", run.stdout);
    }
    // Targets only with custom; a bad target is a usage error.
    let run = cli
        .run(&[
            "projects",
            "set-audience",
            id,
            "public",
            "--target",
            "group:g",
        ])
        .await
        .expect(2);
    assert!(
        run.stderr
            .contains("--target applies only to the custom audience"),
        "{}",
        run.stderr
    );
    cli.run(&[
        "projects",
        "set-audience",
        id,
        "custom",
        "--target",
        "team:g",
    ])
    .await
    .expect(2);
    // A read-only key lacks projects:write.
    let reader = Cli::new(server.base_url(), ENTERPRISE_WS, ENTERPRISE_READONLY);
    reader
        .run(&["projects", "set-audience", id, "public"])
        .await
        .expect(3);
}

#[tokio::test(flavor = "multi_thread")]
async fn embed_url_checks_the_origin_before_sending() {
    let (server, _clock) = demo_server().await;
    let cli = Cli::new(server.base_url(), ENTERPRISE_WS, ENTERPRISE_ADMIN);
    let id = "prj_7c9bcbec550e";
    for format in FORMATS {
        let run = cli
            .run(&[
                "projects",
                "embed-url",
                id,
                "--origin",
                "https://intranet.example.com",
                "--format",
                format,
            ])
            .await
            .expect(0);
        assert!(
            run.stdout.contains("https://embed."),
            "{format}: {}",
            run.stdout
        );
        assert!(
            run.stdout.contains("2026-11-22"),
            "{format}: {}",
            run.stdout
        );
    }
    for bad in [
        "http://example.com",
        "https://example.com/page",
        "example.com",
    ] {
        let run = cli
            .run(&["projects", "embed-url", id, "--origin", bad])
            .await
            .expect(2);
        assert!(
            run.stderr.starts_with("error: invalid --origin:"),
            "{}",
            run.stderr
        );
    }
    let reader = Cli::new(server.base_url(), ENTERPRISE_WS, ENTERPRISE_READONLY);
    let run = reader
        .run(&[
            "projects",
            "embed-url",
            id,
            "--origin",
            "https://example.com",
        ])
        .await
        .expect(3);
    assert!(run.stderr.contains("projects:write"), "{}", run.stderr);
    let run = cli
        .run(&[
            "--read-only",
            "projects",
            "embed-url",
            id,
            "--origin",
            "https://example.com",
        ])
        .await
        .expect(3);
    assert!(run.stderr.contains("read-only mode"), "{}", run.stderr);
}

/// Issue 27: `inventory --format table` at 120 columns (stdout not a
/// terminal) says why each project has its priority and its open personal
/// data, and cuts no name: visibility and the last edit are left out, and the
/// reason and the owner give way, before a name is cut.
#[tokio::test(flavor = "multi_thread")]
async fn the_inventory_table_has_why_and_pii_and_whole_names_at_120() {
    let (server, _clock) = demo_server().await;
    let cli = Cli::new(server.base_url(), ENTERPRISE_WS, ENTERPRISE_READONLY);
    let run = cli
        .run(&["inventory", "--max", "20", "--format", "table"])
        .await
        .expect(0);
    let header = run.stdout.lines().next().unwrap();
    let titles: Vec<&str> = header
        .split("  ")
        .map(str::trim)
        .filter(|t| !t.is_empty())
        .collect();
    for title in ["ID", "NAME", "PRIORITY", "WHY", "PII"] {
        assert!(titles.contains(&title), "{title} missing: {header}");
    }
    for line in run.stdout.lines() {
        assert!(
            vantage::text::display_width(line) <= 120,
            "wider than 120: {line}"
        );
    }
    let json = cli
        .run(&["inventory", "--max", "20", "--format", "json"])
        .await
        .expect(0);
    let items: Vec<Value> = serde_json::from_str(&json.stdout).unwrap();
    for item in &items {
        if let Some(name) = item["name"].as_str() {
            let line = run
                .stdout
                .lines()
                .find(|line| line.starts_with(item["id"].as_str().unwrap()))
                .unwrap();
            assert!(line.contains(name), "{name} cut: {line}");
        }
        // A reason the service sent is named, with its count of open PII.
        if let Some(label) = item["matched_reason"]["label"].as_str() {
            let line = run
                .stdout
                .lines()
                .find(|line| line.starts_with(item["id"].as_str().unwrap()))
                .unwrap();
            let start: String = label.chars().take(4).collect();
            assert!(line.contains(&start), "{label} missing: {line}");
        }
    }
}
