//! The executor of a context without contexts to switch to (the demo, tests):
//! its [`Services`]; and the requests not yet typed, run as one operation.

use super::app::ClientNotice;
use super::effect::{ErrorInfo, Gate, Reply, Request};
use super::request::Operation;
use super::services::{Executor, Services};
use crate::api::model::{ErrorType, PublishRequest};
use crate::api::{ApiError, Client, ClientEvent, PageParams};
use crate::clock::Clock;

#[derive(Clone)]
pub struct ClientExecutor {
    pub client: Client,
    pub workspace_id: String,
    pub clock: Clock,
}

impl Executor for ClientExecutor {
    fn services(&self) -> Services {
        Services {
            client: self.client.clone(),
            workspace_id: self.workspace_id.clone(),
            clock: self.clock.clone(),
            history: None,
            contexts: None,
        }
    }
}

impl Operation for Request {
    type Output = Reply;

    async fn run(self, services: &Services) -> Result<Reply, ErrorInfo> {
        let request = self;
        let this = services;
        let ws = this.workspace_id.as_str();
        let result = match request {
            Request::InventoryPage { params, cursor } => boxed(
                this.client
                    .list_inventory(ws, &params, cursor.as_deref())
                    .await,
                Reply::InventoryPage,
            ),
            Request::ExportRows { rows, path } => {
                return crate::tui::export::write(&this.client, ws, &rows, &path)
                    .await
                    .map(|count| Reply::Exported { path, count })
                    .map_err(|error| match error {
                        crate::tui::export::ExportError::Api(error) => this.api_failure(&error),
                        other => this.local_failure(other.to_string()),
                    });
            }
            Request::ExportInventory {
                params,
                format,
                path,
                loaded,
                next_cursor,
            } => {
                let export = super::ops::ExportInventory {
                    params,
                    format,
                    path,
                    loaded,
                    next_cursor,
                };
                return export.run(this).await.map(|done| Reply::Exported {
                    path: done.path,
                    count: done.count,
                });
            }
            Request::GetProject { project_id } => {
                boxed(this.client.get_project(&project_id).await, Reply::Project)
            }
            Request::UpdateProject { project_id, update } => boxed(
                this.client.update_project(&project_id, &update).await,
                Reply::Project,
            ),
            // The client resolves a delete of unknown outcome (a 404 on its retry
            // counts as success), as DESIGN.md asks.
            Request::DeleteProject { project_id } => this
                .client
                .delete_project(&project_id)
                .await
                .map(|()| Reply::ProjectDeleted),
            Request::Unpublish { project_id } => this
                .client
                .unpublish_project(&project_id)
                .await
                .map(|()| Reply::Unpublished),
            Request::Publish {
                project_id,
                audience,
            } => boxed(
                this.client
                    .publish_project(&project_id, &PublishRequest { audience })
                    .await,
                Reply::Deployment,
            ),
            Request::UpdatePublishSettings {
                project_id,
                settings,
            } => boxed(
                this.client
                    .update_publish_settings(&project_id, &settings)
                    .await,
                Reply::AudienceSettings,
            ),
            Request::CreateEmbedUrl {
                project_id,
                parent_origin,
            } => boxed(
                this.client
                    .create_embed_url(&project_id, &parent_origin)
                    .await,
                Reply::EmbedUrl,
            ),
            Request::GetDeployment {
                project_id,
                deployment_id,
            } => boxed(
                this.client
                    .get_deployment(&project_id, &deployment_id)
                    .await,
                Reply::Deployment,
            ),
            Request::SecurityScans { project_id } => boxed(
                this.client
                    .list_security_scans(&project_id, &PageParams { limit: Some(100) }, None)
                    .await,
                Reply::SecurityScans,
            ),
            Request::ScanFindingsPage {
                project_id,
                scan_id,
                cursor,
                limit,
            } => boxed(
                this.client
                    .list_scan_findings(
                        &project_id,
                        &scan_id,
                        &PageParams { limit: Some(limit) },
                        cursor.as_deref(),
                    )
                    .await,
                Reply::ScanFindingsPage,
            ),
            Request::SaveView {
                path,
                context,
                name,
                view,
            } => {
                return crate::config::write_view(&path, &context, &name, view.as_ref())
                    .map(|()| Reply::ViewSaved {
                        path,
                        name,
                        saved: view.is_some(),
                    })
                    .map_err(|error| this.local_failure(error.to_string()));
            }
            // Answered from the history file, when one is open.
            Request::History(request) => {
                use crate::tui::review::executor::SnapshotOutcome;
                use crate::tui::review::ops;
                use crate::tui::review::request::{HistoryReply as H, HistoryRequest as R};
                let reply = match request {
                    R::Changes { between } => ops::DiffSnapshots { between }
                        .run(this)
                        .await
                        .map(|set| H::Changes(Box::new(set))),
                    R::Snapshots => ops::ListSnapshots.run(this).await.map(H::Snapshots),
                    R::Marks => ops::ListMarks.run(this).await.map(H::Marks),
                    R::Mark { projects, note } => ops::MarkReviewed { projects, note }
                        .run(this)
                        .await
                        .map(H::Marked),
                    R::DataVersion => ops::DataVersion.run(this).await.map(H::DataVersion),
                    R::TakeSnapshot => {
                        ops::TakeSnapshot
                            .run(this)
                            .await
                            .map(|outcome| match outcome {
                                SnapshotOutcome::Taken(info) => H::SnapshotTaken(info),
                                SnapshotOutcome::Skipped(reason) => H::SnapshotSkipped(reason),
                            })
                    }
                    R::ProjectState { project_id } => ops::LatestProjectState { project_id }
                        .run(this)
                        .await
                        .map(|state| H::ProjectState(state.map(Box::new))),
                };
                return reply.map(|reply| Reply::History(Box::new(reply)));
            }
        };
        result.map_err(|error| error_info(&error, &this.clock))
    }
}

/// A reply that carries the client's answer boxed, as `Reply` keeps its
/// variants small.
fn boxed<T>(result: Result<T, ApiError>, reply: fn(Box<T>) -> Reply) -> Result<Reply, ApiError> {
    result.map(|value| reply(Box::new(value)))
}

/// The error as the TUI shows it, with what a gate needs spelled out.
pub fn error_info(error: &ApiError, clock: &Clock) -> ErrorInfo {
    let kind = error.kind();
    let gate = if let Some(plan) = error.required_plan() {
        Some(Gate::Plan(plan.to_owned()))
    } else if !error.required_features().is_empty() {
        Some(Gate::Features(error.required_features()))
    } else if !error.required_scopes().is_empty() {
        Some(Gate::Scopes(error.required_scopes()))
    } else {
        match kind {
            Some(ErrorType::PiiLabelsNotFound) => {
                Some(Gate::FeatureOff("personal-data detection".into()))
            }
            Some(ErrorType::AnalyticsNotFound) => Some(Gate::FeatureOff(
                "no analytics: the project was never published".into(),
            )),
            Some(ErrorType::SecurityCriticalFindings) => {
                Some(Gate::BlockingFindings(error.finding_refs()))
            }
            Some(ErrorType::InvalidRequest)
                if error.response().is_some_and(|r| !r.errors.is_empty()) =>
            {
                error.response().map(|r| Gate::Fields(r.errors.clone()))
            }
            _ => None,
        }
    };
    ErrorInfo {
        status: error.status(),
        kind: kind.map(|k| k.as_str().to_owned()),
        detail: error.response().and_then(|r| r.detail.clone()),
        request_id: error.request_id().map(str::to_owned),
        summary: error.to_string(),
        gate,
        at: clock.now(),
    }
}

/// What the status line should say about a client event, if anything.
pub fn notice(event: &ClientEvent) -> Option<ClientNotice> {
    match event {
        ClientEvent::RateLimit(state) => Some(ClientNotice::RateLimit {
            remaining: state.remaining,
            limit: state.limit,
        }),
        ClientEvent::Retrying { reason, delay, .. } => Some(ClientNotice::Retrying {
            reason: reason.to_string(),
            delay_ms: delay.as_millis() as u64,
        }),
        ClientEvent::Paced { wait, .. } => Some(ClientNotice::Paced {
            wait_ms: wait.as_millis() as u64,
        }),
        ClientEvent::RetryBudgetExhausted { method, path, .. } => {
            Some(ClientNotice::RetryBudgetSpent {
                request: format!("{method} {}", crate::text::sanitize_line(path)),
            })
        }
        ClientEvent::RequestDone {
            status: Some(status),
            ..
        } if *status < 500 && *status != 429 => Some(ClientNotice::Recovered),
        _ => None,
    }
}
