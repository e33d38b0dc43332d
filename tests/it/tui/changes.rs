//! The review history in the dashboard: the Changes screen (grouped, filtered,
//! `Enter` to the project), the instant start (snapshot data first, then the
//! live replies), the background snapshot and reviewed marks. Synthetic
//! replies, a fixed clock, snapshots on ratatui's TestBackend.

#![allow(clippy::result_large_err)]

use crossterm::event::KeyCode;
use serde_json::{Value, json};
use time::macros::datetime;
use time::{Duration, OffsetDateTime};
use vantage::api::model::{Insights, InventoryItem, InventoryPage};
use vantage::history::{Change, ChangeKind, ReviewMark, SnapshotInfo};
use vantage::tui::app::{App, ClientNotice, Msg, SnapshotSeed};
use vantage::tui::effect::ErrorInfo;
use vantage::tui::nav::Tab;
use vantage::tui::vocab::ChangeSet;

use crate::common::items::inventory_item;
use crate::tui::support::special;
use crate::tui::support::{answer, asked_in, first_in, only};
use crate::tui::support::{answer_inventory_page, inventory_pages};
use crate::tui::support::{app, drawn, key};
use vantage::tui::app::{HistoryMsg, REVIEW_MARK, REVIEW_MARKS, TAKE_SNAPSHOT};
use vantage::tui::review::ops::{DiffSnapshots, ListSnapshots};
use vantage::tui::review::ops::{ListMarks, MarkReviewed, TakeSnapshot};
use vantage::tui::screens::changes;
use vantage::tui::screens::insights;
use vantage::tui::vocab::SnapshotOutcome;

const NOW: OffsetDateTime = datetime!(2026-11-22 12:00 UTC);
const BEFORE_AT: OffsetDateTime = datetime!(2026-11-21 09:00 UTC);
const AFTER_AT: OffsetDateTime = datetime!(2026-11-22 09:00 UTC);

/// The whole frame at `NOW`, as text.
pub(crate) fn screen(app: &App, width: u16, height: u16) -> String {
    drawn(app, width, height, NOW).full()
}

fn info(id: i64, taken_at: OffsetDateTime) -> SnapshotInfo {
    SnapshotInfo {
        id,
        workspace_id: "ws_test".into(),
        taken_at,
        projects: 40,
        members: 12,
    }
}

fn change(kind: ChangeKind, id: &str, name: &str, before: Value, after: Value) -> Change {
    Change {
        kind,
        id: id.into(),
        name: Some(name.into()),
        before,
        after,
        before_snapshot: 1,
        before_at: BEFORE_AT,
        after_snapshot: 2,
        after_at: AFTER_AT,
    }
}

/// Changes of several kinds, in no particular order, one name hostile.
pub(crate) fn change_set() -> ChangeSet {
    ChangeSet {
        before: Some(info(1, BEFORE_AT)),
        after: Some(info(2, AFTER_AT)),
        changes: vec![
            change(
                ChangeKind::Renamed,
                "prj_0003",
                "Garden map v2",
                json!("Garden map"),
                json!("Garden map v2"),
            ),
            change(
                ChangeKind::MemberJoined,
                "usr_0009",
                "Grace \u{1b}[31mHopper",
                Value::Null,
                json!("member"),
            ),
            change(
                ChangeKind::Published,
                "prj_0001",
                "Clinic portal",
                json!(false),
                json!(true),
            ),
            change(
                ChangeKind::PriorityRaised,
                "prj_0002",
                "Budget tracker",
                json!("no_review_needed"),
                json!("needs_review"),
            ),
            change(
                ChangeKind::Published,
                "prj_0004",
                "Fleet planner",
                json!(false),
                json!(true),
            ),
            change(
                ChangeKind::AudienceChanged,
                "prj_0001",
                "Clinic portal",
                json!("workspace"),
                json!("public"),
            ),
            change(
                ChangeKind::FindingTypeAdded,
                "prj_0002",
                "Budget tracker",
                Value::Null,
                json!("exposed_secrets"),
            ),
        ],
    }
}

/// A started app with a history, on the Changes tab with `set` loaded.
pub(crate) fn changes_app(set: ChangeSet) -> App {
    let mut app = app();
    app.review.enabled = true;
    app.start(NOW);
    let effects = app.handle(key('7'), NOW);
    assert_eq!(app.tab, Tab::Changes);
    let diff = only(&effects, changes::CHANGES);
    assert_eq!(diff.op::<DiffSnapshots>(), &DiffSnapshots { between: None });
    app.handle(diff.ok(set), NOW);
    app
}

#[test]
fn changes_are_grouped_by_kind_most_serious_first() {
    let app = changes_app(change_set());
    let kinds: Vec<&str> = app
        .changes
        .list
        .rows
        .iter()
        .map(|c| c.kind.as_str())
        .collect();
    assert_eq!(
        kinds,
        [
            "published",
            "published",
            "audience_changed",
            "priority_raised",
            "finding_type_added",
            "member_joined",
            "renamed"
        ]
    );
    let wide = drawn(&app, 120, 35, NOW).body();
    assert!(!wide.contains('\u{1b}'), "a hostile name is sanitized");
    insta::assert_snapshot!("changes_120x35", wide);
    insta::assert_snapshot!("changes_80x24", drawn(&app, 80, 24, NOW).body());
}

#[test]
fn changes_filtered_by_kind() {
    let mut app = changes_app(change_set());
    app.handle(key('/'), NOW);
    // The menu: all kinds, then the kinds present, most serious first.
    insta::assert_snapshot!("changes_kind_menu_80x24", drawn(&app, 80, 24, NOW).body());
    app.handle(key('j'), NOW);
    app.handle(special(KeyCode::Enter), NOW);
    assert_eq!(app.changes.kind_filter, Some(ChangeKind::Published));
    assert_eq!(app.changes.list.rows.len(), 2);
    insta::assert_snapshot!("changes_filtered_120x35", drawn(&app, 120, 35, NOW).body());
    insta::assert_snapshot!("changes_filtered_80x24", drawn(&app, 80, 24, NOW).body());
    // `c` shows every kind again.
    app.handle(key('c'), NOW);
    assert_eq!(app.changes.list.rows.len(), 7);
}

#[test]
fn enter_opens_the_project_of_a_project_change_only() {
    let mut app = changes_app(change_set());
    // Down to the member change (sixth row): Enter says where members are.
    for _ in 0..5 {
        app.handle(key('j'), NOW);
    }
    app.handle(special(KeyCode::Enter), NOW);
    assert!(app.project.is_none());
    app.handle(key('k'), NOW);
    let effects = app.handle(special(KeyCode::Enter), NOW);
    assert_eq!(app.tab, Tab::Inventory);
    let project = app.project.as_ref().expect("the project screen is open");
    assert_eq!(project.target.id, "prj_0002");
    assert!(
        !crate::tui::support::asked_in(&effects, vantage::tui::screens::project::PROJECT)
            .is_empty(),
        "the project screen reads the project"
    );
}

#[test]
fn two_snapshots_are_picked_from_a_list_with_their_times() {
    let mut app = changes_app(change_set());
    let effects = app.handle(key('R'), NOW);
    let list = only(&effects, changes::SNAPSHOTS);
    assert_eq!(list.op::<ListSnapshots>(), &ListSnapshots);
    let snapshots = vec![
        info(1, datetime!(2026-11-20 09:00 UTC)),
        info(2, BEFORE_AT),
        info(3, AFTER_AT),
    ];
    app.handle(list.ok(snapshots), NOW);
    let text = screen(&app, 120, 35);
    assert!(text.contains("Compare from"), "{text}");
    assert!(text.contains("#1  2026-11-20 09:00"), "{text}");
    // The older: #1 (second from the top of newest-first #2, #1).
    app.handle(key('j'), NOW);
    app.handle(special(KeyCode::Enter), NOW);
    assert!(screen(&app, 120, 35).contains("Compare to"));
    // The newer: #2 is below #3.
    app.handle(key('j'), NOW);
    let effects = app.handle(special(KeyCode::Enter), NOW);
    let diff = only(&effects, changes::CHANGES);
    assert_eq!(
        diff.op::<DiffSnapshots>(),
        &DiffSnapshots {
            between: Some((1, 2))
        }
    );
}

fn insights(total: i64) -> Insights {
    serde_json::from_value(json!({
        "as_of": null,
        "findings": [{"id": "exposed_secrets", "title": "Exposed secrets", "description": "d",
                      "category": "security", "review_priority": "needs_review", "project_count": 3}],
        "summary": {
            "total_projects": {"value": total, "delta_30d": 0, "delta_window": "30d"},
            "externally_published": {"value": 7, "delta_30d": 0, "delta_window": "30d"},
            "workspace_members": {"value": 12, "delta_30d": 0, "delta_window": "30d"},
            "risk": {"needs_review": 3, "no_review_needed": 30, "review_recommended": 7}
        }
    }))
    .unwrap()
}

fn item(id: &str, name: &str) -> Value {
    inventory_item(json!({"id": id, "name": name}))
}

fn page(items: Vec<Value>) -> InventoryPage {
    serde_json::from_value(json!({
        "data": items,
        "pagination": {"has_more": false, "next_cursor": null},
        "total": 2, "as_of": null, "activity_as_of": null, "applied_finding": null
    }))
    .unwrap()
}

#[test]
fn the_instant_start_draws_the_snapshot_then_the_live_replies_replace_it() {
    let mut app = app();
    app.review.enabled = true;
    let snapshot_items: Vec<InventoryItem> =
        serde_json::from_value(json!([item("prj_old", "Snapshot project")])).unwrap();
    app.review.seed = Some(SnapshotSeed {
        taken_at: NOW - Duration::minutes(42),
        insights: Some(insights(4242)),
        first_page: Some(snapshot_items),
    });
    let effects = app.start(NOW);
    // The live data is asked for at once, beside the snapshot's.
    let insights_token = only(&effects, insights::INSIGHTS).token;
    let (page_token, _) = inventory_pages(&effects)
        .into_iter()
        .next()
        .expect("live first page");
    let first = screen(&app, 120, 35);
    assert!(first.contains("from snapshot, 42 min ago"), "{first}");
    assert!(first.contains("4,242"), "the snapshot's total: {first}");
    app.handle(key('2'), NOW);
    assert!(screen(&app, 120, 35).contains("Snapshot project"));
    assert!(app.from_snapshot());

    // The live replies land: the snapshot's data and its label are gone.
    app.handle(
        answer_inventory_page(
            page_token,
            page(vec![item("prj_a", "Live one"), item("prj_b", "Live two")]),
        ),
        NOW,
    );
    let inventory = screen(&app, 120, 35);
    assert!(inventory.contains("Live one") && inventory.contains("Live two"));
    assert!(!inventory.contains("Snapshot project"), "{inventory}");
    assert_eq!(app.inventory.list.rows.len(), 2);
    assert!(
        inventory.contains("from snapshot"),
        "insights still the snapshot's"
    );
    app.handle(
        answer(
            insights::INSIGHTS,
            insights_token,
            Ok(insights(5150)),
            insights::Msg::Loaded,
        ),
        NOW,
    );
    assert!(!app.from_snapshot());
    app.handle(key('1'), NOW);
    let live = screen(&app, 120, 35);
    assert!(live.contains("5,150") && !live.contains("4,242"), "{live}");
    assert!(!live.contains("from snapshot"), "{live}");
}

#[test]
fn a_due_snapshot_runs_in_the_background_shows_progress_and_refreshes_changes() {
    let mut app = changes_app(change_set());
    assert!(!app.review.snapshot_running());
    // A new app whose newest snapshot is old.
    let mut due = self::app();
    due.review.enabled = true;
    due.review.snapshot_due = true;
    let effects = due.start(NOW);
    let snapshot = first_in(&effects, TAKE_SNAPSHOT).expect("a snapshot is taken");
    assert_eq!(snapshot.op::<TakeSnapshot>(), &TakeSnapshot);
    assert!(due.review.snapshot_running());
    due.handle(
        Msg::Client(ClientNotice::Snapshot("snapshot: inventory 300".into())),
        NOW,
    );
    assert!(screen(&due, 120, 35).contains("snapshot: inventory 300"));
    // Never two at once.
    let mut effects = Vec::new();
    let mut navs = Vec::new();
    let mut next = 1000;
    due.take_snapshot(&mut vantage::tui::effect::Cx::new(
        NOW,
        "ws_test",
        vantage::api::page::DEFAULT_MAX_WALK_ITEMS,
        &mut effects,
        &mut navs,
        &mut next,
    ));
    assert!(first_in(&effects, TAKE_SNAPSHOT).is_none());
    // It fails: one line in the error log, and the dashboard goes on.
    let failure = ErrorInfo {
        status: Some(503),
        kind: Some("service_unavailable".into()),
        detail: None,
        request_id: None,
        summary: "the service is unavailable".into(),
        gate: None,
        at: NOW,
    };
    due.handle(snapshot.fail(failure), NOW);
    assert!(!due.review.snapshot_running());
    assert_eq!(due.errors.len(), 1);
    assert!(screen(&due, 120, 35).contains("background snapshot failed"));

    // On the Changes screen, a snapshot that lands reloads the diff.
    let mut effects = Vec::new();
    let mut navs = Vec::new();
    let mut next = 1000;
    app.take_snapshot(&mut vantage::tui::effect::Cx::new(
        NOW,
        "ws_test",
        vantage::api::page::DEFAULT_MAX_WALK_ITEMS,
        &mut effects,
        &mut navs,
        &mut next,
    ));
    let snapshot = first_in(&effects, TAKE_SNAPSHOT).expect("taken");
    let effects = app.handle(snapshot.ok(SnapshotOutcome::Taken(info(3, NOW))), NOW);
    assert!(
        !asked_in(&effects, changes::CHANGES).is_empty(),
        "the Changes screen reloads"
    );
    assert!(
        first_in(&effects, REVIEW_MARKS).is_some(),
        "marks are measured again"
    );
    assert!(screen(&app, 120, 35).contains("snapshot #3 recorded"));
}

/// The background snapshot's walk failed with a service error whose `type`
/// reads like the dashboard's own word for a history out of reach: it is the
/// service's error, never taken for the history away (kinds are an enum,
/// not text).
#[test]
fn a_service_error_typed_history_unreachable_is_not_the_history_away() {
    let mut due = self::app();
    due.review.enabled = true;
    due.review.snapshot_due = true;
    let effects = due.start(NOW);
    let snapshot = first_in(&effects, TAKE_SNAPSHOT).expect("a snapshot is taken");
    let mut failure = ErrorInfo::local("the service said history_unreachable".into(), NOW);
    failure.status = Some(503);
    failure.kind = Some("history_unreachable".into());
    due.handle(snapshot.fail(failure), NOW);
    assert!(due.history_away().is_none(), "the history answered");
    assert!(screen(&due, 120, 35).contains("background snapshot failed"));
}

#[test]
fn a_project_is_marked_reviewed_with_a_note_from_the_inventory() {
    let mut app = app();
    app.review.enabled = true;
    let effects = app.start(NOW);
    let marks = first_in(&effects, REVIEW_MARKS).expect("marks are loaded");
    assert_eq!(marks.op::<ListMarks>(), &ListMarks);
    let changed = ReviewMark {
        project_id: "prj_b".into(),
        name: Some("Live two".into()),
        marked_at: BEFORE_AT,
        reviewer: Some("ada".into()),
        display_name: None,
        note: None,
        reviewed_state_at: Some(BEFORE_AT),
        changed_since_review: Some(true),
        changed_fields: vec![],
        reviewed_state: None,
    };
    app.handle(marks.ok(vec![changed]), NOW);
    let effects = app.handle(key('2'), NOW);
    let (token, _) = inventory_pages(&effects)
        .into_iter()
        .next()
        .expect("the first page");
    app.handle(
        answer_inventory_page(
            token,
            page(vec![item("prj_a", "Live one"), item("prj_b", "Live two")]),
        ),
        NOW,
    );
    assert!(screen(&app, 120, 35).contains("Δ Live two"));
    // M filters the rows loaded: not reviewed, then changed since review, then all.
    let ids = |app: &App| -> Vec<String> {
        app.inventory
            .list
            .rows
            .iter()
            .map(|item| item.id.clone())
            .collect()
    };
    let both = || page(vec![item("prj_a", "Live one"), item("prj_b", "Live two")]);
    app.handle(key('M'), NOW);
    assert_eq!(ids(&app), ["prj_a"]);
    assert!(screen(&app, 120, 35).contains("not reviewed (M) · over the rows loaded"));
    // The next filter reads the first page again: the rows hidden were dropped.
    let effects = app.handle(key('M'), NOW);
    let (token, _) = inventory_pages(&effects)
        .into_iter()
        .next()
        .expect("the first page again");
    app.handle(answer_inventory_page(token, both()), NOW);
    assert_eq!(ids(&app), ["prj_b"], "changed since review");
    let effects = app.handle(key('M'), NOW);
    let (token, _) = inventory_pages(&effects)
        .into_iter()
        .next()
        .expect("all: the first page again");
    app.handle(answer_inventory_page(token, both()), NOW);
    assert_eq!(ids(&app), ["prj_a", "prj_b"]);
    app.handle(key('m'), NOW);
    // No rows are marked: the cursor's row, and the title says so.
    assert!(screen(&app, 120, 35).contains("Mark Live one reviewed (the cursor's row)"));
    for ch in "ok q".chars() {
        app.handle(key(ch), NOW);
    }
    assert!(!app.should_quit, "the note takes q as text");
    let effects = app.handle(special(KeyCode::Enter), NOW);
    let written = first_in(&effects, REVIEW_MARK).expect("the mark is written");
    let MarkReviewed { projects, note } = written.op::<MarkReviewed>();
    assert_eq!(note.as_deref(), Some("ok q"));
    let ids: Vec<&str> = projects.iter().map(|(id, _)| id.as_str()).collect();
    assert_eq!(ids, ["prj_a"]);
    let seen = projects[0]
        .1
        .as_ref()
        .expect("the row as the reviewer saw it");
    assert_eq!(seen.state.name.as_deref(), Some("Live one"));
    let mark = ReviewMark {
        project_id: "prj_a".into(),
        name: Some("Live one".into()),
        marked_at: NOW,
        reviewer: Some("ada".into()),
        display_name: None,
        note: Some("ok q".into()),
        reviewed_state_at: Some(NOW),
        changed_since_review: Some(false),
        changed_fields: vec![],
        reviewed_state: None,
    };
    app.handle(
        answer(
            written.slot,
            written.token,
            Ok(vec![mark]),
            HistoryMsg::Marked,
        ),
        NOW,
    );
    let text = screen(&app, 120, 35);
    assert!(text.contains("✓ Live one"), "{text}");
    assert!(text.contains("marked Live one reviewed"), "{text}");
}

/// The executor's history side, on the reference server and a real history
/// file: a background snapshot, a rename, another, and the diff shows it; a
/// mark is stored and read back; progress reaches the status-line channel.
#[tokio::test]
async fn the_history_executor_snapshots_diffs_and_marks_on_a_real_file() {
    use vantage::api::model::ProjectUpdate;
    use vantage::api::{ApiKey, Client, ClientConfig};
    use vantage::history::HistoryConfig;
    use vantage::tui::request::Operation;
    use vantage::tui::services::ClientServices;
    use vantage::tui::services::ServiceSource;
    use vantage::tui::services::{HistoryAccess, WithHistory};

    use crate::common::{self, ENTERPRISE_ADMIN, ENTERPRISE_WS};

    let (server, clock) = common::demo_server().await;
    let client = Client::new(ClientConfig::new(
        server.base_url(),
        ApiKey::new(ENTERPRISE_ADMIN).unwrap(),
    ))
    .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let (progress_tx, mut progress) = vantage::tui::notice_box::notice_box();
    let executor = WithHistory::new(
        ClientServices {
            client: client.clone(),
            workspace_id: ENTERPRISE_WS.into(),
            clock: clock.clone(),
        },
        HistoryAccess {
            location: vantage::history::HistoryLocation::File(dir.path().join("history.sqlite3")),
            config: HistoryConfig {
                detail_requests: 5,
                ..HistoryConfig::default()
            },
            progress: Some(progress_tx),
        },
    );
    let services = executor.services();
    let snapshot = || async {
        match TakeSnapshot.run(&services).await {
            Ok(SnapshotOutcome::Taken(info)) => info,
            other => panic!("a snapshot: {other:?}"),
        }
    };
    let diff = || DiffSnapshots { between: None }.run(&services);

    // Fewer than two snapshots: no pair to compare, and no error.
    let first = snapshot().await;
    assert!(first.projects > 0);
    let mut seen = Vec::new();
    while let Some(notice) = progress.try_recv() {
        if let ClientNotice::Snapshot(text) = notice {
            seen.push(text);
        }
    }
    // Progress is coalesced: the newest word of the walk waits, one.
    assert!(
        matches!(seen.as_slice(), [one] if one.starts_with("snapshot: ")),
        "{seen:?}"
    );
    let set = diff().await.expect("changes");
    assert_eq!((set.before, set.after, set.changes.len()), (None, None, 0));

    let project = common::first_project(&common::demo(), ENTERPRISE_WS);
    client
        .update_project(
            &project,
            &ProjectUpdate {
                name: Some("Renamed for the Changes screen".into()),
                visibility: None,
            },
        )
        .await
        .unwrap();
    clock.advance(time::Duration::minutes(5));
    let second = snapshot().await;
    let set = diff().await.expect("changes");
    assert_eq!(set.before.map(|info| info.id), Some(first.id));
    assert_eq!(set.after.map(|info| info.id), Some(second.id));
    let renamed: Vec<&Change> = set
        .changes
        .iter()
        .filter(|change| change.kind == ChangeKind::Renamed)
        .collect();
    assert_eq!(renamed.len(), 1);
    assert_eq!(renamed[0].id, project);
    assert_eq!(renamed[0].after, json!("Renamed for the Changes screen"));
    let list = ListSnapshots.run(&services).await.expect("snapshots");
    assert_eq!(list.len(), 2);

    let mark = MarkReviewed {
        projects: vec![(project.clone(), None)],
        note: Some("looked at it".into()),
    };
    let marked = mark.run(&services).await.expect("a mark");
    assert_eq!(marked[0].changed_since_review, Some(false));
    let marks = ListMarks.run(&services).await.expect("marks");
    assert_eq!(marks.len(), 1);
    assert_eq!(marks[0].note.as_deref(), Some("looked at it"));
    server.stop().await;
}

/// A diff not read yet (or a history out of reach) has no counts: the head
/// says so, never "0 shown of 0 · 0 kinds changed" that no history said.
#[test]
fn changes_not_read_yet_show_no_made_up_counts() {
    let mut app = app();
    app.review.enabled = true;
    app.start(NOW);
    let effects = app.handle(key('7'), NOW);
    let diff = only(&effects, changes::CHANGES);
    let waiting = screen(&app, 120, 35);
    assert!(!waiting.contains("0 shown of 0"), "{waiting}");
    assert!(!waiting.contains("0 kinds changed"), "{waiting}");
    let mut away = ErrorInfo::local(
        "cannot reach the history database 127.0.0.1:5432/review".into(),
        NOW,
    );
    away.kind = Some("history_unreachable".into());
    app.handle(diff.fail(away), NOW);
    let failed = screen(&app, 120, 35);
    assert!(!failed.contains("0 shown of 0"), "{failed}");
    assert!(failed.contains("not read"), "{failed}");
}

/// A history with fewer than two snapshots compared nothing: the head says
/// so, and counts no "0 kinds changed".
#[test]
fn fewer_than_two_snapshots_count_no_made_up_changes() {
    let mut app = app();
    app.review.enabled = true;
    app.start(NOW);
    let effects = app.handle(key('7'), NOW);
    let diff = only(&effects, changes::CHANGES);
    app.handle(
        diff.ok(ChangeSet {
            before: None,
            after: None,
            changes: Vec::new(),
        }),
        NOW,
    );
    let shown = screen(&app, 120, 35);
    assert!(!shown.contains("0 shown of 0"), "{shown}");
    assert!(!shown.contains("0 kinds changed"), "{shown}");
    assert!(shown.contains("no two snapshots to compare yet"), "{shown}");
    assert!(shown.contains("fewer than two snapshots"), "{shown}");
}

#[test]
fn one_kind_of_change_is_singular() {
    let mut set = change_set();
    set.changes.truncate(1);
    let app = changes_app(set);
    let shown = screen(&app, 120, 35);
    assert!(shown.contains("· 1 kind changed"), "{shown}");
}
