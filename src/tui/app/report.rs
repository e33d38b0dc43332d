//! `:report` in the palette: the workspace's report (HTML), scoped to the
//! inventory's current search and filters, written into the export
//! directory; the status line says where it went, or why not.

use super::App;
use crate::report::gather::LiveOptions;
use crate::report::{ReportFormat, ReportRequest, Written};
use crate::tui::effect::{Cx, ErrorInfo, Slot, Turn};
use crate::tui::ops::WriteReport;

/// The report in flight.
pub const REPORT: Slot = Slot::new("app", "report");

/// The report written, or why not.
#[derive(Debug)]
pub struct ReportWritten(pub Result<Written, ErrorInfo>);

/// Projects whose latest scan and personal data a dashboard's report reads
/// in detail (the command's default).
const DETAIL_PROJECTS: usize = 25;
/// Members a dashboard's report reads for name and e-mail.
const MEMBER_READS: usize = 200;

impl App {
    /// Asks for the report of the inventory's current view.
    pub(super) fn write_report(&mut self, turn: &mut Turn<'_>) {
        let workspace = self.identity.workspace_id.clone();
        let filters = self.inventory.filter_args();
        let words = filters.to_words();
        let path = self
            .settings
            .export_dir
            .join(crate::report::default_file_name(
                &workspace,
                turn.now.date(),
                ReportFormat::Html,
            ));
        let request = ReportRequest {
            workspace_id: workspace,
            format: ReportFormat::Html,
            path,
            live: LiveOptions {
                // The operation fills in the client's address and the reviewer.
                base_url: String::new(),
                params: self.inventory.params(),
                scope: (!words.is_empty()).then(|| crate::flags::join_words(&words)),
                detail_projects: DETAIL_PROJECTS,
                member_reads: MEMBER_READS,
                generated_by: None,
            },
            since: None,
        };
        let mut cx = turn.cx(&mut self.next_token);
        let token = cx.request(REPORT, WriteReport { request }, ReportWritten);
        self.report_pending = Some(token);
        cx.notify("writing the report of this view…".to_owned());
    }

    /// The report's answer: where it went, or why it failed.
    pub(super) fn report_written(
        &mut self,
        token: u64,
        ReportWritten(written): ReportWritten,
        cx: &mut Cx,
    ) -> bool {
        if self
            .report_pending
            .take_if(|pending| *pending == token)
            .is_none()
        {
            return false;
        }
        match written {
            Ok(written) if written.missing.is_empty() => cx.notify(format!(
                "report of {} projects written to {}",
                written.projects,
                written.path.display()
            )),
            Ok(written) => cx.notify(format!(
                "report of {} projects written to {} ({} parts left out; the report says why)",
                written.projects,
                written.path.display(),
                written.missing.len()
            )),
            Err(error) => cx.notify(format!("report failed: {}", error.summary)),
        }
        true
    }
}
