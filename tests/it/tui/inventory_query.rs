//! The inventory's query at the scale of a real workspace: filters of several
//! values from one checkbox menu, `G` to the real end within the request
//! budget, a project id typed into the search found by id (and kept to the
//! filters), and the workspace asked for by its id.

#![allow(clippy::result_large_err)]

use crossterm::event::KeyCode;
use serde_json::json;
use vantage::api::InventoryParams;
use vantage::api::model::{Project, PublishAudience, ReviewPriority, SortOrder};
use vantage::tui::app::{App, ClientNotice, Msg};
use vantage::tui::effect::Effect;

use crate::tui::project_facts::{page_of, project as named_project};
use crate::tui::state::page;
use crate::tui::support::{NOW, error, screen, special, text};
use crate::tui::support::{
    answer, answer_inventory_page, app, asked, asked_in, drawn, inventory_asked, inventory_pages,
    key,
};
use vantage::tui::ops::{GetProject, ListInventory, ListMembers};
use vantage::tui::screens::inventory;

/// The inventory page requests among effects: (token, params, cursor).
pub(crate) fn inventory_requests(
    effects: &[Effect],
) -> Vec<(u64, InventoryParams, Option<String>)> {
    inventory_pages(effects)
        .into_iter()
        .map(|(token, ListInventory { params, cursor, .. })| (token, params, cursor))
        .collect()
}

fn last_params(effects: &[Effect]) -> InventoryParams {
    let requests = inventory_requests(effects);
    let (_, params, _) = requests.last().expect("an inventory page request");
    params.clone()
}

/// Opens the inventory and answers its first page: rows 0..`loaded` of `total`.
pub(crate) fn inventory_with(app: &mut App, loaded: usize, total: usize) {
    app.start(NOW);
    let effects = app.handle(key('2'), NOW);
    let (token, ..) = inventory_requests(&effects)[0].clone();
    app.handle(
        answer_inventory_page(token, page(0..loaded, total, loaded < total)),
        NOW,
    );
}

pub(crate) fn rate(app: &mut App, remaining: u32, limit: u32) {
    app.handle(
        Msg::Client(ClientNotice::RateLimit { remaining, limit }),
        NOW,
    );
}

#[test]
fn inventory_filters_take_several_values_from_one_checkbox_menu_and_c_keeps_the_sort() {
    let mut app = app();
    inventory_with(&mut app, 3, 3);
    // Sort by name (the third entry of the sort menu), then reverse it.
    for ch in "sjj".chars() {
        app.handle(key(ch), NOW);
    }
    app.handle(special(KeyCode::Enter), NOW);
    app.handle(key('S'), NOW);
    let sorted = app.inventory.query.sort_by.clone();
    assert!(sorted.is_some());

    // Two review priorities ticked at once: the service matches any.
    app.handle(key('t'), NOW);
    let one = app.handle(special(KeyCode::Enter), NOW);
    assert_eq!(
        last_params(&one).review_priority,
        vec![ReviewPriority::NeedsReview]
    );
    app.handle(key('j'), NOW);
    let two = app.handle(key(' '), NOW);
    assert_eq!(
        last_params(&two).review_priority,
        vec![
            ReviewPriority::NeedsReview,
            ReviewPriority::ReviewRecommended
        ]
    );
    // Down to the audiences (after the priorities and the published line):
    // public and workspace.
    for _ in 1..ReviewPriority::KNOWN.len() + 1 {
        app.handle(key('j'), NOW);
    }
    app.handle(special(KeyCode::Enter), NOW);
    app.handle(key('j'), NOW);
    let audiences = app.handle(special(KeyCode::Enter), NOW);
    let params = last_params(&audiences);
    assert_eq!(
        params.publish_audience,
        PublishAudience::KNOWN[..2].to_vec()
    );
    assert_eq!(params.review_priority.len(), 2, "other filters stay");
    insta::assert_snapshot!(
        "inventory_filter_menu_80x24",
        drawn(&app, 80, 24, NOW).body()
    );

    // Esc closes the menu; the filters stay applied.
    app.handle(special(KeyCode::Esc), NOW);
    assert!(text(&screen(&app, 80, 24)).contains("priority needs_review|review_recommended"));

    // c clears every filter and keeps the sort and its direction.
    let cleared = app.handle(key('c'), NOW);
    let params = last_params(&cleared);
    assert!(params.review_priority.is_empty() && params.publish_audience.is_empty());
    assert_eq!(params.sort_by, sorted);
    assert_eq!(params.sort_order, Some(SortOrder::Asc));
}

#[test]
fn published_no_and_an_audience_never_go_together() {
    let mut app = app();
    inventory_with(&mut app, 3, 3);
    app.handle(key('t'), NOW);
    let published = ReviewPriority::KNOWN.len();
    for _ in 0..published {
        app.handle(key('j'), NOW);
    }
    // published: yes, then no.
    app.handle(special(KeyCode::Enter), NOW);
    let no = app.handle(special(KeyCode::Enter), NOW);
    assert_eq!(last_params(&no).is_published, Some(false));
    // An audience ticked then: the published filter gives way (the contract
    // allows an audience only with published projects).
    app.handle(key('j'), NOW);
    let audience = last_params(&app.handle(special(KeyCode::Enter), NOW));
    assert_eq!(audience.is_published, None);
    assert_eq!(
        audience.publish_audience,
        vec![PublishAudience::KNOWN[0].clone()]
    );
    // And published: no clears the audiences.
    app.handle(key('k'), NOW);
    app.handle(special(KeyCode::Enter), NOW);
    let no = last_params(&app.handle(special(KeyCode::Enter), NOW));
    assert_eq!(no.is_published, Some(false));
    assert!(no.publish_audience.is_empty());
}

#[test]
fn capital_g_walks_every_page_to_the_real_end_and_the_counter_follows() {
    let mut app = app();
    rate(&mut app, 100, 120);
    inventory_with(&mut app, 100, 350);
    let mut effects = app.handle(key('G'), NOW);
    let mut walked = 0;
    while let Some((token, _, cursor)) = inventory_requests(&effects).pop() {
        assert_eq!(
            cursor,
            Some(format!("c{}", 100 * (walked + 1))),
            "the next page, from the cursor"
        );
        walked += 1;
        let start = 100 * walked;
        let end = (start + 100).min(350);
        let head = text(&screen(&app, 120, 35));
        assert!(head.contains("loading to the end"), "{head}");
        effects = app.handle(
            answer_inventory_page(token, page(start..end, 350, end < 350)),
            NOW,
        );
    }
    assert_eq!(
        walked, 3,
        "pages 2, 3 and 4 were asked for, one after another"
    );
    assert_eq!(app.inventory.list.rows.len(), 350);
    assert_eq!(app.inventory.list.selected, 349, "on the last row");
    let shown = text(&screen(&app, 120, 35));
    assert!(shown.contains("350/350"), "{shown}");
    assert!(!shown.contains("loading to the end"));
    assert!(shown.contains("at the end: all 350 loaded"), "{shown}");
}

#[test]
fn capital_g_stops_when_the_budget_runs_low_and_says_so() {
    let mut app = app();
    rate(&mut app, 40, 120);
    inventory_with(&mut app, 100, 5_000);
    let effects = app.handle(key('G'), NOW);
    let (token, ..) = inventory_requests(&effects)[0].clone();
    // The page's reply tells of a budget down to the user's reserve.
    rate(&mut app, 10, 120);
    let effects = app.handle(
        answer_inventory_page(token, page(100..200, 5_000, true)),
        NOW,
    );
    assert!(
        inventory_requests(&effects).is_empty(),
        "no page past the reserve"
    );
    assert_eq!(app.inventory.list.selected, 199);
    insta::assert_snapshot!(
        "inventory_end_stopped_by_budget_120x35",
        drawn(&app, 120, 35, NOW).with_status()
    );
    // Any move ends the note; near the end it asks for the next page as
    // always (the user's own move).
    let moved = app.handle(key('k'), NOW);
    let shown = text(&screen(&app, 120, 35));
    let head = shown.lines().nth(2).unwrap_or_default();
    assert!(
        head.contains("199/5,000") && !head.contains("budget low"),
        "{head}"
    );
    let (token, ..) = inventory_requests(&moved)[0].clone();
    // The budget refilled: G walks on from the page in flight.
    rate(&mut app, 120, 120);
    assert!(inventory_requests(&app.handle(key('G'), NOW)).is_empty());
    let effects = app.handle(
        answer_inventory_page(token, page(200..300, 5_000, true)),
        NOW,
    );
    assert_eq!(inventory_requests(&effects).len(), 1, "the walk goes on");
    assert_eq!(app.inventory.list.selected, 299);
}

fn project(id: &str) -> Project {
    serde_json::from_value(json!({
        "id": id, "name": "Invoice finder", "description": "Finds invoices",
        "workspace_id": "ws_test", "is_published": true, "publish_audience": "public",
        "visibility": "workspace_view", "last_edited_at": "2026-11-20T00:00:00Z"
    }))
    .unwrap()
}

#[test]
fn a_project_id_typed_into_the_search_finds_that_project() {
    let mut app = app();
    inventory_with(&mut app, 3, 3);
    app.handle(key('/'), NOW);
    for ch in "prj_00042".chars() {
        app.handle(key(ch), NOW);
    }
    let effects = app.handle(special(KeyCode::Enter), NOW);
    let (search, ..) = inventory_requests(&effects)[0].clone();
    let lookup = inventory_asked::<GetProject>(&effects, inventory::ID_LOOKUP)
        .into_iter()
        .next()
        .map(|(token, GetProject { project_id })| {
            assert_eq!(project_id, "prj_00042");
            token
        })
        .expect("the id is looked up by itself");
    // The service's search reads names and owners: nothing; the id finds the
    // project, then a search for its name under the filters finds its row
    // (the answers may come in any order).
    let effects = app.handle(
        answer(
            inventory::ID_LOOKUP,
            lookup,
            Ok(project("prj_00042")),
            inventory::Msg::IdProject,
        ),
        NOW,
    );
    let (by_name, named) = inventory_asked::<ListInventory>(&effects, inventory::ID_LOOKUP)
        .pop()
        .expect("the project's name is searched for: an inventory search");
    let ListInventory { params, .. } = named;
    assert_eq!(params.query.as_deref(), Some("Invoice finder"));
    app.handle(answer_inventory_page(search, page(0..0, 0, false)), NOW);
    app.handle(
        answer(
            inventory::ID_LOOKUP,
            by_name,
            Ok(page(40..44, 4, false)),
            inventory::Msg::IdRow,
        ),
        NOW,
    );
    let rows = &app.inventory.list.rows;
    assert_eq!(rows.len(), 1);
    assert_eq!(rows[0].id, "prj_00042");
    let shown = text(&screen(&app, 120, 35));
    assert!(
        shown.contains("1 project · 1 loaded · 1/1")
            && shown.contains("needs review")
            && !shown.contains("? unknown")
            && shown.contains("Project 42"),
        "the row as the service sent it: {shown}"
    );

    // A search that is no project's id: the 404 is no error for the log.
    app.handle(key('/'), NOW);
    app.handle(key('9'), NOW);
    let effects = app.handle(special(KeyCode::Enter), NOW);
    let (token, _) = inventory_asked::<GetProject>(&effects, inventory::ID_LOOKUP)
        .into_iter()
        .next()
        .expect("looked up");
    let missing = error(Some(404), Some("project_not_found"), None);
    app.handle(
        answer(
            inventory::ID_LOOKUP,
            token,
            Err(missing),
            inventory::Msg::IdProject,
        ),
        NOW,
    );
    assert!(!text(&screen(&app, 120, 35)).contains("project_not_found"));
    // Words are not looked up.
    app.handle(key('/'), NOW);
    for _ in 0..12 {
        app.handle(special(KeyCode::Backspace), NOW);
    }
    for ch in "garden".chars() {
        app.handle(key(ch), NOW);
    }
    let effects = app.handle(special(KeyCode::Enter), NOW);
    assert!(asked_in(&effects, inventory::ID_LOOKUP).is_empty());
}

#[test]
fn a_project_found_by_id_stays_counted_once_more_pages_arrive() {
    let mut app = app();
    inventory_with(&mut app, 3, 3);
    app.handle(key('/'), NOW);
    for ch in "prj_00999".chars() {
        app.handle(key(ch), NOW);
    }
    let effects = app.handle(special(KeyCode::Enter), NOW);
    let (search, ..) = inventory_requests(&effects)[0].clone();
    let (lookup, _) = inventory_asked::<GetProject>(&effects, inventory::ID_LOOKUP)
        .into_iter()
        .next()
        .expect("the id is looked up by itself");
    let effects = app.handle(
        answer(
            inventory::ID_LOOKUP,
            lookup,
            Ok(project("prj_00999")),
            inventory::Msg::IdProject,
        ),
        NOW,
    );
    let (by_name, _) = inventory_asked::<ListInventory>(&effects, inventory::ID_LOOKUP)
        .pop()
        .expect("the project's name is searched for");
    app.handle(
        answer(
            inventory::ID_LOOKUP,
            by_name,
            Ok(page(999..1000, 1, false)),
            inventory::Msg::IdRow,
        ),
        NOW,
    );
    // Names match too: two pages of them, the id's project on neither.
    let first = app.handle(answer_inventory_page(search, page(0..100, 150, true)), NOW);
    assert_eq!(app.inventory.total, Some(151));
    let next = inventory_requests(&first)
        .into_iter()
        .chain(inventory_requests(&app.handle(key('G'), NOW)))
        .find(|(_, _, cursor)| cursor.is_some())
        .expect("the second page is asked for");
    app.handle(
        answer_inventory_page(next.0, page(100..150, 150, false)),
        NOW,
    );
    assert_eq!(app.inventory.list.rows.len(), 151);
    assert_eq!(app.inventory.total, Some(151), "still counted");
}

/// The header names the workspace as it was found ("ws_… (demo)", "ws_… (found
/// via the key)"); a list's request names the workspace by its id alone.
#[test]
fn a_list_asks_for_the_workspace_by_its_id_not_by_the_header_label() {
    let mut app = App::new(
        vantage::tui::app::Identity {
            workspace: "ws_test (demo)".into(),
            workspace_id: "ws_test".into(),
            plan: None,
            api_version: "2026-09-11".into(),
            read_only: false,
        },
        crate::tui::support::settings(
            vantage::tui::theme::ThemeName::Dark,
            vantage::tui::theme::ColorDepth::TrueColor,
        ),
    );
    app.start(NOW);
    let effects = app.handle(key('3'), NOW);
    let listing = asked(&effects)
        .into_iter()
        .find_map(|fetch| fetch.operation::<ListMembers>().cloned())
        .expect("the members screen asks for its first page");
    assert_eq!(listing.workspace_id, "ws_test");
}

#[test]
fn an_id_search_never_shows_a_row_the_filters_exclude() {
    let mut app = app();
    inventory_with(&mut app, 3, 3);
    app.handle(key('/'), NOW);
    for ch in "prj_10befad0e55d".chars() {
        app.handle(key(ch), NOW);
    }
    let effects = app.handle(special(KeyCode::Enter), NOW);
    let (search, _) = inventory_pages(&effects).pop().expect("the search");
    let lookup = asked_in(&effects, inventory::ID_LOOKUP)
        .pop()
        .expect("the id")
        .token;
    let effects = app.handle(
        answer(
            inventory::ID_LOOKUP,
            lookup,
            Ok(named_project("prj_10befad0e55d", "Clinic manager 86")),
            inventory::Msg::IdProject,
        ),
        NOW,
    );
    app.handle(answer_inventory_page(search, page_of(vec![])), NOW);
    let by_name = asked_in(&effects, inventory::ID_LOOKUP)
        .pop()
        .expect("by name")
        .token;
    // The filters exclude it: the service's search under them does not return it.
    app.handle(
        answer(
            inventory::ID_LOOKUP,
            by_name,
            Ok(page_of(vec![])),
            inventory::Msg::IdRow,
        ),
        NOW,
    );
    assert!(app.inventory.list.rows.is_empty(), "no made-up row");
    let shown = text(&screen(&app, 120, 35));
    assert!(
        shown.contains("prj_10befad0e55d: not under these filters")
            && shown.contains(":prj_10befad0e55d opens it"),
        "{shown}"
    );
    // The search ends: what it found out goes with it.
    app.handle(key('c'), NOW);
    let shown = text(&screen(&app, 120, 35));
    assert!(!shown.contains("not under these filters"), "{shown}");
}
