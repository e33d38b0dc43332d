//! [`Client`]: one async method per operation of the contract.
//!
//! Mutations whose outcome is unknown are reconciled here, by the rules of
//! DESIGN.md: a project delete retries and takes a 404 after an unknown attempt
//! as success; a PATCH re-reads the resource and retries once only if the change
//! is not there; a publish is never repeated blindly.

use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use futures::Stream;
use reqwest::Method;
use serde::Serialize;
use serde::de::DeserializeOwned;
use time::OffsetDateTime;
use tokio::sync::broadcast;

use super::credentials::{ApiKey, AuthScheme};
use super::error::{ApiError, ConfigError};
use super::events::{ClientEvent, EventCallback};
use super::model::{
    API_VERSION, AudienceTarget, Breakdowns, Deployment, EmbedUrl, EmbedUrlRequest, ErrorType,
    Insights, InventoryItem, InventoryPage, Member, MemberRef, Page, PiiFinding, Project,
    ProjectUpdate, PublishRequest, PublishSettings, Realtime, ReviewPriority, ScanFinding,
    SecurityScan, format_timestamp,
};
use super::page::{InventoryParams, MemberListParams, PageParams, Query, item_stream};
use super::ratelimit::RateLimitState;
use super::retry::RetryPolicy;
use super::sleeper::{Sleeper, TokioSleeper};
use super::transport::{Answer, Call, Idempotency, Transport};

/// Everything a [`Client`] needs. [`ClientConfig::new`] fills in the defaults.
#[derive(Clone)]
pub struct ClientConfig {
    /// e.g. `https://api.example.com`; `http://` only to a loopback host.
    pub base_url: String,
    pub credential: ApiKey,
    pub auth_scheme: AuthScheme,
    /// `Service-Version`; [`API_VERSION`] by default.
    pub api_version: String,
    /// `Service-Beta`, comma-joined; none by default.
    pub betas: Vec<String>,
    pub connect_timeout: Duration,
    /// Per attempt. Above the server's 60 s processing deadline by default, so
    /// a slow operation ends in its 503 rather than in our timeout.
    pub request_timeout: Duration,
    pub retry: RetryPolicy,
    /// Wait for `X-RateLimit-Reset` instead of drawing a 429.
    pub pacing: bool,
    pub user_agent: String,
    pub sleeper: Arc<dyn Sleeper>,
    /// Seeds the backoff jitter (tests); from the time when `None`.
    pub jitter_seed: Option<u64>,
    /// Called with every event, in the task that caused it.
    pub on_event: Option<EventCallback>,
}

impl ClientConfig {
    pub fn new(base_url: impl Into<String>, credential: ApiKey) -> Self {
        Self {
            base_url: base_url.into(),
            credential,
            auth_scheme: AuthScheme::default(),
            api_version: API_VERSION.to_owned(),
            betas: Vec::new(),
            connect_timeout: Duration::from_secs(10),
            request_timeout: Duration::from_secs(75),
            retry: RetryPolicy::default(),
            pacing: true,
            user_agent: format!("vantage/{}", env!("CARGO_PKG_VERSION")),
            sleeper: Arc::new(TokioSleeper),
            jitter_seed: None,
            on_event: None,
        }
    }
}

impl fmt::Debug for ClientConfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ClientConfig")
            .field("base_url", &self.base_url)
            .field("credential", &self.credential)
            .field("auth_scheme", &self.auth_scheme)
            .field("api_version", &self.api_version)
            .field("betas", &self.betas)
            .field("connect_timeout", &self.connect_timeout)
            .field("request_timeout", &self.request_timeout)
            .field("retry", &self.retry)
            .field("pacing", &self.pacing)
            .field("user_agent", &self.user_agent)
            .finish_non_exhaustive()
    }
}

/// How [`Client::wait_for_deployment`] polls: the contract allows at most one
/// poll every 2 s, backing off toward 10 s while the deployment is not terminal.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PollPolicy {
    pub first: Duration,
    pub max: Duration,
    pub factor: f64,
}

impl Default for PollPolicy {
    fn default() -> Self {
        Self {
            first: Duration::from_secs(2),
            max: Duration::from_secs(10),
            factor: 1.5,
        }
    }
}

impl PollPolicy {
    /// The wait before the first poll: `first`, never under [`MIN_POLL_INTERVAL`].
    pub fn first_interval(&self) -> Duration {
        self.first.max(MIN_POLL_INTERVAL)
    }

    /// The wait after a poll that found the deployment running: `current`
    /// grown by `factor`, between [`MIN_POLL_INTERVAL`] and `max`.
    pub fn next_interval(&self, current: Duration) -> Duration {
        let floor = MIN_POLL_INTERVAL;
        current
            .mul_f64(self.factor.max(1.0))
            .clamp(floor, self.max.max(floor))
    }
}

/// The typed client. Cheap to clone; clones share the connection pool, the
/// rate-limit state of the credential, the retry budget and the event stream.
#[derive(Clone, Debug)]
pub struct Client {
    transport: Arc<Transport>,
}

impl Client {
    pub fn new(config: ClientConfig) -> Result<Self, ConfigError> {
        Ok(Self {
            transport: Arc::new(Transport::new(&config)?),
        })
    }

    /// Every [`ClientEvent`] from now on. A subscriber that falls more than 1024
    /// events behind loses the oldest.
    pub fn subscribe(&self) -> broadcast::Receiver<ClientEvent> {
        self.transport.events.subscribe()
    }

    /// The credential's last known `X-RateLimit-*` state.
    pub fn rate_limit_state(&self) -> Option<RateLimitState> {
        self.transport.rate_limit_state()
    }

    // --- Projects -------------------------------------------------------

    /// `GET /v1/projects/{id}`.
    pub async fn get_project(&self, project_id: &str) -> Result<Project, ApiError> {
        self.get(project_path(project_id, "")?, Query::default())
            .await
    }

    /// `PATCH /v1/projects/{id}`. On an unknown outcome the project is read back:
    /// when the change is there it is returned, otherwise the PATCH is sent once more.
    pub async fn update_project(
        &self,
        project_id: &str,
        update: &ProjectUpdate,
    ) -> Result<Project, ApiError> {
        let path = project_path(project_id, "")?;
        let call = Call::with_body(
            Method::PATCH,
            path,
            Some(json_body(update)),
            Idempotency::NotIdempotent,
        );
        self.reconciled(&call, || async {
            let project = self.get_project(project_id).await?;
            let applied = update
                .name
                .as_ref()
                .is_none_or(|name| project.name.as_ref() == Some(name))
                && update
                    .visibility
                    .as_ref()
                    .is_none_or(|visibility| project.visibility.as_ref() == Some(visibility));
            Ok(applied.then_some(project))
        })
        .await
    }

    /// `DELETE /v1/projects/{id}`. Retried like a read; a 404 `project_not_found`
    /// after an attempt of unknown outcome means our delete went through.
    pub async fn delete_project(&self, project_id: &str) -> Result<(), ApiError> {
        let call = Call::with_body(
            Method::DELETE,
            project_path(project_id, "")?,
            None,
            Idempotency::Idempotent,
        );
        match self.transport.execute(&call).await {
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
            Err(error) => Err(error),
        }
    }

    /// `DELETE /v1/projects/{id}/publish`: idempotent, 204 even when offline.
    pub async fn unpublish_project(&self, project_id: &str) -> Result<(), ApiError> {
        let call = Call::with_body(
            Method::DELETE,
            project_path(project_id, "/publish")?,
            None,
            Idempotency::Idempotent,
        );
        self.transport.execute(&call).await.map(drop)
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
            project_path(project_id, "/publish")?,
            Some(json_body(request)),
            Idempotency::NotIdempotent,
        );
        self.transport.execute(&call).await?.decode()
    }

    /// `GET /v1/projects/{id}/publish/{deployment_id}`.
    pub async fn get_deployment(
        &self,
        project_id: &str,
        deployment_id: &str,
    ) -> Result<Deployment, ApiError> {
        let path = project_path(
            project_id,
            &format!("/publish/{}", segment("deployment_id", deployment_id)?),
        )?;
        self.get(path, Query::default()).await
    }

    /// Polls a deployment until it is terminal (`completed`, `error`), waiting
    /// `policy.first` before the first poll and backing off toward `policy.max`;
    /// never more often than [`MIN_POLL_INTERVAL`]. Wrap it in a timeout to bound it.
    pub async fn wait_for_deployment(
        &self,
        project_id: &str,
        deployment_id: &str,
        policy: PollPolicy,
    ) -> Result<Deployment, ApiError> {
        let mut interval = policy.first_interval();
        loop {
            self.transport.sleeper.sleep(interval).await;
            let deployment = self.get_deployment(project_id, deployment_id).await?;
            if deployment.status.is_terminal() {
                return Ok(deployment);
            }
            tracing::debug!(deployment_id, status = %deployment.status, "deployment not finished");
            interval = policy.next_interval(interval);
        }
    }

    /// `PATCH /v1/projects/{id}/publish`. Reconciled like [`Client::update_project`];
    /// the audience is visible only while published, so an offline project gets
    /// the (repeatable) PATCH once more.
    pub async fn update_publish_settings(
        &self,
        project_id: &str,
        settings: &PublishSettings,
    ) -> Result<Project, ApiError> {
        let call = Call::with_body(
            Method::PATCH,
            project_path(project_id, "/publish")?,
            Some(json_body(settings)),
            Idempotency::NotIdempotent,
        );
        self.reconciled(&call, || async {
            let project = self.get_project(project_id).await?;
            let applied = project.publish_audience.as_ref() == Some(&settings.audience)
                && same_targets(
                    &project.publish_audience_targets,
                    &settings.audience_targets,
                );
            Ok(applied.then_some(project))
        })
        .await
    }

    /// `POST /v1/projects/{id}/embed-url`. It changes nothing, so it is retried
    /// like a read.
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
            project_path(project_id, "/embed-url")?,
            Some(json_body(&body)),
            Idempotency::Safe,
        );
        self.transport.execute(&call).await?.decode()
    }

    /// `GET /v1/workspaces/{id}/projects`: one page.
    pub async fn list_workspace_projects(
        &self,
        workspace_id: &str,
        params: &PageParams,
        cursor: Option<&str>,
    ) -> Result<Page<Project>, ApiError> {
        self.get(
            workspace_path(workspace_id, "/projects")?,
            params.query(cursor),
        )
        .await
    }

    /// Every project of a workspace.
    pub fn workspace_projects_stream(
        &self,
        workspace_id: &str,
        params: PageParams,
    ) -> impl Stream<Item = Result<Project, ApiError>> + Send + 'static {
        let path = workspace_path(workspace_id, "/projects");
        self.stream(path, move |client, path, cursor| {
            let query = params.query(cursor.as_deref());
            async move {
                let page: Page<Project> = client.get(path, query).await?;
                Ok((page.data, page.pagination))
            }
        })
    }

    // --- Analytics and personal data --------------------------------------

    /// `GET /v1/projects/{id}/analytics/realtime`.
    pub async fn get_realtime(&self, project_id: &str) -> Result<Realtime, ApiError> {
        self.get(
            project_path(project_id, "/analytics/realtime")?,
            Query::default(),
        )
        .await
    }

    /// `GET /v1/projects/{id}/analytics/breakdowns` over the UTC dates of
    /// `starts_at` to `ends_at`.
    pub async fn get_breakdowns(
        &self,
        project_id: &str,
        starts_at: OffsetDateTime,
        ends_at: OffsetDateTime,
    ) -> Result<Breakdowns, ApiError> {
        let mut query = Query::default();
        query
            .one("starts_at", Some(format_timestamp(starts_at)))
            .one("ends_at", Some(format_timestamp(ends_at)));
        self.get(project_path(project_id, "/analytics/breakdowns")?, query)
            .await
    }

    /// `GET /v1/projects/{id}/pii-labels`: one page.
    pub async fn list_pii(
        &self,
        project_id: &str,
        params: &PageParams,
        cursor: Option<&str>,
    ) -> Result<Page<PiiFinding>, ApiError> {
        self.get(
            project_path(project_id, "/pii-labels")?,
            params.query(cursor),
        )
        .await
    }

    /// Every personal-data finding of a project.
    pub fn pii_stream(
        &self,
        project_id: &str,
        params: PageParams,
    ) -> impl Stream<Item = Result<PiiFinding, ApiError>> + Send + 'static {
        let path = project_path(project_id, "/pii-labels");
        self.stream(path, move |client, path, cursor| {
            let query = params.query(cursor.as_deref());
            async move {
                let page: Page<PiiFinding> = client.get(path, query).await?;
                Ok((page.data, page.pagination))
            }
        })
    }

    // --- Members ------------------------------------------------------------

    /// `GET /v1/workspaces/{id}/members/{user_id}`.
    pub async fn get_member(&self, workspace_id: &str, user_id: &str) -> Result<Member, ApiError> {
        let path = workspace_path(
            workspace_id,
            &format!("/members/{}", segment("user_id", user_id)?),
        )?;
        self.get(path, Query::default()).await
    }

    /// `GET /v1/workspaces/{id}/members`: one page.
    pub async fn list_members(
        &self,
        workspace_id: &str,
        params: &MemberListParams,
        cursor: Option<&str>,
    ) -> Result<Page<MemberRef>, ApiError> {
        self.get(
            workspace_path(workspace_id, "/members")?,
            params.query(cursor),
        )
        .await
    }

    /// Every member of a workspace matching `params`.
    pub fn members_stream(
        &self,
        workspace_id: &str,
        params: MemberListParams,
    ) -> impl Stream<Item = Result<MemberRef, ApiError>> + Send + 'static {
        let path = workspace_path(workspace_id, "/members");
        self.stream(path, move |client, path, cursor| {
            let query = params.query(cursor.as_deref());
            async move {
                let page: Page<MemberRef> = client.get(path, query).await?;
                Ok((page.data, page.pagination))
            }
        })
    }

    // --- Security center ----------------------------------------------------

    /// `GET /v1/workspaces/{id}/security-center/insights`; `review_priority`
    /// filters only `findings`.
    pub async fn get_insights(
        &self,
        workspace_id: &str,
        review_priority: &[ReviewPriority],
    ) -> Result<Insights, ApiError> {
        let mut query = Query::default();
        query.each("review_priority", review_priority);
        self.get(
            workspace_path(workspace_id, "/security-center/insights")?,
            query,
        )
        .await
    }

    /// `GET /v1/workspaces/{id}/security-center/insights/projects`: one page, with
    /// `total`, `as_of` and `applied_finding`.
    pub async fn list_inventory(
        &self,
        workspace_id: &str,
        params: &InventoryParams,
        cursor: Option<&str>,
    ) -> Result<InventoryPage, ApiError> {
        self.get(
            workspace_path(workspace_id, INVENTORY_PATH)?,
            params.query(cursor),
        )
        .await
    }

    /// Every inventory item matching `params`, in the requested order.
    pub fn inventory_stream(
        &self,
        workspace_id: &str,
        params: InventoryParams,
    ) -> impl Stream<Item = Result<InventoryItem, ApiError>> + Send + 'static {
        let path = workspace_path(workspace_id, INVENTORY_PATH);
        self.stream(path, move |client, path, cursor| {
            let query = params.query(cursor.as_deref());
            async move {
                let page: InventoryPage = client.get(path, query).await?;
                Ok((page.data, page.pagination))
            }
        })
    }

    /// `GET /v1/projects/{id}/security-scans/{scan_id}`.
    pub async fn get_security_scan(
        &self,
        project_id: &str,
        scan_id: &str,
    ) -> Result<SecurityScan, ApiError> {
        let path = project_path(
            project_id,
            &format!("/security-scans/{}", segment("scan_id", scan_id)?),
        )?;
        self.get(path, Query::default()).await
    }

    /// `GET /v1/projects/{id}/security-scans/{scan_id}/findings`: one page.
    pub async fn list_scan_findings(
        &self,
        project_id: &str,
        scan_id: &str,
        params: &PageParams,
        cursor: Option<&str>,
    ) -> Result<Page<ScanFinding>, ApiError> {
        self.get(
            scan_findings_path(project_id, scan_id)?,
            params.query(cursor),
        )
        .await
    }

    /// Every finding of a scan: the full snapshot, fixed and ignored included.
    pub fn scan_findings_stream(
        &self,
        project_id: &str,
        scan_id: &str,
        params: PageParams,
    ) -> impl Stream<Item = Result<ScanFinding, ApiError>> + Send + 'static {
        let path = scan_findings_path(project_id, scan_id);
        self.stream(path, move |client, path, cursor| {
            let query = params.query(cursor.as_deref());
            async move {
                let page: Page<ScanFinding> = client.get(path, query).await?;
                Ok((page.data, page.pagination))
            }
        })
    }

    // --- Plumbing -----------------------------------------------------------

    async fn get<T: DeserializeOwned>(&self, path: String, query: Query) -> Result<T, ApiError> {
        self.transport
            .execute(&Call::get(path, query.into_pairs()))
            .await?
            .decode()
    }

    /// A stream over a list; a bad path argument is the stream's only item.
    fn stream<T, F, Fut>(
        &self,
        path: Result<String, ApiError>,
        mut fetch_page: F,
    ) -> impl Stream<Item = Result<T, ApiError>> + Send + 'static
    where
        T: Send + 'static,
        F: FnMut(Client, String, Option<String>) -> Fut + Send + 'static,
        Fut: Future<Output = Result<(Vec<T>, super::model::Pagination), ApiError>> + Send + 'static,
    {
        let client = self.clone();
        let (path, invalid) = match path {
            Ok(path) => (path, None),
            Err(error) => (String::new(), Some(error)),
        };
        let mut invalid = invalid;
        item_stream(path.clone(), move |cursor| {
            let invalid = invalid.take();
            let page = fetch_page(client.clone(), path.clone(), cursor);
            async move {
                match invalid {
                    Some(error) => Err(error),
                    None => page.await,
                }
            }
        })
    }

    /// Sends a non-idempotent `call`; on an unknown outcome asks `check` whether
    /// the change is already there (`Some(resource)`), else sends it once more.
    async fn reconciled<T, C, CFut>(&self, call: &Call, check: C) -> Result<T, ApiError>
    where
        T: DeserializeOwned,
        C: FnOnce() -> CFut,
        CFut: Future<Output = Result<Option<T>, ApiError>>,
    {
        let first = match self.transport.execute(call).await {
            Ok(answer) => return answer.decode(),
            Err(error) if error.is_unknown_outcome() => error,
            Err(error) => return Err(error),
        };
        tracing::warn!(method = %call.method, path = %call.path, "{first}; reading the resource back");
        match check().await {
            Ok(Some(applied)) => Ok(applied),
            Ok(None) => {
                tracing::info!(method = %call.method, path = %call.path, "change not applied; sending it once more");
                self.transport
                    .execute(call)
                    .await
                    .and_then(|a: Answer| a.decode())
            }
            Err(check_error) => {
                tracing::warn!("cannot read the resource back: {check_error}");
                Err(first)
            }
        }
    }
}

/// The contract: poll a deployment at most once every 2 seconds.
pub const MIN_POLL_INTERVAL: Duration = Duration::from_secs(2);

const INVENTORY_PATH: &str = "/security-center/insights/projects";

fn json_body(value: &impl Serialize) -> Bytes {
    // Our request types are plain structs of strings and enums: they always serialize.
    Bytes::from(serde_json::to_vec(value).unwrap_or_else(|_| b"{}".to_vec()))
}

fn same_targets(a: &[AudienceTarget], b: &[AudienceTarget]) -> bool {
    let key = |t: &AudienceTarget| (t.kind.clone(), t.id.clone());
    let mut a: Vec<_> = a.iter().map(key).collect();
    let mut b: Vec<_> = b.iter().map(key).collect();
    a.sort();
    b.sort();
    a == b
}

fn project_path(project_id: &str, rest: &str) -> Result<String, ApiError> {
    Ok(format!(
        "/v1/projects/{}{rest}",
        segment("project_id", project_id)?
    ))
}

fn workspace_path(workspace_id: &str, rest: &str) -> Result<String, ApiError> {
    Ok(format!(
        "/v1/workspaces/{}{rest}",
        segment("workspace_id", workspace_id)?
    ))
}

fn scan_findings_path(project_id: &str, scan_id: &str) -> Result<String, ApiError> {
    project_path(
        project_id,
        &format!("/security-scans/{}/findings", segment("scan_id", scan_id)?),
    )
}

/// One percent-encoded path segment. `.` and `..` would be resolved away by URL
/// normalisation (even encoded), so they are refused like an empty id.
fn segment(name: &'static str, raw: &str) -> Result<String, ApiError> {
    if raw.is_empty() || raw == "." || raw == ".." {
        return Err(ConfigError::InvalidArgument {
            name,
            reason: "must not be empty, \".\" or \"..\"",
        }
        .into());
    }
    let mut out = String::with_capacity(raw.len());
    for byte in raw.bytes() {
        if byte.is_ascii_alphanumeric() || b"-._~".contains(&byte) {
            out.push(byte as char);
        } else {
            out.push_str(&format!("%{byte:02X}"));
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn path_segments_are_encoded_and_dot_segments_refused() {
        assert_eq!(segment("id", "p_1-a.b~").unwrap(), "p_1-a.b~");
        assert_eq!(
            segment("id", "a/b?c#d é").unwrap(),
            "a%2Fb%3Fc%23d%20%C3%A9"
        );
        for bad in ["", ".", ".."] {
            assert!(matches!(
                segment("project_id", bad),
                Err(ApiError::Config(ConfigError::InvalidArgument {
                    name: "project_id",
                    ..
                }))
            ));
        }
    }

    #[test]
    fn config_debug_hides_the_key() {
        let config = ClientConfig::new(
            "https://api.example.com",
            ApiKey::new("vtg_super_secret").unwrap(),
        );
        let shown = format!("{config:?}");
        assert!(!shown.contains("super_secret"), "{shown}");
        let client = Client::new(config).unwrap();
        assert!(!format!("{client:?}").contains("super_secret"));
    }

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
