//! The dashboard on the demo fixture, as `vantage demo` serves it: the
//! inventory and insights screens, the help, the themes and the smallest
//! terminals drawn on TestBackend, their data read through the real client
//! from the in-process reference server.

use crate::common::{self, ENTERPRISE_ADMIN, ENTERPRISE_WS, T0};
use crate::tui::support::{Drawn, drawn};
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use vantage::api::{ApiKey, Client, ClientConfig};
use vantage::server::RunningServer;
use vantage::tui::app::{App, Identity, Msg};
use vantage::tui::effect::Effect;
use vantage::tui::services::ClientServices;
use vantage::tui::services::ServiceSource;
use vantage::tui::settings::AppSettings;
use vantage::tui::theme::{ColorDepth, ThemeName};

struct Harness {
    app: App,
    executor: ClientServices,
    _server: RunningServer,
}

impl Harness {
    async fn new(key: &str, settings: AppSettings) -> Self {
        Self::for_workspace(key, ENTERPRISE_WS, settings).await
    }

    async fn for_workspace(key: &str, workspace: &str, settings: AppSettings) -> Self {
        let (server, clock) = common::server_with(|config| {
            config.rate_limit = vantage::server::ratelimit::RateLimit {
                limit: 10_000,
                window: time::Duration::seconds(60),
            };
        })
        .await;
        let client = Client::new(ClientConfig::new(
            server.base_url(),
            ApiKey::new(key).unwrap(),
        ))
        .unwrap();
        let identity = Identity {
            workspace: workspace.into(),
            workspace_id: workspace.into(),
            plan: None,
            api_version: "2026-09-11".into(),
            read_only: false,
        };
        let mut harness = Self {
            app: App::new(identity, settings),
            executor: ClientServices {
                client,
                workspace_id: workspace.into(),
                clock,
            },
            _server: server,
        };
        let start = harness.app.start(T0);
        harness.run(start).await;
        harness
    }

    /// Carries out fetches until none is left, as the runtime would.
    async fn run(&mut self, mut effects: Vec<Effect>) {
        while let Some(effect) = effects.pop() {
            if let Effect::Fetch { slot, token, job } = effect {
                let answer = job.run(slot, token, self.executor.services()).await;
                effects.extend(self.app.handle(Msg::Answer(answer), T0));
            }
        }
    }

    async fn keys(&mut self, keys: &str) {
        for ch in keys.chars() {
            let effects = self.app.handle(
                Msg::Key(KeyEvent::new(KeyCode::Char(ch), KeyModifiers::NONE)),
                T0,
            );
            self.run(effects).await;
        }
    }

    async fn key(&mut self, code: KeyCode) {
        let effects = self
            .app
            .handle(Msg::Key(KeyEvent::new(code, KeyModifiers::NONE)), T0);
        self.run(effects).await;
    }

    fn render(&self, width: u16, height: u16) -> Drawn {
        drawn(&self.app, width, height, T0)
    }
}

/// Snapshots with request ids replaced, since those differ on every run.
macro_rules! snapshot {
    ($name:expr, $value:expr) => {
        insta::with_settings!({filters => vec![(r"req_[0-9a-f]{22}", "req_[id]")]}, {
            insta::assert_snapshot!($name, $value);
        })
    };
}

fn dark() -> AppSettings {
    crate::tui::support::settings(ThemeName::Dark, ColorDepth::TrueColor)
}

/// Whole frames on purpose: the tab bar's full titles at 120 columns and its
/// short ones at 80, and the header as it fits each.
#[tokio::test]
async fn insights_screen() {
    let harness = Harness::new(ENTERPRISE_ADMIN, dark()).await;
    snapshot!("insights_120x35", harness.render(120, 35).full());
    snapshot!("insights_80x24", harness.render(80, 24).full());
}

#[tokio::test]
async fn insights_with_a_priority_filter() {
    let mut harness = Harness::new(ENTERPRISE_ADMIN, dark()).await;
    harness.keys("p").await;
    snapshot!("insights_filtered_120x35", harness.render(120, 35).body());
}

#[tokio::test]
async fn inventory_screen() {
    let mut harness = Harness::new(ENTERPRISE_ADMIN, dark()).await;
    harness.keys("2").await;
    snapshot!("inventory_120x35", harness.render(120, 35).body());
    snapshot!("inventory_80x24", harness.render(80, 24).body());
}

/// Issue 27: at 200x50 the inventory shows the ID column, and no owner that
/// fits in the spare width is cut.
#[tokio::test]
async fn inventory_at_200_columns_shows_ids_and_whole_owners() {
    let mut harness = Harness::new(ENTERPRISE_ADMIN, dark()).await;
    harness.keys("2").await;
    let frame = harness.render(200, 50);
    let shown = frame.body();
    let header = shown
        .lines()
        .find(|line| line.contains("Priority") && line.contains("Name"))
        .unwrap();
    assert!(header.contains(" ID "), "{header}");
    let on_screen = &harness.app.inventory.list.rows[..30];
    for item in on_screen {
        assert!(shown.contains(&item.id), "{} not shown: {shown}", item.id);
        // As the screen shows it: made safe; one longer than the owner's
        // widest (32) may be cut.
        if let Some(owner) = item.owner.display_name.as_deref() {
            let safe = vantage::text::fit(owner, 32);
            if !safe.ends_with('…') {
                assert!(shown.contains(&safe), "{safe} cut: {shown}");
            }
        }
    }
    snapshot!("inventory_200x50", shown);
}

/// `:columns` chooses the inventory's columns, in the order given.
#[tokio::test]
async fn the_palette_chooses_the_inventory_columns() {
    let mut harness = Harness::new(ENTERPRISE_ADMIN, dark()).await;
    harness.keys("2:columns name,owner,id,visitors_7d").await;
    harness.key(KeyCode::Enter).await;
    let header = |harness: &Harness| {
        let shown = harness.render(120, 35).body();
        let header = shown
            .lines()
            .find(|line| line.contains("Name") && line.contains("Owner"))
            .unwrap()
            .to_owned();
        header
            .trim_matches('"')
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ")
    };
    assert_eq!(header(&harness), "Name Owner ID Visit 7d");
    assert_eq!(
        serde_json::to_string(&harness.app.inventory.columns()).unwrap(),
        r#"["name","owner","id","visitors_7d"]"#
    );
    harness.keys(":columns default").await;
    harness.key(KeyCode::Enter).await;
    assert_eq!(harness.app.inventory.columns(), None);
    assert!(header(&harness).starts_with("Priority Name Owner"));
}

#[tokio::test]
async fn inventory_opened_from_a_finding_type() {
    let mut harness = Harness::new(ENTERPRISE_ADMIN, dark()).await;
    // The third finding type: external collaborators.
    harness.keys("jj").await;
    harness.key(KeyCode::Enter).await;
    snapshot!("inventory_finding_120x35", harness.render(120, 35).body());
}

#[tokio::test]
async fn inventory_with_filters_and_sort() {
    let mut harness = Harness::new(ENTERPRISE_ADMIN, dark()).await;
    harness.keys("2p").await;
    // Sort by name with the sort menu's hotkey: names start A→Z (issue 27).
    harness.keys("sn").await;
    snapshot!("inventory_filtered_120x35", harness.render(120, 35).body());
    snapshot!("inventory_filtered_80x24", harness.render(80, 24).body());
}

#[tokio::test]
async fn inventory_gate_for_a_business_workspace() {
    let mut harness =
        Harness::for_workspace(common::BUSINESS_ADMIN, common::BUSINESS_WS, dark()).await;
    harness.keys("2").await;
    snapshot!(
        "inventory_gate_120x35",
        harness.render(120, 35).with_status()
    );
}

#[tokio::test]
async fn insights_with_an_error() {
    let harness = Harness::new(common::PROJECTS_READ, dark()).await;
    snapshot!(
        "insights_error_120x35",
        harness.render(120, 35).with_status()
    );
}

/// Whole frames on purpose: the help lists every tab's key, and a terminal
/// too small shows a notice instead of the frame.
#[tokio::test]
async fn help_overlay_and_too_small() {
    let mut harness = Harness::new(ENTERPRISE_ADMIN, dark()).await;
    harness.keys("2?").await;
    snapshot!("inventory_help_120x35", harness.render(120, 35).full());
    snapshot!("too_small_50x10", harness.render(50, 10).full());
}

/// The smallest terminal vantage draws in, whole on purpose: the header, the
/// tab bar and the footer each give up what they drop first.
#[tokio::test]
async fn the_smallest_terminal_drawn_whole() {
    let mut harness = Harness::new(ENTERPRISE_ADMIN, dark()).await;
    harness.keys("2").await;
    let (width, height) = (vantage::tui::app::MIN_WIDTH, vantage::tui::app::MIN_HEIGHT);
    let frame = harness.render(width, height);
    // The tab on screen keeps its title; every other tab shows its key.
    assert!(frame.tabs().contains("2 Inventory"), "{}", frame.tabs());
    assert!(!frame.tabs().contains("Insights"), "{}", frame.tabs());
    snapshot!("narrow_60x16", frame.full());
}

/// Styles are part of these snapshots, of the frame as much as of the screen
/// (the header's and the active tab's colours), so they are kept whole: the
/// buffer's debug form lists them.
#[tokio::test]
async fn light_theme_and_no_color() {
    let light = Harness::new(
        ENTERPRISE_ADMIN,
        crate::tui::support::settings(ThemeName::Light, ColorDepth::TrueColor),
    )
    .await;
    let light_buffer = light.render(80, 24).buffer().clone();
    insta::assert_debug_snapshot!("insights_light_80x24", light_buffer);
    let mono = Harness::new(
        ENTERPRISE_ADMIN,
        crate::tui::support::settings(ThemeName::Dark, ColorDepth::None),
    )
    .await;
    let mono_buffer = mono.render(80, 24).buffer().clone();
    let uses_color = mono_buffer.content().iter().any(|cell| {
        cell.fg != ratatui::style::Color::Reset || cell.bg != ratatui::style::Color::Reset
    });
    assert!(!uses_color, "NO_COLOR: no cell has a colour");
    insta::assert_debug_snapshot!("insights_no_color_80x24", mono_buffer);
}
