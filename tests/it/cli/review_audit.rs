//! The review log (`vantage reviewed log`): who marked or unmarked what,
//! when, with which note, in every format, times with fixed milliseconds; an
//! audit trail the store guards, not vantage alone. Its rows are append-only
//! (the database's own triggers, a teammate with every grant refused), each
//! entry is chained to the one before by sha256, and `reviewed log --verify`
//! names the first entry that a superuser (who can go around the triggers)
//! changed, removed or inserted. On PostgreSQL the reviewer is the role that
//! wrote the entry; a note and a name are cut when read, as names from the
//! service are.

use std::path::PathBuf;

use serde_json::Value;
use time::OffsetDateTime;
use time::format_description::well_known::Rfc3339;
use vantage::history::{HistoryLocation, NewMark, Retention, Store};

use crate::cli::history::{capture, offline_mark, project};
use crate::cli::stores::{TestStore, database_store, each_store, file_store, off_runtime};
use crate::cli::support::{Cli, Run, assert_inert, parse_csv};
use crate::common::*;

/// A history holding three entries of the CLI's workspace: a mark of p1, a
/// mark of p2, p1 unmarked.
fn with_three_entries(on: TestStore) -> TestStore {
    off_runtime(|| {
        let mut store = on.open();
        store
            .record(
                &vantage::history::Capture {
                    workspace_id: ENTERPRISE_WS.into(),
                    ..capture(T0, vec![project("p1", "a"), project("p2", "b")], vec![])
                },
                Default::default(),
            )
            .unwrap();
        store
            .mark_reviewed(ENTERPRISE_WS, &offline_mark("p1", Some("fine")), T0)
            .unwrap();
        store
            .mark_reviewed(ENTERPRISE_WS, &offline_mark("p2", Some("also fine")), T0)
            .unwrap();
        store
            .unmark_reviewed(
                ENTERPRISE_WS,
                "p1",
                Some("grace"),
                T0 + time::Duration::hours(1),
            )
            .unwrap();
    });
    on
}

/// What `--history` names `on` by.
pub(crate) fn history_arg(on: &TestStore) -> String {
    match (&on.location, &on.url) {
        (HistoryLocation::File(path), _) => path.display().to_string(),
        (_, Some(url)) => url.clone(),
        _ => unreachable!("a database has its URL"),
    }
}

pub(crate) fn cli() -> Cli {
    Cli::new("http://127.0.0.1:9", ENTERPRISE_WS, ENTERPRISE_ADMIN)
}

pub(crate) async fn reviewed(on: &TestStore, args: &[&str]) -> Run {
    let history = history_arg(on);
    let with_history: Vec<&str> = ["reviewed"]
        .into_iter()
        .chain(args.iter().copied())
        .chain(["--history", &history])
        .collect();
    cli().run(&with_history).await
}

/// The log's ids, oldest first, read around vantage.
fn entry_ids(on: &TestStore) -> Vec<i64> {
    let sql = "SELECT id FROM review ORDER BY id";
    match &on.location {
        HistoryLocation::File(path) => {
            let connection = rusqlite::Connection::open(path).unwrap();
            let mut statement = connection.prepare(sql).unwrap();
            statement
                .query_map([], |row| row.get(0))
                .unwrap()
                .collect::<Result<_, _>>()
                .unwrap()
        }
        HistoryLocation::Database(_) => {
            let url = on.url.clone().unwrap();
            off_runtime(move || {
                let mut client = ::postgres::Client::connect(&url, ::postgres::NoTls).unwrap();
                client
                    .query(sql, &[])
                    .unwrap()
                    .iter()
                    .map(|row| row.get(0))
                    .collect()
            })
        }
    }
}

/// Runs `sql` as `role` (a teammate: trust authentication in the tests'
/// server), and the database's answer.
pub(crate) fn as_role(on: &TestStore, role: &str, sql: &str) -> Result<(), String> {
    let url =
        on.url
            .clone()
            .unwrap()
            .replacen("postgres://vantage@", &format!("postgres://{role}@"), 1);
    let sql = sql.to_owned();
    off_runtime(move || {
        let mut client = ::postgres::Client::connect(&url, ::postgres::NoTls).unwrap();
        client.batch_execute(&sql).map_err(|error| {
            error
                .as_db_error()
                .map_or_else(|| error.to_string(), |db| db.message().to_owned())
        })
    })
}

/// Done when: a teammate given every right on every table (the worst grant
/// a team could make) can neither change, remove nor empty the log, nor
/// write an entry as another role: PostgreSQL itself refuses. The file's own
/// triggers refuse a tool that writes to it.
#[tokio::test(flavor = "multi_thread")]
async fn the_review_log_refuses_changes_and_removals_on_both_stores() {
    let shared = with_three_entries(database_store());
    shared.execute(
        "",
        "CREATE ROLE mallory LOGIN;
         GRANT ALL ON ALL TABLES IN SCHEMA public TO mallory;
         GRANT ALL ON ALL SEQUENCES IN SCHEMA public TO mallory;",
    );
    for sql in [
        "UPDATE review SET note = 'forged'",
        "UPDATE review SET reviewer = 'mallory', at_ms = at_ms + 1",
        "DELETE FROM review WHERE action = 'unmark'",
        "TRUNCATE review",
    ] {
        let refused = as_role(&shared, "mallory", sql)
            .expect_err(&format!("the database refuses a teammate's {sql}"));
        assert!(refused.contains("append-only"), "{sql}: {refused}");
    }
    let forged = as_role(
        &shared,
        "mallory",
        "INSERT INTO review (workspace_id, project_id, action, at_ms, reviewer, db_role)
         VALUES ('ws_acme', 'p9', 'mark', 0, 'ada', 'vantage')",
    )
    .expect_err("an entry written as another role");
    assert!(
        forged.contains("mallory cannot write an entry as vantage"),
        "{forged}"
    );
    assert_eq!(shared.count("review"), 3, "nothing changed");
    assert_eq!(shared.count("review WHERE note = 'forged'"), 0);

    let local = with_three_entries(file_store());
    let HistoryLocation::File(path) = &local.location else {
        unreachable!()
    };
    let connection = rusqlite::Connection::open(path).unwrap();
    for sql in [
        "UPDATE review SET note = 'forged'",
        "DELETE FROM review WHERE action = 'unmark'",
        "DELETE FROM review",
    ] {
        let refused = connection
            .execute_batch(sql)
            .expect_err(&format!("the file refuses {sql}"));
        assert!(
            refused.to_string().contains("append-only"),
            "{sql}: {refused}"
        );
    }
    assert_eq!(local.count("review"), 3, "nothing changed");
}

/// Done when: `reviewed log --verify` passes an intact log (exit 0, the
/// number of entries said), and after a superuser changed a row around the
/// triggers, exits non-zero naming that row's id; a row removed is found at
/// the entry after it, a row inserted out of order at itself. Both stores.
#[tokio::test(flavor = "multi_thread")]
async fn verify_names_the_first_entry_a_superuser_changed_on_both_stores() {
    // Around the triggers: PostgreSQL's replica role skips them; the file's
    // owner drops them.
    let around = |sql: &str| {
        (
            format!(
                "DROP TRIGGER review_append_only_update; DROP TRIGGER review_append_only_delete; {sql}"
            ),
            format!("SET session_replication_role = replica; {sql}"),
        )
    };
    for on in each_store() {
        let on = with_three_entries(on);
        let name = on.name();
        let intact = reviewed(&on, &["log", "--verify"]).await;
        assert_eq!(intact.code, 0, "{name}: {}", intact.stderr);
        assert!(
            intact.stderr.contains("3 entries"),
            "{name}: {}",
            intact.stderr
        );
        let ids = entry_ids(&on);
        let (sqlite, postgres) = around(&format!(
            "UPDATE review SET note = 'forged' WHERE id = {}",
            ids[1]
        ));
        on.execute(&sqlite, &postgres);
        let changed = reviewed(&on, &["log", "--verify"]).await;
        assert_ne!(changed.code, 0, "{name}: a changed row passed");
        assert_ne!(changed.code, 101, "{name}: {}", changed.stderr);
        assert!(
            changed.stderr.contains(&format!("at entry {}", ids[1])),
            "{name}: the changed row is named: {}",
            changed.stderr
        );
    }
    for on in each_store() {
        let on = with_three_entries(on);
        let name = on.name();
        let ids = entry_ids(&on);
        let (sqlite, postgres) = around(&format!("DELETE FROM review WHERE id = {}", ids[0]));
        on.execute(&sqlite, &postgres);
        let removed = reviewed(&on, &["log", "--verify"]).await;
        assert_ne!(removed.code, 0, "{name}: a removed row passed");
        assert!(
            removed.stderr.contains(&format!("at entry {}", ids[1])),
            "{name}: the entry after the removed one is named: {}",
            removed.stderr
        );
    }
    for on in each_store() {
        let on = with_three_entries(on);
        let name = on.name();
        let ids = entry_ids(&on);
        // A copy of the first entry, hash and all, slipped in before the last.
        let copy = format!(
            "INSERT INTO review (id, workspace_id, project_id, action, at_ms, reviewer, note, hash{role})
             SELECT {slot}, workspace_id, project_id, action, at_ms, reviewer, note, hash{role}
             FROM review WHERE id = {first}",
            slot = ids[2] * 10,
            first = ids[0],
            role = if name == "database" { ", db_role" } else { "" },
        );
        let (sqlite, postgres) = around(&format!(
            "UPDATE review SET id = id * 100 WHERE id = {last}; {copy}",
            last = ids[2]
        ));
        on.execute(&sqlite, &postgres);
        let inserted = reviewed(&on, &["log", "--verify"]).await;
        assert_ne!(inserted.code, 0, "{name}: an inserted row passed");
        assert!(
            inserted
                .stderr
                .contains(&format!("at entry {}", ids[2] * 10)),
            "{name}: the inserted row is named: {}",
            inserted.stderr
        );
    }
}

/// Done when: in a shared history the log and the marks say the role that
/// wrote each entry, with the name the reviewer gave beside it, never
/// instead of it.
#[tokio::test(flavor = "multi_thread")]
async fn on_postgres_the_reviewer_is_the_database_role() {
    let shared = with_three_entries(database_store());
    let log = reviewed(&shared, &["log", "--format", "json"]).await;
    assert_eq!(log.code, 0, "{}", log.stderr);
    let entries: serde_json::Value = serde_json::from_str(&log.stdout).unwrap();
    let entries = entries.as_array().unwrap();
    assert_eq!(entries.len(), 3);
    for entry in entries {
        assert_eq!(entry["reviewer"], "vantage", "the role: {entry}");
    }
    assert_eq!(entries[0]["display_name"], "ada");
    assert_eq!(entries[2]["display_name"], "grace");
    let list = reviewed(&shared, &["list", "--format", "json"]).await;
    let marks: serde_json::Value = serde_json::from_str(&list.stdout).unwrap();
    assert_eq!(marks[0]["reviewer"], "vantage", "{marks}");
    assert_eq!(marks[0]["display_name"], "ada", "{marks}");
    let table = reviewed(&shared, &["list", "--format", "table"]).await;
    assert!(table.stdout.contains("vantage (ada)"), "{}", table.stdout);
}

/// Done when: a note and a reviewer's name of a megabyte are cut when read,
/// as names from the service are (100 characters, the last `…`), in the list
/// and the log, on both stores.
#[tokio::test(flavor = "multi_thread")]
async fn a_huge_note_and_name_are_cut_when_read_on_both_stores() {
    for on in each_store() {
        let name = on.name();
        off_runtime(|| {
            let mut store = on.open();
            let huge = vantage::history::NewMark {
                reviewer: Some("r".repeat(1 << 20)),
                ..offline_mark("p1", Some(&"n".repeat(1 << 20)))
            };
            store.mark_reviewed(ENTERPRISE_WS, &huge, T0).unwrap();
        });
        let cut = format!("{}…", "n".repeat(99));
        for args in [["list", "--format", "json"], ["log", "--format", "json"]] {
            let run = reviewed(&on, &args).await;
            assert_eq!(run.code, 0, "{name} {args:?}: {}", run.stderr);
            let read: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
            // Compared by length first: a failure must not print a megabyte.
            let note = read[0]["note"].as_str().unwrap_or_default();
            assert_eq!(note.chars().count(), 100, "{name} {args:?}");
            assert_eq!(note, cut, "{name} {args:?}");
            let who = [&read[0]["reviewer"], &read[0]["display_name"]];
            assert!(
                who.iter()
                    .any(|who| who.as_str() == Some(&format!("{}…", "r".repeat(99)))),
                "{name} {args:?}: {who:?}"
            );
            assert!(
                run.stdout.len() < 4096,
                "{name} {args:?}: {} bytes",
                run.stdout.len()
            );
        }
    }
}

/// Done when: a history from before the chain (the file at version 1, the
/// database at version 1) upgrades with every mark and log entry kept, each
/// entry given its place in the chain: `--verify` passes.
#[tokio::test(flavor = "multi_thread")]
async fn an_older_history_upgrades_with_its_log_chained() {
    let local = file_store();
    let HistoryLocation::File(path) = &local.location else {
        unreachable!()
    };
    rusqlite::Connection::open(path)
        .unwrap()
        .execute_batch(
            &include_str!("review_marks_v1.sql").replace("'ws_x'", &format!("'{ENTERPRISE_WS}'")),
        )
        .unwrap();
    let shared = database_store();
    shared.execute("", PG_VERSION_1);
    for on in [local, shared] {
        let name = on.name();
        let verified = reviewed(&on, &["log", "--verify"]).await;
        assert_eq!(verified.code, 0, "{name}: {}", verified.stderr);
        let list = reviewed(&on, &["list", "--format", "json"]).await;
        let marks: serde_json::Value = serde_json::from_str(&list.stdout).unwrap();
        assert_eq!(marks.as_array().unwrap().len(), 1, "{name}: {marks}");
        assert_eq!(marks[0]["note"], "old mark", "{name}");
        let log = reviewed(&on, &["log", "--format", "json"]).await;
        let entries: serde_json::Value = serde_json::from_str(&log.stdout).unwrap();
        assert_eq!(entries.as_array().unwrap().len(), 1, "{name}: {entries}");
    }
}

/// The shared database as vantage's schema version 1 left it, with one mark.
const PG_VERSION_1: &str = "
CREATE TABLE vantage_meta (key TEXT PRIMARY KEY, value BIGINT NOT NULL);
CREATE TABLE snapshot (id BIGSERIAL PRIMARY KEY, workspace_id TEXT NOT NULL,
    taken_at_ms BIGINT NOT NULL, project_count BIGINT NOT NULL, member_count BIGINT NOT NULL,
    insights_state BIGINT, first_page TEXT);
CREATE INDEX snapshot_by_workspace ON snapshot (workspace_id, id);
CREATE TABLE state (id BIGSERIAL PRIMARY KEY, kind TEXT NOT NULL, subject TEXT NOT NULL,
    shape INTEGER NOT NULL, digest BYTEA NOT NULL UNIQUE, body TEXT NOT NULL);
CREATE TABLE snapshot_project (snapshot_id BIGINT NOT NULL, position INTEGER NOT NULL,
    state_id BIGINT NOT NULL, PRIMARY KEY (snapshot_id, position));
CREATE TABLE snapshot_member (snapshot_id BIGINT NOT NULL, position INTEGER NOT NULL,
    state_id BIGINT NOT NULL, PRIMARY KEY (snapshot_id, position));
CREATE TABLE review (id BIGSERIAL PRIMARY KEY, workspace_id TEXT NOT NULL,
    project_id TEXT NOT NULL, action TEXT NOT NULL, at_ms BIGINT NOT NULL, reviewer TEXT,
    note TEXT, state_id BIGINT, state_at_ms BIGINT);
CREATE INDEX review_by_project ON review (workspace_id, project_id, id);
INSERT INTO vantage_meta (key, value) VALUES ('revision', 0), ('schema_version', 1);
INSERT INTO review (workspace_id, project_id, action, at_ms, reviewer, note)
    VALUES ('ws_acme', 'p1', 'mark', 1700000000000, 'ada', 'old mark');
";

/// A reviewer's environment with its own name, sharing `data` (and so the
/// history file) with the others; no key: the history commands need none.
pub(super) struct Reviewer {
    cli: Cli,
    name: &'static str,
    data: PathBuf,
}

impl Reviewer {
    pub(super) fn new(name: &'static str, data: PathBuf) -> Self {
        let mut cli = Cli::new("http://127.0.0.1:9", "ws_x", "unused");
        cli.key = None;
        Self { cli, name, data }
    }

    pub(super) async fn run(&self, args: &[&str]) -> Run {
        self.cli
            .run_env(
                args,
                &[
                    ("XDG_DATA_HOME", self.data.to_str().unwrap()),
                    ("USER", self.name),
                ],
            )
            .await
    }
}

/// The history file of the environment whose data directory is `data`.
pub(super) fn history_file(data: &std::path::Path) -> PathBuf {
    data.join("vantage").join("history.sqlite3")
}

#[tokio::test(flavor = "multi_thread")]
async fn reviewed_log_lists_who_marked_and_unmarked_what_in_every_format() {
    let data = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(data.path().join("vantage")).unwrap();
    {
        let mut store = Store::open(&history_file(data.path())).unwrap();
        store
            .record(
                &capture(
                    T0,
                    vec![project("p1", "ledger"), project("p2", "payroll")],
                    vec![],
                ),
                Retention::default(),
            )
            .unwrap();
    }
    let alice = Reviewer::new("alice", data.path().to_path_buf());
    let bob = Reviewer::new("bob", data.path().to_path_buf());
    alice
        .run(&[
            "reviewed",
            "mark",
            "p1",
            "--note",
            "owner asked",
            "-o",
            "json",
        ])
        .await
        .expect(0);
    bob.run(&["reviewed", "mark", "p2", "-o", "json"])
        .await
        .expect(0);
    bob.run(&["reviewed", "unmark", "p1"]).await.expect(0);
    let hostile = "=cmd|' /C calc'!A0 \u{1b}]0;pwned\u{7} \u{202e}evil";
    alice
        .run(&["reviewed", "mark", "p1", "--note", hostile, "-o", "json"])
        .await
        .expect(0);

    let json = alice
        .run(&["reviewed", "log", "-o", "json"])
        .await
        .expect(0);
    let log: Vec<Value> = serde_json::from_str(&json.stdout).unwrap();
    let summary: Vec<(&str, &str, &str, Option<&str>)> = log
        .iter()
        .map(|entry| {
            (
                entry["action"].as_str().unwrap(),
                entry["reviewer"].as_str().unwrap(),
                entry["project_id"].as_str().unwrap(),
                entry["note"].as_str(),
            )
        })
        .collect();
    assert_eq!(
        summary,
        [
            ("mark", "alice", "p1", Some("owner asked")),
            ("mark", "bob", "p2", None),
            ("unmark", "bob", "p1", None),
            ("mark", "alice", "p1", Some(hostile)),
        ],
        "oldest first: {}",
        json.stdout
    );
    let at = |entry: &Value| {
        let text = entry["at"].as_str().unwrap();
        OffsetDateTime::parse(text, &Rfc3339).unwrap_or_else(|error| panic!("{text}: {error}"))
    };
    assert!(
        log.windows(2).all(|pair| at(&pair[0]) <= at(&pair[1])),
        "oldest first: {}",
        json.stdout
    );

    // One project's entries.
    let csv = bob
        .run(&["reviewed", "log", "p1", "-o", "csv"])
        .await
        .expect(0);
    let rows = parse_csv(&csv.stdout);
    assert_eq!(rows.len(), 4, "a header and three entries: {}", csv.stdout);
    let column = |name: &str| rows[0].iter().position(|c| c == name).unwrap();
    let (action, reviewer, note) = (column("action"), column("reviewer"), column("note"));
    assert_eq!(
        rows[1..]
            .iter()
            .map(|row| (row[action].as_str(), row[reviewer].as_str()))
            .collect::<Vec<_>>(),
        [("mark", "alice"), ("unmark", "bob"), ("mark", "alice")]
    );
    assert!(
        rows[3][note].starts_with('\''),
        "a formula in a note is guarded in CSV: {:?}",
        rows[3][note]
    );

    let jsonl = bob
        .run(&["reviewed", "log", "p2", "-o", "jsonl"])
        .await
        .expect(0);
    let lines: Vec<Value> = jsonl
        .stdout
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    assert_eq!(lines.len(), 1, "{}", jsonl.stdout);
    assert_eq!(lines[0]["reviewer"], "bob");

    let table = bob.run(&["reviewed", "log", "-o", "table"]).await.expect(0);
    assert_inert(table.stdout.as_bytes(), "reviewed log as a table");
    let header = table.stdout.lines().next().unwrap();
    for title in ["AT (UTC)", "ACTION", "BY", "PROJECT", "NOTE"] {
        assert!(header.contains(title), "{header}");
    }
    assert_eq!(table.stdout.lines().count(), 5, "{}", table.stdout);
    assert!(table.stdout.contains("unmark"), "{}", table.stdout);

    // A project nobody marked: an empty log, not an error.
    let none = bob
        .run(&["reviewed", "log", "p9", "-o", "json"])
        .await
        .expect(0);
    assert_eq!(none.stdout.trim(), "[]");
}

/// Scripts sort JSON lines as text: every time is written with three
/// fractional digits, so `.550Z` sorts before `.559Z` (`.55Z` did not).
#[tokio::test(flavor = "multi_thread")]
async fn reviewed_log_writes_times_with_fixed_milliseconds() {
    let data = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(data.path().join("vantage")).unwrap();
    {
        let mut store = Store::open(&history_file(data.path())).unwrap();
        store
            .record(
                &capture(T0, vec![project("p1", "ledger")], vec![]),
                Retention::default(),
            )
            .unwrap();
        for (offset_ms, note) in [(0, "on the second"), (550, "550 ms"), (559, "559 ms")] {
            let mark = NewMark {
                project_id: "p1".into(),
                note: Some(note.into()),
                reviewer: Some("alice".into()),
                seen: None,
            };
            let at = T0 + time::Duration::milliseconds(offset_ms);
            store.mark_reviewed("ws_x", &mark, at).unwrap();
        }
    }
    let alice = Reviewer::new("alice", data.path().to_path_buf());
    let written = [
        "2026-11-22T12:00:00.000Z",
        "2026-11-22T12:00:00.550Z",
        "2026-11-22T12:00:00.559Z",
    ];

    let json = alice
        .run(&["reviewed", "log", "-o", "json"])
        .await
        .expect(0);
    let log: Vec<Value> = serde_json::from_str(&json.stdout).unwrap();
    let times: Vec<&str> = log.iter().map(|e| e["at"].as_str().unwrap()).collect();
    assert_eq!(times, written, "{}", json.stdout);

    let jsonl = alice
        .run(&["reviewed", "log", "-o", "jsonl"])
        .await
        .expect(0);
    let mut lines: Vec<&str> = jsonl.stdout.lines().collect();
    let in_order = lines.clone();
    lines.sort();
    assert_eq!(
        lines, in_order,
        "sorted as text, the lines keep their order"
    );

    let csv = alice.run(&["reviewed", "log", "-o", "csv"]).await.expect(0);
    let rows = parse_csv(&csv.stdout);
    let at = rows[0].iter().position(|c| c == "at").unwrap();
    let times: Vec<&str> = rows[1..].iter().map(|row| row[at].as_str()).collect();
    assert_eq!(times, written, "{}", csv.stdout);
}
