//! Answered writes survive SIGKILL: the real `vantage serve` binary on a SQLite
//! file, killed and started again on the same file.

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use reqwest::Method;
use serde_json::Value;

use crate::common::*;
use crate::server::support::*;

/// A running `vantage serve`, killed when dropped.
struct Served {
    child: Child,
    base: String,
}

impl Served {
    fn start(db: &Path) -> Served {
        let mut child = Command::new(env!("CARGO_BIN_EXE_vantage"))
            .args(["serve", "--addr", "127.0.0.1:0", "--db"])
            .arg(db)
            .env("RUST_LOG", "warn")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("vantage starts");
        let stderr = child.stderr.take().unwrap();
        let (tx, rx) = mpsc::channel();
        // Reads the startup line, then keeps draining so the server never blocks on a full pipe.
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines() {
                let Ok(line) = line else { break };
                if let Some((_, rest)) = line.split_once("listening on http://") {
                    let addr = rest.split_whitespace().next().unwrap_or_default();
                    let _ = tx.send(format!("http://{addr}"));
                }
            }
        });
        let base = rx
            .recv_timeout(Duration::from_secs(20))
            .expect("the server prints `listening on http://ADDR`");
        Served { child, base }
    }

    /// SIGKILL: no shutdown code runs.
    fn kill(mut self) {
        self.child.kill().expect("kill");
        self.child.wait().expect("reaped");
    }
}

impl Drop for Served {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[tokio::test]
async fn answered_writes_survive_sigkill() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("v.db");

    let first = Served::start(&db);
    assert!(
        first.base.starts_with("http://127.0.0.1:"),
        "{}",
        first.base
    );
    let renamed = call(Method::PATCH, &first.base, "/v1/projects/prj_70256702db4f")
        .key(ENTERPRISE_ADMIN)
        .json(r#"{"name":"  Survives a kill  ","visibility":"workspace_view"}"#)
        .send()
        .await;
    assert_eq!(renamed.status, 200, "{}", renamed.text);
    let deleted = call(Method::DELETE, &first.base, "/v1/projects/prj_2353359fe650")
        .key(ENTERPRISE_ADMIN)
        .send()
        .await;
    assert_eq!(deleted.status, 204, "{}", deleted.text);
    let unpublished = call(
        Method::DELETE,
        &first.base,
        "/v1/projects/prj_3fdeb42f2f59/publish",
    )
    .key(ENTERPRISE_ADMIN)
    .send()
    .await;
    assert_eq!(unpublished.status, 204, "{}", unpublished.text);
    first.kill();

    let second = Served::start(&db);
    let shown = get(
        &second.base,
        "/v1/projects/prj_70256702db4f",
        ENTERPRISE_ADMIN,
    )
    .await;
    assert_eq!(shown.status, 200, "{}", shown.text);
    assert_eq!(shown.json()["name"], Value::from("  Survives a kill  "));
    assert_eq!(shown.json()["visibility"], Value::from("workspace_view"));
    let gone = get(
        &second.base,
        "/v1/projects/prj_2353359fe650",
        ENTERPRISE_ADMIN,
    )
    .await;
    assert_eq!(gone.status, 404, "{}", gone.text);
    assert_eq!(gone.json()["type"], "project_not_found");
    let offline = get(
        &second.base,
        "/v1/projects/prj_3fdeb42f2f59",
        ENTERPRISE_ADMIN,
    )
    .await;
    assert_eq!(offline.json()["is_published"], Value::Bool(false));
    assert_eq!(offline.json()["publish_audience"], Value::Null);
    // The second start did not load the fixture again over the changed data.
    let untouched = get(
        &second.base,
        "/v1/projects/prj_7c9bcbec550e",
        ENTERPRISE_ADMIN,
    )
    .await;
    assert_eq!(untouched.json()["name"], Value::from("Team hub"));
    second.kill();
}

/// Issue 11, item 6: each server keeps its own copy of the data in memory, so a
/// second `vantage serve` on the same file would undo the first one's writes. It
/// exits non-zero at once, naming the file; the first one keeps serving.
#[tokio::test]
async fn a_second_server_on_one_database_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("shared.db");
    let first = Served::start(&db);
    let mut second = Command::new(env!("CARGO_BIN_EXE_vantage"))
        .args(["serve", "--addr", "127.0.0.1:0", "--db"])
        .arg(&db)
        .env("RUST_LOG", "warn")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("vantage starts");
    // A bound for a failing test only: a refused server exits at once.
    let deadline = std::time::Instant::now() + Duration::from_secs(30);
    let status = loop {
        if let Some(status) = second.try_wait().expect("wait") {
            break status;
        }
        if std::time::Instant::now() > deadline {
            let _ = second.kill();
            let _ = second.wait();
            panic!("a second server on {} kept running", db.display());
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let mut stderr = String::new();
    std::io::Read::read_to_string(&mut second.stderr.take().unwrap(), &mut stderr).unwrap();
    assert_eq!(status.code(), Some(1), "{stderr}");
    assert_eq!(
        stderr,
        format!(
            "error: store: the database file {} is in use by another server (each server keeps its own copy in memory, so two would undo each other's writes); stop the other one, or give another --db\n",
            db.display()
        )
    );
    let still = get(
        &first.base,
        "/v1/projects/prj_70256702db4f",
        ENTERPRISE_ADMIN,
    )
    .await;
    assert_eq!(still.status, 200, "{}", still.text);
    // The keys of a file in use can still be read: the startup line suggests it.
    let credentials = Command::new(env!("CARGO_BIN_EXE_vantage"))
        .args(["serve", "--print-credentials", "--db"])
        .arg(&db)
        .env("RUST_LOG", "warn")
        .stdin(Stdio::null())
        .output()
        .expect("vantage runs");
    assert!(
        credentials.status.success(),
        "{}",
        String::from_utf8_lossy(&credentials.stderr)
    );
    let keys: Value = serde_json::from_slice(&credentials.stdout).expect("JSON");
    assert_eq!(keys[0]["label"], "enterprise-admin");
    assert_eq!(keys[0]["key"], ENTERPRISE_ADMIN);
    first.kill();
}
