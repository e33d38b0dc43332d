//! The project in focus: one project that every project tab shows by name,
//! with one origin (issue 24; issue 35 items 9-11: the monitor's pick, back
//! and forward, the breadcrumb), and a project gone that says so on every tab
//! with its last known name (issue 35 items 7-8).

#![allow(clippy::result_large_err)]

use crossterm::event::KeyCode;
use time::Duration;
use vantage::tui::app::App;
use vantage::tui::effect::Gate;
use vantage::tui::nav::Tab;
use vantage::tui::ops::ListPii;
use vantage::tui::screens::{analytics, pii, project};

use crate::tui::changes::{change_set, changes_app, screen};
use crate::tui::inventory_query::inventory_with as loaded_inventory;
use crate::tui::project_facts::{answer_project_read, palette};
use crate::tui::review_marks::{NOW, inventory_with, not_found, open_and_read, project_of};
use crate::tui::support::{app, asked_in, key, only, special};

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

// --- One project in focus that every project tab shows (issue 24) -----------

#[test]
fn a_project_opened_by_id_is_the_one_tabs_4_5_and_6_show_by_name() {
    let mut app = app();
    // The inventory's cursor is on another project, Project 0.
    loaded_inventory(&mut app, 3, 3);
    let effects = palette(&mut app, "prj_c599a0ae18ae");
    answer_project_read(&mut app, &effects, "prj_c599a0ae18ae", "Support studio 17");
    let header = |app: &App| {
        screen(app, 120, 35)
            .lines()
            .next()
            .unwrap_or_default()
            .to_owned()
    };
    assert!(
        header(&app).contains("Support studio 17"),
        "{}",
        header(&app)
    );

    let effects = app.handle(key('6'), NOW);
    let shown = screen(&app, 120, 35);
    assert!(
        shown.contains("Personal data in Support studio 17") && !shown.contains("Project 0"),
        "{shown}"
    );
    let fetch = only(&effects, pii::PAGE);
    assert_eq!(fetch.op::<ListPii>().project_id, "prj_c599a0ae18ae");

    app.handle(key('5'), NOW);
    let shown = screen(&app, 120, 35);
    assert!(shown.contains("Visitors of Support studio 17"), "{shown}");

    app.handle(key('4'), NOW);
    assert!(
        header(&app).contains("Monitor › Support studio 17"),
        "{}",
        header(&app)
    );
    assert_eq!(
        app.monitor.shown().first().map(|p| p.id.as_str()),
        Some("prj_c599a0ae18ae")
    );
}

#[test]
fn a_move_of_the_inventory_cursor_moves_the_focus() {
    let mut app = app();
    loaded_inventory(&mut app, 3, 3);
    app.handle(key('j'), NOW);
    app.handle(key('6'), NOW);
    assert!(screen(&app, 120, 35).contains("Personal data in Project 1"));
}

#[test]
fn esc_from_a_project_opened_from_changes_lands_on_changes() {
    let mut app = changes_app(change_set());
    // The fourth row: a project change (Budget tracker).
    for _ in 0..3 {
        app.handle(key('j'), NOW);
    }
    app.handle(special(KeyCode::Enter), NOW);
    assert!(app.project.is_some());
    app.handle(special(KeyCode::Esc), NOW);
    assert_eq!(app.tab, Tab::Changes);
    assert!(app.project.is_none());
}

#[test]
fn two_from_a_projects_personal_data_lands_on_the_list_at_that_project() {
    let mut app = app();
    loaded_inventory(&mut app, 3, 3);
    app.handle(key('j'), NOW);
    app.handle(key('j'), NOW);
    app.handle(special(KeyCode::Enter), NOW);
    // Its scans pane, then its personal data, then the inventory.
    app.handle(key('d'), NOW);
    app.handle(key('6'), NOW);
    assert!(screen(&app, 120, 35).contains("Personal data in Project 2"));
    app.handle(key('2'), NOW);
    assert_eq!(app.tab, Tab::Inventory);
    assert!(
        app.project.is_none(),
        "the list, not the project's scans pane"
    );
    assert_eq!(app.inventory.list.selected, 2);
}
