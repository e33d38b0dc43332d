//! Bulk actions name what they change (issue 27, item 3): the confirm and the
//! report give each project by name with its before → after, `v` and `u` act
//! on the cursor's row when nothing is marked, and a filter change keeps the
//! marks still in the list and says how many it dropped.

// Replies are `Result<Reply, ErrorInfo>`, the app's own message type.
#![allow(clippy::result_large_err)]

use crate::common::items::{self, inventory_item};
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use serde_json::json;
use time::OffsetDateTime;
use time::macros::datetime;
use vantage::api::model::{InventoryPage, Project};
use vantage::tui::app::{App, Identity, Msg};
use vantage::tui::effect::Effect;
use vantage::tui::ops::Unpublish;
use vantage::tui::screens::inventory;
use vantage::tui::theme::{ColorDepth, ThemeName};

use crate::tui::support::{
    answer, answer_inventory_page, asked_in, inventory_bulk, inventory_pages,
};

pub(crate) const NOW: OffsetDateTime = datetime!(2026-11-22 12:00 UTC);
const NAMES: [&str; 4] = [
    "Support studio",
    "Clinic portal",
    "Invoice\u{202e}finder",
    "Fleet planner",
];

pub(crate) fn app() -> App {
    App::new(
        Identity {
            workspace: "ws_test".into(),
            workspace_id: "ws_test".into(),
            plan: Some("enterprise".into()),
            api_version: "2026-09-11".into(),
            read_only: false,
        },
        crate::tui::support::settings(ThemeName::Dark, ColorDepth::None),
    )
}

pub(crate) fn press(app: &mut App, code: KeyCode) -> Vec<Effect> {
    app.handle(Msg::Key(KeyEvent::new(code, KeyModifiers::NONE)), NOW)
}

pub(crate) fn type_text(app: &mut App, text: &str) -> Vec<Effect> {
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

/// Answers the page request among `effects` with `rows` (the whole list).
fn answer_page(app: &mut App, effects: &[Effect], rows: Vec<serde_json::Value>) {
    let (token, _) = inventory_pages(effects).pop().expect("a page request");
    let total = rows.len();
    let page: InventoryPage = serde_json::from_value(json!({
        "data": rows,
        "pagination": {"has_more": false, "next_cursor": null},
        "total": total, "as_of": null, "activity_as_of": null, "applied_finding": null
    }))
    .unwrap();
    app.handle(answer_inventory_page(token, page), NOW);
}

pub(crate) fn inventory(app: &mut App, count: usize) {
    app.start(NOW);
    let effects = type_text(app, "2");
    answer_page(app, &effects, (0..count).map(row).collect());
}

/// The whole frame at `NOW`, as text.
pub(crate) fn draw(app: &App, width: u16, height: u16) -> String {
    crate::tui::support::drawn(app, width, height, NOW).full()
}

#[test]
fn a_bulk_visibility_change_over_three_projects_reports_each_by_name_with_before_and_after() {
    let mut app = app();
    inventory(&mut app, 6);
    type_text(&mut app, "   v");
    // The cursor starts on the rows' workspace_edit; one up is workspace_view.
    type_text(&mut app, "k\r");
    let confirm = draw(&app, 110, 30);
    assert!(
        confirm.contains("· Support studio (prj_0000): workspace_edit → workspace_view"),
        "{confirm}"
    );
    let mut sent = inventory_bulk(&type_text(&mut app, "y"));
    for index in 0..3 {
        let (token, _) = sent.pop().expect("a change in flight");
        let effects = app.handle(
            answer(
                inventory::BULK,
                token,
                Ok(project(index, "workspace_view")),
                inventory::Msg::BulkUpdated,
            ),
            NOW,
        );
        sent = inventory_bulk(&effects);
    }
    let report = draw(&app, 110, 30);
    for line in [
        "✓ Support studio (prj_0000): workspace_edit → workspace_view",
        "✓ Clinic portal (prj_0001): workspace_edit → workspace_view",
        // The service's name is escaped: its bidi override shows, inert.
        "✓ Invoice\\u202efinder (prj_0002): workspace_edit → workspace_view",
    ] {
        assert!(report.contains(line), "{line} not in:\n{report}");
    }
}

/// Issue 35, item 15: the visibility picker lists its values in one order on
/// the inventory and on the project screen, the cursor on the current value.
#[test]
fn the_visibility_picker_has_one_order_with_the_cursor_on_the_current_value() {
    // The picker's lines, top to bottom, and the one under the cursor.
    let picker = |text: &str| -> (Vec<&'static str>, Option<&'static str>) {
        let (mut order, mut cursor) = (Vec::new(), None);
        for line in text.lines() {
            for value in ["restricted", "workspace_view", "workspace_edit"] {
                if line.contains(&format!(" {value}  ")) && line.contains(" every member")
                    || line.contains(&format!(" {value}  ")) && line.contains(" owner,")
                {
                    order.push(value);
                    if line.contains("› ") {
                        cursor = Some(value);
                    }
                }
            }
        }
        (order, cursor)
    };
    let mut app = app();
    inventory(&mut app, 6);
    type_text(&mut app, "v");
    let on_inventory = picker(&draw(&app, 110, 30));
    type_text(&mut app, "q");
    let effects = press(&mut app, KeyCode::Enter);
    let read = crate::tui::support::only(&effects, vantage::tui::screens::project::PROJECT);
    app.handle(read.ok(project(0, "workspace_edit")), NOW);
    type_text(&mut app, "v");
    let on_project = picker(&draw(&app, 110, 30));
    assert_eq!(
        on_inventory.0,
        ["restricted", "workspace_view", "workspace_edit"]
    );
    assert_eq!(on_inventory.0, on_project.0, "one order");
    assert_eq!(on_inventory.1, Some("workspace_edit"), "{on_inventory:?}");
    assert_eq!(on_project.1, Some("workspace_edit"), "{on_project:?}");
}

#[test]
fn with_nothing_marked_v_and_u_act_on_the_cursor_row_and_say_so() {
    let mut app = app();
    inventory(&mut app, 6);
    type_text(&mut app, "jv");
    let menu = draw(&app, 110, 30);
    assert!(
        menu.contains("Visibility of Clinic portal (nothing marked)"),
        "{menu}"
    );
    type_text(&mut app, "r");
    let confirm = draw(&app, 110, 30);
    assert!(
        confirm.contains("Set the visibility of this project to restricted?"),
        "{confirm}"
    );
    assert!(
        confirm.contains("Nothing is marked: this changes the row under the cursor"),
        "{confirm}"
    );
    press(&mut app, KeyCode::Esc);
    type_text(&mut app, "u");
    let confirm = draw(&app, 110, 30);
    assert!(
        confirm.contains("· Clinic portal (prj_0001): published → unpublished"),
        "{confirm}"
    );
    let sent = asked_in(&type_text(&mut app, "y"), inventory::BULK);
    assert_eq!(
        sent.iter()
            .map(|fetch| fetch.op::<Unpublish>().clone())
            .collect::<Vec<_>>(),
        vec![Unpublish {
            project_id: "prj_0001".into()
        }]
    );
}

#[test]
fn a_filter_change_keeps_the_marks_still_in_the_list_and_says_how_many_it_dropped() {
    let mut app = app();
    inventory(&mut app, 6);
    type_text(&mut app, "   ");
    assert_eq!(app.inventory.list.marked_count(), 3);
    // A filter (the priority cycle) leaves prj_0001 and prj_0004 in the list.
    let effects = type_text(&mut app, "p");
    answer_page(&mut app, &effects, vec![row(1), row(4)]);
    assert_eq!(app.inventory.list.marked_count(), 1);
    let marked: Vec<&str> = app
        .inventory
        .list
        .marked_rows()
        .iter()
        .map(|row| row.id.as_str())
        .collect();
    assert_eq!(marked, ["prj_0001"]);
    let screen = draw(&app, 110, 30);
    assert!(
        screen.contains("1 marked: 2 marks dropped, no longer in the list"),
        "{screen}"
    );
}
