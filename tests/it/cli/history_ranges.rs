//! Validity ranges, posture and `snapshot prune --keep-*` on both stores: a
//! snapshot costs what changed, `changes` reads only what turned over, each
//! rule of the prune keeps what restic would, a snapshot a mark refers to
//! stays, and the states only removed snapshots held go with them.

use time::{Duration, OffsetDateTime};
use vantage::history::retention::{KeepPolicy, KeepReason};
use vantage::history::waivers::NewWaiver;
use vantage::history::{ProjectState, Retention, Store};

use crate::cli::history::{capture, offline_mark, project};
use crate::cli::stores::{TestStore, database_store, each_store, file_store, off_runtime};

/// Sunday 2026-03-01 at noon: in the past, as a shared history requires.
const T0: OffsetDateTime = time::macros::datetime!(2026-03-01 12:00 UTC);

/// Keeps everything: the tests prune by rule.
const KEEP_ALL: Retention = Retention {
    max_age: Duration::days(10_000),
    max_snapshots: 100_000,
};

/// Every 12 hours from [`T0`]: snapshots `from..to`, project p1 renamed in
/// each, p2 never.
fn twice_daily(store: &mut Store, count: std::ops::Range<i64>) -> Vec<i64> {
    count
        .map(|n| {
            let at = T0 + Duration::hours(12 * n);
            let projects = vec![project("p1", &format!("take {n}")), project("p2", "same")];
            store
                .record(&capture(at, projects, vec![]), KEEP_ALL)
                .unwrap()
                .id
        })
        .collect()
}

fn remaining(store: &Store) -> Vec<i64> {
    store.list("ws_x").unwrap().iter().map(|s| s.id).collect()
}

fn prune(store: &mut Store, policy: KeepPolicy) -> Vec<i64> {
    let outcome = store.prune_keeping("ws_x", policy, false).unwrap();
    assert!(outcome.applied);
    remaining(store)
}

fn on_each(test: fn(&TestStore)) {
    for on in each_store() {
        off_runtime(|| test(&on));
    }
}

#[test]
fn a_snapshot_in_which_nothing_changed_costs_no_range() {
    on_each(|on| {
        let mut store = on.open();
        let projects: Vec<ProjectState> =
            (0..50).map(|n| project(&format!("p{n}"), "same")).collect();
        for day in 0..3 {
            let at = T0 + Duration::days(day);
            store
                .record(&capture(at, projects.clone(), vec![]), KEEP_ALL)
                .unwrap();
        }
        assert_eq!(on.count("project_range"), 50, "{}", on.name());
        let mut changed = projects.clone();
        changed[7].name = Some("renamed".into());
        changed.swap(0, 1);
        let last = store
            .record(
                &capture(T0 + Duration::days(3), changed.clone(), vec![]),
                KEEP_ALL,
            )
            .unwrap();
        // The rename begins one range, the move another.
        assert_eq!(on.count("project_range"), 52, "{}", on.name());
        assert_eq!(store.projects(last.id).unwrap(), changed, "{}", on.name());
        assert_eq!(store.projects(1).unwrap(), projects, "{}", on.name());

        // Between the first and the last only what turned over is read.
        let turnover = store.turnover("ws_x", 1, last.id).unwrap();
        let ids = |states: &[ProjectState]| {
            let mut ids: Vec<String> = states.iter().map(|p| p.id.clone()).collect();
            ids.sort();
            ids
        };
        // p7, and whichever of p0 and p1 is taken to have moved.
        let before = ids(&turnover.projects.0);
        assert_eq!(before.len(), 2, "{before:?} ({})", on.name());
        assert!(before.contains(&"p7".to_owned()), "{before:?}");
        assert_eq!(ids(&turnover.projects.1), before, "{}", on.name());
        let first = store
            .resolve("ws_x", &vantage::history::SnapshotRef::Id(1))
            .unwrap()
            .unwrap();
        let changes = store.changes(&first, &last).unwrap();
        assert_eq!(changes.len(), 1, "{changes:?}");
        assert_eq!(changes[0].id, "p7");
        // And the other way round.
        let back = store.changes(&last, &first).unwrap();
        assert_eq!(back.len(), 1, "{back:?}");
        assert_eq!(back[0].before_snapshot, last.id);
    });
}

#[test]
fn keep_last_keeps_the_newest() {
    on_each(|on| {
        let mut store = on.open();
        let ids = twice_daily(&mut store, 0..6);
        let policy = KeepPolicy {
            last: 2,
            ..KeepPolicy::default()
        };
        assert_eq!(prune(&mut store, policy), ids[4..], "{}", on.name());
        // p1's states of the removed snapshots went with them; p2's one stays.
        assert_eq!(on.count("state WHERE kind = 'project'"), 3, "{}", on.name());
        assert_eq!(on.count("project_range"), 3, "{}", on.name());
    });
}

#[test]
fn keep_daily_keeps_the_newest_of_each_day() {
    on_each(|on| {
        let mut store = on.open();
        let ids = twice_daily(&mut store, 0..6);
        let policy = KeepPolicy {
            daily: 2,
            ..KeepPolicy::default()
        };
        // 03-01 holds 12:00; 03-02 and 03-03 00:00 and 12:00; 03-04 00:00.
        assert_eq!(prune(&mut store, policy), [ids[4], ids[5]], "{}", on.name());
    });
}

#[test]
fn keep_weekly_keeps_the_newest_of_each_iso_week() {
    on_each(|on| {
        let mut store = on.open();
        // Every day for three weeks from Sunday 2026-11-22.
        let ids: Vec<i64> = (0..15)
            .map(|day| {
                let at = T0 + Duration::days(day);
                let projects = vec![project("p1", &format!("day {day}"))];
                store
                    .record(&capture(at, projects, vec![]), KEEP_ALL)
                    .unwrap()
                    .id
            })
            .collect();
        let policy = KeepPolicy {
            weekly: 2,
            ..KeepPolicy::default()
        };
        // Sunday 03-08 ends a week; Sunday 03-15, the newest, the next.
        assert_eq!(
            prune(&mut store, policy),
            [ids[7], ids[14]],
            "{}",
            on.name()
        );
    });
}

#[test]
fn keep_monthly_keeps_the_newest_of_each_month() {
    on_each(|on| {
        let mut store = on.open();
        let ids: Vec<i64> = (0..30)
            .map(|n| {
                let at = T0 + Duration::days(3 * n);
                let projects = vec![project("p1", &format!("take {n}"))];
                store
                    .record(&capture(at, projects, vec![]), KEEP_ALL)
                    .unwrap()
                    .id
            })
            .collect();
        let month = |id: i64| {
            let taken: OffsetDateTime = store
                .resolve("ws_x", &vantage::history::SnapshotRef::Id(id))
                .unwrap()
                .unwrap()
                .taken_at;
            (taken.year(), taken.month())
        };
        let last_of_each: Vec<i64> = ids
            .windows(2)
            .filter(|pair| month(pair[0]) != month(pair[1]))
            .map(|pair| pair[0])
            .chain(std::iter::once(*ids.last().unwrap()))
            .collect();
        let policy = KeepPolicy {
            monthly: 2,
            ..KeepPolicy::default()
        };
        let expected = last_of_each[last_of_each.len() - 2..].to_vec();
        assert_eq!(prune(&mut store, policy), expected, "{}", on.name());
    });
}

#[test]
fn a_dry_run_says_what_would_go_and_removes_nothing() {
    on_each(|on| {
        let mut store = on.open();
        let ids = twice_daily(&mut store, 0..4);
        let policy = KeepPolicy {
            last: 1,
            ..KeepPolicy::default()
        };
        let outcome = store.prune_keeping("ws_x", policy, true).unwrap();
        assert!(!outcome.applied);
        let going: Vec<i64> = outcome.removed().map(|s| s.id).collect();
        assert_eq!(going, ids[..3], "{}", on.name());
        assert_eq!(remaining(&store), ids, "{}", on.name());
    });
}

#[test]
fn a_snapshot_a_standing_mark_refers_to_is_kept_and_said() {
    on_each(|on| {
        let mut store = on.open();
        let ids = twice_daily(&mut store, 0..2);
        // Marked while snapshot 2 was the newest: the mark holds its state of p1.
        store
            .mark_reviewed("ws_x", &offline_mark("p1", None), T0 + Duration::hours(13))
            .unwrap();
        let later = twice_daily(&mut store, 2..5);
        let policy = KeepPolicy {
            last: 1,
            ..KeepPolicy::default()
        };
        let outcome = store.prune_keeping("ws_x", policy, false).unwrap();
        let marked = outcome
            .verdicts
            .iter()
            .find(|v| v.snapshot.id == ids[1])
            .unwrap();
        assert_eq!(
            marked.kept,
            [KeepReason::Marked("p1".into())],
            "{}",
            on.name()
        );
        assert_eq!(remaining(&store), [ids[1], later[2]], "{}", on.name());
        // The mark still reads its reviewed state, and sees the change since.
        let marks = store.reviewed_marks("ws_x").unwrap();
        assert_eq!(marks[0].changed_since_review, Some(true), "{}", on.name());

        // Unmarked, the snapshot is no longer needed.
        store
            .unmark_reviewed("ws_x", "p1", None, T0 + Duration::days(5))
            .unwrap();
        assert_eq!(prune(&mut store, policy), [later[2]], "{}", on.name());
        // The retention of `record` keeps it too, while a mark needs it.
        store
            .mark_reviewed("ws_x", &offline_mark("p1", None), T0 + Duration::days(5))
            .unwrap();
        let keep_one = Retention {
            max_age: Duration::days(10_000),
            max_snapshots: 1,
        };
        let newest = store
            .record(
                &capture(T0 + Duration::days(6), vec![project("p1", "x")], vec![]),
                keep_one,
            )
            .unwrap();
        assert_eq!(remaining(&store), [later[2], newest.id], "{}", on.name());
    });
}

fn waiver(policy: &str, project: &str, until: OffsetDateTime) -> NewWaiver {
    NewWaiver {
        policy_id: policy.into(),
        project_id: project.into(),
        reason: "accepted for the launch".into(),
        until,
        by: Some("ana".into()),
    }
}

/// A standing waiver (the newest of its policy and project, not run out)
/// holds the snapshot it was given against: the newest then that held its
/// project, whose state it accepted. One that ran out, one given before any
/// snapshot held its project, and one a newer waiver stands in for hold none.
fn a_standing_waiver_holds_the_snapshot_it_was_given_against(on: &TestStore) {
    let mut store = on.open();
    let ids = twice_daily(&mut store, 0..2);
    let far = OffsetDateTime::now_utc() + Duration::days(30);
    store
        .add_waiver(
            "ws_x",
            &waiver("public-pii", "p2", far),
            T0 + Duration::hours(13),
        )
        .unwrap();
    store
        .add_waiver(
            "ws_x",
            &waiver("inactive-owner", "p1", T0 + Duration::days(1)),
            T0 + Duration::hours(1),
        )
        .unwrap();
    store
        .add_waiver(
            "ws_x",
            &waiver("public-pii", "p9", far),
            T0 + Duration::hours(2),
        )
        .unwrap();
    let later = twice_daily(&mut store, 2..5);
    let policy = KeepPolicy {
        last: 1,
        ..KeepPolicy::default()
    };
    let outcome = store.prune_keeping("ws_x", policy, false).unwrap();
    let kept: Vec<(i64, Vec<KeepReason>)> = outcome
        .verdicts
        .iter()
        .filter(|v| !v.kept.is_empty())
        .map(|v| (v.snapshot.id, v.kept.clone()))
        .collect();
    assert_eq!(
        kept,
        [
            (
                ids[1],
                vec![KeepReason::Waived("public-pii for project p2".into())]
            ),
            (later[2], vec![KeepReason::Last]),
        ],
        "{}",
        on.name()
    );
    assert_eq!(
        KeepReason::Waived("public-pii for project p2".into()).describe(),
        "waiver public-pii for project p2"
    );
    assert_eq!(remaining(&store), [ids[1], later[2]], "{}", on.name());
    // A newer waiver of the policy and project stands in for the first: it
    // holds the newest snapshot, and the first one's snapshot may go.
    store
        .add_waiver(
            "ws_x",
            &waiver("public-pii", "p2", far),
            T0 + Duration::hours(49),
        )
        .unwrap();
    assert_eq!(prune(&mut store, policy), [later[2]], "{}", on.name());
}

#[test]
fn a_snapshot_a_standing_waiver_refers_to_is_kept_and_said_in_the_file() {
    let on = file_store();
    off_runtime(|| a_standing_waiver_holds_the_snapshot_it_was_given_against(&on));
}

#[test]
fn a_snapshot_a_standing_waiver_refers_to_is_kept_and_said_in_the_database() {
    let on = database_store();
    off_runtime(|| a_standing_waiver_holds_the_snapshot_it_was_given_against(&on));
}

#[test]
fn posture_is_counted_with_each_snapshot_and_read_in_one_go() {
    on_each(|on| {
        let mut store = on.open();
        let mut published = project("p2", "site");
        published.is_published = true;
        published.audience = Some("public".into());
        published.pii_open = Some(2);
        published.review_priority = "needs_review".into();
        let projects = vec![project("p1", "a"), published.clone()];
        store
            .record(&capture(T0, projects.clone(), vec![]), KEEP_ALL)
            .unwrap();
        store
            .mark_reviewed("ws_x", &offline_mark("p2", None), T0 + Duration::hours(1))
            .unwrap();
        let mut changed = projects.clone();
        changed[1].pii_open = Some(3);
        store
            .record(&capture(T0 + Duration::days(1), changed, vec![]), KEEP_ALL)
            .unwrap();
        let postures = store.posture("ws_x").unwrap();
        assert_eq!(postures.len(), 2, "{}", on.name());
        let (first, second) = (&postures[0].posture, &postures[1].posture);
        assert_eq!(first.projects, 2);
        assert_eq!(first.by_priority.get("needs_review"), Some(&1));
        assert_eq!(first.by_priority.get("unscored"), Some(&1));
        assert_eq!((first.published, first.public, first.with_pii), (1, 1, 1));
        assert_eq!(
            (first.reviewed, first.changed_since_review),
            (0, 0),
            "{}",
            on.name()
        );
        assert_eq!(
            (second.reviewed, second.changed_since_review),
            (1, 1),
            "{}",
            on.name()
        );
    });
}
