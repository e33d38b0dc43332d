//! `vantage serve` with its stderr sent to a file or a pipe writes its log
//! without colour codes (issue 28, part 2, item 2): a log file holds text, not
//! ANSI escapes.

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

#[test]
fn the_log_on_a_pipe_has_no_colour_codes() {
    let mut child = Command::new(env!("CARGO_BIN_EXE_vantage"))
        .args(["serve", "--addr", "127.0.0.1:0"])
        .env_remove("VANTAGE_LOG")
        .env_remove("NO_COLOR")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("vantage starts");
    let stderr = child.stderr.take().expect("stderr");
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let mut seen = Vec::new();
        for line in BufReader::new(stderr).lines() {
            let Ok(line) = line else { break };
            let listening = line.contains("listening on http://");
            seen.push(line);
            if listening {
                let _ = tx.send(seen.join("\n"));
                break;
            }
        }
    });
    let log = rx.recv_timeout(Duration::from_secs(20));
    let _ = child.kill();
    let _ = child.wait();
    let log = log.expect("the server logs `listening on http://ADDR`");
    assert!(!log.contains('\u{1b}'), "colour codes in the log: {log:?}");
}

/// Starts `vantage serve` with `args`; returns the child and its stderr up
/// to the `listening on` line.
fn start_serve(args: &[&str]) -> (std::process::Child, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_vantage"))
        .args(["serve", "--addr", "127.0.0.1:0"])
        .args(args)
        .env_remove("VANTAGE_LOG")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("vantage starts");
    let stderr = child.stderr.take().expect("stderr");
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stderr).lines() {
            let Ok(line) = line else { break };
            if line.contains("listening on http://") {
                let _ = tx.send(line);
                break;
            }
        }
    });
    let line = rx.recv_timeout(Duration::from_secs(30));
    match line {
        Ok(line) => (child, line),
        Err(_) => {
            let _ = child.kill();
            let _ = child.wait();
            panic!("the server never said `listening on http://ADDR`");
        }
    }
}

/// The status of `GET /v1/workspaces` with `key`, over a plain socket.
fn status_with_key(addr: &str, key: &str) -> String {
    use std::io::{Read, Write};
    let mut stream = std::net::TcpStream::connect(addr).expect("connects");
    stream
        .set_read_timeout(Some(Duration::from_secs(20)))
        .unwrap();
    write!(
        stream,
        "GET /v1/workspaces HTTP/1.1\r\nHost: {addr}\r\nAuthorization: Bearer {key}\r\nConnection: close\r\n\r\n"
    )
    .unwrap();
    let mut answer = String::new();
    let _ = stream.read_to_string(&mut answer);
    answer.lines().next().unwrap_or_default().to_owned()
}

#[test]
fn the_key_hint_of_a_generated_workspace_prints_keys_it_accepts() {
    let (mut child, line) = start_serve(&["--generate", "projects=20,members=5,seed=3"]);
    let addr = line
        .split("http://")
        .nth(1)
        .and_then(|rest| rest.split_whitespace().next())
        .expect("an address")
        .to_owned();
    let hint = line.split("keys: ").nth(1).expect("a key hint").trim();
    assert_eq!(
        hint, "vantage serve --generate projects=20,members=5,seed=3 --print-credentials",
        "{line}"
    );
    // Run the hint as printed, and use its first key on the running server.
    let words: Vec<&str> = hint.split_whitespace().skip(1).collect();
    let printed = Command::new(env!("CARGO_BIN_EXE_vantage"))
        .args(&words)
        .env_remove("VANTAGE_LOG")
        .stdin(Stdio::null())
        .output()
        .expect("vantage runs");
    let keys: serde_json::Value = serde_json::from_slice(&printed.stdout).expect("JSON");
    let key = keys[0]["key"].as_str().expect("a key").to_owned();
    let status = status_with_key(&addr, &key);
    let _ = child.kill();
    let _ = child.wait();
    assert!(status.contains(" 200 "), "{hint}: {key} answered {status}");
}

#[test]
fn serve_help_says_how_to_get_the_keys() {
    let help = Command::new(env!("CARGO_BIN_EXE_vantage"))
        .args(["serve", "--help"])
        .output()
        .expect("vantage runs");
    let text = String::from_utf8_lossy(&help.stdout);
    assert!(text.contains("Keys:"), "{text}");
    assert!(
        text.contains("vantage serve --generate SPEC --print-credentials"),
        "{text}"
    );
}
