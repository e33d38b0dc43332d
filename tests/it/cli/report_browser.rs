//! Issue 37: `vantage report` opened in a real headless Chromium (Debian's
//! `chromium`; `.ci/run` installs it) with networking off. Every browser
//! check of the report lives here: the report is written once, then opened
//! twice (the DOM with the console, and print to PDF). A control page proves
//! that the checks see a request and a console error when there is one.

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::io::AsyncReadExt;
use tokio::net::TcpListener;
use vantage::server::ratelimit::RateLimit;
use vantage::server::{RunningServer, ServerConfig, start};

use crate::cli::support::Cli;
use crate::common::*;

pub const HOSTILE_PROJECT: &str = "<img src=x onerror=alert(1)>";
const HOSTILE_MEMBER: &str = "<script>alert(2)</script>";
const HOSTILE_NOTE: &str = "<b onmouseover=alert(3)>looked fine</b>";

/// The browser, or a failure that names it: never a skip.
pub fn chromium() -> PathBuf {
    for name in ["chromium", "chromium-browser", "google-chrome"] {
        if let Some(found) = std::env::var_os("PATH").and_then(|paths| {
            std::env::split_paths(&paths)
                .map(|dir| dir.join(name))
                .find(|path| path.is_file())
        }) {
            return found;
        }
    }
    panic!(
        "chromium is missing: install Debian's chromium (.ci/run installs it); the report's tests open it in a real browser"
    )
}

/// A proxy that answers nothing and records the first line of every
/// request sent through it: with this as
/// the browser's proxy for every address, a request the page makes shows here
/// and goes no further.
pub struct Proxy {
    pub url: String,
    seen: Arc<Mutex<Vec<String>>>,
    /// Connections accepted whose first line is not read yet.
    reading: Arc<std::sync::atomic::AtomicUsize>,
}

impl Proxy {
    pub async fn start() -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        let seen = Arc::new(Mutex::new(Vec::new()));
        let reading = Arc::new(std::sync::atomic::AtomicUsize::new(0));
        let record = seen.clone();
        let in_flight = reading.clone();
        tokio::spawn(async move {
            while let Ok((mut socket, _)) = listener.accept().await {
                let record = record.clone();
                let in_flight = in_flight.clone();
                in_flight.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                tokio::spawn(async move {
                    let mut head = vec![0; 512];
                    let read = tokio::time::timeout(Duration::from_secs(5), socket.read(&mut head))
                        .await
                        .ok()
                        .and_then(Result::ok)
                        .unwrap_or(0);
                    let line = String::from_utf8_lossy(&head[..read]);
                    let line = line.lines().next().unwrap_or("(nothing sent)").to_owned();
                    record.lock().unwrap().push(line);
                    in_flight.fetch_sub(1, std::sync::atomic::Ordering::SeqCst);
                });
            }
        });
        Self { url, seen, reading }
    }

    /// The requests that are not Chromium's own background services (its
    /// updater, clock and account checks, which `--disable-background-networking`
    /// does not silence in every build): what a page asked for.
    pub async fn page_requests(&self) -> Vec<String> {
        // Every connection accepted is read (or given up on after 5 s) first.
        while self.reading.load(std::sync::atomic::Ordering::SeqCst) > 0 {
            tokio::task::yield_now().await;
        }
        self.seen
            .lock()
            .unwrap()
            .iter()
            .filter(|line| !chromium_service(line))
            .cloned()
            .collect()
    }
}

/// Whether a request line goes to one of Google's hosts that Chromium calls by itself.
fn chromium_service(line: &str) -> bool {
    let target = line.split_whitespace().nth(1).unwrap_or("");
    let host = target
        .trim_start_matches("http://")
        .trim_start_matches("https://")
        .split(['/', ':'])
        .next()
        .unwrap_or("");
    [".google.com", ".googleapis.com", ".gvt1.com"]
        .iter()
        .any(|suffix| host.ends_with(suffix))
}

/// Runs headless Chromium on `page` with `mode` (`--dump-dom`, `--print-to-pdf=…`),
/// networking off: every address, loopback included, goes through `proxy`,
/// which answers nothing. Returns stdout and stderr (the console, with
/// `--enable-logging=stderr`).
pub async fn open(page: &Path, proxy: &Proxy, mode: &[&str]) -> (String, String) {
    let profile = tempfile::tempdir().unwrap();
    let mut command = tokio::process::Command::new(chromium());
    command
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--disable-default-apps",
            "--disable-features=NetworkTimeServiceQuerying,OptimizationHints,MediaRouter,Translate",
            "--proxy-bypass-list=<-loopback>",
            "--enable-logging=stderr",
            "--v=0",
        ])
        .arg(format!("--proxy-server={}", proxy.url))
        .arg(format!("--user-data-dir={}", profile.path().display()))
        .args(mode)
        .arg(format!("file://{}", page.display()))
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true);
    let output = tokio::time::timeout(Duration::from_secs(120), command.output())
        .await
        .expect("chromium ends by itself")
        .expect("chromium runs");
    (
        String::from_utf8_lossy(&output.stdout).into_owned(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

/// The console's lines in Chromium's log (`INFO:CONSOLE`): a CSP violation,
/// a script error, anything a page logs.
pub fn console_lines(stderr: &str) -> Vec<&str> {
    stderr
        .lines()
        .filter(|line| line.contains(":CONSOLE"))
        .collect()
}

/// The demo with hostile names where the report shows them, and a rate
/// limit wide enough for two snapshots and a report in one window.
pub async fn hostile_demo() -> RunningServer {
    let mut fixture = demo();
    let project = fixture
        .projects
        .iter_mut()
        .find(|p| p.wire.workspace_id == ENTERPRISE_WS && p.wire.is_published)
        .expect("a published project");
    project.wire.name = Some(HOSTILE_PROJECT.to_owned());
    let member = fixture
        .memberships
        .iter_mut()
        .find(|m| m.workspace_id == ENTERPRISE_WS)
        .expect("a member");
    member.display_name = Some(HOSTILE_MEMBER.to_owned());
    let mut config = ServerConfig::local(fixture);
    config.rate_limit = RateLimit {
        limit: 100_000,
        window: time::Duration::seconds(60),
    };
    start(config).await.expect("server starts")
}

/// Two snapshots with a review between them (so the report has changes,
/// a reviewer and a log), then the report in `format` to `file`.
pub async fn report_with_history(cli: &Cli, format: &str, file: &Path) -> String {
    cli.run(&["snapshot"]).await.expect(0);
    let inventory = cli.run(&["inventory", "--format", "jsonl"]).await.expect(0);
    let first: serde_json::Value =
        serde_json::from_str(inventory.stdout.lines().next().unwrap()).unwrap();
    let id = first["id"].as_str().unwrap().to_owned();
    cli.run_env(
        &["reviewed", "mark", &id, "--note", HOSTILE_NOTE],
        &[("USER", "grace")],
    )
    .await
    .expect(0);
    cli.run(&["snapshot"]).await.expect(0);
    let run = cli
        .run(&[
            "report",
            "--format",
            format,
            "--output",
            file.to_str().unwrap(),
        ])
        .await
        .expect(0);
    run.stderr
}

#[tokio::test]
async fn the_report_renders_offline_in_chromium_with_its_charts_and_prints_every_section() {
    let server = hostile_demo().await;
    let cli = Cli::new(
        format!("http://{}", server.addr),
        ENTERPRISE_WS,
        ENTERPRISE_ADMIN,
    );
    let page = cli.home.path().join("report.html");
    let said = report_with_history(&cli, "html", &page).await;
    assert!(said.contains("report written to"), "{said}");
    let proxy = Proxy::start().await;

    // The control: a page that loads an image from a host and runs a handler
    // is seen by both checks, so a clean result below means something.
    let control = cli.home.path().join("control.html");
    std::fs::write(
        &control,
        "<!DOCTYPE html><html><body><img src=\"http://report-leak.example/x.png\">\
         <img src=x onerror=\"console.error('ran')\"></body></html>",
    )
    .unwrap();
    let (_, control_log) = open(&control, &proxy, &["--dump-dom"]).await;
    assert!(
        proxy
            .page_requests()
            .await
            .iter()
            .any(|line| line.contains("report-leak.example")),
        "the proxy saw the control page's request: {:?}",
        proxy.page_requests().await
    );
    assert!(
        !console_lines(&control_log).is_empty(),
        "the control's console error is in the log:\n{control_log}"
    );

    let before = proxy.page_requests().await.len();
    let (dom, log) = open(&page, &proxy, &["--dump-dom"]).await;
    assert_eq!(
        proxy.page_requests().await[before..],
        [] as [String; 0],
        "the report made no network request"
    );
    assert_eq!(
        console_lines(&log),
        Vec::<&str>::new(),
        "no console message"
    );
    // The charts: risk, posture over the snapshots, severities, review coverage.
    let charts = dom.matches("<svg").count();
    assert!(charts >= 4, "{charts} charts in the DOM");
    for title in [
        "Risk distribution",
        "Posture over the snapshots",
        "Open findings by severity",
        "Review coverage over time",
    ] {
        assert!(
            dom.contains(&format!("<title>{title}</title>")),
            "chart {title}"
        );
    }
    assert!(dom.contains("<polyline"), "lines drawn from the snapshots");
    // Hostile names are text: no element came from data, no script at all.
    assert!(
        dom.contains("&lt;img src=x onerror=alert(1)&gt;"),
        "the project's name as text"
    );
    assert!(
        dom.contains("&lt;script&gt;alert(2)&lt;/script&gt;"),
        "the member's name as text"
    );
    assert!(
        dom.contains("&lt;b onmouseover=alert(3)&gt;"),
        "the note as text"
    );
    assert!(!dom.contains("<img"), "no image element");
    assert!(!dom.contains("<script"), "no script element");
    assert!(!dom.contains("<b "), "no element from a note");

    let pdf = cli.home.path().join("report.pdf");
    let (_, _) = open(
        &page,
        &proxy,
        &[
            &format!("--print-to-pdf={}", pdf.display()),
            "--no-pdf-header-footer",
        ],
    )
    .await;
    let text = pdf_text(&pdf);
    let flat = text.split_whitespace().collect::<Vec<_>>().join(" ");
    for section in vantage::report::sections::SECTIONS {
        assert!(
            flat.contains(section.title),
            "the PDF holds the section {:?}",
            section.title
        );
    }
    assert!(flat.contains("Security review report"), "the header");
    assert_eq!(
        proxy.page_requests().await[before..],
        [] as [String; 0],
        "printing made no network request"
    );
}

/// The PDF's text, by poppler's `pdftotext` (`.ci/run` installs poppler-utils).
fn pdf_text(pdf: &Path) -> String {
    let output = std::process::Command::new("pdftotext")
        .arg(pdf)
        .arg("-")
        .output()
        .unwrap_or_else(|error| {
            panic!("pdftotext is missing ({error}): install poppler-utils (.ci/run installs it)")
        });
    assert!(output.status.success(), "pdftotext read {}", pdf.display());
    String::from_utf8_lossy(&output.stdout).into_owned()
}
