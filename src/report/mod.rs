//! `vantage report`: one self-contained file for people (HTML, Markdown) or
//! machines (OCSF, DefectDojo), written from the data gathered once
//! (`gather`): live from the service, and from the review history.

pub mod gather;
pub mod html;
pub mod machine;
pub mod markdown;
pub mod sections;

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
    #[error(transparent)]
    Api(#[from] crate::api::ApiError),
    #[error(transparent)]
    History(#[from] crate::history::HistoryError),
    #[error("cannot write the report to {path}: {error}")]
    Write { path: String, error: std::io::Error },
}

/// What a report is asked for.
#[derive(Debug, Clone, PartialEq)]
pub struct ReportRequest {
    pub workspace_id: String,
    pub format: ReportFormat,
    pub path: std::path::PathBuf,
    pub live: gather::LiveOptions,
    /// `--since`; `None`: the default rule.
    pub since: Option<crate::history::SnapshotRef>,
}

/// What was written, for the line that says so.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Written {
    pub path: std::path::PathBuf,
    pub bytes: usize,
    pub projects: usize,
    /// Parts left out, with why (said on stderr or the status line too).
    pub missing: Vec<String>,
    /// How long the history's reads, the writing and the file took (the
    /// live reads, paced by the service, are not in it).
    pub beyond_fetch: std::time::Duration,
}

/// The history's part, or why it is missing (a history that cannot be
/// opened leaves the rest of the report standing).
pub type HistoryAccess<'a> = Result<&'a crate::history::Store, String>;

/// Gathers the data (live, then the history), writes the report to
/// `request.path` (0600, never through a link), and says what it wrote.
pub async fn produce(
    client: &crate::api::Client,
    history: HistoryAccess<'_>,
    request: &ReportRequest,
    now: impl Fn() -> time::OffsetDateTime + Copy,
) -> Result<Written, ReportError> {
    let live = gather_live(client, request, now).await?;
    finish(live, history, request, now())
}

/// The live reads of [`produce`] (async: the service).
pub async fn gather_live(
    client: &crate::api::Client,
    request: &ReportRequest,
    now: impl Fn() -> time::OffsetDateTime + Copy,
) -> Result<gather::Live, ReportError> {
    Ok(gather::gather_live(client, &request.workspace_id, &request.live, now).await?)
}

/// The rest of [`produce`] (blocking: the history's reads, the file).
pub fn finish(
    live: gather::Live,
    history: HistoryAccess<'_>,
    request: &ReportRequest,
    now: time::OffsetDateTime,
) -> Result<Written, ReportError> {
    let started = std::time::Instant::now();
    let history = match history {
        Ok(store) => gather::gather_history(
            &gather::HistoryInput {
                store,
                workspace_id: &request.workspace_id,
                since: request.since.clone(),
            },
            now,
        )?,
        Err(reason) => Part::missing(reason),
    };
    let data = ReportData::assemble(live, history);
    let bytes = render(&data, request.format)?;
    save(&request.path, &bytes)?;
    Ok(Written {
        path: request.path.clone(),
        bytes: bytes.len(),
        projects: data.live.inventory.value().map_or(0, |i| i.items.len()),
        missing: data.missing_parts(),
        beyond_fetch: started.elapsed(),
    })
}

/// Writes `bytes` to `path` as every export does: a link planted there is
/// refused; the file is written beside it (0600) and renamed over it.
pub fn save(path: &std::path::Path, bytes: &[u8]) -> Result<(), ReportError> {
    use std::io::Write as _;
    let failed = |error| ReportError::Write {
        path: path.display().to_string(),
        error,
    };
    if std::fs::symlink_metadata(path).is_ok_and(|meta| meta.file_type().is_symlink()) {
        return Err(failed(crate::safe_file::link_refused(path)));
    }
    let mut file = crate::safe_file::Replacement::new(path).map_err(failed)?;
    file.write_all(bytes).map_err(failed)?;
    file.commit().map_err(failed)
}

/// The report in `format`, as bytes.
pub fn render(data: &ReportData, format: ReportFormat) -> Result<Vec<u8>, ReportError> {
    match format {
        ReportFormat::Html => Ok(html::render(data).into_bytes()),
        ReportFormat::Markdown => Ok(markdown::render(data).into_bytes()),
        ReportFormat::Ocsf => machine_bytes(data, machine::ocsf::write),
        ReportFormat::Defectdojo => machine_bytes(data, machine::defectdojo::write),
    }
}

/// A machine format's bytes: the report's findings, listed once (`machine::findings`).
fn machine_bytes(
    data: &ReportData,
    write: fn(&machine::Feed<'_>, &mut dyn std::io::Write) -> std::io::Result<usize>,
) -> Result<Vec<u8>, ReportError> {
    let mut bytes = Vec::new();
    // Writing to memory fails only when memory does.
    write(&machine::Feed::of_report(data), &mut bytes).map_err(|error| ReportError::Write {
        path: "memory".to_owned(),
        error,
    })?;
    Ok(bytes)
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
