//! The shared history's connection lives on a thread of the store's own:
//! a store used and dropped on the runtime's one thread works, and its
//! session ends without the dropping thread waiting for it; a reader that
//! stops a read leaves the connection ready for the next call.

use std::time::{Duration, Instant};

use time::OffsetDateTime;
use vantage::history::{HistoryError, LogRead, Store};

use crate::cli::history::offline_mark;
use crate::cli::stores::{database_store, off_runtime};

/// The sessions on the test's database other than the one asking.
fn sessions(url: &str) -> i64 {
    let url = url.to_owned();
    off_runtime(move || {
        let mut client = ::postgres::Client::connect(&url, ::postgres::NoTls).unwrap();
        client
            .query_one(
                "SELECT COUNT(*) FROM pg_stat_activity \
                 WHERE datname = current_database() AND pid <> pg_backend_pid()",
                &[],
            )
            .unwrap()
            .get(0)
    })
}

/// Waits (bounded) until the database holds `wanted` other sessions.
fn await_sessions(url: &str, wanted: i64) {
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let now = sessions(url);
        if now == wanted {
            return;
        }
        assert!(Instant::now() < deadline, "{now} sessions, not {wanted}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn a_store_used_and_dropped_on_the_runtimes_thread_works_and_ends_its_session() {
    let db = database_store();
    let url = db.url.clone().unwrap();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let now = OffsetDateTime::now_utc();
    runtime.block_on(async {
        // Connecting, writing, reading and dropping all on the runtime's thread.
        let mut store = Store::open_at(&db.location).unwrap();
        store
            .mark_reviewed("ws_x", &offline_mark("p1", Some("ok")), now)
            .unwrap();
        assert_eq!(store.reviewed_marks("ws_x").unwrap().len(), 1);
        assert_eq!(sessions(&url), 1, "one connection for every call");
        drop(store);
    });
    // The store's thread closes the session by itself.
    await_sessions(&url, 0);
}

#[test]
fn a_reader_that_stops_a_read_gets_its_own_error_and_the_connection_stays_ready() {
    let db = database_store();
    let url = db.url.clone().unwrap();
    let mut store = db.open();
    let now = OffsetDateTime::now_utc();
    // More entries than one relayed page.
    let marks: Vec<_> = (0..600)
        .map(|n| offline_mark(&format!("p{n}"), None))
        .collect();
    store.mark_all_reviewed("ws_x", &marks, now).unwrap();
    let mut read = 0;
    let stopped = store.each_review_entry("ws_x", None, LogRead::Shown, &mut |_| {
        read += 1;
        if read == 3 {
            return Err(HistoryError::Url("the reader's own".into()));
        }
        Ok(())
    });
    assert!(
        matches!(&stopped, Err(HistoryError::Url(said)) if said == "the reader's own"),
        "{stopped:?}"
    );
    assert_eq!(read, 3, "nothing handed over after the reader stopped");
    assert_eq!(
        store
            .review_log("ws_x", None, LogRead::Shown)
            .unwrap()
            .len(),
        600
    );
    let mut rows = 0;
    store
        .each_chain_row("ws_x", &mut |_| {
            rows += 1;
            rows < 10
        })
        .unwrap();
    assert_eq!(rows, 10, "a chain walk told to stop stops");
    assert_eq!(store.verify_review_log("ws_x").unwrap().entries, 600);
    assert_eq!(sessions(&url), 1, "the same connection throughout");
}
