//! Issue 14's defects, one test each: honest unknowns, ageing times, the
//! request budget, read-only keys, sorting and filters, drawn on TestBackend.

// Replies are `Result<Reply, ErrorInfo>`, the app's own message type.
#![allow(clippy::result_large_err)]

use ratatui::Terminal;
use ratatui::backend::TestBackend;
use serde_json::{Value, json};
use time::OffsetDateTime;
use time::macros::datetime;
use vantage::api::model::InventoryPage;
use vantage::tui::app::{App, Msg};
use vantage::tui::effect::{Effect, ErrorInfo};

use crate::common::items::inventory_item;
use crate::tui::support::{answer, asked_in, only};
use crate::tui::support::{answer_inventory_page, inventory_pages};
use crate::tui::support::{app, key};
use vantage::api::model::Realtime;
use vantage::tui::ops::ExportInventory;
use vantage::tui::ops::GetRealtime;
use vantage::tui::screens::insights;
use vantage::tui::screens::inventory;
use vantage::tui::screens::{members, monitor};

const NOW: OffsetDateTime = datetime!(2026-11-22 12:00 UTC);

fn text_at(app: &App, width: u16, height: u16, now: OffsetDateTime) -> String {
    let mut terminal = Terminal::new(TestBackend::new(width, height)).unwrap();
    terminal.draw(|frame| app.draw(frame, now)).unwrap();
    terminal.backend().to_string()
}

fn text(app: &App, width: u16, height: u16) -> String {
    text_at(app, width, height, NOW)
}

/// One inventory row; `matched` is its `matched_reason` (null when unknown).
fn project(n: usize, name: &str, matched: Value) -> Value {
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

fn page(rows: Vec<Value>, total: usize, more: bool) -> InventoryPage {
    serde_json::from_value(json!({
        "data": rows,
        "pagination": {"has_more": more, "next_cursor": if more { json!("c1") } else { Value::Null }},
        "total": total, "as_of": null, "activity_as_of": null, "applied_finding": null
    }))
    .unwrap()
}

/// Opens the inventory and answers its first page.
fn show_inventory(app: &mut App, page: InventoryPage) -> Vec<Effect> {
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

// --- 5. Insights counts every project ------------------------------------------------

fn insights(total: i64, needs: i64, recommended: i64, none: i64) -> vantage::api::model::Insights {
    let metric = |value: i64| json!({"value": value, "delta_30d": 0, "delta_window": "30 days"});
    serde_json::from_value(json!({
        "as_of": "2026-11-22T11:59:00Z",
        "findings": [],
        "summary": {
            "total_projects": metric(total), "externally_published": metric(10),
            "workspace_members": metric(800),
            "risk": {"needs_review": needs, "review_recommended": recommended, "no_review_needed": none}
        }
    }))
    .unwrap()
}

#[test]
fn insights_shows_unscored_projects_so_the_parts_add_up_to_the_total() {
    let mut app = app();
    let effects = app.start(NOW);
    let token = only(&effects, insights::INSIGHTS).token;
    let loaded = Ok(insights(5_000, 408, 463, 3_726));
    app.handle(
        answer(insights::INSIGHTS, token, loaded, insights::Msg::Loaded),
        NOW,
    );
    let screen = text(&app, 120, 35);
    assert!(screen.contains("not scored yet 403"), "{screen}");
    assert!(screen.contains("5,000"), "{screen}");
}

// --- 3. Relative times age ------------------------------------------------------------

fn status_line(app: &App, now: OffsetDateTime) -> String {
    let screen = text_at(app, 120, 35, now);
    screen.lines().nth(33).unwrap_or_default().to_owned()
}

#[test]
fn relative_times_age_with_a_wake_when_the_label_changes_only_while_one_is_shown() {
    let mut app = app();
    let effects = app.start(NOW);
    assert_eq!(app.next_wake(), None, "nothing shown as an age yet");
    let token = only(&effects, insights::INSIGHTS).token;
    let loaded = Ok(insights(10, 1, 2, 7));
    app.handle(
        answer(insights::INSIGHTS, token, loaded, insights::Msg::Loaded),
        NOW,
    );
    app.handle(
        Msg::Client(vantage::tui::app::ClientNotice::RateLimit {
            remaining: 2,
            limit: 120,
        }),
        NOW,
    );
    assert!(status_line(&app, NOW).contains("rate 2/120 · updated just now"));
    // The next wake is when the label changes (in 10 s steps within the first
    // minute: 54 s is not "just now"), not a fixed tick.
    let ten = NOW + time::Duration::seconds(10);
    assert_eq!(app.next_wake(), Some(ten));
    app.dirty = false;
    app.handle(Msg::Wake, ten);
    assert!(app.dirty, "the wake redraws the aged label");
    assert!(status_line(&app, ten).contains("updated 10 s ago"));
    let minute = NOW + time::Duration::minutes(1);
    app.dirty = false;
    app.handle(Msg::Wake, minute);
    assert!(app.dirty, "the wake redraws the aged label");
    let line = status_line(&app, minute + time::Duration::seconds(40));
    assert!(
        line.contains("rate 2/120 (1 min ago) · updated 1 min ago"),
        "{line}"
    );
    assert_eq!(app.next_wake(), Some(NOW + time::Duration::minutes(2)));
}

// --- 4. The request budget ----------------------------------------------------------------

fn ctrl(ch: char) -> Msg {
    Msg::Key(crossterm::event::KeyEvent::new(
        crossterm::event::KeyCode::Char(ch),
        crossterm::event::KeyModifiers::CONTROL,
    ))
}

fn enter() -> Msg {
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

#[test]
fn a_wait_for_the_rate_limit_is_said_and_logged() {
    use vantage::tui::app::ClientNotice;
    let mut app = app();
    app.start(NOW);
    app.handle(Msg::Client(ClientNotice::Paced { wait_ms: 12_000 }), NOW);
    let line = status_line(&app, NOW + time::Duration::seconds(2));
    assert!(line.contains("waiting 10 s for the rate limit"), "{line}");
    assert_eq!(app.errors.len(), 1);
    assert_eq!(
        app.errors[0].kind,
        Some(vantage::tui::effect::ErrorKind::RequestBudget)
    );
    assert!(app.errors[0].summary.contains("waited 12 s"));
    // Once a reply reports the limit again, the wait is over.
    app.handle(
        Msg::Client(ClientNotice::RateLimit {
            remaining: 50,
            limit: 120,
        }),
        NOW + time::Duration::seconds(12),
    );
    let line = status_line(&app, NOW + time::Duration::seconds(12));
    assert!(!line.contains("waiting"), "{line}");
}

#[test]
fn the_monitor_stretches_its_refresh_when_many_are_watched_and_says_so() {
    use vantage::tui::app::ClientNotice;
    let mut app = app();
    app.start(NOW);
    app.monitor.watch = (0..12)
        .map(|n| vantage::tui::watchlist::WatchEntry {
            id: format!("prj_{n:04}"),
            name: Some(format!("Watched {n}")),
        })
        .collect();
    app.handle(
        Msg::Client(ClientNotice::RateLimit {
            remaining: 120,
            limit: 120,
        }),
        NOW,
    );
    let effects = app.handle(key('4'), NOW);
    let asked = asked_in(&effects, monitor::REALTIME);
    assert_eq!(asked.len(), 12, "one request per watched project");
    for fetch in asked {
        let realtime: Realtime =
            serde_json::from_value(json!({"current_visitors": 1, "buckets": []})).unwrap();
        app.handle(fetch.ok(realtime), NOW);
    }
    // 12 projects every 10 s would be 72 a minute; half of 120 allows a round every 12 s.
    assert_eq!(
        app.monitor.next_refresh(),
        Some(NOW + time::Duration::seconds(12))
    );
    let screen = text(&app, 120, 35);
    assert!(
        screen.contains("refresh every 12 s (stretched from 10 s to fit the rate limit)"),
        "{screen}"
    );
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

// --- 8. A read-only key ---------------------------------------------------------------------

#[test]
fn a_missing_write_scope_is_said_on_every_screen_for_the_session() {
    let mut app = app();
    show_inventory(
        &mut app,
        page(vec![project(1, "Alpha", Value::Null)], 1, false),
    );
    // Learned from the first 403 `insufficient_scope` of a write.
    app.missing_write_scope = Some(vec!["projects:write".into()]);
    for tab in ['1', '2', '3'] {
        app.handle(key(tab), NOW);
        let screen = text(&app, 120, 35);
        let footer = screen.lines().last().unwrap_or_default();
        assert!(footer.contains("key lacks projects:write"), "{footer}");
    }
    app.handle(key('?'), NOW);
    let screen = text(&app, 120, 35);
    assert!(
        screen.contains("changes are disabled for this session: the API key lacks projects:write"),
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

// --- 11. Members ------------------------------------------------------------------------------

#[test]
fn members_learn_roles_from_a_role_filter_and_show_a_dash_until_known() {
    use vantage::api::model::{MemberRef, Page, Role};
    let mut app = app();
    app.start(NOW);
    let members = |ids: &[&str]| -> Page<MemberRef> {
        serde_json::from_value(json!({
            "data": ids.iter().map(|id| json!({"user_id": id, "type": "user"})).collect::<Vec<_>>(),
            "pagination": {"has_more": false, "next_cursor": null}
        }))
        .unwrap()
    };
    let effects = app.handle(key('3'), NOW);
    let first = only(&effects, members::PAGE);
    app.handle(first.ok(members(&["u1", "u2"])), NOW);
    assert!(app.members.known_roles.is_empty());
    let screen = text(&app, 120, 35);
    assert!(screen.contains("Role"), "{screen}");
    // Filtered by one role, every row has it.
    app.members.roles = vec![Role::Admin];
    let effects = app.handle(key('r'), NOW);
    let token = only(&effects, members::PAGE).token;
    let page = members(&["u2"]);
    app.handle(
        answer(members::PAGE, token, Ok(page), members::Msg::Page),
        NOW,
    );
    assert_eq!(app.members.known_roles.get("u2"), Some(&Role::Admin));
    assert_eq!(app.members.known_roles.get("u1"), None);
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

// --- 12. The monitor ------------------------------------------------------------------------------

#[test]
fn monitor_tiles_say_when_updated_and_a_never_published_project_says_so() {
    let mut app = app();
    app.start(NOW);
    app.monitor.watch = ["prj_live", "prj_never"]
        .iter()
        .map(|id| vantage::tui::watchlist::WatchEntry {
            id: (*id).to_owned(),
            name: None,
        })
        .collect();
    let effects = app.handle(key('4'), NOW);
    for fetch in asked_in(&effects, monitor::REALTIME) {
        let never = fetch.op::<GetRealtime>().project_id == "prj_never";
        let answer = if never {
            Err(ErrorInfo {
                status: Some(404),
                kind: Some("analytics_not_found".into()),
                detail: None,
                request_id: Some("req_1".into()),
                summary: "analytics_not_found (HTTP 404)".into(),
                gate: Some(vantage::tui::effect::Gate::FeatureOff("analytics".into())),
                at: NOW,
            })
        } else {
            Ok(serde_json::from_value(json!({"current_visitors": 4, "buckets": []})).unwrap())
        };
        app.handle(fetch.answer::<Realtime>(answer), NOW);
    }
    let screen = text(&app, 120, 35);
    assert!(screen.contains("4 now · at 12:00:00"), "{screen}");
    assert!(
        screen.contains("404 analytics_not_found: not published"),
        "{screen}"
    );
    assert!(!screen.contains("not enabled"), "{screen}");
}
