//! The snapshot job as cron, systemd and Kubernetes run it: a frozen lock
//! holder is waited for only `--lock-timeout` (exit 75), a job that succeeds
//! is silent off a terminal, a job whose database connection died stops at
//! once, and `--if-older-than` records only when the newest snapshot is older
//! (one dated in the future never counts as fresh).

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use serde_json::Value;
use vantage::history::{HistoryLocation, LockWait, Retention, Store, WorkspaceLock};

use crate::cli::history::{capture, project};
use crate::cli::review_audit::history_file;
use crate::cli::shared_history::await_lock_waiters;
use crate::cli::stores::{TestStore, database_store, each_store, off_runtime};
use crate::cli::support::{Cli, Run};
use crate::common::*;

/// Where `VANTAGE_HISTORY_URL` points for `store`: the database's URL or the file.
fn history_url(store: &TestStore) -> String {
    match &store.location {
        HistoryLocation::File(path) => path.display().to_string(),
        HistoryLocation::Database(_) => store.url.clone().unwrap(),
    }
}

/// Another job's store holding the workspace's snapshot lock (a job that froze).
fn frozen_holder(store: &TestStore) -> Store {
    let location = store.location.clone();
    off_runtime(move || {
        let mut holder = Store::open_at(&location).unwrap();
        assert_eq!(
            holder.lock_workspace(ENTERPRISE_WS, LockWait::No).unwrap(),
            WorkspaceLock::Taken
        );
        holder
    })
}

/// Item 10: with the lock held by a job that froze, `snapshot --lock-timeout
/// 1s` gives up after about a second with exit 75 (EX_TEMPFAIL), records
/// nothing and says why; once the holder is gone, a snapshot is taken.
#[tokio::test(flavor = "multi_thread")]
async fn a_snapshot_waits_for_a_frozen_lock_only_its_lock_timeout() {
    let server = crate::cli::review_marks::roomy_server().await;
    let cli = Cli::new(server.base_url(), ENTERPRISE_WS, ENTERPRISE_ADMIN);
    for store in each_store() {
        let url = history_url(&store);
        let env = [("VANTAGE_HISTORY_URL", url.as_str())];
        let holder = frozen_holder(&store);
        let started = Instant::now();
        let run = cli
            .run_env(&["snapshot", "--lock-timeout", "1s"], &env)
            .await
            .expect(75);
        let waited = started.elapsed();
        assert!(
            waited >= Duration::from_secs(1) && waited < Duration::from_secs(30),
            "{} store: waited {waited:?}",
            store.name()
        );
        assert!(
            run.stderr.contains("--lock-timeout 1s") && run.stderr.contains("no snapshot taken"),
            "{} store: {}",
            store.name(),
            run.stderr
        );
        assert_eq!(store.count("snapshot"), 0, "{} store", store.name());
        off_runtime(move || drop(holder));
        cli.run_env(&["snapshot", "--lock-timeout", "1s"], &env)
            .await
            .expect(0);
        assert_eq!(store.count("snapshot"), 1, "{} store", store.name());
    }
    server.stop().await;
}

/// Item 10: a lock timeout that is no duration is a usage error, named.
#[tokio::test]
async fn a_lock_timeout_that_is_no_duration_is_refused() {
    let cli = Cli::new("http://127.0.0.1:9", ENTERPRISE_WS, ENTERPRISE_ADMIN);
    let run = cli
        .run(&["snapshot", "--lock-timeout", "soon"])
        .await
        .expect(2);
    assert!(run.stderr.contains("--lock-timeout"), "{}", run.stderr);
}

/// A rate limit that every walk reaches, however fast or slow the machine
/// runs: the service's clock stands still, so its window counts every
/// request until the job has waited. This proxy in front of it tells the job,
/// on the answer that spends the last request, that the window resets in
/// two to three seconds of the job's clock (the service's clock stands still;
/// the job waits only for a reset still ahead when it next asks, and a loaded
/// machine may take a second to get there), and moves the
/// service's clock a window on before the next request. Also answers how
/// many times it told the job to wait.
async fn pacing_proxy(
    upstream: String,
    clock: vantage::clock::Clock,
    window: time::Duration,
) -> (String, Arc<AtomicUsize>) {
    use axum::extract::Request;
    use axum::http::{HeaderValue, header};
    use axum::response::Response;

    let exhausted = Arc::new(AtomicBool::new(false));
    let waits = Arc::new(AtomicUsize::new(0));
    let told = waits.clone();
    let client = reqwest::Client::new();
    let forward = move |request: Request| {
        let (upstream, clock, exhausted, told, client) = (
            upstream.clone(),
            clock.clone(),
            exhausted.clone(),
            told.clone(),
            client.clone(),
        );
        async move {
            if exhausted.swap(false, Ordering::SeqCst) {
                clock.advance(window);
            }
            let (parts, body) = request.into_parts();
            let body = axum::body::to_bytes(body, usize::MAX)
                .await
                .expect("a body");
            let path = parts.uri.path_and_query().map_or("/", |path| path.as_str());
            let mut headers = parts.headers;
            headers.remove(header::HOST);
            let answer = client
                .request(parts.method, format!("{upstream}{path}"))
                .headers(headers)
                .body(body)
                .send()
                .await
                .expect("the service answers");
            let mut response = Response::builder().status(answer.status());
            let mut headers = answer.headers().clone();
            if headers.get("x-ratelimit-remaining") == Some(&HeaderValue::from_static("0")) {
                exhausted.store(true, Ordering::SeqCst);
                told.fetch_add(1, Ordering::SeqCst);
                let reset = time::OffsetDateTime::now_utc().unix_timestamp() + 3;
                headers.insert("x-ratelimit-reset", HeaderValue::from(reset));
            }
            *response.headers_mut().expect("a builder") = headers;
            response
                .body(axum::body::Body::from(
                    answer.bytes().await.expect("a body"),
                ))
                .expect("a response")
        }
    };
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind");
    let base_url = format!("http://{}", listener.local_addr().expect("addr"));
    let app = axum::Router::new().fallback(forward);
    tokio::spawn(async move { axum::serve(listener, app).await.expect("serves") });
    (base_url, waits)
}

/// Item 11: off a terminal, the job's success paths print nothing: a
/// snapshot recorded, "nothing recorded" under `--if-older-than`, a wait for
/// another job's lock, a wait for the rate limit. `--verbose` says them.
#[tokio::test(flavor = "multi_thread")]
async fn a_snapshot_job_that_succeeds_is_silent_off_a_terminal() {
    // A limit below a walk's requests (some 50 here), on the service's clock
    // that stands still: every walk waits for the rate limit
    // (`pacing_proxy`), once; each wait takes two to three real seconds.
    let window = time::Duration::seconds(2);
    let (server, clock) = server_with(|config| {
        config.rate_limit = vantage::server::ratelimit::RateLimit { limit: 30, window };
    })
    .await;
    let (proxy, waits) = pacing_proxy(server.base_url(), clock, window).await;
    let cli = Cli::new(proxy, ENTERPRISE_WS, ENTERPRISE_ADMIN);
    let store = database_store();
    let url = history_url(&store);
    let env = [("VANTAGE_HISTORY_URL", url.as_str())];
    let quiet = |run: &crate::cli::support::Run, what: &str| {
        assert_eq!(run.stderr, "", "{what}: stderr");
        assert_eq!(run.stdout, "", "{what}: stdout");
    };
    let taken = cli.run_env(&["snapshot"], &env).await.expect(0);
    quiet(&taken, "a snapshot paced by the rate limit");
    assert!(waits.load(Ordering::SeqCst) > 0, "the walk was never paced");
    assert_eq!(store.count("snapshot"), 1);
    let fresh = cli
        .run_env(&["snapshot", "--if-older-than", "1h"], &env)
        .await
        .expect(0);
    quiet(&fresh, "nothing recorded");
    let verbose = cli
        .run_env(&["snapshot", "--if-older-than", "1h", "--verbose"], &env)
        .await
        .expect(0);
    assert!(
        verbose.stderr.contains("nothing recorded"),
        "{}",
        verbose.stderr
    );
    // Waiting for another job's lock, then finding its snapshot fresh.
    let holder = frozen_holder(&store);
    let release = {
        let url = url.clone();
        async move {
            tokio::task::spawn_blocking(move || {
                await_lock_waiters(&url, 1);
                drop(holder);
            })
            .await
            .unwrap();
        }
    };
    let (waited, ()) = tokio::join!(
        cli.run_env(&["snapshot", "--if-older-than", "1h"], &env),
        release
    );
    quiet(&waited.expect(0), "a wait for another job's lock");
    // --verbose tells of the rate limit's waits.
    let told = cli
        .run_env(&["snapshot", "--verbose"], &env)
        .await
        .expect(0);
    assert!(
        told.stderr.contains("rate limit reached") && told.stderr.contains("recorded"),
        "{}",
        told.stderr
    );
    server.stop().await;
}

/// The backend of the connection that holds an advisory lock, other than
/// `mine`: the snapshot job's, once it took the workspace's lock.
fn lock_holder(url: &str) -> i32 {
    let deadline = Instant::now() + Duration::from_secs(60);
    let mut client = ::postgres::Client::connect(url, ::postgres::NoTls).unwrap();
    loop {
        let holder = client
            .query_opt(
                // objsubid 1: a one-key lock, as a workspace's (migrations
                // take two-key ones).
                // This test's database only: others run beside it on the server.
                "SELECT pid FROM pg_locks WHERE locktype = 'advisory' AND granted \
                 AND objsubid = 1 AND pid <> pg_backend_pid() \
                 AND database = (SELECT oid FROM pg_database WHERE datname = current_database()) \
                 LIMIT 1",
                &[],
            )
            .unwrap();
        if let Some(row) = holder {
            return row.get(0);
        }
        assert!(Instant::now() < deadline, "the job never took its lock");
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Item 12: a snapshot whose database connection dies while it walks a slow
/// service stops with exit 7 before the service answered even once, instead
/// of walking on to the end (hours here) and only then failing to record.
/// No wall-clock bound is measured: the service holds every answer for ten
/// minutes, so a job that ends at all before its first answer stopped on
/// the lost connection; the patience below only ends a test that would hang.
#[tokio::test(flavor = "multi_thread")]
async fn a_snapshot_stops_as_soon_as_its_database_connection_is_gone() {
    let (server, _clock) = server_with(|config| {
        config.rate_limit = vantage::server::ratelimit::RateLimit {
            limit: 100_000,
            window: time::Duration::seconds(60),
        };
        config.faults = "latency=600000..600000ms".parse().unwrap();
    })
    .await;
    let cli = Cli::new(server.base_url(), ENTERPRISE_WS, ENTERPRISE_ADMIN);
    let store = database_store();
    // Migrated before: the job's first lock is the workspace's.
    off_runtime(|| drop(store.open()));
    let url = history_url(&store);
    let env = [("VANTAGE_HISTORY_URL", url.as_str())];
    let terminate = {
        let url = url.clone();
        tokio::task::spawn_blocking(move || {
            let pid = lock_holder(&url);
            let mut admin = ::postgres::Client::connect(&url, ::postgres::NoTls).unwrap();
            admin
                .execute("SELECT pg_terminate_backend($1)", &[&pid])
                .unwrap();
        })
    };
    let patience = Duration::from_secs(300);
    let run = tokio::time::timeout(patience, cli.run_env(&["snapshot"], &env))
        .await
        .expect("the job walked on after its connection was gone");
    terminate.await.unwrap();
    let run = run.expect(7);
    assert!(run.stderr.contains("cannot reach"), "{}", run.stderr);
    assert_eq!(store.count("snapshot"), 0);
    // Not `stop()`: that would wait out the answers the service still holds.
    drop(server);
}

/// Item 14: `history migrate --dry-run` says what a migration would do and
/// changes nothing, on both stores; `history migrate` does it; a history a
/// newer vantage wrote is named, and nothing is migrated.
#[tokio::test(flavor = "multi_thread")]
async fn history_migrate_dry_run_says_what_it_would_do_on_both_stores() {
    let cli = Cli::new("http://127.0.0.1:9", ENTERPRISE_WS, ENTERPRISE_ADMIN);
    for store in each_store() {
        let url = history_url(&store);
        let env = [("VANTAGE_HISTORY_URL", url.as_str())];
        let name = store.name();
        let dry = cli
            .run_env(&["history", "migrate", "--dry-run"], &env)
            .await
            .expect(0);
        match &store.location {
            HistoryLocation::File(path) => {
                assert!(dry.stdout.contains("none yet"), "{name}: {}", dry.stdout);
                assert!(!path.exists(), "the dry run created the file");
            }
            HistoryLocation::Database(_) => {
                let newest = vantage::history::PG_SCHEMA_VERSION;
                assert!(
                    dry.stdout.contains(&format!(
                        "has schema version 0; migrating takes it to {newest}"
                    )) && dry.stdout.contains("version 1: the tables")
                        && dry.stdout.contains(&format!("version {newest}: ")),
                    "{name}: {}",
                    dry.stdout
                );
                let tables = store.count("information_schema.tables WHERE table_name = 'snapshot'");
                assert_eq!(tables, 0, "the dry run created tables");
            }
        }
        let migrated = cli.run_env(&["history", "migrate"], &env).await.expect(0);
        assert!(
            migrated.stdout.contains("migrated") || migrated.stdout.contains("none yet"),
            "{name}: {}",
            migrated.stdout
        );
        // The file exists once a store opened it.
        off_runtime(|| drop(store.open()));
        let again = cli
            .run_env(&["history", "migrate", "--dry-run"], &env)
            .await
            .expect(0);
        assert!(
            again.stdout.contains("nothing to migrate"),
            "{name}: {}",
            again.stdout
        );
        store.execute(
            "PRAGMA user_version = 99",
            "UPDATE vantage_meta SET value = 99 WHERE key = 'schema_version'",
        );
        let newer = cli
            .run_env(&["history", "migrate", "--dry-run"], &env)
            .await
            .expect(0);
        assert!(
            newer
                .stdout
                .contains("schema version 99, newer than this vantage's"),
            "{name}: {}",
            newer.stdout
        );
    }
}

/// Issue 39: the default retention set from the environment, as a unit or a
/// CronJob sets it without a config file: a snapshot job keeps the newest
/// `VANTAGE_RETENTION_SNAPSHOTS`, `snapshot prune` likewise, its `--keep` wins
/// over the variable, and a value that is not a count is refused, named.
#[tokio::test(flavor = "multi_thread")]
async fn the_default_retention_comes_from_the_environment() {
    let server = crate::cli::review_marks::roomy_server().await;
    let cli = Cli::new(server.base_url(), ENTERPRISE_WS, ENTERPRISE_ADMIN);
    for store in each_store() {
        let url = history_url(&store);
        let kept =
            |store: &TestStore| off_runtime(|| store.open().list(ENTERPRISE_WS).unwrap().len());
        let keeping = |count: &'static str| {
            [
                ("VANTAGE_HISTORY_URL", url.as_str()),
                ("VANTAGE_RETENTION_SNAPSHOTS", count),
            ]
        };
        for _ in 0..3 {
            cli.run_env(&["snapshot"], &keeping("2")).await.expect(0);
        }
        assert_eq!(kept(&store), 2, "{} store: the job kept two", store.name());
        cli.run_env(&["snapshot", "prune", "--keep", "2"], &keeping("1"))
            .await
            .expect(0);
        assert_eq!(kept(&store), 2, "{} store: --keep wins", store.name());
        cli.run_env(&["snapshot", "prune"], &keeping("1"))
            .await
            .expect(0);
        assert_eq!(kept(&store), 1, "{} store: prune kept one", store.name());
        let bad = [
            ("VANTAGE_HISTORY_URL", url.as_str()),
            ("VANTAGE_RETENTION_DAYS", "a year"),
        ];
        let run = cli.run_env(&["snapshot", "prune"], &bad).await;
        assert_ne!(run.code, 0, "{} store: {}", store.name(), run.stderr);
        assert!(
            run.stderr.contains("VANTAGE_RETENTION_DAYS is \"a year\""),
            "{} store: {}",
            store.name(),
            run.stderr
        );
        assert_eq!(kept(&store), 1, "{} store: nothing removed", store.name());
    }
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

/// A newest snapshot dated in the future (a teammate's
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
