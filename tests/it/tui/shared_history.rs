//! A review history out of reach, and a shared one (PostgreSQL): the
//! dashboard says the history is unreachable, keeps the live rows, refuses
//! marks in words and tries again with backoff (`app/review/away.rs`); on a
//! real shared history it starts from the newest shared snapshot, shows a
//! teammate's marks and lock, and says a damaged history, never a panic.

#![allow(clippy::result_large_err)]

use crossterm::event::KeyCode;
use vantage::tui::app::App;

use crate::tui::changes::screen;
use crate::tui::review_marks::{NOW, changed_mark};
use crate::tui::reviewer_filter::{bobs_mark, shown};
use crate::tui::support::inventory_pages;
use crate::tui::support::{Fetch, first_in, key, special};
use vantage::tui::app::{HISTORY_VERSION, REVIEW_MARK, REVIEW_MARKS, TAKE_SNAPSHOT};
fn away(at: time::OffsetDateTime) -> vantage::tui::effect::ErrorInfo {
    let mut error = vantage::tui::effect::ErrorInfo::local(
        "history: cannot reach the shared history db.example:5432/vantage: connection refused"
            .into(),
        at,
    );
    error.kind = Some(vantage::tui::vocab::ErrorKind::HistoryAway);
    error
}

/// Wakes the App as the runtime would until it asks the history again: the
/// request and the time.
fn wake_until_try(app: &mut App) -> (Fetch, time::OffsetDateTime) {
    for _ in 0..20 {
        let wake = app.next_wake().expect("a wake while away");
        let effects = app.handle(vantage::tui::app::Msg::Wake, wake);
        if let Some(check) = first_in(&effects, HISTORY_VERSION) {
            return (check, wake);
        }
    }
    panic!("the history is never tried again");
}

/// The history goes away while the dashboard runs: it says so, keeps the
/// live rows, refuses a mark with a clear word, tries again after 5 s, 10 s,
/// 20 s (the App's clock, no sleep), and once back reads the marks again.
#[test]
fn an_unreachable_history_is_said_retried_with_backoff_and_marks_are_refused() {
    use time::Duration;
    use vantage::tui::app::HistoryMsg;

    use crate::tui::review_marks::{inventory_and_version_check, version};
    use crate::tui::support::answer;

    let (mut app, token) = inventory_and_version_check(vec![bobs_mark()]);
    app.handle(
        answer(
            HISTORY_VERSION,
            token,
            Err(away(NOW)),
            HistoryMsg::DataVersion,
        ),
        NOW,
    );
    assert!(app.history_away().is_some());
    let text = screen(&app, 160, 35);
    assert!(text.contains("history unreachable"), "{text}");
    assert_eq!(shown(&app), ["prj_a", "prj_b", "prj_c"], "live rows stay");

    // A mark is refused at once, and says so.
    let effects = app.handle(key('m'), NOW);
    assert!(first_in(&effects, REVIEW_MARK).is_none());
    assert!(app.review.note.is_none(), "no note field opens");
    assert!(screen(&app, 160, 35).contains("not marked: the review history is unreachable"));

    // Tries again after 5 s, then 10 s, then 20 s.
    let mut last = NOW;
    for wait in [5, 10, 20] {
        let (check, at) = wake_until_try(&mut app);
        assert_eq!(at - last, Duration::seconds(wait), "the wait grows");
        app.handle(check.fail(away(at)), at);
        last = at;
    }
    assert_eq!(
        app.history_away().map(|away| away.tries),
        Some(4),
        "the first failure and three tries"
    );

    // Back: it says so and reads the marks again by itself.
    let (check, at) = wake_until_try(&mut app);
    let effects = app.handle(version(check.token, 9), at);
    assert!(app.history_away().is_none());
    let read = first_in(&effects, REVIEW_MARKS).expect("marks are read again");
    app.handle(read.ok(vec![bobs_mark(), changed_mark()]), at);
    let text = screen(&app, 160, 35);
    assert!(!text.contains("history unreachable"), "{text}");
    assert!(text.contains("Δ Ledger · ada"), "{text}");

    // A mark that was under way when it went away is refused out loud.
    app.handle(key('m'), at);
    let effects = app.handle(special(KeyCode::Enter), at);
    let written = first_in(&effects, REVIEW_MARK).expect("marks work again");
    app.handle(written.fail(away(at)), at);
    assert!(
        screen(&app, 160, 35).contains("NOT marked: the review history is unreachable"),
        "never lost silently"
    );
}

/// Issue 35, item 21: while the history is away, the status line says so
/// first, in words that fit 80 columns, even beside a notice (the refused
/// mark's) that takes the rest of the line.
#[test]
fn an_unreachable_history_is_said_first_on_the_status_line_at_80_columns() {
    use vantage::tui::app::HistoryMsg;

    use crate::tui::review_marks::inventory_and_version_check;
    use crate::tui::support::answer;

    let (mut app, token) = inventory_and_version_check(vec![bobs_mark()]);
    app.handle(
        answer(
            HISTORY_VERSION,
            token,
            Err(away(NOW)),
            HistoryMsg::DataVersion,
        ),
        NOW,
    );
    app.handle(key('m'), NOW);
    for (width, height) in [(80, 24), (120, 35)] {
        let text = screen(&app, width, height);
        let status = text
            .lines()
            .rev()
            .nth(1)
            .expect("a status line above the footer");
        assert!(
            status
                .trim_start_matches('"')
                .starts_with("history unreachable: marks off, live data only"),
            "at {width} columns: {status}"
        );
        assert!(status.contains("not marked"), "the notice stays: {status}");
    }
}

/// The dashboard's side on a real shared history (PostgreSQL, a fresh
/// database per test) against the reference server.
mod with_a_shared_history {
    use vantage::api::{ApiKey, Client, ClientConfig};
    use vantage::history::{HistoryConfig, HistoryLocation, PgTarget};
    use vantage::tui::review::ops::{DataVersion, ListMarks, MarkReviewed, TakeSnapshot};
    use vantage::tui::services::ClientServices;
    use vantage::tui::services::ServiceSource;
    use vantage::tui::services::{HistoryAccess, WithHistory};
    use vantage::tui::vocab::ErrorKind;
    use vantage::tui::vocab::SnapshotOutcome;

    use super::*;
    use crate::common::{self, ENTERPRISE_ADMIN, ENTERPRISE_WS};
    use crate::tui::support::{asked_in, run_on};

    fn shared(url: &str) -> HistoryLocation {
        HistoryLocation::Database(PgTarget::parse(url, None).unwrap())
    }

    fn fresh_database() -> String {
        std::thread::scope(|scope| {
            scope
                .spawn(common::postgres::fresh_database)
                .join()
                .unwrap()
        })
    }

    fn reviewer(name: &str) -> HistoryConfig {
        HistoryConfig {
            detail_requests: 0,
            reviewer: Some(name.into()),
            ..HistoryConfig::default()
        }
    }

    fn executor(
        client: &Client,
        clock: &vantage::clock::Clock,
        location: HistoryLocation,
        config: HistoryConfig,
    ) -> WithHistory {
        executor_on(client, clock, ENTERPRISE_WS, location, config)
    }

    fn executor_on(
        client: &Client,
        clock: &vantage::clock::Clock,
        workspace: &str,
        location: HistoryLocation,
        config: HistoryConfig,
    ) -> WithHistory {
        WithHistory::new(
            ClientServices {
                client: client.clone(),
                workspace_id: workspace.into(),
                clock: clock.clone(),
            },
            HistoryAccess {
                location,
                config,
                progress: None,
            },
        )
    }

    async fn roomy_server() -> (vantage::server::RunningServer, vantage::clock::Clock) {
        common::server_with(|config| {
            config.rate_limit = vantage::server::ratelimit::RateLimit {
                limit: 100_000,
                window: time::Duration::seconds(60),
            };
        })
        .await
    }

    fn client(server: &vantage::server::RunningServer) -> Client {
        Client::new(ClientConfig::new(
            server.base_url(),
            ApiKey::new(ENTERPRISE_ADMIN).unwrap(),
        ))
        .unwrap()
    }

    /// A teammate's fresh snapshot in the shared history: bob's dashboard
    /// starts from it (its first frame draws the snapshot's data) and asks the
    /// service's inventory for its live first page only, never for a
    /// background walk (counted in the reference server).
    #[tokio::test(flavor = "multi_thread")]
    async fn a_fresh_shared_snapshot_is_the_start_and_no_inventory_is_walked() {
        // Four inventory pages: a walk would read them all.
        let fixture = vantage::server::seed::generate(
            vantage::server::seed::GenerateSpec {
                projects: 350,
                members: 20,
                seed: 3,
            },
            common::T0,
        );
        let workspace = fixture.workspaces[0].id.clone();
        let key = fixture
            .keys
            .iter()
            .find(|key| key.label == "enterprise-admin")
            .map(|key| key.key.clone())
            .unwrap();
        let (server, clock) = common::server_with(|config| {
            config.fixture = fixture;
            config.rate_limit = vantage::server::ratelimit::RateLimit {
                limit: 100_000,
                window: time::Duration::seconds(60),
            };
        })
        .await;
        let client = Client::new(ClientConfig::new(
            server.base_url(),
            ApiKey::new(&key).unwrap(),
        ))
        .unwrap();
        let url = fresh_database();
        let alice = executor_on(&client, &clock, &workspace, shared(&url), reviewer("alice"));
        let Ok(SnapshotOutcome::Taken(info)) = run_on(&alice, TakeSnapshot).await else {
            panic!("alice's snapshot");
        };
        let walked = server.app.served("list_inventory");
        assert!(walked > 1, "a snapshot walks every page: {walked}");
        // Bob's background snapshot, asked for anyway: skipped, nothing walked.
        let bob_early = executor_on(&client, &clock, &workspace, shared(&url), reviewer("bob"));
        let skipped = run_on(&bob_early, TakeSnapshot).await;
        assert!(
            matches!(&skipped, Ok(SnapshotOutcome::Skipped(reason)) if reason.contains("fresh snapshot")),
            "{skipped:?}"
        );
        assert_eq!(server.app.served("list_inventory"), walked);

        clock.advance(time::Duration::minutes(10));
        let mut app = crate::tui::support::app();
        let location = shared(&url);
        assert!(app.prepare_history(&location, &reviewer("bob"), &workspace, clock.now(),));
        let effects = app.start(clock.now());
        assert!(
            app.from_snapshot(),
            "the first frame is the shared snapshot's"
        );
        let text = screen(&app, 120, 35);
        assert!(text.contains("from snapshot"), "{text}");
        assert!(text.contains("350"), "the snapshot's insights: {text}");
        assert_eq!(app.review.seeded_at, Some(info.taken_at));
        assert!(
            first_in(&effects, TAKE_SNAPSHOT).is_none(),
            "snapshot {} is fresh: no background snapshot",
            info.id
        );
        let bob = executor_on(&client, &clock, &workspace, location, reviewer("bob"));
        for page in asked_in(&effects, vantage::tui::screens::inventory::PAGE) {
            let _ = page.job.run(page.slot, page.token, bob.services()).await;
        }
        assert_eq!(
            server.app.served("list_inventory") - walked,
            1,
            "bob's dashboard read the live first page, and walked nothing"
        );

        // A day later the shared snapshot is stale: a snapshot is due.
        clock.advance(time::Duration::days(2));
        let mut later = crate::tui::support::app();
        later.prepare_history(&shared(&url), &reviewer("bob"), &workspace, clock.now());
        let effects = later.start(clock.now());
        assert!(first_in(&effects, TAKE_SNAPSHOT).is_some());
        server.stop().await;
    }

    /// Alice marks in her dashboard; bob's, on the same shared history, sees
    /// the history's version move (the minute's check) and reads her mark,
    /// with her name and note.
    #[tokio::test(flavor = "multi_thread")]
    async fn a_teammates_mark_moves_the_version_and_shows_with_her_name() {
        let (server, clock) = roomy_server().await;
        let client = client(&server);
        let url = fresh_database();
        let alice = executor(&client, &clock, shared(&url), reviewer("alice"));
        let bob = executor(&client, &clock, shared(&url), reviewer("bob"));
        let before = run_on(&bob, DataVersion).await.expect("a version");
        let mark = MarkReviewed {
            projects: vec![("prj_shared".into(), None)],
            note: Some("owner asked".into()),
        };
        let marked = run_on(&alice, mark).await.expect("alice's mark");
        // The role that wrote it (the tests' one), with the name alice gave.
        assert_eq!(marked[0].reviewer.as_deref(), Some("vantage"));
        assert_eq!(marked[0].display_name.as_deref(), Some("alice"));
        let after = run_on(&bob, DataVersion).await.expect("a version");
        assert_ne!(before, after, "bob's minute check sees alice's write");
        let marks = run_on(&bob, ListMarks).await.expect("marks");
        assert_eq!(marks.len(), 1);
        assert_eq!(marks[0].display_name.as_deref(), Some("alice"));
        assert_eq!(marks[0].note.as_deref(), Some("owner asked"));
        server.stop().await;
    }

    /// Issue 33, item 8: a teammate's `LOCK TABLE review` no longer holds a
    /// mark silently for ever. It ends after `lock_timeout`, its answer says it
    /// was kept waiting (not "away"), and the dashboard says so: the mark not
    /// made, the status line "waiting on a lock", retrying.
    #[tokio::test(flavor = "multi_thread")]
    async fn a_teammates_lock_ends_a_mark_and_the_dashboard_says_it_waited() {
        use vantage::history::postgres::SessionLimits;
        use vantage::tui::vocab::ErrorKind;

        use crate::tui::review_marks::{inventory_and_version_check, version};

        let (server, clock) = roomy_server().await;
        let client = client(&server);
        let url = fresh_database();
        let limits = SessionLimits {
            statement: std::time::Duration::from_secs(30),
            lock: std::time::Duration::from_secs(1),
        };
        let limited =
            HistoryLocation::Database(PgTarget::parse(&url, None).unwrap().with_limits(limits));
        let bob = executor(&client, &clock, limited, reviewer("bob"));
        run_on(&bob, ListMarks).await.expect("the schema in place");
        let (locked_tx, locked_rx) = std::sync::mpsc::channel();
        let (release_tx, release_rx) = std::sync::mpsc::channel::<()>();
        let teammate_url = url.clone();
        let teammate = std::thread::spawn(move || {
            let mut client = ::postgres::Client::connect(&teammate_url, ::postgres::NoTls).unwrap();
            let mut transaction = client.transaction().unwrap();
            transaction
                .batch_execute("LOCK TABLE review IN ACCESS EXCLUSIVE MODE")
                .unwrap();
            locked_tx.send(()).unwrap();
            let _ = release_rx.recv();
            transaction.rollback().unwrap();
        });
        locked_rx.recv().unwrap();
        let mark = MarkReviewed {
            projects: vec![("prj_a".into(), None)],
            note: None,
        };
        // A bound for a mark that waits for ever, far beyond the lock timeout.
        let answer =
            tokio::time::timeout(std::time::Duration::from_secs(60), run_on(&bob, mark)).await;
        release_tx.send(()).unwrap();
        teammate.join().unwrap();
        let error = answer
            .expect("the mark ends by itself while the table is locked")
            .expect_err("kept waiting");
        assert_eq!(error.kind, Some(ErrorKind::HistoryWaiting), "{error:?}");
        assert!(error.summary.contains("lock_timeout"), "{}", error.summary);

        // The dashboard, given that answer to its mark, says it waited.
        let (mut app, token) = inventory_and_version_check(vec![bobs_mark()]);
        app.handle(version(token, 1), NOW);
        app.handle(key('m'), NOW);
        let effects = app.handle(special(KeyCode::Enter), NOW);
        let written = first_in(&effects, REVIEW_MARK).expect("a mark goes out");
        let mut failed = error.clone();
        failed.at = NOW;
        app.handle(written.fail(failed), NOW);
        let text = screen(&app, 200, 35);
        assert!(
            text.contains("NOT marked: the review history kept the mark waiting on a lock"),
            "{text}"
        );
        assert!(text.contains("history waiting on a lock"), "{text}");
        server.stop().await;
    }

    /// A shared history out of reach (nothing listens on its port): the
    /// dashboard still starts (live, saying so), and the executor's errors
    /// say "away", so a mark is refused out loud and the App retries.
    #[tokio::test(flavor = "multi_thread")]
    async fn an_unreachable_shared_history_starts_live_and_answers_away() {
        let (server, clock) = roomy_server().await;
        let client = client(&server);
        let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let port = closed.local_addr().unwrap().port();
        drop(closed);
        let url = format!("postgres://vantage@127.0.0.1:{port}/vantage?sslmode=disable");
        let mut app = crate::tui::support::app();
        assert!(app.prepare_history(&shared(&url), &reviewer("bob"), ENTERPRISE_WS, clock.now(),));
        assert!(app.history_away().is_some());
        let effects = app.start(clock.now());
        assert!(
            inventory_pages(&effects).into_iter().next().is_some()
                || !crate::tui::support::asked(&effects).is_empty(),
            "the live screens load"
        );
        let bob = executor(&client, &clock, shared(&url), reviewer("bob"));
        let mark = MarkReviewed {
            projects: vec![("prj_x".into(), None)],
            note: None,
        };
        for error in [
            run_on(&bob, DataVersion).await.map(|_| ()),
            run_on(&bob, ListMarks).await.map(|_| ()),
            run_on(&bob, mark).await.map(|_| ()),
        ] {
            let error = error.expect_err("away");
            assert_eq!(error.kind, Some(ErrorKind::HistoryAway), "{error:?}");
            assert!(!error.summary.contains("password"), "{}", error.summary);
        }
        server.stop().await;
    }

    /// A shared history that another tool damaged (columns of another type):
    /// the dashboard starts without it and says what is wrong, and the
    /// executor's answers name the damage, not "away" (nothing to retry):
    /// never a panic.
    #[tokio::test(flavor = "multi_thread")]
    async fn a_damaged_shared_history_is_said_never_a_panic() {
        let (server, clock) = roomy_server().await;
        let client = client(&server);
        let url = fresh_database();
        let alice = executor(&client, &clock, shared(&url), reviewer("alice"));
        let Ok(SnapshotOutcome::Taken(_)) = run_on(&alice, TakeSnapshot).await else {
            panic!("alice's snapshot");
        };
        let mark = MarkReviewed {
            projects: vec![("prj_x".into(), None)],
            note: None,
        };
        run_on(&alice, mark).await.expect("alice's mark");
        let damage = url.clone();
        std::thread::scope(|scope| {
            scope.spawn(move || {
                let mut admin = ::postgres::Client::connect(&damage, ::postgres::NoTls).unwrap();
                admin
                    .batch_execute(
                        "ALTER TABLE snapshot ALTER COLUMN project_count TYPE text
                             USING project_count::text;
                         ALTER TABLE review ALTER COLUMN at_ms TYPE text USING at_ms::text;",
                    )
                    .unwrap();
            });
        });

        let mut app = crate::tui::support::app();
        let with_history =
            app.prepare_history(&shared(&url), &reviewer("bob"), ENTERPRISE_WS, clock.now());
        assert!(!with_history, "the dashboard starts without the history");
        assert!(app.history_away().is_none(), "nothing to retry");
        let said: Vec<&str> = app.errors.iter().map(|e| e.summary.as_str()).collect();
        assert!(
            said.iter()
                .any(|summary| summary.contains("damaged: snapshot.project_count is of type text")),
            "{said:?}"
        );
        let bob = executor(&client, &clock, shared(&url), reviewer("bob"));
        let error = run_on(&bob, ListMarks).await.expect_err("damaged");
        assert_ne!(error.kind, Some(ErrorKind::HistoryAway), "{error:?}");
        assert!(
            error
                .summary
                .contains("damaged: review.at_ms is of type text"),
            "{}",
            error.summary
        );
        server.stop().await;
    }
}

/// Issue 35, item 21: at 80 columns, with the history away, the answer to
/// the reviewer's key (a mark refused) is on the status line: it comes
/// before the rate and the age when the line cannot hold them all.
#[test]
fn a_refused_mark_is_said_at_80_columns_with_the_history_away() {
    use vantage::tui::app::{ClientNotice, HistoryMsg, Msg};

    use crate::tui::review_marks::inventory_and_version_check;
    use crate::tui::support::answer;

    let (mut app, token) = inventory_and_version_check(vec![bobs_mark()]);
    app.handle(
        answer(
            HISTORY_VERSION,
            token,
            Err(away(NOW)),
            HistoryMsg::DataVersion,
        ),
        NOW,
    );
    app.handle(
        Msg::Client(ClientNotice::RateLimit {
            remaining: 89,
            limit: 120,
        }),
        NOW,
    );
    app.handle(key('m'), NOW);
    for (width, height) in [(80, 24), (120, 35), (200, 50)] {
        let text = screen(&app, width, height);
        let status = text
            .lines()
            .find(|line| line.contains("history unreachable"))
            .unwrap_or_else(|| panic!("{width}: the history's state first: {text}"));
        // The words that matter first: at 80 columns the head says why.
        let said = match width {
            80 => "not marked: the review hist",
            _ => "not marked: the review history is unreachable",
        };
        assert!(status.contains(said), "{width} columns: {status}");
        if width >= 200 {
            assert!(status.contains("rate 89/120"), "{width}: {status}");
        }
    }
}
