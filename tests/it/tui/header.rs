//! The header's plan: the workspace read's, as soon as it answers, and nothing
//! guessed before (issue 14: it said `plan business or higher` until the
//! inventory loaded).

use time::OffsetDateTime;
use time::macros::datetime;
use vantage::api::model::{Workspace, WorkspacePlan};
use vantage::tui::app::App;
use vantage::tui::effect::{Effect, ErrorInfo, Gate};

use crate::tui::support::answer;
use crate::tui::support::{app, drawn};
use vantage::tui::app;
use vantage::tui::ops::GetWorkspace;
use vantage::tui::screens::inventory;

const NOW: OffsetDateTime = datetime!(2026-11-22 12:00 UTC);

fn header(app: &App) -> String {
    drawn(app, 100, 24, NOW).header().to_owned()
}

fn workspace_read(effects: &[Effect]) -> Option<u64> {
    effects.iter().find_map(|effect| match effect {
        Effect::Fetch {
            slot: app::WORKSPACE,
            token,
            job,
        } if job.operation() == Some(&GetWorkspace {}) => Some(*token),
        _ => None,
    })
}

fn workspace(plan: Option<WorkspacePlan>) -> Workspace {
    Workspace {
        id: "ws_test".into(),
        name: Some("Test".into()),
        description: None,
        image_url: None,
        plan,
        num_projects: Some(3),
        created_at: None,
        updated_at: None,
    }
}

fn refusal(status: u16, kind: &str, gate: Option<Gate>) -> ErrorInfo {
    ErrorInfo {
        status: Some(status),
        kind: Some(kind.into()),
        detail: None,
        request_id: None,
        summary: format!("{kind} (HTTP {status})"),
        gate,
        at: NOW,
    }
}

#[test]
fn the_header_shows_the_plan_of_the_workspace_read_and_nothing_before() {
    let mut app = app();
    let effects = app.start(NOW);
    let token = workspace_read(&effects).expect("the workspace is read at start");
    assert!(header(&app).contains("plan … "), "{}", header(&app));

    // What other replies allow or refuse is not a plan.
    app.handle(
        answer(
            inventory::PAGE,
            999,
            Err(refusal(
                402,
                "plan_required",
                Some(Gate::Plan("enterprise".into())),
            )),
            inventory::Msg::Page,
        ),
        NOW,
    );
    assert!(header(&app).contains("plan … "), "{}", header(&app));

    app.dirty = false;
    app.handle(
        answer(
            app::WORKSPACE,
            token,
            Ok(workspace(Some(WorkspacePlan::Business))),
            app::AppMsg::Workspace,
        ),
        NOW,
    );
    assert!(app.dirty, "the header changed");
    let shown = header(&app);
    assert!(shown.contains("plan business "), "{shown}");
    assert!(!shown.contains("or higher"), "{shown}");

    // A plan the client does not know is shown as the service names it.
    let mut app = crate::tui::support::app();
    let token = workspace_read(&app.start(NOW)).unwrap();
    app.handle(
        answer(
            app::WORKSPACE,
            token,
            Ok(workspace(Some(WorkspacePlan::parse("enterprise_plus")))),
            app::AppMsg::Workspace,
        ),
        NOW,
    );
    assert!(
        header(&app).contains("plan enterprise_plus "),
        "{}",
        header(&app)
    );
}

#[test]
fn a_service_without_the_workspace_read_leaves_the_plan_unsaid_and_logs_nothing() {
    let mut app = app();
    let token = workspace_read(&app.start(NOW)).unwrap();
    app.handle(
        answer(
            app::WORKSPACE,
            token,
            Err(refusal(404, "not_found", None)),
            app::AppMsg::Workspace,
        ),
        NOW,
    );
    assert!(header(&app).contains("plan … "), "{}", header(&app));
    assert!(app.errors.is_empty(), "{:?}", app.errors);
}

#[test]
fn a_plan_known_at_launch_is_not_read_again() {
    let mut app = app();
    app.identity.plan = Some("pro".into());
    assert_eq!(workspace_read(&app.start(NOW)), None);
    assert!(header(&app).contains("plan pro "), "{}", header(&app));
}

#[test]
fn a_hostile_plan_is_shown_as_visible_escapes_and_cut_short() {
    let mut app = app();
    let token = workspace_read(&app.start(NOW)).unwrap();
    let hostile = "\u{1b}[31mred\u{202e}gnp\u{7}".to_owned() + &"x".repeat(60);
    app.handle(
        answer(
            app::WORKSPACE,
            token,
            Ok(workspace(Some(WorkspacePlan::parse(&hostile)))),
            app::AppMsg::Workspace,
        ),
        NOW,
    );
    let shown = header(&app);
    assert!(shown.contains("plan \\x1b[31m"), "{shown}");
    assert!(
        !shown.contains('\u{1b}') && !shown.contains('\u{202e}'),
        "{shown}"
    );
    assert!(!shown.contains(&"x".repeat(20)), "cut short: {shown}");
}
