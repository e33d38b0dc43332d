//! Runs the real `vantage` binary against an in-process server, with HOME and
//! XDG_CONFIG_HOME in a temporary directory so no real config is read, and the
//! key passed through an environment variable named by `--api-key-env`.
#![allow(dead_code)]

use std::path::PathBuf;
use std::process::Stdio;

use tempfile::TempDir;
use tokio::process::Command;

/// The variable the key travels in.
pub const KEY_VAR: &str = "VANTAGE_TEST_KEY";

pub struct Run {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

impl Run {
    /// Panics with both streams when the exit code is not `expected`.
    pub fn expect(self, expected: i32) -> Self {
        assert_eq!(
            self.code, expected,
            "exit code {} (expected {expected})\nstdout: {}\nstderr: {}",
            self.code, self.stdout, self.stderr
        );
        self
    }
}

/// One user's environment: a base URL, a workspace, a key and an empty home.
pub struct Cli {
    pub base_url: String,
    pub workspace: String,
    pub key: Option<String>,
    pub home: TempDir,
}

impl Cli {
    pub fn new(base_url: impl Into<String>, workspace: &str, key: &str) -> Self {
        Self {
            base_url: base_url.into(),
            workspace: workspace.to_owned(),
            key: Some(key.to_owned()),
            home: tempfile::tempdir().unwrap(),
        }
    }

    /// Writes a config file in the temporary home and returns its path.
    pub fn config_file(&self, text: &str) -> PathBuf {
        let path = self.home.path().join("config.toml");
        std::fs::write(&path, text).unwrap();
        path
    }

    pub async fn run(&self, args: &[&str]) -> Run {
        self.run_env(args, &[]).await
    }

    /// Runs with extra environment variables.
    pub async fn run_env(&self, args: &[&str], env: &[(&str, &str)]) -> Run {
        let mut command = Command::new(env!("CARGO_BIN_EXE_vantage"));
        command
            .args([
                "--base-url",
                &self.base_url,
                "--workspace",
                &self.workspace,
                "--api-key-env",
                KEY_VAR,
            ])
            .args(args)
            .env("HOME", self.home.path())
            .env("XDG_CONFIG_HOME", self.home.path().join(".config"))
            .env_remove("SERVICE_API_KEY")
            .env_remove("VANTAGE_LOG")
            .env_remove(KEY_VAR)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true);
        if let Some(key) = &self.key {
            command.env(KEY_VAR, key);
        }
        command.envs(env.iter().copied());
        let output = command.output().await.expect("the binary runs");
        Run {
            code: output.status.code().unwrap_or(-1),
            stdout: String::from_utf8(output.stdout).expect("stdout is UTF-8"),
            stderr: String::from_utf8(output.stderr).expect("stderr is UTF-8"),
        }
    }
}

/// Parses RFC 4180 CSV: quoted fields may hold commas, quotes and line breaks.
pub fn parse_csv(text: &str) -> Vec<Vec<String>> {
    let mut rows = Vec::new();
    let mut row = Vec::new();
    let mut field = String::new();
    let mut quoted = false;
    let mut chars = text.chars().peekable();
    while let Some(ch) = chars.next() {
        match (quoted, ch) {
            (true, '"') if chars.peek() == Some(&'"') => {
                chars.next();
                field.push('"');
            }
            (true, '"') => quoted = false,
            (true, ch) => field.push(ch),
            (false, '"') => quoted = true,
            (false, ',') => row.push(std::mem::take(&mut field)),
            (false, '\n') => {
                row.push(std::mem::take(&mut field));
                rows.push(std::mem::take(&mut row));
            }
            (false, ch) => field.push(ch),
        }
    }
    if !field.is_empty() || !row.is_empty() {
        row.push(field);
        rows.push(row);
    }
    rows
}
