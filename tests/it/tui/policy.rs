//! Policies in the dashboard (issue 38): the evaluation runs as an
//! operation (off the UI thread, once per change, coalesced), the inventory's
//! Policy column and `--violates` filter, the project screen's violations,
//! the Policy tab, and a policy that does not compile said with its file and
//! line. The evaluation here is the real one: the built-in pack over the rows
//! answered, with a waiver recorded in a real history file.

use std::path::PathBuf;

use crossterm::event::KeyCode;
use serde_json::{Value, json};
use time::macros::datetime;
use vantage::api::model::InventoryPage;
use vantage::api::{ApiKey, Client, ClientConfig};
use vantage::history::waivers::NewWaiver;
use vantage::history::{HistoryConfig, HistoryLocation, Store};
use vantage::tui::app::{App, EVALUATE_POLICIES, Identity, Msg};
use vantage::tui::effect::Effect;
use vantage::tui::nav::Tab;
use vantage::tui::policies::EvaluatePolicies;
use vantage::tui::services::{ClientServices, HistoryAccess, WithHistory};
use vantage::tui::theme::{ColorDepth, ThemeName};

use crate::common::{ENTERPRISE_ADMIN, T0};
use crate::tui::support::{
    Drawn, answer_inventory_page, asked_in, drawn, inventory_pages, key, only, run_on, special,
};

const WS: &str = "ws_test";

/// An inventory row that is not published and that members may view, with
/// `extra` fields laid over it.
fn row(id: &str, name: &str, extra: Value) -> Value {
    let mut fields = json!({
        "id": id, "name": name, "is_published": false, "publish_audience": null,
        "visibility": "workspace_view"
    });
    if let (Some(fields), Value::Object(extra)) = (fields.as_object_mut(), extra) {
        fields.extend(extra);
    }
    crate::common::items::inventory_item(fields)
}

/// Three projects: one published, never scanned nor reviewed (`stale_scan`,
/// `review_current`); one every member can edit whose owner left
/// (`departed_owner_edit`, `finding_inactive_owner`); one clean.
fn rows() -> Vec<Value> {
    vec![
        row(
            "prj_published",
            "Public notes",
            json!({"is_published": true, "publish_audience": "workspace"}),
        ),
        row(
            "prj_orphan",
            "Team wiki",
            json!({"visibility": "workspace_edit", "review_priority_explanation": [{
                "id": "inactive_owner", "label": "Inactive owner", "detail": "the owner left",
                "category": "ownership", "review_priority": "review_recommended"
            }]}),
        ),
        row("prj_quiet", "Quiet", json!({})),
    ]
}

fn page(rows: Vec<Value>) -> InventoryPage {
    let total = rows.len();
    serde_json::from_value(json!({
        "data": rows,
        "pagination": {"has_more": false, "next_cursor": null},
        "total": total, "as_of": null, "activity_as_of": null, "applied_finding": null
    }))
    .unwrap()
}

/// The App, and the services its evaluation runs on: a history file (with
/// the waivers a test records), a client that is never called.
struct Bench {
    app: App,
    executor: WithHistory,
    dir: tempfile::TempDir,
    clock: vantage::clock::Clock,
}

impl Bench {
    fn new(config_file: Option<PathBuf>, dir: tempfile::TempDir) -> Self {
        let client = Client::new(ClientConfig::new(
            "http://127.0.0.1:9",
            ApiKey::new(ENTERPRISE_ADMIN).unwrap(),
        ))
        .unwrap();
        Self::on(
            client,
            WS,
            vantage::clock::Clock::manual(T0),
            config_file,
            dir,
        )
    }

    /// The App of `workspace` on `client`, its history in `dir`.
    fn on(
        client: Client,
        workspace: &str,
        clock: vantage::clock::Clock,
        config_file: Option<PathBuf>,
        dir: tempfile::TempDir,
    ) -> Self {
        let mut settings = crate::tui::support::settings(ThemeName::Dark, ColorDepth::TrueColor);
        settings.config_file = config_file;
        let app = App::new(
            Identity {
                workspace: workspace.into(),
                workspace_id: workspace.into(),
                plan: None,
                api_version: "2026-09-11".into(),
                read_only: false,
            },
            settings,
        );
        let executor = WithHistory::new(
            ClientServices {
                client,
                workspace_id: workspace.into(),
                clock: clock.clone(),
            },
            HistoryAccess {
                location: HistoryLocation::File(dir.path().join("history.sqlite3")),
                config: HistoryConfig {
                    detail_requests: 0,
                    ..HistoryConfig::default()
                },
                progress: None,
            },
        );
        Self {
            app,
            executor,
            dir,
            clock,
        }
    }

    fn plain() -> Self {
        Self::new(None, tempfile::tempdir().unwrap())
    }

    fn waive(&self, policy: &str, project: &str) {
        self.waive_until(policy, project, datetime!(2026-12-31 00:00 UTC));
    }

    fn waive_until(&self, policy: &str, project: &str, until: time::OffsetDateTime) {
        let mut store = Store::open(&self.dir.path().join("history.sqlite3")).unwrap();
        store
            .add_waiver(
                WS,
                &NewWaiver {
                    policy_id: policy.into(),
                    project_id: project.into(),
                    reason: "internal beta, scanned by hand".into(),
                    until,
                    by: Some("ada".into()),
                },
                T0,
            )
            .unwrap();
    }

    /// Runs the evaluation among `effects` for real, and hands its answer
    /// to the App; the effects of that answer.
    async fn evaluate(&mut self, effects: &[Effect]) -> Vec<Effect> {
        let fetch = only(effects, EVALUATE_POLICIES);
        let operation = fetch.op::<EvaluatePolicies>().clone();
        let answer = run_on(&self.executor, operation).await;
        self.app.handle(fetch.answer(answer), T0)
    }

    /// The inventory's page among `effects` answered with `rows`.
    fn answer_page(&mut self, effects: &[Effect], rows: Vec<Value>) -> Vec<Effect> {
        let (token, _) = inventory_pages(effects)
            .last()
            .cloned()
            .expect("a page asked");
        self.app
            .handle(answer_inventory_page(token, page(rows)), T0)
    }

    /// Start, the inventory's rows, and every evaluation they ask for.
    async fn loaded(mut self) -> Self {
        let start = self.app.start(T0);
        let mut effects = self.evaluate(&start).await;
        effects.extend(self.app.handle(key('2'), T0));
        let mut effects = self.answer_page(&effects, rows());
        while !asked_in(&effects, EVALUATE_POLICIES).is_empty() {
            effects = self.evaluate(&effects).await;
        }
        self
    }

    fn draw(&self, width: u16, height: u16) -> Drawn {
        drawn(&self.app, width, height, T0)
    }

    /// The whole frame, as text.
    fn text(&self, width: u16, height: u16) -> String {
        self.draw(width, height).full()
    }

    fn press(&mut self, msg: Msg) -> Vec<Effect> {
        self.app.handle(msg, T0)
    }
}

fn line_with<'a>(screen: &'a str, needle: &str) -> &'a str {
    screen
        .lines()
        .find(|line| line.contains(needle))
        .unwrap_or_else(|| panic!("no line with {needle:?} in\n{screen}"))
}

#[tokio::test]
async fn one_evaluation_per_change_and_changes_meanwhile_coalesce() {
    let mut bench = Bench::plain();
    let start = bench.app.start(T0);
    // The first evaluation is asked at start, before any page.
    only(&start, EVALUATE_POLICIES);
    let first = asked_in(&start, EVALUATE_POLICIES)[0].clone();
    // A page and a second one land while it runs: nothing more is asked.
    let effects = bench.press(key('2'));
    let effects = bench.answer_page(&effects, rows()[..1].to_vec());
    assert!(asked_in(&effects, EVALUATE_POLICIES).is_empty());
    let effects = bench.press(special(KeyCode::Char('r')));
    let effects = bench.answer_page(&effects, rows());
    assert!(asked_in(&effects, EVALUATE_POLICIES).is_empty());
    // The first answers: one more evaluation, for both changes.
    let answer = run_on(&bench.executor, first.op::<EvaluatePolicies>().clone()).await;
    let effects = bench.app.handle(first.answer(answer), T0);
    let second = only(&effects, EVALUATE_POLICIES);
    assert_eq!(second.op::<EvaluatePolicies>().live.len(), 3);
    // It answers; nothing changed since: no third.
    let effects = bench.evaluate(&effects).await;
    assert!(asked_in(&effects, EVALUATE_POLICIES).is_empty());
    // The same rows read again change nothing: no evaluation.
    let effects = bench.press(special(KeyCode::Char('r')));
    let effects = bench.answer_page(&effects, rows());
    assert!(asked_in(&effects, EVALUATE_POLICIES).is_empty());
    // Keys and draws never evaluate.
    for ch in ['j', 'k', 'j'] {
        assert!(asked_in(&bench.press(key(ch)), EVALUATE_POLICIES).is_empty());
    }
    bench.draw(120, 30);
}

#[tokio::test]
async fn the_policy_column_counts_violations_with_the_waived_in_dim() {
    let bench = Bench::plain();
    bench.waive("review_current", "prj_published");
    let mut bench = bench.loaded().await;
    let frame = bench.draw(140, 30);
    let screen = frame.full();
    assert!(
        line_with(&screen, "Priority").contains("Policy"),
        "{screen}"
    );
    // stale_scan fails, review_current is waived.
    assert!(
        line_with(&screen, "Public notes").contains("1 +1w"),
        "{screen}"
    );
    // departed_owner_edit and finding_inactive_owner.
    let orphan = line_with(&screen, "Team wiki");
    assert!(
        orphan.trim_end().ends_with("2") || orphan.contains(" 2 "),
        "{orphan}"
    );
    assert!(line_with(&screen, "Quiet").contains('·'), "{screen}");
    // The waived count is dim.
    let buffer = frame.buffer();
    let y = screen
        .lines()
        .position(|line| line.contains("Public notes"))
        .unwrap() as u16;
    let x = (0..buffer.area.width)
        .find(|&x| buffer[(x, y)].symbol() == "+")
        .expect("a + in the row");
    assert_eq!(buffer[(x, y)].fg, bench.app.theme.dim.fg.unwrap());
    // `:columns` names it as every other column.
    for ch in ":columns name,policy".chars() {
        bench.press(key(ch));
    }
    bench.press(special(KeyCode::Enter));
    let screen = bench.text(80, 24);
    let head = line_with(&screen, "Name");
    assert!(
        head.contains("Policy") && !head.contains("Owner"),
        "{screen}"
    );
    assert!(
        line_with(&screen, "Public notes").contains("1 +1w"),
        "{screen}"
    );
}

#[tokio::test]
async fn violates_from_the_palette_keeps_the_violators_and_is_a_flag_again() {
    let mut bench = Bench::plain().loaded().await;
    for ch in ":filter --violates departed_owner_edit".chars() {
        bench.press(key(ch));
    }
    let effects = bench.press(special(KeyCode::Enter));
    bench.answer_page(&effects, rows());
    let ids: Vec<&str> = bench
        .app
        .inventory
        .list
        .rows
        .iter()
        .map(|row| row.id.as_str())
        .collect();
    assert_eq!(ids, ["prj_orphan"]);
    let words = bench.app.inventory.filter_args().to_words();
    assert_eq!(words, ["--violates", "departed_owner_edit"]);
    assert!(bench.text(120, 30).contains("violates departed_owner_edit"));
    // An id no policy has is refused, naming the ones there are.
    for ch in ":filter --violates no_such_policy".chars() {
        bench.press(key(ch));
    }
    bench.press(special(KeyCode::Enter));
    let screen = bench.text(200, 30);
    assert!(screen.contains("no_such_policy"), "{screen}");
    assert!(screen.contains("stale_scan"), "{screen}");
    assert_eq!(bench.app.inventory.policy.violates, ["departed_owner_edit"]);
}

#[tokio::test]
async fn the_policy_tab_lists_counts_and_enter_shows_the_projects_back_returns() {
    let bench = Bench::plain();
    bench.waive("review_current", "prj_published");
    let mut bench = bench.loaded().await;
    bench.press(key('8'));
    assert_eq!(bench.app.tab, Tab::Policy);
    let screen = bench.text(120, 35);
    let stale = line_with(&screen, "stale_scan");
    assert!(stale.contains("high"), "{stale}");
    let waived = line_with(&screen, "review_current");
    let counts: Vec<&str> = waived
        .trim_matches('"')
        .split_whitespace()
        .rev()
        .take(3)
        .collect();
    assert_eq!(
        counts,
        ["0", "1", "0"],
        "not judged 0, waived 1, failing 0: {waived}"
    );
    let at = bench
        .app
        .policy
        .policies()
        .iter()
        .position(|policy| policy.meta.id == "departed_owner_edit")
        .unwrap();
    for _ in 0..at {
        bench.press(key('j'));
    }
    let effects = bench.press(special(KeyCode::Enter));
    assert_eq!(bench.app.tab, Tab::Inventory);
    assert_eq!(bench.app.inventory.policy.violates, ["departed_owner_edit"]);
    bench.answer_page(&effects, rows());
    assert_eq!(bench.app.inventory.list.rows.len(), 1);
    assert_eq!(bench.app.inventory.list.rows[0].id, "prj_orphan");
    bench.press(key('['));
    assert_eq!(bench.app.tab, Tab::Policy);
}

#[tokio::test]
async fn the_project_screen_lists_violations_with_remediation_and_the_waiver() {
    let bench = Bench::plain();
    bench.waive("review_current", "prj_published");
    let mut bench = bench.loaded().await;
    bench.press(special(KeyCode::Enter));
    assert!(bench.app.project.is_some());
    let screen = bench.text(100, 60);
    assert!(screen.contains("Policies"), "{screen}");
    assert!(
        line_with(&screen, "stale_scan").contains("published and never scanned"),
        "{screen}"
    );
    assert!(screen.contains("fix: Run a security scan"), "{screen}");
    assert!(screen.contains("~ medium review_current"), "{screen}");
    assert!(
        screen.contains("waived by ada until 2026-12-31 00:00 UTC: internal beta"),
        "{screen}"
    );
}

/// A waiver that runs out while the dashboard is open: at its `until` the
/// App wakes, evaluates again, and the violation fails, with no other change.
#[tokio::test]
async fn a_waiver_that_runs_out_fails_again_by_itself() {
    let bench = Bench::plain();
    let until = T0 + time::Duration::hours(2);
    bench.waive_until("review_current", "prj_published", until);
    let mut bench = bench.loaded().await;
    let counts = |bench: &Bench| {
        let evaluation = bench.app.inventory.policy.shown.evaluation.clone().unwrap();
        evaluation.policy_counts("review_current")
    };
    assert_eq!((counts(&bench).failing, counts(&bench).waived), (0, 1));
    assert_eq!(bench.app.wake_at(), Some(until));
    // Before it: nothing to evaluate.
    let early = bench
        .app
        .handle(Msg::Wake, until - time::Duration::minutes(1));
    assert!(asked_in(&early, EVALUATE_POLICIES).is_empty());
    bench.clock.set(until);
    let effects = bench.app.handle(Msg::Wake, until);
    bench.evaluate(&effects).await;
    assert_eq!((counts(&bench).failing, counts(&bench).waived), (1, 0));
    // Woken once for it, never again.
    assert!(bench.app.wake_at().is_none_or(|at| at > until));
}

#[tokio::test]
async fn a_policy_that_does_not_compile_is_said_with_its_file_and_line() {
    let dir = tempfile::tempdir().unwrap();
    let policies = dir.path().join("policies");
    std::fs::create_dir(&policies).unwrap();
    std::fs::write(
        policies.join("broken.rego"),
        "package team.broken\n\nimport rego.v1\n\ndeny contains x if {\n  x := \n}\n",
    )
    .unwrap();
    let config = dir.path().join("config.toml");
    let broken = policies.join("broken.rego");
    let mut bench = Bench::new(Some(config), dir);
    let start = bench.app.start(T0);
    bench.evaluate(&start).await;
    let screen = bench.text(120, 30);
    assert!(screen.contains("broken.rego:"), "{screen}");
    bench.press(key('8'));
    let screen = bench.text(120, 30);
    assert!(screen.contains("broken.rego:"), "{screen}");
    assert!(screen.contains("No evaluation"), "{screen}");
    // Fixed, and `r` on the Policy tab: read again and evaluated.
    std::fs::write(
        &broken,
        "package team.broken\n\nimport rego.v1\n\n__rego_metadata__ := {\"id\": \"team_rule\", \
         \"title\": \"Team rule\", \"severity\": \"low\", \"description\": \"d\", \
         \"remediation\": \"r\"}\n\ndeny contains x if {\n  some p in input.projects\n  \
         x := {\"project\": p.id, \"msg\": \"m\"}\n}\n",
    )
    .unwrap();
    let effects = bench.press(key('r'));
    bench.evaluate(&effects).await;
    let screen = bench.text(120, 30);
    assert!(!screen.contains("broken.rego:"), "{screen}");
    assert!(line_with(&screen, "team_rule").contains("low"), "{screen}");
}

#[tokio::test]
async fn the_tab_bar_fits_eight_tabs_at_80_and_120_columns() {
    let bench = Bench::plain();
    bench.waive("review_current", "prj_published");
    let mut bench = bench.loaded().await;
    bench.press(key('8'));
    for (width, height) in [(80, 24), (120, 35)] {
        let frame = bench.draw(width, height);
        let tabs = frame.tabs();
        assert!(tabs.contains("8 Policy"), "{tabs}");
        assert!(tabs.contains("1 Insights"), "{tabs}");
        insta::assert_snapshot!(format!("policy_screen_{width}x{height}"), frame.body());
    }
}

/// `--violates` set before the first evaluation answers: the rows wait (no
/// walk over the pages meanwhile), and the evaluation that names a row it
/// hid reads the list again, once.
#[tokio::test]
async fn violates_before_an_evaluation_waits_then_reads_the_list_again_once() {
    let mut bench = Bench::plain();
    let start = bench.app.start(T0);
    bench.press(key('2'));
    for ch in ":filter --violates departed_owner_edit".chars() {
        bench.press(key(ch));
    }
    let effects = bench.press(special(KeyCode::Enter));
    let (token, _) = inventory_pages(&effects).last().cloned().unwrap();
    let mut first: InventoryPage = page(rows());
    first.pagination.has_more = true;
    first.pagination.next_cursor = Some("c2".into());
    let effects = bench.app.handle(answer_inventory_page(token, first), T0);
    assert!(
        bench.app.inventory.list.rows.is_empty(),
        "nothing shown unevaluated"
    );
    let screen = bench.text(120, 30);
    assert!(
        screen.contains("waits for the policies' evaluation"),
        "{screen}"
    );
    assert!(
        inventory_pages(&effects).is_empty(),
        "no walk while waiting"
    );
    // The evaluation asked at start knew no row: nothing to read again
    // (the filter walks on to the next page, as the review filter does).
    let effects = bench.evaluate(&start).await;
    assert!(
        inventory_pages(&effects)
            .iter()
            .all(|(_, page)| page.cursor.is_some()),
        "{effects:?}"
    );
    // The one over the rows names one it hid: the first page again.
    let effects = bench.evaluate(&effects).await;
    let pages = inventory_pages(&effects);
    assert_eq!(pages.len(), 1, "{effects:?}");
    assert_eq!(pages[0].1.cursor, None);
    let effects = bench.answer_page(&effects, rows());
    let ids: Vec<&str> = bench
        .app
        .inventory
        .list
        .rows
        .iter()
        .map(|row| row.id.as_str())
        .collect();
    assert_eq!(ids, ["prj_orphan"]);
    assert!(asked_in(&effects, EVALUATE_POLICIES).is_empty());
}

/// With a snapshot recorded, an evaluation reads every project it holds
/// (not only the rows loaded), keeps its part while it is the newest, and
/// a live row wins over the snapshot's state of its project.
#[tokio::test]
async fn the_evaluation_starts_from_the_newest_snapshot_with_live_rows_over_it() {
    use std::sync::Arc;
    use vantage::tui::policies::LiveRow;
    use vantage::tui::review::ops::{ListSnapshots, TakeSnapshot};

    let (server, clock) = crate::common::demo_server().await;
    let client = Client::new(ClientConfig::new(
        server.base_url(),
        ApiKey::new(ENTERPRISE_ADMIN).unwrap(),
    ))
    .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let executor = WithHistory::new(
        ClientServices {
            client: client.clone(),
            workspace_id: crate::common::ENTERPRISE_WS.into(),
            clock: clock.clone(),
        },
        HistoryAccess {
            location: HistoryLocation::File(dir.path().join("history.sqlite3")),
            config: HistoryConfig {
                detail_requests: 0,
                ..HistoryConfig::default()
            },
            progress: None,
        },
    );
    run_on(&executor, TakeSnapshot).await.unwrap();
    let snapshot = run_on(&executor, ListSnapshots).await.unwrap().remove(0);
    let evaluate = |live: Vec<LiveRow>, base| EvaluatePolicies {
        live: Arc::new(live),
        config_file: None,
        base,
    };
    let first = run_on(&executor, evaluate(Vec::new(), None)).await.unwrap();
    assert_eq!(first.over.snapshot, Some((snapshot.id, snapshot.taken_at)));
    assert_eq!(first.over.projects as i64, snapshot.projects);
    assert_eq!(first.over.live_rows, 0);
    // A snapshot keeps no scan times: stale_scan cannot judge a published
    // project from it alone, and says so; what it keeps (published,
    // reviewed) is read.
    let stale = first.evaluation.policy_counts("stale_scan");
    assert_eq!(stale.total(), 0);
    assert!(stale.unknown > 0, "{stale:?}");
    assert!(first.evaluation.policy_counts("review_current").failing > 0);
    // The snapshot's part is kept while it is the newest.
    let again = run_on(&executor, evaluate(Vec::new(), first.base.clone()))
        .await
        .unwrap();
    assert!(Arc::ptr_eq(
        again.base.as_ref().unwrap(),
        first.base.as_ref().unwrap()
    ));
    // A live row of a published project never scanned: the row says what
    // the snapshot could not.
    let params = vantage::api::InventoryParams {
        limit: Some(100),
        ..Default::default()
    };
    let page = client
        .list_inventory(crate::common::ENTERPRISE_WS, &params, None)
        .await
        .unwrap();
    let mut item = page.data.into_iter().next().expect("a project");
    let target = item.id.clone();
    item.is_published = true;
    item.last_security_scan_at = None;
    let live = vec![LiveRow {
        item,
        read_at: clock.now(),
    }];
    let after = run_on(&executor, evaluate(live, first.base.clone()))
        .await
        .unwrap();
    assert_eq!(after.over.live_rows, 1);
    assert_eq!(after.over.projects, first.over.projects);
    let stale: Vec<&str> = after
        .evaluation
        .findings
        .iter()
        .filter(|finding| finding.policy == "stale_scan" && finding.status.is_violation())
        .map(|finding| finding.project_id.as_str())
        .collect();
    assert_eq!(stale, [target.as_str()]);
    // Judged now: not among those stale_scan could not judge.
    assert!(
        after
            .evaluation
            .of_project(&target)
            .filter(|finding| finding.policy == "stale_scan")
            .all(|finding| finding.status.is_violation()),
        "{target}"
    );
    server.stop().await;
}

/// A title cut by a narrow terminal ends in "…", as every other cut cell does, so a reader
/// knows the words go on (the demo at 100 columns read "…open personal-data findi").
#[tokio::test]
async fn a_policy_title_cut_to_the_column_ends_in_an_ellipsis() {
    let mut bench = Bench::plain().loaded().await;
    bench.press(key('8'));
    for (width, height) in [(80, 24), (100, 30)] {
        let screen = bench.text(width, height);
        let row = line_with(&screen, "public_personal_data");
        assert!(row.contains("Public app with"), "{row}");
        assert!(row.contains('…'), "the cut title says it is cut: {row}");
        assert!(!row.contains("personal-data findi "), "{row}");
    }
    let wide = bench.text(200, 40);
    let row = line_with(&wide, "public_personal_data");
    assert!(!row.contains('…'), "a title that fits is whole: {row}");
}

/// Issue 38: a snapshot keeps no scan times, so over a snapshot alone (no
/// inventory row loaded yet) `stale_scan` cannot judge a published project.
/// The Policy tab says how many it could not judge, in a column of its own
/// that still fits 80 columns, never a clean 0, and under the table why.
#[tokio::test]
async fn over_a_snapshot_alone_the_policy_tab_counts_what_stale_scan_could_not_judge() {
    use vantage::history::SnapshotRef;
    use vantage::tui::review::ops::TakeSnapshot;

    let (server, clock) = crate::common::demo_server().await;
    let client = Client::new(ClientConfig::new(
        server.base_url(),
        ApiKey::new(ENTERPRISE_ADMIN).unwrap(),
    ))
    .unwrap();
    let workspace = crate::common::ENTERPRISE_WS;
    let mut bench = Bench::on(client, workspace, clock, None, tempfile::tempdir().unwrap());
    run_on(&bench.executor, TakeSnapshot).await.unwrap();
    // The published projects the snapshot holds: none has a scan time there.
    let store = Store::open(&bench.dir.path().join("history.sqlite3")).unwrap();
    let snapshot = store
        .resolve(workspace, &SnapshotRef::Last)
        .unwrap()
        .unwrap();
    let projects = store.projects(snapshot.id).unwrap();
    let published: Vec<_> = projects.iter().filter(|p| p.is_published).collect();
    assert!(!published.is_empty());
    drop(store);

    let start = bench.app.start(T0);
    bench.evaluate(&start).await;
    bench.press(key('8'));
    let frame = bench.draw(80, 24);
    let screen = frame.full();
    let head = line_with(&screen, "Severity");
    assert!(
        head.contains("Failing") && head.contains("Waived") && head.contains("Unknown"),
        "{screen}"
    );
    let stale = line_with(&screen, "stale_scan");
    let counts: Vec<&str> = stale
        .trim_matches('"')
        .split_whitespace()
        .rev()
        .take(3)
        .collect();
    assert_eq!(
        counts,
        [published.len().to_string().as_str(), "0", "0"],
        "not judged {}, waived 0, failing 0: {stale}",
        published.len()
    );
    insta::assert_snapshot!("policy_screen_over_a_snapshot_80x24", frame.body());

    server.stop().await;
}

/// Issue 38: a policy that could not judge a project is on its screen, dim
/// and with why, after the violations and without a remediation; a project
/// no policy found in violation says how many policies judged it. The
/// inventory's Policy cell says `?`, never the clean `·`.
#[tokio::test]
async fn the_project_screen_shows_a_policy_that_could_not_judge_it_dimly_with_why() {
    let dir = tempfile::tempdir().unwrap();
    let policies = dir.path().join("policies");
    std::fs::create_dir(&policies).unwrap();
    std::fs::write(
        policies.join("team_owner.rego"),
        "package team.team_owner\n\nimport rego.v1\n\n__rego_metadata__ := {\"id\": \"team_owner\", \
         \"title\": \"Owner known\", \"severity\": \"low\", \"description\": \"d\", \
         \"remediation\": \"name an owner\"}\n\ndeny contains x if {\n  some p in input.projects\n  \
         p.owner.display_name == \"nobody\"\n  x := {\"project\": p.id, \"msg\": \"m\"}\n}\n\n\
         unknown contains {\"project\": p.id, \"msg\": \"owner unknown\"} if {\n  \
         some p in input.projects\n  p.id == \"prj_quiet\"\n}\n",
    )
    .unwrap();
    let config = dir.path().join("config.toml");
    let mut bench = Bench::new(Some(config), dir).loaded().await;
    let screen = bench.text(140, 30);
    // The Policy column's cell in Quiet's row.
    let column = |line: &str| -> String {
        let head: Vec<char> = line_with(&screen, "Priority").chars().collect();
        let at = (0..head.len())
            .find(|&i| head[i..].starts_with(&['P', 'o', 'l', 'i', 'c', 'y']))
            .expect("a Policy column");
        line.chars().skip(at.saturating_sub(1)).take(8).collect()
    };
    let cell = column(line_with(&screen, "Quiet"));
    assert_eq!(cell.trim(), "?", "{screen}");
    // Quiet is the third row.
    bench.press(key('j'));
    bench.press(key('j'));
    bench.press(special(KeyCode::Enter));
    let frame = bench.draw(100, 60);
    let screen = frame.full();
    let total = bench.app.policy.policies().len();
    assert!(
        screen.contains(&format!(
            "✓ violates none of the {} policies that could judge it",
            total - 1
        )),
        "{screen}"
    );
    let row = line_with(&screen, "team_owner");
    assert!(
        row.contains("? low team_owner: not judged: owner unknown"),
        "{screen}"
    );
    assert!(
        !screen.contains("name an owner"),
        "no remediation: {screen}"
    );
    let buffer = frame.buffer();
    let y = screen
        .lines()
        .position(|line| line.contains("team_owner"))
        .unwrap() as u16;
    let x = (0..buffer.area.width)
        .find(|&x| buffer[(x, y)].symbol() == "?")
        .unwrap();
    assert_eq!(buffer[(x, y)].fg, bench.app.theme.dim.fg.unwrap());
}
