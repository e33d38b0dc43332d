//! The real binary's commands and exit codes against the reference server:
//! 0 ok, 1 other failures, 2 usage, 3 credential/plan/scope/read-only,
//! 4 not found, 5 still rate limited after every retry.

use std::net::TcpListener;
use std::time::Duration;

use serde_json::Value;
use vantage::server::store::{Fixture, ProjectRec};

use crate::cli::support::{Cli, parse_csv, stub};
use crate::common::*;

/// The error line: one line on stderr with the type and the request id.
fn assert_error_line(stderr: &str, kind: &str) {
    let lines: Vec<&str> = stderr.lines().collect();
    assert_eq!(lines.len(), 1, "{stderr}");
    assert!(lines[0].starts_with("error: "), "{stderr}");
    assert!(lines[0].contains(kind), "{stderr}");
    assert!(lines[0].contains("request_id req_"), "{stderr}");
}

fn project(fixture: &Fixture, workspace: &str, wanted: impl Fn(&ProjectRec) -> bool) -> String {
    fixture
        .projects
        .iter()
        .find(|p| p.wire.workspace_id == workspace && wanted(p))
        .expect("a project of that kind")
        .wire
        .id
        .clone()
}

#[tokio::test(flavor = "multi_thread")]
async fn credential_plan_and_missing_resources_have_their_exit_codes() {
    let (server, _clock) = demo_server().await;
    let fixture = demo();

    let bad_key = Cli::new(server.base_url(), ENTERPRISE_WS, "vtg_not_a_key");
    let run = bad_key.run(&["insights"]).await.expect(3);
    assert_error_line(&run.stderr, "unauthorized (HTTP 401)");
    assert_eq!(run.stdout, "");

    let mut no_key = Cli::new(server.base_url(), ENTERPRISE_WS, "unused");
    no_key.key = None;
    let run = no_key.run(&["insights"]).await.expect(3);
    assert!(run.stderr.contains("no API key found"), "{}", run.stderr);

    let pro_project = first_project(&fixture, PRO_WS);
    let pro = Cli::new(server.base_url(), PRO_WS, PRO_ADMIN);
    let run = pro.run(&["projects", "get", &pro_project]).await.expect(3);
    assert_error_line(&run.stderr, "payment_required (HTTP 402)");

    let scoped = Cli::new(server.base_url(), ENTERPRISE_WS, PROJECTS_READ);
    let run = scoped.run(&["members"]).await.expect(3);
    assert_error_line(&run.stderr, "insufficient_scope (HTTP 403)");

    let admin = Cli::new(server.base_url(), ENTERPRISE_WS, ENTERPRISE_ADMIN);
    let run = admin
        .run(&["projects", "get", "prj_missing"])
        .await
        .expect(4);
    assert_error_line(&run.stderr, "project_not_found (HTTP 404)");
    let run = admin
        .run(&["members", "get", "00000000-0000-4000-8000-000000000001"])
        .await
        .expect(4);
    assert_error_line(&run.stderr, "member_not_found (HTTP 404)");

    // A 400 from the server is "anything else".
    let run = admin
        .run(&["inventory", "--sort-by", "relevance"])
        .await
        .expect(1);
    assert_error_line(&run.stderr, "invalid_request (HTTP 400)");
    assert_eq!(run.stdout, "", "nothing written before the first page");

    // So is a server that does not answer.
    let closed = TcpListener::bind("127.0.0.1:0").unwrap();
    let address = closed.local_addr().unwrap();
    drop(closed);
    let nobody = Cli::new(format!("http://{address}"), ENTERPRISE_WS, ENTERPRISE_ADMIN);
    // One attempt: connect errors are otherwise retried with backoff.
    let config = nobody.config_file("max_attempts = 1\n");
    let run = nobody
        .run(&["--config", config.to_str().unwrap(), "insights"])
        .await
        .expect(1);
    assert!(
        run.stderr.starts_with("error: cannot connect"),
        "{}",
        run.stderr
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn usage_errors_exit_2_before_any_request() {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    listener.set_nonblocking(true).unwrap();
    let cli = Cli::new(
        format!("http://{}", listener.local_addr().unwrap()),
        ENTERPRISE_WS,
        ENTERPRISE_ADMIN,
    );
    for args in [
        vec!["inventory", "--sort-by", "bogus"],
        vec!["inventory", "--sort-order", "asc"],
        vec!["inventory", "--visibility", "public"],
        vec!["members", "--role", "owner,superuser"],
        vec!["insights", "--review-priority", "unscored"],
        vec!["projects", "set-visibility", "prj_1", "everyone"],
        vec!["projects", "rename", "prj_1", "see https://evil.example"],
        vec![
            "analytics",
            "breakdowns",
            "prj_1",
            "--from",
            "yesterday",
            "--to",
            "2026-11-01",
        ],
        vec!["projects", "delete", "prj_1"],
    ] {
        let run = cli.run(&args).await;
        assert_eq!(run.code, 2, "{args:?}: {}", run.stderr);
        assert!(!run.stderr.is_empty());
    }
    let listed = cli.run(&["inventory", "--help"]).await.expect(0);
    assert!(
        listed
            .stdout
            .contains("[possible values: last_14_days, last_60_days, older]")
    );
    assert!(
        listener.accept().is_err(),
        "usage errors send nothing (delete without --yes asks nothing either)"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn every_retry_rate_limited_exits_5() {
    let (server, _clock) = server_with(|config| {
        config.faults = "429=1.0,seed=1".parse().unwrap();
    })
    .await;
    let cli = Cli::new(server.base_url(), ENTERPRISE_WS, ENTERPRISE_ADMIN);
    let config = cli.config_file("max_attempts = 2\n");
    let run = cli
        .run(&["--config", config.to_str().unwrap(), "insights"])
        .await
        .expect(5);
    assert_error_line(&run.stderr, "rate_limited (HTTP 429)");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_second_delete_succeeds_because_the_project_is_gone() {
    let (server, _clock) = demo_server().await;
    let id = first_project(&demo(), ENTERPRISE_WS);
    let cli = Cli::new(server.base_url(), ENTERPRISE_WS, ENTERPRISE_ADMIN);

    let refused = cli.run(&["projects", "delete", &id]).await.expect(2);
    assert!(
        refused
            .stderr
            .contains("without --yes: stdin is not a terminal"),
        "{}",
        refused.stderr
    );
    cli.run(&["projects", "get", &id]).await.expect(0);

    let first = cli
        .run(&["projects", "delete", &id, "--yes"])
        .await
        .expect(0);
    assert_eq!(first.stderr, format!("deleted project {id}\n"));
    let second = cli
        .run(&["projects", "delete", &id, "--yes"])
        .await
        .expect(0);
    assert!(
        second.stderr.contains("already deleted"),
        "{}",
        second.stderr
    );
    assert_eq!(first.stdout, "");
    cli.run(&["projects", "get", &id]).await.expect(4);
}

#[tokio::test(flavor = "multi_thread")]
async fn read_only_refuses_every_mutation_before_any_request() {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    listener.set_nonblocking(true).unwrap();
    let cli = Cli::new(
        format!("http://{}", listener.local_addr().unwrap()),
        ENTERPRISE_WS,
        ENTERPRISE_ADMIN,
    );
    let config = cli.config_file("read_only = true\n");
    let config = config.to_str().unwrap();
    let mutations = [
        vec!["projects", "rename", "prj_1", "New name"],
        vec!["projects", "set-visibility", "prj_1", "restricted"],
        vec!["projects", "unpublish", "prj_1"],
        vec!["projects", "publish", "prj_1", "--wait"],
        vec!["projects", "delete", "prj_1", "--yes"],
    ];
    for mutation in &mutations {
        let mut flagged = vec!["--read-only"];
        flagged.extend(mutation);
        let run = cli.run(&flagged).await.expect(3);
        assert!(
            run.stderr
                .starts_with("error: read-only mode (--read-only): refusing to"),
            "{}",
            run.stderr
        );
        let mut configured = vec!["--config", config];
        configured.extend(mutation);
        let run = cli.run(&configured).await.expect(3);
        assert!(run.stderr.contains("read_only = true in"), "{}", run.stderr);
    }
    assert!(listener.accept().is_err(), "no request was sent");

    // Against the server: the name is unchanged.
    let (server, _clock) = demo_server().await;
    let id = first_project(&demo(), ENTERPRISE_WS);
    let name = |server: &vantage::server::RunningServer| {
        server
            .app
            .store
            .read(|data| data.projects[&id].wire.name.clone())
    };
    let before = name(&server);
    let cli = Cli::new(server.base_url(), ENTERPRISE_WS, ENTERPRISE_ADMIN);
    cli.run(&["--read-only", "projects", "rename", &id, "Changed"])
        .await
        .expect(3);
    assert_eq!(name(&server), before);
}

#[tokio::test(flavor = "multi_thread")]
async fn mutations_print_the_changed_project() {
    let (server, _clock) = demo_server().await;
    let id = first_project(&demo(), ENTERPRISE_WS);
    let cli = Cli::new(server.base_url(), ENTERPRISE_WS, ENTERPRISE_ADMIN);
    let run = cli
        .run(&[
            "projects",
            "rename",
            &id,
            "Ledger · Q3 (draft)",
            "--format",
            "json",
        ])
        .await
        .expect(0);
    let project: Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(project["id"], id.as_str());
    assert_eq!(project["name"], "Ledger · Q3 (draft)");
    let run = cli
        .run(&[
            "projects",
            "set-visibility",
            &id,
            "workspace_view",
            "--format",
            "jsonl",
        ])
        .await
        .expect(0);
    assert_eq!(run.stdout.lines().count(), 1);
    let project: Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(project["visibility"], "workspace_view");
    let stored = server.app.store.read(|data| data.projects[&id].clone());
    assert_eq!(stored.wire.name.as_deref(), Some("Ledger · Q3 (draft)"));
    let run = cli.run(&["projects", "unpublish", &id]).await.expect(0);
    assert_eq!(run.stdout, "");
}

#[tokio::test(flavor = "multi_thread")]
async fn publish_wait_follows_the_deployment_to_its_end() {
    let (server, clock) = demo_server().await;
    let fixture = demo();
    let publishable = |p: &ProjectRec, errors: bool| {
        (p.security.values.error_count > 0) == errors && p.security.values.secret_count == 0
    };
    let good = project(&fixture, ENTERPRISE_WS, |p| publishable(p, false));
    let broken = project(&fixture, ENTERPRISE_WS, |p| publishable(p, true));
    let cli = Cli::new(server.base_url(), ENTERPRISE_WS, ENTERPRISE_ADMIN);
    // The server's manual clock runs fast while the binary polls (every 2 s at most).
    let ticker = tokio::spawn(async move {
        loop {
            tokio::time::sleep(Duration::from_millis(100)).await;
            clock.advance(time::Duration::seconds(30));
        }
    });
    let publish_good = ["projects", "publish", &good, "--wait", "--format", "json"];
    let publish_broken = ["projects", "publish", &broken, "--wait", "--format", "json"];
    let (ok, failed) = tokio::join!(cli.run(&publish_good), cli.run(&publish_broken));
    ticker.abort();
    let ok = ok.expect(0);
    let deployment: Value = serde_json::from_str(&ok.stdout).unwrap();
    assert_eq!(deployment["status"], "completed");
    let url = deployment["url"].as_str().unwrap();
    assert_eq!(ok.stderr, format!("published: {url}\n"));

    let failed = failed.expect(1);
    let deployment: Value = serde_json::from_str(&failed.stdout).unwrap();
    assert_eq!(deployment["status"], "error");
    assert!(
        failed.stderr.starts_with("error: deployment dpl_"),
        "{}",
        failed.stderr
    );
    assert!(failed.stderr.contains("build failed"), "{}", failed.stderr);
}

#[tokio::test(flavor = "multi_thread")]
async fn reads_of_each_resource() {
    let (server, _clock) = demo_server().await;
    let fixture = demo();
    let cli = Cli::new(server.base_url(), ENTERPRISE_WS, ENTERPRISE_ADMIN);

    let run = cli
        .run(&[
            "insights",
            "--review-priority",
            "needs_review",
            "--format",
            "json",
        ])
        .await
        .expect(0);
    let insights: Value = serde_json::from_str(&run.stdout).unwrap();
    let findings = insights["findings"].as_array().unwrap();
    assert!(!findings.is_empty());
    assert!(
        findings
            .iter()
            .all(|f| f["review_priority"] == "needs_review")
    );

    let active = fixture
        .memberships
        .iter()
        .filter(|m| m.workspace_id == ENTERPRISE_WS && m.status == "active")
        .count();
    let run = cli
        .run(&["members", "--format", "csv", "--page-size", "7"])
        .await
        .expect(0);
    let rows = parse_csv(&run.stdout);
    // What the dashboard shows, each member filled in (issue 35, item 12).
    assert_eq!(
        rows[0],
        ["name", "email", "role", "type", "joined_at", "user_id"]
    );
    assert_eq!(rows.len() - 1, active);
    let run = cli
        .run(&["members", "--role", "owner,admin", "--format", "jsonl"])
        .await
        .expect(0);
    let first: Value = serde_json::from_str(run.stdout.lines().next().unwrap()).unwrap();
    let user_id = first["user_id"].as_str().unwrap();
    let run = cli
        .run(&["members", "get", user_id, "--format", "json"])
        .await
        .expect(0);
    let member: Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(member["user_id"], user_id);
    assert_eq!(member["workspace_id"], ENTERPRISE_WS);

    let run = cli
        .run(&["projects", "list", "--format", "json"])
        .await
        .expect(0);
    let projects: Vec<Value> = serde_json::from_str(&run.stdout).unwrap();
    let expected = fixture
        .projects
        .iter()
        .filter(|p| p.wire.workspace_id == ENTERPRISE_WS)
        .count();
    assert_eq!(projects.len(), expected);

    let with_pii = fixture.pii_findings[0].project_id.clone();
    let findings = fixture
        .pii_findings
        .iter()
        .filter(|f| f.project_id == with_pii)
        .count();
    let run = cli
        .run(&["pii", &with_pii, "--format", "jsonl", "--page-size", "2"])
        .await
        .expect(0);
    assert_eq!(run.stdout.lines().count(), findings);

    let published = project(&fixture, ENTERPRISE_WS, |p| {
        p.wire.is_published && p.analytics.is_some()
    });
    let run = cli
        .run(&[
            "analytics",
            "realtime",
            &published,
            "--watch",
            "--interval",
            "1",
            "--count",
            "2",
            "--format",
            "jsonl",
        ])
        .await
        .expect(0);
    let refreshes: Vec<Value> = run
        .stdout
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    assert_eq!(refreshes.len(), 2, "one line per refresh");
    assert_eq!(refreshes[0]["buckets"].as_array().unwrap().len(), 30);

    let run = cli
        .run(&[
            "analytics",
            "breakdowns",
            &published,
            "--from",
            "2026-10-01",
            "--to",
            "2026-11-21",
            "--format",
            "csv",
        ])
        .await
        .expect(0);
    let rows = parse_csv(&run.stdout);
    assert_eq!(rows[0], ["breakdown", "label", "visitors"]);
    assert!(rows[1..].iter().any(|row| row[0] == "countries"));
    let run = cli
        .run(&[
            "analytics",
            "breakdowns",
            &published,
            "--from",
            "2026-10-01",
            "--to",
            "2026-11-21",
            "--format",
            "json",
        ])
        .await
        .expect(0);
    let breakdowns: Value = serde_json::from_str(&run.stdout).unwrap();
    let keys: Vec<&str> = breakdowns
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(keys, ["countries", "devices", "pages", "sources"]);
}

#[tokio::test(flavor = "multi_thread")]
async fn completions_and_man_page() {
    let cli = Cli::new("http://127.0.0.1:9", ENTERPRISE_WS, ENTERPRISE_ADMIN);
    for shell in ["bash", "zsh", "fish"] {
        let run = cli.run(&["completions", shell]).await.expect(0);
        assert!(run.stdout.contains("inventory"), "{shell}");
        assert!(run.stdout.contains("sort-by"), "{shell}");
        assert!(
            run.stdout.contains("visitors_7d"),
            "{shell}: enum values complete"
        );
    }
    let man = cli.run(&["man"]).await.expect(0);
    assert!(man.stdout.starts_with(".ie") || man.stdout.contains(".TH vantage 1"));
    assert!(man.stdout.contains("inventory"));
}

#[tokio::test(flavor = "multi_thread")]
async fn an_unpublish_of_unknown_outcome_that_went_through_exits_0() {
    // Every mutation answers 503 request_timeout after it committed.
    let (server, _clock) = server_with(|config| {
        config.faults = "timeout-after-commit=1.0".parse().unwrap();
    })
    .await;
    let id = project(&demo(), ENTERPRISE_WS, |p| p.wire.is_published);
    let cli = Cli::new(server.base_url(), ENTERPRISE_WS, ENTERPRISE_ADMIN);
    let config = cli.config_file("max_attempts = 2\n");
    let run = cli
        .run(&[
            "--config",
            config.to_str().unwrap(),
            "projects",
            "unpublish",
            &id,
            "--format",
            "json",
        ])
        .await
        .expect(0);
    let outcome: Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(outcome, serde_json::json!({"id": id, "result": "offline"}));
    assert_eq!(run.stderr, format!("project {id} is offline\n"));
    let published = server
        .app
        .store
        .read(|data| data.projects[&id].wire.is_published);
    assert!(!published, "the read-back saw the project offline");
}

const NOT_FOUND: &str = r#"{"type":"project_not_found","title":"Project not found","status":404,"request_id":"req_stub","detail":null,"errors":null,"props":null}"#;
const RATE_LIMITED: &str = r#"{"type":"rate_limited","title":"Too many requests","status":429,"request_id":"req_stub","detail":"retry after 0 s","errors":null,"props":null}"#;
const TIMED_OUT: &str = r#"{"type":"request_timeout","title":"Request timeout","status":503,"request_id":"req_stub","detail":null,"errors":null,"props":null}"#;

#[tokio::test(flavor = "multi_thread")]
async fn a_delete_whose_retries_hit_429_after_the_project_is_gone_exits_0() {
    // The first DELETE went through but timed out; its retries meet 429s until
    // they run out; reading the project back finds it gone.
    let (base, seen) = stub(vec![
        (503, TIMED_OUT),
        (429, RATE_LIMITED),
        (429, RATE_LIMITED),
        (404, NOT_FOUND),
    ])
    .await;
    let cli = Cli::new(base, ENTERPRISE_WS, ENTERPRISE_ADMIN);
    let config = cli.config_file("max_attempts = 3\n");
    let run = cli
        .run(&[
            "--config",
            config.to_str().unwrap(),
            "projects",
            "delete",
            "prj_gone",
            "--yes",
            "--format",
            "jsonl",
        ])
        .await
        .expect(0);
    assert_eq!(run.stdout, "{\"id\":\"prj_gone\",\"result\":\"deleted\"}\n");
    let methods: Vec<String> = seen
        .lock()
        .unwrap()
        .iter()
        .map(|(m, _)| m.clone())
        .collect();
    assert_eq!(methods, ["DELETE", "DELETE", "DELETE", "GET"]);
}

#[tokio::test(flavor = "multi_thread")]
async fn a_delete_whose_retries_ran_out_with_the_project_still_there_exits_5() {
    let project = r#"{"id":"prj_1","name":"One","workspace_id":"ws","is_published":false}"#;
    let (base, _seen) = stub(vec![
        (429, RATE_LIMITED),
        (429, RATE_LIMITED),
        (200, project),
    ])
    .await;
    let cli = Cli::new(base, ENTERPRISE_WS, ENTERPRISE_ADMIN);
    let config = cli.config_file("max_attempts = 2\n");
    let run = cli
        .run(&[
            "--config",
            config.to_str().unwrap(),
            "projects",
            "delete",
            "prj_1",
            "--yes",
        ])
        .await
        .expect(5);
    assert!(
        run.stderr.starts_with("error: rate_limited (HTTP 429)"),
        "{}",
        run.stderr
    );
    assert_eq!(
        run.stderr.matches("retry after").count(),
        1,
        "{}",
        run.stderr
    );
}

/// Issue 35, item 16: `--sort-by name` sends the dashboard's first direction
/// (A→Z) explicitly, so a command and a saved view copy into each other; the
/// service's own default (Z→A) never decides.
#[tokio::test(flavor = "multi_thread")]
async fn sort_by_name_sends_a_to_z_as_the_dashboard_does() {
    let (server, _clock) = demo_server().await;
    let admin = Cli::new(server.base_url(), ENTERPRISE_WS, ENTERPRISE_ADMIN);
    let ids = |run: crate::cli::support::Run| -> Vec<String> {
        let rows: Vec<Value> = serde_json::from_str(&run.stdout).expect("a JSON array");
        rows.iter()
            .map(|row| row["id"].as_str().unwrap_or_default().to_owned())
            .collect()
    };
    let plain = [
        "inventory",
        "--sort-by",
        "name",
        "--max",
        "8",
        "--format",
        "json",
    ];
    let implicit = ids(admin.run(&plain).await.expect(0));
    let explicit = [&plain[..], &["--sort-order", "asc"]].concat();
    let a_to_z = ids(admin.run(&explicit).await.expect(0));
    let descending = [&plain[..], &["--sort-order", "desc"]].concat();
    let z_to_a = ids(admin.run(&descending).await.expect(0));
    assert_eq!(implicit.len(), 8);
    assert_ne!(a_to_z, z_to_a, "the two directions differ");
    assert_eq!(implicit, a_to_z, "names sort A→Z unless told otherwise");
}
