//! Where logs go: a file in the data dir while the dashboard owns the terminal,
//! stderr for the server and the script commands.

use std::path::{Path, PathBuf};

use tracing_subscriber::EnvFilter;

fn filter(default: &str) -> EnvFilter {
    EnvFilter::try_from_env("VANTAGE_LOG").unwrap_or_else(|_| EnvFilter::new(default))
}

/// Logs to `dir/vantage.log`, never to the terminal. Returns the file's path.
/// The log holds request ids and errors: 0600, never through a planted link.
pub fn to_file(dir: &Path) -> std::io::Result<PathBuf> {
    let path = dir.join("vantage.log");
    let file = crate::safe_file::open_private_append(&path)?;
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
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter(default))
        // Colours would only show as escapes: the writer escapes every control.
        .with_ansi(false)
        .with_writer(crate::stderr::LogWriter::default)
        .try_init();
}
