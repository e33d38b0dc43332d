//! The walk's small defect: the Members screen's detail reads for the rows
//! on screen are fills, and went on the user's lane, spending the reserve
//! kept for what the user does next. A fill is background work (it waits
//! for the window, as the snapshot's walk does); the selected member's read
//! is the user's own look.

use std::sync::Arc;

use time::Duration;
use vantage::api::{ApiKey, Client, ClientConfig, ManualSleeper, MemberListParams};
use vantage::server::ratelimit::RateLimit;
use vantage::tui::ops::GetMember;
use vantage::tui::request::Operation;
use vantage::tui::screens::members;
use vantage::tui::services::{ClientServices, ServiceSource};

use crate::common::{self, ENTERPRISE_ADMIN, ENTERPRISE_WS};
use crate::tui::screens::{NOW, member_page, screen};
use crate::tui::support::{answer, app, asked_in, key, only};

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
