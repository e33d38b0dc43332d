//! `api_key_command` on the user's terminal (issue 33, item 12): it can
//! prompt there, and when it runs past its time limit, what it started is
//! stopped with it.

use std::path::Path;
use std::time::{Duration, Instant};

use crate::e2e::support::Session;

/// A config whose key comes from `command`, in a private directory.
fn config(dir: &Path, command: &str, timeout_secs: u32) -> String {
    let path = dir.join("config.toml");
    let text = format!(
        "base_url = \"http://127.0.0.1:9\"\nworkspace_id = \"ws_1\"\nmax_attempts = 1\n\
         api_key_command = {command:?}\napi_key_command_timeout_secs = {timeout_secs}\n"
    );
    std::fs::write(&path, text).expect("config written");
    path.to_str().expect("a UTF-8 path").to_owned()
}

/// The state letter of process `pid`, `None` once it is gone.
fn state(pid: i32) -> Option<char> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    stat.rsplit_once(") ")?.1.chars().next()
}

fn is_running(tui: &Session) -> bool {
    !matches!(tui.process_state(), None | Some('Z' | 'X'))
}

#[test]
fn a_timed_out_key_command_on_a_terminal_is_stopped_with_what_it_started() {
    let dir = tempfile::tempdir().unwrap();
    let pid_file = dir.path().join("child.pid");
    // The shell starts a child that would outlive it, then waits.
    let command = format!("sleep 300 & echo $! > '{}'; wait", pid_file.display());
    let path = config(dir.path(), &command, 1);
    // Run from an interactive shell, as a user does: vantage is a job there,
    // not the session's leader, so nothing hangs up its group when it exits.
    let mut tui =
        Session::start_in_shell(&["--config", &path, "projects", "get", "prj_1"], 120, 30);
    tui.wait_text("did not finish within 1 s");
    tui.wait_until("vantage exits", |tui| !is_running(tui));
    let pid: i32 = std::fs::read_to_string(&pid_file)
        .expect("the command wrote its child's pid")
        .trim()
        .parse()
        .expect("a pid");
    // SIGKILL was sent before vantage exited; the child is gone (or a zombie
    // no one reaped yet) as soon as the kernel has delivered it.
    let deadline = Instant::now() + Duration::from_secs(5);
    while matches!(state(pid), Some(s) if s != 'Z' && s != 'X') {
        if Instant::now() > deadline {
            let _ = nix::sys::signal::kill(
                nix::unistd::Pid::from_raw(pid),
                nix::sys::signal::Signal::SIGKILL,
            );
            panic!("the key command's child {pid} survived its timeout");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn a_key_command_on_a_terminal_can_prompt_there() {
    let dir = tempfile::tempdir().unwrap();
    // A command that asks on the terminal, as `pass` asks for a passphrase:
    // in a background group it would be stopped reading it.
    let command = "printf 'passphrase? ' >&2; read answer; echo \"vtg_$answer\"";
    let path = config(dir.path(), command, 30);
    let mut tui = Session::start(&["--config", &path, "projects", "get", "prj_1"], 120, 30);
    tui.wait_text("passphrase?");
    tui.send("typed\r");
    tui.wait_exit();
    let screen = tui.screen();
    assert!(!screen.contains("api_key_command failed"), "{screen}");
    // The key went on to the (absent) service: the error is the connection's.
    assert!(screen.contains("cannot connect"), "{screen}");
}
