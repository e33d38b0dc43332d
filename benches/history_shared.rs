//! The shared history at the scale, on a real PostgreSQL (started as
//! the tests start it: `tests/it/common/postgres.rs`): recording a snapshot of
//! 20,000 projects and 5,000 members beyond the fetch, and the shared instant
//! start (a dashboard's first frame with the newest shared snapshot's data).
//! Run: `cargo bench --bench history_shared`; one JSON line per figure for
//! `scripts/perf` (rows 19 and 20).

#![allow(clippy::disallowed_macros, dead_code)]

#[path = "../tests/it/common/postgres.rs"]
mod postgres;

#[path = "support/mod.rs"]
mod support;

use std::time::{Duration, Instant};

use ratatui::Terminal;
use ratatui::backend::TestBackend;
use time::OffsetDateTime;
use vantage::history::walk::{self, WalkOptions};
use vantage::history::{HistoryConfig, HistoryLocation, PgTarget, Retention, Store};
use vantage::tui::app::{App, Identity};
use vantage::tui::settings::{AppSettings, TuiSettings};
use vantage::tui::theme::ColorDepth;

const PROJECTS: usize = 20_000;
const MEMBERS: usize = 5_000;
const STARTS: usize = 5;

fn median(values: &mut [Duration]) -> Duration {
    values.sort();
    values[values.len() / 2]
}

#[tokio::main]
async fn main() {
    let served = support::serve_generated(PROJECTS, MEMBERS, |_| {}).await;
    let (server, workspace, client) = (served.server, served.workspace, served.client);
    let fetch_started = Instant::now();
    let (capture, _report) = walk::capture(
        &client,
        &workspace,
        None,
        WalkOptions {
            detail_requests: 0,
            window: Duration::from_secs(60),
            reserve: None,
        },
        OffsetDateTime::now_utc,
        |_| {},
    )
    .await
    .expect("walk");
    let fetched_in = fetch_started.elapsed();
    server.stop().await;

    let location = std::thread::spawn(|| {
        let url = postgres::fresh_database();
        HistoryLocation::Database(PgTarget::parse(&url, None).expect("url"))
    })
    .join()
    .expect("a database");
    let (first, later) = {
        let location = location.clone();
        let capture = capture.clone();
        std::thread::spawn(move || {
            let mut store = Store::open_at(&location).expect("store");
            let started = Instant::now();
            store
                .record(&capture, Retention::default())
                .expect("record");
            let first = started.elapsed();
            let mut next = capture.clone();
            next.taken_at += time::Duration::minutes(1);
            for state in next.projects.iter_mut().step_by(50) {
                state.name = Some("renamed".into());
            }
            let started = Instant::now();
            store.record(&next, Retention::default()).expect("record");
            (first, started.elapsed())
        })
        .join()
        .expect("recorded")
    };

    // The instant start, as launch does it: read the shared history, start,
    // draw the first frame.
    let mut starts = Vec::new();
    for _ in 0..STARTS {
        let location = location.clone();
        let workspace = workspace.clone();
        let elapsed = std::thread::spawn(move || {
            let started = Instant::now();
            let mut app = App::new(
                Identity {
                    workspace: workspace.clone(),
                    workspace_id: workspace.clone(),
                    plan: None,
                    api_version: "2026-09-11".into(),
                    read_only: false,
                },
                AppSettings::new(
                    &TuiSettings::default(),
                    ColorDepth::TrueColor,
                    std::env::temp_dir(),
                ),
            );
            let now = OffsetDateTime::now_utc();
            let history = HistoryConfig::default();
            assert!(app.prepare_history(&location, &history, &workspace, now));
            app.start(now);
            let mut terminal = Terminal::new(TestBackend::new(120, 35)).expect("terminal");
            terminal.draw(|frame| app.draw(frame, now)).expect("draw");
            assert!(app.from_snapshot(), "the first frame is the snapshot's");
            started.elapsed()
        })
        .join()
        .expect("a start");
        starts.push(elapsed);
    }
    let start_median = median(&mut starts.clone());
    println!(
        "shared history, {PROJECTS} projects and {} members (the walk: {:.0} ms, not counted)",
        capture.members.len(),
        fetched_in.as_secs_f64() * 1e3
    );
    println!(
        "  record the first snapshot {:.0} ms, a later one {:.0} ms (budget 3000 ms)",
        first.as_secs_f64() * 1e3,
        later.as_secs_f64() * 1e3
    );
    println!(
        "  shared instant start to the first frame {:.1} ms (median of {STARTS}; budget 100 ms)",
        start_median.as_secs_f64() * 1e3
    );
    for line in [
        serde_json::json!({"case": "record_shared", "seconds": first.max(later).as_secs_f64(),
            "first_seconds": first.as_secs_f64(), "later_seconds": later.as_secs_f64(),
            "fetch_seconds": fetched_in.as_secs_f64()}),
        serde_json::json!({"case": "shared_start", "median_ms": start_median.as_secs_f64() * 1e3,
            "min_ms": starts.iter().min().map_or(0.0, |d| d.as_secs_f64() * 1e3),
            "max_ms": starts.iter().max().map_or(0.0, |d| d.as_secs_f64() * 1e3)}),
    ] {
        println!("{line}");
    }
}
