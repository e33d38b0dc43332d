//! Where logs go: a file in the data dir while the dashboard owns the terminal,
//! stderr for the server and the script commands.

use std::path::{Path, PathBuf};

use tracing_subscriber::EnvFilter;

fn filter(default: &str) -> EnvFilter {
    EnvFilter::try_from_env("VANTAGE_LOG").unwrap_or_else(|_| EnvFilter::new(default))
}

/// Logs to `dir/vantage.log`, never to the terminal. Returns the file's path.
pub fn to_file(dir: &Path) -> std::io::Result<PathBuf> {
    std::fs::create_dir_all(dir)?;
    let path = dir.join("vantage.log");
    let file = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&path)?;
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter("info"))
        .with_ansi(false)
        .with_writer(std::sync::Mutex::new(file))
        .try_init();
    Ok(path)
}

/// Logs to stderr at `default` level unless `VANTAGE_LOG` says otherwise;
/// in colour only on a terminal, so a redirected log file or a journal gets
/// no escape codes.
pub fn to_stderr(default: &str) {
    use std::io::IsTerminal;
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter(default))
        .with_ansi(std::io::stderr().is_terminal())
        .with_writer(std::io::stderr)
        .try_init();
}
