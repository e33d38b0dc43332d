//! The inventory's marks and bulk changes on a 5,000-project workspace
//! (issue 14): bulk changes stop at the first missing-scope 403 for the
//! session, `A` marks every row of the view, the bulk confirm says what it
//! costs and keeps a reserve; and the inventory opened from a finding of
//! insights shows exactly that finding, whose legend keeps every number whole.

#![allow(clippy::result_large_err)]

use crossterm::event::KeyCode;
use serde_json::json;
use time::Duration;
use vantage::api::InventoryParams;
use vantage::api::model::{Insights, InventorySortBy};
use vantage::tui::app::{App, Msg};
use vantage::tui::effect::{Effect, Gate};
use vantage::tui::ops::GetProject;
use vantage::tui::screens::inventory::bulk::RowOutcome;

use crate::tui::inventory_query::{inventory_requests as page_requests, inventory_with, rate};
use crate::tui::state::page;
use crate::tui::support::{NOW, error, screen, special, text};
use crate::tui::support::{
    answer, answer_inventory_page, asked, drawn, inventory_asked, inventory_bulk, inventory_pages,
    only,
};
use crate::tui::support::{app, bulk_outcomes, key};
use vantage::tui::screens::{insights, inventory};

/// The bulk changes among effects: (token, project id).
fn bulk_requests(effects: &[Effect]) -> Vec<(u64, String)> {
    inventory_bulk(effects)
}

fn answer_page(
    app: &mut App,
    effects: &[Effect],
    rows: std::ops::Range<usize>,
    total: usize,
) -> Vec<Effect> {
    let (token, ..) = page_requests(effects).pop().expect("a page request");
    let more = rows.end < total;
    app.handle(answer_inventory_page(token, page(rows, total, more)), NOW)
}

fn insights_with_finding() -> Insights {
    let metric = |value: i64| json!({"value": value, "delta_30d": 0, "delta_window": "30 days"});
    serde_json::from_value(json!({
        "as_of": "2026-11-22T11:59:00Z",
        "findings": [{
            "id": "public_security_exposure", "title": "Publicly published with security issues",
            "description": "", "category": "security", "review_priority": "needs_review",
            "project_count": 187
        }],
        "summary": {
            "total_projects": metric(5_000), "externally_published": metric(10),
            "workspace_members": metric(800),
            "risk": {"needs_review": 408, "review_recommended": 463, "no_review_needed": 3_726}
        }
    }))
    .unwrap()
}

fn show_insights(app: &mut App) {
    let effects = app.start(NOW);
    let token = only(&effects, insights::INSIGHTS).token;
    app.handle(
        answer(
            insights::INSIGHTS,
            token,
            Ok(insights_with_finding()),
            insights::Msg::Loaded,
        ),
        NOW,
    );
}

// --- 1. A finding from insights starts from clean filters -------------------------------

#[test]
fn a_finding_opened_from_insights_drops_the_earlier_filters_and_back_brings_them_again() {
    let mut app = app();
    show_insights(&mut app);
    let effects = app.handle(key('2'), NOW);
    answer_page(&mut app, &effects, 0..100, 5_000);
    // Has personal data = yes, and a PII sort, set earlier.
    let mut earlier = InventoryParams {
        has_pii: Some(true),
        sort_by: Some(InventorySortBy::OpenPiiFindingCount),
        ..InventoryParams::default()
    };
    app.inventory.query = earlier.clone();
    app.handle(key('r'), NOW);

    app.handle(key('1'), NOW);
    let effects = app.handle(special(KeyCode::Enter), NOW);
    let requests = page_requests(&effects);
    assert_eq!(requests.len(), 1, "one page asked for: {requests:?}");
    let (_, params, cursor) = &requests[0];
    assert_eq!(cursor, &None);
    assert_eq!(
        params,
        &InventoryParams {
            finding_type_id: vec!["public_security_exposure".into()],
            limit: Some(100),
            ..InventoryParams::default()
        },
        "exactly the finding: no earlier filter, the default sort"
    );
    answer_page(&mut app, &effects, 0..100, 187);
    let shown = text(&screen(&app, 120, 35));
    assert!(
        shown.contains("187 projects · 100 loaded · 1/187"),
        "{shown}"
    );
    assert!(
        shown.contains("finding public_security_exposure · sort default")
            && !shown.contains("with personal data"),
        "{shown}"
    );

    // `[` to insights, `[` again to the inventory as it was before.
    app.handle(key('['), NOW);
    assert!(text(&screen(&app, 120, 35)).contains("Publicly published with security issues"));
    let back = app.handle(key('['), NOW);
    let (_, params, _) = page_requests(&back)
        .pop()
        .expect("the earlier view reloads");
    earlier.limit = Some(100);
    earlier.sort_order = Some(vantage::api::model::SortOrder::Desc);
    assert_eq!(params, earlier);
    // And `]` forward again, to the finding.
    app.handle(key(']'), NOW);
    let forward = app.handle(key(']'), NOW);
    let (_, params, _) = page_requests(&forward).pop().expect("the finding again");
    assert_eq!(
        params.finding_type_id,
        vec!["public_security_exposure".to_owned()]
    );
    assert_eq!(params.has_pii, None);
}

// --- 2. A key without the write scope ---------------------------------------------------

fn insufficient_scope() -> vantage::tui::effect::ErrorInfo {
    error(
        Some(403),
        Some("insufficient_scope"),
        Some(Gate::Scopes(vec!["projects:write".into()])),
    )
}

#[test]
fn a_bulk_change_refused_for_scope_stops_and_turns_writes_off_for_the_session() {
    let mut app = app();
    inventory_with(&mut app, 3, 3);
    app.handle(key(' '), NOW);
    app.handle(key(' '), NOW);
    app.handle(key('v'), NOW);
    // `r`: restricted (the picker's cursor starts on the rows' value).
    app.handle(key('r'), NOW);
    let effects = app.handle(key('y'), NOW);
    let (token, id) = bulk_requests(&effects)[0].clone();
    assert_eq!(id, "prj_00000");
    let after = app.handle(
        answer(
            inventory::BULK,
            token,
            Err(insufficient_scope()),
            inventory::Msg::BulkUpdated,
        ),
        NOW,
    );
    assert!(
        bulk_requests(&after).is_empty(),
        "the second row would meet the same 403"
    );
    let outcomes = bulk_outcomes(&app);
    assert_eq!(
        outcomes,
        vec![
            RowOutcome::Failed("insufficient_scope".into()),
            RowOutcome::Skipped
        ]
    );
    assert_eq!(
        app.missing_write_scope,
        Some(vec!["projects:write".to_owned()]),
        "the session-wide gate"
    );
    insta::assert_snapshot!(
        "inventory_bulk_refused_for_scope_80x24",
        drawn(&app, 80, 24, NOW).with_status()
    );
    // Closed, the marks stay; v and u refuse in words, with no confirm.
    app.handle(special(KeyCode::Esc), NOW);
    for ch in ['v', 'u'] {
        let effects = app.handle(key(ch), NOW);
        assert!(asked(&effects).is_empty());
        assert!(!app.inventory.bulk.is_open());
        let shown = text(&screen(&app, 120, 35));
        assert!(
            shown.contains(
                "bulk changes are off for this session: the API key lacks projects:write"
            ),
            "{shown}"
        );
    }
    let footer = text(&screen(&app, 120, 35));
    let footer = footer.lines().last().unwrap_or_default();
    // Shown disabled (styled, no "✗"), with the reason once.
    assert!(
        footer.contains("v visibility")
            && footer.contains("u unpublish")
            && footer.contains("key lacks projects:write")
            && !footer.contains('✗'),
        "{footer}"
    );
}

#[test]
fn a_scope_403_on_the_project_screen_turns_bulk_changes_off_too() {
    let mut app = app();
    inventory_with(&mut app, 3, 3);
    app.missing_write_scope = Some(vec!["projects:write".into()]);
    // Any reply carries the gate to the inventory.
    let effects = app.handle(key('r'), NOW);
    answer_page(&mut app, &effects, 0..3, 3);
    app.handle(key(' '), NOW);
    app.handle(key('u'), NOW);
    assert!(!app.inventory.bulk.is_open());
    assert!(text(&screen(&app, 120, 35)).contains("the API key lacks projects:write"));
}

// --- 3. A marks every row of the view ----------------------------------------------------

#[test]
fn capital_a_loads_the_rest_within_the_budget_then_marks_all() {
    let mut app = app();
    rate(&mut app, 100, 120);
    inventory_with(&mut app, 100, 187);
    let effects = app.handle(key('A'), NOW);
    assert_eq!(app.inventory.list.selected, 0, "the selection stays");
    let shown = text(&screen(&app, 120, 35));
    assert!(
        shown.contains("100 marked · loading the rest to mark all"),
        "{shown}"
    );
    answer_page(&mut app, &effects, 100..187, 187);
    assert_eq!(app.inventory.list.marked_count(), 187);
    let shown = text(&screen(&app, 120, 35));
    assert!(
        shown.contains("187 projects · 187 loaded · 1/187 · 187 marked"),
        "{shown}"
    );
    assert!(shown.contains("marked all 187"), "{shown}");
    // The confirm: one change each, the whole view, what it costs.
    app.handle(key('u'), NOW);
    let shown = text(&screen(&app, 120, 35));
    assert!(shown.contains("Unpublish these 187 projects?"), "{shown}");
    assert!(!shown.contains("only loaded rows"), "{shown}");
    assert!(
        shown.contains("187 requests, about 49 s at 120/min; 12 kept for your own actions."),
        "{shown}"
    );
}

#[test]
fn capital_a_stopped_by_the_budget_says_only_the_loaded_are_marked() {
    let mut app = app();
    rate(&mut app, 10, 120);
    inventory_with(&mut app, 100, 187);
    let effects = app.handle(key('A'), NOW);
    assert!(
        page_requests(&effects).is_empty(),
        "no page past the reserve"
    );
    assert_eq!(app.inventory.list.marked_count(), 100);
    app.handle(key('v'), NOW);
    // `r`: restricted (the picker's cursor starts on the rows' value).
    app.handle(key('r'), NOW);
    insta::assert_snapshot!(
        "inventory_bulk_confirm_of_loaded_80x24",
        drawn(&app, 80, 24, NOW).with_status()
    );
    let shown = text(&screen(&app, 120, 35));
    assert!(
        shown.contains("Set the visibility of these 100 projects to restricted?")
            && shown.contains("100 of 187: only loaded rows are marked")
            && shown.contains("Visibility is who may open the project in the editor, not the"),
        "{shown}"
    );
}

#[test]
fn capital_g_on_187_rows_lands_on_the_last_with_one_press() {
    let mut app = app();
    rate(&mut app, 100, 120);
    inventory_with(&mut app, 100, 187);
    let effects = app.handle(key('G'), NOW);
    answer_page(&mut app, &effects, 100..187, 187);
    assert_eq!(app.inventory.list.selected, 186);
    assert!(text(&screen(&app, 120, 35)).contains("187/187"));
}

// --- 4. The bulk run keeps a reserve; the report opens at the top ---------------------------

#[test]
fn a_bulk_run_waits_at_the_reserve_and_goes_on_at_the_limits_pace() {
    let mut app = app();
    rate(&mut app, 14, 120);
    inventory_with(&mut app, 30, 30);
    app.handle(key('A'), NOW);
    app.handle(key('u'), NOW);
    let mut effects = app.handle(key('y'), NOW);
    let mut sent = 0;
    // Two changes fit above the reserve of 12.
    while let Some((token, _)) = bulk_requests(&effects).pop() {
        sent += 1;
        rate(&mut app, 14 - sent, 120);
        effects = app.handle(
            answer(
                inventory::BULK,
                token,
                Ok(()),
                inventory::Msg::BulkUnpublished,
            ),
            NOW,
        );
    }
    assert_eq!(sent, 2);
    let wake = app.wake_at().expect("a wake for the next change");
    assert_eq!(
        wake,
        NOW + Duration::milliseconds(500),
        "one per slot at 120/min"
    );
    let shown = text(&screen(&app, 120, 35));
    assert!(shown.contains("at the budget's reserve"), "{shown}");
    // Nothing goes before the wake; at it, the next change.
    assert!(bulk_requests(&app.handle(Msg::Wake, NOW)).is_empty());
    let effects = app.handle(Msg::Wake, wake);
    assert_eq!(bulk_requests(&effects).len(), 1);
    // Esc while it waits again ends the run at once; the report opens at the top.
    let (token, _) = bulk_requests(&effects)[0].clone();
    app.handle(
        answer(
            inventory::BULK,
            token,
            Ok(()),
            inventory::Msg::BulkUnpublished,
        ),
        NOW,
    );
    app.handle(special(KeyCode::Esc), NOW);
    assert!(!app.inventory.bulk.running());
    let shown = text(&screen(&app, 120, 35));
    assert!(shown.contains("3 ok, 0 failed, 27 not run"), "{shown}");
    let first_row = shown
        .lines()
        .position(|line| line.contains("prj_00000"))
        .expect("the first row is shown");
    let last_shown = shown.lines().position(|line| line.contains("prj_00001"));
    assert!(last_shown > Some(first_row), "{shown}");
    assert!(
        shown.contains("Unpublish: 3 ok, 0 failed, 27 not run"),
        "{shown}"
    );
}

// --- 5. The insights legend at 80x24, the inventory footer ------------------------------------

#[test]
fn the_insights_legend_keeps_every_number_whole_at_80_columns() {
    let mut app = app();
    show_insights(&mut app);
    let shown = text(&screen(&app, 80, 24));
    assert!(shown.contains("not scored yet 403"), "{shown}");
    assert!(shown.contains("no review 3,726"), "{shown}");
    // At the narrowest the dashboard draws, the glyphs alone keep the numbers.
    let narrow = text(&screen(&app, 60, 24));
    assert!(
        narrow.contains("▲ 408") && narrow.contains("· 403"),
        "{narrow}"
    );
}

#[test]
fn the_inventory_footer_hints_the_marks_and_then_the_bulk_keys() {
    let mut app = app();
    inventory_with(&mut app, 3, 3);
    let shown = text(&screen(&app, 120, 35));
    let footer = shown.lines().last().unwrap_or_default();
    assert!(
        footer.contains("space mark") && footer.contains("A mark all"),
        "{footer}"
    );
    app.handle(key(' '), NOW);
    let shown = text(&screen(&app, 120, 35));
    let footer = shown.lines().last().unwrap_or_default();
    assert!(
        footer.contains("v visibility")
            && footer.contains("u unpublish")
            && footer.contains("C clear marks"),
        "{footer}"
    );
}

// --- 6. A project id in the search -----------------------------------------------------

#[test]
fn a_project_id_typed_into_the_search_is_looked_up() {
    let mut app = app();
    inventory_with(&mut app, 3, 3);
    app.handle(key('/'), NOW);
    for ch in "prj_c743bb8ce4a5".chars() {
        app.handle(key(ch), NOW);
    }
    let effects = app.handle(special(KeyCode::Enter), NOW);
    assert!(
        inventory_asked::<GetProject>(&effects, inventory::ID_LOOKUP)
            .iter()
            .any(|(_, read)| *read
                == GetProject {
                    project_id: "prj_c743bb8ce4a5".into()
                }),
        "{effects:?}"
    );
}

#[test]
fn an_unknown_pii_count_reads_at_least_one_under_the_has_pii_filter() {
    let mut app = app();
    inventory_with(&mut app, 3, 3);
    let shown = text(&screen(&app, 120, 35));
    assert!(shown.contains("PII ? not sent"), "the legend: {shown}");
    // The rows a `has_pii=true` list holds have at least one finding each.
    app.inventory.query.has_pii = Some(true);
    let shown = text(&screen(&app, 120, 35));
    let row = shown
        .lines()
        .find(|line| line.contains("Project 0"))
        .expect("the first row");
    assert!(row.contains("≥1"), "{row}");
    assert!(
        shown.contains("PII ≥1 not sent, the filter proves one"),
        "{shown}"
    );
}

#[test]
fn marked_all_does_not_outlive_the_marks() {
    let mut app = app();
    crate::tui::inventory_query::rate(&mut app, 100, 120);
    inventory_with(&mut app, 100, 187);
    // `A` loads the rest of the view, then says it marked it all.
    let effects = app.handle(key('A'), NOW);
    let (token, _) = inventory_pages(&effects).pop().expect("the next page");
    app.handle(
        answer_inventory_page(token, crate::tui::state::page(100..187, 187, false)),
        NOW,
    );
    assert!(text(&screen(&app, 120, 35)).contains("marked all 187"));
    app.handle(key('C'), NOW);
    let shown = text(&screen(&app, 120, 35));
    assert!(
        !shown.contains("marked all") && shown.contains("marks cleared"),
        "{shown}"
    );
}
