//! The exporter's poller on the injected clock: watched projects that are
//! missing or never published rest between checks (issue 28, part 2, item
//! 5), and a long inventory walk leaves insights and realtime their interval
//! (item 6).

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use time::OffsetDateTime;
use tokio::sync::watch;
use vantage::api::{ApiKey, Client, ClientConfig, ClientEvent};
use vantage::clock::Clock;
use vantage::exporter::poller::Poller;
use vantage::exporter::standing::Problem;
use vantage::exporter::{Budget, Cache, PollPlan, Source};
use vantage::server::seed::{self, GenerateSpec};
use vantage::server::{ServerConfig, start};

use crate::common::*;

const INTERVAL: Duration = Duration::from_secs(60);

fn plan(workspace: &str, watch: Vec<String>, inventory: Option<Duration>) -> PollPlan {
    PollPlan {
        workspace: workspace.to_owned(),
        watch,
        interval: INTERVAL,
        inventory_interval: inventory,
        names_interval: Duration::from_secs(600),
        budget: Budget::default(),
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn missing_and_unpublished_watched_projects_are_asked_every_five_minutes() {
    let (server, clock) = demo_server().await;
    let fixture = demo();
    let project = |published: bool| {
        fixture
            .projects
            .iter()
            .find(|p| p.wire.workspace_id == ENTERPRISE_WS && p.wire.is_published == published)
            .map(|p| p.wire.id.clone())
            .expect("a project")
    };
    let (published, unpublished) = (project(true), project(false));
    let watch = vec![
        published.clone(),
        "prj_missing".to_owned(),
        unpublished.clone(),
    ];
    let client = Client::new(ClientConfig::new(
        server.base_url(),
        ApiKey::new(ENTERPRISE_ADMIN).expect("key"),
    ))
    .expect("client");
    let cache = Cache::default();
    let (cycles, _) = watch::channel(0);
    let plan = plan(ENTERPRISE_WS, watch, None);
    let mut poller = Poller::new(client, plan, cache.clone(), clock.clone(), cycles);

    let mut deltas = Vec::new();
    let mut sent = 0;
    for minute in 0..10 {
        if minute > 0 {
            clock.advance(time::Duration::minutes(1));
        }
        poller.cycle().await;
        let now = cache.snapshot().client.requests();
        deltas.push(now - sent);
        sent = now;
    }
    // First: insights, three names, realtime of the two that have a name
    // (the missing one rests already). Then insights and the published
    // project's realtime each minute; at 5 minutes the two are asked again.
    assert_eq!(deltas, [6, 2, 2, 2, 2, 4, 2, 2, 2, 2]);
    // Each is a series, not only a line in the log (issue 36, item 7).
    let served =
        vantage::exporter::http::Served::single(ENTERPRISE_WS.into(), cache.clone(), clock.clone());
    let scrape = vantage::exporter::http::render(&served, vantage::exporter::Format::Text004)
        .expect("renders");
    for line in [
        "vantage_watched_project_problem{project=\"prj_missing\",problem=\"not_found\"} 1"
            .to_owned(),
        format!(
            "vantage_watched_project_problem{{project=\"{unpublished}\",problem=\"never_published\"}} 1"
        ),
    ] {
        assert!(
            scrape.lines().any(|l| l == line),
            "no {line:?} in\n{scrape}"
        );
    }
    assert!(
        !scrape.contains(&format!("project=\"{published}\",problem")),
        "{scrape}"
    );
    let snapshot = cache.snapshot();
    assert_eq!(
        snapshot.watch_problems.clone(),
        BTreeMap::from([
            ("prj_missing".to_owned(), Problem::NotFound),
            (unpublished, Problem::NeverPublished),
        ])
    );
    // The service answered: the sources are up.
    assert!(snapshot.up(Source::Realtime) && snapshot.up(Source::Project));
    assert!(
        snapshot.watched[&published].current_visitors.is_some(),
        "the published one is reported"
    );
    server.stop().await;
}

/// A workspace of 1,000 projects (10 inventory pages), a service that takes
/// 10 s per request on the injected clock, and the poller run as `run` runs
/// it (a tick per interval; a cycle that overruns delays the next).
#[tokio::test(flavor = "multi_thread")]
async fn a_long_inventory_walk_leaves_insights_their_interval() {
    let anchor = seed::today_anchor(T0);
    let fixture = seed::generate(
        GenerateSpec {
            projects: 1_000,
            members: 20,
            seed: 7,
        },
        anchor,
    );
    let key = fixture
        .keys
        .iter()
        .find(|key| key.label == "enterprise-admin")
        .map(|key| key.key.clone())
        .expect("an enterprise-admin key");
    let workspace = fixture.workspaces[0].id.clone();
    let watched = fixture
        .projects
        .iter()
        .find(|p| p.wire.workspace_id == workspace && p.wire.is_published)
        .map(|p| p.wire.id.clone())
        .expect("a published project");
    let clock = Clock::manual(T0);
    let mut config = ServerConfig::local(fixture);
    config.clock = clock.clone();
    let server = start(config).await.expect("server");
    let mut client_config = ClientConfig::new(server.base_url(), ApiKey::new(key).expect("key"));
    let latency = clock.clone();
    client_config.on_event = Some(Arc::new(move |event: &ClientEvent| {
        if matches!(event, ClientEvent::RequestDone { .. }) {
            latency.advance(time::Duration::seconds(10));
        }
    }));
    let client = Client::new(client_config).expect("client");
    let cache = Cache::default();
    let (cycles, _) = watch::channel(0);
    let plan = plan(&workspace, vec![watched], Some(Duration::from_secs(600)));
    let mut poller = Poller::new(client, plan, cache.clone(), clock.clone(), cycles);

    let mut insights_at: Vec<OffsetDateTime> = Vec::new();
    let mut inventory_after = None;
    let mut tick = T0;
    for cycle in 1..=5 {
        let now = clock.now();
        if now < tick {
            clock.advance(tick - now);
        }
        tick = clock.now() + INTERVAL;
        poller.cycle().await;
        let snapshot = cache.snapshot();
        insights_at.push(snapshot.fetched_at[&Source::Insights]);
        if inventory_after.is_none() && snapshot.inventory.is_some() {
            inventory_after = Some(cycle);
        }
    }
    let gaps: Vec<i64> = insights_at
        .windows(2)
        .map(|pair| (pair[1] - pair[0]).whole_seconds())
        .collect();
    assert!(
        gaps.iter().all(|gap| *gap <= 60),
        "insights polled at gaps of {gaps:?} s during the walk"
    );
    let tally = cache.snapshot().inventory.expect("the walk finished");
    assert_eq!(tally.projects, 1_000);
    // 10 pages at 10 s, beside 2 or 3 requests of frequent polls a minute.
    assert_eq!(inventory_after, Some(3), "{gaps:?}");
    server.stop().await;
}
