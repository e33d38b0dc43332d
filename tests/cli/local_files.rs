//! Hostile local files (issue 22, items 10, 11 and 13): a symlink planted at
//! the history file's place or beside the config; and the modes of what
//! vantage creates.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use crate::common::{ENTERPRISE_ADMIN, ENTERPRISE_WS, demo_server};
use crate::support::Cli;

fn mode(path: &Path) -> u32 {
    std::fs::metadata(path).unwrap().permissions().mode() & 0o777
}

fn chmod(path: &Path, mode: u32) {
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).unwrap();
}

/// A file of the user's that a planted link points at (`~/.bashrc`).
fn precious(dir: &Path) -> PathBuf {
    let path = dir.join("precious.txt");
    std::fs::write(&path, "export PATH=/usr/bin\n").unwrap();
    chmod(&path, 0o644);
    path
}

/// The target of a planted link keeps its mode and its bytes.
fn untouched(path: &Path) {
    assert_eq!(
        std::fs::read_to_string(path).unwrap(),
        "export PATH=/usr/bin\n"
    );
    assert_eq!(mode(path), 0o644, "{} changed mode", path.display());
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
