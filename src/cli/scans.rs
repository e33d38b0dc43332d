//! `vantage scans list|get|findings`: a project's security scans and a scan's
//! findings, every `--format`.

use std::future::ready;

use clap::{Args, Subcommand};
use futures::StreamExt;

use super::exit::CliError;
use super::options::{ListArgs, OutputArgs, wire};
use super::print::write_list;
use super::read::{show_one, start_progress};
use crate::api::model::{FindingLevel, FindingStatus, FindingsFilter};
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
    /// What `--level` and `--status` keep (empty: any).
    pub fn filter(&self) -> FindingsFilter {
        FindingsFilter {
            levels: self.level.clone(),
            statuses: self.status.clone(),
            search: String::new(),
        }
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
            let filter = args.filter();
            let max = args.list.max;
            let stream = session
                .client
                .scan_findings_stream(&args.project_id, &args.scan_id, params)
                .filter(move |item| ready(item.as_ref().map_or(true, |f| filter.keeps(f))));
            write_list(stream, output, max, &progress).await
        }
    }
}
