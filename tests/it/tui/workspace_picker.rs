//! The workspace picker the dashboard shows when the key reaches several
//! workspaces and none is configured.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use vantage::api::model::{Workspace, WorkspacePlan};
use vantage::tui::theme::{ColorDepth, Theme, ThemeName};
use vantage::tui::workspace_picker::{PickerOutcome, WorkspacePicker};

fn workspace(id: &str, name: &str, plan: WorkspacePlan, projects: i64) -> Workspace {
    Workspace {
        id: id.into(),
        name: Some(name.into()),
        description: None,
        image_url: None,
        plan: Some(plan),
        num_projects: Some(projects),
        created_at: None,
        updated_at: None,
    }
}

fn picker() -> WorkspacePicker {
    WorkspacePicker::new(vec![
        workspace("ws_acme", "Acme Corp", WorkspacePlan::Enterprise, 64),
        workspace(
            "ws_evil",
            "Evil \u{1b}[2J\u{202e}name",
            WorkspacePlan::Unknown("enterprise_plus".into()),
            3,
        ),
        workspace("ws_globex", "Globex Business", WorkspacePlan::Business, 6),
    ])
}

fn press(picker: &mut WorkspacePicker, code: KeyCode) -> PickerOutcome {
    picker.handle_key(&KeyEvent::new(code, KeyModifiers::NONE))
}

#[test]
fn the_picker_chooses_with_enter_and_leaves_with_esc() {
    let mut p = picker();
    assert_eq!(press(&mut p, KeyCode::Down), PickerOutcome::Open);
    assert_eq!(press(&mut p, KeyCode::Char('j')), PickerOutcome::Open);
    assert_eq!(
        press(&mut p, KeyCode::Down),
        PickerOutcome::Open,
        "stops at the end"
    );
    assert_eq!(
        press(&mut p, KeyCode::Enter),
        PickerOutcome::Chosen("ws_globex".into())
    );
    assert_eq!(press(&mut p, KeyCode::Char('k')), PickerOutcome::Open);
    assert_eq!(press(&mut p, KeyCode::Esc), PickerOutcome::Cancelled);
}

#[test]
fn snapshot_workspace_picker() {
    let mut p = picker();
    press(&mut p, KeyCode::Down);
    let theme = Theme::for_terminal(ThemeName::Dark, ColorDepth::None);
    let mut terminal = Terminal::new(TestBackend::new(80, 12)).unwrap();
    terminal
        .draw(|frame| p.draw(frame, frame.area(), &theme))
        .unwrap();
    insta::assert_snapshot!(terminal.backend());
}
