//! The personal-data tab (`screens/pii.rs`, a `ListScreen`): pages loaded
//! before the end, stale pages dropped, gates explained as what is needed.

// Replies are `Result<Reply, ErrorInfo>`, the app's own message type.
#![allow(clippy::result_large_err)]

use serde_json::json;
use time::Duration;
use vantage::api::model::{Page, PiiFinding};
use vantage::tui::app::App;
use vantage::tui::effect::{Effect, Gate};

use crate::tui::support::{
    NOW, answer, app, asked, drawn, error, key, screen, text, with_inventory,
};
use vantage::tui::ops::ListPii;
use vantage::tui::screens::pii;

// --- Personal data -----------------------------------------------------------------

fn pii_page(range: std::ops::Range<usize>, more: bool) -> Page<PiiFinding> {
    let quotes = [
        "my email is jane.doe@example.com",
        "card 4111 1111 1111 1111 exp 12/29",
        "Customer: Maria Gonzalez, 12 Rue de Rivoli, Paris\nPhone: +33 1 23 45 67 89\u{1b}[2J",
    ];
    let statuses = ["open", "ignored", "fixed", "escalated"];
    let sources = ["chat", "code", "database"];
    serde_json::from_value(json!({
        "data": range.map(|n| json!({
            "id": format!("pii_{n:04}"),
            "found_at": vantage::api::model::format_timestamp(NOW - Duration::hours(7 * n as i64 + 3)),
            "quote": quotes[n % 3], "source": sources[n % 3], "status": statuses[n % 4],
        })).collect::<Vec<_>>(),
        "pagination": {"has_more": more, "next_cursor": if more { Some("more") } else { None }},
    }))
    .unwrap()
}

fn pii_requests(effects: &[Effect]) -> Vec<(u64, String, Option<String>)> {
    asked(effects)
        .into_iter()
        .filter_map(|fetch| {
            let ListPii {
                project_id, cursor, ..
            } = fetch.operation::<ListPii>()?.clone();
            Some((fetch.token, project_id, cursor))
        })
        .collect()
}

#[test]
fn personal_data_pages_load_before_the_end_and_stale_pages_are_dropped() {
    let mut app = app();
    with_inventory(&mut app, 2);
    let (token, project, cursor) = pii_requests(&app.handle(key('6'), NOW)).remove(0);
    assert_eq!((project.as_str(), cursor), ("prj_0000", None));
    let effects = app.handle(
        answer(pii::PAGE, token, Ok(pii_page(0..100, true)), pii::Msg::Page),
        NOW,
    );
    assert!(pii_requests(&effects).is_empty());
    let mut asked = None;
    for step in 0..100 {
        if let Some(request) = pii_requests(&app.handle(key('j'), NOW)).pop() {
            asked = Some((step, request));
            break;
        }
    }
    let (step, (next, _, cursor)) = asked.expect("the next page is asked for");
    assert!(step < 90, "asked at row {step}, well before the end");
    assert_eq!(cursor.as_deref(), Some("more"));
    assert!(
        pii_requests(&app.handle(key('j'), NOW)).is_empty(),
        "one page at a time"
    );
    // Refresh replaces the request; the older page then arrives and is dropped.
    let (fresh, ..) = pii_requests(&app.handle(key('r'), NOW)).remove(0);
    app.handle(
        answer(
            pii::PAGE,
            next,
            Ok(pii_page(100..200, false)),
            pii::Msg::Page,
        ),
        NOW,
    );
    assert!(app.pii.list.rows.is_empty());
    app.handle(
        answer(pii::PAGE, fresh, Ok(pii_page(0..3, false)), pii::Msg::Page),
        NOW,
    );
    assert_eq!(app.pii.list.rows.len(), 3);
}

#[test]
fn personal_data_gates_explain_what_is_needed() {
    for (status, kind, gate, expected) in [
        (
            404,
            "pii_labels_not_found",
            Gate::FeatureOff("personal-data detection".into()),
            "detection is off for this workspace, or the project is gone",
        ),
        (
            402,
            "payment_required",
            Gate::Plan("enterprise".into()),
            "need the Enterprise plan",
        ),
    ] {
        let mut app = app();
        with_inventory(&mut app, 1);
        let (token, ..) = pii_requests(&app.handle(key('6'), NOW)).remove(0);
        app.handle(
            answer(
                pii::PAGE,
                token,
                Err(error(Some(status), Some(kind), Some(gate))),
                pii::Msg::Page,
            ),
            NOW,
        );
        let drawn = text(&screen(&app, 120, 35));
        assert!(drawn.contains(expected), "{drawn}");
        assert!(
            drawn.contains("a workspace owner can turn it on"),
            "{drawn}"
        );
    }
}

// --- Snapshots ---

fn pii_snapshot_app() -> App {
    let mut app = app();
    with_inventory(&mut app, 2);
    let (token, ..) = pii_requests(&app.handle(key('6'), NOW)).remove(0);
    app.handle(
        answer(pii::PAGE, token, Ok(pii_page(0..12, true)), pii::Msg::Page),
        NOW,
    );
    // The third finding: a quote over two lines, with an escape sequence removed.
    app.handle(key('j'), NOW);
    app.handle(key('j'), NOW);
    app
}

#[test]
fn snapshot_personal_data() {
    for (width, height) in [(120, 35), (80, 24)] {
        let app = pii_snapshot_app();
        insta::assert_snapshot!(
            format!("personal_data_{width}x{height}"),
            drawn(&app, width, height, NOW).body()
        );
    }
}
