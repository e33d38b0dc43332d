//! DefectDojo's *Generic Findings Import* (JSON): `{"name", "type", "findings": [...]}`.
//!
//! Only the keys DefectDojo's parser allows are written (it refuses a file with any other).
//! `unique_id_from_tool` is the finding's stable id, so a re-import updates the findings it
//! already holds instead of adding copies; `type` names vantage as the tool that found them.

use std::io::{self, Write};

use serde::Serialize;
use time::OffsetDateTime;

use super::{Feed, Finding, FindingKind, Severity, Status, findings, project_label};
use crate::build_info;
use crate::timefmt;

#[derive(Serialize)]
struct Import<'a> {
    name: &'static str,
    #[serde(rename = "type")]
    tool: &'static str,
    version: &'static str,
    description: String,
    findings: Vec<Record<'a>>,
}

#[derive(Serialize)]
struct Record<'a> {
    title: &'a str,
    severity: &'static str,
    description: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    severity_justification: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    date: Option<String>,
    unique_id_from_tool: &'a str,
    vuln_id_from_tool: &'a str,
    component_name: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    references: Option<String>,
    active: bool,
    is_mitigated: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    mitigated: Option<String>,
    risk_accepted: bool,
    static_finding: bool,
    dynamic_finding: bool,
    tags: Vec<String>,
}

/// DefectDojo's five severities; it has no "unknown", so a finding the service gave no
/// level is `Info`, and its justification says so.
fn severity(severity: Severity) -> &'static str {
    match severity {
        Severity::Critical => "Critical",
        Severity::High => "High",
        Severity::Medium => "Medium",
        Severity::Low => "Low",
        Severity::Informational | Severity::Unknown => "Info",
    }
}

/// Text for DefectDojo's Markdown fields: a value from the service stays text. Markdown's
/// and HTML's active characters are escaped with a backslash or as entities, and control
/// characters are dropped (JSON would carry them; a Markdown renderer should not see them).
fn markdown_text(value: &str) -> String {
    let mut out = String::with_capacity(value.len());
    for ch in value.chars() {
        match ch {
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '&' => out.push_str("&amp;"),
            '\\' | '`' | '*' | '_' | '[' | ']' | '(' | ')' | '#' | '|' | '!' | '~' | '{' | '}' => {
                out.push('\\');
                out.push(ch);
            }
            '\n' => out.push('\n'),
            ch if ch.is_control() => {}
            ch => out.push(ch),
        }
    }
    out
}

fn description(finding: &Finding<'_>) -> String {
    let item = finding.project;
    let mut text = markdown_text(&finding.description);
    text.push_str("\n\n");
    text.push_str(&format!(
        "**Project:** {} (`{}`)\n",
        markdown_text(project_label(item)),
        markdown_text(&item.id)
    ));
    text.push_str(&format!(
        "**Found by:** {} ({})\n",
        markdown_text(&finding.source),
        finding.kind.as_str()
    ));
    text.push_str(&format!(
        "**Category:** {}\n",
        markdown_text(&finding.category)
    ));
    if let Status::Other(raw) = &finding.status {
        text.push_str(&format!("**Status:** {}\n", markdown_text(raw)));
    }
    text
}

fn date(at: Option<OffsetDateTime>) -> Option<String> {
    at.map(|at| timefmt::date(at.date()))
}

fn record<'a>(finding: &'a Finding<'a>) -> Record<'a> {
    let justification = match (finding.severity, finding.severity_reason) {
        (Severity::Unknown, _) => Some("the service gave this finding no level".to_owned()),
        (_, Some(reason)) => Some(reason.to_owned()),
        (_, None) => None,
    };
    Record {
        title: &finding.title,
        severity: severity(finding.severity),
        description: description(finding),
        severity_justification: justification,
        date: date(finding.created_at.or(finding.updated_at)),
        unique_id_from_tool: &finding.uid,
        vuln_id_from_tool: &finding.rule,
        component_name: project_label(finding.project),
        references: finding.project.url.clone(),
        active: matches!(finding.status, Status::Open),
        is_mitigated: matches!(finding.status, Status::Fixed),
        mitigated: match finding.status {
            Status::Fixed => finding.updated_at.and_then(timefmt::rfc3339),
            _ => None,
        },
        risk_accepted: matches!(finding.status, Status::Ignored),
        static_finding: finding.kind == FindingKind::ScanFinding,
        dynamic_finding: false,
        tags: vec![
            "vantage".to_owned(),
            finding.kind.as_str().to_owned(),
            finding.category.clone(),
        ],
    }
}

/// Writes the feed as one DefectDojo import document; returns how many findings.
pub fn write(feed: &Feed<'_>, out: &mut dyn Write) -> io::Result<usize> {
    let all = findings(feed);
    let import = Import {
        name: "vantage",
        tool: "vantage",
        version: build_info::VERSION,
        description: format!(
            "Findings of workspace {} as read by vantage at {}",
            feed.workspace_id,
            timefmt::rfc3339(feed.read_at).unwrap_or_default()
        ),
        findings: all.iter().map(record).collect(),
    };
    serde_json::to_writer_pretty(&mut *out, &import)?;
    out.write_all(b"\n")?;
    Ok(all.len())
}
