//! Streaming a 20,000-project inventory through `vantage::api::Client` versus a
//! bare sequential reqwest loop over the same pages, against the in-process
//! reference server. Run: `cargo bench --bench client`.
//!
//! Both sides fetch pages of 100 and decode them into `InventoryPage`; the
//! difference is the client's own work (pacing, retry bookkeeping, events,
//! streaming). The runs alternate so that neither side gets a warmer server.

use std::time::{Duration, Instant};

use futures::TryStreamExt;
use vantage::api::model::InventoryPage;
use vantage::api::{Client, InventoryParams};

#[path = "support/mod.rs"]
mod support;

const PROJECTS: usize = 20_000;
const PAGE: u32 = 100;
const ROUNDS: usize = 7;

#[tokio::main]
async fn main() {
    // The comparison is about the client, not about waiting for a rate limit.
    let served = support::serve_generated(PROJECTS, 200, |_| {}).await;
    let (server, workspace, key, client) =
        (served.server, served.workspace, served.key, served.client);
    let base = server.base_url();
    let bare = reqwest::Client::new();

    // Warm both paths (connection pool, server caches) once.
    assert_eq!(via_client(&client, &workspace).await, PROJECTS);
    assert_eq!(via_reqwest(&bare, &base, &key, &workspace).await, PROJECTS);

    let mut client_times = Vec::new();
    let mut bare_times = Vec::new();
    for round in 0..ROUNDS {
        let (first_is_client, mut a, mut b) = (round % 2 == 0, Duration::ZERO, Duration::ZERO);
        for side in [first_is_client, !first_is_client] {
            let started = Instant::now();
            let count = if side {
                via_client(&client, &workspace).await
            } else {
                via_reqwest(&bare, &base, &key, &workspace).await
            };
            assert_eq!(count, PROJECTS);
            if side {
                a = started.elapsed();
            } else {
                b = started.elapsed();
            }
        }
        client_times.push(a);
        bare_times.push(b);
    }
    let client_median = median(&mut client_times);
    let bare_median = median(&mut bare_times);
    println!("inventory of {PROJECTS} projects in pages of {PAGE}, median of {ROUNDS} rounds:");
    println!(
        "  vantage::api::Client stream  {:>9.1} ms",
        ms(client_median)
    );
    println!("  bare reqwest loop            {:>9.1} ms", ms(bare_median));
    println!(
        "  ratio client / bare          {:>9.3}",
        client_median.as_secs_f64() / bare_median.as_secs_f64()
    );
    server.stop().await;
}

async fn via_client(client: &Client, workspace: &str) -> usize {
    let params = InventoryParams {
        limit: Some(PAGE),
        ..Default::default()
    };
    client
        .inventory_stream(workspace, params)
        .try_fold(0usize, |count, _item| async move { Ok(count + 1) })
        .await
        .expect("stream")
}

async fn via_reqwest(http: &reqwest::Client, base: &str, key: &str, workspace: &str) -> usize {
    let url = format!("{base}/v1/workspaces/{workspace}/security-center/insights/projects");
    let mut cursor: Option<String> = None;
    let mut count = 0;
    loop {
        let mut query = vec![("limit", PAGE.to_string())];
        if let Some(cursor) = &cursor {
            query.push(("cursor", cursor.clone()));
        }
        let body = http
            .get(&url)
            .query(&query)
            .header("service-api-key", key)
            .header("service-version", vantage::api::model::API_VERSION)
            .header("accept", "application/json")
            .send()
            .await
            .expect("send")
            .bytes()
            .await
            .expect("body");
        let page: InventoryPage = serde_json::from_slice(&body).expect("page");
        count += page.data.len();
        if !page.pagination.has_more {
            return count;
        }
        cursor = page.pagination.next_cursor;
    }
}

fn median(times: &mut [Duration]) -> Duration {
    times.sort();
    times[times.len() / 2]
}

fn ms(duration: Duration) -> f64 {
    duration.as_secs_f64() * 1000.0
}
