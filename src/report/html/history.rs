//! What changed since `--since`, and the review coverage (the history's sections).

use std::fmt::Write;

use super::blocks::{cell, note, num, open_section, project_cell, source, table_end, table_head};
use super::charts::{self, Series};
use super::escape::push;
use crate::report::gather::ReportData;
use crate::report::sections as words;

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
        let by_kind = words::by_kind(&changes.changes);
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
                cell(out, &words::value_text(&change.before));
                cell(out, &words::value_text(&change.after));
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
        let names = data.project_names();
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
            let name = names.get(entry.project_id.as_str()).copied().flatten();
            project_cell(out, name, &entry.project_id);
            cell(out, entry.note.as_deref().unwrap_or(""));
            out.push_str("</tr>\n");
        }
        table_end(out);
    }
    out.push_str("</section>\n");
}
