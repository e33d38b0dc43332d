//! The cached snapshot as metric families, built afresh from each new poll's
//! data so a scrape sees one poll's data whole and a label set that vanished is
//! gone. prometheus-client names, types and escapes them. The families split in
//! two: what changes only with the data ([`data_registry`], encoded once per
//! change), and the data's age, which changes with the clock ([`ages_registry`],
//! encoded per scrape and written last).

mod families;

use prometheus_client::registry::Registry;
use time::OffsetDateTime;

use self::families::{Counters, Families, Family, Floats, Gauges, InfoFamily, Labels};
use super::cache::{Snapshot, Source};
use crate::api::model::ReviewPriority;

/// The `review_priority` label of projects not yet scored.
pub const UNSCORED: &str = "unscored";

/// One context's data, and the labels every one of its samples carries.
pub struct Scope<'a> {
    /// `Some` when several contexts are served: then every sample says which.
    pub context: Option<&'a str>,
    pub workspace: &'a str,
    pub snapshot: &'a Snapshot,
}

impl Scope<'_> {
    /// `context` (when set) and `workspace`, then `more`.
    fn labels(&self, more: &[(&'static str, &str)]) -> Labels {
        self.context
            .map(|context| ("context", context.to_owned()))
            .into_iter()
            .chain([("workspace", self.workspace.to_owned())])
            .chain(
                more.iter()
                    .map(|(name, value)| (*name, (*value).to_owned())),
            )
            .collect()
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

/// The registry of one scrape of one workspace: every family prefixed
/// `vantage_`, every sample labelled with the workspace.
pub fn registry(workspace: &str, snapshot: &Snapshot, now: OffsetDateTime) -> Registry {
    scopes_registry(
        &[Scope {
            context: None,
            workspace,
            snapshot,
        }],
        now,
    )
}

/// The registry of one scrape of every context served: [`data_registry`]'s
/// families, then [`ages_registry`]'s.
pub fn scopes_registry(scopes: &[Scope<'_>], now: OffsetDateTime) -> Registry {
    let mut families = data_families(scopes);
    for scope in scopes {
        add_ages(&mut families, scope, now);
    }
    into_registry(families)
}

/// Every family but the data's age: what changes only when a poll changes the
/// snapshots.
pub fn data_registry(scopes: &[Scope<'_>]) -> Registry {
    into_registry(data_families(scopes))
}

/// The data's age at `now`, of every context: the one family that changes
/// with the clock.
pub fn ages_registry(scopes: &[Scope<'_>], now: OffsetDateTime) -> Registry {
    let mut families = Families::default();
    for scope in scopes {
        add_ages(&mut families, scope, now);
    }
    into_registry(families)
}

fn data_families(scopes: &[Scope<'_>]) -> Families {
    let mut families = Families::default();
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
        families.gauge(name, help, scope.labels(&[]), metric.value);
        families.gauge(
            &format!("{name}_delta_30d"),
            &format!("Change of {name} over the last 30 days, as the service reports it"),
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
            "Projects by review priority (from insights; unscored = projects less the scored ones)",
            scope.labels(&[("review_priority", priority)]),
            count,
        );
    }
    for finding in &insights.findings {
        families.gauge(
            "projects_by_finding_type",
            "Projects matching each security finding type (a project may match several)",
            scope.labels(&[("finding_type", &finding.id)]),
            finding.project_count,
        );
    }
    for finding in &insights.findings {
        families.info(
            "finding_type",
            "Title, category and review priority of each finding type",
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
        "Projects by publish audience (not_published for projects not published), from the inventory walk",
        scope.each("publish_audience", &tally.by_publish_audience),
        Families::gauge,
    );
    families.samples(
        "projects_by_visibility",
        "Projects by visibility, from the inventory walk",
        scope.each("visibility", &tally.by_visibility),
        Families::gauge,
    );
    families.gauge(
        "open_pii_findings",
        "Open personal-data findings across the workspace's projects, from the inventory walk",
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
    // Each family is made (empty) in this order, so the output's order does not
    // depend on which data came first.
    for (name, help) in [INFO, CURRENT, LAST_MINUTE] {
        let empty = || match name {
            "project" => Family::Info(InfoFamily::default()),
            _ => Family::Gauges(Gauges::default()),
        };
        families.family(name, help, empty);
    }
    for (id, project) in watched {
        if let Some(name) = &project.name {
            families.info(
                INFO.0,
                INFO.1,
                scope.labels(&[("project", id), ("name", name)]),
            );
        }
        let visitors = [
            (CURRENT, project.current_visitors),
            (LAST_MINUTE, project.last_minute_visitors),
        ];
        for ((name, help), count) in visitors {
            if let Some(count) = count {
                families.gauge(name, help, scope.labels(&[("project", id)]), count);
            }
        }
    }
}

fn add_client(families: &mut Families, scope: &Scope<'_>) {
    let snapshot = scope.snapshot;
    let client = &snapshot.client;
    const REQUESTS: (&str, &str) = (
        "client_requests",
        "API requests the exporter sent, by HTTP status (none: no answer)",
    );
    families.family(REQUESTS.0, REQUESTS.1, || {
        Family::Counters(Counters::default())
    });
    families.samples(
        REQUESTS.0,
        REQUESTS.1,
        scope.each("status", &client.requests_by_status),
        Families::counter,
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
    }
    // Every source, 0 for one that never failed or waited.
    let every_source = |counts: &'_ std::collections::BTreeMap<Source, u64>| {
        Source::ALL.map(|source| (source.as_str(), counts.get(&source).copied().unwrap_or(0)))
    };
    families.samples(
        "poll_errors",
        "Polls of the API that failed, by source",
        scope.each("source", every_source(&snapshot.poll_errors)),
        Families::counter,
    );
    families.samples(
        "polls_deferred",
        "Polls left for a later cycle to keep the rate-limit reserve, by source",
        scope.each("source", every_source(&snapshot.polls_deferred)),
        Families::counter,
    );
}

fn add_ages(families: &mut Families, scope: &Scope<'_>, now: OffsetDateTime) {
    const AGE: (&str, &str) = (
        "data_age_seconds",
        "Seconds since each source last answered",
    );
    families.family(AGE.0, AGE.1, || Family::Floats(Floats::default()));
    for (source, at) in &scope.snapshot.fetched_at {
        // Whole milliseconds: the clocks are no finer, and the text stays short.
        let millis = (now - *at).whole_milliseconds().max(0);
        families.float(
            AGE.0,
            AGE.1,
            scope.labels(&[("source", source.as_str())]),
            millis as f64 / 1000.0,
        );
    }
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
        let served = Served::single("ws_acme".into(), cache, Clock::manual(NOW));
        render(&served, format).expect("encodes")
    }

    #[test]
    fn text_004_lines() {
        let text = scrape(snapshot("Invoice finder"), Format::Text004);
        assert_has_lines(
            &text,
            &[
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
            ],
        );
        assert!(!text.contains("# EOF"));
        assert!(!text.contains("# UNIT"));
    }

    #[test]
    fn openmetrics_lines() {
        let text = scrape(snapshot("Invoice finder"), Format::OpenMetrics);
        assert!(text.ends_with("# EOF\n"), "{text}");
        assert_has_lines(
            &text,
            &[
                "# TYPE vantage_client_requests counter",
                "vantage_client_requests_total{workspace=\"ws_acme\",status=\"200\"} 5",
                "# TYPE vantage_project info",
                "vantage_project_info{workspace=\"ws_acme\",project=\"prj_1\",name=\"Invoice finder\"} 1",
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
