//! `vantage report`: one self-contained file for an auditor or a ticket,
//! from the service (live) and the review history; `src/report` gathers and
//! writes it, this is the command's side (flags, session, history, the line
//! that says where it went).

use std::path::PathBuf;

use clap::Args;
use time::OffsetDateTime;

use super::exit::CliError;
use super::workspaces::resolve_workspace;
use crate::flags::InventoryFilterArgs;
use crate::history::SnapshotRef;
use crate::report::gather::LiveOptions;
use crate::report::{ReportError, ReportFormat, ReportRequest};
use crate::session::{GlobalArgs, Session};

#[derive(Args, Debug, Clone)]
pub struct ReportArgs {
    /// What to write: html (for people), markdown (a ticket, a wiki), ocsf or defectdojo (for machines).
    #[arg(long, value_enum, default_value = "html")]
    pub format: ReportFormat,
    /// Where to write it [default: vantage-report-WORKSPACE-DATE.html (or .md) here]; 0600, never through a link.
    #[arg(long, short = 'o', value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// The snapshot "what changed" starts from: `last` (the one before the newest), a date or a snapshot id
    /// [default: the last snapshot before the newest that someone reviewed, else the previous one].
    #[arg(long, value_name = "last|DATE|SNAPSHOT_ID", value_parser = super::history::args::parse_since)]
    pub since: Option<SnapshotRef>,
    /// Projects needing attention whose latest scan and personal-data findings are read in detail
    /// (two or more requests each; the rest are counted from the inventory).
    #[arg(long, value_name = "N", default_value_t = 25)]
    pub detail_projects: usize,
    /// Members read one by one for name and e-mail (one request each).
    #[arg(long, value_name = "N", default_value_t = 200)]
    pub member_reads: usize,
    /// The report's scope: the inventory's filters, as `vantage inventory` takes them.
    #[command(flatten)]
    pub filters: InventoryFilterArgs,
}

impl From<ReportError> for CliError {
    fn from(error: ReportError) -> Self {
        match error {
            ReportError::Api(error) => Self::Api(error),
            ReportError::History(error) => Self::History(error),
            ReportError::Write { .. } => Self::WriteFailed(error.to_string()),
        }
    }
}

pub async fn run(session: &Session, args: ReportArgs, global: &GlobalArgs) -> Result<(), CliError> {
    let workspace = resolve_workspace(session).await?;
    let now = OffsetDateTime::now_utc;
    let path = args.output.clone().unwrap_or_else(|| {
        PathBuf::from(crate::report::default_file_name(
            &workspace,
            now().date(),
            args.format,
        ))
    });
    let config = super::history::history_config(&session.config, &session.context, global)?;
    // A history that cannot be opened leaves the live report standing.
    let store = config
        .location()
        .map_err(|error| error.to_string())
        .and_then(|location| {
            super::history::open_store(&location).map_err(|error| error.to_string())
        });
    let words = args.filters.to_words();
    let request = ReportRequest {
        workspace_id: workspace,
        format: args.format,
        path,
        live: LiveOptions {
            base_url: session.client.base_url().to_owned(),
            params: args.filters.params(None),
            scope: (!words.is_empty()).then(|| crate::flags::join_words(&words)),
            detail_projects: args.detail_projects,
            member_reads: args.member_reads,
            generated_by: config.reviewer_name(),
        },
        since: args.since,
    };
    let started = std::time::Instant::now();
    let live = crate::report::gather_live(&session.client, &request, now).await?;
    let fetch = started.elapsed();
    let written =
        crate::report::finish(live, store.as_ref().map_err(Clone::clone), &request, now())?;
    for missing in &written.missing {
        crate::stderr::line(format_args!("note: not in the report: {missing}"));
    }
    crate::stderr::line(format_args!(
        "report written to {} ({} projects, {} bytes; read live in {:.1} s, the rest in {:.2} s)",
        written.path.display(),
        written.projects,
        written.bytes,
        fetch.as_secs_f64(),
        written.beyond_fetch.as_secs_f64()
    ));
    Ok(())
}
