//! Issue 36, item 15: `vantage doctor` against the reference server, with a
//! good set-up and broken ones: the exit code, the JSON's shape, the failing
//! check and its fix, and never the key.

use serde_json::Value;

use crate::cli::support::{Cli, Run};
use crate::common::*;

/// Every check's object has these keys, and these only.
fn assert_shape(report: &Value) {
    assert!(report["ok"].is_boolean(), "{report}");
    let checks = report["checks"].as_array().expect("checks");
    assert!(!checks.is_empty());
    for check in checks {
        let object = check.as_object().unwrap();
        let mut keys: Vec<&str> = object.keys().map(String::as_str).collect();
        keys.sort_unstable();
        assert_eq!(keys, ["check", "detail", "fix", "status"], "{check}");
        assert!(
            ["ok", "warn", "fail"].contains(&check["status"].as_str().unwrap()),
            "{check}"
        );
        assert_eq!(check["fix"].is_null(), check["status"] == "ok", "{check}");
    }
}

fn check<'a>(report: &'a Value, name: &str) -> &'a Value {
    report["checks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|check| check["check"] == name)
        .unwrap_or_else(|| panic!("no {name} check: {report}"))
}

fn never_the_key(run: &Run, key: &str) {
    assert!(
        !run.stdout.contains(key),
        "the key in stdout: {}",
        run.stdout
    );
    assert!(
        !run.stderr.contains(key),
        "the key in stderr: {}",
        run.stderr
    );
}

async fn doctor(cli: &Cli, extra: &[&str], env: &[(&str, &str)]) -> Run {
    let mut args = vec!["doctor"];
    args.extend_from_slice(extra);
    cli.run_env(&args, env).await
}

/// All is well: exit 0; every check of the issue's list is there; the key
/// never shows, in either format.
#[tokio::test(flavor = "multi_thread")]
async fn doctor_on_a_good_setup_exits_0_and_names_every_check() {
    let (server, _clock) = server_with(|config| {
        config.clock = vantage::clock::Clock::system();
    })
    .await;
    let cli = Cli::new(server.base_url(), ENTERPRISE_WS, ENTERPRISE_ADMIN);
    let history = cli.home.path().join("history.sqlite3");
    let env = [("VANTAGE_HISTORY_URL", history.to_str().unwrap())];
    let run = doctor(&cli, &["--format", "json"], &env).await;
    never_the_key(&run, ENTERPRISE_ADMIN);
    let report: Value = serde_json::from_str(&run.stdout).expect(&run.stdout);
    let run = run.expect(0);
    assert_shape(&report);
    assert_eq!(report["ok"], true, "{report}");
    for name in [
        "config",
        "context",
        "dashboard",
        "key",
        "api",
        "workspace",
        "plan",
        "scopes",
        "rate limit",
        "clock",
        "history",
        "colour",
        "terminal",
        "data dir",
        "log",
    ] {
        check(&report, name);
    }
    assert_eq!(check(&report, "api")["status"], "ok");
    assert_eq!(check(&report, "clock")["status"], "ok");
    assert!(
        check(&report, "workspace")["detail"]
            .as_str()
            .unwrap()
            .contains(ENTERPRISE_WS)
    );
    assert!(
        check(&report, "key")["detail"]
            .as_str()
            .unwrap()
            .contains(crate::cli::support::KEY_VAR),
        "names where the key comes from"
    );
    assert!(
        check(&report, "scopes")["detail"]
            .as_str()
            .unwrap()
            .contains("workspaces:read, projects:read")
    );
    assert!(!history.exists(), "doctor creates no history file");
    drop(run);
    let text = doctor(&cli, &[], &env).await;
    never_the_key(&text, ENTERPRISE_ADMIN);
    let text = text.expect(0);
    assert!(
        text.stdout.lines().any(|line| line.starts_with("✓ api")),
        "{}",
        text.stdout
    );
    server.stop().await;
}

/// `[tui]` and `[keys]` read as the dashboard reads them: a misspelt key,
/// which the dashboard refuses at start, fails the check with the key named
/// (exit 1); a good table shows each `[tui]` value in effect.
#[tokio::test(flavor = "multi_thread")]
async fn doctor_reads_the_dashboard_settings_as_the_dashboard_does() {
    let (server, _clock) = server_with(|config| {
        config.clock = vantage::clock::Clock::system();
    })
    .await;
    let cli = Cli::new(server.base_url(), ENTERPRISE_WS, ENTERPRISE_ADMIN);
    let path = cli.config_file("[tui]\nthme = \"light\"\n");
    let env = [("VANTAGE_CONFIG", path.to_str().unwrap())];
    let run = doctor(&cli, &["--format", "json"], &env).await;
    let report: Value = serde_json::from_str(&run.stdout).expect(&run.stdout);
    run.expect(1);
    let dashboard = check(&report, "dashboard");
    assert_eq!(dashboard["status"], "fail", "{dashboard}");
    assert!(
        dashboard["detail"]
            .as_str()
            .unwrap()
            .ends_with("[tui] thme: unknown field `thme`, expected `theme` or `refresh_secs`"),
        "{dashboard}"
    );
    cli.config_file("[tui]\nrefresh_secs = 30\n[keys]\nquit = \"x\"\n");
    let run = doctor(&cli, &["--format", "json"], &env).await;
    let report: Value = serde_json::from_str(&run.stdout).expect(&run.stdout);
    run.expect(0);
    let dashboard = check(&report, "dashboard");
    assert_eq!(dashboard["status"], "ok", "{dashboard}");
    let detail = dashboard["detail"].as_str().unwrap();
    assert!(
        detail.starts_with("[tui] theme = dark, refresh_secs = 30"),
        "{dashboard}"
    );
    server.stop().await;
}

/// A key the service refuses: exit 1, the api check fails with its fix, and
/// the wrong key is not printed either.
#[tokio::test(flavor = "multi_thread")]
async fn doctor_with_a_refused_key_exits_1_without_printing_it() {
    let (server, _clock) = demo_server().await;
    let wrong = "vtg_wrong_secret_key_0123456789";
    let cli = Cli::new(server.base_url(), ENTERPRISE_WS, wrong);
    let run = doctor(&cli, &["--format", "json"], &[]).await;
    never_the_key(&run, wrong);
    let report: Value = serde_json::from_str(&run.stdout).expect(&run.stdout);
    run.expect(1);
    assert_shape(&report);
    assert_eq!(report["ok"], false);
    let api = check(&report, "api");
    assert_eq!(api["status"], "fail", "{api}");
    assert!(api["fix"].as_str().unwrap().contains("key"), "{api}");
    server.stop().await;
}

/// A workspace the key does not reach: the workspace check fails, naming it.
#[tokio::test(flavor = "multi_thread")]
async fn doctor_names_a_workspace_the_key_does_not_reach() {
    let (server, _clock) = server_with(|config| {
        config.clock = vantage::clock::Clock::system();
    })
    .await;
    let cli = Cli::new(server.base_url(), "ws_nowhere", ENTERPRISE_ADMIN);
    let run = doctor(&cli, &["--format", "json"], &[]).await;
    let report: Value = serde_json::from_str(&run.stdout).expect(&run.stdout);
    run.expect(1);
    assert_shape(&report);
    let workspace = check(&report, "workspace");
    assert_eq!(workspace["status"], "fail", "{workspace}");
    assert!(workspace["detail"].as_str().unwrap().contains("ws_nowhere"));
    server.stop().await;
}

/// A service whose `Date` is three days from this host's clock: the clock
/// check fails with its fix.
#[tokio::test(flavor = "multi_thread")]
async fn doctor_names_a_clock_days_away_from_the_service() {
    let away = std::time::SystemTime::now() - std::time::Duration::from_secs(3 * 86_400);
    let date = httpdate::fmt_http_date(away);
    let app = axum::Router::new().fallback(move || {
        let date = date.clone();
        async move {
            (
                [
                    ("content-type", "application/json".to_owned()),
                    ("date", date),
                ],
                r#"{"data":[],"pagination":{"has_more":false}}"#,
            )
        }
    });
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    let cli = Cli::new(format!("http://{address}"), ENTERPRISE_WS, ENTERPRISE_ADMIN);
    let run = doctor(&cli, &["--format", "json"], &[]).await;
    let report: Value = serde_json::from_str(&run.stdout).expect(&run.stdout);
    run.expect(1);
    let clock = check(&report, "clock");
    assert_eq!(clock["status"], "fail", "{clock}");
    assert!(
        clock["detail"].as_str().unwrap().contains("ahead"),
        "{clock}"
    );
    assert!(clock["fix"].as_str().unwrap().contains("synchronise"));
}

/// No base URL anywhere: the connection check fails and says how to set one.
#[tokio::test]
async fn doctor_without_a_base_url_says_how_to_set_one() {
    let mut cli = Cli::new("", ENTERPRISE_WS, ENTERPRISE_ADMIN);
    cli.base_url = String::new();
    let run = tokio::process::Command::new(env!("CARGO_BIN_EXE_vantage"))
        .args(["doctor", "--format", "json"])
        .env_clear()
        .env("HOME", cli.home.path())
        .env("SERVICE_API_KEY", ENTERPRISE_ADMIN)
        .output()
        .await
        .unwrap();
    let stdout = String::from_utf8_lossy(&run.stdout);
    assert_eq!(run.status.code(), Some(1), "{stdout}");
    assert!(!stdout.contains(ENTERPRISE_ADMIN));
    let report: Value = serde_json::from_str(&stdout).unwrap();
    let connection = check(&report, "connection");
    assert_eq!(connection["status"], "fail");
    assert!(
        connection["fix"]
            .as_str()
            .unwrap()
            .contains("VANTAGE_BASE_URL")
    );
}

/// A shared history: its TLS mode and schema version are checked, read only;
/// one a newer vantage wrote fails the history check (exit 1), naming both
/// versions, and the database's password never shows.
#[tokio::test(flavor = "multi_thread")]
async fn doctor_checks_a_shared_history_and_refuses_a_newer_schema() {
    let (server, _clock) = server_with(|config| {
        config.clock = vantage::clock::Clock::system();
    })
    .await;
    let shared = crate::cli::stores::database_store();
    let url = shared.url.clone().unwrap();
    let cli = Cli::new(server.base_url(), ENTERPRISE_WS, ENTERPRISE_ADMIN);
    let password = "pg_secret_password_42";
    let env = [
        ("VANTAGE_HISTORY_URL", url.as_str()),
        ("PGPASSWORD", password),
    ];
    let run = doctor(&cli, &["--format", "json"], &env).await;
    assert!(!run.stdout.contains(password));
    let report: Value = serde_json::from_str(&run.stdout).expect(&run.stdout);
    run.expect(0);
    let history = check(&report, "history");
    assert_eq!(history["status"], "ok", "{history}");
    assert!(
        history["detail"].as_str().unwrap().contains("empty"),
        "{history}"
    );
    check(&report, "history tls");
    assert_eq!(
        shared.count("information_schema.tables WHERE table_name = 'snapshot'"),
        0,
        "doctor migrated nothing"
    );
    crate::cli::stores::off_runtime(|| drop(shared.open()));
    shared.execute(
        "",
        "UPDATE vantage_meta SET value = 99 WHERE key = 'schema_version'",
    );
    let run = doctor(&cli, &["--format", "json"], &env).await;
    let report: Value = serde_json::from_str(&run.stdout).expect(&run.stdout);
    run.expect(1);
    let history = check(&report, "history");
    assert_eq!(history["status"], "fail", "{history}");
    assert!(
        history["detail"]
            .as_str()
            .unwrap()
            .contains("schema version 99"),
        "{history}"
    );
    assert!(history["fix"].as_str().unwrap().contains("upgrade vantage"));
    server.stop().await;
}
