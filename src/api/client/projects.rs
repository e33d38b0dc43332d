//! The project operations. Mutations end in the state they verified:
//!
//! - A project delete is retried like a read; a 404 `project_not_found` after an
//!   attempt of unknown outcome means our delete went through.
//! - A PATCH is not repeated blindly: on an unknown outcome the resource is read
//!   back, and the PATCH is sent once more only if the change is not there.
//! - A publish is never repeated: an unknown outcome goes back to the caller.
//! - Whenever a delete, an unpublish or a PATCH fails with an error the transport
//!   retries (its retries ran out, or the outcome is unknown), the goal state is
//!   read back: a project that is gone, one that is offline, fields that match.
//!   The goal state holding is success; otherwise the caller gets the error.

use std::future::Future;
use std::time::Duration;

use bytes::Bytes;
use reqwest::Method;
use serde::de::DeserializeOwned;

use super::super::error::ApiError;
use super::super::model::{
    AudienceSettings, AudienceTarget, Deployment, EmbedUrl, EmbedUrlRequest, ErrorType, Project,
    ProjectUpdate, PublishAudience, PublishRequest, PublishSettings,
};
use super::super::page::Query;
use super::super::paths;
use super::super::transport::{Call, Idempotency};
use super::{Client, MIN_POLL_INTERVAL, PollPolicy, json_body};

impl Client {
    /// `GET /v1/projects/{id}`.
    pub async fn get_project(&self, project_id: &str) -> Result<Project, ApiError> {
        self.get(paths::project(project_id, "")?, Query::default())
            .await
    }

    /// `PATCH /v1/projects/{id}`: rename, visibility. Reconciled (see the module
    /// documentation): the name and visibility asked for are compared with the
    /// project read back.
    pub async fn update_project(
        &self,
        project_id: &str,
        update: &ProjectUpdate,
    ) -> Result<Project, ApiError> {
        self.patch_project(project_id, "", json_body(update), |project| {
            update
                .name
                .as_ref()
                .is_none_or(|name| project.name.as_ref() == Some(name))
                && update
                    .visibility
                    .as_ref()
                    .is_none_or(|visibility| project.visibility.as_ref() == Some(visibility))
        })
        .await
    }

    /// `DELETE /v1/projects/{id}`. Retried like a read; a 404
    /// `project_not_found` after an attempt of unknown outcome, or on the read
    /// back after the retries ran out, means the project is gone: success. A
    /// plain 404 stays an error (the project never existed, as far as we know).
    pub async fn delete_project(&self, project_id: &str) -> Result<(), ApiError> {
        let call = Call::with_body(
            Method::DELETE,
            paths::project(project_id, "")?,
            None,
            Idempotency::Idempotent,
        );
        match self.transport.execute(&call, self.lane).await {
            Ok(_) => Ok(()),
            Err(ApiError::Api(response))
                if response.kind == ErrorType::ProjectNotFound
                    && response.after_unknown_outcome =>
            {
                tracing::info!(
                    project_id,
                    "delete of unknown outcome confirmed: the project is gone"
                );
                Ok(())
            }
            Err(error) if error.is_transient() => {
                self.verified(&call, error, || async {
                    match self.get_project(project_id).await {
                        Ok(_) => Ok(None),
                        Err(gone) if gone.kind() == Some(&ErrorType::ProjectNotFound) => {
                            Ok(Some(()))
                        }
                        Err(other) => Err(other),
                    }
                })
                .await
            }
            Err(error) => Err(error),
        }
    }

    /// `DELETE /v1/projects/{id}/publish`: idempotent, 204 even when offline.
    /// When the retries run out (or the outcome is unknown), `is_published` is
    /// read back: an offline project is success.
    pub async fn unpublish_project(&self, project_id: &str) -> Result<(), ApiError> {
        let call = Call::with_body(
            Method::DELETE,
            paths::project(project_id, "/publish")?,
            None,
            Idempotency::Idempotent,
        );
        match self.transport.execute(&call, self.lane).await {
            Ok(_) => Ok(()),
            Err(error) if error.is_transient() => {
                self.verified(&call, error, || async {
                    let project = self.get_project(project_id).await?;
                    Ok((!project.is_published).then_some(()))
                })
                .await
            }
            Err(error) => Err(error),
        }
    }

    /// `POST /v1/projects/{id}/publish`. Never repeated once it may have reached
    /// the server: an unknown outcome comes back as an error
    /// ([`ApiError::is_unknown_outcome`]).
    pub async fn publish_project(
        &self,
        project_id: &str,
        request: &PublishRequest,
    ) -> Result<Deployment, ApiError> {
        let call = Call::with_body(
            Method::POST,
            paths::project(project_id, "/publish")?,
            Some(json_body(request)),
            Idempotency::NotIdempotent,
        );
        self.transport.execute(&call, self.lane).await?.decode()
    }

    /// `GET /v1/projects/{id}/publish/{deployment_id}`.
    pub async fn get_deployment(
        &self,
        project_id: &str,
        deployment_id: &str,
    ) -> Result<Deployment, ApiError> {
        self.get(
            paths::deployment(project_id, deployment_id)?,
            Query::default(),
        )
        .await
    }

    /// Polls a deployment while it is `running`, waiting `policy.first`
    /// before the first poll and backing off toward `policy.max`; never more
    /// often than [`MIN_POLL_INTERVAL`]. It ends on any other status, one it
    /// does not know included (waiting on could last forever), and when
    /// `policy.timeout` has passed, with the deployment as last read: the
    /// caller tells a finished one by its status.
    pub async fn wait_for_deployment(
        &self,
        project_id: &str,
        deployment_id: &str,
        policy: PollPolicy,
    ) -> Result<Deployment, ApiError> {
        let sleeper = &self.transport.sleeper;
        let deadline = sleeper.now() + policy.timeout;
        let mut interval = policy.first_interval();
        loop {
            // The last poll lands on the deadline, or 2 s after the one
            // before it when that is later (the contract's poll interval).
            let left = Duration::try_from(deadline - sleeper.now()).unwrap_or_default();
            let wait = interval.min(left.max(MIN_POLL_INTERVAL));
            sleeper.sleep(wait).await;
            let deployment = self.get_deployment(project_id, deployment_id).await?;
            if deployment.status.is_terminal() || sleeper.now() >= deadline {
                return Ok(deployment);
            }
            tracing::debug!(deployment_id, status = %deployment.status, "deployment not finished");
            interval = policy.next_interval(interval);
        }
    }

    /// `PATCH /v1/projects/{id}/publish`: answers the resolved settings
    /// `{audience, audience_targets}`, not the project (DESIGN.md). Reconciled
    /// like [`Client::update_project`]: on an unknown outcome the project is read
    /// back and its audience and targets compared with the ones asked for. The
    /// audience shows only while published, so for an offline project the
    /// (repeatable) PATCH is sent once more.
    pub async fn update_publish_settings(
        &self,
        project_id: &str,
        settings: &PublishSettings,
    ) -> Result<AudienceSettings, ApiError> {
        let call = Call::with_body(
            Method::PATCH,
            paths::project(project_id, "/publish")?,
            Some(json_body(settings)),
            Idempotency::NotIdempotent,
        );
        self.reconciled(&call, || async {
            let project = self.get_project(project_id).await?;
            let shown = AudienceSettings {
                audience: project.publish_audience,
                audience_targets: project.publish_audience_targets,
            };
            Ok(settings_applied(settings, &shown).then_some(shown))
        })
        .await
    }

    /// `POST /v1/projects/{id}/embed-url` (scope `projects:write`, as the
    /// reference says). It changes no project, so it is retried like a read.
    pub async fn create_embed_url(
        &self,
        project_id: &str,
        parent_origin: &str,
    ) -> Result<EmbedUrl, ApiError> {
        let body = EmbedUrlRequest {
            parent_origin: parent_origin.to_owned(),
        };
        let call = Call::with_body(
            Method::POST,
            paths::project(project_id, "/embed-url")?,
            Some(json_body(&body)),
            Idempotency::Safe,
        );
        self.transport.execute(&call, self.lane).await?.decode()
    }

    /// A PATCH of `body` to the project's path + `rest`, reconciled against the
    /// project read back: `applied` says whether the change is there.
    async fn patch_project(
        &self,
        project_id: &str,
        rest: &str,
        body: Bytes,
        applied: impl Fn(&Project) -> bool,
    ) -> Result<Project, ApiError> {
        let call = Call::with_body(
            Method::PATCH,
            paths::project(project_id, rest)?,
            Some(body),
            Idempotency::NotIdempotent,
        );
        self.reconciled(&call, || async {
            let project = self.get_project(project_id).await?;
            Ok(applied(&project).then_some(project))
        })
        .await
    }

    /// Sends a non-idempotent `call`. When it fails with an error the transport
    /// retries, asks `check` whether the change is there (`Some(resource)`).
    /// If it is not and the outcome was unknown, the call is sent once more
    /// (then checked again if that fails the same way).
    async fn reconciled<T, C, CFut>(&self, call: &Call, check: C) -> Result<T, ApiError>
    where
        T: DeserializeOwned,
        C: Fn() -> CFut,
        CFut: Future<Output = Result<Option<T>, ApiError>>,
    {
        let first = match self.transport.execute(call, self.lane).await {
            Ok(answer) => return answer.decode(),
            Err(error) if error.is_transient() => error,
            Err(error) => return Err(error),
        };
        tracing::warn!(method = %call.method, path = %call.path, "{first}; reading the resource back");
        match check().await {
            Ok(Some(applied)) => return Ok(applied),
            Ok(None) if first.is_unknown_outcome() => {}
            Ok(None) => return Err(first),
            Err(check_error) => {
                tracing::warn!("cannot read the resource back: {check_error}");
                return Err(first);
            }
        }
        tracing::info!(method = %call.method, path = %call.path, "change not applied; sending it once more");
        match self.transport.execute(call, self.lane).await {
            Ok(answer) => answer.decode(),
            Err(error) if error.is_transient() => self.verified(call, error, check).await,
            Err(error) => Err(error),
        }
    }

    /// After `error` (retries ran out, or the outcome is unknown), reads the goal
    /// state back with `check`: when it holds, that is the answer; otherwise
    /// (or when it cannot be read) the caller gets `error`.
    async fn verified<T, C, CFut>(
        &self,
        call: &Call,
        error: ApiError,
        check: C,
    ) -> Result<T, ApiError>
    where
        C: FnOnce() -> CFut,
        CFut: Future<Output = Result<Option<T>, ApiError>>,
    {
        tracing::warn!(method = %call.method, path = %call.path, "{error}; reading the goal state back");
        match check().await {
            Ok(Some(done)) => {
                tracing::info!(method = %call.method, path = %call.path, "the goal state holds");
                Ok(done)
            }
            Ok(None) => Err(error),
            Err(check_error) => {
                tracing::warn!("cannot read the goal state back: {check_error}");
                Err(error)
            }
        }
    }
}

/// Whether `resolved` (an answer, or what the project shows) holds the
/// settings asked for: the same audience, and for `custom` the same targets.
pub fn settings_applied(asked: &PublishSettings, resolved: &AudienceSettings) -> bool {
    resolved.audience.as_ref() == Some(&asked.audience)
        && (asked.audience != PublishAudience::Custom
            || same_targets(&resolved.audience_targets, &asked.audience_targets))
}

fn same_targets(a: &[AudienceTarget], b: &[AudienceTarget]) -> bool {
    let key = |t: &AudienceTarget| (t.kind.clone(), t.id.clone());
    let mut a: Vec<_> = a.iter().map(key).collect();
    let mut b: Vec<_> = b.iter().map(key).collect();
    a.sort();
    b.sort();
    a == b
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn targets_compare_as_sets() {
        let t = |id: &str| AudienceTarget {
            id: id.into(),
            kind: "group".into(),
        };
        assert!(same_targets(&[t("a"), t("b")], &[t("b"), t("a")]));
        assert!(!same_targets(&[t("a")], &[t("a"), t("b")]));
    }
}
