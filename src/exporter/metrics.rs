//! The cached snapshot as metric families, built afresh from each new poll's
//! data so a scrape sees one poll's data whole and a label set that vanished is
//! gone. prometheus-client names, types and escapes them; [`data_registry`] is
//! encoded once per change of the cache.

mod build;
mod families;
mod policy;
mod poll;

use prometheus_client::registry::Registry;

use self::families::{Counters, Families, Family, Gauges, InfoFamily, Labels};
use super::cache::{Snapshot, Source};
use crate::api::model::ReviewPriority;
use crate::text::escape_invisible;

/// The `review_priority` label of projects not yet scored.
pub const UNSCORED: &str = "unscored";

/// One context's data, and the labels every one of its samples carries.
pub struct Scope<'a> {
    /// `Some` when several contexts are served: then every sample says which.
    pub context: Option<&'a str>,
    /// `Some` when several contexts are served. One workspace gets no label:
    /// a target's own labels belong to the scrape config (Prometheus's
    /// "Writing exporters"), as node_exporter labels no series with its host.
    pub workspace: Option<&'a str>,
    pub snapshot: &'a Snapshot,
}

impl Scope<'_> {
    /// `context` (when set) and `workspace`, then `more`. Every value is
    /// made safe to read as the human formats make it (DESIGN.md, "Output
    /// that is safe to look at"): the exposition formats escape only `\`, `"`
    /// and a line feed, so `curl /metrics` on a terminal would otherwise get a
    /// service-given name's escape sequences raw.
    fn labels(&self, more: &[(&'static str, &str)]) -> Labels {
        self.context
            .map(|context| ("context", context))
            .into_iter()
            .chain(self.workspace.map(|workspace| ("workspace", workspace)))
            .chain(more.iter().copied())
            .map(|(name, value)| (name, escape_invisible(value).into_owned()))
            .collect()
    }

    /// A HELP text that says the values are cached, and from which source (a
    /// scrape never calls the API). No interval: a HELP that changed with the
    /// flags would differ between two exporters of one job.
    fn cached(&self, help: &str, source: Source) -> String {
        format!("{help}; cached from {}", source.as_str())
    }

    /// One label set per entry of `values`, `name` = its key, with its value.
    fn each<'v, K: AsRef<str>, V>(
        &'v self,
        name: &'static str,
        values: impl IntoIterator<Item = (K, V)> + 'v,
    ) -> impl Iterator<Item = (Labels, V)> + 'v {
        values
            .into_iter()
            .map(move |(key, value)| (self.labels(&[(name, key.as_ref())]), value))
    }
}

/// Every family of the cached data: what changes only when a poll changes
/// the snapshots. No family depends on the clock: the poller's times are
/// written as timestamps (`vantage_last_success_timestamp_seconds`), as the
/// Prometheus guides ask, so the same cache always encodes the same.
pub fn data_registry(scopes: &[Scope<'_>]) -> Registry {
    into_registry(data_families(scopes))
}

fn data_families(scopes: &[Scope<'_>]) -> Families {
    let mut families = Families::default();
    build::add_build_info(&mut families);
    // Family by family, so each family's samples stay together.
    for scope in scopes {
        add_insights(&mut families, scope);
    }
    for scope in scopes {
        add_inventory(&mut families, scope);
    }
    for scope in scopes {
        add_watched(&mut families, scope);
    }
    for scope in scopes {
        add_client(&mut families, scope);
    }
    poll::add_poll(&mut families, scopes);
    policy::add_policies(&mut families, scopes);
    families
}

fn into_registry(families: Families) -> Registry {
    let mut registry = Registry::with_prefix("vantage");
    families.register(&mut registry);
    registry
}

fn add_insights(families: &mut Families, scope: &Scope<'_>) {
    let Some(insights) = &scope.snapshot.insights else {
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
        families.gauge(
            name,
            &scope.cached(help, Source::Insights),
            scope.labels(&[]),
            metric.value,
        );
        families.gauge(
            &format!("{name}_delta_30d"),
            &scope.cached(
                &format!("Change of {name} over the last 30 days, as the service reports it"),
                Source::Insights,
            ),
            scope.labels(&[]),
            metric.delta_30d,
        );
    }
    // The insights' risk counts have no unscored bucket: the projects left over
    // are the ones not yet scored.
    let risk = &summary.risk;
    let scored = risk.needs_review + risk.review_recommended + risk.no_review_needed;
    let unscored = (summary.total_projects.value - scored).max(0);
    for (priority, count) in [
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
    ] {
        families.gauge(
            "projects_by_review_priority",
            &scope.cached("Projects by review priority (from insights; unscored = projects less the scored ones)", Source::Insights),
            scope.labels(&[("review_priority", priority)]),
            count,
        );
    }
    for finding in &insights.findings {
        families.gauge(
            "projects_by_finding_type",
            &scope.cached(
                "Projects matching each security finding type (a project may match several)",
                Source::Insights,
            ),
            scope.labels(&[("finding_type", &finding.id)]),
            finding.project_count,
        );
    }
    for finding in &insights.findings {
        families.info(
            "finding_type",
            &scope.cached(
                "Title, category and review priority of each finding type",
                Source::Insights,
            ),
            scope.labels(&[
                ("finding_type", &finding.id),
                ("title", &finding.title),
                ("category", &finding.category),
                ("review_priority", finding.review_priority.as_str()),
            ]),
        );
    }
}

fn add_inventory(families: &mut Families, scope: &Scope<'_>) {
    let Some(tally) = &scope.snapshot.inventory else {
        return;
    };
    families.samples(
        "projects_by_publish_audience",
        &scope.cached("Projects by publish audience (not_published for projects not published), from the inventory walk", Source::Inventory),
        scope.each("publish_audience", &tally.by_publish_audience),
        Families::gauge,
    );
    families.samples(
        "projects_by_visibility",
        &scope.cached(
            "Projects by visibility, from the inventory walk",
            Source::Inventory,
        ),
        scope.each("visibility", &tally.by_visibility),
        Families::gauge,
    );
    families.gauge(
        "open_pii_findings",
        &scope.cached(
            "Open personal-data findings across the workspace's projects, from the inventory walk",
            Source::Inventory,
        ),
        scope.labels(&[]),
        tally.open_pii_findings,
    );
}

fn add_watched(families: &mut Families, scope: &Scope<'_>) {
    const INFO: (&str, &str) = (
        "project",
        "The watched project's name; join on the project label",
    );
    const CURRENT: (&str, &str) = (
        "project_current_visitors",
        "Visitors active in the last 5 minutes on a watched project",
    );
    const LAST_MINUTE: (&str, &str) = (
        "project_last_minute_visitors",
        "Visitors in the last complete minute on a watched project",
    );
    let watched = &scope.snapshot.watched;
    if watched.is_empty() {
        return;
    }
    add_watch_problems(families, scope);
    // Each family is made (empty) in this order, so the output's order does not
    // depend on which data came first.
    let help = |(name, help): (&str, &str)| {
        let source = match name {
            "project" => Source::Project,
            _ => Source::Realtime,
        };
        scope.cached(help, source)
    };
    for family in [INFO, CURRENT, LAST_MINUTE] {
        let empty = || match family.0 {
            "project" => Family::Info(InfoFamily::default()),
            _ => Family::Gauges(Gauges::default()),
        };
        families.family(family.0, &help(family), empty);
    }
    for (id, project) in watched {
        if let Some(name) = &project.name {
            families.info(
                INFO.0,
                &help(INFO),
                scope.labels(&[("project", id), ("name", name)]),
            );
        }
        let visitors = [
            (CURRENT, project.current_visitors),
            (LAST_MINUTE, project.last_minute_visitors),
        ];
        for (family, count) in visitors {
            if let Some(count) = count {
                let labels = scope.labels(&[("project", id)]);
                families.gauge(family.0, &help(family), labels, count);
            }
        }
    }
}

/// `vantage_watched_project_problem{project,problem} 1` for each watched
/// project that has nothing to report (`not_found`, `never_published`), so a
/// typo in `--watch` shows on a dashboard, not only once in the log.
fn add_watch_problems(families: &mut Families, scope: &Scope<'_>) {
    const PROBLEM: (&str, &str) = (
        "watched_project_problem",
        "1 for a watched project that has nothing to report: not_found (the key does not reach it, or it was deleted) or never_published (no analytics)",
    );
    families.family(PROBLEM.0, PROBLEM.1, || Family::Gauges(Gauges::default()));
    for (id, problem) in &scope.snapshot.watch_problems {
        let labels = scope.labels(&[("project", id), ("problem", problem.label())]);
        families.gauge(PROBLEM.0, PROBLEM.1, labels, 1);
    }
}

fn add_client(families: &mut Families, scope: &Scope<'_>) {
    let client = &scope.snapshot.client;
    // Named as client_golang's instrumented round tripper names them.
    const REQUESTS: (&str, &str) = (
        "client_requests",
        "API requests the exporter's client sent that got an answer, by HTTP status code",
    );
    families.family(REQUESTS.0, REQUESTS.1, || {
        Family::Counters(Counters::default())
    });
    families.samples(
        REQUESTS.0,
        REQUESTS.1,
        scope.each("code", &client.requests_by_code),
        Families::counter,
    );
    families.counter(
        "client_transport_failures",
        "API requests the exporter's client sent that got no answer (refused, reset, timed out, TLS)",
        scope.labels(&[]),
        client.transport_failures,
    );
    families.histogram(
        "client_request_duration_seconds",
        "How long the API took to answer the exporter's client's requests",
        scope.labels(&[]),
        &client.durations,
    );
    families.counter(
        "client_retries",
        "API requests the exporter's client retried",
        scope.labels(&[]),
        client.retries,
    );
    if let Some(state) = client.rate_limit {
        families.gauge(
            "rate_limit_remaining",
            "Requests left in the credential's rate-limit window, as last seen",
            scope.labels(&[]),
            i64::from(state.remaining),
        );
        families.gauge(
            "rate_limit_limit",
            "The credential's rate limit, as last seen",
            scope.labels(&[]),
            i64::from(state.limit),
        );
        if let Some(reset) = state.reset {
            families.float(
                "rate_limit_reset_timestamp_seconds",
                "When the credential's rate-limit window next recovers (X-RateLimit-Reset), in seconds since the Unix epoch, as last seen",
                scope.labels(&[]),
                reset.unix_timestamp() as f64,
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::model::{FindingType, Insights, InsightsSummary, Metric, RiskCounts};
    use crate::clock::Clock;
    use crate::exporter::cache::{InventoryTally, Watched};
    use crate::exporter::http::{Format, Served, render};
    use crate::exporter::process::ProcessStats;
    use crate::exporter::{Cache, text004};
    use std::collections::BTreeMap;
    use time::OffsetDateTime;
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
        snapshot.client.requests_by_code.insert("200".into(), 5);
        snapshot
            .polled
            .insert(Source::Insights, std::time::Duration::from_secs(60));
        snapshot.last_poll_ok.insert(Source::Insights, true);
        snapshot
    }

    fn assert_has_lines(text: &str, expected: &[&str]) {
        for expected in expected {
            assert!(
                text.lines().any(|line| line == *expected),
                "missing {expected:?} in\n{text}"
            );
        }
    }

    fn scrape(snapshot: Snapshot, format: Format) -> String {
        let cache = Cache::default();
        cache.update(|cached| *cached = snapshot);
        let mut served = Served::single("ws_acme".into(), cache, Clock::manual(NOW));
        served.process_stats = ProcessStats::default;
        render(&served, format).expect("encodes")
    }

    #[test]
    fn text_004_lines() {
        let text = scrape(snapshot("Invoice finder"), Format::Text004);
        assert_has_lines(
            &text,
            &[
                "# HELP vantage_projects Projects in the workspace; cached from insights.",
                "# TYPE vantage_projects gauge",
                "vantage_projects 12",
                "vantage_externally_published_projects_delta_30d -1",
                "vantage_projects_by_review_priority{review_priority=\"unscored\"} 2",
                "vantage_projects_by_review_priority{review_priority=\"needs_review\"} 3",
                "vantage_projects_by_finding_type{finding_type=\"public_security_exposure\"} 3",
                "# TYPE vantage_finding_type_info gauge",
                "vantage_projects_by_publish_audience{publish_audience=\"not_published\"} 8",
                "vantage_open_pii_findings 6",
                "vantage_project_current_visitors{project=\"prj_1\"} 9",
                "vantage_project_last_minute_visitors{project=\"prj_1\"} 2",
                "# TYPE vantage_project_info gauge",
                "vantage_project_info{project=\"prj_1\",name=\"Invoice finder\"} 1",
                "# TYPE vantage_client_requests_total counter",
                "vantage_client_requests_total{code=\"200\"} 5",
                "vantage_poll_errors_total{source=\"inventory\"} 0",
                "vantage_last_success_timestamp_seconds{source=\"insights\"} 1795348710.0",
                "vantage_up{source=\"insights\"} 1",
                "# TYPE vantage_client_request_duration_seconds histogram",
                "vantage_client_request_duration_seconds_bucket{le=\"+Inf\"} 0",
                "vantage_client_transport_failures_total 0",
                "# TYPE vantage_exporter_build_info gauge",
                &build_info(),
            ],
        );
        assert!(!text.contains("# EOF"));
        assert!(!text.contains("# UNIT"));
        assert!(!text.contains("workspace="), "one workspace: no label");
    }

    fn build_info() -> String {
        use crate::build_info::{COMMIT, GLIBC, RUSTC, TARGET, VERSION};
        format!(
            "vantage_exporter_build_info{{version=\"{VERSION}\",commit=\"{COMMIT}\",target=\"{TARGET}\",rustc=\"{RUSTC}\",glibc=\"{GLIBC}\"}} 1"
        )
    }

    #[test]
    fn openmetrics_lines() {
        let text = scrape(snapshot("Invoice finder"), Format::OpenMetrics);
        assert!(text.ends_with("# EOF\n"), "{text}");
        assert_has_lines(
            &text,
            &[
                "# TYPE vantage_client_requests counter",
                "vantage_client_requests_total{code=\"200\"} 5",
                "# TYPE vantage_project info",
                "vantage_project_info{project=\"prj_1\",name=\"Invoice finder\"} 1",
                "# TYPE vantage_last_success_timestamp_seconds gauge",
                "# UNIT vantage_last_success_timestamp_seconds seconds",
                "# TYPE vantage_client_request_duration_seconds histogram",
                "# UNIT vantage_client_request_duration_seconds seconds",
                "# TYPE vantage_exporter_build info",
                &build_info(),
            ],
        );
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
                    "vantage_project_info{{project=\"prj_1\",name=\"{}\"}} 1",
                    escaped(&escape_invisible(&text))
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
            text.contains("vantage_poll_errors_total{source=\"insights\"} 0"),
            "{text}"
        );
    }
}
