//! The walk's small defect: the Members screen's detail reads for the rows
//! on screen are fills, and went on the user's lane, spending the reserve
//! kept for what the user does next. A fill is background work (it waits
//! for the window, as the snapshot's walk does); the selected member's read
//! is the user's own look.

use std::sync::Arc;

use serde_json::json;
use time::Duration;
use vantage::api::{ApiKey, Client, ClientConfig, ManualSleeper, MemberListParams};
use vantage::server::ratelimit::RateLimit;
use vantage::tui::app::App;
use vantage::tui::ops::{GetMember, ListMembers};
use vantage::tui::request::Operation;
use vantage::tui::screens::members;
use vantage::tui::services::{ClientServices, ServiceSource};

use crate::common::{self, ENTERPRISE_ADMIN, ENTERPRISE_WS};
use crate::tui::members::member_page;
use crate::tui::support::{Fetch, answer, app, asked_in, drawn, key, only};
use crate::tui::support::{NOW, screen, text};

#[test]
fn the_rows_on_screen_are_filled_in_the_background_the_selected_one_is_the_users() {
    let mut app = app();
    app.start(NOW);
    let effects = app.handle(key('3'), NOW);
    let first = only(&effects, members::PAGE);
    screen(&app, 120, 35);
    let effects = app.handle(
        answer(
            members::PAGE,
            first.token,
            Ok(member_page(0..10, false)),
            members::Msg::Page,
        ),
        NOW,
    );
    let selected = app.members.selected_ref().unwrap().user_id.clone();
    let asked: Vec<(String, bool)> = asked_in(&effects, members::DETAIL)
        .into_iter()
        .map(|fetch| {
            let read = fetch.op::<GetMember>();
            (read.user_id.clone(), read.fill)
        })
        .collect();
    assert_eq!(asked.len(), members::DETAIL_LANES, "{asked:?}");
    for (user_id, fill) in &asked {
        assert_eq!(*fill, *user_id != selected, "{user_id}: {asked:?}");
    }
}

/// A fill waits for the window rather than spend the reserve; the user's
/// own read spends it.
#[tokio::test]
async fn a_fill_waits_for_the_window_at_the_reserve_and_the_users_read_does_not() {
    let (server, clock) = common::server_with(|config| {
        config.rate_limit = RateLimit {
            limit: 4,
            window: Duration::seconds(60),
        };
    })
    .await;
    let sleeper = ManualSleeper::new(clock.clone());
    let mut config = ClientConfig::new(server.base_url(), ApiKey::new(ENTERPRISE_ADMIN).unwrap());
    config.sleeper = Arc::new(sleeper.clone());
    let client = Client::new(config).unwrap();
    let listed = client
        .list_members(ENTERPRISE_WS, &MemberListParams::default(), None)
        .await
        .unwrap();
    let user_id = listed.data[0].user_id.clone();
    let services = ClientServices {
        client,
        workspace_id: ENTERPRISE_WS.into(),
        clock,
    }
    .services();
    let read = |fill| GetMember {
        user_id: user_id.clone(),
        fill,
    };
    // 3 of 4 left, then 2: the reserve of a limit of 4 is 2.
    read(false).run(&services).await.unwrap();
    assert!(sleeper.sleeps().is_empty());
    read(false).run(&services).await.unwrap();
    assert!(
        sleeper.sleeps().is_empty(),
        "the user's own read spends the reserve"
    );
    read(true).run(&services).await.unwrap();
    assert!(
        !sleeper.sleeps().is_empty(),
        "a fill at the reserve waits for the window"
    );
    server.stop().await;
}

// --- Roles, listed for the rows on screen (issue 24) -------------------------

/// A page of member references: the users `ids`, and whether more follow.
fn members_of(
    ids: &[usize],
    more: bool,
) -> vantage::api::model::Page<vantage::api::model::MemberRef> {
    serde_json::from_value(json!({
        "data": ids.iter().map(|n| json!({"user_id": crate::tui::members::user_id(*n), "type": "user"})).collect::<Vec<_>>(),
        "pagination": {"has_more": more, "next_cursor": if more { Some("more") } else { None }},
    }))
    .unwrap()
}

/// Members (`3`) drawn, its first page answered with the users `ids`: the
/// effects of that answer.
fn members_on_screen(app: &mut App, ids: &[usize]) -> Vec<vantage::tui::effect::Effect> {
    app.start(NOW);
    let effects = app.handle(key('3'), NOW);
    let token = asked_in(&effects, members::PAGE)
        .pop()
        .expect("the first page")
        .token;
    screen(app, 120, 35);
    app.handle(
        answer(
            members::PAGE,
            token,
            Ok(members_of(ids, false)),
            members::Msg::Page,
        ),
        NOW,
    )
}

#[test]
fn members_roles_are_filled_for_the_rows_on_screen_one_listing_per_role() {
    use vantage::api::model::Role;
    let mut app = app();
    let mut effects = members_on_screen(&mut app, &[0, 1, 2]);
    // Owners, then admins (two pages of them), then members: each listing
    // answers until every row on screen knows its role, and no further.
    let answers: [(Role, &[usize], bool); 4] = [
        (Role::Owner, &[0], false),
        (Role::Admin, &[7], true),
        (Role::Admin, &[1], false),
        (Role::Member, &[2, 9], false),
    ];
    for (role, ids, more) in answers {
        let listing = asked_in(&effects, members::ROLES)
            .pop()
            .unwrap_or_else(|| panic!("a listing of {role:?}"));
        let (token, params) = (listing.token, &listing.op::<ListMembers>().params);
        assert_eq!(params.role, vec![role]);
        assert_eq!(params.limit, Some(100));
        effects = app.handle(
            answer(
                members::ROLES,
                token,
                Ok(members_of(ids, more)),
                members::Msg::Roles,
            ),
            NOW,
        );
    }
    assert!(
        asked_in(&effects, members::ROLES).is_empty(),
        "every row on screen knows its role: no more listings"
    );
    assert_eq!(app.members.role_walk.requests, 4);
    let shown = text(&screen(&app, 120, 35));
    for role in ["owner", "admin", "member"] {
        assert!(shown.contains(role), "{role}: {shown}");
    }
}

#[test]
fn a_role_no_listing_found_is_shown_as_unknown() {
    let mut app = app();
    let mut effects = members_on_screen(&mut app, &[0]);
    // Every role is listed; none holds the member (it left meanwhile).
    while let Some(Fetch { token, .. }) = asked_in(&effects, members::ROLES).pop() {
        effects = app.handle(
            answer(
                members::ROLES,
                token,
                Ok(members_of(&[], false)),
                members::Msg::Roles,
            ),
            NOW,
        );
    }
    assert_eq!(app.members.role_walk.requests, 5, "one listing per role");
    let shown = text(&screen(&app, 120, 35));
    assert!(shown.contains("unknown"), "{shown}");
}

#[test]
fn members_learn_roles_from_a_role_filter_and_show_a_dash_until_known() {
    use vantage::api::model::{MemberRef, Page, Role};
    let mut app = app();
    app.start(NOW);
    let members = |ids: &[&str]| -> Page<MemberRef> {
        serde_json::from_value(json!({
            "data": ids.iter().map(|id| json!({"user_id": id, "type": "user"})).collect::<Vec<_>>(),
            "pagination": {"has_more": false, "next_cursor": null}
        }))
        .unwrap()
    };
    let effects = app.handle(key('3'), NOW);
    let first = only(&effects, members::PAGE);
    app.handle(first.ok(members(&["u1", "u2"])), NOW);
    assert!(app.members.known_roles.is_empty());
    let screen = drawn(&app, 120, 35, NOW).full();
    assert!(screen.contains("Role"), "{screen}");
    // Filtered by one role, every row has it.
    app.members.roles = vec![Role::Admin];
    let effects = app.handle(key('r'), NOW);
    let token = only(&effects, members::PAGE).token;
    let page = members(&["u2"]);
    app.handle(
        answer(members::PAGE, token, Ok(page), members::Msg::Page),
        NOW,
    );
    assert_eq!(app.members.known_roles.get("u2"), Some(&Role::Admin));
    assert_eq!(app.members.known_roles.get("u1"), None);
}
