//! Scans and findings, members and roles, and the appendix of every project.

use std::collections::BTreeMap;
use std::fmt::Write;

use super::blocks::{cell, note, num, open_section, project_cell, source, table_end, table_head};
use super::charts::{self, Bar};
use super::escape::push;
use crate::report::gather::ReportData;
use crate::report::sections as words;

pub fn scans(out: &mut String, data: &ReportData) {
    open_section(out, words::SCANS);
    source(out, &data.live.inventory);
    if let Some(inventory) = data.live.inventory.value() {
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
    source(out, &data.live.scans);
    if let Some(details) = data.live.scans.value() {
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
                    .live
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
    source(out, &data.live.pii);
    if let Some(details) = data.live.pii.value() {
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
    source(out, &data.live.members);
    if let Some(members) = data.live.members.value() {
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
    source(out, &data.live.inventory);
    if let Some(inventory) = data.live.inventory.value() {
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
            cell(out, &words::spaced(item.review_priority.as_str()));
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
