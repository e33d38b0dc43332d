//! Issue 37: `vantage report` as a file: private, never written through a
//! link, Markdown with every section and hostile names as text, and a part
//! without its data saying so instead of showing a default.

use std::os::unix::fs::PermissionsExt;

use crate::cli::report_browser::{HOSTILE_PROJECT, hostile_demo, report_with_history};
use crate::cli::support::Cli;
use crate::common::*;

#[tokio::test]
async fn the_report_is_0600_and_never_written_through_a_link() {
    let server = hostile_demo().await;
    let cli = Cli::new(
        format!("http://{}", server.addr),
        ENTERPRISE_WS,
        ENTERPRISE_ADMIN,
    );
    let victim = cli.home.path().join("victim.txt");
    std::fs::write(&victim, "keep me").unwrap();
    let planted = cli.home.path().join("report.html");
    std::os::unix::fs::symlink(&victim, &planted).unwrap();
    let run = cli
        .run(&["report", "--output", planted.to_str().unwrap()])
        .await
        .expect(1);
    assert!(run.stderr.contains("is a symbolic link"), "{}", run.stderr);
    assert_eq!(std::fs::read_to_string(&victim).unwrap(), "keep me");

    let page = cli.home.path().join("fresh.html");
    cli.run(&["report", "--output", page.to_str().unwrap()])
        .await
        .expect(0);
    let mode = std::fs::metadata(&page).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode, 0o600, "mode {mode:o}");
}

#[tokio::test]
async fn markdown_holds_every_section_and_hostile_names_as_text() {
    let server = hostile_demo().await;
    let cli = Cli::new(
        format!("http://{}", server.addr),
        ENTERPRISE_WS,
        ENTERPRISE_ADMIN,
    );
    let file = cli.home.path().join("report.md");
    report_with_history(&cli, "markdown", &file).await;
    let text = std::fs::read_to_string(&file).unwrap();
    for section in vantage::report::sections::SECTIONS {
        assert!(
            text.contains(&format!("\n## {}\n", section.title)),
            "section {:?}",
            section.title
        );
    }
    assert!(!text.contains(HOSTILE_PROJECT), "the name is never raw");
    assert!(text.contains("&lt;img src=x onerror=alert(1)&gt;"));
    assert!(!text.contains("<script"), "the member's name is never raw");
    // Each part names its source.
    assert!(text.contains("Source: read live from the service at"));
    assert!(text.contains("Source: read from the history file"));
    // The reviewer's review is counted, and the log holds the mark.
    assert!(text.contains("| grace | 1 | 0 |"), "{text}");
}

#[tokio::test]
async fn a_report_without_snapshots_says_what_it_lacks() {
    let server = hostile_demo().await;
    let cli = Cli::new(
        format!("http://{}", server.addr),
        ENTERPRISE_WS,
        ENTERPRISE_ADMIN,
    );
    let file = cli.home.path().join("report.md");
    let run = cli
        .run(&[
            "report",
            "--format",
            "markdown",
            "--output",
            file.to_str().unwrap(),
        ])
        .await
        .expect(0);
    assert!(
        run.stderr
            .contains("note: not in the report: changes: no snapshot in the history yet"),
        "{}",
        run.stderr
    );
    let text = std::fs::read_to_string(&file).unwrap();
    assert!(
        text.contains("Not in this report: no snapshot in the history yet"),
        "{text}"
    );
}
