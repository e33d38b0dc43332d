//! Issue 36, items 8, 9, 13 and 14: the README's jobs run as written. The
//! cron line and the Kubernetes CronJob are read from README.md (so the two
//! cannot drift) and run as cron and the container would run them; the
//! Dockerfile copies what the tarball holds; the systemd units pass
//! `systemd-analyze verify`; the manual names no page that is not shipped.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use crate::cli::stores::{database_store, off_runtime};
use crate::common::*;

const ROOT: &str = env!("CARGO_MANIFEST_DIR");
/// Where README's install section puts the binary.
const INSTALLED: &str = "/usr/local/bin/";

fn read(relative: &str) -> String {
    std::fs::read_to_string(Path::new(ROOT).join(relative))
        .unwrap_or_else(|error| panic!("read {relative}: {error}"))
}

/// The fenced block of README.md whose first line is `first_line`.
fn readme_block(first_line: &str) -> String {
    let readme = read("README.md");
    let start = readme
        .find(&format!("```sh\n{first_line}"))
        .or_else(|| readme.find(&format!("```yaml\n{first_line}")))
        .unwrap_or_else(|| panic!("README has no block starting {first_line:?}"));
    let body = &readme[start..];
    let body = &body[body.find('\n').unwrap() + 1..];
    body[..body.find("```").unwrap()].to_owned()
}

/// The built binary, installed as README says under `prefix` (a temporary
/// directory standing in for `/`).
fn install_under(prefix: &Path) -> PathBuf {
    let bin = prefix.join(INSTALLED.trim_start_matches('/'));
    std::fs::create_dir_all(&bin).unwrap();
    let installed = bin.join("vantage");
    // Copied by `cp`, not here: a file this process holds open for writing is
    // inherited by any child another test forks meanwhile, until that child
    // execs, and running the copy then fails with "Text file busy" (ETXTBSY;
    // it failed so in one of eight runs on a loaded machine).
    let copied = std::process::Command::new("cp")
        .arg(env!("CARGO_BIN_EXE_vantage"))
        .arg(&installed)
        .status()
        .unwrap();
    assert!(copied.success(), "cp: {copied}");
    installed
}

/// Item 8: README's cron line, in a shell with cron's environment (`env -i`,
/// cron's PATH, HOME, SHELL, LOGNAME), with the binary where README installs
/// it and the config where README puts it: it records a snapshot, exits 0
/// and prints nothing (cron mails nothing).
#[tokio::test(flavor = "multi_thread")]
async fn the_readme_cron_line_runs_under_cron_environment() {
    let server = crate::cli::review_marks::roomy_server().await;
    let block = readme_block("# cron");
    let line = block
        .lines()
        .find(|line| line.starts_with("0 * * * *"))
        .expect("README's cron block has an hourly line");
    let prune_line = block
        .lines()
        .find(|line| line.contains("snapshot prune"))
        .expect("README's cron block prunes");
    let command = line.splitn(6, char::is_whitespace).nth(5).unwrap().trim();
    let root = tempfile::tempdir().unwrap();
    install_under(root.path());
    let home = root.path().join("home");
    let config_dir = home.join(".config/vantage");
    std::fs::create_dir_all(&config_dir).unwrap();
    let config = config_dir.join("config.toml");
    std::fs::write(
        &config,
        format!(
            "base_url = \"{}\"\nworkspace_id = \"{ENTERPRISE_WS}\"\napi_key = \"{ENTERPRISE_ADMIN}\"\n",
            server.base_url()
        ),
    )
    .unwrap();
    std::fs::set_permissions(&config, std::os::unix::fs::PermissionsExt::from_mode(0o600)).unwrap();
    // Only the installation prefix is rewritten: the rest runs as written.
    let prefix = format!("{}{INSTALLED}", root.path().display());
    let prune = prune_line
        .splitn(6, char::is_whitespace)
        .nth(5)
        .unwrap()
        .trim();
    // The snapshot, then the nightly prune, each as cron runs it.
    let rewritten = format!(
        "{} && {}",
        command.replace(INSTALLED, &prefix),
        prune.replace(INSTALLED, &prefix)
    );
    // The crontab's own variables (`NAME=value` lines), as cron sets them.
    let assigned: Vec<&str> = block
        .lines()
        .filter(|line| line.starts_with("VANTAGE_") && line.contains('='))
        .collect();
    let home_var = format!("HOME={}", home.display());
    let mut args = vec![
        "-i",
        "PATH=/usr/bin:/bin",
        "SHELL=/bin/sh",
        "LOGNAME=vantage",
        &home_var,
    ];
    args.extend(&assigned);
    args.extend(["/bin/sh", "-c", &rewritten]);
    let output = tokio::process::Command::new("env")
        .args(&args)
        .stdin(Stdio::null())
        .output()
        .await
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(
        output.status.code(),
        Some(0),
        "{line}\nstdout: {stdout}\nstderr: {stderr}"
    );
    assert!(
        command.starts_with(INSTALLED),
        "the cron line names vantage by {INSTALLED}: {line}"
    );
    assert_eq!(stdout, "", "cron mails any output");
    assert_eq!(stderr, "", "cron mails any output");
    let history = home.join(".local/share/vantage/history.sqlite3");
    let snapshots: i64 = rusqlite::Connection::open(&history)
        .unwrap()
        .query_row("SELECT COUNT(*) FROM snapshot", [], |row| row.get(0))
        .unwrap();
    assert_eq!(snapshots, 1);
    server.stop().await;
}

/// A YAML flow sequence, `[a, b, c]`, as README writes them.
fn flow_list(line: &str, key: &str) -> Vec<String> {
    let rest = line.trim().strip_prefix(key).unwrap().trim();
    rest.trim_start_matches('[')
        .trim_end_matches(']')
        .split(',')
        .map(|item| item.trim().trim_matches('"').to_owned())
        .collect()
}

/// Item 9: README's Kubernetes CronJob, run as its container would: the
/// same command, arguments and environment (the secrets and addresses filled
/// in for this test), the binary where the image puts it, no config file.
#[tokio::test(flavor = "multi_thread")]
async fn the_readme_cronjob_runs_without_a_config_file() {
    let server = crate::cli::review_marks::roomy_server().await;
    let shared = database_store();
    let block = readme_block("# Kubernetes");
    assert!(
        block.contains("activeDeadlineSeconds:"),
        "the CronJob bounds a job that hangs"
    );
    let line = |key: &str| {
        block
            .lines()
            .find(|line| line.trim().starts_with(key))
            .unwrap_or_else(|| panic!("the CronJob has no {key}"))
            .to_owned()
    };
    let command = flow_list(&line("command:"), "command:");
    let args = flow_list(&line("args:"), "args:");
    let root = tempfile::tempdir().unwrap();
    let installed = install_under(root.path());
    assert_eq!(
        command,
        vec![format!("{INSTALLED}vantage")],
        "the binary by its absolute path"
    );
    let home = root.path().join("home");
    std::fs::create_dir_all(&home).unwrap();
    let mut job = tokio::process::Command::new(&installed);
    job.args(&args)
        .env_clear()
        .env("HOME", &home)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut named = Vec::new();
    for entry in block
        .lines()
        .filter(|line| line.trim().starts_with("- {name: "))
    {
        let name = entry.split("name: ").nth(1).unwrap();
        let name = name[..name.find(',').unwrap()].trim().to_owned();
        // What this test stands in for: the service, the database, the secrets.
        let value = match name.as_str() {
            "VANTAGE_BASE_URL" => server.base_url(),
            "VANTAGE_HISTORY_URL" => shared.url.clone().unwrap(),
            "SERVICE_API_KEY" => ENTERPRISE_ADMIN.to_owned(),
            "PGPASSWORD" => "unused: the test database trusts loopback".to_owned(),
            // As written in README.
            "VANTAGE_WORKSPACE" | "VANTAGE_RETENTION_DAYS" | "VANTAGE_RETENTION_SNAPSHOTS" => {
                let value = entry.split("value: ").nth(1).unwrap();
                value
                    .trim_end_matches('}')
                    .trim()
                    .trim_matches('"')
                    .to_owned()
            }
            other => panic!("the CronJob sets {other}, which this test does not know"),
        };
        job.env(&name, value);
        named.push(name);
    }
    for needed in ["VANTAGE_BASE_URL", "VANTAGE_WORKSPACE", "SERVICE_API_KEY"] {
        assert!(named.iter().any(|name| name == needed), "{needed} is set");
    }
    let output = job.output().await.unwrap();
    assert_eq!(
        output.status.code(),
        Some(0),
        "{args:?}\nstderr: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(
        !home.join(".config").exists(),
        "no config file was read or written"
    );
    off_runtime(|| {
        let store = shared.open();
        assert_eq!(store.list(ENTERPRISE_WS).unwrap().len(), 1);
    });
    server.stop().await;
}

/// Item 9: README's table of variables is the code's list, in order.
#[test]
fn the_readme_environment_table_is_the_code_list() {
    let readme = read("README.md");
    let table = &readme[readme
        .find("| variable | stands for |")
        .expect("README has the table")..];
    let names: Vec<&str> = table
        .lines()
        .skip(2)
        .take_while(|line| line.starts_with('|'))
        .map(|line| line.split('`').nth(1).unwrap())
        .collect();
    let code: Vec<&str> = vantage::session::environment::VARIABLES
        .iter()
        .map(|variable| variable.name)
        .collect();
    assert_eq!(names, code);
    assert!(code.contains(&vantage::history::config::HISTORY_URL_ENV));
}

/// What `scripts/dist` puts in the tarball.
fn tarball_files() -> Vec<String> {
    let dist = read("scripts/dist");
    let line = dist
        .lines()
        .find(|line| line.starts_with("readonly TARBALL_FILES="))
        .expect("scripts/dist names the tarball's files");
    line.split('"')
        .nth(1)
        .unwrap()
        .split_whitespace()
        .map(str::to_owned)
        .collect()
}

/// Items 9 and 14: the tarball holds config.example.toml (which `vantage
/// --help` names) and the units; every file the Dockerfile copies is one
/// the tarball holds, and every unit it lists is in assets/systemd.
#[test]
fn the_dockerfile_copies_what_the_tarball_holds() {
    let files = tarball_files();
    for needed in ["vantage", "config.example.toml", "man/vantage.1"] {
        assert!(
            files.iter().any(|file| file == needed),
            "tarball lacks {needed}"
        );
    }
    let dockerfile = read("Dockerfile");
    let copies: Vec<&str> = dockerfile
        .lines()
        .filter_map(|line| line.strip_prefix("COPY "))
        .map(|line| line.split_whitespace().next().unwrap())
        .collect();
    assert!(copies.contains(&"vantage"), "{copies:?}");
    for source in copies {
        assert!(
            files.iter().any(|file| file == source),
            "COPY {source}: not in the tarball"
        );
    }
    assert!(dockerfile.contains("ENTRYPOINT [\"/usr/local/bin/vantage\"]"));
    for unit in files
        .iter()
        .filter_map(|file| file.strip_prefix("systemd/"))
    {
        assert!(
            Path::new(ROOT).join("assets/systemd").join(unit).is_file(),
            "{unit}"
        );
    }
}

/// Item 13: the units pass `systemd-analyze verify` with no complaint (it
/// says a bad value on stderr and still exits 0), the binary's path
/// rewritten to the built one; they are hardened as README says.
#[test]
fn the_systemd_units_verify() {
    let dir = tempfile::tempdir().unwrap();
    let installed = install_under(dir.path());
    let mut units = Vec::new();
    for entry in std::fs::read_dir(Path::new(ROOT).join("assets/systemd")).unwrap() {
        let path = entry.unwrap().path();
        let text = std::fs::read_to_string(&path).unwrap();
        if path.extension().is_some_and(|ext| ext == "service") {
            for setting in [
                "DynamicUser=yes",
                "ProtectSystem=strict",
                "NoNewPrivileges=yes",
                "ExecStart=/usr/local/bin/vantage ",
            ] {
                assert!(text.contains(setting), "{}: {setting}", path.display());
            }
        }
        let copy = dir.path().join(path.file_name().unwrap());
        let rewritten = text.replace(&format!("{INSTALLED}vantage"), installed.to_str().unwrap());
        std::fs::write(&copy, rewritten).unwrap();
        units.push(copy);
    }
    assert_eq!(
        units.len(),
        3,
        "the exporter, the snapshot service and its timer"
    );
    let snapshot = read("assets/systemd/vantage-snapshot.service");
    assert!(snapshot.contains("TimeoutStartSec="));
    assert!(snapshot.contains("--lock-timeout"));
    let Ok(output) = Command::new("systemd-analyze")
        .arg("verify")
        .args(&units)
        .env("SYSTEMD_LOG_COLOR", "0")
        .output()
    else {
        // Checked where systemd is installed (the build host has it).
        eprintln!("note: no systemd-analyze here; the units were not verified");
        return;
    };
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    assert_eq!(stderr.trim(), "", "systemd-analyze complained");
}

/// Item 14: the manual has ENVIRONMENT, FILES and EXIT STATUS, lists the
/// commands, and names no other page (none is shipped).
#[tokio::test]
async fn the_manual_names_no_page_that_is_not_shipped() {
    let cli = crate::cli::support::Cli::new("http://127.0.0.1:9", ENTERPRISE_WS, ENTERPRISE_ADMIN);
    let man = cli.run(&["man"]).await.expect(0).stdout;
    for section in [
        ".SH ENVIRONMENT",
        ".SH FILES",
        ".SH \"EXIT STATUS\"",
        ".SH COMMANDS",
    ] {
        assert!(man.contains(section), "{section}");
    }
    assert!(!man.contains("(1)"), "names another page");
    assert_eq!(man.matches(".ds Aq").count(), 2, "roff's preamble once");
    assert!(man.contains("VANTAGE\\_BASE\\_URL") || man.contains("VANTAGE_BASE_URL"));
    assert!(man.contains("\\fB75\\fR"), "exit 75 is listed");
    assert!(man.contains("vantage doctor"));
}

/// Item 9: a flag wins over its variable, a variable over the config file;
/// `VANTAGE_READ_ONLY` refuses a mutation as `--read-only` does.
#[tokio::test(flavor = "multi_thread")]
async fn variables_stand_between_the_flags_and_the_config_file() {
    let (server, _clock) = demo_server().await;
    let cli = crate::cli::support::Cli::new(server.base_url(), ENTERPRISE_WS, ENTERPRISE_ADMIN);
    // Cli passes --base-url and --workspace: a wrong variable loses to them.
    let env = [
        ("VANTAGE_BASE_URL", "http://127.0.0.1:9"),
        ("VANTAGE_WORKSPACE", "ws_nowhere"),
    ];
    cli.run_env(&["insights", "--format", "json"], &env)
        .await
        .expect(0);
    // Without the flags, the variables win over the config file's values.
    let config =
        cli.config_file("base_url = \"http://127.0.0.1:9\"\nworkspace_id = \"ws_nowhere\"\n");
    let output = tokio::process::Command::new(env!("CARGO_BIN_EXE_vantage"))
        .args([
            "--config",
            config.to_str().unwrap(),
            "insights",
            "--format",
            "json",
        ])
        .env_clear()
        .env("HOME", cli.home.path())
        .env("SERVICE_API_KEY", ENTERPRISE_ADMIN)
        .env("VANTAGE_BASE_URL", server.base_url())
        .env("VANTAGE_WORKSPACE", ENTERPRISE_WS)
        .output()
        .await
        .unwrap();
    assert_eq!(
        output.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let project = first_project(&demo(), ENTERPRISE_WS);
    let refused = cli
        .run_env(
            &["projects", "rename", &project, "Renamed"],
            &[("VANTAGE_READ_ONLY", "1")],
        )
        .await
        .expect(3);
    assert!(refused.stderr.contains("read-only"), "{}", refused.stderr);
    server.stop().await;
}
