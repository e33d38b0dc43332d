//! `/metrics` as node_exporter serves it (issue 36, items 6 and 7): TLS and
//! basic auth from a web config file in the exporter toolkit's format, read
//! again when it changes, checked with a real TLS client and a real
//! Prometheus; the binary refuses to serve off loopback without it.

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::{Duration, Instant};

use tokio::net::TcpListener;
use vantage::clock::Clock;
use vantage::exporter::web::WebConfig;
use vantage::exporter::{RunningExporter, ServeOptions};

use crate::cli::support::Cli;
use crate::common::*;

/// A CA, and a certificate it signed for 127.0.0.1 and localhost, written
/// into `dir` as `ca.crt`, `server.crt` and `server.key`.
fn certificates(dir: &Path) -> String {
    let ca_key = rcgen::KeyPair::generate().expect("CA key");
    let mut ca_params = rcgen::CertificateParams::new(Vec::<String>::new()).expect("CA params");
    ca_params.is_ca = rcgen::IsCa::Ca(rcgen::BasicConstraints::Unconstrained);
    ca_params
        .distinguished_name
        .push(rcgen::DnType::CommonName, "vantage test CA");
    let ca = ca_params.self_signed(&ca_key).expect("CA");
    let issuer = rcgen::Issuer::new(ca_params, ca_key);
    let key = rcgen::KeyPair::generate().expect("key");
    let params = rcgen::CertificateParams::new(vec!["127.0.0.1".into(), "localhost".into()])
        .expect("params");
    let cert = params.signed_by(&key, &issuer).expect("certificate");
    std::fs::write(dir.join("ca.crt"), ca.pem()).expect("write");
    std::fs::write(dir.join("server.crt"), cert.pem()).expect("write");
    std::fs::write(dir.join("server.key"), key.serialize_pem()).expect("write");
    ca.pem()
}

/// A web config with TLS (relative paths, as the toolkit reads them) and
/// `users` with their passwords' bcrypt hashes (cost 4: tests are fast).
fn web_config(dir: &Path, users: &[(&str, &str)]) -> PathBuf {
    let mut text =
        "tls_server_config:\n  cert_file: server.crt\n  key_file: server.key\nbasic_auth_users:\n"
            .to_owned();
    for (user, password) in users {
        let hash = bcrypt::hash(password, 4).expect("hash");
        text.push_str(&format!("  {user}: {hash}\n"));
    }
    let path = dir.join("web.yml");
    std::fs::write(&path, text).expect("write");
    path
}

/// An exporter of an unreachable service (what is served is what is
/// tested) behind `web`.
async fn exporter(web: std::sync::Arc<WebConfig>) -> RunningExporter {
    let target = crate::cli::exporter_connections::unreachable_target().await;
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let options = ServeOptions {
        web: Some(web),
        ..ServeOptions::default()
    };
    vantage::exporter::start_with(vec![target], Clock::manual(T0), listener, options)
        .expect("starts")
}

/// A client that trusts only the test CA.
fn tls_client(ca_pem: &str) -> reqwest::Client {
    reqwest::Client::builder()
        .tls_built_in_root_certs(false)
        .add_root_certificate(reqwest::Certificate::from_pem(ca_pem.as_bytes()).expect("CA"))
        .timeout(Duration::from_secs(10))
        .build()
        .expect("client")
}

async fn status(request: reqwest::RequestBuilder) -> u16 {
    request.send().await.expect("answered").status().as_u16()
}

#[tokio::test(flavor = "multi_thread")]
async fn tls_and_basic_auth_guard_every_path_and_follow_the_file() {
    let dir = tempfile::tempdir().expect("dir");
    let ca = certificates(dir.path());
    let path = web_config(dir.path(), &[("prometheus", "s3cret")]);
    let web = WebConfig::load(&path).expect("loads");
    let exporter = exporter(web).await;
    let url = exporter.metrics_url();
    assert!(url.starts_with("https://127.0.0.1:"), "{url}");
    let healthz = url.replace("/metrics", "/healthz");
    let client = tls_client(&ca);

    // No credentials, a wrong password, an unknown user: 401, on every path.
    let refused = client.get(&url).send().await.expect("answered");
    assert_eq!(refused.status(), 401);
    assert_eq!(
        refused.headers()["www-authenticate"],
        "Basic realm=\"vantage exporter\""
    );
    assert_eq!(status(client.get(&healthz)).await, 401);
    assert_eq!(
        status(client.get(&url).basic_auth("prometheus", Some("nope"))).await,
        401
    );
    assert_eq!(
        status(client.get(&url).basic_auth("root", Some("s3cret"))).await,
        401
    );
    // The password: the metrics, twice (the second from the remembered check).
    for _ in 0..2 {
        let answer = client
            .get(&url)
            .basic_auth("prometheus", Some("s3cret"))
            .send()
            .await
            .expect("answered");
        assert_eq!(answer.status(), 200);
        let text = answer.text().await.expect("body");
        assert!(text.contains("vantage_up{source=\"insights\"} 0"), "{text}");
    }
    // Plain HTTP to the TLS port is no way in.
    let plain = http()
        .get(url.replace("https://", "http://"))
        .basic_auth("prometheus", Some("s3cret"))
        .timeout(Duration::from_secs(5))
        .send()
        .await;
    assert!(plain.is_err() || plain.is_ok_and(|a| a.status() != 200));

    // A new user replaces the old one on the next request, no restart.
    web_config(dir.path(), &[("grafana", "other")]);
    assert_eq!(
        status(client.get(&url).basic_auth("prometheus", Some("s3cret"))).await,
        401
    );
    assert_eq!(
        status(client.get(&url).basic_auth("grafana", Some("other"))).await,
        200
    );
    // A broken file keeps the last good one in force.
    std::fs::write(&path, "basic_auth_users: [not, a, map]\n").expect("write");
    assert_eq!(
        status(client.get(&url).basic_auth("grafana", Some("other"))).await,
        200
    );
    assert_eq!(status(client.get(&healthz)).await, 401);
    exporter.stop();
}

#[test]
fn a_web_config_that_cannot_be_honoured_is_refused_by_name() {
    let dir = tempfile::tempdir().expect("dir");
    certificates(dir.path());
    let cases = [
        (
            "tls_server_config:\n  cert_file: server.crt\n  key_file: server.key\n  client_ca_file: ca.crt\n",
            "client_ca_file",
        ),
        (
            "basic_auth_users:\n  prometheus: s3cret\n",
            "not a bcrypt hash",
        ),
        (
            "tls_server_config:\n  cert_file: missing.crt\n  key_file: server.key\n",
            "missing.crt",
        ),
        (
            "tls_server_config:\n  cert_file: server.key\n  key_file: server.key\n",
            "no certificate",
        ),
        ("basic_auth_user:\n  prometheus: x\n", "basic_auth_user"),
    ];
    for (text, named) in cases {
        let path = dir.path().join("web.yml");
        std::fs::write(&path, text).expect("write");
        let error = WebConfig::load(&path).err().map(|e| e.to_string());
        assert!(
            error.as_deref().is_some_and(|e| e.contains(named)),
            "{text:?}: {error:?}"
        );
    }
    // The shipped example is well formed (its certificate aside).
    let example = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/prometheus/web-config.example.yml"),
    )
    .expect("example");
    let users_only: String = example
        .split("basic_auth_users:")
        .nth(1)
        .map(|users| format!("basic_auth_users:{users}"))
        .expect("users in the example");
    let path = dir.path().join("users.yml");
    std::fs::write(&path, users_only).expect("write");
    WebConfig::load(&path).expect("the example's users load");
}

/// The real binary refuses to serve beyond loopback without a web config,
/// before it connects to anything; `--listen` is still `--web.listen-address`.
#[tokio::test(flavor = "multi_thread")]
async fn the_binary_refuses_to_listen_off_loopback_without_a_web_config() {
    let cli = Cli::new("http://127.0.0.1:9", ENTERPRISE_WS, ENTERPRISE_READONLY);
    for flag in ["--web.listen-address", "--listen"] {
        let run = cli
            .run(&["exporter", flag, "0.0.0.0:0", "--no-inventory"])
            .await;
        assert_ne!(run.code, 0, "{}", run.stderr);
        assert!(
            run.stderr
                .contains("refusing to serve the metrics on 0.0.0.0:0")
                && run.stderr.contains("--web.config.file")
                && run.stderr.contains("--insecure-listen"),
            "{}",
            run.stderr
        );
    }
}

fn prometheus() -> Option<PathBuf> {
    std::env::var_os("PATH").and_then(|paths| {
        std::env::split_paths(&paths)
            .map(|dir| dir.join("prometheus"))
            .find(|path| path.is_file())
    })
}

/// The shipped TLS scrape config, pointed at a test exporter, scraped by a
/// real Prometheus: the target is up.
#[tokio::test(flavor = "multi_thread")]
async fn prometheus_scrapes_through_tls_and_basic_auth_with_the_shipped_config() {
    let Some(prometheus) = prometheus() else {
        panic!("prometheus is not installed (Debian: apt-get install prometheus)");
    };
    let dir = tempfile::tempdir().expect("dir");
    certificates(dir.path());
    let path = web_config(dir.path(), &[("prometheus", "s3cret")]);
    let exporter = exporter(WebConfig::load(&path).expect("loads")).await;
    let assets = Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/prometheus");
    let shipped = std::fs::read_to_string(assets.join("prometheus-tls.yml")).expect("config");
    crate::cli::exporter::promtool_passes(&["check", "config", "prometheus-tls.yml"], &assets);
    std::fs::write(dir.path().join("password"), "s3cret\n").expect("write");
    let config = shipped
        .replace("scrape_interval: 30s", "scrape_interval: 1s")
        .replace(
            "/etc/prometheus/vantage-ca.crt",
            &dir.path().join("ca.crt").display().to_string(),
        )
        .replace(
            "server_name: vantage.example.internal",
            "server_name: localhost",
        )
        .replace(
            "/etc/prometheus/vantage-exporter.password",
            &dir.path().join("password").display().to_string(),
        )
        .replace("vantage.example.internal:19464", &exporter.addr.to_string())
        .replace(
            "  - alerts.yml",
            &format!("  - {}", assets.join("alerts.yml").display()),
        );
    std::fs::write(dir.path().join("prometheus.yml"), config).expect("write");
    let port = TcpListener::bind("127.0.0.1:0")
        .await
        .expect("bind")
        .local_addr()
        .expect("addr")
        .port();
    let mut server = tokio::process::Command::new(prometheus)
        .arg(format!(
            "--config.file={}",
            dir.path().join("prometheus.yml").display()
        ))
        .arg(format!(
            "--storage.tsdb.path={}",
            dir.path().join("tsdb").display()
        ))
        .arg(format!("--web.listen-address=127.0.0.1:{port}"))
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .expect("prometheus runs");
    let query = format!("http://127.0.0.1:{port}/api/v1/targets");
    let started = Instant::now();
    let mut last = String::new();
    let mut up = false;
    while started.elapsed() < Duration::from_secs(30) {
        if let Ok(answer) = http().get(&query).send().await {
            last = answer.text().await.unwrap_or_default();
            if last.contains("\"health\":\"up\"") {
                up = true;
                break;
            }
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    assert!(up, "the target never came up: {last}");
    server.kill().await.expect("stops");
    exporter.stop();
}
