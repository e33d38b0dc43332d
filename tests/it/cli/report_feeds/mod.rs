//! `vantage report --format ocsf|defectdojo`: findings for machines, checked against what
//! their consumers accept: OCSF's schema (its own files, `ocsf_schema`) and DefectDojo's
//! Generic Findings Import parser (its rules, `DEFECTDOJO_*` below).

mod ocsf_schema;

use serde_json::{Value, json};
use time::macros::datetime;
use vantage::api::model::{FindingType, InventoryItem, PiiFinding, ScanFinding};
use vantage::report::machine::{Feed, ProjectEvidence, defectdojo, ocsf};

use crate::common::items::inventory_item;
use ocsf_schema::Schema;

const HOSTILE_NAME: &str = "<img src=x onerror=alert(1)> *bold* [link](http://x) \u{1b}[31m`tick`";

fn item(id: &str, name: &str, reasons: Value) -> InventoryItem {
    serde_json::from_value(inventory_item(json!({
        "id": id, "name": name, "url": format!("https://app.example/{id}"),
        "edit_count": 3, "message_count": 9, "edits_7d": 1, "edits_30d": 3,
        "last_edited_at": "2026-11-20T10:00:00Z", "last_security_scan_at": "2026-11-21T10:00:00Z",
        "owner": {"display_name": name}, "review_priority_explanation": reasons
    })))
    .expect("an inventory item")
}

fn scan_finding(id: &str, level: &str, status: &str) -> ScanFinding {
    serde_json::from_value(json!({
        "id": id, "category": "data_exposure", "level": level, "name": format!("{HOSTILE_NAME} {id}"),
        "description": "Table readable without a row-level policy", "scanner_name": "agent_security",
        "status": status, "created_at": "2026-11-21T10:00:00Z", "updated_at": "2026-11-22T10:00:00.5Z"
    }))
    .expect("a scan finding")
}

/// What the feed borrows: two projects with every kind of finding, every level and status
/// (known and not), and hostile text wherever the service sends text.
struct Owned {
    types: Vec<FindingType>,
    items: Vec<InventoryItem>,
    scan_findings: Vec<ScanFinding>,
    pii: Vec<PiiFinding>,
}

fn owned() -> Owned {
    let reasons = json!([
        {"id": "public_security_exposure", "label": "Public app with security issues",
         "detail": "2 errors", "category": "exposure", "review_priority": "needs_review"},
        {"id": "external_collaborator_access", "label": HOSTILE_NAME,
         "detail": "1 person", "category": "exposure", "review_priority": "review_recommended"},
        {"id": "new_type", "label": "Something new", "detail": "d", "category": "x",
         "review_priority": "brand_new_priority"}
    ]);
    let pii: Vec<PiiFinding> = serde_json::from_value(json!([
        {"id": "pii_1", "found_at": "2026-11-19T08:00:00Z", "quote": HOSTILE_NAME, "source": "chat", "status": "open"},
        {"id": "pii_2", "found_at": "2026-11-19T09:00:00Z", "quote": "jane@example.com", "source": "telepathy", "status": "fixed"}
    ]))
    .expect("personal-data findings");
    let types: Vec<FindingType> = serde_json::from_value(json!([
        {"id": "public_security_exposure", "title": "Public app with security issues",
         "description": "Published to anyone, with open errors or secrets.", "category": "exposure",
         "review_priority": "needs_review", "project_count": 1}
    ]))
    .expect("finding types");
    Owned {
        types,
        items: vec![
            item("prj_1", HOSTILE_NAME, reasons),
            item("prj_2", "", json!([])),
        ],
        scan_findings: vec![
            scan_finding("f1", "error", "open"),
            scan_finding("f2", "warn", "ignored"),
            scan_finding("f3", "info", "fixed"),
            scan_finding("f4", "catastrophic", "reopened"),
        ],
        pii,
    }
}

fn feed(owned: &Owned) -> Feed<'_> {
    Feed {
        workspace_id: "ws_1",
        read_at: datetime!(2026-11-28 12:00 UTC),
        finding_types: &owned.types,
        projects: vec![
            ProjectEvidence {
                item: &owned.items[0],
                scan_findings: Some(&owned.scan_findings),
                personal_data: Some(&owned.pii),
            },
            ProjectEvidence {
                item: &owned.items[1],
                scan_findings: None,
                personal_data: None,
            },
        ],
    }
}

fn ocsf_lines(feed: &Feed<'_>) -> Vec<Value> {
    let mut out = Vec::new();
    let count = ocsf::write(feed, &mut out).expect("written");
    let text = String::from_utf8(out).expect("UTF-8");
    let lines: Vec<Value> = text
        .lines()
        .map(|line| serde_json::from_str(line).expect("each line is one JSON object"))
        .collect();
    assert_eq!(lines.len(), count);
    lines
}

#[test]
fn every_ocsf_record_is_a_valid_detection_finding() {
    let schema = Schema::vendored();
    let owned = owned();
    let records = ocsf_lines(&feed(&owned));
    // 3 finding types + 4 scan findings + 2 personal-data findings.
    assert_eq!(records.len(), 9);
    for record in &records {
        let problems = schema.check_detection_finding(record);
        assert!(problems.is_empty(), "{problems:#?}\nin {record:#}");
        assert_eq!(record["class_uid"], 2004);
        assert_eq!(record["metadata"]["product"]["name"], "vantage");
        assert_eq!(record["resources"][0]["uid"], "prj_1");
    }
    let severities: Vec<&str> = records
        .iter()
        .map(|record| record["severity"].as_str().unwrap_or(""))
        .collect();
    assert_eq!(
        severities,
        [
            "High",
            "Medium",
            "Unknown",
            "High",
            "Medium",
            "Informational",
            "Unknown",
            "Medium",
            "Medium"
        ]
    );
    let statuses: Vec<(i64, &str)> = records
        .iter()
        .map(|record| {
            (
                record["status_id"].as_i64().unwrap_or(-1),
                record["status"].as_str().unwrap_or(""),
            )
        })
        .collect();
    assert_eq!(
        &statuses[3..7],
        [
            (1, "New"),
            (3, "Suppressed"),
            (4, "Resolved"),
            (99, "reopened")
        ]
    );
    // The hostile name is data: carried as a JSON string, never changed.
    assert_eq!(records[0]["resources"][0]["name"], HOSTILE_NAME);
    // Times are the service's, in milliseconds.
    assert_eq!(
        records[3]["finding_info"]["modified_time"],
        1_795_341_600_500_i64
    );
}

/// A way to break a valid record.
type Breaker = fn(&mut Value);

#[test]
fn the_validator_refuses_what_the_schema_refuses() {
    let schema = Schema::vendored();
    let owned = owned();
    let valid = ocsf_lines(&feed(&owned)).remove(3);
    assert!(schema.check_detection_finding(&valid).is_empty());
    let broken: [(&str, Breaker); 7] = [
        ("finding_info.uid", |record| {
            record["finding_info"]
                .as_object_mut()
                .map(|info| info.remove("uid"));
        }),
        ("not 4's caption", |record| {
            record["severity"] = json!("Critical")
        }),
        ("not an attribute", |record| {
            record["vantage_extra"] = json!(1)
        }),
        ("not in its enum", |record| record["status_id"] = json!(7)),
        ("is not a timestamp_t", |record| {
            record["time"] = json!("yesterday")
        }),
        ("type_uid", |record| record["type_uid"] = json!(200402)),
        ("at least one", |record| {
            record["resources"][0] = json!({"type": "project"});
        }),
    ];
    for (expected, break_it) in broken {
        let mut record = valid.clone();
        break_it(&mut record);
        let problems = schema.check_detection_finding(&record);
        assert!(
            problems.iter().any(|problem| problem.contains(expected)),
            "expected a problem naming {expected:?}, got {problems:#?}"
        );
    }
}

/// DefectDojo's Generic Findings Import parser (`dojo/tools/generic/json_parser.py`): the keys
/// a finding must have, and every key it allows; any other key makes it refuse the file.
const DEFECTDOJO_REQUIRED: [&str; 3] = ["title", "severity", "description"];
const DEFECTDOJO_ALLOWED: [&str; 56] = [
    "date",
    "cwe",
    "cve",
    "epss_score",
    "epss_percentile",
    "cvssv3",
    "cvssv3_score",
    "cvssv4",
    "cvssv4_score",
    "mitigation",
    "impact",
    "steps_to_reproduce",
    "severity_justification",
    "references",
    "active",
    "verified",
    "false_p",
    "out_of_scope",
    "risk_accepted",
    "under_review",
    "is_mitigated",
    "thread_id",
    "mitigated",
    "numerical_severity",
    "param",
    "payload",
    "line",
    "file_path",
    "component_name",
    "component_version",
    "static_finding",
    "dynamic_finding",
    "scanner_confidence",
    "unique_id_from_tool",
    "vuln_id_from_tool",
    "sast_source_object",
    "sast_sink_object",
    "sast_source_line",
    "sast_source_file_path",
    "nb_occurences",
    "publish_date",
    "service",
    "planned_remediation_date",
    "planned_remediation_version",
    "effort_for_fixing",
    "tags",
    "kev_date",
    "known_exploited",
    "ransomware_used",
    "fix_available",
    "fix_version",
    "endpoints",
    "files",
    "vulnerability_ids",
    "cwes",
    "title",
];
/// DefectDojo's severities (`Finding.SEVERITIES`).
const DEFECTDOJO_SEVERITIES: [&str; 5] = ["Critical", "High", "Medium", "Low", "Info"];

fn defectdojo_document(feed: &Feed<'_>) -> Value {
    let mut out = Vec::new();
    defectdojo::write(feed, &mut out).expect("written");
    serde_json::from_slice(&out).expect("one JSON document")
}

#[test]
fn the_defectdojo_import_has_only_what_its_parser_accepts() {
    let owned = owned();
    let document = defectdojo_document(&feed(&owned));
    assert_eq!(document["type"], "vantage");
    let findings = document["findings"].as_array().expect("findings");
    assert_eq!(findings.len(), 9);
    for finding in findings {
        let finding = finding.as_object().expect("an object");
        for key in DEFECTDOJO_REQUIRED {
            assert!(finding.contains_key(key), "missing {key} in {finding:?}");
        }
        for key in finding.keys() {
            assert!(
                DEFECTDOJO_ALLOWED.contains(&key.as_str())
                    || DEFECTDOJO_REQUIRED.contains(&key.as_str()),
                "DefectDojo refuses the key {key}"
            );
        }
        let severity = finding["severity"].as_str().expect("a string");
        assert!(
            DEFECTDOJO_SEVERITIES.contains(&severity),
            "severity {severity}"
        );
        if let Some(date) = finding.get("date") {
            let date = date.as_str().expect("a string");
            time::Date::parse(
                date,
                time::macros::format_description!("[year]-[month]-[day]"),
            )
            .unwrap_or_else(|error| panic!("date {date}: {error}"));
        }
        // A value from the service is text in DefectDojo's Markdown, never markup.
        let description = finding["description"].as_str().expect("a string");
        assert!(!description.contains("<img"), "{description}");
        assert!(!description.contains('\u{1b}'), "{description}");
    }
    let fixed = &findings[5];
    assert_eq!(
        (fixed["active"].as_bool(), fixed["is_mitigated"].as_bool()),
        (Some(false), Some(true))
    );
    assert!(fixed["mitigated"].is_string());
    let unknown_level = &findings[6];
    assert_eq!(unknown_level["severity"], "Info");
    assert!(
        unknown_level["severity_justification"]
            .as_str()
            .unwrap_or("")
            .contains("no level")
    );
}

#[test]
fn a_reimport_finds_the_same_ids() {
    let owned = owned();
    let first = feed(&owned);
    let mut second = feed(&owned);
    // Read again a day later, in another order: the ids stay the findings'.
    second.read_at = datetime!(2026-11-29 12:00 UTC);
    second.projects.reverse();
    let ids = |document: &Value| -> Vec<String> {
        let mut ids: Vec<String> = document["findings"]
            .as_array()
            .expect("findings")
            .iter()
            .map(|finding| {
                finding["unique_id_from_tool"]
                    .as_str()
                    .expect("an id")
                    .to_owned()
            })
            .collect();
        ids.sort();
        ids
    };
    let (one, two) = (
        ids(&defectdojo_document(&first)),
        ids(&defectdojo_document(&second)),
    );
    assert_eq!(one, two);
    let mut unique = one.clone();
    unique.dedup();
    assert_eq!(unique.len(), one.len(), "every finding has its own id");
    let ocsf_ids: Vec<String> = ocsf_lines(&first)
        .iter()
        .map(|record| {
            record["finding_info"]["uid"]
                .as_str()
                .expect("uid")
                .to_owned()
        })
        .collect();
    let mut ocsf_sorted = ocsf_ids.clone();
    ocsf_sorted.sort();
    assert_eq!(ocsf_sorted, one, "both formats name a finding alike");
}

/// `vantage report --format ocsf` and `--format defectdojo` against the demo service: every
/// record valid, the file 0600, and a second run naming the same findings alike.
#[tokio::test(flavor = "multi_thread")]
async fn the_command_writes_feeds_a_consumer_accepts() {
    use crate::cli::support::Cli;
    use crate::common::*;
    use std::os::unix::fs::PermissionsExt;

    let (server, clock) = demo_server().await;
    let cli = Cli::new(server.base_url(), ENTERPRISE_WS, ENTERPRISE_ADMIN);
    let data = cli.home.path().join("data");
    let env = [("XDG_DATA_HOME", data.to_str().expect("UTF-8"))];
    // A report takes about 70 requests of the demo's 120 a minute: each run starts with a new
    // window, as a person's runs minutes apart would.
    let next_minute = || clock.advance(time::Duration::minutes(1));
    let ocsf_path = cli.home.path().join("findings.jsonl");
    cli.run_env(
        &[
            "report",
            "--format",
            "ocsf",
            "-o",
            ocsf_path.to_str().expect("UTF-8"),
        ],
        &env,
    )
    .await
    .expect(0);
    let mode = std::fs::metadata(&ocsf_path)
        .expect("written")
        .permissions()
        .mode();
    assert_eq!(mode & 0o777, 0o600);
    let text = std::fs::read_to_string(&ocsf_path).expect("read");
    let schema = Schema::vendored();
    let records: Vec<Value> = text
        .lines()
        .map(|line| serde_json::from_str(line).expect("JSON"))
        .collect();
    assert!(
        records.len() > 5,
        "the demo has findings: {}",
        records.len()
    );
    for record in &records {
        let problems = schema.check_detection_finding(record);
        assert!(problems.is_empty(), "{problems:#?}\nin {record:#}");
    }
    let kinds: std::collections::BTreeSet<&str> = records
        .iter()
        .filter_map(|record| record["finding_info"]["types"][0].as_str())
        .collect();
    assert!(kinds.len() > 1, "more than one kind of finding: {kinds:?}");

    let ids = |path: &std::path::Path| -> Vec<String> {
        let document: Value =
            serde_json::from_slice(&std::fs::read(path).expect("read")).expect("JSON");
        let mut ids: Vec<String> = document["findings"]
            .as_array()
            .expect("findings")
            .iter()
            .map(|finding| {
                finding["unique_id_from_tool"]
                    .as_str()
                    .expect("id")
                    .to_owned()
            })
            .collect();
        ids.sort();
        ids
    };
    let first = cli.home.path().join("dojo-1.json");
    let second = cli.home.path().join("dojo-2.json");
    for path in [&first, &second] {
        next_minute();
        cli.run_env(
            &[
                "report",
                "--format",
                "defectdojo",
                "-o",
                path.to_str().expect("UTF-8"),
            ],
            &env,
        )
        .await
        .expect(0);
    }
    let (one, two) = (ids(&first), ids(&second));
    assert!(!one.is_empty());
    assert_eq!(one, two, "a re-import finds the same ids");
    let mut ocsf_ids: Vec<String> = records
        .iter()
        .map(|record| {
            record["finding_info"]["uid"]
                .as_str()
                .expect("uid")
                .to_owned()
        })
        .collect();
    ocsf_ids.sort();
    assert_eq!(ocsf_ids, one, "both formats list the same findings");
}
