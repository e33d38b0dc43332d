//! A history made by the build before validity ranges (file schema 3,
//! database schema 2), kept as fixtures, migrated and read again: every read
//! (the snapshot list, the changes between each pair, each snapshot's
//! projects, members and insights, each project at each snapshot, the marks,
//! the log and its chain) gives what it gave before the migration.
//!
//! The fixtures and the reads they gave were written by `write_fixtures`
//! with that build: `VANTAGE_WRITE_FIXTURES=1 cargo test --test it
//! cli::history_migration::write_fixtures -- --ignored`.

use std::fmt::Write as _;
use std::path::PathBuf;

use time::Duration;
use vantage::history::{HistoryLocation, LogRead, MemberState, ProjectState, Store, diff};

use crate::cli::history::{capture, offline_mark, project};
use crate::cli::stores::{TestStore, database_store, file_store, off_runtime};
use crate::common::T0;

fn fixtures() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures")
}

const FILE_FIXTURE: &str = "history-v3.sqlite3";
const DATABASE_FIXTURE: &str = "history-pg-v2.sql";

fn member(user_id: &str, role: &str) -> MemberState {
    MemberState {
        user_id: user_id.into(),
        kind: "user".into(),
        role: Some(role.into()),
        name: Some(format!("Name of {user_id}")),
        name_read: true,
    }
}

/// Two workspaces, five snapshots of one: projects renamed, published, gone
/// and back, new; members joining, changing role, leaving; marks before any
/// snapshot, marks again, an unmark.
fn fill(store: &mut Store) {
    let day = |n: i64| T0 + Duration::days(n);
    let mut projects = vec![
        project("p1", "ledger"),
        project("p2", "wiki"),
        project("p3", "tracker"),
        project("p4", "intranet"),
    ];
    let mut members = vec![member("u1", "owner"), member("u2", "member")];
    // A mark before any snapshot holds its project.
    store
        .mark_reviewed("ws_x", &offline_mark("p1", Some("looked at it")), day(0))
        .unwrap();
    store
        .record(
            &capture(day(0), projects.clone(), members.clone()),
            Default::default(),
        )
        .unwrap();
    store
        .mark_reviewed(
            "ws_x",
            &offline_mark("p2", None),
            day(0) + Duration::hours(1),
        )
        .unwrap();

    projects[0].name = Some("ledger 2".into());
    projects[1].is_published = true;
    projects[1].audience = Some("public".into());
    members.push(member("u3", "viewer"));
    store
        .record(
            &capture(day(1), projects.clone(), members.clone()),
            Default::default(),
        )
        .unwrap();
    store
        .mark_reviewed(
            "ws_x",
            &offline_mark("p3", Some("fine")),
            day(1) + Duration::hours(2),
        )
        .unwrap();

    // Nothing changes.
    store
        .record(
            &capture(day(2), projects.clone(), members.clone()),
            Default::default(),
        )
        .unwrap();

    let gone = projects.remove(2);
    projects.push(project("p5", "new one"));
    members[1].role = Some("admin".into());
    projects[0].review_priority = "needs_review".into();
    store
        .record(
            &capture(day(3), projects.clone(), members.clone()),
            Default::default(),
        )
        .unwrap();
    store
        .unmark_reviewed("ws_x", "p2", Some("grace"), day(3) + Duration::hours(1))
        .unwrap();
    store
        .mark_reviewed(
            "ws_x",
            &offline_mark("p1", Some("again")),
            day(3) + Duration::hours(2),
        )
        .unwrap();

    projects.insert(1, gone);
    members.remove(0);
    store
        .record(
            &capture(day(4), projects.clone(), members.clone()),
            Default::default(),
        )
        .unwrap();

    // Another workspace, with a state equal to one of ws_x's.
    let mut other = capture(
        day(2),
        vec![project("p2", "wiki"), project("q1", "q")],
        vec![],
    );
    other.workspace_id = "ws_y".into();
    store.record(&other, Default::default()).unwrap();
    store
        .mark_reviewed(
            "ws_y",
            &offline_mark("q1", None),
            day(2) + Duration::hours(3),
        )
        .unwrap();
}

/// Every read, as text: what the migration must keep.
fn reads(store: &Store) -> String {
    let mut out = String::new();
    for workspace in store.workspaces().unwrap() {
        writeln!(out, "== {workspace}").unwrap();
        let list = store.list(&workspace).unwrap();
        writeln!(out, "list {list:#?}").unwrap();
        let loaded: Vec<_> = list.iter().map(|info| store.load(info).unwrap()).collect();
        for snapshot in &loaded {
            writeln!(out, "-- snapshot {}", snapshot.info.id).unwrap();
            writeln!(out, "insights {:?}", snapshot.insights).unwrap();
            writeln!(out, "projects").unwrap();
            for project in &snapshot.projects {
                writeln!(out, "    {}", held(project)).unwrap();
            }
            writeln!(out, "members {:#?}", snapshot.members).unwrap();
            for id in ["p1", "p2", "p3", "p4", "p5", "q1", "nope"] {
                let state: Option<ProjectState> = store.project_in(snapshot.info.id, id).unwrap();
                let held = state.as_ref().map_or_else(|| "none".to_owned(), held);
                writeln!(out, "project_in {id} {held}").unwrap();
            }
        }
        for before in &loaded {
            for after in &loaded {
                writeln!(
                    out,
                    "changes {} -> {}: {:#?}",
                    before.info.id,
                    after.info.id,
                    diff(before, after)
                )
                .unwrap();
            }
        }
        writeln!(
            out,
            "marks {:#?}",
            store.reviewed_marks(&workspace).unwrap()
        )
        .unwrap();
        writeln!(
            out,
            "log {:#?}",
            store.review_log(&workspace, None, LogRead::Shown).unwrap()
        )
        .unwrap();
        writeln!(out, "verify {:?}", store.check_review_log(&workspace)).unwrap();
    }
    out
}

/// A project state as the fixtures keep it: the fields that hold a value, as
/// JSON. A field added since the fixtures were written is absent from every
/// migrated state (never a made-up value), so it leaves the text as it was.
fn held(state: &ProjectState) -> String {
    let mut value = serde_json::to_value(state).unwrap();
    if let Some(fields) = value.as_object_mut() {
        fields.retain(|_, field| !field.is_null());
    }
    value.to_string()
}

fn pg_bin(program: &str) -> PathBuf {
    let mut versions: Vec<PathBuf> = std::fs::read_dir("/usr/lib/postgresql")
        .expect("PostgreSQL installed")
        .flatten()
        .map(|entry| entry.path().join("bin"))
        .filter(|bin| bin.join(program).exists())
        .collect();
    versions.sort();
    versions.pop().expect("PostgreSQL's binaries").join(program)
}

/// Writes the fixtures with the build at hand (the one before ranges).
#[test]
#[ignore = "writes the fixtures; run by hand with the build whose schema they keep"]
fn write_fixtures() {
    if std::env::var_os("VANTAGE_WRITE_FIXTURES").is_none() {
        return;
    }
    let dir = fixtures();
    let file = file_store();
    let HistoryLocation::File(path) = &file.location else {
        unreachable!()
    };
    let mut store = file.open();
    fill(&mut store);
    std::fs::write(dir.join("history-v3.reads.txt"), reads(&store)).unwrap();
    drop(store);
    let target = dir.join(FILE_FIXTURE);
    let _ = std::fs::remove_file(&target);
    rusqlite::Connection::open(path)
        .unwrap()
        .execute(&format!("VACUUM INTO '{}'", target.display()), [])
        .unwrap();

    let database = database_store();
    off_runtime(|| {
        let mut store = database.open();
        fill(&mut store);
        std::fs::write(dir.join("history-pg-v2.reads.txt"), reads(&store)).unwrap();
    });
    let dump = std::process::Command::new(pg_bin("pg_dump"))
        .args([
            "--inserts",
            "--no-owner",
            "--no-privileges",
            "--no-comments",
        ])
        .arg(database.url.as_deref().unwrap())
        .output()
        .unwrap();
    assert!(
        dump.status.success(),
        "{}",
        String::from_utf8_lossy(&dump.stderr)
    );
    // psql's meta-commands (`\restrict`) are not SQL: the test loads it as SQL.
    let sql: String = String::from_utf8(dump.stdout)
        .unwrap()
        .lines()
        .filter(|line| !line.starts_with('\\'))
        .map(|line| format!("{line}\n"))
        .collect();
    std::fs::write(dir.join(DATABASE_FIXTURE), sql).unwrap();
}

fn expected(name: &str) -> String {
    std::fs::read_to_string(fixtures().join(name)).unwrap()
}

/// The lines where two texts first part, for a failure a person can read.
fn first_difference(before: &str, after: &str) -> String {
    let line = before
        .lines()
        .zip(after.lines())
        .position(|(a, b)| a != b)
        .unwrap_or_else(|| before.lines().count().min(after.lines().count()));
    let around = |text: &str| {
        text.lines()
            .skip(line.saturating_sub(3))
            .take(8)
            .collect::<Vec<_>>()
            .join("\n")
    };
    format!(
        "first difference at line {}:\n--- before\n{}\n--- after\n{}",
        line + 1,
        around(before),
        around(after)
    )
}

#[test]
fn a_file_of_the_previous_schema_reads_the_same_after_migrating() {
    let on: TestStore = file_store();
    let HistoryLocation::File(path) = &on.location else {
        unreachable!()
    };
    std::fs::copy(fixtures().join(FILE_FIXTURE), path).unwrap();
    let store = on.open();
    let before = expected("history-v3.reads.txt");
    let after = reads(&store);
    assert!(before == after, "{}", first_difference(&before, &after));
}

#[test]
fn a_database_of_the_previous_schema_reads_the_same_after_migrating() {
    let on = database_store();
    let url = on.url.clone().unwrap();
    let dump = expected(DATABASE_FIXTURE);
    off_runtime(move || {
        let mut client = ::postgres::Client::connect(&url, ::postgres::NoTls).unwrap();
        client.batch_execute(&dump).unwrap();
    });
    let after = off_runtime(|| reads(&on.open()));
    let before = expected("history-pg-v2.reads.txt");
    assert!(before == after, "{}", first_difference(&before, &after));
}
