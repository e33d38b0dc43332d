//! `projects publish --wait` against a deployment that never settles the
//! usual way: an unknown status ends the wait and is named, a deployment
//! that keeps running is given up at `--timeout`.

use std::time::{Duration, Instant};

use crate::cli::page_walks::run;
use crate::common::hostile_service::{self, Trick};

#[tokio::test]
async fn publish_wait_ends_on_an_unknown_status_and_names_it() {
    let service = hostile_service::start(Trick::Deployment("cancelled")).await;
    let run = run(&service, &["projects", "publish", "prj_1", "--wait"]).await;
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert!(
        run.stderr.contains(
            "deployment dep_1 ended in status \"cancelled\", which vantage does not know"
        ),
        "{}",
        run.stderr
    );
}

#[tokio::test]
async fn publish_wait_gives_up_at_its_timeout() {
    let service = hostile_service::start(Trick::Deployment("running")).await;
    let started = Instant::now();
    let run = run(
        &service,
        &["projects", "publish", "prj_1", "--wait", "--timeout", "2s"],
    )
    .await;
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert!(
        run.stderr
            .contains("deployment dep_1 still running after 2 s (--timeout)"),
        "{}",
        run.stderr
    );
    assert!(started.elapsed() < Duration::from_secs(20));
}
