//! The report's header, the posture now, and what needs attention.

use std::fmt::Write;

use super::blocks::{cell, note, num, open_section, project_cell, source, table_end, table_head};
use super::charts::{self, Bar, Series};
use super::escape::push;
use crate::report::gather::{Part, ReportData};
use crate::report::sections as words;

pub fn header(out: &mut String, data: &ReportData, title: &str) {
    let header = &data.live.header;
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
    source(out, &data.live.insights);
    if let Some(insights) = data.live.insights.value() {
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
                cell(out, &words::spaced(finding.review_priority.as_str()));
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
    source(out, &data.live.inventory);
    if data.history.value().is_none() {
        note(
            out,
            "Without the history, \"changed since its review\" is not known here.",
        );
    }
    if data.live.inventory.value().is_none() {
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
            cell(out, &words::spaced(item.review_priority.as_str()));
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
