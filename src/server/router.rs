//! Routes, and the pipeline every request goes through (see `ops.rs` for the
//! order of checks).

use std::sync::{Arc, Mutex};

use axum::Router;
use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::{HeaderMap, HeaderName, HeaderValue, Method, StatusCode, header};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};

use super::App;
use super::errors::HttpError;
use super::faults::Decision;
use super::handlers::{
    analytics, insights, inventory, members, pii, projects, publish, scans, workspace_projects,
};
use super::ops::{Ctx, Operation, QueryParams};
use super::ratelimit::RateState;
use super::version::Selection;
use crate::api::model::ErrorType;

pub const UNKNOWN_PARAMS_HEADER: &str = "x-service-unknown-query-params";
pub const UNKNOWN_PARAMS_OMITTED_HEADER: &str = "x-service-unknown-query-params-omitted";
/// At most this many ignored parameter names are listed.
const MAX_UNKNOWN_PARAMS_LISTED: usize = 20;

pub fn build(app: Arc<App>) -> Router {
    Router::new()
        .route(
            "/v1/projects/{project_id}",
            get(projects::get_project)
                .patch(projects::update_project)
                .delete(projects::delete_project),
        )
        .route(
            "/v1/projects/{project_id}/publish",
            post(publish::publish)
                .patch(publish::update_settings)
                .delete(publish::unpublish),
        )
        .route(
            "/v1/projects/{project_id}/publish/{deployment_id}",
            get(publish::get_deployment),
        )
        .route(
            "/v1/projects/{project_id}/embed-url",
            post(publish::embed_url),
        )
        .route(
            "/v1/projects/{project_id}/analytics/realtime",
            get(analytics::realtime),
        )
        .route(
            "/v1/projects/{project_id}/analytics/breakdowns",
            get(analytics::breakdowns),
        )
        .route("/v1/projects/{project_id}/pii-labels", get(pii::list))
        .route(
            "/v1/projects/{project_id}/security-scans/{scan_id}",
            get(scans::get_scan),
        )
        .route(
            "/v1/projects/{project_id}/security-scans/{scan_id}/findings",
            get(scans::list_findings),
        )
        .route("/v1/workspaces/{workspace_id}/members", get(members::list))
        .route(
            "/v1/workspaces/{workspace_id}/members/{user_id}",
            get(members::get),
        )
        .route(
            "/v1/workspaces/{workspace_id}/security-center/insights",
            get(insights::get),
        )
        .route(
            "/v1/workspaces/{workspace_id}/security-center/insights/projects",
            get(inventory::list),
        )
        .route(
            "/v1/workspaces/{workspace_id}/projects",
            get(workspace_projects::list),
        )
        .fallback(unknown_route)
        .method_not_allowed_fallback(method_not_allowed)
        .layer(middleware::from_fn_with_state(app.clone(), pipeline))
        .with_state(app)
}

async fn unknown_route() -> HttpError {
    HttpError::new(StatusCode::NOT_FOUND, ErrorType::NotFound, "Not found")
        .detail("no operation has this path; every path starts with /v1")
}

async fn method_not_allowed() -> HttpError {
    HttpError::new(
        StatusCode::METHOD_NOT_ALLOWED,
        ErrorType::MethodNotAllowed,
        "Method not allowed",
    )
    .detail("this path exists, but not with this method")
}

/// What the pipeline learned on the way in, for the response headers.
#[derive(Default)]
struct Echo {
    selection: Option<Selection>,
    rate: Option<RateState>,
    matched: Arc<Mutex<Option<&'static Operation>>>,
}

async fn pipeline(State(app): State<Arc<App>>, mut request: Request, next: Next) -> Response {
    let request_id = app.next_request_id();
    let raw_query = request.uri().query().map(str::to_owned);
    let method = request.method().clone();
    let mut echo = Echo::default();
    let outcome = admit(&app, &mut request, &request_id, &mut echo).await;
    let response = match outcome {
        Err(error) => error.into_response(),
        Ok(decision) => run(&app, request, next, decision, &method).await,
    };
    finish(response, &request_id, &echo, raw_query.as_deref())
}

/// Steps 1 to 5 of the order of checks.
async fn admit(
    app: &App,
    request: &mut Request,
    request_id: &str,
    echo: &mut Echo,
) -> Result<Decision, HttpError> {
    check_accept(request.headers())?;
    echo.selection = Some(app.versions.resolve(request.headers())?);
    let principal = app.authenticate(request.headers())?;
    let now = app.clock.now();
    let rate = app.limiter.check(&principal.key_id, now);
    echo.rate = Some(rate);
    if let Some(seconds) = rate.retry_after {
        return Err(HttpError::rate_limited(seconds));
    }
    let decision = app.faults.next();
    if decision.rate_limited {
        return Err(HttpError::rate_limited(1));
    }
    app.settle_deployments(now)?;
    let query = QueryParams::parse(request.uri().query());
    request.extensions_mut().insert(Ctx {
        principal,
        request_id: request_id.to_owned(),
        now,
        query,
        matched: echo.matched.clone(),
    });
    Ok(decision)
}

/// Steps 6 to 11, under the processing deadline, with the injected faults.
async fn run(
    app: &App,
    request: Request,
    next: Next,
    decision: Decision,
    method: &Method,
) -> Response {
    let handled = async {
        if !decision.latency.is_zero() {
            tokio::time::sleep(decision.latency).await;
        }
        if decision.unavailable {
            return HttpError::request_timeout().into_response();
        }
        if decision.reset {
            return dropped_connection();
        }
        next.run(request).await
    };
    let response = match tokio::time::timeout(app.deadline, handled).await {
        Ok(response) => response,
        Err(_) => HttpError::request_timeout().into_response(),
    };
    let is_mutation = matches!(*method, Method::POST | Method::PATCH | Method::DELETE);
    if decision.timeout_after_commit && is_mutation && response.status().is_success() {
        // The write is committed; the caller is told it timed out.
        return HttpError::request_timeout().into_response();
    }
    response
}

/// A response whose body fails, so the connection is cut mid-answer.
fn dropped_connection() -> Response {
    let failing = futures::stream::once(async {
        Err::<bytes::Bytes, std::io::Error>(std::io::Error::new(
            std::io::ErrorKind::ConnectionReset,
            "injected connection reset",
        ))
    });
    Response::new(Body::from_stream(failing))
}

/// `Accept` may be `application/json`, `*/*` or omitted.
fn check_accept(headers: &HeaderMap) -> Result<(), HttpError> {
    let values: Vec<&HeaderValue> = headers.get_all(header::ACCEPT).iter().collect();
    if values.is_empty() {
        return Ok(());
    }
    let acceptable = values.iter().any(|value| {
        value.to_str().unwrap_or_default().split(',').any(|range| {
            let mut parts = range.split(';');
            let media = parts.next().unwrap_or_default().trim();
            // `q=0` marks a media range as not acceptable (RFC 9110, 12.4.2).
            let refused = parts.any(|param| {
                param.split_once('=').is_some_and(|(name, value)| {
                    name.trim().eq_ignore_ascii_case("q")
                        && value.trim().parse::<f32>().is_ok_and(|q| q == 0.0)
                })
            });
            let json = media.is_empty()
                || media.eq_ignore_ascii_case("application/json")
                || media == "*/*"
                || media.eq_ignore_ascii_case("application/*");
            json && !refused
        })
    });
    if acceptable {
        Ok(())
    } else {
        Err(HttpError::new(
            StatusCode::NOT_ACCEPTABLE,
            ErrorType::NotAcceptable,
            "Not acceptable",
        )
        .detail("responses are application/json; send Accept: application/json or */*"))
    }
}

/// Writes the error envelope and the headers every response carries.
fn finish(
    mut response: Response,
    request_id: &str,
    echo: &Echo,
    raw_query: Option<&str>,
) -> Response {
    let error = response.extensions_mut().remove::<HttpError>().or_else(|| {
        {
            // Anything that failed outside our handlers still gets the envelope.
            let status = response.status();
            let is_json = response
                .headers()
                .get(header::CONTENT_TYPE)
                .is_some_and(|v| v.as_bytes().starts_with(b"application/json"));
            (status.is_client_error() || status.is_server_error()) && !is_json
        }
        .then(|| stray_error(response.status()))
    });
    if let Some(error) = error {
        let body = serde_json::to_vec(&error.body(request_id)).unwrap_or_default();
        let mut rebuilt = Response::new(Body::from(body));
        *rebuilt.status_mut() = error.status;
        rebuilt.headers_mut().insert(
            header::CONTENT_TYPE,
            HeaderValue::from_static("application/json"),
        );
        if error.status == StatusCode::UNAUTHORIZED {
            rebuilt.headers_mut().insert(
                header::WWW_AUTHENTICATE,
                HeaderValue::from_static("Bearer realm=\"api\""),
            );
        }
        if let Some(seconds) = error.retry_after {
            rebuilt
                .headers_mut()
                .insert(header::RETRY_AFTER, HeaderValue::from(seconds));
        }
        response = rebuilt;
    }
    let headers = response.headers_mut();
    if let Ok(value) = HeaderValue::from_str(request_id) {
        headers.insert(HeaderName::from_static("x-request-id"), value);
    }
    if let Some(selection) = &echo.selection {
        if let Ok(value) = HeaderValue::from_str(&selection.version) {
            headers.insert(
                HeaderName::from_static(super::version::VERSION_HEADER),
                value,
            );
        }
        if !selection.betas.is_empty()
            && let Ok(value) = HeaderValue::from_str(&selection.betas.join(","))
        {
            headers.insert(HeaderName::from_static(super::version::BETA_HEADER), value);
        }
    }
    if let Some(rate) = &echo.rate {
        headers.insert("x-ratelimit-limit", HeaderValue::from(rate.limit));
        headers.insert("x-ratelimit-remaining", HeaderValue::from(rate.remaining));
        headers.insert("x-ratelimit-reset", HeaderValue::from(rate.reset));
    }
    let matched = *echo.matched.lock().unwrap_or_else(|p| p.into_inner());
    if let Some(operation) = matched {
        report_unknown_params(headers, operation, raw_query);
    }
    response
}

fn stray_error(status: StatusCode) -> HttpError {
    let kind = match status {
        StatusCode::NOT_FOUND => ErrorType::NotFound,
        StatusCode::METHOD_NOT_ALLOWED => ErrorType::MethodNotAllowed,
        StatusCode::PAYLOAD_TOO_LARGE | StatusCode::BAD_REQUEST => ErrorType::InvalidRequest,
        _ => ErrorType::InternalError,
    };
    let title = status.canonical_reason().unwrap_or("Error");
    HttpError::new(status, kind, title)
}

/// `X-Service-Unknown-Query-Params`: names the operation does not declare, as sent.
fn report_unknown_params(headers: &mut HeaderMap, operation: &Operation, raw_query: Option<&str>) {
    let Some(raw_query) = raw_query else { return };
    let mut unknown: Vec<&str> = Vec::new();
    for pair in raw_query.split('&').filter(|pair| !pair.is_empty()) {
        let raw_name = pair.split('=').next().unwrap_or_default();
        // `?=1` names nothing: there is no name to report.
        if raw_name.is_empty() {
            continue;
        }
        let decoded: String = form_urlencoded::parse(raw_name.as_bytes())
            .next()
            .map(|(name, _)| name.into_owned())
            .unwrap_or_default();
        if !operation.query.contains(&decoded.as_str()) && !unknown.contains(&raw_name) {
            unknown.push(raw_name);
        }
    }
    if unknown.is_empty() {
        return;
    }
    let listed = unknown.len().min(MAX_UNKNOWN_PARAMS_LISTED);
    if let Ok(value) = HeaderValue::from_str(&unknown[..listed].join(",")) {
        headers.insert(UNKNOWN_PARAMS_HEADER, value);
    }
    let omitted = unknown.len() - listed;
    if omitted > 0 {
        headers.insert(UNKNOWN_PARAMS_OMITTED_HEADER, HeaderValue::from(omitted));
    }
}
