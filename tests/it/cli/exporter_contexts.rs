//! `vantage exporter --context A --context B`: one poller per context, one
//! scrape with every series labelled by its context, each family once.

use std::collections::BTreeMap;
use std::time::Duration;

use serde_json::Value;
use tokio::net::TcpListener;
use vantage::exporter::{Budget, ExporterArgs, PollPlan, Target};
use vantage::session::{GlobalArgs, SessionError};

use crate::cli::support::Cli;
use crate::common::*;

fn samples(text: &str) -> BTreeMap<String, f64> {
    text.lines()
        .filter(|line| !line.starts_with('#') && !line.is_empty())
        .map(|line| {
            let (series, value) = line.rsplit_once(' ').expect("a sample line");
            (series.to_owned(), value.parse().expect("a number"))
        })
        .collect()
}

fn plan(workspace: &str, inventory: bool) -> PollPlan {
    PollPlan {
        workspace: workspace.to_owned(),
        watch: Vec::new(),
        interval: Duration::from_secs(3600),
        inventory_interval: inventory.then_some(Duration::from_secs(3600)),
        names_interval: Duration::from_secs(3600),
        budget: Budget::default(),
    }
}

/// A config file with two contexts on `base_url`, keys in the file (mode 0600).
fn config(dir: &tempfile::TempDir, base_url: &str) -> std::path::PathBuf {
    let path = dir.path().join("config.toml");
    let text = format!(
        "[contexts.acme]\nbase_url = \"{base_url}\"\napi_key = \"{ENTERPRISE_ADMIN}\"\nworkspace_id = \"{ENTERPRISE_WS}\"\n\n\
         [contexts.globex]\nbase_url = \"{base_url}\"\napi_key = \"{BUSINESS_ADMIN}\"\nworkspace_id = \"{BUSINESS_WS}\"\n"
    );
    std::fs::write(&path, text).expect("write");
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600)).expect("chmod");
    path
}

#[tokio::test(flavor = "multi_thread")]
async fn two_contexts_are_served_side_by_side() {
    let (server, clock) = demo_server().await;
    let dir = tempfile::tempdir().expect("tempdir");
    let global = GlobalArgs {
        config: Some(config(&dir, &server.base_url())),
        context: vec!["acme".into(), "globex".into()],
        ..GlobalArgs::default()
    };
    // What `vantage exporter --context acme --context globex` connects.
    let sessions = vantage::exporter::connect_contexts(&global).expect("connects");
    let targets: Vec<Target> = sessions
        .into_iter()
        .map(|(context, session)| {
            let workspace = session.workspace().expect("workspace").to_owned();
            // The business plan has no inventory: walk only acme's.
            let inventory = workspace == ENTERPRISE_WS;
            Target {
                context,
                client: session.client,
                plan: plan(&workspace, inventory),
            }
        })
        .collect();
    assert_eq!(targets.len(), 2);
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let mut exporter =
        vantage::exporter::start_many(targets, clock.clone(), listener).expect("starts");
    exporter.wait_for_cycles(1).await;
    let text = http()
        .get(exporter.metrics_url())
        .send()
        .await
        .expect("scrape")
        .text()
        .await
        .expect("body");
    let scraped = samples(&text);

    // Each context's numbers are its own workspace's, as `vantage insights` says.
    for (context, workspace, key) in [
        ("acme", ENTERPRISE_WS, ENTERPRISE_ADMIN),
        ("globex", BUSINESS_WS, BUSINESS_ADMIN),
    ] {
        let cli = Cli::new(server.base_url(), workspace, key);
        let run = cli.run(&["insights", "--format", "json"]).await.expect(0);
        let insights: Value = serde_json::from_str(&run.stdout).expect("json");
        let series = format!("vantage_projects{{context=\"{context}\",workspace=\"{workspace}\"}}");
        assert_eq!(
            scraped.get(&series).copied().map(|v| v as i64),
            insights["summary"]["total_projects"]["value"].as_i64(),
            "{series} in\n{text}"
        );
        // Each has its own client, so its own request count and budget.
        let requests = format!(
            "vantage_client_requests_total{{context=\"{context}\",workspace=\"{workspace}\",code=\"200\"}}"
        );
        let expected = if context == "acme" { 2 } else { 1 }; // insights (+ one inventory page)
        assert_eq!(
            scraped.get(&requests).copied(),
            Some(expected as f64),
            "{requests}"
        );
        assert!(
            scraped.contains_key(&format!(
                "vantage_rate_limit_remaining{{context=\"{context}\",workspace=\"{workspace}\"}}"
            )),
            "{text}"
        );
    }
    // Every sample of a context's data names its context (the process and
    // build series are the exporter's own), and each family is described once.
    let exporters_own = |series: &str| {
        series.starts_with("process_") || series.starts_with("vantage_exporter_build_info")
    };
    for series in scraped.keys().filter(|series| !exporters_own(series)) {
        assert!(series.contains("context=\""), "{series}");
    }
    let mut types: Vec<&str> = text.lines().filter(|l| l.starts_with("# TYPE ")).collect();
    let all = types.len();
    types.sort_unstable();
    types.dedup();
    assert_eq!(types.len(), all, "a family described twice in\n{text}");
    let health = http()
        .get(format!("http://{}/healthz", exporter.addr))
        .send()
        .await
        .expect("healthz");
    assert_eq!(
        health.text().await.expect("body"),
        "ok: acme: all sources up; 1 poll cycles; globex: all sources up; 1 poll cycles\n"
    );
    exporter.stop();
    crate::cli::exporter::promtool_check_metrics(&text);
    server.stop().await;
}

#[test]
fn several_contexts_refuse_flags_that_name_one_connection() {
    let dir = tempfile::tempdir().expect("tempdir");
    let config = config(&dir, "http://127.0.0.1:9");
    let several = |extra: fn(&mut GlobalArgs)| {
        let mut global = GlobalArgs {
            config: Some(config.clone()),
            context: vec!["acme".into(), "globex".into()],
            ..GlobalArgs::default()
        };
        extra(&mut global);
        vantage::exporter::connect_contexts(&global).map(|_| ())
    };
    let shown = several(|g| g.base_url = Some("https://x.example".into()))
        .unwrap_err()
        .to_string();
    assert!(
        shown.starts_with("--base-url names one connection"),
        "{shown}"
    );
    let shown = several(|g| g.context.push("acme".into()))
        .unwrap_err()
        .to_string();
    assert_eq!(shown, "--context acme is given twice");
    let unknown = several(|g| g.context.push("initech".into())).unwrap_err();
    assert!(matches!(unknown, SessionError::Settings(_)), "{unknown}");
    assert!(unknown.to_string().contains("known contexts: acme, globex"));
    // --watch CONTEXT:ID watches in that context only; a bare id in each.
    #[derive(clap::Parser)]
    struct Exporter {
        #[command(flatten)]
        args: ExporterArgs,
    }
    let args = <Exporter as clap::Parser>::parse_from([
        "exporter",
        "--watch",
        "acme:prj_a,prj_both,globex:prj_g",
    ])
    .args;
    let acme = vantage::exporter::context_plan(&args, Some("acme"), "ws".into());
    assert_eq!(acme.watch, ["prj_a", "prj_both"]);
}

#[tokio::test]
async fn other_commands_take_one_context() {
    let cli = Cli::new("http://127.0.0.1:9", ENTERPRISE_WS, ENTERPRISE_ADMIN);
    let run = cli
        .run(&["--context", "a", "--context", "b", "insights"])
        .await
        .expect(3);
    assert!(
        run.stderr
            .contains("only `vantage exporter` serves several contexts"),
        "{}",
        run.stderr
    );
}
