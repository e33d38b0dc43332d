//! Issue 38: `vantage check`. The four rules written as a user would, in
//! their own `.rego` files, give exactly the projects that the equivalent
//! `vantage inventory` filters give on a generated 5,000-project workspace;
//! waivers move a violation out of the failing set until they expire (on
//! the `--now` clock); JUnit output validates against the JUnit schema; a
//! broken policy is an error naming file and line; waivers are shared on
//! PostgreSQL.

use std::collections::BTreeSet;

use serde_json::Value;
use time::macros::datetime;
use vantage::history::waivers::{NewWaiver, standing};
use vantage::server::seed::{GenerateSpec, generate};

use crate::cli::stores::{each_store, off_runtime};
use crate::cli::support::Cli;
use crate::common::{self, T0};

const NOW: &str = "2026-11-22T12:00:00Z";

const USER_RULES: [(&str, &str); 4] = [
    (
        "public_pii.rego",
        r#"package team.public_pii
import rego.v1
__rego_metadata__ := {"id": "team_public_pii", "title": "Public with open PII", "severity": "critical",
  "description": "Nothing public with open personal-data findings.", "remediation": "Fix the findings."}
deny contains {"project": p.id, "msg": "public with open personal data"} if {
  some p in input.projects
  p.publish_audience == "public"
  p.has_pii
}
"#,
    ),
    (
        "old_scan.rego",
        r#"package team.old_scan
import rego.v1
__rego_metadata__ := {"id": "team_old_scan", "title": "Old scan", "severity": "high",
  "description": "No scan older than 14 days on a published project.", "remediation": "Scan it."}
deny contains {"project": p.id, "msg": "never scanned"} if {
  some p in input.projects
  p.is_published
  p.last_security_scan_at == null
}
deny contains {"project": p.id, "msg": "scan older than 14 days"} if {
  some p in input.projects
  p.is_published
  time.now_ns() - time.parse_rfc3339_ns(p.last_security_scan_at) > 14 * 24 * 60 * 60 * 1000000000
}
"#,
    ),
    (
        "left_owner.rego",
        r#"package team.left_owner
import rego.v1
__rego_metadata__ := {"id": "team_left_owner", "title": "Edit with a departed owner", "severity": "high",
  "description": "No workspace_edit for a project owned by someone who left.", "remediation": "Restrict it."}
deny contains {"project": p.id, "msg": "workspace_edit, owner left"} if {
  some p in input.projects
  p.visibility == "workspace_edit"
  "inactive_owner" in p.finding_types
}
"#,
    ),
    (
        "reviewed.rego",
        r#"package team.reviewed
import rego.v1
__rego_metadata__ := {"id": "team_reviewed", "title": "Review current", "severity": "medium",
  "description": "Every published project reviewed within 30 days, re-reviewed after any change.", "remediation": "Review it."}
deny contains {"project": p.id, "msg": "not reviewed"} if {
  some p in input.projects
  p.is_published
  not p.review
}
deny contains {"project": p.id, "msg": "review too old"} if {
  some p in input.projects
  p.is_published
  time.now_ns() - time.parse_rfc3339_ns(p.review.marked_at) > 30 * 24 * 60 * 60 * 1000000000
}
deny contains {"project": p.id, "msg": "changed since review"} if {
  some p in input.projects
  p.is_published
  p.review.changed_since_review
}
"#,
    ),
];

/// A server on a generated workspace of `projects`, with a rate limit no test reaches.
async fn generated(projects: usize) -> (vantage::server::RunningServer, Cli) {
    let fixture = generate(
        GenerateSpec {
            projects,
            members: 40,
            seed: 38,
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
    let (server, _clock) = common::server_with(|config| {
        config.fixture = fixture;
        config.rate_limit = vantage::server::ratelimit::RateLimit {
            limit: 1_000_000,
            window: time::Duration::seconds(60),
        };
    })
    .await;
    let cli = Cli::new(server.base_url(), &workspace, &key);
    (server, cli)
}

fn ids_of(json: &str) -> BTreeSet<String> {
    let items: Vec<Value> = serde_json::from_str(json).unwrap();
    items
        .iter()
        .map(|item| item["id"].as_str().unwrap().to_owned())
        .collect()
}

async fn inventory(cli: &Cli, filters: &[&str]) -> Vec<Value> {
    let mut args = vec!["inventory", "-o", "json"];
    args.extend_from_slice(filters);
    let run = cli.run(&args).await.expect(0);
    serde_json::from_str(&run.stdout).unwrap()
}

fn failing(findings: &[Value], policy: &str) -> BTreeSet<String> {
    findings
        .iter()
        .filter(|f| f["policy"] == policy && f["status"] == "failing")
        .map(|f| f["project_id"].as_str().unwrap().to_owned())
        .collect()
}

#[tokio::test]
async fn a_users_four_rules_give_exactly_what_the_inventory_filters_give() {
    let (_server, cli) = generated(5_000).await;
    let rules = cli.home.path().join("rules");
    std::fs::create_dir(&rules).unwrap();
    for (file, text) in USER_RULES {
        std::fs::write(rules.join(file), text).unwrap();
    }
    // A few published projects reviewed (now, by the real clock: after NOW).
    let published = inventory(&cli, &["--is-published", "true"]).await;
    let marked: BTreeSet<String> = published
        .iter()
        .take(3)
        .map(|p| p["id"].as_str().unwrap().to_owned())
        .collect();
    for id in &marked {
        cli.run(&["reviewed", "mark", id]).await.expect(0);
    }
    let run = cli
        .run(&[
            "check",
            "--policy",
            rules.to_str().unwrap(),
            "--now",
            NOW,
            "-o",
            "json",
        ])
        .await
        .expect(8);
    let findings: Vec<Value> = serde_json::from_str(&run.stdout).unwrap();

    // 1. `inventory --publish-audience public --has-pii true`.
    let public_pii = ids_of(
        &serde_json::to_string(
            &inventory(&cli, &["--publish-audience", "public", "--has-pii", "true"]).await,
        )
        .unwrap(),
    );
    assert!(!public_pii.is_empty());
    assert_eq!(failing(&findings, "team_public_pii"), public_pii);

    // 2. `inventory --is-published true`, its scan time read as a script would.
    let cutoff = datetime!(2026-11-22 12:00:00 UTC) - time::Duration::days(14);
    let old_scan: BTreeSet<String> = published
        .iter()
        .filter(|p| match p["last_security_scan_at"].as_str() {
            None => true,
            Some(at) => {
                let at =
                    time::OffsetDateTime::parse(at, &time::format_description::well_known::Rfc3339)
                        .unwrap();
                at < cutoff
            }
        })
        .map(|p| p["id"].as_str().unwrap().to_owned())
        .collect();
    assert!(!old_scan.is_empty() && old_scan.len() < published.len());
    assert_eq!(failing(&findings, "team_old_scan"), old_scan);

    // 3. `inventory --visibility workspace_edit --finding-type-id inactive_owner`.
    let left_owner = ids_of(
        &serde_json::to_string(
            &inventory(
                &cli,
                &[
                    "--visibility",
                    "workspace_edit",
                    "--finding-type-id",
                    "inactive_owner",
                ],
            )
            .await,
        )
        .unwrap(),
    );
    assert!(!left_owner.is_empty());
    assert_eq!(failing(&findings, "team_left_owner"), left_owner);

    // 4. `inventory --is-published true` less `reviewed list`'s current marks.
    let all_published: BTreeSet<String> = published
        .iter()
        .map(|p| p["id"].as_str().unwrap().to_owned())
        .collect();
    let unreviewed: BTreeSet<String> = all_published.difference(&marked).cloned().collect();
    assert_eq!(failing(&findings, "team_reviewed"), unreviewed);
}

#[tokio::test]
async fn a_waiver_moves_a_violation_out_of_the_failing_set_until_it_expires() {
    let (_server, cli) = generated(60).await;
    let check = |now: &'static str| {
        let cli = &cli;
        async move {
            let run = cli
                .run(&["check", "--only", "stale_scan", "--now", now, "-o", "json"])
                .await;
            let findings: Vec<Value> = serde_json::from_str(&run.stdout).unwrap();
            (run.code, findings)
        }
    };
    let (code, findings) = check(NOW).await;
    assert_eq!(code, 8);
    let target = failing(&findings, "stale_scan").into_iter().next().unwrap();
    cli.run(&[
        "check",
        "waive",
        "stale_scan",
        &target,
        "--reason",
        "scanner outage, ticket SEC-12",
        "--until",
        "2099-01-01",
    ])
    .await
    .expect(0);
    let (_, findings) = check(NOW).await;
    assert!(!failing(&findings, "stale_scan").contains(&target));
    let waived = findings
        .iter()
        .find(|f| f["project_id"] == target.as_str())
        .unwrap();
    assert_eq!(waived["status"], "waived");
    assert_eq!(waived["waiver_reason"], "scanner outage, ticket SEC-12");
    assert_eq!(waived["waived_until"], "2099-01-01T00:00:00.000Z");
    assert!(waived["waived_by"].is_string());
    // Listed while it applies; past its date it lapses by itself.
    let listed = cli.run(&["check", "waivers", "-o", "json"]).await.expect(0);
    assert!(listed.stdout.contains("SEC-12"));
    let (_, later) = check("2099-01-02T00:00:00Z").await;
    assert!(failing(&later, "stale_scan").contains(&target));
    let expired = cli
        .run(&[
            "check",
            "waivers",
            "--expired",
            "--now",
            "2099-01-02",
            "-o",
            "json",
        ])
        .await
        .expect(0);
    assert!(expired.stdout.contains("SEC-12"));
    // Extended: the newer waiver stands; the audit trail keeps both, with who.
    cli.run(&[
        "check",
        "waive",
        "stale_scan",
        &target,
        "--reason",
        "extended, SEC-13",
        "--until",
        "2099-06-01",
    ])
    .await
    .expect(0);
    let trail: Vec<Value> = serde_json::from_str(
        &cli.run(&["check", "waivers", "--all", "-o", "json"])
            .await
            .expect(0)
            .stdout,
    )
    .unwrap();
    assert_eq!(trail.len(), 2);
    assert!(
        trail
            .iter()
            .all(|w| w["waived_by"].is_string() && w["waived_at"].is_string())
    );
    let standing: Vec<Value> = serde_json::from_str(
        &cli.run(&["check", "waivers", "-o", "json"])
            .await
            .expect(0)
            .stdout,
    )
    .unwrap();
    assert_eq!(standing.len(), 1);
    assert_eq!(standing[0]["reason"], "extended, SEC-13");
    // --fail-on: high violations do not fail a check of critical ones.
    cli.run(&[
        "check",
        "--only",
        "stale_scan",
        "--now",
        NOW,
        "--fail-on",
        "critical",
        "-o",
        "json",
    ])
    .await
    .expect(0);
    // A waiver needs a reason and a future date.
    cli.run(&[
        "check",
        "waive",
        "stale_scan",
        &target,
        "--reason",
        " ",
        "--until",
        "2099-01-01",
    ])
    .await
    .expect(2);
}

/// Problems `xmllint --schema` finds in `document` against the fixture
/// schema `xsd` (`tests/fixtures/junit-schemas.md` says where each is from);
/// empty when it validates. A missing xmllint fails the test, naming it.
fn xmllint_problems(document: &str, xsd: &str) -> String {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("check.xml");
    std::fs::write(&file, document).unwrap();
    let schema = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(xsd);
    let run = std::process::Command::new("xmllint")
        .arg("--noout")
        .arg("--schema")
        .arg(&schema)
        .arg(&file)
        .output()
        .unwrap_or_else(|error| {
            panic!("xmllint (Debian's libxml2-utils) is needed to validate JUnit: {error}")
        });
    if run.status.success() {
        String::new()
    } else {
        String::from_utf8_lossy(&run.stderr).into_owned()
    }
}

/// Done when: the JUnit document, with failing and waived cases, validates
/// against the schemas CI systems read: Ant's JUnit schema and the one
/// Jenkins' xUnit plugin checks reports with, unchanged, by libxml2.
#[tokio::test]
async fn junit_output_validates_against_the_junit_schemas() {
    let (_server, cli) = generated(40).await;
    let json = cli
        .run(&["check", "--only", "stale_scan", "--now", NOW, "-o", "json"])
        .await
        .expect(8);
    let findings: Vec<Value> = serde_json::from_str(&json.stdout).unwrap();
    let target = failing(&findings, "stale_scan").into_iter().next().unwrap();
    cli.run(&[
        "check",
        "waive",
        "stale_scan",
        &target,
        "--reason",
        "scanner <outage> & \"retry\"",
        "--until",
        "2099-01-01",
    ])
    .await
    .expect(0);
    let run = cli
        .run(&["check", "--now", NOW, "-o", "junit"])
        .await
        .expect(8);
    for xsd in ["junit-ant.xsd", "junit-jenkins-xunit-10.xsd"] {
        assert_eq!(xmllint_problems(&run.stdout, xsd), "", "{xsd}");
    }
    let document = roxmltree::Document::parse(&run.stdout).unwrap();
    let suites = document
        .descendants()
        .filter(|n| n.has_tag_name("testsuite"))
        .count();
    assert_eq!(suites, vantage::policy::pack::POLICIES.len());
    // One test case per policy and project; failures carry the message.
    let cases = document
        .descendants()
        .filter(|n| n.has_tag_name("testcase"))
        .count();
    assert_eq!(cases, suites * 40);
    let failure = document
        .descendants()
        .find(|n| n.has_tag_name("failure"))
        .unwrap();
    assert!(!failure.attribute("message").unwrap().is_empty());
    let skipped = document
        .descendants()
        .find(|n| n.has_tag_name("skipped"))
        .expect("the waived case is skipped");
    assert!(
        skipped
            .attribute("message")
            .unwrap()
            .contains("scanner <outage> & \"retry\""),
        "{:?}",
        skipped.attribute("message")
    );
}

/// The schema check itself refuses what the schemas do not allow.
#[test]
fn the_schema_check_refuses_an_invalid_document() {
    let missing_name = "<testsuites><testsuite tests=\"0\" failures=\"0\" errors=\"0\" time=\"0\" \
        timestamp=\"2026-11-22T12:00:00\" hostname=\"h\" id=\"0\" package=\"p\"><properties/>\
        <system-out/><system-err/></testsuite></testsuites>";
    for xsd in ["junit-ant.xsd", "junit-jenkins-xunit-10.xsd"] {
        assert!(
            xmllint_problems(missing_name, xsd).contains("name"),
            "{xsd}"
        );
    }
}

#[tokio::test]
async fn a_broken_policy_is_an_error_naming_file_and_line_never_a_pass() {
    let (_server, cli) = generated(10).await;
    let file = cli.home.path().join("broken.rego");
    std::fs::write(
        &file,
        "package team.broken\nimport rego.v1\n__rego_metadata__ := {\"id\": \"b\", \"title\": \"t\", \"severity\": \"low\", \"description\": \"d\", \"remediation\": \"r\"}\ndeny contains {\"project\": p.id} if {\n  some p in input.projects\n}\n",
    )
    .unwrap();
    let run = cli
        .run(&["check", "--policy", file.to_str().unwrap(), "--now", NOW])
        .await
        .expect(1);
    let named = format!("{}:4: malformed violation", file.display());
    assert!(run.stderr.contains(&named), "{}", run.stderr);
    std::fs::write(
        &file,
        "package team.broken\ndeny contains x if {\n x := \n}\n",
    )
    .unwrap();
    let run = cli
        .run(&["check", "--policy", file.to_str().unwrap(), "--now", NOW])
        .await
        .expect(1);
    assert!(
        run.stderr.contains(&format!("{}:", file.display())),
        "{}",
        run.stderr
    );
}

#[test]
fn waivers_are_kept_by_both_stores_and_a_teammate_sees_one_at_once() {
    let now = datetime!(2026-11-22 12:00:00 UTC);
    for on in each_store() {
        off_runtime(|| {
            let mut mine = on.open();
            let theirs = on.open();
            let waiver = NewWaiver {
                policy_id: "stale_scan".into(),
                project_id: "p1".into(),
                reason: "scanner outage".into(),
                until: now + time::Duration::days(7),
                by: Some("ada".into()),
            };
            let added = mine.add_waiver("ws_x", &waiver, now).unwrap();
            assert_eq!(added.until, now + time::Duration::days(7));
            let seen = standing(theirs.all_waivers("ws_x").unwrap());
            assert_eq!(seen.len(), 1, "{}", on.name());
            assert_eq!(seen[0].reason, "scanner outage");
            assert!(seen[0].waived_by.is_some());
            assert!(seen[0].applies_at(now + time::Duration::days(6)));
            assert!(!seen[0].applies_at(now + time::Duration::days(7)));
            // A newer waiver of the same policy and project stands instead.
            let later = NewWaiver {
                reason: "extended".into(),
                until: now + time::Duration::days(30),
                ..waiver
            };
            mine.add_waiver("ws_x", &later, now).unwrap();
            let seen = standing(theirs.all_waivers("ws_x").unwrap());
            assert_eq!(seen.len(), 1);
            assert_eq!(seen[0].reason, "extended");
            assert_eq!(theirs.all_waivers("ws_x").unwrap().len(), 2);
        });
        // Append-only in the store itself.
        let refused = match (&on.location, &on.url) {
            (vantage::history::HistoryLocation::File(path), _) => {
                let connection = rusqlite::Connection::open(path).unwrap();
                connection
                    .execute("DELETE FROM review WHERE action = 'waive'", [])
                    .is_err()
            }
            (_, Some(url)) => off_runtime(|| {
                let mut client = ::postgres::Client::connect(url, ::postgres::NoTls).unwrap();
                client
                    .execute("DELETE FROM review WHERE action = 'waive'", &[])
                    .is_err()
            }),
            (_, None) => unreachable!("a database store has its URL"),
        };
        assert!(refused, "{}: a waiver was removed", on.name());
    }
}

/// `vantage inventory --violates ID`: the projects `vantage check` finds for
/// the policy (a waived violation is still one), in every format; an id no
/// policy has is refused, naming those there are.
#[tokio::test]
async fn inventory_violates_lists_the_projects_check_finds() {
    let (_server, cli) = generated(60).await;
    let run = cli.run(&["check", "-o", "json"]).await;
    let findings: Vec<Value> = serde_json::from_str(&run.stdout).unwrap();
    let of = |findings: &[Value], policy: &str| -> BTreeSet<String> {
        findings
            .iter()
            .filter(|f| f["policy"] == policy)
            .map(|f| f["project_id"].as_str().unwrap().to_owned())
            .collect()
    };
    let stale = of(&findings, "stale_scan");
    assert!(stale.len() > 1, "the workspace has stale scans: {stale:?}");
    let waived = stale.iter().next().unwrap().clone();
    cli.run(&[
        "check",
        "waive",
        "stale_scan",
        &waived,
        "--reason",
        "scanner outage",
        "--until",
        "2099-01-01",
    ])
    .await
    .expect(0);
    let listed: BTreeSet<String> = inventory(&cli, &["--violates", "stale_scan"])
        .await
        .iter()
        .map(|item| item["id"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(listed, stale, "a waived violation is still one");
    // Several policies: the projects that violate any of them.
    let orphans = of(&findings, "departed_owner_edit");
    let both: BTreeSet<String> = stale.union(&orphans).cloned().collect();
    let csv = cli
        .run(&[
            "inventory",
            "--violates",
            "stale_scan,departed_owner_edit",
            "-o",
            "csv",
        ])
        .await
        .expect(0);
    assert_eq!(csv.stdout.lines().count(), both.len() + 1, "{}", csv.stdout);
    for id in &both {
        assert!(csv.stdout.contains(id.as_str()), "{id} in {}", csv.stdout);
    }
    let refused = cli
        .run(&["inventory", "--violates", "no_such_policy"])
        .await;
    assert_eq!(refused.code, 2, "{}", refused.stderr);
    assert!(
        refused.stderr.contains("no_such_policy") && refused.stderr.contains("stale_scan"),
        "{}",
        refused.stderr
    );
    assert!(refused.stdout.is_empty());
}

/// Issue 38: `vantage inventory --violates ID` reads the inventory once, in
/// the walk that the evaluation reads (as many inventory pages as `vantage
/// check` asks for), and lists the projects in the order the flags ask for;
/// a filter the service applies still narrows the list.
#[tokio::test]
async fn inventory_violates_reads_the_inventory_once() {
    // 250 projects: three pages of 100 for the whole inventory.
    let (server, cli) = generated(250).await;
    let inventory_pages = || server.app.served("list_inventory");
    let before = inventory_pages();
    let run = cli.run(&["check", "-o", "json"]).await;
    let check_reads = inventory_pages() - before;
    let findings: Vec<Value> = serde_json::from_str(&run.stdout).unwrap();
    let stale: BTreeSet<String> = findings
        .iter()
        .filter(|f| f["policy"] == "stale_scan")
        .map(|f| f["project_id"].as_str().unwrap().to_owned())
        .collect();
    assert!(stale.len() > 1, "the workspace has stale scans: {stale:?}");

    let before = inventory_pages();
    let listed = inventory(
        &cli,
        &[
            "--violates",
            "stale_scan",
            "--sort-by",
            "name",
            "--sort-order",
            "desc",
        ],
    )
    .await;
    assert_eq!(
        inventory_pages() - before,
        check_reads,
        "the inventory is read once, in the evaluation's walk"
    );
    let ids = |items: &[Value]| -> Vec<String> {
        items
            .iter()
            .map(|item| item["id"].as_str().unwrap().to_owned())
            .collect()
    };
    // The service's order for the flags given, the violating projects kept.
    let sorted = inventory(&cli, &["--sort-by", "name", "--sort-order", "desc"]).await;
    let expected: Vec<String> = ids(&sorted)
        .into_iter()
        .filter(|id| stale.contains(id))
        .collect();
    assert_eq!(ids(&listed), expected);

    // A filter of the service narrows the list as it does without --violates.
    let restricted = inventory(&cli, &["--visibility", "restricted"]).await;
    let expected: Vec<String> = ids(&restricted)
        .into_iter()
        .filter(|id| stale.contains(id))
        .collect();
    assert!(!expected.is_empty() && expected.len() < stale.len());
    let narrowed = inventory(
        &cli,
        &["--violates", "stale_scan", "--visibility", "restricted"],
    )
    .await;
    assert_eq!(ids(&narrowed), expected);

    // --max keeps the first of them; csv reads the same projects.
    let first_two = inventory(&cli, &["--violates", "stale_scan", "--max", "2"]).await;
    let all = inventory(&cli, &["--violates", "stale_scan"]).await;
    assert_eq!(ids(&first_two), ids(&all)[..2]);
    let csv = cli
        .run(&["inventory", "--violates", "stale_scan", "-o", "csv"])
        .await
        .expect(0);
    assert_eq!(
        csv.stdout.lines().count(),
        stale.len() + 1,
        "{}",
        csv.stdout
    );
}

/// Issue 38: a snapshot keeps no scan times, so over one `stale_scan` cannot
/// judge a published project: it reports each as `unknown` with why, in
/// every format, and says so on stderr, never a silent pass; the exit code
/// stays 0 (`--from-snapshot` stays usable). Live, where the times are
/// read, it judges every one.
#[tokio::test]
async fn over_a_snapshot_stale_scan_says_which_projects_it_could_not_judge() {
    let (_server, cli) = generated(60).await;
    let check = |extra: &'static [&'static str]| {
        let cli = &cli;
        async move {
            let mut args = vec!["check", "--only", "stale_scan", "--now", NOW];
            args.extend_from_slice(extra);
            cli.run(&args).await
        }
    };
    let live = check(&["-o", "json"]).await.expect(8);
    let live: Vec<Value> = serde_json::from_str(&live.stdout).unwrap();
    let stale = failing(&live, "stale_scan");
    assert!(!stale.is_empty(), "the workspace has stale scans");
    assert!(live.iter().all(|f| f["status"] != "unknown"), "{live:?}");
    let published: BTreeSet<String> = inventory(&cli, &["--is-published", "true"])
        .await
        .iter()
        .map(|p| p["id"].as_str().unwrap().to_owned())
        .collect();

    cli.run(&["snapshot"]).await.expect(0);
    let run = check(&["--from-snapshot", "-o", "json"]).await.expect(0);
    let findings: Vec<Value> = serde_json::from_str(&run.stdout).unwrap();
    let not_judged: BTreeSet<String> = findings
        .iter()
        .filter(|f| f["policy"] == "stale_scan" && f["status"] == "unknown")
        .map(|f| f["project_id"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(not_judged, published, "{findings:#?}");
    assert!(stale.is_subset(&not_judged));
    assert!(failing(&findings, "stale_scan").is_empty());
    assert!(
        findings
            .iter()
            .all(|f| f["message"]
                == "last scan not known here (a snapshot does not keep scan times)"),
        "{findings:#?}"
    );
    let said = format!(
        "stale_scan: {} projects not judged: last scan not known here",
        published.len()
    );
    assert!(run.stderr.contains(&said), "{}", run.stderr);

    // jsonl, csv and the table carry the status too; JUnit skips the case.
    let jsonl = check(&["--from-snapshot", "-o", "jsonl"]).await.expect(0);
    let unknown_lines = jsonl
        .stdout
        .lines()
        .filter(|line| line.contains("\"status\":\"unknown\""))
        .count();
    assert_eq!(unknown_lines, published.len(), "{}", jsonl.stdout);
    let csv = check(&["--from-snapshot", "-o", "csv"]).await.expect(0);
    let rows = crate::cli::support::parse_csv(&csv.stdout);
    let status = rows[0]
        .iter()
        .position(|name| name.eq_ignore_ascii_case("status"))
        .unwrap_or_else(|| panic!("a status column: {:?}", rows[0]));
    assert_eq!(rows.len(), published.len() + 1, "{}", csv.stdout);
    assert!(rows[1..].iter().all(|row| row[status] == "unknown"));
    let table = check(&["--from-snapshot", "-o", "table"]).await.expect(0);
    assert!(table.stdout.contains("unknown"), "{}", table.stdout);
    let junit = check(&["--from-snapshot", "-o", "junit"]).await.expect(0);
    assert!(junit.stderr.contains(&said), "{}", junit.stderr);
    for xsd in ["junit-ant.xsd", "junit-jenkins-xunit-10.xsd"] {
        assert_eq!(xmllint_problems(&junit.stdout, xsd), "", "{xsd}");
    }
    let document = roxmltree::Document::parse(&junit.stdout).unwrap();
    let skipped: Vec<&str> = document
        .descendants()
        .filter(|n| n.has_tag_name("skipped"))
        .filter_map(|n| n.attribute("message"))
        .collect();
    assert_eq!(skipped.len(), published.len());
    assert!(
        skipped
            .iter()
            .all(|m| m.starts_with("not judged: last scan not known here"))
    );
    assert!(!document.descendants().any(|n| n.has_tag_name("failure")));
    let suite = document
        .descendants()
        .find(|n| n.has_tag_name("testsuite"))
        .unwrap();
    assert_eq!(
        suite.attribute("skipped"),
        Some(published.len().to_string().as_str())
    );
}
