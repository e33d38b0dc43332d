//! `--refresh 3s` sets the monitor's refresh from the command line, as htop's
//! `-d` does, over the config file's `refresh_secs`.

use crate::e2e::support::Session;

#[test]
fn the_refresh_flag_reaches_the_monitor() {
    for args in [["--refresh", "3s", "demo"], ["demo", "--refresh", "3s"]] {
        let mut session = Session::start(&args, 120, 35);
        session.wait_for("the dashboard", |screen| screen.contains("Finding types"));
        session.send("2");
        session.wait_for("inventory rows", |screen| screen.contains("64 projects"));
        session.send("4");
        session.wait_for("the monitor's head", |screen| {
            screen.contains("Live visitors") && screen.contains("refresh every 3 s")
        });
        session.send("q");
        assert!(session.wait_exit().success(), "{args:?}");
    }
}
