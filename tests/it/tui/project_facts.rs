//! The project screen's facts, each with its source (issue 24): a project
//! opened without its loaded row takes the newest local snapshot's state
//! (labelled with its age) before any request to the service; only a project
//! the snapshot lacks costs a search by name, which picks the row by its id.
//! Nothing is made up while a fact is unknown.

use crossterm::event::KeyCode;
use serde_json::json;
use vantage::api::model::{InventoryItem, InventoryPage, Project};
use vantage::history::{ProjectState, SnapshotInfo};
use vantage::tui::app::App;
use vantage::tui::effect::Effect;
use vantage::tui::ops::ListInventory;
use vantage::tui::review::ops::LatestProjectState;
use vantage::tui::screens::project::{FACTS, PROJECT};

use crate::common::items::inventory_item;
use crate::tui::changes::{change_set, changes_app};
use crate::tui::inventory_query::inventory_with;
use crate::tui::support::{NOW, screen, text};
use crate::tui::support::{
    answer_inventory_page, app, asked, asked_in, drawn, inventory_pages, key, only, special,
};

const ID: &str = "prj_10befad0e55d";

/// The project as the newest snapshot keeps it: needs review, connected, with
/// two open personal-data findings; no edits, visitors or last scan (a
/// snapshot does not keep them).
fn state() -> ProjectState {
    ProjectState {
        id: ID.into(),
        name: Some("Clinic manager 86".into()),
        is_published: true,
        audience: Some("public".into()),
        audience_targets: Some(Vec::new()),
        visibility: Some("workspace_view".into()),
        review_priority: "needs_review".into(),
        finding_types: vec!["pii".into()],
        pii_open: Some(2),
        connectors: vec!["resend".into(), "twilio".into()],
        owner: Some("Ada".into()),
        ..ProjectState::default()
    }
}

fn snapshot_info() -> SnapshotInfo {
    SnapshotInfo {
        id: 7,
        workspace_id: "ws_test".into(),
        taken_at: NOW - time::Duration::hours(2),
        projects: 5000,
        members: 800,
    }
}

/// An App with the history open and three inventory rows loaded (not `ID`),
/// then `:ID` Enter; the effects of every step after the inventory loaded.
fn open_by_id() -> (App, Vec<Effect>) {
    let mut app = app();
    app.review.enabled = true;
    inventory_with(&mut app, 3, 3);
    let mut effects = app.handle(key(':'), NOW);
    for ch in ID.chars() {
        effects.extend(app.handle(key(ch), NOW));
    }
    effects.extend(app.handle(special(crossterm::event::KeyCode::Enter), NOW));
    (app, effects)
}

/// The history's answer to the screen's ask for the project's state.
fn answer_history(app: &mut App, effects: &[Effect], found: Option<ProjectState>) -> Vec<Effect> {
    let ask = asked_in(effects, FACTS)
        .pop()
        .expect("the history is asked for the project's facts");
    assert_eq!(
        ask.op::<LatestProjectState>(),
        &LatestProjectState {
            project_id: ID.into()
        }
    );
    let answer = found.map(|state| (snapshot_info(), state));
    app.handle(ask.ok(answer), NOW)
}

/// The project screen's read of the project, answered.
fn answer_read(app: &mut App, effects: &[Effect]) -> Vec<Effect> {
    let read = asked_in(effects, PROJECT)
        .pop()
        .expect("the project is read");
    let project: Project = serde_json::from_value(serde_json::json!({
        "id": ID, "name": "Clinic manager 86", "workspace_id": "ws_test",
        "is_published": true, "publish_audience": "public", "visibility": "workspace_view"
    }))
    .unwrap();
    app.handle(read.ok(project), NOW)
}

fn inventory_requests(effects: &[Effect]) -> usize {
    asked(effects)
        .iter()
        .filter(|fetch| fetch.operation::<ListInventory>().is_some())
        .count()
        + inventory_pages(effects).len()
}

#[test]
fn a_project_in_the_newest_snapshot_opens_with_its_facts_and_age_without_a_search() {
    let (mut app, mut effects) = open_by_id();
    effects.extend(answer_history(&mut app, &effects.clone(), Some(state())));
    // The project read answers; the facts are known, so nothing is searched.
    effects.extend(answer_read(&mut app, &effects.clone()));
    assert_eq!(inventory_requests(&effects), 0, "{:?}", asked(&effects));

    let shown = text(&screen(&app, 120, 35));
    for fact in [
        "from snapshot, 2 h ago",
        "needs review",
        "resend, twilio",
        "Open PII       2",
        "Visitors       unknown",
        "Last scan      unknown",
    ] {
        assert!(shown.contains(fact), "{fact} missing: {shown}");
    }
    for made_up in ["0 / 0 / 0", "never", "not loaded", "search by name"] {
        assert!(!shown.contains(made_up), "{made_up} shown: {shown}");
    }
}

#[test]
fn a_project_the_snapshot_lacks_is_searched_for_by_name() {
    let (mut app, effects) = open_by_id();
    // The read answers first: the search waits for the history's answer.
    let read = answer_read(&mut app, &effects);
    assert_eq!(inventory_requests(&read), 0);
    let searched = answer_history(&mut app, &effects, None);
    let search = asked_in(&searched, FACTS)
        .pop()
        .expect("the inventory is searched");
    assert!(
        matches!(search.operation::<ListInventory>(), Some(ListInventory { params, .. }) if params.query.as_deref() == Some("Clinic manager 86")),
        "{search:?}"
    );
    let shown = text(&screen(&app, 120, 35));
    assert!(shown.contains("searching the inventory by name"), "{shown}");
}

/// What the facts pane must never show of a project whose facts the service
/// did not send: zeros, `never`, `none`, or a priority of its own.
fn assert_nothing_made_up(app: &App, when: &str) {
    let shown = text(&screen(app, 120, 35));
    for made_up in [
        "0 / 0 / 0",
        "never",
        "Connectors     none",
        "unscored",
        "Open PII       0",
    ] {
        assert!(!shown.contains(made_up), "{made_up} {when}: {shown}");
    }
}

/// Issue 23: the project screen opens on a `ProjectRef` and an optional row.
/// From Changes, with no inventory row loaded, every step until the facts are
/// found (or not) shows none that the service did not send.
#[test]
fn a_project_opened_from_changes_without_its_row_shows_no_made_up_fact() {
    use crate::tui::changes::{change_set, changes_app};
    let mut app = changes_app(change_set());
    // The first change: "Clinic portal" (prj_0001) published.
    let opened = app.handle(special(crossterm::event::KeyCode::Enter), NOW);
    let project = app.project.as_ref().expect("the project screen is open");
    assert_eq!(project.target.id, "prj_0001");
    assert_nothing_made_up(&app, "as it opens");
    // The newest snapshot lacks it; the read names it; the search finds nothing.
    let ask = asked_in(&opened, FACTS)
        .pop()
        .expect("the history is asked by id");
    let none: Option<(SnapshotInfo, ProjectState)> = None;
    let mut asked = app.handle(ask.ok(none), NOW);
    assert_nothing_made_up(&app, "without the snapshot's state");
    let read_request = asked_in(&opened, PROJECT)
        .pop()
        .expect("the project is read");
    let read: Project = serde_json::from_value(serde_json::json!({
        "id": "prj_0001", "name": "Clinic portal", "workspace_id": "ws_test",
        "is_published": true, "publish_audience": "public", "visibility": "workspace_view"
    }))
    .unwrap();
    asked.extend(app.handle(read_request.ok(read), NOW));
    assert_nothing_made_up(&app, "while searching");
    // The change named it: the search by that name needs no read first.
    let search = asked_in(&asked, FACTS)
        .pop()
        .expect("the inventory is searched by name");
    let empty: vantage::api::model::InventoryPage = serde_json::from_value(serde_json::json!({
        "data": [], "total": 0, "pagination": {"has_more": false, "next_cursor": null}
    }))
    .unwrap();
    app.handle(search.ok(empty), NOW);
    assert_nothing_made_up(&app, "when the search did not find it");
    let shown = text(&screen(&app, 120, 35));
    assert!(
        shown.contains("not loaded") && shown.contains("Clinic portal"),
        "{shown}"
    );
}

/// Issue 35 item 7: a project opened by id that the service answers 404
/// `project_not_found` is named as the snapshot beside it knows it, never
/// "(unnamed)", and says it is gone, naming where the name came from.
#[test]
fn a_project_gone_is_named_as_the_snapshot_knows_it() {
    let (mut app, effects) = open_by_id();
    answer_history(&mut app, &effects, Some(state()));
    let read = asked_in(&effects, PROJECT)
        .pop()
        .expect("the project is read");
    app.handle(
        read.fail(vantage::tui::effect::ErrorInfo {
            status: Some(404),
            kind: Some("project_not_found".into()),
            detail: None,
            request_id: Some("req_gone".into()),
            summary: "project_not_found (HTTP 404)".into(),
            gate: None,
            at: NOW,
        }),
        NOW,
    );
    let shown = text(&screen(&app, 160, 35));
    assert!(!shown.contains("(unnamed)"), "{shown}");
    assert!(shown.contains("Clinic manager 86"), "{shown}");
    assert!(
        shown.contains("Name last known from snapshot, taken"),
        "{shown}"
    );
    assert!(
        app.breadcrumbs()
            .last()
            .is_some_and(|c| c == "Clinic manager 86"),
        "{:?}",
        app.breadcrumbs()
    );
}

// --- Found by id or by name, read from the service (issue 24) -----------------

/// A project that needs review, scanned, visited and connected: the facts a
/// made-up row would show as zeros, `never` and `none`.
pub(crate) fn rich_item(id: &str, name: &str) -> InventoryItem {
    serde_json::from_value(inventory_item(json!({
        "id": id, "name": name, "visibility": "workspace_view",
        "connectors": ["resend", "twilio"],
        "edit_count": 12, "message_count": 40, "edits_24h": 1, "edits_7d": 5, "edits_30d": 9,
        "visitors_24h": 1200, "visitors_7d": 8911, "visitors_30d": 20000,
        "last_security_scan_at": "2026-11-21T10:00:00Z"
    })))
    .unwrap()
}

pub(crate) fn page_of(items: Vec<InventoryItem>) -> InventoryPage {
    let total = items.len();
    serde_json::from_value(json!({
        "data": items,
        "pagination": {"has_more": false, "next_cursor": null},
        "total": total, "as_of": null, "activity_as_of": null, "applied_finding": null
    }))
    .unwrap()
}

pub(crate) fn project(id: &str, name: &str) -> Project {
    serde_json::from_value(json!({
        "id": id, "name": name, "workspace_id": "ws_test", "is_published": true,
        "publish_audience": "public", "visibility": "workspace_view"
    }))
    .unwrap()
}

/// Types `:` + `command` + Enter into the palette.
pub(crate) fn palette(app: &mut App, command: &str) -> Vec<vantage::tui::effect::Effect> {
    app.handle(key(':'), NOW);
    for ch in command.chars() {
        app.handle(key(ch), NOW);
    }
    app.handle(special(KeyCode::Enter), NOW)
}

/// The project screen's read of the project, answered with `name`.
pub(crate) fn answer_project_read(
    app: &mut App,
    effects: &[vantage::tui::effect::Effect],
    id: &str,
    name: &str,
) -> Vec<vantage::tui::effect::Effect> {
    let read = asked_in(effects, PROJECT)
        .pop()
        .expect("the project is read");
    app.handle(read.ok(project(id, name)), NOW)
}

#[test]
fn a_project_opened_by_id_finds_its_facts_and_never_shows_made_up_ones() {
    let mut app = app();
    inventory_with(&mut app, 3, 3);
    let effects = palette(&mut app, "prj_10befad0e55d");
    let before_read = text(&screen(&app, 120, 35));
    let searched = answer_project_read(&mut app, &effects, "prj_10befad0e55d", "Clinic manager 86");
    let shown = text(&screen(&app, 120, 35));
    for made_up in [
        "0 / 0 / 0",
        "Last scan      never",
        "Connectors     none",
        "? unknown",
    ] {
        assert!(
            !before_read.contains(made_up),
            "{made_up} before the read: {before_read}"
        );
        assert!(
            !shown.contains(made_up),
            "{made_up} while searching: {shown}"
        );
    }
    assert!(shown.contains("searching the inventory by name"), "{shown}");
    let search = asked_in(&searched, FACTS)
        .pop()
        .expect("the inventory is searched for its name");
    let ListInventory { params, .. } = search.op::<ListInventory>();
    assert_eq!(params.query.as_deref(), Some("Clinic manager 86"));
    // Two projects share the name in part; the id picks the row.
    let found = page_of(vec![
        rich_item("prj_00000000086a", "Clinic manager 860"),
        rich_item("prj_10befad0e55d", "Clinic manager 86"),
    ]);
    app.handle(search.ok(found), NOW);
    let terminal = screen(&app, 120, 35);
    let shown = text(&terminal);
    assert!(
        shown.contains("needs review")
            && shown.contains("8,911")
            && shown.contains("resend, twilio")
            && shown.contains("from a search by name (1 request)"),
        "{shown}"
    );
    insta::assert_snapshot!("project_by_id_120x35", drawn(&app, 120, 35, NOW).body());
}

#[test]
fn a_project_whose_row_is_not_found_says_not_loaded_and_the_key() {
    let mut app = app();
    inventory_with(&mut app, 3, 3);
    let effects = palette(&mut app, "prj_10befad0e55d");
    let searched = answer_project_read(&mut app, &effects, "prj_10befad0e55d", "Clinic manager 86");
    let search = asked_in(&searched, FACTS).pop().expect("searched");
    app.handle(search.ok(page_of(vec![])), NOW);
    let shown = text(&screen(&app, 120, 35));
    assert!(
        shown.contains("not loaded")
            && shown.contains("a search by name did not find it")
            && shown.contains("r searches again")
            && !shown.contains("never"),
        "{shown}"
    );
    // `r` searches again.
    let effects = app.handle(key('r'), NOW);
    assert!(!asked_in(&effects, PROJECT).is_empty());
}

#[test]
fn a_project_opened_from_changes_shows_its_loaded_row_not_zeros() {
    let mut app = changes_app(change_set());
    // The inventory has the project's row loaded, as the service sent it.
    let effects = app.handle(key('2'), NOW);
    let (token, _) = inventory_pages(&effects).pop().expect("a page");
    let row = rich_item("prj_0002", "Budget tracker");
    app.handle(answer_inventory_page(token, page_of(vec![row])), NOW);
    app.handle(key('7'), NOW);
    for _ in 0..3 {
        app.handle(key('j'), NOW);
    }
    app.handle(special(KeyCode::Enter), NOW);
    let shown = text(&screen(&app, 120, 35));
    assert!(
        shown.contains("needs review")
            && shown.contains("8,911")
            && shown.contains("from the inventory list")
            && !shown.contains("unscored")
            && !shown.contains("never"),
        "{shown}"
    );
}

#[test]
fn a_project_found_by_the_palettes_search_says_so_not_the_inventory_list() {
    let mut app = app();
    inventory_with(&mut app, 3, 3);
    let effects = palette(&mut app, "Booking log 3");
    let search = only(&effects, vantage::tui::app::PALETTE_JUMP);
    let found = page_of(vec![rich_item("prj_54e5c98533fc", "Booking log 3")]);
    app.handle(search.ok(found), NOW);
    let shown = text(&screen(&app, 120, 35));
    assert!(
        shown.contains("from a search by name") && !shown.contains("from the inventory list"),
        "{shown}"
    );
    assert!(
        !shown.contains("searching the service"),
        "the search's notice ended with it"
    );
}
