//! Issue 26, the team's commands: `reviewed log` (the audit trail of who
//! marked or unmarked what, when, with the note, in every format) and
//! `snapshot --if-older-than` (one snapshot job for the team).

use std::path::PathBuf;

use serde_json::Value;
use time::OffsetDateTime;
use time::format_description::well_known::Rfc3339;
use vantage::history::{NewMark, Retention, Store};

use crate::cli::history::{capture, project};
use crate::cli::support::{Cli, Run, assert_inert, parse_csv};
use crate::common::*;

/// A reviewer's environment with its own name, sharing `data` (and so the
/// history file) with the others; no key: the history commands need none.
struct Reviewer {
    cli: Cli,
    name: &'static str,
    data: PathBuf,
}

impl Reviewer {
    fn new(name: &'static str, data: PathBuf) -> Self {
        let mut cli = Cli::new("http://127.0.0.1:9", "ws_x", "unused");
        cli.key = None;
        Self { cli, name, data }
    }

    async fn run(&self, args: &[&str]) -> Run {
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

fn history_file(data: &std::path::Path) -> PathBuf {
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

/// A server on the demo fixture whose rate limit no test reaches.
async fn roomy_server() -> vantage::server::RunningServer {
    let (server, _clock) = server_with(|config| {
        config.rate_limit = vantage::server::ratelimit::RateLimit {
            limit: 100_000,
            window: time::Duration::seconds(60),
        };
    })
    .await;
    server
}

/// A scheduled job's run: the history in `data`, the key given.
async fn job(
    server: &vantage::server::RunningServer,
    data: &std::path::Path,
    args: &[&str],
) -> Run {
    let cli = Cli::new(server.base_url(), ENTERPRISE_WS, ENTERPRISE_ADMIN);
    cli.run_env(args, &[("XDG_DATA_HOME", data.to_str().unwrap())])
        .await
}

#[tokio::test(flavor = "multi_thread")]
async fn snapshot_if_older_than_records_only_when_the_newest_is_older() {
    let server = roomy_server().await;
    let data = tempfile::tempdir().unwrap();
    let inventory = || server.app.served("list_inventory");

    // No snapshot yet: one is recorded.
    let first = job(
        &server,
        data.path(),
        &["snapshot", "--if-older-than", "6h", "-o", "json"],
    )
    .await
    .expect(0);
    let first: Value = serde_json::from_str(&first.stdout).unwrap();
    assert_eq!(first["id"], 1);
    let walked = inventory();
    assert!(walked > 0, "the first job walked the inventory");

    // The newest is minutes old: nothing is recorded, nothing is asked of the
    // service's inventory, and it says so with --verbose; exit 0 (cron sends
    // no alarm).
    let second = job(
        &server,
        data.path(),
        &["snapshot", "--if-older-than", "6h", "--verbose"],
    )
    .await
    .expect(0);
    assert!(
        second.stderr.contains("snapshot 1 of workspace")
            && second.stderr.contains("within 6h: nothing recorded"),
        "{}",
        second.stderr
    );
    assert_eq!(
        inventory(),
        walked,
        "no inventory request for a fresh snapshot"
    );
    let store = Store::open(&history_file(data.path())).unwrap();
    assert_eq!(store.list(ENTERPRISE_WS).unwrap().len(), 1);

    // An older newest snapshot (another job's, two hours ago): recorded.
    let mut store = store;
    let mut old = capture(
        time::OffsetDateTime::now_utc() - time::Duration::hours(2),
        vec![project("p1", "ledger")],
        vec![],
    );
    old.workspace_id = ENTERPRISE_WS.into();
    store.record(&old, Retention::default()).unwrap();
    job(
        &server,
        data.path(),
        &["snapshot", "--if-older-than", "90m"],
    )
    .await
    .expect(0);
    assert_eq!(store.list(ENTERPRISE_WS).unwrap().len(), 3);

    // The duration is checked before anything runs.
    let bad = job(
        &server,
        data.path(),
        &["snapshot", "--if-older-than", "soon"],
    )
    .await;
    assert_eq!(bad.code, 2, "{}", bad.stderr);
    assert!(bad.stderr.contains("30m, 12h or 2d"), "{}", bad.stderr);
}

/// Issue 33, item 4: a newest snapshot dated in the future (a teammate's
/// clock far ahead, or a damaged record) never counts as fresh: the team's
/// job says so on stderr and records, instead of skipping every hour until 2100.
#[tokio::test(flavor = "multi_thread")]
async fn snapshot_if_older_than_records_when_the_newest_is_dated_in_the_future() {
    let server = roomy_server().await;
    let data = tempfile::tempdir().unwrap();
    // The history file made by a first job, then a snapshot from 2100 in it.
    job(&server, data.path(), &["snapshot"]).await.expect(0);
    let mut store = Store::open(&history_file(data.path())).unwrap();
    let mut future = capture(
        time::macros::datetime!(2100-01-01 0:00 UTC),
        vec![project("p1", "ledger")],
        vec![],
    );
    future.workspace_id = ENTERPRISE_WS.into();
    store.record(&future, Retention::default()).unwrap();
    let before = store.list(ENTERPRISE_WS).unwrap().len();

    let run = job(&server, data.path(), &["snapshot", "--if-older-than", "6h"])
        .await
        .expect(0);
    assert!(
        run.stderr.contains("is dated 2100-01-01")
            && run.stderr.contains("in the future")
            && run.stderr.contains("recording a new one"),
        "{}",
        run.stderr
    );
    assert!(!run.stderr.contains("nothing recorded"), "{}", run.stderr);
    assert_eq!(
        store.list(ENTERPRISE_WS).unwrap().len(),
        before + 1,
        "a new one recorded"
    );
}

/// `history copy --to URL`: a local history (two snapshots, marks by two
/// reviewers, an unmark) moves into a real shared PostgreSQL database; the
/// shared one then says the same (`changes`, `reviewed list`, `reviewed log`),
/// and running the copy again copies nothing twice.
#[tokio::test(flavor = "multi_thread")]
async fn history_copy_moves_a_local_history_into_a_shared_one_once() {
    use vantage::history::NewMark;

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
        let mark = |project_id: &str, reviewer: &str, note: Option<&str>| NewMark {
            project_id: project_id.into(),
            note: note.map(str::to_owned),
            reviewer: Some(reviewer.into()),
            seen: None,
        };
        let hour = time::Duration::hours(1);
        store
            .mark_reviewed("ws_x", &mark("p1", "alice", Some("owner asked")), T0 + hour)
            .unwrap();
        store
            .mark_reviewed("ws_x", &mark("p2", "bob", None), T0 + hour * 2)
            .unwrap();
        store
            .unmark_reviewed("ws_x", "p2", Some("bob"), T0 + hour * 3)
            .unwrap();
        let mut renamed = project("p1", "ledger v2");
        renamed.visibility = Some("workspace_view".into());
        store
            .record(
                &capture(
                    T0 + time::Duration::days(1),
                    vec![renamed, project("p2", "payroll")],
                    vec![],
                ),
                Retention::default(),
            )
            .unwrap();
    }
    let url = crate::cli::stores::off_runtime(crate::common::postgres::fresh_database);
    let alice = Reviewer::new("alice", data.path().to_path_buf());

    let copy = alice
        .run(&["history", "copy", "--to", &url])
        .await
        .expect(0);
    assert!(
        copy.stderr
            .starts_with("workspace ws_x into the history database 127.0.0.1:")
            && copy
                .stderr
                .ends_with(": 2 snapshots and 3 review log entries copied\n"),
        "{}",
        copy.stderr
    );

    // The shared history says what the file says.
    let both = |args: &'static [&'static str]| {
        let alice = &alice;
        let url = url.clone();
        async move {
            let local = alice.run(args).await.expect(0).stdout;
            let mut shared_args = vec!["--history", url.as_str()];
            shared_args.extend(args);
            let shared = alice.run(&shared_args).await.expect(0).stdout;
            (
                serde_json::from_str::<Value>(&local).unwrap(),
                serde_json::from_str::<Value>(&shared).unwrap(),
            )
        }
    };
    for args in [
        &["changes", "-o", "json"][..],
        &["reviewed", "list", "-o", "json"][..],
        &["reviewed", "log", "-o", "json"][..],
        &["snapshot", "list", "-o", "json"][..],
    ] {
        let (local, shared) = both(args).await;
        if args[0] == "snapshot" {
            // Ids are the shared history's own; the times and counts are the file's.
            let strip = |list: &Value| {
                list.as_array()
                    .unwrap()
                    .iter()
                    .map(|s| (s["taken_at"].clone(), s["projects"].clone()))
                    .collect::<Vec<_>>()
            };
            assert_eq!(strip(&local), strip(&shared));
            continue;
        }
        if args[0] == "reviewed" {
            // The shared history's reviewer is the role that wrote the entry
            // (here the one that copied it), the name given beside it; its
            // ids are its own.
            let by_name = |list: &Value| {
                list.as_array()
                    .unwrap()
                    .iter()
                    .map(|item| {
                        let mut item = item.clone();
                        let object = item.as_object_mut().unwrap();
                        object.remove("id");
                        if let Some(name) = object.remove("display_name").filter(|n| !n.is_null()) {
                            object.insert("reviewer".into(), name);
                        }
                        item
                    })
                    .collect::<Vec<_>>()
            };
            assert_eq!(by_name(&local), by_name(&shared), "{args:?}");
            assert!(
                shared
                    .as_array()
                    .unwrap()
                    .iter()
                    .all(|item| item["reviewer"] == "vantage"),
                "{shared}"
            );
            continue;
        }
        assert_eq!(local, shared, "{args:?}");
    }
    let (_, marks) = both(&["reviewed", "list", "-o", "json"]).await;
    assert_eq!(marks[0]["reviewer"], "vantage", "the role that copied it");
    assert_eq!(marks[0]["display_name"], "alice");
    assert_eq!(marks[0]["changed_since_review"], true, "{marks}");

    // Again: nothing twice.
    let again = alice
        .run(&["history", "copy", "--to", &url])
        .await
        .expect(0);
    assert!(
        again
            .stderr
            .contains(": 0 snapshots and 0 review log entries copied; 2 snapshots there already\n"),
        "{}",
        again.stderr
    );
    let (_, log) = both(&["reviewed", "log", "-o", "json"]).await;
    assert_eq!(log.as_array().unwrap().len(), 3);
}
