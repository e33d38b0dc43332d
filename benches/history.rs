//! The review history at the scale: recording a snapshot of 20,000
//! projects and 5,000 members (beyond the fetch), diffing two such snapshots,
//! and the file's size after 10 of them. Run: `cargo bench --bench history`.
//!
//! The first snapshot is a real walk of a generated workspace on the
//! in-process reference server (its fetch is not timed); the later ones change
//! 2% of the projects and 1% of the members each, as a busy day would.

#[path = "support/mod.rs"]
mod support;

use std::time::{Duration, Instant};

use time::OffsetDateTime;
use vantage::history::walk::{self, WalkOptions};
use vantage::history::{Capture, Retention, Store, diff};

const PROJECTS: usize = 20_000;
/// Memberships generated; about 8% are invitations, so about 4,600 are active.
const MEMBERS: usize = 5_000;
const SNAPSHOTS: usize = 10;
const DIFF_ROUNDS: usize = 5;

#[tokio::main]
async fn main() {
    let mut names = std::collections::HashMap::new();
    let served = support::serve_generated(PROJECTS, MEMBERS, |fixture| {
        names = fixture
            .memberships
            .iter()
            .map(|m| (m.user_id.clone(), m.display_name.clone()))
            .collect();
    })
    .await;
    let (server, workspace, client) = (served.server, served.workspace, served.client);

    let fetch_started = Instant::now();
    let (mut base, _report) = walk::capture(
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
    assert_eq!(base.projects.len(), PROJECTS);
    // The generator's memberships include invitations; the list has the active ones.
    assert_eq!(
        base.members.len() as i64,
        base.insights.summary.workspace_members.value
    );
    // Names as member reads would give them (the walk above made none).
    for member in &mut base.members {
        member.name = names.get(&member.user_id).cloned().flatten();
    }

    let dir = tempfile::tempdir().expect("temp dir");
    let file = dir.path().join("history.sqlite3");
    let mut store = Store::open(&file).expect("store");
    let mut record_times = Vec::new();
    let mut capture = base;
    for day in 0..SNAPSHOTS {
        if day > 0 {
            capture = busy_day(&capture, day);
        }
        let started = Instant::now();
        store
            .record(&capture, Retention::default())
            .expect("record");
        record_times.push(started.elapsed());
    }
    let snapshots = store.list(&workspace).expect("list");
    assert_eq!(snapshots.len(), SNAPSHOTS);

    let mut diff_times = Vec::new();
    let mut changes = 0;
    for round in 0..DIFF_ROUNDS {
        let (before, after) = (&snapshots[round], &snapshots[round + 1]);
        let started = Instant::now();
        let found = diff(
            &store.load(before).expect("load"),
            &store.load(after).expect("load"),
        );
        diff_times.push(started.elapsed());
        changes = found.len();
    }
    drop(store);
    let bytes = file_size(&file);

    println!(
        "history of {PROJECTS} projects and {} active members (the walk itself: {:.0} ms, not counted):",
        capture.members.len(),
        ms(fetched_in)
    );
    println!(
        "  record the first snapshot                   {:>8.1} ms",
        ms(record_times[0])
    );
    let mut later = record_times[1..].to_vec();
    let later_median = median(&mut later);
    let diff_median = median(&mut diff_times.clone());
    // One JSON line per figure, for scripts/perf: recording counts the first
    // snapshot (a whole insert) or a later one, whichever took longer.
    for line in [
        serde_json::json!({"case": "record", "seconds": record_times[0].max(later_median).as_secs_f64(),
            "first_seconds": record_times[0].as_secs_f64(), "later_seconds": later_median.as_secs_f64(),
            "fetch_seconds": fetched_in.as_secs_f64()}),
        serde_json::json!({"case": "diff", "seconds": diff_median.as_secs_f64(), "changes": changes}),
        serde_json::json!({"case": "file", "mib": bytes as f64 / (1024.0 * 1024.0), "snapshots": SNAPSHOTS}),
    ] {
        println!("{line}");
    }
    println!(
        "  record a later snapshot (median of {})       {:>8.1} ms  (budget 2000 ms)",
        later.len(),
        ms(median(&mut later))
    );
    println!(
        "  load two snapshots and diff (median of {DIFF_ROUNDS})   {:>8.1} ms  (budget 1000 ms; {changes} changes)",
        ms(median(&mut diff_times))
    );
    println!(
        "  file after {SNAPSHOTS} snapshots                     {:>8.1} MiB (budget 30 MiB)",
        bytes as f64 / (1024.0 * 1024.0)
    );
}

/// The next day: 2% of the projects renamed or re-prioritised, 1% of the
/// members with another role, a few projects and members new.
fn busy_day(previous: &Capture, day: usize) -> Capture {
    let mut next = previous.clone();
    next.taken_at = previous.taken_at + time::Duration::days(1);
    for (index, project) in next.projects.iter_mut().enumerate() {
        if (index + day * 7).is_multiple_of(50) {
            project.name = Some(format!(
                "{} v{day}",
                project.name.clone().unwrap_or_default()
            ));
        } else if (index + day * 13).is_multiple_of(97) {
            project.review_priority = if project.review_priority == "needs_review" {
                "review_recommended".into()
            } else {
                "needs_review".into()
            };
        }
    }
    for index in 0..20 {
        let mut project = next.projects[index].clone();
        project.id = format!("prj_day{day}_{index}");
        next.projects.insert(0, project);
    }
    for (index, member) in next.members.iter_mut().enumerate() {
        if (index + day).is_multiple_of(100) {
            member.role = Some(if member.role.as_deref() == Some("member") {
                "admin".into()
            } else {
                "member".into()
            });
        }
    }
    next
}

fn file_size(file: &std::path::Path) -> u64 {
    ["", "-wal", "-shm"]
        .iter()
        .filter_map(|suffix| {
            let mut path = file.as_os_str().to_owned();
            path.push(suffix);
            std::fs::metadata(path).ok().map(|m| m.len())
        })
        .sum()
}

fn median(times: &mut [Duration]) -> Duration {
    times.sort();
    times[times.len() / 2]
}

fn ms(duration: Duration) -> f64 {
    duration.as_secs_f64() * 1000.0
}
