//! The monitor as operators keep it open for hours (issue 28, item 8): a
//! notice goes away, an age is honest, an off-screen tile is not polled, and a
//! round waits for room that the background snapshot spent.

use time::Duration;
use vantage::tui::app::{ClientNotice, Msg};
use vantage::tui::effect::Effect;

use crate::tui::monitor::{NOW, asked, grid, realtime, render, text};
use crate::tui::support::{answer, app, key};
use vantage::tui::screens::monitor;

#[test]
fn a_status_notice_goes_away_by_itself() {
    let mut app = grid(app(), 2);
    app.handle(key('y'), NOW);
    assert!(text(&render(&app, 120, 35, NOW)).contains("copy sent"));
    let gone_at = app.next_wake().expect("the notice wakes the dashboard");
    assert!(gone_at <= NOW + Duration::seconds(10), "woken at {gone_at}");
    app.handle(Msg::Wake, gone_at);
    let screen = text(&render(&app, 120, 35, gone_at));
    assert!(!screen.contains("copy sent"), "{screen}");
    let an_hour_later = text(&render(&app, 120, 35, NOW + Duration::minutes(66)));
    assert!(!an_hour_later.contains("copy sent"), "{an_hour_later}");
}

#[test]
fn data_most_of_a_minute_old_is_not_just_now() {
    let mut app = grid(app(), 2);
    app.handle(key('f'), NOW);
    let screen = text(&render(&app, 120, 35, NOW + Duration::seconds(54)));
    assert!(!screen.contains("just now"), "{screen}");
    assert_eq!(
        screen.matches("at 12:00:00 (50 s ago)").count(),
        2,
        "{screen}"
    );
}

#[test]
fn a_tile_scrolled_out_of_view_is_not_polled() {
    // Seven pinned projects at 80x24: six tiles fit, the seventh is below.
    let mut app = grid(app(), 7);
    let screen = text(&render(&app, 80, 24, NOW));
    assert!(screen.contains("+1 more below"), "{screen}");
    let due = app.wake_at().expect("the next round is scheduled");
    let effects = app.handle(Msg::Wake, due);
    let projects = asked(&effects);
    assert_eq!(projects.len(), 6, "{projects:?}");
    assert!(!projects.contains(&"prj_0006".to_owned()), "{projects:?}");
    // Focused (the grid scrolls a row down), it is polled and the first row is not.
    for effect in effects {
        if let Effect::Fetch { slot, token, .. } = effect {
            app.handle(
                answer(slot, token, Ok(realtime(18)), monitor::Msg::Realtime),
                due,
            );
        }
    }
    app.handle(key('G'), due);
    let screen = text(&render(&app, 80, 24, due));
    assert!(screen.contains("Project 6"), "{screen}");
    let next = app.wake_at().expect("the next round is scheduled");
    let projects = asked(&app.handle(Msg::Wake, next));
    assert_eq!(
        projects,
        ["prj_0002", "prj_0003", "prj_0004", "prj_0005", "prj_0006"]
    );
}

#[test]
fn the_first_round_waits_for_room_the_snapshot_spent() {
    // The background snapshot's walk left 2 of 120 in the window.
    let mut app = vantage_app_with_spent_budget();
    app.monitor.watch = (0..6)
        .map(|n| vantage::tui::watchlist::WatchEntry {
            id: format!("prj_{n:04}"),
            name: None,
        })
        .collect();
    let effects = app.handle(key('4'), NOW);
    assert_eq!(
        asked(&effects),
        Vec::<String>::new(),
        "no round into a spent budget"
    );
    let due = app.next_wake().expect("the round is scheduled");
    assert!(
        due > NOW && due <= NOW + Duration::seconds(10),
        "due at {due}"
    );
    let effects = app.handle(Msg::Wake, due);
    assert_eq!(asked(&effects).len(), 6);
}

fn vantage_app_with_spent_budget() -> vantage::tui::app::App {
    let mut app = app();
    app.start(NOW);
    app.handle(
        Msg::Client(ClientNotice::RateLimit {
            remaining: 2,
            limit: 120,
        }),
        NOW,
    );
    app
}
