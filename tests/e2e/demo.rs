//! End to end: the real binary, `vantage demo`, in a pseudo-terminal, read through
//! a terminal emulator.

use crate::support::Session;

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

fn restored_after_signal(signal: nix::sys::signal::Signal) {
    let mut session = Session::start(&["demo"], 100, 30);
    session.wait_for("the dashboard", |screen| screen.contains("Finding types"));
    let pid = session.pid().expect("child pid") as i32;
    nix::sys::signal::kill(nix::unistd::Pid::from_raw(pid), signal).expect("signal sent");
    session.wait_exit();
    assert!(
        !session.alternate_screen(),
        "back on the main screen after {signal}"
    );
    assert!(!session.cursor_hidden(), "cursor shown after {signal}");
    assert!(session.cooked_mode(), "cooked mode after {signal}");
}

#[test]
fn sigterm_restores_the_terminal() {
    restored_after_signal(nix::sys::signal::Signal::SIGTERM);
}

#[test]
fn sighup_restores_the_terminal() {
    restored_after_signal(nix::sys::signal::Signal::SIGHUP);
}
