//! The report's sections as HTML, in order; each says where its data came
//! from and as of when, or why it is missing.

use std::collections::{BTreeMap, HashMap};
use std::fmt::Write;

use super::charts::{self, Bar, Series};
use super::escape::push;
use crate::api::model::InventoryItem;
use crate::report::gather::{Part, ReportData};
use crate::report::sections::{self as words, Section};

fn open_section(out: &mut String, section: Section) {
    let _ = write!(
        out,
        "<section id=\"{}\"><h2>{}</h2>\n",
        section.id, section.title
    );
}

fn source<T>(out: &mut String, part: &Part<T>) {
    let class = if part.value().is_some() {
        "source"
    } else {
        "missing"
    };
    let _ = write!(out, "<p class=\"{class}\">");
    push(out, &words::source_line(part));
    out.push_str("</p>\n");
}

fn note(out: &mut String, text: &str) {
    out.push_str("<p class=\"note\">");
    push(out, text);
    out.push_str("</p>\n");
}

/// `<table>` with its header row; `numeric` columns are right-aligned.
fn table_head(out: &mut String, columns: &[(&str, bool)]) {
    out.push_str("<table><thead><tr>");
    for (title, numeric) in columns {
        let class = if *numeric { " class=\"n\"" } else { "" };
        let _ = write!(out, "<th{class}>{title}</th>");
    }
    out.push_str("</tr></thead><tbody>\n");
}

fn table_end(out: &mut String) {
    out.push_str("</tbody></table>\n");
}

fn cell(out: &mut String, value: &str) {
    out.push_str("<td>");
    push(out, value);
    out.push_str("</td>");
}

fn num(out: &mut String, value: impl std::fmt::Display) {
    let _ = write!(out, "<td class=\"n\">{value}</td>");
}

/// A project as a cell: its name (or "(no name)") and its id.
fn project_cell(out: &mut String, name: Option<&str>, id: &str) {
    out.push_str("<td>");
    match name {
        Some(name) => push(out, name),
        None => out.push_str("<em>(no name)</em>"),
    }
    out.push_str("<br><small>");
    push(out, id);
    out.push_str("</small></td>");
}

pub fn header(out: &mut String, data: &ReportData, title: &str) {
    let header = &data.header;
    out.push_str("<header><h1>");
    push(out, title);
    out.push_str("</h1><dl class=\"facts\">");
    let fact = |out: &mut String, term: &str, value: &str| {
        let _ = write!(out, "<dt>{term}</dt><dd>");
        push(out, value);
        out.push_str("</dd>");
    };
    let workspace = header.workspace.value();
    fact(
        out,
        "Workspace",
        &format!("{} ({})", words::workspace_name(data), header.workspace_id),
    );
    let plan = match (&header.workspace, workspace.and_then(|w| w.plan.as_ref())) {
        (_, Some(plan)) => plan.to_string(),
        (Part::Missing { reason }, _) => format!("not known: {reason}"),
        (Part::Present { .. }, None) => "not given by the service".to_owned(),
    };
    fact(out, "Plan", &plan);
    fact(out, "Written", &words::when(Some(header.generated_at), ""));
    fact(
        out,
        "By",
        header
            .generated_by
            .as_deref()
            .unwrap_or("not known (no reviewer name set)"),
    );
    fact(out, "vantage", &header.vantage_version);
    fact(
        out,
        "API version",
        &format!("{} (Service-Version)", header.api_version),
    );
    fact(out, "Service", &header.base_url);
    fact(
        out,
        "Scope",
        header
            .scope
            .as_deref()
            .unwrap_or("the whole workspace (no filter)"),
    );
    let history = match &data.history {
        Part::Present { source, value } => {
            format!("{}; {} snapshots", source.describe(), value.posture.len())
        }
        Part::Missing { reason } => format!("not read: {reason}"),
    };
    fact(out, "History", &history);
    out.push_str("</dl><nav><strong>Contents</strong><ol>");
    for section in words::SECTIONS {
        let _ = write!(
            out,
            "<li><a href=\"#{}\">{}</a></li>",
            section.id, section.title
        );
    }
    out.push_str("</ol></nav></header>\n");
}

pub fn posture(out: &mut String, data: &ReportData) {
    open_section(out, words::POSTURE);
    source(out, &data.insights);
    if let Some(insights) = data.insights.value() {
        let risk = &insights.summary.risk;
        let clamp = |n: i64| u64::try_from(n).unwrap_or(0);
        out.push_str(
            "<figure><figcaption>Risk distribution (projects by review priority)</figcaption>",
        );
        charts::bars(
            out,
            "Risk distribution",
            &[
                Bar {
                    label: "needs review",
                    value: clamp(risk.needs_review),
                    class: "needs_review",
                },
                Bar {
                    label: "review recommended",
                    value: clamp(risk.review_recommended),
                    class: "review_recommended",
                },
                Bar {
                    label: "no review needed",
                    value: clamp(risk.no_review_needed),
                    class: "no_review_needed",
                },
            ],
        );
        out.push_str("</figure>\n");
        let summary = &insights.summary;
        table_head(
            out,
            &[
                ("Metric", false),
                ("Value", true),
                ("Change", true),
                ("Over", false),
            ],
        );
        for (label, metric) in [
            ("Projects", &summary.total_projects),
            ("Externally published", &summary.externally_published),
            ("Workspace members", &summary.workspace_members),
        ] {
            out.push_str("<tr>");
            cell(out, label);
            num(out, metric.value);
            num(out, format_args!("{:+}", metric.delta_30d));
            cell(out, &metric.delta_window);
            out.push_str("</tr>\n");
        }
        table_end(out);
        out.push_str("<h3>Finding types</h3>");
        if insights.findings.is_empty() {
            note(out, "The service listed no finding types.");
        } else {
            table_head(
                out,
                &[
                    ("Finding type", false),
                    ("Priority", false),
                    ("Category", false),
                    ("Projects", true),
                    ("Description", false),
                ],
            );
            for finding in &insights.findings {
                out.push_str("<tr>");
                project_cell(out, Some(&finding.title), &finding.id);
                cell(out, finding.review_priority.as_str());
                cell(out, &finding.category);
                num(out, finding.project_count);
                cell(out, &finding.description);
                out.push_str("</tr>\n");
            }
            table_end(out);
        }
    }
    out.push_str("<h3>Posture over the snapshots</h3>");
    match &data.history {
        Part::Present { value, .. } if !value.posture.is_empty() => {
            source(out, &data.history);
            out.push_str("<figure><figcaption>Needs review, published, and public with personal data, per snapshot</figcaption>");
            charts::lines(
                out,
                "Posture over the snapshots",
                &value.posture,
                &[
                    Series {
                        label: "needs review",
                        class: "needs_review",
                        value: |p| p.needs_review,
                    },
                    Series {
                        label: "published",
                        class: "published",
                        value: |p| p.published,
                    },
                    Series {
                        label: "public with open personal data",
                        class: "public_pii",
                        value: |p| p.public_with_pii,
                    },
                ],
            );
            out.push_str("</figure>\n");
        }
        Part::Present { .. } => note(
            out,
            "Not in this report: the history holds no snapshot of this workspace yet (run `vantage snapshot`).",
        ),
        Part::Missing { .. } => source(out, &data.history),
    }
    out.push_str("</section>\n");
}

pub fn attention(out: &mut String, data: &ReportData) {
    open_section(out, words::ATTENTION);
    source(out, &data.inventory);
    if data.history.value().is_none() {
        note(
            out,
            "Without the history, \"changed since its review\" is not known here.",
        );
    }
    if data.inventory.value().is_none() {
        return out.push_str("</section>\n");
    }
    let attention = data.attention();
    if attention.is_empty() {
        note(
            out,
            "No project in scope needs review, changed since its review, or is published with open personal data.",
        );
    } else {
        let _ = write!(out, "<p>{} projects need attention.</p>", attention.len());
        table_head(
            out,
            &[
                ("Project", false),
                ("Priority", false),
                ("Publication", false),
                ("Open PII", true),
                ("Why", false),
            ],
        );
        for entry in &attention {
            let item = entry.item;
            out.push_str("<tr>");
            project_cell(out, item.name.as_deref(), &item.id);
            cell(out, item.review_priority.as_str());
            cell(out, &words::publication(item));
            match &item.matched_reason {
                Some(reason) => num(out, reason.values.open_pii_finding_count),
                None => cell(out, words::UNKNOWN),
            }
            out.push_str("<td><ul class=\"reasons\">");
            for reason in &entry.reasons {
                out.push_str("<li>");
                push(out, &words::reason_text(reason));
                out.push_str("</li>");
            }
            out.push_str("</ul></td></tr>\n");
        }
        table_end(out);
    }
    out.push_str("</section>\n");
}

/// A before/after value as text: lists joined, null a dash.
fn value_text(value: &serde_json::Value) -> String {
    match value {
        serde_json::Value::Null => "—".into(),
        serde_json::Value::String(text) => text.clone(),
        serde_json::Value::Array(items) => {
            items.iter().map(value_text).collect::<Vec<_>>().join(", ")
        }
        other => other.to_string(),
    }
}

pub fn changes(out: &mut String, data: &ReportData) {
    open_section(out, words::CHANGES);
    let Some(history) = data.history.value() else {
        source(out, &data.history);
        return out.push_str("</section>\n");
    };
    source(out, &history.changes);
    if let Some(changes) = history.changes.value() {
        let _ = write!(
            out,
            "<p>From snapshot {} ({}) to snapshot {} ({}); the earlier one is ",
            changes.since.id,
            words::when(Some(changes.since.taken_at), ""),
            changes.until.id,
            words::when(Some(changes.until.taken_at), ""),
        );
        push(out, words::since_text(&changes.picked));
        out.push_str(".</p>");
        if changes.changes.is_empty() {
            note(out, "Nothing changed between these snapshots.");
        }
        let mut by_kind: BTreeMap<(usize, String), Vec<&crate::history::Change>> = BTreeMap::new();
        for change in &changes.changes {
            by_kind
                .entry((change.kind.seriousness_rank(), change.kind.to_string()))
                .or_default()
                .push(change);
        }
        if !by_kind.is_empty() {
            table_head(out, &[("Kind", false), ("Count", true)]);
            for ((_, kind), list) in &by_kind {
                out.push_str("<tr>");
                cell(out, kind);
                num(out, list.len());
                out.push_str("</tr>");
            }
            table_end(out);
        }
        for ((_, kind), list) in &by_kind {
            out.push_str("<h3>");
            push(out, kind);
            let _ = write!(out, " ({})</h3>", list.len());
            table_head(
                out,
                &[
                    ("Project or member", false),
                    ("Before", false),
                    ("After", false),
                ],
            );
            for change in list {
                out.push_str("<tr>");
                project_cell(out, change.name.as_deref(), &change.id);
                cell(out, &value_text(&change.before));
                cell(out, &value_text(&change.after));
                out.push_str("</tr>\n");
            }
            table_end(out);
        }
    }
    out.push_str("</section>\n");
}

pub fn coverage(out: &mut String, data: &ReportData) {
    open_section(out, words::COVERAGE);
    source(out, &data.history);
    let (Some(history), Some(coverage)) = (data.history.value(), words::Coverage::of(data)) else {
        return out.push_str("</section>\n");
    };
    if !history.posture.is_empty() {
        out.push_str(
            "<figure><figcaption>Projects with a standing review mark, per snapshot</figcaption>",
        );
        charts::lines(
            out,
            "Review coverage over time",
            &history.posture,
            &[
                Series {
                    label: "reviewed",
                    class: "reviewed",
                    value: |p| p.reviewed,
                },
                Series {
                    label: "projects",
                    class: "total",
                    value: |p| u64::try_from(p.snapshot.projects).unwrap_or(0),
                },
            ],
        );
        out.push_str("</figure>\n");
    }
    table_head(
        out,
        &[
            ("Reviewer", false),
            ("Reviewed, unchanged", true),
            ("Changed since review", true),
        ],
    );
    for (who, unchanged, changed) in &coverage.by_reviewer {
        out.push_str("<tr>");
        cell(out, who);
        num(out, unchanged);
        num(out, changed);
        out.push_str("</tr>\n");
    }
    out.push_str("<tr><td><em>nobody (unreviewed, in scope)</em></td>");
    match coverage.unreviewed {
        Some(count) => num(out, count),
        None => cell(out, "not known: the inventory was not read"),
    }
    out.push_str("<td></td></tr>\n");
    table_end(out);
    out.push_str("<h3>The review log in the period</h3>");
    let period = history.log_since.map_or_else(
        || "every entry (no earlier snapshot to start the period)".to_owned(),
        |since| format!("entries since {}", words::when(Some(since), "")),
    );
    note(out, &format!("{period}: {} entries.", history.log.len()));
    if !history.log.is_empty() {
        let names: HashMap<&str, &InventoryItem> = data
            .inventory
            .value()
            .map(|i| {
                i.items
                    .iter()
                    .map(|item| (item.id.as_str(), item))
                    .collect()
            })
            .unwrap_or_default();
        table_head(
            out,
            &[
                ("When", false),
                ("Who", false),
                ("Action", false),
                ("Project", false),
                ("Note", false),
            ],
        );
        for entry in &history.log {
            out.push_str("<tr>");
            cell(out, &words::when(Some(entry.at), ""));
            cell(
                out,
                &crate::history::shown_reviewer(
                    entry.reviewer.as_deref(),
                    entry.display_name.as_deref(),
                ),
            );
            cell(out, entry.action.as_str());
            let name = names
                .get(entry.project_id.as_str())
                .and_then(|item| item.name.as_deref());
            project_cell(out, name, &entry.project_id);
            cell(out, entry.note.as_deref().unwrap_or(""));
            out.push_str("</tr>\n");
        }
        table_end(out);
    }
    out.push_str("</section>\n");
}

pub fn scans(out: &mut String, data: &ReportData) {
    open_section(out, words::SCANS);
    source(out, &data.inventory);
    if let Some(inventory) = data.inventory.value() {
        let mut totals = [0u64; 4];
        let (mut unknown, mut scanned) = (0usize, 0usize);
        for item in &inventory.items {
            match words::open_counts(item) {
                Some(counts) => {
                    for (total, count) in totals.iter_mut().zip(counts) {
                        *total += u64::try_from(count).unwrap_or(0);
                    }
                }
                None => unknown += 1,
            }
            scanned += usize::from(item.last_security_scan_at.is_some());
        }
        let _ = write!(
            out,
            "<p>{scanned} of {} projects in scope have been scanned; {} never were.</p>",
            inventory.items.len(),
            inventory.items.len() - scanned
        );
        out.push_str("<figure><figcaption>Open findings by severity (latest scans, as the inventory counts them)</figcaption>");
        let classes = [
            "needs_review",
            "review_recommended",
            "unscored",
            "public_pii",
        ];
        let bars: Vec<Bar<'_>> = words::SEVERITIES
            .iter()
            .zip(totals)
            .zip(classes)
            .map(|((label, value), class)| Bar {
                label,
                value,
                class,
            })
            .collect();
        charts::bars(out, "Open findings by severity", &bars);
        out.push_str("</figure>");
        if unknown > 0 {
            note(
                out,
                &format!(
                    "{unknown} projects carry no counts (no matched reason): they are not in these totals."
                ),
            );
        }
    }
    out.push_str("<h3>Latest scan of each project that needs attention</h3>");
    source(out, &data.scans);
    if let Some(details) = data.scans.value() {
        if details.left_out > 0 {
            note(
                out,
                &format!(
                    "{} more projects need attention; their scans were not read (the detail budget, --detail-projects).",
                    details.left_out
                ),
            );
        }
        if details.read.is_empty() {
            note(out, "No project needs attention: no scan was read.");
        } else {
            table_head(
                out,
                &[
                    ("Project", false),
                    ("Scan", false),
                    ("Status", false),
                    ("Finished", false),
                    ("Findings", true),
                    ("Open", true),
                ],
            );
            for project in &details.read {
                out.push_str("<tr>");
                let name = data
                    .inventory
                    .value()
                    .and_then(|i| i.items.iter().find(|item| item.id == project.project_id))
                    .and_then(|item| item.name.as_deref());
                project_cell(out, name, &project.project_id);
                match &project.scan {
                    Some(scan) => {
                        cell(out, &scan.id);
                        cell(out, scan.status.as_str());
                        cell(out, &words::when(scan.finished_at, "not finished"));
                    }
                    None => {
                        cell(out, "never scanned");
                        cell(out, "");
                        cell(out, "");
                    }
                }
                num(out, project.findings.len());
                num(
                    out,
                    project
                        .findings
                        .iter()
                        .filter(|f| f.status.as_str() == "open")
                        .count(),
                );
                out.push_str("</tr>\n");
            }
            table_end(out);
            let findings: Vec<_> = details
                .read
                .iter()
                .flat_map(|p| p.findings.iter().map(move |f| (p, f)))
                .collect();
            if !findings.is_empty() {
                let _ = write!(
                    out,
                    "<details><summary>Every finding of these scans ({})</summary>",
                    findings.len()
                );
                table_head(
                    out,
                    &[
                        ("Project", false),
                        ("Finding", false),
                        ("Level", false),
                        ("Status", false),
                        ("Category", false),
                        ("Scanner", false),
                    ],
                );
                for (project, finding) in findings {
                    out.push_str("<tr>");
                    cell(out, &project.project_id);
                    out.push_str("<td>");
                    push(out, &finding.name);
                    if let Some(description) = &finding.description {
                        out.push_str("<br><small>");
                        push(out, description);
                        out.push_str("</small>");
                    }
                    out.push_str("</td>");
                    cell(out, finding.level.as_str());
                    cell(out, finding.status.as_str());
                    cell(out, &finding.category);
                    cell(out, &finding.scanner_name);
                    out.push_str("</tr>\n");
                }
                table_end(out);
                out.push_str("</details>");
            }
        }
    }
    out.push_str("<h3>Personal-data findings</h3>");
    source(out, &data.pii);
    if let Some(details) = data.pii.value() {
        note(
            out,
            "Of the projects that need attention and have open personal data; the matched text is left out (it is the personal data itself).",
        );
        if details.left_out > 0 {
            note(
                out,
                &format!(
                    "{} more projects were not read (the detail budget).",
                    details.left_out
                ),
            );
        }
        table_head(
            out,
            &[
                ("Project", false),
                ("Open", true),
                ("Ignored", true),
                ("Fixed", true),
                ("Newest found", false),
                ("Sources", false),
            ],
        );
        for project in &details.read {
            let count = |status: &str| {
                project
                    .findings
                    .iter()
                    .filter(|f| f.status.as_str() == status)
                    .count()
            };
            out.push_str("<tr>");
            cell(out, &project.project_id);
            num(out, count("open"));
            num(out, count("ignored"));
            num(out, count("fixed"));
            cell(
                out,
                &words::when(project.findings.iter().map(|f| f.found_at).max(), "none"),
            );
            let mut sources: Vec<&str> =
                project.findings.iter().map(|f| f.source.as_str()).collect();
            sources.sort_unstable();
            sources.dedup();
            cell(out, &sources.join(", "));
            out.push_str("</tr>\n");
        }
        table_end(out);
    }
    out.push_str("</section>\n");
}

pub fn members(out: &mut String, data: &ReportData) {
    open_section(out, words::MEMBERS);
    source(out, &data.members);
    if let Some(members) = data.members.value() {
        let mut roles: BTreeMap<String, usize> = BTreeMap::new();
        for member in members {
            *roles
                .entry(
                    member
                        .role
                        .as_ref()
                        .map_or_else(|| "role not known".to_owned(), ToString::to_string),
                )
                .or_default() += 1;
        }
        let _ = write!(out, "<p>{} members: ", members.len());
        let counts: Vec<String> = roles
            .iter()
            .map(|(role, n)| format!("{n} {role}"))
            .collect();
        push(out, &counts.join(", "));
        out.push_str(".</p>");
        let unread = members.iter().filter(|m| m.detail.is_none()).count();
        if unread > 0 {
            note(
                out,
                &format!(
                    "{unread} members were not read for name and e-mail (the read budget, or gone since the list)."
                ),
            );
        }
        table_head(
            out,
            &[
                ("Member", false),
                ("E-mail", false),
                ("Role", false),
                ("Joined", false),
            ],
        );
        for member in members {
            out.push_str("<tr>");
            let detail = member.detail.as_ref();
            project_cell(out, detail.and_then(|d| d.name.as_deref()), &member.user_id);
            cell(
                out,
                detail
                    .and_then(|d| d.email.as_deref())
                    .unwrap_or(if detail.is_some() {
                        "not given"
                    } else {
                        "not read"
                    }),
            );
            cell(
                out,
                &member
                    .role
                    .as_ref()
                    .map_or_else(|| "not known".to_owned(), ToString::to_string),
            );
            cell(
                out,
                &words::when(
                    detail.and_then(|d| d.joined_at),
                    if detail.is_some() {
                        "not given"
                    } else {
                        "not read"
                    },
                ),
            );
            out.push_str("</tr>\n");
        }
        table_end(out);
    }
    out.push_str("</section>\n");
}

pub fn appendix(out: &mut String, data: &ReportData) {
    open_section(out, words::APPENDIX);
    source(out, &data.inventory);
    if let Some(inventory) = data.inventory.value() {
        let _ = write!(
            out,
            "<details><summary>Every project in scope ({} of {} the service counted)</summary>",
            inventory.items.len(),
            inventory.total
        );
        table_head(
            out,
            &[
                ("Project", false),
                ("Priority", false),
                ("Publication", false),
                ("Visibility", false),
                ("Open PII", true),
                ("Open findings e/w/i/s", true),
                ("Last scan", false),
                ("Last edited", false),
                ("Owner", false),
            ],
        );
        for item in &inventory.items {
            out.push_str("<tr>");
            project_cell(out, item.name.as_deref(), &item.id);
            cell(out, item.review_priority.as_str());
            cell(out, &words::publication(item));
            cell(
                out,
                item.visibility.as_ref().map_or("not set", |v| v.as_str()),
            );
            match words::open_counts(item) {
                Some(counts) => {
                    let _ = write!(
                        out,
                        "<td class=\"n\">{}</td><td class=\"n\">{}/{}/{}/{}</td>",
                        item.matched_reason
                            .as_ref()
                            .map_or(0, |r| r.values.open_pii_finding_count),
                        counts[0],
                        counts[1],
                        counts[2],
                        counts[3]
                    );
                }
                None => {
                    cell(out, words::UNKNOWN);
                    cell(out, words::UNKNOWN);
                }
            }
            cell(out, &words::when(item.last_security_scan_at, "never"));
            cell(out, &words::when(item.last_edited_at, "never"));
            cell(
                out,
                item.owner.display_name.as_deref().unwrap_or("not given"),
            );
            out.push_str("</tr>\n");
        }
        table_end(out);
        out.push_str("</details>");
    }
    out.push_str("</section>\n");
}
