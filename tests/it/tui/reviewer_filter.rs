//! The reviewer in the dashboard (`screens/inventory/reviewed.rs`): who
//! marked a row, beside the mark; the inventory kept to one reviewer's marks
//! (`:reviewer NAME`, `:reviewer` alone clears it) and to the review filters,
//! on the filter line, cleared with the rest, within the request reserve.

#![allow(clippy::result_large_err)]

use crossterm::event::KeyCode;
use vantage::history::ReviewMark;
use vantage::tui::app::App;

use crate::tui::changes::screen;
use crate::tui::review_marks::{NOW, changed_mark, inventory_with, item, page};
use crate::tui::support::{answer_inventory_page, inventory_pages};
use crate::tui::support::{key, special};

pub(crate) fn bobs_mark() -> ReviewMark {
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

pub(crate) fn shown(app: &App) -> Vec<&str> {
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
    let (token, _) = inventory_pages(&effects)
        .into_iter()
        .next()
        .expect("the rows are read again");
    let rows = || {
        page(vec![
            item("prj_a", "Ledger"),
            item("prj_b", "Payroll"),
            item("prj_c", "Roster"),
        ])
    };
    app.handle(answer_inventory_page(token, rows()), NOW);
    assert_eq!(shown(&app), ["prj_a"]);

    // Alone: every project again.
    let effects = palette(&mut app, "reviewer");
    let (token, _) = inventory_pages(&effects)
        .into_iter()
        .next()
        .expect("the rows are read again");
    app.handle(answer_inventory_page(token, rows()), NOW);
    assert_eq!(shown(&app), ["prj_a", "prj_b", "prj_c"]);
    let text = screen(&app, 120, 35);
    assert!(!text.contains("reviewed by bob ·"), "{text}");
}

/// Issue 35, item 17: a reviewer filter is a filter: said on the filter line
/// with the others, and kept by back and forward.
#[test]
fn a_reviewer_filter_is_on_the_filter_line_and_back_undoes_it() {
    let mut app = inventory_with(vec![changed_mark(), bobs_mark()]);
    palette(&mut app, "reviewer bob");
    assert_eq!(shown(&app), ["prj_b"]);
    let text = screen(&app, 120, 35);
    let filter_line = text
        .lines()
        .find(|line| line.contains("· sort"))
        .unwrap_or_else(|| panic!("a filter line: {text}"));
    assert!(filter_line.contains("reviewed by bob"), "{filter_line}");

    // Leave with bob's filter, come back, clear it, leave again: back
    // returns to each inventory as it was left, the reviewer filter too.
    app.handle(key('1'), NOW);
    app.handle(key('2'), NOW);
    palette(&mut app, "reviewer");
    assert_eq!(app.inventory.reviewed.reviewer, None);
    app.handle(key('1'), NOW);
    app.handle(key('['), NOW);
    assert_eq!(app.inventory.reviewed.reviewer, None, "as it was left last");
    app.handle(key('['), NOW);
    app.handle(key('['), NOW);
    assert_eq!(
        app.inventory.reviewed.reviewer.as_deref(),
        Some("bob"),
        "back restores the inventory with bob's filter"
    );
}

/// Issue 35, item 17: under a review filter the head says how many of the
/// rows read it keeps ("64 projects · 0 loaded" read as if none were read).
#[test]
fn the_head_says_how_many_of_the_rows_read_a_review_filter_keeps() {
    let mut app = inventory_with(vec![changed_mark(), bobs_mark()]);
    let head = |app: &App| {
        let text = screen(app, 120, 35);
        text.lines()
            .find(|line| line.contains("projects ·"))
            .unwrap_or_else(|| panic!("a head line: {text}"))
            .to_owned()
    };
    assert!(
        head(&app).contains("3 projects · 3 loaded"),
        "{}",
        head(&app)
    );
    palette(&mut app, "reviewer bob");
    assert!(head(&app).contains("1 of 3 read match"), "{}", head(&app));
}

/// Issue 35, item 17: `c` (and `:clear`) clears every filter, the review
/// filters too: a reviewer filter and `M`'s are filters like the others, and
/// the rows they hid are read again.
#[test]
fn clear_filters_clears_the_reviewer_and_review_filters_too() {
    let rows = || {
        page(vec![
            item("prj_a", "Ledger"),
            item("prj_b", "Payroll"),
            item("prj_c", "Roster"),
        ])
    };
    for clear in ["c", ":clear"] {
        let mut app = inventory_with(vec![changed_mark(), bobs_mark()]);
        palette(&mut app, "reviewer bob");
        app.handle(key('M'), NOW);
        assert_eq!(shown(&app), [] as [&str; 0], "bob's mark is unchanged");

        let effects = match clear {
            "c" => app.handle(key('c'), NOW),
            _ => palette(&mut app, "clear"),
        };
        assert_eq!(app.inventory.reviewed.reviewer, None, "{clear}");
        assert_eq!(
            app.inventory.reviewed.filter.label(),
            "all projects",
            "{clear}"
        );
        let (token, _) = inventory_pages(&effects)
            .into_iter()
            .next()
            .unwrap_or_else(|| panic!("{clear}: the rows are read again"));
        app.handle(answer_inventory_page(token, rows()), NOW);
        assert_eq!(shown(&app), ["prj_a", "prj_b", "prj_c"], "{clear}");
        let text = screen(&app, 120, 35);
        let filter_line = text
            .lines()
            .find(|line| line.contains("· sort"))
            .unwrap_or_else(|| panic!("a filter line: {text}"));
        assert!(
            filter_line.contains("no filters · sort default"),
            "{clear}: {filter_line}"
        );
    }
}

/// Issue 35, item 17: `M` over a list whose pages its filter empties reads
/// the next page only while the budget keeps its reserve, as `G` does.
#[test]
fn the_review_filter_keeps_the_reserve_as_capital_g_does() {
    use vantage::api::model::InventoryPage;
    use vantage::tui::app::{ClientNotice, Msg};

    let more = |ids: &[&str]| -> InventoryPage {
        serde_json::from_value(serde_json::json!({
            "data": ids.iter().map(|id| item(id, "Unmarked")).collect::<Vec<_>>(),
            "pagination": {"has_more": true, "next_cursor": "c_next"},
            "total": 500, "as_of": null, "activity_as_of": null, "applied_finding": null
        }))
        .unwrap()
    };
    for (remaining, walks_on) in [(100, true), (10, false)] {
        let mut app = inventory_with(vec![changed_mark(), bobs_mark()]);
        app.handle(
            Msg::Client(ClientNotice::RateLimit {
                remaining,
                limit: 120,
            }),
            NOW,
        );
        app.handle(key('M'), NOW);
        let effects = app.handle(key('M'), NOW);
        assert_eq!(
            app.inventory.reviewed.filter.label(),
            "changed since review"
        );
        let (token, _) = inventory_pages(&effects)
            .into_iter()
            .next()
            .expect("the rows are read again");
        // A page none of whose rows changed since review: all hidden.
        let effects = app.handle(answer_inventory_page(token, more(&["prj_x", "prj_y"])), NOW);
        let asked = !inventory_pages(&effects).is_empty();
        assert_eq!(asked, walks_on, "at {remaining}/120");
        if !walks_on {
            let text = screen(&app, 120, 35);
            assert!(text.contains("request budget low"), "{text}");
            // It names what it read, not what it kept (none of the two).
            assert!(text.contains("stopped after reading 2"), "{text}");
            assert!(text.contains("0 of 2 read match"), "the head: {text}");
            assert!(
                text.contains("None of the 2 projects read so far matches"),
                "not \"no project matches\" while pages are unread: {text}"
            );
        }
    }
}
