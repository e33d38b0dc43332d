//! The Markdown report: the HTML report's sections as tables, counts where
//! the charts were, for a ticket or a wiki. Every value passes through
//! [`escape`]: Markdown's and HTML's special characters are escaped, so a
//! value is text in any renderer.

use std::fmt::Write;

use super::gather::{Part, ReportData};
use super::sections::{self as words, Section};

/// `value` as Markdown text: invisible characters as visible escapes, HTML's
/// `& < >` as entities, and the punctuation that makes Markdown (emphasis,
/// code, links, headings, the table's `|`) behind a backslash; with `[`
/// escaped no link or image can start, so `(` and `!` stay as they are.
pub fn escape(value: &str) -> String {
    let visible = crate::text::escape_invisible(value);
    let mut out = String::with_capacity(visible.len() + 8);
    for ch in visible.chars() {
        match ch {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '\\' | '`' | '*' | '_' | '[' | ']' | '#' | '|' | '~' => {
                out.push('\\');
                out.push(ch);
            }
            ch => out.push(ch),
        }
    }
    out
}

fn heading(out: &mut String, section: Section) {
    let _ = write!(out, "\n## {}\n\n", section.title);
}

fn source<T>(out: &mut String, part: &Part<T>) {
    let _ = writeln!(out, "_{}_\n", escape(&words::source_line(part)));
}

fn para(out: &mut String, text: &str) {
    let _ = writeln!(out, "{}\n", escape(text));
}

/// A table: the header, then each row's cells (already escaped).
fn table(out: &mut String, columns: &[&str], rows: impl IntoIterator<Item = Vec<String>>) {
    let _ = writeln!(out, "| {} |", columns.join(" | "));
    let _ = writeln!(
        out,
        "|{}",
        columns.iter().map(|_| " --- |").collect::<String>()
    );
    for row in rows {
        let _ = writeln!(out, "| {} |", row.join(" | "));
    }
    out.push('\n');
}

fn project(name: Option<&str>, id: &str) -> String {
    // No code span: a backslash escape does not work inside one.
    format!(
        "{} ({})",
        name.map_or_else(|| "_(no name)_".to_owned(), escape),
        escape(id)
    )
}

/// The report as Markdown.
pub fn render(data: &ReportData) -> String {
    let mut out = String::with_capacity(16 * 1024);
    let header = &data.live.header;
    let _ = writeln!(out, "# {}\n", escape(&words::title(data)));
    let plan = header
        .workspace
        .value()
        .and_then(|w| w.plan.as_ref())
        .map_or_else(|| "not known".to_owned(), ToString::to_string);
    let facts = [
        (
            "Workspace",
            format!("{} ({})", words::workspace_name(data), header.workspace_id),
        ),
        ("Plan", plan),
        ("Written", words::when(Some(header.generated_at), "")),
        (
            "By",
            header
                .generated_by
                .clone()
                .unwrap_or_else(|| "not known".into()),
        ),
        ("vantage", header.vantage_version.clone()),
        ("API version", header.api_version.clone()),
        ("Service", header.base_url.clone()),
        (
            "Scope",
            header
                .scope
                .clone()
                .unwrap_or_else(|| "the whole workspace (no filter)".into()),
        ),
        ("History", words::source_line(&data.history)),
    ];
    table(
        &mut out,
        &["", ""],
        facts
            .iter()
            .map(|(k, v)| vec![format!("**{k}**"), escape(v)]),
    );
    posture(&mut out, data);
    attention(&mut out, data);
    changes(&mut out, data);
    coverage(&mut out, data);
    scans(&mut out, data);
    members(&mut out, data);
    appendix(&mut out, data);
    out
}

fn posture(out: &mut String, data: &ReportData) {
    heading(out, words::POSTURE);
    source(out, &data.live.insights);
    if let Some(insights) = data.live.insights.value() {
        let risk = &insights.summary.risk;
        out.push_str("Risk distribution:\n\n");
        table(
            out,
            &["Review priority", "Projects"],
            [
                vec!["needs review".into(), risk.needs_review.to_string()],
                vec![
                    "review recommended".into(),
                    risk.review_recommended.to_string(),
                ],
                vec!["no review needed".into(), risk.no_review_needed.to_string()],
            ],
        );
        let s = &insights.summary;
        table(
            out,
            &["Metric", "Value", "Change", "Over"],
            [
                ("Projects", &s.total_projects),
                ("Externally published", &s.externally_published),
                ("Workspace members", &s.workspace_members),
            ]
            .map(|(label, m)| {
                vec![
                    label.into(),
                    m.value.to_string(),
                    format!("{:+}", m.delta_30d),
                    escape(&m.delta_window),
                ]
            }),
        );
        out.push_str("### Finding types\n\n");
        table(
            out,
            &[
                "Finding type",
                "Priority",
                "Category",
                "Projects",
                "Description",
            ],
            insights.findings.iter().map(|f| {
                vec![
                    project(Some(&f.title), &f.id),
                    escape(f.review_priority.as_str()),
                    escape(&f.category),
                    f.project_count.to_string(),
                    escape(&f.description),
                ]
            }),
        );
    }
    out.push_str("### Posture over the snapshots\n\n");
    source(out, &data.history);
    if let Some(history) = data.history.value() {
        table(
            out,
            &[
                "Snapshot",
                "Taken",
                "Needs review",
                "Published",
                "Public with PII",
            ],
            history.posture.iter().map(|p| {
                vec![
                    p.snapshot.id.to_string(),
                    words::when(Some(p.snapshot.taken_at), ""),
                    p.needs_review.to_string(),
                    p.published.to_string(),
                    p.public_with_pii.to_string(),
                ]
            }),
        );
    }
}

fn attention(out: &mut String, data: &ReportData) {
    heading(out, words::ATTENTION);
    source(out, &data.live.inventory);
    if data.live.inventory.value().is_none() {
        return;
    }
    let attention = data.attention();
    if attention.is_empty() {
        para(
            out,
            "No project in scope needs review, changed since its review, or is published with open personal data.",
        );
        return;
    }
    let _ = writeln!(out, "{} projects need attention.\n", attention.len());
    table(
        out,
        &["Project", "Priority", "Publication", "Open PII", "Why"],
        attention.iter().map(|entry| {
            let item = entry.item;
            vec![
                project(item.name.as_deref(), &item.id),
                escape(item.review_priority.as_str()),
                escape(&words::publication(item)),
                item.matched_reason.as_ref().map_or_else(
                    || words::UNKNOWN.into(),
                    |r| r.values.open_pii_finding_count.to_string(),
                ),
                entry
                    .reasons
                    .iter()
                    .map(|r| escape(&words::reason_text(r)))
                    .collect::<Vec<_>>()
                    .join("; "),
            ]
        }),
    );
}

fn changes(out: &mut String, data: &ReportData) {
    heading(out, words::CHANGES);
    let Some(history) = data.history.value() else {
        return source(out, &data.history);
    };
    source(out, &history.changes);
    let Some(changes) = history.changes.value() else {
        return;
    };
    para(
        out,
        &format!(
            "From snapshot {} ({}) to snapshot {} ({}); the earlier one is {}.",
            changes.since.id,
            words::when(Some(changes.since.taken_at), ""),
            changes.until.id,
            words::when(Some(changes.until.taken_at), ""),
            words::since_text(&changes.picked)
        ),
    );
    let by_kind = words::by_kind(&changes.changes);
    if by_kind.is_empty() {
        para(out, "Nothing changed between these snapshots.");
        return;
    }
    table(
        out,
        &["Kind", "Count"],
        by_kind
            .iter()
            .map(|((_, kind), list)| vec![escape(kind), list.len().to_string()]),
    );
    for ((_, kind), list) in &by_kind {
        let _ = writeln!(out, "### {} ({})\n", escape(kind), list.len());
        table(
            out,
            &["Project or member", "Before", "After"],
            list.iter().map(|c| {
                vec![
                    project(c.name.as_deref(), &c.id),
                    escape(&words::value_text(&c.before)),
                    escape(&words::value_text(&c.after)),
                ]
            }),
        );
    }
}

fn coverage(out: &mut String, data: &ReportData) {
    heading(out, words::COVERAGE);
    source(out, &data.history);
    let (Some(history), Some(coverage)) = (data.history.value(), words::Coverage::of(data)) else {
        return;
    };
    out.push_str("Projects with a standing review mark, per snapshot:\n\n");
    table(
        out,
        &["Snapshot", "Taken", "Reviewed", "Projects"],
        history.posture.iter().map(|p| {
            vec![
                p.snapshot.id.to_string(),
                words::when(Some(p.snapshot.taken_at), ""),
                p.reviewed.to_string(),
                p.snapshot.projects.to_string(),
            ]
        }),
    );
    let mut rows: Vec<Vec<String>> = coverage
        .by_reviewer
        .iter()
        .map(|(who, a, b)| vec![escape(who), a.to_string(), b.to_string()])
        .collect();
    rows.push(vec![
        "_nobody (unreviewed, in scope)_".into(),
        coverage
            .unreviewed
            .map_or_else(|| "not known".into(), |n| n.to_string()),
        String::new(),
    ]);
    table(
        out,
        &["Reviewer", "Reviewed, unchanged", "Changed since review"],
        rows,
    );
    out.push_str("### The review log in the period\n\n");
    let period = history.log_since.map_or_else(
        || "every entry (no earlier snapshot to start the period)".to_owned(),
        |since| format!("entries since {}", words::when(Some(since), "")),
    );
    para(out, &format!("{period}: {} entries.", history.log.len()));
    if history.log.is_empty() {
        return;
    }
    let names = data.project_names();
    table(
        out,
        &["When", "Who", "Action", "Project", "Note"],
        history.log.iter().map(|e| {
            vec![
                words::when(Some(e.at), ""),
                escape(&crate::history::shown_reviewer(
                    e.reviewer.as_deref(),
                    e.display_name.as_deref(),
                )),
                e.action.as_str().to_owned(),
                project(
                    names.get(e.project_id.as_str()).copied().flatten(),
                    &e.project_id,
                ),
                escape(e.note.as_deref().unwrap_or("")),
            ]
        }),
    );
}

fn scans(out: &mut String, data: &ReportData) {
    heading(out, words::SCANS);
    source(out, &data.live.inventory);
    if let Some(inventory) = data.live.inventory.value() {
        let mut totals = [0i64; 4];
        let mut unknown = 0;
        for item in &inventory.items {
            match words::open_counts(item) {
                Some(counts) => totals.iter_mut().zip(counts).for_each(|(t, c)| *t += c),
                None => unknown += 1,
            }
        }
        let scanned = inventory
            .items
            .iter()
            .filter(|i| i.last_security_scan_at.is_some())
            .count();
        para(
            out,
            &format!(
                "{scanned} of {} projects in scope have been scanned.",
                inventory.items.len()
            ),
        );
        out.push_str("Open findings by severity (latest scans, as the inventory counts them):\n\n");
        table(
            out,
            &["Severity", "Open findings"],
            words::SEVERITIES
                .iter()
                .zip(totals)
                .map(|(s, n)| vec![(*s).to_owned(), n.to_string()]),
        );
        if unknown > 0 {
            para(
                out,
                &format!("{unknown} projects carry no counts: they are not in these totals."),
            );
        }
    }
    out.push_str("### Latest scan of each project that needs attention\n\n");
    source(out, &data.live.scans);
    if let Some(details) = data.live.scans.value() {
        if details.left_out > 0 {
            para(
                out,
                &format!(
                    "{} more projects need attention; their scans were not read (the detail budget).",
                    details.left_out
                ),
            );
        }
        table(
            out,
            &["Project", "Scan", "Status", "Finished", "Findings", "Open"],
            details.read.iter().map(|p| {
                let (scan, status, finished) = p.scan.as_ref().map_or_else(
                    || ("never scanned".to_owned(), String::new(), String::new()),
                    |s| {
                        (
                            escape(&s.id),
                            escape(s.status.as_str()),
                            words::when(s.finished_at, "not finished"),
                        )
                    },
                );
                vec![
                    escape(&p.project_id),
                    scan,
                    status,
                    finished,
                    p.findings.len().to_string(),
                    p.findings
                        .iter()
                        .filter(|f| f.status.as_str() == "open")
                        .count()
                        .to_string(),
                ]
            }),
        );
    }
    out.push_str("### Personal-data findings\n\n");
    source(out, &data.live.pii);
    if let Some(details) = data.live.pii.value() {
        para(
            out,
            "Of the projects that need attention and have open personal data; the matched text is left out (it is the personal data itself).",
        );
        table(
            out,
            &["Project", "Open", "Ignored", "Fixed"],
            details.read.iter().map(|p| {
                let count = |status: &str| {
                    p.findings
                        .iter()
                        .filter(|f| f.status.as_str() == status)
                        .count()
                        .to_string()
                };
                vec![
                    escape(&p.project_id),
                    count("open"),
                    count("ignored"),
                    count("fixed"),
                ]
            }),
        );
    }
}

fn members(out: &mut String, data: &ReportData) {
    heading(out, words::MEMBERS);
    source(out, &data.live.members);
    let Some(members) = data.live.members.value() else {
        return;
    };
    table(
        out,
        &["Member", "E-mail", "Role", "Joined"],
        members.iter().map(|m| {
            let d = m.detail.as_ref();
            let absent = if d.is_some() { "not given" } else { "not read" };
            vec![
                project(d.and_then(|d| d.name.as_deref()), &m.user_id),
                d.and_then(|d| d.email.as_deref())
                    .map_or_else(|| absent.to_owned(), escape),
                m.role
                    .as_ref()
                    .map_or_else(|| "not known".to_owned(), |r| escape(r.as_str())),
                words::when(d.and_then(|d| d.joined_at), absent),
            ]
        }),
    );
}

fn appendix(out: &mut String, data: &ReportData) {
    heading(out, words::APPENDIX);
    source(out, &data.live.inventory);
    let Some(inventory) = data.live.inventory.value() else {
        return;
    };
    let _ = writeln!(
        out,
        "<details><summary>Every project in scope ({} of {} the service counted)</summary>\n",
        inventory.items.len(),
        inventory.total
    );
    table(
        out,
        &[
            "Project",
            "Priority",
            "Publication",
            "Visibility",
            "Open findings e/w/i/s",
            "Last scan",
            "Owner",
        ],
        inventory.items.iter().map(|item| {
            vec![
                project(item.name.as_deref(), &item.id),
                escape(item.review_priority.as_str()),
                escape(&words::publication(item)),
                escape(item.visibility.as_ref().map_or("not set", |v| v.as_str())),
                words::open_counts(item).map_or_else(
                    || words::UNKNOWN.into(),
                    |c| format!("{}/{}/{}/{}", c[0], c[1], c[2], c[3]),
                ),
                words::when(item.last_security_scan_at, "never"),
                escape(item.owner.display_name.as_deref().unwrap_or("not given")),
            ]
        }),
    );
    out.push_str("</details>\n");
}

#[cfg(test)]
mod tests {
    use super::escape;

    #[test]
    fn markup_is_text_in_markdown() {
        assert_eq!(
            escape("<img src=x onerror=alert(1)>"),
            "&lt;img src=x onerror=alert(1)&gt;"
        );
        assert_eq!(escape("a|b"), "a\\|b");
        assert_eq!(escape("[x](javascript:1)"), "\\[x\\](javascript:1)");
        assert_eq!(escape("\u{1b}[2J"), "\\\\x1b\\[2J");
    }
}
