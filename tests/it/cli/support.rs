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
        let mut command = self.command(args, env);
        let output = command.output().await.expect("the binary runs");
        Run {
            code: output.status.code().unwrap_or(-1),
            stdout: String::from_utf8(output.stdout).expect("stdout is UTF-8"),
            stderr: String::from_utf8(output.stderr).expect("stderr is UTF-8"),
        }
    }

    /// Runs with stdout a new file at `path` (not a pipe); `Run::stdout` is
    /// what the file holds after.
    pub async fn run_to_file(&self, args: &[&str], path: &std::path::Path) -> Run {
        let mut command = self.command(args, &[]);
        command.stdout(std::fs::File::create(path).expect("the file is created"));
        // Not `output()`, which would pipe stdout again.
        let child = command.spawn().expect("the binary runs");
        let output = child.wait_with_output().await.expect("the binary ends");
        Run {
            code: output.status.code().unwrap_or(-1),
            stdout: std::fs::read_to_string(path).expect("the file is UTF-8"),
            stderr: String::from_utf8(output.stderr).expect("stderr is UTF-8"),
        }
    }

    /// The binary with `args`, in this user's environment and `env`.
    fn command(&self, args: &[&str], env: &[(&str, &str)]) -> Command {
        let mut command = Command::new(env!("CARGO_BIN_EXE_vantage"));
        command.args(["--base-url", &self.base_url, "--api-key-env", KEY_VAR]);
        // An empty workspace runs as a user who configured none.
        if !self.workspace.is_empty() {
            command.args(["--workspace", &self.workspace]);
        }
        command
            .args(args)
            .env("HOME", self.home.path())
            .env("XDG_CONFIG_HOME", self.home.path().join(".config"))
            .env_remove("SERVICE_API_KEY")
            .env_remove("VANTAGE_LOG")
            .env_remove("VANTAGE_HISTORY_URL")
            // The flags' own variables (session/environment.rs): flags only here.
            .env_remove("VANTAGE_CONFIG")
            .env_remove("VANTAGE_BASE_URL")
            .env_remove("VANTAGE_WORKSPACE")
            .env_remove("VANTAGE_READ_ONLY")
            .env_remove("VANTAGE_CONTEXT")
            .env_remove("PGPASSWORD")
            .env_remove(KEY_VAR)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true);
        if let Some(key) = &self.key {
            command.env(KEY_VAR, key);
        }
        command.envs(env.iter().copied());
        command
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

/// The generator's hostile set, and strings these tests add: spreadsheet
/// formulas, C1 controls, every bidi control, DEL, invisible format characters
/// and the line and paragraph separators (ZWNJ and ZWJ, which stay).
pub fn hostile_set() -> Vec<String> {
    let mut set = vantage::hostile::hostile_strings();
    set.extend(
        [
            "=1+1",
            "=cmd|' /C calc'!A0",
            "+SUM(A1:A9)",
            "-2+3",
            "@SUM(1)",
            "\t=1",
            "\r=1",
            "c1 \u{85}nel \u{9b}2J \u{9d}0;title\u{9c} \u{90}dcs\u{9c} \u{9f}",
            "bidi \u{202a}a\u{202b}b\u{202c}c\u{202d}d\u{202e}e \u{2066}f\u{2067}g\u{2068}h\u{2069} \u{200e}\u{200f}\u{61c}",
            "del\u{7f} sep\u{2028}line\u{2029}para",
            "hidden\u{200b}\u{2060}\u{feff}\u{ad}\u{180e}\u{e0041}\u{fff9}",
            "keeps\u{200c}zwnj and\u{200d}zwj",
        ]
        .map(str::to_owned),
    );
    set
}

/// Whether a terminal could act on `ch`: a byte-level allow-list of printable
/// ASCII and line feed, and a deny-list (written out, not taken from the crate)
/// of the controls and invisible characters above ASCII.
fn allowed(ch: char) -> bool {
    match ch {
        '\n' | ' '..='~' => true,
        '\u{0}'..='\u{7f}' => false,
        '\u{80}'..='\u{9f}'
        | '\u{ad}'
        | '\u{61c}'
        | '\u{180e}'
        | '\u{200b}'
        | '\u{200e}'..='\u{200f}'
        | '\u{2028}'..='\u{202e}'
        | '\u{2060}'..='\u{206f}'
        | '\u{feff}'
        | '\u{fff9}'..='\u{fffb}'
        | '\u{e0000}'..='\u{e007f}' => false,
        _ => true,
    }
}

/// Panics, naming the first offending character, unless every byte of `bytes`
/// is on the allow-list.
pub fn assert_inert(bytes: &[u8], what: &str) {
    let text = std::str::from_utf8(bytes).unwrap_or_else(|error| panic!("{what}: {error}"));
    if let Some((at, ch)) = text.char_indices().find(|&(_, ch)| !allowed(ch)) {
        let start = text.floor_char_boundary(at.saturating_sub(40));
        panic!(
            "{what}: {ch:?} at byte {at}: {:?}",
            &text[start..at + ch.len_utf8()]
        );
    }
}

/// A stub server answering each request with the next of `replies`
/// (`(status, JSON body)`, with `Retry-After: 0` on a 429); `(method, path)`
/// of every request comes back through the returned log.
pub async fn stub(
    replies: Vec<(u16, &'static str)>,
) -> (
    String,
    std::sync::Arc<std::sync::Mutex<Vec<(String, String)>>>,
) {
    use std::sync::{Arc, Mutex};

    use axum::extract::Request;
    use axum::response::Response;

    let replies = Arc::new(Mutex::new(std::collections::VecDeque::from(replies)));
    let seen: Arc<Mutex<Vec<(String, String)>>> = Arc::default();
    let log = seen.clone();
    let app = axum::Router::new().fallback(move |request: Request| {
        let replies = replies.clone();
        let log = log.clone();
        async move {
            log.lock().unwrap().push((
                request.method().to_string(),
                request.uri().path().to_owned(),
            ));
            let (status, body) = replies
                .lock()
                .unwrap()
                .pop_front()
                .unwrap_or((500, r#"{"type":"script_exhausted"}"#));
            let mut response = Response::new(axum::body::Body::from(body));
            *response.status_mut() = axum::http::StatusCode::from_u16(status).unwrap();
            let headers = response.headers_mut();
            headers.insert("content-type", "application/json".parse().unwrap());
            if status == 429 {
                headers.insert("retry-after", "0".parse().unwrap());
            }
            response
        }
    });
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    (format!("http://{address}"), seen)
}
