//! A list written to a file or `/dev/null`, which never waits on a reader, is
//! written on the command's own thread (`cli/stdout.rs`); a pipe by a task of
//! its own. Either way the bytes, and where a failed walk stops, are the same.

use crate::cli::page_walks::{KEY, run};
use crate::cli::support::{Cli, Run};
use crate::common::hostile_service::{self, Trick};
use crate::common::*;

fn same(piped: &Run, filed: &Run, what: &str) {
    assert_eq!(piped.code, filed.code, "{what}: {}", filed.stderr);
    assert_eq!(piped.stdout, filed.stdout, "{what}");
    assert_eq!(piped.stderr, filed.stderr, "{what}");
}

#[tokio::test]
async fn a_list_written_to_a_file_holds_what_a_pipe_gets_in_every_format() {
    let (server, _clock) = demo_server().await;
    let cli = Cli::new(server.base_url(), ENTERPRISE_WS, ENTERPRISE_ADMIN);
    let file = cli.home.path().join("inventory.out");
    for format in ["jsonl", "json", "csv", "table"] {
        // Pages of 5: the walk writes many pages.
        let args = ["inventory", "--format", format, "--page-size", "5"];
        let piped = cli.run(&args).await.expect(0);
        let filed = cli.run_to_file(&args, &file).await;
        same(&piped, &filed, format);
        assert!(
            filed.stdout.lines().count() > 10,
            "{format}: {}",
            filed.stdout
        );
    }
}

#[tokio::test]
async fn a_walk_that_fails_leaves_in_a_file_what_it_leaves_in_a_pipe() {
    for trick in [Trick::ItemWithoutId, Trick::CursorCycle] {
        let args = ["inventory", "--format", "jsonl"];
        let piped = run(&hostile_service::start(trick.clone()).await, &args).await;
        // A service of its own: a trick's answers follow the requests it saw.
        let service = hostile_service::start(trick.clone()).await;
        let cli = Cli::new(service.base_url.clone(), "ws_1", KEY);
        let file = cli.home.path().join("inventory.jsonl");
        let filed = cli.run_to_file(&args, &file).await;
        assert_eq!(filed.code, 1, "{trick:?}: {}", filed.stderr);
        same(&piped, &filed, &format!("{trick:?}"));
    }
}
