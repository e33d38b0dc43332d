//! Issue 24: the newest snapshot's state of one project, which the project
//! screen shows (labelled with the snapshot's age) when its row is not loaded.

use time::macros::datetime;
use vantage::history::Retention;

use crate::cli::history::{capture, project};
use crate::cli::stores::{TestStore, each_store};

#[test]
fn the_newest_snapshots_state_of_a_project_is_read_by_id() {
    for on in each_store() {
        newest_state_on(&on);
    }
}

fn newest_state_on(on: &TestStore) {
    let mut store = on.open();
    let keep = Retention {
        max_age: time::Duration::days(90),
        max_snapshots: 10,
    };
    let t0 = datetime!(2026-11-20 12:00 UTC);
    let t1 = t0 + time::Duration::days(1);
    assert_eq!(store.latest_project_state("ws_x", "p1").unwrap(), None);
    let old = vec![project("p1", "before"), project("gone", "only then")];
    store.record(&capture(t0, old, vec![]), keep).unwrap();
    let mut renamed = project("p1", "after");
    renamed.pii_open = Some(2);
    store
        .record(&capture(t1, vec![renamed.clone()], vec![]), keep)
        .unwrap();

    let (info, state) = store.latest_project_state("ws_x", "p1").unwrap().unwrap();
    assert_eq!((info.taken_at, state), (t1, renamed));
    // Only the newest snapshot counts: an older one's facts are not passed off as current.
    assert_eq!(store.latest_project_state("ws_x", "gone").unwrap(), None);
    assert_eq!(store.latest_project_state("ws_y", "p1").unwrap(), None);
}
