//! A terminal without cursor addressing gets a refusal that points to the
//! commands, never the full-screen dashboard (vim and top refuse too).

use crate::e2e::support::Session;

#[test]
fn term_dumb_and_no_term_are_refused_with_a_word_about_the_commands() {
    for term in ["dumb", ""] {
        let mut session = Session::start_with_env(&["demo"], &[("TERM", term)], 80, 24);
        let status = session.wait_exit();
        assert!(!status.success(), "TERM={term:?}: exits non-zero");
        // The raw bytes: the one line wraps on an 80-column screen.
        let raw = String::from_utf8_lossy(session.raw_output());
        assert!(
            raw.contains("move the cursor") && raw.contains("vantage inventory"),
            "TERM={term:?}: a clear word pointing to the commands: {raw:?}"
        );
        assert!(!session.alternate_screen(), "TERM={term:?}: no full screen");
        assert!(
            !raw.contains("\x1b["),
            "TERM={term:?}: no escape sequence reaches the terminal: {raw:?}"
        );
    }
}
