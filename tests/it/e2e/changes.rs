//! End to end: the review history in the real `vantage demo`. The history is
//! prepared as `vantage snapshot` would (the walk, then the store), against the
//! same demo data with a rename in between; the demo then runs on a slow
//! service (`VANTAGE_DEMO_FAULTS`), so the snapshot's data must be on screen
//! before the live replies, and the Changes screen shows the rename.

use std::path::Path;

use vantage::api::model::ProjectUpdate;
use vantage::api::{ApiKey, Client, ClientConfig, InventoryParams};
use vantage::history::walk::{self, WalkOptions};
use vantage::history::{Retention, Store};
use vantage::server::seed;
use vantage::server::{self as reference, ServerConfig};

use crate::e2e::support::Session;

const RENAMED: &str = "Renamed between snapshots";

/// Two snapshots of the demo workspace with the first project renamed
/// between them; returns the project's old name.
fn prepare_history(path: &Path) -> String {
    let runtime = tokio::runtime::Runtime::new().expect("a runtime");
    runtime.block_on(async {
        let anchor = seed::today_anchor(time::OffsetDateTime::now_utc());
        let fixture = seed::demo_fixture(anchor).expect("the demo data");
        let key = fixture
            .keys
            .iter()
            .find(|key| key.label == "enterprise-admin")
            .expect("the demo key")
            .clone();
        let server = reference::start(ServerConfig::local(fixture))
            .await
            .expect("the reference server");
        let client = Client::new(ClientConfig::new(
            server.base_url(),
            ApiKey::new(key.key.clone()).expect("a key"),
        ))
        .expect("a client");
        let workspace = key.workspace_id.as_str();
        let options = WalkOptions {
            detail_requests: 20,
            window: std::time::Duration::from_secs(60),
            reserve: None,
        };
        let mut store = Store::open(path).expect("the history file");
        let now = || time::OffsetDateTime::now_utc();
        let (first, _) = walk::capture(&client, workspace, None, options, now, |_| {})
            .await
            .expect("the first walk");
        store
            .record(&first, Retention::default())
            .expect("recorded");
        let page = client
            .list_inventory(workspace, &InventoryParams::default(), None)
            .await
            .expect("the inventory");
        let project = page.data.first().expect("a project");
        let old_name = project.name.clone().unwrap_or_default();
        client
            .update_project(
                &project.id,
                &ProjectUpdate {
                    name: Some(RENAMED.into()),
                    visibility: None,
                },
            )
            .await
            .expect("renamed");
        let latest = store.latest_snapshot(workspace).unwrap().unwrap();
        let previous = store.load(&latest).unwrap();
        let (second, _) = walk::capture(&client, workspace, Some(&previous), options, now, |_| {})
            .await
            .expect("the second walk");
        store
            .record(&second, Retention::default())
            .expect("recorded");
        server.stop().await;
        old_name
    })
}

#[test]
fn the_instant_start_shows_the_snapshot_before_the_live_reply_and_the_changes_screen_the_rename() {
    let dir = tempfile::tempdir().expect("a temp dir");
    let history = dir.path().join("history.sqlite3");
    let old_name = prepare_history(&history);
    let history = history.to_string_lossy().into_owned();
    let mut tui = Session::start_with_env(
        &["demo"],
        &[
            ("VANTAGE_DEMO_HISTORY", history.as_str()),
            // Every reply of the service takes 3 s.
            ("VANTAGE_DEMO_FAULTS", "latency=3000..3000ms"),
        ],
        120,
        35,
    );
    // The first frame: the snapshot's insights, marked, while the live reply is on its way.
    let first = tui.wait_for("the snapshot's insights", |s| {
        s.contains("from snapshot") && s.contains("Risk distribution")
    });
    assert!(first.contains("from snapshot, 0 min ago"), "{first}");
    // The live reply replaces it, and the label goes.
    tui.wait_for("the live insights", |s| !s.contains("from snapshot"));

    // 7: the changes between the two snapshots, the rename among them.
    tui.send("7");
    let changes = tui.wait_for("the rename", |s| s.contains("renamed"));
    assert!(changes.contains(RENAMED), "{changes}");
    assert!(
        changes.contains(&format!("{old_name} → {RENAMED}")) || changes.contains(&old_name),
        "{changes}"
    );
    tui.send("q");
    assert!(tui.wait_exit().success());
}
