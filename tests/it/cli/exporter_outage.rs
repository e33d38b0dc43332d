//! The exporter through an outage of the API (issue 36, items 1, 2 and 4): a
//! gate in front of the reference server closes and opens again, on the
//! injected clock. `/healthz` turns 503 as soon as a source has failed past
//! its interval, naming it; the inventory is up from its first page answered
//! (at start and after the outage), with its walk in progress as its own
//! metric; and the rate limit on show moves only with an answer.

use std::sync::Arc;
use std::time::Duration;

use tokio::net::{TcpListener, TcpStream};
use tokio::sync::watch;
use vantage::api::{ApiKey, Client, ClientConfig, ClientEvent, RetryPolicy};
use vantage::clock::Clock;
use vantage::exporter::http::{Format, Served, health, render};
use vantage::exporter::poller::Poller;
use vantage::exporter::{Budget, Cache, PollPlan};
use vantage::server::ratelimit::RateLimit;
use vantage::server::seed::{self, GenerateSpec};
use vantage::server::{RunningServer, ServerConfig, start};

use crate::common::*;

const INTERVAL: Duration = Duration::from_secs(60);

/// A TCP gate in front of `upstream`: while closed, new connections are
/// dropped and open ones cut, as when the service goes away.
struct Gate {
    url: String,
    open: watch::Sender<bool>,
}

impl Gate {
    async fn new(upstream: std::net::SocketAddr) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
        let url = format!("http://{}", listener.local_addr().expect("addr"));
        let (open, _) = watch::channel(true);
        let gate = open.clone();
        tokio::spawn(async move {
            while let Ok((mut inbound, _)) = listener.accept().await {
                let mut state = gate.subscribe();
                if !*state.borrow_and_update() {
                    continue;
                }
                tokio::spawn(async move {
                    let Ok(mut outbound) = TcpStream::connect(upstream).await else {
                        return;
                    };
                    tokio::select! {
                        _ = tokio::io::copy_bidirectional(&mut inbound, &mut outbound) => {}
                        _ = state.wait_for(|open| !*open) => {}
                    }
                });
            }
        });
        Self { url, open }
    }

    fn set_open(&self, open: bool) {
        self.open.send_replace(open);
    }
}

/// A poller of a 1,000-project workspace (10 inventory pages) through a
/// gate, whose every request takes 10 s on the injected clock, and what a
/// scrape and `/healthz` read from its cache.
struct Rig {
    server: RunningServer,
    gate: Gate,
    clock: Clock,
    poller: Poller,
    cache: Cache,
    served: Served,
    tick: time::OffsetDateTime,
}

impl Rig {
    async fn new() -> Self {
        let fixture = seed::generate(
            GenerateSpec {
                projects: 1_000,
                members: 20,
                seed: 7,
            },
            seed::today_anchor(T0),
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
        config.rate_limit = RateLimit {
            limit: 10_000,
            window: time::Duration::seconds(60),
        };
        let server = start(config).await.expect("server");
        let gate = Gate::new(server.addr).await;
        let mut client_config = ClientConfig::new(&gate.url, ApiKey::new(key).expect("key"));
        client_config.retry = RetryPolicy {
            max_attempts: 1,
            ..RetryPolicy::default()
        };
        let latency = clock.clone();
        client_config.on_event = Some(Arc::new(move |event: &ClientEvent| {
            if matches!(event, ClientEvent::RequestDone { .. }) {
                latency.advance(time::Duration::seconds(10));
            }
        }));
        let client = Client::new(client_config).expect("client");
        let cache = Cache::default();
        let (cycles, _) = watch::channel(0);
        let plan = PollPlan {
            workspace: workspace.clone(),
            watch: vec![watched],
            interval: INTERVAL,
            inventory_interval: Some(Duration::from_secs(600)),
            names_interval: Duration::from_secs(600),
            budget: Budget::default(),
        };
        let poller = Poller::new(client, plan, cache.clone(), clock.clone(), cycles);
        let served = Served::single(workspace, cache.clone(), clock.clone());
        Self {
            server,
            gate,
            clock,
            poller,
            cache,
            served,
            tick: T0,
        }
    }

    /// One cycle at its tick, as `Poller::run` runs them.
    async fn cycle(&mut self) {
        let now = self.clock.now();
        if now < self.tick {
            self.clock.advance(self.tick - now);
        }
        self.tick = self.clock.now() + INTERVAL;
        self.poller.cycle().await;
    }

    fn scrape(&self) -> String {
        render(&self.served, Format::Text004).expect("renders")
    }

    fn has(&self, line: &str) -> bool {
        self.scrape().lines().any(|l| l == line)
    }

    async fn stop(self) {
        self.server.stop().await;
    }
}

const INVENTORY_UP: &str = "vantage_up{source=\"inventory\"} 1";

#[tokio::test(flavor = "multi_thread")]
async fn the_inventory_is_up_from_its_first_page_at_start_and_after_an_outage() {
    let mut rig = Rig::new().await;
    rig.cycle().await;
    // The first walk yields to the next cycle after 3 of its 10 pages.
    assert!(rig.cache.snapshot().inventory.is_none(), "the walk runs on");
    assert!(rig.has(INVENTORY_UP), "{}", rig.scrape());
    assert!(
        rig.has("vantage_inventory_walk_pages 3"),
        "{}",
        rig.scrape()
    );
    let started = format!(
        "vantage_inventory_walk_start_timestamp_seconds {}.0",
        (T0 + time::Duration::seconds(30)).unix_timestamp()
    );
    assert!(rig.has(&started), "{}", rig.scrape());

    rig.gate.set_open(false);
    rig.cycle().await;
    assert!(
        rig.has("vantage_up{source=\"inventory\"} 0"),
        "{}",
        rig.scrape()
    );
    // Back: the walk's next page answered is enough, long before it ends.
    rig.gate.set_open(true);
    rig.cycle().await;
    assert!(rig.cache.snapshot().inventory.is_none(), "the walk runs on");
    assert!(rig.has(INVENTORY_UP), "{}", rig.scrape());
    // Insights and realtime, then 4 more pages in the minute.
    assert!(
        rig.has("vantage_inventory_walk_pages 7"),
        "{}",
        rig.scrape()
    );
    for _ in 0..3 {
        rig.cycle().await;
    }
    let snapshot = rig.cache.snapshot();
    assert_eq!(snapshot.inventory.expect("the walk ended").projects, 1_000);
    let scrape = rig.scrape();
    assert!(!scrape.contains("vantage_inventory_walk_pages"), "{scrape}");
    assert!(
        scrape.contains("vantage_inventory_walk_completed_timestamp_seconds "),
        "{scrape}"
    );
    rig.stop().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn healthz_is_503_naming_the_sources_down_past_their_interval() {
    let mut rig = Rig::new().await;
    rig.cycle().await;
    assert_eq!(health(&rig.served).0, 200, "{}", health(&rig.served).1);

    // Insights and realtime fail past their minute (two cycles); the
    // inventory, polled every 10 minutes, answered within its own.
    rig.gate.set_open(false);
    rig.cycle().await;
    rig.cycle().await;
    let (status, body) = health(&rig.served);
    assert_eq!(status, 503, "{body}");
    assert!(
        body.starts_with(
            "unhealthy: down: insights, realtime; failing within their interval: inventory;"
        ),
        "{body}"
    );

    rig.gate.set_open(true);
    rig.cycle().await;
    let (status, body) = health(&rig.served);
    assert_eq!(status, 200, "{body}");
    assert!(body.starts_with("ok: all sources up;"), "{body}");
    rig.stop().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn the_rate_limit_on_show_moves_only_with_an_answer() {
    let mut rig = Rig::new().await;
    rig.cycle().await;
    let remaining = |rig: &Rig| {
        rig.scrape()
            .lines()
            .find(|line| line.starts_with("vantage_rate_limit_remaining "))
            .map(str::to_owned)
            .unwrap_or_else(|| panic!("no rate limit in\n{}", rig.scrape()))
    };
    let seen = remaining(&rig);
    rig.gate.set_open(false);
    for _ in 0..3 {
        rig.cycle().await;
    }
    assert_eq!(remaining(&rig), seen, "attempts without an answer moved it");
    rig.stop().await;
}
