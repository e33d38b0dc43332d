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
        run.stderr.contains("refusing to use config file"),
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
        run.stderr.contains("refusing to use config file"),
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

/// The three ways another user could have written a config: its mode, its
/// directory's mode, the directory of the file a link points to. Each makes
/// `home` so, and says what the error must name.
fn make_untrusted(home: &Home, way: usize) -> (String, Box<dyn FnOnce()>) {
    let config = home.config();
    chmod(&config, 0o600);
    match way {
        0 => {
            chmod(&config, 0o666);
            ("mode 666".into(), Box::new(|| {}))
        }
        1 => {
            chmod(home.dir.path(), 0o777);
            let dir = home.dir.path().to_path_buf();
            ("mode 777".into(), Box::new(move || chmod(&dir, 0o700)))
        }
        _ => {
            let shared = home.dir.path().join("shared");
            std::fs::create_dir(&shared).unwrap();
            let real = shared.join("vantage.toml");
            std::fs::rename(&config, &real).unwrap();
            std::os::unix::fs::symlink(&real, &config).unwrap();
            chmod(&shared, 0o770);
            ("mode 770".into(), Box::new(move || chmod(&shared, 0o700)))
        }
    }
}

/// Issue 33, item 1: from a config others can write, no key is used, not
/// only `api_key` and `api_key_command`: `base_url` would receive the user's
/// `SERVICE_API_KEY`, `api_key_env` would send another variable's value,
/// `history_url` the database password, and `history_password_command` runs.
#[tokio::test]
async fn a_config_others_can_write_is_not_used_at_all() {
    let (api, requests) = crate::cli::support::stub(vec![]).await;
    let marker_dir = tempfile::tempdir().unwrap();
    let marker = marker_dir.path().join("pwned");
    let text = format!(
        "base_url = \"{api}\"\nworkspace_id = \"ws_1\"\napi_key_env = \"AWS_SECRET_ACCESS_KEY\"\n\
         history_url = \"postgres://ada@127.0.0.1:9/vantage\"\n\
         history_password_command = \"id > '{}'; echo pw\"\n",
        marker.display()
    );
    let env = [
        ("SERVICE_API_KEY", "vtg_the_users_own_key"),
        ("AWS_SECRET_ACCESS_KEY", "aws_secret"),
    ];
    for way in 0..3 {
        let home = Home::with_config(&text);
        let (named, restore) = make_untrusted(&home, way);
        let api_call = home.run(&["projects", "get", "prj_1"], &env).await;
        let history = home.run(&["reviewed", "list"], &env).await;
        restore();
        for run in [api_call, history] {
            let run = run.expect(3);
            assert!(
                run.stderr.contains("refusing to use config file")
                    && run.stderr.contains(&named)
                    && run.stderr.contains("run: chmod go-w"),
                "way {way}: {}",
                run.stderr
            );
        }
        assert!(!marker.exists(), "way {way}: history_password_command ran");
        assert!(
            requests.lock().unwrap().is_empty(),
            "way {way}: base_url was asked: {:?}",
            requests.lock().unwrap()
        );
    }
}

/// Issue 33, item 1: `[history] path` naming a file of the user's that is no
/// history: refused before its mode is changed, its bytes kept.
#[tokio::test]
async fn a_history_path_that_is_no_history_keeps_its_mode() {
    let home = Home::with_config("");
    let target = precious(home.dir.path());
    std::fs::write(
        home.config(),
        format!(
            "workspace_id = \"ws_1\"\n[history]\npath = \"{}\"\n",
            target.display()
        ),
    )
    .unwrap();
    chmod(&home.config(), 0o600);
    let run = home.run(&["snapshot", "list"], &[]).await;
    assert_ne!(run.code, 0, "{}", run.stderr);
    assert!(
        run.stderr.contains("not a vantage history"),
        "{}",
        run.stderr
    );
    untouched(&target);
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
