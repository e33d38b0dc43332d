//! Issue 25: review marks a reviewer can trust. A mark holds the state that was
//! reviewed and names what changed since; states are documents whose shape can
//! grow without flipping a mark; an old history file upgrades, a newer one is
//! refused; the history commands find the workspace as `inventory` does; two
//! writers wait their turn.

use serde_json::Value;
use vantage::history::{NewMark, ProjectState, Retention, SeenState, Store};

use crate::cli::history::{capture, count, offline_mark, project};
use crate::cli::stores::{TestStore, each_store};
use crate::cli::support::Cli;
use crate::common::*;

/// A server on the demo fixture whose rate limit no test reaches.
pub async fn roomy_server() -> vantage::server::RunningServer {
    let (server, _clock) = server_with(|config| {
        config.rate_limit = vantage::server::ratelimit::RateLimit {
            limit: 100_000,
            window: time::Duration::seconds(60),
        };
    })
    .await;
    server
}

fn seen(state: ProjectState, read_at: time::OffsetDateTime) -> Option<SeenState> {
    Some(SeenState { state, read_at })
}

/// Item 1 and the first "done when": a change made since the last snapshot,
/// then the mark on the row that shows it, then a snapshot: reviewed,
/// unchanged. A rename afterwards: changed since review, and it says `name`.
#[test]
fn a_mark_holds_the_row_the_reviewer_saw_not_the_last_snapshot() {
    for on in each_store() {
        a_mark_holds_the_row_on(&on);
    }
}

fn a_mark_holds_the_row_on(on: &TestStore) {
    let mut store = on.open();
    let hour = time::Duration::hours(1);
    let retention = Retention::default();
    store
        .record(
            &capture(T0, vec![project("p1", "ledger")], vec![]),
            retention,
        )
        .unwrap();
    // `v` → workspace_view since that snapshot; the loaded row shows it.
    let mut viewed = project("p1", "ledger");
    viewed.visibility = Some("workspace_view".into());
    let mark = NewMark {
        project_id: "p1".into(),
        note: Some("view-only for members now".into()),
        reviewer: Some("ada".into()),
        seen: seen(viewed.clone(), T0 + hour),
    };
    let made = store.mark_reviewed("ws_x", &mark, T0 + hour).unwrap();
    // In a shared history the reviewer is the role (the tests' one), the name beside it.
    let given = made.display_name.as_deref().or(made.reviewer.as_deref());
    assert_eq!(given, Some("ada"));
    assert_eq!(made.reviewed_state_at, Some(T0 + hour));
    assert_eq!(
        made.changed_since_review, None,
        "no snapshot since the review: {made:?}"
    );

    store
        .record(
            &capture(T0 + 2 * hour, vec![viewed.clone()], vec![]),
            retention,
        )
        .unwrap();
    let marks = store.reviewed_marks("ws_x").unwrap();
    assert_eq!(marks[0].changed_since_review, Some(false), "{marks:?}");
    assert!(marks[0].changed_fields.is_empty());

    let mut renamed = viewed;
    renamed.name = Some("ledger 2".into());
    renamed.pii_open = Some(3);
    store
        .record(&capture(T0 + 3 * hour, vec![renamed], vec![]), retention)
        .unwrap();
    let marks = store.reviewed_marks("ws_x").unwrap();
    assert_eq!(marks[0].changed_since_review, Some(true));
    let said: Vec<&str> = marks[0]
        .changed_fields
        .iter()
        .map(|field| field.summary.as_str())
        .collect();
    // The count was unknown when reviewed: not a change.
    assert_eq!(said, ["name"]);
    assert_eq!(marks[0].name.as_deref(), Some("ledger 2"));
}

/// A snapshot newer than the loaded row is what the reviewer's mark holds.
#[test]
fn a_snapshot_newer_than_the_loaded_row_is_the_reviewed_state() {
    for on in each_store() {
        a_newer_snapshot_on(&on);
    }
}

fn a_newer_snapshot_on(on: &TestStore) {
    let mut store = on.open();
    let hour = time::Duration::hours(1);
    let mut fresh = project("p1", "a");
    fresh.visibility = Some("restricted".into());
    store
        .record(
            &capture(T0 + 2 * hour, vec![fresh], vec![]),
            Retention::default(),
        )
        .unwrap();
    let stale = NewMark {
        project_id: "p1".into(),
        note: None,
        reviewer: None,
        seen: seen(project("p1", "a"), T0),
    };
    let made = store.mark_reviewed("ws_x", &stale, T0 + 3 * hour).unwrap();
    assert_eq!(made.reviewed_state_at, Some(T0 + 2 * hour));
    assert_eq!(made.changed_since_review, Some(false));
}

/// Item 10: the comparison names fields, and a field a newer shape added
/// flips no mark. Here the newest state is written in a shape one above this
/// build's, with a field this build has never heard of.
#[test]
fn a_field_added_to_the_project_state_flips_no_mark() {
    for on in each_store() {
        a_field_added_on(&on);
    }
}

fn a_field_added_on(on: &TestStore) {
    let mut store = on.open();
    let retention = Retention::default();
    store
        .record(&capture(T0, vec![project("p1", "a")], vec![]), retention)
        .unwrap();
    store
        .mark_reviewed("ws_x", &offline_mark("p1", None), T0)
        .unwrap();
    let next = store
        .record(
            &capture(
                T0 + time::Duration::days(1),
                vec![project("p1", "a")],
                vec![],
            ),
            retention,
        )
        .unwrap();
    // The upgrade: the newest snapshot's state gains a field and a shape.
    // The database packs a body (schema 5), so its new body is written whole,
    // in the packing's format 0 (the JSON as it is).
    let mut upgraded = serde_json::to_value(&store.projects(next.id).unwrap()[0]).unwrap();
    upgraded["deployed"] = Value::Bool(true);
    let upgraded = upgraded.to_string().replace('\'', "''");
    on.execute(
        &format!(
            "UPDATE state SET shape = shape + 1,
                 body = json_set(body, '$.deployed', json('true'), '$.name', 'a')
             WHERE id = (SELECT state_id FROM project_range
                         WHERE valid_from <= {0} AND (valid_until IS NULL OR valid_until > {0}))",
            next.id
        ),
        &format!(
            "UPDATE state SET shape = shape + 1,
                 body = '\\x00'::bytea || convert_to('{1}', 'UTF8')
             WHERE id = (SELECT state_id FROM project_range
                         WHERE valid_from <= {0} AND (valid_until IS NULL OR valid_until > {0}))",
            next.id, upgraded
        ),
    );
    let marks = store.reviewed_marks("ws_x").unwrap();
    assert_eq!(marks[0].changed_since_review, Some(false), "{marks:?}");
    // And the state still reads back (the unknown field is ignored).
    let projects = store.projects(next.id).unwrap();
    assert_eq!(projects[0].name.as_deref(), Some("a"));
}

/// The version-1 file as an older vantage wrote it: per-column states, a
/// mark held by state row. It upgrades on open; its snapshots, diff and mark
/// read back; the mark is still unchanged against the same project.
#[test]
fn a_version_1_history_file_upgrades_and_keeps_its_marks() {
    let home = tempfile::tempdir().unwrap();
    let file = home.path().join("history.sqlite3");
    let connection = rusqlite::Connection::open(&file).unwrap();
    connection
        .execute_batch(include_str!("review_marks_v1.sql"))
        .unwrap();
    drop(connection);
    let mut store = Store::open(&file).unwrap();
    let snapshots = store.list("ws_x").unwrap();
    assert_eq!(snapshots.len(), 1);
    let loaded = store.load(&snapshots[0]).unwrap();
    assert_eq!(loaded.projects.len(), 2);
    // In the inventory's order, as linked: p2, then p1.
    assert_eq!(loaded.projects[1].id, "p1");
    assert_eq!(loaded.projects[1].finding_types, ["inactive_owner"]);
    assert_eq!(
        loaded.projects[0].audience_targets, None,
        "unknown stays unknown"
    );
    assert_eq!(loaded.members[0].name.as_deref(), Some("Ada"));
    assert_eq!(
        loaded.insights.map(|i| i.summary.total_projects.value),
        Some(2)
    );
    let marks = store.reviewed_marks("ws_x").unwrap();
    assert_eq!(marks.len(), 1);
    assert_eq!(marks[0].note.as_deref(), Some("old mark"));
    assert_eq!(marks[0].reviewer, None, "the old file did not say who");
    assert_eq!(marks[0].changed_since_review, Some(false));
    // The same project recorded again by this build: still unchanged.
    store
        .record(
            &capture(T0 + time::Duration::days(1), loaded.projects, vec![]),
            Retention::default(),
        )
        .unwrap();
    let marks = store.reviewed_marks("ws_x").unwrap();
    assert_eq!(marks[0].changed_since_review, Some(false), "{marks:?}");
    assert_eq!(
        count(&file, "pragma_table_list WHERE name = 'project_state'"),
        0
    );
}

/// Item 2: every format of `reviewed list` names what changed.
#[tokio::test(flavor = "multi_thread")]
async fn reviewed_list_names_the_fields_changed_in_every_format() {
    reviewed_list_on(None).await;
    let shared = crate::cli::stores::off_runtime(crate::cli::stores::database_store);
    reviewed_list_on(shared.url.clone()).await;
}

/// On the file, or on the shared database at `history_url`.
async fn reviewed_list_on(history_url: Option<String>) {
    let fixture = demo();
    let server = roomy_server().await;
    let data = tempfile::tempdir().unwrap();
    let cli = Cli::new(server.base_url(), ENTERPRISE_WS, ENTERPRISE_ADMIN);
    let mut env = vec![
        ("XDG_DATA_HOME", data.path().to_str().unwrap()),
        ("USER", "ada"),
    ];
    if let Some(url) = &history_url {
        env.push(("VANTAGE_HISTORY_URL", url.as_str()));
    }
    let run = |args: &'static [&'static str]| cli.run_env(args, &env);
    cli.run_env(&["snapshot"], &env).await.expect(0);
    let project = first_project(&fixture, ENTERPRISE_WS);
    cli.run_env(&["reviewed", "mark", &project, "--note", "fine"], &env)
        .await
        .expect(0);
    cli.run_env(
        &[
            "projects",
            "rename",
            &project,
            "Renamed since",
            "-o",
            "jsonl",
        ],
        &env,
    )
    .await
    .expect(0);
    cli.run_env(&["snapshot"], &env).await.expect(0);

    let json = run(&["reviewed", "list", "--format", "json"])
        .await
        .expect(0);
    let list: Vec<Value> = serde_json::from_str(&json.stdout).unwrap();
    assert_eq!(list[0]["changed_since_review"], true, "{}", json.stdout);
    match &history_url {
        // The role that wrote the mark; the name it gave beside it.
        Some(_) => {
            assert_eq!(list[0]["reviewer"], "vantage");
            assert_eq!(list[0]["display_name"], "ada");
        }
        None => assert_eq!(list[0]["reviewer"], "ada"),
    }
    assert_eq!(list[0]["changed_fields"][0]["field"], "name");
    assert_eq!(list[0]["changed_fields"][0]["summary"], "name");
    assert_eq!(list[0]["changed_fields"][0]["after"], "Renamed since");
    let csv = run(&["reviewed", "list", "--format", "csv"])
        .await
        .expect(0);
    let rows = crate::cli::support::parse_csv(&csv.stdout);
    let column = rows[0].iter().position(|title| title == "changed_fields");
    let cell = &rows[1][column.expect("a changed_fields column")];
    assert!(cell.contains(r#""summary":"name""#), "{cell}");
    let table = run(&["reviewed", "list", "--format", "table"])
        .await
        .expect(0);
    assert!(
        table.stdout.contains("changed since review: name"),
        "{}",
        table.stdout
    );
    let jsonl = run(&["reviewed", "list", "--format", "jsonl"])
        .await
        .expect(0);
    assert!(
        jsonl.stdout.contains("\"changed_fields\""),
        "{}",
        jsonl.stdout
    );
    let file = data.path().join("vantage").join("history.sqlite3");
    assert_eq!(
        file.exists(),
        history_url.is_none(),
        "the history is where it was set"
    );
    server.stop().await;
}

/// Item 6: with no workspace configured and a key that reaches one, the
/// history commands find it as `inventory` does; without a key, `changes`
/// and `reviewed` take the one workspace the history file holds.
#[tokio::test(flavor = "multi_thread")]
async fn history_commands_find_the_workspace_as_inventory_does() {
    let server = roomy_server().await;
    let data = tempfile::tempdir().unwrap();
    let mut cli = Cli::new(server.base_url(), "", ENTERPRISE_ADMIN);
    let env = [("XDG_DATA_HOME", data.path().to_str().unwrap())];
    let reaches = "using workspace ws_acme (Acme Corp), the one this key reaches";
    for args in [
        &["snapshot"][..],
        &["snapshot"],
        &["snapshot", "list"],
        &["changes", "--format", "json"],
        &["reviewed", "list"],
    ] {
        let run = cli.run_env(args, &env).await.expect(0);
        assert!(run.stderr.contains(reaches), "{args:?}: {}", run.stderr);
    }
    // No key: the history file holds one workspace, and says so.
    cli.key = None;
    for args in [&["changes", "--format", "json"][..], &["reviewed", "list"]] {
        let run = cli.run_env(args, &env).await.expect(0);
        assert!(
            run.stderr
                .contains("using workspace ws_acme, the only one in the history file"),
            "{args:?}: {}",
            run.stderr
        );
    }
    server.stop().await;
}

/// Item 9: two `vantage snapshot` processes at once on one history both exit
/// 0, and the history holds two whole snapshots.
#[tokio::test(flavor = "multi_thread")]
async fn two_snapshots_at_once_both_finish_whole() {
    let server = roomy_server().await;
    let data = tempfile::tempdir().unwrap();
    let cli = Cli::new(server.base_url(), ENTERPRISE_WS, ENTERPRISE_ADMIN);
    let env = [("XDG_DATA_HOME", data.path().to_str().unwrap())];
    let (a, b) = tokio::join!(
        cli.run_env(&["snapshot"], &env),
        cli.run_env(&["snapshot"], &env)
    );
    a.expect(0);
    b.expect(0);
    let file = data.path().join("vantage").join("history.sqlite3");
    let store = Store::open(&file).unwrap();
    let snapshots = store.list(ENTERPRISE_WS).unwrap();
    assert_eq!(snapshots.len(), 2);
    for info in &snapshots {
        let loaded = store.load(info).unwrap();
        assert_eq!(loaded.projects.len() as i64, info.projects);
        assert_eq!(loaded.members.len() as i64, info.members);
        assert!(loaded.insights.is_some());
    }
    server.stop().await;
}

/// Many processes opening a history file that does not exist yet, at once:
/// each one switches it to WAL and migrates it, and every open succeeds
/// (switching to WAL needs an exclusive lock, which SQLite's busy handler
/// does not always wait for). Threads stand in for processes: each has its
/// own connection.
#[test]
fn first_opens_of_one_new_history_at_once_all_succeed() {
    const OPENERS: usize = 6;
    for round in 0..15 {
        let data = tempfile::tempdir().unwrap();
        let file = data.path().join("history.sqlite3");
        let start = std::sync::Barrier::new(OPENERS);
        let failures: Vec<String> = std::thread::scope(|scope| {
            let openers: Vec<_> = (0..OPENERS)
                .map(|_| {
                    scope.spawn(|| {
                        start.wait();
                        Store::open(&file).err().map(|error| error.to_string())
                    })
                })
                .collect();
            openers
                .into_iter()
                .filter_map(|opener| opener.join().unwrap())
                .collect()
        });
        assert!(failures.is_empty(), "round {round}: {failures:?}");
    }
}

/// `m` on the marked rows: every mark in one transaction, each holding its
/// own row, one note for all.
#[test]
fn marks_of_many_rows_are_written_together() {
    for on in each_store() {
        marks_of_many_rows_on(&on);
    }
}

fn marks_of_many_rows_on(on: &TestStore) {
    let mut store = on.open();
    let rows = ["p1", "p2", "p3"].map(|id| NewMark {
        project_id: id.into(),
        note: Some("batch".into()),
        reviewer: Some("ada".into()),
        seen: seen(project(id, id), T0),
    });
    let made = store.mark_all_reviewed("ws_x", &rows, T0).unwrap();
    let mut ids: Vec<&str> = made.iter().map(|m| m.project_id.as_str()).collect();
    ids.sort_unstable();
    assert_eq!(ids, ["p1", "p2", "p3"]);
    assert!(made.iter().all(|m| m.note.as_deref() == Some("batch")));
    assert!(made.iter().all(|m| m.reviewed_state_at == Some(T0)));
    assert_eq!(store.reviewed_marks("ws_x").unwrap().len(), 3);
}

/// Issue 35 item 2: `reviewed mark` holds the project as the service shows it
/// now (one read), so the reviewer's own change just made is no change since
/// the review; with the service out of reach it holds the newest snapshot's
/// state, and says so.
#[tokio::test(flavor = "multi_thread")]
async fn reviewed_mark_reads_the_project_live_and_falls_back_only_when_unreachable() {
    let fixture = demo();
    let server = roomy_server().await;
    let data = tempfile::tempdir().unwrap();
    let cli = Cli::new(server.base_url(), ENTERPRISE_WS, ENTERPRISE_ADMIN);
    let env = [
        ("XDG_DATA_HOME", data.path().to_str().unwrap()),
        ("USER", "ada"),
    ];
    cli.run_env(&["snapshot"], &env).await.expect(0);
    let project = first_project(&fixture, ENTERPRISE_WS);
    cli.run_env(
        &["projects", "rename", &project, "Renamed by the reviewer"],
        &env,
    )
    .await
    .expect(0);
    let marked = cli
        .run_env(&["reviewed", "mark", &project], &env)
        .await
        .expect(0);
    assert!(
        marked
            .stderr
            .contains("marked reviewed as the service shows it now"),
        "{}",
        marked.stderr
    );
    cli.run_env(&["snapshot"], &env).await.expect(0);
    let list = cli
        .run_env(&["reviewed", "list", "--format", "json"], &env)
        .await
        .expect(0);
    let list: Vec<Value> = serde_json::from_str(&list.stdout).unwrap();
    assert_eq!(
        list[0]["changed_since_review"], false,
        "the reviewer's own rename is no change since: {list:?}"
    );

    // The service out of reach (one attempt): the snapshot's state, said so.
    let config = data.path().join("config.toml");
    std::fs::write(&config, "max_attempts = 1\n").unwrap();
    let away = Cli::new("http://127.0.0.1:1", ENTERPRISE_WS, ENTERPRISE_ADMIN);
    let marked = away
        .run_env(
            &[
                "reviewed",
                "mark",
                &project,
                "--config",
                config.to_str().unwrap(),
            ],
            &env,
        )
        .await
        .expect(0);
    assert!(
        marked.stderr.contains("the service could not be reached")
            && marked
                .stderr
                .contains("marked reviewed as the newest snapshot"),
        "{}",
        marked.stderr
    );
    server.stop().await;
}
