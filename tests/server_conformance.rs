//! Regression tests of the contract conformance review of `vantage serve`: each
//! test pins one discrepancy that was found and fixed, from the contract sentence
//! (`api-v1.md`) or the README rule it breaks. HTTP cases run against a server on
//! 127.0.0.1:0; the command-line cases run the built binary.

mod common;

#[path = "server_core/support.rs"]
#[allow(dead_code)]
mod support;

use std::path::Path;
use std::process::{Command, Stdio};

use vantage::server::store::StoreError;
use vantage::server::{App, ServerConfig, ServerError};

use common::*;

/// README: `--db PATH` keeps the data in a SQLite file. A file SQLite can only
/// read used to start a server whose every write answered 500; it is refused at
/// start with the reason.
#[test]
fn a_read_only_database_file_is_refused_at_start() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("vantage.db");
    let config = |path: &Path| {
        let mut config = ServerConfig::local(demo());
        config.db = Some(path.to_owned());
        config
    };
    drop(App::new(config(&path)).expect("a writable file opens"));
    let Some(_guard) = ReadOnly::make(&path) else {
        eprintln!("skipped: cannot make a file read-only for this user");
        return;
    };
    match App::new(config(&path)) {
        Err(ServerError::Store(StoreError::ReadOnly(named))) => {
            assert_eq!(named, path);
            let message = ServerError::Store(StoreError::ReadOnly(named)).to_string();
            assert_eq!(
                message,
                format!(
                    "store: the database file {} is read-only; every write would fail (give a writable file, or leave out --db to keep the data in memory)",
                    path.display()
                )
            );
        }
        Err(other) => panic!("another error: {other}"),
        Ok(_) => panic!("a read-only database was accepted"),
    }
}

/// Makes a file read-only for the current user: permissions, or for root (whom
/// permissions do not stop) the immutable attribute. Undone on drop.
struct ReadOnly<'a> {
    path: &'a Path,
    immutable: bool,
}

impl<'a> ReadOnly<'a> {
    fn make(path: &'a Path) -> Option<Self> {
        let mut permissions = std::fs::metadata(path).ok()?.permissions();
        permissions.set_readonly(true);
        std::fs::set_permissions(path, permissions).ok()?;
        let writable = || std::fs::OpenOptions::new().append(true).open(path).is_ok();
        if !writable() {
            return Some(Self {
                path,
                immutable: false,
            });
        }
        let made = Command::new("chattr")
            .arg("+i")
            .arg(path)
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|status| status.success());
        let guard = Self {
            path,
            immutable: made,
        };
        (made && !writable()).then_some(guard)
    }
}

impl Drop for ReadOnly<'_> {
    fn drop(&mut self) {
        if self.immutable {
            let _ = Command::new("chattr").arg("-i").arg(self.path).status();
        }
    }
}
