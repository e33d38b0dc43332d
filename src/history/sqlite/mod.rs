//! The local history: one SQLite file, a history per workspace. Opening it
//! and recording snapshots in it; a snapshot is written in one transaction:
//! it is there whole or not at all.

mod backend;
mod guard;
mod marks;
mod ranges;
mod read;
mod schema;
mod states;
mod waivers;

use std::collections::HashMap;
use std::path::Path;
use std::time::{Duration, Instant};

use rusqlite::{Connection, ErrorCode, OpenFlags, Transaction, TransactionBehavior, params};
use time::OffsetDateTime;

use super::HistoryError;
use super::backend::{BUSY_TIMEOUT, HistoryLocation, Retention};
use super::document::StoredDocument;
use super::marks::MARK_ROWS;
use super::model::{Capture, SnapshotInfo};
use super::read::{from_ms, to_ms};
use super::retention::unheld;
use states::store_document;

pub use schema::{STEPS, VERSION, version_of};

/// The local review history: one SQLite file, a history per workspace.
pub struct SqliteStore {
    connection: Connection,
    location: HistoryLocation,
    /// The workspaces whose snapshot lock this store holds (their lock files).
    locks: HashMap<String, std::fs::File>,
}

/// Creates `path` readable by its owner only, before SQLite opens it (SQLite
/// gives its `-wal` and `-shm` files the same mode), and tightens an existing
/// one once it is seen to be a history ([`is_history`]); a symlink at its
/// place is refused (`safe_file`).
///
/// An existing file is never opened here outside SQLite: closing a descriptor drops every
/// POSIX lock this process holds on the file, SQLite's own among them, and an
/// outside reader that then closes the file finds no other connection and
/// removes the WAL that this process still writes to (issue 33).
fn create_private(path: &Path) -> std::io::Result<()> {
    let metadata = match std::fs::symlink_metadata(path) {
        Ok(metadata) => metadata,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => {
            return crate::safe_file::open_private_append(path).map(drop);
        }
        Err(error) => return Err(error),
    };
    if metadata.file_type().is_symlink() {
        return Err(crate::safe_file::link_refused(path));
    }
    if !metadata.file_type().is_file() {
        return Err(std::io::Error::other(format!(
            "{} is not a regular file; refusing to write to it",
            path.display()
        )));
    }
    is_history(path)?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        if metadata.permissions().mode() & 0o777 != 0o600 {
            // By path: SQLite's NOFOLLOW open refuses a link planted since.
            std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o600))?;
        }
    }
    Ok(())
}

/// Whether an existing file is a history vantage made: empty (just created),
/// or an SQLite database whose schema is a history's (a `user_version` set:
/// one vantage cannot use is named by `schema.rs`) or was never begun
/// (schema cookie 0). Anything else, a text file or another program's
/// database, is refused before its mode is touched or a table is written.
/// Read through SQLite itself, read-only: SQLite keeps a closed descriptor
/// open while another connection of this process holds locks on the file.
fn is_history(path: &Path) -> std::io::Result<()> {
    use rusqlite::OpenFlags;
    let not_ours = |what: String| {
        std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            format!(
                "it is {what}, not a vantage history; refusing to open it or change its mode \
                 (check [history] path)"
            ),
        )
    };
    let not_a_database = |_| not_ours("not an SQLite database".into());
    let connection = Connection::open_with_flags(
        path,
        OpenFlags::SQLITE_OPEN_READ_ONLY
            | OpenFlags::SQLITE_OPEN_NOFOLLOW
            | OpenFlags::SQLITE_OPEN_NO_MUTEX,
    )
    .map_err(not_a_database)?;
    let pragma = |name: &str| {
        connection.query_row(&format!("PRAGMA {name}"), [], |row| row.get::<_, i64>(0))
    };
    let schema_cookie = pragma("schema_version").map_err(not_a_database)?;
    let user_version = pragma("user_version").map_err(not_a_database)?;
    if user_version != 0 || schema_cookie == 0 {
        return Ok(());
    }
    Err(not_ours(
        "an SQLite database with tables and no history schema (user_version 0)".into(),
    ))
}

/// Switches the file to WAL unless it is already. That takes an exclusive
/// lock: only a file not yet in WAL asks for it.
fn use_wal(connection: &Connection) -> rusqlite::Result<()> {
    let mode: String = connection.query_row("PRAGMA journal_mode", [], |row| row.get(0))?;
    if !mode.eq_ignore_ascii_case("wal") {
        connection.pragma_update(None, "journal_mode", "WAL")?;
    }
    Ok(())
}

/// Runs `step` again, up to [`BUSY_TIMEOUT`], while SQLite answers "busy" or
/// "locked". When two connections race to switch a new file to WAL, the loser
/// gets that answer at once: SQLite does not call the busy handler where
/// waiting could deadlock.
fn patiently<T>(mut step: impl FnMut() -> rusqlite::Result<T>) -> rusqlite::Result<T> {
    let deadline = Instant::now() + BUSY_TIMEOUT;
    let mut pause = Duration::from_millis(2);
    loop {
        match step() {
            Err(rusqlite::Error::SqliteFailure(error, _))
                if matches!(
                    error.code,
                    ErrorCode::DatabaseBusy | ErrorCode::DatabaseLocked
                ) && Instant::now() + pause < deadline =>
            {
                std::thread::sleep(pause);
                pause = (pause * 2).min(Duration::from_millis(100));
            }
            answer => return answer,
        }
    }
}

impl SqliteStore {
    /// Opens (creating when missing) the history file at `path`: mode 0600,
    /// WAL, a writer waits up to [`BUSY_TIMEOUT`] for another, the schema
    /// brought up to date.
    pub fn open(path: &Path) -> Result<Self, HistoryError> {
        let opened = |source: rusqlite::Error| HistoryError::Open {
            path: path.to_path_buf(),
            source,
        };
        create_private(path).map_err(|source| HistoryError::Io {
            path: path.to_path_buf(),
            source,
        })?;
        // NOFOLLOW: a link planted between our check and this open is refused too.
        let mut connection = Connection::open_with_flags(
            path,
            OpenFlags::default() | OpenFlags::SQLITE_OPEN_NOFOLLOW,
        )
        .map_err(opened)?;
        connection.busy_timeout(BUSY_TIMEOUT).map_err(opened)?;
        patiently(|| use_wal(&connection)).map_err(opened)?;
        connection
            .pragma_update(None, "synchronous", "NORMAL")
            .map_err(opened)?;
        schema::migrate(&mut connection)?;
        Ok(Self {
            connection,
            location: HistoryLocation::File(path.to_path_buf()),
            locks: HashMap::new(),
        })
    }

    /// A write transaction, its lock taken at once (`BEGIN IMMEDIATE`): a
    /// writer that read first could not upgrade while another writes, and
    /// would fail at once instead of waiting its turn.
    fn write(&mut self) -> Result<Transaction<'_>, HistoryError> {
        Ok(self
            .connection
            .transaction_with_behavior(TransactionBehavior::Immediate)?)
    }

    /// SQLite's `data_version`: it changes when another connection commits to
    /// the file, so a dashboard knows when to read marks and changes again.
    fn data_version(&self) -> Result<i64, HistoryError> {
        Ok(self
            .connection
            .query_row("PRAGMA data_version", [], |row| row.get(0))?)
    }

    /// Records `capture` as a new snapshot in one transaction, gives reviewed
    /// marks without a reviewed state this one's, and prunes by `retention` in
    /// the same transaction. Returns the new snapshot.
    fn record(
        &mut self,
        capture: &Capture,
        retention: Retention,
    ) -> Result<SnapshotInfo, HistoryError> {
        let transaction = self.write()?;
        let first_page = serde_json::to_string(&capture.first_page).ok();
        let insights = store_document(
            &transaction,
            &capture.workspace_id,
            &StoredDocument::of(&capture.insights),
        )?;
        // Only the newest snapshot's first page is kept (the instant start).
        transaction.execute(
            "UPDATE snapshot SET first_page = NULL WHERE workspace_id = ?1 AND first_page IS NOT NULL",
            params![capture.workspace_id],
        )?;
        transaction.execute(
            "INSERT INTO snapshot (workspace_id, taken_at_ms, project_count, member_count, insights_state, first_page)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
            params![
                capture.workspace_id,
                to_ms(capture.taken_at),
                capture.projects.len() as i64,
                capture.members.len() as i64,
                insights,
                first_page,
            ],
        )?;
        let snapshot_id = transaction.last_insert_rowid();
        let workspace_id = capture.workspace_id.as_str();
        ranges::record_ranges(&transaction, workspace_id, snapshot_id, &capture.projects)?;
        ranges::record_ranges(&transaction, workspace_id, snapshot_id, &capture.members)?;
        // Marks made before any snapshot (or loaded row) held their project
        // are held against this snapshot's state.
        transaction.execute(
            &format!(
                "UPDATE review SET
                     state_id = (SELECT r.state_id FROM project_range r
                                 WHERE r.workspace_id = ?1 AND r.valid_until IS NULL
                                   AND r.subject = review.project_id ORDER BY r.sort_key LIMIT 1),
                     state_at_ms = ?2
                 WHERE workspace_id = ?1 AND action = 'mark' AND state_id IS NULL
                   AND id IN (SELECT MAX(id) FROM review WHERE workspace_id = ?1
                              AND {MARK_ROWS} GROUP BY project_id)"
            ),
            params![capture.workspace_id, to_ms(capture.taken_at)],
        )?;
        ranges::record_posture(&transaction, workspace_id, snapshot_id, &capture.projects)?;
        prune_in(
            &transaction,
            &capture.workspace_id,
            retention,
            capture.taken_at,
        )?;
        transaction.commit()?;
        self.write_through();
        Ok(SnapshotInfo {
            id: snapshot_id,
            workspace_id: capture.workspace_id.clone(),
            // As stored: to the millisecond.
            taken_at: from_ms(to_ms(capture.taken_at), "snapshot.taken_at_ms")?,
            projects: capture.projects.len() as i64,
            members: capture.members.len() as i64,
        })
    }

    /// Removes `doomed` except what a mark or waiver refers to by now, in
    /// one transaction (`Backend::forget`); the ids removed.
    fn forget(&mut self, workspace_id: &str, doomed: &[i64]) -> Result<Vec<i64>, HistoryError> {
        let transaction = self.write()?;
        let going = unheld(
            doomed.iter().copied(),
            &ranges::held_snapshots(&transaction, workspace_id)?,
        );
        ranges::remove_snapshots(&transaction, workspace_id, &going)?;
        transaction.commit()?;
        if !going.is_empty() {
            self.reclaim();
        }
        Ok(going)
    }

    /// Copies the snapshot just committed from the WAL into the file. A
    /// snapshot writes hundreds of pages (700 a day in a year of 20,000
    /// projects), so SQLite's own checkpoint, at 1,000 pages in the WAL,
    /// fell on every other snapshot, which then paid for two: a day's
    /// recording took 1.2 times as long as the day before or after, and
    /// which days those were shifted as the history grew. Each snapshot pays
    /// for its own pages now. Passive: a reader in the middle of a read is
    /// never waited for (what it still reads is copied by the next one).
    fn write_through(&self) {
        // Best effort: the snapshot is committed whether or not it runs.
        let _ = self
            .connection
            .query_row("PRAGMA wal_checkpoint(PASSIVE)", [], |_| Ok(()));
    }

    /// Gives the pages of what a removal freed back to the file system.
    fn reclaim(&self) {
        // Best effort: the removal is committed whether or not it runs.
        let _ = self
            .connection
            .execute_batch("PRAGMA wal_checkpoint(TRUNCATE); VACUUM;");
    }
}

/// Removes the workspace's snapshots beyond `retention` (as of `now`), and
/// the states no snapshot or mark holds any more; how many snapshots went.
pub(super) fn prune_in(
    transaction: &Transaction<'_>,
    workspace_id: &str,
    retention: Retention,
    now: OffsetDateTime,
) -> Result<usize, HistoryError> {
    let oldest_kept = to_ms(now - retention.max_age);
    let held = ranges::held_snapshots(transaction, workspace_id)?;
    let doomed: Vec<i64> = {
        let mut statement = transaction.prepare(
            "SELECT id FROM snapshot WHERE workspace_id = ?1 AND
                 (taken_at_ms < ?2 OR id NOT IN (
                     SELECT id FROM snapshot WHERE workspace_id = ?1 ORDER BY id DESC LIMIT ?3))",
        )?;
        statement
            .query_map(
                params![
                    workspace_id,
                    oldest_kept,
                    i64::from(retention.max_snapshots)
                ],
                |row| row.get(0),
            )?
            .collect::<Result<_, _>>()?
    };
    // What a mark or waiver refers to stays, as `snapshot prune --keep-*` keeps it.
    let doomed = unheld(doomed, &held);
    if doomed.is_empty() {
        return Ok(0);
    }
    ranges::remove_snapshots(transaction, workspace_id, &doomed)?;
    Ok(doomed.len())
}

#[cfg(all(test, unix))]
mod tests {
    use std::os::unix::fs::PermissionsExt;

    use super::*;

    fn mode(path: &Path) -> u32 {
        std::fs::metadata(path).unwrap().permissions().mode() & 0o777
    }

    #[test]
    fn another_programs_database_is_refused_before_its_mode_is_touched() {
        let dir = tempfile::tempdir().unwrap();
        let foreign = dir.path().join("places.sqlite");
        Connection::open(&foreign)
            .unwrap()
            .execute_batch("CREATE TABLE moz_places (id INTEGER)")
            .unwrap();
        std::fs::set_permissions(&foreign, std::fs::Permissions::from_mode(0o644)).unwrap();
        let error = SqliteStore::open(&foreign).err().expect("refused");
        assert!(
            error.to_string().contains("not a vantage history"),
            "{error}"
        );
        assert_eq!(mode(&foreign), 0o644);

        // A history vantage made opens again, and is tightened.
        let history = dir.path().join("history.sqlite3");
        drop(SqliteStore::open(&history).unwrap());
        std::fs::set_permissions(&history, std::fs::Permissions::from_mode(0o644)).unwrap();
        drop(SqliteStore::open(&history).unwrap());
        assert_eq!(mode(&history), 0o600);
    }
}
