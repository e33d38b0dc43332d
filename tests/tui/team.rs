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

fn away(
    at: time::OffsetDateTime,
) -> Result<vantage::tui::effect::Reply, vantage::tui::effect::ErrorInfo> {
    let mut error = vantage::tui::effect::ErrorInfo::local(
        "history: cannot reach the shared history db.example:5432/vantage: connection refused"
            .into(),
        at,
    );
    error.kind = Some(vantage::tui::review::request::HISTORY_AWAY.into());
    Err(error)
}

/// Wakes the App as the runtime would until it asks the history again: the
/// token and the time.
fn wake_until_try(app: &mut App) -> (u64, time::OffsetDateTime) {
    for _ in 0..20 {
        let wake = app.next_wake().expect("a wake while away");
        let effects = app.handle(vantage::tui::app::Msg::Wake, wake);
        if let Some((token, _)) = fetch_in(&effects, Slot::HistoryVersion) {
            return (token, wake);
        }
    }
    panic!("the history is never tried again");
}

/// The history goes away while the dashboard runs: it says so, keeps the
/// live rows, refuses a mark with a clear word, tries again after 5 s, 10 s,
/// 20 s (the App's clock, no sleep), and once back reads the marks again.
#[test]
fn an_unreachable_history_is_said_retried_with_backoff_and_marks_are_refused() {
    use time::Duration;
    use vantage::tui::review::request::HistoryReply;

    use crate::changes::history;
    use crate::review_marks::inventory_and_version_check;

    let (mut app, token) = inventory_and_version_check(vec![bobs_mark()]);
    reply_at(&mut app, Slot::HistoryVersion, token, away(NOW), NOW);
    assert!(app.history_away().is_some());
    let text = screen(&app, 160, 35);
    assert!(text.contains("history unreachable"), "{text}");
    assert_eq!(shown(&app), ["prj_a", "prj_b", "prj_c"], "live rows stay");

    // A mark is refused at once, and says so.
    let effects = app.handle(key('m'), NOW);
    assert!(fetch_in(&effects, Slot::ReviewMark).is_none());
    assert!(app.history.note.is_none(), "no note field opens");
    assert!(screen(&app, 160, 35).contains("not marked: the review history is unreachable"));

    // Tries again after 5 s, then 10 s, then 20 s.
    let mut last = NOW;
    for wait in [5, 10, 20] {
        let (token, at) = wake_until_try(&mut app);
        assert_eq!(at - last, Duration::seconds(wait), "the wait grows");
        reply_at(&mut app, Slot::HistoryVersion, token, away(at), at);
        last = at;
    }
    assert_eq!(
        app.history_away().map(|away| away.tries),
        Some(4),
        "the first failure and three tries"
    );

    // Back: it says so and reads the marks again by itself.
    let (token, at) = wake_until_try(&mut app);
    let effects = reply_at(
        &mut app,
        Slot::HistoryVersion,
        token,
        history(HistoryReply::DataVersion(9)),
        at,
    );
    assert!(app.history_away().is_none());
    let (token, _) = fetch_in(&effects, Slot::ReviewMarks).expect("marks are read again");
    reply_at(
        &mut app,
        Slot::ReviewMarks,
        token,
        history(HistoryReply::Marks(vec![bobs_mark(), changed_mark()])),
        at,
    );
    let text = screen(&app, 160, 35);
    assert!(!text.contains("history unreachable"), "{text}");
    assert!(text.contains("Δ Ledger · ada"), "{text}");

    // A mark that was under way when it went away is refused out loud.
    app.handle(key('m'), at);
    let effects = app.handle(special(KeyCode::Enter), at);
    let (token, _) = fetch_in(&effects, Slot::ReviewMark).expect("marks work again");
    reply_at(&mut app, Slot::ReviewMark, token, away(at), at);
    assert!(
        screen(&app, 160, 35).contains("NOT marked: the review history is unreachable"),
        "never lost silently"
    );
}
