//! The project screen's Security part and the Analytics screen's traffic chart:
//! App::handle with synthetic replies and a fixed clock; snapshots on ratatui's
//! TestBackend at 120x35 and 80x24.

use crate::common::items;
use crate::tui::support::{
    Fetch, answer, answer_inventory_page, asked, asked_in, drawn, key, only, special as code,
};
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use serde_json::{Value, json};
use time::OffsetDateTime;
use time::macros::datetime;
use vantage::api::PageParams;
use vantage::api::model::{
    Granularity, InventoryPage, Page, Project, ScanFinding, SecurityScan, Traffic,
};
use vantage::tui::app::{App, Identity, Msg};
use vantage::tui::effect::ErrorInfo;
use vantage::tui::ops::{GetTraffic, ListScanFindings, ListSecurityScans};
use vantage::tui::screens::project::PROJECT;
use vantage::tui::screens::project::security::{FINDINGS, Focus, SCANS, SecurityPart};
use vantage::tui::screens::{analytics, inventory};
use vantage::tui::theme::{ColorDepth, ThemeName};

const NOW: OffsetDateTime = datetime!(2026-11-22 12:00 UTC);

fn app() -> App {
    App::new(
        Identity {
            workspace: "ws_test".into(),
            workspace_id: "ws_test".into(),
            plan: Some("enterprise".into()),
            api_version: "2026-09-11".into(),
            read_only: false,
        },
        crate::tui::support::settings(ThemeName::Dark, ColorDepth::TrueColor),
    )
}

/// The whole frame at `NOW`, as text.
fn draw(app: &App, width: u16, height: u16) -> String {
    drawn(app, width, height, NOW).full()
}

fn inventory_item(n: usize) -> Value {
    items::inventory_item(json!({
        "id": format!("prj_{n:05}"), "name": format!("Clinic portal {n}"),
        "description": "Patient bookings", "url": format!("https://p{n}.example.app"),
        "last_edited_at": "2026-11-20T09:30:00Z", "last_security_scan_at": "2026-11-21T12:00:00Z",
        "owner": {"display_name": "Ada Lovelace"}
    }))
}

/// The inventory with two projects, the first one selected.
fn with_inventory(app: &mut App) {
    app.start(NOW);
    let effects = app.handle(key('2'), NOW);
    let token = only(&effects, inventory::PAGE).token;
    let page: InventoryPage = serde_json::from_value(json!({
        "data": [inventory_item(0), inventory_item(1)],
        "pagination": {"has_more": false, "next_cursor": null},
        "total": 2, "as_of": null, "activity_as_of": null, "applied_finding": null
    }))
    .unwrap();
    app.handle(answer_inventory_page(token, page), NOW);
}

fn scans() -> Page<SecurityScan> {
    serde_json::from_value(json!({
        "data": [
            {"id": "scn_latest", "status": "completed",
             "commit_sha": "3f2a9c1d4e5b6a7980a1b2c3d4e5f60718293a4b",
             "started_at": "2026-11-21T11:57:00Z", "finished_at": "2026-11-21T12:00:00Z",
             "requested_scanners": ["supabase_lov", "agent_security"]},
            {"id": "scn_older", "status": "failed", "commit_sha": null,
             "started_at": "2026-11-10T08:00:00Z", "finished_at": "2026-11-10T08:04:00Z",
             "requested_scanners": ["agent_security"]},
            {"id": "scn_new_kind", "status": "queued", "commit_sha": "aa11",
             "started_at": null, "finished_at": null, "requested_scanners": []}
        ],
        "pagination": {"has_more": false, "next_cursor": null}
    }))
    .unwrap()
}

fn finding(n: usize, level: &str, status: &str, name: &str, description: &str) -> Value {
    json!({
        "id": format!("scn_latest_{n:02}"), "category": if n == 0 { "secrets" } else { "data_exposure" },
        "level": level, "name": name, "description": description,
        "scanner_name": if n.is_multiple_of(2) { "agent_security" } else { "supabase_lov" },
        "status": status, "created_at": "2026-11-01T00:00:00Z", "updated_at": "2026-11-21T12:00:00Z"
    })
}

fn findings_page(has_more: bool) -> Page<ScanFinding> {
    let long = "Rows of the bookings table can be read by anyone who has the project's public key, \
                because the table has no row-level policy. An attacker lists every patient's name, \
                phone number and appointment. Add a policy that lets a user read only their own rows, \
                then rotate the public key.\nSee the scanner's report for the exact query.";
    let data = vec![
        finding(
            0,
            "error",
            "open",
            "Secret key committed to the code",
            "An API key sits in src/lib/pay.ts.",
        ),
        finding(
            1,
            "error",
            "open",
            "Table readable without a row-level policy",
            long,
        ),
        finding(
            2,
            "warn",
            "fixed",
            "Storage bucket lists its files",
            "Fixed in commit 3f2a9c1.",
        ),
        finding(
            3,
            "info",
            "ignored",
            "bidi \u{202e}evil\u{202c} and \u{1b}[31mred\u{1b}[0m",
            "Escape \u{1b}]52;c;AAAA\u{7} and \u{9b}2J in the text.",
        ),
        finding(
            4,
            "severe",
            "triaged",
            "An unknown level and status",
            "Shown as sent.",
        ),
    ];
    serde_json::from_value(json!({
        "data": data,
        "pagination": {"has_more": has_more, "next_cursor": if has_more { Some("c2") } else { None }}
    }))
    .unwrap()
}

/// The first project as its read answers: no dates and no owner known.
fn clinic_portal() -> Project {
    serde_json::from_value(items::project(json!({
        "id": "prj_00000", "name": "Clinic portal 0", "created_at": null,
        "last_edited_at": null, "owner_id": null
    })))
    .unwrap()
}

/// The first project opened, its Security part open, scans answered.
fn security_open() -> App {
    let mut app = app();
    with_inventory(&mut app);
    let effects = app.handle(code(KeyCode::Enter), NOW);
    let read = only(&effects, PROJECT);
    app.handle(read.ok(clinic_portal()), NOW);
    let effects = app.handle(key('d'), NOW);
    let read = only(&effects, SCANS);
    assert_eq!(
        read.op::<ListSecurityScans>(),
        &ListSecurityScans {
            project_id: "prj_00000".into(),
            params: PageParams { limit: Some(100) },
            cursor: None,
        }
    );
    app.handle(read.ok(scans()), NOW);
    app
}

fn part(app: &App) -> &SecurityPart {
    app.project
        .as_ref()
        .and_then(|p| p.security.as_ref())
        .expect("the Security part is open")
}

/// Enter on the first scan, and its first findings page answered; the next
/// page's request, if it was asked for at once.
fn with_findings(app: &mut App, has_more: bool) -> Option<Fetch> {
    let effects = app.handle(code(KeyCode::Enter), NOW);
    let read = only(&effects, FINDINGS);
    assert_eq!(
        read.op::<ListScanFindings>(),
        &ListScanFindings {
            project_id: "prj_00000".into(),
            scan_id: "scn_latest".into(),
            params: PageParams { limit: Some(100) },
            cursor: None,
        }
    );
    let effects = app.handle(read.ok(findings_page(has_more)), NOW);
    asked_in(&effects, FINDINGS).pop()
}

#[test]
fn scans_then_findings_then_back_and_filters_reload_the_findings() {
    let mut app = security_open();
    assert_eq!(part(&app).scans.len(), 3);
    assert_eq!(part(&app).focus, Focus::Scans);
    with_findings(&mut app, false);
    assert_eq!(part(&app).focus, Focus::Findings);
    assert_eq!(part(&app).findings.rows.len(), 5);

    // `t` opens the filter menu; space ticks `level error`. The findings load
    // again from the first page, filtered here.
    assert!(asked(&app.handle(key('t'), NOW)).is_empty());
    let menu = draw(&app, 100, 30);
    assert!(
        menu.contains("[ ] level error") && menu.contains("[ ] status fixed"),
        "{menu}"
    );
    let effects = app.handle(key(' '), NOW);
    let read = only(&effects, FINDINGS);
    app.handle(read.ok(findings_page(false)), NOW);
    let names: Vec<&str> = part(&app)
        .findings
        .rows
        .iter()
        .map(|f| f.name.as_str())
        .collect();
    assert_eq!(
        names,
        [
            "Secret key committed to the code",
            "Table readable without a row-level policy"
        ]
    );
    // Several levels at once: `level warn` too; then `status open`.
    app.handle(key('j'), NOW);
    assert_eq!(asked(&app.handle(key(' '), NOW)).len(), 1);
    for _ in 0..2 {
        app.handle(key('j'), NOW);
    }
    assert_eq!(asked(&app.handle(key(' '), NOW)).len(), 1);
    assert_eq!(
        part(&app).filter_summary(),
        "level error,warn · status open"
    );
    app.handle(code(KeyCode::Esc), NOW);
    assert_eq!(
        part(&app).focus,
        Focus::Findings,
        "esc closed only the menu"
    );
    // `/` searches, as on every list; `q` types a q there.
    app.handle(key('c'), NOW);
    assert!(asked(&app.handle(key('/'), NOW)).is_empty());
    for ch in "secret".chars() {
        app.handle(key(ch), NOW);
    }
    let effects = app.handle(code(KeyCode::Enter), NOW);
    let read = only(&effects, FINDINGS);
    app.handle(read.ok(findings_page(false)), NOW);
    let names: Vec<&str> = part(&app)
        .findings
        .rows
        .iter()
        .map(|f| f.name.as_str())
        .collect();
    assert_eq!(names, ["Secret key committed to the code"]);
    assert_eq!(
        part(&app).filter_summary(),
        "level any · status any · search secret"
    );
    app.handle(key('c'), NOW);
    assert_eq!(part(&app).filter_summary(), "level any · status any");

    // Esc: findings → scans → project.
    app.handle(code(KeyCode::Esc), NOW);
    assert_eq!(part(&app).focus, Focus::Scans);
    app.handle(code(KeyCode::Esc), NOW);
    assert!(app.project.as_ref().unwrap().security.is_none());
    assert!(app.project.is_some(), "still on the project screen");
}

#[test]
fn a_page_the_filters_empty_leads_to_the_next_and_stale_pages_are_dropped() {
    let mut app = security_open();
    with_findings(&mut app, false);
    // Level `info` alone: the menu's third line.
    for pressed in ['t', 'j', 'j', ' '] {
        app.handle(key(pressed), NOW);
    }
    app.handle(code(KeyCode::Esc), NOW);
    let effects = app.handle(key('r'), NOW);
    let read = only(&effects, FINDINGS);
    // An older page request's answer is stale.
    let older = Fetch {
        token: read.token + 1000,
        ..read.clone()
    };
    assert!(app.handle(older.ok(findings_page(true)), NOW).is_empty());
    let effects = app.handle(read.ok(findings_page(true)), NOW);
    assert_eq!(part(&app).findings.rows.len(), 1, "the info finding");
    let next = only(&effects, FINDINGS);
    assert_eq!(next.op::<ListScanFindings>().cursor.as_deref(), Some("c2"));
}

#[test]
fn the_description_scrolls_and_stops_at_its_end() {
    let mut app = security_open();
    with_findings(&mut app, false);
    app.handle(key('j'), NOW);
    for _ in 0..50 {
        app.handle(
            Msg::Key(KeyEvent::new(KeyCode::Char('d'), KeyModifiers::CONTROL)),
            NOW,
        );
    }
    assert!(part(&app).description_scroll > 0);
    // Drawn at its end, the pane still shows text, never a blank box.
    let text = draw(&app, 80, 24);
    assert!(text.contains("query") || text.contains("rotate"), "{text}");
    app.handle(key('j'), NOW);
    assert_eq!(
        part(&app).description_scroll,
        0,
        "a new finding starts at the top"
    );
}

#[test]
fn hostile_finding_text_is_escaped_on_screen() {
    let mut app = security_open();
    with_findings(&mut app, false);
    for _ in 0..3 {
        app.handle(key('j'), NOW);
    }
    let text = draw(&app, 120, 35);
    assert!(!text.contains('\u{1b}') && !text.contains('\u{202e}') && !text.contains('\u{9b}'));
    assert!(text.contains("evil"), "{text}");
}

#[test]
fn snapshot_security_part() {
    for (width, height) in [(120, 35), (80, 24)] {
        let mut app = security_open();
        with_findings(&mut app, true);
        app.handle(key('j'), NOW);
        insta::assert_snapshot!(
            format!("security_part_{width}x{height}"),
            drawn(&app, width, height, NOW).body()
        );
    }
}

#[test]
fn snapshot_security_scans_only() {
    let app = security_open();
    insta::assert_snapshot!("security_scans_80x24", drawn(&app, 80, 24, NOW).body());
}

// ---------------------------------------------------------------- traffic

/// A deterministic day-shaped curve over `buckets` hours from 2026-10-24.
fn traffic(buckets: usize, granularity: &Granularity) -> Traffic {
    let start = datetime!(2026-10-24 00:00 UTC);
    let step = match granularity {
        Granularity::Hour => time::Duration::hours(1),
        _ => time::Duration::days(1),
    };
    let visitors: Vec<f64> = (0..buckets)
        .map(|n| {
            let hour = (n % 24) as f64;
            (80.0
                + 60.0 * ((hour - 6.0) / 24.0 * std::f64::consts::TAU).sin()
                + (n / 24) as f64 * 2.0)
                .round()
        })
        .collect();
    let series = |label: &str, values: Vec<f64>, total: f64| {
        json!({
            "data": values.iter().enumerate().map(|(n, v)| json!({
                "timestamp": vantage::api::model::format_timestamp(start + step * n as i32),
                "value": v
            })).collect::<Vec<_>>(),
            "label": label, "total": total
        })
    };
    let total: f64 = visitors.iter().sum();
    let pageviews: Vec<f64> = visitors.iter().map(|v| (v * 2.4).round()).collect();
    let pageviews_total: f64 = pageviews.iter().sum();
    serde_json::from_value(json!({"time_series": {
        "visitors": series("Visitors", visitors.clone(), total),
        "pageviews": series("Pageviews", pageviews, pageviews_total),
        "pageviews_per_visit": series("Pageviews per visit", vec![2.4; buckets], 2.4),
        "session_duration": series("Session duration", vec![265.0; buckets], 265.0),
        "bounce_rate": series("Bounce rate \u{1b}[2J", vec![37.1; buckets], 37.1),
    }}))
    .unwrap()
}

/// The Analytics tab on the first project, both requests answered.
fn analytics_app() -> (App, GetTraffic) {
    let mut app = app();
    with_inventory(&mut app);
    let effects = app.handle(key('5'), NOW);
    let token = only(&effects, analytics::BREAKDOWNS).token;
    let asked = only(&effects, analytics::TRAFFIC);
    let (traffic_token, request) = (asked.token, asked.op::<GetTraffic>().clone());
    app.handle(answer(analytics::BREAKDOWNS, token, Ok(serde_json::from_value(json!({
                "countries": [{"label": "Germany", "visitors": 420}, {"label": "Unknown", "visitors": 40}],
                "devices": [{"label": "Desktop", "visitors": 300}, {"label": "Mobile", "visitors": 160}],
                "pages": [{"label": "/", "visitors": 380}], "sources": [{"label": "Direct", "visitors": 460}]
            }))
            .unwrap(),), analytics::Msg::Breakdowns), NOW);
    app.handle(
        answer(
            analytics::TRAFFIC,
            traffic_token,
            Ok(traffic(30 * 24, &Granularity::Hour)),
            analytics::Msg::Traffic,
        ),
        NOW,
    );
    (app, request)
}

#[test]
fn thirty_days_are_hourly_and_a_year_is_daily() {
    let (mut app, request) = analytics_app();
    assert_eq!(
        request,
        GetTraffic {
            project_id: "prj_00000".into(),
            starts_at: datetime!(2026-10-24 00:00 UTC),
            ends_at: datetime!(2026-11-22 00:00 UTC),
            granularity: Granularity::Hour,
        }
    );
    assert!(app.analytics.traffic.data.is_some());
    // R, then two down: 365 days, daily.
    app.handle(key('R'), NOW);
    app.handle(key('j'), NOW);
    app.handle(key('j'), NOW);
    let effects = app.handle(code(KeyCode::Enter), NOW);
    let traffic = only(&effects, analytics::TRAFFIC);
    assert_eq!(traffic.op::<GetTraffic>().granularity, Granularity::Day);
}

#[test]
fn snapshot_traffic_chart() {
    for (width, height) in [(120, 35), (80, 24)] {
        let (app, _) = analytics_app();
        let frame = drawn(&app, width, height, NOW);
        assert!(!frame.full().contains('\u{1b}'));
        insta::assert_snapshot!(format!("traffic_chart_{width}x{height}"), frame.body());
    }
}

#[test]
fn a_failed_findings_page_ends_the_walk_to_the_end() {
    let mut app = security_open();
    let prefetched = with_findings(&mut app, true);
    // `G` walks to the last page; the next page is (or already was) asked for.
    let effects = app.handle(key('G'), NOW);
    let next = asked_in(&effects, FINDINGS)
        .pop()
        .or(prefetched)
        .expect("the next page is asked for");
    assert!(part(&app).findings.is_seeking_end());
    app.handle(
        next.fail(ErrorInfo::local("connection reset".into(), NOW)),
        NOW,
    );
    assert!(part(&app).findings.error.is_some());
    assert!(
        !part(&app).findings.is_seeking_end(),
        "a failed page ends the walk, as in the other lists"
    );
}

/// Issue 23: the detail pane's key also opened the scans, so rebinding
/// `toggle_detail` moved the scans with it. Each is its own action now.
#[test]
fn rebinding_the_detail_pane_leaves_the_scans_on_their_key() {
    let mut app = app();
    let overrides =
        std::collections::HashMap::from([("toggle_detail".to_owned(), vec!["x".to_owned()])]);
    app.settings.keymap = vantage::tui::keymap::Keymap::with_overrides(&overrides).unwrap();
    with_inventory(&mut app);
    let effects = app.handle(code(KeyCode::Enter), NOW);
    let read = only(&effects, PROJECT);
    app.handle(read.ok(clinic_portal()), NOW);
    let effects = app.handle(key('x'), NOW);
    assert!(
        asked_in(&effects, SCANS).is_empty(),
        "the detail pane's new key opens no scans"
    );
    let effects = app.handle(key('d'), NOW);
    only(&effects, SCANS);
}

#[test]
fn findings_are_ordered_by_severity_not_by_name() {
    let mut app = security_open();
    let effects = app.handle(code(KeyCode::Enter), NOW);
    let read = only(&effects, FINDINGS);
    // The service's order: info, unknown, warn, error, error.
    let mut page = findings_page(false);
    page.data.reverse();
    app.handle(read.ok(page), NOW);
    let levels: Vec<&str> = part(&app)
        .findings
        .rows
        .iter()
        .map(|f| f.level.as_str())
        .collect();
    assert_eq!(levels, ["error", "error", "warn", "info", "severe"]);
}

#[test]
fn ctrl_s_on_the_findings_exports_them_with_the_screens_filters() {
    let mut app = security_open();
    with_findings(&mut app, false);
    for pressed in ['t', ' '] {
        app.handle(key(pressed), NOW);
    }
    app.handle(code(KeyCode::Esc), NOW);
    let effects = app.handle(
        Msg::Key(KeyEvent::new(KeyCode::Char('s'), KeyModifiers::CONTROL)),
        NOW,
    );
    let export = crate::tui::support::only(&effects, vantage::tui::app::LIST_EXPORT);
    let vantage::tui::ops::ExportList { rows, path } = export.op();
    assert_eq!(
        rows,
        &vantage::tui::screens::project::security::findings_export(
            "prj_00000",
            "scn_latest",
            &vantage::api::model::FindingsFilter {
                levels: vec![vantage::api::model::FindingLevel::Error],
                ..Default::default()
            },
        )
    );
    assert!(path.to_string_lossy().ends_with(".csv"), "{path:?}");
}

/// A page of findings `from..from + 5`, more after it at `next`.
fn findings_from(from: usize, next: Option<&str>) -> Page<ScanFinding> {
    let data: Vec<Value> = (from..from + 5)
        .map(|n| finding(n, "warn", "open", &format!("Finding {n}"), "Shown as sent."))
        .collect();
    serde_json::from_value(json!({
        "data": data,
        "pagination": {"has_more": next.is_some(), "next_cursor": next}
    }))
    .unwrap()
}

/// `G` on a scan's findings walks the pages within the request budget, as
/// every list does: the project screen is told the budget too.
#[test]
fn capital_g_on_a_scans_findings_stops_at_the_budget_reserve() {
    let mut app = security_open();
    let effects = app.handle(code(KeyCode::Enter), NOW);
    let first = only(&effects, FINDINGS);
    // Five rows fill no screen: the next page is asked for at once.
    let effects = app.handle(first.ok(findings_from(0, Some("c1"))), NOW);
    let second = asked_in(&effects, FINDINGS).pop().expect("the next page");
    app.handle(key('G'), NOW);
    // The page's answer tells of a budget down to the user's reserve.
    app.handle(
        Msg::Client(vantage::tui::app::ClientNotice::RateLimit {
            remaining: 10,
            limit: 120,
        }),
        NOW,
    );
    let effects = app.handle(second.ok(findings_from(5, Some("c2"))), NOW);
    assert!(
        asked_in(&effects, FINDINGS).is_empty(),
        "no page past the reserve"
    );
    assert_eq!(part(&app).findings.rows.len(), 10);
    let shown: String = drawn(&app, 120, 35, NOW)
        .buffer()
        .content()
        .iter()
        .map(|cell| cell.symbol())
        .collect();
    assert!(shown.contains("request budget low"), "{shown}");
}
