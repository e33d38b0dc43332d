//! Issue 38: the exporter's `vantage_policy_violations{policy,severity}` and
//! `vantage_policy_waived{policy}`, evaluated off the scrape path on the
//! review history's newest snapshot with the policies `vantage check` loads
//! (`policy::files::load`): a teammate's waiver on the shared database shows
//! within the minute's check, an expired one stops counting by itself, and
//! nothing is evaluated again while nothing changed. `vantage_policy_unknown
//! {policy}` counts the projects a policy could not judge on the snapshot.

use std::time::Duration;

use futures::TryStreamExt;
use time::OffsetDateTime;
use vantage::api::model::InventoryItem;
use vantage::api::{ApiKey, Client, ClientConfig, InventoryParams};
use vantage::exporter::policy::{PolicyPlan, PolicyWatch};
use vantage::exporter::poller::Poller;
use vantage::exporter::{Budget, Cache, PollPlan};
use vantage::history::waivers::NewWaiver;
use vantage::history::{Capture, ProjectState};

use crate::cli::exporter::{exporter, promtool_check_metrics};
use crate::cli::history::{capture, project};
use crate::cli::stores::{TestStore, database_store, file_store, off_runtime};
use crate::common::*;

const NAMING: &str = r#"package team.naming
import rego.v1
__rego_metadata__ := {"id": "team_naming", "title": "Names", "severity": "high",
  "description": "No project named bad.", "remediation": "Rename it."}
deny contains {"project": p.id, "msg": "a bad name"} if {
  some p in input.projects
  contains(p.name, "bad")
}
"#;

/// The team's policy as a file, loaded as `vantage check --policy DIR` loads it.
fn plan(on: &TestStore, dir: &std::path::Path, every: Duration) -> PolicyPlan {
    std::fs::write(dir.join("naming.rego"), NAMING).unwrap();
    let (sources, _) = vantage::policy::files::load(&[dir.to_path_buf()], None).unwrap();
    PolicyPlan {
        sources,
        location: on.location.clone(),
        every,
    }
}

fn snapshot_of_three(on: &TestStore, at: OffsetDateTime) {
    off_runtime(|| {
        on.open()
            .record(
                &Capture {
                    workspace_id: ENTERPRISE_WS.into(),
                    ..capture(
                        at,
                        vec![
                            project("p1", "bad one"),
                            project("p2", "bad two"),
                            project("p3", "good"),
                        ],
                        vec![],
                    )
                },
                Default::default(),
            )
            .unwrap();
    });
}

async fn scraped(exporter: &vantage::exporter::RunningExporter) -> String {
    http()
        .get(exporter.metrics_url())
        .send()
        .await
        .expect("scrape")
        .text()
        .await
        .expect("body")
}

fn has(text: &str, line: &str) -> bool {
    text.lines().any(|found| found == line)
}

const VIOLATIONS: &str = "vantage_policy_violations{policy=\"team_naming\",severity=\"high\"}";
const WAIVED: &str = "vantage_policy_waived{policy=\"team_naming\"}";

/// Done when: the scrape shows each policy's violations and waived ones
/// from the newest snapshot; a waiver a teammate records on the shared
/// database shows at the next minute's check; the figures are not made
/// again while the history, the clock's interval and the waivers' ends
/// stand still; the waiver's end brings the violation back by itself.
#[tokio::test(flavor = "multi_thread")]
async fn policy_metrics_follow_the_history_and_a_teammates_waiver_within_a_minute() {
    let (server, clock) = demo_server().await;
    let exporter = exporter(&server, &clock, vec![]).await;
    let shared = database_store();
    snapshot_of_three(&shared, T0);
    let dir = tempfile::tempdir().unwrap();
    // A day between evaluations: only a change or an expiry makes one sooner.
    let plan = plan(&shared, dir.path(), Duration::from_secs(86_400));
    let mut watch = PolicyWatch::new(plan, ENTERPRISE_WS.into(), exporter.cache.clone());
    let start = T0 + time::Duration::hours(1);
    let (evaluated, watch_back) = off_runtime(move || (watch.step(start), watch));
    watch = watch_back;
    assert!(evaluated);
    let text = scraped(&exporter).await;
    assert!(has(&text, &format!("{VIOLATIONS} 2")), "{text}");
    assert!(has(&text, &format!("{WAIVED} 0")), "{text}");
    assert!(
        has(&text, "vantage_policy_evaluation_errors_total 0"),
        "{text}"
    );
    assert!(
        text.contains("# HELP vantage_policy_violations Violations of each policy that no standing waiver covers"),
        "{text}"
    );
    promtool_check_metrics(&text);

    let minute = time::Duration::minutes(1);
    let (again, watch_back) = off_runtime(move || (watch.step(start + minute), watch));
    watch = watch_back;
    assert!(!again, "nothing changed: no evaluation");

    let until = start + time::Duration::hours(2);
    off_runtime(|| {
        shared
            .open()
            .add_waiver(
                ENTERPRISE_WS,
                &NewWaiver {
                    policy_id: "team_naming".into(),
                    project_id: "p1".into(),
                    reason: "renaming next sprint".into(),
                    until,
                    by: Some("grace".into()),
                },
                start + minute + time::Duration::seconds(10),
            )
            .unwrap();
    });
    let (seen, watch_back) = off_runtime(move || (watch.step(start + minute * 2), watch));
    watch = watch_back;
    assert!(seen, "the teammate's waiver moved the history: evaluated");
    let text = scraped(&exporter).await;
    assert!(has(&text, &format!("{VIOLATIONS} 1")), "{text}");
    assert!(has(&text, &format!("{WAIVED} 1")), "{text}");

    let (before_end, watch_back) = off_runtime(move || (watch.step(until - minute), watch));
    watch = watch_back;
    assert!(!before_end);
    let (expired, _) = off_runtime(move || (watch.step(until), watch));
    assert!(expired, "the waiver's end is a change of its own");
    let text = scraped(&exporter).await;
    assert!(has(&text, &format!("{VIOLATIONS} 2")), "{text}");
    assert!(has(&text, &format!("{WAIVED} 0")), "{text}");
    exporter.stop();
}

/// Issue 38: a snapshot keeps no scan times, so on the snapshot alone (here
/// the one walk ended before the watch began, so it kept no rows)
/// `stale_scan` cannot judge a published project: `vantage_policy_unknown{policy}` counts them
/// beside the violations (0 for stale_scan, never read as all clear) and
/// every other policy's 0, with its HELP text; promtool reads it.
#[tokio::test(flavor = "multi_thread")]
async fn policy_unknown_counts_the_projects_a_policy_could_not_judge() {
    let (server, clock) = demo_server().await;
    let exporter = exporter(&server, &clock, vec![]).await;
    let local = file_store();
    let published = |id: &str, name: &str| vantage::history::ProjectState {
        is_published: true,
        audience: Some("workspace".into()),
        ..project(id, name)
    };
    off_runtime(|| {
        local
            .open()
            .record(
                &Capture {
                    workspace_id: ENTERPRISE_WS.into(),
                    ..capture(
                        T0,
                        vec![
                            published("p1", "one"),
                            published("p2", "two"),
                            project("p3", "three"),
                        ],
                        vec![],
                    )
                },
                Default::default(),
            )
            .unwrap();
    });
    let (sources, _) = vantage::policy::files::load(&[], None).unwrap();
    let plan = PolicyPlan {
        sources,
        location: local.location.clone(),
        every: Duration::from_secs(600),
    };
    let mut watch = PolicyWatch::new(plan, ENTERPRISE_WS.into(), exporter.cache.clone());
    assert!(off_runtime(
        move || watch.step(T0 + time::Duration::hours(1))
    ));
    let text = scraped(&exporter).await;
    assert!(
        has(&text, "vantage_policy_unknown{policy=\"stale_scan\"} 2"),
        "{text}"
    );
    assert!(
        has(
            &text,
            "vantage_policy_violations{policy=\"stale_scan\",severity=\"high\"} 0"
        ),
        "{text}"
    );
    assert!(
        has(&text, "vantage_policy_unknown{policy=\"review_current\"} 0"),
        "{text}"
    );
    assert!(
        text.contains("# HELP vantage_policy_unknown Projects each policy could not judge"),
        "{text}"
    );
    assert!(
        text.contains("# TYPE vantage_policy_unknown gauge"),
        "{text}"
    );
    promtool_check_metrics(&text);
    exporter.stop();
}

/// A snapshot keeps no scan times, but the exporter's inventory walk reads
/// them: once a walk has read every project, its rows lie over the newest
/// snapshot and `stale_scan` judges each published project, as `vantage
/// check` does live. Before, the exporter read the snapshot alone and every
/// published project was "not judged" there, with 0 violations.
#[tokio::test(flavor = "multi_thread")]
async fn the_inventory_walk_lets_stale_scan_judge_what_the_snapshot_cannot() {
    let (server, clock) = demo_server().await;
    let client = Client::new(ClientConfig::new(
        server.base_url(),
        ApiKey::new(ENTERPRISE_ADMIN).expect("key"),
    ))
    .expect("client");
    let items: Vec<InventoryItem> = client
        .inventory_stream(ENTERPRISE_WS, InventoryParams::default())
        .try_collect()
        .await
        .expect("inventory");
    let local = file_store();
    let states = items.iter().map(ProjectState::from_item).collect();
    off_runtime(|| {
        local
            .open()
            .record(
                &Capture {
                    workspace_id: ENTERPRISE_WS.into(),
                    ..capture(T0, states, vec![])
                },
                Default::default(),
            )
            .unwrap();
    });
    let (sources, _) = vantage::policy::files::load(&[], None).unwrap();
    let plan = PolicyPlan {
        sources,
        location: local.location.clone(),
        every: Duration::from_secs(600),
    };
    let cache = Cache::default();
    // The watch first, as the exporter starts it: the walk keeps its rows then.
    let mut watch = PolicyWatch::new(plan, ENTERPRISE_WS.into(), cache.clone());
    let poll = PollPlan {
        workspace: ENTERPRISE_WS.into(),
        watch: vec![],
        interval: Duration::from_secs(60),
        inventory_interval: Some(Duration::from_secs(600)),
        names_interval: Duration::from_secs(600),
        budget: Budget::default(),
    };
    let (cycles, _) = tokio::sync::watch::channel(0);
    Poller::new(client, poll, cache.clone(), clock.clone(), cycles)
        .cycle()
        .await;
    let now = clock.now();
    let (evaluated, _) = off_runtime(move || (watch.step(now), watch));
    assert!(evaluated);

    // The rule, restated over what the service sent: published, and never
    // scanned or scanned more than 14 days before.
    let stale = items
        .iter()
        .filter(|item| item.is_published)
        .filter(|item| {
            item.last_security_scan_at
                .is_none_or(|at| now - at > time::Duration::days(14))
        })
        .count();
    assert!(stale > 0, "the demo has stale published projects");
    let tally = cache.snapshot().policy.expect("evaluated");
    let stale_scan = tally
        .policies
        .iter()
        .find(|count| count.policy == "stale_scan")
        .expect("stale_scan");
    assert_eq!(
        (stale_scan.failing, stale_scan.unknown),
        (stale as i64, 0),
        "{tally:?}"
    );
}

/// Done when: a history without a snapshot of the workspace is a counted
/// failure and no figure, never a zero that would read as "no violation".
#[test]
fn without_a_snapshot_nothing_is_shown_and_the_failure_is_counted() {
    let local = file_store();
    let dir = tempfile::tempdir().unwrap();
    let cache = Cache::default();
    let mut watch = PolicyWatch::new(
        plan(&local, dir.path(), Duration::from_secs(600)),
        ENTERPRISE_WS.into(),
        cache.clone(),
    );
    assert!(!watch.step(T0));
    assert!(!watch.step(T0 + time::Duration::minutes(1)));
    let snapshot = cache.snapshot();
    assert_eq!(snapshot.policy, None);
    assert_eq!(snapshot.policy_errors, 2);
}

/// The built-in pack evaluated once into `cache`, on a snapshot of three
/// projects: every `vantage_policy_*` family is then in a scrape.
pub(crate) fn evaluate_the_pack_once(cache: &Cache) {
    let local = file_store();
    snapshot_of_three(&local, T0);
    let (sources, _) = vantage::policy::files::load(&[], None).unwrap();
    let plan = PolicyPlan {
        sources,
        location: local.location.clone(),
        every: Duration::from_secs(600),
    };
    let mut watch = PolicyWatch::new(plan, ENTERPRISE_WS.into(), cache.clone());
    assert!(off_runtime(
        move || watch.step(T0 + time::Duration::hours(1))
    ));
}
