//! Time to draw one frame of the inventory with 20,000 rows loaded, on ratatui's
//! `TestBackend` (no terminal I/O): `App::draw` plus ratatui's buffer diff.
//! A plain harness (criterion is not a dependency): it prints the median and the
//! 95th percentile of N frames, each after the selection moved one row, so every
//! frame differs from the last, as when someone scrolls.
//!
//! Run: `cargo bench --bench tui` (optionally `-- FRAMES`, default 2000).

use std::time::Instant;

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use serde_json::json;
use time::macros::datetime;
use vantage::api::model::InventoryPage;
use vantage::tui::app::{App, Identity, Msg};
use vantage::tui::effect::Effect;
use vantage::tui::ops::ListInventory;
use vantage::tui::request::Answer;
use vantage::tui::screens::inventory;
use vantage::tui::settings::{AppSettings, TuiSettings};
use vantage::tui::theme::ColorDepth;

const ROWS: usize = 20_000;
const PAGE: usize = 100;
const NOW: time::OffsetDateTime = datetime!(2026-11-22 12:00 UTC);

fn key(code: KeyCode) -> Msg {
    Msg::Key(KeyEvent::new(code, KeyModifiers::NONE))
}

/// One page of varied synthetic rows, shaped as the server answers.
fn page(start: usize) -> InventoryPage {
    const PRIORITIES: [&str; 4] = [
        "needs_review",
        "review_recommended",
        "no_review_needed",
        "unscored",
    ];
    const ACTIVITY: [&str; 3] = ["last_14_days", "last_60_days", "older"];
    const NAMES: [&str; 4] = ["Budget", "Customer portal", "Team wiki", "Recipe"];
    let data: Vec<_> = (start..start + PAGE)
        .map(|n| {
            let name = format!("{} project number {n}", NAMES[n % 4]);
            let activity = ACTIVITY[n % 3];
            let priority = PRIORITIES[n % 4];
            json!({
                "id": format!("prj_{n:06}"),
                "name": name,
                "description": if n % 3 == 0 { json!(null) } else { json!(format!("Description of project {n}, a little longer than a name")) },
                "url": if n % 2 == 0 { json!(format!("https://p{n}.example.app")) } else { json!(null) },
                "is_published": n % 2 == 0,
                "publish_audience": if n % 2 == 0 { json!("public") } else { json!(null) },
                "visibility": "workspace_edit",
                "activity_group": activity,
                "connectors": if n % 5 == 0 { json!(["stripe", "github"]) } else { json!([]) },
                "edge_functions": [],
                "edit_count": n * 7 % 1000, "message_count": n * 13 % 5000,
                "edits_24h": n % 9, "edits_7d": n % 40, "edits_30d": n % 120,
                "visitors_24h": n * 3 % 700, "visitors_7d": n * 11 % 4000, "visitors_30d": n * 17 % 20000,
                "last_edited_at": "2026-11-20T00:00:00Z",
                "last_security_scan_at": if n % 4 == 0 { json!(null) } else { json!("2026-11-01T10:00:00Z") },
                "owner": {"display_name": format!("Owner {}", n % 300)},
                "review_priority": priority,
                "review_priority_explanation": [],
                "matched_reason": null
            })
        })
        .collect();
    let more = start + PAGE < ROWS;
    serde_json::from_value(json!({
        "data": data,
        "pagination": {"has_more": more, "next_cursor": if more { Some(format!("c{start}")) } else { None }},
        "total": ROWS, "as_of": null, "activity_as_of": null, "applied_finding": null
    }))
    .expect("a valid inventory page")
}

fn page_token(effects: &[Effect]) -> Option<u64> {
    effects.iter().find_map(|effect| match effect {
        Effect::Fetch { slot, token, job }
            if *slot == inventory::PAGE && job.operation::<ListInventory>().is_some() =>
        {
            Some(*token)
        }
        _ => None,
    })
}

/// An app on the inventory tab with every row loaded.
fn loaded_app() -> App {
    let mut app = App::new(
        Identity {
            workspace: "ws_bench".into(),
            workspace_id: "ws_bench".into(),
            plan: None,
            api_version: "2026-09-11".into(),
            read_only: false,
        },
        AppSettings::new(
            &TuiSettings::default(),
            ColorDepth::TrueColor,
            std::env::temp_dir(),
        ),
    );
    app.start(NOW);
    let mut token = page_token(&app.handle(key(KeyCode::Char('2')), NOW));
    let mut start = 0;
    while let Some(pending) = token {
        let effects = app.handle(
            Msg::Answer(Answer::of(
                inventory::PAGE,
                pending,
                Ok(page(start)),
                inventory::Msg::Page,
            )),
            NOW,
        );
        start += PAGE;
        token =
            page_token(&effects).or_else(|| page_token(&app.handle(key(KeyCode::Char('G')), NOW)));
    }
    assert_eq!(app.inventory.list.rows.len(), ROWS, "every row is loaded");
    // Back to the top; the frames below scroll down from there.
    app.handle(key(KeyCode::Char('g')), NOW);
    app
}

fn main() {
    let frames: usize = std::env::args()
        .skip(1)
        .find_map(|arg| arg.parse().ok())
        .unwrap_or(2000);
    let mut app = loaded_app();
    let mut terminal = Terminal::new(TestBackend::new(120, 35)).expect("a test terminal");
    terminal
        .draw(|frame| app.draw(frame, NOW))
        .expect("first frame");
    let mut times = Vec::with_capacity(frames);
    for _ in 0..frames {
        app.handle(key(KeyCode::Char('j')), NOW);
        let started = Instant::now();
        terminal
            .draw(|frame| app.draw(frame, NOW))
            .expect("a frame");
        times.push(started.elapsed().as_secs_f64() * 1e3);
    }
    times.sort_by(f64::total_cmp);
    let median = times[times.len() / 2];
    let p95 = times[times.len() * 95 / 100];
    println!(
        "inventory frame, {ROWS} rows loaded, 120x35 TestBackend, {frames} frames: median {median:.3} ms, p95 {p95:.3} ms"
    );
    println!(
        "{{\"measure\":\"frame\",\"median_ms\":{median:.4},\"p95_ms\":{p95:.4},\"frames\":{frames}}}"
    );
}
