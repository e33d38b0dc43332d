//! State-model tests of the members, monitor, analytics and personal-data screens:
//! synthetic replies, a fixed clock, no terminal and no network. Snapshots draw
//! into ratatui's TestBackend.

// Replies are `Result<Reply, ErrorInfo>`, the app's own message type.
#![allow(clippy::result_large_err)]

use std::collections::HashSet;

use crossterm::event::KeyCode;
use serde_json::json;
use time::macros::datetime;
use time::{Duration, OffsetDateTime};
use vantage::api::model::{
    Breakdowns, InventoryPage, Member, MemberRef, MemberSortBy, Page, PiiFinding, Realtime, Role,
};
use vantage::tui::app::{App, Msg};
use vantage::tui::effect::{Effect, ErrorInfo, Gate};
use vantage::tui::screens::members::DETAIL_LANES;
use vantage::tui::watchlist;

use crate::common::items::inventory_item;
pub(crate) use crate::tui::support::special;
use crate::tui::support::{
    Drawn, answer, answer_inventory_page, app, asked, asked_in, drawn, inventory_pages, key, only,
};
use vantage::tui::ops::{GetBreakdowns, ListPii};
use vantage::tui::ops::{GetMember, GetRealtime, ListMembers, LoadWatchlist, SaveWatchlist};
use vantage::tui::screens::{analytics, members, monitor, pii};

pub(crate) const NOW: OffsetDateTime = datetime!(2026-11-22 12:00 UTC);

pub(crate) fn error(status: Option<u16>, kind: Option<&str>, gate: Option<Gate>) -> ErrorInfo {
    ErrorInfo {
        status,
        kind: kind.map(Into::into),
        detail: None,
        request_id: Some("req_test".into()),
        summary: match kind {
            Some(kind) => format!("{kind} (HTTP {})", status.unwrap_or(0)),
            None => "cannot connect to the service".into(),
        },
        gate,
        at: NOW,
    }
}

fn transport_error() -> ErrorInfo {
    error(None, None, None)
}

/// The App drawn at `NOW`.
pub(crate) fn screen(app: &App, width: u16, height: u16) -> Drawn {
    drawn(app, width, height, NOW)
}

/// The whole frame, as text.
pub(crate) fn text(frame: &Drawn) -> String {
    frame.full()
}

// --- Inventory selection ---------------------------------------------------------

fn inventory_page(count: usize) -> InventoryPage {
    let names = [
        "Budget tracker",
        "Clinic portal",
        "Garden map",
        "Fleet planner",
    ];
    let data: Vec<_> = (0..count)
        .map(|n| {
            inventory_item(json!({"id": format!("prj_{n:04}"), "name": names[n % names.len()]}))
        })
        .collect();
    serde_json::from_value(json!({
        "data": data,
        "pagination": {"has_more": false, "next_cursor": null},
        "total": count, "as_of": null, "activity_as_of": null, "applied_finding": null
    }))
    .unwrap()
}

/// Loads the inventory with `count` projects; the first one is selected.
fn with_inventory(app: &mut App, count: usize) {
    app.start(NOW);
    show_inventory(app, count);
}

/// Opens the inventory tab and answers its first page with `count` rows.
fn show_inventory(app: &mut App, count: usize) {
    let effects = app.handle(key('2'), NOW);
    let (token, _) = inventory_pages(&effects)[0].clone();
    app.handle(answer_inventory_page(token, inventory_page(count)), NOW);
}

// --- Members -----------------------------------------------------------------------

pub(crate) fn user_id(n: usize) -> String {
    format!("00000000-0000-4000-8000-{n:012}")
}

pub(crate) fn member_page(range: std::ops::Range<usize>, more: bool) -> Page<MemberRef> {
    // Each page its own cursor, as a service's are: a walk refuses a repeated one.
    let cursor = format!("next{}", range.end);
    serde_json::from_value(json!({
        "data": range.map(|n| json!({"user_id": user_id(n), "type": "user"})).collect::<Vec<_>>(),
        "pagination": {"has_more": more, "next_cursor": if more { Some(cursor) } else { None }},
    }))
    .unwrap()
}

pub(crate) fn member(id: &str) -> Member {
    let n: usize = id[24..].parse().unwrap();
    let names = [
        "Ada Lovelace",
        "Grace Hopper",
        "Alan Turing",
        "Radia Perlman",
    ];
    serde_json::from_value(json!({
        "user_id": id, "workspace_id": "ws_test", "type": "user",
        "email": format!("{}{n}@example.com", names[n % 4].split(' ').next().unwrap().to_lowercase()),
        "name": names[n % 4],
        "joined_at": "2026-03-01T09:30:00Z", "invited_at": "2026-02-27T17:05:00Z"
    }))
    .unwrap()
}

pub(crate) fn detail_requests(effects: &[Effect]) -> Vec<(u8, u64, String)> {
    asked_in(effects, members::DETAIL)
        .into_iter()
        .map(|fetch| {
            let user_id = fetch.op::<GetMember>().user_id.clone();
            (fetch.slot.lane_number(), fetch.token, user_id)
        })
        .collect()
}

/// Answers one detail request with its member; returns the detail requests
/// that answer brings.
pub(crate) fn answer_detail(app: &mut App, asked: &(u8, u64, String)) -> Vec<(u8, u64, String)> {
    let (lane, token, id) = asked;
    let effects = app.handle(
        answer(
            members::DETAIL.lane(*lane),
            *token,
            Ok(member(id)),
            members::Msg::Detail,
        ),
        NOW,
    );
    detail_requests(&effects)
}

/// Opens the members tab, draws it once (so rows are on screen) and answers the
/// first page; returns the detail requests that follow.
pub(crate) fn open_members(
    app: &mut App,
    width: u16,
    height: u16,
    rows: usize,
) -> Vec<(u8, u64, String)> {
    app.start(NOW);
    let effects = app.handle(key('3'), NOW);
    let first = only(&effects, members::PAGE);
    let token = first.token;
    assert_eq!(first.op::<ListMembers>().cursor, None);
    screen(app, width, height);
    let effects = app.handle(
        answer(
            members::PAGE,
            token,
            Ok(member_page(0..rows, false)),
            members::Msg::Page,
        ),
        NOW,
    );
    detail_requests(&effects)
}

/// Answers detail requests (and those they cause) until none is left or `limit`
/// replies were given; returns every request seen and the most in flight at once.
fn answer_details(
    app: &mut App,
    mut pending: Vec<(u8, u64, String)>,
    limit: usize,
    answer: impl Fn(&str) -> Result<Member, ErrorInfo>,
) -> (Vec<String>, usize, Vec<(u8, u64, String)>) {
    let mut asked: Vec<String> = pending.iter().map(|(_, _, id)| id.clone()).collect();
    let mut most = pending.len();
    let mut answered = 0;
    while answered < limit && !pending.is_empty() {
        let (lane, token, id) = pending.remove(0);
        let slot = members::DETAIL.lane(lane);
        let effects = app.handle(
            crate::tui::support::answer(slot, token, answer(&id), members::Msg::Detail),
            NOW,
        );
        answered += 1;
        let more = detail_requests(&effects);
        asked.extend(more.iter().map(|(_, _, id)| id.clone()));
        pending.extend(more);
        most = most.max(pending.len());
        assert_eq!(app.members.details_in_flight(), pending.len());
    }
    (asked, most, pending)
}

#[test]
fn member_details_are_fetched_for_visible_rows_only_at_most_four_at_once() {
    let mut app = app();
    let first = open_members(&mut app, 120, 35, 100);
    assert_eq!(first.len(), DETAIL_LANES, "four lanes fill at once");
    let lanes: HashSet<u8> = first.iter().map(|(lane, ..)| *lane).collect();
    assert_eq!(lanes.len(), DETAIL_LANES, "each request has its own lane");
    let visible = app.members.visible_rows();
    assert!(visible.len() > DETAIL_LANES && visible.len() < 100);
    let (asked, most, _) = answer_details(&mut app, first, usize::MAX, |id| Ok(member(id)));
    assert!(most <= DETAIL_LANES, "at most four in flight, saw {most}");
    let expected: Vec<String> = visible.clone().map(user_id).collect();
    assert_eq!(
        asked, expected,
        "exactly the rows on screen were asked for, once each, top to bottom"
    );
    assert_eq!(app.members.detail_requests, visible.len());

    // Moving inside the screen asks for nothing; one row further asks for one.
    for _ in 0..visible.len() - 1 {
        assert!(detail_requests(&app.handle(key('j'), NOW)).is_empty());
    }
    let effects = app.handle(key('j'), NOW);
    let one = detail_requests(&effects);
    assert_eq!(one.len(), 1);
    assert_eq!(one[0].2, user_id(visible.end));
    // Back to the top: everything there is cached.
    assert!(detail_requests(&app.handle(key('g'), NOW)).is_empty());
    assert_eq!(app.members.detail_requests, visible.len() + 1);
}

#[test]
fn a_fast_scroll_never_asks_for_more_details_than_rows_shown() {
    let mut app = app();
    let first = open_members(&mut app, 80, 24, 300);
    let mut shown: HashSet<String> = app.members.visible_rows().map(user_id).collect();
    let mut asked: Vec<String> = first.iter().map(|(_, _, id)| id.clone()).collect();
    let mut pending = first;
    // Page down through a third of the list while only some replies arrive.
    for step in 0..10 {
        let effects = app.handle(special(KeyCode::PageDown), NOW);
        shown.extend(app.members.visible_rows().map(user_id));
        let more = detail_requests(&effects);
        asked.extend(more.iter().map(|(_, _, id)| id.clone()));
        pending.extend(more);
        assert!(app.members.details_in_flight() <= DETAIL_LANES);
        if step % 3 == 0 && !pending.is_empty() {
            let more = answer_detail(&mut app, &pending.remove(0));
            shown.extend(app.members.visible_rows().map(user_id));
            asked.extend(more.iter().map(|(_, _, id)| id.clone()));
            pending.extend(more);
        }
    }
    // The replies still under way arrive; they ask only for what is on screen.
    let already = pending.len();
    let (more, _, _) = answer_details(&mut app, pending, usize::MAX, |id| Ok(member(id)));
    asked.extend(more.into_iter().skip(already));
    assert!(shown.len() < 150, "only part of the list was shown");
    let unique: HashSet<&String> = asked.iter().collect();
    assert_eq!(unique.len(), asked.len(), "no member asked for twice");
    assert!(
        asked.iter().all(|id| shown.contains(id)),
        "every detail asked for was of a row on screen"
    );
    assert!(asked.len() <= shown.len());
    assert_eq!(app.members.detail_requests, asked.len());
}

#[test]
fn an_inactive_member_reads_not_active_and_stays_out_of_the_error_log() {
    let mut app = app();
    let first = open_members(&mut app, 120, 35, 10);
    let gone = user_id(1);
    answer_details(&mut app, first, usize::MAX, |id| {
        if id == user_id(1) {
            Err(error(Some(404), Some("member_not_found"), None))
        } else {
            Ok(member(id))
        }
    });
    assert!(matches!(
        app.members.details.get(&gone),
        Some(vantage::tui::screens::members::Detail::NotActive)
    ));
    assert!(
        app.errors.is_empty(),
        "an inactive member is data, not an error"
    );
    let drawn = text(&screen(&app, 120, 35));
    assert!(drawn.contains("not active"));
    assert!(drawn.contains("Grace Hopper"));
}

#[test]
fn a_stale_member_page_is_dropped() {
    let mut app = app();
    app.start(NOW);
    let effects = app.handle(key('3'), NOW);
    let old = only(&effects, members::PAGE).token;
    // Sort by the first field of the menu (after "default").
    app.handle(key('s'), NOW);
    app.handle(key('j'), NOW);
    let effects = app.handle(special(KeyCode::Enter), NOW);
    let asked = only(&effects, members::PAGE);
    let (new, params) = (asked.token, &asked.op::<ListMembers>().params);
    assert_ne!(old, new);
    assert_eq!(params.sort_by, Some(MemberSortBy::DisplayName));
    // Names run A to Z on the first choice (issue 14).
    assert_eq!(params.sort_order, Some(vantage::api::model::SortOrder::Asc));
    app.handle(
        answer(
            members::PAGE,
            old,
            Ok(member_page(0..5, false)),
            members::Msg::Page,
        ),
        NOW,
    );
    assert!(
        app.members.list.rows.is_empty(),
        "the older sort's reply is dropped"
    );
    app.handle(
        answer(
            members::PAGE,
            new,
            Ok(member_page(0..3, false)),
            members::Msg::Page,
        ),
        NOW,
    );
    assert_eq!(app.members.list.rows.len(), 3);
}

fn last_member_params(effects: &[Effect]) -> vantage::api::MemberListParams {
    asked(effects)
        .into_iter()
        .find_map(|fetch| Some(fetch.operation::<ListMembers>()?.params.clone()))
        .expect("a member page request")
}

#[test]
fn member_filters_roles_scim_sort_and_relevance_only_with_a_search() {
    let mut app = app();
    app.start(NOW);
    app.handle(key('3'), NOW);
    // Roles toggle on and off; several at once match any.
    app.handle(key('t'), NOW);
    let owner = app.handle(special(KeyCode::Enter), NOW);
    assert_eq!(last_member_params(&owner).role, vec![Role::Owner]);
    app.handle(key('j'), NOW);
    let both = app.handle(special(KeyCode::Enter), NOW);
    assert_eq!(
        last_member_params(&both).role,
        vec![Role::Owner, Role::Admin]
    );
    app.handle(key('k'), NOW);
    let admin = app.handle(special(KeyCode::Enter), NOW);
    assert_eq!(last_member_params(&admin).role, vec![Role::Admin]);
    // The SCIM line comes after the five roles: any, yes, no, any.
    for _ in 0..5 {
        app.handle(key('j'), NOW);
    }
    let scim: Vec<Option<bool>> = (0..3)
        .map(|_| last_member_params(&app.handle(special(KeyCode::Enter), NOW)).scim_managed)
        .collect();
    assert_eq!(scim, vec![Some(true), Some(false), None]);
    app.handle(special(KeyCode::Esc), NOW);

    // Without a search the last sort offered is role; relevance is not offered.
    app.handle(key('s'), NOW);
    for _ in 0..10 {
        app.handle(key('j'), NOW);
    }
    let sorted = app.handle(special(KeyCode::Enter), NOW);
    assert_eq!(
        last_member_params(&sorted).sort_by,
        Some(MemberSortBy::Role)
    );
    let reversed = app.handle(key('S'), NOW);
    assert_eq!(
        last_member_params(&reversed).sort_order,
        Some(vantage::api::model::SortOrder::Asc)
    );

    // With a search, relevance is offered last; clearing the search drops it.
    app.handle(key('/'), NOW);
    for ch in "ada".chars() {
        app.handle(key(ch), NOW);
    }
    app.handle(special(KeyCode::Enter), NOW);
    app.handle(key('s'), NOW);
    for _ in 0..10 {
        app.handle(key('j'), NOW);
    }
    let relevance = app.handle(special(KeyCode::Enter), NOW);
    let params = last_member_params(&relevance);
    assert_eq!(params.sort_by, Some(MemberSortBy::Relevance));
    assert_eq!(params.query.as_deref(), Some("ada"));
    app.handle(key('/'), NOW);
    for _ in 0..3 {
        app.handle(special(KeyCode::Backspace), NOW);
    }
    let cleared = app.handle(special(KeyCode::Enter), NOW);
    let params = last_member_params(&cleared);
    assert_eq!(params.query, None);
    assert_eq!(params.sort_by, None, "relevance needs a search");
    assert_eq!(params.sort_order, None, "no direction without a sort");
}

#[test]
fn a_member_search_waits_for_the_debounce_and_explains_short_terms() {
    let mut app = app();
    app.start(NOW);
    app.handle(key('3'), NOW);
    app.handle(key('/'), NOW);
    for ch in "ab".chars() {
        assert!(asked(&app.handle(key(ch), NOW)).is_empty());
    }
    let drawn = text(&screen(&app, 120, 35));
    assert!(drawn.contains("terms under 3 characters are ignored by the server"));
    let deadline = app.wake_at().expect("a debounce deadline");
    assert!(deadline > NOW && deadline <= NOW + Duration::milliseconds(300));
    assert!(asked(&app.handle(Msg::Wake, NOW + Duration::milliseconds(100))).is_empty());
    let effects = app.handle(Msg::Wake, deadline);
    assert_eq!(last_member_params(&effects).query.as_deref(), Some("ab"));
}

// --- Monitor -----------------------------------------------------------------------

fn realtime(last_minute: OffsetDateTime, current: i64) -> Realtime {
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
            Ok(realtime(now, 17)),
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
    assert!(text(&screen(&app, 120, 35)).contains("FROZEN"));
    let resumed = realtime_requests(&app.handle(key('f'), NOW + Duration::minutes(11)));
    assert_eq!(resumed.len(), 1, "unfreezing refreshes at once");
    assert!(!text(&screen(&app, 120, 35)).contains("FROZEN"));
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
            Ok(realtime(due, 99)),
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
    let drawn = text(&screen(&app, 120, 35));
    assert!(
        drawn.contains("data stale since 12:00:07 UTC"),
        "the last good data's time: {drawn}"
    );
    // The data from before the outage stays on screen.
    assert_eq!(app.monitor.live["prj_0000"].current_visitors, 17);
    let request = realtime_requests(&app.handle(Msg::Wake, now))[0].clone();
    answer_realtime(&mut app, &request, now);
    assert_eq!(app.wake_at(), Some(now + Duration::seconds(10)));
    assert!(!text(&screen(&app, 120, 35)).contains("stale"));
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
        text(&screen(&app, 120, 35)).contains("404 analytics_not_found: not published, or gone")
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
            Ok(realtime(datetime!(2026-11-23 00:05 UTC), 3)),
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
    let mut long: Realtime = realtime(NOW, 5);
    let extra = realtime(NOW - Duration::minutes(30), 5);
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
    asked(effects)
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
    assert!(text(&screen(&app, 120, 35)).contains("at most 16"));
}

// --- Analytics ---------------------------------------------------------------------

fn breakdowns() -> Breakdowns {
    serde_json::from_value(json!({
        "countries": [
            {"label": "United States", "visitors": 1480}, {"label": "India", "visitors": 413},
            {"label": "Germany", "visitors": 324}, {"label": "Unknown", "visitors": 203},
            {"label": "Japan", "visitors": 147}
        ],
        "devices": [{"label": "Desktop", "visitors": 2497}, {"label": "Mobile", "visitors": 1510},
                    {"label": "Tablet", "visitors": 208}],
        "pages": [{"label": "/", "visitors": 1503}, {"label": "/login", "visitors": 504},
                  {"label": "/pricing\u{1b}[31m", "visitors": 231}],
        "sources": [{"label": "Direct", "visitors": 1556}, {"label": "google.com", "visitors": 1389},
                    {"label": "news.ycombinator.com", "visitors": 151}]
    }))
    .unwrap()
}

fn breakdown_request(effects: &[Effect]) -> Option<(u64, String, OffsetDateTime, OffsetDateTime)> {
    asked(effects).into_iter().find_map(|fetch| {
        let GetBreakdowns {
            project_id,
            starts_at,
            ends_at,
        } = fetch.operation::<GetBreakdowns>()?.clone();
        Some((fetch.token, project_id, starts_at, ends_at))
    })
}

#[test]
fn analytics_ranges_are_whole_utc_dates_and_custom_ranges_are_checked() {
    let mut app = app();
    with_inventory(&mut app, 2);
    let (token, project, starts, ends) = breakdown_request(&app.handle(key('5'), NOW)).unwrap();
    assert_eq!(project, "prj_0000");
    assert_eq!(
        (starts, ends),
        (
            datetime!(2026-10-24 00:00 UTC),
            datetime!(2026-11-22 00:00 UTC)
        ),
        "the last 30 dates, today included"
    );
    app.handle(
        answer(
            analytics::BREAKDOWNS,
            token,
            Ok(breakdowns()),
            analytics::Msg::Breakdowns,
        ),
        NOW,
    );
    assert!(!text(&screen(&app, 120, 35)).contains("only 90 days"));

    // R opens the menu on the current range (30 days); two down is 365 days.
    app.handle(key('R'), NOW);
    app.handle(key('j'), NOW);
    app.handle(key('j'), NOW);
    let (_, _, starts, ends) =
        breakdown_request(&app.handle(special(KeyCode::Enter), NOW)).unwrap();
    assert_eq!(
        (starts, ends),
        (
            datetime!(2025-11-23 00:00 UTC),
            datetime!(2026-11-22 00:00 UTC)
        )
    );
    assert!(text(&screen(&app, 120, 35)).contains("keep analytics only 90 days"));

    // Custom: a bad range stays in the box with a reason, a good one loads.
    app.handle(key('R'), NOW);
    app.handle(key('j'), NOW);
    app.handle(special(KeyCode::Enter), NOW);
    for _ in 0..22 {
        app.handle(special(KeyCode::Backspace), NOW);
    }
    for ch in "2026-11-05..2026-11-01".chars() {
        app.handle(key(ch), NOW);
    }
    assert!(breakdown_request(&app.handle(special(KeyCode::Enter), NOW)).is_none());
    assert!(text(&screen(&app, 120, 35)).contains("ends before it starts"));
    for _ in 0..10 {
        app.handle(special(KeyCode::Backspace), NOW);
    }
    for ch in "2026-11-09".chars() {
        app.handle(key(ch), NOW);
    }
    let (_, _, starts, ends) =
        breakdown_request(&app.handle(special(KeyCode::Enter), NOW)).unwrap();
    assert_eq!(
        (starts, ends),
        (
            datetime!(2026-11-05 00:00 UTC),
            datetime!(2026-11-09 00:00 UTC)
        )
    );
}

#[test]
fn custom_ranges_parse_strictly() {
    use vantage::tui::screens::analytics::parse_range;
    assert!(parse_range("2026-01-01..2026-12-31").is_ok(), "365 dates");
    let too_long = parse_range("2025-01-01..2026-01-01").unwrap_err();
    assert!(too_long.contains("366"), "{too_long}");
    assert!(parse_range("2026-13-01..2026-12-31").is_err());
    assert!(parse_range("yesterday").is_err());
    assert_eq!(
        parse_range("2026-02-03").unwrap(),
        (
            time::macros::date!(2026 - 02 - 03),
            time::macros::date!(2026 - 02 - 03)
        )
    );
}

#[test]
fn analytics_explain_a_project_never_published_and_drop_stale_replies() {
    let mut app = app();
    with_inventory(&mut app, 2);
    let (first, ..) = breakdown_request(&app.handle(key('5'), NOW)).unwrap();
    // Another project selected before the reply: the reply is for the old one.
    app.handle(key('2'), NOW);
    app.handle(key('j'), NOW);
    let (second, project, ..) = breakdown_request(&app.handle(key('5'), NOW)).unwrap();
    assert_eq!(project, "prj_0001");
    app.handle(
        answer(
            analytics::BREAKDOWNS,
            first,
            Ok(breakdowns()),
            analytics::Msg::Breakdowns,
        ),
        NOW,
    );
    assert!(
        app.analytics.breakdowns.data.is_none(),
        "the old project's reply is dropped"
    );
    app.handle(
        answer(
            analytics::BREAKDOWNS,
            second,
            Err(error(
                Some(404),
                Some("analytics_not_found"),
                Some(Gate::FeatureOff("no analytics".into())),
            )),
            analytics::Msg::Breakdowns,
        ),
        NOW,
    );
    // What the 404 may mean, each cause named, none picked.
    let shown = text(&screen(&app, 120, 35));
    assert!(
        shown.contains("the project is not published, or it is gone"),
        "{shown}"
    );
}

#[test]
fn project_tabs_without_a_selection_offer_the_inventory() {
    let mut app = app();
    app.start(NOW);
    for tab in ['4', '5', '6'] {
        let effects = app.handle(key(tab), NOW);
        assert!(asked(&effects).is_empty(), "nothing to load on tab {tab}");
        assert!(text(&screen(&app, 120, 35)).contains("No project selected."));
    }
    app.handle(special(KeyCode::Enter), NOW);
    assert_eq!(
        app.tab,
        vantage::tui::nav::Tab::Inventory,
        "enter goes to the inventory"
    );
}

// --- Personal data -----------------------------------------------------------------

fn pii_page(range: std::ops::Range<usize>, more: bool) -> Page<PiiFinding> {
    let quotes = [
        "my email is jane.doe@example.com",
        "card 4111 1111 1111 1111 exp 12/29",
        "Customer: Maria Gonzalez, 12 Rue de Rivoli, Paris\nPhone: +33 1 23 45 67 89\u{1b}[2J",
    ];
    let statuses = ["open", "ignored", "fixed", "escalated"];
    let sources = ["chat", "code", "database"];
    serde_json::from_value(json!({
        "data": range.map(|n| json!({
            "id": format!("pii_{n:04}"),
            "found_at": vantage::api::model::format_timestamp(NOW - Duration::hours(7 * n as i64 + 3)),
            "quote": quotes[n % 3], "source": sources[n % 3], "status": statuses[n % 4],
        })).collect::<Vec<_>>(),
        "pagination": {"has_more": more, "next_cursor": if more { Some("more") } else { None }},
    }))
    .unwrap()
}

fn pii_requests(effects: &[Effect]) -> Vec<(u64, String, Option<String>)> {
    asked(effects)
        .into_iter()
        .filter_map(|fetch| {
            let ListPii {
                project_id, cursor, ..
            } = fetch.operation::<ListPii>()?.clone();
            Some((fetch.token, project_id, cursor))
        })
        .collect()
}

#[test]
fn personal_data_pages_load_before_the_end_and_stale_pages_are_dropped() {
    let mut app = app();
    with_inventory(&mut app, 2);
    let (token, project, cursor) = pii_requests(&app.handle(key('6'), NOW)).remove(0);
    assert_eq!((project.as_str(), cursor), ("prj_0000", None));
    let effects = app.handle(
        answer(pii::PAGE, token, Ok(pii_page(0..100, true)), pii::Msg::Page),
        NOW,
    );
    assert!(pii_requests(&effects).is_empty());
    let mut asked = None;
    for step in 0..100 {
        if let Some(request) = pii_requests(&app.handle(key('j'), NOW)).pop() {
            asked = Some((step, request));
            break;
        }
    }
    let (step, (next, _, cursor)) = asked.expect("the next page is asked for");
    assert!(step < 90, "asked at row {step}, well before the end");
    assert_eq!(cursor.as_deref(), Some("more"));
    assert!(
        pii_requests(&app.handle(key('j'), NOW)).is_empty(),
        "one page at a time"
    );
    // Refresh replaces the request; the older page then arrives and is dropped.
    let (fresh, ..) = pii_requests(&app.handle(key('r'), NOW)).remove(0);
    app.handle(
        answer(
            pii::PAGE,
            next,
            Ok(pii_page(100..200, false)),
            pii::Msg::Page,
        ),
        NOW,
    );
    assert!(app.pii.list.rows.is_empty());
    app.handle(
        answer(pii::PAGE, fresh, Ok(pii_page(0..3, false)), pii::Msg::Page),
        NOW,
    );
    assert_eq!(app.pii.list.rows.len(), 3);
}

#[test]
fn personal_data_gates_explain_what_is_needed() {
    for (status, kind, gate, expected) in [
        (
            404,
            "pii_labels_not_found",
            Gate::FeatureOff("personal-data detection".into()),
            "detection is off for this workspace, or the project is gone",
        ),
        (
            402,
            "payment_required",
            Gate::Plan("enterprise".into()),
            "need the Enterprise plan",
        ),
    ] {
        let mut app = app();
        with_inventory(&mut app, 1);
        let (token, ..) = pii_requests(&app.handle(key('6'), NOW)).remove(0);
        app.handle(
            answer(
                pii::PAGE,
                token,
                Err(error(Some(status), Some(kind), Some(gate))),
                pii::Msg::Page,
            ),
            NOW,
        );
        let drawn = text(&screen(&app, 120, 35));
        assert!(drawn.contains(expected), "{drawn}");
        assert!(
            drawn.contains("a workspace owner can turn it on"),
            "{drawn}"
        );
    }
}

// --- Snapshots ---------------------------------------------------------------------

fn members_snapshot_app(width: u16, height: u16) -> App {
    let mut app = app();
    let first = open_members(&mut app, width, height, 40);
    // Ten details answered, member 2 no longer active; the rest still loading.
    answer_details(&mut app, first, 10, |id| {
        if id == user_id(2) {
            Err(error(Some(404), Some("member_not_found"), None))
        } else {
            Ok(member(id))
        }
    });
    app
}

fn monitor_snapshot_app() -> App {
    let mut app = app();
    let first = open_monitor(&mut app);
    app.handle(
        answer(
            monitor::REALTIME.lane(first.0),
            first.1,
            Ok(realtime(datetime!(2026-11-22 11:59 UTC), 1234)),
            monitor::Msg::Realtime,
        ),
        NOW,
    );
    app
}

fn analytics_snapshot_app() -> App {
    let mut app = app();
    with_inventory(&mut app, 2);
    let (token, ..) = breakdown_request(&app.handle(key('5'), NOW)).unwrap();
    app.handle(
        answer(
            analytics::BREAKDOWNS,
            token,
            Ok(breakdowns()),
            analytics::Msg::Breakdowns,
        ),
        NOW,
    );
    app
}

fn pii_snapshot_app() -> App {
    let mut app = app();
    with_inventory(&mut app, 2);
    let (token, ..) = pii_requests(&app.handle(key('6'), NOW)).remove(0);
    app.handle(
        answer(pii::PAGE, token, Ok(pii_page(0..12, true)), pii::Msg::Page),
        NOW,
    );
    // The third finding: a quote over two lines, with an escape sequence removed.
    app.handle(key('j'), NOW);
    app.handle(key('j'), NOW);
    app
}

#[test]
fn snapshot_members() {
    for (width, height) in [(120, 35), (80, 24)] {
        let app = members_snapshot_app(width, height);
        insta::assert_snapshot!(
            format!("members_{width}x{height}"),
            drawn(&app, width, height, NOW).body()
        );
    }
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
                Ok(realtime(
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
fn snapshot_analytics() {
    for (width, height) in [(120, 35), (80, 24)] {
        let app = analytics_snapshot_app();
        insta::assert_snapshot!(
            format!("analytics_{width}x{height}"),
            drawn(&app, width, height, NOW).body()
        );
    }
}

#[test]
fn snapshot_personal_data() {
    for (width, height) in [(120, 35), (80, 24)] {
        let app = pii_snapshot_app();
        insta::assert_snapshot!(
            format!("personal_data_{width}x{height}"),
            drawn(&app, width, height, NOW).body()
        );
    }
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
                Ok(realtime(NOW, 17)),
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
