//! A team's history on PostgreSQL: two snapshot jobs of one workspace take
//! turns; two reviewers marking at once both succeed and the log keeps both;
//! the first vantages to connect migrate once; a database that is away is
//! named (never its password) and exits with its own code; a local history
//! (`history copy --to`) and a review log copy into a shared one once.

use serde_json::Value;
use vantage::history::{
    HistoryLocation, LockWait, LogRead, NewMark, PgTarget, Retention, ReviewAction, Store,
    WorkspaceLock,
};

use crate::cli::history::{capture, offline_mark, project};
use crate::cli::review_audit::{Reviewer, history_file};
use crate::cli::stores::{TestStore, database_store, each_store, file_store, off_runtime};
use crate::cli::support::Cli;
use crate::common::*;

/// Waits (bounded) until `waiting` connections wait for an advisory lock.
pub fn await_lock_waiters(url: &str, waiting: i64) {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    let mut client = ::postgres::Client::connect(url, ::postgres::NoTls).unwrap();
    loop {
        let now: i64 = client
            .query_one(
                // This test's database only: others run beside it on the server.
                "SELECT COUNT(*) FROM pg_locks WHERE locktype = 'advisory' AND NOT granted \
                 AND database = (SELECT oid FROM pg_database WHERE datname = current_database())",
                &[],
            )
            .unwrap()
            .get(0);
        if now >= waiting {
            return;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "{now} of {waiting} snapshot jobs waited for the lock"
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
}

/// Done when: two `vantage snapshot` processes started at once against one
/// shared history record one snapshot after the other (each waits for the
/// workspace's lock, says so, exits 0), never interleaved; `changes` between
/// them is right (nothing changed); `--skip-if-busy` skips and exits 0.
#[tokio::test(flavor = "multi_thread")]
async fn two_snapshot_jobs_on_a_shared_history_take_turns() {
    let server = crate::cli::review_marks::roomy_server().await;
    let shared = database_store();
    let url = shared.url.clone().unwrap();
    let cli = Cli::new(server.base_url(), ENTERPRISE_WS, ENTERPRISE_ADMIN);
    let env = [("VANTAGE_HISTORY_URL", url.as_str())];
    // Another job holds the lock while both start: both must wait for it.
    let location = shared.location.clone();
    let holder = tokio::task::spawn_blocking(move || {
        let mut store = Store::open_at(&location).unwrap();
        assert_eq!(
            store.lock_workspace(ENTERPRISE_WS, LockWait::No).unwrap(),
            WorkspaceLock::Taken
        );
        store
    })
    .await
    .unwrap();
    let skipped = cli
        .run_env(&["snapshot", "--skip-if-busy", "--verbose"], &env)
        .await
        .expect(0);
    assert!(
        skipped
            .stderr
            .contains("skipping this one (--skip-if-busy)"),
        "{}",
        skipped.stderr
    );
    let release = {
        let url = url.clone();
        async move {
            tokio::task::spawn_blocking(move || {
                await_lock_waiters(&url, 2);
                let mut holder = holder;
                holder.unlock_workspace(ENTERPRISE_WS).unwrap();
                drop(holder);
            })
            .await
            .unwrap();
        }
    };
    let (a, b, ()) = tokio::join!(
        cli.run_env(&["snapshot", "--verbose"], &env),
        cli.run_env(&["snapshot", "--verbose"], &env),
        release
    );
    for run in [a.expect(0), b.expect(0)] {
        assert!(
            run.stderr
                .contains("waiting for it to finish, then taking this one"),
            "{}",
            run.stderr
        );
        assert!(!run.stderr.contains("127.0.0.1:0"), "{}", run.stderr);
    }
    off_runtime(|| {
        let store = shared.open();
        let snapshots = store.list(ENTERPRISE_WS).unwrap();
        assert_eq!(snapshots.len(), 2, "the skipped job recorded nothing");
        assert!(snapshots[0].taken_at <= snapshots[1].taken_at);
        for info in &snapshots {
            let loaded = store.load(info).unwrap();
            assert_eq!(loaded.projects.len() as i64, info.projects);
            assert_eq!(loaded.members.len() as i64, info.members);
            assert!(loaded.insights.is_some());
        }
    });
    let changes = cli
        .run_env(&["changes", "--format", "json"], &env)
        .await
        .expect(0);
    let changes: Vec<Value> = serde_json::from_str(&changes.stdout).unwrap();
    assert!(
        changes.is_empty(),
        "nothing changed between them: {changes:?}"
    );
    server.stop().await;
}

/// Two reviewers marking the same project at once both succeed; the mark
/// shows the later one; the log keeps every mark, in order.
#[test]
fn two_reviewers_marking_at_once_both_succeed() {
    for on in each_store() {
        marking_at_once_on(&on);
    }
}

fn marking_at_once_on(on: &TestStore) {
    let mut store = on.open();
    store
        .record(
            &capture(T0, vec![project("p1", "ledger")], vec![]),
            Default::default(),
        )
        .unwrap();
    drop(store);
    const ROUNDS: usize = 15;
    std::thread::scope(|scope| {
        for reviewer in ["ada", "grace"] {
            scope.spawn(move || {
                let mut store = on.open();
                for round in 0..ROUNDS {
                    let mark = NewMark {
                        reviewer: Some(reviewer.into()),
                        ..offline_mark("p1", Some(&format!("{reviewer} {round}")))
                    };
                    store
                        .mark_reviewed("ws_x", &mark, T0 + time::Duration::seconds(round as i64))
                        .unwrap();
                }
            });
        }
    });
    let store = on.open();
    let log = store
        .review_log("ws_x", Some("p1"), LogRead::Shown)
        .unwrap();
    assert_eq!(log.len(), 2 * ROUNDS, "{}", on.name());
    assert!(log.iter().all(|entry| entry.action == ReviewAction::Mark));
    for reviewer in ["ada", "grace"] {
        let notes: Vec<String> = log
            .iter()
            // The name given: the role beside it is the tests' one role.
            .filter(|entry| {
                entry.display_name.as_deref().or(entry.reviewer.as_deref()) == Some(reviewer)
            })
            .filter_map(|entry| entry.note.clone())
            .collect();
        let expected: Vec<String> = (0..ROUNDS)
            .map(|round| format!("{reviewer} {round}"))
            .collect();
        assert_eq!(
            notes,
            expected,
            "each reviewer's marks in order ({})",
            on.name()
        );
    }
    let marks = store.reviewed_marks("ws_x").unwrap();
    assert_eq!(marks.len(), 1);
    let last = log.last().unwrap();
    assert_eq!(marks[0].reviewer, last.reviewer, "the later mark stands");
    assert_eq!(marks[0].note, last.note);
    assert_eq!(marks[0].changed_since_review, Some(false));
}

/// The first vantages to connect to an empty database migrate it once, under
/// the lock: four at once all open it, and it holds one schema.
#[test]
fn vantages_connecting_at_once_migrate_once() {
    let shared = database_store();
    std::thread::scope(|scope| {
        let opened: Vec<_> = (0..4).map(|_| scope.spawn(|| shared.open())).collect();
        for handle in opened {
            drop(handle.join().unwrap());
        }
    });
    assert_eq!(shared.count("vantage_meta WHERE key = 'schema_version'"), 1);
    assert_eq!(shared.count("vantage_meta WHERE key = 'revision'"), 1);
    assert_eq!(
        shared.count("information_schema.tables WHERE table_name = 'snapshot'"),
        1
    );
}

/// A database that is away: the error names it (host:port/db) and the cause,
/// never the password; commands exit 7.
#[tokio::test(flavor = "multi_thread")]
async fn a_database_that_is_away_is_named_without_its_password() {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let url = format!("postgres://ada:s3cret-pw@127.0.0.1:{port}/team?sslmode=disable");
    let location = HistoryLocation::Database(PgTarget::parse(&url, None).unwrap());
    let error = off_runtime(|| Store::open_at(&location).err().expect("nothing listens"));
    assert!(error.is_unreachable(), "{error}");
    let said = error.to_string();
    assert!(said.contains(&format!("127.0.0.1:{port}/team")), "{said}");
    assert!(!said.contains("s3cret"), "{said}");
    assert!(!format!("{error:?}").contains("s3cret"));

    let cli = Cli::new("http://127.0.0.1:9", ENTERPRISE_WS, ENTERPRISE_ADMIN);
    for args in [
        &["reviewed", "list", "--history", url.as_str()][..],
        &["changes", "--history", url.as_str()],
        &["snapshot", "list", "--history", url.as_str()],
    ] {
        let run = cli.run(args).await.expect(7);
        assert!(
            run.stderr.contains("cannot reach the history database"),
            "{}",
            run.stderr
        );
        assert!(!run.stderr.contains("s3cret"), "{}", run.stderr);
    }
    let log_dir = cli.home.path();
    for entry in walk(log_dir) {
        let text = std::fs::read(&entry).unwrap_or_default();
        assert!(
            !String::from_utf8_lossy(&text).contains("s3cret"),
            "{} holds the password",
            entry.display()
        );
    }
    // A URL that cannot be read is a usage problem, said without the password.
    let bad = cli
        .run(&[
            "reviewed",
            "list",
            "--history",
            "postgres://ada:s3cret-pw@h/x?sslmode=often",
        ])
        .await;
    assert_ne!(bad.code, 0);
    assert!(!bad.stderr.contains("s3cret"), "{}", bad.stderr);
}

pub(crate) fn walk(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut files = Vec::new();
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let path = entry.path();
        if path.is_dir() {
            files.extend(walk(&path));
        } else {
            files.push(path);
        }
    }
    files
}

/// What `history copy` builds on: a file's log copied into a shared
/// database, twice, is there once, with its reviewers, notes and states.
#[test]
fn a_review_log_copies_into_a_shared_history_once() {
    let local = file_store();
    let mut from = local.open();
    from.record(
        &capture(T0, vec![project("p1", "a"), project("p2", "b")], vec![]),
        Default::default(),
    )
    .unwrap();
    from.mark_reviewed("ws_x", &offline_mark("p1", Some("fine")), T0)
        .unwrap();
    from.unmark_reviewed("ws_x", "p1", Some("grace"), T0 + time::Duration::hours(1))
        .unwrap();
    from.mark_reviewed("ws_x", &offline_mark("p2", None), T0)
        .unwrap();
    let log = from.review_log("ws_x", None, LogRead::Whole).unwrap();
    assert_eq!(log.len(), 3);
    let shared = database_store();
    let mut to = shared.open();
    assert_eq!(to.import_review_log("ws_x", &log).unwrap(), 3);
    assert_eq!(to.import_review_log("ws_x", &log).unwrap(), 0, "idempotent");
    let copied = to.review_log("ws_x", None, LogRead::Whole).unwrap();
    // Whole, each entry is as the file gave it; the ids are the database's own.
    let without_ids = |entries: Vec<vantage::history::ReviewEntry>| {
        entries
            .into_iter()
            .map(|entry| vantage::history::ReviewEntry { id: 0, ..entry })
            .collect::<Vec<_>>()
    };
    assert_eq!(without_ids(copied), without_ids(log));
    assert_eq!(
        to.check_review_log("ws_x").unwrap(),
        3,
        "the copy is chained"
    );
    assert_eq!(
        to.reviewed_marks("ws_x").unwrap().len(),
        from.reviewed_marks("ws_x").unwrap().len()
    );
}

/// Recording 20,000 projects and 5,000 members into the shared database is a
/// matter of seconds (two `COPY`s, not a round trip per state).
#[test]
fn a_large_snapshot_records_in_seconds() {
    let shared = database_store();
    let mut store = shared.open();
    let projects: Vec<_> = (0..20_000)
        .map(|i| project(&format!("prj_{i:05}"), &format!("project {i}")))
        .collect();
    let members: Vec<_> = (0..5_000)
        .map(|i| vantage::history::MemberState {
            user_id: format!("usr_{i:05}"),
            kind: "user".into(),
            role: Some("member".into()),
            name: Some(format!("member {i}")),
            name_read: true,
        })
        .collect();
    let big = capture(T0, projects, members);
    let started = std::time::Instant::now();
    let info = store.record(&big, Default::default()).unwrap();
    let first = started.elapsed();
    let mut next = big.clone();
    next.taken_at = T0 + time::Duration::days(1);
    for state in next.projects.iter_mut().step_by(50) {
        state.name = Some("renamed".into());
    }
    let started = std::time::Instant::now();
    store.record(&next, Default::default()).unwrap();
    let later = started.elapsed();
    eprintln!("recorded 20,000 projects and 5,000 members: first {first:?}, later {later:?}");
    assert_eq!(info.projects, 20_000);
    assert_eq!(store.projects(info.id).unwrap().len(), 20_000);
    assert_eq!(store.members(info.id).unwrap().len(), 5_000);
    // 1.4 s here in a debug build; a round trip per state took several times
    // the budget. Generous for a shared machine.
    assert!(first < std::time::Duration::from_secs(10), "{first:?}");
    assert!(later < std::time::Duration::from_secs(10), "{later:?}");
}

/// TLS with rustls: `require` encrypts, `verify-full` also checks the
/// certificate (against `sslrootcert`) and the host; a certificate the roots
/// do not vouch for is refused under `verify-full`.
#[test]
fn sslmodes_encrypt_and_verify() {
    let shared = database_store();
    let plain = shared.url.clone().unwrap();
    let cert = crate::common::postgres::server().certificate();
    let with = |mode: &str| plain.replace("sslmode=disable", mode);
    let ssl_of_vantage = |url: String| {
        off_runtime(move || {
            let location = HistoryLocation::Database(PgTarget::parse(&url, None).unwrap());
            let mut store = Store::open_at(&location)?;
            store.check()?;
            // vantage's session, seen from another: encrypted or not.
            let mut admin =
                ::postgres::Client::connect(&plain_url(&url), ::postgres::NoTls).unwrap();
            let ssl: bool = admin
                .query_one(
                    "SELECT COALESCE(bool_or(s.ssl), false) FROM pg_stat_ssl s
                     JOIN pg_stat_activity a ON a.pid = s.pid WHERE a.application_name = 'vantage'",
                    &[],
                )
                .unwrap()
                .get(0);
            drop(store);
            Ok::<bool, vantage::history::HistoryError>(ssl)
        })
    };
    assert!(ssl_of_vantage(with("sslmode=require")).unwrap());
    assert!(ssl_of_vantage(with("sslmode=prefer")).unwrap());
    let verified = with(&format!(
        "sslmode=verify-full&sslrootcert={}",
        cert.display()
    ));
    assert!(ssl_of_vantage(verified).unwrap());
    // The webpki roots do not vouch for the test certificate.
    let unverified = ssl_of_vantage(with("sslmode=verify-full")).unwrap_err();
    assert!(
        unverified.to_string().contains("certificate"),
        "{unverified}"
    );
    // Nor does the certificate name another host.
    let elsewhere = with(&format!(
        "sslmode=verify-full&sslrootcert={}",
        cert.display()
    ))
    .replace("127.0.0.1", "elsewhere.test")
        + "&hostaddr=127.0.0.1";
    let wrong_host = ssl_of_vantage(elsewhere).unwrap_err();
    assert!(
        wrong_host.to_string().contains("certificate"),
        "{wrong_host}"
    );
}

/// The same database through a plain connection.
fn plain_url(url: &str) -> String {
    let (base, _) = url.split_once('?').unwrap_or((url, ""));
    format!("{base}?sslmode=disable")
}

/// A teammate whose clock runs ahead (issue 33): the shared database's clock
/// is the team's. A snapshot dated beyond the skew is refused, naming both
/// clocks; it neither becomes the newest for good nor prunes the team's
/// older snapshots (retention was measured from it).
#[test]
fn a_snapshot_from_a_clock_ahead_of_the_database_is_refused_and_prunes_nothing() {
    let shared = database_store();
    let mut store = shared.open();
    let yesterday = time::OffsetDateTime::now_utc() - time::Duration::days(1);
    store
        .record(
            &capture(yesterday, vec![project("p1", "ledger")], vec![]),
            Default::default(),
        )
        .unwrap();
    let ahead = capture(
        time::macros::datetime!(2100-01-01 00:00 UTC),
        vec![project("p1", "ledger")],
        vec![],
    );
    let refused = store.record(&ahead, Default::default()).unwrap_err();
    let said = refused.to_string();
    assert!(
        matches!(refused, vantage::history::HistoryError::ClockAhead { .. }),
        "{said}"
    );
    assert!(
        said.contains("2100-01-01") && said.contains("clock"),
        "{said}"
    );
    let kept = store.list("ws_x").unwrap();
    assert_eq!(kept.len(), 1, "the team's snapshot is kept: {kept:?}");
    assert!(kept[0].taken_at < time::OffsetDateTime::now_utc());
}

/// `history copy --to URL`: a local history (two snapshots, marks by two
/// reviewers, an unmark) moves into a real shared PostgreSQL database; the
/// shared one then says the same (`changes`, `reviewed list`, `reviewed log`),
/// and running the copy again copies nothing twice.
#[tokio::test(flavor = "multi_thread")]
async fn history_copy_moves_a_local_history_into_a_shared_one_once() {
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
