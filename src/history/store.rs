//! Opening the history file and recording snapshots in it. A snapshot is
//! written in one transaction: it is there whole or not at all.

use std::collections::HashMap;
use std::iter::once;
use std::path::{Path, PathBuf};

use rusqlite::types::Value as SqlValue;
use rusqlite::{Connection, OpenFlags, OptionalExtension, Transaction, params, params_from_iter};
use serde::Serialize;
use time::OffsetDateTime;

use super::model::{Capture, MemberState, ProjectState, SnapshotInfo, digest_of};
use super::{HistoryError, schema};

/// How long snapshots are kept: whichever bound is reached first.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Retention {
    pub max_age: time::Duration,
    /// Per workspace.
    pub max_snapshots: u32,
}

impl Default for Retention {
    fn default() -> Self {
        Self {
            max_age: time::Duration::days(90),
            max_snapshots: 200,
        }
    }
}

/// The local review history: one SQLite file, a history per workspace.
pub struct Store {
    pub(super) connection: Connection,
    path: PathBuf,
}

pub(super) fn to_ms(at: OffsetDateTime) -> i64 {
    (at.unix_timestamp_nanos() / 1_000_000) as i64
}

pub(super) fn from_ms(ms: i64) -> OffsetDateTime {
    OffsetDateTime::from_unix_timestamp_nanos(i128::from(ms) * 1_000_000)
        .unwrap_or(OffsetDateTime::UNIX_EPOCH)
}

pub(super) fn json_list(values: &[String]) -> String {
    serde_json::to_string(values).unwrap_or_else(|_| "[]".into())
}

/// Creates `path` readable by its owner only, before SQLite opens it (SQLite
/// gives its `-wal` and `-shm` files the same mode), and tightens an existing
/// one; a symlink at its place is refused (`safe_file`).
fn create_private(path: &Path) -> std::io::Result<()> {
    crate::safe_file::open_private_append(path).map(drop)
}

impl Store {
    /// Opens (creating when missing) the history file at `path`: mode 0600,
    /// WAL, the schema brought up to date.
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
        connection
            .busy_timeout(std::time::Duration::from_secs(10))
            .map_err(opened)?;
        connection
            .pragma_update(None, "journal_mode", "WAL")
            .map_err(opened)?;
        connection
            .pragma_update(None, "synchronous", "NORMAL")
            .map_err(opened)?;
        schema::migrate(&mut connection)?;
        Ok(Self {
            connection,
            path: path.to_path_buf(),
        })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Records `capture` as a new snapshot in one transaction, moves reviewed
    /// marks without a baseline onto it, and prunes by `retention` in the same
    /// transaction. Returns the new snapshot.
    pub fn record(
        &mut self,
        capture: &Capture,
        retention: Retention,
    ) -> Result<SnapshotInfo, HistoryError> {
        let transaction = self.connection.transaction()?;
        let first_page = serde_json::to_string(&capture.first_page).ok();
        let insights = serde_json::to_string(&capture.insights).ok();
        // Only the newest snapshot's first page is kept (the instant start).
        transaction.execute(
            "UPDATE snapshot SET first_page = NULL WHERE workspace_id = ?1 AND first_page IS NOT NULL",
            params![capture.workspace_id],
        )?;
        transaction.execute(
            "INSERT INTO snapshot (workspace_id, taken_at_ms, project_count, member_count, insights, first_page)
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
        record_states(&transaction, snapshot_id, &capture.projects)?;
        record_states(&transaction, snapshot_id, &capture.members)?;
        // Marks made before any snapshot held their project take this one as baseline.
        transaction.execute(
            "UPDATE review_mark SET state_id = (
                 SELECT sp.state_id FROM snapshot_project sp
                 JOIN project_state ps ON ps.id = sp.state_id
                 WHERE sp.snapshot_id = ?1 AND ps.project_id = review_mark.project_id)
             WHERE workspace_id = ?2 AND state_id IS NULL",
            params![snapshot_id, capture.workspace_id],
        )?;
        prune_in(
            &transaction,
            &capture.workspace_id,
            retention,
            capture.taken_at,
        )?;
        transaction.commit()?;
        Ok(SnapshotInfo {
            id: snapshot_id,
            workspace_id: capture.workspace_id.clone(),
            // As stored: to the millisecond.
            taken_at: from_ms(to_ms(capture.taken_at)),
            projects: capture.projects.len() as i64,
            members: capture.members.len() as i64,
        })
    }

    /// Removes the workspace's snapshots beyond `retention` (as of `now`), and
    /// the states no snapshot or mark holds any more. Returns how many
    /// snapshots went.
    pub fn prune(
        &mut self,
        workspace_id: &str,
        retention: Retention,
        now: OffsetDateTime,
    ) -> Result<usize, HistoryError> {
        let transaction = self.connection.transaction()?;
        let removed = prune_in(&transaction, workspace_id, retention, now)?;
        transaction.commit()?;
        if removed > 0 {
            // Give the pages back to the file system.
            let _ = self
                .connection
                .execute_batch("PRAGMA wal_checkpoint(TRUNCATE); VACUUM;");
        }
        Ok(removed)
    }
}

/// The row of a state with `digest`, stored when new; `cache` holds the
/// digests this snapshot already met.
fn state_id(
    transaction: &Transaction<'_>,
    cache: &mut HashMap<[u8; 16], i64>,
    digest: [u8; 16],
    find: &mut rusqlite::CachedStatement<'_>,
    insert: impl FnOnce() -> Result<(), HistoryError>,
) -> Result<i64, HistoryError> {
    if let Some(&id) = cache.get(&digest) {
        return Ok(id);
    }
    let found: Option<i64> = find
        .query_row(params![digest.as_slice()], |row| row.get(0))
        .optional()?;
    let id = match found {
        Some(id) => id,
        None => {
            insert()?;
            transaction.last_insert_rowid()
        }
    };
    cache.insert(digest, id);
    Ok(id)
}

/// A state a snapshot links to: stored in `KIND_state` (its digest, then
/// `COLUMNS`) and linked through `snapshot_KIND`.
trait StoredState: Serialize {
    const KIND: &'static str;
    /// Comma-separated, as `INSERT` names them.
    const COLUMNS: &'static str;
    /// The values of `COLUMNS`, in their order.
    fn values(&self) -> Vec<SqlValue>;
}

impl StoredState for ProjectState {
    const KIND: &'static str = "project";
    const COLUMNS: &'static str = "project_id, name, is_published, audience, audience_targets,
         visibility, review_priority, finding_types, pii_open, connectors, edge_functions, owner";

    fn values(&self) -> Vec<SqlValue> {
        vec![
            self.id.clone().into(),
            self.name.clone().into(),
            self.is_published.into(),
            self.audience.clone().into(),
            self.audience_targets.as_deref().map(json_list).into(),
            self.visibility.clone().into(),
            self.review_priority.clone().into(),
            json_list(&self.finding_types).into(),
            self.pii_open.into(),
            json_list(&self.connectors).into(),
            json_list(&self.edge_functions).into(),
            self.owner.clone().into(),
        ]
    }
}

impl StoredState for MemberState {
    const KIND: &'static str = "member";
    const COLUMNS: &'static str = "user_id, kind, role, name";

    fn values(&self) -> Vec<SqlValue> {
        vec![
            self.user_id.clone().into(),
            self.kind.clone().into(),
            self.role.clone().into(),
            self.name.clone().into(),
        ]
    }
}

/// Links each of `states` to the snapshot in order, storing those whose
/// digest no row holds yet.
fn record_states<T: StoredState>(
    transaction: &Transaction<'_>,
    snapshot_id: i64,
    states: &[T],
) -> Result<(), HistoryError> {
    let kind = T::KIND;
    let mut find =
        transaction.prepare_cached(&format!("SELECT id FROM {kind}_state WHERE digest = ?1"))?;
    let mut insert = transaction.prepare_cached(&format!(
        "INSERT INTO {kind}_state (digest, {}) VALUES (?{})",
        T::COLUMNS,
        ", ?".repeat(T::COLUMNS.split(',').count())
    ))?;
    let mut link = transaction.prepare_cached(&format!(
        "INSERT INTO snapshot_{kind} (snapshot_id, position, state_id) VALUES (?1, ?2, ?3)"
    ))?;
    let mut cache = HashMap::new();
    for (position, state) in states.iter().enumerate() {
        let digest = digest_of(state);
        let id = state_id(transaction, &mut cache, digest, &mut find, || {
            let digest = SqlValue::Blob(digest.to_vec());
            insert.execute(params_from_iter(once(digest).chain(state.values())))?;
            Ok(())
        })?;
        link.execute(params![snapshot_id, position as i64, id])?;
    }
    Ok(())
}

fn prune_in(
    transaction: &Transaction<'_>,
    workspace_id: &str,
    retention: Retention,
    now: OffsetDateTime,
) -> Result<usize, HistoryError> {
    let oldest_kept = to_ms(now - retention.max_age);
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
    if doomed.is_empty() {
        return Ok(0);
    }
    for id in &doomed {
        transaction.execute("DELETE FROM snapshot_project WHERE snapshot_id = ?1", [id])?;
        transaction.execute("DELETE FROM snapshot_member WHERE snapshot_id = ?1", [id])?;
        transaction.execute("DELETE FROM snapshot WHERE id = ?1", [id])?;
    }
    transaction.execute(
        "DELETE FROM project_state WHERE id NOT IN (SELECT state_id FROM snapshot_project)
             AND id NOT IN (SELECT state_id FROM review_mark WHERE state_id IS NOT NULL)",
        [],
    )?;
    transaction.execute(
        "DELETE FROM member_state WHERE id NOT IN (SELECT state_id FROM snapshot_member)",
        [],
    )?;
    Ok(doomed.len())
}
