//! Issue 33, item 11: the dashboard never loses sight of its own marks. A
//! second store opened beside the first (the dashboard opens one per request
//! while another runs, and one for `data_version`) must not drop the locks
//! SQLite holds on `history.sqlite3`: an outside reader that opens and closes
//! the file then finds another connection, and leaves the WAL alone; marks
//! written afterwards are on disk where every reader sees them.

use std::process::Command;

use serde_json::Value;
use vantage::history::{HistoryLocation, Store};

use crate::cli::history::{capture, offline_mark, project};
use crate::cli::support::Cli;

#[tokio::test(flavor = "multi_thread")]
async fn marks_stay_visible_after_an_outside_reader_closes_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("history.sqlite3");
    let location = HistoryLocation::File(path.clone());
    // The dashboard's kept store, then a second one beside it.
    let mut kept = Store::open_at(&location).unwrap();
    kept.record(
        &capture(
            crate::common::T0,
            vec![project("p1", "a"), project("p2", "b")],
            vec![],
        ),
        Default::default(),
    )
    .unwrap();
    let second = Store::open_at(&location).unwrap();
    // An outside reader (another process) opens the file and closes it.
    let outside = Command::new("sqlite3")
        .arg(&path)
        .arg("SELECT COUNT(*) FROM snapshot;")
        .output()
        .expect("sqlite3 runs");
    assert!(outside.status.success(), "{outside:?}");
    // The dashboard marks two projects; every reader must see them.
    for id in ["p1", "p2"] {
        kept.mark_reviewed("ws_x", &offline_mark(id, Some("fine")), crate::common::T0)
            .unwrap();
    }
    let cli = Cli::new("http://127.0.0.1:9", "ws_x", "unused");
    let list = cli
        .run(&[
            "reviewed",
            "list",
            "-o",
            "json",
            "--history",
            path.to_str().unwrap(),
        ])
        .await
        .expect(0);
    let list: Vec<Value> = serde_json::from_str(&list.stdout).unwrap();
    let ids: Vec<&str> = list
        .iter()
        .filter_map(|mark| mark["project_id"].as_str())
        .collect();
    assert_eq!(ids, ["p1", "p2"], "the marks the dashboard shows");
    drop(second);
    drop(kept);
}

/// Issue 39, row 22f: each snapshot is copied from the WAL into the file as
/// it is recorded. SQLite's own checkpoint waits for 1,000 pages in the WAL:
/// a snapshot of 20,000 projects writes about 700, so every other day's
/// recording paid for two, and a median of five days measured 1.2 times
/// another's depending only on where those fell.
#[test]
fn each_snapshot_is_in_the_file_itself_once_recorded() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("history.sqlite3");
    let mut store = Store::open(&path).unwrap();
    for day in 0..3_i64 {
        let at = crate::common::T0 + time::Duration::days(day);
        let projects = vec![project("p1", &format!("day {day}")), project("p2", "same")];
        store
            .record(&capture(at, projects, vec![]), Default::default())
            .unwrap();
        // The file alone, without its WAL, while the store is still open.
        let copy = dir.path().join(format!("copy-{day}.sqlite3"));
        std::fs::copy(&path, &copy).unwrap();
        let snapshots: i64 = rusqlite::Connection::open(&copy)
            .unwrap()
            .query_row("SELECT COUNT(*) FROM snapshot", [], |row| row.get(0))
            .unwrap();
        assert_eq!(snapshots, day + 1, "the file after day {day}");
    }
}
