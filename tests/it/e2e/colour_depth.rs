//! Issue 24: on a 16-colour terminal (`TERM=xterm`, `COLORTERM` unset) the
//! real binary sends only 16-colour codes, a theme switched later too, and the
//! selected row is in reverse video, whatever the terminal's palette.

use crate::e2e::support::Session;

fn assert_sixteen_colour_codes(raw: &[u8]) {
    let bytes = String::from_utf8_lossy(raw);
    for form in ["38;5;", "48;5;", "38;2;", "48;2;"] {
        assert!(
            !bytes.contains(form),
            "{form} was sent to a 16-colour terminal"
        );
    }
}

#[test]
fn a_16_colour_terminal_gets_only_16_colour_codes() {
    let mut session =
        Session::start_with_env(&["demo"], &[("TERM", "xterm"), ("COLORTERM", "")], 120, 35);
    session.wait_text("Risk distribution");
    session.send("2");
    // The position counter is the inventory's own ("64 projects" and "needs
    // review" are on Insights too): `j` must not come before the rows.
    session.wait_for("the inventory's rows", |screen| screen.contains("1/64"));
    // A theme switched later is built for the terminal's depth too.
    session.send(":theme light\r");
    session.send(":theme dark\r");
    session.send("j");
    session.wait_for("the second row selected", |screen| screen.contains("2/64"));
    assert_sixteen_colour_codes(session.raw_output());
    let bytes = String::from_utf8_lossy(session.raw_output()).into_owned();
    assert!(
        bytes.contains("\u{1b}[7m"),
        "the selected row is drawn in reverse video"
    );
    session.send("q");
    assert!(session.wait_exit().success());
}
