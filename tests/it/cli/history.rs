//! The review history against the reference server: `vantage snapshot`, a
//! change made between two snapshots, `vantage changes` finding it by kind,
//! `--fail-on` exiting 6, a member joining through a fixture difference, the
//! file's mode and contents, an interrupted walk, retention, reviewed marks.

use std::path::PathBuf;

use crate::cli::stores::{TestStore, each_store};
use serde_json::Value;
use time::OffsetDateTime;
use vantage::api::model::{
    AudienceTarget, Insights, InsightsSummary, Metric, PiiFinding, PiiSource, PiiStatus,
    PublishAudience, PublishSettings, Reason, ReviewPriority, RiskCounts, Role,
};
use vantage::api::{ApiKey, Client, ClientConfig};
use vantage::history::{
    Capture, MemberState, NewMark, ProjectState, Retention, SnapshotRef, Store, diff,
};
use vantage::server::faults::Faults;
use vantage::server::ratelimit::RateLimit;
use vantage::server::store::{Fixture, MembershipRec, PiiRec, ProjectRec, UserRec};
use vantage::server::{RunningServer, ServerConfig, start};

use crate::cli::support::{Cli, Run};
use crate::common::*;

/// A user's environment whose data dir (and so history file) is in its home.
struct User {
    cli: Cli,
}

impl User {
    fn new(server: &RunningServer) -> Self {
        Self {
            cli: Cli::new(server.base_url(), ENTERPRISE_WS, ENTERPRISE_ADMIN),
        }
    }

    fn data_home(&self) -> PathBuf {
        self.cli.home.path().join("data")
    }

    fn history_file(&self) -> PathBuf {
        self.data_home().join("vantage").join("history.sqlite3")
    }

    /// Points at another server, keeping the home (and the history).
    fn switch_to(&mut self, server: &RunningServer) {
        self.cli.base_url = server.base_url();
    }

    async fn run(&self, args: &[&str]) -> Run {
        let data = self.data_home();
        self.cli
            .run_env(args, &[("XDG_DATA_HOME", data.to_str().unwrap())])
            .await
    }

    async fn changes(&self, args: &[&str]) -> Vec<Value> {
        let mut all = vec!["changes", "--format", "json"];
        all.extend(args);
        let run = self.run(&all).await.expect(0);
        serde_json::from_str::<Vec<Value>>(&run.stdout).unwrap()
    }
}

/// A server on `fixture`, with a manual clock at T0 and a rate limit no test reaches.
async fn server_on(fixture: Fixture) -> (RunningServer, vantage::clock::Clock) {
    let clock = vantage::clock::Clock::manual(T0);
    let mut config = ServerConfig::local(fixture);
    config.clock = clock.clone();
    config.rate_limit = RateLimit {
        limit: 100_000,
        window: time::Duration::seconds(60),
    };
    (start(config).await.expect("server starts"), clock)
}

fn acme(fixture: &Fixture) -> impl Iterator<Item = &ProjectRec> {
    fixture
        .projects
        .iter()
        .filter(|p| p.wire.workspace_id == ENTERPRISE_WS)
}

fn pick(fixture: &Fixture, taken: &[&str], wanted: impl Fn(&ProjectRec) -> bool) -> String {
    acme(fixture)
        .find(|p| !taken.contains(&p.wire.id.as_str()) && wanted(p))
        .map(|p| p.wire.id.clone())
        .expect("the demo fixture has such a project")
}

/// Only the changes of `kind` for `id`, as (before, after).
fn of(changes: &[Value], kind: &str, id: &str) -> Vec<(Value, Value)> {
    changes
        .iter()
        .filter(|c| c["kind"] == kind && c["id"] == id)
        .map(|c| (c["before"].clone(), c["after"].clone()))
        .collect()
}

fn client(server: &RunningServer) -> Client {
    Client::new(ClientConfig::new(
        server.base_url(),
        ApiKey::new(ENTERPRISE_ADMIN.to_owned()).unwrap(),
    ))
    .unwrap()
}

#[tokio::test(flavor = "multi_thread")]
async fn changes_between_snapshots_are_found_by_kind() {
    let fixture = demo();
    let (server, clock) = server_on(fixture.clone()).await;
    let mut user = User::new(&server);

    // No snapshot yet: nothing to compare (not found).
    let run = user.run(&["changes"]).await.expect(4);
    assert!(
        run.stderr.contains("no snapshot of workspace ws_acme yet"),
        "{}",
        run.stderr
    );

    let first = user.run(&["snapshot"]).await.expect(0);
    assert_eq!(first.stdout, "", "quiet without a terminal or --format");
    let run = user.run(&["changes"]).await.expect(4);
    assert!(
        run.stderr.contains("no snapshot before snapshot 1"),
        "{}",
        run.stderr
    );

    let renamed = pick(&fixture, &[], |p| {
        p.wire.visibility.is_some()
            && p.wire.visibility.as_ref().map(|v| v.as_str()) != Some("restricted")
    });
    let offline = pick(&fixture, &[&renamed], |p| p.wire.is_published);
    let published = pick(&fixture, &[&renamed, &offline], |p| {
        !p.wire.is_published
            && p.security.values.error_count == 0
            && !(p.security.review_priority == ReviewPriority::NeedsReview
                && p.security.values.secret_count > 0)
    });
    let widened = pick(&fixture, &[&renamed, &offline, &published], |p| {
        p.wire.is_published && p.wire.publish_audience == Some(PublishAudience::Workspace)
    });
    let custom = pick(&fixture, &[&renamed, &offline, &published, &widened], |p| {
        p.wire.is_published && p.wire.publish_audience == Some(PublishAudience::Custom)
    });

    user.run(&[
        "projects",
        "rename",
        &renamed,
        "Quarterly ledger",
        "-o",
        "jsonl",
    ])
    .await
    .expect(0);
    user.run(&[
        "projects",
        "set-visibility",
        &renamed,
        "restricted",
        "-o",
        "jsonl",
    ])
    .await
    .expect(0);
    user.run(&["projects", "unpublish", &offline])
        .await
        .expect(0);
    user.run(&[
        "projects",
        "publish",
        &published,
        "--audience",
        "workspace",
        "-o",
        "jsonl",
    ])
    .await
    .expect(0);
    clock.advance(time::Duration::seconds(5));
    let api = client(&server);
    api.update_publish_settings(
        &widened,
        &PublishSettings {
            audience: PublishAudience::Public,
            audience_targets: vec![],
        },
    )
    .await
    .unwrap();

    user.run(&["snapshot"]).await.expect(0);
    let changes = user.changes(&[]).await;
    assert_eq!(
        of(&changes, "renamed", &renamed),
        vec![(
            fixture
                .projects
                .iter()
                .find(|p| p.wire.id == renamed)
                .unwrap()
                .wire
                .name
                .clone()
                .into(),
            "Quarterly ledger".into()
        )]
    );
    assert_eq!(
        of(&changes, "visibility_changed", &renamed)[0].1,
        Value::from("restricted")
    );
    assert_eq!(of(&changes, "unpublished", &offline).len(), 1);
    assert_eq!(
        of(&changes, "published", &published),
        vec![(Value::Null, "workspace".into())]
    );
    assert_eq!(
        of(&changes, "audience_changed", &widened),
        vec![("workspace".into(), "public".into())]
    );
    assert_eq!(changes.len(), 5, "{changes:#?}");
    let item = &changes[0];
    assert_eq!(item["kind"], "published", "the most serious kind first");
    assert_eq!(item["before_snapshot"], 1);
    assert_eq!(item["after_snapshot"], 2);
    assert!(item["before_at"].is_string() && item["after_at"].is_string());

    // --kind filters; --fail-on exits 6 only for a kind that occurred.
    let only = user.changes(&["--kind", "renamed,unpublished"]).await;
    assert_eq!(only.len(), 2);
    user.run(&["changes", "--fail-on", "priority_raised,member_joined"])
        .await
        .expect(0);
    let alarm = user
        .run(&[
            "changes",
            "--fail-on",
            "member_joined,audience_changed",
            "-o",
            "jsonl",
        ])
        .await
        .expect(6);
    assert_eq!(
        alarm.stdout.lines().count(),
        5,
        "the changes are written all the same"
    );
    assert!(
        alarm.stderr.contains("audience_changed (1)"),
        "{}",
        alarm.stderr
    );

    // The table groups by kind, the most serious first.
    let table = user.run(&["changes", "-o", "table"]).await.expect(0);
    let headings: Vec<&str> = table
        .stdout
        .lines()
        .filter(|line| line.ends_with("(1)"))
        .collect();
    assert_eq!(
        headings,
        [
            "published (1)",
            "audience_changed (1)",
            "visibility_changed (1)",
            "renamed (1)",
            "unpublished (1)"
        ]
    );
    // A null prints as the dashboard shows it, `—`, never a blank
    // (published: before was no audience).
    let published_row = table
        .stdout
        .lines()
        .skip_while(|line| *line != "published (1)")
        .nth(2)
        .expect("the published row");
    assert!(
        published_row.contains(&published) && published_row.contains('—'),
        "{}",
        table.stdout
    );

    // Audience targets of a custom audience are read, and a change is found.
    let project = api.get_project(&custom).await.unwrap();
    let mut targets = project.publish_audience_targets.clone();
    let extra_user = fixture
        .memberships
        .iter()
        .find(|m| m.workspace_id == ENTERPRISE_WS && m.is_active())
        .unwrap()
        .user_id
        .clone();
    targets.push(AudienceTarget {
        id: extra_user.clone(),
        kind: "user".into(),
    });
    api.update_publish_settings(
        &custom,
        &PublishSettings {
            audience: PublishAudience::Custom,
            audience_targets: targets,
        },
    )
    .await
    .unwrap();
    user.run(&["snapshot"]).await.expect(0);
    let changes = user.changes(&["--since", "last"]).await;
    let found = of(&changes, "audience_targets_changed", &custom);
    assert_eq!(found.len(), 1, "{changes:#?}");
    assert!(
        found[0]
            .1
            .as_array()
            .unwrap()
            .contains(&Value::from(format!("user:{extra_user}"))),
        "{found:?}"
    );
    assert_eq!(changes.len(), 1);

    // A fixture difference: what the API cannot change (members, priorities,
    // findings, connectors, owners) changes between two servers on one workspace.
    let mut changed = fixture.clone();
    let raised = pick(
        &fixture,
        &[&renamed, &offline, &published, &widened, &custom],
        |p| {
            p.security.review_priority == ReviewPriority::NoReviewNeeded
                && !p.security.explanation.is_empty()
                && !p
                    .security
                    .finding_type_ids
                    .contains(&"external_collaborator_access".to_owned())
        },
    );
    let removed = pick(
        &fixture,
        &[&renamed, &offline, &published, &widened, &custom, &raised],
        |_| true,
    );
    let members: Vec<MembershipRec> = fixture
        .memberships
        .iter()
        .filter(|m| m.workspace_id == ENTERPRISE_WS && m.is_active())
        .cloned()
        .collect();
    let new_owner = members
        .iter()
        .find(|m| {
            let current = fixture
                .projects
                .iter()
                .find(|p| p.wire.id == raised)
                .unwrap();
            Some(&m.user_id) != current.wire.owner_id.as_ref() && m.display_name.is_some()
        })
        .unwrap()
        .clone();
    let promoted = members
        .iter()
        .find(|m| m.role == Role::Member && m.user_id != new_owner.user_id)
        .unwrap()
        .clone();
    let leaving = members
        .iter()
        .find(|m| m.role == Role::Viewer || m.role == Role::Collaborator)
        .unwrap()
        .clone();
    for project in changed.projects.iter_mut().filter(|p| p.wire.id == raised) {
        project.security.review_priority = ReviewPriority::ReviewRecommended;
        project.security.explanation.insert(
            0,
            Reason {
                id: "external_collaborator_access".into(),
                label: "External collaborators".into(),
                detail: "2 people outside the workspace can edit".into(),
                category: "exposure".into(),
                review_priority: ReviewPriority::ReviewRecommended,
            },
        );
        project
            .security
            .connectors
            .push("history-test-connector".into());
        project
            .security
            .edge_functions
            .push("history-test-function".into());
        project.wire.owner_id = Some(new_owner.user_id.clone());
    }
    changed.pii_findings.push(PiiRec {
        project_id: raised.clone(),
        finding: PiiFinding {
            id: "pii_history_test".into(),
            found_at: T0 - time::Duration::hours(1),
            quote: "history test quote 555-0100".into(),
            source: PiiSource::Chat,
            status: PiiStatus::Open,
        },
    });
    changed.projects.retain(|p| p.wire.id != removed);
    changed.scans.retain(|scan| scan.project_id != removed);
    changed
        .pii_findings
        .retain(|finding| finding.project_id != removed);
    let mut added = fixture
        .projects
        .iter()
        .find(|p| p.wire.id == removed)
        .unwrap()
        .clone();
    added.wire.id = "prj_history_added".into();
    added.wire.name = Some("Newcomer app".into());
    changed.projects.push(added);
    let joiner = "0b0e5c1a-5d2f-4b8e-9a51-6c1d2e3f4a5b";
    changed.users.push(UserRec {
        id: joiner.into(),
        email: Some("grace.newcomer@example.com".into()),
        username: Some("grace.newcomer".into()),
    });
    changed.memberships.push(MembershipRec {
        id: "mem_history_joiner".into(),
        workspace_id: ENTERPRISE_WS.into(),
        user_id: joiner.into(),
        role: Role::Member,
        status: "active".into(),
        display_name: Some("Grace Newcomer".into()),
        joined_at: Some(T0 - time::Duration::hours(2)),
        invited_at: None,
        scim_managed: false,
    });
    for membership in changed.memberships.iter_mut() {
        if membership.id == promoted.id {
            membership.role = Role::Admin;
        }
        if membership.id == leaving.id {
            membership.status = "suspended".into();
        }
    }
    let (second_server, _clock) = server_on(changed).await;
    user.switch_to(&second_server);
    user.run(&["snapshot"]).await.expect(0);
    // From the first snapshot (the same fixture, unchanged) to this one.
    let changes = user.changes(&["--since", "1"]).await;
    let kinds: Vec<&str> = changes
        .iter()
        .map(|c| c["kind"].as_str().unwrap())
        .collect();
    assert_eq!(
        of(&changes, "member_joined", joiner),
        vec![(Value::Null, "member".into())]
    );
    let joined = changes
        .iter()
        .find(|c| c["kind"] == "member_joined")
        .unwrap();
    assert_eq!(
        joined["name"], "Grace Newcomer",
        "a new member's name is read"
    );
    assert_eq!(
        of(&changes, "role_changed", &promoted.user_id),
        vec![("member".into(), "admin".into())]
    );
    assert_eq!(of(&changes, "member_left", &leaving.user_id).len(), 1);
    assert_eq!(
        of(&changes, "priority_raised", &raised),
        vec![("no_review_needed".into(), "review_recommended".into())]
    );
    assert_eq!(
        of(&changes, "finding_type_added", &raised),
        vec![(Value::Null, "external_collaborator_access".into())]
    );
    assert_eq!(
        of(&changes, "connector_added", &raised),
        vec![(Value::Null, "history-test-connector".into())]
    );
    assert_eq!(
        of(&changes, "edge_function_added", &raised),
        vec![(Value::Null, "history-test-function".into())]
    );
    assert_eq!(
        of(&changes, "owner_changed", &raised)[0].1,
        Value::from(new_owner.display_name.clone())
    );
    let pii = of(&changes, "pii_open_increased", &raised);
    assert_eq!(pii.len(), 1, "{changes:#?}");
    assert_eq!(pii[0].1.as_i64().unwrap(), pii[0].0.as_i64().unwrap() + 1);
    assert_eq!(of(&changes, "project_removed", &removed).len(), 1);
    assert_eq!(
        of(&changes, "project_added", "prj_history_added"),
        vec![(Value::Null, "Newcomer app".into())]
    );
    assert!(kinds.windows(2).all(|pair| {
        let rank = |kind: &str| vantage::history::ChangeKind::parse(kind).seriousness_rank();
        rank(pair[0]) <= rank(pair[1])
    }));
    user.run(&["changes", "--since", "1", "--fail-on", "priority_raised"])
        .await
        .expect(6);
    user.run(&[
        "changes",
        "--since",
        "1",
        "--until",
        "2",
        "--fail-on",
        "member_joined",
    ])
    .await
    .expect(0);

    // The file is the owner's alone and holds no personal-data quote.
    let file = user.history_file();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&file).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600, "{file:?}");
    }
    let mut bytes = std::fs::read(&file).unwrap();
    for companion in ["-wal", "-shm"] {
        let mut path = file.clone().into_os_string();
        path.push(companion);
        if let Ok(more) = std::fs::read(&path) {
            bytes.extend(more);
        }
    }
    // The demo fixture reuses its hostile strings: a quote that is also a
    // project or member name is in the file as that name, legitimately.
    let names: Vec<&String> = fixture
        .projects
        .iter()
        .filter_map(|p| p.wire.name.as_ref())
        .chain(
            fixture
                .memberships
                .iter()
                .filter_map(|m| m.display_name.as_ref()),
        )
        .collect();
    let quotes: Vec<String> = fixture
        .pii_findings
        .iter()
        .map(|f| f.finding.quote.clone())
        .filter(|quote| !names.contains(&quote))
        .chain(["history test quote 555-0100".to_owned()])
        .collect();
    assert!(quotes.len() > 50, "most quotes are checked");
    for quote in quotes {
        assert!(
            !bytes
                .windows(quote.len())
                .any(|window| window == quote.as_bytes()),
            "the history file holds the quote {quote:?}"
        );
    }
    assert!(
        bytes
            .windows(b"Grace Newcomer".len())
            .any(|w| w == b"Grace Newcomer"),
        "the grep can find what is there"
    );

    // `snapshot list`
    let list = user
        .run(&["snapshot", "list", "-o", "json"])
        .await
        .expect(0);
    let list: Vec<Value> = serde_json::from_str(&list.stdout).unwrap();
    assert_eq!(list.len(), 4);
    assert_eq!(list[3]["id"], 4);
    assert_eq!(list[3]["members"].as_i64().unwrap(), members.len() as i64);
}

/// A seed whose first `ok` requests pass and the next one answers 503.
fn failing_after(ok: usize) -> Faults {
    (0..10_000u64)
        .map(|seed| format!("503=0.3,seed={seed}"))
        .find(|spec| {
            let faults: Faults = spec.parse().unwrap();
            (0..ok).all(|_| !faults.next().unavailable) && faults.next().unavailable
        })
        .map(|spec| spec.parse().unwrap())
        .expect("a seed")
}

#[tokio::test(flavor = "multi_thread")]
async fn an_interrupted_snapshot_records_nothing() {
    // Insights, the inventory's one page, two role walks; the third fails.
    let (server, _clock) = server_with(|config| {
        config.faults = failing_after(4);
    })
    .await;
    let user = User::new(&server);
    let config = user.cli.config_file("max_attempts = 1\n");
    let run = user
        .run(&["--config", config.to_str().unwrap(), "snapshot"])
        .await
        .expect(1);
    assert!(run.stderr.contains("HTTP 503"), "{}", run.stderr);
    let list = user
        .run(&["snapshot", "list", "-o", "json"])
        .await
        .expect(0);
    assert_eq!(list.stdout.trim(), "[]");
}

pub fn capture(
    at: OffsetDateTime,
    projects: Vec<ProjectState>,
    members: Vec<MemberState>,
) -> Capture {
    let metric = |value| Metric {
        value,
        delta_30d: 0,
        delta_window: "30 days".into(),
    };
    Capture {
        workspace_id: "ws_x".into(),
        taken_at: at,
        insights: Insights {
            as_of: None,
            findings: vec![],
            summary: InsightsSummary {
                total_projects: metric(projects.len() as i64),
                externally_published: metric(0),
                workspace_members: metric(members.len() as i64),
                risk: RiskCounts::default(),
            },
        },
        projects,
        first_page: vec![],
        members,
    }
}

pub fn project(id: &str, name: &str) -> ProjectState {
    ProjectState {
        id: id.into(),
        name: Some(name.into()),
        audience_targets: Some(vec![]),
        visibility: Some("workspace_edit".into()),
        review_priority: "unscored".into(),
        ..ProjectState::default()
    }
}

/// A mark made from a script: no loaded row, the newest snapshot's state.
pub fn offline_mark(project_id: &str, note: Option<&str>) -> NewMark {
    NewMark {
        project_id: project_id.into(),
        note: note.map(str::to_owned),
        reviewer: Some("ada".into()),
        seen: None,
    }
}

pub fn count(file: &std::path::Path, table: &str) -> i64 {
    let connection = rusqlite::Connection::open(file).unwrap();
    connection
        .query_row(&format!("SELECT COUNT(*) FROM {table}"), [], |row| {
            row.get(0)
        })
        .unwrap()
}

#[test]
fn retention_prunes_by_count_and_age_and_drops_unused_states() {
    for on in each_store() {
        retention_prunes_on(&on);
    }
}

fn retention_prunes_on(on: &TestStore) {
    let mut store = on.open();
    let keep_three = Retention {
        max_age: time::Duration::days(90),
        max_snapshots: 3,
    };
    for day in 0..5 {
        let at = T0 + time::Duration::days(day);
        // One project renamed every day, one never changed.
        let projects = vec![project("p1", &format!("day {day}")), project("p2", "same")];
        store
            .record(&capture(at, projects, vec![]), keep_three)
            .unwrap();
    }
    let ids: Vec<i64> = store.list("ws_x").unwrap().iter().map(|s| s.id).collect();
    assert_eq!(ids, [3, 4, 5]);
    // p2 is stored once; p1 once per kept day; the insights once (equal every day).
    assert_eq!(on.count("state WHERE kind = 'project'"), 4);
    // A range per state held: p2's one, p1's one per kept day.
    assert_eq!(on.count("project_range"), 4);

    let now = T0 + time::Duration::days(4) + time::Duration::hours(1);
    let removed = store
        .prune(
            "ws_x",
            Retention {
                max_age: time::Duration::days(1),
                max_snapshots: 200,
            },
            now,
        )
        .unwrap();
    assert_eq!(removed, 2, "snapshots of day 2 and 3 are older than a day");
    assert_eq!(store.list("ws_x").unwrap().len(), 1);
    assert_eq!(on.count("state WHERE kind = 'project'"), 2);

    // Another workspace's history is its own.
    let mut other = capture(now, vec![project("q1", "other")], vec![]);
    other.workspace_id = "ws_y".into();
    store.record(&other, keep_three).unwrap();
    assert_eq!(store.list("ws_x").unwrap().len(), 1);
    assert_eq!(store.list("ws_y").unwrap().len(), 1);
}

#[test]
fn a_failed_recording_leaves_no_trace_and_the_schema_is_versioned() {
    for on in each_store() {
        a_failed_recording_on(&on);
    }
}

fn a_failed_recording_on(on: &TestStore) {
    let mut store = on.open();
    store
        .record(
            &capture(T0, vec![project("p1", "a")], vec![]),
            Retention::default(),
        )
        .unwrap();
    // A refusal half-way through (while writing members): the whole snapshot goes.
    on.execute(
        "CREATE TRIGGER refuse BEFORE INSERT ON member_range
         BEGIN SELECT RAISE(ABORT, 'refused'); END;",
        "CREATE FUNCTION refuse() RETURNS trigger AS $$ BEGIN RAISE EXCEPTION 'refused'; END $$
             LANGUAGE plpgsql;
         CREATE TRIGGER refuse BEFORE INSERT ON member_range FOR EACH ROW EXECUTE FUNCTION refuse();",
    );
    let member = MemberState {
        user_id: "u1".into(),
        kind: "user".into(),
        role: Some("owner".into()),
        name: None,
        name_read: false,
    };
    let failed = store.record(
        &capture(
            T0 + time::Duration::days(1),
            vec![project("p1", "b")],
            vec![member],
        ),
        Retention::default(),
    );
    assert!(failed.is_err(), "{}", on.name());
    assert_eq!(store.list("ws_x").unwrap().len(), 1);
    assert_eq!(
        on.count("state WHERE kind = 'project'"),
        1,
        "the new state was rolled back ({})",
        on.name()
    );
    let known = match on.location {
        vantage::history::HistoryLocation::File(_) => vantage::history::SCHEMA_VERSION,
        vantage::history::HistoryLocation::Database(_) => vantage::history::PG_SCHEMA_VERSION,
    };
    drop(store);
    on.execute(
        "PRAGMA user_version = 99",
        "UPDATE vantage_meta SET value = 99 WHERE key = 'schema_version'",
    );
    let newer = Store::open_at(&on.location)
        .err()
        .expect("a newer schema is refused");
    let said = newer.to_string();
    assert!(said.contains("schema version 99"), "{newer}");
    assert!(
        said.contains(&format!("knows up to version {known}")),
        "{newer}"
    );
}

#[test]
fn reviewed_marks_survive_snapshots_and_see_changes() {
    for on in each_store() {
        reviewed_marks_survive_on(&on);
    }
}

fn reviewed_marks_survive_on(on: &TestStore) {
    let mut store = on.open();
    let retention = Retention::default();
    // Marked before any snapshot holds it: the next one is the baseline.
    let early = store
        .mark_reviewed("ws_x", &offline_mark("p1", Some("looked at it")), T0)
        .unwrap();
    assert_eq!(early.changed_since_review, None);
    store
        .record(
            &capture(T0, vec![project("p1", "a"), project("p2", "b")], vec![]),
            retention,
        )
        .unwrap();
    store
        .mark_reviewed("ws_x", &offline_mark("p2", None), T0)
        .unwrap();
    let marks = store.reviewed_marks("ws_x").unwrap();
    assert!(
        marks.iter().all(|m| m.changed_since_review == Some(false)),
        "{marks:?}"
    );

    let renamed = vec![project("p1", "a"), project("p2", "b renamed")];
    store
        .record(
            &capture(T0 + time::Duration::days(1), renamed, vec![]),
            retention,
        )
        .unwrap();
    drop(store);
    let store = on.open();
    let marks = store.reviewed_marks("ws_x").unwrap();
    let by_id = |id: &str| marks.iter().find(|m| m.project_id == id).unwrap();
    assert_eq!(by_id("p1").changed_since_review, Some(false));
    assert_eq!(by_id("p1").note.as_deref(), Some("looked at it"));
    assert_eq!(by_id("p2").changed_since_review, Some(true));
    assert_eq!(by_id("p2").name.as_deref(), Some("b renamed"));
    assert!(store.reviewed_marks("ws_y").unwrap().is_empty());
}

#[test]
fn unknown_pii_counts_and_targets_are_never_a_change() {
    let mut known = project("p1", "a");
    known.pii_open = Some(3);
    known.is_published = true;
    known.audience = Some("custom".into());
    known.audience_targets = Some(vec!["group:g1".into()]);
    let mut unknown = known.clone();
    unknown.pii_open = None;
    unknown.audience_targets = None;
    for on in each_store() {
        unknown_is_never_a_change_on(&on, &known, &unknown);
    }
}

fn unknown_is_never_a_change_on(on: &TestStore, known: &ProjectState, unknown: &ProjectState) {
    let (known, unknown) = (known.clone(), unknown.clone());
    let mut store = on.open();
    let at = |days| T0 + time::Duration::days(days);
    let a = store
        .record(
            &capture(at(0), vec![known.clone()], vec![]),
            Retention::default(),
        )
        .unwrap();
    let b = store
        .record(&capture(at(1), vec![unknown], vec![]), Retention::default())
        .unwrap();
    let mut fewer = known.clone();
    fewer.pii_open = Some(1);
    let c = store
        .record(&capture(at(2), vec![fewer], vec![]), Retention::default())
        .unwrap();
    let load = |info| store.load(info).unwrap();
    assert!(diff(&load(&a), &load(&b)).is_empty());
    let changes = diff(&load(&a), &load(&c));
    assert_eq!(changes.len(), 1);
    assert_eq!(changes[0].kind.as_str(), "pii_open_decreased");
    let loaded = load(&b);
    assert_eq!(loaded.projects[0].pii_open, None, "unknown stays unknown");
    assert_eq!(
        store
            .resolve("ws_x", &SnapshotRef::Previous)
            .unwrap()
            .map(|s| s.id),
        Some(b.id)
    );
    let day = time::Duration::days(1);
    assert!(
        !store
            .snapshot_due("ws_x", day, at(2) + time::Duration::hours(23))
            .unwrap()
    );
    assert!(
        store
            .snapshot_due("ws_x", day, at(3) + time::Duration::hours(1))
            .unwrap()
    );
    assert!(store.snapshot_due("ws_other", day, at(0)).unwrap());
}

#[tokio::test(flavor = "multi_thread")]
async fn marks_and_pruning_from_scripts_need_no_key() {
    let fixture = demo();
    let (server, _clock) = server_on(fixture.clone()).await;
    let mut user = User::new(&server);
    user.run(&["snapshot"]).await.expect(0);
    let recorded = user.run(&["snapshot", "-o", "json"]).await.expect(0);
    let recorded: Value = serde_json::from_str(&recorded.stdout).unwrap();
    assert_eq!(recorded["id"], 2);
    assert_eq!(recorded["workspace_id"], ENTERPRISE_WS);
    let project = first_project(&fixture, ENTERPRISE_WS);

    // The history is local: no key is needed to read or mark it.
    user.cli.key = None;
    let mark = user
        .run(&[
            "reviewed", "mark", &project, "--note", "checked", "-o", "json",
        ])
        .await
        .expect(0);
    let mark: Value = serde_json::from_str(&mark.stdout).unwrap();
    assert_eq!(mark["project_id"], project.as_str());
    assert_eq!(mark["note"], "checked");
    assert_eq!(mark["changed_since_review"], false);
    let csv = user.run(&["reviewed", "list", "-o", "csv"]).await.expect(0);
    let rows = crate::cli::support::parse_csv(&csv.stdout);
    assert_eq!(rows.len(), 2, "{}", csv.stdout);
    assert_eq!(rows[0][0], "project_id");
    assert_eq!(rows[1][0], project);

    let pruned = user
        .run(&["snapshot", "prune", "--keep", "1"])
        .await
        .expect(0);
    assert_eq!(pruned.stderr, "pruned 1 snapshots; 1 kept\n");
    let run = user.run(&["changes"]).await.expect(4);
    assert!(
        run.stderr.contains("no snapshot before snapshot 2"),
        "{}",
        run.stderr
    );
    let list = user
        .run(&["reviewed", "list", "-o", "json"])
        .await
        .expect(0);
    let list: Vec<Value> = serde_json::from_str(&list.stdout).unwrap();
    assert_eq!(
        list.len(),
        1,
        "a mark outlives the snapshots it was made on"
    );
    assert_eq!(list[0]["changed_since_review"], false);

    user.run(&["reviewed", "unmark", &project]).await.expect(0);
    let again = user.run(&["reviewed", "unmark", &project]).await.expect(0);
    assert!(again.stderr.contains("was not marked"), "{}", again.stderr);
    let list = user
        .run(&["reviewed", "list", "-o", "json"])
        .await
        .expect(0);
    assert_eq!(list.stdout.trim(), "[]");

    // `snapshot` itself needs the key.
    user.run(&["snapshot"]).await.expect(3);
}

#[test]
fn lowered_priorities_and_removed_finding_types_are_changes_too() {
    let mut before = project("p1", "a");
    before.review_priority = "needs_review".into();
    before.finding_types = vec!["inactive_owner".into(), "public_pii_exposure".into()];
    let mut after = before.clone();
    after.review_priority = "review_recommended".into();
    after.finding_types = vec!["inactive_owner".into()];
    for on in each_store() {
        lowered_on(&on, &before, &after);
    }
}

fn lowered_on(on: &TestStore, before: &ProjectState, after: &ProjectState) {
    let (before, after) = (before.clone(), after.clone());
    let mut store = on.open();
    let a = store
        .record(&capture(T0, vec![before], vec![]), Retention::default())
        .unwrap();
    let b = store
        .record(
            &capture(T0 + time::Duration::days(1), vec![after], vec![]),
            Retention::default(),
        )
        .unwrap();
    let changes = diff(&store.load(&a).unwrap(), &store.load(&b).unwrap());
    let kinds: Vec<(&str, Value, Value)> = changes
        .iter()
        .map(|c| (c.kind.as_str(), c.before.clone(), c.after.clone()))
        .collect();
    assert_eq!(
        kinds,
        [
            (
                "priority_lowered",
                Value::from("needs_review"),
                Value::from("review_recommended")
            ),
            (
                "finding_type_removed",
                Value::from("public_pii_exposure"),
                Value::Null
            ),
        ]
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn prune_by_rules_keeps_what_a_mark_needs_and_posture_reads_per_snapshot() {
    let fixture = demo();
    let (server, _clock) = server_on(fixture.clone()).await;
    let user = User::new(&server);
    let project = first_project(&fixture, ENTERPRISE_WS);
    user.run(&["snapshot"]).await.expect(0);
    user.run(&["reviewed", "mark", &project]).await.expect(0);
    user.run(&[
        "projects",
        "rename",
        &project,
        "Renamed ledger",
        "-o",
        "jsonl",
    ])
    .await
    .expect(0);
    user.run(&["snapshot"]).await.expect(0);
    user.run(&["snapshot"]).await.expect(0);

    let refused = user
        .run(&["snapshot", "prune", "--keep-last", "0"])
        .await
        .expect(2);
    assert!(
        refused.stderr.contains("every --keep-* rule is 0"),
        "{}",
        refused.stderr
    );
    let dry = user
        .run(&["snapshot", "prune", "--keep-last", "1", "--dry-run"])
        .await
        .expect(0);
    let lines: Vec<&str> = dry.stdout.lines().collect();
    assert_eq!(lines.len(), 2, "{}", dry.stdout);
    assert!(
        lines[0].starts_with("kept snapshot 1 (")
            && lines[0].ends_with(&format!(
                ": the reviewed mark of project {project} refers to it"
            )),
        "{}",
        dry.stdout
    );
    assert!(
        lines[1].starts_with("would remove snapshot 2 ("),
        "{}",
        dry.stdout
    );
    assert!(
        dry.stderr.contains("would prune 1 snapshots; 2 kept"),
        "{}",
        dry.stderr
    );

    // Without a terminal (cron) a prune that goes well says nothing.
    let pruned = user
        .run(&["snapshot", "prune", "--keep-last", "1"])
        .await
        .expect(0);
    assert_eq!((pruned.stdout.as_str(), pruned.stderr.as_str()), ("", ""));
    let list = user
        .run(&["snapshot", "list", "-o", "json"])
        .await
        .expect(0);
    let ids: Vec<i64> = serde_json::from_str::<Vec<Value>>(&list.stdout)
        .unwrap()
        .iter()
        .map(|s| s["id"].as_i64().unwrap())
        .collect();
    assert_eq!(ids, [1, 3]);

    let posture = user
        .run(&["snapshot", "posture", "-o", "json"])
        .await
        .expect(0);
    let posture: Vec<Value> = serde_json::from_str(&posture.stdout).unwrap();
    assert_eq!(posture.len(), 2, "{posture:?}");
    assert_eq!(posture[0]["snapshot"], 1);
    assert_eq!(
        posture[0]["reviewed"], 0,
        "marked after snapshot 1 was taken"
    );
    assert_eq!(posture[1]["snapshot"], 3);
    assert_eq!(posture[1]["reviewed"], 1);
    assert_eq!(posture[1]["changed_since_review"], 1, "renamed since");
    let total = fixture
        .projects
        .iter()
        .filter(|p| p.wire.workspace_id == ENTERPRISE_WS)
        .count();
    assert_eq!(posture[1]["projects"], total);
    let table = user
        .run(&["snapshot", "posture", "-o", "table"])
        .await
        .expect(0);
    assert!(table.stdout.contains("NEEDS REVIEW"), "{}", table.stdout);
}
