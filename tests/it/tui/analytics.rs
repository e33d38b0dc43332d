//! The analytics tab (`screens/analytics.rs`): date ranges as whole UTC dates,
//! custom ranges checked strictly, a project never published explained, stale
//! replies dropped; a project tab without a project offers the inventory.

// Replies are `Result<Reply, ErrorInfo>`, the app's own message type.
#![allow(clippy::result_large_err)]

use crossterm::event::KeyCode;
use serde_json::json;
use time::OffsetDateTime;
use time::macros::datetime;
use vantage::api::model::Breakdowns;
use vantage::tui::app::App;
use vantage::tui::effect::{Effect, Gate};

use crate::tui::support::{
    NOW, answer, app, asked, drawn, error, key, screen, special, text, with_inventory,
};
use vantage::tui::ops::GetBreakdowns;
use vantage::tui::screens::analytics;

// --- Analytics ---------------------------------------------------------------------

fn breakdowns() -> Breakdowns {
    serde_json::from_value(json!({
        "countries": [
            {"label": "United States", "visitors": 1480}, {"label": "India", "visitors": 413},
            {"label": "Germany", "visitors": 324}, {"label": "Unknown", "visitors": 203},
            {"label": "Japan", "visitors": 147}
        ],
        "devices": [{"label": "Desktop", "visitors": 2497}, {"label": "Mobile", "visitors": 1510},
                    {"label": "Tablet", "visitors": 208}],
        "pages": [{"label": "/", "visitors": 1503}, {"label": "/login", "visitors": 504},
                  {"label": "/pricing\u{1b}[31m", "visitors": 231}],
        "sources": [{"label": "Direct", "visitors": 1556}, {"label": "google.com", "visitors": 1389},
                    {"label": "news.ycombinator.com", "visitors": 151}]
    }))
    .unwrap()
}

fn breakdown_request(effects: &[Effect]) -> Option<(u64, String, OffsetDateTime, OffsetDateTime)> {
    asked(effects).into_iter().find_map(|fetch| {
        let GetBreakdowns {
            project_id,
            starts_at,
            ends_at,
        } = fetch.operation::<GetBreakdowns>()?.clone();
        Some((fetch.token, project_id, starts_at, ends_at))
    })
}

#[test]
fn analytics_ranges_are_whole_utc_dates_and_custom_ranges_are_checked() {
    let mut app = app();
    with_inventory(&mut app, 2);
    let (token, project, starts, ends) = breakdown_request(&app.handle(key('5'), NOW)).unwrap();
    assert_eq!(project, "prj_0000");
    assert_eq!(
        (starts, ends),
        (
            datetime!(2026-10-24 00:00 UTC),
            datetime!(2026-11-22 00:00 UTC)
        ),
        "the last 30 dates, today included"
    );
    app.handle(
        answer(
            analytics::BREAKDOWNS,
            token,
            Ok(breakdowns()),
            analytics::Msg::Breakdowns,
        ),
        NOW,
    );
    assert!(!text(&screen(&app, 120, 35)).contains("only 90 days"));

    // R opens the menu on the current range (30 days); two down is 365 days.
    app.handle(key('R'), NOW);
    app.handle(key('j'), NOW);
    app.handle(key('j'), NOW);
    let (_, _, starts, ends) =
        breakdown_request(&app.handle(special(KeyCode::Enter), NOW)).unwrap();
    assert_eq!(
        (starts, ends),
        (
            datetime!(2025-11-23 00:00 UTC),
            datetime!(2026-11-22 00:00 UTC)
        )
    );
    assert!(text(&screen(&app, 120, 35)).contains("keep analytics only 90 days"));

    // Custom: a bad range stays in the box with a reason, a good one loads.
    app.handle(key('R'), NOW);
    app.handle(key('j'), NOW);
    app.handle(special(KeyCode::Enter), NOW);
    for _ in 0..22 {
        app.handle(special(KeyCode::Backspace), NOW);
    }
    for ch in "2026-11-05..2026-11-01".chars() {
        app.handle(key(ch), NOW);
    }
    assert!(breakdown_request(&app.handle(special(KeyCode::Enter), NOW)).is_none());
    assert!(text(&screen(&app, 120, 35)).contains("ends before it starts"));
    for _ in 0..10 {
        app.handle(special(KeyCode::Backspace), NOW);
    }
    for ch in "2026-11-09".chars() {
        app.handle(key(ch), NOW);
    }
    let (_, _, starts, ends) =
        breakdown_request(&app.handle(special(KeyCode::Enter), NOW)).unwrap();
    assert_eq!(
        (starts, ends),
        (
            datetime!(2026-11-05 00:00 UTC),
            datetime!(2026-11-09 00:00 UTC)
        )
    );
}

#[test]
fn custom_ranges_parse_strictly() {
    use vantage::tui::screens::analytics::parse_range;
    assert!(parse_range("2026-01-01..2026-12-31").is_ok(), "365 dates");
    let too_long = parse_range("2025-01-01..2026-01-01").unwrap_err();
    assert!(too_long.contains("366"), "{too_long}");
    assert!(parse_range("2026-13-01..2026-12-31").is_err());
    assert!(parse_range("yesterday").is_err());
    assert_eq!(
        parse_range("2026-02-03").unwrap(),
        (
            time::macros::date!(2026 - 02 - 03),
            time::macros::date!(2026 - 02 - 03)
        )
    );
}

#[test]
fn analytics_explain_a_project_never_published_and_drop_stale_replies() {
    let mut app = app();
    with_inventory(&mut app, 2);
    let (first, ..) = breakdown_request(&app.handle(key('5'), NOW)).unwrap();
    // Another project selected before the reply: the reply is for the old one.
    app.handle(key('2'), NOW);
    app.handle(key('j'), NOW);
    let (second, project, ..) = breakdown_request(&app.handle(key('5'), NOW)).unwrap();
    assert_eq!(project, "prj_0001");
    app.handle(
        answer(
            analytics::BREAKDOWNS,
            first,
            Ok(breakdowns()),
            analytics::Msg::Breakdowns,
        ),
        NOW,
    );
    assert!(
        app.analytics.breakdowns.data.is_none(),
        "the old project's reply is dropped"
    );
    app.handle(
        answer(
            analytics::BREAKDOWNS,
            second,
            Err(error(
                Some(404),
                Some("analytics_not_found"),
                Some(Gate::FeatureOff("no analytics".into())),
            )),
            analytics::Msg::Breakdowns,
        ),
        NOW,
    );
    // What the 404 may mean, each cause named, none picked.
    let shown = text(&screen(&app, 120, 35));
    assert!(
        shown.contains("the project is not published, or it is gone"),
        "{shown}"
    );
}

#[test]
fn project_tabs_without_a_selection_offer_the_inventory() {
    let mut app = app();
    app.start(NOW);
    for tab in ['4', '5', '6'] {
        let effects = app.handle(key(tab), NOW);
        assert!(asked(&effects).is_empty(), "nothing to load on tab {tab}");
        assert!(text(&screen(&app, 120, 35)).contains("No project selected."));
    }
    app.handle(special(KeyCode::Enter), NOW);
    assert_eq!(
        app.tab,
        vantage::tui::nav::Tab::Inventory,
        "enter goes to the inventory"
    );
}

// --- Snapshots ---

fn analytics_snapshot_app() -> App {
    let mut app = app();
    with_inventory(&mut app, 2);
    let (token, ..) = breakdown_request(&app.handle(key('5'), NOW)).unwrap();
    app.handle(
        answer(
            analytics::BREAKDOWNS,
            token,
            Ok(breakdowns()),
            analytics::Msg::Breakdowns,
        ),
        NOW,
    );
    app
}

#[test]
fn snapshot_analytics() {
    for (width, height) in [(120, 35), (80, 24)] {
        let app = analytics_snapshot_app();
        insta::assert_snapshot!(
            format!("analytics_{width}x{height}"),
            drawn(&app, width, height, NOW).body()
        );
    }
}
