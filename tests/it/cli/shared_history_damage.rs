//! A damaged history (a hand-edited database or file, a teammate's tool that
//! altered a column) is an error that names the table, the column and what
//! was expected, with a non-zero exit: never a panic.

use vantage::history::{Capture, HistoryLocation};

use crate::cli::history::{capture, offline_mark, project};
use crate::cli::stores::{TestStore, database_store, each_store, off_runtime};
use crate::cli::support::{Cli, Run};
use crate::common::*;

/// A shared database holding two snapshots of the CLI's workspace and a mark.
fn shared_history() -> TestStore {
    filled(database_store())
}

/// `store` with two snapshots of the CLI's workspace and a mark.
fn filled(shared: TestStore) -> TestStore {
    let in_workspace = |capture: Capture| Capture {
        workspace_id: ENTERPRISE_WS.into(),
        ..capture
    };
    off_runtime(|| {
        let mut store = shared.open();
        for (at, name) in [(T0, "ledger"), (T0 + time::Duration::days(1), "renamed")] {
            let taken = in_workspace(capture(at, vec![project("p1", name)], vec![]));
            store.record(&taken, Default::default()).unwrap();
        }
        store
            .mark_reviewed(ENTERPRISE_WS, &offline_mark("p1", Some("fine")), T0)
            .unwrap();
    });
    shared
}

/// What `--history` names `on` by: the file's path or the database's URL.
fn history_arg(on: &TestStore) -> String {
    match (&on.location, &on.url) {
        (HistoryLocation::File(path), _) => path.display().to_string(),
        (_, Some(url)) => url.clone(),
        _ => unreachable!("a database has its URL"),
    }
}

/// `args` failed with a message, not a panic, and the message says each of `names`.
fn assert_damage_named(run: &Run, args: &[&str], names: &[&str]) {
    assert_ne!(run.code, 101, "{args:?} panicked: {}", run.stderr);
    assert!(!run.stderr.contains("panicked"), "{args:?}: {}", run.stderr);
    assert_ne!(run.code, 0, "{args:?} succeeded: {}", run.stdout);
    for name in names {
        assert!(
            run.stderr.contains(name),
            "{args:?} does not say {name:?}: {}",
            run.stderr
        );
    }
}

/// SQL that damages the shared database, the commands it breaks, and what
/// their error must say.
struct Damage {
    sql: &'static str,
    commands: &'static [&'static [&'static str]],
    named: &'static [&'static str],
}

/// Done when: a column of another type, NULL where a value must be, or a
/// negative shape, in each table the commands read, makes `snapshot list`, `changes` and
/// `reviewed list`/`log` fail with the store, the column and what vantage
/// expected named, and the rest of the database untouched.
#[tokio::test(flavor = "multi_thread")]
async fn a_damaged_shared_history_is_an_error_never_a_panic() {
    let cli = Cli::new("http://127.0.0.1:9", ENTERPRISE_WS, ENTERPRISE_ADMIN);
    let cases = [
        Damage {
            sql: "ALTER TABLE snapshot ALTER COLUMN project_count TYPE text USING project_count::text",
            commands: &[&["snapshot", "list"], &["changes"]],
            named: &["snapshot.project_count", "text", "int8"],
        },
        Damage {
            sql: "ALTER TABLE snapshot ALTER COLUMN member_count DROP NOT NULL;
                  UPDATE snapshot SET member_count = NULL",
            commands: &[&["snapshot", "list"]],
            named: &["snapshot.member_count", "NULL"],
        },
        Damage {
            sql: "ALTER TABLE review ALTER COLUMN at_ms TYPE text USING at_ms::text",
            commands: &[&["reviewed", "list"], &["reviewed", "log"]],
            named: &["review.at_ms", "text", "int8"],
        },
        Damage {
            sql: "ALTER TABLE state ALTER COLUMN shape TYPE bigint",
            commands: &[&["reviewed", "list"]],
            named: &["state.shape", "int8", "int4"],
        },
        Damage {
            sql: "UPDATE state SET shape = -1",
            commands: &[&["reviewed", "list"]],
            named: &["state.shape is -1"],
        },
        Damage {
            sql: "UPDATE state SET body = '\\x01ffff'::bytea",
            commands: &[&["reviewed", "list"], &["changes"]],
            named: &["state.body", "does not inflate"],
        },
        Damage {
            sql: "UPDATE state SET body = '\\x07'::bytea",
            commands: &[&["reviewed", "list"]],
            named: &["state.body", "format 7"],
        },
    ];
    for Damage {
        sql: damage,
        commands,
        named,
    } in cases
    {
        let shared = shared_history();
        let url = shared.url.clone().unwrap();
        shared.execute("", damage);
        for args in commands {
            let with_url: Vec<&str> = args.iter().copied().chain(["--history", &url]).collect();
            let run = cli.run(&with_url).await;
            assert_damage_named(&run, &with_url, named);
            assert!(
                run.stderr.contains("the history database"),
                "the store is named: {}",
                run.stderr
            );
        }
        assert_eq!(shared.count("snapshot"), 2, "{damage}: nothing lost");
        assert_eq!(shared.count("review"), 1, "{damage}: nothing lost");
    }
}

/// Done when: a schema version below 0 (no migration would run, yet the
/// version was raised over it) is refused as damage on both stores, a newer
/// one as a newer vantage's (the connection that read it dropped off the
/// command's runtime, not a panic), and the version is left as it was.
#[tokio::test(flavor = "multi_thread")]
async fn a_schema_version_vantage_cannot_use_is_an_error_on_both_stores() {
    let cli = Cli::new("http://127.0.0.1:9", ENTERPRISE_WS, ENTERPRISE_ADMIN);
    let cases = [
        (-1, "damaged: the schema version is -1"),
        (99, "a newer vantage wrote it"),
    ];
    for ((version, named), on) in cases
        .into_iter()
        .flat_map(|case| each_store().into_iter().map(move |on| (case, on)))
    {
        drop(off_runtime(|| on.open()));
        on.execute(
            &format!("PRAGMA user_version = {version}"),
            &format!("UPDATE vantage_meta SET value = {version} WHERE key = 'schema_version'"),
        );
        let history = history_arg(&on);
        let args = ["snapshot", "list", "--history", &history];
        let run = cli.run(&args).await;
        assert_damage_named(&run, &args, &[named]);
        let kept = match &on.location {
            HistoryLocation::File(path) => {
                rusqlite::Connection::open(path)
                    .unwrap()
                    .query_row("PRAGMA user_version", [], |row| row.get::<_, i64>(0))
                    .unwrap()
                    == version
            }
            HistoryLocation::Database(_) => {
                let kept =
                    format!("vantage_meta WHERE key = 'schema_version' AND value = {version}");
                on.count(&kept) == 1
            }
        };
        assert!(kept, "the {} store's version is kept", on.name());
    }
}

/// Done when: a stored time beyond the times vantage reads is damage named
/// with its column on both stores, never shown as 1970 (what it was before).
#[tokio::test(flavor = "multi_thread")]
async fn a_stored_time_out_of_range_is_damage_on_both_stores() {
    let cli = Cli::new("http://127.0.0.1:9", ENTERPRISE_WS, ENTERPRISE_ADMIN);
    let far = i64::MAX;
    let cases = [
        ("snapshot", "taken_at_ms", &["snapshot", "list"][..]),
        ("review", "at_ms", &["reviewed", "log"]),
        ("review", "at_ms", &["reviewed", "list"]),
        ("review", "state_at_ms", &["reviewed", "log"]),
    ];
    for (table, column, args) in cases {
        for on in each_store() {
            let on = filled(on);
            let sql = format!("UPDATE {table} SET {column} = {far}");
            // The log refuses an UPDATE: damage comes from around its triggers.
            let (sqlite, postgres) = if table == "review" {
                (
                    format!("DROP TRIGGER review_append_only_update; {sql}"),
                    format!("SET session_replication_role = replica; {sql}"),
                )
            } else {
                (sql.clone(), sql)
            };
            on.execute(&sqlite, &postgres);
            let history = history_arg(&on);
            let with_history: Vec<&str> = args
                .iter()
                .copied()
                .chain(["--history", &history])
                .collect();
            let run = cli.run(&with_history).await;
            let named = format!("damaged: {table}.{column} is {far}");
            assert_damage_named(&run, &with_history, &[&named]);
        }
    }
}
