//! The built-in pack's own tests: every `test_` rule of `assets/policies/`
//! passes, the pack compiles with its metadata, the embedded list is the
//! folder's, and the published input schema is the one the types generate.

use super::engine::{PolicySet, PolicySource, Severity};
use super::{pack, rego_test};

/// The instant the pack's tests say `time.now_ns()` answers: 2026-11-28T12:00:00Z.
const TEST_NOW_NS: i64 = 1_795_867_200_000_000_000;

fn sources(list: &[(&str, &str)]) -> Vec<PolicySource> {
    list.iter()
        .map(|(file, text)| PolicySource {
            origin: pack::origin(file),
            text: (*text).to_owned(),
        })
        .collect()
}

#[test]
fn the_test_clock_is_the_documented_instant() {
    let at = time::OffsetDateTime::from_unix_timestamp_nanos(i128::from(TEST_NOW_NS)).unwrap();
    assert_eq!(at, time::macros::datetime!(2026-11-28 12:00:00 UTC));
}

#[test]
fn every_rego_unit_test_of_the_pack_passes() {
    let results = rego_test::run(&pack::sources(), &sources(pack::TESTS), TEST_NOW_NS).unwrap();
    // Each policy has tests, and each ran.
    for (file, _) in pack::POLICIES {
        let package = file.trim_end_matches(".rego");
        assert!(
            results
                .iter()
                .any(|r| r.name.starts_with(&format!("vantage.pack.{package}_test."))),
            "no test ran for {file}"
        );
    }
    let failed: Vec<_> = results.iter().filter(|r| !r.passed).collect();
    assert!(failed.is_empty(), "failing Rego tests: {failed:#?}");
    assert!(results.len() >= 3 * pack::POLICIES.len());
}

#[test]
fn the_pack_compiles_with_its_metadata() {
    let set = PolicySet::compile(&pack::sources(), TEST_NOW_NS).unwrap();
    let ids: Vec<&str> = set.policies().iter().map(|p| p.meta.id.as_str()).collect();
    // Each policy's metadata names it as its file does, in the pack's order.
    let files: Vec<&str> = pack::POLICIES
        .iter()
        .map(|(file, _)| file.trim_end_matches(".rego"))
        .collect();
    assert_eq!(ids, files);
    let stale = &set.policies()[1];
    assert_eq!(stale.meta.severity, Severity::High);
    assert!(stale.meta.remediation.contains("scan"));
}

#[test]
fn the_embedded_pack_is_the_folder() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/policies");
    let mut on_disk: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    on_disk.sort();
    let mut embedded: Vec<String> = pack::POLICIES
        .iter()
        .chain(pack::TESTS)
        .map(|(file, text)| {
            let disk = std::fs::read_to_string(dir.join(file)).unwrap();
            assert_eq!(&disk, text, "{file} differs from the embedded copy");
            (*file).to_owned()
        })
        .collect();
    embedded.sort();
    assert_eq!(embedded, on_disk);
}

#[test]
fn the_published_input_schema_is_the_generated_one() {
    let path =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/policy-input.schema.json");
    let generated = super::input::schema_text();
    if std::env::var_os("VANTAGE_WRITE_SCHEMA").is_some() {
        std::fs::write(&path, &generated).unwrap();
    }
    let published = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        published == generated,
        "docs/policy-input.schema.json is not what the Rust types generate: run \
         VANTAGE_WRITE_SCHEMA=1 cargo test --lib policy::pack_tests and commit it"
    );
}

fn one(text: &str) -> Vec<PolicySource> {
    vec![PolicySource {
        origin: "team/mine.rego".into(),
        text: text.to_owned(),
    }]
}

const META: &str = r#"__rego_metadata__ := {"id": "mine", "title": "T", "severity": "low", "description": "D", "remediation": "R"}"#;

#[test]
fn a_policy_that_does_not_compile_names_its_file_and_line() {
    let text = format!("package team.mine\n\n{META}\n\ndeny contains x if {{\n  x := \n}}\n");
    let error = PolicySet::compile(&one(&text), TEST_NOW_NS)
        .unwrap_err()
        .to_string();
    assert!(error.starts_with("team/mine.rego:"), "{error}");
    let line: usize = error.split(':').nth(1).unwrap().parse().unwrap();
    assert!((5..=7).contains(&line), "{error}");
}

#[test]
fn a_malformed_violation_is_an_error_naming_file_and_line() {
    let text = format!(
        "package team.mine\n\n{META}\n\ndeny contains \"just text\" if {{\n  some p in input.projects\n}}\n"
    );
    let mut set = PolicySet::compile(&one(&text), TEST_NOW_NS).unwrap();
    let input: super::PolicyInput = serde_json::from_value(serde_json::json!({
        "version": 1, "evaluated_at": "2026-11-28T12:00:00.000Z",
        "sources": {
            "workspace": {"from": "live", "at": "2026-11-28T12:00:00.000Z"},
            "projects": {"from": "live", "at": "2026-11-28T12:00:00.000Z"},
            "members": {"from": "live", "at": "2026-11-28T12:00:00.000Z"},
            "reviews": {"from": "history", "at": "2026-11-28T12:00:00.000Z"}
        },
        "workspace": {"id": "ws"},
        "projects": [{"id": "p1"}],
        "members": []
    }))
    .unwrap();
    let error = set.evaluate(&input).unwrap_err().to_string();
    assert!(
        error.starts_with("team/mine.rego:5: malformed violation"),
        "{error}"
    );
}

#[test]
fn a_policy_without_metadata_or_deny_is_refused() {
    let error = PolicySet::compile(
        &one("package team.mine\n\ndeny contains 1 if { false }\n"),
        0,
    )
    .unwrap_err()
    .to_string();
    assert!(error.contains("__rego_metadata__"), "{error}");
    let error = PolicySet::compile(&one(&format!("package team.mine\n\n{META}\n")), 0)
        .unwrap_err()
        .to_string();
    assert!(error.contains("no `deny` rule"), "{error}");
}

/// A document of these projects, as a test hands the engine.
fn input_of(projects: serde_json::Value) -> super::PolicyInput {
    serde_json::from_value(serde_json::json!({
        "version": 1, "evaluated_at": "2026-11-28T12:00:00.000Z",
        "sources": {
            "workspace": {"from": "snapshot", "at": "2026-11-28T12:00:00.000Z", "snapshot_id": 1},
            "projects": {"from": "snapshot", "at": "2026-11-28T12:00:00.000Z", "snapshot_id": 1},
            "members": {"from": "snapshot", "at": "2026-11-28T12:00:00.000Z", "snapshot_id": 1},
            "reviews": {"from": "history", "at": "2026-11-28T12:00:00.000Z"}
        },
        "workspace": {"id": "ws"},
        "projects": projects,
        "members": []
    }))
    .unwrap()
}

/// Issue 38: a policy that defines `unknown` says which projects it could
/// not judge; they are `unknown`, counted apart from failing and waived; a
/// project also in `deny` is failing whatever `unknown` says.
#[test]
fn a_policy_says_which_projects_it_could_not_judge() {
    use super::FindingStatus;
    let text = format!(
        "package team.mine\nimport rego.v1\n\n{META}\n\n\
         deny contains {{\"project\": p.id, \"msg\": \"too old\"}} if {{\n  some p in input.projects\n  p.edit_count > 10\n}}\n\n\
         unknown contains {{\"project\": p.id, \"msg\": \"edits not known here\"}} if {{\n  some p in input.projects\n  not p.edit_count\n}}\n\n\
         unknown contains {{\"project\": \"p_both\", \"msg\": \"also unsure\"}} if {{ true }}\n\n\
         unknown contains {{\"project\": \"p_absent\", \"msg\": \"and unsure\"}} if {{ true }}\n"
    );
    let set = PolicySet::compile(&one(&text), TEST_NOW_NS).unwrap();
    assert_eq!(set.policies()[0].deny_line, 6);
    assert_eq!(set.policies()[0].unknown_line, Some(11));
    let input = input_of(serde_json::json!([
        {"id": "p_old", "edit_count": 20},
        {"id": "p_young", "edit_count": 1},
        {"id": "p_absent"},
        {"id": "p_both", "edit_count": 30}
    ]));
    let now = time::OffsetDateTime::from_unix_timestamp_nanos(i128::from(TEST_NOW_NS)).unwrap();
    let evaluation = super::evaluate(&one(&text), &input, Vec::new(), now).unwrap();
    let statuses: Vec<(&str, FindingStatus, &str)> = evaluation
        .findings
        .iter()
        .map(|f| (f.project_id.as_str(), f.status, f.message.as_str()))
        .collect();
    assert_eq!(
        statuses,
        [
            ("p_both", FindingStatus::Failing, "too old"),
            ("p_old", FindingStatus::Failing, "too old"),
            ("p_absent", FindingStatus::Unknown, "and unsure"),
            ("p_absent", FindingStatus::Unknown, "edits not known here"),
        ]
    );
    let counts = evaluation.policy_counts("mine");
    // A project not judged counts once, whatever its messages.
    assert_eq!((counts.failing, counts.waived, counts.unknown), (2, 0, 1));
    assert_eq!(counts.total(), 2, "not judged is not a violation");
    assert!(!evaluation.violates("p_absent", &["mine".to_owned()]));
    let not_judged: Vec<(&str, usize, &str)> = evaluation
        .not_judged()
        .into_iter()
        .map(|(policy, projects, message)| (policy.meta.id.as_str(), projects, message))
        .collect();
    assert_eq!(not_judged, [("mine", 1, "and unsure")]);
    // A waiver waives a violation, not a judgement that could not be made.
    let waiver = |project: &str| crate::history::waivers::Waiver {
        policy_id: "mine".into(),
        project_id: project.into(),
        reason: "r".into(),
        until: now + time::Duration::days(1),
        waived_by: None,
        waived_at: now,
    };
    let evaluation = super::evaluate(
        &one(&text),
        &input,
        vec![waiver("p_old"), waiver("p_absent")],
        now,
    )
    .unwrap();
    let counts = evaluation.policy_counts("mine");
    assert_eq!((counts.failing, counts.waived, counts.unknown), (1, 1, 1));
}

/// A policy without `unknown` is never asked for it; one whose `unknown`
/// yields a malformed entry is an error naming the file and that rule's line.
#[test]
fn a_malformed_unknown_entry_is_an_error_naming_file_and_line() {
    let plain = format!("package team.mine\n\n{META}\n\ndeny contains 1 if {{ false }}\n");
    let set = PolicySet::compile(&one(&plain), TEST_NOW_NS).unwrap();
    assert_eq!(set.policies()[0].unknown_line, None);
    for (entry, why) in [
        ("\"just text\"", "must be an object"),
        ("{\"project\": p.id}", "`msg` must be a non-empty string"),
        (
            "{\"project\": \"\", \"msg\": \"m\"}",
            "`project` must be a non-empty string",
        ),
    ] {
        let text = format!(
            "package team.mine\n\n{META}\n\ndeny contains 1 if {{ false }}\n\n# why\nunknown contains {entry} if {{\n  some p in input.projects\n}}\n"
        );
        let mut set = PolicySet::compile(&one(&text), TEST_NOW_NS).unwrap();
        let error = set
            .evaluate(&input_of(serde_json::json!([{"id": "p1"}])))
            .unwrap_err()
            .to_string();
        assert!(
            error.starts_with("team/mine.rego:8: malformed `unknown` entry"),
            "{error}"
        );
        assert!(error.contains(why), "{error}");
    }
}
