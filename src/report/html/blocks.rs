//! The HTML report's building blocks: a section's opening, its source line,
//! notes, and tables whose every cell passes through the one escape.

use std::fmt::Write;

use super::escape::push;
use crate::report::gather::Part;
use crate::report::sections::{self as words, Section};

pub fn open_section(out: &mut String, section: Section) {
    let _ = writeln!(
        out,
        "<section id=\"{}\"><h2>{}</h2>",
        section.id, section.title
    );
}

pub fn source<T>(out: &mut String, part: &Part<T>) {
    let class = if part.value().is_some() {
        "source"
    } else {
        "missing"
    };
    let _ = write!(out, "<p class=\"{class}\">");
    push(out, &words::source_line(part));
    out.push_str("</p>\n");
}

pub fn note(out: &mut String, text: &str) {
    out.push_str("<p class=\"note\">");
    push(out, text);
    out.push_str("</p>\n");
}

/// `<table>` with its header row; `numeric` columns are right-aligned.
pub fn table_head(out: &mut String, columns: &[(&str, bool)]) {
    out.push_str("<table><thead><tr>");
    for (title, numeric) in columns {
        let class = if *numeric { " class=\"n\"" } else { "" };
        let _ = write!(out, "<th{class}>{title}</th>");
    }
    out.push_str("</tr></thead><tbody>\n");
}

pub fn table_end(out: &mut String) {
    out.push_str("</tbody></table>\n");
}

pub fn cell(out: &mut String, value: &str) {
    out.push_str("<td>");
    push(out, value);
    out.push_str("</td>");
}

pub fn num(out: &mut String, value: impl std::fmt::Display) {
    let _ = write!(out, "<td class=\"n\">{value}</td>");
}

/// A project as a cell: its name (or "(no name)") and its id.
pub fn project_cell(out: &mut String, name: Option<&str>, id: &str) {
    out.push_str("<td>");
    match name {
        Some(name) => push(out, name),
        None => out.push_str("<em>(no name)</em>"),
    }
    out.push_str("<br><small>");
    push(out, id);
    out.push_str("</small></td>");
}
