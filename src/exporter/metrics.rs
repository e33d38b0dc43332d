//! The cached snapshot as metric families, built afresh for each scrape so a
//! scrape sees one poll's data whole and a label set that vanished is gone.
//! prometheus-client names, types and escapes them.

use std::sync::atomic::AtomicU64;

use prometheus_client::encoding::{EncodeMetric, MetricEncoder};
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::{MetricType, TypedMetric};
use prometheus_client::registry::Registry;
use time::OffsetDateTime;

use super::cache::{Snapshot, Source};
use crate::api::model::ReviewPriority;

type Labels = Vec<(&'static str, String)>;
type Gauges = Ordered<Gauge>;
type Counters = Ordered<Counter>;

/// A family whose samples keep the order they were pushed in (the crate's
/// `Family` is a hash map: its order changes from scrape to scrape).
#[derive(Debug)]
struct Ordered<M>(Vec<(Labels, M)>);

impl<M> Default for Ordered<M> {
    fn default() -> Self {
        Self(Vec::new())
    }
}

impl<M> Ordered<M> {
    fn push(&mut self, labels: Labels, metric: M) {
        self.0.push((labels, metric));
    }
}

impl<M: TypedMetric> TypedMetric for Ordered<M> {
    const TYPE: MetricType = M::TYPE;
}

impl<M: EncodeMetric + TypedMetric> EncodeMetric for Ordered<M> {
    fn encode(&self, mut encoder: MetricEncoder) -> Result<(), std::fmt::Error> {
        for (labels, metric) in &self.0 {
            metric.encode(encoder.encode_family(labels)?)?;
        }
        Ok(())
    }

    fn metric_type(&self) -> MetricType {
        M::TYPE
    }

    fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

/// An OpenMetrics info family with one sample per label set (the crate's
/// `Info` holds one label set only).
#[derive(Debug, Default)]
struct InfoFamily(Vec<Labels>);

impl TypedMetric for InfoFamily {
    const TYPE: MetricType = MetricType::Info;
}

impl EncodeMetric for InfoFamily {
    fn encode(&self, mut encoder: MetricEncoder) -> Result<(), std::fmt::Error> {
        for labels in &self.0 {
            // Through `encode_family` with no labels of its own, 0.25 writes an
            // empty label (`{a="1",,b="2"}`); as the info's own set it does not.
            encoder.encode_info(labels)?;
        }
        Ok(())
    }

    fn metric_type(&self) -> MetricType {
        Self::TYPE
    }

    fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

/// The `review_priority` label of projects not yet scored.
pub const UNSCORED: &str = "unscored";

fn gauge(value: i64) -> Gauge {
    let gauge = Gauge::default();
    gauge.set(value);
    gauge
}

fn counter(value: u64) -> Counter {
    let counter = Counter::default();
    counter.inc_by(value);
    counter
}

fn gauges<'a>(label: &'static str, values: impl IntoIterator<Item = (&'a str, i64)>) -> Gauges {
    let mut family = Gauges::default();
    for (value, count) in values {
        family.push(vec![(label, value.to_owned())], gauge(count));
    }
    family
}

/// The registry of one scrape: every family prefixed `vantage_`, every sample
/// labelled with the workspace.
pub fn registry(workspace: &str, snapshot: &Snapshot, now: OffsetDateTime) -> Registry {
    let mut registry = Registry::with_prefix_and_labels(
        "vantage",
        [("workspace".into(), workspace.to_owned().into())].into_iter(),
    );
    register_insights(&mut registry, snapshot);
    register_inventory(&mut registry, snapshot);
    register_watched(&mut registry, snapshot);
    register_client(&mut registry, snapshot, now);
    registry
}

fn register_insights(registry: &mut Registry, snapshot: &Snapshot) {
    let Some(insights) = &snapshot.insights else {
        return;
    };
    let summary = &insights.summary;
    let metrics = [
        (
            "projects",
            "Projects in the workspace",
            &summary.total_projects,
        ),
        (
            "externally_published_projects",
            "Projects published outside the workspace",
            &summary.externally_published,
        ),
        (
            "workspace_members",
            "Members of the workspace",
            &summary.workspace_members,
        ),
    ];
    for (name, help, metric) in metrics {
        registry.register(name, help, gauge(metric.value));
        registry.register(
            format!("{name}_delta_30d"),
            format!("Change of {name} over the last 30 days, as the service reports it"),
            gauge(metric.delta_30d),
        );
    }
    // The insights' risk counts have no unscored bucket: the projects left over
    // are the ones not yet scored.
    let risk = &summary.risk;
    let scored = risk.needs_review + risk.review_recommended + risk.no_review_needed;
    let unscored = (summary.total_projects.value - scored).max(0);
    let by_priority = gauges(
        "review_priority",
        [
            (ReviewPriority::NeedsReview.as_str(), risk.needs_review),
            (
                ReviewPriority::ReviewRecommended.as_str(),
                risk.review_recommended,
            ),
            (
                ReviewPriority::NoReviewNeeded.as_str(),
                risk.no_review_needed,
            ),
            (UNSCORED, unscored),
        ],
    );
    registry.register(
        "projects_by_review_priority",
        "Projects by review priority (from insights; unscored = projects less the scored ones)",
        by_priority,
    );
    let by_finding = gauges(
        "finding_type",
        insights
            .findings
            .iter()
            .map(|finding| (finding.id.as_str(), finding.project_count)),
    );
    registry.register(
        "projects_by_finding_type",
        "Projects matching each security finding type (a project may match several)",
        by_finding,
    );
    let finding_info = InfoFamily(
        insights
            .findings
            .iter()
            .map(|finding| {
                vec![
                    ("finding_type", finding.id.clone()),
                    ("title", finding.title.clone()),
                    ("category", finding.category.clone()),
                    (
                        "review_priority",
                        finding.review_priority.as_str().to_owned(),
                    ),
                ]
            })
            .collect(),
    );
    registry.register(
        "finding_type",
        "Title, category and review priority of each finding type",
        finding_info,
    );
}

fn register_inventory(registry: &mut Registry, snapshot: &Snapshot) {
    let Some(tally) = &snapshot.inventory else {
        return;
    };
    let by_audience = gauges(
        "publish_audience",
        tally
            .by_publish_audience
            .iter()
            .map(|(audience, count)| (audience.as_str(), *count)),
    );
    registry.register(
        "projects_by_publish_audience",
        "Projects by publish audience (not_published for projects not published), from the inventory walk",
        by_audience,
    );
    let by_visibility = gauges(
        "visibility",
        tally
            .by_visibility
            .iter()
            .map(|(visibility, count)| (visibility.as_str(), *count)),
    );
    registry.register(
        "projects_by_visibility",
        "Projects by visibility, from the inventory walk",
        by_visibility,
    );
    registry.register(
        "open_pii_findings",
        "Open personal-data findings across the workspace's projects, from the inventory walk",
        gauge(tally.open_pii_findings),
    );
}

fn register_watched(registry: &mut Registry, snapshot: &Snapshot) {
    if snapshot.watched.is_empty() {
        return;
    }
    let mut current = Gauges::default();
    let mut last_minute = Gauges::default();
    let mut info = InfoFamily::default();
    for (id, watched) in &snapshot.watched {
        let labels = vec![("project", id.clone())];
        if let Some(visitors) = watched.current_visitors {
            current.push(labels.clone(), gauge(visitors));
        }
        if let Some(visitors) = watched.last_minute_visitors {
            last_minute.push(labels, gauge(visitors));
        }
        if let Some(name) = &watched.name {
            info.0
                .push(vec![("project", id.clone()), ("name", name.clone())]);
        }
    }
    registry.register(
        "project",
        "The watched project's name; join on the project label",
        info,
    );
    registry.register(
        "project_current_visitors",
        "Visitors active in the last 5 minutes on a watched project",
        current,
    );
    registry.register(
        "project_last_minute_visitors",
        "Visitors in the last complete minute on a watched project",
        last_minute,
    );
}

fn register_client(registry: &mut Registry, snapshot: &Snapshot, now: OffsetDateTime) {
    let client = &snapshot.client;
    let mut requests = Counters::default();
    for (status, count) in &client.requests_by_status {
        requests.push(vec![("status", status.clone())], counter(*count));
    }
    registry.register(
        "client_requests",
        "API requests the exporter sent, by HTTP status (none: no answer)",
        requests,
    );
    registry.register(
        "client_retries",
        "API requests the exporter's client retried",
        counter(client.retries),
    );
    if let Some(state) = client.rate_limit {
        registry.register(
            "rate_limit_remaining",
            "Requests left in the credential's rate-limit window, as last seen",
            gauge(i64::from(state.remaining)),
        );
        registry.register(
            "rate_limit_limit",
            "The credential's rate limit, as last seen",
            gauge(i64::from(state.limit)),
        );
    }
    let mut errors = Counters::default();
    let mut deferred = Counters::default();
    for source in Source::ALL {
        let labels = vec![("source", source.as_str().to_owned())];
        let count = |counts: &std::collections::BTreeMap<Source, u64>| {
            counter(counts.get(&source).copied().unwrap_or(0))
        };
        errors.push(labels.clone(), count(&snapshot.poll_errors));
        deferred.push(labels, count(&snapshot.polls_deferred));
    }
    registry.register(
        "poll_errors",
        "Polls of the API that failed, by source",
        errors,
    );
    registry.register(
        "polls_deferred",
        "Polls left for a later cycle to keep the rate-limit reserve, by source",
        deferred,
    );
    let mut age = Ordered::<Gauge<f64, AtomicU64>>::default();
    for (source, at) in &snapshot.fetched_at {
        let seconds = Gauge::<f64, AtomicU64>::default();
        // Whole milliseconds: the clocks are no finer, and the text stays short.
        let millis = (now - *at).whole_milliseconds().max(0);
        seconds.set(millis as f64 / 1000.0);
        age.push(vec![("source", source.as_str().to_owned())], seconds);
    }
    registry.register(
        "data_age_seconds",
        "Seconds since each source last answered",
        age,
    );
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::model::{FindingType, Insights, InsightsSummary, Metric, RiskCounts};
    use crate::clock::Clock;
    use crate::exporter::cache::{InventoryTally, Watched};
    use crate::exporter::http::{Format, Served, render};
    use crate::exporter::{Cache, text004};
    use std::collections::BTreeMap;
    use time::macros::datetime;

    const NOW: OffsetDateTime = datetime!(2026-11-22 12:00:00 UTC);

    fn metric(value: i64, delta_30d: i64) -> Metric {
        Metric {
            value,
            delta_30d,
            delta_window: "30 days".into(),
        }
    }

    fn finding(id: &str, title: &str, count: i64) -> FindingType {
        FindingType {
            id: id.into(),
            title: title.into(),
            description: String::new(),
            category: "exposure".into(),
            review_priority: ReviewPriority::NeedsReview,
            project_count: count,
        }
    }

    /// A snapshot whose every service-given string is `text`.
    pub(crate) fn snapshot(text: &str) -> Snapshot {
        let mut snapshot = Snapshot {
            insights: Some(Insights {
                as_of: None,
                findings: vec![
                    finding("public_security_exposure", "Public & exposed", 3),
                    finding(text, text, 1),
                ],
                summary: InsightsSummary {
                    total_projects: metric(12, 2),
                    externally_published: metric(4, -1),
                    workspace_members: metric(7, 0),
                    risk: RiskCounts {
                        needs_review: 3,
                        no_review_needed: 5,
                        review_recommended: 2,
                    },
                },
            }),
            inventory: Some(InventoryTally {
                projects: 12,
                by_publish_audience: BTreeMap::from([
                    ("public".into(), 4),
                    ("not_published".into(), 8),
                ]),
                by_visibility: BTreeMap::from([("restricted".into(), 12)]),
                by_review_priority: BTreeMap::new(),
                open_pii_findings: 6,
            }),
            ..Snapshot::default()
        };
        snapshot.watched.insert(
            "prj_1".into(),
            Watched {
                name: Some(text.into()),
                current_visitors: Some(9),
                last_minute_visitors: Some(2),
            },
        );
        snapshot
            .fetched_at
            .insert(Source::Insights, NOW - time::Duration::seconds(90));
        snapshot.client.requests_by_status.insert("200".into(), 5);
        snapshot
    }

    fn scrape(snapshot: Snapshot, format: Format) -> String {
        let cache = Cache::default();
        cache.update(|cached| *cached = snapshot);
        let served = Served {
            workspace: "ws_acme".into(),
            cache,
            clock: Clock::manual(NOW),
        };
        render(&served, format).expect("encodes")
    }

    #[test]
    fn text_004_lines() {
        let text = scrape(snapshot("Invoice finder"), Format::Text004);
        for expected in [
            "# HELP vantage_projects Projects in the workspace.",
            "# TYPE vantage_projects gauge",
            "vantage_projects{workspace=\"ws_acme\"} 12",
            "vantage_externally_published_projects_delta_30d{workspace=\"ws_acme\"} -1",
            "vantage_projects_by_review_priority{workspace=\"ws_acme\",review_priority=\"unscored\"} 2",
            "vantage_projects_by_review_priority{workspace=\"ws_acme\",review_priority=\"needs_review\"} 3",
            "vantage_projects_by_finding_type{workspace=\"ws_acme\",finding_type=\"public_security_exposure\"} 3",
            "# TYPE vantage_finding_type_info gauge",
            "vantage_projects_by_publish_audience{workspace=\"ws_acme\",publish_audience=\"not_published\"} 8",
            "vantage_open_pii_findings{workspace=\"ws_acme\"} 6",
            "vantage_project_current_visitors{workspace=\"ws_acme\",project=\"prj_1\"} 9",
            "vantage_project_last_minute_visitors{workspace=\"ws_acme\",project=\"prj_1\"} 2",
            "# TYPE vantage_project_info gauge",
            "vantage_project_info{workspace=\"ws_acme\",project=\"prj_1\",name=\"Invoice finder\"} 1",
            "# TYPE vantage_client_requests_total counter",
            "vantage_client_requests_total{workspace=\"ws_acme\",status=\"200\"} 5",
            "vantage_poll_errors_total{workspace=\"ws_acme\",source=\"inventory\"} 0",
            "vantage_data_age_seconds{workspace=\"ws_acme\",source=\"insights\"} 90.0",
        ] {
            assert!(
                text.lines().any(|line| line == expected),
                "missing {expected:?} in\n{text}"
            );
        }
        assert!(!text.contains("# EOF"));
        assert!(!text.contains("# UNIT"));
    }

    #[test]
    fn openmetrics_lines() {
        let text = scrape(snapshot("Invoice finder"), Format::OpenMetrics);
        assert!(text.ends_with("# EOF\n"), "{text}");
        for expected in [
            "# TYPE vantage_client_requests counter",
            "vantage_client_requests_total{workspace=\"ws_acme\",status=\"200\"} 5",
            "# TYPE vantage_project info",
            "vantage_project_info{workspace=\"ws_acme\",project=\"prj_1\",name=\"Invoice finder\"} 1",
        ] {
            assert!(
                text.lines().any(|line| line == expected),
                "missing {expected:?} in\n{text}"
            );
        }
    }

    /// Escapes a label value as both formats do.
    fn escaped(value: &str) -> String {
        value
            .replace('\\', "\\\\")
            .replace('"', "\\\"")
            .replace('\n', "\\n")
    }

    #[test]
    fn hostile_label_values_stay_inside_their_quotes() {
        let mut hostile = crate::hostile::hostile_strings();
        hostile.push("quote \" backslash \\ newline \n brace } comma , equals =".into());
        for text in hostile {
            for format in [Format::Text004, Format::OpenMetrics] {
                let scraped = scrape(snapshot(&text), format);
                let name_line = format!(
                    "vantage_project_info{{workspace=\"ws_acme\",project=\"prj_1\",name=\"{}\"}} 1",
                    escaped(&text)
                );
                assert!(
                    scraped.lines().any(|line| line == name_line),
                    "{format:?}: {name_line:?} not in\n{scraped}"
                );
                // Every line is a comment or a sample ending in a number: no
                // value broke out of its line.
                for line in scraped.lines() {
                    let value = line.rsplit(' ').next().unwrap_or("");
                    assert!(
                        line.starts_with('#') || value.parse::<f64>().is_ok(),
                        "{format:?}: broken line {line:?}"
                    );
                }
                if format == Format::Text004 {
                    assert_eq!(
                        scraped,
                        text004::from_openmetrics(&scrape(snapshot(&text), Format::OpenMetrics))
                    );
                }
            }
        }
    }

    #[test]
    fn families_without_data_are_left_out() {
        let text = scrape(Snapshot::default(), Format::Text004);
        assert!(!text.contains("vantage_projects{"), "{text}");
        assert!(!text.contains("vantage_project_info"), "{text}");
        assert!(
            text.contains("vantage_poll_errors_total{workspace=\"ws_acme\",source=\"insights\"} 0"),
            "{text}"
        );
    }
}
