//! `vantage report`: one self-contained file for people (HTML, Markdown) or
//! machines (OCSF, DefectDojo), written from the data gathered once
//! (`gather`): live from the service, and from the review history.

pub mod gather;
pub mod html;
pub mod markdown;

use serde::Serialize;

pub use gather::{Attention, AttentionReason, Origin, Part, ReportData, Source, attention_reasons};

/// The formats a report is written in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, clap::ValueEnum)]
#[serde(rename_all = "snake_case")]
pub enum ReportFormat {
    /// One self-contained HTML page (inline SVG charts, strict CSP, print stylesheet).
    Html,
    /// The same sections as Markdown tables, for a ticket or a wiki.
    Markdown,
    /// OCSF 1.x Detection Findings (class_uid 2004), JSON lines.
    Ocsf,
    /// DefectDojo's Generic Findings Import JSON.
    Defectdojo,
}

impl ReportFormat {
    /// The default file's extension.
    pub fn extension(self) -> &'static str {
        match self {
            Self::Html => "html",
            Self::Markdown => "md",
            Self::Ocsf => "jsonl",
            Self::Defectdojo => "json",
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Self::Html => "html",
            Self::Markdown => "markdown",
            Self::Ocsf => "ocsf",
            Self::Defectdojo => "defectdojo",
        }
    }
}

/// What can stop a report from being written.
#[derive(Debug, thiserror::Error)]
pub enum ReportError {
    #[error("--format {0} is not available yet in this build")]
    NotYet(&'static str),
}

/// The report in `format`, as bytes.
pub fn render(data: &ReportData, format: ReportFormat) -> Result<Vec<u8>, ReportError> {
    match format {
        ReportFormat::Html => Ok(html::render(data).into_bytes()),
        ReportFormat::Markdown => Ok(markdown::render(data).into_bytes()),
        ReportFormat::Ocsf | ReportFormat::Defectdojo => Err(ReportError::NotYet(format.name())),
    }
}

/// `vantage-report-WORKSPACE-DATE.EXT`: the default file name, the
/// workspace id kept to characters safe in a file name.
pub fn default_file_name(workspace_id: &str, date: time::Date, format: ReportFormat) -> String {
    let workspace: String = workspace_id
        .chars()
        .map(|ch| {
            if ch.is_ascii_alphanumeric() || ch == '-' || ch == '_' {
                ch
            } else {
                '_'
            }
        })
        .take(64)
        .collect();
    format!(
        "vantage-report-{workspace}-{}.{}",
        crate::timefmt::date(date),
        format.extension()
    )
}
