//! Contexts from the command line: `vantage context list|use`, and the commands
//! on the context `--context`, `VANTAGE_CONTEXT` or `current_context` chooses.

use std::path::{Path, PathBuf};
use std::process::Stdio;

use serde_json::Value;
use tokio::process::Command;

use crate::cli::support::Run;
use crate::common::*;

/// A home with a config file and nothing else: no flags are added, so only
/// the file, the arguments and `env` decide.
pub(crate) struct Home {
    pub(crate) dir: tempfile::TempDir,
}

impl Home {
    pub(crate) fn with_config(text: &str) -> Self {
        let dir = tempfile::tempdir().expect("tempdir");
        std::fs::write(dir.path().join("config.toml"), text).expect("write config");
        Self { dir }
    }

    pub(crate) fn config(&self) -> PathBuf {
        self.dir.path().join("config.toml")
    }

    pub(crate) async fn run(&self, args: &[&str], env: &[(&str, &str)]) -> Run {
        let output = Command::new(env!("CARGO_BIN_EXE_vantage"))
            .arg("--config")
            .arg(self.config())
            .args(args)
            .env("HOME", self.dir.path())
            .env("XDG_CONFIG_HOME", self.dir.path().join(".config"))
            .env_remove("SERVICE_API_KEY")
            .env_remove("VANTAGE_CONTEXT")
            .env_remove("VANTAGE_LOG")
            .envs(env.iter().copied())
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true)
            .output()
            .await
            .expect("the binary runs");
        Run {
            code: output.status.code().unwrap_or(-1),
            stdout: String::from_utf8(output.stdout).expect("stdout is UTF-8"),
            stderr: String::from_utf8(output.stderr).expect("stderr is UTF-8"),
        }
    }
}

/// Two contexts on one server: the enterprise workspace by an environment
/// variable, the business one by a key in the file. Comments and odd spacing
/// on purpose: `context use` must keep them.
fn two_contexts(base_url: &str) -> String {
    format!(
        "# my contexts\ncurrent_context   =  \"acme\"  # the usual one\nrequest_timeout_secs = 30\n\n\
         [contexts.acme]\nbase_url = \"{base_url}\"\napi_key_env = \"ACME_KEY\"\nworkspace_id = \"{ENTERPRISE_WS}\"\n\n\
         # the other one\n[contexts.globex]\nbase_url = \"{base_url}\"\napi_key = \"{BUSINESS_ADMIN}\"\n\
         workspace_id = \"{BUSINESS_WS}\"\nread_only = true\n\n[tui]\ntheme = \"light\"\n"
    )
}

fn mode(path: &Path) -> u32 {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path)
        .expect("metadata")
        .permissions()
        .mode()
        & 0o777
}

fn set_mode(path: &Path, mode: u32) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).expect("chmod");
}

#[tokio::test]
async fn context_use_rewrites_only_current_context() {
    let text = two_contexts("http://127.0.0.1:9");
    let home = Home::with_config(&text);
    set_mode(&home.config(), 0o600);
    let run = home.run(&["context", "use", "globex"], &[]).await.expect(0);
    assert!(
        run.stderr.contains("current context: globex"),
        "{}",
        run.stderr
    );
    let after = std::fs::read_to_string(home.config()).expect("read");
    assert_eq!(
        after,
        text.replace("\"acme\"  # the usual one", "\"globex\"  # the usual one")
    );
    assert_eq!(mode(&home.config()), 0o600);
    // And back: byte for byte what was written.
    home.run(&["context", "use", "acme"], &[]).await.expect(0);
    assert_eq!(std::fs::read_to_string(home.config()).expect("read"), text);

    // An unknown name changes nothing and lists the known ones.
    let run = home.run(&["context", "use", "globx"], &[]).await.expect(3);
    assert!(
        run.stderr.contains("no context named \"globx\"")
            && run.stderr.contains("known contexts: acme, globex"),
        "{}",
        run.stderr
    );
    assert_eq!(std::fs::read_to_string(home.config()).expect("read"), text);
}

#[tokio::test]
async fn context_use_adds_current_context_to_a_file_without_one() {
    let text = "# flat\nbase_url = \"https://a.example\"\n\n[contexts.b]\nbase_url = \"https://b.example\"\n";
    let home = Home::with_config(text);
    set_mode(&home.config(), 0o640);
    home.run(&["context", "use", "b"], &[]).await.expect(0);
    let after = std::fs::read_to_string(home.config()).expect("read");
    assert_eq!(after, format!("current_context = \"b\"\n{text}"));
    assert_eq!(mode(&home.config()), 0o640);
}

#[tokio::test]
async fn context_list_marks_the_current_one_and_never_prints_a_key() {
    let home = Home::with_config(&two_contexts("http://127.0.0.1:9"));
    set_mode(&home.config(), 0o600);
    for format in ["table", "json", "jsonl", "csv"] {
        let run = home
            .run(&["context", "list", "--format", format], &[])
            .await
            .expect(0);
        assert!(
            !run.stdout.contains(BUSINESS_ADMIN),
            "{format}: {}",
            run.stdout
        );
        assert!(
            !run.stderr.contains(BUSINESS_ADMIN),
            "{format}: {}",
            run.stderr
        );
        assert!(run.stdout.contains("globex"), "{format}: {}", run.stdout);
    }
    let run = home
        .run(&["context", "list", "--format", "json"], &[])
        .await
        .expect(0);
    let rows: Value = serde_json::from_str(&run.stdout).expect("json");
    assert_eq!(
        rows,
        serde_json::json!([
            {"name": "acme", "current": true, "base_url": "http://127.0.0.1:9",
             "workspace_id": "ws_acme", "key_source": "env ACME_KEY", "read_only": false},
            {"name": "globex", "current": false, "base_url": "http://127.0.0.1:9",
             "workspace_id": "ws_globex", "key_source": "file", "read_only": true},
        ])
    );
    // The environment and the flag move the mark, in that order of strength.
    let current = |run: Run| -> String {
        let rows: Value = serde_json::from_str(&run.stdout).expect("json");
        rows.as_array()
            .expect("array")
            .iter()
            .filter(|row| row["current"] == true)
            .map(|row| row["name"].as_str().expect("name").to_owned())
            .collect()
    };
    let env = [("VANTAGE_CONTEXT", "globex")];
    let run = home.run(&["context", "list", "-o", "json"], &env).await;
    assert_eq!(current(run.expect(0)), "globex");
    let run = home
        .run(
            &["--context", "acme", "context", "list", "-o", "json"],
            &env,
        )
        .await;
    assert_eq!(current(run.expect(0)), "acme");
    let table = home
        .run(&["context", "list", "-o", "table"], &[])
        .await
        .expect(0);
    let marked = table.stdout.lines().find(|line| line.starts_with('*'));
    assert!(
        marked.is_some_and(|line| line.contains("acme")),
        "{}",
        table.stdout
    );
}

#[tokio::test]
async fn commands_use_the_chosen_context() {
    let (server, _clock) = demo_server().await;
    let home = Home::with_config(&two_contexts(&server.base_url()));
    set_mode(&home.config(), 0o600);
    let key = [("ACME_KEY", ENTERPRISE_READONLY)];
    let projects = |run: Run| -> i64 {
        let insights: Value = serde_json::from_str(&run.stdout).expect("json");
        insights["summary"]["total_projects"]["value"]
            .as_i64()
            .expect("projects")
    };
    let fixture = demo();
    // current_context: acme, with its key from ACME_KEY.
    let acme = home.run(&["insights", "-o", "json"], &key).await.expect(0);
    // --context: globex, with the key in the file (and no warning: mode 0600).
    let globex = home
        .run(&["--context", "globex", "insights", "-o", "json"], &key)
        .await
        .expect(0);
    assert!(globex.stderr.is_empty(), "{}", globex.stderr);
    assert_ne!(projects(acme), projects(globex));
    // VANTAGE_CONTEXT, and the context's read_only refuses a mutation.
    let env = [
        ("ACME_KEY", ENTERPRISE_READONLY),
        ("VANTAGE_CONTEXT", "globex"),
    ];
    let project = first_project(&fixture, BUSINESS_WS);
    let run = home
        .run(&["projects", "rename", &project, "x"], &env)
        .await
        .expect(3);
    assert!(run.stderr.contains("read-only"), "{}", run.stderr);
    // A context's own key source comes before SERVICE_API_KEY: with ACME_KEY
    // unset, acme fails rather than borrowing the generic key.
    let run = home
        .run(
            &["insights", "-o", "json"],
            &[("SERVICE_API_KEY", ENTERPRISE_ADMIN)],
        )
        .await
        .expect(3);
    assert!(run.stderr.contains("ACME_KEY is not set"), "{}", run.stderr);
    // An unknown context: exit 3, the known ones listed.
    let run = home
        .run(&["--context", "nope", "insights"], &key)
        .await
        .expect(3);
    assert!(
        run.stderr.contains("known contexts: acme, globex"),
        "{}",
        run.stderr
    );
    // A key in any context of a file others can read draws the warning.
    set_mode(&home.config(), 0o644);
    let run = home.run(&["insights", "-o", "json"], &key).await.expect(0);
    assert!(run.stderr.contains("chmod 600"), "{}", run.stderr);
    assert!(!run.stderr.contains(BUSINESS_ADMIN), "{}", run.stderr);
    server.stop().await;
}

#[tokio::test]
async fn the_history_read_is_the_chosen_contexts_workspace() {
    let home = Home::with_config(&two_contexts("http://127.0.0.1:9"));
    set_mode(&home.config(), 0o600);
    let history = home.dir.path().join("history.sqlite3");
    let text = std::fs::read_to_string(home.config()).expect("read");
    std::fs::write(
        home.config(),
        text.replace(
            "[tui]",
            &format!(
                "[history]\npath = {:?}\n\n[tui]",
                history.display().to_string()
            ),
        ),
    )
    .expect("write");
    // No snapshot yet: the error names the workspace whose history was read.
    let run = home.run(&["changes"], &[]).await.expect(4);
    assert!(run.stderr.contains("workspace ws_acme"), "{}", run.stderr);
    let run = home
        .run(&["--context", "globex", "changes"], &[])
        .await
        .expect(4);
    assert!(run.stderr.contains("workspace ws_globex"), "{}", run.stderr);
    let env = [("VANTAGE_CONTEXT", "globex")];
    let run = home.run(&["changes"], &env).await.expect(4);
    assert!(run.stderr.contains("workspace ws_globex"), "{}", run.stderr);
}
