//! `vantage check --format junit`: the JUnit XML that CI systems read
//! (Jenkins, GitLab, GitHub's test reporters): a `testsuite` per policy, a
//! `testcase` per project; a failing violation is a `failure` carrying the
//! message (and the remediation), a waived one is `skipped` with the
//! waiver's reason, who and until, a project the policy could not judge is
//! `skipped` with why (never a pass). Valid against Ant's JUnit schema and
//! Jenkins' xUnit one (`tests/fixtures/junit-schemas.md`).

use std::collections::HashMap;
use std::fmt::Write as _;

use crate::policy::input::PolicyInput;
use crate::policy::{Finding, FindingStatus, Policy};

/// Text made safe inside XML: the five escapes, and characters XML 1.0
/// cannot hold at all (most C0 controls) written as visible escapes.
fn xml(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            '\t' | '\n' | '\r' => out.push(c),
            c if (c as u32) < 0x20 || matches!(c as u32, 0xFFFE | 0xFFFF) => {
                let _ = write!(out, "\\u{{{:x}}}", c as u32);
            }
            c => out.push(c),
        }
    }
    out
}

/// What a test case reports: failing when one of its findings fails, else
/// waived when one is waived, else not judged.
fn case_outcome(list: &[&Finding]) -> FindingStatus {
    let has = |status| list.iter().any(|f| f.status == status);
    if has(FindingStatus::Failing) {
        FindingStatus::Failing
    } else if has(FindingStatus::Waived) {
        FindingStatus::Waived
    } else {
        FindingStatus::Unknown
    }
}

pub fn render(policies: &[Policy], input: &PolicyInput, findings: &[Finding]) -> String {
    let mut by_case: HashMap<(&str, &str), Vec<&Finding>> = HashMap::new();
    for finding in findings {
        by_case
            .entry((finding.policy.as_str(), finding.project_id.as_str()))
            .or_default()
            .push(finding);
    }
    let timestamp = input
        .evaluated_at
        .get(..19)
        .unwrap_or("1970-01-01T00:00:00")
        .to_owned();
    let mut out = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    // No attributes on the root: Ant's schema allows none (each suite says
    // its own counts), and Jenkins' xUnit schema no `skipped` there.
    out.push_str("<testsuites>\n");
    for (index, policy) in policies.iter().enumerate() {
        let id = policy.meta.id.as_str();
        let cases: Vec<_> = input
            .projects
            .iter()
            .map(|project| (project, by_case.get(&(id, project.id.as_str()))))
            .collect();
        let outcome = |found: Option<&Vec<&Finding>>| found.map(|list| case_outcome(list));
        let failed = cases
            .iter()
            .filter(|(_, found)| outcome(*found) == Some(FindingStatus::Failing))
            .count();
        // Skipped: waived, or not judged.
        let skipped = cases
            .iter()
            .filter(|(_, found)| {
                outcome(*found).is_some_and(|status| status != FindingStatus::Failing)
            })
            .count();
        let _ = writeln!(
            out,
            "  <testsuite name=\"{}\" tests=\"{}\" failures=\"{failed}\" errors=\"0\" skipped=\"{skipped}\" time=\"0\" timestamp=\"{timestamp}\" hostname=\"vantage\" id=\"{index}\" package=\"{}\">",
            xml(id),
            cases.len(),
            xml(&policy.package),
        );
        out.push_str("    <properties>\n");
        for (name, value) in [
            ("title", policy.meta.title.as_str()),
            ("severity", policy.meta.severity.as_str()),
            ("source", policy.origin.as_str()),
        ] {
            let _ = writeln!(
                out,
                "      <property name=\"{name}\" value=\"{}\"/>",
                xml(value)
            );
        }
        out.push_str("    </properties>\n");
        for (project, found) in cases {
            let name = match project.name.as_ref().and_then(|name| name.as_ref()) {
                Some(name) => format!("{} ({name})", project.id),
                None => project.id.clone(),
            };
            let open = format!(
                "    <testcase name=\"{}\" classname=\"{}\" time=\"0\"",
                xml(&name),
                xml(id)
            );
            let Some(list) = found else {
                let _ = writeln!(out, "{open}/>");
                continue;
            };
            let _ = writeln!(out, "{open}>");
            let of_status = |status: FindingStatus| -> Vec<&Finding> {
                list.iter()
                    .copied()
                    .filter(|f| f.status == status)
                    .collect()
            };
            match case_outcome(list) {
                FindingStatus::Failing => {
                    let failing = of_status(FindingStatus::Failing);
                    let messages: Vec<&str> = failing.iter().map(|f| f.message.as_str()).collect();
                    let _ = writeln!(
                        out,
                        "      <failure message=\"{}\" type=\"{}\">{}\n\nRemediation: {}</failure>",
                        xml(&messages.join("; ")),
                        policy.meta.severity.as_str(),
                        xml(&messages.join("\n")),
                        xml(&policy.meta.remediation),
                    );
                }
                FindingStatus::Waived => {
                    let first = of_status(FindingStatus::Waived)[0];
                    let _ = writeln!(
                        out,
                        "      <skipped message=\"waived by {} until {}: {}\"/>",
                        xml(first.waived_by.as_deref().unwrap_or("?")),
                        first
                            .waived_until
                            .and_then(crate::timefmt::rfc3339)
                            .unwrap_or_default(),
                        xml(first.waiver_reason.as_deref().unwrap_or("")),
                    );
                }
                FindingStatus::Unknown => {
                    let messages: Vec<&str> = of_status(FindingStatus::Unknown)
                        .iter()
                        .map(|f| f.message.as_str())
                        .collect();
                    let _ = writeln!(
                        out,
                        "      <skipped message=\"not judged: {}\"/>",
                        xml(&messages.join("; ")),
                    );
                }
            }
            out.push_str("    </testcase>\n");
        }
        out.push_str("    <system-out/>\n    <system-err/>\n  </testsuite>\n");
    }
    out.push_str("</testsuites>\n");
    out
}
