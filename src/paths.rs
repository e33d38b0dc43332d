//! Where vantage keeps its files, after the platform's conventions (XDG on
//! Linux): the config file, and the data dir that holds the log, the watch list,
//! exports and the review history.

use std::path::PathBuf;

fn project_dirs() -> Option<directories::ProjectDirs> {
    directories::ProjectDirs::from("", "", "vantage")
}

/// `~/.local/share/vantage` on Linux, the platform's equivalent elsewhere; the
/// current directory's `.vantage` when no home directory is known.
pub fn data_dir() -> PathBuf {
    project_dirs()
        .map(|dirs| dirs.data_dir().to_path_buf())
        .unwrap_or_else(|| PathBuf::from(".vantage"))
}

/// `~/.config/vantage/config.toml` on Linux, the platform's equivalent elsewhere.
pub fn config_file() -> Option<PathBuf> {
    project_dirs().map(|dirs| dirs.config_dir().join("config.toml"))
}
