//! What operators expect of an exporter (issue 28, part 2, items 2 and 4):
//! build info, `process_*`, HELP that says values are cached, no static
//! workspace label, `code` and transport failures, a duration histogram, the
//! rate-limit reset as a timestamp, `# UNIT`, gzip, a landing page; and the
//! real binary finding the key's one workspace and logging to a non-terminal
//! stderr without colour codes.

use std::io::Read;
use std::process::Stdio;
use std::time::Duration;

use tokio::io::{AsyncBufReadExt, BufReader};

use crate::cli::support::{Cli, KEY_VAR};
use crate::common::*;

#[tokio::test(flavor = "multi_thread")]
async fn a_scrape_follows_the_exposition_conventions() {
    let (server, clock) = demo_server().await;
    let exporter = crate::cli::exporter::exporter(&server, &clock, Vec::new()).await;
    // Prometheus asks for gzip; this client does not decompress by itself.
    let answer = http()
        .get(exporter.metrics_url())
        .header("accept-encoding", "gzip")
        .send()
        .await
        .expect("scrape");
    assert_eq!(answer.status(), 200);
    assert_eq!(answer.headers()["content-encoding"], "gzip");
    let compressed = answer.bytes().await.expect("body");
    let mut text = String::new();
    flate2::read::GzDecoder::new(compressed.as_ref())
        .read_to_string(&mut text)
        .expect("gzip");
    assert!(compressed.len() * 3 < text.len(), "gzip shrinks the text");
    // A prefix ending in a line feed is a whole line.
    let has = |prefix: &str| match prefix.strip_suffix('\n') {
        Some(line) => text.lines().any(|l| l == line),
        None => text.lines().any(|l| l.starts_with(prefix)),
    };
    for prefix in [
        &build_info() as &str,
        "process_cpu_seconds_total ",
        "process_resident_memory_bytes ",
        "process_start_time_seconds ",
        "process_open_fds ",
        "process_max_fds ",
        "vantage_client_requests_total{code=\"200\"} ",
        "vantage_client_transport_failures_total 0",
        "vantage_client_request_duration_seconds_bucket{le=\"+Inf\"} ",
        "vantage_client_request_duration_seconds_count ",
        "vantage_rate_limit_reset_timestamp_seconds ",
        "vantage_up{source=\"insights\"} 1",
        "vantage_projects ",
        // No interval in a HELP: two exporters of one job, polling at
        // different intervals, must not disagree on a family's metadata.
        "# HELP vantage_projects Projects in the workspace; cached from insights.\n",
        "# HELP vantage_projects_by_visibility Projects by visibility, from the inventory walk; cached from inventory.\n",
    ] {
        assert!(has(prefix), "no line starting {prefix:?} in\n{text}");
    }
    assert!(
        !text.contains("workspace="),
        "one workspace: no label\n{text}"
    );
    crate::cli::exporter::promtool_check_metrics(&text);

    // Without gzip asked: plain text.
    let plain = http()
        .get(exporter.metrics_url())
        .send()
        .await
        .expect("scrape");
    assert!(plain.headers().get("content-encoding").is_none());

    // OpenMetrics names each family's unit.
    let openmetrics = http()
        .get(exporter.metrics_url())
        .header("accept", "application/openmetrics-text;version=1.0.0")
        .send()
        .await
        .expect("scrape")
        .text()
        .await
        .expect("body");
    for line in [
        "# UNIT vantage_last_success_timestamp_seconds seconds",
        "# UNIT vantage_client_request_duration_seconds seconds",
        "# UNIT vantage_rate_limit_reset_timestamp_seconds seconds",
        "# UNIT process_resident_memory_bytes bytes",
        "# UNIT process_cpu_seconds seconds",
    ] {
        assert!(
            openmetrics.lines().any(|l| l == line),
            "no {line:?} in\n{openmetrics}"
        );
    }

    // A landing page for a browser.
    let landing = http()
        .get(format!("http://{}/", exporter.addr))
        .send()
        .await
        .expect("landing page");
    assert_eq!(landing.status(), 200);
    assert!(
        landing.headers()["content-type"]
            .to_str()
            .unwrap()
            .starts_with("text/html")
    );
    let page = landing.text().await.expect("body");
    assert!(page.contains("<a href=\"/metrics\">"), "{page}");
    exporter.stop();
    server.stop().await;
}

/// `vantage_exporter_build_info` with what `vantage --version --verbose`
/// says: version, commit, target, rustc and glibc (issue 36, item 7).
fn build_info() -> String {
    let verbose = std::process::Command::new(env!("CARGO_BIN_EXE_vantage"))
        .args(["--version", "--verbose"])
        .output()
        .expect("vantage --version --verbose");
    let verbose = String::from_utf8(verbose.stdout).expect("utf-8");
    let field = |name: &str| {
        verbose
            .lines()
            .find_map(|line| line.strip_prefix(&format!("{name}: ")))
            .unwrap_or_else(|| panic!("no {name} in {verbose}"))
            .to_owned()
    };
    let commit = field("commit");
    assert_ne!(commit, "", "{verbose}");
    format!(
        "vantage_exporter_build_info{{version=\"{}\",commit=\"{commit}\",target=\"{}\",rustc=\"{}\",glibc=\"{}\"}} 1\n",
        env!("CARGO_PKG_VERSION"),
        field("target"),
        field("rustc"),
        field("glibc"),
    )
}

/// The real binary without `--workspace`, its stderr a pipe: it uses the
/// key's one workspace as `vantage insights` does, says so, and logs to
/// stderr without colour codes.
#[tokio::test(flavor = "multi_thread")]
async fn the_binary_finds_the_workspace_and_logs_plainly_to_a_pipe() {
    let (server, _clock) = demo_server().await;
    let cli = Cli::new(server.base_url(), "", ENTERPRISE_READONLY);
    let mut child = tokio::process::Command::new(env!("CARGO_BIN_EXE_vantage"))
        .args(["--base-url", &cli.base_url, "--api-key-env", KEY_VAR])
        .args(["exporter", "--listen", "127.0.0.1:0", "--no-inventory"])
        .env("HOME", cli.home.path())
        .env("XDG_CONFIG_HOME", cli.home.path().join(".config"))
        .env("XDG_DATA_HOME", cli.home.path().join(".local/share"))
        .env_remove("SERVICE_API_KEY")
        .env_remove("VANTAGE_LOG")
        .env_remove("NO_COLOR")
        .env(KEY_VAR, ENTERPRISE_READONLY)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .expect("the binary runs");
    let mut lines = BufReader::new(child.stderr.take().expect("stderr")).lines();
    let mut seen = Vec::new();
    let url = loop {
        let line = tokio::time::timeout(Duration::from_secs(30), lines.next_line())
            .await
            .expect("a line in time")
            .expect("reads")
            .unwrap_or_else(|| panic!("the exporter ended:\n{}", seen.join("\n")));
        seen.push(line.clone());
        if let Some(rest) = line.strip_prefix("vantage exporter: serving ") {
            break rest.split(' ').next().expect("the url").to_owned();
        }
    };
    let stderr = seen.join("\n");
    assert!(
        stderr.contains("using workspace ws_acme (Acme Corp), the one this key reaches"),
        "{stderr}"
    );
    assert!(
        stderr.contains("exporter starting"),
        "the log is on stderr:\n{stderr}"
    );
    assert!(stderr.contains("(log: stderr)"), "{stderr}");
    assert!(
        !stderr.contains('\u{1b}'),
        "colour codes in a pipe:\n{stderr:?}"
    );
    // It polls that workspace.
    let mut polled = false;
    for _ in 0..100 {
        let text = http()
            .get(&url)
            .send()
            .await
            .expect("scrape")
            .text()
            .await
            .expect("body");
        if text.contains("vantage_up{source=\"insights\"} 1") {
            polled = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert!(polled, "the exporter polled the workspace");
    child.kill().await.expect("stops");
    server.stop().await;
}
