//! The status line and the footer around every screen (issue 14): ages that
//! change with a wake when their label does, a wait for the rate limit said
//! and logged, and a key without the write scope said on every screen for the
//! session.

use serde_json::Value;
use vantage::tui::app::Msg;
use vantage::tui::screens::insights;

use crate::tui::insights::insights;
use crate::tui::inventory::{NOW, page, project, show_inventory, status_line, text};
use crate::tui::support::{answer, app, key, only};

#[test]
fn relative_times_age_with_a_wake_when_the_label_changes_only_while_one_is_shown() {
    let mut app = app();
    let effects = app.start(NOW);
    assert_eq!(app.next_wake(), None, "nothing shown as an age yet");
    let token = only(&effects, insights::INSIGHTS).token;
    let loaded = Ok(insights(10, 1, 2, 7));
    app.handle(
        answer(insights::INSIGHTS, token, loaded, insights::Msg::Loaded),
        NOW,
    );
    app.handle(
        Msg::Client(vantage::tui::app::ClientNotice::RateLimit {
            remaining: 2,
            limit: 120,
        }),
        NOW,
    );
    assert!(status_line(&app, NOW).contains("rate 2/120 · updated just now"));
    // The next wake is when the label changes (in 10 s steps within the first
    // minute: 54 s is not "just now"), not a fixed tick.
    let ten = NOW + time::Duration::seconds(10);
    assert_eq!(app.next_wake(), Some(ten));
    app.dirty = false;
    app.handle(Msg::Wake, ten);
    assert!(app.dirty, "the wake redraws the aged label");
    assert!(status_line(&app, ten).contains("updated 10 s ago"));
    let minute = NOW + time::Duration::minutes(1);
    app.dirty = false;
    app.handle(Msg::Wake, minute);
    assert!(app.dirty, "the wake redraws the aged label");
    let line = status_line(&app, minute + time::Duration::seconds(40));
    assert!(
        line.contains("rate 2/120 (1 min ago) · updated 1 min ago"),
        "{line}"
    );
    assert_eq!(app.next_wake(), Some(NOW + time::Duration::minutes(2)));
}

#[test]
fn a_wait_for_the_rate_limit_is_said_and_logged() {
    use vantage::tui::app::ClientNotice;
    let mut app = app();
    app.start(NOW);
    app.handle(Msg::Client(ClientNotice::Paced { wait_ms: 12_000 }), NOW);
    let line = status_line(&app, NOW + time::Duration::seconds(2));
    assert!(line.contains("waiting 10 s for the rate limit"), "{line}");
    assert_eq!(app.errors.len(), 1);
    assert_eq!(
        app.errors[0].kind,
        Some(vantage::tui::effect::ErrorKind::RequestBudget)
    );
    assert!(app.errors[0].summary.contains("waited 12 s"));
    // Once a reply reports the limit again, the wait is over.
    app.handle(
        Msg::Client(ClientNotice::RateLimit {
            remaining: 50,
            limit: 120,
        }),
        NOW + time::Duration::seconds(12),
    );
    let line = status_line(&app, NOW + time::Duration::seconds(12));
    assert!(!line.contains("waiting"), "{line}");
}

#[test]
fn a_missing_write_scope_is_said_on_every_screen_for_the_session() {
    let mut app = app();
    show_inventory(
        &mut app,
        page(vec![project(1, "Alpha", Value::Null)], 1, false),
    );
    // Learned from the first 403 `insufficient_scope` of a write.
    app.missing_write_scope = Some(vec!["projects:write".into()]);
    for tab in ['1', '2', '3'] {
        app.handle(key(tab), NOW);
        let screen = text(&app, 120, 35);
        let footer = screen.lines().last().unwrap_or_default();
        assert!(footer.contains("key lacks projects:write"), "{footer}");
    }
    app.handle(key('?'), NOW);
    let screen = text(&app, 120, 35);
    assert!(
        screen.contains("changes are disabled for this session: the API key lacks projects:write"),
        "{screen}"
    );
}
