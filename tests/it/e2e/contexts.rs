//! End to end: the dashboard on a config file with two contexts, switched from
//! the keyboard without a restart.

use vantage::server::{self, ServerConfig, seed};

use crate::e2e::support::Session;

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

/// The config of [`a_switch_takes_the_new_contexts_history_and_its_marks_land_there`]:
/// globex first, acme second, each with its own history file in `histories`
/// (no background snapshot, so a mark is all either file gets).
fn two_histories(histories: &std::path::Path, base_url: &str) -> String {
    let globex = histories.join("history-globex.sqlite3");
    let acme = histories.join("history-acme.sqlite3");
    format!(
        "current_context = \"globex\"\n\n\
         [history]\nsnapshot_max_age = \"off\"\n\n\
         [contexts.globex]\nbase_url = \"{base_url}\"\napi_key = \"{GLOBEX_KEY}\"\nworkspace_id = \"ws_globex\"\n\
         history_url = \"{}\"\n\n\
         [contexts.acme]\nbase_url = \"{base_url}\"\napi_key = \"{ACME_KEY}\"\nworkspace_id = \"ws_acme\"\n\
         history_url = \"{}\"\n",
        globex.display(),
        acme.display()
    )
}

/// From globex's insights, switches to acme and marks the inventory's first
/// row reviewed (acme's plan has the inventory), then quits.
fn switch_to_acme_and_mark(mut session: Session) {
    session.wait_for("globex's insights", |screen| {
        screen.contains("context globex") && screen.contains("workspace ws_globex")
    });
    session.send("\u{18}"); // ctrl-x
    session.wait_text("acme");
    session.send("k\r");
    session.wait_for("acme's insights", |screen| {
        screen.contains("context acme")
            && screen.contains("workspace ws_acme")
            && screen.contains("Finding types")
    });
    session.send("2");
    session.wait_for("acme's inventory", |screen| {
        screen.contains("loaded") && !screen.contains("Loading projects") && screen.contains("prj_")
    });
    session.send("m");
    session.wait_for("the note dialog", |screen| screen.contains(" Mark "));
    session.send("checked after the switch\r");
    session.wait_for("the mark written", |screen| {
        screen.contains("marked ") && screen.contains(" reviewed") && !screen.contains(" Mark ")
    });
    session.send("q");
    let status = session.wait_exit();
    assert!(status.success(), "exit status {status:?}");
}

/// The marks of `workspace` in the history file at `path`.
fn marks_in(path: &std::path::Path, workspace: &str) -> Vec<vantage::history::ReviewMark> {
    let store = vantage::history::Store::open(path).expect("the history file");
    store.reviewed_marks(workspace).expect("the marks")
}

/// A context's `history_url` follows a switch: after `ctrl-x` from globex to
/// acme, a reviewed mark lands in acme's history file, not in globex's (which
/// the dashboard opened at launch).
#[test]
fn a_switch_takes_the_new_contexts_history_and_its_marks_land_there() {
    let histories = tempfile::tempdir().expect("tempdir");
    let (runtime, running, _dir, path) =
        demo_with_config(|base_url| two_histories(histories.path(), base_url));
    switch_to_acme_and_mark(Session::start(&["--config", &path], 120, 35));
    runtime.block_on(running.stop());

    let marks = marks_in(&histories.path().join("history-acme.sqlite3"), "ws_acme");
    assert_eq!(marks.len(), 1, "{marks:?}");
    assert_eq!(
        marks[0].note.as_deref(),
        Some("checked after the switch"),
        "{marks:?}"
    );
    let globex = vantage::history::Store::open(&histories.path().join("history-globex.sqlite3"))
        .expect("globex's history");
    assert!(
        !globex
            .workspaces()
            .expect("globex's workspaces")
            .iter()
            .any(|workspace| workspace == "ws_acme"),
        "acme's mark went to globex's history"
    );
}

/// `--history` wins over every context's `history_url`, after a switch as at
/// launch.
#[test]
fn the_history_flag_still_wins_after_a_switch() {
    let histories = tempfile::tempdir().expect("tempdir");
    let (runtime, running, _dir, path) =
        demo_with_config(|base_url| two_histories(histories.path(), base_url));
    let flagged = histories.path().join("history-flag.sqlite3");
    let flag = flagged.display().to_string();
    switch_to_acme_and_mark(Session::start(
        &["--config", &path, "--history", &flag],
        120,
        35,
    ));
    runtime.block_on(running.stop());

    assert_eq!(marks_in(&flagged, "ws_acme").len(), 1);
    let acme = histories.path().join("history-acme.sqlite3");
    assert!(
        !acme.exists() || marks_in(&acme, "ws_acme").is_empty(),
        "the context's history_url won over --history"
    );
}

/// A context whose `history_url` cannot be used is not switched to: the
/// dashboard says why and stays on the context it showed.
#[test]
fn a_context_with_an_unusable_history_url_is_not_switched_to() {
    let (runtime, running, _dir, path) = demo_with_config(|base_url| {
        format!(
            "current_context = \"acme\"\n\n\
             [history]\nsnapshot_max_age = \"off\"\n\n\
             [contexts.acme]\nbase_url = \"{base_url}\"\napi_key = \"{ACME_KEY}\"\nworkspace_id = \"ws_acme\"\n\n\
             [contexts.globex]\nbase_url = \"{base_url}\"\napi_key = \"{GLOBEX_KEY}\"\nworkspace_id = \"ws_globex\"\n\
             history_url = \"https://history.invalid/globex\"\n"
        )
    });
    let mut session = Session::start(&["--config", &path], 120, 35);
    session.wait_for("acme's insights", |screen| {
        screen.contains("context acme") && screen.contains("Finding types")
    });
    session.send("\u{18}"); // ctrl-x
    session.wait_text("globex");
    session.send("j\r");
    session.wait_text("context globex not switched to");
    session.send("!");
    let errors = session.wait_text("neither a postgres:// URL nor a file");
    assert!(errors.contains("context acme"), "{errors}");
    session.send("\u{1b}");
    session.wait_for("the error log closed", |screen| {
        !screen.contains("neither a postgres:// URL nor a file")
    });
    session.send("q");
    let status = session.wait_exit();
    assert!(status.success(), "exit status {status:?}");
    runtime.block_on(running.stop());
}
