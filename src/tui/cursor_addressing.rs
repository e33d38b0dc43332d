//! Whether the terminal can move the cursor, which the full-screen dashboard
//! needs. As vim and top do, a terminal that cannot (`TERM=dumb`, no `TERM`, a
//! terminfo entry without `cup`: an Emacs shell buffer, a printer, a CI log) is
//! refused with a word that points to the commands, rather than drawn into as
//! garbage. A `TERM` that this host has no terminfo for is let through: the
//! dashboard speaks plain ANSI (crossterm), and an SSH session from a newer
//! terminal (`xterm-kitty`, `alacritty`) to an old host is the usual case.

use std::path::{Path, PathBuf};

/// The dashboard was not started: the terminal cannot address the cursor.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "the dashboard needs a terminal that can move the cursor, and {why}; \
     run it in a terminal emulator (e.g. TERM=xterm-256color), or use the commands, \
     which need none: vantage insights, vantage inventory, vantage projects list, \
     vantage members (vantage --help lists them all)"
)]
pub struct NoCursorAddressing {
    why: String,
}

/// Refuses a terminal without cursor addressing, reading `TERM` and the
/// terminfo database as ncurses does.
pub fn require() -> Result<(), NoCursorAddressing> {
    let term = std::env::var("TERM").ok();
    check(term.as_deref(), |name| {
        terminfo_dirs().iter().find_map(|dir| read_entry(dir, name))
    })
}

/// The rule, with the terminfo lookup injected: `entry(name)` is the compiled
/// entry of `name`, if the host has one.
pub fn check(
    term: Option<&str>,
    entry: impl Fn(&str) -> Option<Vec<u8>>,
) -> Result<(), NoCursorAddressing> {
    let refuse = |why: String| Err(NoCursorAddressing { why });
    match term.map(str::trim) {
        None | Some("") => refuse("TERM is not set".to_owned()),
        Some("dumb") => refuse("TERM=dumb says this one cannot".to_owned()),
        Some(name) => match entry(name).map(|bytes| has_cursor_address(&bytes)) {
            Some(Some(false)) => refuse(format!(
                "the terminfo entry of TERM={name} has no cursor addressing (cup)"
            )),
            // Found with cup, unreadable, or not on this host: try ANSI.
            _ => Ok(()),
        },
    }
}

/// Where ncurses looks, in its order (terminfo(5)).
fn terminfo_dirs() -> Vec<PathBuf> {
    let mut dirs = Vec::new();
    if let Some(dir) = std::env::var_os("TERMINFO") {
        dirs.push(PathBuf::from(dir));
    }
    if let Some(home) = std::env::var_os("HOME") {
        dirs.push(Path::new(&home).join(".terminfo"));
    }
    if let Some(list) = std::env::var_os("TERMINFO_DIRS") {
        dirs.extend(std::env::split_paths(&list).filter(|dir| !dir.as_os_str().is_empty()));
    }
    for dir in [
        "/etc/terminfo",
        "/lib/terminfo",
        "/usr/share/terminfo",
        "/usr/lib/terminfo",
    ] {
        dirs.push(PathBuf::from(dir));
    }
    dirs
}

/// The compiled entry `dir/x/xterm` (or `dir/78/xterm`, as macOS files them).
fn read_entry(dir: &Path, name: &str) -> Option<Vec<u8>> {
    let first = name.chars().next()?;
    if name.contains('/') || name.starts_with('.') {
        return None;
    }
    [first.to_string(), format!("{:x}", u32::from(first))]
        .iter()
        .find_map(|sub| std::fs::read(dir.join(sub).join(name)).ok())
}

/// Index of `cursor_address` (cup) among the string capabilities (term(5)).
const CURSOR_ADDRESS: usize = 10;

/// Whether a compiled terminfo entry (term(5): the legacy and the 32-bit number
/// formats) has `cup`; `None` when the bytes are no such entry.
fn has_cursor_address(bytes: &[u8]) -> Option<bool> {
    let short = |at: usize| -> Option<i16> {
        Some(i16::from_le_bytes([*bytes.get(at)?, *bytes.get(at + 1)?]))
    };
    let number_size = match short(0)? {
        0o432 => 2,
        0o1036 => 4,
        _ => return None,
    };
    let count = |at: usize| usize::try_from(short(at)?).ok();
    let (names, booleans, numbers, strings) = (count(2)?, count(4)?, count(6)?, count(8)?);
    if strings <= CURSOR_ADDRESS {
        return Some(false);
    }
    let mut offsets = 12 + names + booleans;
    offsets += offsets % 2; // numbers start on an even byte
    offsets += numbers * number_size;
    // -1: absent, -2: cancelled.
    Some(short(offsets + 2 * CURSOR_ADDRESS)? >= 0)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A legacy-format entry with `strings` string capabilities, `cup` among
    /// them or not.
    fn entry(strings: usize, with_cup: bool) -> Vec<u8> {
        let names = b"test|a test terminal\0";
        let mut bytes = Vec::new();
        for value in [0o432, names.len() as i16, 1, 1, strings as i16, 8] {
            bytes.extend_from_slice(&value.to_le_bytes());
        }
        bytes.extend_from_slice(names);
        bytes.push(1); // one boolean
        if bytes.len() % 2 == 1 {
            bytes.push(0);
        }
        bytes.extend_from_slice(&80i16.to_le_bytes()); // one number
        for index in 0..strings {
            let offset: i16 = if index == CURSOR_ADDRESS && with_cup {
                0
            } else {
                -1
            };
            bytes.extend_from_slice(&offset.to_le_bytes());
        }
        bytes.extend_from_slice(b"\x1b[%i\0\0\0\0");
        bytes
    }

    #[test]
    fn dumb_unset_and_empty_term_are_refused() {
        let nothing = |_: &str| None;
        for term in [None, Some(""), Some("dumb")] {
            let refused = check(term, nothing).expect_err("refused");
            assert!(
                refused.to_string().contains("vantage inventory"),
                "{refused}"
            );
        }
    }

    #[test]
    fn a_terminfo_entry_without_cup_is_refused_and_one_with_cup_is_not() {
        let without = check(Some("printer"), |_| Some(entry(30, false))).expect_err("refused");
        assert!(without.to_string().contains("TERM=printer"), "{without}");
        assert!(check(Some("short"), |_| Some(entry(4, true))).is_err());
        assert_eq!(check(Some("vt100"), |_| Some(entry(30, true))), Ok(()));
    }

    #[test]
    fn a_term_this_host_does_not_know_or_cannot_read_gets_ansi() {
        assert_eq!(check(Some("xterm-kitty"), |_| None), Ok(()));
        assert_eq!(
            check(Some("odd"), |_| Some(b"not terminfo".to_vec())),
            Ok(())
        );
        assert_eq!(
            check(Some("cut"), |_| Some(entry(30, true)[..20].to_vec())),
            Ok(())
        );
    }

    #[test]
    fn the_hosts_own_entries_read_as_ncurses_has_them() {
        // Where the host has them (Debian's ncurses-base does): dumb lacks cup, xterm has it.
        let lookup = |name: &str| terminfo_dirs().iter().find_map(|dir| read_entry(dir, name));
        if let Some(dumb) = lookup("dumb") {
            assert_eq!(has_cursor_address(&dumb), Some(false));
        }
        if let Some(xterm) = lookup("xterm") {
            assert_eq!(has_cursor_address(&xterm), Some(true));
        }
    }
}
