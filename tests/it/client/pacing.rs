//! Pacing against the reference server's real sliding-window limit with
//! injected latency, so answers cross and requests are cut while in flight
//! (issue 35: item 18's 429s at first launch, and the user's request starved
//! by background work). The client's sleeper moves the server's clock: a wait
//! for the window costs no real time; only the latency is real.

use std::sync::Arc;
use std::time::Duration;

use vantage::api::{Client, ClientEvent, Sleeper};
use vantage::history::walk::{self, WalkOptions};
use vantage::server::RunningServer;
use vantage::server::ratelimit::RateLimit;

use crate::client::support::{Attempt, client};
use crate::common::*;

fn acme_projects(count: usize) -> Vec<String> {
    demo()
        .projects
        .iter()
        .filter(|p| p.wire.workspace_id == ENTERPRISE_WS)
        .take(count)
        .map(|p| p.wire.id.clone())
        .collect()
}

fn acme_members() -> Vec<String> {
    demo()
        .memberships
        .iter()
        .filter(|m| m.workspace_id == ENTERPRISE_WS && m.status == "active")
        .map(|m| m.user_id.clone())
        .collect()
}

/// The dashboard's reserve: a tenth of the limit, at least 2.
const RESERVE: vantage::api::Reserve = vantage::api::Reserve::DASHBOARD;

/// Waits (in real time: the latency is real) until the server has received
/// `count` requests since the start; each was counted by its rate limit
/// before the pipeline first awaited.
async fn until_received(server: &RunningServer, count: u64) {
    while server.app.requests_received() < count {
        tokio::task::yield_now().await;
        tokio::time::sleep(Duration::from_millis(1)).await;
    }
}

fn refused(attempts: &[Attempt]) -> Vec<&Attempt> {
    attempts.iter().filter(|a| a.status == Some(429)).collect()
}

/// Issue 35, item 18: the dashboard aborts the older request of a slot when
/// a newer one is asked (a page, a detail). Under latency such a request has
/// already reached the service and been counted; giving its slot back made
/// the pacer believe in requests the window no longer had, and the next burst
/// met 429s.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn requests_cut_in_flight_still_count_against_the_limit() {
    let (server, clock) = server_with(|config| {
        config.rate_limit = RateLimit {
            limit: 10,
            window: time::Duration::seconds(60),
        };
        config.faults = "latency=300..600ms,seed=3".parse().unwrap();
    })
    .await;
    let harness = client(&server, &clock, ENTERPRISE_ADMIN, |_| {});
    let ids = acme_projects(10);
    // Learn the window: 9 left.
    harness.client.get_project(&ids[0]).await.unwrap();
    // Four reads the dashboard gives up on while they travel.
    let cut: Vec<_> = ids[1..5]
        .iter()
        .map(|id| {
            let client = harness.client.clone();
            let id = id.clone();
            tokio::spawn(async move { client.get_project(&id).await })
        })
        .collect();
    until_received(&server, 5).await;
    for task in &cut {
        task.abort();
    }
    for task in cut {
        assert!(task.await.unwrap_err().is_cancelled());
    }
    // Five are left in the window, not nine: a burst of nine must wait for
    // the window to move rather than meet the limit.
    let burst = ids[1..10].iter().map(|id| harness.client.get_project(id));
    futures::future::try_join_all(burst).await.unwrap();
    let attempts = harness.attempts();
    assert!(refused(&attempts).is_empty(), "{:#?}", refused(&attempts));
}

/// A sleeper whose waits never end: once background work waits for the
/// window, the window stays full (the clock stands still), so whoever asks
/// next finds exactly what background work left.
#[derive(Debug)]
struct Frozen(vantage::clock::Clock);

impl Sleeper for Frozen {
    fn now(&self) -> time::OffsetDateTime {
        self.0.now()
    }

    fn sleep(&self, _: Duration) -> std::pin::Pin<Box<dyn Future<Output = ()> + Send>> {
        Box::pin(std::future::pending())
    }
}

/// The waits for the window of the user's own requests.
fn user_waits(events: &[ClientEvent]) -> Vec<&ClientEvent> {
    events
        .iter()
        .filter(|event| {
            matches!(
                event,
                ClientEvent::Paced {
                    background: false,
                    ..
                }
            )
        })
        .collect()
}

/// Issue 35: a background snapshot and member details read in the
/// background fill the window until they wait for it; the user's own request
/// still goes at once (no wait, no 429), because background work leaves the
/// reserve. Before, it waited behind them ("Loading projects…" for > 15 s).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn background_work_leaves_the_reserve_to_the_users_request() {
    let (server, clock) = server_with(|config| {
        config.rate_limit = RateLimit {
            limit: 20,
            window: time::Duration::seconds(60),
        };
        config.faults = "latency=20..120ms,seed=5".parse().unwrap();
    })
    .await;
    let frozen = Arc::new(Frozen(clock.clone()));
    let harness = client(&server, &clock, ENTERPRISE_ADMIN, |config| {
        config.sleeper = frozen;
    });
    let background = harness.client.in_background(RESERVE);
    // The first-launch snapshot, as the dashboard takes it.
    let walker = {
        let client = background.clone();
        let clock = clock.clone();
        tokio::spawn(async move {
            let options = WalkOptions {
                detail_requests: 40,
                window: Duration::from_secs(60),
                reserve: Some(RESERVE),
            };
            walk::capture(
                &client,
                ENTERPRISE_WS,
                None,
                options,
                || clock.now(),
                |_| {},
            )
            .await
        })
    };
    // Four lanes of member details, as the Members screen asks for the rows
    // on screen.
    let members = acme_members();
    let lanes: Vec<_> = (0..4)
        .map(|lane| {
            let client: Client = background.clone();
            let members = members.clone();
            tokio::spawn(async move {
                for user_id in members.iter().cycle().skip(lane) {
                    client.get_member(ENTERPRISE_WS, user_id).await.unwrap();
                }
            })
        })
        .collect();
    // Background work waits for the window.
    while !harness.events().iter().any(|event| {
        matches!(
            event,
            ClientEvent::Paced {
                background: true,
                ..
            }
        )
    }) {
        tokio::time::sleep(Duration::from_millis(1)).await;
    }
    let user = harness.client.get_workspace(ENTERPRISE_WS);
    let mut user = std::pin::pin!(user);
    let answered = loop {
        tokio::select! {
            answered = &mut user => break Some(answered),
            () = tokio::time::sleep(Duration::from_millis(1)) => {
                if !user_waits(&harness.events()).is_empty() {
                    break None;
                }
            }
        }
    };
    for task in lanes {
        task.abort();
    }
    walker.abort();
    let attempts = harness.attempts();
    assert!(refused(&attempts).is_empty(), "{:#?}", refused(&attempts));
    let rate = harness.client.rate_limit_state();
    answered
        .unwrap_or_else(|| {
            panic!("the user's request waits for the window; the pacer holds {rate:?}")
        })
        .unwrap();
}
