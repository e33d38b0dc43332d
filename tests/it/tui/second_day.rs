//! Issue 35, a reviewer's second day, items 1-11: marks hold what the
//! reviewer saw (the own write included, a live change flagged at once, an
//! empty note for a second reviewer, a refused mark that keeps the cursor,
//! another process's mark within a minute), a 404 that says the project is
//! gone on every tab, and one project in focus with one origin.

#![allow(clippy::result_large_err)]

use crossterm::event::KeyCode;
use serde_json::json;
use time::Duration;
use vantage::api::model::{InventoryItem, Project};
use vantage::history::{NewMark, ProjectState, SeenState, Store};
use vantage::tui::app::{App, Msg, REVIEW_MARK, REVIEW_MARKS};
use vantage::tui::effect::ErrorKind;
use vantage::tui::effect::{ErrorInfo, Gate};
use vantage::tui::nav::Tab;
use vantage::tui::ops::{GetProject, UpdateProject};
use vantage::tui::review::ops::MarkReviewed;
use vantage::tui::screens::{analytics, pii, project};

use crate::tui::changes::screen;
use crate::tui::review_marks::{NOW, changed_mark, inventory_and_version_check, inventory_with};
use crate::tui::review_marks::{item, version};
use crate::tui::support::{asked_in, first_in, key, only, special};

fn project_of(id: &str, name: &str) -> Project {
    serde_json::from_value(json!({
        "id": id, "name": name, "workspace_id": "ws_test", "is_published": false,
        "publish_audience": null, "visibility": "workspace_view"
    }))
    .unwrap()
}

fn not_found(kind: &str) -> ErrorInfo {
    ErrorInfo {
        status: Some(404),
        kind: Some(kind.into()),
        detail: None,
        request_id: Some("req_404".into()),
        summary: format!("{kind} (HTTP 404)"),
        gate: None,
        at: NOW,
    }
}

/// Enter on the cursor's row, and its read answered.
fn open_and_read(app: &mut App, id: &str, name: &str) {
    let effects = app.handle(special(KeyCode::Enter), NOW);
    let read = only(&effects, project::PROJECT);
    assert_eq!(read.op::<GetProject>().project_id, id);
    app.handle(read.ok(project_of(id, name)), NOW);
}

/// `m`, then Enter: the mark asked of the history.
fn mark(app: &mut App) -> MarkReviewed {
    app.handle(key('m'), NOW);
    let effects = app.handle(special(KeyCode::Enter), NOW);
    first_in(&effects, REVIEW_MARK)
        .expect("the mark is written")
        .op::<MarkReviewed>()
        .clone()
}

/// Item 1: `e` on the project screen, then `m`: the mark holds the name the
/// reviewer just gave, not the row the screen was opened on.
#[test]
fn a_mark_on_the_project_screen_holds_the_reviewers_own_write() {
    let mut app = inventory_with(vec![]);
    open_and_read(&mut app, "prj_a", "Ledger");
    app.handle(key('e'), NOW);
    app.handle(key('2'), NOW);
    let effects = app.handle(special(KeyCode::Enter), NOW);
    let write = only(&effects, project::WRITE);
    assert_eq!(
        write.op::<UpdateProject>().update.name.as_deref(),
        Some("Ledger2")
    );
    app.handle(write.ok(project_of("prj_a", "Ledger2")), NOW);
    let MarkReviewed { projects, .. } = mark(&mut app);
    let seen = projects[0].1.as_ref().expect("the state seen");
    assert_eq!(seen.state.name.as_deref(), Some("Ledger2"), "{seen:?}");
}

/// Item 3: a row that differs from the reviewed state says so at once,
/// naming the field, with no snapshot taken since the mark.
#[test]
fn a_live_row_that_differs_from_the_review_is_changed_since_review_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let mut store = Store::open(&dir.path().join("history.sqlite3")).unwrap();
    let mut reviewed: InventoryItem = serde_json::from_value(item("prj_a", "Ledger")).unwrap();
    reviewed.visibility = Some(vantage::api::model::Visibility::WorkspaceEdit);
    let marked_at = NOW - Duration::hours(1);
    let new = NewMark {
        project_id: "prj_a".into(),
        note: None,
        reviewer: Some("ada".into()),
        seen: Some(SeenState {
            state: ProjectState::from_item(&reviewed),
            read_at: marked_at,
        }),
    };
    store.mark_reviewed("ws_test", &new, marked_at).unwrap();
    let marks = store.reviewed_marks("ws_test").unwrap();
    assert_eq!(marks[0].changed_since_review, None, "no snapshot since");
    // The live rows (read at NOW) show prj_a view-only now.
    let app = inventory_with(marks);
    let text = screen(&app, 120, 35);
    assert!(text.contains("Δ Ledger"), "{text}");
    assert!(!text.contains("✓ Ledger"), "{text}");
    assert!(
        text.contains("changed since review: visibility: workspace_edit → workspace_view"),
        "{text}"
    );
}

/// Item 4: a second reviewer's field starts empty; the first one's note
/// shows above it.
#[test]
fn a_second_reviewer_starts_with_an_empty_note_and_sees_the_earlier_one() {
    let mut app = inventory_with(vec![changed_mark()]);
    app.inventory.list.select(0);
    app.handle(key('m'), NOW);
    let text = screen(&app, 120, 35);
    assert!(
        text.contains("earlier note by ada: view-only for members now"),
        "{text}"
    );
    let effects = app.handle(special(KeyCode::Enter), NOW);
    let written = first_in(&effects, REVIEW_MARK).expect("the mark is written");
    assert_eq!(written.op::<MarkReviewed>().note, None);
}

/// The walk's small defect: the note's title said "(nothing marked)" while
/// another reviewer's mark stood. It names the cursor's row, and the mark
/// that stands (its note or none) shows above the field.
#[test]
fn the_note_says_whose_mark_stands_never_nothing_marked() {
    let mut standing = changed_mark();
    standing.note = None;
    let mut app = inventory_with(vec![standing]);
    app.inventory.list.select(0);
    app.handle(key('m'), NOW);
    let text = screen(&app, 120, 35);
    assert!(!text.contains("nothing marked"), "{text}");
    assert!(
        text.contains("Mark Ledger reviewed (the cursor's row)"),
        "{text}"
    );
    assert!(
        text.contains("reviewed by ada at 2026-11-21 09:30 UTC, without a note"),
        "{text}"
    );
}

/// Item 5: a mark the history refuses keeps the cursor on the row.
#[test]
fn a_refused_mark_keeps_the_cursor_on_its_row() {
    let mut app = inventory_with(vec![]);
    app.inventory.list.select(0);
    app.handle(key('m'), NOW);
    let effects = app.handle(special(KeyCode::Enter), NOW);
    let written = first_in(&effects, REVIEW_MARK).expect("the mark is written");
    let mut away = not_found("x");
    away.status = None;
    away.kind = Some(ErrorKind::HistoryAway);
    away.summary = "history: unreachable".into();
    app.handle(written.fail(away), NOW);
    assert!(screen(&app, 120, 35).contains("NOT marked"));
    assert_eq!(app.inventory.list.selected, 0, "the cursor stays");
}

/// Item 6: another process's mark, written just after a check, shows within
/// a minute even when every answer of the history takes 5 s.
#[test]
fn another_processs_mark_shows_within_a_minute_on_a_slow_history() {
    let (mut app, token) = inventory_and_version_check(vec![]);
    app.handle(version(token, 4), NOW);
    let written_at = NOW + Duration::seconds(1);
    let slow = Duration::seconds(5);
    let mut at = NOW;
    let shown_at = loop {
        let wake = app.next_wake().expect("a check to come");
        at = at.max(wake);
        let effects = app.handle(Msg::Wake, at);
        let Some(check) = first_in(&effects, vantage::tui::app::HISTORY_VERSION) else {
            continue;
        };
        at += slow;
        let moved = if at > written_at { 5 } else { 4 };
        let effects = app.handle(version(check.token, moved), at);
        if let Some(read) = first_in(&effects, REVIEW_MARKS) {
            at += slow;
            app.handle(read.ok(vec![changed_mark()]), at);
            break at;
        }
        assert!(at < written_at + Duration::minutes(2), "never read");
    };
    assert!(screen(&app, 120, 35).contains("Δ Ledger"));
    assert!(
        shown_at - written_at <= Duration::minutes(1),
        "shown {} s after the write",
        (shown_at - written_at).whole_seconds()
    );
}

/// Item 7: a read that answers 404 `project_not_found` says the project is
/// gone, with the name last known, on the project screen and on tabs 5 and
/// 6; their own 404s name every cause; no age of older data is shown.
#[test]
fn a_project_gone_says_so_on_every_tab_with_its_last_known_name() {
    let mut app = inventory_with(vec![]);
    open_and_read(&mut app, "prj_a", "Ledger");
    let effects = app.handle(key('r'), NOW);
    let read = only(&effects, project::PROJECT);
    let later = NOW + Duration::minutes(2);
    app.handle(read.fail(not_found("project_not_found")), later);
    let text = screen(&app, 160, 35);
    assert!(text.contains("Ledger"), "{text}");
    assert!(text.contains("gone, or not visible to this key"), "{text}");
    assert!(!text.contains("updated"), "no age of the old read: {text}");

    let effects = app.handle(key('5'), later);
    assert_eq!(app.tab, Tab::Analytics);
    for fetch in asked_in(&effects, analytics::BREAKDOWNS) {
        let mut refused = not_found("analytics_not_found");
        refused.gate = Some(Gate::FeatureOff("analytics".into()));
        app.handle(fetch.fail(refused), later);
    }
    let text = screen(&app, 160, 35);
    assert!(
        text.contains("“Ledger” (prj_a) is gone, or not visible to this key"),
        "{text}"
    );
    assert!(
        text.contains("Name last known from the project's read at"),
        "{text}"
    );
    assert!(!text.contains("never published"), "{text}");
    assert!(!text.contains("updated"), "{text}");

    let effects = app.handle(key('6'), later);
    for fetch in asked_in(&effects, pii::PAGE) {
        app.handle(fetch.fail(not_found("pii_labels_not_found")), later);
    }
    let text = screen(&app, 160, 35);
    assert!(text.contains("“Ledger” (prj_a) is gone"), "{text}");
    assert!(
        !text.contains("is not enabled for this workspace, so"),
        "{text}"
    );
}

/// Item 7 on the walk: with the project known gone, tabs 4, 5 and 6 give
/// their own 404 no other cause (not published, detection off, analytics
/// not yet visited): the project is gone, and each says what went with it.
#[test]
fn a_gone_projects_tabs_explain_their_404_by_the_project_gone_only() {
    use vantage::tui::screens::monitor;
    use vantage::tui::vocab::{ANALYTICS_NOT_FOUND, PII_NOT_FOUND};

    let mut app = inventory_with(vec![]);
    open_and_read(&mut app, "prj_a", "Ledger");
    let effects = app.handle(key('r'), NOW);
    let read = only(&effects, project::PROJECT);
    let later = NOW + Duration::minutes(2);
    app.handle(read.fail(not_found("project_not_found")), later);
    let refused = |kind: &str, said: &str| {
        let mut error = not_found(kind);
        error.gate = Some(Gate::NotFound(said.into()));
        error
    };
    let other_causes = [
        "not published",
        "never published",
        "Never published",
        "detection is off",
        "not enabled",
        "once it is visited",
    ];
    let mut shown = Vec::new();
    let effects = app.handle(key('4'), later);
    for fetch in asked_in(&effects, monitor::REALTIME) {
        app.handle(
            fetch.fail(refused("analytics_not_found", ANALYTICS_NOT_FOUND)),
            later,
        );
    }
    shown.push(("4", screen(&app, 120, 35)));
    let effects = app.handle(key('5'), later);
    for fetch in asked_in(&effects, analytics::BREAKDOWNS) {
        app.handle(
            fetch.fail(refused("analytics_not_found", ANALYTICS_NOT_FOUND)),
            later,
        );
    }
    shown.push(("5", screen(&app, 120, 35)));
    let effects = app.handle(key('6'), later);
    for fetch in asked_in(&effects, pii::PAGE) {
        app.handle(
            fetch.fail(refused("pii_labels_not_found", PII_NOT_FOUND)),
            later,
        );
    }
    shown.push(("6", screen(&app, 120, 35)));
    for (tab, text) in shown {
        assert!(
            text.contains("“Ledger” (prj_a) is gone, or not visible to this key"),
            "tab {tab}: {text}"
        );
        for cause in other_causes {
            assert!(!text.contains(cause), "tab {tab} says {cause:?}: {text}");
        }
        assert!(text.contains("went with it"), "tab {tab}: {text}");
    }
}

/// Pins the inventory's rows 0, 1 and 2 (`w` on each, the cursor moved
/// onto it so it is the project in focus).
fn pin_three(app: &mut App) {
    app.inventory.list.select(0);
    app.handle(key('j'), NOW);
    app.handle(key('k'), NOW);
    app.handle(key('w'), NOW);
    for _ in 1..3 {
        app.handle(key('j'), NOW);
        app.handle(key('w'), NOW);
    }
    assert_eq!(app.monitor.watch.len(), 3);
}

/// Item 8: `2` after a pick on the monitor puts the inventory's cursor on
/// the tile's project.
#[test]
fn two_after_a_monitor_pick_lands_on_the_tiles_project() {
    let mut app = inventory_with(vec![]);
    pin_three(&mut app);
    app.handle(key('4'), NOW);
    app.handle(key('k'), NOW);
    let tile = app.monitor.focused().expect("a tile").id;
    assert_eq!(
        app.focused_project().map(|p| p.id.clone()),
        Some(tile.clone())
    );
    app.handle(key('2'), NOW);
    let selected = app.inventory.selected_item().expect("a row").id.clone();
    assert_eq!(selected, tile);
}

/// Item 9: on the monitor, ▶ is on the project the header names.
#[test]
fn the_monitors_cursor_is_on_the_project_in_focus() {
    let mut app = inventory_with(vec![]);
    pin_three(&mut app);
    app.inventory.list.select(0);
    app.handle(key('j'), NOW);
    app.handle(key('j'), NOW);
    let focus = app.focused_project().expect("a focus").id.clone();
    assert_eq!(focus, "prj_c");
    app.handle(key('4'), NOW);
    assert_eq!(app.monitor.focused().map(|p| p.id), Some(focus.clone()));
    assert!(app.breadcrumbs().last().is_some_and(|c| c == "Roster"));
}

/// Item 10: back (`[`) shows the tab with the project it showed.
#[test]
fn back_restores_the_tab_and_its_project() {
    let mut app = inventory_with(vec![]);
    app.inventory.list.select(0);
    app.handle(key('j'), NOW);
    app.handle(key('k'), NOW);
    app.handle(key('5'), NOW);
    assert_eq!(
        app.analytics.project().map(|p| p.id.as_str()),
        Some("prj_a")
    );
    app.handle(key('2'), NOW);
    app.handle(key('j'), NOW);
    app.handle(key('5'), NOW);
    assert_eq!(
        app.analytics.project().map(|p| p.id.as_str()),
        Some("prj_b")
    );
    app.handle(key('['), NOW);
    assert_eq!(app.tab, Tab::Inventory);
    app.handle(key('['), NOW);
    assert_eq!(app.tab, Tab::Analytics);
    assert_eq!(
        app.analytics.project().map(|p| p.id.as_str()),
        Some("prj_a")
    );
}

/// Item 11: the breadcrumb names the tab `esc` returns to.
#[test]
fn the_breadcrumb_names_where_the_project_was_opened_from() {
    let mut app = crate::tui::changes::changes_app(crate::tui::changes::change_set());
    for _ in 0..3 {
        app.handle(key('j'), NOW);
    }
    app.handle(special(KeyCode::Enter), NOW);
    assert!(app.project.is_some());
    let crumbs = app.breadcrumbs();
    assert_eq!(
        crumbs.first().map(String::as_str),
        Some("Changes"),
        "{crumbs:?}"
    );
    app.handle(special(KeyCode::Esc), NOW);
    assert_eq!(app.tab, Tab::Changes);
}

/// Item 10, with a slow service: projects left before their reads answered
/// are places on the trail as any other; back walks them in order.
#[test]
fn back_walks_projects_left_before_they_loaded() {
    let mut app = inventory_with(vec![]);
    let place = |app: &App| match &app.project {
        Some(project) if app.tab == Tab::Inventory => {
            format!("project {}", project.project_ref().id)
        }
        _ => format!("{:?}", app.tab),
    };
    app.handle(key('4'), NOW);
    app.handle(key('2'), NOW);
    app.inventory.list.select(0);
    let effects = app.handle(special(KeyCode::Enter), NOW);
    let read_a = only(&effects, project::PROJECT);
    assert_eq!(place(&app), "project prj_a");
    app.handle(special(KeyCode::Esc), NOW);
    app.handle(read_a.ok(project_of("prj_a", "Ledger")), NOW);
    app.handle(key('j'), NOW);
    let effects = app.handle(special(KeyCode::Enter), NOW);
    let read_b = only(&effects, project::PROJECT);
    assert_eq!(place(&app), "project prj_b");
    let mut walked = Vec::new();
    app.handle(key('['), NOW);
    walked.push(place(&app));
    app.handle(read_b.ok(project_of("prj_b", "Payroll")), NOW);
    for _ in 0..2 {
        app.handle(key('['), NOW);
        walked.push(place(&app));
    }
    for _ in 0..3 {
        app.handle(key(']'), NOW);
        walked.push(place(&app));
    }
    assert_eq!(
        walked,
        [
            "Inventory",
            "project prj_a",
            "Inventory",
            "project prj_a",
            "Inventory",
            "project prj_b"
        ]
    );
}
