//! 50,000 random events through the App on `TestBackend`: keys of every kind,
//! resizes down to 1x1, replies (answers, errors, stale and out of order),
//! wake-ups and client notices. Nothing may panic.
//!
//! The replies are real answers of the reference server over a generated
//! workspace (hostile strings included), fetched once and then handed out for
//! every request of the same kind, so the loop itself does no I/O.

use crate::common;
use crate::tui::support::{Fetch, asked};
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use serde_json::json;
use vantage::api::model::{
    AudienceSettings, Breakdowns, Deployment, EmbedUrl, Insights, InventoryPage, Member, MemberRef,
    Page, PiiFinding, Project, Realtime, ScanFinding, SecurityScan, Traffic,
};
use vantage::api::{ApiKey, Client, ClientConfig, MemberListParams, PageParams};
use vantage::clock::Clock;
use vantage::rng::SplitMix64;
use vantage::server::seed::{self, GenerateSpec};
use vantage::server::{self, ServerConfig};
use vantage::tui::app::{App, ClientNotice, Identity, Msg};
use vantage::tui::effect::{ErrorInfo, Gate, SwitchedContext};
use vantage::tui::ops::*;
use vantage::tui::request::Operation;
use vantage::tui::review::ops::*;
use vantage::tui::services::ClientServices;
use vantage::tui::services::ServiceSource;
use vantage::tui::theme::{ColorDepth, ThemeName};
use vantage::tui::vocab::ChangeSet;

const EVENTS: usize = 50_000;
/// A frame is drawn every this many events, and after every resize.
const DRAW_EVERY: usize = 20;

/// One real answer per kind of request.
struct Canned {
    insights: Insights,
    inventory: InventoryPage,
    project: Project,
    members: Page<MemberRef>,
    member: Member,
    realtime: Realtime,
    breakdowns: Breakdowns,
    pii: Page<PiiFinding>,
    running: Deployment,
    completed: Deployment,
    traffic: Traffic,
    scans: Page<SecurityScan>,
    findings: Page<ScanFinding>,
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
    let services = ClientServices {
        client,
        workspace_id,
        clock: Clock::manual(common::T0),
    }
    .services();
    let inventory = ListInventory {
        workspace_id: services.workspace_id.clone(),
        params: vantage::api::InventoryParams {
            limit: Some(25),
            ..Default::default()
        },
        cursor: None,
    }
    .run(&services)
    .await
    .unwrap();
    let project_id = inventory.data[0].id.clone();
    // Analytics exist only for projects that were published.
    let published = inventory
        .data
        .iter()
        .find(|item| item.is_published)
        .expect("a published project on the first page")
        .id
        .clone();
    let members = ListMembers {
        workspace_id: services.workspace_id.clone(),
        params: MemberListParams {
            limit: Some(20),
            ..MemberListParams::default()
        },
        cursor: None,
    }
    .run(&services)
    .await
    .unwrap();
    let user_id = members.data[0].user_id.clone();
    let deployment = |status: &str, url: Option<&str>| -> Deployment {
        serde_json::from_value(json!({
            "id": "dep_1", "status": status, "url": url, "error_class": null, "error_message": null
        }))
        .unwrap()
    };
    let week = common::T0 - time::Duration::days(7);
    let canned = Canned {
        insights: GetInsights {
            review_priority: Vec::new(),
        }
        .run(&services)
        .await
        .unwrap(),
        inventory,
        project: GetProject { project_id }.run(&services).await.unwrap(),
        members,
        member: GetMember {
            user_id,
            fill: false,
        }
        .run(&services)
        .await
        .unwrap(),
        realtime: GetRealtime {
            project_id: published.clone(),
        }
        .run(&services)
        .await
        .unwrap(),
        breakdowns: GetBreakdowns {
            project_id: published.clone(),
            starts_at: week,
            ends_at: common::T0,
        }
        .run(&services)
        .await
        .unwrap(),
        pii: ListPii {
            project_id: with_pii,
            params: PageParams { limit: Some(20) },
            cursor: None,
        }
        .run(&services)
        .await
        .unwrap(),
        running: deployment("running", None),
        completed: deployment("completed", Some("https://app.example/")),
        traffic: GetTraffic {
            project_id: published.clone(),
            starts_at: week,
            ends_at: common::T0,
            granularity: vantage::api::model::Granularity::Hour,
        }
        .run(&services)
        .await
        .unwrap(),
        scans: ListSecurityScans {
            project_id: scan.project_id.clone(),
            params: PageParams { limit: Some(100) },
            cursor: None,
        }
        .run(&services)
        .await
        .unwrap(),
        findings: ListScanFindings {
            project_id: scan.project_id,
            scan_id: scan.scan.id,
            params: PageParams { limit: Some(20) },
            cursor: None,
        }
        .run(&services)
        .await
        .unwrap(),
    };
    server.stop().await;
    canned
}

/// Answers `fetch` with the canned answer of its kind: `Some` when the kind
/// is `O`.
fn canned_as<O: Operation>(fetch: &Fetch, answer: impl FnOnce(&O) -> O::Output) -> Option<Msg> {
    let operation = fetch.operation::<O>()?;
    Some(fetch.ok(answer(operation)))
}

impl Canned {
    fn answer(&self, fetch: &Fetch) -> Msg {
        None.or_else(|| {
            canned_as(fetch, |_: &GetWorkspace| vantage::api::model::Workspace {
                id: "ws_acme".into(),
                name: Some("Acme \u{1b}[2J".into()),
                description: None,
                image_url: None,
                plan: Some(vantage::api::model::WorkspacePlan::Enterprise),
                num_projects: Some(3),
                created_at: None,
                updated_at: None,
            })
        })
        .or_else(|| canned_as(fetch, |_: &GetInsights| self.insights.clone()))
        .or_else(|| canned_as(fetch, |_: &ListInventory| self.inventory.clone()))
        .or_else(|| {
            canned_as(fetch, |export: &ExportInventory| Exported {
                path: export.path.clone(),
                count: 25,
                left_out: 0,
            })
        })
        .or_else(|| canned_as(fetch, |_: &GetProject| self.project.clone()))
        .or_else(|| canned_as(fetch, |_: &UpdateProject| self.project.clone()))
        .or_else(|| canned_as(fetch, |_: &DeleteProject| ()))
        .or_else(|| canned_as(fetch, |_: &Unpublish| ()))
        .or_else(|| canned_as(fetch, |_: &Publish| self.running.clone()))
        .or_else(|| canned_as(fetch, |_: &GetDeployment| self.completed.clone()))
        .or_else(|| canned_as(fetch, |_: &ListMembers| self.members.clone()))
        .or_else(|| canned_as(fetch, |_: &GetMember| self.member.clone()))
        .or_else(|| canned_as(fetch, |_: &GetRealtime| self.realtime.clone()))
        .or_else(|| canned_as(fetch, |_: &GetBreakdowns| self.breakdowns.clone()))
        .or_else(|| canned_as(fetch, |_: &ListPii| self.pii.clone()))
        .or_else(|| canned_as(fetch, |_: &LoadWatchlist| Vec::new()))
        .or_else(|| canned_as(fetch, |_: &SaveWatchlist| ()))
        .or_else(|| canned_as(fetch, |_: &SavePaletteHistory| ()))
        .or_else(|| canned_as(fetch, |_: &GetTraffic| self.traffic.clone()))
        .or_else(|| canned_as(fetch, |_: &ListSecurityScans| self.scans.clone()))
        .or_else(|| canned_as(fetch, |_: &ListScanFindings| self.findings.clone()))
        .or_else(|| {
            canned_as(fetch, |update: &UpdatePublishSettings| AudienceSettings {
                audience: Some(update.settings.audience.clone()),
                audience_targets: update.settings.audience_targets.clone(),
            })
        })
        .or_else(|| {
            canned_as(fetch, |_: &CreateEmbedUrl| EmbedUrl {
                embed_url: "https://embed.example/\u{1b}x".into(),
                expires_at: time::macros::datetime!(2026-11-22 13:00 UTC),
            })
        })
        .or_else(|| {
            canned_as(fetch, |switch: &SwitchContext| SwitchedContext {
                name: switch.name.clone(),
                workspace: "ws_other".into(),
                api_version: "2026-09-11".into(),
                read_only: false,
                watchlist: std::env::temp_dir().join("vantage-never-written.json"),
                history: None,
            })
        })
        .or_else(|| {
            canned_as(fetch, |_: &DiffSnapshots| ChangeSet {
                before: None,
                after: None,
                changes: Vec::new(),
            })
        })
        .or_else(|| canned_as(fetch, |_: &ListSnapshots| Vec::new()))
        .or_else(|| canned_as(fetch, |_: &ListMarks| Vec::new()))
        .or_else(|| canned_as(fetch, |_: &MarkReviewed| Vec::new()))
        .or_else(|| canned_as(fetch, |_: &DataVersion| 1))
        .or_else(|| {
            canned_as(fetch, |_: &TakeSnapshot| {
                vantage::tui::vocab::SnapshotOutcome::Skipped("a fresh snapshot is there".into())
            })
        })
        .or_else(|| {
            canned_as(fetch, |export: &ExportList| Exported {
                path: export.path.clone(),
                count: 25,
                left_out: 0,
            })
        })
        .or_else(|| {
            canned_as(fetch, |save: &SaveView| ViewSaved {
                path: save.path.clone(),
                name: save.name.clone(),
                saved: save.view.is_some(),
            })
        })
        .or_else(|| canned_as(fetch, |_: &LatestProjectState| None))
        .or_else(|| canned_as(fetch, canned_evaluation))
        .unwrap_or_else(|| panic!("no canned answer for {:?}", fetch.job))
    }
}

/// An evaluation with one policy that one project violates.
fn canned_evaluation(
    evaluate: &vantage::tui::policies::EvaluatePolicies,
) -> vantage::tui::policies::Evaluated {
    use std::sync::Arc;
    use vantage::policy::{Evaluation, Finding, FindingStatus, Policy, PolicyMeta, Severity};
    let meta = PolicyMeta {
        id: "team_rule".into(),
        title: "A team's rule".into(),
        severity: Severity::High,
        description: "what it checks".into(),
        remediation: "what to do".into(),
    };
    let project_id = evaluate
        .live
        .first()
        .map_or("prj_none".to_owned(), |row| row.item.id.clone());
    let finding = Finding {
        policy: meta.id.clone(),
        severity: meta.severity,
        project_id: project_id.clone(),
        project_name: None,
        message: "it broke the rule".into(),
        status: FindingStatus::Failing,
        waiver_reason: None,
        waived_by: None,
        waived_until: None,
        remediation: meta.remediation.clone(),
    };
    let policy = Policy {
        meta,
        package: "team.rule".into(),
        origin: "rule.rego".into(),
        deny_line: 1,
        unknown_line: None,
    };
    vantage::tui::policies::Evaluated {
        evaluation: Arc::new(Evaluation::new(vec![policy], vec![finding])),
        over: vantage::tui::policies::Coverage {
            at: common::T0,
            projects: evaluate.live.len(),
            snapshot: None,
            live_rows: evaluate.live.len(),
            ids: Arc::new(
                evaluate
                    .live
                    .iter()
                    .map(|row| row.item.id.clone())
                    .collect(),
            ),
        },
        base: None,
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
        kind: kind.map(Into::into),
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
            workspace_id: "ws_random".into(),
            plan: None,
            api_version: "2026-09-11".into(),
            read_only: false,
        },
        crate::tui::support::settings(ThemeName::Dark, ColorDepth::TrueColor),
    );
    let mut terminal = Terminal::new(TestBackend::new(100, 30)).unwrap();
    let mut pending: Vec<Fetch> = Vec::new();
    let mut tabs_seen = [false; vantage::tui::nav::Tab::ALL.len()];
    let mut resizes = 0;
    let mut replies = 0;
    let effects = app.start(now);
    pending.extend(asked(&effects));
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
                let fetch = pending.swap_remove(rng.below(pending.len() as u64) as usize);
                replies += 1;
                if rng.chance(0.8) {
                    canned.answer(&fetch)
                } else {
                    fetch.fail(error(&mut rng, now))
                }
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
        pending.extend(asked(&effects));
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
