//! Issue 22 item 2, the dashboard: `G` walks the inventory's pages through the
//! same bounded walk as the commands. A service whose cursors cycle, or whose
//! empty pages with `has_more` never end, stops the walk by itself, and the
//! status line and the error log name the operation.

use vantage::api::model::InventoryPage;
use vantage::tui::app::App;

use crate::tui::inventory_query::{inventory_requests, inventory_with};
use crate::tui::state::page;
use crate::tui::support::answer_inventory_page;
use crate::tui::support::{NOW, screen, text};
use crate::tui::support::{app, key};

/// Far more than a bounded walk needs, far less than an endless one asks.
const PATIENCE: usize = 300;

/// Presses `G` on an inventory of 100 rows loaded (500 told), then answers
/// every next page with `next(n)`; the pages asked for until the walk stops.
fn walk_to_end(app: &mut App, next: impl Fn(usize) -> InventoryPage) -> usize {
    inventory_with(app, 100, 500);
    let mut effects = app.handle(key('G'), NOW);
    let mut asked = 0;
    while let Some((token, ..)) = inventory_requests(&effects).pop() {
        asked += 1;
        if asked > PATIENCE {
            break;
        }
        effects = app.handle(answer_inventory_page(token, next(asked)), NOW);
    }
    asked
}

fn with_cursor(mut page: InventoryPage, cursor: &str) -> InventoryPage {
    page.pagination.has_more = true;
    page.pagination.next_cursor = Some(cursor.to_owned());
    page
}

fn assert_stopped_and_said(app: &App, asked: usize, why: &str) {
    assert!(
        asked < 30,
        "the walk went on for {asked} pages (stopped only at the test's patience)"
    );
    let logged = &app
        .errors
        .last()
        .expect("the error log has the stop")
        .summary;
    assert!(
        logged.contains("list_inventory") && logged.contains(why),
        "{logged}"
    );
    let shown = text(&screen(app, 160, 35));
    assert!(shown.contains("list_inventory"), "{shown}");
    assert!(!app.inventory.list.is_seeking_end(), "the walk is over");
    // No key walks on from the page that broke the bounds.
    assert_eq!(app.inventory.list.next_cursor(), None);
}

#[test]
fn capital_g_under_cycling_cursors_stops_and_names_the_operation() {
    let mut app = app();
    // Cursors A, B, A, B, … on full pages.
    let asked = walk_to_end(&mut app, |n| {
        let cursor = if n % 2 == 0 { "A" } else { "B" };
        with_cursor(page(n * 100..n * 100 + 100, 500, true), cursor)
    });
    assert_stopped_and_said(&app, asked, "cursor repeated");
}

#[test]
fn capital_g_under_endless_empty_pages_stops_and_names_the_operation() {
    let mut app = app();
    // A new cursor each time, on an empty page that says more exists.
    let asked = walk_to_end(&mut app, |n| {
        with_cursor(page(0..0, 500, true), &format!("e{n}"))
    });
    assert_stopped_and_said(&app, asked, "empty pages in a row");
}

/// Issue 33 item 5, the dashboard: the configured `max_walk_items` bounds a
/// list's walk as it bounds the commands', whatever total the service tells.
#[test]
fn capital_g_stops_at_the_configured_max_walk_items() {
    use vantage::tui::app::Identity;
    use vantage::tui::theme::{ColorDepth, ThemeName};

    let mut settings = crate::tui::support::settings(ThemeName::Dark, ColorDepth::TrueColor);
    settings.max_walk_items = 250;
    let identity = Identity {
        workspace: "ws_test".into(),
        workspace_id: "ws_test".into(),
        plan: None,
        api_version: "2026-09-11".into(),
        read_only: false,
    };
    let mut app = App::new(identity, settings);
    // Full pages of new projects, fresh cursors: every page is plausible.
    let asked = walk_to_end(&mut app, |n| {
        with_cursor(page(n * 100..n * 100 + 100, 500, true), &format!("c{n}"))
    });
    assert_stopped_and_said(&app, asked, "max_walk_items");
    assert!(
        asked <= 2,
        "the walk read past 250 items: {asked} pages asked"
    );
}
