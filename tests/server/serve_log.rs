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
