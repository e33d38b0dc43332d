//! Issue 33, item 8: the shared database's statement and lock timeouts. A
//! teammate's `LOCK TABLE review` ends `reviewed list` (exit 7, the reason
//! said) within the configured `lock_timeout_secs`, instead of hanging it.

use std::time::{Duration, Instant};

use crate::cli::stores::{database_store, off_runtime};
use crate::cli::support::Cli;
use crate::common::*;

#[tokio::test(flavor = "multi_thread")]
async fn a_teammates_table_lock_ends_reviewed_list_with_exit_7() {
    let shared = database_store();
    let url = shared.url.clone().unwrap();
    // The schema in place, as a teammate's vantage left it.
    off_runtime(|| drop(shared.open()));
    // The teammate holds the lock in an open transaction until told to stop.
    let (locked_tx, locked_rx) = std::sync::mpsc::channel();
    let (release_tx, release_rx) = std::sync::mpsc::channel::<()>();
    let teammate_url = url.clone();
    let teammate = std::thread::spawn(move || {
        let mut client = ::postgres::Client::connect(&teammate_url, ::postgres::NoTls).unwrap();
        let mut transaction = client.transaction().unwrap();
        transaction
            .batch_execute("LOCK TABLE review IN ACCESS EXCLUSIVE MODE")
            .unwrap();
        locked_tx.send(()).unwrap();
        let _ = release_rx.recv();
        transaction.rollback().unwrap();
    });
    locked_rx.recv().unwrap();
    let cli = Cli::new("http://127.0.0.1:9", ENTERPRISE_WS, ENTERPRISE_ADMIN);
    let config = cli.config_file("[history]\nlock_timeout_secs = 1\n");
    let started = Instant::now();
    // A bound for a vantage that hangs, far beyond the lock timeout.
    let run = tokio::time::timeout(
        Duration::from_secs(60),
        cli.run_env(
            &["--config", config.to_str().unwrap(), "reviewed", "list"],
            &[("VANTAGE_HISTORY_URL", url.as_str())],
        ),
    )
    .await;
    release_tx.send(()).unwrap();
    teammate.join().unwrap();
    let run = run.expect("reviewed list ends by itself while the table is locked");
    assert_eq!(run.code, 7, "{}", run.stderr);
    assert!(run.stderr.contains("lock_timeout"), "{}", run.stderr);
    assert!(
        run.stderr.contains("kept vantage waiting"),
        "{}",
        run.stderr
    );
    assert!(
        started.elapsed() < Duration::from_secs(30),
        "{:?}",
        started.elapsed()
    );
}
