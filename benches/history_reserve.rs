//! The dashboard's background snapshot on first launch against 5,000 projects
//! at the service's default rate limit (120 requests a minute): the lowest
//! the rate window went during the walk, against the reserve the user's own
//! actions keep, and the requests and time the walk took. Run:
//! `cargo bench --bench history_reserve` (or `cargo test --bench
//! history_reserve`: the figures are the same, as time is a manual clock).
//!
//! The client and the in-process reference server share a manual clock: the
//! walk's waits for the window move it at once, so the run takes seconds while
//! the figures are those of minutes at the real limit.

use std::sync::Arc;

use vantage::api::{ApiKey, Client, ClientConfig, ClientEvent, ManualSleeper};
use vantage::clock::Clock;
use vantage::history::HistoryConfig;
use vantage::server::seed::{self, GenerateSpec};
use vantage::server::{ServerConfig, start};
use vantage::tui::request::Operation;
use vantage::tui::review::ops::TakeSnapshot;
use vantage::tui::services::ClientServices;
use vantage::tui::services::ServiceSource;
use vantage::tui::services::{HistoryAccess, WithHistory};
use vantage::tui::vocab::SnapshotOutcome;

const PROJECTS: usize = 5_000;
const MEMBERS: usize = 500;

#[tokio::main]
async fn main() {
    let start_at = time::macros::datetime!(2026-11-22 12:00 UTC);
    let clock = Clock::manual(start_at);
    let fixture = seed::generate(
        GenerateSpec {
            projects: PROJECTS,
            members: MEMBERS,
            seed: 1,
        },
        start_at,
    );
    let workspace = fixture.workspaces[0].id.clone();
    let key = fixture
        .keys
        .iter()
        .find(|k| k.label == "enterprise-admin")
        .map(|k| k.key.clone())
        .expect("generated keys");
    let mut config = ServerConfig::local(fixture);
    // The service's default: 120 requests a minute.
    config.clock = clock.clone();
    let limit = config.rate_limit.limit;
    let server = start(config).await.expect("server starts");
    let sleeper = ManualSleeper::new(clock.clone());
    let mut client_config = ClientConfig::new(server.base_url(), ApiKey::new(key).expect("key"));
    client_config.sleeper = Arc::new(sleeper.clone());
    let client = Client::new(client_config).expect("client");
    let mut events = client.subscribe();
    let dir = tempfile::tempdir().expect("a temp dir");
    let executor = WithHistory::new(
        ClientServices {
            client: client.clone(),
            workspace_id: workspace,
            clock: clock.clone(),
        },
        HistoryAccess {
            location: vantage::history::HistoryLocation::File(dir.path().join("history.sqlite3")),
            config: HistoryConfig::default(),
            progress: None,
        },
    );
    let reply = TakeSnapshot.run(&executor.services()).await;
    let Ok(outcome) = reply else {
        panic!("the background snapshot failed: {reply:?}");
    };
    let SnapshotOutcome::Taken(info) = outcome else {
        panic!("not a snapshot");
    };
    let (mut lowest, mut requests, mut too_many) = (u32::MAX, 0u64, 0u64);
    while let Ok(event) = events.try_recv() {
        match event {
            ClientEvent::RateLimit(rate) => lowest = lowest.min(rate.remaining),
            ClientEvent::RequestDone { status, .. } => {
                requests += 1;
                too_many += u64::from(status == Some(429));
            }
            _ => {}
        }
    }
    let reserve = vantage::api::Reserve::DASHBOARD.kept(limit);
    let seconds = (clock.now() - start_at).as_seconds_f64();
    println!(
        "background snapshot of {} projects at {limit}/60: {requests} requests over {seconds:.0} s \
         (manual clock); the window's lowest {lowest}, the reserve {reserve}; {too_many} 429s",
        info.projects
    );
    println!(
        "{}",
        serde_json::json!({"case": "background", "projects": info.projects, "limit": limit,
            "reserve": reserve, "lowest_remaining": lowest, "requests": requests,
            "simulated_seconds": seconds, "too_many": too_many})
    );
    server.stop().await;
}
