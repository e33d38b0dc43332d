//! Hostile local files (issue 22, items 10 to 14): a symlink planted at the
//! history file's place or beside the config, a config or directory another
//! user can write, a config that is a FIFO or far too large; and the modes of
//! what vantage creates.

use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::time::Duration;

use crate::cli::contexts::Home;
use crate::cli::support::{Cli, Run};
use crate::common::{ENTERPRISE_ADMIN, ENTERPRISE_WS, demo_server, mode, precious, untouched};

fn chmod(path: &Path, mode: u32) {
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).unwrap();
}

#[test]
fn a_symlink_at_the_history_files_place_is_refused_and_its_target_kept() {
    let home = tempfile::tempdir().unwrap();
    let target = precious(home.path());
    let link = home.path().join("history.sqlite3");
    std::os::unix::fs::symlink(&target, &link).unwrap();
    let error = vantage::history::Store::open(&link).err().expect("refused");
    assert!(error.to_string().contains("symbolic link"), "{error}");
    untouched(&target);

    // A link to a missing path: no database is created at its end.
    let dangling = home.path().join("other.sqlite3");
    let missing = home.path().join("missing.sqlite3");
    std::os::unix::fs::symlink(&missing, &dangling).unwrap();
    assert!(vantage::history::Store::open(&dangling).is_err());
    assert!(!missing.exists(), "created through the link");
}

#[tokio::test]
async fn a_snapshot_makes_the_data_dir_0700_and_the_history_file_0600() {
    let (server, _clock) = demo_server().await;
    let cli = Cli::new(server.base_url(), ENTERPRISE_WS, ENTERPRISE_ADMIN);
    let data = cli.home.path().join("data");
    cli.run_env(&["snapshot"], &[("XDG_DATA_HOME", data.to_str().unwrap())])
        .await
        .expect(0);
    assert_eq!(mode(&data.join("vantage")), 0o700);
    assert_eq!(mode(&data.join("vantage/history.sqlite3")), 0o600);
}

const TWO_CONTEXTS: &str = "current_context = \"a\"\n\n[contexts.a]\nbase_url = \"https://a.example\"\n\n[contexts.b]\nbase_url = \"https://b.example\"\n";

#[tokio::test]
async fn context_use_never_writes_through_a_planted_temporary_file() {
    let cli = Cli::new("http://127.0.0.1:9", "", "k");
    let config = cli.config_file(TWO_CONTEXTS);
    chmod(&config, 0o600);
    let target = precious(cli.home.path());
    // Yesterday's name for the temporary file, and a few more guesses.
    for planted in [
        ".config.toml.vantage-tmp",
        "config.toml.tmp",
        ".config.toml.tmp",
    ] {
        std::os::unix::fs::symlink(&target, cli.home.path().join(planted)).unwrap();
    }
    cli.run(&["--config", config.to_str().unwrap(), "context", "use", "b"])
        .await
        .expect(0);
    untouched(&target);
    let after = std::fs::symlink_metadata(&config).unwrap();
    assert!(after.is_file(), "config.toml is a file, not a link");
    assert_eq!(after.permissions().mode() & 0o777, 0o600, "keeps its mode");
    let text = std::fs::read_to_string(&config).unwrap();
    assert!(text.starts_with("current_context = \"b\""), "{text}");
}

/// A key source's command run with no key in the environment and no
/// `--api-key-env`, so the file's key sources are tried.
async fn get_project(home: &Home) -> Run {
    let args = ["--base-url", "http://127.0.0.1:9", "--workspace", "ws_1"];
    home.run(&[&args[..], &["projects", "get", "prj_1"]].concat(), &[])
        .await
}

#[tokio::test]
async fn a_key_command_in_a_file_others_can_write_is_not_run() {
    let marker = tempfile::tempdir().unwrap();
    let marker = marker.path().join("ran");
    let home = Home::with_config(&format!(
        "api_key_command = \"touch '{}'; echo vtg_key\"\n",
        marker.display()
    ));
    chmod(&home.config(), 0o666);
    let run = get_project(&home).await.expect(3);
    assert!(!marker.exists(), "the command ran");
    assert!(
        run.stderr.contains("refusing to run api_key_command"),
        "{}",
        run.stderr
    );
    assert!(
        run.stderr.contains(&home.config().display().to_string()),
        "{}",
        run.stderr
    );
    assert!(run.stderr.contains("mode 666"), "{}", run.stderr);
}

#[tokio::test]
async fn a_key_in_a_directory_others_can_write_is_not_used() {
    let home = Home::with_config("api_key = \"vtg_planted\"\n");
    chmod(&home.config(), 0o600);
    chmod(home.dir.path(), 0o777);
    let run = get_project(&home).await;
    chmod(home.dir.path(), 0o700);
    let run = run.expect(3);
    assert!(
        run.stderr.contains("refusing to read api_key"),
        "{}",
        run.stderr
    );
    assert!(run.stderr.contains("mode 777"), "{}", run.stderr);
    assert!(
        run.stderr.contains(&home.dir.path().display().to_string()),
        "{}",
        run.stderr
    );
}

#[tokio::test]
async fn a_fifo_config_is_refused_at_once() {
    let cli = Cli::new("http://127.0.0.1:9", "ws_1", "k");
    let fifo = cli.home.path().join("fifo.toml");
    nix::unistd::mkfifo(&fifo, nix::sys::stat::Mode::from_bits_truncate(0o600)).unwrap();
    let run = tokio::time::timeout(
        Duration::from_secs(20),
        cli.run(&[
            "--config",
            fifo.to_str().unwrap(),
            "projects",
            "get",
            "prj_1",
        ]),
    )
    .await
    .expect("vantage hung on a FIFO config")
    .expect(3);
    assert!(
        run.stderr.contains("not a regular file (a FIFO)"),
        "{}",
        run.stderr
    );
}

#[tokio::test]
async fn a_config_over_a_mebibyte_is_refused_saying_why() {
    let cli = Cli::new("http://127.0.0.1:9", "ws_1", "k");
    let config = cli.config_file(&format!("# {}\n", "x".repeat(2 << 20)));
    let run = cli
        .run(&[
            "--config",
            config.to_str().unwrap(),
            "projects",
            "get",
            "prj_1",
        ])
        .await
        .expect(3);
    assert!(run.stderr.contains("larger than 1 MiB"), "{}", run.stderr);
}
