//! Routes, and the pipeline every request goes through (see `ops.rs` for the
//! order of checks).

use std::sync::Arc;

use axum::Router;
use axum::body::Body;
use axum::extract::{Request, State};
use axum::handler::Handler;
use axum::http::{HeaderMap, HeaderName, HeaderValue, Method, StatusCode, header};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::{MethodFilter, MethodRouter, on};

use super::access;
use super::context::{Admission, Ctx, QueryParams};
use super::errors::HttpError;
use super::faults::Decision;
use super::handlers::{
    analytics, child_list, insights, inventory, members, pii, projects, publish, scans, traffic,
    workspace_projects, workspaces,
};
use super::ops::{self, Operation};
use super::ratelimit::RateState;
use super::state::ServerState;
use super::version::Selection;
use crate::api::model::ErrorType;

pub const UNKNOWN_PARAMS_HEADER: &str = "x-service-unknown-query-params";
pub const UNKNOWN_PARAMS_OMITTED_HEADER: &str = "x-service-unknown-query-params-omitted";
/// At most this many ignored parameter names are listed.
const MAX_UNKNOWN_PARAMS_LISTED: usize = 20;

/// Every operation: its method, path, what it needs (`ops.rs`) and its handler.
/// The route layer of each row checks scope, plan and features (steps 7 to 9)
/// before the handler runs, and hands the handler a [`Ctx`] naming the operation.
pub fn build(app: Arc<ServerState>) -> Router {
    use MethodFilter as M;
    #[rustfmt::skip]
    let routes = [
        route(M::GET,    "/v1/projects/{project_id}",                                       &ops::GET_PROJECT,             projects::get_project),
        route(M::PATCH,  "/v1/projects/{project_id}",                                       &ops::UPDATE_PROJECT,          projects::update_project),
        route(M::DELETE, "/v1/projects/{project_id}",                                       &ops::DELETE_PROJECT,          projects::delete_project),
        route(M::POST,   "/v1/projects/{project_id}/publish",                               &ops::PUBLISH_PROJECT,         publish::publish),
        route(M::PATCH,  "/v1/projects/{project_id}/publish",                               &ops::UPDATE_PUBLISH_SETTINGS, publish::update_settings),
        route(M::DELETE, "/v1/projects/{project_id}/publish",                               &ops::UNPUBLISH_PROJECT,       publish::unpublish),
        route(M::GET,    "/v1/projects/{project_id}/publish/{deployment_id}",               &ops::GET_DEPLOYMENT,          publish::get_deployment),
        route(M::POST,   "/v1/projects/{project_id}/embed-url",                             &ops::CREATE_EMBED_URL,        publish::embed_url),
        route(M::GET,    "/v1/projects/{project_id}/analytics/realtime",                    &ops::GET_REALTIME,            analytics::realtime),
        route(M::GET,    "/v1/projects/{project_id}/analytics/breakdowns",                  &ops::GET_BREAKDOWNS,          analytics::breakdowns),
        route(M::GET,    "/v1/projects/{project_id}/pii-labels",                            &ops::LIST_PII,                child_list::list::<pii::PiiList>),
        route(M::GET,    "/v1/projects/{project_id}/analytics",                             &ops::GET_TRAFFIC,             traffic::get),
        route(M::GET,    "/v1/projects/{project_id}/security-scans",                        &ops::LIST_SCANS,              child_list::list::<scans::ScanList>),
        route(M::GET,    "/v1/projects/{project_id}/security-scans/{scan_id}",              &ops::GET_SCAN,                scans::get_scan),
        route(M::GET,    "/v1/projects/{project_id}/security-scans/{scan_id}/findings",     &ops::LIST_SCAN_FINDINGS,      child_list::list::<scans::FindingList>),
        route(M::GET,    "/v1/workspaces/{workspace_id}/members",                           &ops::LIST_MEMBERS,            child_list::list::<members::MemberList>),
        route(M::GET,    "/v1/workspaces/{workspace_id}/members/{user_id}",                 &ops::GET_MEMBER,              members::get),
        route(M::GET,    "/v1/workspaces/{workspace_id}/security-center/insights",          &ops::GET_INSIGHTS,            insights::get),
        route(M::GET,    "/v1/workspaces/{workspace_id}/security-center/insights/projects", &ops::LIST_INVENTORY,          inventory::list),
        route(M::GET,    "/v1/projects",                                                    &ops::LIST_PROJECTS,           workspace_projects::list),
        route(M::GET,    "/v1/workspaces",                                                  &ops::LIST_WORKSPACES,         workspaces::list),
        route(M::GET,    "/v1/workspaces/{workspace_id}",                                   &ops::GET_WORKSPACE,           workspaces::get),
    ];
    routes
        .into_iter()
        // Rows of one path merge into one method router.
        .fold(Router::new(), |router, (path, methods)| {
            router.route(path, methods)
        })
        .fallback(unknown_route)
        .method_not_allowed_fallback(method_not_allowed)
        .layer(middleware::from_fn_with_state(app.clone(), pipeline))
        .with_state(app)
}

/// One row of the table: `handler` behind the route layer of `operation`.
fn route<H, T>(
    method: MethodFilter,
    path: &'static str,
    operation: &'static Operation,
    handler: H,
) -> (&'static str, MethodRouter<Arc<ServerState>>)
where
    H: Handler<T, Arc<ServerState>>,
    T: 'static,
{
    let methods = on(method, handler).route_layer(middleware::from_fn_with_state(
        operation,
        authorize_operation,
    ));
    (path, methods)
}

/// Steps 7 to 9 for the matched operation. The response carries the operation
/// back to the pipeline, for the unknown-query-parameter headers.
async fn authorize_operation(
    State(operation): State<&'static Operation>,
    mut request: Request,
    next: Next,
) -> Response {
    let admitted = request.extensions_mut().remove::<Admission>();
    let mut response = match admitted {
        None => HttpError::internal("request context missing").into_response(),
        Some(admission) => match access::authorize(&admission.principal, operation) {
            Err(error) => error.into_response(),
            Ok(()) => {
                request
                    .extensions_mut()
                    .insert(Ctx::new(admission, operation));
                next.run(request).await
            }
        },
    };
    response.extensions_mut().insert(Matched(operation));
    response
}

/// The operation a response answered, as the route layer marks it.
#[derive(Clone, Copy)]
struct Matched(&'static Operation);

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
}

async fn pipeline(
    State(app): State<Arc<ServerState>>,
    mut request: Request,
    next: Next,
) -> Response {
    let request_id = app.next_request_id();
    let raw_query = request.uri().query().map(str::to_owned);
    let method = request.method().clone();
    let mut echo = Echo::default();
    let outcome = admit(&app, &mut request, &request_id, &mut echo).await;
    let response = match outcome {
        Err(error) => error.into_response(),
        Ok(decision) => run(&app, request, next, decision, &method).await,
    };
    if let Some(Matched(operation)) = response.extensions().get::<Matched>() {
        app.count_served(operation.name);
    }
    finish(response, &request_id, &echo, raw_query.as_deref())
}

/// Steps 1 to 5 of the order of checks.
async fn admit(
    app: &ServerState,
    request: &mut Request,
    request_id: &str,
    echo: &mut Echo,
) -> Result<Decision, HttpError> {
    check_accept(request.headers())?;
    echo.selection = Some(app.versions.resolve(request.headers())?);
    let principal = access::authenticate(&app.store, request.headers())?;
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
    request.extensions_mut().insert(Admission {
        principal,
        request_id: request_id.to_owned(),
        now,
        query,
    });
    Ok(decision)
}

/// Steps 6 to 11, under the processing deadline, with the injected faults.
async fn run(
    app: &ServerState,
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
        let matched = response.extensions().get::<Matched>().copied();
        let mut timed_out = HttpError::request_timeout().into_response();
        if let Some(matched) = matched {
            timed_out.extensions_mut().insert(matched);
        }
        return timed_out;
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
    let matched = response.extensions().get::<Matched>().copied();
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
    if let Some(Matched(operation)) = matched {
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
