//! Issue 25 in the dashboard: the mark shown where the reviewer looks (who,
//! when, the note, what changed since) on the project screen and in the
//! inventory's detail pane; `m` on the marked rows with one note, the cursor
//! moving on when none are marked; a snapshot recorded by another process
//! noticed through the history file's `data_version` within a minute, without
//! a key; the executor's mark holding the row as the reviewer saw it.

#![allow(clippy::result_large_err)]

use crossterm::event::KeyCode;
use serde_json::{Value, json};
use time::macros::datetime;
use time::{Duration, OffsetDateTime};
use vantage::api::model::{InventoryItem, InventoryPage, Project};
use vantage::history::{FieldChange, NewMark, ProjectState, ReviewMark, SeenState, Store};
use vantage::tui::app::{App, Msg};
use vantage::tui::app::{HISTORY_VERSION, HistoryMsg, REVIEW_MARK, REVIEW_MARKS};
use vantage::tui::effect::{ErrorInfo, ErrorKind};
use vantage::tui::ops::{GetProject, UpdateProject};
use vantage::tui::review::ops::MarkReviewed;
use vantage::tui::screens::project;

use crate::common::items::inventory_item;
use crate::tui::changes::screen;
use crate::tui::support::{answer, app, drawn, first_in, key, only, special};
use crate::tui::support::{answer_inventory_page, inventory_pages};

pub(crate) const NOW: OffsetDateTime = datetime!(2026-11-22 12:00 UTC);
const MARKED_AT: OffsetDateTime = datetime!(2026-11-21 09:30 UTC);

pub(crate) fn item(id: &str, name: &str) -> Value {
    inventory_item(json!({
        "id": id, "name": name, "is_published": false, "publish_audience": null,
        "visibility": "workspace_view"
    }))
}

pub(crate) fn page(items: Vec<Value>) -> InventoryPage {
    serde_json::from_value(json!({
        "data": items,
        "pagination": {"has_more": false, "next_cursor": null},
        "total": 3, "as_of": null, "activity_as_of": null, "applied_finding": null
    }))
    .unwrap()
}

pub(crate) fn changed_mark() -> ReviewMark {
    ReviewMark {
        project_id: "prj_a".into(),
        name: Some("Ledger".into()),
        marked_at: MARKED_AT,
        reviewer: Some("ada".into()),
        display_name: None,
        note: Some("view-only for members now".into()),
        reviewed_state_at: Some(MARKED_AT),
        changed_since_review: Some(true),
        changed_fields: vec![FieldChange {
            field: "visibility".into(),
            summary: "visibility: workspace_view → workspace_edit".into(),
            before: json!("workspace_view"),
            after: json!("workspace_edit"),
        }],
        reviewed_state: None,
    }
}

/// The App started with the history on, the marks answered with `marks`,
/// and the inventory's first page of three rows loaded.
pub(crate) fn inventory_with(marks: Vec<ReviewMark>) -> App {
    inventory_and_version_check(marks).0
}

/// [`inventory_with`], and the token of the history's first `data_version`
/// check (asked on the first message the App handled).
pub(crate) fn inventory_and_version_check(marks: Vec<ReviewMark>) -> (App, u64) {
    let mut app = app();
    app.review.enabled = true;
    let effects = app.start(NOW);
    let read = first_in(&effects, REVIEW_MARKS).expect("marks are loaded");
    let effects = app.handle(read.ok(marks), NOW);
    let version = first_in(&effects, HISTORY_VERSION)
        .expect("the first check")
        .token;
    let effects = app.handle(key('2'), NOW);
    let (token, _) = inventory_pages(&effects)
        .into_iter()
        .next()
        .expect("the first page");
    app.handle(
        answer_inventory_page(
            token,
            page(vec![
                item("prj_a", "Ledger"),
                item("prj_b", "Payroll"),
                item("prj_c", "Roster"),
            ]),
        ),
        NOW,
    );
    (app, version)
}

/// Item 3: the detail pane says who, when, the note and what changed.
#[test]
fn the_detail_pane_shows_the_review_and_what_changed_since() {
    let app = inventory_with(vec![changed_mark()]);
    let text = screen(&app, 120, 35);
    assert!(
        text.contains("reviewed by ada, 1 d ago (2026-11-21 09:30 UTC)"),
        "{text}"
    );
    assert!(text.contains("note: view-only for members now"), "{text}");
    assert!(
        text.contains("Δ changed since review: visibility: workspace_view → workspace_edit"),
        "{text}"
    );
    insta::assert_snapshot!(
        "review_detail_pane_120x35",
        drawn(&app, 120, 35, NOW).body()
    );
}

/// Item 3 and the first "done when", on the project screen.
#[test]
fn the_project_screen_shows_the_review_and_what_changed_since() {
    let mut app = inventory_with(vec![changed_mark()]);
    app.handle(special(KeyCode::Enter), NOW);
    assert!(app.project.is_some(), "the project screen is open");
    let text = screen(&app, 120, 35);
    assert!(text.contains("reviewed by ada"), "{text}");
    assert!(text.contains("note: view-only for members now"), "{text}");
    assert!(
        text.contains("Δ changed since review: visibility: workspace_view → workspace_edit"),
        "{text}"
    );
    insta::assert_snapshot!(
        "review_project_screen_120x35",
        drawn(&app, 120, 35, NOW).body()
    );
    // A mark that lands while the screen is open shows at once.
    let mut unchanged = changed_mark();
    unchanged.changed_since_review = Some(false);
    unchanged.changed_fields.clear();
    let effects = app.handle(key('m'), NOW);
    assert!(first_in(&effects, REVIEW_MARK).is_none(), "a note first");
    let effects = app.handle(special(KeyCode::Enter), NOW);
    let written = first_in(&effects, REVIEW_MARK).expect("the mark is written");
    app.handle(written.ok(vec![unchanged]), NOW);
    let text = screen(&app, 120, 35);
    assert!(text.contains("✓ unchanged since review"), "{text}");
}

/// Item 5: with rows marked, `m` marks all of them with one note, and the
/// cursor stays; with none marked, the cursor's row, and the cursor moves on.
#[test]
fn m_marks_the_marked_rows_with_one_note_else_moves_on() {
    let mut app = inventory_with(vec![]);
    // space marks the row and moves on: prj_a, then prj_b.
    app.handle(key(' '), NOW);
    app.handle(key(' '), NOW);
    let at = app.inventory.list.selected;
    app.handle(key('m'), NOW);
    assert!(screen(&app, 120, 35).contains("Mark 2 marked projects reviewed"));
    for ch in "batch".chars() {
        app.handle(key(ch), NOW);
    }
    let effects = app.handle(special(KeyCode::Enter), NOW);
    let written = first_in(&effects, REVIEW_MARK).expect("the marks are written");
    let MarkReviewed { projects, note } = written.op::<MarkReviewed>();
    let ids: Vec<&str> = projects.iter().map(|(id, _)| id.as_str()).collect();
    assert_eq!(ids, ["prj_a", "prj_b"]);
    assert_eq!(note.as_deref(), Some("batch"));
    assert!(
        projects.iter().all(|(_, seen)| seen.is_some()),
        "each holds its row"
    );
    assert_eq!(app.inventory.list.selected, at, "the cursor stays");

    // No rows marked: the cursor's row, then the next one is selected.
    app.handle(key('C'), NOW);
    app.inventory.list.select(0);
    app.handle(key('m'), NOW);
    let effects = app.handle(special(KeyCode::Enter), NOW);
    let written = first_in(&effects, REVIEW_MARK).expect("the mark is written");
    let MarkReviewed { projects, note } = written.op::<MarkReviewed>();
    assert_eq!(projects.len(), 1);
    assert_eq!(projects[0].0, "prj_a");
    assert_eq!(*note, None);
    // It moves on once the mark is written (a refused one keeps it).
    assert_eq!(app.inventory.list.selected, 0);
    let mut unchanged = changed_mark();
    unchanged.changed_since_review = Some(false);
    unchanged.changed_fields.clear();
    app.handle(written.ok(vec![unchanged]), NOW);
    assert_eq!(app.inventory.list.selected, 1, "the cursor moved on");
}

/// The App's follow-up to a mark's answer: while only the rows not reviewed
/// show (`M`), a row marked reviewed leaves the list at once, and the status
/// line says the mark.
#[test]
fn a_row_marked_while_only_rows_not_reviewed_show_leaves_the_list() {
    let mut app = inventory_with(vec![]);
    let ids = |app: &App| -> Vec<String> {
        let rows = &app.inventory.list.rows;
        rows.iter().map(|item| item.id.clone()).collect()
    };
    app.handle(key('M'), NOW);
    assert_eq!(ids(&app), ["prj_a", "prj_b", "prj_c"], "none reviewed yet");
    app.inventory.list.select(0);
    app.handle(key('m'), NOW);
    let effects = app.handle(special(KeyCode::Enter), NOW);
    let written = first_in(&effects, REVIEW_MARK).expect("the mark is written");
    let mut mark = changed_mark();
    mark.changed_since_review = Some(false);
    mark.changed_fields.clear();
    app.handle(written.ok(vec![mark]), NOW);
    assert_eq!(ids(&app), ["prj_b", "prj_c"], "the reviewed row left");
    assert!(screen(&app, 120, 35).contains("marked Ledger reviewed"));
}

/// The history's `data_version` answered `version` to the check `token`.
pub(crate) fn version(token: u64, version: i64) -> Msg {
    answer(HISTORY_VERSION, token, Ok(version), HistoryMsg::DataVersion)
}

/// Wakes the app as the runtime would (other wakes, an expiring notice or an
/// age, may come first) until it asks the history's `data_version`, which
/// must be by `limit` (a second of slack): the token and the time.
fn wake_until_version_check(app: &mut App, limit: OffsetDateTime) -> (u64, OffsetDateTime) {
    loop {
        let wake = app.next_wake().expect("the minute check");
        assert!(wake <= limit + Duration::seconds(1), "{wake}");
        let effects = app.handle(Msg::Wake, wake);
        if let Some(check) = first_in(&effects, HISTORY_VERSION) {
            return (check.token, wake);
        }
    }
}

/// Item 4: the history's `data_version` is asked on the minute; when another
/// process wrote, marks and Changes are read again, without a key.
#[test]
fn a_write_by_another_process_refreshes_marks_within_a_minute() {
    // The first check rode on the first message handled; no other for half a minute.
    let (mut app, token) = inventory_and_version_check(vec![]);
    let effects = app.handle(Msg::Wake, NOW + Duration::seconds(29));
    assert!(first_in(&effects, HISTORY_VERSION).is_none());
    let effects = app.handle(version(token, 4), NOW);
    assert!(
        first_in(&effects, REVIEW_MARKS).is_none(),
        "the first answer is the baseline"
    );
    // Within a minute, a wake (no key) asks again.
    let (token, wake) = wake_until_version_check(&mut app, NOW + Duration::minutes(1));
    // Unchanged: nothing is read.
    let effects = app.handle(version(token, 4), wake);
    assert!(first_in(&effects, REVIEW_MARKS).is_none());
    let (token, wake) = wake_until_version_check(&mut app, wake + Duration::minutes(1));
    // Another process recorded a snapshot: marks (and Changes) are read again.
    let effects = app.handle(version(token, 5), wake);
    let read = first_in(&effects, REVIEW_MARKS).expect("marks read again");
    app.handle(read.ok(vec![changed_mark()]), wake);
    assert!(screen(&app, 120, 35).contains("Δ Ledger"));
}

mod with_a_real_history {
    use std::sync::Arc;

    use vantage::api::model::{InventoryItem, ProjectUpdate, Visibility};
    use vantage::api::{ApiKey, Client, ClientConfig, ClientEvent, ManualSleeper};
    use vantage::history::{HistoryConfig, ProjectState, SeenState, Store};
    use vantage::server::seed::{GenerateSpec, generate};
    use vantage::tui::request::Operation;
    use vantage::tui::review::ops::{DataVersion, ListMarks, TakeSnapshot};
    use vantage::tui::services::ClientServices;
    use vantage::tui::services::{HistoryAccess, WithHistory};
    use vantage::tui::vocab::SnapshotOutcome;

    use super::*;
    use crate::common::{self, ENTERPRISE_ADMIN, ENTERPRISE_WS, T0};
    use crate::tui::support::run_on;

    /// `operation`'s answer from the history, which must not fail.
    async fn ask<O: Operation>(executor: &WithHistory, operation: O) -> O::Output {
        match run_on(executor, operation).await {
            Ok(output) => output,
            Err(error) => panic!("the history failed: {error:?}"),
        }
    }

    fn executor(
        client: &Client,
        workspace: &str,
        clock: vantage::clock::Clock,
        dir: &tempfile::TempDir,
        config: HistoryConfig,
    ) -> WithHistory {
        WithHistory::new(
            ClientServices {
                client: client.clone(),
                workspace_id: workspace.into(),
                clock,
            },
            HistoryAccess {
                location: vantage::history::HistoryLocation::File(
                    dir.path().join("history.sqlite3"),
                ),
                config,
                progress: None,
            },
        )
    }

    async fn marks(executor: &WithHistory) -> Vec<ReviewMark> {
        ask(executor, ListMarks).await
    }

    /// Item 1, as the issue tried it: `v` → workspace_view after the last
    /// snapshot, `m` on the row that shows it, then a snapshot: reviewed,
    /// unchanged. A rename afterwards: changed since review, `name`.
    #[tokio::test]
    async fn the_reviewers_own_change_is_not_a_change_since_review() {
        let (server, clock) = common::demo_server().await;
        let client = Client::new(ClientConfig::new(
            server.base_url(),
            ApiKey::new(ENTERPRISE_ADMIN).unwrap(),
        ))
        .unwrap();
        let dir = tempfile::tempdir().unwrap();
        let config = HistoryConfig {
            detail_requests: 0,
            reviewer: Some("ada".into()),
            ..HistoryConfig::default()
        };
        let executor = executor(&client, ENTERPRISE_WS, clock.clone(), &dir, config);
        ask(&executor, TakeSnapshot).await;
        clock.advance(Duration::minutes(5));
        // The project to review: one not yet view-only for members.
        let params = vantage::api::InventoryParams::default();
        let page = client
            .list_inventory(ENTERPRISE_WS, &params, None)
            .await
            .unwrap();
        let target: &InventoryItem = page
            .data
            .iter()
            .find(|item| item.visibility != Some(Visibility::WorkspaceView))
            .expect("a project to change");
        let id = target.id.clone();
        client
            .update_project(
                &id,
                &ProjectUpdate {
                    name: None,
                    visibility: Some(Visibility::WorkspaceView),
                },
            )
            .await
            .unwrap();
        clock.advance(Duration::minutes(1));
        // The row as the dashboard shows it after its own write.
        let page = client
            .list_inventory(ENTERPRISE_WS, &params, None)
            .await
            .unwrap();
        let row = page.data.iter().find(|item| item.id == id).unwrap();
        assert_eq!(row.visibility, Some(Visibility::WorkspaceView));
        let seen = SeenState {
            state: ProjectState::from_item(row),
            read_at: clock.now(),
        };
        let mark = MarkReviewed {
            projects: vec![(id.clone(), Some(Box::new(seen)))],
            note: Some("view-only for members now".into()),
        };
        let marked = ask(&executor, mark).await;
        assert_eq!(marked[0].reviewer.as_deref(), Some("ada"));
        clock.advance(Duration::minutes(5));
        ask(&executor, TakeSnapshot).await;
        let mark = marks(&executor).await.remove(0);
        assert_eq!(
            mark.changed_since_review,
            Some(false),
            "reviewed, unchanged: {mark:?}"
        );

        client
            .update_project(
                &id,
                &ProjectUpdate {
                    name: Some("Renamed after the review".into()),
                    visibility: None,
                },
            )
            .await
            .unwrap();
        clock.advance(Duration::minutes(5));
        ask(&executor, TakeSnapshot).await;
        let mark = marks(&executor).await.remove(0);
        assert_eq!(mark.changed_since_review, Some(true));
        let fields: Vec<&str> = mark
            .changed_fields
            .iter()
            .map(|f| f.summary.as_str())
            .collect();
        assert_eq!(fields, ["name"]);
        server.stop().await;
    }

    /// Issue 35, item 1 during the first-launch snapshot: the walk reads the
    /// project's page, then (minutes into the walk) the reviewer renames the
    /// project and marks it, then the walk ends and is recorded. The
    /// snapshot's state of the project was read before the rename: it is no
    /// change since the review. A rename by someone else afterwards is one.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_snapshot_walking_while_the_reviewer_renames_and_marks_is_no_change_since() {
        use vantage::history::walk::{WalkEvent, WalkOptions, capture};

        let (server, clock) = common::demo_server().await;
        let client = Client::new(ClientConfig::new(
            server.base_url(),
            ApiKey::new(ENTERPRISE_ADMIN).unwrap(),
        ))
        .unwrap();
        let dir = tempfile::tempdir().unwrap();
        let config = HistoryConfig {
            detail_requests: 0,
            reviewer: Some("ada".into()),
            ..HistoryConfig::default()
        };
        let retention = config.retention();
        let executor = executor(&client, ENTERPRISE_WS, clock.clone(), &dir, config);
        let params = vantage::api::InventoryParams::default();
        let page = client
            .list_inventory(ENTERPRISE_WS, &params, None)
            .await
            .unwrap();
        let row = page.data[0].clone();
        let id = row.id.clone();

        let runtime = tokio::runtime::Handle::current();
        let mut reviewed = false;
        let walk_clock = clock.clone();
        let options = WalkOptions {
            detail_requests: 0,
            window: std::time::Duration::from_secs(60),
            reserve: None,
        };
        let (walked, _) = capture(
            &client,
            ENTERPRISE_WS,
            None,
            options,
            || walk_clock.now(),
            |event| {
                // The inventory is read; the members are next: the reviewer's turn.
                let members_next =
                    matches!(&event, WalkEvent::Phase(phase) if phase.starts_with("members"));
                if !members_next || std::mem::replace(&mut reviewed, true) {
                    return;
                }
                tokio::task::block_in_place(|| {
                    runtime.block_on(async {
                        clock.advance(Duration::minutes(2));
                        let renamed = client
                            .update_project(
                                &id,
                                &ProjectUpdate {
                                    name: Some("Renamed by the reviewer".into()),
                                    visibility: None,
                                },
                            )
                            .await
                            .unwrap();
                        // The project screen's state: the row, the write's answer over it.
                        let seen = SeenState {
                            state: ProjectState::from_item(&row).with_project(&renamed),
                            read_at: clock.now(),
                        };
                        clock.advance(Duration::minutes(1));
                        let mark = MarkReviewed {
                            projects: vec![(id.clone(), Some(Box::new(seen)))],
                            note: None,
                        };
                        ask(&executor, mark).await;
                        // The walk goes on for minutes.
                        clock.advance(Duration::minutes(8));
                    })
                });
            },
        )
        .await
        .unwrap();
        assert!(reviewed, "the reviewer's turn came during the walk");
        let walked_name = walked
            .projects
            .iter()
            .find(|project| project.id == id)
            .and_then(|project| project.name.clone());
        assert_eq!(
            walked_name, row.name,
            "the walk read the page before the rename"
        );
        Store::open(&dir.path().join("history.sqlite3"))
            .unwrap()
            .record(&walked, retention)
            .unwrap();
        let mark = marks(&executor).await.remove(0);
        assert_ne!(
            mark.changed_since_review,
            Some(true),
            "the reviewer's own rename is flagged: {:?}",
            mark.changed_fields
        );

        // Someone else renames it afterwards: the next snapshot says so.
        clock.advance(Duration::minutes(5));
        client
            .update_project(
                &id,
                &ProjectUpdate {
                    name: Some("Renamed by someone else".into()),
                    visibility: None,
                },
            )
            .await
            .unwrap();
        clock.advance(Duration::minutes(1));
        ask(&executor, TakeSnapshot).await;
        let mark = marks(&executor).await.remove(0);
        assert_eq!(mark.changed_since_review, Some(true), "{mark:?}");
        let fields: Vec<&str> = mark
            .changed_fields
            .iter()
            .map(|f| f.summary.as_str())
            .collect();
        assert_eq!(fields, ["name"]);
        server.stop().await;
    }

    /// Item 4: the executor's `data_version` moves when another connection
    /// (another process's `vantage snapshot`) commits to the file.
    #[tokio::test]
    async fn data_version_moves_when_another_connection_writes() {
        let (server, clock) = common::demo_server().await;
        let client = Client::new(ClientConfig::new(
            server.base_url(),
            ApiKey::new(ENTERPRISE_ADMIN).unwrap(),
        ))
        .unwrap();
        let dir = tempfile::tempdir().unwrap();
        let executor = executor(
            &client,
            ENTERPRISE_WS,
            clock,
            &dir,
            HistoryConfig::default(),
        );
        let first = ask(&executor, DataVersion).await;
        let again = ask(&executor, DataVersion).await;
        assert_eq!(first, again, "nothing was written");
        let mut other = Store::open(&dir.path().join("history.sqlite3")).unwrap();
        let mark = vantage::history::NewMark {
            project_id: "prj_elsewhere".into(),
            note: None,
            reviewer: None,
            seen: None,
        };
        other.mark_reviewed(ENTERPRISE_WS, &mark, T0).unwrap();
        let after = ask(&executor, DataVersion).await;
        assert_ne!(after, first, "another connection wrote");
        server.stop().await;
    }

    /// Issue 33, item 3: the dashboard holds the marks it can show, one per
    /// project its newest snapshot lists (or marked since it was taken), not
    /// one per project the log ever named: a mark of a project the workspace
    /// no longer holds stays in the log and out of the dashboard's memory.
    #[tokio::test]
    async fn the_dashboard_reads_only_the_marks_it_can_show() {
        let (server, clock) = common::demo_server().await;
        let client = Client::new(ClientConfig::new(
            server.base_url(),
            ApiKey::new(ENTERPRISE_ADMIN).unwrap(),
        ))
        .unwrap();
        let dir = tempfile::tempdir().unwrap();
        let config = HistoryConfig {
            detail_requests: 0,
            ..HistoryConfig::default()
        };
        let executor = executor(&client, ENTERPRISE_WS, clock.clone(), &dir, config);
        let taken = clock.now();
        ask(&executor, TakeSnapshot).await;
        let listed = common::first_project(&common::demo(), ENTERPRISE_WS);
        let mut other = Store::open(&dir.path().join("history.sqlite3")).unwrap();
        let mark = |project_id: &str| vantage::history::NewMark {
            project_id: project_id.into(),
            note: None,
            reviewer: Some("ada".into()),
            seen: None,
        };
        let before = taken - Duration::hours(1);
        other
            .mark_reviewed(ENTERPRISE_WS, &mark(&listed), before)
            .unwrap();
        other
            .mark_reviewed(ENTERPRISE_WS, &mark("prj_gone"), before)
            .unwrap();
        other
            .mark_reviewed(ENTERPRISE_WS, &mark("prj_new"), taken + Duration::hours(1))
            .unwrap();
        let mut held: Vec<String> = marks(&executor)
            .await
            .into_iter()
            .map(|mark| mark.project_id)
            .collect();
        held.sort();
        let mut expected = vec![listed, "prj_new".to_owned()];
        expected.sort();
        assert_eq!(held, expected, "prj_gone stays in the log only");
        assert_eq!(other.reviewed_marks(ENTERPRISE_WS).unwrap().len(), 3);
        server.stop().await;
    }

    /// A generated workspace at the service's default rate limit (120 a
    /// minute), on a manual clock: waits for the window cost no real time.
    async fn generated(
        projects: usize,
        members: usize,
    ) -> (
        vantage::server::RunningServer,
        Client,
        String,
        ManualSleeper,
    ) {
        let fixture = generate(
            GenerateSpec {
                projects,
                members,
                seed: 3,
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
        let (server, clock) = common::server_with(|config| config.fixture = fixture).await;
        let sleeper = ManualSleeper::new(clock);
        let mut config = ClientConfig::new(server.base_url(), ApiKey::new(&key).unwrap());
        config.sleeper = Arc::new(sleeper.clone());
        let client = Client::new(config).unwrap();
        (server, client, workspace, sleeper)
    }

    /// Item 8 (the background reserve): on first launch against 5,000
    /// projects at 120 a minute, the background snapshot never takes the
    /// window below the reserve the user's actions keep, and says its cost
    /// before it starts.
    #[tokio::test]
    async fn the_background_snapshot_keeps_the_reserve() {
        let (server, client, workspace, sleeper) = generated(5_000, 200).await;
        let mut events = client.subscribe();
        let dir = tempfile::tempdir().unwrap();
        let (progress_tx, mut progress) = vantage::tui::notice_box::notice_box();
        let executor = WithHistory::new(
            ClientServices {
                client: client.clone(),
                workspace_id: workspace.clone(),
                clock: sleeper.clock().clone(),
            },
            HistoryAccess {
                location: vantage::history::HistoryLocation::File(
                    dir.path().join("history.sqlite3"),
                ),
                config: HistoryConfig::default(),
                progress: Some(progress_tx),
            },
        );
        let SnapshotOutcome::Taken(info) = ask(&executor, TakeSnapshot).await else {
            panic!("a snapshot");
        };
        assert_eq!(info.projects, 5_000);
        let mut lowest = u32::MAX;
        let mut limit = 0;
        let mut statuses = Vec::new();
        while let Ok(event) = events.try_recv() {
            match event {
                ClientEvent::RateLimit(rate) => {
                    lowest = lowest.min(rate.remaining);
                    limit = rate.limit;
                }
                ClientEvent::RequestDone { status, .. } => statuses.push(status),
                _ => {}
            }
        }
        assert_eq!(limit, 120);
        let reserve = vantage::api::Reserve::DASHBOARD.kept(limit);
        assert!(
            lowest >= reserve,
            "the window went down to {lowest}, below the reserve of {reserve}"
        );
        assert!(!statuses.contains(&Some(429)));
        assert!(
            !sleeper.sleeps().is_empty(),
            "the walk waited for the window"
        );
        let first = progress.try_recv().expect("an announcement");
        let vantage::tui::app::ClientNotice::SnapshotPlanned(said) = first else {
            panic!("the first word is the announcement: {first:?}");
        };
        assert!(
            said.starts_with("snapshot of 5,000 projects: about "),
            "{said}"
        );
        // No time before the walk has measured its pace: the latency sets it.
        assert!(!said.contains(" over ") && !said.contains("min"), "{said}");
        server.stop().await;
    }

    /// Item 7: an 800-member workspace at the default limit has every
    /// member named after three snapshots.
    #[tokio::test]
    async fn three_snapshots_name_every_member_of_800() {
        // 880 memberships give more than 800 members (some hold two).
        let (server, client, workspace, sleeper) = generated(50, 880).await;
        let dir = tempfile::tempdir().unwrap();
        let executor = executor(
            &client,
            &workspace,
            sleeper.clock().clone(),
            &dir,
            HistoryConfig::default(),
        );
        let store = || Store::open(&dir.path().join("history.sqlite3")).unwrap();
        let mut unnamed = Vec::new();
        for _ in 0..3 {
            ask(&executor, TakeSnapshot).await;
            let store = store();
            let latest = store.latest_snapshot(&workspace).unwrap().unwrap();
            let members = store.members(latest.id).unwrap();
            assert!(members.len() >= 800, "{} members", members.len());
            unnamed.push(members.iter().filter(|m| !m.name_known()).count());
        }
        assert!(unnamed[0] > 0, "one snapshot cannot name all: {unnamed:?}");
        assert!(unnamed[1] < unnamed[0], "{unnamed:?}");
        assert_eq!(unnamed[2], 0, "named within three: {unnamed:?}");
        server.stop().await;
    }
}

// --- A reviewer's second day (issue 35): marks hold what the reviewer saw ----

pub(crate) fn project_of(id: &str, name: &str) -> Project {
    serde_json::from_value(json!({
        "id": id, "name": name, "workspace_id": "ws_test", "is_published": false,
        "publish_audience": null, "visibility": "workspace_view"
    }))
    .unwrap()
}

pub(crate) fn not_found(kind: &str) -> ErrorInfo {
    ErrorInfo {
        status: Some(404),
        kind: Some(kind.into()),
        detail: None,
        request_id: Some("req_404".into()),
        summary: format!("{kind} (HTTP 404)"),
        gate: None,
        at: NOW,
    }
}

/// Enter on the cursor's row, and its read answered.
pub(crate) fn open_and_read(app: &mut App, id: &str, name: &str) {
    let effects = app.handle(special(KeyCode::Enter), NOW);
    let read = only(&effects, project::PROJECT);
    assert_eq!(read.op::<GetProject>().project_id, id);
    app.handle(read.ok(project_of(id, name)), NOW);
}

/// `m`, then Enter: the mark asked of the history.
fn mark(app: &mut App) -> MarkReviewed {
    app.handle(key('m'), NOW);
    let effects = app.handle(special(KeyCode::Enter), NOW);
    first_in(&effects, REVIEW_MARK)
        .expect("the mark is written")
        .op::<MarkReviewed>()
        .clone()
}

/// Item 1: `e` on the project screen, then `m`: the mark holds the name the
/// reviewer just gave, not the row the screen was opened on.
#[test]
fn a_mark_on_the_project_screen_holds_the_reviewers_own_write() {
    let mut app = inventory_with(vec![]);
    open_and_read(&mut app, "prj_a", "Ledger");
    app.handle(key('e'), NOW);
    app.handle(key('2'), NOW);
    let effects = app.handle(special(KeyCode::Enter), NOW);
    let write = only(&effects, project::WRITE);
    assert_eq!(
        write.op::<UpdateProject>().update.name.as_deref(),
        Some("Ledger2")
    );
    app.handle(write.ok(project_of("prj_a", "Ledger2")), NOW);
    let MarkReviewed { projects, .. } = mark(&mut app);
    let seen = projects[0].1.as_ref().expect("the state seen");
    assert_eq!(seen.state.name.as_deref(), Some("Ledger2"), "{seen:?}");
}

/// Item 3: a row that differs from the reviewed state says so at once,
/// naming the field, with no snapshot taken since the mark.
#[test]
fn a_live_row_that_differs_from_the_review_is_changed_since_review_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let mut store = Store::open(&dir.path().join("history.sqlite3")).unwrap();
    let mut reviewed: InventoryItem = serde_json::from_value(item("prj_a", "Ledger")).unwrap();
    reviewed.visibility = Some(vantage::api::model::Visibility::WorkspaceEdit);
    let marked_at = NOW - Duration::hours(1);
    let new = NewMark {
        project_id: "prj_a".into(),
        note: None,
        reviewer: Some("ada".into()),
        seen: Some(SeenState {
            state: ProjectState::from_item(&reviewed),
            read_at: marked_at,
        }),
    };
    store.mark_reviewed("ws_test", &new, marked_at).unwrap();
    let marks = store.reviewed_marks("ws_test").unwrap();
    assert_eq!(marks[0].changed_since_review, None, "no snapshot since");
    // The live rows (read at NOW) show prj_a view-only now.
    let app = inventory_with(marks);
    let text = screen(&app, 120, 35);
    assert!(text.contains("Δ Ledger"), "{text}");
    assert!(!text.contains("✓ Ledger"), "{text}");
    assert!(
        text.contains("changed since review: visibility: workspace_edit → workspace_view"),
        "{text}"
    );
}

/// Item 4: a second reviewer's field starts empty; the first one's note
/// shows above it.
#[test]
fn a_second_reviewer_starts_with_an_empty_note_and_sees_the_earlier_one() {
    let mut app = inventory_with(vec![changed_mark()]);
    app.inventory.list.select(0);
    app.handle(key('m'), NOW);
    let text = screen(&app, 120, 35);
    assert!(
        text.contains("earlier note by ada: view-only for members now"),
        "{text}"
    );
    let effects = app.handle(special(KeyCode::Enter), NOW);
    let written = first_in(&effects, REVIEW_MARK).expect("the mark is written");
    assert_eq!(written.op::<MarkReviewed>().note, None);
}

/// The walk's small defect: the note's title said "(nothing marked)" while
/// another reviewer's mark stood. It names the cursor's row, and the mark
/// that stands (its note or none) shows above the field.
#[test]
fn the_note_says_whose_mark_stands_never_nothing_marked() {
    let mut standing = changed_mark();
    standing.note = None;
    let mut app = inventory_with(vec![standing]);
    app.inventory.list.select(0);
    app.handle(key('m'), NOW);
    let text = screen(&app, 120, 35);
    assert!(!text.contains("nothing marked"), "{text}");
    assert!(
        text.contains("Mark Ledger reviewed (the cursor's row)"),
        "{text}"
    );
    assert!(
        text.contains("reviewed by ada at 2026-11-21 09:30 UTC, without a note"),
        "{text}"
    );
}

/// Item 5: a mark the history refuses keeps the cursor on the row.
#[test]
fn a_refused_mark_keeps_the_cursor_on_its_row() {
    let mut app = inventory_with(vec![]);
    app.inventory.list.select(0);
    app.handle(key('m'), NOW);
    let effects = app.handle(special(KeyCode::Enter), NOW);
    let written = first_in(&effects, REVIEW_MARK).expect("the mark is written");
    let mut away = not_found("x");
    away.status = None;
    away.kind = Some(ErrorKind::HistoryAway);
    away.summary = "history: unreachable".into();
    app.handle(written.fail(away), NOW);
    assert!(screen(&app, 120, 35).contains("NOT marked"));
    assert_eq!(app.inventory.list.selected, 0, "the cursor stays");
}

/// Item 6: another process's mark, written just after a check, shows within
/// a minute even when every answer of the history takes 5 s.
#[test]
fn another_processs_mark_shows_within_a_minute_on_a_slow_history() {
    let (mut app, token) = inventory_and_version_check(vec![]);
    app.handle(version(token, 4), NOW);
    let written_at = NOW + Duration::seconds(1);
    let slow = Duration::seconds(5);
    let mut at = NOW;
    let shown_at = loop {
        let wake = app.next_wake().expect("a check to come");
        at = at.max(wake);
        let effects = app.handle(Msg::Wake, at);
        let Some(check) = first_in(&effects, vantage::tui::app::HISTORY_VERSION) else {
            continue;
        };
        at += slow;
        let moved = if at > written_at { 5 } else { 4 };
        let effects = app.handle(version(check.token, moved), at);
        if let Some(read) = first_in(&effects, REVIEW_MARKS) {
            at += slow;
            app.handle(read.ok(vec![changed_mark()]), at);
            break at;
        }
        assert!(at < written_at + Duration::minutes(2), "never read");
    };
    assert!(screen(&app, 120, 35).contains("Δ Ledger"));
    assert!(
        shown_at - written_at <= Duration::minutes(1),
        "shown {} s after the write",
        (shown_at - written_at).whole_seconds()
    );
}
