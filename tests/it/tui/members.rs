//! The member directory (`screens/members`): details read lazily for the rows
//! on screen, a few at a time and paused in words while the request budget is
//! low; the role and SCIM filters from one checkbox menu with hotkeys, every
//! sort, the debounced search, `G` walking the pages; drawn on TestBackend.

// Replies are `Result<Reply, ErrorInfo>`, the app's own message type.
#![allow(clippy::result_large_err)]

use std::collections::HashSet;

use crossterm::event::KeyCode;
use serde_json::json;
use time::Duration;
use vantage::api::MemberListParams;
use vantage::api::model::{Member, MemberRef, MemberSortBy, Page, Role};
use vantage::tui::app::{App, Msg};
use vantage::tui::effect::{Effect, ErrorInfo};
use vantage::tui::screens::members::DETAIL_LANES;

use crate::tui::inventory_query::rate;
use crate::tui::support::{
    NOW, answer, app, asked, asked_in, drawn, error, key, only, screen, special, text,
};
use vantage::tui::ops::{GetMember, ListMembers};
use vantage::tui::screens::members;

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

fn member_params_asked(effects: &[Effect]) -> Option<MemberListParams> {
    asked(effects)
        .into_iter()
        .find_map(|fetch| Some(fetch.operation::<ListMembers>()?.params.clone()))
}

#[test]
fn member_roles_come_from_the_same_checkbox_menu() {
    let mut app = app();
    open_members(&mut app, 120, 35, 3);
    app.handle(key('t'), NOW);
    app.handle(key(' '), NOW);
    app.handle(key('j'), NOW);
    let both = app.handle(special(KeyCode::Enter), NOW);
    assert_eq!(
        member_params_asked(&both).map(|p| p.role),
        Some(vec![Role::KNOWN[0].clone(), Role::KNOWN[1].clone()])
    );
    let shown = text(&screen(&app, 80, 24));
    assert!(
        shown.contains("[x] role") && shown.contains("SCIM managed: any"),
        "{shown}"
    );
}

/// Issue 35, item 14: the members' sort and filter menus have hotkeys, as
/// the inventory's: one key chooses a sort or ticks a filter.
#[test]
fn member_menus_have_hotkeys_as_the_inventorys() {
    use vantage::api::model::MemberSortBy;

    let mut app = app();
    open_members(&mut app, 120, 35, 3);
    app.handle(key('s'), NOW);
    let shown = text(&screen(&app, 120, 35));
    assert!(
        shown.contains("n display_name"),
        "the hotkey is shown: {shown}"
    );
    let sorted = app.handle(key('n'), NOW);
    let params = member_params_asked(&sorted).expect("n sorts at once");
    assert_eq!(params.sort_by, Some(MemberSortBy::DisplayName));

    app.handle(key('t'), NOW);
    let admins = app.handle(key('a'), NOW);
    assert_eq!(
        member_params_asked(&admins).map(|p| p.role),
        Some(vec![Role::Admin])
    );
    let scim = app.handle(key('s'), NOW);
    assert_eq!(
        member_params_asked(&scim).and_then(|p| p.scim_managed),
        Some(true)
    );
}

#[test]
fn member_details_pause_in_words_while_the_budget_is_low_and_resume_when_it_refills() {
    let mut app = app();
    rate(&mut app, 100, 120);
    let first = open_members(&mut app, 120, 35, 100);
    assert!(!first.is_empty());
    // The budget drops to the reserve: answered details ask for no more.
    rate(&mut app, 8, 120);
    let mut asked = Vec::new();
    for detail in &first {
        asked.extend(answer_detail(&mut app, detail));
    }
    assert!(asked.is_empty(), "paused: {asked:?}");
    assert!(app.members.details_paused());
    insta::assert_snapshot!(
        "members_details_paused_120x35",
        drawn(&app, 120, 35, NOW).body()
    );
    // Scrolling asks only for the selected member's detail, one at a time:
    // the user's own look is what the reserve is for.
    for _ in 0..40 {
        let asked = detail_requests(&app.handle(key('j'), NOW));
        let selected = app.members.selected_ref().map(|row| row.user_id.clone());
        match asked.as_slice() {
            [] => {}
            [detail] => {
                assert_eq!(Some(&detail.2), selected.as_ref());
                let more = answer_detail(&mut app, detail);
                assert!(more.is_empty(), "no more while paused");
            }
            more => panic!("one at most while paused: {more:?}"),
        }
    }
    assert!(app.members.details_paused());
    // The last page of rows: only the selected one loads.
    let bottom = detail_requests(&app.handle(key('G'), NOW));
    assert_eq!(bottom.len(), 1);
    answer_detail(&mut app, &bottom[0]);
    // After a while, one detail reads the budget anew.
    let later = NOW + Duration::seconds(21);
    let probe = detail_requests(&app.handle(Msg::Wake, later));
    assert_eq!(probe.len(), 1, "one probe");
    // The budget refilled: fetching resumes at once, in every lane.
    rate(&mut app, 110, 120);
    assert!(!app.members.details_paused());
    screen(&app, 120, 35);
    let resumed = detail_requests(&app.handle(Msg::Wake, later));
    assert_eq!(resumed.len(), 3, "the three lanes beside the probe");
}

#[test]
fn capital_g_on_members_walks_the_pages_and_fetches_details_only_at_the_end() {
    let mut app = app();
    app.start(NOW);
    let effects = app.handle(key('3'), NOW);
    let token = only(&effects, members::PAGE).token;
    screen(&app, 120, 35);
    let first = app.handle(
        answer(
            members::PAGE,
            token,
            Ok(member_page(0..100, true)),
            members::Msg::Page,
        ),
        NOW,
    );
    // Answer the first screen's details, so every lane is free.
    let mut pending = detail_requests(&first);
    while let Some(detail) = pending.pop() {
        let more = answer_detail(&mut app, &detail);
        pending.extend(more);
    }
    assert_eq!(app.members.details_in_flight(), 0);
    let effects = app.handle(key('G'), NOW);
    let token = only(&effects, members::PAGE).token;
    let middle = app.handle(
        answer(
            members::PAGE,
            token,
            Ok(member_page(100..200, true)),
            members::Msg::Page,
        ),
        NOW,
    );
    assert!(detail_requests(&middle).is_empty(), "rows passing by");
    let token = only(&middle, members::PAGE).token;
    let last = app.handle(
        answer(
            members::PAGE,
            token,
            Ok(member_page(200..250, false)),
            members::Msg::Page,
        ),
        NOW,
    );
    assert_eq!(app.members.list.selected, 249);
    let asked: Vec<String> = detail_requests(&last)
        .into_iter()
        .map(|(_, _, id)| id)
        .collect();
    assert!(
        !asked.is_empty()
            && asked.iter().all(|id| app
                .members
                .visible_rows()
                .contains(&id[24..].parse().unwrap())),
        "the rows at the end: {asked:?}"
    );
}

#[test]
fn member_details_are_not_read_while_another_screen_is_shown() {
    let mut app = app();
    rate(&mut app, 100, 120);
    let first = open_members(&mut app, 120, 35, 100);
    assert!(!first.is_empty());
    // Away to the insights tab while details are in flight.
    app.handle(key('1'), NOW);
    for detail in &first {
        assert!(answer_detail(&mut app, detail).is_empty(), "off screen");
    }
    // A low budget, then a refill and a later wake: still nothing off screen.
    rate(&mut app, 8, 120);
    rate(&mut app, 110, 120);
    let later = NOW + Duration::seconds(30);
    assert!(detail_requests(&app.handle(Msg::Wake, later)).is_empty());
    assert!(!app.members.details_paused());
    // Back on Members, the rows on screen are read again.
    app.handle(key('3'), later);
    screen(&app, 120, 35);
    assert!(!detail_requests(&app.handle(Msg::Wake, later)).is_empty());
}

// --- Snapshots ---

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
