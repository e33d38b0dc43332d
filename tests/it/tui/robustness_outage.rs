//! The live monitor when the service goes away and comes back: the App with the
//! real executor and client against the reference server, stopped and started
//! again on the same port. The monitor shows the outage, retries on a growing
//! pause by itself and recovers without a key press. Time is a manual clock: the
//! test moves it to each deadline the App asks for, as the runtime would wait.

use crate::common;
use crate::tui::support::key;
use std::sync::Arc;
use time::OffsetDateTime;
use vantage::api::sleeper::ManualSleeper;
use vantage::api::{ApiKey, Client, ClientConfig};
use vantage::clock::Clock;
use vantage::server::{self, RunningServer, ServerConfig};
use vantage::tui::app::{App, Identity, Msg};
use vantage::tui::effect::Effect;
use vantage::tui::screens::monitor::MonitorScreen;
use vantage::tui::services::ClientServices;
use vantage::tui::services::ServiceSource;
use vantage::tui::theme::{ColorDepth, ThemeName};

async fn start_server(addr: std::net::SocketAddr) -> RunningServer {
    let mut config = ServerConfig::local(common::demo());
    config.addr = addr;
    config.clock = Clock::manual(common::T0);
    server::start(config).await.unwrap()
}

/// Carries out the effects as the runtime does, one request at a time, feeding
/// each reply back, until nothing more is asked.
async fn run_effects(
    app: &mut App,
    executor: &ClientServices,
    mut effects: Vec<Effect>,
    now: OffsetDateTime,
) {
    while let Some(effect) = effects.pop() {
        if let Effect::Fetch { slot, token, job } = effect {
            let answer = job.run(slot, token, executor.services()).await;
            effects.extend(app.handle(Msg::Answer(answer), now));
        }
    }
}

fn screen(app: &App, now: OffsetDateTime) -> String {
    let frame = crate::tui::support::drawn(app, 110, 30, now);
    let buffer = frame.buffer();
    let mut text = String::new();
    for y in 0..buffer.area.height {
        for x in 0..buffer.area.width {
            text.push_str(buffer[(x, y)].symbol());
        }
        text.push('\n');
    }
    text
}

/// Waits, as the runtime would, for the next deadline, and handles the wake-up.
async fn next_round(
    app: &mut App,
    executor: &ClientServices,
) -> (OffsetDateTime, time::Duration, String) {
    let from = executor.clock.now();
    let at = app
        .wake_at()
        .expect("the monitor waits for its next refresh");
    executor.clock.set(at);
    let effects = app.handle(Msg::Wake, at);
    assert!(!effects.is_empty(), "the wake-up asks for fresh data");
    run_effects(app, executor, effects, at).await;
    (at, at - from, screen(app, at))
}

#[tokio::test]
async fn the_monitor_shows_an_outage_retries_and_recovers_by_itself() {
    let server = start_server("127.0.0.1:0".parse().unwrap()).await;
    let addr = server.addr;
    let clock = Clock::manual(common::T0);
    let mut config = ClientConfig::new(
        server.base_url(),
        ApiKey::new(common::ENTERPRISE_ADMIN).unwrap(),
    );
    // The client's own retries pass instantly; the monitor's pauses are the test's.
    config.sleeper = Arc::new(ManualSleeper::new(Clock::manual(common::T0)));
    let executor = ClientServices {
        client: Client::new(config).unwrap(),
        workspace_id: common::ENTERPRISE_WS.into(),
        clock: clock.clone(),
    };
    let mut app = App::new(
        Identity {
            workspace: common::ENTERPRISE_WS.into(),
            workspace_id: common::ENTERPRISE_WS.into(),
            plan: None,
            api_version: "2026-09-11".into(),
            read_only: false,
        },
        crate::tui::support::settings(ThemeName::Dark, ColorDepth::None),
    );
    app.monitor = MonitorScreen::new(10);
    let now = clock.now();
    let effects = app.start(now);
    run_effects(&mut app, &executor, effects, now).await;
    // The monitor shows the project selected in the inventory.
    let effects = app.handle(key('2'), now);
    run_effects(&mut app, &executor, effects, now).await;
    // A published project: only those have visitors.
    while !app.inventory.selected_item().unwrap().is_published {
        let effects = app.handle(key('j'), now);
        run_effects(&mut app, &executor, effects, now).await;
    }
    let effects = app.handle(key('4'), now);
    run_effects(&mut app, &executor, effects, now).await;
    let has_live_data = |app: &App| {
        app.monitor
            .live
            .values()
            .any(|live| live.error.is_none() && !live.buckets.is_empty())
    };
    assert!(has_live_data(&app), "live data before the outage");
    let (_, pause, shown) = next_round(&mut app, &executor).await;
    assert_eq!(
        pause,
        time::Duration::seconds(10),
        "one interval while all is well"
    );
    assert!(!shown.contains("unreachable"), "{shown}");

    server.stop().await;
    let mut pauses = Vec::new();
    for _ in 0..3 {
        let (_, pause, shown) = next_round(&mut app, &executor).await;
        pauses.push(pause.whole_seconds());
        assert!(
            shown.contains("service unreachable") && shown.contains("retrying every"),
            "the outage is on screen:\n{shown}"
        );
        assert!(has_live_data(&app), "the last data stays on screen");
    }
    // The first failed round came after one interval; then the pause grows.
    assert_eq!(pauses, [10, 10, 20]);
    assert_eq!(app.monitor.failures, 3);
    assert_eq!(
        app.wake_at().unwrap() - clock.now(),
        time::Duration::seconds(40),
        "the next retry after a doubled pause"
    );

    let server = start_server(addr).await;
    let (_, pause, shown) = next_round(&mut app, &executor).await;
    assert_eq!(pause, time::Duration::seconds(40));
    assert_eq!(app.monitor.failures, 0, "recovered without a key press");
    assert!(
        !shown.contains("unreachable"),
        "the outage notice is gone:\n{shown}"
    );
    assert!(shown.contains("updated just now"), "{shown}");
    assert!(has_live_data(&app));
    assert_eq!(
        app.wake_at().unwrap() - clock.now(),
        time::Duration::seconds(10),
        "back to one interval"
    );
    server.stop().await;
}
