//! `:report`: the report of the workspace, scoped to the inventory's current
//! filters, written into the export directory (`src/report` gathers and
//! writes it; the history is read on a blocking thread).

use crate::report::{ReportError, ReportRequest, Written};
use crate::tui::effect::ErrorInfo;
use crate::tui::request::Operation;
use crate::tui::services::Services;

/// Write the report `request` asks for.
#[derive(Debug, Clone, PartialEq)]
pub struct WriteReport {
    pub request: ReportRequest,
}

impl Operation for WriteReport {
    type Output = Written;

    async fn run(self, services: &Services) -> Result<Written, ErrorInfo> {
        let failed = |error: ReportError| match error {
            ReportError::Api(error) => services.api_failure(&error),
            other => services.local_failure(format!("report: {other}")),
        };
        let mut request = self.request;
        request.live.base_url = services.client.base_url().to_owned();
        request.live.generated_by = services
            .history
            .as_ref()
            .and_then(|door| door.history.config.reviewer_name());
        let clock = &services.clock;
        let live = crate::report::gather_live(&services.client, &request, || clock.now())
            .await
            .map_err(failed)?;
        let location = services
            .history
            .as_ref()
            .map(|door| door.history.location.clone());
        let now = clock.now();
        let written = tokio::task::spawn_blocking(move || {
            let store = match &location {
                Some(location) => {
                    crate::history::Store::open_at(location).map_err(|error| error.to_string())
                }
                None => Err("no review history is open in this dashboard".to_owned()),
            };
            crate::report::finish(live, store.as_ref().map_err(Clone::clone), &request, now)
        })
        .await
        .map_err(|error| services.local_failure(format!("report: {error}")))?;
        written.map_err(failed)
    }
}
