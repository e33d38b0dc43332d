//! Where the key comes from: an `api_key_command` that hangs is stopped at
//! `api_key_command_timeout_secs` and named, and nothing is asked of the
//! service without a key.

use std::process::Stdio;
use std::time::{Duration, Instant};

use crate::common::hostile_service::{self, Trick};

#[tokio::test]
async fn a_hung_api_key_command_is_stopped_and_named() {
    let service = hostile_service::start(Trick::Honest).await;
    let home = tempfile::tempdir().unwrap();
    let config = home.path().join("config.toml");
    std::fs::write(
        &config,
        format!(
            "base_url = \"{}\"\nworkspace_id = \"ws_1\"\napi_key_command = \"sleep 30\"\napi_key_command_timeout_secs = 1\n",
            service.base_url
        ),
    )
    .unwrap();
    let started = Instant::now();
    let output = tokio::process::Command::new(env!("CARGO_BIN_EXE_vantage"))
        .args(["--config", config.to_str().unwrap(), "inventory"])
        .env("HOME", home.path())
        .env("XDG_CONFIG_HOME", home.path().join(".config"))
        .env_remove("SERVICE_API_KEY")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .output();
    let output = tokio::time::timeout(Duration::from_secs(20), output)
        .await
        .expect("the command ends by itself")
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_ne!(output.status.code(), Some(0), "{stderr}");
    assert!(
        stderr.contains("`sleep 30` did not finish within 1 s (api_key_command_timeout_secs)"),
        "{stderr}"
    );
    assert!(
        started.elapsed() < Duration::from_secs(10),
        "{:?}",
        started.elapsed()
    );
    assert_eq!(service.requests(), 0);
}
