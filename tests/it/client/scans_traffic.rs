//! The client's scan and traffic operations against the reference server:
//! typed answers, page streams, and the 404 types.

use futures::TryStreamExt;
use time::macros::datetime;
use vantage::api::model::{ErrorType, FindingStatus, Granularity, ScanStatus, SeriesValue};
use vantage::api::{ApiError, PageParams};

use crate::client::support::client;
use crate::common::*;

const PROJECT: &str = "prj_70256702db4f";

#[tokio::test]
async fn scans_pages_and_streams_newest_first() {
    let (server, clock) = demo_server().await;
    let harness = client(&server, &clock, ENTERPRISE_READONLY, |_| {});
    let page = harness
        .client
        .list_security_scans(PROJECT, &PageParams { limit: Some(2) }, None)
        .await
        .unwrap();
    assert_eq!(page.data.len(), 2);
    assert!(page.pagination.has_more);
    assert_eq!(page.data[0].id, "scn_576ceeb50f0f");
    assert_eq!(page.data[0].status, ScanStatus::Completed);
    assert_eq!(
        page.data[0].finished_at,
        Some(datetime!(2026-10-26 00:00 UTC))
    );
    let scans: Vec<_> = harness
        .client
        .security_scans_stream(PROJECT, PageParams { limit: Some(1) })
        .try_collect()
        .await
        .unwrap();
    assert_eq!(scans.len(), 4);
    assert!(scans.windows(2).all(|w| w[0].started_at >= w[1].started_at));

    let findings: Vec<_> = harness
        .client
        .scan_findings_stream(PROJECT, &scans[0].id, PageParams { limit: Some(1) })
        .try_collect()
        .await
        .unwrap();
    assert_eq!(findings.len(), 4);
    let open = findings
        .iter()
        .filter(|f| f.status == FindingStatus::Open)
        .count();
    assert_eq!(open, 2, "the inventory's info_count");

    let missing = harness
        .client
        .get_security_scan(PROJECT, "scn_nope")
        .await
        .unwrap_err();
    match missing {
        ApiError::Api(body) => assert_eq!(body.kind, ErrorType::SecurityScanNotFound),
        other => panic!("{other:?}"),
    }
}

#[tokio::test]
async fn traffic_is_typed_in_either_granularity() {
    let (server, clock) = demo_server().await;
    let harness = client(&server, &clock, PROJECTS_READ, |_| {});
    let from = datetime!(2026-11-20 00:00 UTC);
    let to = datetime!(2026-11-21 00:00 UTC);
    let daily = harness
        .client
        .get_traffic(PROJECT, from, to, &Granularity::Day)
        .await
        .unwrap();
    let series = &daily.time_series;
    assert_eq!(series.visitors.total, SeriesValue(16_308.0));
    assert_eq!(series.pageviews_per_visit.total, SeriesValue(2.5));
    assert_eq!(series.bounce_rate.label, "Bounce rate");
    assert_eq!(series.visitors.data[1].timestamp, to);
    let hourly = harness
        .client
        .get_traffic(PROJECT, from, to, &Granularity::Hour)
        .await
        .unwrap();
    assert_eq!(hourly.time_series.visitors.data.len(), 48);
    assert_eq!(hourly.time_series.visitors.total, series.visitors.total);

    let missing = harness
        .client
        .get_traffic("prj_missing", from, to, &Granularity::Day)
        .await
        .unwrap_err();
    match missing {
        ApiError::Api(body) => assert_eq!(body.kind, ErrorType::AnalyticsNotFound),
        other => panic!("{other:?}"),
    }
}
