//! End to end: the dashboard on a config file with two contexts, switched from
//! the keyboard without a restart.

use vantage::server::{self, ServerConfig, seed};

use crate::support::Session;

/// The demo fixture's keys (see `vantage serve --print-credentials`).
pub(crate) const ACME_KEY: &str = "vtg_demo_enterprise_admin";
pub(crate) const GLOBEX_KEY: &str = "vtg_demo_business_admin";

/// The demo server on `127.0.0.1:0`, and a config file (mode 0600) written by
/// `config` from its base URL: the runtime, the server, the file's directory
/// (removed when dropped) and the file's path.
pub(crate) fn demo_with_config(
    config: impl FnOnce(&str) -> String,
) -> (
    tokio::runtime::Runtime,
    server::RunningServer,
    tempfile::TempDir,
    String,
) {
    use std::os::unix::fs::PermissionsExt;
    let runtime = tokio::runtime::Runtime::new().expect("runtime");
    let anchor = seed::today_anchor(time::OffsetDateTime::now_utc());
    let fixture = seed::demo_fixture(anchor).expect("demo fixture");
    let running = runtime
        .block_on(server::start(ServerConfig::local(fixture)))
        .expect("server starts");
    let dir = tempfile::tempdir().expect("tempdir");
    let file = dir.path().join("config.toml");
    std::fs::write(&file, config(&running.base_url())).expect("config");
    std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o600)).expect("chmod");
    let path = file.display().to_string();
    (runtime, running, dir, path)
}

#[test]
fn ctrl_x_switches_the_context_and_the_header_follows() {
    let (runtime, running, _dir, path) = demo_with_config(|base_url| {
        format!(
            "current_context = \"acme\"\n\n\
             [contexts.acme]\nbase_url = \"{base_url}\"\napi_key = \"{ACME_KEY}\"\nworkspace_id = \"ws_acme\"\n\n\
             [contexts.globex]\nbase_url = \"{base_url}\"\napi_key_env = \"GLOBEX_KEY\"\nworkspace_id = \"ws_globex\"\n"
        )
    });
    let mut session =
        Session::start_with_env(&["--config", &path], &[("GLOBEX_KEY", GLOBEX_KEY)], 120, 35);
    session.wait_for("acme's insights", |screen| {
        screen.contains("context acme")
            && screen.contains("workspace ws_acme")
            && screen.contains("Finding types")
    });
    session.send("\u{18}"); // ctrl-x
    session.wait_text("globex");
    session.send("j\r");
    session.wait_for("globex's insights", |screen| {
        screen.contains("context globex")
            && screen.contains("workspace ws_globex")
            && screen.contains("Finding types")
    });
    session.send("q");
    let status = session.wait_exit();
    assert!(status.success(), "exit status {status:?}");
    runtime.block_on(running.stop());
}

/// Issue 14: `workspace_id` is optional (README). With only base_url and
/// api_key, the dashboard asks the service and uses the one workspace the key
/// reaches.
#[test]
fn without_workspace_id_the_dashboard_uses_the_one_the_key_reaches() {
    let (runtime, running, _dir, path) = demo_with_config(|base_url| {
        format!("base_url = \"{base_url}\"\napi_key = \"{ACME_KEY}\"\n")
    });
    let mut session = Session::start(&["--config", &path], 120, 35);
    session.wait_for("the discovered workspace's insights", |screen| {
        screen.contains("ws_acme") && screen.contains("found via the key")
    });
    session.send("q");
    let status = session.wait_exit();
    assert!(status.success(), "exit status {status:?}");
    runtime.block_on(running.stop());
}
