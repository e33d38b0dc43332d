//! The database's ranges on a real PostgreSQL (the tests' own server).

#[allow(dead_code, clippy::disallowed_macros)]
#[path = "../../../../tests/it/common/postgres.rs"]
mod server;

use super::*;
use crate::history::{HistoryLocation, PgTarget, Store};

/// A day's recording compares the new list with the open ranges without
/// reading `state` (every state the history keeps): joined to it, a year of
/// history made a day 1.22 times as long (issue 39, row 22f).
#[test]
fn the_open_ranges_are_read_without_the_states() {
    let url = std::thread::spawn(server::fresh_database).join().unwrap();
    let target = PgTarget::parse(&url, None).unwrap();
    // Brought up to the current schema.
    drop(Store::open_at(&HistoryLocation::Database(target)).unwrap());
    std::thread::spawn(move || {
        let mut client = postgres::Client::connect(&url, postgres::NoTls).unwrap();
        for kind in [ProjectState::KIND, MemberState::KIND] {
            let plan: Vec<String> = client
                .query(&format!("EXPLAIN {}", open_ranges(kind)), &[&"ws_x"])
                .unwrap()
                .iter()
                .map(|row| row.get(0))
                .collect();
            let plan = plan.join("\n");
            assert!(plan.contains(&format!(" on {kind}_range")), "{plan}");
            assert!(!plan.contains(" on state"), "{kind}: {plan}");
        }
    })
    .join()
    .unwrap();
}
