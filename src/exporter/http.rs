//! `/metrics` and `/healthz`. A scrape never calls the API: it serves the
//! cache's data as encoded once after each change.

use std::sync::{Arc, Mutex};

use axum::Router;
use axum::extract::State;
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{Html, IntoResponse, Response};
use axum::routing::get;

use super::cache::{Cache, Snapshot, Source};
use super::process::ProcessStats;
use super::web::{WebConfig, require_basic_auth};
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
    /// Reads the `process_*` metrics at each scrape; tests fix them.
    pub process_stats: fn() -> ProcessStats,
    /// The data families as last encoded, and the cache versions they show.
    encoded: Mutex<Option<Arc<Encoded>>>,
}

/// The data families of every context, encoded in both formats (no `# EOF`).
struct Encoded {
    versions: Vec<u64>,
    openmetrics: String,
    text004: String,
}

impl Served {
    pub fn new(contexts: Vec<ServedContext>, clock: Clock) -> Self {
        Self {
            contexts,
            clock,
            process_stats: ProcessStats::read,
            encoded: Mutex::new(None),
        }
    }

    /// One workspace, without a `context` label.
    pub fn single(workspace: String, cache: Cache, clock: Clock) -> Self {
        let context = ServedContext {
            context: None,
            workspace,
            cache,
        };
        Self::new(vec![context], clock)
    }

    /// The data families as the caches hold them now: encoded again only when
    /// a cache changed since the last scrape.
    fn encoded(&self) -> Result<Arc<Encoded>, std::fmt::Error> {
        let versions: Vec<u64> = self.contexts.iter().map(|c| c.cache.version()).collect();
        if let Some(encoded) = self.last_encoded()
            && encoded.versions == versions
        {
            return Ok(encoded);
        }
        // Each cache read once, so a scrape sees one poll's data whole.
        let (versions, snapshots): (Vec<u64>, Vec<Snapshot>) = self
            .contexts
            .iter()
            .map(|context| context.cache.versioned_snapshot())
            .unzip();
        let registry = metrics::data_registry(&self.scopes(&snapshots));
        let mut openmetrics = String::new();
        prometheus_client::encoding::text::encode_registry(&mut openmetrics, &registry)?;
        let encoded = Arc::new(Encoded {
            versions,
            text004: text004::from_openmetrics(&openmetrics),
            openmetrics,
        });
        *self.encoded.lock().unwrap_or_else(|p| p.into_inner()) = Some(encoded.clone());
        Ok(encoded)
    }

    fn last_encoded(&self) -> Option<Arc<Encoded>> {
        self.encoded
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone()
    }

    fn scopes<'a>(&'a self, snapshots: &'a [Snapshot]) -> Vec<metrics::Scope<'a>> {
        self.contexts
            .iter()
            .zip(snapshots)
            .map(|(context, snapshot)| metrics::Scope {
                context: context.context.as_deref(),
                // Labelled only beside a context label: several served.
                workspace: context.context.as_ref().map(|_| context.workspace.as_str()),
                snapshot,
            })
            .collect()
    }
}

/// The routes: the metrics at `telemetry_path`, `/healthz`, and a landing
/// page at `/`; every one behind the web config's basic auth, when it has
/// users (as the exporter toolkit guards every path).
pub fn router(served: Arc<Served>, telemetry_path: &str, web: Option<Arc<WebConfig>>) -> Router {
    let landing = landing_page(telemetry_path);
    Router::new()
        .route("/", get(move || std::future::ready(Html(landing.clone()))))
        .route(telemetry_path, get(metrics_handler))
        .route("/healthz", get(healthz))
        .with_state(served)
        .layer(axum::middleware::from_fn_with_state(
            web,
            require_basic_auth,
        ))
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
        let asks_openmetrics = accepts(headers, header::ACCEPT, |media| {
            media.eq_ignore_ascii_case("application/openmetrics-text")
        });
        if asks_openmetrics {
            Self::OpenMetrics
        } else {
            Self::Text004
        }
    }
}

/// The body of one scrape in `format`: the data families as last encoded,
/// then the process's own, read now.
pub fn render(served: &Served, format: Format) -> Result<String, std::fmt::Error> {
    let encoded = served.encoded()?;
    let mut process = String::new();
    prometheus_client::encoding::text::encode_registry(
        &mut process,
        &(served.process_stats)().registry(),
    )?;
    Ok(match format {
        Format::OpenMetrics => {
            let mut body = String::with_capacity(encoded.openmetrics.len() + process.len() + 8);
            body.push_str(&encoded.openmetrics);
            body.push_str(&process);
            prometheus_client::encoding::text::encode_eof(&mut body)?;
            body
        }
        Format::Text004 => encoded.text004.clone() + &text004::from_openmetrics(&process),
    })
}

async fn metrics_handler(State(served): State<Arc<Served>>, headers: HeaderMap) -> Response {
    let format = Format::negotiate(&headers);
    let body = match render(&served, format) {
        Ok(body) => body,
        Err(error) => {
            tracing::error!(%error, "cannot encode the metrics");
            return (
                StatusCode::INTERNAL_SERVER_ERROR,
                "cannot encode the metrics\n",
            )
                .into_response();
        }
    };
    let content_type = match format {
        Format::OpenMetrics => OPENMETRICS_CONTENT_TYPE,
        Format::Text004 => text004::CONTENT_TYPE,
    };
    let content_type = (header::CONTENT_TYPE, HeaderValue::from_static(content_type));
    let vary = (
        header::VARY,
        HeaderValue::from_static("accept, accept-encoding"),
    );
    if accepts_gzip(&headers) {
        // Prometheus asks for gzip on every scrape: a text body shrinks
        // tenfold. client_golang's handler compresses when asked too.
        if let Ok(compressed) = gzip(body.as_bytes()) {
            let encoding = (header::CONTENT_ENCODING, HeaderValue::from_static("gzip"));
            return ([content_type, vary, encoding], compressed).into_response();
        }
    }
    ([content_type, vary], body).into_response()
}

/// Whether `Accept-Encoding` names gzip (or `*`) with a weight above zero.
pub fn accepts_gzip(headers: &HeaderMap) -> bool {
    accepts(headers, header::ACCEPT_ENCODING, |coding| {
        coding.eq_ignore_ascii_case("gzip") || coding == "*"
    })
}

/// Whether a list header (`Accept`, `Accept-Encoding`) names a value that
/// `wanted` takes, without `q=0` ("not this one").
fn accepts(headers: &HeaderMap, name: header::HeaderName, wanted: impl Fn(&str) -> bool) -> bool {
    headers
        .get_all(name)
        .iter()
        .filter_map(|value| value.to_str().ok())
        .flat_map(|value| value.split(','))
        .any(|item| {
            let mut parts = item.split(';').map(str::trim);
            let value = parts.next().unwrap_or("");
            let refused = parts.any(|p| {
                p.strip_prefix("q=")
                    .and_then(|q| q.parse::<f32>().ok())
                    .is_some_and(|q| q <= 0.0)
            });
            wanted(value) && !refused
        })
}

fn gzip(bytes: &[u8]) -> std::io::Result<Vec<u8>> {
    use std::io::Write;
    let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    encoder.write_all(bytes)?;
    encoder.finish()
}

/// A small page at `/` that says what this is and links the endpoints, as
/// node_exporter's does, for someone who opens the address in a browser.
fn landing_page(telemetry_path: &str) -> String {
    // The path is the operator's flag; escaped all the same.
    let path = telemetry_path
        .replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('"', "&quot;");
    format!(
        "<!DOCTYPE html>\n<html><head><title>vantage exporter</title></head>\n<body>\n<h1>vantage exporter</h1>\n<p>Version {}. Metrics for Prometheus, from a cache the exporter's poller refreshes; a scrape never calls the API.</p>\n<ul>\n<li><a href=\"{path}\">{path}</a>: the metrics</li>\n<li><a href=\"/healthz\">/healthz</a>: 200 while every source answers, 503 once one has failed past its interval</li>\n</ul>\n</body></html>\n",
        env!("CARGO_PKG_VERSION")
    )
}

/// 200 while every source each context polls is healthy (it answered, or
/// failed for less than one interval since it did); 503 as soon as one has
/// failed past its interval (or failed without ever answering), and before
/// the first answer, so a load balancer or a probe sees an outage as the
/// alert rules do. The body names each context's sources down.
async fn healthz(State(served): State<Arc<Served>>) -> Response {
    let (status, body) = health(&served);
    (status, body).into_response()
}

/// `/healthz`'s status and body.
pub fn health(served: &Served) -> (StatusCode, String) {
    let now = served.clock.now();
    let mut healthy = true;
    let lines: Vec<String> = served
        .contexts
        .iter()
        .map(|context| {
            let snapshot = context.cache.snapshot();
            let down: Vec<&str> = snapshot.down(now).into_iter().map(Source::as_str).collect();
            // Failing, but within an interval of their last answer: a blip.
            let failing: Vec<&str> = snapshot
                .polled
                .keys()
                .filter(|source| {
                    snapshot.last_poll_ok.get(*source) == Some(&false)
                        && !down.contains(&source.as_str())
                })
                .map(|source| source.as_str())
                .collect();
            let answered = snapshot.answered_once();
            healthy &= answered && down.is_empty();
            let mut state = match (answered, down.is_empty()) {
                (false, true) => "no source has answered yet".to_owned(),
                (false, false) => format!("no source has answered yet (down: {})", down.join(", ")),
                (true, true) => "all sources up".to_owned(),
                (true, false) => format!("down: {}", down.join(", ")),
            };
            if !failing.is_empty() {
                state.push_str(&format!(
                    "; failing within their interval: {}",
                    failing.join(", ")
                ));
            }
            let cycles = snapshot.cycles;
            match &context.context {
                Some(name) => format!("{name}: {state}; {cycles} poll cycles"),
                None => format!("{state}; {cycles} poll cycles"),
            }
        })
        .collect();
    let (status, verdict) = match healthy {
        true => (StatusCode::OK, "ok"),
        false => (StatusCode::SERVICE_UNAVAILABLE, "unhealthy"),
    };
    (status, format!("{verdict}: {}\n", lines.join("; ")))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;
    use time::macros::datetime;

    /// A manual clock and a cache whose insights are polled every minute.
    fn polled_every_minute() -> (time::OffsetDateTime, Clock, Cache) {
        let now = datetime!(2026-11-22 12:00:00 UTC);
        let cache = Cache::default();
        cache.update(|snapshot| {
            snapshot
                .polled
                .insert(Source::Insights, Duration::from_secs(60));
        });
        (now, Clock::manual(now), cache)
    }

    #[test]
    fn a_scrape_shows_the_latest_data_and_when_it_was_read() {
        let (now, clock, cache) = polled_every_minute();
        cache.update(|snapshot| {
            snapshot.fetched_at.insert(Source::Insights, now);
            snapshot.last_poll_ok.insert(Source::Insights, true);
            snapshot.client.requests_by_code.insert("200".into(), 1);
        });
        let mut served = Served::single("ws".into(), cache.clone(), clock.clone());
        served.process_stats = ProcessStats::default;
        let read_at = "vantage_last_success_timestamp_seconds{source=\"insights\"} 1795348800.0";
        let requests = |count| format!("vantage_client_requests_total{{code=\"200\"}} {count}");
        let has = |text: &str, line: &str| text.lines().any(|l| l == line);

        let first = render(&served, Format::Text004).unwrap();
        assert!(has(&first, read_at) && has(&first, &requests(1)), "{first}");
        // The clock moves, the data does not: neither does the scrape.
        clock.advance(time::Duration::seconds(5));
        let later = render(&served, Format::Text004).unwrap();
        assert_eq!(later, first);
        let openmetrics = render(&served, Format::OpenMetrics).unwrap();
        assert!(openmetrics.ends_with("# EOF\n"), "{openmetrics}");
        // A poll changes the data: the next scrape shows it.
        cache.update(|snapshot| {
            snapshot.client.requests_by_code.insert("200".into(), 2);
        });
        let updated = render(&served, Format::Text004).unwrap();
        assert!(has(&updated, &requests(2)), "{updated}");
    }

    #[test]
    fn health_is_unavailable_until_a_source_answers_and_once_one_fails_past_its_interval() {
        let (now, clock, cache) = polled_every_minute();
        cache.update(|snapshot| {
            snapshot
                .polled
                .insert(Source::Inventory, Duration::from_secs(600));
        });
        let served = Served::single("ws".into(), cache.clone(), clock.clone());
        let (status, body) = health(&served);
        assert_eq!(status, StatusCode::SERVICE_UNAVAILABLE, "{body}");
        assert!(body.contains("no source has answered yet"), "{body}");

        // Insights answers; the inventory has not been asked yet: no outcome.
        cache.update(|snapshot| {
            snapshot.fetched_at.insert(Source::Insights, now);
            snapshot.last_poll_ok.insert(Source::Insights, true);
        });
        let (status, body) = health(&served);
        assert_eq!(status, StatusCode::OK, "{body}");
        assert_eq!(body, "ok: all sources up; 0 poll cycles\n");

        // The inventory answers, then fails: within its interval, a blip...
        cache.update(|snapshot| {
            snapshot.fetched_at.insert(Source::Inventory, now);
            snapshot.last_poll_ok.insert(Source::Inventory, false);
        });
        clock.advance(time::Duration::seconds(600));
        let (status, body) = health(&served);
        assert_eq!(status, StatusCode::OK, "{body}");
        assert!(
            body.contains("failing within their interval: inventory"),
            "{body}"
        );
        // ...past it, an outage, though insights still answers.
        clock.advance(time::Duration::seconds(1));
        cache.update(|snapshot| {
            snapshot
                .fetched_at
                .insert(Source::Insights, now + time::Duration::seconds(601));
        });
        let (status, body) = health(&served);
        assert_eq!(status, StatusCode::SERVICE_UNAVAILABLE, "{body}");
        assert_eq!(body, "unhealthy: down: inventory; 0 poll cycles\n");
    }

    fn accept(value: &'static str) -> HeaderMap {
        let mut headers = HeaderMap::new();
        headers.insert(header::ACCEPT, HeaderValue::from_static(value));
        headers
    }

    #[test]
    fn gzip_when_asked_for() {
        let encoding = |value: &'static str| {
            let mut headers = HeaderMap::new();
            headers.insert(header::ACCEPT_ENCODING, HeaderValue::from_static(value));
            headers
        };
        assert!(accepts_gzip(&encoding("gzip")));
        assert!(accepts_gzip(&encoding("deflate, GZIP;q=0.5")));
        assert!(accepts_gzip(&encoding("*")));
        assert!(!accepts_gzip(&encoding("gzip;q=0")));
        assert!(!accepts_gzip(&encoding("identity")));
        assert!(!accepts_gzip(&HeaderMap::new()));
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
