//! The monitor (`screens/monitor`): charts with both axes labelled, tiles
//! that grow with the terminal, a scale shared across tiles on `s`, tiles
//! that age, a focus that shows without colour; refreshes on a deadline only
//! while shown, freeze, backoff while the service is away, bounded memory;
//! the watch list pinned from the inventory, saved and read back.

use serde_json::json;
use time::macros::datetime;
use time::{Duration, OffsetDateTime};
use vantage::api::model::Realtime;
use vantage::tui::app::{App, Msg};
use vantage::tui::effect::{Effect, ErrorInfo, Gate};
use vantage::tui::theme::{ColorDepth, ThemeName};
use vantage::tui::watchlist::WatchEntry;

use crate::tui::support::{
    self, Drawn, answer, app, app_with_theme, asked_in, drawn, error, key, only, screen,
    show_inventory, transport_error, with_inventory,
};
use vantage::tui::ops::GetRealtime;
use vantage::tui::ops::{LoadWatchlist, SaveWatchlist};
use vantage::tui::screens::monitor;
use vantage::tui::watchlist;

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

// --- Monitor -----------------------------------------------------------------------

fn realtime_at(last_minute: OffsetDateTime, current: i64) -> Realtime {
    let buckets: Vec<_> = (0..30)
        .map(|i| {
            json!({
                "timestamp": vantage::api::model::format_timestamp(last_minute - Duration::minutes(29 - i)),
                "visitors": (i * 7) % 11 + i / 3,
            })
        })
        .collect();
    serde_json::from_value(json!({"buckets": buckets, "current_visitors": current})).unwrap()
}

fn realtime_requests(effects: &[Effect]) -> Vec<(u8, u64, String)> {
    asked_in(effects, monitor::REALTIME)
        .into_iter()
        .map(|fetch| {
            let project_id = fetch.op::<GetRealtime>().project_id.clone();
            (fetch.slot.lane_number(), fetch.token, project_id)
        })
        .collect()
}

/// The inventory loaded, then the monitor opened: its first request.
fn open_monitor(app: &mut App) -> (u8, u64, String) {
    with_inventory(app, 4);
    let effects = app.handle(key('4'), NOW);
    let requests = realtime_requests(&effects);
    assert_eq!(requests.len(), 1, "the selected project, once");
    assert_eq!(requests[0].2, "prj_0000");
    requests[0].clone()
}

fn answer_realtime(app: &mut App, (lane, token, _): &(u8, u64, String), now: OffsetDateTime) {
    app.handle(
        answer(
            monitor::REALTIME.lane(*lane),
            *token,
            Ok(realtime_at(now, 17)),
            monitor::Msg::Realtime,
        ),
        now,
    );
}

#[test]
fn the_monitor_refreshes_on_a_deadline_only_while_visible() {
    let mut app = app();
    let first = open_monitor(&mut app);
    assert_eq!(
        app.wake_at(),
        None,
        "nothing to wait for while a request runs"
    );
    answer_realtime(&mut app, &first, NOW);
    let due = NOW + Duration::seconds(10);
    assert_eq!(app.wake_at(), Some(due));
    assert!(realtime_requests(&app.handle(Msg::Wake, NOW + Duration::seconds(5))).is_empty());
    let second = realtime_requests(&app.handle(Msg::Wake, due));
    assert_eq!(second.len(), 1);
    answer_realtime(&mut app, &second[0], due);
    assert_eq!(app.monitor.live["prj_0000"].buckets.len(), 30);

    // Another tab: no deadline, no requests, however late it gets.
    app.handle(key('1'), due);
    assert_eq!(app.wake_at(), None);
    let later = due + Duration::hours(2);
    assert!(realtime_requests(&app.handle(Msg::Wake, later)).is_empty());
    // Back on the monitor, the overdue refresh happens at once.
    let back = realtime_requests(&app.handle(key('4'), later));
    assert_eq!(back.len(), 1);
}

#[test]
fn freeze_stops_requests_until_unfrozen() {
    let mut app = app();
    let first = open_monitor(&mut app);
    answer_realtime(&mut app, &first, NOW);
    app.handle(key('f'), NOW);
    assert!(app.monitor.frozen);
    assert_eq!(app.wake_at(), None);
    for minutes in [1, 10, 600] {
        let effects = app.handle(Msg::Wake, NOW + Duration::minutes(minutes));
        assert!(realtime_requests(&effects).is_empty());
    }
    assert!(realtime_requests(&app.handle(key('r'), NOW)).is_empty());
    assert!(support::text(&screen(&app, 120, 35)).contains("FROZEN"));
    let resumed = realtime_requests(&app.handle(key('f'), NOW + Duration::minutes(11)));
    assert_eq!(resumed.len(), 1, "unfreezing refreshes at once");
    assert!(!support::text(&screen(&app, 120, 35)).contains("FROZEN"));
}

#[test]
fn a_reply_that_arrives_after_freezing_is_dropped() {
    let mut app = app();
    let first = open_monitor(&mut app);
    answer_realtime(&mut app, &first, NOW);
    let due = NOW + Duration::seconds(10);
    let second = realtime_requests(&app.handle(Msg::Wake, due))[0].clone();
    app.handle(key('f'), due);
    let before = app.monitor.live["prj_0000"].clone();
    app.handle(
        answer(
            monitor::REALTIME.lane(second.0),
            second.1,
            Ok(realtime_at(due, 99)),
            monitor::Msg::Realtime,
        ),
        due,
    );
    assert_eq!(
        app.monitor.live["prj_0000"], before,
        "the frozen picture stays"
    );
}

#[test]
fn an_unreachable_service_backs_off_says_since_when_and_recovers_alone() {
    let mut app = app();
    let first = open_monitor(&mut app);
    let good = datetime!(2026-11-22 12:00:07 UTC);
    answer_realtime(&mut app, &first, good);
    let mut now = app.wake_at().unwrap();
    let mut pauses = Vec::new();
    for _ in 0..6 {
        let request = realtime_requests(&app.handle(Msg::Wake, now))[0].clone();
        app.handle(
            answer(
                monitor::REALTIME.lane(request.0),
                request.1,
                Err(transport_error()),
                monitor::Msg::Realtime,
            ),
            now,
        );
        let next = app.wake_at().expect("it keeps retrying by itself");
        pauses.push((next - now).whole_seconds());
        now = next;
    }
    assert_eq!(pauses, vec![10, 20, 40, 60, 60, 60]);
    let drawn = support::text(&screen(&app, 120, 35));
    assert!(
        drawn.contains("data stale since 12:00:07 UTC"),
        "the last good data's time: {drawn}"
    );
    // The data from before the outage stays on screen.
    assert_eq!(app.monitor.live["prj_0000"].current_visitors, 17);
    let request = realtime_requests(&app.handle(Msg::Wake, now))[0].clone();
    answer_realtime(&mut app, &request, now);
    assert_eq!(app.wake_at(), Some(now + Duration::seconds(10)));
    assert!(!support::text(&screen(&app, 120, 35)).contains("stale"));
}

#[test]
fn an_api_error_is_shown_without_backing_off() {
    let mut app = app();
    let (lane, token, _) = open_monitor(&mut app);
    let never_published = error(
        Some(404),
        Some("analytics_not_found"),
        Some(Gate::FeatureOff(
            "no analytics: the project was never published".into(),
        )),
    );
    app.handle(
        answer(
            monitor::REALTIME.lane(lane),
            token,
            Err(never_published),
            monitor::Msg::Realtime,
        ),
        NOW,
    );
    assert_eq!(app.monitor.failures, 0);
    assert_eq!(app.wake_at(), Some(NOW + Duration::seconds(10)));
    assert!(
        support::text(&screen(&app, 120, 35))
            .contains("404 analytics_not_found: not published, or gone")
    );
}

#[test]
fn refreshes_go_on_across_midnight_and_a_clock_that_jumps_backwards() {
    let mut app = app();
    let first = open_monitor(&mut app);
    let before_midnight = datetime!(2026-11-22 23:59:55 UTC);
    answer_realtime(&mut app, &first, before_midnight);
    let due = app.wake_at().unwrap();
    assert_eq!(due, datetime!(2026-11-23 00:00:05 UTC));
    let request = realtime_requests(&app.handle(Msg::Wake, due))[0].clone();
    // The labels are the server's bucket times, across the date change.
    app.handle(
        answer(
            monitor::REALTIME.lane(request.0),
            request.1,
            Ok(realtime_at(datetime!(2026-11-23 00:05 UTC), 3)),
            monitor::Msg::Realtime,
        ),
        due,
    );
    let shown = drawn(&app, 120, 35, datetime!(2026-11-23 00:00:05 UTC)).full();
    assert!(
        shown.contains("23:36") && shown.contains("00:05"),
        "{shown}"
    );

    // The wall clock jumps back an hour while the runtime sleeps: the wake that
    // follows still refreshes, and the next deadline is near the new clock.
    let jumped = due - Duration::hours(1) + Duration::seconds(10);
    let effects = app.handle(Msg::Wake, jumped);
    let request = realtime_requests(&effects);
    assert_eq!(
        request.len(),
        1,
        "a clock jump backwards does not stop refreshes"
    );
    answer_realtime(&mut app, &request[0], jumped);
    assert_eq!(app.wake_at(), Some(jumped + Duration::seconds(10)));

    // A jump noticed on any message re-arms the deadline at once.
    let again = jumped - Duration::hours(3);
    app.handle(Msg::Resize, again);
    assert!(app.wake_at().unwrap() <= again);
    assert_eq!(realtime_requests(&app.handle(Msg::Wake, again)).len(), 1);
}

#[test]
fn memory_stays_bounded_to_thirty_buckets_per_shown_project() {
    let mut app = app();
    let (lane, token, _) = open_monitor(&mut app);
    let mut long: Realtime = realtime_at(NOW, 5);
    let extra = realtime_at(NOW - Duration::minutes(30), 5);
    long.buckets.splice(0..0, extra.buckets);
    assert_eq!(long.buckets.len(), 60);
    app.handle(
        answer(
            monitor::REALTIME.lane(lane),
            token,
            Ok(long),
            monitor::Msg::Realtime,
        ),
        NOW,
    );
    let kept = &app.monitor.live["prj_0000"].buckets;
    assert_eq!(kept.len(), 30);
    assert_eq!(kept.last().unwrap().timestamp, NOW, "the newest are kept");
    // Selecting another project drops the data of the first.
    app.handle(key('2'), NOW);
    app.handle(key('j'), NOW);
    app.handle(key('4'), NOW);
    assert!(!app.monitor.live.contains_key("prj_0000"));
}

// --- Watch list --------------------------------------------------------------------

fn saves(effects: &[Effect]) -> Vec<(std::path::PathBuf, Vec<watchlist::WatchEntry>)> {
    support::asked(effects)
        .into_iter()
        .filter_map(|fetch| {
            let SaveWatchlist { path, entries } = fetch.operation::<SaveWatchlist>()?.clone();
            Some((path, entries))
        })
        .collect()
}

/// Opens an app on the watch-list file at `path` and answers its start's read
/// of it the way the executor does.
fn app_with_watchlist(path: &std::path::Path) -> App {
    let mut app = app();
    app.monitor.use_watchlist_file(path.to_path_buf());
    let effects = app.start(NOW);
    answer_watchlist_read(&mut app, &effects);
    app
}

fn answer_watchlist_read(app: &mut App, effects: &[Effect]) {
    let read = only(effects, monitor::WATCHLIST_LOAD);
    let path = &read.op::<LoadWatchlist>().path;
    let loaded = watchlist::load(path).map_err(|e| ErrorInfo {
        summary: e.to_string(),
        ..error(None, None, None)
    });
    app.handle(read.answer(loaded), NOW);
}

#[test]
fn pinning_in_the_inventory_saves_the_watch_list_and_the_monitor_shows_them_all() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("watchlist.json");
    let mut app = app_with_watchlist(&path);
    show_inventory(&mut app, 4);
    let effects = app.handle(key('w'), NOW);
    let saved = saves(&effects);
    assert_eq!(saved.len(), 1);
    assert_eq!(saved[0].0, path);
    assert_eq!(saved[0].1[0].id, "prj_0000");
    assert!(
        realtime_requests(&effects).is_empty(),
        "the monitor is not visible"
    );
    app.handle(key('j'), NOW);
    let effects = app.handle(key('w'), NOW);
    let (path, entries) = saves(&effects).remove(0);
    let ids: Vec<&str> = entries.iter().map(|e| e.id.as_str()).collect();
    assert_eq!(ids, ["prj_0000", "prj_0001"]);
    // What the executor does with the request; a new monitor reads it back.
    watchlist::save(&path, &entries).unwrap();
    let reopened = app_with_watchlist(&path);
    assert_eq!(reopened.monitor.watch, entries);
    assert_eq!(reopened.monitor.watch_warning, None);
    let leftovers: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
    assert_eq!(leftovers.len(), 1, "no temporary file left behind");

    // The monitor asks for every pinned project, each in its own lane.
    let effects = app.handle(key('4'), NOW);
    let mut requests = realtime_requests(&effects);
    requests.sort();
    let asked: Vec<(u8, &str)> = requests
        .iter()
        .map(|(l, _, id)| (*l, id.as_str()))
        .collect();
    assert_eq!(asked, [(0, "prj_0000"), (1, "prj_0001")]);
    for request in &requests {
        answer_realtime(&mut app, request, NOW);
    }
    // Unpinning the focused tile from the monitor saves again: ▶ is on the
    // project in focus (the inventory's prj_0001), the one `w` acts on.
    let effects = app.handle(key('w'), NOW);
    let (_, entries) = saves(&effects).remove(0);
    let ids: Vec<&str> = entries.iter().map(|e| e.id.as_str()).collect();
    assert_eq!(ids, ["prj_0000"]);
}

#[test]
fn a_pin_made_while_the_watch_list_is_read_is_saved_with_it() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("watchlist.json");
    let kept = watchlist::WatchEntry {
        id: "prj_9".into(),
        name: None,
    };
    watchlist::save(&path, std::slice::from_ref(&kept)).unwrap();
    let mut app = app();
    app.monitor.use_watchlist_file(path.clone());
    let start = app.start(NOW);
    show_inventory(&mut app, 4);
    let effects = app.handle(key('w'), NOW);
    assert!(
        saves(&effects).is_empty(),
        "no save before the file is read"
    );
    // The read answers: the file's entries first, then the pin, saved together.
    let read = only(&start, monitor::WATCHLIST_LOAD);
    let loaded = watchlist::load(&path).unwrap();
    let effects = app.handle(read.ok(loaded), NOW);
    let (_, entries) = saves(&effects).remove(0);
    let ids: Vec<&str> = entries.iter().map(|e| e.id.as_str()).collect();
    assert_eq!(ids, ["prj_9", "prj_0000"]);
}

#[test]
fn a_damaged_watch_list_is_reported_and_ignored() {
    let dir = tempfile::tempdir().unwrap();
    for body in [
        "{not json".to_owned(),
        json!({"version": 99, "projects": []}).to_string(),
        json!({"version": 1, "projects": [{"id": ""}]}).to_string(),
    ] {
        let path = dir.path().join("watchlist.json");
        std::fs::write(&path, &body).unwrap();
        let reopened = app_with_watchlist(&path);
        assert!(reopened.monitor.watch.is_empty(), "{body}");
        let warning = reopened.monitor.watch_warning.clone().expect("reported");
        assert!(warning.contains("damaged"), "{warning}");
        let logged = reopened.errors.last().expect("in the error log");
        assert_eq!(logged.summary, warning);
        // The next save replaces it with a good one.
        let entry = watchlist::WatchEntry {
            id: "prj_1".into(),
            name: None,
        };
        watchlist::save(&path, std::slice::from_ref(&entry)).unwrap();
        assert_eq!(watchlist::load(&path).unwrap(), vec![entry]);
    }
    // A missing file is an empty list, not a warning.
    assert_eq!(
        watchlist::load(&dir.path().join("absent.json")).unwrap(),
        vec![]
    );
}

#[test]
fn the_watch_list_is_capped() {
    let mut app = app();
    with_inventory(&mut app, 20);
    for _ in 0..watchlist::WATCH_LIMIT {
        app.handle(key('w'), NOW);
        app.handle(key('j'), NOW);
    }
    assert_eq!(app.monitor.watch.len(), watchlist::WATCH_LIMIT);
    app.handle(key('w'), NOW);
    assert_eq!(app.monitor.watch.len(), watchlist::WATCH_LIMIT);
    assert!(support::text(&screen(&app, 120, 35)).contains("at most 16"));
}

fn monitor_snapshot_app() -> App {
    let mut app = app();
    let first = open_monitor(&mut app);
    app.handle(
        answer(
            monitor::REALTIME.lane(first.0),
            first.1,
            Ok(realtime_at(datetime!(2026-11-22 11:59 UTC), 1234)),
            monitor::Msg::Realtime,
        ),
        NOW,
    );
    app
}

#[test]
fn snapshot_monitor() {
    for (width, height) in [(120, 35), (80, 24)] {
        let app = monitor_snapshot_app();
        insta::assert_snapshot!(
            format!("monitor_{width}x{height}"),
            drawn(&app, width, height, NOW).body()
        );
    }
}

#[test]
fn snapshot_monitor_watch_grid() {
    let mut app = app();
    with_inventory(&mut app, 4);
    for _ in 0..3 {
        app.handle(key('w'), NOW);
        app.handle(key('j'), NOW);
    }
    let effects = app.handle(key('4'), NOW);
    for (index, request) in realtime_requests(&effects).iter().enumerate() {
        app.handle(
            answer(
                monitor::REALTIME.lane(request.0),
                request.1,
                Ok(realtime_at(
                    datetime!(2026-11-22 11:59 UTC),
                    index as i64 * 40 + 3,
                )),
                monitor::Msg::Realtime,
            ),
            NOW,
        );
    }
    insta::assert_snapshot!("monitor_grid_120x35", drawn(&app, 120, 35, NOW).body());
}

#[test]
fn a_refresh_with_the_same_data_changes_no_cell() {
    let mut app = app();
    let first = open_monitor(&mut app);
    answer_realtime(&mut app, &first, NOW);
    let before = drawn(&app, 120, 35, NOW).buffer().clone();
    let mut now = NOW;
    for _ in 0..5 {
        now = app.wake_at().unwrap();
        let request = realtime_requests(&app.handle(Msg::Wake, now)).remove(0);
        // The same minute's data again.
        app.handle(
            answer(
                monitor::REALTIME.lane(request.0),
                request.1,
                Ok(realtime_at(NOW, 17)),
                monitor::Msg::Realtime,
            ),
            now,
        );
    }
    assert_eq!(now, NOW + Duration::seconds(50));
    let after = drawn(&app, 120, 35, now);
    assert!(
        before.diff(after.buffer()).is_empty(),
        "no counter or clock on screen: nothing to rewrite"
    );
}
