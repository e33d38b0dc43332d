//! The checks of this host alone: the terminal (colour depth, size) and the
//! data and log directories with their modes.

use std::io::IsTerminal;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;

use super::Check;
use crate::tui::theme::ColorDepth;

/// The smallest terminal the dashboard lays out in full.
const MIN_COLUMNS: u16 = 80;
const MIN_ROWS: u16 = 24;

pub fn checks() -> Vec<Check> {
    let mut checks = vec![colour(), size()];
    checks.extend(directories());
    checks
}

/// ` (mode 600)`, or nothing when the mode cannot be read.
pub fn mode_text(path: Option<&Path>) -> String {
    path.and_then(|path| std::fs::metadata(path).ok())
        .map(|metadata| format!(" (mode {:o})", metadata.permissions().mode() & 0o777))
        .unwrap_or_default()
}

fn colour() -> Check {
    let depth = ColorDepth::from_env();
    let detail = match depth {
        ColorDepth::TrueColor => "24-bit colour (COLORTERM)",
        ColorDepth::Ansi256 => "256 colours (TERM)",
        ColorDepth::Ansi16 => "16 colours",
        ColorDepth::None => "no colour (NO_COLOR or TERM=dumb): bold and reverse only",
    };
    match depth {
        ColorDepth::TrueColor | ColorDepth::Ansi256 => Check::ok("colour", detail),
        ColorDepth::Ansi16 | ColorDepth::None => Check::warn(
            "colour",
            detail,
            "for the dashboard's full theme: TERM=xterm-256color, or COLORTERM=truecolor when the terminal has it",
        ),
    }
}

fn size() -> Check {
    if !std::io::stdout().is_terminal() {
        return Check::ok(
            "terminal",
            "not a terminal (scripts and jobs need none; the dashboard does)",
        );
    }
    match crossterm::terminal::size() {
        Ok((columns, rows)) if columns >= MIN_COLUMNS && rows >= MIN_ROWS => {
            Check::ok("terminal", format!("{columns}×{rows}"))
        }
        Ok((columns, rows)) => Check::warn(
            "terminal",
            format!("{columns}×{rows}: the dashboard drops columns below {MIN_COLUMNS}×{MIN_ROWS}"),
            format!("a window of at least {MIN_COLUMNS}×{MIN_ROWS}"),
        ),
        Err(error) => Check::warn(
            "terminal",
            format!("its size is unknown: {error}"),
            "see the error",
        ),
    }
}

/// The data directory (the log, the history file, exports): 0700 as vantage
/// makes it, and the log 0600.
fn directories() -> Vec<Check> {
    let data = crate::paths::data_dir();
    let log = data.join("vantage.log");
    let mut checks = Vec::new();
    match std::fs::metadata(&data) {
        Err(_) => checks.push(Check::ok(
            "data dir",
            format!(
                "{}: not made yet (vantage makes it 0700 when it first writes)",
                data.display()
            ),
        )),
        Ok(metadata) if !metadata.is_dir() => checks.push(Check::fail(
            "data dir",
            format!("{} is not a directory", data.display()),
            "move it away; vantage makes the directory",
        )),
        Ok(metadata) => checks.push(private(
            "data dir",
            &data,
            metadata.permissions().mode() & 0o777,
            0o077,
            "700",
        )),
    }
    match std::fs::symlink_metadata(&log) {
        Err(_) => checks.push(Check::ok("log", format!("{}: none yet", log.display()))),
        Ok(metadata) if !metadata.is_file() => checks.push(Check::fail(
            "log",
            format!(
                "{} is not a regular file (a link?): vantage will not write through it",
                log.display()
            ),
            format!("remove {}", log.display()),
        )),
        Ok(metadata) => checks.push(private(
            "log",
            &log,
            metadata.permissions().mode() & 0o777,
            0o077,
            "600",
        )),
    }
    checks
}

/// A file or directory that only its owner should read: `others` are the
/// bits that must be clear.
fn private(check: &'static str, path: &Path, mode: u32, others: u32, wanted: &str) -> Check {
    let detail = format!("{} (mode {mode:o})", path.display());
    if mode & others == 0 {
        Check::ok(check, detail)
    } else {
        Check::warn(
            check,
            format!("{detail}: others may read it (request ids, errors, the history)"),
            format!("chmod {wanted} {}", path.display()),
        )
    }
}
