//! The database file: one server at a time, and no damaged file taken into use.
//!
//! Each server keeps its own copy of the data in memory, so a second server on
//! the same file would silently undo the first one's writes: the file is locked
//! for as long as the store is open. The lock is an advisory `flock` on a sibling
//! `<db>.lock` file, not on the database itself, because closing any descriptor
//! of the database would drop SQLite's own POSIX locks of this process.

use std::fs::{File, OpenOptions, TryLockError};
use std::path::{Path, PathBuf};

use rusqlite::{Connection, OpenFlags};

use super::{Data, StoreError};

/// Holds the exclusive lock of a database file until dropped.
#[derive(Debug)]
pub struct FileLock {
    _file: File,
}

/// `<db>.lock`, beside the database.
pub fn lock_path(db: &Path) -> PathBuf {
    let mut name = db.as_os_str().to_owned();
    name.push(".lock");
    PathBuf::from(name)
}

/// Takes the lock of `db` without waiting: another server holding it is an error
/// that names the file.
pub fn lock(db: &Path) -> Result<FileLock, StoreError> {
    let path = lock_path(db);
    let file = OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(&path)
        .map_err(|source| StoreError::LockFile {
            path: path.clone(),
            source,
        })?;
    match file.try_lock() {
        Ok(()) => Ok(FileLock { _file: file }),
        Err(TryLockError::WouldBlock) => Err(StoreError::InUse(db.to_owned())),
        Err(TryLockError::Error(source)) => Err(StoreError::LockFile { path, source }),
    }
}

/// Whether `db` already holds data (a new or empty file has nothing to check).
pub fn exists_with_data(db: &Path) -> bool {
    std::fs::metadata(db).is_ok_and(|meta| meta.len() > 0)
}

/// `PRAGMA quick_check` of an existing database: a damaged page is refused at
/// start, rather than answering 500s or writing into a broken file later.
pub fn check_integrity(conn: &Connection, db: &Path) -> Result<(), StoreError> {
    let damaged = |detail: String| StoreError::Damaged {
        path: db.to_owned(),
        detail,
    };
    let mut statement = conn
        .prepare("PRAGMA quick_check")
        .map_err(|err| damaged(err.to_string()))?;
    let problems: Vec<String> = statement
        .query_map([], |row| row.get::<_, String>(0))
        .and_then(|rows| rows.collect::<Result<Vec<_>, _>>())
        .map_err(|err| damaged(err.to_string()))?;
    match problems.as_slice() {
        [ok] if ok == "ok" => Ok(()),
        [] => Err(damaged("quick_check answered nothing".to_owned())),
        [first, rest @ ..] => Err(damaged(if rest.is_empty() {
            first.clone()
        } else {
            format!("{first} (and {} more problems)", rest.len())
        })),
    }
}

/// The data of an existing database, read without its lock and without writing
/// (`--print-credentials` next to a running server).
pub fn read_existing(db: &Path) -> Result<Data, StoreError> {
    let conn = Connection::open_with_flags(
        db,
        OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX,
    )?;
    check_integrity(&conn, db)?;
    super::load(&conn)
}
