//! `/metrics` label values carry no raw control, bidi or invisible character
//! from the service, in either format (issue 22, item 6): the hostile set as
//! project names, finding types and titles, categories and visibilities.

use std::collections::BTreeMap;

use vantage::api::model::{
    FindingType, Insights, InsightsSummary, Metric, ReviewPriority, RiskCounts,
};
use vantage::clock::Clock;
use vantage::exporter::cache::{InventoryTally, Watched};
use vantage::exporter::http::{Format, Served, render};
use vantage::exporter::{Cache, Snapshot};

use crate::cli::support::{assert_inert, hostile_set};
use crate::common::T0;

fn metric(value: i64) -> Metric {
    Metric {
        value,
        delta_30d: 0,
        delta_window: "30 days".into(),
    }
}

/// Every service-given string of a snapshot taken from `hostile`.
fn hostile_snapshot(hostile: &[String]) -> Snapshot {
    let findings = hostile
        .iter()
        .map(|text| FindingType {
            id: text.clone(),
            title: text.clone(),
            description: text.clone(),
            category: text.clone(),
            review_priority: ReviewPriority::parse(text),
            project_count: 1,
        })
        .collect();
    let tally = InventoryTally {
        projects: hostile.len() as i64,
        by_publish_audience: hostile.iter().map(|t| (t.clone(), 1)).collect(),
        by_visibility: hostile.iter().map(|t| (t.clone(), 1)).collect(),
        by_review_priority: BTreeMap::new(),
        open_pii_findings: 0,
    };
    let mut snapshot = Snapshot {
        insights: Some(Insights {
            as_of: None,
            findings,
            summary: InsightsSummary {
                total_projects: metric(1),
                externally_published: metric(1),
                workspace_members: metric(1),
                risk: RiskCounts {
                    needs_review: 0,
                    no_review_needed: 0,
                    review_recommended: 0,
                },
            },
        }),
        inventory: Some(tally),
        ..Snapshot::default()
    };
    for (n, text) in hostile.iter().enumerate() {
        snapshot.watched.insert(
            format!("prj_{n}"),
            Watched {
                name: Some(text.clone()),
                current_visitors: Some(1),
                last_minute_visitors: Some(1),
            },
        );
    }
    snapshot
}

#[test]
fn hostile_label_values_are_inert_in_both_formats() {
    let hostile = hostile_set();
    let cache = Cache::default();
    cache.update(|cached| *cached = hostile_snapshot(&hostile));
    // The workspace id too: it may come from the key's one workspace.
    let served = Served::single(hostile[1].clone(), cache, Clock::manual(T0));
    for format in [Format::Text004, Format::OpenMetrics] {
        let body = render(&served, format).expect("renders");
        assert!(body.contains("vantage_project_info{"), "{body}");
        assert_inert(body.as_bytes(), &format!("/metrics in {format:?}"));
        // Shown as the human formats show it, e.g. ESC as a visible `\x1b`
        // (its backslash escaped by the format).
        assert!(body.contains("\\\\x1b[31mRED ALERT"), "{format:?}");
        assert!(body.contains("\\\\u202e"), "{format:?}");
    }
}
