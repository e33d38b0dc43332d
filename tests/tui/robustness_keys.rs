//! 50,000 random events through the App on `TestBackend`: keys of every kind,
//! resizes down to 1x1, replies (answers, errors, stale and out of order),
//! wake-ups and client notices. Nothing may panic.
//!
//! The replies are real answers of the reference server over a generated
//! workspace (hostile strings included), fetched once and then handed out for
//! every request of the same kind, so the loop itself does no I/O.

use crate::common;
use crate::support::fetches;
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use serde_json::json;
use vantage::api::model::Deployment;
use vantage::api::{ApiKey, Client, ClientConfig, MemberListParams};
use vantage::clock::Clock;
use vantage::rng::SplitMix64;
use vantage::server::seed::{self, GenerateSpec};
use vantage::server::{self, ServerConfig};
use vantage::tui::app::{App, ClientNotice, Identity, Msg};
use vantage::tui::effect::{ErrorInfo, Gate, Reply, Request, Slot};
use vantage::tui::executor::ClientExecutor;
use vantage::tui::keymap::Keymap;
use vantage::tui::review::request::{ChangeSet, HistoryReply};
use vantage::tui::services::Executor;
use vantage::tui::theme::{Theme, ThemeName};

const EVENTS: usize = 50_000;
/// A frame is drawn every this many events, and after every resize.
const DRAW_EVERY: usize = 20;

/// One real answer per kind of request.
struct Canned {
    insights: Reply,
    inventory: Reply,
    project: Reply,
    members: Reply,
    member: Reply,
    realtime: Reply,
    breakdowns: Reply,
    pii: Reply,
    running: Reply,
    completed: Reply,
    traffic: Reply,
    scans: Reply,
    findings: Reply,
}

async fn canned() -> Canned {
    let fixture = seed::generate(
        GenerateSpec {
            projects: 60,
            members: 40,
            seed: 3,
        },
        common::T0,
    );
    let key = fixture
        .keys
        .iter()
        .find(|key| key.label == "enterprise-admin")
        .unwrap()
        .key
        .clone();
    let workspace_id = fixture.workspaces[0].id.clone();
    let with_pii = fixture.pii_findings[0].project_id.clone();
    let scan = fixture.scans[0].clone();
    let mut config = ServerConfig::local(fixture);
    config.clock = Clock::manual(common::T0);
    let server = server::start(config).await.unwrap();
    let client = Client::new(ClientConfig::new(
        server.base_url(),
        ApiKey::new(key).unwrap(),
    ))
    .unwrap();
    let executor = ClientExecutor {
        client,
        workspace_id,
        clock: Clock::manual(common::T0),
    };
    let ask = |request: Request| {
        let executor = executor.clone();
        async move { executor.execute(request).await.unwrap() }
    };
    let inventory = ask(Request::InventoryPage {
        params: vantage::api::InventoryParams {
            limit: Some(25),
            ..Default::default()
        },
        cursor: None,
    })
    .await;
    let Reply::InventoryPage(page) = &inventory else {
        panic!("an inventory page")
    };
    let project_id = page.data[0].id.clone();
    // Analytics exist only for projects that were published.
    let published = page
        .data
        .iter()
        .find(|item| item.is_published)
        .expect("a published project on the first page")
        .id
        .clone();
    let members = ask(Request::MemberPage {
        params: MemberListParams {
            limit: Some(20),
            ..MemberListParams::default()
        },
        cursor: None,
    })
    .await;
    let Reply::MemberPage(member_page) = &members else {
        panic!("a member page")
    };
    let user_id = member_page.data[0].user_id.clone();
    let deployment = |status: &str, url: Option<&str>| -> Reply {
        let deployment: Deployment = serde_json::from_value(json!({
            "id": "dep_1", "status": status, "url": url, "error_class": null, "error_message": null
        }))
        .unwrap();
        Reply::Deployment(Box::new(deployment))
    };
    let canned = Canned {
        insights: ask(Request::Insights {
            review_priority: Vec::new(),
        })
        .await,
        inventory,
        project: ask(Request::GetProject {
            project_id: project_id.clone(),
        })
        .await,
        members,
        member: ask(Request::MemberDetail { user_id }).await,
        realtime: ask(Request::Realtime {
            project_id: published.clone(),
        })
        .await,
        breakdowns: ask(Request::Breakdowns {
            project_id: published.clone(),
            starts_at: common::T0 - time::Duration::days(7),
            ends_at: common::T0,
        })
        .await,
        pii: ask(Request::PiiPage {
            project_id: with_pii,
            cursor: None,
            limit: 20,
        })
        .await,
        running: deployment("running", None),
        completed: deployment("completed", Some("https://app.example/")),
        traffic: ask(Request::Traffic {
            project_id: published.clone(),
            starts_at: common::T0 - time::Duration::days(7),
            ends_at: common::T0,
            granularity: vantage::api::model::Granularity::Hour,
        })
        .await,
        scans: ask(Request::SecurityScans {
            project_id: scan.project_id.clone(),
        })
        .await,
        findings: ask(Request::ScanFindingsPage {
            project_id: scan.project_id,
            scan_id: scan.scan.id,
            cursor: None,
            limit: 20,
        })
        .await,
    };
    server.stop().await;
    canned
}

impl Canned {
    fn answer(&self, request: &Request) -> Reply {
        match request {
            Request::GetWorkspace => Reply::Workspace(Box::new(vantage::api::model::Workspace {
                id: "ws_acme".into(),
                name: Some("Acme \u{1b}[2J".into()),
                description: None,
                image_url: None,
                plan: Some(vantage::api::model::WorkspacePlan::Enterprise),
                num_projects: Some(3),
                created_at: None,
                updated_at: None,
            })),
            Request::Insights { .. } => self.insights.clone(),
            Request::InventoryPage { .. } => self.inventory.clone(),
            Request::ExportInventory { path, .. } => Reply::Exported {
                path: path.clone(),
                count: 25,
            },
            Request::GetProject { .. } | Request::UpdateProject { .. } => self.project.clone(),
            Request::DeleteProject { .. } => Reply::ProjectDeleted,
            Request::Unpublish { .. } => Reply::Unpublished,
            Request::Publish { .. } => self.running.clone(),
            Request::GetDeployment { .. } => self.completed.clone(),
            Request::MemberPage { .. } => self.members.clone(),
            Request::MemberDetail { .. } => self.member.clone(),
            Request::Realtime { .. } => self.realtime.clone(),
            Request::Breakdowns { .. } => self.breakdowns.clone(),
            Request::PiiPage { .. } => self.pii.clone(),
            Request::LoadWatchlist { .. } => Reply::Watchlist(Vec::new()),
            Request::SaveWatchlist { .. } => Reply::WatchlistSaved,
            Request::SavePaletteHistory { .. } => Reply::PaletteHistorySaved,
            Request::Traffic { .. } => self.traffic.clone(),
            Request::SecurityScans { .. } => self.scans.clone(),
            Request::ScanFindingsPage { .. } => self.findings.clone(),
            Request::UpdatePublishSettings { settings, .. } => {
                Reply::AudienceSettings(Box::new(vantage::api::model::AudienceSettings {
                    audience: Some(settings.audience.clone()),
                    audience_targets: settings.audience_targets.clone(),
                }))
            }
            Request::CreateEmbedUrl { .. } => {
                Reply::EmbedUrl(Box::new(vantage::api::model::EmbedUrl {
                    embed_url: "https://embed.example/\u{1b}x".into(),
                    expires_at: time::macros::datetime!(2026-11-22 13:00 UTC),
                }))
            }
            Request::SwitchContext { name } => {
                Reply::ContextSwitched(Box::new(vantage::tui::effect::SwitchedContext {
                    name: name.clone(),
                    workspace: "ws_other".into(),
                    api_version: "2026-09-11".into(),
                    read_only: false,
                    watchlist: std::env::temp_dir().join("vantage-never-written.json"),
                }))
            }
            Request::History(_) => {
                Reply::History(Box::new(HistoryReply::Changes(Box::new(ChangeSet {
                    before: None,
                    after: None,
                    changes: Vec::new(),
                }))))
            }
        }
    }
}

/// One of the errors the service or the network can give.
fn error(rng: &mut SplitMix64, at: time::OffsetDateTime) -> ErrorInfo {
    let (status, kind, gate) = match rng.below(6) {
        0 => (None, None, None),
        1 => (Some(503), Some("request_timeout"), None),
        2 => (
            Some(402),
            Some("plan_required"),
            Some(Gate::Plan("enterprise".into())),
        ),
        3 => (
            Some(403),
            Some("insufficient_scope"),
            Some(Gate::Scopes(vec!["projects:write".into()])),
        ),
        4 => (Some(404), Some("project_not_found"), None),
        _ => (Some(429), Some("rate_limited"), None),
    };
    ErrorInfo {
        status,
        kind: kind.map(str::to_owned),
        detail: Some("detail \u{1b}]0;x\u{7} with a hostile \u{202e} part".into()),
        request_id: Some("req_123".into()),
        summary: "it failed".into(),
        gate,
        at,
    }
}

fn random_key(rng: &mut SplitMix64) -> KeyEvent {
    const CHARS: &str = "qjkgG123456?!/sSprtcdeEvuDfwRyxn hlab0789Y";
    const CODES: [KeyCode; 14] = [
        KeyCode::Enter,
        KeyCode::Esc,
        KeyCode::Backspace,
        KeyCode::Up,
        KeyCode::Down,
        KeyCode::Left,
        KeyCode::Right,
        KeyCode::PageUp,
        KeyCode::PageDown,
        KeyCode::Home,
        KeyCode::End,
        KeyCode::Tab,
        KeyCode::BackTab,
        KeyCode::Delete,
    ];
    let roll = rng.below(100);
    let (code, modifiers) = if roll < 60 {
        let chars: Vec<char> = CHARS.chars().collect();
        (
            KeyCode::Char(chars[rng.below(chars.len() as u64) as usize]),
            KeyModifiers::NONE,
        )
    } else if roll < 90 {
        (
            CODES[rng.below(CODES.len() as u64) as usize],
            KeyModifiers::NONE,
        )
    } else if roll < 97 {
        let ch = ['c', 'd', 'u', 's'][rng.below(4) as usize];
        // Ctrl-c quits: the loop goes on, as the runtime would have stopped.
        (KeyCode::Char(ch), KeyModifiers::CONTROL)
    } else {
        // Any character at all, wide and combining ones included.
        let ch = char::from_u32(rng.below(0x3_0000) as u32).unwrap_or('é');
        (KeyCode::Char(ch), KeyModifiers::NONE)
    };
    KeyEvent::new(code, modifiers)
}

#[tokio::test]
async fn fifty_thousand_random_events_never_panic() {
    let canned = canned().await;
    let mut rng = SplitMix64::new(0x5eed);
    let mut now = common::T0;
    let mut app = App::new(
        Identity {
            workspace: "ws_random".into(),
            plan: None,
            api_version: "2026-09-11".into(),
            read_only: false,
        },
        Theme::new(ThemeName::Dark, false),
        Keymap::default(),
        std::env::temp_dir(),
    );
    let mut terminal = Terminal::new(TestBackend::new(100, 30)).unwrap();
    let mut pending: Vec<(Slot, u64, Request)> = Vec::new();
    let mut tabs_seen = [false; vantage::tui::nav::Tab::ALL.len()];
    let mut resizes = 0;
    let mut replies = 0;
    let effects = app.start(now);
    pending.extend(fetches(&effects));
    for event in 0..EVENTS {
        now += time::Duration::milliseconds(rng.below(400) as i64);
        let mut draw = event % DRAW_EVERY == 0;
        let msg = match rng.below(100) {
            0..=69 => Msg::Key(random_key(&mut rng)),
            70..=74 => {
                // Small sizes often; 1x1 among them.
                let (width, height) = if rng.chance(0.3) {
                    (1 + rng.below(4) as u16, 1 + rng.below(4) as u16)
                } else {
                    (1 + rng.below(180) as u16, 1 + rng.below(60) as u16)
                };
                terminal.backend_mut().resize(width, height);
                resizes += 1;
                draw = true;
                Msg::Resize
            }
            75..=92 if !pending.is_empty() => {
                // Any pending request, not only the oldest: replies come out of
                // order, and stale ones must be dropped.
                let (slot, token, request) =
                    pending.swap_remove(rng.below(pending.len() as u64) as usize);
                replies += 1;
                let reply = if rng.chance(0.8) {
                    Ok(canned.answer(&request))
                } else {
                    Err(error(&mut rng, now))
                };
                Msg::Reply { slot, token, reply }
            }
            93..=96 => Msg::Wake,
            _ => Msg::Client(match rng.below(3) {
                0 => ClientNotice::RateLimit {
                    remaining: rng.below(120) as u32,
                    limit: 120,
                },
                1 => ClientNotice::Retrying {
                    reason: "rate limited".into(),
                    delay_ms: rng.below(20_000),
                },
                _ => ClientNotice::Recovered,
            }),
        };
        let effects = app.handle(msg, now);
        pending.extend(fetches(&effects));
        // Keep the queue of unanswered requests bounded, as aborts would.
        if pending.len() > 64 {
            pending.drain(..32);
        }
        tabs_seen[app.tab.index()] = true;
        if draw {
            terminal.draw(|frame| app.draw(frame, now)).unwrap();
        }
    }
    assert!(
        tabs_seen.iter().all(|seen| *seen),
        "every tab was visited: {tabs_seen:?}"
    );
    assert!(
        resizes > 1_000 && replies > 1_000,
        "resizes {resizes}, replies {replies}"
    );
    // Still drawing at the smallest and a usual size.
    for (width, height) in [(1, 1), (80, 24)] {
        terminal.backend_mut().resize(width, height);
        terminal.draw(|frame| app.draw(frame, now)).unwrap();
    }
}
