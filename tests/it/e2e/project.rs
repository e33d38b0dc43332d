//! End to end: the real `vantage demo` binary in a pseudo-terminal, its screen
//! parsed by a terminal emulator (vt100). Rename a project, delete another, quit.

use std::time::{Duration, Instant};

use crate::e2e::support::Session;

/// The value of the project screen's `Name` field.
fn project_name(lines: &[String]) -> Option<String> {
    lines.iter().find_map(|line| {
        let value = line.strip_prefix("Name ")?.trim_start();
        let value = value.split("  ").next()?.trim();
        (!value.is_empty() && value != "(unnamed)").then(|| value.to_owned())
    })
}

/// "64 projects" in the inventory head line.
fn total(screen: &str) -> Option<u64> {
    screen.lines().find_map(|line| {
        let (count, _) = line.split_once(" projects")?;
        count.trim().replace(',', "").parse().ok()
    })
}

/// How often `text` shows in the body (between the tab bar and the status line).
fn count_in_body(lines: &[String], text: &str) -> usize {
    let end = lines.len().saturating_sub(2);
    lines[2.min(end)..end]
        .iter()
        .filter(|line| line.contains(text))
        .count()
}

#[test]
fn rename_then_delete_then_quit() {
    let started = Instant::now();
    let mut tui = Session::start(&["demo"], 120, 35);
    tui.wait_text("Insights");
    tui.wait_text("Risk distribution");

    // 2: the inventory.
    tui.send("2");
    let screen = tui.wait_for("the inventory's first page", |s| {
        total(s).is_some() && s.contains("loaded") && !s.contains("Loading projects")
    });
    let before = total(&screen).unwrap();

    // Enter opens the first project; e renames it.
    tui.send("\r");
    tui.wait_text("From the inventory");
    tui.wait_for("the project's fields", |s| s.contains("Latest commit"));
    tui.send("e");
    tui.wait_text("new name:");
    tui.send("\u{15}"); // ctrl-u clears the field
    tui.send("Renamed by e2e");
    tui.wait_text("new name: Renamed by e2e");
    tui.send("\r");
    tui.wait_for("the renamed project", |s| {
        s.contains("renamed to") && project_name(&lines_of(s)).as_deref() == Some("Renamed by e2e")
    });

    // Back in the inventory the row shows the new name at once.
    tui.send("\u{1b}");
    tui.wait_for("the inventory with the new name", |s| {
        total(s).is_some() && s.contains("Renamed by e2e")
    });

    // Another project: open it, D, type its name, enter.
    tui.send("j");
    tui.send("\r");
    let screen = tui.wait_for("the second project", |s| {
        s.contains("Latest commit")
            && project_name(&lines_of(s)).is_some_and(|n| n != "Renamed by e2e")
    });
    let doomed = project_name(&lines_of(&screen)).unwrap();
    tui.send("\u{1b}");
    let screen = tui.wait_for("the inventory again", |s| total(s).is_some());
    let shown_before = count_in_body(&lines_of(&screen), &doomed);
    assert!(shown_before > 0, "{doomed} is listed:\n{screen}");
    tui.send("\r");
    tui.wait_for("the second project again", |s| {
        project_name(&lines_of(s)).as_deref() == Some(doomed.as_str())
    });
    tui.send("D");
    tui.wait_text("Delete project");
    tui.send(&doomed);
    tui.wait_text("matches");
    tui.send("\r");
    let screen = tui.wait_for("the inventory without the row", |s| {
        total(s) == Some(before - 1) && s.contains("deleted")
    });
    let lines = lines_of(&screen);
    assert!(
        count_in_body(&lines, &doomed) < shown_before,
        "the row of {doomed} is gone:\n{screen}"
    );

    // q quits with status 0.
    tui.send("q");
    let status = tui.wait_exit();
    assert!(status.success(), "exit status {status:?}");
    assert!(
        started.elapsed() < Duration::from_secs(10),
        "took {:?}",
        started.elapsed()
    );
}

fn lines_of(screen: &str) -> Vec<String> {
    screen.lines().map(str::to_owned).collect()
}
