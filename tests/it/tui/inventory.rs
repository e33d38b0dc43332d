//! The inventory list (issue 14): an unknown count said as unknown, the
//! export that reuses the loaded pages, a refresh through an outage, the
//! sorted column and the filters, drawn on TestBackend.

// Replies are `Result<Reply, ErrorInfo>`, the app's own message type.
#![allow(clippy::result_large_err)]

use serde_json::{Value, json};
use time::OffsetDateTime;
use time::macros::datetime;
use vantage::api::model::InventoryPage;
use vantage::tui::app::{App, Msg};
use vantage::tui::effect::{Effect, ErrorInfo};

use crate::common::items::inventory_item;
use crate::tui::support::{answer, only};
use crate::tui::support::{answer_inventory_page, inventory_pages};
use crate::tui::support::{app, key};
use vantage::tui::ops::ExportInventory;
use vantage::tui::screens::inventory;

pub(crate) const NOW: OffsetDateTime = datetime!(2026-11-22 12:00 UTC);

/// The whole frame at `now`, as text.
pub(crate) fn text_at(app: &App, width: u16, height: u16, now: OffsetDateTime) -> String {
    crate::tui::support::drawn(app, width, height, now).full()
}

pub(crate) fn text(app: &App, width: u16, height: u16) -> String {
    text_at(app, width, height, NOW)
}

/// One inventory row; `matched` is its `matched_reason` (null when unknown).
pub(crate) fn project(n: usize, name: &str, matched: Value) -> Value {
    inventory_item(json!({
        "id": format!("prj_{n:04}"), "name": name, "edits_7d": n, "edits_30d": n,
        "matched_reason": matched
    }))
}

fn matched(open_pii: i64) -> Value {
    json!({"id": "pii", "label": "Personal data", "detail": "open findings",
        "category": "privacy", "review_priority": "needs_review", "values": {
        "error_count": 0, "warning_count": 0, "info_count": 0, "secret_count": 0,
        "open_pii_finding_count": open_pii, "shared_user_count": 0, "connector_count": 0,
        "edge_function_count": 0
    }})
}

pub(crate) fn page(rows: Vec<Value>, total: usize, more: bool) -> InventoryPage {
    serde_json::from_value(json!({
        "data": rows,
        "pagination": {"has_more": more, "next_cursor": if more { json!("c1") } else { Value::Null }},
        "total": total, "as_of": null, "activity_as_of": null, "applied_finding": null
    }))
    .unwrap()
}

/// Opens the inventory and answers its first page.
pub(crate) fn show_inventory(app: &mut App, page: InventoryPage) -> Vec<Effect> {
    app.start(NOW);
    let effects = app.handle(key('2'), NOW);
    let (token, _) = inventory_pages(&effects)[0].clone();
    app.handle(answer_inventory_page(token, page), NOW)
}

// --- 1. The PII column --------------------------------------------------------------

#[test]
fn an_unknown_pii_count_reads_a_question_mark_never_zero() {
    let mut app = app();
    show_inventory(
        &mut app,
        page(
            vec![
                project(1, "Unknown count", Value::Null),
                project(2, "Three open", matched(3)),
                project(3, "None open", matched(0)),
            ],
            3,
            false,
        ),
    );
    let screen = text(&app, 120, 35);
    let pii_of = |name: &str| {
        let line = screen
            .lines()
            .find(|line| line.contains(name) && line.contains("never"))
            .unwrap();
        let cells: Vec<&str> = line.split_whitespace().collect();
        // PII is the cell before the last scan ("never").
        cells[cells.len() - 3].to_owned()
    };
    assert_eq!(pii_of("Unknown count"), "?", "{screen}");
    assert_eq!(pii_of("Three open"), "3", "{screen}");
    assert_eq!(pii_of("None open"), "0", "{screen}");
}

// --- The status line's row ------------------------------------------------------------

pub(crate) fn status_line(app: &App, now: OffsetDateTime) -> String {
    let screen = text_at(app, 120, 35, now);
    screen.lines().nth(33).unwrap_or_default().to_owned()
}

// --- 4. The request budget ----------------------------------------------------------------

fn ctrl(ch: char) -> Msg {
    Msg::Key(crossterm::event::KeyEvent::new(
        crossterm::event::KeyCode::Char(ch),
        crossterm::event::KeyModifiers::CONTROL,
    ))
}

pub(crate) fn enter() -> Msg {
    Msg::Key(crossterm::event::KeyEvent::new(
        crossterm::event::KeyCode::Enter,
        crossterm::event::KeyModifiers::NONE,
    ))
}

/// The export request `ctrl-s`, `Enter` (CSV) makes: (rows handed over, cursor to resume at).
fn export_request(app: &mut App) -> (usize, Option<String>) {
    app.handle(ctrl('s'), NOW);
    let effects = app.handle(enter(), NOW);
    let export = only(&effects, inventory::EXPORT);
    let ExportInventory {
        loaded,
        next_cursor,
        ..
    } = export.op::<ExportInventory>();
    (loaded.len(), next_cursor.clone())
}

#[test]
fn export_reuses_the_loaded_pages_and_fetches_only_the_rest() {
    let rows = || (0..3).map(|n| project(n, "Row", Value::Null)).collect();
    let mut complete = app();
    show_inventory(&mut complete, page(rows(), 3, false));
    assert_eq!(
        export_request(&mut complete),
        (3, None),
        "nothing left to fetch"
    );

    let mut partial = app();
    show_inventory(&mut partial, page(rows(), 5_000, true));
    assert_eq!(export_request(&mut partial), (3, Some("c1".to_owned())));
}

// --- 7. `r` during an outage ---------------------------------------------------------------

fn unreachable() -> ErrorInfo {
    ErrorInfo {
        status: None,
        kind: None,
        detail: None,
        request_id: None,
        summary: "cannot connect to the service".into(),
        gate: None,
        at: NOW,
    }
}

fn page_request(effects: &[Effect]) -> u64 {
    inventory_pages(effects)
        .into_iter()
        .next()
        .map(|(token, _)| token)
        .expect("a page request")
}

#[test]
fn refresh_during_an_outage_keeps_the_list_and_one_refresh_reloads_after() {
    let mut app = app();
    let rows = |names: &[&str]| {
        names
            .iter()
            .enumerate()
            .map(|(n, name)| project(n, name, Value::Null))
            .collect::<Vec<_>>()
    };
    show_inventory(&mut app, page(rows(&["Alpha", "Beta", "Gamma"]), 3, false));
    let token = page_request(&app.handle(key('r'), NOW));
    let screen = text(&app, 120, 35);
    assert!(
        screen.contains("Gamma"),
        "rows stay while the refresh is under way"
    );
    app.handle(
        answer(
            inventory::PAGE,
            token,
            Err(unreachable()),
            inventory::Msg::Page,
        ),
        NOW,
    );
    let screen = text(&app, 120, 35);
    assert!(screen.contains("3 loaded"), "{screen}");
    assert!(
        screen.contains("Gamma") && screen.contains("not refreshed"),
        "{screen}"
    );
    // The service is back: one `r` replaces the rows, without duplicates.
    let token = page_request(&app.handle(key('r'), NOW));
    app.handle(
        answer_inventory_page(token, page(rows(&["Alpha", "Beta"]), 2, false)),
        NOW,
    );
    assert_eq!(app.inventory.list.rows.len(), 2);
    let screen = text(&app, 120, 35);
    assert!(
        screen.contains("2 loaded") && !screen.contains("Gamma"),
        "{screen}"
    );
}

// --- 9. The sort stays visible ------------------------------------------------------------------

#[test]
fn the_sorted_column_shows_its_arrow_and_stays_at_narrow_widths() {
    use vantage::api::model::{InventorySortBy, SortOrder};
    let mut app = app();
    show_inventory(
        &mut app,
        page(vec![project(7, "Alpha", Value::Null)], 1, false),
    );
    app.inventory.query.sort_by = Some(InventorySortBy::Edits30d);
    app.inventory.query.sort_order = Some(SortOrder::Desc);
    for width in [80, 120] {
        let screen = text(&app, width, 24);
        let header = screen
            .lines()
            .find(|line| line.contains("Priority") && line.contains("Name"))
            .unwrap();
        assert!(header.contains("Edits 30d ↓"), "{width}: {header}");
    }
    app.inventory.query.sort_by = Some(InventorySortBy::LastSecurityScanAt);
    app.inventory.query.sort_order = Some(SortOrder::Asc);
    let screen = text(&app, 60, 24);
    assert!(screen.contains("Last scan ↑"), "{screen}");
}

/// Issue 27: sorting by open PII dropped the Visibility column at 120 wide.
#[test]
fn a_sort_by_open_pii_keeps_every_column() {
    use vantage::api::model::{InventorySortBy, SortOrder};
    let mut app = app();
    show_inventory(
        &mut app,
        page(vec![project(7, "Alpha", Value::Null)], 1, false),
    );
    let header = |app: &App| {
        text(app, 120, 24)
            .lines()
            .find(|line| line.contains("Priority") && line.contains("Name"))
            .unwrap()
            .to_owned()
    };
    assert!(header(&app).contains("Visibility"), "{}", header(&app));
    app.inventory.query.sort_by = Some(InventorySortBy::OpenPiiFindingCount);
    app.inventory.query.sort_order = Some(SortOrder::Desc);
    let sorted = header(&app);
    assert!(sorted.contains("PII ↓"), "{sorted}");
    assert!(sorted.contains("Visibility"), "{sorted}");
}

// --- 10. Filters --------------------------------------------------------------------------------

fn esc() -> Msg {
    Msg::Key(crossterm::event::KeyEvent::new(
        crossterm::event::KeyCode::Esc,
        crossterm::event::KeyModifiers::NONE,
    ))
}

#[test]
fn clear_keeps_the_sort_and_esc_in_search_restores_the_text_before() {
    use vantage::api::model::{InventorySortBy, SortOrder};
    let mut app = app();
    show_inventory(
        &mut app,
        page(vec![project(1, "Alpha", Value::Null)], 1, false),
    );
    app.inventory.query.sort_by = Some(InventorySortBy::Name);
    app.inventory.query.sort_order = Some(SortOrder::Asc);
    app.inventory.query.has_pii = Some(true);
    app.handle(key('c'), NOW);
    assert_eq!(app.inventory.query.has_pii, None);
    assert_eq!(app.inventory.query.sort_by, Some(InventorySortBy::Name));
    assert_eq!(app.inventory.query.sort_order, Some(SortOrder::Asc));

    // A search applied, then an edit cancelled with Esc after its debounce fired.
    app.handle(key('/'), NOW);
    for ch in "fleet".chars() {
        app.handle(key(ch), NOW);
    }
    app.handle(enter(), NOW);
    app.handle(key('/'), NOW);
    for ch in " hub".chars() {
        app.handle(key(ch), NOW);
    }
    app.handle(Msg::Wake, NOW + time::Duration::seconds(1));
    assert_eq!(app.inventory.search(), "fleet hub");
    let effects = app.handle(esc(), NOW + time::Duration::seconds(2));
    assert_eq!(app.inventory.search(), "fleet");
    let reloaded = inventory_pages(&effects)
        .into_iter()
        .any(|(_, page)| page.params.query.as_deref() == Some("fleet"));
    assert!(
        reloaded,
        "the list is read again with the text before the edit"
    );
}

// --- 13. Small things -------------------------------------------------------------------------

#[test]
fn one_project_is_singular_and_a_copy_is_said_as_sent() {
    let mut app = app();
    show_inventory(
        &mut app,
        page(vec![project(1, "Alpha", Value::Null)], 1, false),
    );
    let screen = text(&app, 120, 35);
    assert!(screen.contains("1 project · 1 loaded"), "{screen}");
    app.handle(key('y'), NOW);
    let line = status_line(&app, NOW);
    assert!(
        line.contains("copy sent to the terminal (OSC 52): prj_0001"),
        "{line}"
    );
}
