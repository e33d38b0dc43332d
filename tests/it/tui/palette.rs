//! The command palette, marks and bulk actions, the position counter,
//! breadcrumbs and back/forward: state tests with synthetic replies, and
//! snapshots on ratatui's TestBackend.

// Replies are `Result<Reply, ErrorInfo>`, the app's own message type.
#![allow(clippy::result_large_err)]

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use serde_json::json;
use time::OffsetDateTime;
use time::macros::datetime;
use vantage::api::model::{InventoryPage, Project, Visibility};
use vantage::tui::app::{App, Identity, Msg, PALETTE_HISTORY, PALETTE_JUMP};
use vantage::tui::effect::{Effect, ErrorInfo};
use vantage::tui::nav::Tab;
use vantage::tui::screens::inventory::{self, bulk::RowOutcome};
use vantage::tui::theme::{ColorDepth, ThemeName};

use crate::common::items::{self, inventory_item};
use crate::tui::support::{
    answer, answer_inventory_page, asked_in, bulk_outcomes, drawn, inventory_pages, only,
};
use vantage::tui::ops::{GetProject, ListInventory, SavePaletteHistory, UpdateProject};
use vantage::tui::request::Operation;
use vantage::tui::screens::pii;
use vantage::tui::screens::project::{PROJECT, WRITE};

const NOW: OffsetDateTime = datetime!(2026-11-22 12:00 UTC);
const NAMES: [&str; 4] = [
    "Budget tracker",
    "Clinic portal",
    "Invoice finder",
    "Fleet planner",
];

fn app_with(read_only: bool) -> App {
    App::new(
        Identity {
            workspace: "ws_test".into(),
            workspace_id: "ws_test".into(),
            plan: Some("enterprise".into()),
            api_version: "2026-09-11".into(),
            read_only,
        },
        crate::tui::support::settings(ThemeName::Dark, ColorDepth::None),
    )
}

fn press(app: &mut App, code: KeyCode) -> Vec<Effect> {
    app.handle(Msg::Key(KeyEvent::new(code, KeyModifiers::NONE)), NOW)
}

fn type_text(app: &mut App, text: &str) -> Vec<Effect> {
    text.chars()
        .flat_map(|ch| match ch {
            '\r' => press(app, KeyCode::Enter),
            ch => press(app, KeyCode::Char(ch)),
        })
        .collect()
}

fn row(n: usize) -> serde_json::Value {
    inventory_item(json!({"id": format!("prj_{n:04}"), "name": NAMES[n % NAMES.len()]}))
}

fn project(n: usize, visibility: &str) -> Project {
    serde_json::from_value(items::project(json!({
        "id": format!("prj_{n:04}"), "name": NAMES[n % NAMES.len()], "visibility": visibility
    })))
    .unwrap()
}

/// The inventory tab with `count` rows loaded, of `total` on the server.
fn inventory(app: &mut App, count: usize, total: usize) {
    inventory_of(app, (0..count).map(row).collect(), total);
}

/// The inventory tab with `rows` loaded, of `total` on the server.
fn inventory_of(app: &mut App, rows: Vec<serde_json::Value>, total: usize) {
    let count = rows.len();
    app.start(NOW);
    let effects = type_text(app, "2");
    let (token, _) = inventory_pages(&effects)[0].clone();
    let page: InventoryPage = serde_json::from_value(json!({
        "data": rows,
        "pagination": {"has_more": count < total, "next_cursor": if count < total { Some("c2") } else { None }},
        "total": total, "as_of": null, "activity_as_of": null, "applied_finding": null
    }))
    .unwrap();
    app.handle(answer_inventory_page(token, page), NOW);
}

/// The whole frame at `NOW`, as text.
fn draw(app: &App, width: u16, height: u16) -> String {
    drawn(app, width, height, NOW).full()
}

fn failure(kind: &str, status: u16) -> ErrorInfo {
    ErrorInfo {
        status: Some(status),
        kind: Some(kind.into()),
        detail: None,
        request_id: Some("req_test".into()),
        summary: format!("{kind} (HTTP {status})"),
        gate: None,
        at: NOW,
    }
}

#[test]
fn the_palette_lists_candidates_and_tab_then_enter_opens_the_project() {
    let mut app = app_with(false);
    inventory(&mut app, 8, 8);
    type_text(&mut app, ":inv");
    insta::assert_snapshot!("palette_candidates", drawn(&app, 100, 24, NOW).body());
    // Tab completes the best candidate: the inventory screen.
    press(&mut app, KeyCode::Tab);
    assert_eq!(app.palette.value(), "inventory");
    press(&mut app, KeyCode::Esc);
    assert!(!app.palette.is_open());

    // A name matches loaded projects: Tab puts the id in.
    type_text(&mut app, ":project fleet");
    press(&mut app, KeyCode::Tab);
    assert_eq!(app.palette.value(), "prj_0003");
    let effects = press(&mut app, KeyCode::Enter);
    assert_eq!(
        only(&effects, PROJECT).op::<GetProject>(),
        &GetProject {
            project_id: "prj_0003".into()
        }
    );
    assert_eq!(app.breadcrumbs(), vec!["Inventory", "Fleet planner"]);
}

#[test]
fn the_palette_goes_to_screens_projects_by_id_contexts_and_actions() {
    let mut app = app_with(false);
    app.start(NOW);
    type_text(&mut app, ":members\r");
    assert_eq!(app.tab, Tab::Members);
    // A prefix of one verb is that verb.
    type_text(&mut app, ":monit\r");
    assert_eq!(app.tab, Tab::Monitor);
    // An id that is not loaded: the project screen reads it from the service.
    let effects = type_text(&mut app, ":prj_0a1b2c3d4e5f\r");
    assert_eq!(app.tab, Tab::Inventory);
    let read = only(&effects, PROJECT);
    assert_eq!(read.op::<GetProject>().project_id, "prj_0a1b2c3d4e5f");
    // It goes into the history once the project is read.
    app.handle(read.ok(project(1, "workspace_edit")), NOW);
    type_text(&mut app, ":ctx staging\r");
    // No contexts in this App: the switch says so.
    assert!(draw(&app, 120, 30).contains("no contexts: add [contexts.NAME]"));
    // A verb lacking its argument says why, and the palette stays open.
    type_text(&mut app, ":ctx\r");
    assert!(app.palette.is_open());
    assert_eq!(
        app.palette.message.as_deref(),
        Some("ctx: give a context name")
    );
    press(&mut app, KeyCode::Esc);
    // ↑ walks the history, newest first.
    type_text(&mut app, ":");
    press(&mut app, KeyCode::Up);
    assert_eq!(app.palette.value(), "ctx staging");
    press(&mut app, KeyCode::Up);
    assert_eq!(app.palette.value(), "prj_0a1b2c3d4e5f");
    press(&mut app, KeyCode::Down);
    assert_eq!(app.palette.value(), "ctx staging");
    press(&mut app, KeyCode::Esc);
    type_text(&mut app, ":quit\r");
    assert!(app.should_quit);
}

#[test]
fn marks_show_on_rows_and_in_the_header_with_the_counter() {
    let mut app = app_with(false);
    inventory(&mut app, 12, 5_000);
    type_text(&mut app, "   ");
    assert_eq!(app.inventory.list.marked_count(), 3);
    assert_eq!(app.inventory.list.selected, 3, "space moves on");
    type_text(&mut app, "k ");
    assert_eq!(app.inventory.list.marked_count(), 2, "space again unmarks");
    let frame = drawn(&app, 120, 30, NOW);
    let screen = frame.body();
    assert!(screen.contains("4/5,000 · 2 marked"), "{screen}");
    assert_eq!(screen.matches("◆").count(), 2, "{screen}");
    assert!(
        frame
            .header()
            .trim_end_matches([' ', '"'])
            .ends_with("Inventory"),
        "the breadcrumb: {}",
        frame.header()
    );
    insta::assert_snapshot!("marks_counter_breadcrumbs", screen);
    type_text(&mut app, "A");
    assert_eq!(app.inventory.list.marked_count(), 12);
    type_text(&mut app, "C");
    assert_eq!(app.inventory.list.marked_count(), 0);
    // Without marks, `v` acts on the row under the cursor, as k9s does.
    type_text(&mut app, "v");
    assert!(app.inventory.bulk.is_open());
    assert!(draw(&app, 120, 30).contains("(nothing marked)"));
}

#[test]
fn a_bulk_visibility_change_confirms_runs_one_at_a_time_and_reports_each_row() {
    let mut app = app_with(false);
    inventory(&mut app, 12, 12);
    type_text(&mut app, "   v");
    // The picker's cursor starts on the rows' workspace_edit; `v` is workspace_view.
    type_text(&mut app, "v");
    insta::assert_snapshot!("bulk_confirm", drawn(&app, 100, 24, NOW).body());
    let effects = type_text(&mut app, "y");
    let mut sent = asked_in(&effects, inventory::BULK);
    assert_eq!(sent.len(), 1, "one change at a time");
    let replies: [Result<Project, ErrorInfo>; 3] = [
        Ok(project(0, "workspace_view")),
        Err(failure("insufficient_scope", 403)),
        Ok(project(2, "workspace_view")),
    ];
    for (index, reply) in replies.into_iter().enumerate() {
        let request = sent.pop().expect("a change in flight");
        assert_eq!(
            *request.op::<UpdateProject>(),
            UpdateProject {
                project_id: format!("prj_{index:04}"),
                update: vantage::api::model::ProjectUpdate {
                    name: None,
                    visibility: Some(Visibility::WorkspaceView),
                },
            }
        );
        let effects = app.handle(request.answer(reply), NOW);
        sent = asked_in(&effects, inventory::BULK);
        assert!(sent.len() <= 1);
    }
    assert!(sent.is_empty());
    let outcomes = bulk_outcomes(&app);
    assert_eq!(
        outcomes,
        vec![
            RowOutcome::Ok,
            RowOutcome::Failed("insufficient_scope".into()),
            RowOutcome::Ok
        ]
    );
    // The rows that changed show it, and lose their mark; the failed one keeps it.
    assert_eq!(
        app.inventory.list.rows[0].visibility,
        Some(Visibility::WorkspaceView)
    );
    assert_eq!(app.inventory.list.marked_count(), 1);
    insta::assert_snapshot!("bulk_report", drawn(&app, 100, 24, NOW).with_status());
    press(&mut app, KeyCode::Esc);
    assert!(!app.inventory.bulk.is_open());
}

#[test]
fn read_only_mode_offers_no_bulk_change() {
    let mut app = app_with(true);
    inventory(&mut app, 5, 5);
    let effects = type_text(&mut app, "  u");
    assert!(asked_in(&effects, inventory::BULK).is_empty());
    assert!(!app.inventory.bulk.is_open());
    assert!(draw(&app, 120, 30).contains("read-only mode: bulk changes are off"));
}

#[test]
fn back_and_forward_walk_the_screens_and_projects_visited() {
    let mut app = app_with(false);
    inventory(&mut app, 4, 4);
    type_text(&mut app, "3");
    type_text(&mut app, ":prj_0002\r");
    assert!(app.project.is_some());
    assert_eq!(app.trail_depth(), (3, 0));
    type_text(&mut app, "[");
    assert_eq!(app.tab, Tab::Members);
    type_text(&mut app, "[");
    assert_eq!((app.tab, app.project.is_none()), (Tab::Inventory, true));
    type_text(&mut app, "]]");
    assert_eq!(
        app.project.as_ref().map(|p| p.target.id.as_str()),
        Some("prj_0002")
    );
    assert_eq!(app.trail_depth(), (3, 0));
    // A new visit after going back drops what lay ahead.
    type_text(&mut app, "[1");
    assert_eq!(app.trail_depth().1, 0);
}

#[test]
fn the_help_scrolls_to_its_last_key_on_a_short_terminal() {
    let mut app = app_with(false);
    inventory(&mut app, 4, 4);
    type_text(&mut app, "?");
    let top = draw(&app, 80, 18);
    assert!(top.contains("more"), "{top}");
    assert!(!top.contains("ctrl-c  quit"), "{top}");
    type_text(&mut app, "G");
    let bottom = drawn(&app, 80, 18, NOW).body();
    assert!(bottom.contains("ctrl-c  quit"), "{bottom}");
    insta::assert_snapshot!("help_scrolled", bottom);
    type_text(&mut app, "?");
    assert!(!draw(&app, 80, 18).contains("above"));
}

#[test]
fn a_five_thousand_character_quote_scrolls_to_its_end() {
    let mut app = app_with(false);
    inventory(&mut app, 2, 2);
    let effects = type_text(&mut app, "6");
    let token = only(&effects, pii::PAGE).token;
    let quote = format!("{}THE END", "lorem ipsum dolor ".repeat(280));
    assert!(quote.chars().count() > 5_000);
    let page: vantage::api::model::Page<vantage::api::model::PiiFinding> =
        serde_json::from_value(json!({
            "data": [{"id": "pii_0001", "found_at": "2026-11-22T09:00:00Z", "quote": quote,
                      "source": "chat", "status": "open"}],
            "pagination": {"has_more": false, "next_cursor": null},
        }))
        .unwrap();
    app.handle(answer(pii::PAGE, token, Ok(page), pii::Msg::Page), NOW);
    let pane = draw(&app, 100, 30);
    assert!(pane.contains("more"), "{pane}");
    press(&mut app, KeyCode::Enter);
    type_text(&mut app, "G");
    let end = draw(&app, 100, 30);
    assert!(end.contains("THE END"), "{end}");
    assert!(end.contains("above"), "{end}");
    press(&mut app, KeyCode::Esc);
    type_text(&mut app, "g");
    assert!(!draw(&app, 100, 30).contains("THE END"));
}

#[test]
fn a_name_not_loaded_is_searched_on_the_service_and_its_project_opens() {
    let mut app = app_with(false);
    inventory(&mut app, 4, 40);
    // The inventory has a search and a filter of its own.
    app.inventory.query.query = Some("fleet".into());
    app.inventory.query.is_published = Some(true);
    let effects = type_text(&mut app, ":Harbour tides\r");
    assert!(inventory_pages(&effects).is_empty());
    let search = only(&effects, PALETTE_JUMP);
    let ListInventory {
        workspace_id,
        params,
        cursor,
    } = search.op::<ListInventory>();
    assert_eq!(workspace_id, "ws_test");
    // The whole workspace: the query, none of the screen's filters.
    assert_eq!(params.query.as_deref(), Some("Harbour tides"));
    assert_eq!(params.is_published, None);
    assert_eq!(*cursor, None);
    assert!(app.project.is_none());
    assert_eq!(app.inventory.query.query.as_deref(), Some("fleet"));
    let mut found = row(7);
    found["name"] = json!("Harbour tides");
    let page: InventoryPage = serde_json::from_value(json!({
        "data": [row(3), found],
        "pagination": {"has_more": false, "next_cursor": null},
        "total": 2, "as_of": null, "activity_as_of": null, "applied_finding": null
    }))
    .unwrap();
    let effects = app.handle(search.ok(page), NOW);
    assert_eq!(
        app.project.as_ref().map(|p| p.target.id.as_str()),
        Some("prj_0007")
    );
    assert_eq!(app.inventory.query.query.as_deref(), Some("fleet"));
    assert_eq!(asked_in(&effects, PROJECT).len(), 1);
}

#[tokio::test]
async fn the_palette_history_is_written_by_the_executor_never_by_the_key_handler() {
    use vantage::tui::palette::{History, Palette};
    use vantage::tui::services::ClientServices;
    use vantage::tui::services::ServiceSource;

    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("palette_history");
    let mut app = app_with(false);
    app.palette = Palette::with_history(History::load(path.clone()));
    press(&mut app, KeyCode::Char(':'));
    let effects = type_text(&mut app, "members\r");
    assert_eq!(app.tab, Tab::Members, "the command ran");
    assert!(!path.exists(), "the key handler wrote nothing");
    let save = only(&effects, PALETTE_HISTORY)
        .op::<SavePaletteHistory>()
        .clone();
    assert_eq!(
        save,
        SavePaletteHistory {
            path: path.clone(),
            entries: vec!["members".into()],
        }
    );

    // The executor writes it, as it writes every other file.
    let client = vantage::api::Client::new(vantage::api::ClientConfig::new(
        "http://127.0.0.1:9",
        vantage::api::ApiKey::new("vk_unused").unwrap(),
    ))
    .unwrap();
    let executor = ClientServices {
        client,
        workspace_id: "ws_test".into(),
        clock: vantage::clock::Clock::manual(NOW),
    };
    let reply = save.run(&executor.services()).await;
    assert_eq!(reply, Ok(()));
    assert_eq!(History::load(path).entries(), ["members"]);
}

/// Issue 14: Enter takes the highlighted candidate (an id prefix opens the one
/// project it names), and a project that fails to load stays out of the
/// history and offers no write actions.
#[test]
fn enter_takes_the_highlighted_candidate_and_a_404_stays_out_of_the_history() {
    let mut app = app_with(false);
    let mut payroll = row(3);
    payroll["id"] = json!("prj_c743bb8ce4a5");
    payroll["name"] = json!("Payroll console 32");
    inventory_of(&mut app, vec![row(1), payroll, row(2)], 3);
    type_text(&mut app, ":prj_c743");
    let screen = draw(&app, 100, 24);
    assert!(screen.contains("Payroll console 32"), "{screen}");
    let effects = press(&mut app, KeyCode::Enter);
    let reads = asked_in(&effects, PROJECT);
    assert!(
        matches!(&reads[..], [read] if read.op::<GetProject>().project_id == "prj_c743bb8ce4a5"),
        "{reads:?}"
    );
    press(&mut app, KeyCode::Esc);

    // An id no row has: read from the service, which answers 404.
    let effects = type_text(&mut app, ":prj_ffff0000\r");
    let read = asked_in(&effects, PROJECT)[0].clone();
    let effects = app.handle(read.fail(failure("not_found", 404)), NOW);
    assert!(asked_in(&effects, PALETTE_HISTORY).is_empty());
    assert!(
        !app.palette
            .history()
            .entries()
            .contains(&"prj_ffff0000".to_owned()),
        "{:?}",
        app.palette.history().entries()
    );
    let screen = draw(&app, 120, 30);
    assert!(screen.contains("esc back"), "{screen}");
    for write in ["e rename", "v vis", "D delete", "p pub"] {
        assert!(!screen.contains(write), "{screen}");
    }
    let effects = type_text(&mut app, "e");
    assert!(asked_in(&effects, WRITE).is_empty());
}

#[test]
fn the_palette_offers_ctx_only_when_contexts_are_configured() {
    let mut app = app_with(false);
    app.start(NOW);
    type_text(&mut app, ":");
    let texts = |app: &App| -> Vec<String> {
        app.palette
            .candidates(&[])
            .into_iter()
            .map(|candidate| candidate.text)
            .collect()
    };
    assert!(!texts(&app).iter().any(|text| text.starts_with("ctx")));
    type_text(&mut app, "ct");
    assert!(!texts(&app).iter().any(|text| text.starts_with("ctx")));
    app.palette.context_names = vec!["staging".into()];
    assert!(texts(&app).iter().any(|text| text.starts_with("ctx")));
}

#[test]
fn the_palette_completes_column_names_after_the_ones_given() {
    let mut app = app_with(false);
    app.start(NOW);
    type_text(&mut app, ":columns name,vis");
    let texts: Vec<String> = app
        .palette
        .candidates(&[])
        .into_iter()
        .map(|candidate| candidate.text)
        .collect();
    assert!(
        texts.contains(&"columns name,visitors_7d".to_owned()),
        "{texts:?}"
    );
    assert!(texts.contains(&"columns name,visibility".to_owned()));
    assert!(!texts.iter().any(|text| text.ends_with("default")));
}

/// Issue 35, item 8: a project opened from the palette on Insights, `esc`
/// back to Insights, then `2`: the inventory's cursor is on that project.
#[test]
fn two_after_a_palette_project_closed_on_insights_lands_on_that_project() {
    let mut app = app_with(false);
    inventory(&mut app, 8, 8);
    type_text(&mut app, "jjj");
    assert_eq!(app.inventory.list.selected, 3);
    type_text(&mut app, "1");
    type_text(&mut app, ":prj_0005\r");
    assert!(app.project.is_some());
    press(&mut app, KeyCode::Esc);
    assert_eq!((app.tab, app.project.is_none()), (Tab::Insights, true));
    type_text(&mut app, "2");
    assert_eq!(
        app.inventory.selected_item().map(|row| row.id.as_str()),
        Some("prj_0005")
    );
}
