//! Issue 26 in the dashboard: the reviewer beside a mark, and the inventory
//! kept to one reviewer's marks (`:reviewer NAME`, `:reviewer` alone clears it).

use crossterm::event::KeyCode;
use vantage::history::ReviewMark;
use vantage::tui::app::App;
use vantage::tui::effect::Slot;

use crate::changes::{fetch_in, screen};
use crate::review_marks::{NOW, changed_mark, inventory_with, item, page, reply_at};
use crate::support::{key, special};

fn bobs_mark() -> ReviewMark {
    let mut mark = changed_mark();
    mark.project_id = "prj_b".into();
    mark.name = Some("Payroll".into());
    mark.reviewer = Some("bob".into());
    mark.note = None;
    mark.changed_since_review = Some(false);
    mark.changed_fields.clear();
    mark
}

fn palette(app: &mut App, line: &str) -> Vec<vantage::tui::effect::Effect> {
    let mut effects = app.handle(key(':'), NOW);
    for ch in line.chars() {
        effects.extend(app.handle(key(ch), NOW));
    }
    effects.extend(app.handle(special(KeyCode::Enter), NOW));
    effects
}

fn shown(app: &App) -> Vec<&str> {
    app.inventory
        .list
        .rows
        .iter()
        .map(|row| row.id.as_str())
        .collect()
}

#[test]
fn the_row_names_who_marked_it() {
    let app = inventory_with(vec![changed_mark(), bobs_mark()]);
    let text = screen(&app, 120, 35);
    assert!(text.contains("Δ Ledger · ada"), "{text}");
    assert!(text.contains("✓ Payroll · bob"), "{text}");
    let roster = text.lines().find(|line| line.contains("Roster")).unwrap();
    assert!(
        !roster.contains('·'),
        "an unmarked row names no one: {roster}"
    );
}

#[test]
fn reviewer_keeps_the_projects_that_reviewer_marked_and_alone_clears_it() {
    let mut app = inventory_with(vec![changed_mark(), bobs_mark()]);
    assert_eq!(shown(&app), ["prj_a", "prj_b", "prj_c"]);

    palette(&mut app, "reviewer bob");
    assert_eq!(shown(&app), ["prj_b"]);
    let text = screen(&app, 120, 35);
    assert!(
        text.contains("reviewed by bob · over the rows loaded"),
        "the status line says the filter: {text}"
    );

    // Another name reads the rows again (those bob's filter dropped), and
    // names match whatever their case.
    let effects = palette(&mut app, "reviewer ADA");
    let (token, _) = fetch_in(&effects, Slot::InventoryPage).expect("the rows are read again");
    let rows = || {
        page(vec![
            item("prj_a", "Ledger"),
            item("prj_b", "Payroll"),
            item("prj_c", "Roster"),
        ])
    };
    reply_at(&mut app, Slot::InventoryPage, token, rows(), NOW);
    assert_eq!(shown(&app), ["prj_a"]);

    // Alone: every project again.
    let effects = palette(&mut app, "reviewer");
    let (token, _) = fetch_in(&effects, Slot::InventoryPage).expect("the rows are read again");
    reply_at(&mut app, Slot::InventoryPage, token, rows(), NOW);
    assert_eq!(shown(&app), ["prj_a", "prj_b", "prj_c"]);
    let text = screen(&app, 120, 35);
    assert!(!text.contains("reviewed by bob ·"), "{text}");
}
