//! End to end: the command palette jumps to a project by id, and a bulk
//! visibility change runs over three marked rows, in the real `vantage demo`.

use crate::e2e::support::Session;

/// The inventory's position counter on its fourth row.
const FOURTH_ROW: &str = "· 4/";

/// The first project id (`prj_…`) on the screen.
fn first_id(screen: &str) -> Option<String> {
    let start = screen.find("prj_")?;
    let id: String = screen[start..]
        .chars()
        .take_while(|ch| ch.is_ascii_alphanumeric() || *ch == '_')
        .collect();
    (id.len() > 4).then_some(id)
}

#[test]
fn palette_jumps_to_a_project_by_id_and_a_bulk_change_covers_three_marked_rows() {
    let mut tui = Session::start(&["demo"], 120, 35);
    tui.wait_text("Risk distribution");
    tui.send("2");
    tui.wait_for("the inventory's first page", |s| {
        s.contains("loaded") && !s.contains("Loading projects") && s.contains("prj_")
    });
    // The detail pane shows the selected row's id; take the fourth row's.
    // The position counter reads `· 4/64`: a bare "4/" is also in the
    // status line's "rate 64/120", before the cursor moved at all.
    tui.send("jjj");
    let screen = tui.wait_text(FOURTH_ROW);
    let id = first_id(&screen).expect("the detail pane shows an id");

    // From another tab, `:` and the id open that project's screen.
    tui.send("1");
    tui.wait_text("Risk distribution");
    tui.send(":");
    tui.wait_text("tab completes");
    tui.send(&id);
    tui.send("\r");
    // The breadcrumb names the tab `esc` returns to (issue 35, item 11).
    tui.wait_for("the project screen of the id", |s| {
        s.contains("Latest commit") && s.contains(&id) && s.contains("Insights ›")
    });

    // Esc goes back where the project was opened from (insights); 2 is the
    // inventory's list, its cursor on that project (the fourth row).
    tui.send("\u{1b}");
    tui.wait_text("Risk distribution");
    tui.send("2");
    tui.wait_for("the inventory list at the project", |s| {
        s.contains("loaded")
            && !s.contains("Latest commit")
            && s.contains(FOURTH_ROW)
            && s.contains(&id)
    });
    // Mark three rows, set their visibility.
    tui.send("g");
    tui.send("   ");
    tui.wait_text("3 marked");
    tui.send("v");
    tui.wait_text("Visibility of 3 marked projects");
    tui.send("j\r");
    tui.wait_text("Set the visibility of these 3 projects to workspace_view?");
    tui.send("y");
    let report = tui.wait_text("3 ok, 0 failed");
    // Each row by name, with its before → after.
    assert_eq!(report.matches("→ workspace_view").count(), 3, "{report}");
    assert_eq!(report.matches("│✓ ").count(), 3, "{report}");
    tui.send("\u{1b}");
    let screen = tui.wait_for("the list without the report", |s| {
        !s.contains("— report") && !s.contains("marked") && s.contains("loaded")
    });
    assert!(screen.contains("workspace_view"), "{screen}");
    tui.send("q");
    assert!(tui.wait_exit().success());
}
