//! `/metrics` and `/healthz`. A scrape encodes the cache; it never calls the API.

use std::sync::Arc;

use axum::Router;
use axum::extract::State;
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::get;

use super::cache::Cache;
use super::{metrics, text004};
use crate::clock::Clock;

/// The OpenMetrics content type, answered to a scraper that asks for it.
pub const OPENMETRICS_CONTENT_TYPE: &str =
    "application/openmetrics-text; version=1.0.0; charset=utf-8";

/// One context's cache, and the labels its samples carry.
pub struct ServedContext {
    /// `Some` when several contexts are served: the `context` label.
    pub context: Option<String>,
    pub workspace: String,
    pub cache: Cache,
}

/// What the handlers share.
pub struct Served {
    pub contexts: Vec<ServedContext>,
    pub clock: Clock,
}

impl Served {
    /// One workspace, without a `context` label.
    pub fn single(workspace: String, cache: Cache, clock: Clock) -> Self {
        Self {
            contexts: vec![ServedContext {
                context: None,
                workspace,
                cache,
            }],
            clock,
        }
    }
}

pub fn router(served: Arc<Served>) -> Router {
    Router::new()
        .route("/metrics", get(metrics_handler))
        .route("/healthz", get(healthz))
        .with_state(served)
}

/// The exposition format a scraper's `Accept` asks for: OpenMetrics when it
/// names `application/openmetrics-text`, as the Go client decides; otherwise
/// the 0.0.4 text format, the one every Prometheus and promtool reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    OpenMetrics,
    Text004,
}

impl Format {
    pub fn negotiate(headers: &HeaderMap) -> Self {
        let asks_openmetrics = headers
            .get_all(header::ACCEPT)
            .iter()
            .filter_map(|value| value.to_str().ok())
            .flat_map(|value| value.split(','))
            .any(|range| {
                let mut parts = range.split(';').map(str::trim);
                let media = parts.next().unwrap_or("");
                // `q=0` means "not this one".
                let refused = parts.any(|p| {
                    p.strip_prefix("q=")
                        .and_then(|q| q.parse::<f32>().ok())
                        .is_some_and(|q| q <= 0.0)
                });
                media.eq_ignore_ascii_case("application/openmetrics-text") && !refused
            });
        if asks_openmetrics {
            Self::OpenMetrics
        } else {
            Self::Text004
        }
    }
}

/// The body of one scrape in `format`.
pub fn render(served: &Served, format: Format) -> Result<String, std::fmt::Error> {
    // Each cache read once, so a scrape sees one poll's data whole.
    let snapshots: Vec<_> = served
        .contexts
        .iter()
        .map(|context| context.cache.snapshot())
        .collect();
    let scopes: Vec<metrics::Scope<'_>> = served
        .contexts
        .iter()
        .zip(&snapshots)
        .map(|(context, snapshot)| metrics::Scope {
            context: context.context.as_deref(),
            workspace: &context.workspace,
            snapshot,
        })
        .collect();
    let registry = metrics::scopes_registry(&scopes, served.clock.now());
    let mut openmetrics = String::new();
    prometheus_client::encoding::text::encode_registry(&mut openmetrics, &registry)?;
    Ok(match format {
        Format::OpenMetrics => {
            prometheus_client::encoding::text::encode_eof(&mut openmetrics)?;
            openmetrics
        }
        Format::Text004 => text004::from_openmetrics(&openmetrics),
    })
}

async fn metrics_handler(State(served): State<Arc<Served>>, headers: HeaderMap) -> Response {
    let format = Format::negotiate(&headers);
    match render(&served, format) {
        Ok(body) => {
            let content_type = match format {
                Format::OpenMetrics => OPENMETRICS_CONTENT_TYPE,
                Format::Text004 => text004::CONTENT_TYPE,
            };
            (
                [(header::CONTENT_TYPE, HeaderValue::from_static(content_type))],
                body,
            )
                .into_response()
        }
        Err(error) => {
            tracing::error!(%error, "cannot encode the metrics");
            (
                StatusCode::INTERNAL_SERVER_ERROR,
                "cannot encode the metrics\n",
            )
                .into_response()
        }
    }
}

/// Alive and serving; the body says how many poll cycles have finished (per
/// context when several are served).
async fn healthz(State(served): State<Arc<Served>>) -> Response {
    let counts: Vec<String> = served
        .contexts
        .iter()
        .map(|context| {
            let cycles = context.cache.snapshot().cycles;
            match &context.context {
                Some(name) => format!("{name} {cycles} poll cycles"),
                None => format!("{cycles} poll cycles"),
            }
        })
        .collect();
    (StatusCode::OK, format!("ok: {}\n", counts.join(", "))).into_response()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn accept(value: &'static str) -> HeaderMap {
        let mut headers = HeaderMap::new();
        headers.insert(header::ACCEPT, HeaderValue::from_static(value));
        headers
    }

    #[test]
    fn openmetrics_only_when_asked_for() {
        // Prometheus 2.x's scrape Accept header.
        let prometheus = "application/openmetrics-text;version=1.0.0,application/openmetrics-text;version=0.0.1;q=0.75,text/plain;version=0.0.4;q=0.5,*/*;q=0.1";
        assert_eq!(Format::negotiate(&accept(prometheus)), Format::OpenMetrics);
        assert_eq!(Format::negotiate(&HeaderMap::new()), Format::Text004);
        assert_eq!(Format::negotiate(&accept("text/plain")), Format::Text004);
        assert_eq!(Format::negotiate(&accept("*/*")), Format::Text004);
        assert_eq!(
            Format::negotiate(&accept("application/openmetrics-text;q=0, text/plain")),
            Format::Text004
        );
    }
}
