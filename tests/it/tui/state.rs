//! State-model tests of the dashboard: no terminal, no network.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use serde_json::json;
use time::macros::datetime;
use vantage::api::model::{InventoryPage, InventorySortBy, SortOrder};
use vantage::tui::app::{App, Msg};
use vantage::tui::effect::Effect;

use crate::common::items::inventory_item;
use crate::tui::support::{answer_inventory_page, app, inventory_pages, key};

pub(crate) const NOW: time::OffsetDateTime = datetime!(2026-11-22 12:00 UTC);

pub(crate) fn page(range: std::ops::Range<usize>, total: usize, more: bool) -> InventoryPage {
    // Each page its own cursor, as a service's are: a walk refuses a repeated one.
    let cursor = format!("c{}", range.end);
    let data: Vec<_> = range
        .map(|n| {
            inventory_item(json!({
                "id": format!("prj_{n:05}"), "name": format!("Project {n}"),
                "is_published": false, "publish_audience": null
            }))
        })
        .collect();
    serde_json::from_value(json!({
        "data": data,
        "pagination": {"has_more": more, "next_cursor": if more { Some(cursor) } else { None }},
        "total": total, "as_of": null, "activity_as_of": null, "applied_finding": null
    }))
    .unwrap()
}

/// The inventory page requests among effects, with their tokens.
fn page_requests(effects: &[Effect]) -> Vec<(u64, Option<String>)> {
    inventory_pages(effects)
        .into_iter()
        .map(|(token, page)| (token, page.cursor))
        .collect()
}

fn open_inventory(app: &mut App) -> u64 {
    app.start(NOW);
    let effects = app.handle(key('2'), NOW);
    let requests = page_requests(&effects);
    assert_eq!(
        requests.len(),
        1,
        "switching to the inventory loads its first page"
    );
    requests[0].0
}

#[test]
fn a_stale_reply_is_dropped() {
    let mut app = app();
    let first = open_inventory(&mut app);
    // Changing the sort asks again; the first reply then arrives late.
    let effects = app.handle(key('S'), NOW);
    assert!(
        page_requests(&effects).is_empty(),
        "no sort chosen yet: S only explains"
    );
    let effects = app.handle(key('p'), NOW);
    let second = page_requests(&effects)[0].0;
    assert_ne!(first, second);
    app.handle(answer_inventory_page(first, page(0..5, 5, false)), NOW);
    assert!(
        app.inventory.list.rows.is_empty(),
        "the reply of the older filter is dropped"
    );
    app.handle(answer_inventory_page(second, page(0..3, 3, false)), NOW);
    assert_eq!(app.inventory.list.rows.len(), 3);
    assert_eq!(app.inventory.total, Some(3));
}

#[test]
fn a_stale_reply_marks_nothing_dirty() {
    let mut app = app();
    let first = open_inventory(&mut app);
    let reply = |token: u64, rows: usize| answer_inventory_page(token, page(0..rows, rows, false));
    app.handle(reply(first, 5), NOW);
    // Two filter changes; the reply to the first arrives after the second.
    let stale = page_requests(&app.handle(key('p'), NOW))[0].0;
    let current = page_requests(&app.handle(key('p'), NOW))[0].0;
    // The runtime draws and clears the flag; the late reply must not set it again.
    app.dirty = false;
    let effects = app.handle(reply(stale, 4), NOW);
    assert!(effects.is_empty());
    assert!(!app.dirty, "a dropped reply changes nothing on screen");
    // A key that means nothing here changes nothing either.
    app.handle(key('Z'), NOW);
    assert!(!app.dirty, "an unbound key redraws nothing");
    app.handle(reply(current, 3), NOW);
    assert!(app.dirty, "the current reply is shown");
    assert_eq!(app.inventory.list.rows.len(), 3);
}

#[test]
fn the_next_page_is_asked_for_before_the_last_row() {
    let mut app = app();
    let token = open_inventory(&mut app);
    let effects = app.handle(answer_inventory_page(token, page(0..100, 250, true)), NOW);
    assert!(
        page_requests(&effects).is_empty(),
        "the cursor is far from the end"
    );
    let mut asked = None;
    for step in 0..100 {
        let effects = app.handle(key('j'), NOW);
        if let Some(request) = page_requests(&effects).into_iter().next() {
            asked = Some((step, request));
            break;
        }
    }
    let (step, (_, cursor)) = asked.expect("a page is asked for while moving down");
    assert!(step < 99, "asked at row {step}, before the last loaded row");
    assert_eq!(cursor.as_deref(), Some("c100"));
    // While that page is in flight, moving does not ask again.
    let effects = app.handle(key('j'), NOW);
    assert!(page_requests(&effects).is_empty());
}

#[test]
fn an_empty_page_with_more_keeps_walking() {
    let mut app = app();
    let token = open_inventory(&mut app);
    let effects = app.handle(answer_inventory_page(token, page(0..0, 10, true)), NOW);
    assert_eq!(
        page_requests(&effects).len(),
        1,
        "an empty page with has_more is not the end"
    );
}

#[test]
fn sort_menu_and_reverse_toggle_the_query() {
    let mut app = app();
    open_inventory(&mut app);
    app.handle(key('s'), NOW);
    // The menu opens on "default"; the second entry is the first sort field.
    app.handle(key('j'), NOW);
    app.handle(key('j'), NOW);
    let effects = app.handle(
        Msg::Key(KeyEvent::new(KeyCode::Enter, KeyModifiers::NONE)),
        NOW,
    );
    assert_eq!(page_requests(&effects).len(), 1);
    assert_eq!(
        app.inventory.query.sort_by,
        Some(InventorySortBy::KNOWN[1].clone())
    );
    assert_eq!(app.inventory.sort_order(), SortOrder::Desc);
    let effects = app.handle(key('S'), NOW);
    assert_eq!(page_requests(&effects).len(), 1);
    assert_eq!(app.inventory.sort_order(), SortOrder::Asc);
    app.handle(key('S'), NOW);
    assert_eq!(app.inventory.sort_order(), SortOrder::Desc);
}

#[test]
fn typing_a_search_waits_for_the_debounce() {
    let mut app = app();
    open_inventory(&mut app);
    app.handle(key('/'), NOW);
    for ch in "budget".chars() {
        let effects = app.handle(key(ch), NOW);
        assert!(
            page_requests(&effects).is_empty(),
            "no request per keystroke"
        );
    }
    let deadline = app.wake_at().expect("a debounce deadline");
    assert!(deadline > NOW && deadline <= NOW + time::Duration::milliseconds(300));
    let early = app.handle(Msg::Wake, NOW + time::Duration::milliseconds(100));
    assert!(page_requests(&early).is_empty());
    let effects = app.handle(Msg::Wake, deadline);
    assert_eq!(page_requests(&effects).len(), 1);
    assert_eq!(app.inventory.search(), "budget");
    // While typing, q is text, not quit.
    app.handle(key('q'), NOW);
    assert!(!app.should_quit);
}

#[test]
fn q_quits_and_question_mark_opens_help() {
    let mut app = app();
    app.start(NOW);
    app.handle(key('?'), NOW);
    app.handle(
        Msg::Key(KeyEvent::new(KeyCode::Esc, KeyModifiers::NONE)),
        NOW,
    );
    assert!(!app.should_quit);
    let effects = app.handle(key('q'), NOW);
    assert!(app.should_quit);
    assert!(effects.contains(&Effect::Quit));
}
