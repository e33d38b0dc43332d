//! State-model tests of the project detail screen: App::handle driven with
//! synthetic replies and an injected time; no terminal, no network. Snapshots of
//! the screen are drawn on ratatui's TestBackend.

use crate::common::items::{self, inventory_item};
use crate::tui::support::{
    answer, answer_inventory_page, asked, drawn, key, only, special as code,
};
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use serde_json::json;
use time::Duration;
use time::macros::datetime;
use vantage::api::model::{
    AudienceSettings, Deployment, EmbedUrl, FieldError, InventoryPage, Project, PublishAudience,
    PublishSettings, Visibility,
};
use vantage::tui::action::Action;
use vantage::tui::app::{App, Identity, Msg};
use vantage::tui::effect::{Effect, ErrorInfo, Gate};
use vantage::tui::ops::{
    CreateEmbedUrl, DeleteProject, GetDeployment, GetProject, ListInventory, Publish,
    SaveWatchlist, Unpublish, UpdateProject, UpdatePublishSettings,
};
use vantage::tui::screens::project::{
    self as project_screen, DEPLOYMENT, PROJECT, WRITE, WriteAccess, Written,
};
use vantage::tui::screens::{Screen, inventory};
use vantage::tui::theme::{ColorDepth, ThemeName};

const NOW: time::OffsetDateTime = datetime!(2026-11-22 12:00 UTC);

pub(crate) fn app_with(read_only: bool) -> App {
    App::new(
        Identity {
            workspace: "ws_test".into(),
            workspace_id: "ws_test".into(),
            plan: Some("enterprise".into()),
            api_version: "2026-09-11".into(),
            read_only,
        },
        crate::tui::support::settings(ThemeName::Dark, ColorDepth::None),
    )
}

fn type_text(app: &mut App, text: &str) -> Vec<Effect> {
    let mut effects = Vec::new();
    for ch in text.chars() {
        effects.extend(app.handle(key(ch), NOW));
    }
    effects
}

fn item(n: usize) -> serde_json::Value {
    inventory_item(json!({
        "id": format!("prj_{n:05}"), "name": format!("Project {n}"),
        "description": "A budget tracker for the finance team", "url": format!("https://p{n}.example.app"),
        "is_published": n.is_multiple_of(2), "publish_audience": if n.is_multiple_of(2) { Some("custom") } else { None },
        "connectors": ["stripe"], "edge_functions": [{"name": "send-mail"}],
        "edit_count": 120, "message_count": 45, "edits_24h": 2, "edits_7d": 9, "edits_30d": 31,
        "visitors_24h": 12, "visitors_7d": 80, "visitors_30d": 1234,
        "last_edited_at": "2026-11-20T09:30:00Z", "last_security_scan_at": "2026-11-21T12:00:00Z",
        "owner": {"display_name": "Ada Lovelace"},
        "review_priority_explanation": [{"id": "public_security_exposure", "label": "Public app",
            "detail": "Published to everyone", "category": "exposure", "review_priority": "needs_review"}]
    }))
}

fn page_of(items: Vec<serde_json::Value>, total: usize) -> InventoryPage {
    serde_json::from_value(json!({
        "data": items, "pagination": {"has_more": false, "next_cursor": null},
        "total": total, "as_of": null, "activity_as_of": null, "applied_finding": null
    }))
    .unwrap()
}

fn page(range: std::ops::Range<usize>, total: usize) -> InventoryPage {
    page_of(range.map(item).collect(), total)
}

fn project_json(n: usize) -> serde_json::Value {
    items::project(json!({
        "id": format!("prj_{n:05}"), "name": format!("Project {n}"),
        "description": "A budget tracker for the finance team: expenses, approvals and monthly reports.",
        "last_edited_at": "2026-11-20T09:30:00Z",
        "latest_commit_sha": "3f2a9c1d4e5b6a7980a1b2c3d4e5f60718293a4b",
        "latest_screenshot_url": format!("https://shots.example.app/prj_{n:05}.png"),
        "owner_id": "8f1c2d3e-4b5a-4c6d-8e7f-9a0b1c2d3e4f",
        "is_published": n.is_multiple_of(2), "preview_url": format!("https://preview.example.app/prj_{n:05}"),
        "publish_audience": if n.is_multiple_of(2) { Some("custom") } else { None },
        "publish_audience_targets": if n.is_multiple_of(2) { json!([{"id": "grp_finance", "type": "group"}]) } else { json!([]) }
    }))
}

fn project(n: usize) -> Project {
    serde_json::from_value(project_json(n)).unwrap()
}

/// The inventory with projects 0..5 loaded.
pub(crate) fn inventory(app: &mut App) {
    app.start(NOW);
    let effects = app.handle(key('2'), NOW);
    let token = only(&effects, inventory::PAGE).token;
    app.handle(answer_inventory_page(token, page(0..5, 5)), NOW);
    assert_eq!(app.inventory.list.rows.len(), 5);
}

/// Opens the selected row's project and answers its GET.
pub(crate) fn open_selected(app: &mut App, n: usize) {
    let effects = app.handle(code(KeyCode::Enter), NOW);
    let read = only(&effects, PROJECT);
    assert_eq!(
        read.op::<GetProject>(),
        &GetProject {
            project_id: format!("prj_{n:05}")
        }
    );
    app.handle(read.ok(project(n)), NOW);
    assert_eq!(
        app.project
            .as_ref()
            .and_then(|p| p.project.as_ref())
            .map(|p| p.id.clone()),
        Some(format!("prj_{n:05}"))
    );
}

pub(crate) fn screen(app: &App) -> &vantage::tui::screens::project::ProjectScreen {
    app.project.as_ref().expect("the project screen is open")
}

fn error(status: u16, kind: &str, gate: Option<Gate>) -> ErrorInfo {
    ErrorInfo {
        status: Some(status),
        kind: Some(kind.into()),
        detail: None,
        request_id: Some("req_test".into()),
        summary: format!("{kind} (HTTP {status})"),
        gate,
        at: NOW,
    }
}

#[test]
fn enter_opens_the_project_and_d_still_toggles_the_pane() {
    let mut app = app_with(false);
    inventory(&mut app);
    let effects = app.handle(key('d'), NOW);
    assert!(asked(&effects).is_empty());
    assert!(
        app.project.is_none(),
        "d toggles the pane, it does not open"
    );
    app.handle(key('j'), NOW);
    open_selected(&mut app, 1);
    app.handle(code(KeyCode::Esc), NOW);
    assert!(app.project.is_none(), "esc goes back to the inventory");
    assert_eq!(app.tab, vantage::tui::nav::Tab::Inventory);
}

#[test]
fn the_name_is_validated_as_it_is_typed() {
    let mut app = app_with(false);
    inventory(&mut app);
    open_selected(&mut app, 0);
    app.handle(key('e'), NOW);
    assert!(screen(&app).is_renaming());
    assert_eq!(
        screen(&app).rename_error(),
        None,
        "the current name is valid"
    );
    // While typing, q and D are text, not actions.
    type_text(&mut app, " q🚀");
    assert!(!app.should_quit);
    let problem = screen(&app).rename_error().expect("an emoji is refused");
    assert!(problem.contains("not allowed"), "{problem}");
    // Enter with a bad name sends nothing.
    let effects = app.handle(code(KeyCode::Enter), NOW);
    assert!(asked(&effects).is_empty());
    app.handle(code(KeyCode::Backspace), NOW);
    assert_eq!(screen(&app).rename_error(), None);
    type_text(&mut app, " example.com");
    assert!(
        screen(&app)
            .rename_error()
            .is_some_and(|e| e.contains("link")),
        "a domain is refused as it is typed"
    );
    for _ in 0.." Project 0 q example.com".chars().count() + 2 {
        app.handle(code(KeyCode::Backspace), NOW);
    }
    assert_eq!(
        screen(&app).rename_error().as_deref(),
        Some("name must not be empty")
    );
}

#[test]
fn a_server_refusal_of_the_name_is_shown_on_the_field() {
    let mut app = app_with(false);
    inventory(&mut app);
    open_selected(&mut app, 0);
    app.handle(key('e'), NOW);
    let effects = type_text(&mut app, " v2");
    assert!(asked(&effects).is_empty(), "no request per keystroke");
    let effects = app.handle(code(KeyCode::Enter), NOW);
    let write = only(&effects, WRITE);
    assert_eq!(
        write.op::<UpdateProject>(),
        &UpdateProject {
            project_id: "prj_00000".into(),
            update: vantage::api::model::ProjectUpdate {
                name: Some("Project 0 v2".into()),
                visibility: None
            }
        }
    );
    let refusal = error(
        400,
        "invalid_request",
        Some(Gate::Fields(vec![FieldError {
            message: "name is reserved".into(),
            location: Some("body.name".into()),
        }])),
    );
    app.handle(write.fail(refusal), NOW);
    assert!(screen(&app).is_renaming(), "the field stays open");
    assert_eq!(
        screen(&app).rename_error().as_deref(),
        Some("name is reserved")
    );
    // Editing the text clears the server's refusal.
    type_text(&mut app, "b");
    assert_eq!(screen(&app).rename_error(), None);
}

#[test]
fn a_rename_shows_the_response_and_the_inventory_catches_up() {
    let mut app = app_with(false);
    inventory(&mut app);
    open_selected(&mut app, 0);
    app.handle(key('e'), NOW);
    type_text(&mut app, " v2");
    let effects = app.handle(code(KeyCode::Enter), NOW);
    let write = only(&effects, WRITE);
    let mut renamed = project(0);
    renamed.name = Some("Project 0 v2".into());
    let effects = app.handle(write.ok(renamed), NOW);
    assert!(
        asked(&effects).is_empty(),
        "the PATCH response is shown as is"
    );
    assert!(!screen(&app).is_renaming());
    assert_eq!(
        screen(&app).project.as_ref().unwrap().name.as_deref(),
        Some("Project 0 v2")
    );
    app.handle(code(KeyCode::Esc), NOW);
    assert_eq!(
        app.inventory.list.rows[0].name.as_deref(),
        Some("Project 0 v2"),
        "the loaded row is patched from the write's response"
    );
    assert!(app.inventory.catch_up.waiting());
    // The list is re-read with backoff until it agrees.
    let first = app.wake_at().expect("a re-read is scheduled");
    assert!(first > NOW);
    assert!(asked(&app.handle(Msg::Wake, NOW)).is_empty(), "not yet");
    let effects = app.handle(Msg::Wake, first);
    let recheck = only(&effects, inventory::RECHECK);
    assert!(matches!(
        recheck.op::<ListInventory>(),
        ListInventory { cursor: None, .. }
    ));
    // A stale list still shows the old name: the patch stays, the re-read backs off.
    app.handle(recheck.ok(page(0..5, 5)), first);
    assert_eq!(
        app.inventory.list.rows[0].name.as_deref(),
        Some("Project 0 v2")
    );
    assert!(app.inventory.catch_up.waiting());
    let second = app.wake_at().expect("another re-read");
    assert!(second - first > first - NOW, "the wait grows");
    let effects = app.handle(Msg::Wake, second);
    let recheck = only(&effects, inventory::RECHECK);
    let mut fresh: Vec<_> = (0..5).map(item).collect();
    fresh[0]["name"] = json!("Project 0 v2");
    app.handle(recheck.ok(page_of(fresh, 5)), second);
    assert!(!app.inventory.catch_up.waiting(), "the server agrees");
    assert_eq!(app.wake_at(), None, "nothing left to wait for");
}

#[test]
fn visibility_is_picked_from_a_menu() {
    let mut app = app_with(false);
    inventory(&mut app);
    open_selected(&mut app, 0);
    app.handle(key('v'), NOW);
    assert!(screen(&app).menu_open());
    // The menu opens on the current value (workspace_edit); one up is workspace_view.
    app.handle(key('k'), NOW);
    let effects = app.handle(code(KeyCode::Enter), NOW);
    let write = only(&effects, WRITE);
    assert_eq!(
        write.op::<UpdateProject>(),
        &UpdateProject {
            project_id: "prj_00000".into(),
            update: vantage::api::model::ProjectUpdate {
                name: None,
                visibility: Some(Visibility::WorkspaceView)
            }
        }
    );
    let mut changed = project(0);
    changed.visibility = Some(Visibility::WorkspaceView);
    app.handle(write.ok(changed), NOW);
    assert_eq!(
        app.inventory.list.rows[0].visibility,
        Some(Visibility::WorkspaceView)
    );
}

#[test]
fn delete_needs_the_exact_name_typed() {
    let mut app = app_with(false);
    inventory(&mut app);
    app.handle(key('j'), NOW);
    app.handle(key('j'), NOW);
    open_selected(&mut app, 2);
    app.handle(key('D'), NOW);
    assert!(screen(&app).confirm().is_some());
    let effects = type_text(&mut app, "project 2");
    assert!(asked(&effects).is_empty());
    let effects = app.handle(code(KeyCode::Enter), NOW);
    assert!(asked(&effects).is_empty(), "a near miss deletes nothing");
    assert!(screen(&app).confirm().is_some());
    for _ in 0..9 {
        app.handle(code(KeyCode::Backspace), NOW);
    }
    type_text(&mut app, "Project 2");
    let effects = app.handle(code(KeyCode::Enter), NOW);
    let write = only(&effects, WRITE);
    assert_eq!(
        write.op::<DeleteProject>(),
        &DeleteProject {
            project_id: "prj_00002".into()
        }
    );
    // Leaving while the delete is in flight is refused: its answer matters.
    app.handle(code(KeyCode::Esc), NOW);
    assert!(app.project.is_some());
    app.handle(write.ok(()), NOW);
    assert!(app.project.is_none(), "back in the inventory");
    assert_eq!(app.inventory.list.rows.len(), 4);
    assert!(
        app.inventory
            .list
            .rows
            .iter()
            .all(|row| row.id != "prj_00002")
    );
    assert_eq!(app.inventory.total, Some(4));
    // A stale page that still lists the row does not bring it back.
    let effects = app.handle(key('r'), NOW);
    let token = only(&effects, inventory::PAGE).token;
    app.handle(answer_inventory_page(token, page(0..5, 5)), NOW);
    assert_eq!(app.inventory.list.rows.len(), 4);
    assert_eq!(app.inventory.total, Some(4));
}

#[test]
fn esc_cancels_a_confirmation() {
    let mut app = app_with(false);
    inventory(&mut app);
    open_selected(&mut app, 0);
    app.handle(key('u'), NOW);
    assert!(screen(&app).confirm().is_some());
    let effects = app.handle(code(KeyCode::Esc), NOW);
    assert!(asked(&effects).is_empty());
    assert!(screen(&app).confirm().is_none());
    app.handle(key('u'), NOW);
    let effects = app.handle(key('y'), NOW);
    assert_eq!(
        only(&effects, WRITE).op::<Unpublish>(),
        &Unpublish {
            project_id: "prj_00000".into()
        }
    );
}

pub(crate) fn deployment(status: &str) -> Deployment {
    let url = (status == "completed").then_some("https://budget.example.app");
    serde_json::from_value(json!({
        "id": "dep_1", "status": status, "url": url, "error_class": null, "error_message": null
    }))
    .unwrap()
}

#[test]
fn a_deployment_is_polled_within_the_contract_limits() {
    let mut app = app_with(false);
    inventory(&mut app);
    open_selected(&mut app, 0);
    app.handle(key('p'), NOW);
    assert!(
        screen(&app).audience_dialog_open(),
        "p publishes here, after an explicit choice"
    );
    // Neither enter nor y publishes: the audience must be chosen.
    for bare in [KeyCode::Enter, KeyCode::Char('y')] {
        let effects = app.handle(Msg::Key(KeyEvent::new(bare, KeyModifiers::NONE)), NOW);
        assert!(asked(&effects).is_empty(), "{bare:?}");
        assert!(screen(&app).audience_dialog_open());
    }
    let effects = app.handle(key('w'), NOW);
    let write = only(&effects, WRITE);
    assert_eq!(
        write.op::<Publish>(),
        &Publish {
            project_id: "prj_00000".into(),
            audience: Some(PublishAudience::Workspace),
        }
    );
    let accepted = NOW + Duration::milliseconds(300);
    app.handle(write.ok(deployment("running")), accepted);
    let mut now;
    let mut polls = Vec::new();
    for round in 0..8 {
        let due = app.wake_at().expect("a poll is scheduled");
        // Waking early does nothing.
        let early = app.handle(Msg::Wake, due - Duration::milliseconds(1));
        assert!(asked(&early).is_empty(), "round {round}: no early poll");
        // The runtime may wake late; the schedule counts from the answer.
        now = due + Duration::milliseconds(40);
        polls.push(due);
        let effects = app.handle(Msg::Wake, now);
        let poll = only(&effects, DEPLOYMENT);
        assert_eq!(
            poll.op::<GetDeployment>(),
            &GetDeployment {
                project_id: "prj_00000".into(),
                deployment_id: "dep_1".into()
            }
        );
        assert_eq!(app.wake_at(), None, "no poll while one is in flight");
        now += Duration::milliseconds(60);
        app.handle(poll.ok(deployment("running")), now);
    }
    assert!(
        polls[0] - accepted >= Duration::seconds(2),
        "the first poll is at least 2 s after the 202"
    );
    let mut answered = accepted;
    let mut gaps = Vec::new();
    for due in &polls {
        gaps.push(*due - answered);
        answered = *due + Duration::milliseconds(100);
    }
    for pair in gaps.windows(2) {
        assert!(pair[1] >= pair[0], "intervals never shrink: {gaps:?}");
    }
    assert!(gaps.iter().all(|gap| *gap >= Duration::seconds(2)));
    assert!(gaps.iter().all(|gap| *gap <= Duration::seconds(10)));
    assert_eq!(*gaps.last().unwrap(), Duration::seconds(10), "{gaps:?}");
    assert!(gaps[1] > gaps[0], "it backs off: {gaps:?}");
    // Completion stops polling and reads the project back.
    let due = app.wake_at().unwrap();
    let effects = app.handle(Msg::Wake, due);
    let poll = only(&effects, DEPLOYMENT);
    let effects = app.handle(poll.ok(deployment("completed")), due);
    only(&effects, PROJECT);
    assert_eq!(app.wake_at(), None, "a terminal deployment is not polled");
    let watch = screen(&app).deployment.as_ref().unwrap();
    assert_eq!(
        watch.deployment.url.as_deref(),
        Some("https://budget.example.app")
    );
}

#[test]
fn a_failed_deployment_stops_polling_and_critical_findings_are_named() {
    let mut app = app_with(false);
    inventory(&mut app);
    open_selected(&mut app, 0);
    app.handle(key('p'), NOW);
    let effects = app.handle(key('k'), NOW);
    let write = only(&effects, WRITE);
    let blocked = error(
        403,
        "security_critical_findings",
        Some(Gate::BlockingFindings(vec!["scan_1/finding_7".into()])),
    );
    app.handle(write.fail(blocked), NOW);
    assert_eq!(app.wake_at(), None, "nothing to poll");
    let text = render(&app, 120, 35);
    assert!(text.contains("scan_1/finding_7"), "{text}");
    // A deployment that ends in error stops too.
    app.handle(key('p'), NOW);
    let effects = app.handle(key('k'), NOW);
    let write = only(&effects, WRITE);
    app.handle(write.ok(deployment("running")), NOW);
    let due = app.wake_at().unwrap();
    let effects = app.handle(Msg::Wake, due);
    let poll = only(&effects, DEPLOYMENT);
    let failed: Deployment = serde_json::from_value(json!({
        "id": "dep_1", "status": "error", "url": null, "error_class": "code",
        "error_message": "build failed: missing module"
    }))
    .unwrap();
    app.handle(poll.ok(failed), due);
    assert_eq!(app.wake_at(), None);
    let text = render(&app, 120, 35);
    assert!(text.contains("build failed: missing module"), "{text}");
    assert!(text.contains("(code)"), "{text}");
}

#[test]
fn read_only_hides_every_action() {
    let mut app = app_with(true);
    inventory(&mut app);
    open_selected(&mut app, 0);
    let offered: Vec<Action> = screen(&app)
        .actions()
        .into_iter()
        .map(|offered| offered.action)
        .collect();
    for action in [
        Action::Rename,
        Action::Visibility,
        Action::Publish,
        Action::Unpublish,
        Action::Delete,
    ] {
        assert!(!offered.contains(&action), "{action:?} is hidden");
    }
    for ch in ['e', 'v', 'u', 'p', 'D'] {
        let effects = app.handle(key(ch), NOW);
        assert!(asked(&effects).is_empty(), "{ch} changes nothing");
        assert!(!screen(&app).is_renaming() && screen(&app).confirm().is_none());
        assert!(!screen(&app).menu_open());
    }
    let text = render(&app, 120, 35);
    assert!(text.contains("read-only mode"), "a notice says why: {text}");
    assert!(!text.contains("rename"), "{text}");
}

#[test]
fn a_missing_write_scope_disables_the_actions() {
    let mut app = app_with(false);
    inventory(&mut app);
    open_selected(&mut app, 0);
    app.handle(key('u'), NOW);
    let effects = app.handle(key('y'), NOW);
    let write = only(&effects, WRITE);
    let refused = error(
        403,
        "insufficient_scope",
        Some(Gate::Scopes(vec!["projects:write".into()])),
    );
    app.handle(write.fail(refused), NOW);
    assert_eq!(
        screen(&app).access,
        WriteAccess::MissingScope(vec!["projects:write".into()])
    );
    let effects = app.handle(key('e'), NOW);
    assert!(asked(&effects).is_empty());
    assert!(!screen(&app).is_renaming());
    // The next project knows it from the start.
    app.handle(code(KeyCode::Esc), NOW);
    app.handle(key('j'), NOW);
    open_selected(&mut app, 1);
    assert!(matches!(screen(&app).access, WriteAccess::MissingScope(_)));
    let text = render(&app, 120, 35);
    let footer = text.lines().last().unwrap_or_default();
    assert!(
        footer.contains("e rename") && footer.contains("key lacks projects:write"),
        "{footer}"
    );
    // A disabled action is styled as disabled, not marked by a string.
    let frame = drawn(&app, 120, 35, NOW);
    let buffer = frame.buffer();
    let at = footer.find("e rename").unwrap_or_default() as u16;
    let style = buffer[(at, 34)].style();
    assert!(
        style
            .add_modifier
            .contains(ratatui::style::Modifier::CROSSED_OUT),
        "{style:?}"
    );
    assert!(!footer.contains('✗'), "{footer}");
    // Its key says why, and does nothing.
    let effects = app.handle(key('e'), NOW);
    assert!(asked(&effects).is_empty() && !screen(&app).is_renaming());
    let text = render(&app, 120, 35);
    assert!(text.contains("the API key lacks projects:write"), "{text}");
}

#[test]
fn stale_replies_are_dropped() {
    let mut app = app_with(false);
    inventory(&mut app);
    let effects = app.handle(code(KeyCode::Enter), NOW);
    let first = only(&effects, PROJECT);
    app.handle(code(KeyCode::Esc), NOW);
    app.handle(key('j'), NOW);
    let effects = app.handle(code(KeyCode::Enter), NOW);
    let second = only(&effects, PROJECT);
    // The answer for the project left behind arrives late.
    app.handle(first.ok(project(0)), NOW);
    assert!(
        screen(&app).project.is_none(),
        "the older project's answer is dropped"
    );
    app.handle(second.ok(project(1)), NOW);
    assert_eq!(screen(&app).project.as_ref().unwrap().id, "prj_00001");
    // A write answer with a token not in flight changes nothing.
    let mut renamed = project(1);
    renamed.name = Some("Hijacked".into());
    app.handle(
        answer(WRITE, second.token + 100, Ok(renamed), |result| {
            project_screen::Msg::Wrote(result.map(|project| Written::Project(Box::new(project))))
        }),
        NOW,
    );
    assert_eq!(
        screen(&app).project.as_ref().unwrap().name.as_deref(),
        Some("Project 1")
    );
    assert_eq!(
        app.inventory.list.rows[1].name.as_deref(),
        Some("Project 1")
    );
}

/// The App's rule for the project screen's answers: one that arrives after
/// the screen was left is dropped (it opens nothing and asks for nothing).
#[test]
fn an_answer_for_a_project_screen_that_was_left_is_dropped() {
    let mut app = app_with(false);
    inventory(&mut app);
    let effects = app.handle(code(KeyCode::Enter), NOW);
    let read = only(&effects, PROJECT);
    app.handle(code(KeyCode::Esc), NOW);
    assert!(app.project.is_none());
    let effects = app.handle(read.ok(project(0)), NOW);
    assert!(asked(&effects).is_empty(), "{effects:?}");
    assert!(app.project.is_none(), "the late answer opens nothing");
    assert_eq!(app.tab, vantage::tui::nav::Tab::Inventory);
}

// --- Snapshots ------------------------------------------------------------

/// The project screen's own area at `NOW`, below the tab bar and above the
/// status line, as text.
fn body(app: &App, width: u16, height: u16) -> String {
    drawn(app, width, height, NOW).body()
}

/// The whole frame at `NOW`, each row as drawn, unquoted.
pub(crate) fn render(app: &App, width: u16, height: u16) -> String {
    let frame = drawn(app, width, height, NOW);
    let buffer = frame.buffer();
    let mut out = String::new();
    for y in 0..height {
        for x in 0..width {
            out.push_str(buffer[(x, y)].symbol());
        }
        out.push('\n');
    }
    out
}

fn project_screen_app() -> App {
    let mut app = app_with(false);
    inventory(&mut app);
    open_selected(&mut app, 0);
    app
}

#[test]
fn snapshot_project_wide() {
    let app = project_screen_app();
    let header = drawn(&app, 120, 35, NOW).header().to_owned();
    assert!(
        header.contains(" Inventory › Project 0 "),
        "the breadcrumb: {header}"
    );
    insta::assert_snapshot!(body(&app, 120, 35));
}

#[test]
fn snapshot_project_narrow() {
    let app = project_screen_app();
    insta::assert_snapshot!(body(&app, 80, 24));
}

#[test]
fn snapshot_confirm_delete() {
    let mut app = project_screen_app();
    app.handle(key('D'), NOW);
    type_text(&mut app, "Project");
    insta::assert_snapshot!(body(&app, 120, 35));
}

#[test]
fn snapshot_rename_error() {
    let mut app = project_screen_app();
    app.handle(key('e'), NOW);
    type_text(&mut app, " → example.com");
    insta::assert_snapshot!(body(&app, 80, 24));
}

// ---------------------------------------------------------------- audience and embed URL

#[test]
fn snapshot_publish_confirm_names_the_audience_and_the_risk() {
    let mut app = project_screen_app();
    app.handle(key('p'), NOW);
    // A bare enter publishes nothing; the dialog says which keys do.
    let effects = app.handle(code(KeyCode::Enter), NOW);
    assert!(asked(&effects).is_empty());
    insta::assert_snapshot!(body(&app, 120, 35));
}

/// Issue 14: an offline project's saved audience is not in the reply and may be
/// public, so `k` on a risky project asks again before it publishes.
#[test]
fn keeping_an_unknown_audience_on_a_risky_project_asks_twice() {
    let mut app = app_with(false);
    inventory(&mut app);
    app.handle(key('j'), NOW);
    open_selected(&mut app, 1);
    app.handle(key('p'), NOW);
    let first = render(&app, 120, 35);
    assert!(first.contains("not shown (the app is offline)"), "{first}");
    assert!(first.contains("unknown, may be public"), "{first}");
    let effects = app.handle(key('k'), NOW);
    assert!(asked(&effects).is_empty(), "k alone publishes nothing");
    assert!(screen(&app).audience_dialog_open());
    insta::assert_snapshot!(body(&app, 120, 35));
    let effects = app.handle(key('y'), NOW);
    assert_eq!(
        only(&effects, WRITE).op::<Publish>(),
        &Publish {
            project_id: "prj_00001".into(),
            audience: None,
        }
    );
}

/// A known audience is kept at once.
#[test]
fn keeping_a_known_audience_publishes_at_once() {
    let mut app = project_screen_app();
    app.handle(key('p'), NOW);
    let effects = app.handle(key('k'), NOW);
    assert_eq!(
        only(&effects, WRITE).op::<Publish>(),
        &Publish {
            project_id: "prj_00000".into(),
            audience: None,
        }
    );
}

#[test]
fn snapshot_audience_editor_shows_what_changes_and_warns_on_widening() {
    let mut app = project_screen_app();
    app.handle(key('a'), NOW);
    insta::assert_snapshot!("audience_choose", body(&app, 80, 24));
    // custom → public: up twice, then review.
    app.handle(code(KeyCode::Up), NOW);
    app.handle(code(KeyCode::Up), NOW);
    let effects = app.handle(code(KeyCode::Enter), NOW);
    assert!(asked(&effects).is_empty(), "nothing is sent before review");
    let screen_text = render(&app, 120, 35);
    assert!(screen_text.contains("custom → public"), "{screen_text}");
    assert!(
        screen_text.contains("This widens who can open the app"),
        "{screen_text}"
    );
    insta::assert_snapshot!("audience_review", body(&app, 120, 35));
    let effects = app.handle(key('y'), NOW);
    let write = only(&effects, WRITE);
    assert_eq!(
        write.op::<UpdatePublishSettings>(),
        &UpdatePublishSettings {
            project_id: "prj_00000".into(),
            settings: PublishSettings {
                audience: PublishAudience::Public,
                audience_targets: vec![],
            },
        }
    );
    // The answer is the settings; the project is read back.
    let settings = AudienceSettings {
        audience: Some(PublishAudience::Public),
        audience_targets: vec![],
    };
    let effects = app.handle(write.ok(settings), NOW);
    assert_eq!(
        only(&effects, PROJECT).op::<GetProject>(),
        &GetProject {
            project_id: "prj_00000".into()
        }
    );
    assert!(render(&app, 120, 35).contains("the audience is now public"));
}

#[test]
fn custom_targets_are_checked_before_review() {
    let mut app = project_screen_app();
    app.handle(key('a'), NOW);
    // Custom is the current audience; its target is filled in.
    type_text(&mut app, ", team:x");
    let effects = app.handle(code(KeyCode::Enter), NOW);
    assert!(asked(&effects).is_empty());
    assert!(render(&app, 120, 35).contains("expected group:ID or user:ID"));
    for _ in 0..", team:x".len() {
        app.handle(code(KeyCode::Backspace), NOW);
    }
    type_text(&mut app, ", user:u1");
    app.handle(code(KeyCode::Enter), NOW);
    // Enter in review is not a yes.
    assert!(asked(&app.handle(code(KeyCode::Enter), NOW)).is_empty());
    let effects = app.handle(key('y'), NOW);
    let write = only(&effects, WRITE);
    let UpdatePublishSettings { settings, .. } = write.op::<UpdatePublishSettings>().clone();
    assert_eq!(settings.audience, PublishAudience::Custom);
    let targets: Vec<(String, String)> = settings
        .audience_targets
        .into_iter()
        .map(|t| (t.kind, t.id))
        .collect();
    assert_eq!(
        targets,
        [
            ("group".to_owned(), "grp_finance".to_owned()),
            ("user".to_owned(), "u1".to_owned())
        ]
    );
}

#[test]
fn an_embed_url_needs_one_https_origin_and_is_copied() {
    let mut app = project_screen_app();
    app.handle(key('E'), NOW);
    // The field starts with https://.
    type_text(&mut app, "intranet.example.com/app");
    let effects = app.handle(code(KeyCode::Enter), NOW);
    assert!(
        asked(&effects).is_empty(),
        "a path is refused before sending"
    );
    assert!(render(&app, 120, 35).contains("no path"));
    for _ in 0.."/app".len() {
        app.handle(code(KeyCode::Backspace), NOW);
    }
    let effects = app.handle(code(KeyCode::Enter), NOW);
    let write = only(&effects, WRITE);
    assert_eq!(
        write.op::<CreateEmbedUrl>(),
        &CreateEmbedUrl {
            project_id: "prj_00000".into(),
            parent_origin: "https://intranet.example.com".into(),
        }
    );
    let url = "https://embed.example.app/prj_00000?token=abc";
    let embed = EmbedUrl {
        embed_url: url.into(),
        expires_at: NOW + Duration::hours(1),
    };
    let effects = app.handle(write.ok(embed), NOW);
    assert!(
        effects
            .iter()
            .any(|effect| matches!(effect, Effect::Copy(text) if text.as_str() == url)),
        "{effects:?}"
    );
    let shown = render(&app, 120, 35);
    assert!(shown.contains(url), "{shown}");
    assert!(shown.contains("expires"), "{shown}");
}

#[test]
fn read_only_hides_the_audience_and_embed_actions() {
    let mut app = app_with(true);
    inventory(&mut app);
    open_selected(&mut app, 0);
    for action in ['a', 'E', 'p'] {
        let effects = app.handle(key(action), NOW);
        assert!(asked(&effects).is_empty());
        assert!(!screen(&app).audience_dialog_open(), "{action}");
    }
    let shown = render(&app, 120, 35);
    assert!(!shown.contains("a audience"), "{shown}");
    assert!(!shown.contains("E embed"), "{shown}");
}

// ---------------------------------------------------------------- watch and the footer

/// The project ids of a watch-list save among `effects`.
fn saved_watchlist(effects: &[Effect]) -> Option<Vec<String>> {
    asked(effects).into_iter().find_map(|fetch| {
        let save = fetch.operation::<SaveWatchlist>()?;
        Some(save.entries.iter().map(|entry| entry.id.clone()).collect())
    })
}

#[test]
fn w_on_the_project_screen_watches_that_project_through_the_saved_list() {
    let mut app = app_with(false);
    inventory(&mut app);
    let file = std::env::temp_dir().join(format!("vantage-watch-{}.json", std::process::id()));
    app.monitor.use_watchlist_file(file.clone());
    // Opened from the palette: the inventory's selected row stays project 0.
    app.handle(key(':'), NOW);
    type_text(&mut app, "prj_00003");
    let effects = app.handle(code(KeyCode::Enter), NOW);
    let read = only(&effects, PROJECT);
    app.handle(read.ok(project(3)), NOW);
    assert_eq!(screen(&app).project_id(), "prj_00003");
    assert_eq!(
        app.inventory.selected_item().map(|i| i.id.as_str()),
        Some("prj_00000")
    );

    let effects = app.handle(key('w'), NOW);
    assert_eq!(
        saved_watchlist(&effects),
        Some(vec!["prj_00003".to_owned()]),
        "the same save the inventory's w asks the executor for"
    );
    assert_eq!(app.monitor.watch[0].name.as_deref(), Some("Project 3"));
    assert!(render(&app, 120, 35).contains("pinned Project 3 to the monitor"));
    // And again: unwatched, saved.
    let effects = app.handle(key('w'), NOW);
    assert_eq!(saved_watchlist(&effects), Some(vec![]));
    assert!(app.monitor.watch.is_empty());
    assert!(!file.exists(), "the screen never writes the file itself");
}

#[test]
fn every_project_action_is_in_the_footer_at_120_columns_and_in_the_help() {
    let app = project_screen_app();
    let footer = |width: u16| {
        render(&app, width, 35)
            .lines()
            .last()
            .unwrap_or_default()
            .to_owned()
    };
    let wide = footer(120);
    let actions = screen(&app).actions();
    let hints: Vec<(Action, &str)> = actions
        .iter()
        .filter_map(|offered| Some((offered.action, offered.hint?)))
        .collect();
    for (action, label) in &hints {
        let key = app.settings.keymap.key_for(*action);
        assert!(
            wide.contains(&format!("{key} {label}")),
            "{key} {label} in {wide:?}"
        );
    }
    assert!(
        wide.contains("D delete") && wide.contains("w watch"),
        "{wide}"
    );
    // At 80 columns the footer keeps the first ones and ends with `? more`:
    // the help lists every action of the footer.
    let narrow = footer(80);
    assert!(
        narrow.contains("esc back") && narrow.trim_end().ends_with("? more"),
        "{narrow}"
    );
    // Every footer word fits at 120; the help has more (scrolling, copy).
    assert!(wide.trim_end().ends_with("? more"), "{wide}");
}

/// Issue 14: the help lists each key once (the screen's own words win over
/// the common line), and a wrapped text goes on under its text, not under
/// the keys.
#[test]
fn the_help_lists_refresh_once_and_indents_wrapped_lines() {
    let mut app = project_screen_app();
    app.handle(key('?'), NOW);
    let text = render(&app, 60, 40);
    assert_eq!(text.matches("r f5").count(), 1, "{text}");
    assert!(text.contains("read the project again"), "{text}");
    // "who may open the published app (shows what changes first)" wraps at 60.
    let continued = text
        .lines()
        .find(|line| line.contains("changes first"))
        .expect("the audience line wraps");
    let inner = continued.split('│').nth(1).unwrap_or_default();
    assert!(inner.starts_with("              "), "{continued:?}");
}

/// Issue 35, item 22: a long screenshot URL and a long "Granted to" wrap
/// under their value, never back to column 0 under the labels.
#[test]
fn long_values_wrap_under_their_label() {
    let mut app = app_with(false);
    inventory(&mut app);
    let effects = app.handle(code(KeyCode::Enter), NOW);
    let read = only(&effects, PROJECT);
    let mut long = project_json(0);
    long["latest_screenshot_url"] =
        json!(format!("https://shots.example.app/{}.png", "s".repeat(120)));
    long["publish_audience_targets"] = json!(
        (0..8)
            .map(|n| json!({"id": format!("grp_finance_team_{n}"), "type": "group"}))
            .collect::<Vec<_>>()
    );
    app.handle(
        read.ok(serde_json::from_value::<Project>(long).unwrap()),
        NOW,
    );
    for (width, height) in [(80, 50), (120, 50), (200, 50)] {
        let text = render(&app, width, height);
        let rows: Vec<Vec<char>> = text.lines().map(|line| line.chars().collect()).collect();
        for (label, next) in [("Screenshot", "Preview"), ("Granted to", "")] {
            let (top, column) = rows
                .iter()
                .enumerate()
                .find_map(|(y, row)| {
                    let line: String = row.iter().collect();
                    line.find(label)
                        .map(|byte| (y, line[..byte].chars().count()))
                })
                .unwrap_or_else(|| panic!("{label} at {width}: {text}"));
            let value = column + 15;
            let wrapped: Vec<&Vec<char>> = rows[top + 1..]
                .iter()
                .take_while(|row| {
                    let line: String = row.iter().collect();
                    let blank_label = row[column..value].iter().all(|ch| *ch == ' ');
                    blank_label
                        && row.get(value).is_some_and(|ch| *ch != ' ')
                        && (next.is_empty() || !line.contains(next))
                })
                .collect();
            assert!(
                !wrapped.is_empty(),
                "{label} wraps under its value at {width} columns:\n{text}"
            );
        }
    }
}
