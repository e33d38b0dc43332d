//! Issue 38: a waiver is an entry of the team's review log, as a mark is:
//! chained by sha256 to the entry before it, append-only in the store itself
//! (on PostgreSQL stamped with the role that wrote it), listed by `reviewed
//! log` and checked by `reviewed log --verify`. A teammate on the same
//! database sees it on their next read, and their minute's poll of the
//! store's revision notices it. A history from before keeps its waivers,
//! moved into the log.

use std::path::PathBuf;

use serde_json::Value;
use time::macros::datetime;
use vantage::history::waivers::{NewWaiver, Waiver, standing};
use vantage::history::{HistoryLocation, LogRead};

use crate::cli::history::offline_mark;
use crate::cli::review_audit::{as_role, reviewed};
use crate::cli::stores::{TestStore, database_store, each_store, file_store, off_runtime};
use crate::common::*;

const UNTIL: time::OffsetDateTime = datetime!(2099-01-01 00:00:00 UTC);

fn waiver(policy: &str, project: &str, reason: &str) -> NewWaiver {
    NewWaiver {
        policy_id: policy.into(),
        project_id: project.into(),
        reason: reason.into(),
        until: UNTIL,
        by: Some("ada".into()),
    }
}

/// A mark of p1, then a waiver of `stale_scan` for p1, written by one
/// teammate; the other's store was open before the waiver and reads it.
fn marked_then_waived(on: &TestStore) {
    off_runtime(|| {
        let mut mine = on.open();
        let theirs = on.open();
        mine.mark_reviewed(ENTERPRISE_WS, &offline_mark("p1", Some("fine")), T0)
            .unwrap();
        let before = theirs.data_version().unwrap();
        mine.add_waiver(
            ENTERPRISE_WS,
            &waiver("stale_scan", "p1", "scanner outage, SEC-12"),
            T0 + time::Duration::minutes(5),
        )
        .unwrap();
        let seen = standing(theirs.all_waivers(ENTERPRISE_WS).unwrap());
        assert_eq!(seen.len(), 1, "{}: the teammate reads it", on.name());
        assert_eq!(seen[0].reason, "scanner outage, SEC-12");
        assert_eq!(seen[0].until, UNTIL);
        if on.name() == "database" {
            assert_ne!(
                theirs.data_version().unwrap(),
                before,
                "the revision a teammate's dashboard polls each minute moved"
            );
        }
    });
}

/// Done when: `reviewed log` lists the waiver after the mark (who, when,
/// the policy, until when, the reason as its note), the mark still stands,
/// and `--verify` passes both entries; a superuser who moves the waiver's
/// end date around the triggers is named by `--verify`. Both stores.
#[tokio::test(flavor = "multi_thread")]
async fn a_waiver_is_an_entry_of_the_chained_review_log_on_both_stores() {
    for on in each_store() {
        let name = on.name();
        marked_then_waived(&on);
        let log = reviewed(&on, &["log", "--format", "json"]).await;
        assert_eq!(log.code, 0, "{name}: {}", log.stderr);
        let entries: Value = serde_json::from_str(&log.stdout).unwrap();
        let entries = entries.as_array().unwrap();
        assert_eq!(entries.len(), 2, "{name}: {entries:?}");
        let waived = &entries[1];
        assert_eq!(waived["action"], "waive", "{name}: {waived}");
        assert_eq!(waived["project_id"], "p1");
        assert_eq!(waived["policy_id"], "stale_scan", "{name}: {waived}");
        assert_eq!(waived["until"], "2099-01-01T00:00:00.000Z", "{name}");
        assert_eq!(waived["note"], "scanner outage, SEC-12");
        let who = if name == "database" { "vantage" } else { "ada" };
        assert_eq!(waived["reviewer"], who, "{name}: {waived}");
        let table = reviewed(&on, &["log", "--format", "table"]).await;
        assert!(
            table.stdout.contains("waive") && table.stdout.contains("stale_scan"),
            "{name}: {}",
            table.stdout
        );

        let marks = reviewed(&on, &["list", "--format", "json"]).await;
        let marks: Value = serde_json::from_str(&marks.stdout).unwrap();
        assert_eq!(marks.as_array().unwrap().len(), 1, "{name}: {marks}");
        assert_eq!(marks[0]["project_id"], "p1", "{name}: the mark stands");

        let intact = reviewed(&on, &["log", "--verify"]).await;
        assert_eq!(intact.code, 0, "{name}: {}", intact.stderr);
        assert!(
            intact.stderr.contains("2 entries"),
            "{name}: {}",
            intact.stderr
        );
        let sql = "UPDATE review SET until_ms = until_ms + 86400000 WHERE action = 'waive'";
        on.execute(
            &format!(
                "DROP TRIGGER review_append_only_update; DROP TRIGGER review_append_only_delete; {sql}"
            ),
            &format!("SET session_replication_role = replica; {sql}"),
        );
        let changed = reviewed(&on, &["log", "--verify"]).await;
        assert_ne!(changed.code, 0, "{name}: a moved end date passed");
        assert_ne!(changed.code, 101, "{name}: {}", changed.stderr);
        let id = entries[1]["id"].as_i64().unwrap();
        assert!(
            changed.stderr.contains(&format!("at entry {id}")),
            "{name}: the waiver's entry is named: {}",
            changed.stderr
        );
    }
}

/// Done when: a teammate with every grant can neither change, remove nor
/// forge a waiver's entry: PostgreSQL itself refuses, as for marks. The
/// file's triggers refuse a tool that writes to it.
#[tokio::test(flavor = "multi_thread")]
async fn the_store_refuses_to_change_or_remove_a_waiver() {
    let shared = database_store();
    marked_then_waived(&shared);
    shared.execute(
        "",
        "CREATE ROLE waiver_mallory LOGIN;
         GRANT ALL ON ALL TABLES IN SCHEMA public TO waiver_mallory;
         GRANT ALL ON ALL SEQUENCES IN SCHEMA public TO waiver_mallory;",
    );
    for sql in [
        "UPDATE review SET until_ms = until_ms + 1 WHERE action = 'waive'",
        "UPDATE review SET policy_id = 'other' WHERE action = 'waive'",
        "UPDATE review SET state_id = 1 WHERE action = 'waive'",
        "DELETE FROM review WHERE action = 'waive'",
    ] {
        let refused = as_role(&shared, "waiver_mallory", sql)
            .expect_err(&format!("the database refuses a teammate's {sql}"));
        assert!(refused.contains("append-only"), "{sql}: {refused}");
    }
    let forged = as_role(
        &shared,
        "waiver_mallory",
        "INSERT INTO review (workspace_id, project_id, action, at_ms, note, policy_id, until_ms, db_role)
         VALUES ('ws_acme', 'p9', 'waive', 0, 'x', 'stale_scan', 1, 'vantage')",
    )
    .expect_err("a waiver written as another role");
    assert!(forged.contains("waiver_mallory cannot write"), "{forged}");

    let local = file_store();
    marked_then_waived(&local);
    let HistoryLocation::File(path) = &local.location else {
        unreachable!()
    };
    let connection = rusqlite::Connection::open(path).unwrap();
    for sql in [
        "UPDATE review SET until_ms = until_ms + 1 WHERE action = 'waive'",
        "UPDATE review SET state_id = 1 WHERE action = 'waive'",
        "DELETE FROM review WHERE action = 'waive'",
    ] {
        let refused = connection
            .execute_batch(sql)
            .expect_err(&format!("the file refuses {sql}"));
        assert!(
            refused.to_string().contains("append-only"),
            "{sql}: {refused}"
        );
    }
    assert_eq!(local.count("review WHERE action = 'waive'"), 1);
}

fn fixture(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name)
}

/// Done when: a history whose waivers were kept apart (the file at version
/// 5, the database at version 4, written by that build: two marks, two
/// waivers) upgrades with every waiver kept as it was (policy, project,
/// reason, until, when, who), now entries of the log, which `--verify`
/// passes; the marks stand as before.
#[test]
fn waivers_of_the_previous_schema_move_into_the_log_whole() {
    let local = file_store();
    let HistoryLocation::File(path) = &local.location else {
        unreachable!()
    };
    std::fs::copy(fixture("history-v5-waivers.sqlite3"), path).unwrap();
    let shared = database_store();
    let dump = std::fs::read_to_string(fixture("history-pg-v4-waivers.sql")).unwrap();
    shared.execute("", &dump);
    for on in [local, shared] {
        let name = on.name();
        off_runtime(|| {
            let store = on.open();
            let waivers = store.all_waivers("ws_x").unwrap();
            let kept: Vec<(&str, &str, &str, time::OffsetDateTime)> = waivers
                .iter()
                .map(|w: &Waiver| {
                    (
                        w.policy_id.as_str(),
                        w.project_id.as_str(),
                        w.reason.as_str(),
                        w.until,
                    )
                })
                .collect();
            assert_eq!(
                kept,
                [
                    (
                        "stale_scan",
                        "p1",
                        "scanner outage",
                        datetime!(2099-01-01 00:00:00 UTC)
                    ),
                    (
                        "departed_owner_edit",
                        "p2",
                        "owner hand-over, ticket SEC-9",
                        datetime!(2099-06-01 00:00:00 UTC)
                    ),
                ],
                "{name}"
            );
            assert!(
                waivers[0].waived_at < waivers[1].waived_at,
                "{name}: when each was given is kept"
            );
            let who: Vec<Option<&str>> = waivers.iter().map(|w| w.waived_by.as_deref()).collect();
            let expected = if name == "database" {
                [Some("vantage"), Some("vantage")]
            } else {
                [Some("root"), Some("ada")]
            };
            assert_eq!(who, expected, "{name}");

            let log = store.review_log("ws_x", None, LogRead::Shown).unwrap();
            let actions: Vec<&str> = log.iter().map(|entry| entry.action.as_str()).collect();
            assert_eq!(actions, ["mark", "mark", "waive", "waive"], "{name}");
            let check = store.verify_review_log("ws_x").unwrap();
            assert_eq!(check.broken, None, "{name}");
            assert_eq!(check.entries, 4, "{name}");
            assert_eq!(store.reviewed_marks("ws_x").unwrap().len(), 2, "{name}");
        });
        assert_eq!(on.count("review"), 4, "{name}");
    }
}
