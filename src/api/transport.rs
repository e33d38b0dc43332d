//! The HTTP layer and the one retry loop.
//!
//! Every call goes through [`Transport::execute`]: pacing against the known
//! rate-limit state, one attempt, the answer's headers recorded, and then the
//! retry decision, which sees the method's idempotency, the parsed error `type`,
//! `Retry-After` and the retry budget:
//!
//! - 429 and connect failures mean the server did not act: every call retries.
//! - 503 `request_timeout` and a connection dropped after sending have an
//!   unknown outcome: safe and idempotent calls retry; other mutations return the
//!   error marked "unknown outcome" for the caller to reconcile (`client.rs`).
//! - A proxy's own 429 or 503 page counts as its status (`failures.rs`); a TLS
//!   handshake that fails is not retried.
//!
//! An answer's body is read as a stream and never beyond `max_response_bytes`,
//! and a loopback base URL never goes through a proxy from the environment
//! (DESIGN.md, "Answers that are safe to read").

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use bytes::Bytes;
use reqwest::header::{ACCEPT, AUTHORIZATION, CONTENT_TYPE, HeaderName, HeaderValue};
use reqwest::{Method, Url};

use super::config::{ClientConfig, is_loopback_host, validate_base_url};
use super::credentials::AuthScheme;
use super::error::{ApiError, ConfigError, TransportError, TransportKind, one_line};
use super::events::{ClientEvent, EventHub};
use super::ratelimit::{Admission, Lane, Pacer, Permit, RateLimitState};
use super::retry::{Jitter, RetryBudget, RetryPolicy, parse_retry_after};
use super::sleeper::Sleeper;

mod answer;
mod checks;
mod failures;
mod nul;

pub use answer::Answer;
use checks::{ANSWER_CHECKS, Check, Expected};
use failures::{error_chain, error_from, is_tls_failure};

pub const API_KEY_HEADER: &str = "service-api-key";
pub const VERSION_HEADER: &str = "service-version";
pub const BETA_HEADER: &str = "service-beta";
pub const REQUEST_ID_HEADER: &str = "x-request-id";
pub const UNKNOWN_PARAMS_HEADER: &str = "x-service-unknown-query-params";
pub const UNKNOWN_PARAMS_OMITTED_HEADER: &str = "x-service-unknown-query-params-omitted";

/// How long a pooled connection may sit idle before it is let go: below the
/// servers' own idle timeouts (the reference server's 10 s, Node's 5 s), so
/// the client does not reuse one the server is closing. A dashboard that
/// refreshes every 10 s opens a new connection each time instead.
pub const POOL_IDLE_TIMEOUT: Duration = Duration::from_secs(4);

/// An attempt sent after the pool sat idle this long may go out on a
/// connection the server closed meanwhile (a reuse race).
const REUSE_RACE_IDLE: time::Duration = time::Duration::SECOND;

/// How a call may be repeated when its outcome is unknown.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Idempotency {
    /// Changes nothing (GET, and the embed-url POST).
    Safe,
    /// Repeating it ends in the same state (DELETE project, DELETE publish).
    Idempotent,
    /// Repeating it may act twice: an unknown outcome goes back to the caller.
    NotIdempotent,
}

/// One call of an operation.
#[derive(Debug, Clone)]
pub struct Call {
    pub method: Method,
    /// Already percent-encoded, starting with `/v1/`.
    pub path: String,
    pub query: Vec<(String, String)>,
    pub body: Option<Bytes>,
    pub idempotency: Idempotency,
}

impl Call {
    pub fn get(path: String, query: Vec<(String, String)>) -> Self {
        Self {
            method: Method::GET,
            path,
            query,
            body: None,
            idempotency: Idempotency::Safe,
        }
    }

    pub fn with_body(
        method: Method,
        path: String,
        body: Option<Bytes>,
        idempotency: Idempotency,
    ) -> Self {
        Self {
            method,
            path,
            query: Vec::new(),
            body,
            idempotency,
        }
    }
}

pub struct Transport {
    http: reqwest::Client,
    base: Url,
    base_path: String,
    auth: (HeaderName, HeaderValue),
    pinned_version: String,
    version: HeaderValue,
    betas: Option<HeaderValue>,
    policy: RetryPolicy,
    budget: RetryBudget,
    jitter: Jitter,
    pacer: Option<Arc<Pacer>>,
    max_response_bytes: u64,
    pub(crate) sleeper: Arc<dyn Sleeper>,
    pub(crate) events: EventHub,
    calls: AtomicU64,
    /// Per check of `ANSWER_CHECKS`: whether a check told once has told.
    told_once: Vec<AtomicBool>,
    /// When the last answer came (on the sleeper's clock): how long the
    /// pooled connections have been idle.
    last_answer: std::sync::Mutex<Option<time::OffsetDateTime>>,
}

impl std::fmt::Debug for Transport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Transport")
            .field("base", &self.base.as_str())
            .field("version", &self.pinned_version)
            .field("policy", &self.policy)
            .finish_non_exhaustive()
    }
}

impl Transport {
    /// The service's address, as configured.
    pub fn base(&self) -> &Url {
        &self.base
    }

    /// The `Service-Version` every request pins.
    pub fn pinned_version(&self) -> &str {
        &self.pinned_version
    }

    pub fn new(config: &ClientConfig) -> Result<Self, ConfigError> {
        let base = validate_base_url(&config.base_url)?;
        let base_path = base.path().trim_end_matches('/').to_owned();
        let mut key = HeaderValue::from_str(config.credential.expose_secret()).map_err(|_| {
            ConfigError::InvalidCredential("the API key cannot be sent in a header")
        })?;
        let auth = match config.auth_scheme {
            AuthScheme::ServiceApiKey => (HeaderName::from_static(API_KEY_HEADER), {
                key.set_sensitive(true);
                key
            }),
            AuthScheme::Bearer => {
                let mut bearer =
                    HeaderValue::from_str(&format!("Bearer {}", config.credential.expose_secret()))
                        .map_err(|_| {
                            ConfigError::InvalidCredential("the API key cannot be sent in a header")
                        })?;
                bearer.set_sensitive(true);
                (AUTHORIZATION, bearer)
            }
        };
        let header = |name: &'static str, value: &str| {
            HeaderValue::from_str(value).map_err(|_| ConfigError::InvalidHeader {
                name,
                value: one_line(value),
            })
        };
        let version = header("Service-Version", &config.api_version)?;
        let betas = if config.betas.is_empty() {
            None
        } else {
            Some(header("Service-Beta", &config.betas.join(","))?)
        };
        let mut http = reqwest::Client::builder()
            .pool_idle_timeout(POOL_IDLE_TIMEOUT)
            .connect_timeout(config.connect_timeout)
            .timeout(config.request_timeout)
            .user_agent(config.user_agent.clone())
            // Never follow a redirect: it could carry the key to another host.
            .redirect(reqwest::redirect::Policy::none());
        // The client only ever talks to the base URL's host. A loopback host
        // never goes through a proxy from the environment, as Go's
        // ProxyFromEnvironment (kubectl) does: plain http is allowed to it on
        // the promise that the traffic, key included, stays on this machine.
        if base.host_str().is_some_and(is_loopback_host) {
            http = http.no_proxy();
        }
        let http = http
            .build()
            .map_err(|err| ConfigError::HttpClient(err.to_string()))?;
        Ok(Self {
            http,
            base,
            base_path,
            auth,
            pinned_version: config.api_version.clone(),
            version,
            betas,
            policy: config.retry.clone(),
            budget: RetryBudget::new(config.retry.budget),
            jitter: Jitter::new(config.jitter_seed),
            pacer: config.pacing.then(Pacer::new),
            max_response_bytes: config.max_response_bytes,
            sleeper: config.sleeper.clone(),
            events: EventHub::new(config.on_event.clone()),
            calls: AtomicU64::new(0),
            told_once: ANSWER_CHECKS
                .iter()
                .map(|_| AtomicBool::new(false))
                .collect(),
            last_answer: std::sync::Mutex::new(None),
        })
    }

    pub fn rate_limit_state(&self) -> Option<RateLimitState> {
        self.pacer.as_ref().and_then(|pacer| pacer.state())
    }

    /// Sends `call`, retrying as the module documentation says.
    pub async fn execute(&self, call: &Call, lane: Lane) -> Result<Answer, ApiError> {
        let call_id = self.calls.fetch_add(1, Ordering::Relaxed) + 1;
        let mut attempt = 1u32;
        let mut earlier_unknown = false;
        loop {
            let permit = self.pace(call_id, lane).await;
            let sent_at = self.sleeper.now();
            let started = Instant::now();
            let result = self
                .attempt(call, self.may_meet_a_closed_connection(sent_at))
                .await;
            let elapsed = started.elapsed();
            let error = match result {
                Ok(answer) => {
                    *self.last_answer.lock().unwrap_or_else(|p| p.into_inner()) =
                        Some(self.sleeper.now());
                    let retry_after = answer
                        .headers
                        .get(reqwest::header::RETRY_AFTER)
                        .and_then(|v| v.to_str().ok())
                        .and_then(|v| parse_retry_after(v, self.sleeper.now()));
                    self.record(permit, &answer, retry_after);
                    self.events.emit(ClientEvent::RequestDone {
                        call: call_id,
                        attempt,
                        method: call.method.to_string(),
                        path: call.path.clone(),
                        status: Some(answer.status),
                        elapsed,
                        sent_at,
                        request_id: answer.request_id.clone(),
                        retry_after,
                    });
                    if (200..300).contains(&answer.status) {
                        self.budget.record_success();
                        return Ok(answer);
                    }
                    error_from(answer, retry_after)
                }
                Err(error) => {
                    match permit {
                        Some(permit) if !error.may_have_been_sent => permit.unsent(),
                        permit => drop(permit),
                    }
                    self.events.emit(ClientEvent::RequestDone {
                        call: call_id,
                        attempt,
                        method: call.method.to_string(),
                        path: call.path.clone(),
                        status: None,
                        elapsed,
                        sent_at,
                        request_id: None,
                        retry_after: None,
                    });
                    ApiError::transport(error)
                }
            };
            let error = if earlier_unknown {
                error.mark_after_unknown_outcome()
            } else {
                error
            };
            let Some((reason, outcome_unknown)) = error.retry_reason() else {
                return Err(error);
            };
            if outcome_unknown {
                if call.idempotency == Idempotency::NotIdempotent {
                    return Err(error.mark_unknown_outcome());
                }
                earlier_unknown = true;
            }
            if attempt >= self.policy.max_attempts {
                return Err(error);
            }
            let retry_after = error.response().and_then(|r| r.retry_after);
            let Some(delay) = self.policy.delay(attempt + 1, retry_after, &self.jitter) else {
                return Err(error);
            };
            if !self.budget.try_spend() {
                self.events.emit(ClientEvent::RetryBudgetExhausted {
                    call: call_id,
                    method: call.method.to_string(),
                    path: call.path.clone(),
                });
                return Err(error);
            }
            attempt += 1;
            self.events.emit(ClientEvent::Retrying {
                call: call_id,
                method: call.method.to_string(),
                path: call.path.clone(),
                reason,
                delay,
                attempt,
                max_attempts: self.policy.max_attempts,
            });
            self.sleeper.sleep(delay).await;
        }
    }

    /// Waits while the known rate limit is exhausted.
    async fn pace(&self, call_id: u64, lane: Lane) -> Option<Permit> {
        let pacer = self.pacer.as_ref()?;
        loop {
            match pacer.admit(self.sleeper.now(), self.policy.retry_after_cap, lane) {
                (Admission::Go, permit) => return permit,
                (Admission::WaitFor(wait), _) => {
                    self.events.emit(ClientEvent::Paced {
                        call: call_id,
                        wait,
                        background: matches!(lane, Lane::Background { .. }),
                    });
                    self.sleeper.sleep(wait).await;
                }
                (Admission::WaitForAnswer, _) => pacer.answered().await,
            }
        }
    }

    /// The rate-limit state, then the notices of `checks.rs`' [`ANSWER_CHECKS`].
    fn record(&self, permit: Option<Permit>, answer: &Answer, retry_after: Option<Duration>) {
        if let (Some(pacer), Some(permit)) = (&self.pacer, permit) {
            let refused = (answer.status == 429).then(|| {
                (
                    self.sleeper.now(),
                    retry_after.unwrap_or(Duration::from_secs(1)),
                )
            });
            if let Some(state) = pacer.observe(permit, &answer.headers, refused) {
                self.events.emit(ClientEvent::RateLimit(state));
            }
        }
        let expected = Expected {
            pinned_version: &self.pinned_version,
        };
        for (declared, told) in ANSWER_CHECKS.iter().zip(&self.told_once) {
            let Check::Notice(check) = declared.check else {
                continue;
            };
            if declared.once && told.load(Ordering::Relaxed) {
                continue;
            }
            if let Some(event) = check(answer, &expected) {
                if declared.once && told.swap(true, Ordering::Relaxed) {
                    continue;
                }
                tracing::debug!(check = declared.name, "an answer's check told something");
                self.events.emit(event);
            }
        }
    }

    /// Whether an attempt sent at `sent_at` may go out on a pooled
    /// connection idle long enough for the server to have closed it.
    fn may_meet_a_closed_connection(&self, sent_at: time::OffsetDateTime) -> bool {
        self.last_answer
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .is_some_and(|last| sent_at - last >= REUSE_RACE_IDLE)
    }

    /// One HTTP exchange, body read in full. When the pool had sat idle
    /// (`after_idle`) and the connection dropped before any answer, the
    /// server closed it as it was reused: a safe call goes once more, on a
    /// new connection, and that is no failure (nor a retry) of the call.
    async fn attempt(&self, call: &Call, after_idle: bool) -> Result<Answer, TransportError> {
        let sent = match self.request(call).send().await {
            Err(error)
                if after_idle
                    && call.idempotency != Idempotency::NotIdempotent
                    && failures::dropped_before_answer(&error) =>
            {
                tracing::debug!(method = %call.method, path = %call.path, "a pooled connection closed as it was reused: sent again on a new one");
                self.request(call).send().await
            }
            sent => sent,
        };
        self.read_answer(call, sent).await
    }

    /// The request of one attempt.
    fn request(&self, call: &Call) -> reqwest::RequestBuilder {
        let mut url = self.base.clone();
        url.set_path(&format!("{}{}", self.base_path, call.path));
        if !call.query.is_empty() {
            url.query_pairs_mut()
                .extend_pairs(call.query.iter().map(|(k, v)| (k.as_str(), v.as_str())));
        }
        let mut request = self
            .http
            .request(call.method.clone(), url)
            .header(self.auth.0.clone(), self.auth.1.clone())
            .header(VERSION_HEADER, self.version.clone())
            .header(ACCEPT, "application/json");
        if let Some(betas) = &self.betas {
            request = request.header(BETA_HEADER, betas.clone());
        }
        if let Some(body) = &call.body {
            request = request
                .header(CONTENT_TYPE, "application/json")
                .body(body.clone());
        }
        request
    }

    /// The answer to a request sent, its body read in full.
    async fn read_answer(
        &self,
        call: &Call,
        sent: Result<reqwest::Response, reqwest::Error>,
    ) -> Result<Answer, TransportError> {
        let transport_error = |error: reqwest::Error, reading_body: bool| {
            let kind = if error.is_connect() && is_tls_failure(&error) {
                TransportKind::Tls
            } else if error.is_connect() {
                TransportKind::Connect
            } else if error.is_timeout() {
                TransportKind::Timeout
            } else if error.is_request() || error.is_body() || reading_body {
                TransportKind::ConnectionDropped
            } else {
                TransportKind::Other
            };
            TransportError {
                kind,
                may_have_been_sent: !matches!(kind, TransportKind::Connect | TransportKind::Tls),
                method: call.method.to_string(),
                path: call.path.clone(),
                message: error_chain(&error),
                unknown_outcome: false,
            }
        };
        let response = sent.map_err(|error| transport_error(error, false))?;
        let status = response.status().as_u16();
        let headers = response.headers().clone();
        let body = self
            .read_capped(call, response)
            .await?
            .map_err(|error| transport_error(error, true))?;
        let request_id = headers
            .get(REQUEST_ID_HEADER)
            .and_then(|v| v.to_str().ok())
            .map(one_line);
        Ok(Answer {
            status,
            headers,
            body,
            request_id,
            method: call.method.clone(),
            path: call.path.clone(),
        })
    }
}

impl Transport {
    /// The body, chunk by chunk, never more than `max_response_bytes` of it:
    /// a `Content-Length` above the cap is refused before a byte is read, a
    /// stream that passes it as soon as it does (as curl's `--max-filesize`).
    async fn read_capped(
        &self,
        call: &Call,
        mut response: reqwest::Response,
    ) -> Result<Result<Bytes, reqwest::Error>, TransportError> {
        let cap = self.max_response_bytes;
        let too_large = |what: String| TransportError {
            kind: TransportKind::TooLarge,
            may_have_been_sent: true,
            method: call.method.to_string(),
            path: call.path.clone(),
            message: format!(
                "{what}, more than the {} bytes max_response_bytes allows",
                cap
            ),
            unknown_outcome: false,
        };
        if let Some(length) = response.content_length()
            && length > cap
        {
            return Err(too_large(format!("the answer announced {length} bytes")));
        }
        let expected = response.content_length().unwrap_or(0).min(cap);
        // A body that arrives in one chunk (a page read whole from the
        // socket) is kept as it came; a second chunk starts the copy.
        let mut first: Option<Bytes> = None;
        let mut body = bytes::BytesMut::new();
        loop {
            match response.chunk().await {
                Ok(Some(chunk)) => {
                    let read = first.as_ref().map_or(0, Bytes::len) + body.len();
                    if (read + chunk.len()) as u64 > cap {
                        return Err(too_large(format!(
                            "the answer went on past {} bytes",
                            read + chunk.len()
                        )));
                    }
                    match first.take() {
                        None if body.is_empty() => first = Some(chunk),
                        earlier => {
                            if body.is_empty() {
                                body.reserve(usize::try_from(expected).unwrap_or(0).max(read));
                            }
                            body.extend_from_slice(earlier.as_deref().unwrap_or_default());
                            body.extend_from_slice(&chunk);
                        }
                    }
                }
                Ok(None) => return Ok(Ok(first.unwrap_or_else(|| body.freeze()))),
                Err(error) => return Ok(Err(error)),
            }
        }
    }
}
