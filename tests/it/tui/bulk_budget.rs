//! A bulk change over 100 marked projects, through the real client against the
//! reference server at the default budget of 120 requests a minute: one change
//! at a time, every one ok, and not a single 429.

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use vantage::api::{ApiKey, Client, ClientConfig, ClientEvent};
use vantage::server::seed::{GenerateSpec, generate};
use vantage::tui::app::{App, Identity, Msg};
use vantage::tui::effect::Effect;
use vantage::tui::screens::inventory::{self, bulk::RowOutcome};
use vantage::tui::services::ClientServices;
use vantage::tui::services::ServiceSource;
use vantage::tui::theme::{ColorDepth, ThemeName};

use crate::common::{self, T0};
use crate::tui::support::asked_in;

#[tokio::test]
async fn a_bulk_change_of_100_projects_fits_the_budget_without_a_429() {
    let fixture = generate(
        GenerateSpec {
            projects: 100,
            members: 5,
            seed: 7,
        },
        T0,
    );
    let workspace = fixture.workspaces[0].id.clone();
    let key = fixture
        .keys
        .iter()
        .find(|key| key.label == "enterprise-admin")
        .map(|key| key.key.clone())
        .unwrap();
    // The default budget: 120 requests a minute per key.
    let (server, clock) = common::server_with(|config| config.fixture = fixture).await;
    let client = Client::new(ClientConfig::new(
        server.base_url(),
        ApiKey::new(&key).unwrap(),
    ))
    .unwrap();
    let mut events = client.subscribe();
    let executor = ClientServices {
        client,
        workspace_id: workspace.clone(),
        clock,
    };
    let identity = Identity {
        workspace: workspace.clone(),
        workspace_id: workspace.clone(),
        plan: None,
        api_version: "2026-09-11".into(),
        read_only: false,
    };
    let mut app = App::new(
        identity,
        crate::tui::support::settings(ThemeName::Dark, ColorDepth::None),
    );
    let mut effects = app.start(T0);
    let mut bulk_in_flight_max = 0;
    let keys = ["2", "A", "v", "j", "\r", "y"];
    for key in keys {
        run(&mut app, &executor, &mut effects, &mut bulk_in_flight_max).await;
        let code = match key {
            "\r" => KeyCode::Enter,
            other => KeyCode::Char(other.chars().next().unwrap()),
        };
        effects = app.handle(Msg::Key(KeyEvent::new(code, KeyModifiers::NONE)), T0);
    }
    run(&mut app, &executor, &mut effects, &mut bulk_in_flight_max).await;

    let results = app.inventory.bulk.results();
    assert_eq!(results.len(), 100, "every row was marked");
    assert!(
        results
            .iter()
            .all(|(_, outcome)| *outcome == RowOutcome::Ok)
    );
    assert_eq!(bulk_in_flight_max, 1, "one change at a time");
    let mut statuses = Vec::new();
    while let Ok(event) = events.try_recv() {
        if let ClientEvent::RequestDone { status, .. } = event {
            statuses.push(status);
        }
    }
    assert!(statuses.len() >= 100, "{} requests", statuses.len());
    assert!(
        !statuses.contains(&Some(429)),
        "a 429 among {} requests",
        statuses.len()
    );
}

/// Carries out fetches until none is left, as the runtime would, counting the
/// bulk changes asked for at once.
async fn run(
    app: &mut App,
    executor: &ClientServices,
    effects: &mut Vec<Effect>,
    bulk_in_flight_max: &mut usize,
) {
    while !effects.is_empty() {
        let in_flight = asked_in(effects, inventory::BULK).len();
        *bulk_in_flight_max = (*bulk_in_flight_max).max(in_flight);
        let effect = effects.remove(0);
        if let Effect::Fetch { slot, token, job } = effect {
            let answer = job.run(slot, token, executor.services()).await;
            effects.extend(app.handle(Msg::Answer(answer), T0));
        }
    }
}
