//! The monitor as btop users expect it (issue 14, item 12): charts with both
//! axes labelled, tiles that grow with the terminal, a scale shared across
//! tiles on `s`, tiles that age, and a focus that shows without colour.

use serde_json::json;
use time::macros::datetime;
use time::{Duration, OffsetDateTime};
use vantage::api::model::Realtime;
use vantage::tui::app::{App, Msg};
use vantage::tui::effect::{Effect, ErrorInfo, Gate};
use vantage::tui::theme::{ColorDepth, ThemeName};
use vantage::tui::watchlist::WatchEntry;

use crate::tui::support::{Drawn, answer, app, app_with_theme, asked_in, drawn, key};
use vantage::tui::ops::GetRealtime;
use vantage::tui::screens::monitor;

pub(crate) const NOW: OffsetDateTime = datetime!(2026-11-22 12:00 UTC);

/// 30 minutes ending at 11:59, rising to `peak` visitors.
pub(crate) fn realtime(peak: i64) -> Realtime {
    let last = datetime!(2026-11-22 11:59 UTC);
    let buckets: Vec<_> = (0..30)
        .map(|i| {
            json!({
                "timestamp": vantage::api::model::format_timestamp(last - Duration::minutes(29 - i)),
                "visitors": peak * ((i * 7) % 11 + i / 3) / 18,
            })
        })
        .collect();
    serde_json::from_value(json!({"buckets": buckets, "current_visitors": peak})).unwrap()
}

/// The monitor open on `count` pinned projects, the first with ten times the
/// traffic of the others, every answer in.
pub(crate) fn grid(app: App, count: usize) -> App {
    grid_with(app, count, |_| None)
}

/// Like [`grid`], with the refusal `refuse` gives for a project id, if any.
pub(crate) fn grid_with(
    mut app: App,
    count: usize,
    refuse: impl Fn(&str) -> Option<ErrorInfo>,
) -> App {
    app.start(NOW);
    app.monitor.watch = (0..count)
        .map(|n| WatchEntry {
            id: format!("prj_{n:04}"),
            name: Some(format!("Project {n}")),
        })
        .collect();
    let effects = app.handle(key('4'), NOW);
    for fetch in asked_in(&effects, monitor::REALTIME) {
        let project_id = &fetch.op::<GetRealtime>().project_id;
        let peak = if project_id == "prj_0000" { 180 } else { 18 };
        let reply = match refuse(project_id) {
            Some(error) => Err(error),
            None => Ok(realtime(peak)),
        };
        app.handle(fetch.answer(reply), NOW);
    }
    app
}

/// The service's answer for `prj_0001`: never published (no analytics).
fn never_published_1(id: &str) -> Option<ErrorInfo> {
    (id == "prj_0001").then(|| ErrorInfo {
        status: Some(404),
        kind: Some("analytics_not_found".into()),
        detail: None,
        request_id: Some("req_1".into()),
        summary: "analytics_not_found (HTTP 404)".into(),
        gate: Some(Gate::FeatureOff("analytics".into())),
        at: NOW,
    })
}

pub(crate) fn render(app: &App, width: u16, height: u16, now: OffsetDateTime) -> Drawn {
    drawn(app, width, height, now)
}

/// The whole frame, each row as drawn, unquoted.
pub(crate) fn text(frame: &Drawn) -> String {
    let buffer = frame.buffer();
    let width = buffer.area.width as usize;
    buffer
        .content()
        .chunks(width)
        .map(|row| row.iter().map(|cell| cell.symbol()).collect::<String>())
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn snapshot_monitor_tiles_grow_with_the_terminal() {
    for (width, height) in [(200, 50), (120, 35), (80, 24)] {
        let app = grid(app(), 4);
        insta::assert_snapshot!(
            format!("monitor_tiles_{width}x{height}"),
            drawn(&app, width, height, NOW).body()
        );
    }
}

#[test]
fn tiles_are_not_a_fixed_size() {
    let app = grid(app(), 4);
    // Four tiles at 200x50: two rows of two, each about 100 wide and 23 high.
    let screen = text(&render(&app, 200, 50, NOW));
    let top_border = screen.lines().nth(3).unwrap();
    assert_eq!(
        top_border.matches('┐').count() + top_border.matches('┓').count(),
        2
    );
    let tile_rows = screen
        .lines()
        .filter(|line| line.starts_with('┃') || line.starts_with('│'))
        .count();
    assert!(
        tile_rows >= 40,
        "tiles fill the height: {tile_rows} rows\n{screen}"
    );
}

#[test]
fn s_shares_one_scale_across_tiles_and_says_which_is_on() {
    let mut app = grid(app(), 3);
    let own = text(&render(&app, 120, 35, NOW));
    assert!(own.contains("each tile its own scale"), "{own}");
    // Each tile's y axis tops at its own peak: 180 for the busy one, 18 for the rest.
    assert!(own.contains("180┤") && own.contains("18┤"), "{own}");
    assert!(own.contains("s shared scale"), "{own}");
    app.handle(key('s'), NOW);
    assert!(app.monitor.shared_scale);
    let shared = text(&render(&app, 120, 35, NOW));
    assert!(shared.contains("one shared scale"), "{shared}");
    assert!(shared.contains("s own scales"), "{shared}");
    assert_eq!(shared.matches("180┤").count(), 3, "{shared}");
    assert!(!shared.contains(" 18┤"), "{shared}");
    app.handle(key('s'), NOW);
    assert!(!app.monitor.shared_scale);
}

#[test]
fn the_charts_have_y_labels_and_time_ticks_between_the_ends() {
    // The large chart of the selected project.
    let mut app = grid(app(), 1);
    app.handle(Msg::Key(crossterm_enter()), NOW);
    let screen = text(&render(&app, 120, 35, NOW));
    for label in [
        "180┤", "90┤", "0┤", "11:30", "11:35", "11:45", "11:55", "11:59",
    ] {
        assert!(screen.contains(label), "{label}\n{screen}");
    }
    // A tile's small chart.
    let app = grid(self::app(), 2);
    let screen = text(&render(&app, 120, 35, NOW));
    for label in ["180┤", "0┤", "11:30", "11:40", "11:50", "11:59"] {
        assert!(screen.contains(label), "{label}\n{screen}");
    }
}

fn crossterm_enter() -> crossterm::event::KeyEvent {
    crossterm::event::KeyEvent::new(
        crossterm::event::KeyCode::Enter,
        crossterm::event::KeyModifiers::NONE,
    )
}

#[test]
fn a_tile_says_how_old_its_data_is_and_ages() {
    let mut app = grid(app(), 2);
    assert!(text(&render(&app, 120, 35, NOW)).contains("at 12:00:00 (just now)"));
    // Frozen, nothing refreshes: the tiles age, and the age wakes the dashboard.
    app.handle(key('f'), NOW);
    let later = NOW + Duration::minutes(3);
    let screen = text(&render(&app, 120, 35, later));
    assert_eq!(
        screen.matches("at 12:00:00 (3 min ago)").count(),
        2,
        "{screen}"
    );
    assert!(
        app.next_wake() == Some(NOW + Duration::seconds(10)),
        "an age on screen wakes the dashboard when it next reads differently"
    );
}

#[test]
fn under_no_color_the_focused_tile_has_a_marker_and_a_thick_border() {
    // `NO_COLOR`: the theme keeps bold, dim and reverse only.
    let mono = app_with_theme(ThemeName::Dark, ColorDepth::None);
    let mut app = grid(mono, 3);
    app.handle(key('j'), NOW);
    let terminal = render(&app, 120, 35, NOW);
    let buffer = terminal.buffer();
    assert!(
        buffer
            .content()
            .iter()
            .all(|cell| cell.fg == ratatui::style::Color::Reset
                && cell.bg == ratatui::style::Color::Reset),
        "no colour at all"
    );
    let screen = text(&terminal);
    let focused: Vec<&str> = screen.lines().filter(|line| line.contains('▶')).collect();
    assert_eq!(focused.len(), 1, "{screen}");
    assert!(focused[0].contains("┏ ▶ Project 1 ━"), "{screen}");
    assert_eq!(screen.matches('┏').count(), 1, "one thick border\n{screen}");
}

#[test]
fn a_never_published_tile_says_so_in_full_even_when_narrow() {
    let app = grid_with(app(), 4, never_published_1);
    let screen = text(&render(&app, 80, 24, NOW));
    // The right-hand tile of the first row, beside the focused one's thick border.
    let words: String = screen
        .lines()
        .filter_map(|line| line.split("┃│").nth(1))
        .map(|rest| rest.trim_end_matches('│').trim())
        .collect::<Vec<_>>()
        .join(" ");
    assert!(
        words.contains(
            "404 analytics_not_found: not published, or gone. Checked every 5 min; r checks now."
        ),
        "{screen}"
    );
    assert!(!screen.contains("not enabled"), "{screen}");
}

/// The projects a list of effects asks realtime for.
pub(crate) fn asked(effects: &[Effect]) -> Vec<String> {
    effects
        .iter()
        .filter_map(|effect| match effect {
            Effect::Fetch { job, .. } => match job.operation() {
                Some(GetRealtime { project_id }) => Some(project_id.clone()),
                _ => None,
            },
            _ => None,
        })
        .collect()
}

/// Issue 14: a never-published tile sits out the regular rounds for a few
/// minutes (it has no visitors to show), says so, and `r` asks it at once.
#[test]
fn a_never_published_tile_is_asked_rarely_and_r_asks_it_now() {
    let mut app = grid_with(app(), 3, never_published_1);
    let mut now = NOW;
    for _ in 0..5 {
        now = app.wake_at().expect("the next round is scheduled");
        let effects = app.handle(Msg::Wake, now);
        let projects = asked(&effects);
        assert_eq!(projects, ["prj_0000", "prj_0002"], "at {now}");
        for effect in effects {
            if let Effect::Fetch { slot, token, .. } = effect {
                app.handle(
                    answer(slot, token, Ok(realtime(18)), monitor::Msg::Realtime),
                    now,
                );
            }
        }
    }
    let screen = text(&render(&app, 120, 35, now));
    assert!(screen.contains("r checks now"), "{screen}");
    // `r` asks every tile now.
    let effects = app.handle(key('r'), now);
    assert_eq!(asked(&effects), ["prj_0000", "prj_0001", "prj_0002"]);
}

/// After the recheck interval the never-published tile is asked again.
#[test]
fn a_never_published_tile_is_asked_again_after_five_minutes() {
    let mut app = grid_with(app(), 2, never_published_1);
    let later = NOW + Duration::minutes(5);
    let effects = app.handle(Msg::Wake, later);
    assert_eq!(asked(&effects), ["prj_0000", "prj_0001"]);
}

/// Issue 23: a notice named a key by its letter ("press f to resume"), so a
/// remapped key made the text wrong. It shows the key bound.
#[test]
fn the_frozen_notice_names_the_freeze_key_as_bound() {
    let mut app = app();
    let overrides = std::collections::HashMap::from([("freeze".to_owned(), vec!["F".to_owned()])]);
    app.settings.keymap = vantage::tui::keymap::Keymap::with_overrides(&overrides).unwrap();
    app.handle(key('4'), NOW);
    app.handle(key('F'), NOW);
    app.handle(key('r'), NOW);
    let shown = drawn(&app, 120, 35, NOW).full();
    assert!(shown.contains("frozen: press F to resume"), "{shown}");
}

// --- Refresh and tiles under the rate limit and a 404 (issue 14) ----------------

#[test]
fn the_monitor_stretches_its_refresh_when_many_are_watched_and_says_so() {
    use vantage::tui::app::ClientNotice;
    let mut app = app();
    app.start(NOW);
    app.monitor.watch = (0..12)
        .map(|n| vantage::tui::watchlist::WatchEntry {
            id: format!("prj_{n:04}"),
            name: Some(format!("Watched {n}")),
        })
        .collect();
    app.handle(
        Msg::Client(ClientNotice::RateLimit {
            remaining: 120,
            limit: 120,
        }),
        NOW,
    );
    let effects = app.handle(key('4'), NOW);
    let asked = asked_in(&effects, monitor::REALTIME);
    assert_eq!(asked.len(), 12, "one request per watched project");
    for fetch in asked {
        let realtime: Realtime =
            serde_json::from_value(json!({"current_visitors": 1, "buckets": []})).unwrap();
        app.handle(fetch.ok(realtime), NOW);
    }
    // 12 projects every 10 s would be 72 a minute; half of 120 allows a round every 12 s.
    assert_eq!(
        app.monitor.next_refresh(),
        Some(NOW + time::Duration::seconds(12))
    );
    let screen = drawn(&app, 120, 35, NOW).full();
    assert!(
        screen.contains("refresh every 12 s (stretched from 10 s to fit the rate limit)"),
        "{screen}"
    );
}

#[test]
fn monitor_tiles_say_when_updated_and_a_never_published_project_says_so() {
    let mut app = app();
    app.start(NOW);
    app.monitor.watch = ["prj_live", "prj_never"]
        .iter()
        .map(|id| vantage::tui::watchlist::WatchEntry {
            id: (*id).to_owned(),
            name: None,
        })
        .collect();
    let effects = app.handle(key('4'), NOW);
    for fetch in asked_in(&effects, monitor::REALTIME) {
        let never = fetch.op::<GetRealtime>().project_id == "prj_never";
        let answer = if never {
            Err(ErrorInfo {
                status: Some(404),
                kind: Some("analytics_not_found".into()),
                detail: None,
                request_id: Some("req_1".into()),
                summary: "analytics_not_found (HTTP 404)".into(),
                gate: Some(vantage::tui::effect::Gate::FeatureOff("analytics".into())),
                at: NOW,
            })
        } else {
            Ok(serde_json::from_value(json!({"current_visitors": 4, "buckets": []})).unwrap())
        };
        app.handle(fetch.answer::<Realtime>(answer), NOW);
    }
    let screen = drawn(&app, 120, 35, NOW).full();
    assert!(screen.contains("4 now · at 12:00:00"), "{screen}");
    assert!(
        screen.contains("404 analytics_not_found: not published"),
        "{screen}"
    );
    assert!(!screen.contains("not enabled"), "{screen}");
}
