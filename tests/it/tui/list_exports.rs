//! `ctrl-s` on every list (issue 27, item 4): Personal data and a scan's
//! findings ask for their export (the bytes are checked against the commands
//! in tests/it/cli/list_exports.rs), and the status line shows the written path
//! whole, or cut at its start with the file name and extension kept.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use vantage::tui::app::{LIST_EXPORT, Msg};
use vantage::tui::export::ExportRows;
use vantage::tui::ops::{ExportList, Exported};

use crate::tui::bulk_names::{NOW, app, draw, inventory, type_text};
use crate::tui::support::{drawn, only};

fn ctrl_s(app: &mut vantage::tui::app::App) -> Vec<vantage::tui::effect::Effect> {
    app.handle(
        Msg::Key(KeyEvent::new(KeyCode::Char('s'), KeyModifiers::CONTROL)),
        NOW,
    )
}

#[test]
fn ctrl_s_on_personal_data_exports_it_and_the_status_line_shows_the_whole_path() {
    let mut app = app();
    inventory(&mut app, 4);
    type_text(&mut app, "j6");
    let export = only(&ctrl_s(&mut app), LIST_EXPORT);
    let ExportList { rows, path } = export.op::<ExportList>();
    assert_eq!(
        rows,
        &vantage::tui::screens::pii::PiiScreen::export_of("prj_0001")
    );
    let name = path.file_name().unwrap().to_str().unwrap().to_owned();
    assert!(
        name.starts_with("pii-prj_0001-") && name.ends_with(".csv"),
        "{name}"
    );
    let written = std::path::PathBuf::from(
        "/home/reviewer/.local/share/vantage/exports/pii-prj_0001-20261122-120000.csv",
    );
    app.handle(
        export.ok(Exported {
            path: written.clone(),
            count: 7,
            left_out: 0,
        }),
        NOW,
    );
    let wide = draw(&app, 160, 30);
    assert!(
        wide.contains(&format!(
            "exported 7 personal-data findings to {}",
            written.display()
        )),
        "{wide}"
    );
    // Narrow, the path is cut, never its file name or extension.
    let narrow = draw(&app, 80, 30);
    assert!(
        narrow.contains("…/exports/pii-prj_0001-20261122-120000.csv")
            || narrow.contains("pii-prj_0001-20261122-120000.csv"),
        "{narrow}"
    );
    assert!(narrow.contains(".csv"), "{narrow}");
}

#[test]
fn ctrl_s_on_changes_exports_the_changes_of_the_kind_shown() {
    use vantage::history::ChangeKind;
    let mut app = crate::tui::changes::changes_app(crate::tui::changes::change_set());
    type_text(&mut app, "/j");
    app.handle(
        Msg::Key(KeyEvent::new(KeyCode::Enter, KeyModifiers::NONE)),
        NOW,
    );
    assert_eq!(app.changes.kind_filter, Some(ChangeKind::Published));
    let export = only(&ctrl_s(&mut app), LIST_EXPORT);
    let ExportList { rows, .. } = export.op::<ExportList>();
    let ExportRows::Changes(changes) = rows else {
        panic!("{rows:?}");
    };
    assert_eq!(changes.len(), 2);
    assert!(changes.iter().all(|c| c.kind == ChangeKind::Published));
}

/// Issue 35, item 13: the export's notice goes with the screen it was made
/// on, and `ctrl-s` where there is nothing to export says why instead of
/// doing nothing.
#[test]
fn ctrl_s_with_nothing_to_export_says_so_and_the_last_notice_goes_with_its_screen() {
    let mut app = app();
    inventory(&mut app, 4);
    type_text(&mut app, "j6");
    let export = only(&ctrl_s(&mut app), LIST_EXPORT);
    app.handle(
        export.ok(Exported {
            path: "/tmp/exports/pii-prj_0001.csv".into(),
            count: 10,
            left_out: 0,
        }),
        NOW,
    );
    assert!(draw(&app, 160, 30).contains("exported 10 personal-data findings"));

    type_text(&mut app, "1");
    let insights = draw(&app, 160, 30);
    assert!(
        !insights.contains("exported 10"),
        "the notice stays with Personal data: {insights}"
    );
    let effects = ctrl_s(&mut app);
    assert!(effects.is_empty(), "nothing is asked: {effects:?}");
    let said = draw(&app, 160, 30);
    assert!(
        said.contains("nothing to export on Insights"),
        "ctrl-s says why: {said}"
    );
}

/// Issue 35, item 13 at 80 columns: with the history away, the rate and the
/// age on the status line, the notice `ctrl-s` just caused still shows
/// ("nothing to export on Insights"): it wins the space, after the words
/// that say the history is away.
#[test]
fn the_nothing_to_export_notice_wins_the_status_line_at_80_columns() {
    use vantage::tui::vocab::ClientNotice;

    let mut app = app();
    inventory(&mut app, 4);
    app.start_away(
        "history: cannot reach db.example:5432/vantage: connection refused".into(),
        NOW,
    );
    app.handle(
        Msg::Client(ClientNotice::RateLimit {
            remaining: 115,
            limit: 120,
        }),
        NOW,
    );
    app.handle(
        Msg::Client(ClientNotice::Snapshot("snapshot: inventory 2200".into())),
        NOW,
    );
    type_text(&mut app, "1");
    assert!(ctrl_s(&mut app).is_empty(), "nothing is asked");
    for (width, height) in [(80, 24), (120, 35)] {
        let frame = drawn(&app, width, height, NOW);
        let status = frame.status();
        assert!(
            status
                .trim_start_matches('"')
                .starts_with("history unreachable: marks off"),
            "at {width} columns: {status}"
        );
        assert!(
            status.contains("nothing to export on Insights"),
            "at {width} columns: {status}"
        );
    }
    insta::assert_snapshot!(
        "nothing_to_export_80x24",
        drawn(&app, 80, 24, NOW).with_status()
    );
}
