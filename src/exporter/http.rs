//! `/metrics` and `/healthz`. A scrape never calls the API: it serves the
//! cache's data as encoded once after each change, and encodes only the data's
//! age, which changes with the clock.

use std::sync::{Arc, Mutex};

use axum::Router;
use axum::extract::State;
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::get;

use super::cache::{Cache, Snapshot};
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
    /// The data families as last encoded, and the cache versions they show.
    encoded: Mutex<Option<Arc<Encoded>>>,
}

/// The data families of every context, encoded in both formats (no `# EOF`),
/// with what is needed to add their age at a scrape.
struct Encoded {
    versions: Vec<u64>,
    openmetrics: String,
    text004: String,
    /// Each context's snapshot reduced to `fetched_at`, the part that ages.
    ages: Vec<Snapshot>,
}

impl Served {
    pub fn new(contexts: Vec<ServedContext>, clock: Clock) -> Self {
        Self {
            contexts,
            clock,
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
            ages: snapshots
                .into_iter()
                .map(|snapshot| Snapshot {
                    fetched_at: snapshot.fetched_at,
                    ..Snapshot::default()
                })
                .collect(),
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
                workspace: &context.workspace,
                snapshot,
            })
            .collect()
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

/// The body of one scrape in `format`: the data families as last encoded, then
/// their age now.
pub fn render(served: &Served, format: Format) -> Result<String, std::fmt::Error> {
    let encoded = served.encoded()?;
    let ages = metrics::ages_registry(&served.scopes(&encoded.ages), served.clock.now());
    let mut ages_text = String::new();
    prometheus_client::encoding::text::encode_registry(&mut ages_text, &ages)?;
    Ok(match format {
        Format::OpenMetrics => {
            let mut body = String::with_capacity(encoded.openmetrics.len() + ages_text.len() + 8);
            body.push_str(&encoded.openmetrics);
            body.push_str(&ages_text);
            prometheus_client::encoding::text::encode_eof(&mut body)?;
            body
        }
        Format::Text004 => encoded.text004.clone() + &text004::from_openmetrics(&ages_text),
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
    use crate::exporter::Source;
    use time::macros::datetime;

    #[test]
    fn a_scrape_shows_the_latest_data_and_its_age_now() {
        let now = datetime!(2026-11-22 12:00:00 UTC);
        let clock = Clock::manual(now);
        let cache = Cache::default();
        cache.update(|snapshot| {
            snapshot.fetched_at.insert(Source::Insights, now);
            snapshot.client.requests_by_status.insert("200".into(), 1);
        });
        let served = Served::single("ws".into(), cache.clone(), clock.clone());
        let age = |seconds| {
            format!("vantage_data_age_seconds{{workspace=\"ws\",source=\"insights\"}} {seconds}")
        };
        let requests = |count| {
            format!("vantage_client_requests_total{{workspace=\"ws\",status=\"200\"}} {count}")
        };
        let has = |text: &str, line: &str| text.lines().any(|l| l == line);

        let first = render(&served, Format::Text004).unwrap();
        assert!(
            has(&first, &age("0.0")) && has(&first, &requests(1)),
            "{first}"
        );
        // The clock moves, the data does not: the age follows the clock.
        clock.advance(time::Duration::seconds(5));
        let aged = render(&served, Format::OpenMetrics).unwrap();
        assert!(
            has(&aged, &age("5.0")) && has(&aged, &requests(1)),
            "{aged}"
        );
        assert!(aged.ends_with("# EOF\n"), "{aged}");
        // A poll changes the data: the next scrape shows it.
        cache.update(|snapshot| {
            snapshot.client.requests_by_status.insert("200".into(), 2);
        });
        let updated = render(&served, Format::Text004).unwrap();
        assert!(
            has(&updated, &age("5.0")) && has(&updated, &requests(2)),
            "{updated}"
        );
        assert_eq!(
            updated.matches("# TYPE vantage_data_age_seconds").count(),
            1
        );
    }

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
