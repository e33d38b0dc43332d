//! `vantage scans list|get|findings`: a project's security scans and a scan's
//! findings, every `--format`.

use std::future::ready;

use clap::{Args, Subcommand};
use futures::StreamExt;

use super::exit::CliError;
use super::options::{ListArgs, OutputArgs, wire};
use super::print::{Field, Row, write_list};
use super::read::{show_one, start_progress};
use super::views::when;
use crate::api::model::{FindingLevel, FindingStatus, ScanFinding, SecurityScan};
use crate::session::Session;

#[derive(Subcommand, Debug, Clone)]
pub enum ScansCommand {
    /// A project's security scans, newest first.
    List {
        project_id: String,
        #[command(flatten)]
        list: ListArgs,
    },
    /// One scan: status, commit, start, finish and scanners.
    Get {
        project_id: String,
        scan_id: String,
        #[command(flatten)]
        output: OutputArgs,
    },
    /// A scan's findings, every page; fixed and ignored ones included.
    Findings(FindingsArgs),
}

#[derive(Args, Debug, Clone)]
pub struct FindingsArgs {
    pub project_id: String,
    pub scan_id: String,
    /// Only findings of these levels. Filtered here, after each page arrives:
    /// the service has no such parameter, so every page is still read.
    #[arg(long, value_name = "LEVEL", value_delimiter = ',', value_parser = wire::<FindingLevel>())]
    pub level: Vec<FindingLevel>,
    /// Only findings in these states. Filtered here, like --level.
    #[arg(long, value_name = "STATUS", value_delimiter = ',', value_parser = wire::<FindingStatus>())]
    pub status: Vec<FindingStatus>,
    #[command(flatten)]
    pub list: ListArgs,
}

impl FindingsArgs {
    /// Whether a finding passes `--level` and `--status` (empty: any).
    pub fn keeps(&self, finding: &ScanFinding) -> bool {
        (self.level.is_empty() || self.level.contains(&finding.level))
            && (self.status.is_empty() || self.status.contains(&finding.status))
    }
}

pub async fn run(session: &Session, command: ScansCommand) -> Result<(), CliError> {
    match command {
        ScansCommand::List { project_id, list } => {
            let output = list.output.resolve();
            let (progress, _task) = start_progress(session, "security scans", output);
            let stream = session
                .client
                .security_scans_stream(&project_id, list.page_params());
            write_list(stream, output, list.max, &progress).await
        }
        ScansCommand::Get {
            project_id,
            scan_id,
            output,
        } => {
            let read = session.client.get_security_scan(&project_id, &scan_id);
            show_one(session, "security scan", output.resolve(), read).await
        }
        ScansCommand::Findings(args) => {
            let output = args.list.output.resolve();
            let params = args.list.page_params();
            let (progress, _task) = start_progress(session, "scan findings", output);
            let max = args.list.max;
            let stream = session
                .client
                .scan_findings_stream(&args.project_id, &args.scan_id, params)
                .filter(move |item| ready(item.as_ref().map_or(true, |f| args.keeps(f))));
            write_list(stream, output, max, &progress).await
        }
    }
}

impl Row for SecurityScan {
    const FIELDS: &'static [Field<Self>] = &[
        Field::fixed("ID", |scan| scan.id.clone()),
        Field::fixed("STATUS", |scan| scan.status.to_string()),
        Field::fixed("COMMIT", |scan| {
            let sha = scan.commit_sha.as_deref().unwrap_or_default();
            sha.chars().take(12).collect()
        }),
        Field::fixed("STARTED", |scan| when(scan.started_at)),
        Field::fixed("FINISHED", |scan| when(scan.finished_at)),
        Field::text("SCANNERS", 10, |scan| scan.requested_scanners.join(", ")),
    ];
}

impl Row for ScanFinding {
    const FIELDS: &'static [Field<Self>] = &[
        Field::fixed("ID", |finding| finding.id.clone()),
        Field::fixed("LEVEL", |finding| finding.level.to_string()),
        Field::fixed("STATUS", |finding| finding.status.to_string()),
        Field::fixed("CATEGORY", |finding| finding.category.clone()),
        Field::fixed("SCANNER", |finding| finding.scanner_name.clone()),
        Field::text("NAME", 12, |finding| finding.name.clone()),
        Field::fixed("UPDATED", |finding| when(Some(finding.updated_at))),
    ];
}
