//! End to end: the real binary, `vantage demo`, in a pseudo-terminal, read through
//! a terminal emulator.

use crate::e2e::support::Session;

#[test]
fn demo_shows_insights_then_inventory_and_restores_the_terminal() {
    let mut session = Session::start(&["demo"], 120, 35);
    session.wait_for("insights numbers", |screen| {
        screen.contains("Externally published")
            && screen.contains("Finding types")
            && screen.contains("64")
    });
    assert!(
        session.alternate_screen(),
        "the dashboard runs on the alternate screen"
    );
    session.send("2");
    session.wait_for("inventory rows", |screen| {
        screen.contains("64 projects")
            && screen.contains("needs review")
            && screen.contains("Last scan")
    });
    session.send("q");
    let status = session.wait_exit();
    assert!(status.success(), "exit status {status:?}");
    assert!(!session.alternate_screen(), "back on the main screen");
    assert!(!session.cursor_hidden(), "the cursor is shown again");
    assert!(
        session.cooked_mode(),
        "the terminal is back in cooked mode (ICANON and ECHO)"
    );
}

use nix::sys::signal::Signal;

/// A signal sent to the dashboard's process ends it with the terminal restored
/// and the status shells give a program that the signal ended: 128 + its number.
fn restored_after_signal(signal: Signal, status: u32) {
    let mut session = Session::start(&["demo"], 100, 30);
    session.wait_for("the dashboard", |screen| screen.contains("Finding types"));
    session.signal(signal);
    let exit = session.wait_exit();
    assert_eq!(exit.exit_code(), status, "exit status after {signal}");
    assert!(
        !session.alternate_screen(),
        "back on the main screen after {signal}"
    );
    assert!(!session.cursor_hidden(), "cursor shown after {signal}");
    assert!(session.cooked_mode(), "cooked mode after {signal}");
}

#[test]
fn sigint_restores_the_terminal_and_exits_130() {
    restored_after_signal(Signal::SIGINT, 130);
}

#[test]
fn sigquit_restores_the_terminal_and_exits_131() {
    restored_after_signal(Signal::SIGQUIT, 131);
}

#[test]
fn sigterm_restores_the_terminal_and_exits_143() {
    restored_after_signal(Signal::SIGTERM, 143);
}

#[test]
fn sighup_restores_the_terminal_and_exits_129() {
    restored_after_signal(Signal::SIGHUP, 129);
}

/// Under a shell with job control: suspends the dashboard with `suspend`,
/// checks that the process is stopped on a restored terminal, types `fg` with a
/// key after it that must never reach the dashboard, and checks that it comes
/// back, repainted whole, and still works.
fn suspends_and_comes_back_with_fg(suspend: impl FnOnce(&mut Session)) {
    let mut session = Session::start_in_shell(&["demo"], 100, 30);
    session.wait_for("the dashboard", |screen| screen.contains("Finding types"));
    suspend(&mut session);
    session.wait_until("the process to stop", |session| {
        session.process_state() == Some('T')
    });
    session.wait_until("the terminal restored and the shell's notice", |session| {
        !session.alternate_screen()
            && !session.cursor_hidden()
            && session.cooked_mode()
            && session.screen().contains("Stopped")
    });

    // The shell reads its line, "fg"; the "q" after it is left in the terminal.
    session.send("fg\rq");
    session.wait_until("the dashboard to come back", |session| {
        session.alternate_screen()
            && session.cursor_hidden()
            && !session.cooked_mode()
            && session.screen().contains("Finding types")
    });
    assert_ne!(session.process_state(), Some('T'), "running again");

    // The "q" did nothing: a key typed now is the first the dashboard reads.
    session.send("3");
    session.wait_for("the members tab", |screen| {
        screen.contains("members loaded")
    });
    assert!(session.alive(), "the \"q\" typed after fg did not quit");
    session.send("q");
    session.wait_until("the dashboard to quit", |session| {
        matches!(session.process_state(), None | Some('Z'))
    });
    session.send("echo status=$?\r");
    session.wait_text("status=0");
    assert!(!session.alternate_screen(), "back on the main screen");
    assert!(session.cooked_mode(), "cooked mode at the end");
}

#[test]
fn ctrl_z_suspends_and_fg_brings_the_dashboard_back() {
    suspends_and_comes_back_with_fg(|session| session.send("\u{1a}"));
}

#[test]
fn sigtstp_suspends_like_ctrl_z() {
    suspends_and_comes_back_with_fg(|session| session.signal(Signal::SIGTSTP));
}

#[test]
fn without_job_control_ctrl_z_does_not_stop_the_process() {
    // Started directly as the session's leader, as `ssh -t host vantage` does: no
    // shell could continue a stopped process.
    let mut session = Session::start(&["demo"], 100, 30);
    session.wait_for("the dashboard", |screen| screen.contains("Finding types"));
    session.send("\u{1a}");
    // Keys are read in order: had Ctrl-Z stopped the process, this would wait.
    session.send("2");
    session.wait_for("the inventory", |screen| screen.contains("64 projects"));
    assert_ne!(session.process_state(), Some('T'));
    assert!(session.alternate_screen() && session.cursor_hidden());
    session.send("q");
    assert!(session.wait_exit().success());
}

#[test]
fn sigcont_after_a_stop_from_outside_repaints_the_whole_screen() {
    let mut session = Session::start(&["demo"], 100, 30);
    session.wait_for("the dashboard", |screen| screen.contains("Finding types"));
    // SIGSTOP cannot be caught: the terminal stays as it was, and whatever ran
    // meanwhile may have written over the screen.
    session.signal(Signal::SIGSTOP);
    session.wait_until("the process to stop", |session| {
        session.process_state() == Some('T')
    });
    let before = session.raw_output().len();
    session.signal(Signal::SIGCONT);
    session.wait_until("a cleared screen and a whole frame", |session| {
        let after = String::from_utf8_lossy(&session.raw_output()[before..]).into_owned();
        after
            .find("\u{1b}[2J")
            .is_some_and(|clear| after[clear..].contains("Finding types"))
    });
    assert!(session.alternate_screen() && session.cursor_hidden());
    session.send("q");
    assert!(session.wait_exit().success());
}

#[test]
fn a_misspelt_dashboard_setting_is_refused_before_the_terminal_is_touched() {
    let home = tempfile::tempdir().expect("temp home");
    let config = home.path().join("config.toml");
    std::fs::write(&config, "[tui]\nthme = \"light\"\n").expect("config written");
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_vantage"))
        .args(["demo", "--config"])
        .arg(&config)
        .env("HOME", home.path())
        .env("XDG_DATA_HOME", home.path().join("data"))
        .stdin(std::process::Stdio::null())
        .output()
        .expect("vantage runs");
    assert_eq!(output.status.code(), Some(3), "a configuration error");
    assert!(output.stdout.is_empty(), "nothing on stdout");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(
        stderr.trim_end(),
        format!(
            "error: config file {}: [tui] thme: unknown field `thme`, expected `theme` or `refresh_secs`",
            config.display()
        )
    );
}
